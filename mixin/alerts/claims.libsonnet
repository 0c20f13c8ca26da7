// PersistentVolumeClaims that get no volume, do not go away, or cannot grow.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    groups+: [{
      name: 'kube-lifecycle-claims',
      rules: [
        // One claim and the pods that use it: a ticket. 15 minutes lets a
        // provisioner's transient error (a cloud API timeout) be retried a
        // few times before anyone is asked to look.
        rules.alert(c, {
          alert: 'KubeLifecyclePersistentVolumeClaimStuck',
          firesOn: 'a PersistentVolumeClaim Pending on its provisioner\'s error (missing storage class, quota, driver error) or past `--claim-after` (5m) with no provisioner or volume, Lost, Terminating past `--claim-after` while pods use it, or failing an expansion',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [rules.by(c, ['namespace', 'persistentvolumeclaim', 'storageclass', 'cause']), rules.series(c, 'kube_lifecycle_claim_stuck_since_timestamp_seconds', catalogue.matcher('KubeLifecyclePersistentVolumeClaimStuck'))],
          'for': '15m',
          tier: 'ticket',
          summary: 'A PersistentVolumeClaim is stuck.',
          description: 'PersistentVolumeClaim {{ $labels.namespace }}/{{ $labels.persistentvolumeclaim }}%s{{ with $labels.storageclass }} (storage class {{ . }}){{ end }} has been stuck for {{ $value | humanizeDuration }}: {{ $labels.cause }}.' % rules.inCluster(c),
        }),
      ],
    }],
  },
}
