//! `cronjob_not_running`: a CronJob whose schedule says a Job should have
//! started and none did, or whose runs keep failing. The schedule is read as
//! the CronJob controller reads it ([`schedule`](crate::diagnosis::schedule));
//! its Warning events (`pkg/controller/cronjob/cronjob_controllerv2.go`, and
//! the controller before 1.21) say why where they are kept. A suspended
//! CronJob, one being deleted, one that ran on time and one whose first
//! schedule time has not come are quiet.

use jiff::SignedDuration;

use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, since};
use crate::diagnosis::schedule::{
    Schedule, ScheduleError, missed_starting_window, most_recent_schedule_time,
};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{Anomaly, Cause, CronJobDetail, Detail, Finding, Found, Input};
use crate::model::{CronJob, Event, Job, Kind, Name, Time};

use super::pod_finding::object_finding;
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why a CronJob starts no Job, or none that succeeds (anomaly `cronjob_not_running`).
    pub enum CronJobCause {
        MissedSchedule = "missed_schedule": "A schedule time passed more than 5 minutes ago (after status.lastScheduleTime, else the creation) and no Job was started for it: the controller is not syncing the CronJob, it missed the startingDeadlineSeconds window (MissSchedule), counted more than 100 missed times (TooManyMissedTimes; before 1.21 FailedNeedsStart, after which it never starts one again), or the API server refuses its Jobs (FailedCreate).",
        UnparseableSchedule = "unparseable_schedule": "spec.schedule is not a schedule the controller reads (UnparseableSchedule), or one that never fires (InvalidSchedule, as `0 0 30 2 *`): the controller starts nothing until it is changed.",
        UnknownTimeZone = "unknown_time_zone": "spec.timeZone names no zone of the controller's time zone database (UnknownTimeZone): the controller starts nothing until it is changed.",
        PreviousRunActive = "previous_run_active": "concurrencyPolicy Forbid and a Job of an earlier run is still active, so a schedule time passed more than 5 minutes ago without a run; the detail names that Job and its own cause where a finding explains it (a pod Terminating on a lost node, a pod Pending, ...).",
        RunsFailing = "runs_failing": "At least two schedule times passed since status.lastSuccessfulTime (else the creation) and the newest finished Job failed: its runs keep failing. The detail names that Job and its cause (how its pods ended).",
    }
}

