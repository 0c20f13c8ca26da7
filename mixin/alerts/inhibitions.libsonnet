local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';
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

  // The alerts about one Job, each naming it by `job_name`.
  local jobAlerts = [
    'KubeLifecycleJobFailed',
    'KubeLifecycleJobNotCompleted',
    'KubeLifecycleJobBlockedByTerminating',
  ],

  // Where a root cause's alert fires, KubeLifecycleExplainedByRootCause fires
  // for each object it explains (alerts/roots.libsonnet) and inhibits the
  // alerts about that object, matching on the labels that name it, one rule
  // per kind of object (an alert may name several: a StatefulSet's and its
  // pod's): ours (alertmanager.yaml) and other packs'
  // (kubernetes-mixin-inhibitions.yaml). A root's pods folded above the series
  // ceiling are matched on their namespace. One set of rules per group of root
  // causes whose slowest alert fires equally late: a target is inhibited only
  // when its `for` is at least 2 minutes longer than that, so it never
  // notifies before it is folded (the order tests/artifacts/alert_rules.rs
  // checks).
  local fors = {
    [r.alert]: rules.seconds(r['for'])
    for g in $.prometheusAlerts.groups
    for r in g.rules
    if std.objectHas(r, 'alert')
  },
  local rootFor(cause) = std.foldl(std.max, [
    fors[alert]
    for alert in std.objectFields($.rootAlerts)
    if std.member($.rootAlerts[alert].causes, cause)
  ], 0),
  local rootCauses = std.set(std.flattenArrays([$.rootAlerts[a].causes for a in std.objectFields($.rootAlerts)])),
  local causeGroups = [
    { 'for': f, causes: [cause for cause in rootCauses if rootFor(cause) == f] }
    for f in std.set([rootFor(cause) for cause in rootCauses])
  ],
  // Each kind of victim, in the catalogue's order, with the labels naming one.
  local victimKinds = catalogue.victims,
  // Our alerts about an object of each kind of victim.
  local ours = {
    pod: catalogue.scoped('pod'),
    deployment: catalogue.scoped('workload'),
    statefulset: catalogue.scoped('workload'),
    daemonset: catalogue.scoped('workload'),
    job: catalogue.scoped('workload'),
    namespace: catalogue.scoped('namespace'),
  },
  local others = {
    [kind]: std.objectFields(c.otherPacksAlerts[kind])
    for kind in std.objectFields(c.otherPacksAlerts)
  },
  local forOf(alert) = if std.objectHas(fors, alert) then fors[alert] else (
    local kinds = [k for k in std.objectFields(c.otherPacksAlerts) if std.objectHas(c.otherPacksAlerts[k], alert)];
    rules.seconds(c.otherPacksAlerts[kinds[0]][alert])
  ),
  local explainedRules(targets) = std.flattenArrays([
    local source = [
      'alertname="%s"' % $.explainedAlert,
      'root_cause=~"%s"' % std.join('|', group.causes),
    ];
    local later(kind) = [a for a in std.get(targets, kind, []) if forOf(a) >= group['for'] + 120];
    [
      {
        source_matchers: source + ['victim_kind="%s"' % v.victim_kind],
        target_matchers: [names(later(v.victim_kind))],
        equal: [c.clusterLabel] + v.labels,
      }
      for v in victimKinds
      if std.length(later(v.victim_kind)) > 0
    ] + (
      // Above the series ceiling a root's pods are folded by namespace (no
      // pod label): its pods' alerts are inhibited namespace by namespace.
      if std.length(later('pod')) > 0 then [{
        source_matchers: source + ['victim_kind="pod"', 'pod=""'],
        target_matchers: [names(later('pod'))],
        equal: [c.clusterLabel, 'namespace'],
      }] else []
    )
    for group in causeGroups
  ]),

  // What each rule says it explains of the other packs' alerts (its
  // `silences`, mixin/lib/rules.libsonnet), in the rules' order.
  local silencedByRules = [
    {
      source_matchers: ['alertname="%s"' % r.alert] + std.get(s, 'matchers', []),
      target_matchers: [names(s.alerts)] + std.get(s, 'targetMatchers', []),
      equal: [c.clusterLabel] + s.equal,
    }
    for g in $.prometheusAlerts.groups
    for r in g.rules
    if std.objectHasAll(r, 'silences')
    for s in r.silences
  ],

  alertmanagerInhibitRules:: [
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
      // A CronJob that skips its runs (`previous_run_active`) or whose runs
      // fail (`runs_failing`) names the Job that makes it so (`job_name`):
      // that Job's own alert, sooner and with the cause, is the one ticket.
      source_matchers: [names(jobAlerts)],
      target_matchers: ['alertname="KubeLifecycleCronJobNotRunning"'],
      equal: [c.clusterLabel, 'namespace', 'job_name'],
    },
    {
      // Pod sandboxes failing for one cause on several nodes: the per-node
      // tickets for that cause.
      source_matchers: ['alertname="KubeLifecyclePodSandboxFailing"'],
      target_matchers: ['alertname="KubeLifecyclePodSandboxFailingOnNode"'],
      equal: [c.clusterLabel, 'cause'],
    },
  ] + explainedRules(ours),

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
      // A lost node: the mixin's alerts about the node itself (and its
      // kubelet's and kube-proxy's targets where they carry `node`).
      source_matchers: ['alertname="KubeLifecycleNodeLost"'],
      target_matchers: [names(c.otherPacksNodeAlerts)],
      equal: [c.clusterLabel, 'node'],
    },
    {
      // KubeSchedulerDown says a scrape target vanished; this pack says pods are
      // not being scheduled. One page for the one outage.
      source_matchers: ['alertname="KubeLifecycleSchedulerNotScheduling"'],
      target_matchers: ['alertname="KubeSchedulerDown"'],
      equal: [c.clusterLabel],
    },
    {
      // Where the cluster is a series label, KubeSchedulerDown's absent() has
      // none: it cannot be matched by cluster, and it says the scheduler is
      // gone in every cluster the Prometheus holds.
      source_matchers: ['alertname="KubeLifecycleSchedulerNotScheduling"'],
      target_matchers: ['alertname="KubeSchedulerDown"', '%s=""' % c.clusterLabel],
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
  ] + silencedByRules + explainedRules(others),
}
