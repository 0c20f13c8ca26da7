//! Why is this pod Terminating? Decided here and nowhere else.
//!
//! Deletion sets `deletionTimestamp` to the *deadline* (request time plus the
//! grace period). Before it, termination is `graceful`. After it, the first of
//! these that holds is the cause:
//!
//! 1. `node_missing`: the pod's node is gone, nothing will confirm it stopped;
//! 2. `out_of_service`: the node is not Ready and declared out of service (the
//!    pod GC should have force-deleted the pod); `node_not_ready`: the node's
//!    kubelet is not reporting (Ready False/Unknown), so the status below is
//!    stale and the pod waits for the node;
//! 3. `containers_running`: a container still runs, or the kubelet reported a
//!    kill that failed (FailedKillPod, StopContainer deadline exceeded);
//! 4. `cleanup_pending` with an event: the kubelet reported an unmount or
//!    cleanup failure (device or resource busy);
//! 5. `finalizers`: containers are gone and a finalizer holds the object;
//! 6. `cleanup_pending`: containers are gone, no finalizer, yet the kubelet has
//!    not issued its final delete (volumes or cgroups not reclaimed);
//! 7. `unknown`: none of the above (a pod never bound to a node).

use crate::diagnosis::classify::{self, TerminationEvent};
use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, one, since, text};
use crate::diagnosis::moment::Moment;
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{Anomaly, Cause, Detail, Finding, Input};
use crate::model::{Cluster, Kind, Pod, Readiness, Time, unix_seconds};

use super::pod_finding::pod_finding;
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why a pod is still Terminating (anomaly `pod_terminating`).
    pub enum TerminatingCause {
        Graceful = "graceful" [quiet]: "Before the deadline (deletionTimestamp): the grace period is still running; normal.",
        NodeNotReady = "node_not_ready" => PodTerminatingNodeLost [node_lost]: "Past the deadline and the pod's node is Ready=False or Unknown: no kubelet confirms the containers stopped.",
        OutOfService = "out_of_service" => PodTerminatingNodeLost: "Past the deadline on a node that is not Ready and carries the node.kubernetes.io/out-of-service taint (non-graceful node shutdown): someone declared the node gone, so the pod GC force-deletes its terminating pods; a pod still here is held by a finalizer, or the pod GC (kube-controller-manager) is not running. Not a lost node: it was acted on.",
        NodeMissing = "node_missing" => PodTerminatingNodeLost [node_lost]: "Past the deadline and the pod's nodeName is not among the nodes: nothing will ever confirm the pod stopped.",
        Finalizers = "finalizers" => PodTerminatingFinalizers: "Past the deadline, containers gone, and metadata.finalizers is not empty: a controller has not removed its finalizer.",
        ContainersRunning = "containers_running" => PodTerminatingContainersRunning: "Past the deadline with a container still running (or a kill that failed): the runtime does not stop it.",
        CleanupPending = "cleanup_pending" => PodTerminatingCleanupStuck: "Past the deadline, no container running, no finalizer: the kubelet has not reclaimed the pod's volumes or cgroups (an unmount that fails, a busy device).",
        Unknown = "unknown": "Past the deadline for none of the reasons above (for instance a pod never bound to a node).",
    }
}

impl PodsVerdict for TerminatingCause {
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::Terminating
    }
}

/// Every Terminating pod is among the unsettled ones.
fn diagnose_pod(input: &Input<'_>, pod: &Pod, out: &mut Vec<Finding>) {
    if !pod.is_terminating() || deleted_by_pod_gc(pod) {
        return;
    }
    let (Some(requested), Some(deadline)) =
        (pod.deletion_requested(), pod.metadata.deletion_timestamp)
    else {
        return;
    };
    let verdict = judge(input.cluster, pod, &input.now);
    out.push(pod_finding(
        pod,
        None,
        Cause::PodTerminating(verdict.cause),
        Some(requested),
        verdict.message,
        Detail::Terminating {
            requested,
            deadline,
        },
    ));
}

family!("terminating" each pod: PodTerminating);

