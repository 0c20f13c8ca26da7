//! `pod_evicted`: pods the kubelet evicted or refused to admit, or a
//! controller disrupted, that still exist in phase Failed. The cause is read
//! from the pod's status reason and message and its DisruptionTarget condition
//! ([`classify::eviction`]); the container the kubelet names as using most
//! becomes the finding's container.
//!
//! A cluster can hold thousands of such pods (the pod garbage collector keeps
//! 12500 terminated pods by default); each is a finding here, and the metrics
//! count them by namespace, owner and cause rather than one series each.

use crate::model::{ConditionStatus, Pod, PodCondition};

use super::classify;
use super::containers::pod_finding;
use super::{Cause, Detail, Finding};

pub(super) fn diagnose(unsettled: &[&Pod], out: &mut Vec<Finding>) {
    for pod in unsettled
        .iter()
        .filter(|p| p.may_be_evicted() && !p.is_terminating())
    {
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
        Detail::Evicted {
            reason: reason.to_string(),
            owner_kind: owner.map(|o| o.kind.clone()),
            owner_name: owner.map(|o| o.name.clone()),
        },
    ))
}

/// The cause of a pod's eviction, for observers of the watch (the eviction
/// counter), or `None` when the pod shows none.
pub(crate) fn eviction_cause(pod: &Pod) -> Option<super::EvictionCause> {
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
        .conditions
        .disruption_target
        .as_deref()
        .filter(|c| c.status == ConditionStatus::True)
}
