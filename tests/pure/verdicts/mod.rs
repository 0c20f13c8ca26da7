//! The controllers' verdicts with their cause: a stuck rollout, a StatefulSet
//! update that does not roll out, a DaemonSet short of pods, a failed or stuck
//! Job, a failed one-off pod. Conditions and messages as the deployment and
//! job controllers write them (pkg/controller/deployment/util, progress.go;
//! pkg/controller/job/job_controller.go, pod_failure_policy.go) and as public
//! issues show them; healthy, retrying, paused and suspended workloads are the
//! negatives.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{Detail, Finding, VerdictDetail};
use serde_json::{Value, json};

mod daemon_sets;
mod deployments;
mod jobs;
mod one_off_pods;
mod stateful_sets;

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
        .filter(|f| matches!(f.detail, Detail::Verdict(_)))
        .map(|f| {
            (
                f.name.to_string(),
                f.anomaly().to_string(),
                f.cause.to_string(),
            )
        })
        .collect()
}

fn pod_cause(f: &Finding) -> Option<&'static str> {
    match &f.detail {
        Detail::Verdict(d) => {
            let VerdictDetail { pod_cause, .. } = &**d;
            *pod_cause
        }
        other => panic!("{other:?}"),
    }
}

fn objects(parts: impl IntoIterator<Item = Vec<Value>>) -> Vec<Value> {
    let mut all = vec![ready_node("n1"), ready_node("n2"), ready_node("n3")];
    all.extend(parts.into_iter().flatten());
    all
}
