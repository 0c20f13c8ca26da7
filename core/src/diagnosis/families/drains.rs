//! `node_drain_blocked`: a node being emptied (cordoned, or tainted by an
//! autoscaler that drains it) past `--drain-after` whose pods a drain cannot
//! evict.
//!
//! A drain (`kubectl drain`, cluster-autoscaler's scale-down, Karpenter's
//! termination, a managed node group's upgrade) evicts each pod through the
//! eviction API, which refuses while the pod's PodDisruptionBudget has
//! `status.disruptionsAllowed: 0` (429), and refuses a pod covered by two
//! budgets outright (pkg/registry/core/pod/storage/eviction.go). A running
//! pod that is not Ready is evicted anyway under `unhealthyPodEvictionPolicy:
//! AlwaysAllow`, or while its budget is healthy; a Pending pod, a finished
//! one or one being deleted is never held by a budget. `kubectl drain`
//! refuses pods of no controller without `--force`; DaemonSet pods and
//! mirror pods are left where they are by every drainer and block nothing.
//!
//! The model keeps no pod labels: the pods a budget covers are told by the
//! labels their controller gives them (its template's; a StatefulSet adds
//! each pod's name). A pod of a controller whose template is not held (a
//! custom resource) is judged by what the autoscalers say of the node
//! (cluster-autoscaler's `ScaleDownFailed`, Karpenter's `FailedDraining`).
//!
//! A budget that allows no disruption on a node nobody drains is nothing:
//! only a node being emptied is judged. Emptied since the write of its
//! cordon (managedFields, which the watch carries and `kubectl get -o json`
//! leaves out) or cluster-autoscaler's taint; with neither, the autoscalers'
//! first warning; with no time at all, judged at once.

use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, since};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::wording::count;
use crate::diagnosis::{Anomaly, Cause, Detail, DrainDetail, Finding, Input};
use crate::model::{
    Cluster, Event, Kind, Labels, Node, ObjectKey, Pod, PodDisruptionBudget, PodPhase, Time,
};

use super::pod_finding::{first_seen, object_finding};
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why a node being emptied keeps pods a drain cannot evict (anomaly `node_drain_blocked`).
    pub enum DrainCause {
        BudgetAllowsNone = "budget_allows_none": "A PodDisruptionBudget covering a pod on the node allows no disruption even with every pod it covers healthy (maxUnavailable 0, or minAvailable all of them): no eviction of its pods can succeed until the budget changes.",
        BudgetPodsUnhealthy = "budget_pods_unhealthy": "A PodDisruptionBudget covering a pod on the node allows no disruption now because pods it covers are not healthy (currentHealthy at or below desiredHealthy); its unhealthy pods hold the drain until they are Ready.",
        MultipleBudgets = "multiple_budgets": "A pod on the node is covered by more than one PodDisruptionBudget, which the eviction API refuses outright (\"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.\").",
        DoNotDisrupt = "do_not_disrupt": "Karpenter will not evict a pod on the node: its karpenter.sh/do-not-disrupt (before v1, do-not-evict) annotation (FailedDraining: \"... has do-not-evict annotation\").",
        UnmanagedPod = "unmanaged_pod": "A pod on the node has no controller: kubectl drain refuses it without --force (\"cannot delete Pods that declare no controller\"), and nothing would recreate it elsewhere.",
        PodTerminating = "pod_terminating" [quiet]: "A pod on the node was evicted or deleted and is still there past its grace period: the drain waits for it to be gone. Not alerted: the pod's own pod_terminating alert says why, and one incident makes one notification.",
        EvictionFailing = "eviction_failing": "An autoscaler says draining the node fails (cluster-autoscaler's ScaleDownFailed, Karpenter's FailedDraining) and the model shows none of the causes above (a budget over pods of a controller it does not hold, say); its words are the message.",
    }
}

