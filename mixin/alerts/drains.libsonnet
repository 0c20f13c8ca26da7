// Nodes being drained that keep pods a drain cannot evict.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    groups+: [{
      name: 'kube-lifecycle-drains',
      rules: [
        // One node's upgrade or scale-down waits: a ticket. The finding
        // appears after --drain-after (10m); 5 more minutes raise it at
        // 15, when an EKS managed node group's update gives up on the node.
        rules.alert(c, {
          alert: 'KubeLifecycleNodeDrainBlocked',
          firesOn: 'a node cordoned (or tainted by an autoscaler draining it) past `--drain-after` (10m) with pods a drain cannot evict: a PodDisruptionBudget allowing no disruption, two budgets over one pod, a pod of no controller, Karpenter\'s do-not-disrupt, an autoscaler\'s failed drain',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [rules.by(c, ['node', 'cause', 'namespace', 'pod', 'poddisruptionbudget']), rules.series(c, 'kube_lifecycle_node_drain_blocked_since_timestamp_seconds', catalogue.matcher('KubeLifecycleNodeDrainBlocked'))],
          'for': '5m',
          tier: 'ticket',
          summary: 'A node being drained keeps pods that cannot be evicted.',
          description: 'Node {{ $labels.node }}%s has been draining for {{ $value | humanizeDuration }} and keeps pods that cannot be evicted: {{ $labels.cause }}{{ with $labels.pod }}, pod {{ $labels.namespace }}/{{ . }}{{ end }}{{ with $labels.poddisruptionbudget }}, PodDisruptionBudget {{ . }}{{ end }}.' % rules.inCluster(c),
          // A drain held by a budget short of healthy pods: the mixin says the
          // budget lacks healthy pods, this pack says which drain waits on it.
          // The alert names the budget as kube-state-metrics does.
          silences: [{ alerts: ['KubePdbNotEnoughHealthyPods'], equal: ['namespace', 'poddisruptionbudget'] }],
        }),
      ],
    }],
  },
}
