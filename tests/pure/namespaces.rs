//! Why a namespace is still Terminating, from the namespace controller's conditions.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{Detail, NamespaceDetail};
use serde_json::{Value, json};

fn condition(type_: &str, status: &str, reason: &str, message: &str) -> Value {
    json!({"type": type_, "status": status, "reason": reason, "message": message,
           "lastTransitionTime": "2024-06-01T11:00:05Z"})
}

fn healthy_conditions() -> Vec<Value> {
    vec![
        condition(
            "NamespaceDeletionDiscoveryFailure",
            "False",
            "ResourcesDiscovered",
            "All resources successfully discovered",
        ),
        condition(
            "NamespaceDeletionGroupVersionParsingFailure",
            "False",
            "ParsedGroupVersions",
            "All legacy kube types successfully parsed",
        ),
        condition(
            "NamespaceDeletionContentFailure",
            "False",
            "ContentDeleted",
            "All content successfully deleted, may be waiting on finalization",
        ),
        condition(
            "NamespaceContentRemaining",
            "False",
            "ContentRemoved",
            "All content successfully removed",
        ),
        condition(
            "NamespaceFinalizersRemaining",
            "False",
            "ContentHasNoFinalizers",
            "All content-preserving finalizers finished",
        ),
    ]
}

fn terminating(name: &str, conditions: Vec<Value>, finalizers: &[&str]) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace",
           "metadata": {"name": name, "uid": format!("uid-{name}"), "creationTimestamp": "2023-01-01T00:00:00Z",
                        "deletionTimestamp": "2024-06-01T11:00:00Z",
                        "labels": {"kubernetes.io/metadata.name": name}},
           "spec": {"finalizers": finalizers},
           "status": {"phase": "Terminating", "conditions": conditions}})
}

fn replace(mut conditions: Vec<Value>, new: Value) -> Vec<Value> {
    for c in &mut conditions {
        if c["type"] == new["type"] {
            *c = new.clone();
        }
    }
    conditions
}

