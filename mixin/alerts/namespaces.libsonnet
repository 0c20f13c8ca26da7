// Namespaces that will not go away.
local catalogue = import '../lib/catalogue.libsonnet';
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local since(alert) = |||
      max %s (
        time() - %s
      )
    ||| % [
      rules.by(c, ['namespace', 'node', 'cause']),
      rules.series(c, 'kube_lifecycle_namespace_terminating_since_timestamp_seconds', catalogue.matcher(alert)),
    ],
    local deleted = 'Namespace {{ $labels.namespace }}%s was deleted {{ $value | humanizeDuration }} ago' % rules.inCluster(c),
    groups+: [{
      name: 'kube-lifecycle-namespaces',
      rules: [
        rules.alert(c, {
          alert: 'KubeLifecycleNamespaceTerminatingContent',
          firesOn: 'namespace content not deleted, or its pods stuck Terminating (`pods_terminating`, naming them; inhibited by KubeLifecycleNodeLost when they sit on a lost node)',
          expr: since('KubeLifecycleNamespaceTerminatingContent'),
          'for': '15m',
          tier: 'ticket',
          summary: 'A namespace stays Terminating because its content is not deleted.',
          description: deleted + ' and still holds objects ({{ $labels.cause }}{{ with $labels.node }}; pods on lost node {{ . }}{{ end }}).',
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleNamespaceTerminatingFinalizers',
          firesOn: 'namespace waiting on finalizers',
          expr: since('KubeLifecycleNamespaceTerminatingFinalizers'),
          'for': '15m',
          tier: 'ticket',
          summary: 'A namespace stays Terminating because of finalizers.',
          description: deleted + ' and waits on finalizers ({{ $labels.cause }}).',
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleNamespaceTerminatingDiscoveryFailed',
          firesOn: 'API discovery fails (an aggregated API is down)',
          expr: since('KubeLifecycleNamespaceTerminatingDiscoveryFailed'),
          'for': '15m',
          tier: 'ticket',
          summary: 'A namespace cannot be deleted because API discovery fails.',
          description: deleted + '; the namespace controller cannot list every API group ({{ $labels.cause }}), usually an aggregated API that is down. Every namespace deletion in the cluster is affected.',
        }),
      ],
    }],
  },
}
