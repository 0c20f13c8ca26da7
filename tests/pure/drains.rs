//! Nodes that cannot drain (`node_drain_blocked`): a cordoned node, or one an
//! autoscaler drains, whose pods a PodDisruptionBudget, a missing controller
//! or a stuck deletion keeps; the autoscalers' own words where the model
//! holds no reason. Messages are the ones posted in public issues (the URL
//! at each); object shapes are what `kubectl get -o json` and the watch print.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{
    Anomaly, Cause, Detail, DrainCause, DrainDetail, Finding, Runbook,
};
use serde_json::{Value, json};

/// A Ready node cordoned by `kubectl cordon` at `at` (its managedFields
/// entry, as the watch carries it).
fn cordoned(name: &str, at: &str) -> Value {
    let mut node = ready_node(name);
    node["metadata"]["managedFields"] = json!([
        {"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
         "time": "2024-05-01T08:00:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:status": {"f:conditions": {}}}},
        {"manager": "kubectl-cordon", "operation": "Update", "apiVersion": "v1",
         "time": at, "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:unschedulable": {}}}}]);
    node["spec"] = json!({"unschedulable": true, "taints": [
        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": null}]});
    node
}

fn stateful_set(namespace: &str, name: &str, replicas: i32) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": namespace, "uid": format!("uid-{name}")},
        "spec": {"replicas": replicas, "serviceName": name,
                 "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "app", "image": "postgres:16"}]}}},
        "status": {"replicas": replicas, "readyReplicas": replicas, "currentReplicas": replicas,
                   "updatedReplicas": replicas, "availableReplicas": replicas}})
}

/// A Deployment's ReplicaSet whose pods carry `app: <deployment>` and its hash.
fn replica_set(namespace: &str, deployment: &str, hash: &str, replicas: i32) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": format!("{deployment}-{hash}"), "namespace": namespace,
                     "uid": format!("uid-{deployment}-{hash}"),
                     "labels": {"app": deployment, "pod-template-hash": hash},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                          "name": deployment, "uid": format!("uid-{deployment}"),
                                          "controller": true}]},
        "spec": {"replicas": replicas,
                 "selector": {"matchLabels": {"app": deployment, "pod-template-hash": hash}},
                 "template": {"metadata": {"labels": {"app": deployment, "pod-template-hash": hash}},
                              "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}},
        "status": {"replicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas}})
}

/// A budget as `kubectl get pdb -o json` prints it once the disruption
/// controller has synced it.
fn budget(namespace: &str, name: &str, rule: Value, app: &str, status: [i32; 4]) -> Value {
    let [allowed, healthy, desired, expected] = status;
    let mut spec = rule;
    spec["selector"] = json!({"matchLabels": {"app": app}});
    let condition = if allowed > 0 {
        json!({"type": "DisruptionAllowed", "status": "True", "reason": "SufficientPods",
               "message": "", "lastTransitionTime": "2024-06-01T08:00:00Z", "observedGeneration": 1})
    } else {
        json!({"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods",
               "message": "", "lastTransitionTime": "2024-06-01T08:00:00Z", "observedGeneration": 1})
    };
    json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace, "uid": format!("uid-pdb-{name}"),
                     "generation": 1},
        "spec": spec,
        "status": {"observedGeneration": 1, "disruptionsAllowed": allowed,
                   "currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected,
                   "conditions": [condition]}})
}

fn node_event(node: &str, reason: &str, message: &str, component: &str, first: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{node}.{reason}"), "namespace": "default"},
        "involvedObject": {"kind": "Node", "name": node, "uid": format!("uid-{node}")},
        "reason": reason, "message": message, "type": "Warning",
        "source": {"component": component},
        "firstTimestamp": first, "lastTimestamp": "2024-06-01T11:59:00Z", "count": 12})
}

fn drain_findings(findings: &[Finding]) -> Vec<&Finding> {
    findings
        .iter()
        .filter(|f| f.anomaly() == Anomaly::NodeDrainBlocked)
        .collect()
}

fn only_drain(findings: &[Finding]) -> &Finding {
    let found = drain_findings(findings);
    assert_eq!(found.len(), 1, "{findings:#?}");
    found[0]
}

