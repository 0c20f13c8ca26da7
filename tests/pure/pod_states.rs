//! Never "nothing is stuck" when something is: every state the kubelet, the
//! scheduler and the API server can leave a pod in, held past its threshold,
//! gets a finding: the family that explains it, or `pod_stuck` with cause
//! `unknown` when none does. A healthy pod gets none, and a pod that has not
//! waited long yet gets no `pod_stuck`.
//!
//! The waiting reasons are the kubelet's own (pkg/kubelet/kubelet_pods.go,
//! pkg/kubelet/container/sync_result.go, pkg/kubelet/images/types.go,
//! pkg/kubelet/kuberuntime/kuberuntime_container.go, the CRI errors of
//! staging/src/k8s.io/cri-api/pkg/errors), and two no kubelet writes today (an
//! empty one, a future one), to prove the net holds.

use crate::common;

use common::*;
use serde_json::{Value, json};

/// Every waiting reason a container status can carry.
const WAITING_REASONS: &[&str] = &[
    "ContainerCreating",
    "PodInitializing",
    "CrashLoopBackOff",
    "ErrImagePull",
    "ImagePullBackOff",
    "ImageInspectError",
    "ErrImageNeverPull",
    "InvalidImageName",
    "RegistryUnavailable",
    "SignatureValidationFailed",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "PreCreateHookError",
    "PreStartHookError",
    "PostStartHookError",
    "RestartingAllContainers",
    "",
    "SomeFutureReason",
];

/// A pod of `node` (or none), created and scheduled two hours before NOW.
fn pod(name: &str, node: Option<&str>, phase: &str) -> Value {
    let mut pod = running_pod("shop", name, node.unwrap_or(""), None);
    pod["metadata"]["creationTimestamp"] = json!("2024-06-01T10:00:00Z");
    pod["status"]["startTime"] = json!("2024-06-01T10:00:00Z");
    pod["status"]["phase"] = json!(phase);
    pod["status"]["conditions"] = json!([
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-06-01T10:00:00Z"},
        {"type": "Ready", "status": "False", "reason": "ContainersNotReady",
         "message": "containers with unready status: [app]", "lastTransitionTime": "2024-06-01T10:00:00Z"}]);
    if node.is_none() {
        pod["spec"].as_object_mut().unwrap().remove("nodeName");
    }
    pod
}

fn waiting(reason: &str) -> Value {
    let mut waiting = json!({"message": "as the kubelet said it"});
    if !reason.is_empty() {
        waiting["reason"] = json!(reason);
    }
    json!({"waiting": waiting})
}

fn status(name: &str, state: Value) -> Value {
    json!({"name": name, "image": "registry.example.com/demo/app:1.0", "ready": false,
           "restartCount": 0, "started": false, "state": state,
           "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
               "startedAt": "2024-06-01T11:50:00Z", "finishedAt": "2024-06-01T11:51:00Z"}}})
}

