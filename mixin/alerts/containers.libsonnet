// Containers that cannot be created or keep crashing.
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
    local container = 'Container {{ $labels.container }} of pod {{ $labels.namespace }}/{{ $labels.pod }}%s' % rules.inCluster(c),
    local crash = 'kube_lifecycle_container_crash_looping_since_timestamp_seconds',
    local creating(matchers) = rules.series(c, 'kube_lifecycle_pod_container_creating_since_timestamp_seconds', matchers),
    groups+: [{
      name: 'kube-lifecycle-containers',
      rules: [
        rules.alert(c, {
          alert: 'KubeLifecyclePodContainerCreatingStuck',
          firesOn: 'mount or attach failures, or nothing said (not the sandbox causes)',
          expr: since('kube_lifecycle_pod_container_creating_since_timestamp_seconds', ['namespace', 'pod', 'owner_kind', 'owner_name', 'node', 'cause'], catalogue.matcher('KubeLifecyclePodContainerCreatingStuck')),
          'for': '10m',
          tier: 'ticket',
          summary: 'A pod is stuck in ContainerCreating.',
          description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }} on node {{ $labels.node }}%s has been creating for {{ $value | humanizeDuration }} ({{ $labels.cause }}).' % rules.inCluster(c),
        }),
        // A pod sandbox (network, pause image) is the node's: one ticket per node
        // and cause, however many pods wait on it ...
        rules.alert(c, {
          alert: 'KubeLifecyclePodSandboxFailingOnNode',
          firesOn: 'pods on one node without a sandbox (`cni`, `sandbox_image_pull`, `sandbox_other`), one ticket per node and cause',
          expr: |||
            count %s (
              %s
            )
          ||| % [rules.by(c, ['node', 'cause']), creating(catalogue.matcher('KubeLifecyclePodSandboxFailingOnNode'))],
          'for': '8m',
          tier: 'ticket',
          summary: 'A node cannot create pod sandboxes: its pods stay in ContainerCreating.',
          description: '{{ $value }} pod(s) on node {{ $labels.node }}%s cannot get a sandbox ({{ $labels.cause }}): the node\'s network plugin or sandbox (pause) image fails, not the pods.' % rules.inCluster(c),
        }),
        // ... and one page when the same cause fails on several nodes: the network
        // plugin or the sandbox image is broken cluster-wide, and no new pod starts.
        rules.alert(c, {
          alert: 'KubeLifecyclePodSandboxFailing',
          firesOn: 'the same sandbox cause on 2 or more nodes: the network plugin or sandbox image fails cluster-wide',
          expr: |||
            count %s (
              count %s (
                %s
              )
            ) >= %d
          ||| % [rules.by(c, ['cause']), rules.by(c, ['node', 'cause']), creating(catalogue.matcher('KubeLifecyclePodSandboxFailing')), c.sandboxFailingNodes],
          'for': '5m',
          tier: 'page',
          summary: 'Pod sandboxes fail on several nodes: new pods cannot start.',
          description: 'Pods on {{ $value }} nodes%s cannot get a sandbox for the same cause ({{ $labels.cause }}): the network plugin (CNI) or the sandbox image is failing across the cluster, and no new pod starts there. The per-node tickets for this cause are inhibited.' % rules.inCluster(c),
        }),
        // Past --init-after (5m, the finding's own wait), 9 minutes more: 14
        // minutes in all, a minute before the kubernetes-mixin's KubePodNotReady,
        // and later than a workload's verdict (7m), which stands for it.
        rules.alert(c, {
          alert: 'KubeLifecycleInitContainerStuck',
          firesOn: 'a pod\'s start waits past `--init-after` (5m) on an init container that runs and does not finish, or a native sidecar that has not started',
          expr: since('kube_lifecycle_pod_init_container_running_since_timestamp_seconds', ['namespace', 'pod', 'container', 'owner_kind', 'owner_name', 'cause', 'probe_failure']),
          'for': '9m',
          tier: 'ticket',
          summary: "A pod's start waits on an init container that never finishes or a sidecar that never starts.",
          description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }}%s has waited {{ $value | humanizeDuration }} on {{ if eq $labels.cause "running" }}init container {{ $labels.container }}, which runs and does not finish{{ else }}sidecar {{ $labels.container }}, which runs and has not started ({{ $labels.cause }}{{ with $labels.probe_failure }}, {{ . }}{{ end }}){{ end }}.' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecyclePodStuckUnexplained',
          firesOn: 'a pod Pending, not initialized or not Ready past its threshold that no other alert explains (`pod_stuck`)',
          expr: since('kube_lifecycle_pod_stuck_since_timestamp_seconds', ['namespace', 'pod', 'owner_kind', 'owner_name', 'node', 'phase', 'cause']),
          'for': '12m',
          tier: 'ticket',
          summary: 'A pod is stuck and no known cause explains it.',
          description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }}%s has been {{ $labels.phase }} and stuck (Pending, not initialized or not Ready) for {{ $value | humanizeDuration }}, and none of the exporter\'s diagnoses explains it: read its conditions and events on the exporter\'s page.' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleContainerOOMKilledLooping',
          firesOn: 'CrashLoopBackOff after OOMKilled',
          expr: since(crash, ['namespace', 'pod', 'container', 'owner_kind', 'owner_name', 'cause'], catalogue.matcher('KubeLifecycleContainerOOMKilledLooping')),
          'for': '12m',
          tier: 'ticket',
          summary: 'A container is crash-looping because it runs out of memory.',
          description: container + ' has been in CrashLoopBackOff for {{ $value | humanizeDuration }}; its last run was OOMKilled.',
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleContainerCrashLooping',
          firesOn: 'CrashLoopBackOff, other causes',
          expr: since(crash, ['namespace', 'pod', 'container', 'owner_kind', 'owner_name', 'cause'], catalogue.matcher('KubeLifecycleContainerCrashLooping')),
          'for': '12m',
          tier: 'ticket',
          summary: 'A container is crash-looping.',
          description: container + ' has been in CrashLoopBackOff for {{ $value | humanizeDuration }} (last termination: {{ $labels.cause }}).',
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleContainerConfigError',
          firesOn: 'CreateContainerConfigError and friends',
          expr: since('kube_lifecycle_container_config_error_since_timestamp_seconds', ['namespace', 'pod', 'container', 'owner_kind', 'owner_name', 'cause']),
          'for': '10m',
          tier: 'ticket',
          summary: 'A container cannot be created from its configuration.',
          description: container + ' has failed to be created or started for {{ $value | humanizeDuration }} ({{ $labels.cause }}).',
        }),
      ],
    }],
  },
}
