// Workloads that cannot create pods because of pods that will not go.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    groups+: [{
      name: 'kube-lifecycle-workloads',
      rules: [
        // On the blocking-pod count rather than the "since" gauge, so that old pods
        // nobody deletes (cause not_deleted, no deletion time) page too. `node` is
        // the node of the blocking pod whose cause is reported, so that
        // KubeLifecycleNodeLost inhibits this alert when that node is lost.
        rules.alert(c, {
          alert: 'KubeLifecycleDeploymentRecreateBlocked',
          firesOn: 'Recreate Deployment waiting on an old pod (any cause but `graceful`, `not_deleted` included); inhibited by KubeLifecycleNodeLost for its node',
          expr: |||
            max %s (
              %s
            ) > 0
          ||| % [
            rules.by(c, ['namespace', 'deployment', 'node', 'cause']),
            rules.series(c, 'kube_lifecycle_recreate_blocked_by_terminating', 'deployment!="", ' + catalogue.matcher('KubeLifecycleDeploymentRecreateBlocked')),
          ],
          'for': '10m',
          tier: 'page',
          summary: 'A Recreate Deployment creates no new pods while an old one is not gone.',
          description: 'Deployment {{ $labels.namespace }}/{{ $labels.deployment }}%s (strategy Recreate) creates nothing new: {{ $value }} pod(s) of an old ReplicaSet are still there, the oldest {{ if eq $labels.cause "not_deleted" }}not even deleted{{ else }}Terminating ({{ $labels.cause }}){{ with $labels.node }} on node {{ . }}{{ end }}{{ end }}' % rules.inCluster(c)
                       + '{{ with printf `max(time() - %s{%s=%%q, namespace=%%q, deployment=%%q})` $labels.%s $labels.namespace $labels.deployment | query }}{{ with . }} for {{ . | first | value | humanizeDuration }}{{ end }}{{ end }}.' % [
            rules.series(c, 'kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds'),
            c.clusterLabel,
            c.clusterLabel,
          ],
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleStatefulSetPodStuck',
          firesOn: 'StatefulSet ordinal blocked by a Terminating pod (not `graceful`); inhibited by KubeLifecycleNodeLost for its node',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [
            rules.by(c, ['namespace', 'statefulset', 'pod', 'node', 'cause']),
            rules.series(c, 'kube_lifecycle_statefulset_blocked_since_timestamp_seconds', catalogue.matcher('KubeLifecycleStatefulSetPodStuck')),
          ],
          'for': '10m',
          tier: 'ticket',
          summary: 'A StatefulSet cannot recreate a pod stuck Terminating.',
          description: 'StatefulSet {{ $labels.namespace }}/{{ $labels.statefulset }}%s cannot recreate {{ $labels.pod }}: it has been Terminating{{ with $labels.node }} on node {{ . }}{{ end }} for {{ $value | humanizeDuration }} ({{ $labels.cause }}).' % rules.inCluster(c),
        }),
        // A Job is one workload's batch run: a ticket. `node` as above, so that a
        // lost node's page covers it.
        rules.alert(c, {
          alert: 'KubeLifecycleJobBlockedByTerminating',
          firesOn: 'a Job waiting for a pod stuck Terminating (not `graceful`): it replaces pods only once gone (`podReplacementPolicy: Failed`) or its outcome waits for its pods; inhibited by KubeLifecycleNodeLost for its node',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [
            rules.by(c, ['namespace', 'job_name', 'pod', 'node', 'cause']),
            rules.series(c, 'kube_lifecycle_job_blocked_since_timestamp_seconds', catalogue.matcher('KubeLifecycleJobBlockedByTerminating')),
          ],
          'for': '10m',
          tier: 'ticket',
          summary: 'A Job waits for a pod stuck Terminating.',
          description: 'Job {{ $labels.namespace }}/{{ $labels.job_name }}%s waits for pod {{ $labels.pod }}, Terminating{{ with $labels.node }} on node {{ . }}{{ end }} for {{ $value | humanizeDuration }} ({{ $labels.cause }}): it creates no replacement (podReplacementPolicy Failed), or its outcome is not written, until the pod is gone.' % rules.inCluster(c),
        }),
        // 10m like the kubernetes-mixin's KubeDaemonSetNotScheduled, which this one
        // inhibits: the precise alert must not come second.
        rules.alert(c, {
          alert: 'KubeLifecycleDaemonSetUnscheduled',
          firesOn: 'DaemonSet missing from eligible nodes',
          expr: |||
            max %s (
              %s
            ) > 0
          ||| % [
            rules.by(c, ['namespace', 'daemonset', 'cause']),
            rules.series(c, 'kube_lifecycle_daemonset_unscheduled_nodes'),
          ],
          'for': '8m',
          tier: 'ticket',
          summary: 'A DaemonSet is missing from nodes it should run on.',
          description: 'DaemonSet {{ $labels.namespace }}/{{ $labels.daemonset }}%s has no pod on {{ $value }} eligible node(s) ({{ $labels.cause }}).' % rules.inCluster(c),
        }),
      ],
    }],
  },
}
