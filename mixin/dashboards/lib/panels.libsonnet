// Small constructors for the Grafana dashboards of the mixin (grafonnet cannot be
// fetched here, and these dashboards need little of it). Call with the mixin's
// _config:
//
//   local panels = (import 'lib/panels.libsonnet')($._config);
//
// Panels take their size (w, h); `layout` places them left to right and top to
// bottom and numbers them, so that adding a panel moves the ones below it.
local catalogue = import '../../lib/catalogue.libsonnet';

function(config) {
  local lib = self,

  datasource:: { type: 'prometheus', uid: '${datasource}' },

  // ------------------------------------------------------------------ PromQL

  // The cluster variable's matcher on the configured cluster label.
  clusterMatcher:: '%s=~"$cluster"' % config.clusterLabel,

  local join(parts) = std.join(', ', std.filter(function(p) p != '', parts)),

  // `metric{cluster=~"$cluster", <findingsSelector>, matchers}`: every series the
  // dashboards read from the exporter, empty parts left out.
  series(metric, matchers=''):: '%s{%s}' % [metric, join([lib.clusterMatcher, config.findingsSelector, matchers])],

  // The same without the cluster matcher, for the cluster variable itself.
  unfiltered(metric, matchers=''):: (
    local m = join([config.findingsSelector, matchers]);
    if m == '' then metric else '%s{%s}' % [metric, m]
  ),

  // `(cluster, a, b)`: the label list of an aggregation that keeps the cluster.
  byCluster(labels):: '(%s)' % std.join(', ', [config.clusterLabel] + labels),

  // `{{cluster}}` in a legend.
  clusterLegend:: '{{%s}}' % config.clusterLabel,

  local indent(text) = std.join('\n', ['  ' + l for l in std.split(text, '\n')]),

  // `head\n  inner\n)`, the inner expression indented: `head` opens the
  // parenthesis, e.g. `sum(` or `max by (cluster, pod) (`.
  wrap(head, inner):: '%s\n%s\n)' % [head, indent(inner)],

  // Counting across the exporter's targets. The exporter can be sharded by
  // namespace (a StatefulSet of n exporters, each holding a disjoint part), so
  // one cluster's findings come from several targets:
  //
  // - kube_lifecycle_findings is each target's count by anomaly and cause: the
  //   shards' counts add up, so counts are `sum by (cluster, anomaly, cause)`
  //   (shardSum). A `max` there would show the largest shard's count only.
  // - Per-object series (`*_since_timestamp_seconds`, `*_blocking_pods`...) carry
  //   the labels that identify the object: lists keep one series per object with
  //   `max by (cluster, object labels)` (perObject), whichever target reports it,
  //   and counts of objects `count` those.
  shardSum(labels, inner):: lib.wrap('sum by %s (' % lib.byCluster(labels), inner),

  // `max by (cluster, labels...) (inner)`: one series per object, whichever
  // exporter target reports it.
  perObject(labels, inner):: lib.wrap('max by %s (' % lib.byCluster(labels), inner),

  // `max by (cluster, labels...) (time() - series)`: how long each object has
  // been in its state.
  age(labels, metric, matchers=''):: lib.perObject(labels, 'time() - ' + lib.series(metric, matchers)),

  // ------------------------------------------------------------------ targets

  // One query of a panel: a range query by default, an instant one when
  // `instant`; `format` is time_series, table or heatmap.
  target(expr, refId='A', legend=null, instant=false, format='time_series'):: {
    datasource: lib.datasource,
    editorMode: 'code',
    expr: expr,
    refId: refId,
    range: !instant,
    instant: instant,
    format: format,
  } + (if legend == null then {} else { legendFormat: legend }),

  // Several queries: refIds A, B, C... in order. Each item is an expression or
  // {expr, legend}.
  targets(items, instant=false, format='time_series'):: [
    local item = items[i];
    local spec = if std.isString(item) then { expr: item } else item;
    lib.target(spec.expr, std.char(65 + i), std.get(spec, 'legend'), instant, format)
    for i in std.range(0, std.length(items) - 1)
  ],

  // ------------------------------------------------------------------ panels

  // What every panel but a row has.
  panel(type, title, description, w, h, fieldConfig, options, targets):: {
    type: type,
    title: title,
    description: description,
    datasource: lib.datasource,
    fieldConfig: fieldConfig,
    options: options,
    targets: targets,
    gridPos: { w: w, h: h },
  },

  // A section header; `collapsed` rows hold their panels.
  row(title, panels=[], collapsed=false):: {
    type: 'row',
    title: title,
    collapsed: collapsed,
    panels: panels,
    gridPos: { w: 24, h: 1 },
  },

  thresholds(steps):: {
    mode: 'absolute',
    steps: [{ color: s[0], value: s[1] } for s in steps],
  },

  // A single number: red from 1 on, or `steps` ([[color, from], ...]).
  stat(title, description, expr, w=4, h=4, steps=[['green', null], ['red', 1]]):: lib.panel(
    'stat',
    title,
    description,
    w,
    h,
    {
      defaults: {
        unit: 'short',
        decimals: 0,
        color: { mode: 'thresholds' },
        thresholds: lib.thresholds(steps),
        noValue: '0',
      },
      overrides: [],
    },
    {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      colorMode: 'background',
      graphMode: 'area',
      justifyMode: 'auto',
      orientation: 'auto',
      textMode: 'auto',
      wideLayout: true,
      showPercentChange: false,
    },
    [lib.target(expr)],
  ),

  // The line styles of the time series: `stacked` counts of findings (steps,
  // stacked), `lines` for measurements, `bars` for counts per interval.
  local styles = {
    stacked: { drawStyle: 'line', fillOpacity: 25, lineInterpolation: 'stepAfter', stacking: 'normal' },
    lines: { drawStyle: 'line', fillOpacity: 10, lineInterpolation: 'linear', stacking: 'none' },
    bars: { drawStyle: 'bars', fillOpacity: 80, lineInterpolation: 'linear', stacking: 'none' },
  },

  // A time series of the queries `items` (see targets).
  timeseries(title, description, items, w=12, h=8, unit='short', style='stacked', overrides=[], max=null):: lib.panel(
    'timeseries',
    title,
    description,
    w,
    h,
    {
      defaults: {
        unit: unit,
        color: { mode: 'palette-classic' },
        custom: {
          drawStyle: styles[style].drawStyle,
          lineWidth: 1,
          fillOpacity: styles[style].fillOpacity,
          gradientMode: 'none',
          showPoints: 'never',
          spanNulls: false,
          lineInterpolation: styles[style].lineInterpolation,
          stacking: { mode: styles[style].stacking, group: 'A' },
          axisPlacement: 'auto',
          axisSoftMin: 0,
          thresholdsStyle: { mode: 'off' },
        },
        thresholds: lib.thresholds([['green', null]]),
      } + (if max == null then {} else { max: max }),
      overrides: overrides,
    },
    {
      legend: {
        displayMode: 'table',
        placement: 'right',
        showLegend: true,
        calcs: ['lastNotNull', 'max'],
        sortBy: 'Last *',
        sortDesc: true,
      },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
    lib.targets(items),
  ),

  // Horizontal bars of the current value of each series of `expr`.
  bargauge(title, description, expr, legend, w=12, h=8):: lib.panel(
    'bargauge',
    title,
    description,
    w,
    h,
    {
      defaults: {
        unit: 'short',
        decimals: 0,
        min: 0,
        color: { mode: 'thresholds' },
        thresholds: lib.thresholds([['orange', null]]),
      },
      overrides: [],
    },
    {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      orientation: 'horizontal',
      displayMode: 'gradient',
      valueMode: 'color',
      namePlacement: 'auto',
      showUnfilled: true,
      sizing: 'auto',
      minVizWidth: 8,
      minVizHeight: 16,
      maxVizHeight: 300,
    },
    [lib.target(expr, legend=legend, instant=true)],
  ),

  // The histogram `metric` (without _bucket) as observations per second per bucket.
  heatmap(title, description, metric, w=12, h=8):: lib.panel(
    'heatmap',
    title,
    description,
    w,
    h,
    {
      defaults: {
        unit: 'ops',
        custom: {
          hideFrom: { legend: false, tooltip: false, viz: false },
          scaleDistribution: { type: 'linear' },
        },
      },
      overrides: [],
    },
    {
      calculate: false,
      cellGap: 1,
      cellValues: { unit: 'ops' },
      color: {
        exponent: 0.5,
        fill: 'dark-orange',
        mode: 'scheme',
        reverse: false,
        scale: 'exponential',
        scheme: 'Oranges',
        steps: 64,
      },
      exemplars: { color: 'rgba(255,0,255,0.7)' },
      filterValues: { le: 1e-09 },
      legend: { show: true },
      rowsFrame: { layout: 'auto' },
      tooltip: { mode: 'single', showColorScale: false, yHistogram: true },
      yAxis: { axisPlacement: 'left', reverse: false, unit: 's' },
    },
    [lib.target(
      'sum by (le) (rate(%s[$__rate_interval]))' % lib.series(metric + '_bucket'),
      legend='{{le}}',
      format='heatmap',
    )],
  ),

  // p50, p90, p99 and the mean of the histogram `metric` per cluster.
  percentiles(title, description, metric, w=12, h=8):: (
    local rate(suffix) = 'rate(%s[$__rate_interval])' % lib.series(metric + suffix);
    local quantile(q, name) = {
      expr: 'histogram_quantile(%s, sum by %s (%s))' % [q, lib.byCluster(['le']), rate('_bucket')],
      legend: '%s %s' % [name, lib.clusterLegend],
    };
    lib.timeseries(title, description, [
      quantile('0.5', 'p50'),
      quantile('0.9', 'p90'),
      quantile('0.99', 'p99'),
      {
        expr: 'sum by %(by)s (%(sum)s)\n/\nsum by %(by)s (%(count)s)' % {
          by: lib.byCluster([]),
          sum: rate('_sum'),
          count: rate('_count'),
        },
        legend: 'mean ' + lib.clusterLegend,
      },
    ], w, h, unit='s', style='lines')
  ),

  // ------------------------------------------------------------------ links

  // Data links open the exporter (the `exporter` variable): its runbooks and its
  // landing page, which lists the current findings.
  link(title, path):: { title: title, url: '${exporter}' + path, targetBlank: true },

  // The runbook of an alert, by name (the exporter matches it in any case).
  runbookLink(alert):: lib.link('Runbook: ' + alert, '/runbooks/' + std.asciiLower(alert)),

  // What a cause is, in a link: the label of the series under the cursor, or the
  // cause column of the table row.
  fieldCause:: '${__field.labels.cause}',
  rowCause:: '${__data.fields.cause}',
  rowNamespace:: '${__data.fields.namespace}',

  // The two links of every finding panel: the runbook for the cause (the exporter
  // redirects /runbooks/for/<anomaly>/<cause> to the runbook of the alert that
  // cause raises), or the runbook index where the panel has no cause; and the
  // landing page's findings of the anomaly (of the namespace when given).
  findingLinks(anomaly, cause=null, namespace=null):: [
    if cause == null
    then lib.link('Runbooks', '/runbooks')
    else lib.link('Runbook for this cause', '/runbooks/for/%s/%s' % [anomaly, cause]),
    lib.link(
      'Findings on the landing page',
      '/?anomaly=%s%s' % [anomaly, if namespace == null then '' else '&namespace=' + namespace]
    ),
  ],

  // `panel + p.links(...)` adds data links to every field of a panel.
  links(links):: { fieldConfig+: { defaults+: { links: links } } },

  // `panel + p.finding(anomaly, cause)`: a panel of one anomaly's findings.
  finding(anomaly, cause=null):: lib.links(lib.findingLinks(anomaly, cause)),

  // A panel whose queries (A, B, ...) are one anomaly each: each query's series
  // link to their anomaly, the panel's defaults to the index and landing page.
  findingPerQuery(anomalies):: lib.links([lib.link('Runbooks', '/runbooks'), lib.link('Findings on the landing page', '/')]) + {
    fieldConfig+: {
      overrides+: [
        {
          matcher: { id: 'byFrameRefID', options: std.char(65 + i) },
          properties: [{ id: 'links', value: lib.findingLinks(anomalies[i]) }],
        }
        for i in std.range(0, std.length(anomalies) - 1)
      ],
    },
  },

  // ------------------------------------------------------------------ tables

  // The columns a table shows after its labels, one per query (A, B, ...):
  // `age` columns are durations (orange from 15 minutes, red from an hour),
  // `number` columns whole numbers.
  ageColumn(name):: { name: name, kind: 'age' },
  numberColumn(name, unit='short'):: { name: name, kind: 'number', unit: unit },

  local columnProperties(column) =
    if column.kind == 'age' then [
      { id: 'unit', value: 'dtdurations' },
      { id: 'custom.cellOptions', value: { type: 'color-text' } },
      { id: 'thresholds', value: lib.thresholds([['text', null], ['orange', 900], ['red', 3600]]) },
      { id: 'custom.width', value: 220 },
    ] else [
      { id: 'unit', value: column.unit },
      { id: 'decimals', value: 0 },
      { id: 'custom.width', value: 140 },
    ],

  byName(name, properties):: { matcher: { id: 'byName', options: name }, properties: properties },

  // The cause column: OOMKilled in red, other causes as they are.
  local causeOverride = lib.byName('cause', [
    {
      id: 'mappings',
      value: [{ type: 'value', options: { oom_killed: { text: 'OOMKilled', color: 'red', index: 0 } } }],
    },
    { id: 'custom.cellOptions', value: { type: 'color-text' } },
    { id: 'color', value: { mode: 'fixed', fixedColor: 'text' } },
  ]),

  // The namespace column opens the namespace dashboard on that namespace, and
  // keeps the row's other links (an override's links replace the defaults').
  local drilldownOverride(rowLinks) = lib.byName('namespace', [{
    id: 'links',
    value: [{
      title: 'Open the namespace drill-down',
      url: '/d/kube-lifecycle-namespace/kube-lifecycle-namespace?${datasource:queryparam}&${cluster:queryparam}&var-namespace=${__value.raw}&${__url_time_range}',
    }] + rowLinks,
  }]),

  // A table of the instant queries `exprs` merged on `labels` (the cluster label
  // first, then these), followed by `columns`, one per query, sorted by the first
  // column, largest first. `drilldown`: the namespace column links to the
  // namespace dashboard. `anomaly`: the rows are findings of that anomaly, and
  // link to the runbook of their cause and to the landing page (see
  // findingLinks); `links`: other data links.
  table(title, description, labels, columns, exprs, w=24, h=8, drilldown=false, anomaly=null, links=[]):: (
    local names = [config.clusterLabel] + labels;
    local has(label) = std.member(names, label);
    local first = columns[0];
    local rowLinks = links + (
      if anomaly == null then [] else lib.findingLinks(
        anomaly,
        if has('cause') then lib.rowCause else null,
        if has('namespace') then lib.rowNamespace else null,
      )
    );
    lib.panel(
      'table',
      title,
      description,
      w,
      h,
      {
        defaults: {
          unit: if first.kind == 'age' then 'dtdurations' else first.unit,
          color: { mode: 'thresholds' },
          custom: { align: 'auto', cellOptions: { type: 'auto' }, inspect: false, filterable: true },
          thresholds: lib.thresholds([['text', null]]),
        } + (if std.length(rowLinks) == 0 then {} else { links: rowLinks }),
        overrides: [lib.byName(c.name, columnProperties(c)) for c in columns]
                   + (if has('cause') then [causeOverride] else [])
                   + (if drilldown && has('namespace') then [drilldownOverride(rowLinks)] else []),
      },
      {
        showHeader: true,
        cellHeight: 'sm',
        footer: { show: false, reducer: ['sum'], countRows: false, fields: '' },
        sortBy: [{ displayName: first.name, desc: true }],
      },
      lib.targets(exprs, instant=true, format='table'),
    ) + {
      transformations: [
        { id: 'merge', options: {} },
        {
          id: 'organize',
          options: {
            excludeByName: { Time: true },
            indexByName: { [names[i]]: i for i in std.range(0, std.length(names) - 1) }
                         + { [columns[i].name]: std.length(names) + i for i in std.range(0, std.length(columns) - 1) },
            // One query's value is `Value`, or `Value #A` when Grafana names it
            // by query; several queries' are `Value #A`, `Value #B`...
            renameByName: (if std.length(columns) == 1 then { Value: first.name } else {})
                          + { ['Value #' + std.char(65 + i)]: columns[i].name for i in std.range(0, std.length(columns) - 1) },
          },
        },
      ],
    }
  ),

  // Every finding of one anomaly with its labels and age, its rows linked to the
  // runbook of their cause and to the landing page: the series and its labels
  // are the catalogue's, so a new family's table is a title and a description.
  anomalyTable(title, description, anomaly, w=24, h=8):: (
    local since = catalogue.since(anomaly);
    lib.table(
      title,
      description,
      since.labels,
      [lib.ageColumn('Age')],
      [lib.age(since.labels, since.metric)],
      w=w,
      h=h,
      drilldown=true,
      anomaly=anomaly,
    )
  ),

  // ------------------------------------------------------------------ layout

  // Places `panels` on the 24-column grid in order, left to right, starting a new
  // line when a panel does not fit (a line is as high as its highest panel) and
  // at each row, and gives every panel an id, 1, 2... in that order. A collapsed
  // row's panels are placed below it and the next row follows it directly.
  layout(panels):: (
    local place(state, p) =
      if p.type == 'row' then
        local y = if state.x > 0 then state.y + state.line else state.y;
        local inner = std.foldl(place, p.panels, { x: 0, y: y + 1, line: 0, id: state.id + 1, out: [] });
        {
          x: 0,
          y: y + 1,
          line: 0,
          id: inner.id,
          out: state.out + [p { id: state.id, gridPos: { x: 0, y: y, w: 24, h: 1 }, panels: inner.out }],
        }
      else
        local wraps = state.x + p.gridPos.w > 24;
        local x = if wraps then 0 else state.x;
        local y = if wraps then state.y + state.line else state.y;
        {
          x: x + p.gridPos.w,
          y: y,
          line: std.max(if wraps then 0 else state.line, p.gridPos.h),
          id: state.id + 1,
          out: state.out + [p { id: state.id, gridPos+: { x: x, y: y } }],
        };
    std.foldl(place, panels, { x: 0, y: 0, line: 0, id: 1, out: [] }).out
  ),

  // ------------------------------------------------------------------ alerts

  // The pack's alerts firing now at one severity: Prometheus' own ALERTS series.
  firingAlerts(severity):: 'ALERTS{alertstate="firing", alertname=~"KubeLifecycle.+", severity="%s", %s}' % [severity, lib.clusterMatcher],

  // Links a table row to the runbook of its alert (the alertname column).
  local alertRunbook = lib.link('Runbook', '/runbooks/${__data.fields.alertname}'),

  // One row per alert firing at `severity`, with the labels that identify it
  // (whichever the alert has: node, namespace, deployment, registry...).
  alertTable(title, description, severity, w=24, h=6):: lib.panel(
    'table',
    title,
    description,
    w,
    h,
    {
      defaults: {
        unit: 'short',
        color: { mode: 'thresholds' },
        custom: { align: 'auto', cellOptions: { type: 'auto' }, inspect: false, filterable: true },
        thresholds: lib.thresholds([['text', null]]),
        links: [alertRunbook],
      },
      overrides: [lib.byName('alertname', [
        { id: 'custom.cellOptions', value: { type: 'color-text' } },
        { id: 'color', value: { mode: 'fixed', fixedColor: 'red' } },
      ])],
    },
    {
      showHeader: true,
      cellHeight: 'sm',
      footer: { show: false, reducer: ['sum'], countRows: false, fields: '' },
      sortBy: [{ displayName: 'alertname', desc: false }],
    },
    [lib.target(lib.firingAlerts(severity), instant=true, format='table')],
  ) + {
    local first = ['alertname', config.clusterLabel, 'node', 'namespace', 'deployment', 'statefulset', 'daemonset', 'pod', 'container', 'registry', 'webhook', 'cause'],
    transformations: [
      { id: 'merge', options: {} },
      {
        id: 'organize',
        options: {
          // What every row has in common, and the value (1).
          excludeByName: { Time: true, Value: true, 'Value #A': true, __name__: true, alertstate: true, severity: true },
          indexByName: { [first[i]]: i for i in std.range(0, std.length(first) - 1) },
          renameByName: {},
        },
      },
    ],
  },

  // How many alerts fire at `severity`, by alert.
  alertCountTable(title, description, severity, w=8, h=6):: lib.table(
    title,
    description,
    ['alertname'],
    [lib.numberColumn('Firing')],
    ['count by %s (%s)' % [lib.byCluster(['alertname']), lib.firingAlerts(severity)]],
    w=w,
    h=h,
    links=[alertRunbook],
  ),

  // ------------------------------------------------------------------ dashboard

  // Where the exporter is, for the links: a textbox each viewer can change.
  exporterVariable:: {
    name: 'exporter',
    label: 'Exporter URL',
    description: "Where kube-lifecycle-exporter's landing page and runbooks are served, as the browser reaches it (a kubectl port-forward, an ingress): the panels' links open runbooks and findings there.",
    type: 'textbox',
    query: config.exporterURL,
    current: { selected: false, text: config.exporterURL, value: config.exporterURL },
    options: [{ selected: true, text: config.exporterURL, value: config.exporterURL }],
    hide: 0,
  },

  datasourceVariable:: {
    name: 'datasource',
    label: 'Data source',
    type: 'datasource',
    query: 'prometheus',
    current: {},
    hide: 0,
    includeAll: false,
    multi: false,
    options: [],
    refresh: 1,
    regex: '',
  },

  // A multi-value query variable with "All" (matching `allValue` when given).
  queryVariable(name, label, query, allValue=null):: {
    name: name,
    label: label,
    type: 'query',
    datasource: lib.datasource,
    definition: query,
    query: { query: query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
    current: { selected: true, text: ['All'], value: ['$__all'] },
    hide: 0,
    includeAll: true,
    multi: true,
    options: [],
    refresh: 2,
    regex: '',
    sort: 1,
  } + (if allValue == null then {} else { allValue: allValue }),

  // The cluster variable: every cluster an exporter reports from.
  clusterVariable:: lib.queryVariable(
    'cluster',
    'Cluster',
    'label_values(%s, %s)' % [lib.unfiltered('kube_lifecycle_build_info'), config.clusterLabel],
    allValue='.*',
  ),

  // A dashboard of the pack: `linkTooltip` describes the dropdown of the other
  // dashboards (by tag).
  dashboard(uid, title, description, linkTooltip, variables, panels):: {
    __inputs: [],
    __requires: [
      { type: 'grafana', id: 'grafana', name: 'Grafana', version: '10.4.0' },
      { type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' },
    ] + [
      { type: 'panel', id: p[0], name: p[1], version: '' }
      for p in [['timeseries', 'Time series'], ['stat', 'Stat'], ['table', 'Table'], ['heatmap', 'Heatmap'], ['bargauge', 'Bar gauge']]
    ],
    annotations: {
      list: [{
        builtIn: 1,
        datasource: { type: 'grafana', uid: '-- Grafana --' },
        enable: true,
        hide: true,
        iconColor: 'rgba(0, 211, 255, 1)',
        name: 'Annotations & Alerts',
        type: 'dashboard',
      }],
    },
    description: description,
    editable: true,
    fiscalYearStartMonth: 0,
    graphTooltip: 1,
    id: null,
    links: [{
      title: 'kube-lifecycle dashboards',
      type: 'dashboards',
      tags: config.dashboardTags,
      asDropdown: true,
      includeVars: true,
      keepTime: true,
      icon: 'external link',
      targetBlank: false,
      tooltip: linkTooltip,
      url: '',
    }],
    liveNow: false,
    panels: lib.layout(panels),
    refresh: config.dashboardRefresh,
    schemaVersion: 39,
    tags: config.dashboardTags,
    templating: { list: variables },
    time: { from: 'now-6h', to: 'now' },
    timepicker: { refresh_intervals: ['30s', '1m', '5m', '15m', '1h'] },
    timezone: config.dashboardTimezone,
    title: title,
    uid: uid,
    version: 1,
    weekStart: '',
  },
}
