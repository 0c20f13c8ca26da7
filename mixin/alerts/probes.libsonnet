// Pods their probes hold down, and pods thrown out of their nodes. A liveness
// or startup probe killing a container, and a pod not Ready, are one pod's:
// tickets. Evictions are counted by the watch as they happen; a burst of them
// in a namespace (node pressure, a drain, preemption) is a ticket too, since
// the controllers recreate the pods elsewhere.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local since(metric, labels, matchers='') = |||
      max %s (
        time() - %s
      )
    ||| % [rules.by(c, labels), rules.series(c, metric, matchers)],
    groups+: [{
      name: 'kube-lifecycle-probes',
      rules: [
        rules.alert(c, {
          alert: 'KubeLifecycleContainerProbeKilled',
          firesOn: 'CrashLoopBackOff because the liveness or startup probe kills the container (`liveness_probe`, `startup_probe`), by what the probe says',
          expr: since('kube_lifecycle_container_crash_looping_since_timestamp_seconds', ['namespace', 'pod', 'container', 'owner_kind', 'owner_name', 'cause', 'probe_failure'], catalogue.matcher('KubeLifecycleContainerProbeKilled')),
          'for': '12m',
          tier: 'ticket',
          summary: 'A container is crash-looping because its liveness or startup probe kills it.',
          description: 'Container {{ $labels.container }} of pod {{ $labels.namespace }}/{{ $labels.pod }}%s has been in CrashLoopBackOff for {{ $value | humanizeDuration }}; the kubelet kills it because its {{ $labels.cause }} fails ({{ $labels.probe_failure }}).' % rules.inCluster(c),
        }),
        // Past --not-ready-after (5m), 9 minutes more: 14 minutes after the
        // pod stopped being Ready, a minute before the kubernetes-mixin's
        // KubePodNotReady, and later than a workload's verdict (7m).
        rules.alert(c, {
          alert: 'KubeLifecyclePodNotReady',
          firesOn: 'a Running pod not Ready for longer than `--not-ready-after` (5m), by cause (readiness probe, containers, readiness gate)',
          expr: since('kube_lifecycle_pod_not_ready_since_timestamp_seconds', ['namespace', 'pod', 'container', 'owner_kind', 'owner_name', 'cause', 'probe_failure']),
          'for': '9m',
          tier: 'ticket',
          summary: 'A running pod has not been Ready for a long time.',
          description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }}%s has been Running but not Ready for {{ $value | humanizeDuration }} ({{ $labels.cause }}{{ with $labels.container }}, container {{ . }}{{ end }}{{ with $labels.probe_failure }}, {{ . }}{{ end }}).' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecyclePodEvictions',
          firesOn: '5 or more evictions of one cause in a namespace within 15 minutes, counted by the watch',
          expr: |||
            sum %s (
              increase(%s[15m])
            ) >= %d
          ||| % [
            rules.by(c, ['namespace', 'cause']),
            rules.series(c, 'kube_lifecycle_pod_evictions_total'),
            c.evictionBurst,
          ],
          'for': '0m',
          tier: 'ticket',
          summary: 'Pods are being evicted in a burst.',
          description: '{{ $value | humanize }} pods of namespace {{ $labels.namespace }}%s were evicted or rejected in the last 15 minutes ({{ $labels.cause }}).' % rules.inCluster(c),
        }),
      ],
    }],
  },
}
