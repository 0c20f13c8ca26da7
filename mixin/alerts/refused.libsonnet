// Controllers whose pods the API server refuses to create. An admission webhook
// that cannot be called and fails closed refuses every pod it covers, in every
// namespace: one page per webhook. Anything else (a used-up ResourceQuota, a
// LimitRange, Pod Security, a webhook's denial, a missing ServiceAccount...) is
// one workload's: a ticket, which the webhook's page inhibits for its webhook.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local refused(matchers) = rules.series(c, 'kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds', matchers),

    // One series per workload, its age as the value, with the label the
    // kubernetes-mixin names the same workload by (statefulset, daemonset,
    // job_name; a ReplicaSet's series already carries its deployment), so that
    // these alerts silence the mixin's for the same object.
    local perWorkload(matchers, labels) = |||
      max %s (
        label_replace(
          label_replace(
            label_replace(
              label_join(
                time() - %s,
                "workload", "/", "owner_kind", "owner_name"
              ),
              "statefulset", "$1", "workload", "StatefulSet/(.+)"
            ),
            "daemonset", "$1", "workload", "DaemonSet/(.+)"
          ),
          "job_name", "$1", "workload", "Job/(.+)"
        )
      )
    ||| % [
      rules.by(c, ['namespace', 'owner_kind', 'owner_name', 'deployment', 'statefulset', 'daemonset', 'job_name'] + labels),
      refused(matchers),
    ],
    local workload = '{{ $labels.owner_kind }} {{ $labels.namespace }}/{{ $labels.owner_name }}{{ with $labels.deployment }} (Deployment {{ . }}){{ end }}%s' % rules.inCluster(c),

    groups+: [{
      name: 'kube-lifecycle-refused',
      rules: [
        // Per webhook, not per workload: one outage, one page, however many
        // workloads and namespaces it blocks. Its `for` is shorter than the
        // per-workload alerts' it inhibits.
        rules.alert(c, {
          alert: 'KubeLifecycleAdmissionWebhookUnreachable',
          firesOn: 'an admission webhook that fails closed cannot be called (`webhook_unreachable`), one alert per webhook however many workloads it refuses',
          expr: |||
            count %s (
              max %s (
                %s
              )
            )
          ||| % [
            rules.by(c, ['webhook']),
            rules.by(c, ['webhook', 'namespace', 'owner_kind', 'owner_name']),
            refused(catalogue.matcher('KubeLifecycleAdmissionWebhookUnreachable')),
          ],
          'for': '5m',
          tier: 'page',
          summary: 'An admission webhook cannot be called and refuses every pod it covers.',
          description: 'The API server cannot call admission webhook {{ $labels.webhook }}%s, which fails closed: it refuses the pods of {{ $value }} workload(s), and of every other workload it covers in any namespace (rollouts, scale-ups, replacements of evicted pods). The per-workload KubeLifecyclePodCreateRefused alerts for this webhook are inhibited.' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecyclePodCreateQuotaExceeded',
          firesOn: 'a workload\'s pods refused by a used-up ResourceQuota (`quota_exceeded`), naming the quota and resources',
          expr: perWorkload(catalogue.matcher('KubeLifecyclePodCreateQuotaExceeded'), ['cause', 'quota', 'resource']),
          'for': '8m',
          tier: 'ticket',
          summary: "A ResourceQuota is used up: a workload's pods are refused.",
          description: workload + ' cannot create its pods: ResourceQuota {{ $labels.quota }} is used up ({{ $labels.resource }}); refused for {{ $value | humanizeDuration }}.',
        }),
        // Every other cause, webhook_unreachable included: the ticket names the
        // workload, which the webhook's page (inhibiting it) does not.
        rules.alert(c, {
          alert: 'KubeLifecyclePodCreateRefused',
          firesOn: 'a workload\'s pods refused for any other cause (LimitRange, Pod Security, PodSecurityPolicy, a webhook\'s denial, a missing ServiceAccount, ...); inhibited by KubeLifecycleAdmissionWebhookUnreachable for its webhook',
          expr: perWorkload(catalogue.matcher('KubeLifecyclePodCreateRefused'), ['cause', 'webhook', 'pod_security_level']),
          'for': '8m',
          tier: 'ticket',
          summary: "The API server refuses a workload's pods.",
          description: workload + ' cannot create its pods: the API server has refused them for {{ $value | humanizeDuration }} ({{ $labels.cause }}{{ with $labels.webhook }}, webhook {{ . }}{{ end }}{{ with $labels.pod_security_level }}, Pod Security level {{ . }}{{ end }}).',
        }),
      ],
    }],
  },
}
