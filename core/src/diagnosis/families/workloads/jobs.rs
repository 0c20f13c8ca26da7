//! The job controller's verdicts (a Job failed, a Job that does not
//! complete) and a failed pod of no controller: how their pods ended.

use std::collections::BTreeMap;

use super::{Explanation, Known, Subject, VerdictCause, controller_only, explain, finding};
use crate::diagnosis::classify;
use crate::diagnosis::{
    Cause, CrashLoopCause, Detail, Finding, Input, Owner, VerdictDetail, namespace_of, node_of,
};
use crate::model::{Condition, ContainerStatus, Job, Kind, Name, Pod, PodPhase, Time};

/// Failed pods by their cause, with when each ended.
type FailedPods<'a> = BTreeMap<(VerdictCause, &'static str), Vec<(&'a Pod, Option<Time>)>>;

/// The controller's reason for failing a Job, as a cause.
fn job_reason(reason: &str) -> VerdictCause {
    match reason {
        "BackoffLimitExceeded" => VerdictCause::BackoffLimitExceeded,
        "DeadlineExceeded" => VerdictCause::DeadlineExceeded,
        "PodFailurePolicy" => VerdictCause::PodFailurePolicy,
        "MaxFailedIndexesExceeded" | "FailedIndexes" => VerdictCause::MaxFailedIndexesExceeded,
        _ => VerdictCause::Failed,
    }
}

/// How a container's run ended: its cause, its own (`pod_cause`), and when.
type Ending = (VerdictCause, &'static str, Option<Time>);

/// How a container's run ended, as a cause, when it ended badly.
fn termination(status: &ContainerStatus) -> Option<Ending> {
    let t = status
        .state
        .terminated
        .as_deref()
        .or(status.last_state.terminated.as_deref())?;
    let cause = classify::last_termination(&t.reason, t.exit_code, &t.message);
    let verdict = match cause {
        CrashLoopCause::OomKilled => VerdictCause::OomKilled,
        CrashLoopCause::Completed => return None,
        CrashLoopCause::LivenessProbe
        | CrashLoopCause::StartupProbe
        | CrashLoopCause::Error
        | CrashLoopCause::ContainerCannotRun
        | CrashLoopCause::StartError
        | CrashLoopCause::InitRerun
        | CrashLoopCause::Unknown => VerdictCause::ExitError,
    };
    Some((verdict, cause.as_str(), t.finished_at))
}

/// A failed pod's cause: what its containers' last runs say (or the kubelet's
/// deadline), with the container and when it ended.
fn failed_pod(pod: &Pod) -> Option<(VerdictCause, &'static str, Option<String>, Option<Time>)> {
    if pod.status.reason() == "DeadlineExceeded" {
        return Some((
            VerdictCause::DeadlineExceeded,
            "deadline_exceeded",
            None,
            pod.status.start_time,
        ));
    }
    pod.container_statuses().find_map(|(_, s)| {
        termination(s)
            .map(|(cause, pod_cause, at)| (cause, pod_cause, Some(s.name.to_string()), at))
    })
}

/// How a failed pod's failed container ended, in the kubelet's words.
fn how_it_ended(pod: &Pod) -> String {
    let Some((_, _, Some(container), _)) = failed_pod(pod) else {
        return pod.status.message().to_string();
    };
    pod.container_statuses()
        .find(|(_, s)| s.name == container)
        .and_then(|(_, s)| {
            s.state
                .terminated
                .as_deref()
                .or(s.last_state.terminated.as_deref())
        })
        .map(|t| match (t.message.is_empty(), t.reason.is_empty()) {
            (false, _) => t.message.clone(),
            (true, false) => format!("{} (exit code {})", t.reason, t.exit_code),
            (true, true) => format!("exit code {}", t.exit_code),
        })
        .map(|ended| format!("container {container:?} ended: {ended}"))
        .unwrap_or_default()
}

pub(super) fn job_verdict(input: &Input<'_>, known: &Known<'_, '_>, job: &Job) -> Option<Finding> {
    let m = &job.metadata;
    if job.spec.suspend || known.explains(Kind::Job, &m.namespace, &m.name).is_some() {
        return None;
    }
    let pods: Vec<&Pod> = input
        .cluster
        .pods_owned_by(Kind::Job, &m.namespace, &m.name, &m.uid)
        .collect();
    let owner = Some(Owner {
        kind: Name::interned(Kind::Job.as_str()),
        name: m.name.clone(),
    });
    // What the pods say: a finding about one of them, or how the failed ones ended.
    let from_findings = explain(pods.iter().filter_map(|p| known.of(p)));
    match job.status.outcome.failed.as_deref() {
        Some(failed) => Some(job_failed(job, failed, &pods, from_findings, owner)),
        None => {
            let from_pods = from_findings.or_else(|| restarted_in_place(&pods, &owner));
            job_not_completed(input, job, from_pods, owner)
        }
    }
}

/// The Job as a verdict's subject, with what its controller said.
fn subject(job: &Job, said: String) -> Subject<'_> {
    Subject {
        kind: Kind::Job,
        namespace: &job.metadata.namespace,
        name: &job.metadata.name,
        wanted: job.spec.completions.unwrap_or(1),
        ready: job.status.succeeded,
        said,
    }
}

/// How the failed pods ended, by the cause most of them share (the latest
/// to end as the example).
fn from_failures(pods: &[&Pod], owner: &Option<Owner>) -> Option<Explanation> {
    let mut by_cause: FailedPods<'_> = BTreeMap::new();
    for pod in pods.iter().filter(|p| p.status.phase == PodPhase::Failed) {
        if let Some((cause, pod_cause, _, at)) = failed_pod(pod) {
            by_cause
                .entry((cause, pod_cause))
                .or_default()
                .push((pod, at));
        }
    }
    let ((cause, pod_cause), group) = by_cause
        .into_iter()
        .max_by(|(ka, a), (kb, b)| a.len().cmp(&b.len()).then(kb.cmp(ka)))?;
    let (pod, at) = group.iter().max_by_key(|(_, at)| *at)?;
    Some(Explanation {
        cause,
        pod_cause: Some(pod_cause),
        pods: group.len(),
        example: Some((pod.metadata.name.to_string(), how_it_ended(pod))),
        covered: false,
        owner: owner.clone(),
        node: node_of(&pod.spec.node_name),
        registry: None,
        since: *at,
    })
}

/// Running pods whose containers restarted in place (`restartPolicy:
/// OnFailure`: the kubelet restarts the container, the pod stays) after a
/// run that ended badly, by the cause most share: a Job whose only pod is
/// OOM-killed and runs again shows no failed pod and no finding (its
/// container waits only in the back-off between runs), and the restarts are
/// why it does not complete. Since the pod started: its earlier runs' ends
/// are not kept.
fn restarted_in_place(pods: &[&Pod], owner: &Option<Owner>) -> Option<Explanation> {
    let mut by_cause: FailedPods<'_> = BTreeMap::new();
    for pod in pods
        .iter()
        .filter(|p| p.status.phase == PodPhase::Running && !p.is_terminating())
    {
        if let Some((_, (cause, pod_cause, _))) = restart_of(pod) {
            by_cause
                .entry((cause, pod_cause))
                .or_default()
                .push((pod, pod.status.start_time));
        }
    }
    let ((cause, pod_cause), group) = by_cause
        .into_iter()
        .max_by(|(ka, a), (kb, b)| a.len().cmp(&b.len()).then(kb.cmp(ka)))?;
    let (pod, _) = group
        .iter()
        .min_by_key(|(p, at)| (*at, p.metadata.name.clone()))?;
    let (s, _) = restart_of(pod)?;
    let last = s
        .last_state
        .terminated
        .as_deref()
        .map(|t| format!("{} (exit code {})", t.reason, t.exit_code))
        .unwrap_or_default();
    let restarts = crate::diagnosis::wording::count(s.restart_count, "time", "times");
    Some(Explanation {
        cause,
        pod_cause: Some(pod_cause),
        pods: group.len(),
        example: Some((
            pod.metadata.name.to_string(),
            format!(
                "container {:?} restarted in place {restarts}, its last run ended {last}",
                s.name
            ),
        )),
        covered: false,
        owner: owner.clone(),
        node: node_of(&pod.spec.node_name),
        registry: None,
        since: group.iter().filter_map(|(_, at)| *at).min(),
    })
}

/// A container of `pod` that restarted after a run that ended badly, with
/// how it ended.
fn restart_of(pod: &Pod) -> Option<(&ContainerStatus, Ending)> {
    pod.container_statuses()
        .filter(|(_, s)| s.restart_count > 0 && s.state.terminated.is_none())
        .find_map(|(_, s)| termination(s).map(|t| (s, t)))
}

/// `job_failed`: the controller failed the Job (its Failed or FailureTarget
/// condition).
fn job_failed(
    job: &Job,
    failed: &Condition,
    pods: &[&Pod],
    from_findings: Option<Explanation>,
    owner: Option<Owner>,
) -> Finding {
    let by_controller = job_reason(&failed.reason);
    // A failure policy rule or a deadline is the controller's own
    // decision; a backoff limit is the pods' failures counted.
    let pods_tell = match by_controller {
        VerdictCause::BackoffLimitExceeded | VerdictCause::Failed => {
            from_failures(pods, &owner).or(from_findings)
        }
        VerdictCause::DeadlineExceeded => from_findings,
        VerdictCause::PodFailurePolicy | VerdictCause::MaxFailedIndexesExceeded => None,
        // Not a reason of the controller's (`job_reason` gives none of them).
        VerdictCause::ImagePull
        | VerdictCause::CrashLoop
        | VerdictCause::OomKilled
        | VerdictCause::ExitError
        | VerdictCause::ContainerConfig
        | VerdictCause::ContainerCreating
        | VerdictCause::InitContainer
        | VerdictCause::Pending
        | VerdictCause::NotReady
        | VerdictCause::Terminating
        | VerdictCause::Evicted
        | VerdictCause::PodStuck
        | VerdictCause::ProgressDeadlineExceeded
        | VerdictCause::ReplicasUnavailable
        | VerdictCause::DaemonPodFailed
        | VerdictCause::RunningLong
        | VerdictCause::Unknown => None,
    };
    let explanation = match pods_tell {
        Some(e) => Explanation {
            since: failed.last_transition_time.or(e.since),
            owner: owner.clone(),
            ..e
        },
        None => {
            let pod_cause = (by_controller == VerdictCause::PodFailurePolicy)
                .then(|| from_failures(pods, &owner))
                .flatten()
                .and_then(|e| e.pod_cause);
            Explanation {
                pod_cause,
                ..controller_only(by_controller, failed.last_transition_time, owner)
            }
        }
    };
    let said = match (failed.reason.as_str(), failed.message.as_str()) {
        ("", "") => "Failed".to_string(),
        (reason, "") | ("", reason) => reason.to_string(),
        (reason, message) => format!("{reason}: {message}"),
    };
    finding(
        &subject(job, said),
        Cause::JobFailed(explanation.cause),
        explanation,
    )
}

/// `job_not_completed`: still active, its pods stuck, or long after it
/// started with nothing to show.
fn job_not_completed(
    input: &Input<'_>,
    job: &Job,
    from_findings: Option<Explanation>,
    owner: Option<Owner>,
) -> Option<Finding> {
    if job.status.outcome.over || job.status.active == 0 {
        return None;
    }
    let started = job.status.start_time;
    let explanation = match from_findings {
        Some(e) if e.covered => return None,
        Some(e) => Explanation {
            owner: owner.clone(),
            ..e
        },
        None if started.is_some_and(|s| input.now.waited(s, input.settings.job_after)) => {
            controller_only(VerdictCause::RunningLong, started, owner)
        }
        None => return None,
    };
    let said = match started {
        Some(s) => format!(
            "active for {} with {} running pod{}",
            input.now.age_of(s),
            job.status.active,
            if job.status.active == 1 { "" } else { "s" }
        ),
        None => String::new(),
    };
    Some(finding(
        &subject(job, said),
        Cause::JobNotCompleted(explanation.cause),
        explanation,
    ))
}

/// A pod of no controller that failed, and that no other family explains (an
/// eviction is `pod_evicted`'s).
pub(super) fn pod_failed(known: &Known<'_, '_>, pod: &Pod) -> Option<Finding> {
    if pod.status.phase != PodPhase::Failed
        || pod.metadata.controller().is_some()
        || pod.is_terminating()
        || known.of(pod).is_some()
    {
        return None;
    }
    let (cause, pod_cause, container, at) =
        failed_pod(pod).unwrap_or((VerdictCause::Unknown, "unknown", None, None));
    let message = match (pod.status.message(), how_it_ended(pod)) {
        (said, _) if !said.is_empty() => said.to_string(),
        (_, ended) if !ended.is_empty() => ended,
        _ => "phase Failed, and no container says how".to_string(),
    };
    Some(Finding {
        kind: Kind::Pod,
        namespace: namespace_of(&pod.metadata.namespace),
        name: pod.metadata.name.clone(),
        container_kind: container.as_deref().map(|c| pod.container_kind(c)),
        container: container.as_deref().map(Name::interned),
        node: node_of(&pod.spec.node_name),
        owner: None,
        cause: Cause::PodFailed(cause),
        since: at
            .or(pod.status.start_time)
            .or(pod.metadata.creation_timestamp),
        message: message.into(),
        detail: Detail::Verdict(Box::new(VerdictDetail {
            pod_cause: Some(pod_cause),
            pods: 1,
            example_pod: None,
            wanted: 1,
            ready: 0,
            reason: pod.status.reason().to_string(),
            registry: None,
        })),
    })
}
