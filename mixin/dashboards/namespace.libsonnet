// dashboards/kube-lifecycle-namespace.json: the findings of the namespaces chosen
// in the namespace variable, object by object.
local panels = import 'lib/panels.libsonnet';

{
  grafanaDashboards+:: {
    'kube-lifecycle-namespace.json': (
      local c = $._config;
      local p = panels(c);
      local join(parts) = std.join(', ', std.filter(function(x) x != '', parts));

      // Every series of this dashboard is restricted to the selected namespaces.
      local series(metric, matchers='') = p.series(metric, join(['namespace=~"$namespace"', matchers]));
      local age(labels, metric, matchers='') = p.perObject(labels, 'time() - ' + series(metric, matchers));
      // How many objects: `count(max by (objects) (series)) or vector(0)`.
      local count(labels, metric, matchers='') =
        p.wrap('count(', p.perObject(labels, series(metric, matchers))) + ' or vector(0)';

      local notGraceful = 'cause!="graceful"';
      local notGated = 'cause!="scheduling_gated"';
      local terminating = 'kube_lifecycle_pod_terminating_since_timestamp_seconds';
      local pending = 'kube_lifecycle_pod_pending_since_timestamp_seconds';
      local creating = 'kube_lifecycle_pod_container_creating_since_timestamp_seconds';
      local imagePull = 'kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds';
      local crashLoop = 'kube_lifecycle_container_crash_looping_since_timestamp_seconds';
      local configError = 'kube_lifecycle_container_config_error_since_timestamp_seconds';
      local recreate = 'kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds';
      local statefulset = 'kube_lifecycle_statefulset_blocked_since_timestamp_seconds';
      local daemonset = 'kube_lifecycle_daemonset_unscheduled_since_timestamp_seconds';
      local refused = 'kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds';
      local workload = ['namespace', 'owner_kind', 'owner_name'];
      local pod = ['namespace', 'pod'];
      local container = ['namespace', 'pod', 'container'];
      local ageColumn = p.ageColumn('Age');
      // The anomaly of each query of "Stuck objects over time", in order.
      local anomalies = [
        'pod_terminating',
        'pod_pending',
        'container_creating',
        'image_pull',
        'crash_loop',
        'container_config',
        'recreate_blocked',
        'statefulset_blocked',
        'daemonset_unscheduled',
        'pod_create_refused',
      ];

      p.dashboard(
        uid='kube-lifecycle-namespace',
        title='Kubernetes lifecycle / Namespace',
        description="Per-namespace drill-down of kube-lifecycle-exporter findings: the namespace's stuck, pending, image-pull, crash-looping and misconfigured pods, blocked workloads and namespace deletion, with cause and age.",
        linkTooltip='Cluster-wide overview and namespace drill-down',
        variables=[
          p.datasourceVariable,
          p.clusterVariable,
          p.queryVariable(
            'namespace',
            'Namespace',
            'label_values({%s}, namespace)' % join(['__name__=~"kube_lifecycle_.+_since_timestamp_seconds"', p.clusterMatcher, c.findingsSelector]),
            allValue='.*',
          ),
          p.exporterVariable,
        ],
        panels=[
          p.row('Summary'),
          p.stat('Stuck Terminating pods', 'Pods of the selected namespaces Terminating past their deadline.', count(pod, terminating, notGraceful)) + p.finding('pod_terminating'),
          p.stat('Pending pods', 'Pods of the selected namespaces not bound to a node (scheduling_gated excluded).', count(pod, pending, notGated)) + p.finding('pod_pending'),
          p.stat('ContainerCreating pods', 'Pods of the selected namespaces stuck in ContainerCreating.', count(pod, creating)) + p.finding('container_creating'),
          p.stat('Image pull failures', 'Containers of the selected namespaces whose image cannot be pulled.', count(container, imagePull)) + p.finding('image_pull'),
          p.stat('Crash loops', 'Containers of the selected namespaces in CrashLoopBackOff.', count(container, crashLoop)) + p.finding('crash_loop'),
          p.stat('Config errors', 'Containers of the selected namespaces that cannot be created or started because of their configuration.', count(container, configError)) + p.finding('container_config'),
          p.stat('Refused workloads', 'Workloads of the selected namespaces whose pods the API server refuses to create.', count(workload, refused)) + p.finding('pod_create_refused'),
          p.timeseries(
            'Stuck objects over time',
            'Stuck objects of the selected namespaces by anomaly over time (graceful Terminating and scheduling_gated excluded).',
            [
              { expr: count(pod, terminating, notGraceful), legend: 'pod_terminating' },
              { expr: count(pod, pending, notGated), legend: 'pod_pending' },
              { expr: count(pod, creating), legend: 'container_creating' },
              { expr: count(container, imagePull), legend: 'image_pull' },
              { expr: count(container, crashLoop), legend: 'crash_loop' },
              { expr: count(container, configError), legend: 'container_config' },
              { expr: count(['namespace', 'deployment'], recreate, notGraceful), legend: 'recreate_blocked' },
              { expr: count(['namespace', 'statefulset'], statefulset, notGraceful), legend: 'statefulset_blocked' },
              { expr: count(['namespace', 'daemonset'], daemonset), legend: 'daemonset_unscheduled' },
              { expr: count(workload, refused), legend: 'pod_create_refused' },
            ],
            w=24,
          ) + p.findingPerQuery(anomalies),

          p.row('Pods'),
          p.table(
            'Stuck Terminating pods in namespace',
            'Pods Terminating past their deadline: cause, time since the delete request and time past the deadline.',
            ['namespace', 'pod', 'node', 'cause'],
            [ageColumn, p.ageColumn('Past deadline')],
            [
              age(['namespace', 'pod', 'node', 'cause'], terminating, notGraceful),
              age(['namespace', 'pod', 'node'], 'kube_lifecycle_pod_terminating_deadline_timestamp_seconds') + ' > 0',
            ],
            anomaly='pod_terminating',
          ),
          p.table(
            'Pending pods in namespace',
            'Pods not bound to a node, their cause and how long they have been unschedulable.',
            ['namespace', 'pod', 'cause'],
            [ageColumn],
            [age(['namespace', 'pod', 'cause'], pending)],
            w=12,
            anomaly='pod_pending',
          ),
          p.table(
            'Scheduler exclusions in namespace',
            'For each unschedulable pod, the number of nodes the scheduler excluded per reason.',
            ['namespace', 'pod', 'reason'],
            [p.numberColumn('Nodes excluded')],
            [p.perObject(['namespace', 'pod', 'reason'], series('kube_lifecycle_pod_pending_reason'))],
            w=12,
            anomaly='pod_pending',
          ),
          p.table(
            'ContainerCreating pods in namespace',
            'Pods stuck in ContainerCreating, their cause and time since they reached their node.',
            ['namespace', 'pod', 'node', 'cause'],
            [ageColumn],
            [age(['namespace', 'pod', 'node', 'cause'], creating)],
            h=7,
            anomaly='container_creating',
          ),

          p.row('Containers'),
          p.table(
            'Image pull failures in namespace',
            'Containers whose image cannot be pulled: image, registry, cause and time since the first failure.',
            ['namespace', 'pod', 'container', 'node', 'image', 'registry', 'cause'],
            [ageColumn],
            [age(['namespace', 'pod', 'container', 'node', 'image', 'registry', 'cause'], imagePull)],
            anomaly='image_pull',
          ),
          p.table(
            'Crash loops in namespace',
            'Containers in CrashLoopBackOff: last termination cause (OOMKilled in red), exit code and time backing off.',
            ['namespace', 'pod', 'container', 'node', 'cause'],
            [ageColumn, p.numberColumn('Exit code', 'none')],
            [
              age(['namespace', 'pod', 'container', 'node', 'cause'], crashLoop),
              p.perObject(container, series('kube_lifecycle_container_crash_looping_last_exit_code')),
            ],
            w=12,
            anomaly='crash_loop',
          ),
          p.table(
            'Config errors in namespace',
            'Containers that cannot be created or started because of their configuration, with cause and time since the first failure.',
            ['namespace', 'pod', 'container', 'node', 'cause'],
            [ageColumn],
            [age(['namespace', 'pod', 'container', 'node', 'cause'], configError)],
            w=12,
            anomaly='container_config',
          ),

          p.row('Workloads'),
          p.table(
            'Blocked Recreate Deployments in namespace',
            'Recreate Deployments creating no new pods: cause of the oldest blocking pod, number of blocking pods and time since the earliest deletion.',
            ['namespace', 'deployment', 'cause'],
            [ageColumn, p.numberColumn('Blocking pods')],
            [
              age(['namespace', 'deployment', 'cause'], recreate, notGraceful),
              p.perObject(['namespace', 'deployment', 'cause'], series('kube_lifecycle_recreate_blocked_by_terminating', 'deployment!="", ' + notGraceful)),
            ],
            w=8,
            anomaly='recreate_blocked',
          ),
          p.table(
            'Blocked StatefulSets in namespace',
            'StatefulSets that cannot recreate an ordinal: the oldest stuck pod, its cause, number of blocking pods and time since the earliest deletion.',
            ['namespace', 'statefulset', 'pod', 'cause'],
            [ageColumn, p.numberColumn('Blocking pods')],
            [
              age(['namespace', 'statefulset', 'pod', 'cause'], statefulset, notGraceful),
              p.perObject(['namespace', 'statefulset', 'cause'], series('kube_lifecycle_recreate_blocked_by_terminating', 'statefulset!="", ' + notGraceful)),
            ],
            w=8,
            anomaly='statefulset_blocked',
          ),
          p.table(
            'Unscheduled DaemonSets in namespace',
            'DaemonSets missing from eligible Ready nodes: cause, nodes without a pod and how long.',
            ['namespace', 'daemonset', 'cause'],
            [ageColumn, p.numberColumn('Nodes without a pod')],
            [
              age(['namespace', 'daemonset', 'cause'], daemonset),
              p.perObject(['namespace', 'daemonset', 'cause'], series('kube_lifecycle_daemonset_unscheduled_nodes')),
            ],
            w=8,
            anomaly='daemonset_unscheduled',
          ),

          p.table(
            'Refused workloads in namespace',
            'Controllers short of pods because the API server refuses them: cause, what the refusal names (quota and resources, webhook, Pod Security level), how long and how many pods are missing.',
            workload + ['deployment', 'cause', 'quota', 'resource', 'webhook', 'pod_security_level'],
            [ageColumn, p.numberColumn('Missing pods')],
            [
              age(workload + ['deployment', 'cause', 'quota', 'resource', 'webhook', 'pod_security_level'], refused),
              p.perObject(workload + ['cause'], series('kube_lifecycle_workload_pod_create_refused_missing_pods')),
            ],
            anomaly='pod_create_refused',
          ),

          p.row('Namespace deletion'),
          p.table(
            'Namespace Terminating',
            'Whether the selected namespaces are Terminating: cause from the namespace conditions and time since the delete request.',
            ['namespace', 'cause'],
            [ageColumn],
            [age(['namespace', 'cause'], 'kube_lifecycle_namespace_terminating_since_timestamp_seconds')],
            w=8,
            h=7,
            anomaly='namespace_terminating',
          ),
          p.table(
            'Remaining resources',
            'Objects per resource still in the Terminating namespace (NamespaceContentRemaining).',
            ['namespace', 'resource'],
            [p.numberColumn('Objects')],
            [p.perObject(['namespace', 'resource'], series('kube_lifecycle_namespace_remaining_resources'))],
            w=8,
            h=7,
            anomaly='namespace_terminating',
          ),
          p.table(
            'Remaining finalizers',
            'Objects in the Terminating namespace held by each finalizer (NamespaceFinalizersRemaining).',
            ['namespace', 'finalizer'],
            [p.numberColumn('Objects')],
            [p.perObject(['namespace', 'finalizer'], series('kube_lifecycle_namespace_remaining_finalizers'))],
            w=8,
            h=7,
            anomaly='namespace_terminating',
          ),
        ],
      )
    ),
  },
}
