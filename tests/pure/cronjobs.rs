//! CronJobs that do not run as their schedule says (`cronjob_not_running`):
//! CronJobs and Jobs as `kubectl get -o json` prints them, the CronJob
//! controller's event messages (pkg/controller/cronjob/cronjob_controllerv2.go;
//! before 1.21, FailedNeedsStart as thoth-station/core#82 quotes it). Quiet:
//! a CronJob that ran on time, a suspended one, one created moments ago.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{CronJobDetail, Detail, Finding};
use serde_json::{Value, json};

const NS: &str = "ops";

fn cron_job(name: &str, spec: Value, status: Value) -> Value {
    let mut spec = spec;
    spec["jobTemplate"] = json!({"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
        "containers": [{"name": "backup", "image": "registry.example.com/ops/backup:2.3"}]}}}});
    spec["successfulJobsHistoryLimit"] = json!(3);
    spec["failedJobsHistoryLimit"] = json!(1);
    json!({"apiVersion": "batch/v1", "kind": "CronJob",
           "metadata": {"name": name, "namespace": NS, "uid": format!("uid-{name}"),
                        "creationTimestamp": "2024-05-01T09:12:44Z"},
           "spec": spec, "status": status})
}

fn job_of(cron_job: &str, name: &str, created: &str, status: Value) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": name, "namespace": NS, "uid": format!("uid-{name}"),
                        "creationTimestamp": created,
                        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": cron_job,
                                             "uid": format!("uid-{cron_job}"), "controller": true,
                                             "blockOwnerDeletion": true}]},
           "spec": {"backoffLimit": 6, "completions": 1, "parallelism": 1,
                    "template": {"spec": {"restartPolicy": "OnFailure",
                        "containers": [{"name": "backup", "image": "registry.example.com/ops/backup:2.3"}]}}},
           "status": status})
}

/// A Warning event of the CronJob controller about `cron_job`.
fn controller_event(cron_job: &str, reason: &str, message: &str, first: &str, last: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
           "metadata": {"name": format!("{cron_job}.17d3a1c2b4e5f6a7"), "namespace": NS},
           "involvedObject": {"apiVersion": "batch/v1", "kind": "CronJob", "name": cron_job,
                              "namespace": NS, "uid": format!("uid-{cron_job}")},
           "type": "Warning", "reason": reason, "message": message, "count": 12,
           "firstTimestamp": first, "lastTimestamp": last,
           "source": {"component": "cronjob-controller"}})
}

fn cron_findings(findings: &[Finding]) -> Vec<(String, String)> {
    findings
        .iter()
        .filter(|f| f.anomaly().as_str() == "cronjob_not_running")
        .map(|f| (f.name.to_string(), f.cause.to_string()))
        .collect()
}

fn named_job(f: &Finding) -> (Option<&str>, Option<&'static str>) {
    match &f.detail {
        Detail::CronJob(d) => {
            let CronJobDetail { job, job_cause } = &**d;
            (job.as_deref(), *job_cause)
        }
        other => panic!("{other:?}"),
    }
}

/// Last started two days ago on a 15-minute schedule; the controller says it
/// lost count. The finding dates from the first time it missed.
#[test]
fn a_cron_job_that_has_not_run_for_two_days_missed_its_schedule() {
    let cj = cron_job(
        "db-backup",
        json!({"schedule": "*/15 * * * *", "concurrencyPolicy": "Allow", "suspend": false}),
        json!({"lastScheduleTime": "2024-05-30T11:45:00Z", "lastSuccessfulTime": "2024-05-30T11:46:12Z"}),
    );
    let findings = diagnose(std::slice::from_ref(&cj));
    let f = only(&findings, "db-backup");
    assert_eq!(f.cause.to_string(), "missed_schedule");
    assert_eq!(f.since.unwrap().to_string(), "2024-05-30T12:00:00Z");
    assert!(f.message.contains("2024-05-30T12:00:00Z"), "{}", f.message);

    // With a starting deadline, the message says its window has closed.
    let mut with_deadline = cj.clone();
    with_deadline["spec"]["startingDeadlineSeconds"] = json!(200);
    let findings = diagnose(&[with_deadline]);
    let f = only(&findings, "db-backup");
    assert!(
        f.message
            .contains("startingDeadlineSeconds (200s) has passed"),
        "{}",
        f.message
    );

    let event = controller_event(
        "db-backup",
        "TooManyMissedTimes",
        "too many missed start times: 193. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
        "2024-06-01T11:00:00Z",
        "2024-06-01T11:45:00Z",
    );
    let findings = diagnose(&[cj, event]);
    let f = only(&findings, "db-backup");
    assert_eq!(f.cause.to_string(), "missed_schedule");
    assert!(
        f.message
            .contains("TooManyMissedTimes: too many missed start times"),
        "{}",
        f.message
    );
}

