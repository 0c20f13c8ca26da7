//! StatefulSets: an update stopped at its lowest ordinal in trouble, and partitioned
//! or OnDelete updates that hold by design.

use super::*;

fn stateful_set(strategy: Value, status: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": "kafka", "namespace": NS, "uid": "uid-kafka", "generation": 4},
           "spec": {"replicas": 3, "serviceName": "kafka-headless", "podManagementPolicy": "OrderedReady",
                    "updateStrategy": strategy},
           "status": status})
}

/// A rolling update goes down from the highest ordinal and stops at the first
/// that does not come back: kafka-2 crash-loops on the new revision.
#[test]
fn a_statefulset_update_stops_at_its_lowest_ordinal_in_trouble() {
    let status = json!({"observedGeneration": 4, "replicas": 3, "readyReplicas": 2, "currentReplicas": 2,
        "updatedReplicas": 1, "currentRevision": "kafka-5f8d7c6b9", "updateRevision": "kafka-7b6c5d4e3"});
    let findings = diagnose(&objects([
        vec![
            stateful_set(
                json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}),
                status,
            ),
            pod_of("StatefulSet", "kafka", "kafka-0", "n1"),
            pod_of("StatefulSet", "kafka", "kafka-1", "n2"),
        ],
        crash_looping("StatefulSet", "kafka", "kafka-2", "n3"),
    ]));
    let f = only(&findings, "kafka");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string()),
        ("statefulset_update_stuck", "crash_loop".to_string())
    );
    assert_eq!(f.node.as_deref(), Some("n3"));
    let owner = f.owner.as_ref().unwrap();
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("StatefulSet", "kafka")
    );
    match &f.detail {
        Detail::Verdict { example_pod, .. } => assert_eq!(example_pod.as_deref(), Some("kafka-2")),
        other => panic!("{other:?}"),
    }
}

/// A partitioned update rolls out only the ordinals at or above the
/// partition, and OnDelete none until a pod is deleted: both are where they
/// were asked to be.
#[test]
fn partitioned_and_on_delete_updates_that_hold_by_design_have_no_verdict() {
    let status = json!({"observedGeneration": 4, "replicas": 3, "readyReplicas": 3, "currentReplicas": 2,
        "updatedReplicas": 1, "availableReplicas": 3,
        "currentRevision": "kafka-5f8d7c6b9", "updateRevision": "kafka-7b6c5d4e3"});
    for strategy in [
        json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}),
        json!({"type": "OnDelete"}),
    ] {
        let findings = diagnose(&objects([vec![
            stateful_set(strategy.clone(), status.clone()),
            pod_of("StatefulSet", "kafka", "kafka-0", "n1"),
            pod_of("StatefulSet", "kafka", "kafka-1", "n2"),
            pod_of("StatefulSet", "kafka", "kafka-2", "n3"),
        ]]));
        assert!(findings.is_empty(), "{strategy}: {findings:#?}");
    }
}
