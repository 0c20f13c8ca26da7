//! Container-level trouble on scheduled pods, read from each container's
//! waiting state and the kubelet's warning events about the pod:
//!
//! - `container_creating`: ContainerCreating (PodInitializing, when the pod
//!   has init containers) with sandbox, network, mount or attach failures
//!   reported (or for too long with nothing reported);
//! - `image_pull`: ErrImagePull, ImagePullBackOff, ImageInspectError,
//!   InvalidImageName, ErrImageNeverPull. The back-off message says only
//!   `Back-off pulling image "x"`: the cause is in the preceding ErrImagePull
//!   message and the kubelet's `Failed` event for that container;
//! - `crash_loop`: CrashLoopBackOff, judged by the last termination and, for
//!   a container its liveness or startup probe killed, the kubelet's
//!   `Unhealthy` (and `Killing`) events during the run that last ended;
//! - `container_config`: CreateContainerConfigError, CreateContainerError,
//!   RunContainerError, StartError.
//!
//! Init containers and native sidecars are read as the app's containers are:
//! their statuses and their events (`spec.initContainers{name}`), the finding
//! saying which kind of container it is.

use crate::model::{
    Cluster, ContainerKind, ContainerStatus, Event, Kind, Pod, PodPhase, Terminated, Time,
};

use super::classify;
use super::classify::ProbeKind;
use super::image_ref::registry_host;
use super::{
    Cause, ConfigCause, CrashLoopCause, CreatingCause, Detail, Finding, ImagePullCause,
    ProbeFailure, Settings, namespace_of, node_of,
};

/// Waiting reasons of a container whose image is not there (pkg/kubelet/images/types.go).
const IMAGE_PULL_REASONS: &[&str] = &[
    "ErrImagePull",
    "ImagePullBackOff",
    "ImageInspectError",
    "InvalidImageName",
    "ErrImageNeverPull",
    "RegistryUnavailable",
    "SignatureValidationFailed",
];

/// Waiting reasons of a container that cannot be created or started
/// (pkg/kubelet/container/sync_result.go, kuberuntime).
const CONFIG_REASONS: &[&str] = &[
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "StartError",
    "PreStartHookError",
    "PostStartHookError",
    "PreCreateHookError",
];

/// Waiting reasons of a container the kubelet has not created yet: the
/// default it reports, `PodInitializing` instead of `ContainerCreating` when
/// the pod has init containers (`convertToAPIContainerStatuses`,
/// pkg/kubelet/kubelet_pods.go). Until the pod has a sandbox every container
/// reads so, init containers too.
const NOT_CREATED_REASONS: &[&str] = &["ContainerCreating", "PodInitializing"];

/// Whether the pod waits for its containers to be created: no status yet, the
/// container its start waits on (its first unfinished init container, else an
/// app container) not created, or an app container being created again.
/// App containers that read `PodInitializing` while an init container runs
/// are waiting for it, not being created.
fn is_creating(pod: &Pod) -> bool {
    let not_created = |s: &ContainerStatus| {
        s.state.waiting.as_ref().is_some_and(|w| {
            w.reason.is_empty() || NOT_CREATED_REASONS.contains(&w.reason.as_str())
        })
    };
    if pod.status.phase == PodPhase::Pending && pod.status.container_statuses.is_empty() {
        return pod
            .pending_init_container()
            .is_none_or(|(_, s)| not_created(s));
    }
    match pod.pending_init_container() {
        Some((_, s)) => not_created(s),
        None => pod.status.container_statuses.iter().any(not_created),
    }
}

/// `unsettled`: the cluster's unsettled pods, where every pod with a waiting
/// container or none created yet is.
/// Whether a container of the pod waits: what the container diagnoses
/// report (and so what explains a pod that is not Ready).
pub(super) fn has_waiting_container(pod: &Pod) -> bool {
    pod.container_statuses()
        .any(|(_, s)| s.state.waiting.is_some())
}

pub(super) fn diagnose(
    cluster: &Cluster,
    unsettled: &[&Pod],
    now: Time,
    settings: &Settings,
    out: &mut Vec<Finding>,
) {
    for pod in unsettled.iter().filter(|p| {
        !p.spec.node_name.is_empty() && !p.is_terminating() && !p.status.phase.is_terminal()
    }) {
        let creating = is_creating(pod);
        let waiting = pod
            .container_statuses()
            .any(|(_, s)| s.state.waiting.is_some());
        if !creating && !waiting {
            continue;
        }
        // Events are looked up only for pods with something to explain.
        let events: Vec<&Event> = cluster
            .events_about(
                Kind::Pod,
                &pod.metadata.namespace,
                &pod.metadata.name,
                &pod.metadata.uid,
            )
            .collect();
        for (kind, status) in pod.container_statuses() {
            let Some(waiting) = &status.state.waiting else {
                continue;
            };
            let reason = waiting.reason.as_str();
            let container_events: Vec<&Event> = events
                .iter()
                .copied()
                .filter(|e| e.regarding.field_path == kind.field_path(&status.name))
                .collect();
            let found = match reason {
                _ if IMAGE_PULL_REASONS.contains(&reason) => {
                    Some(image_pull(pod, kind, status, &container_events))
                }
                "CrashLoopBackOff" => Some(crash_loop(pod, kind, status, &container_events)),
                _ if CONFIG_REASONS.contains(&reason) => {
                    Some(container_config(pod, kind, status, &container_events))
                }
                _ => None,
            };
            out.extend(found);
        }
        if creating {
            out.extend(container_creating(pod, &events, now, settings));
        }
    }
}

