// Namespaces that will not go away.
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local since(causes) = |||
      max %s (
        time() - %s
      )
    ||| % [
      rules.by(c, ['namespace', 'node', 'cause']),
      rules.series(c, 'kube_lifecycle_namespace_terminating_since_timestamp_seconds', 'cause=~"%s"' % std.join('|', causes)),
    ],
    local deleted = 'Namespace {{ $labels.namespace }}%s was deleted {{ $value | humanizeDuration }} ago' % rules.inCluster(c),
    groups+: [{
      name: 'kube-lifecycle-namespaces',
      rules: [
        rules.alert(c, {
          alert: 'KubeLifecycleNamespaceTerminatingContent',
          expr: since(['content_remaining', 'content_deletion_failed', 'pods_terminating', 'unknown']),
          'for': '15m',
          tier: 'ticket',
          summary: 'A namespace stays Terminating because its content is not deleted.',
          description: deleted + ' and still holds objects ({{ $labels.cause }}{{ with $labels.node }}; pods on lost node {{ . }}{{ end }}).',
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleNamespaceTerminatingFinalizers',
          expr: since(['finalizers_remaining', 'namespace_finalizer']),
          'for': '15m',
          tier: 'ticket',
          summary: 'A namespace stays Terminating because of finalizers.',
          description: deleted + ' and waits on finalizers ({{ $labels.cause }}).',
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleNamespaceTerminatingDiscoveryFailed',
          expr: since(['discovery_failed', 'group_version_parsing_failed']),
          'for': '15m',
          tier: 'ticket',
          summary: 'A namespace cannot be deleted because API discovery fails.',
          description: deleted + '; the namespace controller cannot list every API group ({{ $labels.cause }}), usually an aggregated API that is down. Every namespace deletion in the cluster is affected.',
        }),
      ],
    }],
  },
}
