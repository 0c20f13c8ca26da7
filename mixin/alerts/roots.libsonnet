// Root causes (docs/causes.md): the alerts that speak for one say which root
// cause they fire for, and KubeLifecycleExplainedByRootCause fires for each
// object a firing one explains, so that Alertmanager can inhibit any pack's
// alert about that object (alerts/README.md, "One incident, one notification").
local catalogue = import '../catalogue.json';
local rules = import '../lib/rules.libsonnet';

{
  local c = $._config,

  // The alerts that speak for root causes, and how each names the one it
  // fires for: the label that holds the root's name (none: it fires for every
  // root of its causes in the cluster), the label that holds its root cause
  // (none: its one cause), and whose causes it speaks for when not its own.
  rootAlerts:: {
    local causesOf(alert) = [r.root_cause for r in catalogue.roots.causes if r.alert == alert],
    local spec(alert, name=null, cause=null, of=alert) = (
      local causes = causesOf(of);
      local kinds = std.set([r.root_kind for r in catalogue.roots.causes if std.member(causes, r.root_cause)]);
      assert std.length(causes) > 0 : 'the catalogue names no root cause of %s' % of;
      assert std.length(kinds) == 1 : '%s speaks for roots of several kinds' % alert;
      { kind: kinds[0], name: name, cause: cause, causes: causes }
    ),
    KubeLifecycleNodeLost: spec('KubeLifecycleNodeLost', name='node'),
    KubeLifecyclePodSandboxFailingOnNode: spec('KubeLifecyclePodSandboxFailingOnNode', name='node', cause='cause'),
    KubeLifecyclePodSandboxFailing: spec('KubeLifecyclePodSandboxFailing', cause='cause', of='KubeLifecyclePodSandboxFailingOnNode'),
    KubeLifecycleNodesUnderPressure: spec('KubeLifecycleNodesUnderPressure', cause='cause'),
    KubeLifecycleRegistryPullFailing: spec('KubeLifecycleRegistryPullFailing', name='registry'),
    KubeLifecycleAdmissionWebhookUnreachable: spec('KubeLifecycleAdmissionWebhookUnreachable', name='webhook'),
    KubeLifecycleSchedulerNotScheduling: spec('KubeLifecycleSchedulerNotScheduling'),
    // `claim` is namespace/name, as the root is named (label_join in its rule).
    KubeLifecyclePersistentVolumeClaimStuck: spec('KubeLifecyclePersistentVolumeClaimStuck', name='claim'),
  },

  // The alert that folds: it never notifies.
  explainedAlert:: 'KubeLifecycleExplainedByRootCause',

  prometheusAlerts+:: {
    local roots = $.rootAlerts,
    local victims = rules.series(c, 'kube_lifecycle_root_cause_victim_info'),
    local victimLabels = ['victim_kind', 'namespace', 'pod', 'deployment', 'statefulset', 'daemonset', 'job_name', 'root_kind', 'root_name', 'root_cause'],

    // The series of a root alert's root cause, as a `printf` format and its
    // arguments (the alert's own labels): `{root_kind=..., root_name=...}`.
    local rootSelector(metric, spec, extra='') = (
      local name = if spec.name != null then [', root_name=%q'] else [];
      local cause =
        if spec.cause != null then [', root_cause=%q']
        else if std.length(spec.causes) == 1 then [', root_cause="%s"' % spec.causes[0]]
        else [];
      local args =
        (if spec.name != null then [' $labels.%s' % spec.name] else [])
        + (if spec.cause != null then [' $labels.%s' % spec.cause] else [])
        + [' $labels.%s' % c.clusterLabel];
      {
        format: rules.series(c, metric, 'root_kind="%s"%s%s, %s=%%q%s' % [spec.kind, std.join('', name), std.join('', cause), c.clusterLabel, extra]),
        args: std.join('', args),
      }
    ),

    // The examples in a stable order, by kind, namespace and name (a query's
    // own order is not; sortByLabel is a stable sort, least significant first).
    local byKindAndName = std.join('', [' | sortByLabel "%s"' % l for l in std.reverse(victimLabels[:7])]),

    // What the notification of a root cause's alert says of the incident:
    // its victims by kind, three of them, since when, and the exporter's page
    // of the findings it explains.
    local incident(spec) = (
      local counts = rootSelector('kube_lifecycle_root_cause_victims', spec);
      local examples = rootSelector('kube_lifecycle_root_cause_victim_info', spec);
      local since = rootSelector('kube_lifecycle_root_cause_since_timestamp_seconds', spec);
      local root =
        if spec.name != null then '{{ printf "%s/%%s" $labels.%s | urlquery }}' % [spec.kind, spec.name]
        else spec.kind;
      local cause = if spec.cause != null then '&cause={{ $labels.%s | urlquery }}' % spec.cause else '';
      {
        victims: '{{ range $i, $v := printf `sum by (victim_kind) (%s)`%s | query | sortByLabel "victim_kind" }}{{ if $i }}, {{ end }}{{ $v.Value }} {{ $v.Labels.victim_kind }}{{ if ne $v.Value 1.0 }}s{{ end }}{{ end }}' % [counts.format, counts.args],
        examples: '{{ range $i, $v := printf `%s`%s | query%s }}{{ if lt $i 3 }}{{ if $i }}, {{ end }}{{ $v.Labels.victim_kind }} {{ with $v.Labels.namespace }}{{ . }}/{{ end }}{{ or $v.Labels.pod $v.Labels.deployment $v.Labels.statefulset $v.Labels.daemonset $v.Labels.job_name "*" }}{{ end }}{{ end }}' % [examples.format, examples.args, byKindAndName],
        since: '{{ with printf `min(%s)`%s | query }}{{ . | first | value | humanizeTimestamp }}{{ end }}' % [since.format, since.args],
        findings_url: '%s/?root=%s%s' % [c.exporterURL, root, cause],
      }
    ),

    // A root cause's alert carries its root cause, and says the incident.
    local decorated(rule) = (
      if std.objectHas(roots, rule.alert) then
        local spec = roots[rule.alert];
        rule {
          labels+: { root_kind: spec.kind }
                   + (if spec.name != null then { root_name: '{{ $labels.%s }}' % spec.name } else {})
                   + (if spec.cause != null then { root_cause: '{{ $labels.%s }}' % spec.cause }
                      else if std.length(spec.causes) == 1 then { root_cause: spec.causes[0] }
                      else {}),
          annotations+: incident(spec),
        }
      else rule
    ),

    groups: [g { rules: [decorated(r) for r in g.rules] } for g in super.groups] + [{
      name: 'kube-lifecycle-root-causes',
      rules: [
        // One per object a firing root cause's alert explains: a root cause
        // with a name (a node, a registry, a webhook) by its name, one that
        // fires for every root of its causes (the network plugin everywhere,
        // nodes under pressure, the scheduler) by its cause.
        rules.alert(c, {
          alert: $.explainedAlert,
          firesOn: "an object a root cause explains, while that root cause's alert fires (never notifies: it inhibits the object's other alerts, this pack's and other packs')",
          expr: |||
            max %(by)s (
              %(victims)s
                and on (%(cluster)s, root_kind, root_name)
              ALERTS{alertstate="firing", root_kind!="", root_name!=""}
              or
              %(victims)s
                and on (%(cluster)s, root_kind, root_cause)
              ALERTS{alertstate="firing", root_kind!="", root_name=""}
            )
          ||| % { by: rules.by(c, victimLabels), victims: victims, cluster: c.clusterLabel },
          'for': '0m',
          tier: 'silent',
          summary: 'An object is explained by a root cause whose alert fires: other alerts about it are inhibited.',
          description: '{{ $labels.victim_kind }} {{ with $labels.namespace }}{{ . }}/{{ end }}{{ or $labels.pod $labels.deployment $labels.statefulset $labels.daemonset $labels.job_name "*" }}%s is explained by {{ $labels.root_kind }} {{ $labels.root_name }} ({{ $labels.root_cause }}), whose alert fires; this alert never notifies.' % rules.inCluster(c),
        }),
      ],
    }],
  },
}
