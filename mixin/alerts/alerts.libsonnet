// The rule groups, in the order the rule file lists them; roots.libsonnet last:
// it marks the alerts that speak for root causes, and adds the one that folds.
(import 'terminating.libsonnet')
+ (import 'workloads.libsonnet')
+ (import 'verdicts.libsonnet')
+ (import 'namespaces.libsonnet')
+ (import 'scheduling.libsonnet')
+ (import 'containers.libsonnet')
+ (import 'probes.libsonnet')
+ (import 'resize.libsonnet')
+ (import 'images.libsonnet')
+ (import 'refused.libsonnet')
+ (import 'exporter.libsonnet')
+ (import 'roots.libsonnet')
