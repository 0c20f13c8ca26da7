//! Workloads blocked by their pods: Recreate Deployments, StatefulSets, DaemonSets.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{BlockedDetail, DaemonSetDetail, Detail};
use serde_json::{Value, json};

fn deployment(name: &str, strategy: &str, replicas: i64) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": name, "namespace": "cron", "uid": format!("uid-{name}"), "generation": 3},
           "spec": {"replicas": replicas, "strategy": {"type": strategy},
                    "selector": {"matchLabels": {"app": name}}},
           "status": {"observedGeneration": 3}})
}

fn replica_set(deployment: &str, name: &str, replicas: i64) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
           "metadata": {"name": name, "namespace": "cron", "uid": format!("uid-{name}"),
                        "annotations": {"deployment.kubernetes.io/revision": "2"},
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": deployment,
                                             "uid": format!("uid-{deployment}"), "controller": true,
                                             "blockOwnerDeletion": true}]},
           "spec": {"replicas": replicas}})
}

fn rs_pod(rs: &str, name: &str, node: &str) -> Value {
    running_pod(
        "cron",
        name,
        node,
        Some(("ReplicaSet", rs, &format!("uid-{rs}"))),
    )
}

/// seed 003: the node was powered off, its pods were marked for deletion, the
/// Deployment (Recreate) was re-rolled and nothing new was ever created.
#[test]
fn recreate_blocked_by_a_pod_on_a_powered_off_node() {
    let pod = deleted(
        rs_pod("crontab-7697bd68c9", "crontab-7697bd68c9-qx7tm", "n-off"),
        "2024-06-01T10:10:00Z",
        30,
    );
    let findings = diagnose(&[
        ready_node("n1"),
        lost_node("n-off"),
        deployment("crontab", "Recreate", 1),
        replica_set("crontab", "crontab-7697bd68c9", 0),
        pod,
    ]);
    let f = only(&findings, "crontab");
    assert_eq!(f.anomaly().as_str(), "recreate_blocked");
    assert_eq!(f.cause.to_string(), "node_not_ready");
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T10:10:00Z");
    // The blocking pod's node, so that the lost node's alert can inhibit this one.
    assert_eq!(f.node.as_deref(), Some("n-off"));
    assert_eq!(
        f.detail,
        Detail::Blocked(Box::new(BlockedDetail {
            blocking_pods: 1,
            oldest_pod: "crontab-7697bd68c9-qx7tm".into()
        }))
    );
    assert!(
        f.message.contains("Kubelet stopped posting node status."),
        "{}",
        f.message
    );
}

#[test]
fn a_recreate_rollout_in_progress_is_reported_as_graceful() {
    let pod = deleted(
        rs_pod("app-old", "app-old-abcde", "n1"),
        "2024-06-01T11:59:50Z",
        30,
    );
    let findings = diagnose(&[
        ready_node("n1"),
        deployment("app", "Recreate", 2),
        replica_set("app", "app-old", 0),
        replica_set("app", "app-new", 2),
        pod,
    ]);
    assert_eq!(only(&findings, "app").cause.to_string(), "graceful");
}

#[test]
fn the_blocking_count_covers_every_old_pod_and_the_cause_is_the_oldest_deletion() {
    let early = deleted(
        rs_pod("app-v1", "app-v1-aaaaa", "n-off"),
        "2024-06-01T09:00:00Z",
        30,
    );
    let mut late = containers_exited(deleted(
        rs_pod("app-v2", "app-v2-bbbbb", "n1"),
        "2024-06-01T11:00:00Z",
        30,
    ));
    late["metadata"]["finalizers"] = json!(["example.com/hold"]);
    let findings = diagnose(&[
        ready_node("n1"),
        lost_node("n-off"),
        deployment("app", "Recreate", 2),
        replica_set("app", "app-v1", 0),
        replica_set("app", "app-v2", 0),
        early,
        late,
    ]);
    let f = only(&findings, "app");
    assert_eq!(f.cause.to_string(), "node_not_ready");
    assert_eq!(
        f.detail,
        Detail::Blocked(Box::new(BlockedDetail {
            blocking_pods: 2,
            oldest_pod: "app-v1-aaaaa".into()
        }))
    );
}

#[test]
fn an_old_pod_not_even_being_deleted_is_not_deleted() {
    let findings = diagnose(&[
        ready_node("n1"),
        deployment("app", "Recreate", 1),
        replica_set("app", "app-old", 0),
        rs_pod("app-old", "app-old-abcde", "n1"),
    ]);
    assert_eq!(only(&findings, "app").cause.to_string(), "not_deleted");
}

