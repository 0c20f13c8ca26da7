// deploy/overlays/kube-prometheus-stack/alertmanager-values.yaml: Helm values for
// the kube-prometheus-stack chart that add this pack's inhibitions.
local mixin = import '../mixin.libsonnet';
local yaml = import '../lib/yaml.libsonnet';

// The chart's own default inhibit_rules (charts/kube-prometheus-stack/values.yaml,
// chart 88.5.3): Helm replaces a list given in a values file instead of merging
// it, so the values below repeat them.
local chartDefaults = [
  {
    source_matchers: ['severity = critical'],
    target_matchers: ['severity =~ warning|info'],
    equal: ['namespace', 'alertname'],
  },
  {
    source_matchers: ['severity = warning'],
    target_matchers: ['severity = info'],
    equal: ['namespace', 'alertname'],
  },
  {
    source_matchers: ['alertname = InfoInhibitor'],
    target_matchers: ['severity = info'],
    equal: ['namespace'],
  },
  { target_matchers: ['alertname = InfoInhibitor'] },
];

|||
  # Helm values for kube-prometheus-stack: its Alertmanager gets this pack's
  # inhibitions (alerts/alertmanager.yaml) and the ones that silence the
  # kubernetes-mixin's generic alert when this pack's precise one fires for the same
  # object (alerts/kubernetes-mixin-inhibitions.yaml).
  #
  #   helm upgrade <release> prometheus-community/kube-prometheus-stack -n <namespace> \
  #     --reuse-values -f deploy/overlays/kube-prometheus-stack/alertmanager-values.yaml
  #
  # Helm replaces lists rather than merging them, so the chart's own default
  # inhibit_rules (chart 88.5.3) come first; if you set inhibit_rules yourself, merge
  # by hand. Generated from mixin/ (jsonnet): do not edit here; change mixin/ and run
  # `UPDATE_MIXIN=1 cargo test --test mixin`.
|||
+ yaml.manifest({
  alertmanager: {
    config: {
      inhibit_rules: chartDefaults + mixin.alertmanagerInhibitRules + mixin.kubernetesMixinInhibitRules,
    },
  },
})