/// Every pod state, by name, as a cluster dump.
fn states() -> Vec<(String, Vec<Value>)> {
    let mut states: Vec<(String, Vec<Value>)> = Vec::new();
    let mut add = |name: &str, objects: Vec<Value>| states.push((name.to_string(), objects));

    // Not bound to a node.
    let mut p = pod("unbound-no-condition", None, "Pending");
    p["status"]["conditions"] = json!([]);
    add("unbound-no-condition", vec![p]);
    let mut p = pod("unbound-unschedulable", None, "Pending");
    p["status"]["conditions"][0] = json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": "0/3 nodes are available: 3 Insufficient cpu.", "lastTransitionTime": "2024-06-01T10:00:00Z"});
    add("unbound-unschedulable", vec![p]);
    let mut p = pod("unbound-gated", None, "Pending");
    p["spec"]["schedulingGates"] = json!([{"name": "kueue.x-k8s.io/admission"}]);
    p["status"]["conditions"][0] = json!({"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
        "message": "Scheduling is blocked due to non-empty scheduling gates"});
    add("unbound-gated", vec![p]);
    // The scheduler said yes and the binding never landed.
    add(
        "unbound-scheduled",
        vec![pod("unbound-scheduled", None, "Pending")],
    );

    // Bound, nothing reported yet.
    let mut p = pod("bound-no-status", Some("n1"), "Pending");
    p["status"]["containerStatuses"] = json!([]);
    add("bound-no-status", vec![ready_node("n1"), p]);

    // Every waiting reason, on the app container and on an init container.
    for reason in WAITING_REASONS {
        let label = if reason.is_empty() { "empty" } else { reason };
        let name = format!("app-{}", label.to_lowercase());
        let mut p = pod(&name, Some("n1"), "Pending");
        p["status"]["containerStatuses"] = json!([status("app", waiting(reason))]);
        add(&name, vec![ready_node("n1"), p]);

        let name = format!("init-{}", label.to_lowercase());
        let mut p = pod(&name, Some("n1"), "Pending");
        p["spec"]["initContainers"] = json!([{"name": "setup", "image": "busybox:1.36"}]);
        p["status"]["initContainerStatuses"] = json!([status("setup", waiting(reason))]);
        p["status"]["containerStatuses"] = json!([status("app", waiting("PodInitializing"))]);
        add(&name, vec![ready_node("n1"), p]);

        // The same, running: a sidecar of the app that waits.
        let name = format!("running-{}", label.to_lowercase());
        let mut p = pod(&name, Some("n1"), "Running");
        p["status"]["containerStatuses"] = json!([
            status(
                "app",
                json!({"running": {"startedAt": "2024-06-01T10:00:05Z"}})
            ),
            status("helper", waiting(reason))
        ]);
        add(&name, vec![ready_node("n1"), p]);
    }

    // An init container that runs and never ends; a sidecar that never starts.
    let mut p = pod("init-running", Some("n1"), "Pending");
    p["spec"]["initContainers"] = json!([{"name": "wait-for-db", "image": "busybox:1.36"}]);
    p["status"]["initContainerStatuses"] = json!([status(
        "wait-for-db",
        json!({"running": {"startedAt": "2024-06-01T10:00:05Z"}})
    )]);
    p["status"]["containerStatuses"] = json!([status("app", waiting("PodInitializing"))]);
    add("init-running", vec![ready_node("n1"), p]);
    let mut p = pod("sidecar-not-started", Some("n1"), "Pending");
    p["spec"]["initContainers"] = json!([{"name": "istio-proxy", "image": "istio/proxyv2:1.24.0", "restartPolicy": "Always"}]);
    p["status"]["initContainerStatuses"] = json!([status(
        "istio-proxy",
        json!({"running": {"startedAt": "2024-06-01T10:00:05Z"}})
    )]);
    p["status"]["containerStatuses"] = json!([status("app", waiting("PodInitializing"))]);
    add("sidecar-not-started", vec![ready_node("n1"), p]);
    // An init container that failed and waits to be restarted.
    let mut p = pod("init-terminated", Some("n1"), "Pending");
    p["spec"]["initContainers"] = json!([{"name": "migrate", "image": "busybox:1.36"}]);
    p["status"]["initContainerStatuses"] = json!([status(
        "migrate",
        json!({"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": "2024-06-01T10:01:00Z"}})
    )]);
    p["status"]["containerStatuses"] = json!([status("app", waiting("PodInitializing"))]);
    add("init-terminated", vec![ready_node("n1"), p]);

    // Running and not Ready: no probe event, a readiness gate, no reason at all.
    let mut p = pod("running-not-ready", Some("n1"), "Running");
    p["status"]["containerStatuses"] = json!([status(
        "app",
        json!({"running": {"startedAt": "2024-06-01T10:00:05Z"}})
    )]);
    add("running-not-ready", vec![ready_node("n1"), p]);
    let mut p = pod("running-gate", Some("n1"), "Running");
    p["status"]["conditions"][1] = json!({"type": "Ready", "status": "False", "reason": "ReadinessGatesNotReady",
        "message": "corresponding condition of pod readiness gate \"target-health.elbv2.k8s.aws/web\" does not exist.",
        "lastTransitionTime": "2024-06-01T10:00:00Z"});
    add("running-gate", vec![ready_node("n1"), p]);
    let mut p = pod("running-ready-unknown", Some("n1"), "Running");
    p["status"]["conditions"][1] =
        json!({"type": "Ready", "status": "Unknown", "lastTransitionTime": "2024-06-01T10:00:00Z"});
    add("running-ready-unknown", vec![ready_node("n1"), p]);
    // Phase Unknown: its node stopped reporting (not deleted yet).
    let mut p = pod("phase-unknown", Some("lost"), "Unknown");
    p["status"]["conditions"][1] = json!({"type": "Ready", "status": "False", "reason": "NodeLost",
        "lastTransitionTime": "2024-06-01T10:00:00Z"});
    add("phase-unknown", vec![lost_node("lost"), p]);
    // Being deleted, past its deadline.
    let p = deleted(
        pod("terminating", Some("n1"), "Running"),
        "2024-06-01T11:00:00Z",
        30,
    );
    add("terminating", vec![ready_node("n1"), p]);
    states
}

