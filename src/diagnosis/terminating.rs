//! Why is this pod Terminating? Decided here and nowhere else.
//!
//! Deletion sets `deletionTimestamp` to the *deadline* (request time plus the
//! grace period). Before it, termination is `graceful`. After it, the first of
//! these that holds is the cause:
//!
//! 1. `node_missing`: the pod's node is gone, nothing will confirm it stopped;
//! 2. `node_not_ready`: the node's kubelet is not reporting (Ready False/Unknown),
//!    so the status below is stale and the pod waits for the node;
//! 3. `containers_running`: a container still runs, or the kubelet reported a
//!    kill that failed (FailedKillPod, StopContainer deadline exceeded);
//! 4. `cleanup_pending` with an event: the kubelet reported an unmount or
//!    cleanup failure (device or resource busy);
//! 5. `finalizers`: containers are gone and a finalizer holds the object;
//! 6. `cleanup_pending`: containers are gone, no finalizer, yet the kubelet has
//!    not issued its final delete (volumes or cgroups not reclaimed);
//! 7. `unknown`: none of the above (a pod never bound to a node).

use crate::model::{Cluster, Kind, Pod, Readiness, Time};

use super::classify::{self, TerminationEvent};
use super::{Cause, Detail, Finding, TerminatingCause, namespace_of, node_of};

/// `unsettled`: the cluster's unsettled pods, where every Terminating pod is.
pub(super) fn diagnose(cluster: &Cluster, unsettled: &[&Pod], now: Time, out: &mut Vec<Finding>) {
    for pod in unsettled.iter().filter(|p| p.is_terminating()) {
        let (Some(requested), Some(deadline)) =
            (pod.deletion_requested(), pod.metadata.deletion_timestamp)
        else {
            continue;
        };
        let verdict = judge(cluster, pod, now);
        out.push(Finding {
            kind: Kind::Pod,
            namespace: namespace_of(&pod.metadata.namespace),
            name: pod.metadata.name.to_string(),
            container: None,
            container_kind: None,
            node: node_of(&pod.spec.node_name),
            cause: Cause::PodTerminating(verdict.cause),
            since: Some(requested),
            message: verdict.message,
            detail: Detail::Terminating {
                requested,
                deadline,
            },
        });
    }
}

/// A cause and the text it was judged from.
pub(super) struct Verdict<C> {
    pub cause: C,
    pub message: String,
}

/// Why `pod`, which has a deletionTimestamp, still exists at `now`.
pub(super) fn judge(cluster: &Cluster, pod: &Pod, now: Time) -> Verdict<TerminatingCause> {
    let verdict = |cause, message: String| Verdict { cause, message };
    let deadline = pod.metadata.deletion_timestamp.unwrap_or(now);
    if now < deadline {
        let grace = pod.metadata.deletion_grace_period_seconds.unwrap_or(0);
        let why = pod
            .status
            .conditions
            .disruption_target
            .as_ref()
            .map(|c| format!(": {}", c.message()))
            .unwrap_or_default();
        return verdict(
            TerminatingCause::Graceful,
            format!("within its {grace}s grace period until {deadline}{why}"),
        );
    }

    if let Some(lost) = node_lost(cluster, &pod.spec.node_name) {
        return lost;
    }

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
        return verdict(TerminatingCause::ContainersRunning, event.message.clone());
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
        return verdict(TerminatingCause::CleanupPending, event.message.clone());
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
    verdict(
        TerminatingCause::CleanupPending,
        format!(
            "no container is running on node {:?}, but the kubelet has not completed the deletion",
            pod.spec.node_name
        ),
    )
}

/// `node_missing` or `node_not_ready` when the pod's node cannot act on it.
/// Without a node list, nothing is said.
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
    let message = match &node.status.ready {
        Some(c) if !c.message.is_empty() => format!("node {node_name:?}: {}", c.message),
        Some(c) => format!("node {node_name:?} is Ready={:?}", c.status),
        None => format!("node {node_name:?} reports no Ready condition"),
    };
    Some(Verdict {
        cause: TerminatingCause::NodeNotReady,
        message,
    })
}
