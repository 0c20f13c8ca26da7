// Containers that cannot be created or keep crashing.
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local since(metric, labels, matchers='') = |||
      max %s (
        time() - %s
      )
    ||| % [rules.by(c, labels), rules.series(c, metric, matchers)],
    local container = 'Container {{ $labels.container }} of pod {{ $labels.namespace }}/{{ $labels.pod }}%s' % rules.inCluster(c),
    local crash = 'kube_lifecycle_container_crash_looping_since_timestamp_seconds',
    groups+: [{
      name: 'kube-lifecycle-containers',
      rules: [
        rules.alert(c, {
          alert: 'KubeLifecyclePodContainerCreatingStuck',
          expr: since('kube_lifecycle_pod_container_creating_since_timestamp_seconds', ['namespace', 'pod', 'node', 'cause']),
          'for': '10m',
          tier: 'ticket',
          summary: 'A pod is stuck in ContainerCreating.',
          description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }} on node {{ $labels.node }}%s has been creating for {{ $value | humanizeDuration }} ({{ $labels.cause }}).' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleContainerOOMKilledLooping',
          expr: since(crash, ['namespace', 'pod', 'container', 'cause'], 'cause="oom_killed"'),
          'for': '15m',
          tier: 'ticket',
          summary: 'A container is crash-looping because it runs out of memory.',
          description: container + ' has been in CrashLoopBackOff for {{ $value | humanizeDuration }}; its last run was OOMKilled.',
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleContainerCrashLooping',
          expr: since(crash, ['namespace', 'pod', 'container', 'cause'], 'cause!~"oom_killed|liveness_probe|startup_probe"'),
          'for': '15m',
          tier: 'ticket',
          summary: 'A container is crash-looping.',
          description: container + ' has been in CrashLoopBackOff for {{ $value | humanizeDuration }} (last termination: {{ $labels.cause }}).',
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleContainerConfigError',
          expr: since('kube_lifecycle_container_config_error_since_timestamp_seconds', ['namespace', 'pod', 'container', 'cause']),
          'for': '10m',
          tier: 'ticket',
          summary: 'A container cannot be created from its configuration.',
          description: container + ' has failed to be created or started for {{ $value | humanizeDuration }} ({{ $labels.cause }}).',
        }),
      ],
    }],
  },
}