pub(super) fn pod_finding(
    pod: &Pod,
    container: Option<(ContainerKind, &str)>,
    cause: Cause,
    since: Option<Time>,
    message: String,
    detail: Detail,
) -> Finding {
    Finding {
        kind: Kind::Pod,
        namespace: namespace_of(&pod.metadata.namespace),
        name: pod.metadata.name.to_string(),
        container: container.map(|(_, name)| name.to_string()),
        container_kind: container.map(|(kind, _)| kind),
        node: node_of(&pod.spec.node_name),
        cause,
        since,
        message,
        detail,
    }
}

/// When the pod reached its node: scheduling time, else start time, else creation.
pub(super) fn on_node_since(pod: &Pod) -> Option<Time> {
    pod.scheduled_at()
        .or(pod.status.start_time)
        .or(pod.metadata.creation_timestamp)
}

/// The first time any of `events` was seen.
pub(super) fn first_seen(events: &[&Event]) -> Option<Time> {
    events.iter().filter_map(|e| e.first_seen).min()
}

fn container_creating(
    pod: &Pod,
    events: &[&Event],
    now: Time,
    settings: &Settings,
) -> Option<Finding> {
    let since = on_node_since(pod);
    let explained = events
        .iter()
        .rev()
        .find_map(|e| classify::creating_event(&e.reason, &e.message).map(|cause| (cause, *e)));
    let (cause, message, since) = match explained {
        Some((cause, event)) => (cause, event.message.clone(), since.or(event.first_seen)),
        None => {
            let since = since?;
            let waited = now.duration_since(since);
            if waited < settings.creating_after {
                return None;
            }
            (
                CreatingCause::Unknown,
                format!(
                    "containers still being created {} after the pod reached its node",
                    crate::model::age::short(waited)
                ),
                Some(since),
            )
        }
    };
    Some(pod_finding(
        pod,
        None,
        Cause::ContainerCreating(cause),
        since,
        message,
        Detail::None,
    ))
}

fn image_pull(
    pod: &Pod,
    kind: ContainerKind,
    status: &ContainerStatus,
    events: &[&Event],
) -> Finding {
    let waiting = status.state.waiting.clone().unwrap_or_default();
    let pull_failures: Vec<&Event> = events
        .iter()
        .copied()
        .filter(|e| classify::is_pull_failure_event(&e.reason, &e.message))
        .collect();
    let (cause, message) = match waiting.reason.as_str() {
        "InvalidImageName" => (ImagePullCause::InvalidName, waiting.message.clone()),
        "ErrImageNeverPull" => (ImagePullCause::NeverPull, waiting.message.clone()),
        "ImageInspectError" => (
            ImagePullCause::InspectError,
            first_non_empty(&[
                &waiting.message,
                pull_failures.last().map_or("", |e| e.message.as_str()),
            ]),
        ),
        _ => {
            // The ErrImagePull message, then the latest Failed event, then the
            // waiting message (newer kubelets append the error to the back-off).
            let mut candidates: Vec<&str> = Vec::new();
            if waiting.reason == "ErrImagePull" {
                candidates.push(&waiting.message);
            }
            candidates.extend(pull_failures.iter().rev().map(|e| e.message.as_str()));
            candidates.push(&waiting.message);
            candidates
                .iter()
                .find_map(|m| classify::image_pull(m).map(|c| (c, m.to_string())))
                .unwrap_or_else(|| (ImagePullCause::Unknown, first_non_empty(&candidates)))
        }
    };
    let image = status.image.clone();
    pod_finding(
        pod,
        Some((kind, &status.name)),
        Cause::ImagePull(cause),
        first_seen(&pull_failures).or_else(|| on_node_since(pod)),
        message,
        Detail::ImagePull {
            registry: registry_host(&image),
            image,
            waiting_reason: waiting.reason,
        },
    )
}

fn first_non_empty(messages: &[&str]) -> String {
    messages
        .iter()
        .find(|m| !m.is_empty())
        .copied()
        .unwrap_or_default()
        .to_string()
}

