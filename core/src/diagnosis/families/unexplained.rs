//! `pod_stuck`: the safety net. A pod Pending, not Ready or not initialized
//! past its threshold always has a finding; where no other anomaly explains
//! it, this one says so, with what the pod shows (phase, conditions, latest
//! warning events), so that "nothing is stuck" is never said of a stuck pod.
//!
//! It runs after every other family and looks only at pods none of them
//! named. Its thresholds are theirs: `--unscheduled-after` for a pod no node
//! took, `--init-after` for one whose init containers are not done,
//! `--creating-after` for one whose containers are not all running, and
//! `--not-ready-after` for one that runs and is not Ready.

use crate::diagnosis::Found;
use crate::diagnosis::moment::Moment;

use jiff::SignedDuration;

use crate::model::{Cluster, ConditionStatus, Pod, PodCondition, PodPhase, Time};

use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, since, text};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{Anomaly, Cause, Detail, Finding, Input, Settings, StuckDetail};

use super::not_ready::of_finished_job;
use super::pod_finding::{events_of, on_node_since, pod_finding};
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// A pod stuck for a reason no other anomaly names (anomaly `pod_stuck`).
    pub enum StuckCause {
        Unknown = "unknown": "No anomaly explains the pod: its phase, conditions and last warning events are in the finding.",
    }
}

impl PodsVerdict for StuckCause {
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

/// How many warning events the finding quotes.
const EVENTS_QUOTED: usize = 3;

family!("unexplained" reading: PodStuck);

const METRICS: &[MetricFamily] = &[MetricFamily {
    name: "kube_lifecycle_pod_stuck_since_timestamp_seconds",
    help: "Unix time a pod Pending, not initialized or not Ready past its threshold, that no other anomaly explains, began to wait, by its phase (cause unknown).",
    identity: Identity::Pod,
    labels: &["node", "phase", "cause"],
    anomalies: &[Anomaly::PodStuck],
    aggregate: false,
    samples: |f| {
        let phase = match &f.detail {
            Detail::Stuck(s) => s.phase.to_string(),
            _ => String::new(),
        };
        since(f, vec![text(&f.node), phase, f.cause.to_string()])
    },
    fold: Fold::Earliest,
    example: "count by (namespace, phase) (kube_lifecycle_pod_stuck_since_timestamp_seconds)",
}];

fn diagnose(input: &Input<'_>, found: &Found<'_>) -> Vec<Finding> {
    input
        .unsettled
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.is_terminating() && !p.status.phase.is_terminal())
        .filter(|(i, p)| !found.any_at(*i, p))
        .filter_map(|(_, p)| judge(input.cluster, p, &input.now, input.settings))
        .collect()
}

/// What the pod waits for, since when, and how long it may.
fn stuck_since(
    cluster: &Cluster,
    pod: &Pod,
    settings: &Settings,
) -> Option<(Time, SignedDuration, &'static str)> {
    let ready = pod.status.conditions.ready.as_ref();
    match pod.status.phase {
        PodPhase::Pending if pod.spec.node_name.is_empty() => Some((
            pod.metadata.creation_timestamp?,
            settings.unscheduled_after,
            "not bound to a node",
        )),
        // An init container that runs is `init_container_running`'s to time.
        PodPhase::Pending if pod.pending_init_container().is_some() => {
            let (_, init) = pod.pending_init_container()?;
            if init.state.running.is_some() {
                return None;
            }
            Some((on_node_since(pod)?, settings.init_after, "not initialized"))
        }
        PodPhase::Pending => Some((
            on_node_since(pod)?,
            settings.creating_after,
            "containers not running",
        )),
        _ if of_finished_job(cluster, pod) => None,
        // Running, or Unknown (its node does not report): not Ready.
        _ => {
            let ready = ready.filter(|c| c.status != ConditionStatus::True)?;
            Some((
                ready.last_transition_time.or(pod.status.start_time)?,
                settings.not_ready_after,
                "not Ready",
            ))
        }
    }
}

fn judge(cluster: &Cluster, pod: &Pod, now: &Moment, settings: &Settings) -> Option<Finding> {
    let (since, threshold, state) = stuck_since(cluster, pod, settings)?;
    if !now.waited(since, threshold) {
        return None;
    }
    let waited = now.age_of(since);
    let events = events_of(cluster, pod);
    let quoted: Vec<String> = events
        .iter()
        .rev()
        .take(EVENTS_QUOTED)
        .map(|e| format!("{}: {}", e.reason, e.message))
        .collect();
    let phase = phase_name(pod.status.phase);
    let conditions: Vec<String> = [
        ("PodScheduled", pod.status.conditions.pod_scheduled.as_ref()),
        ("Ready", pod.status.conditions.ready.as_ref()),
    ]
    .into_iter()
    .filter_map(|(name, c)| c.map(|c| condition(name, c)))
    .collect();
    let waiting: Vec<String> = pod
        .container_statuses()
        .filter_map(|(kind, s)| {
            let w = s.state.waiting.as_ref()?;
            Some(format!(
                "{} {:?} waits ({})",
                kind.as_str(),
                s.name,
                w.reason
            ))
        })
        .collect();
    let mut message = format!("{phase} and {state} for {waited}; no anomaly explains it");
    if !waiting.is_empty() {
        message.push_str(&format!(": {}", waiting.join(", ")));
    }
    match quoted.first() {
        Some(latest) => message.push_str(&format!("; latest warning: {latest}")),
        None => message.push_str("; no warning event"),
    }
    Some(pod_finding(
        pod,
        None,
        Cause::PodStuck(StuckCause::Unknown),
        Some(since),
        message,
        Detail::Stuck(Box::new(StuckDetail {
            phase,
            conditions,
            events: quoted,
        })),
    ))
}

fn phase_name(phase: PodPhase) -> &'static str {
    match phase {
        PodPhase::Pending => "Pending",
        PodPhase::Running => "Running",
        PodPhase::Succeeded => "Succeeded",
        PodPhase::Failed => "Failed",
        PodPhase::Unknown => "Unknown",
    }
}

/// `Ready=False (ContainersNotReady)`.
fn condition(name: &str, c: &PodCondition) -> String {
    let status = match c.status {
        ConditionStatus::True => "True",
        ConditionStatus::False => "False",
        ConditionStatus::Unknown => "Unknown",
    };
    match c.reason() {
        "" => format!("{name}={status}"),
        reason => format!("{name}={status} ({reason})"),
    }
}
