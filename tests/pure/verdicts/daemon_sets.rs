//! DaemonSets short of pods, named by the node of the failing one.

use super::*;

fn daemon_set(status: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
           "metadata": {"name": "fluent-bit", "namespace": NS, "uid": "uid-fluent-bit", "generation": 9},
           "spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
                    "template": {"spec": {"containers": [{"name": "app", "image": "fluent/fluent-bit:3.1"}]}}},
           "status": status})
}

#[test]
fn a_daemonset_short_of_pods_names_the_node_of_the_failing_one() {
    let status = json!({"observedGeneration": 9, "desiredNumberScheduled": 3, "currentNumberScheduled": 3,
        "numberReady": 2, "numberAvailable": 2, "numberUnavailable": 1, "updatedNumberScheduled": 1,
        "numberMisscheduled": 0});
    let findings = diagnose(&objects([
        vec![
            daemon_set(status),
            pod_of("DaemonSet", "fluent-bit", "fluent-bit-a1", "n1"),
            pod_of("DaemonSet", "fluent-bit", "fluent-bit-b2", "n2"),
        ],
        pull_failing("DaemonSet", "fluent-bit", "fluent-bit-c3", "n3"),
    ]));
    let f = only(&findings, "fluent-bit");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string()),
        ("daemonset_rollout_stuck", "image_pull".to_string())
    );
    assert_eq!(f.node.as_deref(), Some("n3"));
    assert_eq!(pod_cause(f), Some("not_found"));

    let healthy = json!({"observedGeneration": 9, "desiredNumberScheduled": 3, "currentNumberScheduled": 3,
        "numberReady": 3, "numberAvailable": 3, "updatedNumberScheduled": 3, "numberMisscheduled": 0});
    let findings = diagnose(&objects([vec![
        daemon_set(healthy),
        pod_of("DaemonSet", "fluent-bit", "fluent-bit-a1", "n1"),
        pod_of("DaemonSet", "fluent-bit", "fluent-bit-b2", "n2"),
        pod_of("DaemonSet", "fluent-bit", "fluent-bit-c3", "n3"),
    ]]));
    assert!(findings.is_empty(), "{findings:#?}");
}

/// Issue 46: a DaemonSet whose status reports `numberUnavailable: 1` for half
/// an hour, its pods not in the dump, reads its own status.
#[test]
fn a_daemonset_short_of_pods_not_in_view_has_its_own_verdict() {
    let status = json!({"observedGeneration": 9, "desiredNumberScheduled": 3, "currentNumberScheduled": 3,
        "numberReady": 2, "numberAvailable": 2, "numberUnavailable": 1, "updatedNumberScheduled": 3,
        "numberMisscheduled": 0});
    let mut ds = daemon_set(status);
    ds["metadata"]["creationTimestamp"] = json!("2024-06-01T11:30:00Z");
    let findings = diagnose(&objects([vec![ds.clone()]]));
    let f = only(&findings, "fluent-bit");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string()),
        (
            "daemonset_rollout_stuck",
            "replicas_unavailable".to_string()
        )
    );
    assert_eq!(f.message.to_string(), "2/3 ready, and no pod of it in view");

    // Two of its pods in view and Ready: the third is missing.
    let findings = diagnose(&objects([vec![
        ds.clone(),
        pod_of("DaemonSet", "fluent-bit", "fluent-bit-a1", "n1"),
        pod_of("DaemonSet", "fluent-bit", "fluent-bit-b2", "n2"),
    ]]));
    assert_eq!(
        only(&findings, "fluent-bit").message.to_string(),
        "2/3 ready; the 2 pods in view are Ready, the others are not in view"
    );

    // Created a minute ago: not yet.
    ds["metadata"]["creationTimestamp"] = json!("2024-06-01T11:59:00Z");
    let findings = diagnose(&objects([vec![ds]]));
    assert!(verdicts(&findings).is_empty(), "{findings:#?}");
}

/// The DaemonSet controller's warning when it deletes a failed daemon pod
/// to make another (openshift/origin#19678: the kubelet rejected each new pod
/// on that node): the failed pods are gone at once, the warnings tell.
fn failed_daemon_pod(count: i64, first: &str, last: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
           "metadata": {"name": "fluent-bit.152d8852e30e3e90", "namespace": NS},
           "involvedObject": {"apiVersion": "apps/v1", "kind": "DaemonSet", "namespace": NS,
                              "name": "fluent-bit", "uid": "uid-fluent-bit"},
           "reason": "FailedDaemonPod", "type": "Warning", "count": count,
           "message": format!("Found failed daemon pod {NS}/fluent-bit-hd67x on node n3, will try to kill it"),
           "firstTimestamp": first, "lastTimestamp": last,
           "source": {"component": "daemonset-controller"}})
}

#[test]
fn a_daemonset_whose_pod_keeps_failing_on_a_node_names_that_node() {
    let status = json!({"observedGeneration": 9, "desiredNumberScheduled": 3, "currentNumberScheduled": 3,
        "numberReady": 2, "numberAvailable": 2, "numberUnavailable": 1, "updatedNumberScheduled": 3,
        "numberMisscheduled": 0});
    // The pod the controller made last, on n3, not yet started.
    let mut next = pod_of("DaemonSet", "fluent-bit", "fluent-bit-9jmkq", "n3");
    next["metadata"]["creationTimestamp"] = json!("2024-06-01T11:59:50Z");
    next["status"]["startTime"] = json!("2024-06-01T11:59:50Z");
    next["status"]["conditions"][2]["lastTransitionTime"] = json!("2024-06-01T11:59:50Z");
    next["status"]["phase"] = json!("Pending");
    next["status"]["conditions"][1] = json!({"type": "Ready", "status": "False",
        "reason": "ContainersNotReady", "lastTransitionTime": "2024-06-01T11:59:50Z"});
    next["status"]["containerStatuses"][0]["ready"] = json!(false);
    next["status"]["containerStatuses"][0]["state"] =
        json!({"waiting": {"reason": "ContainerCreating"}});
    let dump = |event: Value| {
        objects([vec![
            daemon_set(status.clone()),
            pod_of("DaemonSet", "fluent-bit", "fluent-bit-a1", "n1"),
            pod_of("DaemonSet", "fluent-bit", "fluent-bit-b2", "n2"),
            next.clone(),
            event,
        ]])
    };
    let findings = diagnose(&dump(failed_daemon_pod(
        14,
        "2024-06-01T11:20:00Z",
        "2024-06-01T11:59:45Z",
    )));
    let f = only(&findings, "fluent-bit");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string()),
        ("daemonset_rollout_stuck", "daemon_pod_failed".to_string())
    );
    assert_eq!(f.node.as_deref(), Some("n3"));
    assert_eq!(f.since, Some("2024-06-01T11:20:00Z".parse().unwrap()));
    assert_eq!(
        f.message.to_string(),
        format!(
            "2/3 ready; FailedDaemonPod 14 times: Found failed daemon pod {NS}/fluent-bit-hd67x on node n3, will try to kill it"
        )
    );

    // Begun two minutes ago: the controller may yet succeed.
    let findings = diagnose(&dump(failed_daemon_pod(
        2,
        "2024-06-01T11:58:00Z",
        "2024-06-01T11:59:45Z",
    )));
    assert!(verdicts(&findings).is_empty(), "{findings:#?}");
}
