// Pods that are not bound to a node.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local pending(matchers) = rules.series(c, 'kube_lifecycle_pod_pending_since_timestamp_seconds', matchers),
    groups+: [{
      name: 'kube-lifecycle-scheduling',
      rules: [
        rules.alert(c, {
          alert: 'KubeLifecyclePodUnschedulable',
          firesOn: 'unschedulable, by the scheduler\'s main reason (not node pressure)',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [rules.by(c, ['namespace', 'pod', 'owner_kind', 'owner_name', 'cause']), pending(catalogue.matcher('KubeLifecyclePodUnschedulable'))],
          'for': '12m',
          tier: 'ticket',
          summary: 'A pod cannot be scheduled.',
          description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }}%s has been unschedulable for {{ $value | humanizeDuration }}; the scheduler\'s main reason is {{ $labels.cause }}.' % rules.inCluster(c),
        }),
        // A scheduler the cluster uses (it has bound pods, or it is
        // default-scheduler) leaves pods untouched: every new pod of every workload
        // that uses it waits. A schedulerName nothing serves is one pod spec's
        // mistake: KubeLifecyclePodSchedulerUnknown, a ticket.
        rules.alert(c, {
          alert: 'KubeLifecycleSchedulerNotScheduling',
          firesOn: 'pods that a scheduler the cluster uses never touches (`not_scheduled`)',
          expr: |||
            count %s (
              max %s (
                %s
              )
            )
          ||| % [rules.by(c, []), rules.by(c, ['namespace', 'pod']), pending(catalogue.matcher('KubeLifecycleSchedulerNotScheduling'))],
          'for': '8m',
          tier: 'page',
          summary: 'Pods are not being scheduled at all.',
          description: '{{ $value }} pod(s)%s have no node and no PodScheduled condition long after creation, although their schedulerName is a scheduler the cluster uses: that scheduler is down or not working.' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleNodesUnderPressure',
          firesOn: 'pods unschedulable because nodes report disk, memory or PID pressure (Ready nodes, not lost ones), one alert per pressure',
          expr: |||
            count %s (
              max %s (
                %s
              )
            )
          ||| % [rules.by(c, ['cause']), rules.by(c, ['namespace', 'pod', 'cause']), pending(catalogue.matcher('KubeLifecycleNodesUnderPressure'))],
          'for': '8m',
          tier: 'ticket',
          summary: 'Pods cannot be scheduled because nodes are under disk, memory or PID pressure.',
          description: '{{ $value }} pod(s)%s cannot be scheduled because nodes report {{ $labels.cause }}: those nodes are Ready but out of the resource their kubelet evicts for, and take no new pod until it is freed. The exporter\'s page names the nodes.' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecyclePodSchedulerUnknown',
          firesOn: 'a pod naming a scheduler nothing serves (`unknown_scheduler`: a typo)',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [rules.by(c, ['namespace', 'pod', 'owner_kind', 'owner_name', 'cause']), pending(catalogue.matcher('KubeLifecyclePodSchedulerUnknown'))],
          'for': '12m',
          tier: 'ticket',
          summary: 'A pod names a scheduler that nothing in the cluster serves.',
          description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }}%s was created {{ $value | humanizeDuration }} ago and no scheduler has touched it: its spec.schedulerName is not default-scheduler and no pod in the cluster was ever bound by a scheduler of that name (a typo, or a scheduler that is not installed).' % rules.inCluster(c),
        }),
        // Gates are held on purpose, for a while (a queue's admission, a
        // controller's preparation); a gate held past --gated-after is a
        // controller that forgot, or cannot, remove it.
        rules.alert(c, {
          alert: 'KubeLifecyclePodSchedulingGated',
          firesOn: 'a pod held by its scheduling gates longer than `--gated-after` (`gated_too_long`: the gate\'s controller does not remove it)',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [rules.by(c, ['namespace', 'pod', 'owner_kind', 'owner_name', 'cause']), pending(catalogue.matcher('KubeLifecyclePodSchedulingGated'))],
          'for': '10m',
          tier: 'ticket',
          summary: 'A pod has been held by its scheduling gates too long.',
          description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }}%s has been held by spec.schedulingGates for {{ $value | humanizeDuration }} (longer than the exporter\'s --gated-after): the controller that owns a gate has not removed it. The exporter\'s page names the gates.' % rules.inCluster(c),
        }),
      ],
    }],
  },
}
