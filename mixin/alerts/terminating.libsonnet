// Pods stuck Terminating, and the node that explains many of them at once.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local since(cause) = |||
      max %s (
        time() - %s
      )
    ||| % [
      rules.by(c, ['namespace', 'pod', 'owner_kind', 'owner_name', 'node', 'cause']),
      rules.series(c, 'kube_lifecycle_pod_terminating_since_timestamp_seconds', cause),
    ],
    local deleted = 'Pod {{ $labels.namespace }}/{{ $labels.pod }}%s' % rules.inCluster(c),
    local onNode = 'Pod {{ $labels.namespace }}/{{ $labels.pod }} on node {{ $labels.node }}%s' % rules.inCluster(c),

    groups+: [{
      name: 'kube-lifecycle-terminating',
      rules: [
        rules.alert(c, {
          alert: 'KubeLifecyclePodTerminatingFinalizers',
          firesOn: 'pod past its deadline held by `metadata.finalizers`',
          expr: since(catalogue.matcher('KubeLifecyclePodTerminatingFinalizers')),
          'for': '10m',
          tier: 'ticket',
          summary: 'A pod is held in Terminating by finalizers.',
          description: deleted + ' was deleted {{ $value | humanizeDuration }} ago; its containers are gone but metadata.finalizers is not empty, so the object stays until the controller that owns the finalizer removes it.',
        }),
        // One page per lost node. Every pod, Recreate Deployment and StatefulSet
        // alert whose blocking pod sits on the node carries its `node` label and is
        // inhibited by this one (alerts/alertmanager.yaml); their `for` is at least
        // this one's, so the page that goes out is this one.
        rules.alert(c, {
          alert: 'KubeLifecycleNodeLost',
          firesOn: 'pods past their deadline on a NotReady or deleted node, one alert per node',
          expr: |||
            count %s (
              max %s (
                %s
              )
            )
          ||| % [
            rules.by(c, ['node']),
            rules.by(c, ['namespace', 'pod', 'node']),
            rules.series(c, 'kube_lifecycle_pod_terminating_since_timestamp_seconds', catalogue.matcher('KubeLifecycleNodeLost')),
          ],
          'for': '5m',
          tier: 'page',
          summary: 'Pods on a lost node cannot finish Terminating, and workloads wait on them.',
          description: '{{ $value }} pod(s) on node {{ $labels.node }}%s are past their deletion deadline and the node is NotReady, unreachable or gone: no kubelet will confirm they stopped.' % rules.inCluster(c)
                       + '{{ with printf `count(max by (namespace, deployment) (%s{deployment!="", %s=%%q, node=%%q}))` $labels.%s $labels.node | query }}{{ with . | first | value }} Recreate Deployments waiting on them: {{ . }}.{{ end }}{{ end }}' % ['kube_lifecycle_recreate_blocked_by_terminating', c.clusterLabel, c.clusterLabel]
                       + '{{ with printf `count(max by (namespace, statefulset) (%s{%s=%%q, node=%%q}))` $labels.%s $labels.node | query }}{{ with . | first | value }} StatefulSets waiting on them: {{ . }}.{{ end }}{{ end }}' % ['kube_lifecycle_statefulset_blocked_since_timestamp_seconds', c.clusterLabel, c.clusterLabel]
                       + ' Their own alerts are inhibited by this one.',
        }),
        rules.alert(c, {
          alert: 'KubeLifecyclePodTerminatingNodeLost',
          firesOn: 'the same, per pod (inhibited by KubeLifecycleNodeLost)',
          expr: since(catalogue.matcher('KubeLifecyclePodTerminatingNodeLost')),
          'for': '10m',
          tier: 'ticket',
          summary: 'A pod stays Terminating because its node is lost.',
          description: deleted + ' was deleted {{ $value | humanizeDuration }} ago and its node {{ $labels.node }} is {{ if eq $labels.cause "node_missing" }}gone{{ else }}NotReady{{ end }} ({{ $labels.cause }}).',
        }),
        rules.alert(c, {
          alert: 'KubeLifecyclePodTerminatingContainersRunning',
          firesOn: 'runtime does not stop the containers',
          expr: since(catalogue.matcher('KubeLifecyclePodTerminatingContainersRunning')),
          'for': '10m',
          tier: 'ticket',
          summary: "The container runtime does not stop a deleted pod's containers.",
          description: onNode + ' was deleted {{ $value | humanizeDuration }} ago and is past its grace period with a container still running (or a kill that failed): the runtime is not answering StopContainer.',
        }),
        rules.alert(c, {
          alert: 'KubeLifecyclePodTerminatingCleanupStuck',
          firesOn: 'containers gone, kubelet cannot clean up (unmount)',
          expr: since(catalogue.matcher('KubeLifecyclePodTerminatingCleanupStuck')),
          'for': '10m',
          tier: 'ticket',
          summary: "A deleted pod's containers are gone but the kubelet cannot clean it up.",
          description: onNode + ' was deleted {{ $value | humanizeDuration }} ago; no container runs and no finalizer holds it, yet the kubelet has not removed it: usually a volume that cannot be unmounted.',
        }),
        rules.alert(c, {
          alert: 'KubeLifecyclePodTerminatingStuck',
          firesOn: 'past the deadline for no known reason',
          expr: since(catalogue.matcher('KubeLifecyclePodTerminatingStuck')),
          'for': '12m',
          tier: 'ticket',
          summary: 'A pod is stuck Terminating for no reason the exporter recognises.',
          description: deleted + ' was deleted {{ $value | humanizeDuration }} ago and is past its grace period.',
        }),
      ],
    }],
  },
}
