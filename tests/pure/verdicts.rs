//! The controllers' verdicts with their cause: a stuck rollout, a StatefulSet
//! update that does not roll out, a DaemonSet short of pods, a failed or stuck
//! Job, a failed one-off pod. Conditions and messages as the deployment and
//! job controllers write them (pkg/controller/deployment/util, progress.go;
//! pkg/controller/job/job_controller.go, pod_failure_policy.go) and as public
//! issues show them; healthy, retrying, paused and suspended workloads are the
//! negatives.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{Detail, Finding};
use serde_json::{Value, json};

const NS: &str = "shop";

fn owner_ref(kind: &str, name: &str) -> Value {
    let api = if kind == "Job" { "batch/v1" } else { "apps/v1" };
    json!([{"apiVersion": api, "kind": kind, "name": name, "uid": format!("uid-{name}"),
            "controller": true, "blockOwnerDeletion": true}])
}

fn condition(kind: &str, status: &str, reason: &str, message: &str, at: &str) -> Value {
    json!({"type": kind, "status": status, "reason": reason, "message": message,
           "lastUpdateTime": at, "lastTransitionTime": at})
}

fn deployment(name: &str, replicas: i64, status: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": name, "namespace": NS, "uid": format!("uid-{name}"), "generation": 7},
           "spec": {"replicas": replicas, "progressDeadlineSeconds": 600,
                    "selector": {"matchLabels": {"app": name}},
                    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}},
           "status": status})
}

fn replica_set(deployment: &str, name: &str, replicas: i64, created: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
           "metadata": {"name": name, "namespace": NS, "uid": format!("uid-{name}"),
                        "creationTimestamp": created,
                        "ownerReferences": owner_ref("Deployment", deployment)},
           "spec": {"replicas": replicas},
           "status": {"replicas": replicas, "observedGeneration": 1}})
}

fn pod_of(kind: &str, owner: &str, name: &str, node: &str) -> Value {
    let mut pod = running_pod(NS, name, node, None);
    pod["metadata"]["ownerReferences"] = owner_ref(kind, owner);
    pod
}

/// A pod of `kind`/`owner` whose image does not exist: ImagePullBackOff, and
/// the kubelet's Failed event that says why (containerd's wording).
fn pull_failing(kind: &str, owner: &str, name: &str, node: &str) -> Vec<Value> {
    let image = "registry.example.com/shop/gui:2.4.1";
    let mut pod = pod_of(kind, owner, name, node);
    pod["metadata"]["creationTimestamp"] = json!("2024-06-01T11:20:00Z");
    pod["status"]["phase"] = json!("Pending");
    pod["status"]["conditions"][1] = json!({"type": "Ready", "status": "False", "reason": "ContainersNotReady",
        "lastTransitionTime": "2024-06-01T11:20:00Z"});
    pod["spec"]["containers"][0]["image"] = json!(image);
    pod["status"]["containerStatuses"][0] = json!({"name": "app", "image": image, "ready": false,
        "restartCount": 0, "started": false,
        "state": {"waiting": {"reason": "ImagePullBackOff", "message": format!("Back-off pulling image \"{image}\"")}}});
    let failed = warning(
        &pod,
        "Failed",
        &format!(
            "Failed to pull image \"{image}\": rpc error: code = NotFound desc = failed to pull and unpack image \"{image}\": failed to resolve reference \"{image}\": {image}: not found"
        ),
        Some("app"),
        "2024-06-01T11:21:00Z",
    );
    vec![pod, failed]
}

/// A pod whose container exits 1 and is restarted with back-off.
fn crash_looping(kind: &str, owner: &str, name: &str, node: &str) -> Vec<Value> {
    let mut pod = pod_of(kind, owner, name, node);
    pod["status"]["conditions"][1] = json!({"type": "Ready", "status": "False", "reason": "ContainersNotReady",
        "lastTransitionTime": "2024-06-01T11:30:00Z"});
    pod["status"]["containerStatuses"][0] = json!({"name": "app", "image": "registry.example.com/demo/app:1.0",
        "ready": false, "restartCount": 6, "started": false,
        "state": {"waiting": {"reason": "CrashLoopBackOff",
            "message": format!("back-off 5m0s restarting failed container=app pod={name}_{NS}(uid-{name})")}},
        "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
            "startedAt": "2024-06-01T11:54:00Z", "finishedAt": "2024-06-01T11:54:02Z"}}});
    let back_off = warning(
        &pod,
        "BackOff",
        "Back-off restarting failed container app in pod",
        Some("app"),
        "2024-06-01T11:55:00Z",
    );
    vec![pod, back_off]
}

fn verdicts(findings: &[Finding]) -> Vec<(String, String, String)> {
    findings
        .iter()
        .filter(|f| matches!(f.detail, Detail::Verdict { .. }))
        .map(|f| (f.name.clone(), f.anomaly().to_string(), f.cause.to_string()))
        .collect()
}

fn pod_cause(f: &Finding) -> Option<&'static str> {
    match &f.detail {
        Detail::Verdict { pod_cause, .. } => *pod_cause,
        other => panic!("{other:?}"),
    }
}

fn objects(parts: impl IntoIterator<Item = Vec<Value>>) -> Vec<Value> {
    let mut all = vec![ready_node("n1"), ready_node("n2"), ready_node("n3")];
    all.extend(parts.into_iter().flatten());
    all
}

// ------------------------------------------------------------------ Deployments

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
        Detail::Verdict {
            registry,
            wanted,
            ready,
            pods,
            ..
        } => {
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

// ----------------------------------------------------------------- StatefulSets

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

// ------------------------------------------------------------------- DaemonSets

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

// ------------------------------------------------------------------------- Jobs

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

// ------------------------------------------------------------- one-off pods

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
