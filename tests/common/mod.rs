//! Helpers shared by the diagnosis tests: build a cluster from Kubernetes JSON
//! the way `kubectl get -o json` prints it, and diagnose it at a fixed time.

#![allow(dead_code)]

pub mod alerting;
pub mod cli;
pub mod daemons;
pub mod dashboards;
pub mod example;
pub mod exporter;
pub mod incidents;
pub mod real_rows;
pub mod shapes;

use kube_lifecycle_exporter::diagnosis::{self, Finding};
use kube_lifecycle_exporter::model::Time;
use kube_lifecycle_exporter::source::dump;
use serde_json::{Value, json};

pub const NOW: &str = "2024-06-01T12:00:00Z";

pub fn now() -> Time {
    NOW.parse().unwrap()
}

/// Diagnoses `objects` (as a v1 List) at [`NOW`].
pub fn diagnose(objects: &[Value]) -> Vec<Finding> {
    diagnose_at(objects, NOW)
}

pub fn diagnose_at(objects: &[Value], now: &str) -> Vec<Finding> {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
    let loaded = dump::load_str(&list.to_string()).expect("the test objects load");
    diagnosis::diagnose(&loaded.cluster, now.parse().unwrap())
}

/// The findings of `objects` (as a v1 List) at `now`, each shared, with
/// their root causes.
pub fn explain_at(
    objects: &[Value],
    now: Time,
) -> (
    Vec<std::sync::Arc<Finding>>,
    kube_lifecycle_exporter::diagnosis::RootCauses,
) {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
    let loaded = dump::load_str(&list.to_string()).expect("the test objects load");
    let findings =
        diagnosis::diagnose_until(&loaded.cluster, now, &diagnosis::Settings::default()).findings;
    let roots = diagnosis::RootCauses::of(&loaded.cluster, &findings);
    (findings, roots)
}

/// `(anomaly, cause)` of each finding, in order.
pub fn causes(findings: &[Finding]) -> Vec<(String, String)> {
    findings
        .iter()
        .map(|f| (f.anomaly().to_string(), f.cause.to_string()))
        .collect()
}

/// The single finding about `name`, failing if there is not exactly one.
pub fn only<'a>(findings: &'a [Finding], name: &str) -> &'a Finding {
    let matching: Vec<&Finding> = findings.iter().filter(|f| f.name == name).collect();
    assert_eq!(matching.len(), 1, "findings for {name}: {findings:#?}");
    matching[0]
}

pub fn ready_node(name: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("uid-{name}"),
                     "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
        "spec": {},
        "status": {"conditions": [
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory"},
            {"type": "Ready", "status": "True", "reason": "KubeletReady",
             "message": "kubelet is posting ready status", "lastTransitionTime": "2024-01-01T00:00:00Z"}]}
    })
}

pub fn lost_node(name: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("uid-{name}"), "labels": {"kubernetes.io/hostname": name}},
        "spec": {"taints": [
            {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": "2024-06-01T10:00:00Z"},
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2024-06-01T10:00:05Z"}]},
        "status": {"conditions": [
            {"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
             "message": "Kubelet stopped posting node status.",
             "lastHeartbeatTime": "2024-06-01T09:59:20Z", "lastTransitionTime": "2024-06-01T10:00:00Z"}]}
    })
}

/// A running pod on `node`, one container `app`, owned by `owner` (kind, name, uid) if given.
pub fn running_pod(
    namespace: &str,
    name: &str,
    node: &str,
    owner: Option<(&str, &str, &str)>,
) -> Value {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": format!("uid-{name}"),
                     "creationTimestamp": "2024-06-01T08:00:00Z",
                     "labels": {"app": "demo"},
                     "managedFields": [{"manager": "kube-controller-manager", "operation": "Update"}]},
        "spec": {"nodeName": node, "terminationGracePeriodSeconds": 30,
                 "containers": [{"name": "app", "image": "registry.example.com/demo/app:1.0",
                                 "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Running", "startTime": "2024-06-01T08:00:00Z",
                   "conditions": [
                       {"type": "Initialized", "status": "True"},
                       {"type": "Ready", "status": "True", "lastTransitionTime": "2024-06-01T08:00:10Z"},
                       {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-06-01T08:00:00Z"}],
                   "containerStatuses": [{"name": "app", "image": "registry.example.com/demo/app:1.0",
                                          "ready": true, "restartCount": 0, "started": true,
                                          "state": {"running": {"startedAt": "2024-06-01T08:00:05Z"}}}]}
    });
    if let Some((kind, owner_name, uid)) = owner {
        pod["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": kind, "name": owner_name,
                                                      "uid": uid, "controller": true, "blockOwnerDeletion": true}]);
    }
    pod
}

/// Marks a pod as deleted at `requested` with `grace` seconds: deletionTimestamp is the deadline.
pub fn deleted(mut pod: Value, requested: &str, grace: i64) -> Value {
    let requested: Time = requested.parse().unwrap();
    let deadline = requested
        .checked_add(jiff::SignedDuration::from_secs(grace))
        .unwrap();
    pod["metadata"]["deletionTimestamp"] = json!(deadline.to_string());
    pod["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
    pod
}

/// Replaces the first container's state with a terminated one.
pub fn containers_exited(mut pod: Value) -> Value {
    pod["status"]["containerStatuses"][0]["state"] = json!({"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": "2024-06-01T11:00:20Z"}});
    pod["status"]["containerStatuses"][0]["ready"] = json!(false);
    pod
}

static EVENT_SERIAL: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0x17a0_0000);

/// A kubelet warning event about a pod (and container, if given).
pub fn warning(
    pod: &Value,
    reason: &str,
    message: &str,
    container: Option<&str>,
    last: &str,
) -> Value {
    let meta = &pod["metadata"];
    let mut involved = json!({"apiVersion": "v1", "kind": "Pod", "name": meta["name"],
                              "namespace": meta["namespace"], "uid": meta["uid"]});
    if let Some(c) = container {
        involved["fieldPath"] = json!(format!("spec.containers{{{c}}}"));
    }
    json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{}.{:x}", meta["name"].as_str().unwrap(),
                                     EVENT_SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed)),
                     "namespace": meta["namespace"]},
        "involvedObject": involved,
        "reason": reason, "message": message, "type": "Warning",
        "source": {"component": "kubelet", "host": pod["spec"]["nodeName"]},
        "firstTimestamp": last, "lastTimestamp": last, "count": 1, "eventTime": null
    })
}
