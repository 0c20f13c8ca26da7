// dashboards/kube-lifecycle-overview.json: every finding of the cluster, by
// anomaly, cause, node and object, and the lifecycle durations.
local panels = import 'lib/panels.libsonnet';

{
  grafanaDashboards+:: {
    'kube-lifecycle-overview.json': (
      local c = $._config;
      local p = panels(c);
      local join(parts) = std.join(', ', std.filter(function(x) x != '', parts));

      local summed = ' Summed across exporter shards.';

      // The findings of one anomaly (kube_lifecycle_findings), `matchers` added.
      local findings(anomaly, matchers='') = p.series('kube_lifecycle_findings', join(['anomaly="%s"' % anomaly, matchers]));
      // How many findings: summed across the exporter's shards (see shardSum).
      local findingsCount(anomaly, matchers='') = p.wrap('sum(', p.shardSum(['anomaly', 'cause'], findings(anomaly, matchers)));
      // A summary number of one anomaly; `cause` when it is one cause only.
      local findingsStat(title, description, anomaly, matchers='', cause=null) =
        p.stat(title, description + summed, findingsCount(anomaly, matchers)) + p.finding(anomaly, cause);

      // How many objects of each `by` group: `count by (by) (max by (objects) (series))`.
      local countBy(by, labels, metric, matchers='') =
        p.wrap('count by (%s) (' % by, p.perObject(labels, p.series(metric, matchers)));
      local count(labels, metric, matchers='') = p.wrap('count(', p.perObject(labels, p.series(metric, matchers)));

      local notGraceful = 'cause!="graceful"';
      local terminating = 'kube_lifecycle_pod_terminating_since_timestamp_seconds';
      local pending = 'kube_lifecycle_pod_pending_since_timestamp_seconds';
      local imagePull = 'kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds';
      local imagePullBackoff = 'kube_lifecycle_container_image_pull_backoff';
      local crashLoop = 'kube_lifecycle_container_crash_looping_since_timestamp_seconds';
      local exitCode = 'kube_lifecycle_container_crash_looping_last_exit_code';
      local configError = 'kube_lifecycle_container_config_error_since_timestamp_seconds';
      local creating = 'kube_lifecycle_pod_container_creating_since_timestamp_seconds';
      local namespaceTerminating = 'kube_lifecycle_namespace_terminating_since_timestamp_seconds';
      local recreate = 'kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds';
      local statefulset = 'kube_lifecycle_statefulset_blocked_since_timestamp_seconds';
      local daemonset = 'kube_lifecycle_daemonset_unscheduled_since_timestamp_seconds';
      local refused = 'kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds';
      local refusedMissing = 'kube_lifecycle_workload_pod_create_refused_missing_pods';
      local initRunning = 'kube_lifecycle_pod_init_container_running_since_timestamp_seconds';
      local stuck = 'kube_lifecycle_pod_stuck_since_timestamp_seconds';
      local jobBlocked = 'kube_lifecycle_job_blocked_since_timestamp_seconds';
      local rolloutStuck = 'kube_lifecycle_deployment_rollout_stuck_since_timestamp_seconds';
      local updateStuck = 'kube_lifecycle_statefulset_update_stuck_since_timestamp_seconds';
      local daemonsetStuck = 'kube_lifecycle_daemonset_rollout_stuck_since_timestamp_seconds';
      local jobFailed = 'kube_lifecycle_job_failed_since_timestamp_seconds';
      local jobNotCompleted = 'kube_lifecycle_job_not_completed_since_timestamp_seconds';
      local podFailed = 'kube_lifecycle_pod_failed_since_timestamp_seconds';
      local verdict = ['cause', 'pod_cause', 'owner_name', 'node'];
      local sandboxCauses = 'cause=~"sandbox_image_pull|cni|sandbox_other"';
      local workload = ['namespace', 'owner_kind', 'owner_name'];
      local age = p.ageColumn('Age');



      p.dashboard(
        uid='kube-lifecycle-overview',
        title='Kubernetes lifecycle / Overview',
        description="Why Kubernetes pods, workloads and namespaces are stuck: Terminating, Pending, image pulls, crash loops, config errors, blocked rollouts, and lifecycle durations (kube-lifecycle-exporter; its own health has a dashboard of its own).",
        linkTooltip='Per-namespace drill-down and overview',
        variables=[
          p.datasourceVariable,
          p.clusterVariable,
          p.exporterVariable,
        ],
        panels=[
          p.row('Alerts'),
          p.alertTable(
            'What pages right now',
            "This pack's alerts firing now at the page severity (%s), one row per alert with the labels that identify it. Empty is good. Click a row for the alert's runbook." % c.severities.page,
            c.severities.page,
            w=16,
          ),
          p.alertCountTable(
            'Tickets firing',
            "This pack's alerts firing now at the ticket severity (%s), by alert. Click a row for the alert's runbook." % c.severities.ticket,
            c.severities.ticket,
          ),

          p.row('Root causes'),
          p.table(
            'What explains the findings',
            'Each root cause the exporter found (a lost node, a node failing sandboxes or under pressure, a registry, an admission webhook, a scheduler, a quota, a namespace being deleted, a DRA driver, a pod template), oldest first: since when, and how many objects of each kind it explains. Click a row for the findings it explains on the landing page.',
            ['root_kind', 'root_name', 'root_cause'],
            [p.ageColumn('Since'), p.numberColumn('Pods'), p.numberColumn('Workloads')],
            [
              { expr: p.perObject(['root_kind', 'root_name', 'root_cause'], 'time() - ' + p.series('kube_lifecycle_root_cause_since_timestamp_seconds')) },
              { expr: p.wrap('sum by %s (' % p.byCluster(['root_kind', 'root_name', 'root_cause']), p.series('kube_lifecycle_root_cause_victims', 'victim_kind="pod"')) },
              { expr: p.wrap('sum by %s (' % p.byCluster(['root_kind', 'root_name', 'root_cause']), p.series('kube_lifecycle_root_cause_victims', 'victim_kind=~"deployment|statefulset|daemonset|job"')) },
            ],
            links=[p.link('Findings it explains', '/?root=${__data.fields.root_kind}%2F${__data.fields.root_name}')],
          ),
          p.stat(
            'Objects explained by a firing root cause',
            "Objects whose other alerts (this pack's, and other packs' such as the kubernetes-mixin's) are inhibited now because the alert about their root cause fires (KubeLifecycleExplainedByRootCause, which never notifies).",
            'count(ALERTS{alertname="KubeLifecycleExplainedByRootCause", alertstate="firing", %s}) or vector(0)' % p.clusterMatcher,
            w=6,
            steps=[['green', null]],
          ) + p.links([p.runbookLink('KubeLifecycleExplainedByRootCause')]),
          p.stat(
            'Root causes by victims',
            'Root causes with at least one victim: the incidents under way.',
            'count(max by %s (%s)) or vector(0)' % [p.byCluster(['root_kind', 'root_name', 'root_cause']), p.series('kube_lifecycle_root_cause_victim_info')],
            w=6,
            steps=[['green', null], ['orange', 1]],
          ),

          p.row('Summary'),
          findingsStat('Pods stuck Terminating', 'Pods past their deletion deadline (cause other than graceful), from kube_lifecycle_findings.', 'pod_terminating', notGraceful),
          findingsStat('Pods Pending', 'Pods with no node, scheduling_gated (held on purpose) excluded.', 'pod_pending', 'cause!="scheduling_gated"'),
          findingsStat('Image pull failures', 'Containers whose image cannot be pulled or inspected (ErrImagePull, ImagePullBackOff, ImageInspectError, InvalidImageName, ErrImageNeverPull).', 'image_pull'),
          findingsStat('Crash-looping containers', 'Containers in CrashLoopBackOff, every cause.', 'crash_loop'),
          findingsStat('OOMKilled crash loops', 'Containers in CrashLoopBackOff whose last run was OOMKilled: they exceed their memory limit.', 'crash_loop', 'cause="oom_killed"', cause='oom_killed'),
          findingsStat('Containers killed by probes', 'Containers in CrashLoopBackOff whose last run their liveness or startup probe ended (causes liveness_probe, startup_probe).', 'crash_loop', 'cause=~"liveness_probe|startup_probe"'),
          findingsStat('Pods not Ready', 'Running pods not Ready for longer than --not-ready-after (readiness probe failing, containers not ready, readiness gate).', 'pod_not_ready'),
          findingsStat('Evicted pods', 'Pods evicted or rejected by their node, or disrupted by a controller, still present in phase Failed.', 'pod_evicted'),
          findingsStat('Container config errors', 'Containers that cannot be created or started because of their configuration (missing ConfigMap, Secret or key, runAsNonRoot, missing executable...).', 'container_config'),
          findingsStat('Stuck ContainerCreating', 'Scheduled pods whose containers are still being created (sandbox, CNI, volume mount or attach failures).', 'container_creating'),
          findingsStat('Namespaces Terminating', 'Namespaces deleted and not gone yet.', 'namespace_terminating'),
          findingsStat('Pods held by init containers', 'Pods whose start has waited longer than --init-after on an init container that runs and does not finish, or on a native sidecar that has not started.', 'init_container_running'),
          findingsStat('Stuck pods, cause unknown', 'Pods Pending, not initialized or not Ready past their threshold that no other anomaly explains: read their conditions and events on the landing page.', 'pod_stuck'),
          findingsStat('Jobs blocked', 'Jobs waiting for a pod stuck Terminating (to replace it, or to write their outcome); graceful excluded.', 'job_blocked', notGraceful),
          findingsStat('Recreate Deployments blocked', 'Recreate Deployments that create no new pods because an old pod is not gone (cause other than graceful).', 'recreate_blocked', notGraceful),
          findingsStat('StatefulSets blocked', 'StatefulSets that cannot recreate an ordinal whose pod is stuck Terminating (cause other than graceful).', 'statefulset_blocked', notGraceful),
          findingsStat('DaemonSets unscheduled', 'DaemonSets missing from Ready nodes they should run on.', 'daemonset_unscheduled'),
          findingsStat('Stuck rollouts', "Deployments short of available pods, or whose rollout does not finish, with their pods' cause (or the controller's: progress_deadline_exceeded, replicas_unavailable).", 'rollout_stuck'),
          findingsStat('Failed Jobs', "Jobs the job controller failed, by how their pods ended (or its reason: backoff limit, deadline, pod failure policy).", 'job_failed'),
          findingsStat('Workloads refused pods', 'ReplicaSets, StatefulSets, DaemonSets, Jobs and ReplicationControllers short of pods because the API server refuses the ones they create (quota, LimitRange, Pod Security, admission webhooks, missing ServiceAccount...).', 'pod_create_refused'),
          p.stat('Watches not synced', 'Resource watches (per exporter instance) that have not completed their first list: findings depending on them are missing.', 'sum(1 - %s)' % p.series('kube_lifecycle_watch_synced')) + p.links([p.runbookLink('KubeLifecycleWatchNotSynced')]),
          p.timeseries(
            'Findings by anomaly',
            'Current findings by anomaly over time, graceful Terminating pods and scheduling_gated pods excluded.' + summed,
            [{
              expr: p.wrap('sum by (anomaly) (', p.shardSum(['anomaly', 'cause'], p.series('kube_lifecycle_findings', 'cause!~"graceful|scheduling_gated"'))),
              legend: '{{anomaly}}',
            }],
            w=24,
          ) + p.finding('${__field.labels.anomaly}'),

          p.row('Terminating pods'),
          p.timeseries(
            'Stuck Terminating pods by cause',
            'Pods still Terminating past their deletion deadline, by cause (graceful excluded). node_not_ready / node_missing: lost node; containers_running: the runtime does not stop them; cleanup_pending: volumes not unmounted; finalizers: a controller holds them.',
            [{ expr: countBy('cause', ['namespace', 'pod', 'node', 'cause'], terminating, notGraceful), legend: '{{cause}}' }],
          ) + p.finding('pod_terminating', p.fieldCause),
          p.bargauge(
            'Stuck Terminating pods by node',
            'Stuck Terminating pods per node: many on one node usually means the node is lost or its runtime hangs.',
            p.wrap('count by %s (' % p.byCluster(['node']), p.perObject(['namespace', 'pod', 'node'], p.series(terminating, notGraceful))),
            '{{node}}',
          ) + p.finding('pod_terminating'),
          p.table(
            'Stuck Terminating pods',
            'Every pod Terminating past its deadline: time since the delete request and time past the deadline (deletionTimestamp). Click a namespace to open the drill-down.',
            ['namespace', 'pod', 'node', 'cause'],
            [age, p.ageColumn('Past deadline')],
            [
              p.age(['namespace', 'pod', 'node', 'cause'], terminating, notGraceful),
              p.age(['namespace', 'pod', 'node'], 'kube_lifecycle_pod_terminating_deadline_timestamp_seconds') + ' > 0',
            ],
            h=9,
            drilldown=true,
            anomaly='pod_terminating',
          ),

          p.row('Probes and evictions'),
          p.timeseries(
            'Pods not Ready by cause',
            'Running pods not Ready for longer than --not-ready-after, by cause: readiness_probe (its probe fails), containers_not_ready, readiness_gate (a gate condition not set), unknown.',
            [{ expr: countBy('cause', ['namespace', 'pod', 'cause'], 'kube_lifecycle_pod_not_ready_since_timestamp_seconds'), legend: '{{cause}}' }],
          ) + p.finding('pod_not_ready', p.fieldCause),
          p.timeseries(
            'Containers killed by probes, by probe failure',
            'Crash-looping containers their liveness or startup probe kills, by what the probe said: http_status, connection_refused, timeout, exec_failed, grpc, other.',
            [{ expr: countBy('probe_failure', ['namespace', 'pod', 'container', 'probe_failure'], 'kube_lifecycle_container_probe_killed'), legend: '{{probe_failure}}' }],
          ) + p.finding('crash_loop'),
          p.timeseries(
            'Evicted pods by cause',
            'Pods evicted or rejected that still exist (phase Failed), by cause: node pressure (memory, disk, pids), storage limits, preemption, taint eviction, node shutdown, kubelet admission.',
            [{ expr: p.wrap('sum by %s (' % p.byCluster(['cause']), p.series('kube_lifecycle_evicted_pods')), legend: '{{cause}}' }],
          ) + p.finding('pod_evicted', p.fieldCause),
          p.timeseries(
            'Evictions by cause',
            'Evictions the exporter saw happen, by cause (kube_lifecycle_pod_evictions_total); a burst is KubeLifecyclePodEvictions.',
            [{ expr: p.wrap('sum by %s (' % p.byCluster(['cause']), 'increase(%s[$__rate_interval])' % p.series('kube_lifecycle_pod_evictions_total')), legend: '{{cause}}' }],
          ) + p.finding('pod_evicted', p.fieldCause),

          p.row('Pending pods'),
          p.timeseries(
            'Pending pods by cause',
            'Pods not bound to a node, by cause: the scheduler reason that excluded the most nodes; not_scheduled means no scheduler acts on the pod, scheduling_gated is informational.',
            [{ expr: countBy('cause', ['namespace', 'pod', 'cause'], pending), legend: '{{cause}}' }],
          ) + p.finding('pod_pending', p.fieldCause),
          p.bargauge(
            'Unschedulable pods by scheduler reason',
            'Unschedulable pods for which the scheduler excluded at least one node for each reason (a pod counts under every reason it got).',
            p.wrap('count by (reason) (', p.perObject(['namespace', 'pod', 'reason'], p.series('kube_lifecycle_pod_pending_reason') + ' > 0')),
            '{{reason}}',
          ) + p.finding('pod_pending'),
          p.table(
            'Pending pod list',
            'Every Pending pod with its cause and how long it has been unschedulable (or since creation, for not_scheduled and scheduling_gated).',
            ['namespace', 'pod', 'cause'],
            [age],
            [p.age(['namespace', 'pod', 'cause'], pending)],
            drilldown=true,
            anomaly='pod_pending',
          ),

          p.row('Image pulls'),
          p.timeseries(
            'Image pull failures by cause',
            'Containers whose image cannot be pulled, by cause (not_found, unauthorized, tls, rate_limited, dns, ...).',
            [{ expr: countBy('cause', ['namespace', 'pod', 'container', 'registry', 'image', 'cause'], imagePull), legend: '{{cause}}' }],
          ) + p.finding('image_pull', p.fieldCause),
          p.timeseries(
            'Image pull failures by registry',
            'Containers whose image cannot be pulled, by registry host: one registry with many failures is a registry or network problem rather than a per-image one.',
            [{
              expr: p.wrap('count by %s (' % p.byCluster(['registry']), p.perObject(['namespace', 'pod', 'container', 'registry'], p.series(imagePullBackoff))),
              legend: '{{registry}}',
            }],
          ) + p.finding('image_pull'),
          p.table(
            'Failing image pulls',
            'Every container whose image cannot be pulled: image, registry, cause and time since the first failure.',
            ['namespace', 'pod', 'container', 'node', 'image', 'registry', 'cause'],
            [age],
            [p.age(['namespace', 'pod', 'container', 'node', 'image', 'registry', 'cause'], imagePull)],
            drilldown=true,
            anomaly='image_pull',
          ),

          p.row('Crash loops'),
          p.timeseries(
            'Crash-looping containers by cause',
            'Containers in CrashLoopBackOff by the reason of their last termination; oom_killed (red) means the memory limit is too low or the process leaks.',
            [{ expr: countBy('cause', ['namespace', 'pod', 'container', 'cause'], crashLoop), legend: '{{cause}}' }],
            overrides=[p.byName('oom_killed', [
              { id: 'color', value: { mode: 'fixed', fixedColor: 'red' } },
              { id: 'displayName', value: 'OOMKilled' },
            ])],
          ) + p.finding('crash_loop', p.fieldCause),
          p.stat(
            'OOMKilled containers',
            'Containers in CrashLoopBackOff whose last run was OOMKilled, counted from the per-container series.',
            count(['namespace', 'pod', 'container'], crashLoop, 'cause="oom_killed"') + ' or vector(0)',
            h=8,
          ) + p.finding('crash_loop', 'oom_killed'),
          p.bargauge(
            'Crash-looping containers by exit code',
            'Crash-looping containers per exit code of their last termination (137: SIGKILL, often OOM; 1: application error; 127: command not found).',
            p.wrap('count_values("code",', p.perObject(['namespace', 'pod', 'container'], p.series(exitCode))),
            'exit {{code}}',
            w=8,
          ) + p.finding('crash_loop'),
          p.table(
            'Crash-looping container list',
            'Every container in CrashLoopBackOff with its last termination cause (OOMKilled in red), exit code and how long it has been backing off.',
            ['namespace', 'pod', 'container', 'node', 'cause'],
            [age, p.numberColumn('Exit code', 'none')],
            [
              p.age(['namespace', 'pod', 'container', 'node', 'cause'], crashLoop),
              p.perObject(['namespace', 'pod', 'container'], p.series(exitCode)),
            ],
            drilldown=true,
            anomaly='crash_loop',
          ),

          p.row('Container configuration and creation'),
          p.timeseries(
            'Container config errors by cause',
            'Containers that cannot be created or started because of their configuration, by cause (configmap_missing, secret_missing, key_missing, run_as_non_root, exec_not_found, ...).',
            [{ expr: countBy('cause', ['namespace', 'pod', 'container', 'cause'], configError), legend: '{{cause}}' }],
          ) + p.finding('container_config', p.fieldCause),
          p.timeseries(
            'ContainerCreating pods by cause',
            'Scheduled pods stuck in ContainerCreating, by cause (sandbox_image_pull, cni, mount_*, attach_failed, multi_attach, unknown).',
            [{ expr: countBy('cause', ['namespace', 'pod', 'node', 'cause'], creating), legend: '{{cause}}' }],
          ) + p.finding('container_creating', p.fieldCause),
          p.bargauge(
            'Pod sandbox failures by node',
            'Pods that cannot get a sandbox (cni, sandbox_image_pull, sandbox_other), per node and cause: one node is its own trouble (KubeLifecyclePodSandboxFailingOnNode), several nodes with one cause are the network plugin or sandbox image failing (KubeLifecyclePodSandboxFailing).',
            p.wrap('count by %s (' % p.byCluster(['node', 'cause']), p.perObject(['namespace', 'pod', 'node', 'cause'], p.series(creating, sandboxCauses))),
            '{{node}} {{cause}}',
            w=24,
            h=6,
          ) + p.finding('container_creating', p.fieldCause),
          p.table(
            'Containers with config errors',
            'Every container that cannot be created or started, its cause and time since the first failure.',
            ['namespace', 'pod', 'container', 'node', 'cause'],
            [age],
            [p.age(['namespace', 'pod', 'container', 'node', 'cause'], configError)],
            w=12,
            drilldown=true,
            anomaly='container_config',
          ),
          p.table(
            'Pods stuck in ContainerCreating',
            'Every pod stuck in ContainerCreating, its cause and time since it reached its node.',
            ['namespace', 'pod', 'node', 'cause'],
            [age],
            [p.age(['namespace', 'pod', 'node', 'cause'], creating)],
            w=12,
            drilldown=true,
            anomaly='container_creating',
          ),

          p.row('Init containers, resizes and unexplained pods'),
          p.timeseries(
            'Pods held by init containers, by cause',
            'Pods whose start waits on an init container past --init-after: running (an init container that does not finish: a wait-for loop, a migration lock), sidecar_startup_probe (a native sidecar whose startup probe fails), sidecar_not_started.',
            [{ expr: countBy('cause', ['namespace', 'pod', 'container', 'cause'], initRunning), legend: '{{cause}}' }],
          ) + p.finding('init_container_running', p.fieldCause),
          p.table(
            'Stuck pods no diagnosis explains',
            'Pods Pending, not initialized or not Ready past their threshold that no anomaly explains, by phase: the landing page shows their conditions and latest warning events.',
            ['namespace', 'pod', 'node', 'phase'],
            [age],
            [p.age(['namespace', 'pod', 'node', 'phase'], stuck)],
            w=12,
            drilldown=true,
            anomaly='pod_stuck',
          ),
          p.table(
            'Init containers that hold their pod',
            'Every init container or native sidecar a pod has waited on past --init-after: its cause, what its startup probe says (sidecars), and since when the pod waits.',
            ['namespace', 'pod', 'container', 'cause', 'probe_failure'],
            [age],
            [p.age(['namespace', 'pod', 'container', 'cause', 'probe_failure'], initRunning)],
            drilldown=true,
            anomaly='init_container_running',
          ),
          p.anomalyTable(
            'In-place resizes not made',
            "Pods whose in-place resize (beta 1.33) the kubelet finds infeasible on its node, defers for lack of room, or failed making, with the resource it names and since when.",
            'pod_resize',
          ),
          p.anomalyTable(
            'Stuck PersistentVolumeClaims',
            'Claims Pending on their provisioner (a missing storage class, quota, the driver\'s error, no provisioner running, no volume), Lost, Terminating while pods use them, or failing an expansion, with their storage class and since when.',
            'claim_stuck',
          ),
          p.anomalyTable(
            'Drains blocked',
            'Nodes being drained (cordoned, or tainted by an autoscaler) past --drain-after that keep pods a drain cannot evict, with the first such pod, the PodDisruptionBudget that holds it and since when the node is being emptied.',
            'node_drain_blocked',
          ),

          p.row('Namespace deletion'),
          p.table(
            'Terminating namespaces',
            'Every namespace deleted and not gone yet, with the cause from its status conditions and time since the delete request.',
            ['namespace', 'cause'],
            [age],
            [p.age(['namespace', 'cause'], namespaceTerminating)],
            w=8,
            drilldown=true,
            anomaly='namespace_terminating',
          ),
          p.bargauge(
            'Remaining resources in Terminating namespaces',
            'Objects per resource still in a Terminating namespace (NamespaceContentRemaining).',
            p.perObject(['namespace', 'resource'], p.series('kube_lifecycle_namespace_remaining_resources')),
            '{{namespace}} {{resource}}',
            w=8,
          ) + p.finding('namespace_terminating'),
          p.bargauge(
            'Remaining finalizers in Terminating namespaces',
            'Objects in a Terminating namespace held by each finalizer (NamespaceFinalizersRemaining): the controller owning the finalizer must remove it.',
            p.perObject(['namespace', 'finalizer'], p.series('kube_lifecycle_namespace_remaining_finalizers')),
            '{{namespace}} {{finalizer}}',
            w=8,
          ) + p.finding('namespace_terminating'),

          p.row('Workloads'),
          p.timeseries(
            'Blocked workloads',
            'Recreate Deployments, StatefulSets and Jobs blocked by a pod that is not gone (graceful excluded), and DaemonSets missing from eligible nodes.',
            [
              { expr: count(['namespace', 'deployment'], recreate, notGraceful), legend: 'Recreate Deployments' },
              { expr: count(['namespace', 'statefulset'], statefulset, notGraceful), legend: 'StatefulSets' },
              { expr: count(['namespace', 'daemonset'], daemonset), legend: 'DaemonSets' },
              { expr: count(['namespace', 'job_name'], jobBlocked, notGraceful), legend: 'Jobs' },
            ],
            w=24,
            h=7,
          ) + p.findingPerQuery(['recreate_blocked', 'statefulset_blocked', 'daemonset_unscheduled', 'job_blocked']),
          p.table(
            'Blocked Recreate Deployments',
            'Recreate Deployments creating no new pods: the cause of the oldest blocking pod, how many old pods block, and time since the earliest deletion.',
            ['namespace', 'deployment', 'cause'],
            [age, p.numberColumn('Blocking pods')],
            [
              p.age(['namespace', 'deployment', 'cause'], recreate, notGraceful),
              p.perObject(['namespace', 'deployment', 'cause'], p.series('kube_lifecycle_recreate_blocked_by_terminating', 'deployment!="", ' + notGraceful)),
            ],
            w=8,
            drilldown=true,
            anomaly='recreate_blocked',
          ),
          p.table(
            'Blocked StatefulSets',
            'StatefulSets that cannot recreate an ordinal: the oldest stuck pod, its cause, the number of blocking pods and time since the earliest deletion.',
            ['namespace', 'statefulset', 'pod', 'cause'],
            [age, p.numberColumn('Blocking pods')],
            [
              p.age(['namespace', 'statefulset', 'pod', 'cause'], statefulset, notGraceful),
              p.perObject(['namespace', 'statefulset', 'cause'], p.series('kube_lifecycle_recreate_blocked_by_terminating', 'statefulset!="", ' + notGraceful)),
            ],
            w=8,
            drilldown=true,
            anomaly='statefulset_blocked',
          ),
          p.table(
            'Unscheduled DaemonSets',
            'DaemonSets missing from eligible Ready nodes: cause (host_port_conflict or unknown), the number of nodes without a pod, and how long.',
            ['namespace', 'daemonset', 'cause'],
            [age, p.numberColumn('Nodes without a pod')],
            [
              p.age(['namespace', 'daemonset', 'cause'], daemonset),
              p.perObject(['namespace', 'daemonset', 'cause'], p.series('kube_lifecycle_daemonset_unscheduled_nodes')),
            ],
            w=8,
            drilldown=true,
            anomaly='daemonset_unscheduled',
          ),

          p.row('Workload verdicts'),
          p.table(
            'Stuck Deployments',
            "Deployments short of available pods or whose rollout does not finish: the cause (their pods', in pod_cause exactly; else progress_deadline_exceeded or replicas_unavailable), the ReplicaSet whose pods explain it (owner_name) and one pod's node, since when.",
            ['namespace', 'deployment'] + verdict,
            [age],
            [p.age(['namespace', 'deployment'] + verdict, rolloutStuck)],
            w=12,
            drilldown=true,
            anomaly='rollout_stuck',
          ),
          p.table(
            'StatefulSet updates held',
            'StatefulSets not rolled out or not Ready, by the cause of their lowest ordinal in trouble, since when.',
            ['namespace', 'statefulset', 'cause', 'pod_cause', 'node'],
            [age],
            [p.age(['namespace', 'statefulset', 'cause', 'pod_cause', 'node'], updateStuck)],
            w=12,
            drilldown=true,
            anomaly='statefulset_update_stuck',
          ),
          p.table(
            'DaemonSets short of pods',
            "DaemonSets with unavailable pods, by the failing pods' cause and one of their nodes, since when.",
            ['namespace', 'daemonset', 'cause', 'pod_cause', 'node'],
            [age],
            [p.age(['namespace', 'daemonset', 'cause', 'pod_cause', 'node'], daemonsetStuck)],
            w=12,
            drilldown=true,
            anomaly='daemonset_rollout_stuck',
          ),
          p.table(
            'Failed Jobs, by how they ended',
            'Jobs the job controller failed: how their pods ended (exit_error, oom_killed...) or its reason (backoff_limit_exceeded, deadline_exceeded, pod_failure_policy), time since it failed. Deleting the Job clears it.',
            ['namespace', 'job_name', 'cause', 'pod_cause', 'node'],
            [age],
            [p.age(['namespace', 'job_name', 'cause', 'pod_cause', 'node'], jobFailed)],
            w=12,
            drilldown=true,
            anomaly='job_failed',
          ),
          p.table(
            'Jobs not completing',
            'Active Jobs whose pods are stuck (their cause), or active past --job-after with nothing to show (running_long), since when.',
            ['namespace', 'job_name', 'cause', 'pod_cause'],
            [age],
            [p.age(['namespace', 'job_name', 'cause', 'pod_cause'], jobNotCompleted)],
            w=12,
            drilldown=true,
            anomaly='job_not_completed',
          ),
          p.table(
            'Failed one-off pods',
            'Pods of no controller that ended Failed: how their container ended, time since. Deleting the pod clears it.',
            ['namespace', 'pod', 'container', 'node', 'cause', 'pod_cause'],
            [age],
            [p.age(['namespace', 'pod', 'container', 'node', 'cause', 'pod_cause'], podFailed)],
            w=12,
            drilldown=true,
            anomaly='pod_failed',
          ),
          p.anomalyTable(
            'CronJobs not running',
            'CronJobs that have not run as their schedule says, by cause: a schedule time missed (missed_schedule), a prior Job still active under Forbid (previous_run_active), a schedule or time zone that starts nothing, or runs failing since the last success; time since the first run missed.',
            'cronjob_not_running',
            w=12,
          ),

          p.row('Refused pod creations'),
          p.timeseries(
            'Refused workloads by cause',
            'Workloads whose pods the API server refuses, by cause: quota_exceeded / quota_requires_limits (ResourceQuota), limit_range, pod_security (level enforced by the namespace), pod_security_policy, webhook_denied, webhook_unreachable (a webhook that fails closed cannot be called: every namespace it covers is blocked), service_account_missing, namespace_terminating, invalid_spec.',
            [{ expr: countBy('cause', workload + ['cause'], refused), legend: '{{cause}}' }],
          ) + p.finding('pod_create_refused', p.fieldCause),
          p.bargauge(
            'Refused workloads by admission webhook',
            'Workloads whose pods an admission webhook refuses (webhook_denied) or that the API server cannot call (webhook_unreachable), per webhook: one unreachable webhook with many workloads across namespaces is one outage.',
            p.wrap('count by %s (' % p.byCluster(['webhook', 'cause']), p.perObject(workload + ['webhook', 'cause'], p.series(refused, 'webhook!=""'))),
            '{{webhook}} ({{cause}})',
          ) + p.finding('pod_create_refused', p.fieldCause),
          p.table(
            'Refused workloads',
            'Every controller short of pods because the API server refuses them: its Deployment (for a ReplicaSet), the cause and what the refusal names (ResourceQuota and resources, webhook, Pod Security level), how long, and how many pods it is missing.',
            workload + ['deployment', 'cause', 'quota', 'resource', 'webhook', 'pod_security_level'],
            [age, p.numberColumn('Missing pods')],
            [
              p.age(workload + ['deployment', 'cause', 'quota', 'resource', 'webhook', 'pod_security_level'], refused),
              p.perObject(workload + ['cause'], p.series(refusedMissing)),
            ],
            h=9,
            drilldown=true,
            anomaly='pod_create_refused',
          ),

          p.row('Lifecycle durations'),
          p.heatmap(
            'Pod deletion duration heatmap',
            "Distribution of the time from a pod's deletion request to the object being gone (kube_lifecycle_pod_terminating_duration_seconds), observations per second per bucket. Only transitions the exporter saw while running count.",
            'kube_lifecycle_pod_terminating_duration_seconds',
          ),
          p.percentiles(
            'Pod deletion duration percentiles',
            "p50, p90, p99 and mean of the time from a pod's deletion request to the object being gone, from kube_lifecycle_pod_terminating_duration_seconds over the rate interval.",
            'kube_lifecycle_pod_terminating_duration_seconds',
          ),
          p.heatmap(
            'Pod scheduling duration heatmap',
            "Distribution of the time from a pod's creation to PodScheduled=True (kube_lifecycle_pod_scheduling_latency_seconds), observations per second per bucket. Only transitions the exporter saw while running count.",
            'kube_lifecycle_pod_scheduling_latency_seconds',
          ),
          p.percentiles(
            'Pod scheduling duration percentiles',
            "p50, p90, p99 and mean of the time from a pod's creation to PodScheduled=True, from kube_lifecycle_pod_scheduling_latency_seconds over the rate interval.",
            'kube_lifecycle_pod_scheduling_latency_seconds',
          ),
          p.heatmap(
            'Pod startup duration heatmap',
            "Distribution of the time from a pod's creation to its first Ready=True (kube_lifecycle_pod_startup_duration_seconds), observations per second per bucket. Only transitions the exporter saw while running count.",
            'kube_lifecycle_pod_startup_duration_seconds',
          ),
          p.percentiles(
            'Pod startup duration percentiles',
            "p50, p90, p99 and mean of the time from a pod's creation to its first Ready=True, from kube_lifecycle_pod_startup_duration_seconds over the rate interval.",
            'kube_lifecycle_pod_startup_duration_seconds',
          ),
          p.heatmap(
            'Namespace deletion duration heatmap',
            "Distribution of the time from a namespace's deletion request to the namespace being gone (kube_lifecycle_namespace_terminating_duration_seconds), observations per second per bucket. Only transitions the exporter saw while running count.",
            'kube_lifecycle_namespace_terminating_duration_seconds',
          ),
          p.percentiles(
            'Namespace deletion duration percentiles',
            "p50, p90, p99 and mean of the time from a namespace's deletion request to the namespace being gone, from kube_lifecycle_namespace_terminating_duration_seconds over the rate interval.",
            'kube_lifecycle_namespace_terminating_duration_seconds',
          ),
          p.timeseries(
            'Pod deletion p90 by cause',
            "90th percentile of the time from a pod's deletion request to its removal, by the Terminating cause at removal (graceful is the normal case).",
            [{
              expr: 'histogram_quantile(0.9, %s)' % p.wrap(
                'sum by %s (' % p.byCluster(['cause', 'le']),
                'rate(%s[$__rate_interval])' % p.series('kube_lifecycle_pod_terminating_duration_seconds_bucket'),
              ),
              legend: '{{cause}} ' + p.clusterLegend,
            }],
            w=24,
            unit='s',
            style='lines',
          ),
        ],
      )
    ),
  },
}
