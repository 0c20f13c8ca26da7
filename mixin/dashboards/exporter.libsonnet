// dashboards/kube-lifecycle-exporter.json: the exporter's own health: its
// targets, its watches, how long the findings are, its diagnosis and its process.
// Its own dashboard, as kube-state-metrics' is, so that the overview holds the
// findings only (and each ConfigMap stays far below kubectl apply's annotation limit).
local panels = import 'lib/panels.libsonnet';

{
  grafanaDashboards+:: {
    'kube-lifecycle-exporter.json': (
      local c = $._config;
      local p = panels(c);

      // The exporter's targets, as the job variable selects them.
      local job = 'job=~"$job"';
      local own(metric) = p.series(metric, job);
      local target = ['job', 'instance'];

      p.dashboard(
        uid='kube-lifecycle-exporter',
        title='Kubernetes lifecycle / Exporter',
        description="The health of kube-lifecycle-exporter itself: whether Prometheus scrapes it, whether its watches are synced and how old its findings are, how often it diagnoses and what that costs, its process.",
        linkTooltip='Per-namespace drill-down and overview',
        variables=[
          p.datasourceVariable,
          p.clusterVariable,
          p.queryVariable('job', 'Exporter job', 'label_values(%s, job)' % p.series('kube_lifecycle_build_info')),
          p.exporterVariable,
        ],
        panels=[
          p.row('Scrapes and watches'),
          p.stat(
            'Exporter targets up',
            "Scrape targets of the selected exporter jobs that are up (Prometheus' up series); red when none is.",
            'sum(up{%s, %s})' % [p.clusterMatcher, job],
            h=7,
            steps=[['red', null], ['green', 1]],
          ) + p.links([p.runbookLink('KubeLifecycleExporterDown')]),
          p.timeseries(
            'Exporter up',
            'Whether Prometheus could scrape each exporter instance (1) or not (0).',
            [{ expr: 'max by %s (up{%s, %s})' % [p.byCluster(target), p.clusterMatcher, job], legend: '{{instance}} ' + p.clusterLegend }],
            w=10,
            h=7,
            unit='bool_yes_no',
            style='lines',
            max=1,
          ) + p.links([p.runbookLink('KubeLifecycleExporterDown')]),
          p.timeseries(
            'Watch synced per resource',
            'Whether each resource watch has completed its first list (1) or not (0). Unsynced watches mean missing findings.',
            [{ expr: 'min by %s (%s)' % [p.byCluster(target + ['resource']), own('kube_lifecycle_watch_synced')], legend: '{{resource}} {{instance}}' }],
            w=10,
            h=7,
            unit='bool_yes_no',
            style='lines',
            max=1,
          ) + p.links([p.runbookLink('KubeLifecycleWatchNotSynced')]),
          p.timeseries(
            'Objects held by resource',
            "Objects of each resource held in the exporter's model.",
            [{ expr: 'max by %s (%s)' % [p.byCluster(target + ['resource']), own('kube_lifecycle_watch_objects')], legend: '{{resource}} {{instance}}' }],
            style='lines',
          ),
          p.timeseries(
            'Watch events rate',
            'Objects applied to the model per second, by resource and event (listed, applied, deleted).',
            [{
              expr: p.wrap('sum by %s (' % p.byCluster(target + ['resource', 'event']), 'rate(%s[$__rate_interval])' % own('kube_lifecycle_watch_events_total')),
              legend: '{{resource}} {{event}} {{instance}}',
            }],
            unit='ops',
            style='lines',
          ),
          p.timeseries(
            'Watch errors by reason',
            'Errors from the API server while listing or watching, per second, by resource and reason (forbidden, unauthorized, expired, connection, ...).',
            [{
              expr: p.wrap('sum by %s (' % p.byCluster(target + ['resource', 'reason']), 'rate(%s[$__rate_interval])' % own('kube_lifecycle_watch_errors_total')),
              legend: '{{resource}} {{reason}} {{instance}}',
            }],
            unit='ops',
            style='lines',
          ) + p.links([p.runbookLink('KubeLifecycleWatchErrors')]),
          p.timeseries(
            'Watch restarts',
            'Times a watch had to list again after its first sync (its resume point expired: 410 Gone), per rate interval.',
            [{
              expr: p.wrap('sum by %s (' % p.byCluster(target + ['resource']), 'increase(%s[$__rate_interval])' % own('kube_lifecycle_watch_restarts_total')),
              legend: '{{resource}} {{instance}}',
            }],
            style='bars',
          ) + p.links([p.runbookLink('KubeLifecycleWatchRestarting')]),
          p.timeseries(
            'Time since last watch event',
            'Time since the last list or watch event of each resource was applied; a steadily growing value on a busy resource means the watch is stuck.',
            [{
              expr: p.wrap('max by %s (' % p.byCluster(target + ['resource']), 'time() - ' + own('kube_lifecycle_watch_last_event_timestamp_seconds')),
              legend: '{{resource}} {{instance}}',
            }],
            unit='s',
            style='lines',
          ),
          p.timeseries(
            'Age of the findings (time since the API server last answered)',
            'Time since the API server last answered the watch of each resource (a list page, a watch opened, an event or a bookmark). During an outage the exporter serves its last known state: the findings of that resource are this old.',
            [{
              expr: p.wrap('max by %s (' % p.byCluster(target + ['resource']), 'time() - ' + own('kube_lifecycle_watch_last_contact_timestamp_seconds')),
              legend: '{{resource}} {{instance}}',
            }],
            unit='s',
            style='lines',
          ) + p.links([p.runbookLink('KubeLifecycleWatchErrors')]),
          p.timeseries(
            'Scrape render duration',
            'Time the previous /metrics response took to render, per exporter instance.',
            [{ expr: 'max by %s (%s)' % [p.byCluster(target), own('kube_lifecycle_scrape_render_duration_seconds')], legend: '{{instance}} ' + p.clusterLegend }],
            unit='s',
            style='lines',
          ),
          p.timeseries(
            'Diagnosis: judgements and their CPU',
            'How often each exporter diagnosed its model again (after it changed, or when a finding\'s time came), per second, and the share of a core that took (rate of kube_lifecycle_judgement_seconds_total). Scrapes and page views between two judgements read the findings as they are.',
            [
              { expr: 'sum by %s (rate(%s[$__rate_interval]))' % [p.byCluster(target), own('kube_lifecycle_judgements_total')], legend: 'judgements/s {{instance}} ' + p.clusterLegend },
              { expr: 'sum by %s (rate(%s[$__rate_interval]))' % [p.byCluster(target), own('kube_lifecycle_judgement_seconds_total')], legend: 'cores {{instance}} ' + p.clusterLegend },
            ],
            style='lines',
          ),
          p.timeseries(
            'Series folded above the ceiling',
            'Per-pod series of each family withheld because it had more than --max-series-per-family (kube_lifecycle_series_folded): that family is exposed by namespace, node and cause instead. 0 when every family is whole; the landing page and /findings still list every object.',
            [{
              expr: 'max by %s (%s) > 0' % [p.byCluster(target + ['family']), own('kube_lifecycle_series_folded')],
              legend: '{{family}} {{instance}}',
            }],
            style='lines',
          ) + p.links([p.runbookLink('KubeLifecycleExporterFoldingSeries')]),
          // Who reads the exporter (--auth kubernetes): empty with auth off.
          p.row('Access'),
          p.timeseries(
            'Requests by decision',
            'Requests --auth kubernetes decided, per second, by endpoint and decision: allowed, denied (403), unauthenticated (401) or error (503: the API server did not answer a review). Empty when --auth is not kubernetes.',
            [{
              expr: p.wrap('sum by %s (' % p.byCluster(['endpoint', 'decision']), 'rate(%s[$__rate_interval])' % own('kube_lifecycle_authorization_decisions_total')),
              legend: '{{endpoint}} {{decision}} ' + p.clusterLegend,
            }],
            unit='reqps',
            style='lines',
          ),
          p.timeseries(
            'Reviews asked of the API server',
            'TokenReviews and SubjectAccessReviews the exporter needed, per second, by result: hit (answered from its cache) or miss (asked of the API server); and the answers it keeps.',
            [
              {
                expr: p.wrap('sum by %s (' % p.byCluster(['review', 'result']), 'rate(%s[$__rate_interval])' % own('kube_lifecycle_authorization_cache_requests_total')),
                legend: '{{review}} {{result}} ' + p.clusterLegend,
              },
              {
                expr: 'max by %s (%s)' % [p.byCluster(target + ['review']), own('kube_lifecycle_authorization_cache_entries')],
                legend: '{{review}} kept {{instance}}',
              },
            ],
            style='lines',
          ),

          // What the process costs, folded: read when the health above is in doubt.
          p.row('Process', collapsed=true, panels=[
            p.timeseries(
              'Exporter CPU',
              'CPU used by each exporter instance, in cores (rate of process_cpu_seconds_total).',
              [{ expr: 'sum by %s (rate(%s[$__rate_interval]))' % [p.byCluster(target), own('process_cpu_seconds_total')], legend: '{{instance}} ' + p.clusterLegend }],
              style='lines',
            ),
            p.timeseries(
              'Exporter memory',
              'Resident memory (process_resident_memory_bytes) and address space (process_virtual_memory_bytes) of each exporter instance.',
              [
                { expr: 'max by %s (%s)' % [p.byCluster(target), own('process_resident_memory_bytes')], legend: 'resident {{instance}} ' + p.clusterLegend },
                { expr: 'max by %s (%s)' % [p.byCluster(target), own('process_virtual_memory_bytes')], legend: 'virtual {{instance}} ' + p.clusterLegend },
              ],
              unit='bytes',
              style='lines',
            ),
            p.timeseries(
              'Exporter file descriptors in use',
              'Open file descriptors over the limit (process_open_fds / process_max_fds) of each exporter instance.',
              [{ expr: 'max by %s (%s / %s)' % [p.byCluster(target), own('process_open_fds'), own('process_max_fds')], legend: '{{instance}} ' + p.clusterLegend }],
              unit='percentunit',
              style='lines',
            ),
            p.timeseries(
              'Exporter uptime',
              'Time since each exporter instance started (process_start_time_seconds): a restart shows as a drop to zero.',
              [{ expr: 'max by %s (time() - %s)' % [p.byCluster(target), own('process_start_time_seconds')], legend: '{{instance}} ' + p.clusterLegend }],
              unit='s',
              style='lines',
            ),
            p.table(
              'Exporter versions',
              'Exporter instances by version (kube_lifecycle_build_info).',
              ['job', 'instance', 'version'],
              [p.numberColumn('Instances')],
              ['count by %s (%s)' % [p.byCluster(target + ['version']), own('kube_lifecycle_build_info')]],
              h=6,
            ),
          ]),
        ],
      )
    ),
  },
}