impl PodsVerdict for CronJobCause {
    // About a CronJob, not a pod.
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

family!("cronjobs" reading: CronJobNotRunning);

const METRICS: &[MetricFamily] = &[MetricFamily {
    name: "kube_lifecycle_cronjob_not_running_since_timestamp_seconds",
    help: "Unix time from which a CronJob has not run as its schedule says (the first schedule time it missed, or its schedule error's first event, else its creation), by cause, and the Job it names (job_name: the active Job a Forbid policy waits for, or the newest failed one; empty for other causes).",
    identity: Identity::CronJob,
    labels: &["job_name", "cause"],
    anomalies: &[Anomaly::CronJobNotRunning],
    aggregate: false,
    // `job_name` as kube-state-metrics names a Job: the alerts about that Job
    // (its verdict, the kubernetes-mixin's KubeJobNotCompleted and
    // KubeJobFailed) and the CronJob's are matched on it.
    samples: |f| {
        let job = match &f.detail {
            Detail::CronJob(d) => d.job.clone().unwrap_or_default(),
            _ => String::new(),
        };
        since(f, vec![job, f.cause.to_string()])
    },
    fold: Fold::Never,
    example: "time() - kube_lifecycle_cronjob_not_running_since_timestamp_seconds > 3600",
}];

/// How long after a schedule time a Job not started is missed: the controller
/// starts a due Job within a second of waking (100ms after the time); a few
/// minutes more cover its leader election and a restart.
const MISSED_AFTER: SignedDuration = SignedDuration::from_mins(5);

/// Schedule times without a success before the runs count as failing: one
/// failed run is the Job's own `job_failed` finding.
const FAILED_RUNS: usize = 2;

fn diagnose(input: &Input<'_>, found: &Found<'_>) -> Vec<Finding> {
    input
        .cluster
        .cron_jobs()
        .filter_map(|cj| judge(input, found, cj))
        .collect()
}

/// The Warning events of the CronJob controller that say why it starts nothing.
const MISSED_EVENTS: &[&str] = &[
    "TooManyMissedTimes",
    "MissSchedule",
    "FailedNeedsStart",
    "FailedCreate",
];

fn judge(input: &Input<'_>, found: &Found<'_>, cj: &CronJob) -> Option<Finding> {
    let m = &cj.metadata;
    if cj.spec.suspend || m.deletion_timestamp.is_some() {
        return None;
    }
    let events: Vec<&Event> = input
        .cluster
        .events_about(Kind::CronJob, &m.namespace, &m.name, &m.uid)
        .filter(|e| e.warning)
        .collect();
    let schedule = match Schedule::parse(&cj.spec.schedule, cj.spec.time_zone.as_deref()) {
        Ok(schedule) => schedule,
        Err(error) => return Some(schedule_error(cj, &events, &error)),
    };
    let last_started = cj.status.last_schedule_time;
    let Some(from) = last_started.or(m.creation_timestamp) else {
        // No time to count from (a dump stripped of it): only the controller's word.
        return missed_by_events(cj, &events);
    };
    let due = most_recent_schedule_time(&schedule, from, last_started, None, input.now.time());
    let first_missed = match due {
        Err(error) => return Some(schedule_error(cj, &events, &error)),
        Ok(_) => schedule.next_after(from),
    };
    let missed = first_missed.filter(|t| input.now.waited(*t, MISSED_AFTER));
    match missed {
        Some(t) => Some(not_started(input, found, cj, &events, t)),
        None => runs_failing(input, found, cj, &schedule),
    }
}

/// `unparseable_schedule` or `unknown_time_zone`: the controller's event when
/// it is kept (its words), else the error as the controller would word it.
fn schedule_error(cj: &CronJob, events: &[&Event], error: &ScheduleError) -> Finding {
    let cause = match error {
        ScheduleError::UnknownTimeZone { .. } => CronJobCause::UnknownTimeZone,
        ScheduleError::Unparseable { .. } | ScheduleError::Invalid { .. } => {
            CronJobCause::UnparseableSchedule
        }
    };
    let event = events
        .iter()
        .rev()
        .find(|e| e.reason == error.event_reason());
    let message = match event {
        Some(e) => format!("{}: {}", e.reason, e.message),
        None => format!("{}: {error} ({:?})", error.event_reason(), cj.spec.schedule),
    };
    finding(
        cj,
        cause,
        event
            .and_then(|e| e.first_seen)
            .or(cj.metadata.creation_timestamp),
        message,
        Detail::None,
    )
}

/// The reason of a schedule error the controller reports, as a cause.
fn schedule_error_cause(reason: &str) -> Option<CronJobCause> {
    match reason {
        "UnknownTimeZone" => Some(CronJobCause::UnknownTimeZone),
        "UnparseableSchedule" | "InvalidSchedule" => Some(CronJobCause::UnparseableSchedule),
        _ => None,
    }
}

/// A CronJob with no time to judge its schedule from: missed if its
/// controller said so.
fn missed_by_events(cj: &CronJob, events: &[&Event]) -> Option<Finding> {
    let e = events.iter().rev().find(|e| {
        MISSED_EVENTS.contains(&e.reason.as_str()) || schedule_error_cause(&e.reason).is_some()
    })?;
    let cause = schedule_error_cause(&e.reason).unwrap_or(CronJobCause::MissedSchedule);
    Some(finding(
        cj,
        cause,
        e.first_seen,
        format!("{}: {}", e.reason, e.message),
        Detail::None,
    ))
}

/// A schedule time `missed` passed unstarted: a prior run that forbids it, a
/// schedule error only the controller saw (its time zone database), or a
/// missed schedule with the controller's reason when it gave one.
fn not_started(
    input: &Input<'_>,
    found: &Found<'_>,
    cj: &CronJob,
    events: &[&Event],
    missed: Time,
) -> Finding {
    let ns = &cj.metadata.namespace;
    let when = format!(
        "should have started a Job at {} ({} ago)",
        missed.strftime("%Y-%m-%dT%H:%M:%SZ"),
        input.now.age_of(missed)
    );
    let last = match cj.status.last_schedule_time {
        Some(t) => format!("last started {} ago", input.now.age_of(t)),
        None => "never started one".to_string(),
    };
    // An active Job that is over is one the controller has not synced since:
    // nothing forbids the run but the controller itself.
    let still_active = |name: &&Name| {
        input
            .cluster
            .job(ns, name)
            .is_none_or(|j| !j.status.outcome.over)
    };
    if cj.forbids_concurrent_runs()
        && let Some(active) = cj.status.active.iter().find(still_active)
    {
        let (cause, said) = job_cause(input, found, ns, active);
        let message = match &said {
            Some(said) => {
                format!("{when}; concurrencyPolicy Forbid and Job {active} is still active: {said}")
            }
            None => format!("{when}; concurrencyPolicy Forbid and Job {active} is still active"),
        };
        return finding(
            cj,
            CronJobCause::PreviousRunActive,
            Some(missed),
            message,
            Detail::CronJob(Box::new(CronJobDetail {
                job: Some(active.to_string()),
                job_cause: cause,
            })),
        );
    }
    // The controller's latest word on it, if it is newer than its last start.
    let event = events.iter().rev().find(|e| {
        (MISSED_EVENTS.contains(&e.reason.as_str()) || schedule_error_cause(&e.reason).is_some())
            && e.last_seen
                .is_none_or(|seen| cj.status.last_schedule_time.is_none_or(|t| seen >= t))
    });
    let cause = event
        .and_then(|e| schedule_error_cause(&e.reason))
        .unwrap_or(CronJobCause::MissedSchedule);
    // The message says when the startingDeadlineSeconds window has closed
    // (the controller's strict `after`), so the moment learns when it will.
    let deadline = match cj.spec.starting_deadline_seconds {
        Some(seconds) if missed_starting_window(missed, Some(seconds), input.now.time()) => {
            format!("; its startingDeadlineSeconds ({seconds}s) has passed")
        }
        Some(seconds) => {
            let closes = SignedDuration::from_secs(seconds)
                .checked_add(SignedDuration::from_micros(1))
                .and_then(|d| missed.checked_add(d).ok());
            if let Some(t) = closes {
                input.now.reached(t);
            }
            String::new()
        }
        None => String::new(),
    };
    let message = match event {
        Some(e) => format!("{when}, {last}{deadline}; {}: {}", e.reason, e.message),
        None => format!("{when}, {last}{deadline}; no event of the CronJob controller says why"),
    };
    finding(cj, cause, Some(missed), message, Detail::None)
}

/// What explains the Job `name`: a finding about it (`job_not_completed`,
/// `job_failed`, `job_blocked`) or the first alerted one about one of its
/// pods, as its cause and what it says.
fn job_cause(
    input: &Input<'_>,
    found: &Found<'_>,
    namespace: &str,
    name: &str,
) -> (Option<&'static str>, Option<String>) {
    let about_job = found.beyond_pods().find(|f| {
        f.kind == Kind::Job && f.namespace.as_deref() == Some(namespace) && f.name == name
    });
    let about_pod = || {
        let job = input.cluster.job(namespace, name)?;
        input
            .cluster
            .pods_owned_by(Kind::Job, namespace, name, &job.metadata.uid)
            .find_map(|p| found.alerted(p))
    };
    match about_job.or_else(about_pod) {
        Some(f) => {
            let subject = match f.kind {
                Kind::Pod => format!("pod {}: ", f.name),
                _ => String::new(),
            };
            let node = f
                .node
                .as_ref()
                .map(|n| format!(", on node {n}"))
                .unwrap_or_default();
            (
                Some(f.cause.as_str()),
                Some(format!(
                    "{subject}{} ({}{node})",
                    f.detail.reading(&f.message),
                    f.cause
                )),
            )
        }
        None => (None, None),
    }
}

/// `runs_failing`: the newest finished Job of the CronJob failed and at
/// least [`FAILED_RUNS`] schedule times passed since its last success.
fn runs_failing(
    input: &Input<'_>,
    found: &Found<'_>,
    cj: &CronJob,
    schedule: &Schedule,
) -> Option<Finding> {
    let m = &cj.metadata;
    let mut finished: Vec<&Job> = input
        .cluster
        .jobs()
        .filter(|j| {
            j.metadata.namespace == m.namespace
                && j.status.outcome.over
                && j.metadata
                    .controller()
                    .is_some_and(|c| c.kind == "CronJob" && c.name == m.name)
        })
        .collect();
    finished.sort_by_key(|j| (j.metadata.creation_timestamp, j.metadata.name.clone()));
    let newest = finished.last()?;
    let failed = newest.status.outcome.failed.as_deref()?;
    let succeeded = cj.status.last_successful_time;
    if newest
        .metadata
        .creation_timestamp
        .zip(succeeded)
        .is_some_and(|(created, success)| created < success)
    {
        return None;
    }
    // Schedule times from the last success (else the creation) to the last start.
    let from = succeeded.or(m.creation_timestamp)?;
    let until = cj.status.last_schedule_time?;
    let mut runs = Vec::new();
    let mut next = schedule.next_after(from);
    while let Some(t) = next.filter(|t| *t <= until && runs.len() < FAILED_RUNS) {
        runs.push(t);
        next = schedule.next_after(t);
    }
    if runs.len() < FAILED_RUNS {
        return None;
    }
    let name = &newest.metadata.name;
    let (cause, said) = job_cause(input, found, &m.namespace, name);
    let said = said.unwrap_or_else(|| {
        if failed.message.is_empty() {
            failed.reason.clone()
        } else {
            format!("{}: {}", failed.reason, failed.message)
        }
    });
    let success = match succeeded {
        Some(t) => format!("last succeeded {} ago", input.now.age_of(t)),
        None => "never succeeded".to_string(),
    };
    Some(finding(
        cj,
        CronJobCause::RunsFailing,
        runs.first().copied(),
        format!("{success}; its newest Job {name} failed: {said}"),
        Detail::CronJob(Box::new(CronJobDetail {
            job: Some(name.to_string()),
            job_cause: cause.or(Some("failed")),
        })),
    ))
}

fn finding(
    cj: &CronJob,
    cause: CronJobCause,
    since: Option<Time>,
    message: String,
    detail: Detail,
) -> Finding {
    object_finding(
        Kind::CronJob,
        &cj.metadata,
        Cause::CronJobNotRunning(cause),
        since,
        message,
        detail,
    )
}
