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
