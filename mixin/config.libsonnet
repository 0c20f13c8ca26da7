// The settings of the kube-lifecycle-exporter mixin. Override any of them the way
// the kubernetes-mixin is configured:
//
//   (import 'kube-lifecycle-exporter-mixin/mixin.libsonnet') + {
//     _config+:: {
//       clusterLabel: 'k8s_cluster',
//       runbookURLPattern: 'https://runbooks.example.com/kube-lifecycle/%s',
//       alerts+:: { KubeLifecycleDeploymentRecreateBlocked+: { severity: 'warning', 'for': '20m' } },
//     },
//   }
//
// The files shipped in alerts/ and dashboards/ are this mixin rendered with these
// defaults (`cargo xtask generate` writes them; its `--check` checks them).
{
  _config+:: {
    // The exporter's own targets: `up` and the exporter's self-metrics.
    exporterSelector: 'job="kube-lifecycle-exporter"',
    // Added to every findings series (`kube_lifecycle_*`). Empty by default: the
    // metric prefix already names the exporter, and a job name chosen by the
    // scrape configuration cannot silence the alerts.
    findingsSelector: '',
    // The label that tells clusters apart when one Prometheus holds several. Every
    // aggregation keeps it; without such a label, both sides of every match are
    // empty and still equal.
    clusterLabel: 'cluster',

    // runbook_url: `%s` is the alert name in lower case. The exporter serves every
    // runbook itself under /runbooks/<alert in lower case>.
    runbookURLPattern: 'https://kube-lifecycle-exporter.example/runbooks/%s',

    // The severity label values of the three tiers of alerts/README.md: a page (a
    // certain user-facing outage with a known cause), a ticket (one pod or object),
    // information.
    severities: {
      page: 'critical',
      ticket: 'warning',
      info: 'info',
      // KubeLifecycleExplainedByRootCause: never notifies (routed to a receiver
      // with no integration); it only folds other alerts about a root cause's
      // victims.
      silent: 'none',
    },

    // A firing alert stays firing this long after its series disappear, so that a
    // failed scrape or an exporter restart in the middle of an incident neither
    // resolves nor re-pages it. `null` leaves keep_firing_for out.
    keepFiringFor: '5m',

    // KubeLifecyclePodEvictions: this many evictions of one cause in a namespace
    // within 15 minutes is a burst.
    evictionBurst: 5,

    // KubeLifecycleRegistryPullFailing: a registry is failing, not a node or a pod
    // spec, when transport failures (TLS, DNS, refused, timeout, rate limit) come
    // from at least this many nodes ...
    registryFailingNodes: 2,
    // ... or credentials / missing images fail for at least this many images in at
    // least this many namespaces (one namespace's missing pull secret is a ticket).
    registryFailingImages: 3,
    registryFailingNamespaces: 2,

    // KubeLifecyclePodSandboxFailing: pod sandboxes failing for the same cause
    // (the network plugin, the sandbox image) on at least this many nodes are the
    // cluster's outage, not one node's.
    sandboxFailingNodes: 2,

    // Other packs' alerts about one object, by the kind of object
    // (alerts/README.md: victim kinds) and their `for`: while the alert about a
    // root cause fires, KubeLifecycleExplainedByRootCause inhibits them for each
    // object it explains (matching on the labels that name the object). The
    // default is the kubernetes-mixin's (alerts/apps_alerts.libsonnet,
    // kube_proxy.libsonnet); an alert whose `for` is not at least 2 minutes
    // longer than the root cause's alert is left out, so that it is never
    // inhibited after it notified.
    otherPacksAlerts: {
      pod: {
        KubePodNotReady: '15m',
        KubePodCrashLooping: '15m',
        KubeContainerWaiting: '1h',
        // kube-proxy's scrape target is its pod (Prometheus Operator labels it
        // namespace and pod): a lost node's kube-proxy pod is a victim.
        KubeProxyInstanceUnreachable: '15m',
      },
      deployment: {
        KubeDeploymentReplicasMismatch: '15m',
        KubeDeploymentRolloutStuck: '15m',
      },
      statefulset: {
        KubeStatefulSetReplicasMismatch: '15m',
        KubeStatefulSetUpdateNotRolledOut: '15m',
      },
      daemonset: {
        KubeDaemonSetRolloutStuck: '15m',
        KubeDaemonSetNotScheduled: '10m',
        KubeDaemonSetMisScheduled: '15m',
      },
      // Its expression fires once a Job has been active 12 hours.
      job: { KubeJobNotCompleted: '12h', KubeJobFailed: '15m' },
      namespace: {},
    },
    // The kubernetes-mixin's alerts about a node a lost node's page stands for
    // (those that carry the `node` label: kubelet.libsonnet; the kubelet's and
    // kube-proxy's targets where the scrape configuration names their node).
    otherPacksNodeAlerts: [
      'KubeNodeNotReady',
      'KubeNodeUnreachable',
      'KubeNodeReadinessFlapping',
      'KubeletInstanceUnreachable',
      'KubeProxyInstanceUnreachable',
    ],

    // Per-alert overrides, by alert name: `severity` (a label value), `for`,
    // `keep_firing_for`, extra `labels`. Keep an inhibiting alert's `for` no longer
    // than the alerts it inhibits (alerts/README.md).
    alerts: {},

    // Dashboards.
    dashboardTags: ['kube-lifecycle'],
    dashboardRefresh: '1m',
    dashboardTimezone: 'browser',
    // Where the exporter's landing page and runbooks are, for the dashboards' links.
    // The default is what `kubectl -n kube-lifecycle port-forward
    // svc/kube-lifecycle-exporter 9096` serves.
    exporterURL: 'http://localhost:9096',
  },
}
