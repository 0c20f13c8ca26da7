//! The objects incidents are made of: timestamps, uids, nodes, owners, running,
//! deleted and waiting pods, kubelet events.

use kube_lifecycle_exporter::model::Time;
use serde_json::{Value, json};

pub fn at(offset_seconds: i64) -> String {
    Time::now()
        .checked_add(jiff::SignedDuration::from_secs(offset_seconds))
        .unwrap()
        .to_string()
}

pub fn uid(name: &str) -> String {
    // Stable and distinct per name: good enough for a test dump.
    let mut h: u64 = 0xcbf29ce484222325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0xfff,
        (h >> 20) & 0xfff,
        h & 0xffffffffffff
    )
}

pub fn node(name: &str, ready: bool) -> Value {
    let (status, reason, message) = if ready {
        ("True", "KubeletReady", "kubelet is posting ready status")
    } else {
        (
            "Unknown",
            "NodeStatusUnknown",
            "Kubelet stopped posting node status.",
        )
    };
    let mut node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": uid(name), "creationTimestamp": at(-86400 * 30),
            "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
        "spec": {},
        "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": status, "reason": reason, "message": message,
                "lastHeartbeatTime": at(if ready { -10 } else { -1500 }),
                "lastTransitionTime": at(if ready { -86400 } else { -1460 })}]}});
    if !ready {
        node["spec"]["taints"] = json!([
            {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": at(-1460)},
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": at(-1455)}]);
    }
    node
}

pub fn owner(kind: &str, name: &str) -> Value {
    let api = if kind == "Job" { "batch/v1" } else { "apps/v1" };
    json!([{"apiVersion": api, "kind": kind, "name": name, "uid": uid(name), "controller": true, "blockOwnerDeletion": true}])
}

/// A running, ready pod of `owner` on `node`.
pub fn running(namespace: &str, name: &str, node: &str, owner_ref: Value, image: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid(name),
            "creationTimestamp": at(-7200), "ownerReferences": owner_ref},
        "spec": {"nodeName": node, "schedulerName": "default-scheduler",
            "containers": [{"name": "app", "image": image}]},
        "status": {"phase": "Running", "startTime": at(-7190),
            "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": at(-7200)},
                {"type": "Ready", "status": "True", "lastTransitionTime": at(-7100)}],
            "containerStatuses": [{"name": "app", "image": image, "ready": true, "restartCount": 0,
                "state": {"running": {"startedAt": at(-7180)}}}]}})
}

/// `pod`, deleted `ago` seconds ago with a 30 s grace period.
pub fn deleted(mut pod: Value, ago: i64) -> Value {
    pod["metadata"]["deletionTimestamp"] = json!(at(30 - ago));
    pod["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    pod["status"]["conditions"][1]["status"] = json!("False");
    pod
}

/// A pod on `node` whose one container waits with `reason` and `message`.
pub fn waiting(
    namespace: &str,
    name: &str,
    node: &str,
    image: &str,
    reason: &str,
    message: &str,
) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid(name), "creationTimestamp": at(-1500),
            "ownerReferences": owner("ReplicaSet", &format!("{namespace}-rs"))},
        "spec": {"nodeName": node, "schedulerName": "default-scheduler",
            "containers": [{"name": "app", "image": image}]},
        "status": {"phase": "Pending", "startTime": at(-1490),
            "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": at(-1500)},
                {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "lastTransitionTime": at(-1500)}],
            "containerStatuses": [{"name": "app", "image": image, "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": reason, "message": message}}}]}})
}

/// The kubelet's warning event about `pod`'s container `app`.
pub fn kubelet_event(namespace: &str, pod: &str, node: &str, reason: &str, message: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{pod}.{}", &uid(message)[..12]), "namespace": namespace},
        "involvedObject": {"kind": "Pod", "name": pod, "namespace": namespace, "uid": uid(pod),
            "fieldPath": "spec.containers{app}"},
        "reason": reason, "message": message, "type": "Warning", "count": 12,
        "source": {"component": "kubelet", "host": node},
        "firstTimestamp": at(-1400), "lastTimestamp": at(-20)})
}

pub fn healthy_nodes(names: &[&str]) -> Vec<Value> {
    names.iter().map(|n| node(n, true)).collect()
}
