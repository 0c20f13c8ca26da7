//! Every real message of the container families, replayed on the production
//! pod: the same pod and events with a completed init container, with a
//! running native sidecar, and with the failing container as an init
//! container (tests/common/shapes.rs says how the kubelet reports each). The
//! anomaly, the cause and the container must be the same as on the plain pod,
//! and the finding must say when the container is an init container.

use crate::common;

use common::real_rows;
use common::shapes::{Shape, reshape};
use common::*;
use kube_lifecycle_exporter::diagnosis::Finding;
use kube_lifecycle_exporter::model::ContainerKind;
use serde_json::{Value, json};

const IMAGE: &str = "registry.example.com/demo/app:1.0";

/// The app container of a pod on n1 waiting with `reason` and `message`.
fn waiting_pod(name: &str, reason: &str, message: &str) -> Value {
    let mut pod = running_pod("shop", name, "n1", None);
    pod["status"]["phase"] = json!("Pending");
    pod["status"]["conditions"][1] = json!({"type": "Ready", "status": "False",
        "reason": "ContainersNotReady", "message": "containers with unready status: [app]",
        "lastTransitionTime": "2024-06-01T08:00:10Z"});
    let mut waiting = json!({"reason": reason});
    if !message.is_empty() {
        waiting["message"] = json!(message);
    }
    pod["status"]["containerStatuses"][0] = json!({"name": "app", "image": IMAGE,
        "ready": false, "restartCount": 0, "started": false, "state": {"waiting": waiting}});
    pod
}

/// `(anomaly, cause, container, container kind)` of the pod's findings.
fn seen(
    findings: &[Finding],
    pod: &str,
) -> Vec<(String, String, Option<String>, Option<ContainerKind>)> {
    findings
        .iter()
        .filter(|f| f.name == pod)
        .map(|f| {
            (
                f.anomaly().to_string(),
                f.cause.to_string(),
                f.container.as_deref().map(str::to_string),
                f.container_kind,
            )
        })
        .collect()
}

/// Replays one case on every shape; returns what differs from the plain pod.
fn replay(case: &str, objects: &[Value], pod: &str) -> Vec<String> {
    let plain = seen(&diagnose(objects), pod);
    let mut wrong = Vec::new();
    if plain.is_empty() {
        wrong.push(format!("{case}: no finding on the plain pod"));
    }
    for shape in Shape::ALL {
        let got = seen(&diagnose(&reshape(objects, pod, shape)), pod);
        // The same anomaly, cause and container; the container kind says init
        // when the failing container is one.
        let expected: Vec<_> = plain
            .iter()
            .map(|(a, c, name, kind)| {
                let kind = match (shape, name) {
                    (Shape::FailingAsInit, Some(_)) => Some(ContainerKind::Init),
                    _ => *kind,
                };
                (a.clone(), c.clone(), name.clone(), kind)
            })
            .collect();
        if got != expected {
            wrong.push(format!(
                "{case} [{shape:?}]: expected {expected:?}, got {got:?}"
            ));
        }
    }
    wrong
}

fn report(family: &str, cases: usize, wrong: Vec<String>) {
    assert!(
        wrong.is_empty(),
        "{family}: {} of {} replays differ from the plain pod:\n{}",
        wrong.len(),
        cases * Shape::ALL.len(),
        wrong.join("\n")
    );
}

#[test]
fn image_pull_messages_on_every_pod_shape() {
    let rows = real_rows::image_pull::ROWS
        .iter()
        .chain(real_rows::image_pull_wordings::ROWS);
    let mut wrong = Vec::new();
    let mut cases = 0;
    for (i, (source, message, _)) in rows.enumerate() {
        // ErrImagePull carries the error itself.
        let name = format!("pull-{i}");
        let pod = waiting_pod(&name, "ErrImagePull", message);
        wrong.extend(replay(source, &[ready_node("n1"), pod], &name));
        // ImagePullBackOff says nothing: the kubelet's Failed event does.
        let name = format!("backoff-{i}");
        let pod = waiting_pod(
            &name,
            "ImagePullBackOff",
            &format!("Back-off pulling image \"{IMAGE}\""),
        );
        let failed = warning(
            &pod,
            "Failed",
            &format!("Failed to pull image \"{IMAGE}\": {message}"),
            Some("app"),
            "2024-06-01T11:50:00Z",
        );
        wrong.extend(replay(source, &[ready_node("n1"), pod, failed], &name));
        cases += 2;
    }
    report("image_pull", cases, wrong);
}

#[test]
fn container_creating_messages_on_every_pod_shape() {
    let mut wrong = Vec::new();
    for (i, (source, reason, message, _)) in real_rows::creating::ROWS.iter().enumerate() {
        let name = format!("creating-{i}");
        let pod = waiting_pod(&name, "ContainerCreating", "");
        let event = warning(&pod, reason, message, None, "2024-06-01T11:50:00Z");
        wrong.extend(replay(source, &[ready_node("n1"), pod, event], &name));
    }
    report("container_creating", real_rows::creating::ROWS.len(), wrong);
}

#[test]
fn container_config_messages_on_every_pod_shape() {
    let rows = real_rows::config::ROWS
        .iter()
        .chain(real_rows::config_wordings::ROWS);
    let mut wrong = Vec::new();
    let mut cases = 0;
    for (i, (source, message, _)) in rows.enumerate() {
        let name = format!("config-{i}");
        let pod = waiting_pod(&name, "CreateContainerConfigError", message);
        let failed = warning(
            &pod,
            "Failed",
            &format!("Error: {message}"),
            Some("app"),
            "2024-06-01T11:50:00Z",
        );
        wrong.extend(replay(source, &[ready_node("n1"), pod, failed], &name));
        cases += 1;
    }
    report("container_config", cases, wrong);
}

#[test]
fn crash_loop_terminations_on_every_pod_shape() {
    let mut wrong = Vec::new();
    for (i, (source, reason, exit_code, message, _)) in
        real_rows::terminations::ROWS.iter().enumerate()
    {
        let name = format!("crash-{i}");
        let mut pod = waiting_pod(
            &name,
            "CrashLoopBackOff",
            "back-off 5m0s restarting failed container=app pod=x",
        );
        pod["status"]["containerStatuses"][0]["restartCount"] = json!(12);
        pod["status"]["containerStatuses"][0]["lastState"] = json!({"terminated": {
            "reason": reason, "exitCode": exit_code, "message": message,
            "startedAt": "2024-06-01T11:40:00Z", "finishedAt": "2024-06-01T11:41:00Z"}});
        wrong.extend(replay(source, &[ready_node("n1"), pod], &name));
    }
    report("crash_loop", real_rows::terminations::ROWS.len(), wrong);
}