#[test]
fn remaining_finalizers_are_the_cause_and_are_counted() {
    let conditions = replace(
        replace(
            healthy_conditions(),
            condition(
                "NamespaceContentRemaining",
                "True",
                "SomeResourcesRemain",
                "Some resources are remaining: persistentvolumeclaims. has 1 resource instances, pods. has 2 resource instances",
            ),
        ),
        condition(
            "NamespaceFinalizersRemaining",
            "True",
            "SomeFinalizersRemain",
            "Some content in the namespace has finalizers remaining: kubernetes.io/pvc-protection in 1 resource instances, example.com/backup in 2 resource instances",
        ),
    );
    let findings = diagnose(&[terminating("legacy", conditions, &["kubernetes"])]);
    let f = only(&findings, "legacy");
    assert_eq!(f.cause.to_string(), "finalizers_remaining");
    assert_eq!(f.namespace, None);
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:00:00Z");
    match &f.detail {
        Detail::NamespaceContent(d) => {
            let NamespaceDetail {
                remaining_resources,
                remaining_finalizers,
                ..
            } = &**d;
            assert_eq!(remaining_resources.get("pods."), Some(&2));
            assert_eq!(remaining_resources.get("persistentvolumeclaims."), Some(&1));
            assert_eq!(
                remaining_finalizers.get("kubernetes.io/pvc-protection"),
                Some(&1)
            );
            assert_eq!(remaining_finalizers.get("example.com/backup"), Some(&2));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn content_still_being_deleted_is_content_remaining() {
    let conditions = replace(
        healthy_conditions(),
        condition(
            "NamespaceContentRemaining",
            "True",
            "SomeResourcesRemain",
            "Some resources are remaining: pods. has 3 resource instances",
        ),
    );
    let findings = diagnose(&[terminating("shop", conditions, &["kubernetes"])]);
    assert_eq!(
        only(&findings, "shop").cause.to_string(),
        "content_remaining"
    );
}

#[test]
fn an_unavailable_aggregated_api_is_discovery_failed() {
    let conditions = replace(
        healthy_conditions(),
        condition(
            "NamespaceDeletionDiscoveryFailure",
            "True",
            "DiscoveryFailed",
            "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
        ),
    );
    let findings = diagnose(&[terminating("monitoring", conditions, &["kubernetes"])]);
    let f = only(&findings, "monitoring");
    assert_eq!(f.cause.to_string(), "discovery_failed");
    assert!(f.message.contains("metrics.k8s.io/v1beta1"));
}

#[test]
fn failures_to_parse_or_delete_are_reported_as_such() {
    let parsing = replace(
        healthy_conditions(),
        condition(
            "NamespaceDeletionGroupVersionParsingFailure",
            "True",
            "GroupVersionParsingFailed",
            "some/bad/version",
        ),
    );
    let deletion = replace(
        healthy_conditions(),
        condition(
            "NamespaceDeletionContentFailure",
            "True",
            "ContentDeletionFailed",
            "Failed to delete all resource types, 1 remaining: Internal error occurred: error resolving resource",
        ),
    );
    let findings = diagnose(&[
        terminating("a", parsing, &["kubernetes"]),
        terminating("b", deletion, &["kubernetes"]),
    ]);
    assert_eq!(
        only(&findings, "a").cause.to_string(),
        "group_version_parsing_failed"
    );
    assert_eq!(
        only(&findings, "b").cause.to_string(),
        "content_deletion_failed"
    );
}

#[test]
fn an_empty_namespace_waiting_on_its_own_finalizer() {
    let findings = diagnose(&[terminating(
        "old",
        healthy_conditions(),
        &["kubernetes", "example.com/tenant"],
    )]);
    let f = only(&findings, "old");
    assert_eq!(f.cause.to_string(), "namespace_finalizer");
    assert_eq!(f.message, "spec.finalizers: kubernetes, example.com/tenant");
}

#[test]
fn no_conditions_and_no_finalizers_is_unknown() {
    let findings = diagnose(&[terminating("fresh", vec![], &[])]);
    assert_eq!(only(&findings, "fresh").cause.to_string(), "unknown");
}

#[test]
fn active_namespaces_give_nothing() {
    let active = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"},
                        "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
    assert!(diagnose(&[active]).is_empty());
}

fn namespaced_pod(namespace: &str, name: &str, node: &str) -> Value {
    let mut pod = running_pod(namespace, name, node, None);
    pod["metadata"]["namespace"] = json!(namespace);
    pod
}

/// Namespace deletion removes pods first (1.33+, KEP-5080): a pod stuck
/// Terminating on a lost node holds the namespace whatever its conditions say,
/// and the finding names it, its node and why; the node's alert covers it.
#[test]
fn a_namespace_held_by_pods_stuck_terminating_names_them() {
    let on_lost = deleted(
        namespaced_pod("team-x", "api-1", "gone-node"),
        "2024-06-01T11:05:00Z",
        30,
    );
    let mut held = deleted(
        namespaced_pod("team-x", "worker-1", "n1"),
        "2024-06-01T11:10:00Z",
        30,
    );
    held["metadata"]["finalizers"] = json!(["example.com/drain"]);
    held = containers_exited(held);
    // Still within its grace period: not stuck.
    let graceful = deleted(
        namespaced_pod("team-x", "web-1", "n1"),
        "2024-06-01T11:59:50Z",
        30,
    );
    // Conditions that say all is well (kubernetes/kubernetes#138208).
    let ns = terminating("team-x", healthy_conditions(), &["kubernetes"]);
    let findings = diagnose(&[
        ready_node("n1"),
        lost_node("gone-node"),
        ns,
        on_lost,
        held,
        graceful,
    ]);
    let f = only(&findings, "team-x");
    assert_eq!(f.cause.to_string(), "pods_terminating");
    assert_eq!(f.node.as_deref(), Some("gone-node"));
    assert!(
        f.message.starts_with("2 pods stuck Terminating past their deadlines: api-1 on node gone-node (node_not_ready), worker-1 on node n1 (finalizers)"),
        "{}",
        f.message
    );
    match &f.detail {
        Detail::NamespaceContent(d) => {
            let NamespaceDetail {
                terminating_pods,
                terminating_pods_total,
                ..
            } = &**d;
            assert_eq!(*terminating_pods_total, 2);
            assert_eq!(terminating_pods[0].name, "api-1");
        }
        other => panic!("{other:?}"),
    }
}

/// Discovery failures stop deletion outright: they stay the cause, pods or not.
#[test]
fn discovery_failure_outranks_the_pods() {
    let pod = deleted(
        namespaced_pod("team-y", "api-1", "n1"),
        "2024-06-01T11:05:00Z",
        30,
    );
    let conditions = replace(
        healthy_conditions(),
        condition(
            "NamespaceDeletionDiscoveryFailure",
            "True",
            "DiscoveryFailed",
            "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
        ),
    );
    let findings = diagnose(&[
        ready_node("n1"),
        terminating("team-y", conditions, &["kubernetes"]),
        pod,
    ]);
    let f = only(&findings, "team-y");
    assert_eq!(f.cause.to_string(), "discovery_failed");
    assert_eq!(f.node, None);
}

/// The namespace controller's own words (pkg/controller/namespace/deletion:
/// "Some content in the namespace has finalizers remaining:
/// kubernetes.io/pvc-protection in 1 resource instances") count the claims
/// that hold it; the finding names them, with their finalizers. A claim not
/// deleted, or deleted with no finalizer left, is not named.
#[test]
fn claims_held_by_finalizers_are_named() {
    let conditions = replace(
        healthy_conditions(),
        condition(
            "NamespaceFinalizersRemaining",
            "True",
            "SomeFinalizersRemain",
            "Some content in the namespace has finalizers remaining: kubernetes.io/pvc-protection in 1 resource instances, snapshot.storage.kubernetes.io/pvc-as-source-protection in 1 resource instances",
        ),
    );
    let claim = |name: &str, deleted: bool, finalizers: &[&str]| {
        let mut claim = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "legacy", "uid": format!("uid-{name}"),
                         "creationTimestamp": "2024-05-01T00:00:00Z", "finalizers": finalizers},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "gp3", "volumeName": format!("pvc-{name}"),
                     "resources": {"requests": {"storage": "8Gi"}}},
            "status": {"phase": "Bound", "capacity": {"storage": "8Gi"}}});
        if deleted {
            claim["metadata"]["deletionTimestamp"] = json!("2024-06-01T11:00:01Z");
        }
        claim
    };
    let findings = diagnose(&[
        terminating("legacy", conditions, &["kubernetes"]),
        claim("data-db-0", true, &["kubernetes.io/pvc-protection"]),
        claim(
            "restore-src",
            true,
            &["snapshot.storage.kubernetes.io/pvc-as-source-protection"],
        ),
        claim("cache", false, &["kubernetes.io/pvc-protection"]),
    ]);
    let f = findings
        .iter()
        .find(|f| f.name == "legacy")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert_eq!(f.cause.to_string(), "finalizers_remaining");
    assert!(
        f.message.ends_with(
            "; 2 PersistentVolumeClaims held by finalizers: data-db-0 (kubernetes.io/pvc-protection), restore-src (snapshot.storage.kubernetes.io/pvc-as-source-protection)"
        ),
        "{}",
        f.message
    );
}
