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

  // The severity label of a tier; `silent` (the alert that never notifies)
  // is `none` unless the configuration's severities name it.
  severity(config, tier):: std.get(config.severities, tier, if tier == 'silent' then 'none' else error 'no severity for tier %s' % tier),

  // One alert: `tier` is page, ticket, info or silent (config.severities); _config.alerts
  // may override severity, for, keep_firing_for and add labels. `firesOn` says in
  // a few words what it fires on: alerts/README.md's table of alerts is made of it
  // and the rule (mixin/render/alert-table.jsonnet), so nothing is written twice.
  //
  // `silences` (optional) lists the other packs' alerts this one explains, for
  // the same object: each `{ alerts: [...], equal: [labels naming the object],
  // matchers: [extra source matchers], targetMatchers: [...] }` (the last two
  // optional) becomes an inhibition of kubernetes-mixin-inhibitions.yaml
  // (alerts/inhibitions.libsonnet collects them), written beside the rule.
  alert(config, spec):: (
    local override = std.get(config.alerts, spec.alert, {});
    local keep = std.get(override, 'keep_firing_for', config.keepFiringFor);
    {
      alert: spec.alert,
      firesOn:: if std.objectHas(spec, 'firesOn') then spec.firesOn else error 'alert %s: no firesOn' % spec.alert,
      silences:: std.get(spec, 'silences', []),
      expr: spec.expr,
      'for': std.get(override, 'for', spec['for']),
      labels: { severity: std.get(override, 'severity', $.severity(config, spec.tier)) }
              + std.get(override, 'labels', {}),
      annotations: {
        summary: spec.summary,
        description: spec.description,
        runbook_url: config.runbookURLPattern % std.asciiLower(spec.alert),
      },
    } + (if keep == null then {} else { keep_firing_for: keep })
  ),

  // A Prometheus duration (`90s`, `15m`, `1h30m`) in seconds.
  seconds(duration):: (
    local units = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
    local step(acc, c) =
      if std.member('0123456789', c) then acc { n: acc.n * 10 + std.parseInt(c) }
      else { total: acc.total + acc.n * units[c], n: 0 };
    std.foldl(step, std.stringChars(duration), { total: 0, n: 0 }).total
  ),
}
