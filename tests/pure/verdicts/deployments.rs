//! Deployments: timed-out and stuck rollouts, unavailable deployments, and the
//! healthy, paused, progressing, refused and alert-covered ones without a verdict.

use super::*;
use kube_lifecycle_exporter::diagnosis::VerdictDetail;

/// Deepomatic/dmake#475: the old pod serves, the new ReplicaSet's pod never
/// becomes available, the controller gives up after progressDeadlineSeconds.
fn timed_out_rollout() -> Value {
    deployment(
        "gui",
        1,
        json!({"observedGeneration": 7, "replicas": 2, "updatedReplicas": 1, "readyReplicas": 1,
               "availableReplicas": 1, "unavailableReplicas": 1,
               "conditions": [
                   condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", "2024-06-01T09:00:00Z"),
                   condition("Progressing", "False", "ProgressDeadlineExceeded", "ReplicaSet \"gui-5cd74fc875\" has timed out progressing.", "2024-06-01T11:30:00Z")]}),
    )
}

#[test]
fn a_timed_out_rollout_takes_the_cause_of_its_new_replica_set_s_pods() {
    let findings = diagnose(&objects([
        vec![
            timed_out_rollout(),
            replica_set("gui", "gui-7b8c9d6f5", 1, "2024-05-20T09:00:00Z"),
            replica_set("gui", "gui-5cd74fc875", 1, "2024-06-01T11:20:00Z"),
            pod_of("ReplicaSet", "gui-7b8c9d6f5", "gui-7b8c9d6f5-old01", "n1"),
        ],
        pull_failing("ReplicaSet", "gui-5cd74fc875", "gui-5cd74fc875-x2k4p", "n2"),
    ]));
    let f = only(&findings, "gui");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string()),
        ("rollout_stuck", "image_pull".to_string())
    );
    assert_eq!(pod_cause(f), Some("not_found"));
    let owner = f.owner.as_ref().unwrap();
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("ReplicaSet", "gui-5cd74fc875")
    );
    // The registry and node of the pod it names, for the registry's and the
    // node's pages to stand for it.
    assert_eq!(f.node.as_deref(), Some("n2"));
    assert!(
        f.message.contains("gui-5cd74fc875-x2k4p") && f.message.contains("not found"),
        "{}",
        f.message
    );
    match &f.detail {
        Detail::Verdict(d) => {
            let VerdictDetail {
                registry,
                wanted,
                ready,
                pods,
                ..
            } = &**d;
            assert_eq!(registry.as_deref(), Some("registry.example.com"));
            assert_eq!((*wanted, *ready, *pods), (1, 1, 1));
        }
        other => panic!("{other:?}"),
    }
    // Its pod keeps its own finding (the verdict stands for its alert, not
    // for the diagnosis).
    assert_eq!(
        only(&findings, "gui-5cd74fc875-x2k4p").cause.to_string(),
        "not_found"
    );
}

#[test]
fn a_timed_out_rollout_whose_pods_are_gone_keeps_the_controller_s_word() {
    let findings = diagnose(&objects([vec![
        timed_out_rollout(),
        replica_set("gui", "gui-7b8c9d6f5", 1, "2024-05-20T09:00:00Z"),
        replica_set("gui", "gui-5cd74fc875", 1, "2024-06-01T11:20:00Z"),
        pod_of("ReplicaSet", "gui-7b8c9d6f5", "gui-7b8c9d6f5-old01", "n1"),
    ]]));
    let f = only(&findings, "gui");
    assert_eq!(f.cause.to_string(), "progress_deadline_exceeded");
    assert_eq!(pod_cause(f), None);
    assert_eq!(
        f.message,
        "ReplicaSet \"gui-5cd74fc875\" has timed out progressing."
    );
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:30:00Z");
    assert_eq!(f.owner.as_ref().unwrap().name, "gui-5cd74fc875");
}