/// A database of three with `minAvailable: 3` (the shape of kured#82 and
/// eks-anywhere#5189: a budget as large as its workload) on the node being
/// drained for an upgrade, beside a DaemonSet's pod and a mirror pod, which
/// block nothing.
fn upgrade_blocked_by_a_budget() -> Vec<Value> {
    let mut mirror = running_pod(
        "kube-system",
        "kube-proxy-worker-2",
        "worker-2",
        Some(("Node", "worker-2", "uid-worker-2")),
    );
    mirror["metadata"]["annotations"] = json!({"kubernetes.io/config.mirror": "5b1c"});
    vec![
        cordoned("worker-2", "2024-06-01T11:30:00Z"),
        ready_node("worker-1"),
        stateful_set("shop", "db", 3),
        running_pod(
            "shop",
            "db-0",
            "worker-2",
            Some(("StatefulSet", "db", "uid-db")),
        ),
        running_pod(
            "shop",
            "db-1",
            "worker-1",
            Some(("StatefulSet", "db", "uid-db")),
        ),
        budget("shop", "db", json!({"minAvailable": 3}), "db", [0, 3, 3, 3]),
        running_pod(
            "kube-system",
            "fluent-bit-x7k2p",
            "worker-2",
            Some(("DaemonSet", "fluent-bit", "uid-fluent-bit")),
        ),
        mirror,
    ]
}

#[test]
fn a_budget_as_large_as_its_statefulset_blocks_the_drain_of_a_cordoned_node() {
    let findings = diagnose(&upgrade_blocked_by_a_budget());
    let f = only_drain(&findings);
    assert_eq!(f.name, "worker-2");
    assert_eq!(
        f.cause,
        Cause::NodeDrainBlocked(DrainCause::BudgetAllowsNone)
    );
    assert_eq!(f.runbook(), Runbook::NodeDrainBlocked);
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:30:00Z");
    assert_eq!(
        f.detail,
        Detail::Drain(Box::new(DrainDetail {
            pod: "shop/db-0".into(),
            blocking_pods: 1,
            budget: Some("db".into()),
        }))
    );
    assert_eq!(
        &*f.message,
        "1 pod on it cannot be evicted: shop/db-0 (PodDisruptionBudget db allows 0 disruptions: minAvailable 3 of 3 pods: it allows no disruption even when all are healthy)"
    );
}

/// The quiet case: the same budget where nothing drains is what
/// keeps the database up, not a finding; and a drain younger than
/// --drain-after (10 minutes) is a drain under way.
#[test]
fn a_budget_allowing_nothing_is_quiet_where_nothing_drains_or_the_drain_is_young() {
    let mut objects = upgrade_blocked_by_a_budget();
    objects[0] = ready_node("worker-2");
    assert!(drain_findings(&diagnose(&objects)).is_empty());
    let mut objects = upgrade_blocked_by_a_budget();
    objects[0] = cordoned("worker-2", "2024-06-01T11:55:00Z");
    assert!(drain_findings(&diagnose(&objects)).is_empty());
    // Ten minutes on, it is one.
    assert_eq!(
        drain_findings(&diagnose_at(&objects, "2024-06-01T12:05:00Z")).len(),
        1
    );
}

/// A budget that would allow one disruption, but one of its pods crash
/// loops on another node: the drain waits for it. With
/// `unhealthyPodEvictionPolicy: AlwaysAllow`, an unhealthy pod on the
/// node does not hold the drain.
#[test]
fn a_budget_short_of_healthy_pods_holds_the_drain_until_they_are_ready() {
    let web = |name: &str, node: &str| {
        running_pod(
            "shop",
            name,
            node,
            Some(("ReplicaSet", "web-7d9f8c6b5", "uid-web-7d9f8c6b5")),
        )
    };
    let objects = vec![
        cordoned("worker-2", "2024-06-01T11:00:00Z"),
        ready_node("worker-1"),
        replica_set("shop", "web", "7d9f8c6b5", 3),
        web("web-7d9f8c6b5-x2x4z", "worker-2"),
        web("web-7d9f8c6b5-a1b2c", "worker-1"),
        budget(
            "shop",
            "web",
            json!({"maxUnavailable": 1}),
            "web",
            [0, 2, 2, 3],
        ),
    ];
    let findings = diagnose(&objects);
    let f = only_drain(&findings);
    assert_eq!(
        f.cause,
        Cause::NodeDrainBlocked(DrainCause::BudgetPodsUnhealthy)
    );
    assert!(
        f.message.contains(
            "PodDisruptionBudget web allows 0 disruptions: maxUnavailable 1: 2 of 3 pods healthy, 2 needed"
        ),
        "{}",
        f.message
    );

    // The pod on the node is the unhealthy one, and the budget lets such
    // pods go.
    let mut objects = objects;
    objects[3]["status"]["conditions"][1]["status"] = json!("False");
    objects[5]["spec"]["unhealthyPodEvictionPolicy"] = json!("AlwaysAllow");
    let findings = diagnose(&objects);
    assert!(drain_findings(&findings).is_empty(), "{findings:#?}");
}