fn crash_loop(
    pod: &Pod,
    kind: ContainerKind,
    status: &ContainerStatus,
    events: &[&Event],
) -> Finding {
    let last: Option<&Terminated> = status
        .last_state
        .terminated
        .as_deref()
        .or(status.state.terminated.as_deref());
    let mut cause = last.map_or(CrashLoopCause::Unknown, |t| {
        classify::last_termination(&t.reason, t.exit_code, &t.message)
    });
    let waiting = status
        .state
        .waiting
        .as_ref()
        .map_or("", |w| w.message.as_str());
    let mut message = match last {
        Some(t) if !t.message.is_empty() => t.message.clone(),
        Some(t) => format!("last terminated: {} (exit code {})", t.reason, t.exit_code),
        None => waiting.to_string(),
    };
    let mut probe_failure = None;
    // An init container runs once, before the app: one that crash-loops
    // beside app containers that run was re-run after its exited container
    // was removed (kubernetes/kubernetes#67261), whatever its exit says.
    if kind == ContainerKind::Init
        && pod
            .status
            .container_statuses
            .iter()
            .any(|s| s.state.running.is_some())
    {
        cause = CrashLoopCause::InitRerun;
    }
    // An OOM kill is the kernel's word and outranks a probe failing meanwhile.
    if cause != CrashLoopCause::OomKilled
        && cause != CrashLoopCause::InitRerun
        && let Some(kill) = probe_kill(last, events)
    {
        cause = kill.cause;
        probe_failure = kill.failure;
        message = kill.message;
    }
    let back_offs: Vec<&Event> = events
        .iter()
        .copied()
        .filter(|e| e.reason == "BackOff")
        .collect();
    pod_finding(
        pod,
        Some((kind, &status.name)),
        Cause::CrashLoop(cause),
        first_seen(&back_offs).or(last.and_then(|t| t.finished_at)),
        message,
        Detail::CrashLoop {
            exit_code: last.map(|t| t.exit_code),
            restarts: status.restart_count,
            probe_failure,
        },
    )
}

/// A restart the kubelet caused by a failed probe.
struct ProbeKill {
    cause: CrashLoopCause,
    failure: Option<ProbeFailure>,
    message: String,
}

/// Events this close around the last run still count as about it: event
/// times have a second's precision and the kubelet records the kill before
/// the runtime reports the exit.
const EVENT_SLACK: jiff::SignedDuration = jiff::SignedDuration::from_secs(30);

/// The liveness or startup probe that killed the container's last run: a
/// `Killing` event naming the probe, or `Unhealthy` events of that probe seen
/// during the run (from its start to its end). An exit code alone (137, 143)
/// says only that a signal ended it.
fn probe_kill(last: Option<&Terminated>, events: &[&Event]) -> Option<ProbeKill> {
    let during_last_run = |e: &Event| {
        let started = last.and_then(|t| t.started_at);
        let finished = last.and_then(|t| t.finished_at);
        let after_start = match (started, e.last_seen) {
            (Some(s), Some(seen)) => seen >= s.checked_sub(EVENT_SLACK).unwrap_or(s),
            _ => true,
        };
        let before_end = match (finished, e.first_seen) {
            (Some(f), Some(seen)) => seen <= f.checked_add(EVENT_SLACK).unwrap_or(f),
            _ => true,
        };
        after_start && before_end
    };
    let killed_by = events
        .iter()
        .rev()
        .filter(|e| during_last_run(e))
        .find_map(|e| classify::probe_kill(&e.reason, &e.message));
    let failed = events
        .iter()
        .rev()
        .filter(|e| during_last_run(e))
        .filter_map(|e| classify::probe_event(&e.reason, &e.message).map(|r| (r, *e)))
        .find(|(r, _)| match killed_by {
            Some(kind) => r.probe == kind,
            None => matches!(r.probe, ProbeKind::Liveness | ProbeKind::Startup),
        });
    let probe = killed_by.or(failed.as_ref().map(|(r, _)| r.probe))?;
    let cause = match probe {
        ProbeKind::Startup => CrashLoopCause::StartupProbe,
        _ => CrashLoopCause::LivenessProbe,
    };
    let message = match &failed {
        Some((_, event)) => event.message.clone(),
        None => events
            .iter()
            .rev()
            .find(|e| classify::probe_kill(&e.reason, &e.message).is_some())
            .map(|e| e.message.clone())
            .unwrap_or_default(),
    };
    Some(ProbeKill {
        cause,
        failure: failed.map(|(r, _)| r.failure),
        message,
    })
}

fn container_config(
    pod: &Pod,
    kind: ContainerKind,
    status: &ContainerStatus,
    events: &[&Event],
) -> Finding {
    let waiting = status.state.waiting.clone().unwrap_or_default();
    let failures: Vec<&Event> = events
        .iter()
        .copied()
        .filter(|e| e.reason == "Failed")
        .collect();
    let cause = classify::container_config(&waiting.message).unwrap_or(ConfigCause::Other);
    pod_finding(
        pod,
        Some((kind, &status.name)),
        Cause::ContainerConfig(cause),
        first_seen(&failures).or_else(|| on_node_since(pod)),
        waiting.message,
        Detail::ContainerConfig {
            waiting_reason: waiting.reason,
        },
    )
}
