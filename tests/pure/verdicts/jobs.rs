//! Jobs: over the backoff limit, past their deadline or failed by their failure
//! policy, and retrying, completed, suspended or stuck ones.

use super::*;

fn job(name: &str, spec: Value, status: Value) -> Value {
    let mut spec = spec;
    spec["template"] = json!({"spec": {"restartPolicy": "Never",
        "containers": [{"name": "app", "image": "busybox:1.36"}]}});
    json!({"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": name, "namespace": NS, "uid": format!("uid-{name}"),
                        "creationTimestamp": "2024-06-01T10:00:00Z"},
           "spec": spec, "status": status})
}

/// A Job's pod that ran and ended: phase Failed (exit code) or Succeeded.
fn ended_pod(job: &str, name: &str, exit_code: i64, reason: &str) -> Value {
    let mut pod = pod_of("Job", job, name, "n1");
    pod["spec"]["restartPolicy"] = json!("Never");
    pod["status"]["phase"] = json!(if exit_code == 0 {
        "Succeeded"
    } else {
        "Failed"
    });
    pod["status"]["conditions"][1] = json!({"type": "Ready", "status": "False", "reason": "PodFailed",
        "lastTransitionTime": "2024-06-01T10:05:00Z"});
    pod["status"]["containerStatuses"][0] = json!({"name": "app", "image": "busybox:1.36", "ready": false,
        "restartCount": 0, "started": false,
        "state": {"terminated": {"exitCode": exit_code, "reason": reason,
            "startedAt": "2024-06-01T10:04:00Z", "finishedAt": "2024-06-01T10:05:00Z"}}});
    pod
}

const BACKOFF_MESSAGE: &str = "Job has reached the specified backoff limit";

/// kubernetes/kubernetes#92245: `sh -c "exit 1"`, restartPolicy Never,
/// backoffLimit 6.
fn backoff_failed() -> Value {
    job(
        "exit-one",
        json!({"backoffLimit": 6, "completions": 1, "parallelism": 1}),
        json!({"failed": 5, "startTime": "2024-06-01T10:00:00Z",
               "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                               "message": BACKOFF_MESSAGE, "lastProbeTime": "2024-06-01T10:09:00Z",
                               "lastTransitionTime": "2024-06-01T10:09:00Z"}]}),
    )
}

#[test]
fn a_job_over_its_backoff_limit_is_failed_by_how_its_pods_ended() {
    let mut dump = vec![backoff_failed()];
    for i in 0..5 {
        dump.push(ended_pod("exit-one", &format!("exit-one-p{i}"), 1, "Error"));
    }
    let findings = diagnose(&objects([dump]));
    let f = only(&findings, "exit-one");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string()),
        ("job_failed", "exit_error".to_string())
    );
    assert_eq!(pod_cause(f), Some("error"));
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T10:09:00Z");
    assert!(f.message.contains("5 pods"), "{}", f.message);
    // The failed pods themselves are the Job's to report, not one-off pods.
    assert_eq!(verdicts(&findings).len(), 1);

    // Once its pods are cleaned up, the controller's reason.
    let findings = diagnose(&objects([vec![backoff_failed()]]));
    let f = only(&findings, "exit-one");
    assert_eq!(f.cause.to_string(), "backoff_limit_exceeded");
    assert_eq!(
        f.message,
        format!("BackoffLimitExceeded: {BACKOFF_MESSAGE}")
    );
}

/// kubernetes/kubernetes#90551: a DeadlineExceeded Job can have no failed
/// pod at all; a pod failure policy (1.31+) writes FailureTarget and Failed
/// with the same reason and message: one verdict.
#[test]
fn deadline_and_failure_policy_verdicts_are_the_controller_s() {
    let deadline = job(
        "report",
        json!({"activeDeadlineSeconds": 600, "backoffLimit": 3}),
        json!({"succeeded": 1, "startTime": "2024-06-01T10:00:00Z",
               "conditions": [{"type": "Failed", "status": "True", "reason": "DeadlineExceeded",
                               "message": "Job was active longer than specified deadline",
                               "lastTransitionTime": "2024-06-01T10:10:00Z"}]}),
    );
    let policy_message = "Container app for pod shop/pi-9q8w7 failed with exit code 42 matching FailJob rule at index 0";
    let policy = job(
        "pi",
        json!({"backoffLimit": 6, "podFailurePolicy": {"rules": [{"action": "FailJob",
            "onExitCodes": {"containerName": "app", "operator": "In", "values": [42]}}]}}),
        json!({"failed": 1, "startTime": "2024-06-01T10:00:00Z",
               "conditions": [
                   {"type": "FailureTarget", "status": "True", "reason": "PodFailurePolicy",
                    "message": policy_message, "lastTransitionTime": "2024-06-01T10:05:01Z"},
                   {"type": "Failed", "status": "True", "reason": "PodFailurePolicy",
                    "message": policy_message, "lastTransitionTime": "2024-06-01T10:05:02Z"}]}),
    );
    let findings = diagnose(&objects([vec![
        deadline,
        policy,
        ended_pod("pi", "pi-9q8w7", 42, "Error"),
    ]]));
    let report = only(&findings, "report");
    assert_eq!(report.cause.to_string(), "deadline_exceeded");
    let pi = only(&findings, "pi");
    assert_eq!(pi.cause.to_string(), "pod_failure_policy");
    assert_eq!(pod_cause(pi), Some("error"));
    assert!(pi.message.contains(policy_message), "{}", pi.message);
}

