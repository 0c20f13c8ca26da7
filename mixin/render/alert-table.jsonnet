// alerts/README.md's table of alerts (the block `alerts`), made of the rules:
// each alert's severity and `for` as rendered, and its `firesOn`.
local mixin = import '../mixin.libsonnet';

local alerts = [
  r
  for g in mixin.prometheusAlerts.groups
  for r in g.rules
  if std.objectHas(r, 'alert')
];

std.join('\n', [
  '| alert | severity | fires on | for |',
  '|---|---|---|---|',
] + [
  '| %s | %s | %s | %s |' % [r.alert, r.labels.severity, r.firesOn, r['for']]
  for r in alerts
]) + '\n'
