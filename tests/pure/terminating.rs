//! Why a pod is Terminating: every cause, from real-shaped objects.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{Detail, TerminatingCause};
use serde_json::json;

fn cause_of(objects: &[serde_json::Value], pod: &str) -> String {
    only(&diagnose(objects), pod).cause.to_string()
}

#[test]
fn within_the_grace_period_is_graceful_and_since_is_the_request_time() {
    // Deleted at 11:59:40 with 30 s grace: deadline 12:00:10, after NOW (12:00:00).
    let pod = deleted(
        running_pod("shop", "web-1", "n1", None),
        "2024-06-01T11:59:40Z",
        30,
    );
    let findings = diagnose(&[ready_node("n1"), pod]);
    let f = only(&findings, "web-1");
    assert_eq!(f.cause.to_string(), TerminatingCause::Graceful.as_str());
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:59:40Z");
    match &f.detail {
        Detail::Terminating {
            requested,
            deadline,
        } => {
            assert_eq!(requested.to_string(), "2024-06-01T11:59:40Z");
            assert_eq!(deadline.to_string(), "2024-06-01T12:00:10Z");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(f.node.as_deref(), Some("n1"));
}

#[test]
fn a_lost_node_explains_a_pod_past_its_deadline() {
    let pod = deleted(
        running_pod("shop", "web-1", "n1", None),
        "2024-06-01T10:05:00Z",
        30,
    );
    let findings = diagnose(&[lost_node("n1"), pod]);
    let f = only(&findings, "web-1");
    assert_eq!(f.cause.to_string(), "node_not_ready");
    assert_eq!(
        f.message,
        "node \"n1\": Kubelet stopped posting node status."
    );
}

#[test]
fn a_node_that_no_longer_exists_is_node_missing_but_only_when_nodes_were_listed() {
    let pod = deleted(
        running_pod("shop", "web-1", "gone-node", None),
        "2024-06-01T10:05:00Z",
        30,
    );
    assert_eq!(
        cause_of(&[ready_node("n1"), pod.clone()], "web-1"),
        "node_missing"
    );
    // A dump of pods only says nothing about nodes: the running container decides.
    assert_eq!(cause_of(&[pod], "web-1"), "containers_running");
}

#[test]
fn a_container_still_running_past_the_deadline_means_the_runtime_does_not_stop_it() {
    let pod = deleted(
        running_pod("zk", "zookeeper-0", "n1", None),
        "2024-06-01T11:00:00Z",
        30,
    );
    assert_eq!(
        cause_of(&[ready_node("n1"), pod], "zookeeper-0"),
        "containers_running"
    );
}

/// seed 002: kubelet log `StopContainer "ff32…" from runtime service failed: rpc error:
/// code = Unknown desc = operation timeout: context deadline exceeded`; the kubelet
/// reports it as a FailedKillPod event.
#[test]
fn a_failed_kill_event_confirms_containers_running_with_its_message() {
    let pod = containers_exited(deleted(
        running_pod("zk", "zookeeper-0", "n1", None),
        "2024-06-01T11:00:00Z",
        30,
    ));
    let event = warning(
        &pod,
        "FailedKillPod",
        r#"error killing pod: failed to "KillContainer" for "zookeeper" with KillContainerError: "rpc error: code = Unknown desc = operation timeout: context deadline exceeded""#,
        None,
        "2024-06-01T11:02:00Z",
    );
    let findings = diagnose(&[ready_node("n1"), pod, event]);
    let f = only(&findings, "zookeeper-0");
    assert_eq!(f.cause.to_string(), "containers_running");
    assert!(f.message.contains("KillContainerError"));
}

#[test]
fn a_kill_failure_from_before_this_deletion_does_not_count() {
    let pod = containers_exited(deleted(
        running_pod("zk", "zookeeper-0", "n1", None),
        "2024-06-01T11:00:00Z",
        30,
    ));
    let stale = warning(
        &pod,
        "FailedKillPod",
        r#"error killing pod: failed to "KillContainer" for "zookeeper""#,
        None,
        "2024-05-20T08:00:00Z",
    );
    assert_eq!(
        cause_of(&[ready_node("n1"), pod, stale], "zookeeper-0"),
        "cleanup_pending"
    );
}

#[test]
fn finalizers_hold_a_pod_whose_containers_are_gone() {
    let mut pod = containers_exited(deleted(
        running_pod("shop", "web-1", "n1", None),
        "2024-06-01T11:00:00Z",
        30,
    ));
    pod["metadata"]["finalizers"] = json!(["foregroundDeletion", "example.com/audit"]);
    let findings = diagnose(&[ready_node("n1"), pod]);
    let f = only(&findings, "web-1");
    assert_eq!(f.cause.to_string(), "finalizers");
    assert_eq!(
        f.message,
        "finalizers: foregroundDeletion, example.com/audit"
    );
}

/// seed 000: containers gone, no finalizer, the object stays because the glusterfs
/// volume cannot be unmounted; the events showed nothing unusual.
#[test]
fn no_container_running_and_no_finalizer_is_cleanup_pending() {
    let pod = containers_exited(deleted(
        running_pod("cam", "cam1-78b6fc6bc8-cjsw5", "n1", None),
        "2024-06-01T11:00:00Z",
        60,
    ));
    assert_eq!(
        cause_of(&[ready_node("n1"), pod], "cam1-78b6fc6bc8-cjsw5"),
        "cleanup_pending"
    );
}

#[test]
fn an_unmount_failure_event_is_cleanup_pending_even_with_finalizers() {
    let mut pod = containers_exited(deleted(
        running_pod("ci", "runner-0", "n1", None),
        "2024-06-01T11:00:00Z",
        30,
    ));
    pod["metadata"]["finalizers"] = json!(["example.com/cleanup"]);
    let event = warning(
        &pod,
        "FailedMount",
        r#"UnmountVolume.TearDown failed for volume "filebeat-config" (UniqueName: "kubernetes.io/configmap/c74b89dd-filebeat-config") pod "c74b89dd" (UID: "c74b89dd") : error cleaning subPath mounts for volume "filebeat-config": remove /var/lib/kubelet/pods/c74b89dd/volume-subpaths/filebeat-config/filebeat/1: device or resource busy"#,
        None,
        "2024-06-01T11:01:00Z",
    );
    let findings = diagnose(&[ready_node("n1"), pod, event]);
    let f = only(&findings, "runner-0");
    assert_eq!(f.cause.to_string(), "cleanup_pending");
    assert!(f.message.contains("device or resource busy"));
}

#[test]
fn a_pod_never_bound_to_a_node_is_unknown() {
    let mut pod = deleted(
        running_pod("shop", "web-1", "", None),
        "2024-06-01T11:00:00Z",
        30,
    );
    pod["status"] = json!({"phase": "Pending"});
    assert_eq!(cause_of(&[ready_node("n1"), pod], "web-1"), "unknown");
}

#[test]
fn the_deadline_is_not_the_request_time() {
    // Deleted 10 minutes ago with a one-hour grace period: still graceful.
    let pod = deleted(
        running_pod("db", "pg-0", "n1", None),
        "2024-06-01T11:50:00Z",
        3600,
    );
    assert_eq!(cause_of(&[ready_node("n1"), pod], "pg-0"), "graceful");
}

#[test]
fn terminating_pods_are_not_also_reported_as_pending_or_crash_looping() {
    let mut pod = deleted(
        running_pod("shop", "web-1", "n1", None),
        "2024-06-01T11:00:00Z",
        30,
    );
    pod["status"]["containerStatuses"][0]["state"] = json!({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}});
    let findings = diagnose(&[ready_node("n1"), pod]);
    assert_eq!(
        causes(&findings),
        [("pod_terminating".into(), "cleanup_pending".into())]
    );
}

#[test]
fn healthy_pods_give_nothing() {
    let findings = diagnose(&[ready_node("n1"), running_pod("shop", "web-1", "n1", None)]);
    assert!(findings.is_empty(), "{findings:#?}");
}
