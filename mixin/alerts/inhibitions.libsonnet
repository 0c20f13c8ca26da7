local catalogue = import '../lib/catalogue.libsonnet';
// Alertmanager inhibitions: where one alert explains others, the others stay quiet.
// Rendered into alerts/alertmanager.yaml (this pack's own), alerts/
// kubernetes-mixin-inhibitions.yaml (this pack's precise alerts silencing the
// kubernetes-mixin's generic ones for the same object) and the kube-prometheus-stack
// overlay's values.
{
  local c = $._config,
  local names(list) = 'alertname=~"%s"' % std.join('|', list),

  // Inhibition within the pack. Every inhibiting alert fires at least two
  // minutes before its targets (tests/artifacts/alert_rules.rs), so the notification that
  // goes out is the one that explains the others.
  // The alerts that speak for one pod (or one of its containers): a
  // workload's verdict stands for those of its pods.
  local perPodAlerts = catalogue.scoped('pod'),
  local verdictAlerts = [
    'KubeLifecycleDeploymentRolloutStuck',
    'KubeLifecycleStatefulSetUpdateStuck',
    'KubeLifecycleDaemonSetRolloutStuck',
    'KubeLifecycleJobFailed',
    'KubeLifecycleJobNotCompleted',
  ],

  alertmanagerInhibitRules:: [
    {
      // A lost node: its pods' Terminating alerts, and the Recreate Deployments
      // and StatefulSets whose blocking pod sits on it.
      source_matchers: ['alertname="KubeLifecycleNodeLost"'],
      target_matchers: [names([
        'KubeLifecyclePodTerminating.+',
        'KubeLifecycleDeploymentRecreateBlocked',
        'KubeLifecycleStatefulSetPodStuck',
        'KubeLifecycleJobBlockedByTerminating',
        'KubeLifecycleNamespaceTerminatingContent',
      ] + verdictAlerts)],
      equal: [c.clusterLabel, 'node'],
    },
    {
      // One ticket per workload: its verdict (with its cause) stands for the
      // alerts of the pods it names, those of the controller in its owner_kind
      // and owner_name (a Deployment's newest ReplicaSet, the StatefulSet, the
      // DaemonSet, the Job).
      source_matchers: [names(verdictAlerts)],
      target_matchers: [names(perPodAlerts)],
      equal: [c.clusterLabel, 'namespace', 'owner_kind', 'owner_name'],
    },
    {
      // A workload stuck on a failing registry: the registry's page covers it.
      source_matchers: ['alertname="KubeLifecycleRegistryPullFailing"'],
      target_matchers: [names(verdictAlerts), 'cause="image_pull"'],
      equal: [c.clusterLabel, 'registry'],
    },
    {
      // Pod sandboxes failing for one cause on several nodes: the per-node
      // tickets for that cause.
      source_matchers: ['alertname="KubeLifecyclePodSandboxFailing"'],
      target_matchers: ['alertname="KubeLifecyclePodSandboxFailingOnNode"'],
      equal: [c.clusterLabel, 'cause'],
    },
    {
      // A failing registry: the per-pod alerts whose causes are the registry's.
      // Not KubeLifecycleImagePullNodeImageStore: a node's own image store is
      // never explained by a registry.
      source_matchers: ['alertname="KubeLifecycleRegistryPullFailing"'],
      target_matchers: [names([
        'KubeLifecycleImagePullUnauthorized',
        'KubeLifecycleImagePullNotFound',
        'KubeLifecycleImagePullRegistryUnreachable',
        'KubeLifecycleImagePullRateLimited',
        'KubeLifecycleContainerImagePullFailing',
      ])],
      equal: [c.clusterLabel, 'registry'],
    },
    {
      // An admission webhook that cannot be called: the workloads whose pods it
      // refuses (their tickets name the webhook).
      source_matchers: ['alertname="KubeLifecycleAdmissionWebhookUnreachable"'],
      target_matchers: ['alertname="KubeLifecyclePodCreateRefused"'],
      equal: [c.clusterLabel, 'webhook'],
    },
  ],

  // This pack's alert (source) says why; the kubernetes-mixin's (target) only that.
  // Alert names and labels as the kubernetes-mixin defines them
  // (alerts/apps_alerts.libsonnet, kubelet.libsonnet, kube_scheduler.libsonnet).
  kubernetesMixinInhibitRules:: [
    {
      source_matchers: [names(['KubeLifecycleContainerCrashLooping', 'KubeLifecycleContainerOOMKilledLooping', 'KubeLifecycleContainerProbeKilled'])],
      target_matchers: ['alertname="KubePodCrashLooping"'],
      equal: [c.clusterLabel, 'namespace', 'pod', 'container'],
    },
    {
      source_matchers: [names([
        'KubeLifecycleImagePull.+',
        'KubeLifecycleContainerImagePullFailing',
        'KubeLifecycleContainerConfigError',
      ])],
      target_matchers: ['alertname="KubeContainerWaiting"'],
      equal: [c.clusterLabel, 'namespace', 'pod', 'container'],
    },
    {
      // ContainerCreating is pod-wide: every container of the pod waits; so do
      // the containers after an init container that never finishes.
      source_matchers: [names(['KubeLifecyclePodContainerCreatingStuck', 'KubeLifecycleInitContainerStuck'])],
      target_matchers: ['alertname="KubeContainerWaiting"'],
      equal: [c.clusterLabel, 'namespace', 'pod'],
    },
    {
      source_matchers: [names([
        'KubeLifecyclePod.+',
        'KubeLifecycleContainer.+',
        'KubeLifecycleImagePull.+',
        'KubeLifecycleInitContainerStuck',
      ])],
      target_matchers: ['alertname="KubePodNotReady"'],
      equal: [c.clusterLabel, 'namespace', 'pod'],
    },
    {
      source_matchers: ['alertname="KubeLifecycleDeploymentRecreateBlocked"'],
      target_matchers: [names(['KubeDeploymentRolloutStuck', 'KubeDeploymentReplicasMismatch'])],
      equal: [c.clusterLabel, 'namespace', 'deployment'],
    },
    {
      source_matchers: ['alertname="KubeLifecycleJobBlockedByTerminating"'],
      target_matchers: ['alertname="KubeJobNotCompleted"'],
      equal: [c.clusterLabel, 'namespace', 'job_name'],
    },
    // The controllers' verdicts, with their cause, silence the mixin's
    // causeless alerts for the same workload.
    {
      source_matchers: ['alertname="KubeLifecycleDeploymentRolloutStuck"'],
      target_matchers: [names(['KubeDeploymentRolloutStuck', 'KubeDeploymentReplicasMismatch'])],
      equal: [c.clusterLabel, 'namespace', 'deployment'],
    },
    {
      source_matchers: ['alertname="KubeLifecycleStatefulSetUpdateStuck"'],
      target_matchers: [names(['KubeStatefulSetUpdateNotRolledOut', 'KubeStatefulSetReplicasMismatch'])],
      equal: [c.clusterLabel, 'namespace', 'statefulset'],
    },
    {
      source_matchers: ['alertname="KubeLifecycleDaemonSetRolloutStuck"'],
      target_matchers: ['alertname="KubeDaemonSetRolloutStuck"'],
      equal: [c.clusterLabel, 'namespace', 'daemonset'],
    },
    {
      source_matchers: ['alertname="KubeLifecycleJobFailed"'],
      target_matchers: ['alertname="KubeJobFailed"'],
      equal: [c.clusterLabel, 'namespace', 'job_name'],
    },
    {
      source_matchers: ['alertname="KubeLifecycleJobNotCompleted"'],
      target_matchers: ['alertname="KubeJobNotCompleted"'],
      equal: [c.clusterLabel, 'namespace', 'job_name'],
    },
    {
      source_matchers: ['alertname="KubeLifecycleStatefulSetPodStuck"'],
      target_matchers: [names(['KubeStatefulSetReplicasMismatch', 'KubeStatefulSetUpdateNotRolledOut'])],
      equal: [c.clusterLabel, 'namespace', 'statefulset'],
    },
    {
      source_matchers: ['alertname="KubeLifecycleDaemonSetUnscheduled"'],
      target_matchers: [names(['KubeDaemonSetNotScheduled', 'KubeDaemonSetRolloutStuck'])],
      equal: [c.clusterLabel, 'namespace', 'daemonset'],
    },
    {
      source_matchers: ['alertname="KubeLifecycleNodeLost"'],
      target_matchers: [names(['KubeNodeNotReady', 'KubeNodeUnreachable'])],
      equal: [c.clusterLabel, 'node'],
    },
    {
      // KubeSchedulerDown says a scrape target vanished; this pack says pods are
      // not being scheduled. One page for the one outage.
      source_matchers: ['alertname="KubeLifecycleSchedulerNotScheduling"'],
      target_matchers: ['alertname="KubeSchedulerDown"'],
      equal: [c.clusterLabel],
    },
    // A workload whose pods the API server refuses is short of replicas, which
    // is all the mixin's alerts for it say. The per-workload refusal alerts carry
    // the mixin's label for their workload (deployment, statefulset, daemonset,
    // job_name), and silence the mixin's even while a webhook's page inhibits
    // them (Alertmanager takes inhibited alerts as sources too).
    {
      source_matchers: [names(['KubeLifecyclePodCreateRefused', 'KubeLifecyclePodCreateQuotaExceeded'])],
      target_matchers: [names(['KubeDeploymentReplicasMismatch', 'KubeDeploymentRolloutStuck'])],
      equal: [c.clusterLabel, 'namespace', 'deployment'],
    },
    {
      source_matchers: [names(['KubeLifecyclePodCreateRefused', 'KubeLifecyclePodCreateQuotaExceeded'])],
      target_matchers: ['alertname="KubeStatefulSetReplicasMismatch"'],
      equal: [c.clusterLabel, 'namespace', 'statefulset'],
    },
    {
      source_matchers: [names(['KubeLifecyclePodCreateRefused', 'KubeLifecyclePodCreateQuotaExceeded'])],
      target_matchers: [names(['KubeDaemonSetNotScheduled', 'KubeDaemonSetRolloutStuck'])],
      equal: [c.clusterLabel, 'namespace', 'daemonset'],
    },
    {
      source_matchers: [names(['KubeLifecyclePodCreateRefused', 'KubeLifecyclePodCreateQuotaExceeded'])],
      target_matchers: ['alertname="KubeJobNotCompleted"'],
      equal: [c.clusterLabel, 'namespace', 'job_name'],
    },
  ],
}
