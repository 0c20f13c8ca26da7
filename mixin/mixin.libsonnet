// The kube-lifecycle-exporter mixin: alerts, the Alertmanager inhibitions that make
// one incident one page, notification templates and dashboards, configured by
// _config (config.libsonnet).
(import 'config.libsonnet')
+ (import 'alerts/alerts.libsonnet')
+ (import 'alerts/inhibitions.libsonnet')
+ (import 'dashboards/dashboards.libsonnet')
+ {
  // Alertmanager notification templates that say a root cause's incident
  // (its victims, examples, since when, the exporter's page of it).
  notificationTemplates:: importstr 'templates/kube-lifecycle.tmpl',
}
