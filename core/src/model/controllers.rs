//! Slim CronJobs, Jobs and ReplicationControllers, the spec and status a
//! ReplicaSet shares with a ReplicationController, and what the controllers
//! of pods report when the API refuses their pods: the `ReplicaFailure`
//! condition.
//!
//! Only what the diagnosis reads is kept: how many pods the controller wants
//! and has, whether a Job is over, the one condition, and a CronJob's
//! schedule and the times its controller last started and finished a Job.

use serde::{Deserialize, Deserializer};

use super::meta::{Condition, Meta, nullable};
use super::name::Name;
use super::selector::TemplateLabels;

/// The `ReplicaFailure` condition of a ReplicaSet or ReplicationController,
/// the only one of their conditions kept: the controller sets it (reason
/// `FailedCreate`, the API server's error as message) when creating a pod
/// failed, and removes it once a sync succeeds
/// (pkg/controller/replicaset/replica_set_utils.go, `calculateStatus`).
pub(crate) fn replica_failure<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Box<Condition>>, D::Error> {
    let all: Vec<Condition> = nullable(deserializer)?;
    Ok(all
        .into_iter()
        .find(|c| c.type_ == "ReplicaFailure")
        .map(Box::new))
}

/// What a Job's conditions say of its outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobOutcome {
    /// `Failed` (or the `FailureTarget` that precedes it, 1.31+) True: the
    /// job controller's verdict, with its reason (`BackoffLimitExceeded`,
    /// `DeadlineExceeded`, `PodFailurePolicy`, `MaxFailedIndexesExceeded`)
    /// and message.
    pub failed: Option<Box<Condition>>,
    /// `Complete` or `Failed`, or the `SuccessCriteriaMet` / `FailureTarget`
    /// that precede them (1.31+): the job controller creates no pod for a Job
    /// in any of these.
    pub over: bool,
    /// `SuccessCriteriaMet` or `FailureTarget` without `Complete` or `Failed`
    /// yet: the outcome is decided and the controller waits for the Job's pods
    /// to terminate before it writes the final condition (1.31+).
    pub finishing: bool,
}

fn job_outcome<'de, D: Deserializer<'de>>(deserializer: D) -> Result<JobOutcome, D::Error> {
    let all: Vec<Condition> = nullable(deserializer)?;
    let holds = |type_: &str| {
        all.iter()
            .any(|c| c.type_ == type_ && c.status == super::meta::ConditionStatus::True)
    };
    let decided = holds("SuccessCriteriaMet") || holds("FailureTarget");
    let finished = holds("Complete") || holds("Failed");
    let failed = ["Failed", "FailureTarget"].iter().find_map(|type_| {
        all.iter()
            .find(|c| c.type_ == *type_ && c.status == super::meta::ConditionStatus::True)
    });
    Ok(JobOutcome {
        failed: failed.cloned().map(Box::new),
        over: decided || finished,
        finishing: decided && !finished,
    })
}

