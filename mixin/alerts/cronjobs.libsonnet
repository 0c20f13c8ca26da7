// CronJobs that do not run as their schedule says.
local rules = import '../lib/rules.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    groups+: [{
      name: 'kube-lifecycle-cronjobs',
      rules: [
        // A ticket: one CronJob's runs are missing, nothing is down yet. The
        // finding waits 5 minutes after the missed schedule time, so the alert
        // fires 20 minutes after it, well before kubernetes-mixin's
        // KubeCronJobRunning and KubeJobNotCompleted, which it folds.
        rules.alert(c, {
          alert: 'KubeLifecycleCronJobNotRunning',
          firesOn: 'a CronJob that has not run as its schedule says: a schedule time missed (`missed_schedule`), a prior Job still active under `Forbid` (`previous_run_active`, naming it and its cause), a schedule or time zone that starts nothing, or runs failing since the last success (`runs_failing`)',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [
            rules.by(c, ['namespace', 'cronjob', 'cause']),
            rules.series(c, 'kube_lifecycle_cronjob_not_running_since_timestamp_seconds'),
          ],
          'for': '15m',
          tier: 'ticket',
          summary: 'A CronJob does not run as its schedule says.',
          description: 'CronJob {{ $labels.namespace }}/{{ $labels.cronjob }}%s has not run as scheduled for {{ $value | humanizeDuration }} ({{ $labels.cause }}).' % rules.inCluster(c),
        }),
      ],
    }],
  },
}
