// PersistentVolumeClaims that get no volume, do not go away, or cannot grow.
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    groups+: [{
      name: 'kube-lifecycle-claims',
      rules: [
        // One claim and the pods that use it: a ticket, and the root cause
        // of the pods Pending on it (alerts/roots.libsonnet): `claim` names
        // it as its root (namespace/name). 12 minutes lets a provisioner's
        // transient error (a cloud API timeout) be retried a few times, and
        // is 2 minutes before the kubernetes-mixin's alerts about the pods and
        // workloads it leaves waiting (KubePodNotReady,
        // KubeStatefulSetReplicasMismatch: 15m), which it folds.
        rules.alert(c, {
          alert: 'KubeLifecyclePersistentVolumeClaimStuck',
          firesOn: 'a PersistentVolumeClaim Pending on its provisioner\'s error (missing storage class, quota, driver error) or past `--claim-after` (5m) with no provisioner or volume, Lost, Terminating past `--claim-after` while pods use it, or failing an expansion; the root cause (`claim`) of the pods Pending on it (`claim_stuck`) and their workloads',
          expr: |||
            label_join(
              max %s (
                time() - %s
              ),
              "claim", "/", "namespace", "persistentvolumeclaim"
            )
          ||| % [rules.by(c, ['namespace', 'persistentvolumeclaim', 'storageclass', 'cause']), rules.series(c, 'kube_lifecycle_claim_stuck_since_timestamp_seconds')],
          'for': '12m',
          tier: 'ticket',
          summary: 'A PersistentVolumeClaim is stuck.',
          description: 'PersistentVolumeClaim {{ $labels.namespace }}/{{ $labels.persistentvolumeclaim }}%s{{ with $labels.storageclass }} (storage class {{ . }}){{ end }} has been stuck for {{ $value | humanizeDuration }}: {{ $labels.cause }}.' % rules.inCluster(c),
          // A claim whose expansion fails is why the mixin's prediction that its
          // volume fills up comes true: one ticket, ours, naming the resizer's
          // error. Only the predicted (warning, 1h) alerts: the critical ones
          // (under 3% free, 1m) fire before ours can. KubePersistentVolumeErrors
          // is about a PersistentVolume Failed or Pending, none a stuck claim has
          // (a Pending claim has none, a Lost one's is gone), and fires at 5m.
          silences: [{
            alerts: ['KubePersistentVolumeFillingUp', 'KubePersistentVolumeInodesFillingUp'],
            matchers: ['cause=~"resize_failed|resize_infeasible"'],
            targetMatchers: ['severity="warning"'],
            equal: ['namespace', 'persistentvolumeclaim'],
          }],
        }),
      ],
    }],
  },
}
