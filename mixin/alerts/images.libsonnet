// Images that cannot be pulled: one registry failing for many, or one pod's own.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  // The causes that are the registry's own doing, when they come from several
  // nodes: transport (TLS, plain HTTP, DNS, refused, timeouts), the registry's rate
  // limit, and failures nobody recognised. Node-local causes (corrupt, inspect_error,
  // no_space, the kubelet's own qps_exceeded) and one pod spec's mistakes
  // (invalid_name, never_pull, platform_mismatch) never count. Tagged so in the
  // exporter's vocabulary.
  registryTransportCauses:: catalogue.tagged('image_pull', 'registry_transport'),
  // Refusals that are the registry's when they span images and namespaces (its
  // authentication or storage is broken), and one namespace's pull secret or one
  // tag's typo otherwise.
  registryContentCauses:: catalogue.tagged('image_pull', 'registry_content'),

  prometheusAlerts+:: {
    local c = $._config,
    local pulls(matchers) = rules.series(c, 'kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds', matchers),
    local transport = catalogue.oneOf($.registryTransportCauses),
    local content = catalogue.oneOf($.registryContentCauses),
    local distinct(label, matchers) = 'count %s (count %s (%s))' % [
      rules.by(c, ['registry']),
      rules.by(c, ['registry', label]),
      pulls(matchers),
    ],
    local on = 'on (%s, registry)' % c.clusterLabel,
    local perPod(matchers, labels=['namespace', 'pod', 'container', 'owner_kind', 'owner_name', 'registry', 'image', 'cause']) = |||
      max %s (
        time() - %s
      )
    ||| % [rules.by(c, labels), pulls(matchers)],
    local failed = 'Container {{ $labels.container }} of pod {{ $labels.namespace }}/{{ $labels.pod }}%s has failed to pull {{ $labels.image }} for {{ $value | humanizeDuration }} ({{ $labels.cause }}).' % rules.inCluster(c),

    groups+: [{
      name: 'kube-lifecycle-images',
      rules: [
        rules.alert(c, {
          alert: 'KubeLifecycleRegistryPullFailing',
          firesOn: 'one registry failing from 2 or more nodes (transport, rate limit, unknown), or refusing 3 or more images in 2 or more namespaces (unauthorized, not found)',
          expr: |||
            count %(byRegistry)s (
              max %(byPod)s (
                %(all)s
              )
            )
            and %(on)s
            (
              %(nodes)s >= %(minNodes)d
              or
              (
                %(images)s >= %(minImages)d
                and %(on)s
                %(namespaces)s >= %(minNamespaces)d
              )
            )
          ||| % {
            byRegistry: rules.by(c, ['registry']),
            byPod: rules.by(c, ['registry', 'namespace', 'pod']),
            all: pulls(catalogue.oneOf($.registryTransportCauses + $.registryContentCauses)),
            on: on,
            nodes: distinct('node', transport),
            minNodes: c.registryFailingNodes,
            images: distinct('image', content),
            minImages: c.registryFailingImages,
            namespaces: distinct('namespace', content),
            minNamespaces: c.registryFailingNamespaces,
          },
          'for': '5m',
          tier: 'page',
          summary: 'An image registry fails pulls for many nodes or images.',
          description: '{{ $value }} pods%s cannot pull their images from {{ $labels.registry }}, from several nodes or for several images and namespaces: the registry (or the way to it) is failing, not one node or one pod spec. The per-pod image pull alerts for this registry are inhibited.' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleImagePullUnauthorized',
          firesOn: '`unauthorized`',
          expr: perPod(catalogue.matcher('KubeLifecycleImagePullUnauthorized')),
          'for': '10m',
          tier: 'ticket',
          summary: 'An image pull is refused for lack of credentials.',
          description: failed,
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleImagePullNotFound',
          firesOn: '`not_found`, `invalid_name`, `never_pull`, `platform_mismatch`',
          expr: perPod(catalogue.matcher('KubeLifecycleImagePullNotFound')),
          'for': '10m',
          tier: 'ticket',
          summary: "A pod's image reference does not name a pullable image.",
          description: failed,
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleImagePullRegistryUnreachable',
          firesOn: '`tls`, `http_to_https`, `dns`, `connection_refused`, `timeout`',
          expr: perPod(catalogue.matcher('KubeLifecycleImagePullRegistryUnreachable')),
          'for': '10m',
          tier: 'ticket',
          summary: 'A node cannot reach or trust an image registry.',
          description: failed,
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleImagePullRateLimited',
          firesOn: '`qps_exceeded`, `rate_limited`',
          expr: perPod(catalogue.matcher('KubeLifecycleImagePullRateLimited')),
          'for': '10m',
          tier: 'ticket',
          summary: 'Image pulls are rate-limited by the kubelet or the registry.',
          description: failed,
        }),
        // Node-local: never counted by KubeLifecycleRegistryPullFailing, never
        // inhibited by it.
        rules.alert(c, {
          alert: 'KubeLifecycleImagePullNodeImageStore',
          firesOn: '`corrupt`, `inspect_error`, `no_space` (node-local: never counted or inhibited by the registry alert)',
          expr: perPod(catalogue.matcher('KubeLifecycleImagePullNodeImageStore'), ['namespace', 'pod', 'container', 'owner_kind', 'owner_name', 'node', 'registry', 'image', 'cause']),
          'for': '10m',
          tier: 'ticket',
          summary: 'An image cannot be stored or read on a node.',
          description: 'Container {{ $labels.container }} of pod {{ $labels.namespace }}/{{ $labels.pod }} on node {{ $labels.node }}%s has failed to get {{ $labels.image }} for {{ $value | humanizeDuration }} ({{ $labels.cause }}).' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleContainerImagePullFailing',
          firesOn: 'image pull failing, cause `unknown`',
          expr: perPod(catalogue.matcher('KubeLifecycleContainerImagePullFailing')),
          'for': '12m',
          tier: 'ticket',
          summary: 'An image pull fails for a reason the exporter does not recognise.',
          description: failed,
        }),
      ],
    }],
  },
}