#[test]
fn every_pod_state_held_past_its_threshold_has_a_finding() {
    let mut silent = Vec::new();
    let mut unexplained = Vec::new();
    let states = states();
    for (name, objects) in &states {
        let findings = diagnose(objects);
        let about: Vec<_> = findings.iter().filter(|f| f.name == *name).collect();
        if about.is_empty() {
            silent.push(name.clone());
        }
        if about.iter().any(|f| f.anomaly().as_str() == "pod_stuck") {
            unexplained.push(name.clone());
        }
    }
    assert!(
        silent.is_empty(),
        "{} of {} stuck pod states got no finding: {silent:?}",
        silent.len(),
        states.len()
    );
    // What the families do not know is said to be unknown, and only that.
    unexplained.sort();
    assert_eq!(
        unexplained,
        [
            "app-restartingallcontainers",
            "app-somefuturereason",
            "init-restartingallcontainers",
            "init-somefuturereason",
            "init-terminated",
            "phase-unknown",
            "running-restartingallcontainers",
            "running-somefuturereason",
            "unbound-scheduled",
        ]
    );
}

#[test]
fn a_stuck_pod_s_finding_says_what_the_pod_shows() {
    let (_, objects) = states()
        .into_iter()
        .find(|(n, _)| n == "running-somefuturereason")
        .unwrap();
    let findings = diagnose(&objects);
    let f = only(&findings, "running-somefuturereason");
    assert_eq!(f.cause.to_string(), "unknown");
    assert_eq!(f.node.as_deref(), Some("n1"));
    assert!(
        f.message
            .contains(r#"app "helper" waits (SomeFutureReason)"#),
        "{}",
        f.message
    );
    match &f.detail {
        kube_lifecycle_exporter::diagnosis::Detail::Stuck(d) => {
            let kube_lifecycle_exporter::diagnosis::StuckDetail {
                phase, conditions, ..
            } = &**d;
            assert_eq!(*phase, "Running");
            assert!(
                conditions.contains(&"Ready=False (ContainersNotReady)".to_string()),
                "{conditions:?}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_pod_that_has_not_waited_long_is_not_stuck_yet() {
    // Two minutes old: under every threshold.
    for (name, objects) in states() {
        let findings = diagnose_at(&objects, "2024-06-01T10:02:00Z");
        assert!(
            !findings
                .iter()
                .any(|f| f.name == name && f.anomaly().as_str() == "pod_stuck"),
            "{name}: {findings:#?}"
        );
    }
}

#[test]
fn a_healthy_pod_is_not_stuck() {
    let objects = [ready_node("n1"), running_pod("shop", "web", "n1", None)];
    assert!(diagnose(&objects).is_empty());
}