/// k8sgpt-ai/k8sgpt#1723 and kubernetes/kubernetes#96630: failed pods are not a
/// failed Job while it retries within its backoffLimit or once it completed; a
/// suspended Job is not running late.
#[test]
fn retrying_completed_and_suspended_jobs_have_no_verdict() {
    let retrying = job(
        "retrying",
        json!({"backoffLimit": 6}),
        json!({"failed": 2, "active": 1, "startTime": "2024-06-01T11:00:00Z"}),
    );
    let completed = job(
        "completed",
        json!({"backoffLimit": 6, "completions": 1}),
        json!({"failed": 2, "succeeded": 1, "startTime": "2024-06-01T10:00:00Z",
               "completionTime": "2024-06-01T10:06:00Z",
               "conditions": [
                   {"type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached",
                    "message": "Reached expected number of succeeded pods", "lastTransitionTime": "2024-06-01T10:06:00Z"},
                   {"type": "Complete", "status": "True", "reason": "CompletionsReached",
                    "message": "Reached expected number of succeeded pods", "lastTransitionTime": "2024-06-01T10:06:00Z"}]}),
    );
    let suspended = job(
        "suspended",
        json!({"suspend": true}),
        json!({"conditions": [{"type": "Suspended", "status": "True", "reason": "JobSuspended",
                               "message": "Job suspended", "lastTransitionTime": "2024-05-01T10:00:00Z"}]}),
    );
    let mut retry_pod = pod_of("Job", "retrying", "retrying-r3", "n2");
    retry_pod["spec"]["restartPolicy"] = json!("Never");
    let findings = diagnose(&objects([vec![
        retrying,
        ended_pod("retrying", "retrying-r1", 1, "Error"),
        ended_pod("retrying", "retrying-r2", 1, "Error"),
        retry_pod,
        completed,
        ended_pod("completed", "completed-c1", 1, "Error"),
        ended_pod("completed", "completed-c2", 1, "Error"),
        ended_pod("completed", "completed-c3", 0, "Completed"),
        suspended,
    ]]));
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn an_active_job_is_not_completing_when_its_pods_are_stuck_or_it_runs_past_job_after() {
    let active = |name: &str, started: &str| {
        job(
            name,
            json!({"backoffLimit": 6}),
            json!({"active": 1, "startTime": started}),
        )
    };
    let mut long_pod = pod_of("Job", "reindex", "reindex-l1", "n1");
    long_pod["spec"]["restartPolicy"] = json!("Never");
    let mut short_pod = pod_of("Job", "backup", "backup-s1", "n1");
    short_pod["spec"]["restartPolicy"] = json!("Never");
    let findings = diagnose(&objects([
        vec![
            active("reindex", "2024-05-31T23:00:00Z"),
            long_pod,
            active("backup", "2024-06-01T02:00:00Z"),
            short_pod,
            active("export", "2024-06-01T11:20:00Z"),
        ],
        pull_failing("Job", "export", "export-e1", "n2"),
    ]));
    let mut found = verdicts(&findings);
    found.sort();
    assert_eq!(
        found,
        [
            (
                "export".to_string(),
                "job_not_completed".to_string(),
                "image_pull".to_string()
            ),
            (
                "reindex".to_string(),
                "job_not_completed".to_string(),
                "running_long".to_string()
            ),
        ]
    );
    let reindex = only(&findings, "reindex");
    assert_eq!(reindex.message, "active for 13h with 1 running pod");
}

/// Issue 46: a Job whose only pod (`restartPolicy: OnFailure`) is OOM-killed
/// and restarted in place shows no failed pod and, between back-offs, no
/// waiting container: it runs again, and the restarts are why the Job does not
/// complete, long before --job-after. The kubelet's wording of the last run
/// (reason OOMKilled, exit code 137).
#[test]
fn a_job_whose_pod_restarts_in_place_after_oom_kills_is_not_completing() {
    let train = |restarts: i64| {
        let mut spec = json!({"backoffLimit": 6});
        spec["template"] = json!({"spec": {"restartPolicy": "OnFailure",
            "containers": [{"name": "app", "image": "busybox:1.36"}]}});
        let job = json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "train", "namespace": NS, "uid": "uid-train",
                         "creationTimestamp": "2024-06-01T10:00:00Z"},
            "spec": spec, "status": {"active": 1, "ready": 1, "startTime": "2024-06-01T10:00:00Z"}});
        let mut pod = pod_of("Job", "train", "train-7xk2p", "n1");
        pod["spec"]["restartPolicy"] = json!("OnFailure");
        pod["status"]["startTime"] = json!("2024-06-01T10:00:02Z");
        pod["status"]["containerStatuses"][0] = json!({"name": "app", "image": "busybox:1.36",
            "ready": true, "restartCount": restarts, "started": true,
            "state": {"running": {"startedAt": "2024-06-01T11:52:00Z"}},
            "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
                "startedAt": "2024-06-01T11:40:00Z", "finishedAt": "2024-06-01T11:51:30Z"}}});
        vec![job, pod]
    };
    let findings = diagnose(&objects([train(3)]));
    let f = only(&findings, "train");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string()),
        ("job_not_completed", "oom_killed".to_string())
    );
    assert_eq!(pod_cause(f), Some("oom_killed"));
    assert_eq!(f.node.as_deref(), Some("n1"));
    assert_eq!(f.since, Some("2024-06-01T10:00:02Z".parse().unwrap()));
    assert_eq!(
        f.message.to_string(),
        "active for 2h with 1 running pod; 1 pod oom_killed, e.g. train-7xk2p: container \"app\" restarted in place 3 times, its last run ended OOMKilled (exit code 137)"
    );
    // The same pod before any restart: a Job at work.
    let findings = diagnose(&objects([train(0)]));
    assert!(verdicts(&findings).is_empty(), "{findings:#?}");
}