#[test]
fn terminal_pods_do_not_block_and_a_finished_rollout_is_healthy() {
    let mut evicted = rs_pod("app-old", "app-old-evict", "n1");
    evicted["status"]["phase"] = json!("Failed");
    evicted["status"]["reason"] = json!("Evicted");
    let findings = diagnose(&[
        ready_node("n1"),
        deployment("app", "Recreate", 1),
        replica_set("app", "app-old", 0),
        replica_set("app", "app-new", 1),
        evicted,
        rs_pod("app-new", "app-new-xyz12", "n1"),
    ]);
    // The evicted pod is a finding of its own (pod_evicted), not a blocker.
    let workload: Vec<_> = findings
        .iter()
        .filter(|f| f.anomaly().as_str() != "pod_evicted")
        .collect();
    assert!(workload.is_empty(), "{findings:#?}");
    assert_eq!(findings.len(), 1, "{findings:#?}");
}

#[test]
fn a_new_replica_set_with_live_pods_means_the_rollout_moved_on() {
    let stuck = deleted(
        rs_pod("app-old", "app-old-abcde", "n-off"),
        "2024-06-01T10:00:00Z",
        30,
    );
    let findings = diagnose(&[
        ready_node("n1"),
        lost_node("n-off"),
        deployment("app", "Recreate", 1),
        replica_set("app", "app-old", 0),
        replica_set("app", "app-new", 1),
        stuck,
        rs_pod("app-new", "app-new-xyz12", "n1"),
    ]);
    assert_eq!(
        causes(&findings),
        [("pod_terminating".into(), "node_not_ready".into())]
    );
}

#[test]
fn rolling_update_deployments_are_never_recreate_blocked() {
    let stuck = deleted(
        rs_pod("web-1", "web-1-abcde", "n-off"),
        "2024-06-01T10:00:00Z",
        30,
    );
    let findings = diagnose(&[
        ready_node("n1"),
        lost_node("n-off"),
        deployment("web", "RollingUpdate", 1),
        replica_set("web", "web-1", 0),
        stuck,
    ]);
    assert_eq!(
        causes(&findings),
        [("pod_terminating".into(), "node_not_ready".into())]
    );
}

fn stateful_set(name: &str, replicas: i64) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": name, "namespace": "cron", "uid": format!("uid-{name}")},
           "spec": {"replicas": replicas, "serviceName": name, "podManagementPolicy": "OrderedReady"}})
}

fn sts_pod(set: &str, ordinal: u32, node: &str) -> Value {
    running_pod(
        "cron",
        &format!("{set}-{ordinal}"),
        node,
        Some(("StatefulSet", set, &format!("uid-{set}"))),
    )
}

#[test]
fn a_statefulset_ordinal_stuck_terminating_blocks_the_set() {
    let stuck = deleted(sts_pod("zookeeper", 0, "n1"), "2024-06-01T11:00:00Z", 30);
    let findings = diagnose(&[
        ready_node("n1"),
        stateful_set("zookeeper", 3),
        stuck,
        sts_pod("zookeeper", 1, "n1"),
        sts_pod("zookeeper", 2, "n1"),
    ]);
    let f = only(&findings, "zookeeper");
    assert_eq!(f.anomaly().as_str(), "statefulset_blocked");
    assert_eq!(f.cause.to_string(), "containers_running");
    assert_eq!(f.node.as_deref(), Some("n1"));
    assert_eq!(
        f.detail,
        Detail::Blocked(Box::new(BlockedDetail {
            blocking_pods: 1,
            oldest_pod: "zookeeper-0".into()
        }))
    );
}

#[test]
fn a_terminating_pod_above_the_wanted_replicas_blocks_nothing() {
    let leaving = deleted(sts_pod("web", 2, "n1"), "2024-06-01T11:00:00Z", 30);
    let findings = diagnose(&[
        ready_node("n1"),
        stateful_set("web", 2),
        sts_pod("web", 0, "n1"),
        sts_pod("web", 1, "n1"),
        leaving,
    ]);
    assert_eq!(
        causes(&findings),
        [("pod_terminating".into(), "containers_running".into())]
    );
}

fn daemon_set(name: &str, desired: i64, template: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
           "metadata": {"name": name, "namespace": "monitoring", "uid": format!("uid-{name}"),
                        "creationTimestamp": "2024-06-01T11:00:00Z"},
           "spec": {"selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}}, "spec": template}},
           "status": {"desiredNumberScheduled": desired, "currentNumberScheduled": desired,
                      "numberReady": desired, "numberMisscheduled": 0}})
}

