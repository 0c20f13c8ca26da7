//! Why a namespace is still Terminating, from the conditions the namespace
//! controller writes while it deletes content
//! (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).
//!
//! The first True condition in this order is the cause: discovery and parsing
//! failures stop deletion outright; remaining finalizers explain remaining
//! content, so they come before it. A namespace whose conditions are all False
//! but whose `spec.finalizers` is not empty waits only for that finalizer.
//!
//! Pods go first: the namespace controller deletes them before the rest of
//! the content (ordered namespace deletion, KEP-5080: on by default in 1.33,
//! backported to 1.30-1.32), so pods stuck Terminating past their deadline
//! hold the namespace whatever its conditions say, and are the cause unless
//! discovery itself fails. They are named with their own causes, and the
//! finding carries the node of the first one whose node is lost, so that the
//! node's alert covers the namespace's. PersistentVolumeClaims deleted and
//! still held by finalizers are named whatever the cause (but a discovery
//! failure, which stops deletion before them).

use crate::diagnosis::moment::Moment;
use std::collections::{BTreeMap, HashMap};

use crate::model::{Cluster, ConditionStatus, Kind, Name, Namespace, Pod};

use super::terminating::judge as terminating_judge;
use crate::diagnosis::VerdictCause;
use crate::diagnosis::classify;
use crate::diagnosis::family::PodsVerdict;
use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, Sample, since, text};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{
    Anomaly, Cause, Detail, Finding, Input, NamespaceDetail, StuckPod, TerminatingCause, node_of,
};

vocabulary! {
    /// Why a namespace is still Terminating (anomaly `namespace_terminating`),
    /// from the namespace controller's conditions.
    pub enum NamespaceCause {
        DiscoveryFailed = "discovery_failed" => NamespaceTerminatingDiscoveryFailed: "NamespaceDeletionDiscoveryFailure: an aggregated API (often metrics.k8s.io) does not answer, so the controller cannot list what to delete.",
        GroupVersionParsingFailed = "group_version_parsing_failed" => NamespaceTerminatingDiscoveryFailed: "NamespaceDeletionGroupVersionParsingFailure: an API group version could not be parsed.",
        ContentDeletionFailed = "content_deletion_failed": "NamespaceDeletionContentFailure: deleting some content failed.",
        FinalizersRemaining = "finalizers_remaining" => NamespaceTerminatingFinalizers: "NamespaceFinalizersRemaining: objects in the namespace carry finalizers nobody removes.",
        ContentRemaining = "content_remaining": "NamespaceContentRemaining: objects are still being deleted.",
        NamespaceFinalizer = "namespace_finalizer" => NamespaceTerminatingFinalizers: "The namespace is empty but spec.finalizers is not (the `kubernetes` finalizer or a third party's).",
        PodsTerminating = "pods_terminating": "The namespace waits for pods stuck Terminating past their deadline (namespace deletion deletes pods first, 1.33+, and cannot finish before they are gone); the pods, their nodes and their causes are named. A pod on a lost node is covered by that node's alert.",
        Unknown = "unknown": "Terminating with no condition that explains it yet.",
    }
}