/// kubernetes/kubernetes#106697: with one replica and maxUnavailable 25%
/// (rounded down to 0) the controller keeps the old pod and reports nothing
/// unavailable while the new pod crash-loops; only the new ReplicaSet's pods
/// show it, long before any deadline.
#[test]
fn a_rollout_whose_surge_pod_crash_loops_is_stuck_before_its_deadline() {
    let status = json!({"observedGeneration": 7, "replicas": 2, "updatedReplicas": 1, "readyReplicas": 1,
        "availableReplicas": 1,
        "conditions": [
            condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", "2024-06-01T09:00:00Z"),
            condition("Progressing", "True", "ReplicaSetUpdated", "ReplicaSet \"api-6d9f8b7c4\" is progressing.", "2024-06-01T11:30:00Z")]});
    let findings = diagnose(&objects([
        vec![
            deployment("api", 1, status),
            replica_set("api", "api-58b7d9c6f", 1, "2024-05-20T09:00:00Z"),
            replica_set("api", "api-6d9f8b7c4", 1, "2024-06-01T11:30:00Z"),
            pod_of("ReplicaSet", "api-58b7d9c6f", "api-58b7d9c6f-old01", "n1"),
        ],
        crash_looping("ReplicaSet", "api-6d9f8b7c4", "api-6d9f8b7c4-q8w2e", "n3"),
    ]));
    let f = only(&findings, "api");
    assert_eq!(f.anomaly().as_str(), "rollout_stuck");
    assert_eq!(f.cause.to_string(), "crash_loop");
    assert_eq!(pod_cause(f), Some("error"));
    assert_eq!(f.owner.as_ref().unwrap().name, "api-6d9f8b7c4");
}

/// kubernetes/kubernetes#106054: outside a rollout, Progressing stays
/// NewReplicaSetAvailable while pods are missing; Available turned False.
#[test]
fn a_deployment_short_of_pods_with_none_to_blame_is_unavailable_once_it_lasts() {
    let status = |since: &str| {
        json!({"observedGeneration": 7, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 0,
            "unavailableReplicas": 2,
            "conditions": [
                condition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", since),
                condition("Progressing", "True", "NewReplicaSetAvailable", "ReplicaSet \"router-5d4f8c7b9\" has successfully progressed.", "2024-05-20T09:00:00Z")]})
    };
    let dump = |since: &str| {
        objects([vec![
            deployment("router", 2, status(since)),
            replica_set("router", "router-5d4f8c7b9", 2, "2024-05-20T09:00:00Z"),
        ]])
    };
    let findings = diagnose(&dump("2024-06-01T11:40:00Z"));
    let f = only(&findings, "router");
    assert_eq!(f.cause.to_string(), "replicas_unavailable");
    assert_eq!(f.message, "Deployment does not have minimum availability.");
    // Two minutes is a restart, not yet a verdict (--unavailable-after 5m).
    assert!(verdicts(&diagnose(&dump("2024-06-01T11:58:00Z"))).is_empty());
}

#[test]
fn healthy_paused_and_progressing_deployments_have_no_verdict() {
    let complete = json!({"observedGeneration": 7, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2,
        "availableReplicas": 2,
        "conditions": [
            condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", "2024-06-01T09:00:00Z"),
            condition("Progressing", "True", "NewReplicaSetAvailable", "ReplicaSet \"web-7f9d8c6b5\" has successfully progressed.", "2024-06-01T09:00:00Z")]});
    let mut paused = timed_out_rollout();
    paused["metadata"]["name"] = json!("paused");
    paused["spec"]["paused"] = json!(true);
    // A rollout that has just begun: the new pod is being created, no finding.
    let mut starting = pod_of(
        "ReplicaSet",
        "fresh-6c5b4a3d2",
        "fresh-6c5b4a3d2-abcde",
        "n2",
    );
    starting["metadata"]["creationTimestamp"] = json!("2024-06-01T11:59:30Z");
    starting["status"]["startTime"] = json!("2024-06-01T11:59:31Z");
    starting["status"]["conditions"][2]["lastTransitionTime"] = json!("2024-06-01T11:59:30Z");
    starting["status"]["phase"] = json!("Pending");
    starting["status"]["containerStatuses"][0]["state"] =
        json!({"waiting": {"reason": "ContainerCreating"}});
    starting["status"]["containerStatuses"][0]["ready"] = json!(false);
    let progressing = json!({"observedGeneration": 7, "replicas": 2, "updatedReplicas": 1, "readyReplicas": 1,
        "availableReplicas": 1,
        "conditions": [
            condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", "2024-06-01T09:00:00Z"),
            condition("Progressing", "True", "ReplicaSetUpdated", "ReplicaSet \"fresh-6c5b4a3d2\" is progressing.", "2024-06-01T11:59:30Z")]});
    let findings = diagnose(&objects([vec![
        deployment("web", 2, complete),
        replica_set("web", "web-7f9d8c6b5", 2, "2024-06-01T09:00:00Z"),
        pod_of("ReplicaSet", "web-7f9d8c6b5", "web-7f9d8c6b5-aaaaa", "n1"),
        pod_of("ReplicaSet", "web-7f9d8c6b5", "web-7f9d8c6b5-bbbbb", "n2"),
        paused,
        deployment("fresh", 1, progressing),
        replica_set("fresh", "fresh-5a4b3c2d1", 1, "2024-05-01T09:00:00Z"),
        replica_set("fresh", "fresh-6c5b4a3d2", 1, "2024-06-01T11:59:30Z"),
        pod_of(
            "ReplicaSet",
            "fresh-5a4b3c2d1",
            "fresh-5a4b3c2d1-zzzzz",
            "n1",
        ),
        starting,
    ]]));
    assert!(verdicts(&findings).is_empty(), "{findings:#?}");
}

