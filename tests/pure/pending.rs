//! Why a pod is Pending: the scheduler's reasons, a scheduler that never acts,
//! scheduling gates.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{Detail, PendingCause, PendingDetail};
use serde_json::{Value, json};

fn unscheduled(name: &str, message: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
                        "creationTimestamp": "2024-06-01T11:00:00Z"},
           "spec": {"containers": [{"name": "app", "image": "nginx"}], "schedulerName": "default-scheduler"},
           "status": {"phase": "Pending", "qosClass": "Burstable", "conditions": [
               {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": message, "lastTransitionTime": "2024-06-01T11:00:02Z"}]}})
}

fn reasons(objects: &[Value], name: &str) -> (String, Vec<(String, u32)>, Option<u32>) {
    let findings = diagnose(objects);
    let f = only(&findings, name);
    match &f.detail {
        Detail::Pending(d) => {
            let PendingDetail {
                reasons,
                nodes_total,
                ..
            } = &**d;
            (
                f.cause.to_string(),
                reasons.iter().map(|(r, n)| (r.to_string(), *n)).collect(),
                *nodes_total,
            )
        }
        other => panic!("{other:?}"),
    }
}

/// seed 001: `0/4 nodes are available: 2 Insufficient cpu.`
#[test]
fn insufficient_cpu() {
    let (cause, r, total) = reasons(
        &[unscheduled(
            "p",
            "0/4 nodes are available: 2 Insufficient cpu.",
        )],
        "p",
    );
    assert_eq!(cause, "insufficient_cpu");
    assert_eq!(r, [("insufficient_cpu".into(), 2)]);
    assert_eq!(total, Some(4));
}

/// seed 001: the old predicate form, max-pods reached on every node.
#[test]
fn max_pods_in_the_old_predicate_form() {
    let (cause, r, total) = reasons(
        &[unscheduled(
            "p",
            "No nodes are available that match all of the predicates: Insufficient pods (3).",
        )],
        "p",
    );
    assert_eq!(cause, "insufficient_pods");
    assert_eq!(r, [("insufficient_pods".into(), 3)]);
    assert_eq!(total, None);
}

#[test]
fn the_reason_with_most_nodes_wins_and_the_preemption_tail_is_ignored() {
    let message = "0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient memory, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 3 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.";
    let (cause, r, total) = reasons(&[unscheduled("p", message)], "p");
    // The 3 nodes its own selector excludes are set aside (issue 46): of the
    // others, memory stops it on most.
    assert_eq!(cause, "insufficient_memory");
    assert_eq!(
        r,
        [
            ("insufficient_memory".into(), 2),
            ("node_affinity".into(), 3),
            ("taint".into(), 1)
        ]
    );
    assert_eq!(total, Some(6));
}

#[test]
fn the_old_taint_wording_with_a_comma_inside_is_one_reason() {
    let message = "0/3 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate, 2 Insufficient cpu.";
    let (_, r, _) = reasons(&[unscheduled("p", message)], "p");
    assert_eq!(r, [("insufficient_cpu".into(), 2), ("taint".into(), 1)]);
}

#[test]
fn a_reason_without_a_count_applies_to_every_node() {
    let message = "0/3 nodes are available: persistentvolumeclaim \"data-mysql-0\" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
    let (cause, r, _) = reasons(&[unscheduled("p", message)], "p");
    assert_eq!(cause, "pvc_not_found");
    assert_eq!(r, [("pvc_not_found".into(), 3)]);
}

#[test]
fn node_controller_taints_count_as_node_states_not_taints() {
    let message = "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 node(s) had untolerated taint {node.kubernetes.io/unschedulable: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
    let (cause, r, _) = reasons(&[unscheduled("p", message)], "p");
    assert_eq!(cause, "node_unschedulable");
    assert_eq!(
        r,
        [
            ("node_unschedulable".into(), 2),
            ("node_not_ready".into(), 1)
        ]
    );
}

#[test]
fn ties_go_to_the_earlier_reason_of_the_vocabulary() {
    let message = "0/4 nodes are available: 2 node(s) didn't have free ports for the requested pod ports, 2 Insufficient cpu.";
    let (cause, _, _) = reasons(&[unscheduled("p", message)], "p");
    assert_eq!(cause, "insufficient_cpu");
}

#[test]
fn an_unparseable_message_is_other_and_kept() {
    let findings = diagnose(&[unscheduled(
        "p",
        "running PreFilter plugin \"VolumeBinding\": some new failure",
    )]);
    let f = only(&findings, "p");
    assert_eq!(f.cause.to_string(), "volume_binding");
    let findings = diagnose(&[unscheduled(
        "q",
        "something the scheduler never said before",
    )]);
    let f = only(&findings, "q");
    assert_eq!(f.cause.to_string(), "other");
    assert_eq!(f.message, "something the scheduler never said before");
}

/// seed 001: `12s (x6 over 27s)`: the scheduler retries, and a scheduler that
/// rewrites the PodScheduled condition on each attempt moves its
/// lastTransitionTime to the last one. The pod has been pending since it was
/// created, not since the last attempt, or "pending for 15 minutes" never fires.
#[test]
fn pending_since_creation_when_the_condition_is_rewritten_later() {
    let mut pod = unscheduled("retried", "0/4 nodes are available: 2 Insufficient cpu.");
    pod["status"]["conditions"][0]["lastTransitionTime"] = json!("2024-06-01T11:59:30Z");
    let findings = diagnose(&[pod.clone()]);
    let f = only(&findings, "retried");
    assert_eq!(f.cause.to_string(), "insufficient_cpu");
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:00:00Z");
    // Without a creationTimestamp the condition's time is all there is.
    pod["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("creationTimestamp");
    let findings = diagnose(&[pod]);
    assert_eq!(
        only(&findings, "retried").since.unwrap().to_string(),
        "2024-06-01T11:59:30Z"
    );
}

/// seed 001: kube-scheduler is down: no PodScheduled condition at all.
#[test]
fn no_scheduler_acting_is_not_scheduled_after_a_while() {
    let mut pod = unscheduled("batch", "");
    pod["status"] = json!({"phase": "Pending", "qosClass": "BestEffort"});
    // Created 11:00, now 12:00: an hour with no scheduler.
    let findings = diagnose(&[pod.clone()]);
    let f = only(&findings, "batch");
    assert_eq!(f.cause.to_string(), "not_scheduled");
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:00:00Z");
    assert!(f.message.contains("1h"), "{}", f.message);
    // Two minutes after creation it is simply new.
    assert!(diagnose_at(&[pod], "2024-06-01T11:02:00Z").is_empty());
}

/// A schedulerName nothing serves (a typo, a scheduler not installed) is one pod
/// spec's mistake, not a scheduler down: default-scheduler and any scheduler a
/// bound pod names are served.
#[test]
fn a_scheduler_nothing_serves_is_unknown_scheduler() {
    let pending = |name: &str, scheduler: &str| {
        let mut pod = unscheduled(name, "");
        pod["status"] = json!({"phase": "Pending"});
        if !scheduler.is_empty() {
            pod["spec"]["schedulerName"] = json!(scheduler);
        }
        pod
    };
    let mut bound_by_volcano = running_pod("batch", "trainer-0", "n1", None);
    bound_by_volcano["spec"]["schedulerName"] = json!("volcano");
    let findings = diagnose(&[
        ready_node("n1"),
        bound_by_volcano,
        pending("typo", "defualt-scheduler"),
        pending("volcano-job", "volcano"),
        pending("default", "default-scheduler"),
        pending("unset", ""),
    ]);
    let cause = |name: &str| only(&findings, name).cause.to_string();
    assert_eq!(cause("typo"), "unknown_scheduler");
    assert!(
        only(&findings, "typo")
            .message
            .contains("\"defualt-scheduler\""),
        "{}",
        only(&findings, "typo").message
    );
    assert_eq!(cause("volcano-job"), "not_scheduled");
    assert_eq!(cause("default"), "not_scheduled");
    assert_eq!(cause("unset"), "not_scheduled");
    // Without a pod bound by volcano, nothing in the cluster serves it.
    let alone = diagnose(&[ready_node("n1"), pending("volcano-job", "volcano")]);
    assert_eq!(
        only(&alone, "volcano-job").cause.to_string(),
        "unknown_scheduler"
    );
}

#[test]
fn scheduling_gates_are_reported_as_informational() {
    let mut pod = unscheduled("gated", "");
    pod["spec"]["schedulingGates"] = json!([{"name": "example.com/quota"}]);
    pod["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
                                         "message": "Scheduling is blocked due to non-empty scheduling gates"}]);
    // Held for 20 minutes: under --gated-after (tests/pure/new_states.rs: past it).
    let findings = diagnose_at(&[pod], "2024-06-01T11:20:00Z");
    let f = only(&findings, "gated");
    assert_eq!(f.cause.to_string(), "scheduling_gated");
    assert_eq!(f.message, "spec.schedulingGates: example.com/quota");
}

#[test]
fn scheduled_pods_are_not_pending_findings() {
    let findings = diagnose(&[ready_node("n1"), running_pod("default", "web", "n1", None)]);
    assert!(findings.is_empty());
}

#[test]
fn counts_that_add_past_the_integer_range_saturate() {
    // Found by tests/fuzz_model.rs: a reason repeated with huge counts.
    let reasons = kube_lifecycle_exporter::diagnosis::classify::scheduler_reasons(
        "0/5 nodes are available: 4294967295 Insufficient cpu, 4294967295 Insufficient cpu.",
    );
    assert_eq!(
        reasons.reasons.get(&PendingCause::InsufficientCpu),
        Some(&u32::MAX)
    );
}

fn pressured_node(name: &str, taint: &str) -> Value {
    let mut node = ready_node(name);
    node["spec"]["taints"] =
        json!([{"key": taint, "effect": "NoSchedule", "timeAdded": "2024-06-01T10:00:00Z"}]);
    node
}

/// A node under pressure is Ready: the cause is the pressure, never a lost node,
/// and the finding names the nodes that carry its taint.
#[test]
fn node_pressure_is_named_with_its_nodes() {
    let objects = [
        ready_node("n1"),
        pressured_node("ci-1", "node.kubernetes.io/disk-pressure"),
        pressured_node("ci-2", "node.kubernetes.io/disk-pressure"),
        // snowdrop/k8s-infra#249's wording, counted for this cluster
        unscheduled(
            "p",
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had taint {node.kubernetes.io/disk-pressure: }, that the pod didn't tolerate.",
        ),
    ];
    let findings = diagnose(&objects);
    let f = only(&findings, "p");
    assert_eq!(f.cause.to_string(), "node_disk_pressure");
    assert_eq!(
        f.runbook().alert(),
        "KubeLifecycleNodesUnderPressure",
        "pressure has its own runbook"
    );
    match &f.detail {
        Detail::Pending(d) => {
            let PendingDetail {
                pressured_nodes, ..
            } = &**d;
            assert_eq!(pressured_nodes, &["ci-1", "ci-2"])
        }
        other => panic!("{other:?}"),
    }
}

/// Schedulers before 1.18 and since 1.35 (and 1.34 patches) do not name the
/// taint (kubernetes/kubernetes#134740): the nodes that carry a pressure
/// taint tell which, and what is left stays `taint`.
#[test]
fn an_unnamed_taint_is_read_from_the_nodes_that_carry_one() {
    // kubernetes-sigs/node-readiness-controller#164: the 1.35 wording, here
    // for three nodes: two under memory pressure, one dedicated to others.
    let newest = "0/3 nodes are available: 3 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
    let objects = [
        pressured_node("n1", "node.kubernetes.io/memory-pressure"),
        pressured_node("n2", "node.kubernetes.io/memory-pressure"),
        pressured_node("n3", "dedicated"),
        unscheduled("p", newest),
    ];
    let (cause, r, _) = reasons(&objects, "p");
    assert_eq!(cause, "node_memory_pressure");
    assert_eq!(
        r,
        [
            ("taint".to_string(), 1),
            ("node_memory_pressure".to_string(), 2)
        ]
    );
    // k3d-io/k3d#18: the ≤1.17 wording, both nodes under disk pressure.
    let oldest = "0/2 nodes are available: 2 node(s) had taints that the pod didn't tolerate.";
    let objects = [
        pressured_node("a", "node.kubernetes.io/disk-pressure"),
        pressured_node("b", "node.kubernetes.io/disk-pressure"),
        unscheduled("q", oldest),
    ];
    let (cause, r, _) = reasons(&objects, "q");
    assert_eq!(cause, "node_disk_pressure");
    assert_eq!(r, [("node_disk_pressure".to_string(), 2)]);
    // No pressured node: the taint is someone else's.
    let (cause, ..) = reasons(
        &[pressured_node("n1", "dedicated"), unscheduled("r", newest)],
        "r",
    );
    assert_eq!(cause, "taint");
}

/// `count` Ready nodes labelled `pool=<pool>`, each with the NoSchedule
/// `taint` if one is given.
fn pool(prefix: &str, pool: &str, count: usize, taint: Option<&str>) -> Vec<Value> {
    (0..count)
        .map(|i| {
            let mut node = ready_node(&format!("{prefix}-{i}"));
            node["metadata"]["labels"]["pool"] = json!(pool);
            if let Some(taint) = taint {
                node["spec"]["taints"] = json!([{"key": taint, "effect": "NoSchedule",
                                                 "timeAdded": "2024-06-01T10:00:00Z"}]);
            }
            node
        })
        .collect()
}

fn asking_for(mut pod: Value, pool: &str) -> Value {
    pod["spec"]["nodeSelector"] = json!({"pool": pool});
    pod
}

/// Issue 46's example: the nodes the pod's own selector excludes are not why
/// it waits; its one eligible node is under memory pressure, and that node
/// (not every pressured node of the cluster) is named. Whether the tainted
/// node is eligible the nodes tell: the scheduler counts a node under the
/// first filter it fails, and its taint filter runs before node affinity.
#[test]
fn the_cause_is_what_stops_the_pod_on_the_nodes_it_may_use() {
    let message = "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }, 2 node(s) didn't match Pod's node affinity/selector";
    let mut objects = pool(
        "batch",
        "batch",
        1,
        Some("node.kubernetes.io/memory-pressure"),
    );
    objects.extend(pool("web", "web", 2, None));
    objects.push(asking_for(unscheduled("p", message), "batch"));
    let findings = diagnose(&objects);
    let f = only(&findings, "p");
    assert_eq!(f.cause.to_string(), "node_memory_pressure");
    match &f.detail {
        Detail::Pending(d) => {
            let PendingDetail {
                pressured_nodes,
                reasons,
                ..
            } = &**d;
            assert_eq!(pressured_nodes, &["batch-0"]);
            assert_eq!(reasons.get(&PendingCause::NodeAffinity), Some(&2));
        }
        other => panic!("{other:?}"),
    }
    // The pressured node is not one it asks for: no node admits it.
    let mut objects = pool(
        "batch",
        "batch",
        1,
        Some("node.kubernetes.io/memory-pressure"),
    );
    objects.extend(pool("web", "web", 2, None));
    objects.push(asking_for(unscheduled("p", message), "gpu"));
    assert_eq!(
        only(&diagnose(&objects), "p").cause.to_string(),
        "node_affinity"
    );
    // Without the nodes, the message alone: the nodes its selector excluded
    // are set aside, and the others' reason is the cause.
    let alone = [asking_for(unscheduled("p", message), "batch")];
    assert_eq!(
        only(&diagnose(&alone), "p").cause.to_string(),
        "node_memory_pressure"
    );
    // The selector's mismatch alone: no node admits it.
    let alone = [asking_for(
        unscheduled(
            "p",
            "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
        ),
        "batch",
    )];
    assert_eq!(
        only(&diagnose(&alone), "p").cause.to_string(),
        "node_affinity"
    );
}

/// A filter that runs before node affinity (taints) counts nodes the pod's
/// selector excludes as well: with the nodes listed, it counts only on the
/// nodes the pod may use. The masters carry the taint and are not the
/// `es` nodes; the `es` nodes lack cpu.
#[test]
fn a_taint_on_nodes_the_pod_may_not_use_is_not_its_cause() {
    // https://github.com/raffaelespazzoli/openshift-enablement-exam/pull/22
    let message = "0/8 nodes are available: 2 Insufficient cpu, 3 node(s) had taints that the pod didn't tolerate, 5 node(s) didn't match node selector.";
    let mut objects = pool(
        "master",
        "master",
        3,
        Some("node-role.kubernetes.io/master"),
    );
    objects.extend(pool("worker", "app", 3, None));
    objects.extend(pool("es", "es", 2, None));
    objects.push(asking_for(unscheduled("p", message), "es"));
    assert_eq!(
        only(&diagnose(&objects), "p").cause.to_string(),
        "insufficient_cpu"
    );
}

/// Real messages where the pod's own selector excluded most nodes, with
/// nodes shaped to match them: the cause is what stops it on the rest.
#[test]
fn real_messages_read_on_the_nodes_the_pod_may_use() {
    let cordoned = {
        let mut nodes = pool(
            "ingress",
            "ingress",
            3,
            Some("node.kubernetes.io/unschedulable"),
        );
        for node in &mut nodes {
            node["spec"]["unschedulable"] = json!(true);
        }
        nodes
    };
    for (source, message, own, others, cause) in [
        (
            "https://github.com/mysticaltech/terraform-hcloud-kube-hetzner/issues/1604",
            "0/14 nodes are available: 11 node(s) didn't match Pod's node affinity/selector, 3 node(s) were unschedulable. preemption: 0/14 nodes are available: 14 Preemption is not helpful for scheduling.",
            cordoned,
            pool("worker", "worker", 11, None),
            "node_unschedulable",
        ),
        (
            "https://github.com/kiwix/operations/issues/245",
            "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.",
            pool("storage", "ingress", 1, None),
            pool("worker", "worker", 4, None),
            "insufficient_cpu",
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/66568",
            "0/6 nodes are available: 3 node(s) didn't have free ports for the requested pod ports, 3 node(s) didn't match node selector.",
            pool("edge", "ingress", 3, None),
            pool("worker", "worker", 3, None),
            "host_port",
        ),
    ] {
        let mut objects = own;
        objects.extend(others);
        objects.push(asking_for(unscheduled("p", message), "ingress"));
        assert_eq!(
            only(&diagnose(&objects), "p").cause.to_string(),
            cause,
            "{source}"
        );
    }
}
