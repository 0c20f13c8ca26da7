// The exporter itself: down, blind to a resource, or fighting the API server.
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local target = ['job', 'instance'],
    groups+: [{
      name: 'kube-lifecycle-exporter',
      rules: [
        // Per target, so that one shard down is seen; `absent` for no target
        // discovered at all.
        rules.alert(c, {
          alert: 'KubeLifecycleExporterDown',
          firesOn: '`up{job="kube-lifecycle-exporter"} == 0` for a target, or no target at all',
          expr: |||
            up{%(sel)s} == 0
            or
            absent(up{%(sel)s})
          ||| % { sel: c.exporterSelector },
          'for': '15m',
          tier: 'page',
          summary: 'kube-lifecycle-exporter is not scraped.',
          description: '{{ with $labels.instance }}kube-lifecycle-exporter {{ . }}%s is not scraped successfully{{ else }}No kube-lifecycle-exporter target is discovered at all{{ end }}: stuck Terminating, Pending and image pull problems {{ with $labels.instance }}in the namespaces it covers {{ end }}are not being alerted on.' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleWatchNotSynced',
          firesOn: 'a watch that never completed its list',
          expr: |||
            min %s (%s) == 0
          ||| % [rules.by(c, target + ['resource']), rules.series(c, 'kube_lifecycle_watch_synced')],
          'for': '10m',
          tier: 'ticket',
          summary: 'The exporter cannot list a resource.',
          description: 'kube-lifecycle-exporter {{ $labels.instance }}%s has not completed the list of {{ $labels.resource }}: findings that depend on it are missing.' % rules.inCluster(c),
        }),
        // `expired` (410 Gone) and `too_large` (an API server behind the watch,
        // its history started over) are the watch protocol telling the exporter
        // to list again, not errors: KubeLifecycleWatchRestarting counts those.
        // The description says how old the resource's findings are, from the
        // last time the API server answered the watch.
        rules.alert(c, {
          alert: 'KubeLifecycleWatchErrors',
          firesOn: 'sustained API errors, by resource and reason (not `expired`: 410 Gone is the protocol)',
          expr: |||
            sum %s (
              rate(%s[5m])
            ) > 0
          ||| % [rules.by(c, target + ['resource', 'reason']), rules.series(c, 'kube_lifecycle_watch_errors_total', 'reason!~"expired|too_large"')],
          'for': '15m',
          tier: 'ticket',
          summary: 'The exporter keeps getting errors from the API server.',
          description: 'kube-lifecycle-exporter {{ $labels.instance }}%s gets {{ $labels.reason }} errors watching {{ $labels.resource }} ({{ printf "%%.3f" $value }} per second){{ with printf "time() - min(kube_lifecycle_watch_last_contact_timestamp_seconds{instance=%%q, resource=%%q})" $labels.instance $labels.resource | query }}; the API server last answered it {{ . | first | value | humanizeDuration }} ago, and its findings of {{ $labels.resource }} are that old{{ end }}.' % rules.inCluster(c),
        }),
        rules.alert(c, {
          alert: 'KubeLifecycleWatchRestarting',
          firesOn: 'more than 5 relists of a resource in an hour',
          expr: |||
            sum %s (
              increase(%s[1h])
            ) > 5
          ||| % [rules.by(c, target + ['resource']), rules.series(c, 'kube_lifecycle_watch_restarts_total')],
          'for': '0m',
          tier: 'info',
          summary: 'The exporter relists a resource often.',
          description: 'kube-lifecycle-exporter {{ $labels.instance }}%s had to list {{ $labels.resource }} again {{ $value | humanize }} times in the last hour (its watch could not be resumed: 410 Gone, an API server whose history started over, or an outage).' % rules.inCluster(c),
        }),
        // Above --max-series-per-family a family's per-pod series are folded
        // by namespace, node and cause: the pages still fire, per-pod detail
        // is on the exporter's page and /findings only.
        rules.alert(c, {
          alert: 'KubeLifecycleExporterFoldingSeries',
          firesOn: 'a family has more per-pod series than `--max-series-per-family` and is exposed folded by namespace, node and cause',
          expr: |||
            max %s (%s) > 0
          ||| % [rules.by(c, target + ['family']), rules.series(c, 'kube_lifecycle_series_folded')],
          'for': '15m',
          tier: 'ticket',
          summary: 'The exporter folds per-pod series: too many findings for the series ceiling.',
          description: 'kube-lifecycle-exporter {{ $labels.instance }}%s exposes {{ $labels.family }} by namespace, node and cause instead of per pod: {{ $value | humanize }} per-pod series are over --max-series-per-family. The exporter\'s landing page and /findings still list every object.' % rules.inCluster(c),
        }),
      ],
    }],
  },
}
