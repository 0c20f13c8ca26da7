// The Grafana dashboards, by file name (grafanaDashboards, as in the
// kubernetes-mixin). Panels and queries are built by lib/panels.libsonnet from
// _config: the cluster label, the findings selector, tags.
(import 'overview.libsonnet')
+ (import 'namespace.libsonnet')
+ (import 'exporter.libsonnet')
