// In-place pod resizes the kubelet cannot make.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    groups+: [{
      name: 'kube-lifecycle-resize',
      rules: [
        // A deferred resize may get room within minutes; one that is
        // infeasible or failed will not fix itself, but still concerns one pod.
        rules.alert(c, {
          alert: 'KubeLifecyclePodResizeStuck',
          firesOn: 'a pod\'s in-place resize the kubelet finds infeasible, defers, or failed making',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [rules.by(c, ['namespace', 'pod', 'owner_kind', 'owner_name', 'resource', 'cause']), rules.series(c, 'kube_lifecycle_pod_resize_since_timestamp_seconds', catalogue.matcher('KubeLifecyclePodResizeStuck'))],
          'for': '10m',
          tier: 'ticket',
          summary: "A pod's in-place resize is not being made.",
          description: 'The in-place resize of pod {{ $labels.namespace }}/{{ $labels.pod }}%s has been stuck for {{ $value | humanizeDuration }}: the kubelet reports it {{ $labels.cause }}{{ with $labels.resource }} ({{ . }}){{ end }}.' % rules.inCluster(c),
        }),
      ],
    }],
  },
}
