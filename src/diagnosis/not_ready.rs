//! `pod_not_ready`: a Running pod whose Ready condition has not been True for
//! longer than `--not-ready-after`, read from that condition and the kubelet's
//! `Unhealthy` readiness events.
//!
//! The kubelet writes the Ready condition (pkg/kubelet/status/generate.go)
//! with reason `ContainersNotReady` (`containers with unready status: [app]`)
//! when a container is not ready, and `ReadinessGatesNotReady` (`the status of
//! pod readiness gate "x" is not "True", but False`, `corresponding condition
//! of pod readiness gate "x" does not exist.`) when the containers are but a
//! gate is not.
//!
//! A pod with a waiting container is left to the container diagnoses: a
//! crash-looping, pulling or misconfigured container is not Ready either, and
//! its own finding already says why. A pod being deleted is `pod_terminating`'s;
//! a pod of a Job that is over is winding down.

use crate::model::{Cluster, Event, Kind, Pod, PodCondition, Time};

use super::classify::{self, ProbeKind};
use super::containers::{has_waiting_container, pod_finding};
use super::{Cause, Detail, Finding, NotReadyCause, Settings};

/// Readiness events this long before the condition changed still explain it
/// (the kubelet reports the failures that turn it False just before).
const EVENT_SLACK: jiff::SignedDuration = jiff::SignedDuration::from_secs(60);

pub(super) fn diagnose(
    cluster: &Cluster,
    unsettled: &[&Pod],
    now: Time,
    settings: &Settings,
    out: &mut Vec<Finding>,
) {
    for pod in unsettled.iter().filter(|p| {
        p.is_not_ready()
            && !p.is_terminating()
            && !p.spec.node_name.is_empty()
            && !has_waiting_container(p)
    }) {
        let Some(ready) = pod.status.conditions.ready.as_ref() else {
            continue;
        };
        let since = ready.last_transition_time.or(pod.status.start_time);
        let Some(since) = since else {
            continue;
        };
        if now.duration_since(since) < settings.not_ready_after || of_finished_job(cluster, pod) {
            continue;
        }
        out.push(judge(cluster, pod, ready, since));
    }
}

fn of_finished_job(cluster: &Cluster, pod: &Pod) -> bool {
    let Some(owner) = pod.metadata.controller() else {
        return false;
    };
    owner.kind == "Job"
        && cluster.jobs().any(|j| {
            j.metadata.namespace == pod.metadata.namespace
                && *j.metadata.name == *owner.name
                && j.status.over
        })
}

fn judge(cluster: &Cluster, pod: &Pod, ready: &PodCondition, since: Time) -> Finding {
    let events: Vec<&Event> = cluster
        .events_about(
            Kind::Pod,
            &pod.metadata.namespace,
            &pod.metadata.name,
            &pod.metadata.uid,
        )
        .collect();
    let from = since.checked_sub(EVENT_SLACK).unwrap_or(since);
    // The latest readiness failure reported since the pod turned not Ready.
    let probe = events
        .iter()
        .rev()
        .filter(|e| e.last_seen.is_none_or(|t| t >= from))
        .find_map(|e| {
            classify::probe_event(&e.reason, &e.message)
                .filter(|r| r.probe == ProbeKind::Readiness)
                .map(|r| (r, *e))
        });
    let unready = unready_containers(ready.message());
    let (cause, container, message, probe_failure) = if ready.reason() == "ReadinessGatesNotReady" {
        (
            NotReadyCause::ReadinessGate,
            None,
            ready.message().to_string(),
            None,
        )
    } else if let Some((result, event)) = probe {
        (
            NotReadyCause::ReadinessProbe,
            container_of(&event.regarding.field_path),
            event.message.clone(),
            Some(result.failure),
        )
    } else if ready.reason() == "ContainersNotReady" {
        let container = match unready.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        };
        (
            NotReadyCause::ContainersNotReady,
            container,
            ready.message().to_string(),
            None,
        )
    } else {
        let message = if ready.message().is_empty() {
            format!("Ready is {:?} (reason {:?})", ready.status, ready.reason())
        } else {
            ready.message().to_string()
        };
        (NotReadyCause::Unknown, None, message, None)
    };
    pod_finding(
        pod,
        container.as_deref(),
        Cause::PodNotReady(cause),
        Some(since),
        message,
        Detail::NotReady { probe_failure },
    )
}

/// `spec.containers{app}` → `app`.
fn container_of(field_path: &str) -> Option<String> {
    let inner = field_path
        .strip_prefix("spec.containers{")
        .or_else(|| field_path.strip_prefix("spec.initContainers{"))?;
    inner
        .strip_suffix('}')
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}

/// `containers with unready status: [app sidecar]` → `[app, sidecar]`.
fn unready_containers(message: &str) -> Vec<String> {
    let Some(start) = message.find('[') else {
        return Vec::new();
    };
    let Some(end) = message[start..].find(']') else {
        return Vec::new();
    };
    message[start + 1..start + end]
        .split_whitespace()
        .map(str::to_string)
        .collect()
}