/// Whether an optional object is there (not missing, not `null`).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    Ok(Option::<serde::de::IgnoredAny>::deserialize(deserializer)?.is_some())
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Job {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: JobSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: JobStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSpec {
    /// The API defaults a missing parallelism to 1.
    #[serde(default)]
    pub parallelism: Option<i32>,
    /// None: the Job is done when any pod succeeds (a work queue).
    #[serde(default)]
    pub completions: Option<i32>,
    #[serde(default, deserialize_with = "nullable")]
    pub suspend: bool,
    /// `TerminatingOrFailed` (the default) or `Failed`: with `Failed` the job
    /// controller replaces a pod only once it is gone (1.29 beta, 1.34 GA).
    #[serde(default, deserialize_with = "nullable")]
    pub pod_replacement_policy: String,
    /// A `podFailurePolicy` is set, which requires `podReplacementPolicy: Failed`.
    #[serde(default, deserialize_with = "present")]
    pub pod_failure_policy: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobStatus {
    #[serde(default, deserialize_with = "nullable")]
    pub active: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub succeeded: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub failed: i32,
    /// When the job controller started it (reset when it is resumed).
    #[serde(default, deserialize_with = "super::time::optional")]
    pub start_time: Option<super::meta::Time>,
    /// Pods of the Job being deleted (1.28+, when the feature is on).
    #[serde(default)]
    pub terminating: Option<i32>,
    #[serde(rename = "conditions", default, deserialize_with = "job_outcome")]
    pub outcome: JobOutcome,
}

impl Job {
    /// Whether the job controller replaces a pod only once it is gone:
    /// `podReplacementPolicy: Failed`, explicit or required by a
    /// `podFailurePolicy` (pkg/controller/job, `onlyReplaceFailedPods`).
    pub(crate) fn replaces_only_gone_pods(&self) -> bool {
        self.spec.pod_replacement_policy == "Failed" || self.spec.pod_failure_policy
    }

    /// The pods the job controller wants running now, as its `manageJob`
    /// computes it (pkg/controller/job/job_controller.go): none for a
    /// suspended or finished Job; with `completions`, the completions still
    /// missing, at most `parallelism`; without, `parallelism` until a pod has
    /// succeeded, then no new pod.
    pub(crate) fn wanted_active(&self) -> i32 {
        if self.spec.suspend || self.status.outcome.over {
            return 0;
        }
        let parallelism = self.spec.parallelism.unwrap_or(1).max(0);
        match self.spec.completions {
            Some(completions) => (completions - self.status.succeeded).clamp(0, parallelism),
            None if self.status.succeeded > 0 => 0,
            None => parallelism,
        }
    }
}

/// A CronJob (batch/v1, GA in 1.21): what its schedule says and what its
/// controller last did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct CronJob {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: CronJobSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: CronJobStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    #[serde(default, deserialize_with = "nullable")]
    pub schedule: String,
    /// An IANA zone name (GA in 1.27); None: the controller's local zone.
    #[serde(default)]
    pub time_zone: Option<String>,
    #[serde(default)]
    pub starting_deadline_seconds: Option<i64>,
    /// `Allow` (the API's default), `Forbid` or `Replace`.
    #[serde(default, deserialize_with = "nullable")]
    pub concurrency_policy: String,
    #[serde(default, deserialize_with = "nullable")]
    pub suspend: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// The Jobs the controller counts as running, by name.
    #[serde(default, deserialize_with = "active_jobs")]
    pub active: Vec<Name>,
    /// The schedule time of the last Job the controller created.
    #[serde(default, deserialize_with = "super::time::optional")]
    pub last_schedule_time: Option<super::meta::Time>,
    /// When the last of its Jobs completed (1.21+).
    #[serde(default, deserialize_with = "super::time::optional")]
    pub last_successful_time: Option<super::meta::Time>,
}

/// `status.active[]`, object references, down to their names.
fn active_jobs<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Name>, D::Error> {
    #[derive(Deserialize)]
    struct Reference {
        #[serde(default, deserialize_with = "nullable")]
        name: Name,
    }
    let all: Vec<Reference> = nullable(deserializer)?;
    Ok(all.into_iter().map(|r| r.name).collect())
}

impl CronJob {
    /// `concurrencyPolicy: Forbid`: the controller starts no Job while one is active.
    pub(crate) fn forbids_concurrent_runs(&self) -> bool {
        self.spec.concurrency_policy == "Forbid"
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ReplicationController {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: ReplicasSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: ReplicasStatus,
}

impl ReplicationController {
    pub(crate) fn desired_replicas(&self) -> i32 {
        self.spec.desired()
    }
}

/// The spec of a ReplicaSet or ReplicationController, as far as it is
/// read: how many pods it wants.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ReplicasSpec {
    /// The API defaults a missing count to 1.
    #[serde(default)]
    pub replicas: Option<i32>,
    /// Its pods' labels, which PodDisruptionBudgets select.
    #[serde(default, deserialize_with = "nullable")]
    pub template: TemplateLabels,
}

impl ReplicasSpec {
    pub(crate) fn desired(&self) -> i32 {
        self.replicas.unwrap_or(1)
    }
}

/// The status of a ReplicaSet or ReplicationController: the pods it has
/// created (`replicas`, which counts every pod it owns, ready or not) and
/// its `ReplicaFailure` condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ReplicasStatus {
    #[serde(default, deserialize_with = "nullable")]
    pub replicas: i32,
    #[serde(rename = "conditions", default, deserialize_with = "replica_failure")]
    pub replica_failure: Option<Box<Condition>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ConditionStatus;

    fn job(json: &str) -> Job {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_job_wants_what_its_controller_would_create() {
        // parallelism 1 by default, completions left
        assert_eq!(job(r#"{"spec":{"completions":3}}"#).wanted_active(), 1);
        assert_eq!(
            job(r#"{"spec":{"completions":5,"parallelism":3},"status":{"succeeded":3}}"#)
                .wanted_active(),
            2
        );
        // a work queue: parallelism until one succeeded
        assert_eq!(job(r#"{"spec":{"parallelism":4}}"#).wanted_active(), 4);
        assert_eq!(
            job(r#"{"spec":{"parallelism":4},"status":{"succeeded":1,"active":2}}"#)
                .wanted_active(),
            0
        );
        assert_eq!(
            job(r#"{"spec":{"parallelism":2,"suspend":true}}"#).wanted_active(),
            0
        );
        for over in ["Complete", "Failed", "FailureTarget", "SuccessCriteriaMet"] {
            let j = job(&format!(
                r#"{{"spec":{{"completions":3}},"status":{{"conditions":[{{"type":"{over}","status":"True"}}]}}}}"#
            ));
            assert_eq!(j.wanted_active(), 0, "{over}");
        }
        let not_over =
            job(r#"{"spec":{},"status":{"conditions":[{"type":"Failed","status":"False"}]}}"#);
        assert_eq!(not_over.wanted_active(), 1);
    }

    /// A CronJob as `kubectl get cronjob -o json` prints it (1.29).
    #[test]
    fn a_cron_job_keeps_its_schedule_and_what_its_controller_did() {
        let cj: CronJob = serde_json::from_str(
            r#"{"apiVersion":"batch/v1","kind":"CronJob",
            "metadata":{"name":"backup","namespace":"ops","creationTimestamp":"2024-05-01T00:00:00Z","uid":"0b9d"},
            "spec":{"concurrencyPolicy":"Forbid","failedJobsHistoryLimit":1,"schedule":"*/5 * * * *",
              "startingDeadlineSeconds":200,"successfulJobsHistoryLimit":3,"suspend":false,"timeZone":"Europe/Berlin",
              "jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"busybox"}],"restartPolicy":"OnFailure"}}}}},
            "status":{"active":[{"apiVersion":"batch/v1","kind":"Job","name":"backup-28573590","namespace":"ops","resourceVersion":"1","uid":"a1"}],
              "lastScheduleTime":"2024-05-02T10:30:00Z","lastSuccessfulTime":"2024-05-02T10:26:07Z"}}"#,
        )
        .unwrap();
        assert_eq!(cj.spec.schedule, "*/5 * * * *");
        assert_eq!(cj.spec.time_zone.as_deref(), Some("Europe/Berlin"));
        assert_eq!(cj.spec.starting_deadline_seconds, Some(200));
        assert!(cj.forbids_concurrent_runs());
        assert_eq!(cj.status.active, [Name::from("backup-28573590")]);
        assert!(
            cj.status.last_schedule_time
                < cj.status
                    .last_successful_time
                    .map(|t| t.checked_add(jiff::SignedDuration::from_hours(1)).unwrap())
        );
        let bare: CronJob =
            serde_json::from_str(r#"{"spec":{"schedule":"@hourly"},"status":{"active":null}}"#)
                .unwrap();
        assert!(bare.status.active.is_empty() && !bare.forbids_concurrent_runs());
        assert_eq!(bare.status.last_schedule_time, None);
    }

    #[test]
    fn only_the_replica_failure_condition_is_kept() {
        let rc: ReplicationController = serde_json::from_str(
            r#"{"spec":{"replicas":2},"status":{"replicas":0,"conditions":[
                {"type":"Other","status":"True"},
                {"type":"ReplicaFailure","status":"True","reason":"FailedCreate",
                 "message":"pods \"web-\" is forbidden: exceeded quota: q",
                 "lastTransitionTime":"2024-05-01T10:00:00Z"}]}}"#,
        )
        .unwrap();
        let failure = rc.status.replica_failure.as_deref().unwrap();
        assert_eq!(failure.status, ConditionStatus::True);
        assert_eq!(failure.reason, "FailedCreate");
        assert_eq!(rc.desired_replicas(), 2);
        let none: ReplicasStatus =
            serde_json::from_str(r#"{"replicas":1,"conditions":null}"#).unwrap();
        assert!(none.replica_failure.is_none());
    }
}
