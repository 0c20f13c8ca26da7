// Helpers for the rule groups: selectors, the cluster label and the alert shape
// every rule of the pack shares.
{
  // `metric{selector, matchers}`, the findings selector first; empty parts left out.
  series(config, metric, matchers=''):: (
    local parts = std.filter(function(p) p != '', [config.findingsSelector, matchers]);
    if std.length(parts) == 0 then metric else '%s{%s}' % [metric, std.join(', ', parts)]
  ),

  // The same for the exporter's self-metrics, selected by exporterSelector.
  selfSeries(config, metric, matchers=''):: (
    local parts = std.filter(function(p) p != '', [config.exporterSelector, matchers]);
    if std.length(parts) == 0 then metric else '%s{%s}' % [metric, std.join(', ', parts)]
  ),

  // `by (cluster, a, b)`.
  by(config, labels):: 'by (%s)' % std.join(', ', [config.clusterLabel] + labels),

  // `{{ with $labels.cluster }} in cluster {{ . }}{{ end }}`.
  inCluster(config):: '{{ with $labels.%s }} in cluster {{ . }}{{ end }}' % config.clusterLabel,

  // One alert: `tier` is page, ticket or info (config.severities); _config.alerts
  // may override severity, for, keep_firing_for and add labels.
  alert(config, spec):: (
    local override = std.get(config.alerts, spec.alert, {});
    local keep = std.get(override, 'keep_firing_for', config.keepFiringFor);
    {
      alert: spec.alert,
      expr: spec.expr,
      'for': std.get(override, 'for', spec['for']),
      labels: { severity: std.get(override, 'severity', config.severities[spec.tier]) }
              + std.get(override, 'labels', {}),
      annotations: {
        summary: spec.summary,
        description: spec.description,
        runbook_url: config.runbookURLPattern % std.asciiLower(spec.alert),
      },
    } + (if keep == null then {} else { keep_firing_for: keep })
  ),
}
