// alerts/alertmanager.yaml: an example Alertmanager configuration routing by
// severity, with the pack's inhibitions.
local mixin = import '../mixin.libsonnet';
local yaml = import '../lib/yaml.libsonnet';
local c = mixin._config;
local s = c.severities;

|||
  # Example Alertmanager configuration for the kube-lifecycle-exporter alerts,
  # generated from mixin/ (jsonnet): do not edit here; change mixin/ and run
  # `UPDATE_MIXIN=1 cargo test --test mixin`.
  #
  # Routing by severity: %(page)s pages, %(ticket)s opens a ticket, %(info)s goes to a
  # low-traffic channel. Replace the three webhook URLs with your receivers (or swap
  # webhook_configs for pagerduty_configs, slack_configs, ...).
  #
  # Inhibition, where one cause explains many alerts (alerts/README.md):
  #   - KubeLifecycleNodeLost silences the Terminating, Recreate Deployment and
  #     StatefulSet alerts of pods on that node (equal: %(cluster)s, node);
  #   - KubeLifecycleRegistryPullFailing silences the per-pod image pull alerts whose
  #     causes are the registry's (equal: %(cluster)s, registry), never a node's own
  #     image store alert.
  # Running the kubernetes-mixin too? Add alerts/kubernetes-mixin-inhibitions.yaml's
  # rules to inhibit_rules below.
  #
  # The end-to-end tests (tests/end_to_end.rs, tests/incident_replay.rs) run this
  # file, rewritten only in its webhook URLs and its group_wait/group_interval.
||| % { page: s.page, ticket: s.ticket, info: s.info, cluster: c.clusterLabel }
+ yaml.manifest({
  global: { resolve_timeout: '5m' },
  route: {
    receiver: 'tickets',
    group_by: ['alertname', c.clusterLabel, 'namespace'],
    group_wait: '30s',
    group_interval: '5m',
    repeat_interval: '4h',
    routes: [
      { matchers: ['severity="%s"' % s.page], receiver: 'pager', repeat_interval: '1h' },
      { matchers: ['severity="%s"' % s.ticket], receiver: 'tickets' },
      { matchers: ['severity="%s"' % s.info], receiver: 'info', repeat_interval: '24h' },
    ],
  },
  inhibit_rules: mixin.alertmanagerInhibitRules,
  receivers: [
    {
      name: name,
      webhook_configs: [{ url: 'http://alert-receiver.example/%s' % path, send_resolved: true }],
    }
    for name_path in [['pager', 'critical'], ['tickets', 'warning'], ['info', 'info']]
    for name in [name_path[0]]
    for path in [name_path[1]]
  ],
})
