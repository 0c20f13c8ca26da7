// What the exporter's code declares, read from its catalogue
// (mixin/catalogue.json: `kube-lifecycle-exporter catalogue`'s output, written by
// `cargo xtask generate`):
// the rules take their cause lists from here rather than restating them.
local catalogue = import '../catalogue.json';

local alertEntry(alert) = (
  local found = std.filter(function(a) a.alert == alert, catalogue.alerts);
  if std.length(found) == 1 then found[0] else error 'no alert %s in the catalogue' % alert
);

{
  // The kinds of a root cause's victims, each with the labels that name one.
  victims:: catalogue.roots.victims,

  // The alerts about one scope (`pod`, `workload`, `node`...), in the
  // catalogue's order.
  scoped(scope):: [a.alert for a in catalogue.alerts if a.scope == scope],

  // The series of an anomaly's findings since when they stand, and the labels
  // that tell one finding from another (the object's, then the finding's own):
  // what a dashboard's table of that anomaly shows.
  since(anomaly):: (
    local found = [
      m
      for m in catalogue.metrics
      if std.member(m.anomalies, anomaly) && std.endsWith(m.metric, '_since_timestamp_seconds')
    ];
    if std.length(found) == 0 then error 'no since metric of %s in the catalogue' % anomaly
    else { metric: found[0].metric, labels: found[0].object_labels[0] + found[0].labels }
  ),

  // The cause labels an alert fires on.
  causes(alert):: [c.cause for c in alertEntry(alert).causes],

  // The cause labels of an anomaly that carry a tag (`registry_transport`, ...).
  tagged(anomaly, tag):: [
    c.cause
    for c in catalogue.causes
    if c.anomaly == anomaly && std.member(c.tags, tag)
  ],

  // `cause="a"`, `cause=~"a|b"`, or for an alert that fires on most of its
  // anomaly's vocabulary the shorter `cause!="z"` / `cause!~"y|z"`; empty when
  // it fires on every cause.
  matcher(alert):: (
    local entry = alertEntry(alert);
    local anomaly = entry.causes[0].anomaly;
    local fires = [c.cause for c in entry.causes];
    local rest = [
      c.cause
      for c in catalogue.causes
      if c.anomaly == anomaly && !std.member(fires, c.cause)
    ];
    local join(list) = std.join('|', list);
    if std.length(rest) == 0 then ''
    else if std.length(fires) == 1 then 'cause="%s"' % fires[0]
    else if std.length(rest) == 1 then 'cause!="%s"' % rest[0]
    else if std.length(rest) < std.length(fires) then 'cause!~"%s"' % join(rest)
    else 'cause=~"%s"' % join(fires)
  ),

  // The same for an explicit list of causes.
  oneOf(causes):: (
    if std.length(causes) == 1 then 'cause="%s"' % causes[0]
    else 'cause=~"%s"' % std.join('|', causes)
  ),
}