impl PodsVerdict for NamespaceCause {
    // About a namespace, not a pod.
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

/// How many of a namespace's stuck pods its finding names.
pub(super) const NAMED_PODS: usize = 5;

const CONDITIONS: &[(&str, NamespaceCause)] = &[
    (
        "NamespaceDeletionDiscoveryFailure",
        NamespaceCause::DiscoveryFailed,
    ),
    (
        "NamespaceDeletionGroupVersionParsingFailure",
        NamespaceCause::GroupVersionParsingFailed,
    ),
    (
        "NamespaceDeletionContentFailure",
        NamespaceCause::ContentDeletionFailed,
    ),
    (
        "NamespaceFinalizersRemaining",
        NamespaceCause::FinalizersRemaining,
    ),
    (
        "NamespaceContentRemaining",
        NamespaceCause::ContentRemaining,
    ),
];

family!("namespaces": NamespaceTerminating);

const METRICS: &[MetricFamily] = &[
    MetricFamily {
        name: "kube_lifecycle_namespace_terminating_since_timestamp_seconds",
        help: "Unix time the deletion of a namespace still Terminating was requested, by cause; for cause pods_terminating, `node` is the lost node of a pod it waits for, if any.",
        identity: Identity::Namespace,
        labels: &["node", "cause"],
        anomalies: &[Anomaly::NamespaceTerminating],
        aggregate: false,
        samples: |f| since(f, vec![text(&f.node), f.cause.to_string()]),
        fold: Fold::Never,
        example: "time() - kube_lifecycle_namespace_terminating_since_timestamp_seconds > 1800",
    },
    MetricFamily {
        name: "kube_lifecycle_namespace_remaining_resources",
        help: "Objects of a resource still in a Terminating namespace, as its NamespaceContentRemaining condition counts them.",
        identity: Identity::Namespace,
        labels: &["resource"],
        anomalies: &[Anomaly::NamespaceTerminating],
        aggregate: false,
        samples: |f| match &f.detail {
            Detail::NamespaceContent(n) => counts(&n.remaining_resources),
            _ => vec![],
        },
        fold: Fold::Never,
        example: "sum by (namespace) (kube_lifecycle_namespace_remaining_resources)",
    },
    MetricFamily {
        name: "kube_lifecycle_namespace_remaining_finalizers",
        help: "Objects in a Terminating namespace held by a finalizer, as its NamespaceFinalizersRemaining condition counts them.",
        identity: Identity::Namespace,
        labels: &["finalizer"],
        anomalies: &[Anomaly::NamespaceTerminating],
        aggregate: false,
        samples: |f| match &f.detail {
            Detail::NamespaceContent(n) => counts(&n.remaining_finalizers),
            _ => vec![],
        },
        fold: Fold::Never,
        example: "topk(5, kube_lifecycle_namespace_remaining_finalizers)",
    },
];

/// Every Terminating pod is among the unsettled ones.
fn diagnose(input: &Input<'_>) -> Vec<Finding> {
    let (cluster, unsettled, now) = (input.cluster, &input.unsettled, &input.now);
    let terminating: Vec<&Namespace> = cluster
        .namespaces()
        .filter(|n| n.is_terminating())
        .collect();
    if terminating.is_empty() {
        return Vec::new();
    }
    // The pods past their deadline in each Terminating namespace.
    let mut stuck: HashMap<&str, Vec<&Pod>> = terminating
        .iter()
        .map(|n| (n.metadata.name.as_str(), Vec::new()))
        .collect();
    for pod in unsettled.iter().filter(|p| {
        p.metadata
            .deletion_timestamp
            .is_some_and(|deadline| now.reached(deadline))
    }) {
        if let Some(pods) = stuck.get_mut(pod.metadata.namespace.as_str()) {
            pods.push(pod);
        }
    }
    terminating
        .into_iter()
        .map(|ns| {
            let pods = stuck.remove(ns.metadata.name.as_str()).unwrap_or_default();
            judge(cluster, ns, pods, now)
        })
        .collect()
}

/// The stuck pods, oldest deletion first, each with its cause.
fn stuck_pods(cluster: &Cluster, mut pods: Vec<&Pod>, now: &Moment) -> Vec<StuckPod> {
    pods.sort_by_key(|p| (p.deletion_requested(), p.metadata.name.clone()));
    pods.iter()
        .map(|p| StuckPod {
            name: p.metadata.name.to_string(),
            node: node_of(&p.spec.node_name).map(|n| n.to_string()),
            cause: terminating_judge(cluster, p, now).cause,
        })
        .collect()
}

/// The namespace's stuck pods, the first few by name (and node).
fn pods_terminating(pods: &[StuckPod]) -> String {
    let total = pods.len();
    let named: Vec<String> = pods
        .iter()
        .take(NAMED_PODS)
        .map(|p| match &p.node {
            Some(node) => format!("{} on node {node} ({})", p.name, p.cause),
            None => format!("{} ({})", p.name, p.cause),
        })
        .collect();
    let more = match total.saturating_sub(NAMED_PODS) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "{} stuck Terminating past {}: {}{more}",
        crate::diagnosis::wording::count(total, "pod", "pods"),
        if total == 1 {
            "its deadline"
        } else {
            "their deadlines"
        },
        named.join(", ")
    )
}