const METRICS: &[MetricFamily] = &[
    MetricFamily {
        name: "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        help: "Unix time the deletion of a pod still Terminating was requested (deletionTimestamp minus deletionGracePeriodSeconds), by cause.",
        identity: Identity::Pod,
        labels: &["node", "cause"],
        anomalies: &[Anomaly::PodTerminating],
        aggregate: false,
        samples: |f| since(f, vec![text(&f.node), f.cause.to_string()]),
        fold: Fold::Earliest,
        example: r#"time() - kube_lifecycle_pod_terminating_since_timestamp_seconds{cause!="graceful"} > 600"#,
    },
    MetricFamily {
        name: "kube_lifecycle_pod_terminating_deadline_timestamp_seconds",
        help: "Unix time a Terminating pod should have been gone by (its deletionTimestamp).",
        identity: Identity::Pod,
        labels: &["node"],
        anomalies: &[Anomaly::PodTerminating],
        aggregate: false,
        samples: |f| match f.detail {
            Detail::Terminating { deadline, .. } => {
                one(vec![text(&f.node)], unix_seconds(deadline))
            }
            _ => vec![],
        },
        fold: Fold::Earliest,
        example: "time() - kube_lifecycle_pod_terminating_deadline_timestamp_seconds > 300",
    },
];

/// The pod GC force-deleted the pod (DisruptionTarget reason DeletionByPodGC,
/// 1.26+: its node is gone, or out of service) and nothing holds it: it is
/// going away now, resolved rather than lost.
fn deleted_by_pod_gc(pod: &Pod) -> bool {
    pod.metadata.finalizers.is_empty()
        && pod
            .status
            .disruption_target()
            .is_some_and(|c| c.reason() == "DeletionByPodGC")
}

/// The taint that declares a node shut down for good (non-graceful node
/// shutdown, GA 1.28): the pod GC then force-deletes its terminating pods.
const OUT_OF_SERVICE: &str = "node.kubernetes.io/out-of-service";
/// The taint cloud providers' node controllers put on a node whose instance is
/// shut down (k8s.io/cloud-provider `ToBeDeletedTaint`'s sibling).
const CLOUD_SHUTDOWN: &str = "node.cloudprovider.kubernetes.io/shutdown";

/// Why a pod with a deletionTimestamp still exists at `now`, for observers
/// that need the cause without a finding (the watch's durations).
pub fn terminating_cause(cluster: &Cluster, pod: &Pod, now: Time) -> TerminatingCause {
    judge(cluster, pod, &Moment::at(now)).cause
}

/// A cause and the text it was judged from.
pub(super) struct Verdict<C> {
    pub cause: C,
    pub message: String,
}

/// Why `pod`, which has a deletionTimestamp, still exists at `now`.
pub(super) fn judge(cluster: &Cluster, pod: &Pod, now: &Moment) -> Verdict<TerminatingCause> {
    let deadline = pod.metadata.deletion_timestamp.unwrap_or(now.time());
    if !now.reached(deadline) {
        let grace = pod.metadata.deletion_grace_period_seconds.unwrap_or(0);
        let why = pod
            .status
            .disruption_target()
            .map(|c| format!(": {}", c.message()))
            .unwrap_or_default();
        return Verdict {
            cause: TerminatingCause::Graceful,
            message: format!("within its {grace}s grace period until {deadline}{why}"),
        };
    }

    if let Some(mut lost) = node_lost(cluster, &pod.spec.node_name) {
        if lost.cause == TerminatingCause::OutOfService && !pod.metadata.finalizers.is_empty() {
            lost.message.push_str(&format!(
                "; held by finalizers: {}",
                pod.metadata.finalizers.join(", ")
            ));
        }
        return lost;
    }
    past_deadline(cluster, pod, deadline)
}

