// alerts/kube-lifecycle.rules.yaml: `jsonnet -S mixin/render/rules.jsonnet`.
local mixin = import '../mixin.libsonnet';
local yaml = import '../lib/yaml.libsonnet';
|||
  # kube-lifecycle-exporter alert rules, generated from mixin/ (jsonnet): do not edit
  # here; change mixin/ and run `UPDATE_MIXIN=1 cargo test --test mixin`.
  #
  # A plain Prometheus rule file: load it with `rule_files:`, or through the
  # PrometheusRule in deploy/ (generated from this file). Every alert carries
  # `severity`, `summary`, `description` and `runbook_url`. Severities follow the
  # policy in alerts/README.md; alerts/alertmanager.yaml holds the inhibitions.
  #
  # runbook_url: every address is %s. Point it
  # at where your copy of docs/runbooks is published with the mixin's
  # `runbookURLPattern` (the exporter serves them itself under /runbooks).
  #
  # Aggregations keep the labels that identify the object and `%s`, so the rules
  # work unchanged when Prometheus adds that label, and several exporter replicas or
  # shards never double an alert.
||| % [mixin._config.runbookURLPattern % '<alert name in lower case>', mixin._config.clusterLabel]
+ yaml.manifest(mixin.prometheusAlerts)
