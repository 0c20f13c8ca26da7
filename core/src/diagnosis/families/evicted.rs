//! `pod_evicted`: pods the kubelet evicted or refused to admit, or a
//! controller disrupted, that still exist in phase Failed. The cause is read
//! from the pod's status reason and message and its DisruptionTarget condition
//! ([`classify::evicted`]); the container the kubelet names as using most
//! becomes the finding's container.
//!
//! A cluster can hold thousands of such pods (the pod garbage collector keeps
//! 12500 terminated pods by default); each is a finding here, and the metrics
//! count them by namespace, owner and cause rather than one series each.

use crate::model::{ConditionStatus, Pod, PodCondition};

use crate::diagnosis::classify;
use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, one};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{Anomaly, Cause, Detail, EvictedDetail, Finding, Input};

use super::pod_finding::pod_finding;
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why a pod was evicted or rejected (anomaly `pod_evicted`), from its
    /// status reason and message and its DisruptionTarget condition.
    pub enum EvictionCause {
        MemoryPressure = "memory_pressure": "The kubelet evicted the pod because the node was low on memory (\"The node was low on resource: memory\"); the container using most is named when the message says.",
        EphemeralStorageLimit = "ephemeral_storage_limit": "The pod, a container or an emptyDir volume used more local ephemeral storage than its limit.",
        DiskPressure = "disk_pressure": "The kubelet evicted the pod because the node was low on disk (nodefs, imagefs, ephemeral-storage, inodes), or refused it under DiskPressure.",
        PidPressure = "pid_pressure": "The kubelet evicted the pod because the node was low on process ids.",
        Preempted = "preempted": "The scheduler (or the kubelet, for a critical pod) preempted the pod for one of higher priority.",
        TaintEviction = "taint_eviction": "The taint manager deleted the pod for a NoExecute taint it does not tolerate (a node not ready or unreachable, ...).",
        NodeShutdown = "node_shutdown": "The kubelet terminated the pod because its node was shutting down (graceful node shutdown).",
        AdmissionOutOfResource = "admission_out_of_resource": "The kubelet refused to run the pod: the node had not enough of a resource (OutOfcpu, OutOfmemory, OutOfpods, OutOfephemeral-storage, OutOf<extended resource>).",
        AdmissionNodeAffinity = "admission_node_affinity": "The kubelet refused to run the pod: the node no longer matches its node selector or affinity (NodeAffinity, MatchNodeSelector).",
        AdmissionOther = "admission_other": "The kubelet refused to run the pod for another reason (UnexpectedAdmissionError, device or topology allocation, node ports, sysctls, ...).",
        Other = "other": "Evicted or disrupted for another reason (the Eviction API, pod garbage collection, ...; the message is kept).",
    }
}

impl PodsVerdict for EvictionCause {
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::Evicted
    }
}

family!("evicted" each pod: PodEvicted);

const METRICS: &[MetricFamily] = &[MetricFamily {
    name: "kube_lifecycle_evicted_pods",
    help: "Pods evicted or rejected by their node, or disrupted by a controller, that still exist in phase Failed, counted by namespace, owner and cause (one series per owner and cause, however many pods).",
    identity: Identity::PodOwner,
    labels: &["cause"],
    anomalies: &[Anomaly::PodEvicted],
    aggregate: true,
    samples: |f| one(vec![f.cause.to_string()], 1.0),
    fold: Fold::Never,
    example: "sum by (namespace, cause) (kube_lifecycle_evicted_pods)",
}];

fn diagnose_pod(_: &Input<'_>, pod: &Pod, out: &mut Vec<Finding>) {
    if pod.may_be_evicted() && !pod.is_terminating() {
        out.extend(judge(pod));
    }
}

/// The finding for an evicted or rejected pod; `None` for a pod that failed
/// on its own.
pub(crate) fn judge(pod: &Pod) -> Option<Finding> {
    let disruption = disruption_target(pod);
    let eviction = classify::eviction(
        pod.status.reason(),
        pod.status.message(),
        disruption.map(|c| (c.reason(), c.message())),
    )?;
    let (reason, message) = match disruption {
        Some(c) if pod.status.reason().is_empty() => (c.reason(), c.message()),
        _ => (pod.status.reason(), pod.status.message()),
    };
    // When it was thrown out: the disruption's time, else the end of its
    // last container, else its start.
    let ended = pod
        .container_statuses()
        .filter_map(|(_, s)| s.state.terminated.as_ref().and_then(|t| t.finished_at))
        .max();
    let since = disruption
        .and_then(|c| c.last_transition_time)
        .or(ended)
        .or(pod.status.start_time)
        .or(pod.metadata.creation_timestamp);
    let owner = pod.metadata.controller();
    let message = if message.is_empty() {
        format!("phase Failed, reason {reason}")
    } else {
        message.to_string()
    };
    Some(pod_finding(
        pod,
        eviction
            .container
            .as_deref()
            .map(|c| (pod.container_kind(c), c)),
        Cause::PodEvicted(eviction.cause),
        since,
        message,
        Detail::Evicted(Box::new(EvictedDetail {
            reason: reason.to_string(),
            owner_kind: owner.map(|o| o.kind.to_string()),
            owner_name: owner.map(|o| o.name.to_string()),
        })),
    ))
}

/// The cause of a pod's eviction, for observers of the watch (the eviction
/// counter), or `None` when the pod shows none.
pub fn eviction_cause(pod: &Pod) -> Option<EvictionCause> {
    if !pod.may_be_evicted() && !disrupted(pod) {
        return None;
    }
    let disruption = disruption_target(pod);
    classify::eviction(
        pod.status.reason(),
        pod.status.message(),
        disruption.map(|c| (c.reason(), c.message())),
    )
    .map(|e| e.cause)
}

fn disrupted(pod: &Pod) -> bool {
    disruption_target(pod).is_some()
}

/// The pod's DisruptionTarget condition, when it is True.
fn disruption_target(pod: &Pod) -> Option<&PodCondition> {
    pod.status
        .disruption_target()
        .filter(|c| c.status == ConditionStatus::True)
}