fn exporter_template() -> Value {
    json!({"hostNetwork": true, "hostPID": true,
           "containers": [{"name": "node-exporter", "image": "quay.io/prometheus/node-exporter:v1.8.1",
                           "ports": [{"containerPort": 9100, "hostPort": 9100, "name": "metrics", "protocol": "TCP"}]}]})
}

fn ds_pod(set: &str, node: &str) -> Value {
    let mut pod = running_pod(
        "monitoring",
        &format!("{set}-{node}"),
        node,
        Some(("DaemonSet", set, &format!("uid-{set}"))),
    );
    pod["spec"]["hostNetwork"] = json!(true);
    pod["spec"]["containers"][0]["ports"] =
        json!([{"containerPort": 9100, "hostPort": 9100, "protocol": "TCP"}]);
    pod
}

/// seed 001: node_exporter already holds hostPort 9100 on every node; a second
/// DaemonSet on the same port gets DESIRED 0 and no error anywhere.
#[test]
fn a_second_daemonset_on_a_taken_host_port() {
    let findings = diagnose(&[
        ready_node("n1"),
        ready_node("n2"),
        daemon_set("node-exporter", 2, exporter_template()),
        ds_pod("node-exporter", "n1"),
        ds_pod("node-exporter", "n2"),
        daemon_set("my-prom-prometheus-node-exporter", 0, exporter_template()),
    ]);
    let f = only(&findings, "my-prom-prometheus-node-exporter");
    assert_eq!(f.cause.to_string(), "host_port_conflict");
    assert!(
        f.message
            .contains("hostPort 9100/TCP on node \"n1\" is held by monitoring/node-exporter-n1"),
        "{}",
        f.message
    );
    match &f.detail {
        Detail::DaemonSet(d) => {
            let DaemonSetDetail {
                eligible_nodes,
                missing_nodes,
                desired,
                conflicting_port,
            } = &**d;
            assert_eq!((*eligible_nodes, *missing_nodes, *desired), (2, 2, 0));
            assert_eq!(conflicting_port.as_ref().map(|p| p.port), Some(9100));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(findings.len(), 1, "{findings:#?}");
}

#[test]
fn daemon_pods_the_scheduler_cannot_place_for_ports_are_a_host_port_conflict() {
    let mut pending = ds_pod("agent", "n1");
    pending["spec"]["nodeName"] = json!(null);
    pending["status"] = json!({"phase": "Pending", "conditions": [{
        "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "lastTransitionTime": "2024-06-01T11:30:00Z",
        "message": "0/2 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."}]});
    let findings = diagnose(&[
        ready_node("n1"),
        ready_node("n2"),
        daemon_set("agent", 2, json!({})),
        ds_pod("agent", "n2"),
        pending,
    ]);
    let f = only(&findings, "agent");
    assert_eq!(f.cause.to_string(), "host_port_conflict");
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:30:00Z");
}

#[test]
fn a_daemonset_short_of_nodes_for_no_visible_reason_is_unknown() {
    let findings = diagnose(&[
        ready_node("n1"),
        ready_node("n2"),
        daemon_set("agent", 1, json!({})),
        ds_pod("agent", "n1"),
    ]);
    assert_eq!(only(&findings, "agent").cause.to_string(), "unknown");
}

#[test]
fn nodes_a_daemonset_may_not_use_are_not_counted() {
    let mut master = ready_node("master-1");
    master["spec"]["taints"] =
        json!([{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]);
    let selective = daemon_set("gpu-agent", 0, json!({"nodeSelector": {"gpu": "true"}}));
    let findings = diagnose(&[
        master,
        ready_node("n1"),
        lost_node("n-off"),
        daemon_set("agent", 1, json!({})),
        ds_pod("agent", "n1"),
        selective,
    ]);
    assert!(findings.is_empty(), "{findings:#?}");
}

fn job(name: &str, spec: Value, status: Value) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": name, "namespace": "cron", "uid": format!("uid-{name}")},
           "spec": spec, "status": status})
}

fn job_pod(job: &str, name: &str, node: &str) -> Value {
    let mut pod = running_pod("cron", name, node, None);
    pod["metadata"]["ownerReferences"] = json!([{"apiVersion": "batch/v1", "kind": "Job", "name": job,
        "uid": format!("uid-{job}"), "controller": true, "blockOwnerDeletion": true}]);
    pod
}