/// A pod run by hand (`kubectl run`) on the node: kubectl drain refuses it
/// without --force. Pods that finished and a budget that allows disruptions
/// block nothing.
#[test]
fn a_pod_of_no_controller_blocks_the_drain_and_finished_pods_do_not() {
    let mut done = running_pod(
        "batch",
        "report-28571520-abcde",
        "worker-2",
        Some(("Job", "report-28571520", "uid-job")),
    );
    done["status"]["phase"] = json!("Succeeded");
    let objects = vec![
        cordoned("worker-2", "2024-06-01T11:00:00Z"),
        replica_set("shop", "web", "7d9f8c6b5", 3),
        running_pod(
            "shop",
            "web-7d9f8c6b5-x2x4z",
            "worker-2",
            Some(("ReplicaSet", "web-7d9f8c6b5", "uid-web-7d9f8c6b5")),
        ),
        budget(
            "shop",
            "web",
            json!({"maxUnavailable": 1}),
            "web",
            [1, 3, 2, 3],
        ),
        running_pod("debug", "netshoot", "worker-2", None),
        done,
    ];
    let findings = diagnose(&objects);
    let f = only_drain(&findings);
    assert_eq!(f.cause, Cause::NodeDrainBlocked(DrainCause::UnmanagedPod));
    assert_eq!(
        f.detail,
        Detail::Drain(Box::new(DrainDetail {
            pod: "debug/netshoot".into(),
            blocking_pods: 1,
            budget: None,
        }))
    );
}

/// Two budgets over one pod: the eviction API answers 500 "This pod has
/// more than one PodDisruptionBudget, which the eviction subresource does
/// not support." (kubernetes/kubernetes#75957).
#[test]
fn a_pod_two_budgets_select_blocks_the_drain() {
    let mut objects = upgrade_blocked_by_a_budget();
    objects[5] = budget(
        "shop",
        "db",
        json!({"maxUnavailable": 1}),
        "db",
        [1, 3, 2, 3],
    );
    objects.push(budget(
        "shop",
        "db-quorum",
        json!({"minAvailable": 2}),
        "db",
        [1, 3, 2, 3],
    ));
    let findings = diagnose(&objects);
    let f = only_drain(&findings);
    assert_eq!(
        f.cause,
        Cause::NodeDrainBlocked(DrainCause::MultipleBudgets)
    );
    assert!(
        f.message
            .contains("covered by PodDisruptionBudgets db and db-quorum")
    );
}

/// A pod evicted by the drain and stuck Terminating past its grace period:
/// the drain waits for it.
#[test]
fn a_pod_stuck_terminating_holds_the_drain() {
    let objects = vec![
        cordoned("worker-2", "2024-06-01T11:00:00Z"),
        deleted(
            running_pod(
                "shop",
                "web-7d9f8c6b5-x2x4z",
                "worker-2",
                Some(("ReplicaSet", "web-7d9f8c6b5", "uid-web-7d9f8c6b5")),
            ),
            "2024-06-01T11:01:00Z",
            30,
        ),
    ];
    let findings = diagnose(&objects);
    let f = only_drain(&findings);
    assert_eq!(f.cause, Cause::NodeDrainBlocked(DrainCause::PodTerminating));
    // The pod has its own finding.
    assert!(
        findings
            .iter()
            .any(|f| f.anomaly() == Anomaly::PodTerminating && f.name == "web-7d9f8c6b5-x2x4z")
    );
}

