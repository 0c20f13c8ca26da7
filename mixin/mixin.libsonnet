// The kube-lifecycle-exporter mixin: alerts, the Alertmanager inhibitions that make
// one incident one page, and dashboards, configured by _config (config.libsonnet).
(import 'config.libsonnet')
+ (import 'alerts/alerts.libsonnet')
+ (import 'alerts/inhibitions.libsonnet')
+ (import 'dashboards/dashboards.libsonnet')
