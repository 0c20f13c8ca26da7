// The rule groups, in the order the rule file lists them.
(import 'terminating.libsonnet')
+ (import 'workloads.libsonnet')
+ (import 'namespaces.libsonnet')
+ (import 'scheduling.libsonnet')
+ (import 'containers.libsonnet')
+ (import 'images.libsonnet')
+ (import 'refused.libsonnet')
+ (import 'exporter.libsonnet')