/// The controller before 1.21 gives up after 100 missed times and says so on
/// every sync; a dump without times still shows it.
#[test]
fn the_old_controllers_failed_needs_start_is_a_missed_schedule() {
    let mut cj = cron_job(
        "package-releases",
        json!({"schedule": "*/5 * * * *"}),
        json!({}),
    );
    cj["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("creationTimestamp");
    let event = controller_event(
        "package-releases",
        "FailedNeedsStart",
        "Cannot determine if job needs to be started: Too many missed start time (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.",
        "2024-05-25T12:00:00Z",
        "2024-06-01T11:57:00Z",
    );
    let findings = diagnose(&[cj.clone(), event]);
    let f = only(&findings, "package-releases");
    assert_eq!(f.cause.to_string(), "missed_schedule");
    assert!(f.message.starts_with("FailedNeedsStart: "), "{}", f.message);
    // Without the event, nothing to judge by: quiet.
    assert!(cron_findings(&diagnose(&[cj])).is_empty());
}

#[test]
fn a_cron_job_that_ran_on_time_suspended_or_just_created_is_quiet() {
    let on_time = cron_job(
        "hourly-report",
        json!({"schedule": "0 * * * *"}),
        json!({"lastScheduleTime": "2024-06-01T12:00:00Z", "lastSuccessfulTime": "2024-06-01T11:01:30Z"}),
    );
    // Due at 12:00 exactly, judged at 12:03: within the controller's minutes.
    let late_but_not_missed = cron_job(
        "noon",
        json!({"schedule": "0 12 * * *"}),
        json!({"lastScheduleTime": "2024-05-31T12:00:00Z"}),
    );
    let suspended = cron_job(
        "paused",
        json!({"schedule": "*/5 * * * *", "suspend": true}),
        json!({"lastScheduleTime": "2024-05-20T00:00:00Z"}),
    );
    let mut fresh = cron_job("fresh", json!({"schedule": "0 * * * *"}), json!({}));
    fresh["metadata"]["creationTimestamp"] = json!("2024-06-01T11:58:00Z");
    let weekly = cron_job(
        "weekly",
        json!({"schedule": "30 4 * * 0", "timeZone": "Europe/Berlin"}),
        json!({"lastScheduleTime": "2024-05-26T02:30:00Z"}),
    );
    let findings = diagnose_at(
        &[on_time, late_but_not_missed, suspended, fresh, weekly],
        "2024-06-01T12:03:00Z",
    );
    assert_eq!(cron_findings(&findings), []);
}

/// `spec.timeZone` is read in its zone: 04:30 in Berlin (CEST) is 02:30 UTC,
/// so a run last started on Sunday the 26th at 02:30 UTC missed the 2nd of June.
#[test]
fn the_time_zone_decides_when_it_was_due() {
    let weekly = cron_job(
        "weekly",
        json!({"schedule": "30 4 * * 0", "timeZone": "Europe/Berlin"}),
        json!({"lastScheduleTime": "2024-05-26T02:30:00Z"}),
    );
    let before = diagnose_at(std::slice::from_ref(&weekly), "2024-06-02T02:34:00Z");
    assert_eq!(cron_findings(&before), []);
    let after = diagnose_at(&[weekly], "2024-06-02T02:36:00Z");
    let f = only(&after, "weekly");
    assert_eq!(f.cause.to_string(), "missed_schedule");
    assert_eq!(f.since.unwrap().to_string(), "2024-06-02T02:30:00Z");
}

#[test]
fn a_schedule_or_time_zone_the_controller_cannot_read_starts_nothing() {
    let typo_zone = cron_job(
        "berlin",
        json!({"schedule": "0 3 * * *", "timeZone": "Europe/Berln"}),
        json!({}),
    );
    let four_fields = cron_job("four", json!({"schedule": "*/5 * * *"}), json!({}));
    let never = cron_job("february", json!({"schedule": "0 0 30 2 *"}), json!({}));
    let event = controller_event(
        "berlin",
        "UnknownTimeZone",
        "invalid timeZone: \"Europe/Berln\": unknown time zone Europe/Berln",
        "2024-06-01T11:40:00Z",
        "2024-06-01T11:40:00Z",
    );
    let findings = diagnose(&[typo_zone, four_fields, never, event]);
    assert_eq!(
        cron_findings(&findings),
        [
            ("berlin".to_string(), "unknown_time_zone".to_string()),
            ("february".to_string(), "unparseable_schedule".to_string()),
            ("four".to_string(), "unparseable_schedule".to_string()),
        ]
    );
    let berlin = only(&findings, "berlin");
    assert!(
        berlin
            .message
            .starts_with("UnknownTimeZone: invalid timeZone")
    );
    assert_eq!(berlin.since.unwrap().to_string(), "2024-06-01T11:40:00Z");
    assert!(
        only(&findings, "february")
            .message
            .starts_with("InvalidSchedule: ")
    );
    assert!(
        only(&findings, "four")
            .message
            .starts_with("UnparseableSchedule: ")
    );
}

/// Forbid, and the 10:00 run's pod is Terminating on a node that stopped
/// answering: the 11:00 and 12:00 runs are skipped. The finding names the
/// Job and carries its pod's cause.
#[test]
fn a_forbid_cron_job_blocked_by_a_job_whose_pod_is_on_a_lost_node() {
    let cj = cron_job(
        "backup",
        json!({"schedule": "0 * * * *", "concurrencyPolicy": "Forbid"}),
        json!({"active": [{"apiVersion": "batch/v1", "kind": "Job", "name": "backup-28620600",
                           "namespace": NS, "uid": "uid-backup-28620600"}],
               "lastScheduleTime": "2024-06-01T10:00:00Z", "lastSuccessfulTime": "2024-06-01T09:02:10Z"}),
    );
    let job = job_of(
        "backup",
        "backup-28620600",
        "2024-06-01T10:00:00Z",
        json!({"active": 1, "startTime": "2024-06-01T10:00:00Z", "ready": 0}),
    );
    let mut pod = running_pod(
        NS,
        "backup-28620600-x7k2p",
        "worker-3",
        Some(("Job", "backup-28620600", "uid-backup-28620600")),
    );
    pod["metadata"]["ownerReferences"][0]["apiVersion"] = json!("batch/v1");
    let pod = deleted(pod, "2024-06-01T10:05:40Z", 30);
    let findings = diagnose(&[lost_node("worker-3"), cj.clone(), job.clone(), pod]);
    let f = only(&findings, "backup");
    assert_eq!(f.cause.to_string(), "previous_run_active");
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:00:00Z");
    let (named, cause) = named_job(f);
    assert_eq!(named, Some("backup-28620600"));
    assert!(cause.is_some(), "{findings:#?}");
    assert!(f.message.contains("Job backup-28620600"), "{}", f.message);
    assert!(f.message.contains("worker-3"), "{}", f.message);

    // The Job it lists as active has completed: the controller has not
    // synced since, and nothing but the controller holds the run back.
    let done = job_of(
        "backup",
        "backup-28620600",
        "2024-06-01T10:00:00Z",
        json!({"succeeded": 1, "startTime": "2024-06-01T10:00:00Z", "completionTime": "2024-06-01T10:04:10Z",
               "conditions": [{"type": "Complete", "status": "True", "lastTransitionTime": "2024-06-01T10:04:10Z"}]}),
    );
    let findings = diagnose(&[cj.clone(), done]);
    assert_eq!(
        only(&findings, "backup").cause.to_string(),
        "missed_schedule"
    );

    // The same Job, fine and within its hour: nothing is skipped yet.
    let mut on_time = cj;
    on_time["status"]["lastScheduleTime"] = json!("2024-06-01T11:00:00Z");
    let findings = diagnose_at(
        &[ready_node("worker-3"), on_time, job],
        "2024-06-01T11:40:00Z",
    );
    assert_eq!(cron_findings(&findings), []);
}

/// The nightly runs failed twice since the last success; the newest failed
/// Job (failedJobsHistoryLimit 1 keeps only it) says how.
#[test]
fn runs_failing_since_the_last_success_name_the_newest_failed_job() {
    let cj = cron_job(
        "nightly",
        json!({"schedule": "0 2 * * *"}),
        json!({"lastScheduleTime": "2024-06-01T02:00:00Z", "lastSuccessfulTime": "2024-05-30T02:03:51Z"}),
    );
    let failed = job_of(
        "nightly",
        "nightly-28620120",
        "2024-06-01T02:00:00Z",
        json!({"failed": 7, "startTime": "2024-06-01T02:00:00Z",
               "conditions": [{"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded",
                               "message": "Job has reached the specified backoff limit",
                               "lastTransitionTime": "2024-06-01T02:09:12Z"},
                              {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                               "message": "Job has reached the specified backoff limit",
                               "lastTransitionTime": "2024-06-01T02:09:12Z"}]}),
    );
    let findings = diagnose(&[cj.clone(), failed.clone()]);
    let f = only(&findings, "nightly");
    assert_eq!(f.cause.to_string(), "runs_failing");
    assert_eq!(f.since.unwrap().to_string(), "2024-05-31T02:00:00Z");
    let (named, cause) = named_job(f);
    assert_eq!(named, Some("nightly-28620120"));
    assert_eq!(cause, Some("backoff_limit_exceeded"));
    assert!(f.message.contains("last succeeded"), "{}", f.message);

    // One failed run since the last success is the Job's own finding only.
    let mut once = cj.clone();
    once["status"]["lastSuccessfulTime"] = json!("2024-05-31T02:04:02Z");
    assert_eq!(cron_findings(&diagnose(&[once, failed.clone()])), []);

    // A newer run that succeeded: not failing.
    let mut recovered = cj;
    recovered["status"]["lastSuccessfulTime"] = json!("2024-06-01T02:10:30Z");
    assert_eq!(cron_findings(&diagnose(&[recovered, failed])), []);
}