/// When no condition says why: the namespace's own finalizers, if any.
fn spec_finalizers(ns: &Namespace) -> (NamespaceCause, String) {
    if ns.spec.finalizers.is_empty() {
        (
            NamespaceCause::Unknown,
            "no condition explains the deletion yet".to_string(),
        )
    } else {
        (
            NamespaceCause::NamespaceFinalizer,
            format!("spec.finalizers: {}", ns.spec.finalizers.join(", ")),
        )
    }
}

fn judge(cluster: &Cluster, ns: &Namespace, pods: Vec<&Pod>, now: &Moment) -> Finding {
    let active = |type_: &str| {
        ns.condition(type_)
            .filter(|c| c.status == ConditionStatus::True)
    };
    let mut pods = stuck_pods(cluster, pods, now);
    let total = pods.len();
    let discovery = CONDITIONS[..2]
        .iter()
        .find_map(|(type_, cause)| active(type_).map(|c| (*cause, c.message.clone())));
    let held_by_pods = (discovery.is_none() && !pods.is_empty())
        .then(|| (NamespaceCause::PodsTerminating, pods_terminating(&pods)));
    let lost_node = pods
        .iter()
        .find(|p| {
            matches!(
                p.cause,
                TerminatingCause::NodeNotReady
                    | TerminatingCause::NodeMissing
                    | TerminatingCause::OutOfService
            )
        })
        .and_then(|p| p.node.clone());
    pods.truncate(NAMED_PODS);
    let (cause, message) = discovery
        .or(held_by_pods)
        .or_else(|| {
            CONDITIONS[2..]
                .iter()
                .find_map(|(type_, cause)| active(type_).map(|c| (*cause, c.message.clone())))
        })
        .unwrap_or_else(|| spec_finalizers(ns));
    let message = match (cause, held_claims(cluster, ns)) {
        (NamespaceCause::DiscoveryFailed | NamespaceCause::GroupVersionParsingFailed, _)
        | (_, None) => message,
        (_, Some(claims)) => format!("{message}; {claims}"),
    };
    let remaining_resources = active("NamespaceContentRemaining")
        .map(|c| classify::remaining_resources(&c.message))
        .unwrap_or_default();
    let remaining_finalizers = active("NamespaceFinalizersRemaining")
        .map(|c| classify::remaining_finalizers(&c.message))
        .unwrap_or_default();
    Finding {
        kind: Kind::Namespace,
        namespace: None,
        name: ns.metadata.name.clone(),
        container: None,
        container_kind: None,
        owner: None,
        node: if cause == NamespaceCause::PodsTerminating {
            lost_node.map(Name::from)
        } else {
            None
        },
        cause: Cause::NamespaceTerminating(cause),
        // Namespaces are deleted without a grace period: the timestamp is the request.
        since: ns.metadata.deletion_timestamp,
        message: message.into(),
        detail: Detail::NamespaceContent(Box::new(NamespaceDetail {
            remaining_resources,
            remaining_finalizers,
            terminating_pods: pods,
            terminating_pods_total: total,
        })),
    }
}

/// The PersistentVolumeClaims of a Terminating namespace that are deleted
/// and still held by finalizers (`kubernetes.io/pvc-protection` while a pod
/// uses them, a storage operator's), the first few by name with theirs:
/// what the namespace's `persistentvolumeclaims` content waits for.
fn held_claims(cluster: &Cluster, ns: &Namespace) -> Option<String> {
    let mut held: Vec<String> = cluster
        .persistent_volume_claims()
        .filter(|c| {
            c.metadata.namespace == ns.metadata.name
                && c.metadata.deletion_timestamp.is_some()
                && !c.metadata.finalizers.is_empty()
        })
        .map(|c| format!("{} ({})", c.metadata.name, c.metadata.finalizers.join(", ")))
        .collect();
    if held.is_empty() {
        return None;
    }
    held.sort();
    let total = held.len();
    held.truncate(NAMED_PODS);
    let more = match total.saturating_sub(NAMED_PODS) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "{} held by finalizers: {}{more}",
        crate::diagnosis::wording::count(total, "PersistentVolumeClaim", "PersistentVolumeClaims"),
        held.join(", ")
    ))
}

/// One sample per (name, count) of a namespace's remaining content.
fn counts(remaining: &BTreeMap<String, u64>) -> Vec<Sample> {
    remaining
        .iter()
        .map(|(name, n)| Sample {
            labels: vec![name.clone()],
            value: *n as f64,
        })
        .collect()
}
