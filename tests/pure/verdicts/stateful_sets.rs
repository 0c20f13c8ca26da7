//! StatefulSets: an update stopped at its lowest ordinal in trouble, and partitioned
//! or OnDelete updates that hold by design.

use super::*;
use kube_lifecycle_exporter::diagnosis::VerdictDetail;

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
        Detail::Verdict(d) => {
            let VerdictDetail { example_pod, .. } = &**d;
            assert_eq!(example_pod.as_deref(), Some("kafka-2"))
        }
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

fn created(mut object: Value, at: &str) -> Value {
    object["metadata"]["creationTimestamp"] = json!(at);
    object
}

/// Issue 46: a StatefulSet with 1 of 3 replicas ready for 30 minutes whose
/// pods are not in view reads its own status; a fresh one, or one whose pod
/// in view is not Ready yet (its own family's to explain), waits.
#[test]
fn a_statefulset_short_of_pods_not_in_view_has_its_own_verdict() {
    let rolled_out = json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}});
    let status = json!({"observedGeneration": 4, "replicas": 1, "readyReplicas": 1, "currentReplicas": 1,
        "updatedReplicas": 1, "availableReplicas": 1,
        "currentRevision": "kafka-5f8d7c6b9", "updateRevision": "kafka-5f8d7c6b9"});
    let kafka = |at: &str| created(stateful_set(rolled_out.clone(), status.clone()), at);

    let findings = diagnose(&objects([vec![kafka("2024-06-01T11:30:00Z")]]));
    let f = only(&findings, "kafka");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string()),
        (
            "statefulset_update_stuck",
            "replicas_unavailable".to_string()
        )
    );
    assert_eq!(f.message.to_string(), "1/3 ready, and no pod of it in view");
    assert_eq!(pod_cause(f), None);
    assert_eq!(f.since, Some("2024-06-01T11:30:00Z".parse().unwrap()));
    let owner = f.owner.as_ref().unwrap();
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("StatefulSet", "kafka")
    );

    // Its one Ready pod in view: the two others are missing.
    let findings = diagnose(&objects([vec![
        kafka("2024-06-01T11:30:00Z"),
        pod_of("StatefulSet", "kafka", "kafka-0", "n1"),
    ]]));
    assert_eq!(
        only(&findings, "kafka").message.to_string(),
        "1/3 ready; the 1 pod in view is Ready, the others are not in view"
    );

    // Created two minutes ago: still coming up.
    let findings = diagnose(&objects([vec![kafka("2024-06-01T11:58:00Z")]]));
    assert!(verdicts(&findings).is_empty(), "{findings:#?}");

    // kafka-1 in view, Pending and not yet anyone's finding: it is waited on.
    let mut starting = pod_of("StatefulSet", "kafka", "kafka-1", "n2");
    starting["metadata"]["creationTimestamp"] = json!("2024-06-01T11:59:00Z");
    starting["status"]["startTime"] = json!("2024-06-01T11:59:00Z");
    starting["status"]["conditions"][2]["lastTransitionTime"] = json!("2024-06-01T11:59:00Z");
    starting["status"]["phase"] = json!("Pending");
    starting["status"]["conditions"][1] = json!({"type": "Ready", "status": "False",
        "reason": "ContainersNotReady", "lastTransitionTime": "2024-06-01T11:59:00Z"});
    starting["status"]["containerStatuses"][0]["ready"] = json!(false);
    starting["status"]["containerStatuses"][0]["state"] =
        json!({"waiting": {"reason": "ContainerCreating"}});
    let findings = diagnose(&objects([vec![
        kafka("2024-06-01T11:30:00Z"),
        pod_of("StatefulSet", "kafka", "kafka-0", "n1"),
        starting,
    ]]));
    assert!(verdicts(&findings).is_empty(), "{findings:#?}");
}

/// Mid-update with no pod in the dump at all, a rollout that began a minute
/// ago cannot be told from a stuck one: no verdict from the status alone.
#[test]
fn a_statefulset_mid_update_without_pods_listed_is_not_judged() {
    let status = json!({"observedGeneration": 4, "replicas": 3, "readyReplicas": 2, "currentReplicas": 2,
        "updatedReplicas": 0, "currentRevision": "kafka-5f8d7c6b9", "updateRevision": "kafka-7b6c5d4e3"});
    let kafka = created(
        stateful_set(
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}),
            status,
        ),
        "2024-05-01T10:00:00Z",
    );
    let findings = diagnose(&objects([vec![kafka.clone()]]));
    assert!(verdicts(&findings).is_empty(), "{findings:#?}");
    // With its pods listed, the missing one is missing.
    let findings = diagnose(&objects([vec![
        kafka,
        pod_of("StatefulSet", "kafka", "kafka-0", "n1"),
        pod_of("StatefulSet", "kafka", "kafka-1", "n2"),
    ]]));
    assert_eq!(
        verdicts(&findings),
        [(
            "kafka".to_string(),
            "statefulset_update_stuck".to_string(),
            "replicas_unavailable".to_string()
        )]
    );
}
