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
        // fires 17 minutes after it; 12m is 2 minutes before the
        // kubernetes-mixin's KubeJobFailed (15m) and KubeJobNotCompleted (12h)
        // about the Job it names (`job_name`), which it silences
        // (alerts/inhibitions.libsonnet). The mixin's KubeCronJobRunning is gone
        // since 2020 (kubernetes-mixin 7ce777b). The Job's own verdict fires
        // sooner and stands for it when it names that Job.
        rules.alert(c, {
          alert: 'KubeLifecycleCronJobNotRunning',
          firesOn: 'a CronJob that has not run as its schedule says: a schedule time missed (`missed_schedule`), a prior Job still active under `Forbid` (`previous_run_active`, naming it and its cause), a schedule or time zone that starts nothing, or runs failing since the last success (`runs_failing`); inhibited by the alert about the Job it names (`job_name`: that Job\'s verdict, KubeLifecycleJobBlockedByTerminating, or the root cause explaining it)',
          expr: |||
            max %s (
              time() - %s
            )
          ||| % [
            rules.by(c, ['namespace', 'cronjob', 'job_name', 'cause']),
            rules.series(c, 'kube_lifecycle_cronjob_not_running_since_timestamp_seconds'),
          ],
          'for': '12m',
          tier: 'ticket',
          summary: 'A CronJob does not run as its schedule says.',
          description: 'CronJob {{ $labels.namespace }}/{{ $labels.cronjob }}%s has not run as scheduled for {{ $value | humanizeDuration }} ({{ $labels.cause }}{{ with $labels.job_name }}: Job {{ . }}{{ end }}).' % rules.inCluster(c),
          // A CronJob's ticket names the Job it waits for or that failed: the
          // mixin's alerts about that Job say only that it runs long or failed.
          silences: [{ alerts: ['KubeJobNotCompleted', 'KubeJobFailed'], equal: ['namespace', 'job_name'] }],
        }),
      ],
    }],
  },
}
