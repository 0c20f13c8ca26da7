//! One-off pods (no controller) that failed, said by how they ended.

use super::*;

fn one_off(name: &str, exit_code: i64, reason: &str) -> Value {
    let mut pod = running_pod(NS, name, "n1", None);
    pod["spec"]["restartPolicy"] = json!("Never");
    pod["status"]["phase"] = json!("Failed");
    pod["status"]["conditions"][1] = json!({"type": "Ready", "status": "False", "reason": "PodFailed",
        "lastTransitionTime": "2024-06-01T11:30:00Z"});
    pod["status"]["containerStatuses"][0] = json!({"name": "app", "image": "registry.example.com/demo/app:1.0",
        "ready": false, "restartCount": 0, "started": false,
        "state": {"terminated": {"exitCode": exit_code, "reason": reason,
            "startedAt": "2024-06-01T11:29:00Z", "finishedAt": "2024-06-01T11:30:00Z"}}});
    pod
}

#[test]
fn a_one_off_pod_that_failed_says_how_it_ended() {
    let mut evicted = running_pod(NS, "evicted-run", "n1", None);
    evicted["status"] = json!({"phase": "Failed", "reason": "Evicted",
        "message": "The node was low on resource: memory. Threshold quantity: 100Mi, available: 91400Ki. ",
        "startTime": "2024-06-01T11:00:00Z"});
    let mut succeeded = one_off("done", 0, "Completed");
    succeeded["status"]["phase"] = json!("Succeeded");
    let findings = diagnose(&objects([vec![
        one_off("migrate-once", 1, "Error"),
        one_off("hungry", 137, "OOMKilled"),
        evicted,
        succeeded,
    ]]));
    let migrate = only(&findings, "migrate-once");
    assert_eq!(
        (migrate.anomaly().as_str(), migrate.cause.to_string()),
        ("pod_failed", "exit_error".to_string())
    );
    assert_eq!(migrate.container.as_deref(), Some("app"));
    assert_eq!(migrate.since.unwrap().to_string(), "2024-06-01T11:30:00Z");
    assert_eq!(
        migrate.message,
        "container \"app\" ended: Error (exit code 1)"
    );
    assert_eq!(only(&findings, "hungry").cause.to_string(), "oom_killed");
    assert_eq!(
        only(&findings, "evicted-run").anomaly().as_str(),
        "pod_evicted"
    );
    assert!(findings.iter().all(|f| f.name != "done"));
}