/// Karpenter's FailedDraining, in the words of
/// aws/karpenter-provider-aws#2092: "Failed to drain node, pod
/// default/inflate-6b88c9fb68-cgmn2 has do-not-evict annotation". The node
/// carries Karpenter's taint (v0.3x), no cordon time: the warning dates it.
#[test]
fn karpenter_saying_a_pod_may_not_be_evicted_is_do_not_disrupt() {
    let mut node = ready_node("ip-192-168-98-239.us-east-2.compute.internal");
    node["spec"] = json!({"taints": [
        {"key": "karpenter.sh/disruption", "value": "disrupting", "effect": "NoSchedule"}]});
    node["metadata"]["uid"] = json!("uid-ip-192-168-98-239.us-east-2.compute.internal");
    let objects = vec![
        node,
        replica_set("default", "inflate", "6b88c9fb68", 1),
        running_pod(
            "default",
            "inflate-6b88c9fb68-cgmn2",
            "ip-192-168-98-239.us-east-2.compute.internal",
            Some(("ReplicaSet", "inflate-6b88c9fb68", "uid-inflate-6b88c9fb68")),
        ),
        node_event(
            "ip-192-168-98-239.us-east-2.compute.internal",
            "FailedDraining",
            "Failed to drain node, pod default/inflate-6b88c9fb68-cgmn2 has do-not-evict annotation",
            "karpenter",
            "2024-06-01T11:20:00Z",
        ),
    ];
    let findings = diagnose(&objects);
    let f = only_drain(&findings);
    assert_eq!(f.cause, Cause::NodeDrainBlocked(DrainCause::DoNotDisrupt));
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:20:00Z");
    assert!(
        f.message
            .starts_with("FailedDraining: Failed to drain node, pod")
    );
}

/// cluster-autoscaler's ScaleDownFailed, as posted in deckhouse/deckhouse#6098,
/// about a pod of a controller whose template the exporter does not hold:
/// the autoscaler's words are the cause's message. Its taint dates the
/// drain (the value is the Unix time it was added).
#[test]
fn cluster_autoscaler_saying_the_drain_failed_is_eviction_failing() {
    let mut node = ready_node("kube-system-e3d1bdf6-5d6bb-z7mss");
    node["spec"] = json!({"taints": [
        {"key": "ToBeDeletedByClusterAutoscaler", "value": "1717239600", "effect": "NoSchedule"}]});
    let objects = vec![
        node,
        running_pod(
            "d8-admission-policy-engine",
            "gatekeeper-controller-manager-66dcb4d846-vpw2d",
            "kube-system-e3d1bdf6-5d6bb-z7mss",
            Some((
                "ReplicaSet",
                "gatekeeper-controller-manager-66dcb4d846",
                "uid-gk",
            )),
        ),
        node_event(
            "kube-system-e3d1bdf6-5d6bb-z7mss",
            "ScaleDownFailed",
            "failed to drain and delete node: Failed to drain node /kube-system-e3d1bdf6-5d6bb-z7mss, due to following errors: [failed to evict pod d8-admission-policy-engine/gatekeeper-controller-manager-66dcb4d846-vpw2d within allowed timeout (last error: Cannot evict pod as it would violate the pod's disruption budget.)]",
            "cluster-autoscaler",
            "2024-06-01T11:45:00Z",
        ),
    ];
    let findings = diagnose(&objects);
    let f = only_drain(&findings);
    assert_eq!(
        f.cause,
        Cause::NodeDrainBlocked(DrainCause::EvictionFailing)
    );
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:00:00Z");
    assert!(f.message.contains("violate the pod's disruption budget"));
}

/// `kubectl get nodes -o json` leaves managedFields out: a cordoned node's
/// blocked drain is still a finding, of unknown age.
#[test]
fn a_dump_without_managed_fields_still_shows_the_blocked_drain() {
    let mut objects = upgrade_blocked_by_a_budget();
    objects[0]["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("managedFields");
    let findings = diagnose(&objects);
    let f = only_drain(&findings);
    assert_eq!(
        f.cause,
        Cause::NodeDrainBlocked(DrainCause::BudgetAllowsNone)
    );
    assert_eq!(f.since, None);
}