/// podReplacementPolicy Failed (required by a podFailurePolicy): no replacement
/// until the Terminating pod is gone; the finding names it, its node and why.
#[test]
fn a_job_that_replaces_only_gone_pods_waits_for_its_terminating_pod() {
    let pod = deleted(
        job_pod("export", "export-8xq2d", "lost-1"),
        "2024-06-01T11:00:00Z",
        30,
    );
    let spec = json!({"completions": 1, "parallelism": 1,
        "podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]},
        "podReplacementPolicy": "Failed"});
    let findings = diagnose(&[
        lost_node("lost-1"),
        job(
            "export",
            spec.clone(),
            json!({"active": 0, "terminating": 1}),
        ),
        pod.clone(),
    ]);
    let f = only(&findings, "export");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string().as_str()),
        ("job_blocked", "node_not_ready")
    );
    assert_eq!(f.node.as_deref(), Some("lost-1"));
    assert!(f.message.contains("export-8xq2d"), "{}", f.message);

    // The default policy replaces a Terminating pod at once: nothing waits.
    let mut default = spec;
    default.as_object_mut().unwrap().remove("podFailurePolicy");
    default
        .as_object_mut()
        .unwrap()
        .remove("podReplacementPolicy");
    let findings = diagnose(&[
        lost_node("lost-1"),
        job("export", default, json!({"active": 0, "terminating": 1})),
        pod,
    ]);
    assert!(
        !findings
            .iter()
            .any(|f| f.anomaly().as_str() == "job_blocked"),
        "{findings:#?}"
    );
}

/// A Job whose outcome is decided (FailureTarget, SuccessCriteriaMet, 1.31+)
/// is written Failed or Complete only once its pods are gone.
#[test]
fn a_decided_job_waits_for_its_pods_to_write_its_outcome() {
    let mut pod = deleted(job_pod("etl", "etl-x1", "n1"), "2024-06-01T11:00:00Z", 30);
    pod["metadata"]["finalizers"] = json!(["example.com/keep"]);
    let pod = containers_exited(pod);
    let status = json!({"active": 0, "failed": 7, "terminating": 1, "conditions": [
        {"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded",
         "message": "Job has reached the specified backoff limit"}]});
    let findings = diagnose(&[
        ready_node("n1"),
        job("etl", json!({"backoffLimit": 6}), status),
        pod.clone(),
    ]);
    let f = only(&findings, "etl");
    assert_eq!(f.cause.to_string(), "finalizers");
    // Written Failed: the Job waits for nothing (its verdict is that it failed).
    let done = json!({"active": 0, "failed": 7, "conditions": [
        {"type": "FailureTarget", "status": "True"}, {"type": "Failed", "status": "True"}]});
    let findings = diagnose(&[ready_node("n1"), job("etl", json!({}), done), pod]);
    assert!(
        !findings
            .iter()
            .any(|f| f.name == "etl" && f.anomaly().as_str() == "job_blocked"),
        "{findings:#?}"
    );
    assert_eq!(only(&findings, "etl").anomaly().as_str(), "job_failed");
}

/// podReplacementPolicy TerminationComplete (KEP-3973): a rolling Deployment
/// short of available pods waits for its Terminating ones.
#[test]
fn a_deployment_that_waits_for_terminating_pods_is_blocked_by_them() {
    let mut d = deployment("web", "RollingUpdate", 2);
    d["metadata"]["namespace"] = json!("cron");
    d["spec"]["podReplacementPolicy"] = json!("TerminationComplete");
    d["status"] = json!({"availableReplicas": 1, "terminatingReplicas": 1});
    let old = deleted(
        rs_pod("web-1", "web-1-a", "lost-1"),
        "2024-06-01T11:00:00Z",
        30,
    );
    let objects = [
        lost_node("lost-1"),
        ready_node("n1"),
        d.clone(),
        replica_set("web", "web-1", 2),
        old.clone(),
        rs_pod("web-1", "web-1-b", "n1"),
    ];
    let findings = diagnose(&objects);
    let f = only(&findings, "web");
    assert_eq!(
        (f.anomaly().as_str(), f.cause.to_string().as_str()),
        ("recreate_blocked", "node_not_ready")
    );
    // The default policy does not wait.
    let mut default = d;
    default["spec"]
        .as_object_mut()
        .unwrap()
        .remove("podReplacementPolicy");
    let findings = diagnose(&[
        lost_node("lost-1"),
        ready_node("n1"),
        default,
        replica_set("web", "web-1", 2),
        old,
        rs_pod("web-1", "web-1-b", "n1"),
    ]);
    assert!(!findings.iter().any(|f| f.name == "web"), "{findings:#?}");
}