impl PodsVerdict for DrainCause {
    // About a node, not a pod.
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

family!("drains": NodeDrainBlocked);

const METRICS: &[MetricFamily] = &[MetricFamily {
    name: "kube_lifecycle_node_drain_blocked_since_timestamp_seconds",
    help: "Unix time a node being drained (cordoned, or tainted by an autoscaler draining it) began to be emptied, while pods on it cannot be evicted; by cause, the first such pod (namespace, pod) and the PodDisruptionBudget that holds it (empty when none does). Absent when the time is unknown.",
    identity: Identity::Node,
    labels: &["cause", "namespace", "pod", "poddisruptionbudget"],
    anomalies: &[Anomaly::NodeDrainBlocked],
    aggregate: false,
    samples: |f| match &f.detail {
        Detail::Drain(d) => {
            let DrainDetail { pod, budget, .. } = &**d;
            let (namespace, name) = pod.split_once('/').unwrap_or_default();
            since(
                f,
                vec![
                    f.cause.to_string(),
                    namespace.to_string(),
                    name.to_string(),
                    budget.clone().unwrap_or_default(),
                ],
            )
        }
        _ => vec![],
    },
    fold: Fold::Never,
    example: "count by (cause) (kube_lifecycle_node_drain_blocked_since_timestamp_seconds)",
}];

/// How many blocked pods a finding names.
const NAMED_PODS: usize = 5;

/// The autoscalers' warnings that a node's drain fails.
const DRAIN_FAILURES: [&str; 2] = ["FailedDraining", "ScaleDownFailed"];

fn diagnose(input: &Input<'_>) -> Vec<Finding> {
    input
        .cluster
        .nodes()
        .filter(|node| node.is_draining())
        .filter_map(|node| judge(input, node))
        .collect()
}

/// A pod a drain cannot evict, and why.
struct Blocked<'a> {
    pod: &'a Pod,
    cause: DrainCause,
    /// The budget that holds it, and what the budget says.
    budget: Option<(&'a PodDisruptionBudget, String)>,
}

fn judge(input: &Input<'_>, node: &Node) -> Option<Finding> {
    let cluster = input.cluster;
    let m = &node.metadata;
    let failures: Vec<&Event> = cluster
        .events_about(Kind::Node, "", &m.name, &m.uid)
        .filter(|e| DRAIN_FAILURES.contains(&e.reason.as_str()))
        .collect();
    let since = node.draining_since().or_else(|| first_seen(&failures));
    if let Some(t) = since
        && !input.now.waited(t, input.settings.drain_after)
    {
        return None;
    }
    let mut blocked: Vec<Blocked> = cluster
        .pods_on_node(&m.name)
        .filter_map(|pod| blocked(input, pod))
        .collect();
    let said = failures.last();
    if blocked.is_empty() {
        // The autoscaler's own words, when the model holds no reason.
        let e = said?;
        let cause = if ["do-not-evict", "do-not-disrupt"]
            .iter()
            .any(|w| e.message.contains(w))
        {
            DrainCause::DoNotDisrupt
        } else {
            DrainCause::EvictionFailing
        };
        return Some(finding(
            node,
            cause,
            since,
            format!("{}: {}", e.reason, e.message),
            Detail::Drain(Box::new(DrainDetail {
                pod: String::new(),
                budget: None,
                blocking_pods: 0,
            })),
        ));
    }
    blocked.sort_by(|a, b| {
        (a.cause, &a.pod.metadata.namespace, &a.pod.metadata.name).cmp(&(
            b.cause,
            &b.pod.metadata.namespace,
            &b.pod.metadata.name,
        ))
    });
    let first = &blocked[0];
    let mut message = format!(
        "{} on it cannot be evicted: {}",
        count(blocked.len(), "pod", "pods"),
        blocked
            .iter()
            .take(NAMED_PODS)
            .map(|b| format!("{} ({})", key(b.pod), reason(b)))
            .collect::<Vec<_>>()
            .join("; ")
    );
    if blocked.len() > NAMED_PODS {
        message.push_str(&format!("; and {} more", blocked.len() - NAMED_PODS));
    }
    if let Some(e) = said {
        message.push_str(&format!("; {}: {}", e.reason, e.message));
    }
    Some(finding(
        node,
        first.cause,
        since,
        message,
        Detail::Drain(Box::new(DrainDetail {
            pod: key(first.pod),
            budget: first
                .budget
                .as_ref()
                .map(|(b, _)| b.metadata.name.to_string()),
            blocking_pods: blocked.len(),
        })),
    ))
}

fn finding(
    node: &Node,
    cause: DrainCause,
    since: Option<Time>,
    message: String,
    detail: Detail,
) -> Finding {
    let mut f = object_finding(
        Kind::Node,
        &node.metadata,
        Cause::NodeDrainBlocked(cause),
        since,
        message,
        detail,
    );
    f.node = Some(node.metadata.name.clone());
    f
}

/// `namespace/name`, as the finding's message and labels name a pod.
fn key(pod: &Pod) -> String {
    ObjectKey::from(&pod.metadata).to_string()
}

fn reason(b: &Blocked<'_>) -> String {
    match (&b.budget, b.cause) {
        (Some((_, said)), _) => said.clone(),
        (None, DrainCause::UnmanagedPod) => "no controller: kubectl drain needs --force".into(),
        (None, DrainCause::PodTerminating) => "deleted, still there past its grace period".into(),
        (None, cause) => cause.to_string(),
    }
}

/// Whether a drain cannot evict `pod`, and why.
fn blocked<'a>(input: &Input<'a>, pod: &'a Pod) -> Option<Blocked<'a>> {
    if pod.status.phase.is_terminal() {
        return None;
    }
    let controller = pod.metadata.controller();
    // DaemonSet pods stay (kubectl drain --ignore-daemonsets, every
    // autoscaler); a mirror pod's controller is its Node.
    if controller.is_some_and(|c| matches!(c.kind.as_str(), "DaemonSet" | "Node")) {
        return None;
    }
    if let Some(deadline) = pod.metadata.deletion_timestamp {
        // Being deleted: nothing holds it but what holds any deletion.
        return input.now.reached(deadline).then_some(Blocked {
            pod,
            cause: DrainCause::PodTerminating,
            budget: None,
        });
    }
    if controller.is_none() {
        return Some(Blocked {
            pod,
            cause: DrainCause::UnmanagedPod,
            budget: None,
        });
    }
    // A Pending pod is evicted whatever its budget says.
    if pod.status.phase == PodPhase::Pending {
        return None;
    }
    let labels = labels_of(input.cluster, pod)?;
    let budgets: Vec<&PodDisruptionBudget> = input
        .cluster
        .pod_disruption_budgets()
        .filter(|b| b.metadata.namespace == pod.metadata.namespace && b.selects(&labels))
        .collect();
    match budgets.as_slice() {
        [] => None,
        [budget] => held_by(pod, budget),
        [a, b, ..] => Some(Blocked {
            pod,
            cause: DrainCause::MultipleBudgets,
            budget: Some((
                a,
                format!(
                    "covered by PodDisruptionBudgets {} and {}: the eviction API refuses a pod of more than one",
                    a.metadata.name, b.metadata.name
                ),
            )),
        }),
    }
}

/// Whether `budget` keeps `pod` from being evicted now, and what it says.
fn held_by<'a>(pod: &'a Pod, budget: &'a PodDisruptionBudget) -> Option<Blocked<'a>> {
    let s = &budget.status;
    if s.disruptions_allowed > 0 || (!pod.is_ready() && budget.evicts_unhealthy()) {
        return None;
    }
    let rule = match (&budget.spec.min_available, &budget.spec.max_unavailable) {
        (Some(min), _) => format!("minAvailable {min}"),
        (None, Some(max)) => format!("maxUnavailable {max}"),
        (None, None) => "no minAvailable or maxUnavailable".into(),
    };
    let (cause, why) = if budget.allows_none_by_design() {
        (
            DrainCause::BudgetAllowsNone,
            format!(
                "{rule} of {}: it allows no disruption even when all are healthy",
                count(s.expected_pods, "pod", "pods")
            ),
        )
    } else {
        (
            DrainCause::BudgetPodsUnhealthy,
            format!(
                "{rule}: {} of {} healthy, {} needed",
                s.current_healthy,
                count(s.expected_pods, "pod", "pods"),
                s.desired_healthy
            ),
        )
    };
    let policy = match budget.spec.unhealthy_pod_eviction_policy.as_str() {
        "" => String::new(),
        p => format!(", unhealthyPodEvictionPolicy {p}"),
    };
    Some(Blocked {
        pod,
        cause,
        budget: Some((
            budget,
            format!(
                "PodDisruptionBudget {} allows {} disruptions: {why}{policy}",
                budget.metadata.name, s.disruptions_allowed
            ),
        )),
    })
}

/// The labels `pod` carries, as its controller gives them: `None` when its
/// controller's template is not held.
fn labels_of(cluster: &Cluster, pod: &Pod) -> Option<Labels> {
    let c = pod.metadata.controller()?;
    let namespace = pod.metadata.namespace.as_str();
    let key = ObjectKey::new(namespace, c.name.as_str());
    match c.kind.as_str() {
        "ReplicaSet" => Some(cluster.replica_set(&key)?.spec.template.labels().clone()),
        "ReplicationController" => Some(
            cluster
                .replication_controller(namespace, &c.name)?
                .spec
                .template
                .labels()
                .clone(),
        ),
        "StatefulSet" => {
            let set = cluster.stateful_set(namespace, &c.name)?;
            let mut labels = set.spec.template.labels().clone();
            let name = pod.metadata.name.to_string();
            if let Some((_, ordinal)) = name.rsplit_once('-') {
                labels.insert("apps.kubernetes.io/pod-index".into(), ordinal.into());
            }
            labels.insert("statefulset.kubernetes.io/pod-name".into(), name);
            Some(labels)
        }
        _ => None,
    }
}