/// Why a pod past its deadline on a node that can act on it is not gone:
/// what the kubelet reported since the deletion, its containers, its
/// finalizers.
fn past_deadline(cluster: &Cluster, pod: &Pod, deadline: Time) -> Verdict<TerminatingCause> {
    let verdict = |cause, message: String| Verdict { cause, message };
    // Only what the kubelet reported since this deletion was requested counts.
    let requested = pod.deletion_requested().unwrap_or(deadline);
    let events: Vec<_> = cluster
        .events_about(
            Kind::Pod,
            &pod.metadata.namespace,
            &pod.metadata.name,
            &pod.metadata.uid,
        )
        .filter(|e| e.last_seen.is_none_or(|t| t >= requested))
        .collect();
    let latest = |wanted: TerminationEvent| {
        events
            .iter()
            .rev()
            .find(|e| classify::termination_event(&e.reason, &e.message) == Some(wanted))
    };

    let running = pod
        .container_statuses()
        .find(|(_, s)| s.state.running.is_some())
        .map(|(_, s)| s.name.clone());
    if let Some(event) = latest(TerminationEvent::KillFailed) {
        return verdict(
            TerminatingCause::ContainersRunning,
            event.message.to_string(),
        );
    }
    if let Some(container) = running {
        return verdict(
            TerminatingCause::ContainersRunning,
            format!(
                "container {container:?} is still running past the deletion deadline {deadline}"
            ),
        );
    }
    if let Some(event) = latest(TerminationEvent::CleanupFailed) {
        return verdict(TerminatingCause::CleanupPending, event.message.to_string());
    }
    if !pod.metadata.finalizers.is_empty() {
        return verdict(
            TerminatingCause::Finalizers,
            format!("finalizers: {}", pod.metadata.finalizers.join(", ")),
        );
    }
    if pod.spec.node_name.is_empty() {
        return verdict(
            TerminatingCause::Unknown,
            "the pod was never bound to a node and has no finalizers".to_string(),
        );
    }
    // The kubelet unprepares a pod's devices before its final delete, and
    // says nothing but in its log when the DRA driver fails to (kubelet.go,
    // SyncTerminatingPod: "unprepare dynamic resources").
    let devices = if pod.spec.resource_claims().is_empty() {
        ""
    } else {
        "; the pod claims devices: the node's DRA driver may fail to release them (kubelet log: \"unprepare dynamic resources\")"
    };
    verdict(
        TerminatingCause::CleanupPending,
        format!(
            "no container is running on node {:?}, but the kubelet has not completed the deletion{devices}",
            pod.spec.node_name
        ),
    )
}

/// `node_missing` or `node_not_ready` when the pod's node cannot act on it.
/// Without a node list, nothing is said.
/// Whether the node `node_name` is lost: NotReady, unreachable or gone, and
/// not declared out of service (then it was acted on). What a root cause
/// reads: the same judgement as a Terminating pod's.
pub(crate) fn is_lost_node(cluster: &Cluster, node_name: &str) -> bool {
    node_lost(cluster, node_name).is_some_and(|v| v.cause != TerminatingCause::OutOfService)
}

pub(super) fn node_lost(cluster: &Cluster, node_name: &str) -> Option<Verdict<TerminatingCause>> {
    if node_name.is_empty() || !cluster.has_listed(Kind::Node) {
        return None;
    }
    let Some(node) = cluster.node(node_name) else {
        return Some(Verdict {
            cause: TerminatingCause::NodeMissing,
            message: format!("node {node_name:?} does not exist"),
        });
    };
    if node.readiness() == Readiness::Ready {
        return None;
    }
    let mut message = match &node.status.ready {
        Some(c) if !c.message.is_empty() => format!("node {node_name:?}: {}", c.message),
        Some(c) => format!("node {node_name:?} is Ready={:?}", c.status),
        None => format!("node {node_name:?} reports no Ready condition"),
    };
    if node.has_taint(OUT_OF_SERVICE) {
        message.push_str(&format!(
            "; the node carries {OUT_OF_SERVICE}, so the pod GC should have force-deleted the pod"
        ));
        return Some(Verdict {
            cause: TerminatingCause::OutOfService,
            message,
        });
    }
    if node.has_taint(CLOUD_SHUTDOWN) {
        message.push_str(&format!(
            "; the cloud provider says the instance is shut down ({CLOUD_SHUTDOWN}): \
             if it will not come back, taint the node {OUT_OF_SERVICE}=nodeshutdown:NoExecute"
        ));
    }
    Some(Verdict {
        cause: TerminatingCause::NodeNotReady,
        message,
    })
}
