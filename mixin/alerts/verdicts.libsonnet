// The controllers' verdicts, with their cause: a stuck rollout, a StatefulSet
// update that does not roll out, a DaemonSet's unavailable pods, a failed or
// stuck Job, a failed one-off pod. Tickets: the workload's other pods (and
// its older ReplicaSet) keep serving, or the Job reruns. Each carries the
// controller whose pods explain it (owner_kind, owner_name): it stands for
// those pods' own alerts, which it inhibits (alerts/alertmanager.yaml), and
// for the kubernetes-mixin's causeless alert of the same workload. Its `for`
// (7m) sits between the pages that stand for it (5m: a lost node, a failing
// registry) and the quickest per-pod alert it stands for (9m), so that the
// one notification that goes out is the one that explains the others.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local verdict(metric, object) = |||
      max %s (
        time() - %s
      )
    ||| % [
      rules.by(c, ['namespace', object, 'owner_kind', 'owner_name', 'node', 'registry', 'cause', 'pod_cause']),
      rules.series(c, metric),
    ],
    local why = '{{ $labels.cause }}{{ with $labels.pod_cause }}: {{ . }}{{ end }}',
    groups+: [{
      name: 'kube-lifecycle-workload-verdicts',
      rules: [
        rules.alert(c, {
          alert: 'KubeLifecycleDeploymentRolloutStuck',
          firesOn: 'a Deployment short of available pods or whose rollout does not finish, by its pods\' cause (`pod_cause`), else `progress_deadline_exceeded` or `replicas_unavailable`',
          expr: verdict('kube_lifecycle_deployment_rollout_stuck_since_timestamp_seconds', 'deployment'),
          'for': '7m',
          tier: 'ticket',
          summary: 'A Deployment is stuck: its rollout does not progress or its pods are unavailable.',
          description: 'Deployment {{ $labels.namespace }}/{{ $labels.deployment }}%s has been stuck for {{ $value | humanizeDuration }} (%s){{ with $labels.owner_name }}: the pods of ReplicaSet {{ . }} explain it{{ end }}.' % [rules.inCluster(c), why],
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleStatefulSetUpdateStuck',
          firesOn: 'a StatefulSet not rolled out or not Ready, by its lowest ordinal in trouble\'s cause',
          expr: verdict('kube_lifecycle_statefulset_update_stuck_since_timestamp_seconds', 'statefulset'),
          'for': '7m',
          tier: 'ticket',
          summary: 'A StatefulSet update is not rolled out, or its pods are not Ready.',
          description: 'StatefulSet {{ $labels.namespace }}/{{ $labels.statefulset }}%s has been held for {{ $value | humanizeDuration }} by its lowest ordinal in trouble (%s).' % [rules.inCluster(c), why],
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleDaemonSetRolloutStuck',
          firesOn: 'a DaemonSet with unavailable pods, by their cause and node',
          expr: verdict('kube_lifecycle_daemonset_rollout_stuck_since_timestamp_seconds', 'daemonset'),
          'for': '7m',
          tier: 'ticket',
          summary: "A DaemonSet's pods are unavailable on some of its nodes.",
          description: 'DaemonSet {{ $labels.namespace }}/{{ $labels.daemonset }}%s has had unavailable pods for {{ $value | humanizeDuration }} (%s).' % [rules.inCluster(c), why],
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleJobFailed',
          firesOn: 'a Job the job controller failed, by how its pods ended, else its reason (`backoff_limit_exceeded`, `deadline_exceeded`, `pod_failure_policy`, ...)',
          expr: verdict('kube_lifecycle_job_failed_since_timestamp_seconds', 'job_name'),
          'for': '7m',
          tier: 'ticket',
          summary: 'A Job failed.',
          description: 'Job {{ $labels.namespace }}/{{ $labels.job_name }}%s failed {{ $value | humanizeDuration }} ago (%s). Deleting the Job after investigation clears this alert.' % [rules.inCluster(c), why],
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleJobNotCompleted',
          firesOn: 'an active Job whose pods are stuck, or active past `--job-after` (11h) with nothing to show (`running_long`)',
          expr: verdict('kube_lifecycle_job_not_completed_since_timestamp_seconds', 'job_name'),
          'for': '7m',
          tier: 'ticket',
          summary: 'A Job is not completing: its pods are stuck, or it has been active far longer than expected.',
          description: 'Job {{ $labels.namespace }}/{{ $labels.job_name }}%s has not been completing for {{ $value | humanizeDuration }} (%s).' % [rules.inCluster(c), why],
        }),
        rules.alert(c, {
          alert: 'KubeLifecyclePodFailed',
          firesOn: 'a pod of no controller that ended Failed, by how its container ended',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [
            rules.by(c, ['namespace', 'pod', 'container', 'node', 'cause', 'pod_cause']),
            rules.series(c, 'kube_lifecycle_pod_failed_since_timestamp_seconds'),
          ],
          'for': '10m',
          tier: 'ticket',
          summary: 'A pod of no controller failed.',
          description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }}%s failed {{ $value | humanizeDuration }} ago (%s){{ with $labels.container }}, container {{ . }}{{ end }}; no controller will run it again. Deleting the pod after investigation clears this alert.' % [rules.inCluster(c), why],
        }),
      ],
    }],
  },
}