/// The API server refuses the new ReplicaSet's pods (the documented quota
/// example): the refusal's finding, and its alert, stand for the Deployment.
#[test]
fn a_deployment_whose_pods_are_refused_is_left_to_the_refusal() {
    let message = "pods \"nginx-deployment-4262182780-\" is forbidden: exceeded quota: object-counts, requested: pods=1, used: pods=3, limited: pods=2";
    let mut rs = replica_set(
        "nginx-deployment",
        "nginx-deployment-4262182780",
        2,
        "2024-06-01T11:00:00Z",
    );
    rs["status"] = json!({"replicas": 0, "conditions": [
        {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
         "message": message, "lastTransitionTime": "2024-06-01T11:00:05Z"}]});
    let event = json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "nginx-deployment-4262182780.1", "namespace": NS},
        "involvedObject": {"kind": "ReplicaSet", "name": "nginx-deployment-4262182780", "namespace": NS,
                           "uid": "uid-nginx-deployment-4262182780"},
        "reason": "FailedCreate", "message": format!("Error creating: {message}"), "type": "Warning",
        "source": {"component": "replicaset-controller"}, "count": 12,
        "firstTimestamp": "2024-06-01T11:00:05Z", "lastTimestamp": "2024-06-01T11:55:00Z"});
    let status = json!({"observedGeneration": 3, "replicas": 0, "unavailableReplicas": 2,
        "conditions": [
            condition("Progressing", "False", "ProgressDeadlineExceeded", "ReplicaSet \"nginx-deployment-4262182780\" has timed out progressing.", "2024-06-01T11:10:00Z"),
            condition("ReplicaFailure", "True", "FailedCreate", message, "2024-06-01T11:00:05Z")]});
    let findings = diagnose(&objects([vec![
        deployment("nginx-deployment", 2, status),
        rs,
        event,
    ]]));
    assert_eq!(
        causes(&findings),
        [(
            "pod_create_refused".to_string(),
            "quota_exceeded".to_string()
        )]
    );
}

/// Pods no scheduler ever looks at: the cluster's alert
/// (KubeLifecycleSchedulerNotScheduling) stands for them and for their
/// workload, which gets no verdict of its own.
#[test]
fn a_deployment_whose_pods_an_alert_about_the_cluster_covers_has_no_verdict() {
    let mut pending = pod_of("ReplicaSet", "batch-6b5c4d3e2", "batch-6b5c4d3e2-p1", "");
    pending["spec"]["nodeName"] = json!(null);
    pending["metadata"]["creationTimestamp"] = json!("2024-06-01T11:00:00Z");
    pending["status"] = json!({"phase": "Pending"});
    let status = json!({"observedGeneration": 2, "replicas": 1, "unavailableReplicas": 1,
        "conditions": [condition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", "2024-06-01T11:00:00Z")]});
    let findings = diagnose(&objects([vec![
        deployment("batch", 1, status),
        replica_set("batch", "batch-6b5c4d3e2", 1, "2024-06-01T11:00:00Z"),
        pending,
    ]]));
    assert_eq!(
        causes(&findings),
        [("pod_pending".to_string(), "not_scheduled".to_string())]
    );
}
