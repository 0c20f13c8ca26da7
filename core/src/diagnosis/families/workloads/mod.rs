//! The controllers' own verdicts, with their cause: a Deployment whose
//! rollout is stuck or whose pods are unavailable, a StatefulSet whose update
//! does not roll out, a DaemonSet whose pods are unavailable, a Job that
//! failed or runs far too long, a pod of no controller that failed.
//!
//! The cause is the one of the pods that make it so, taken from the findings
//! the pod families already made (this family runs after them): the newest
//! ReplicaSet's pods for a rollout (the one the `ProgressDeadlineExceeded`
//! message names), the lowest ordinal in trouble for a StatefulSet, the
//! failing pods (by node) for a DaemonSet, the failed pods' last termination
//! for a Job. When the pods are gone, the controller's own condition, reason
//! and message decide. A Job retrying within its `backoffLimit`, a suspended
//! Job and a paused Deployment are not failures; a workload another family
//! already explains (blocked by a Terminating pod, refused its pods, short of
//! nodes) gets no second finding, nor does one whose pods an alert about
//! their node or the whole cluster stands for (no sandbox on a node, a
//! scheduler that schedules nothing, a node under pressure).
//!
//! A verdict its pods explain appears as soon as their findings do, with
//! their `since`: its alert's `for` is shorter than theirs, so that it is
//! the one notification (tests/artifacts/alert_rules.rs checks the order).

use crate::diagnosis::Found;
use std::collections::BTreeMap;

use foldhash::HashMap;

use crate::diagnosis::family::PodsVerdict;
use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, Sample, since, text};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{
    Anomaly, Cause, Detail, Finding, Input, Owner, Scope, VerdictDetail, Verdicts,
};
use crate::model::{Kind, Meta, Name, Pod, Time};

mod controllers;
mod jobs;

vocabulary! {
    /// Why a workload's controller says it is stuck or failed (anomalies
    /// `rollout_stuck`, `statefulset_update_stuck`, `daemonset_rollout_stuck`,
    /// `job_failed`, `job_not_completed`, `pod_failed`): its pods' cause where
    /// they tell (`pod_cause` names the pods' own), else its own verdict.
    pub enum VerdictCause {
        ImagePull = "image_pull": "Its pods' images do not pull (pod_cause: the image pull cause).",
        CrashLoop = "crash_loop": "Its pods' containers crash-loop (pod_cause: their last termination, a probe kill...).",
        OomKilled = "oom_killed": "Its pods' containers are killed for exceeding their memory limit.",
        ExitError = "exit_error": "Its pods' containers exited with an error (a Job's or a one-off pod's: pod_cause error, start_error, container_cannot_run...).",
        ContainerConfig = "container_config": "Its pods' containers cannot be created from their configuration (pod_cause: a missing ConfigMap, Secret or key...).",
        ContainerCreating = "container_creating": "Its pods never get their containers created (pod_cause: sandbox, network, volume mount or attach).",
        InitContainer = "init_container": "Its pods wait on an init container that never finishes or a sidecar that never starts.",
        Pending = "pending": "Its pods cannot be scheduled (pod_cause: the scheduler's main reason).",
        NotReady = "not_ready": "Its pods run but are not Ready (pod_cause: a readiness probe, a readiness gate...).",
        Terminating = "terminating": "Its pods are stuck Terminating (pod_cause: why).",
        Evicted = "evicted": "Its pods were evicted or rejected by their nodes (pod_cause: the eviction cause).",
        PodStuck = "pod_stuck": "Its pods are stuck for a reason no diagnosis recognises.",
        ProgressDeadlineExceeded = "progress_deadline_exceeded": "The deployment controller says the rollout made no progress within progressDeadlineSeconds, and no pod of it explains why.",
        ReplicasUnavailable = "replicas_unavailable": "The controller counts pods unavailable longer than --unavailable-after and none of its pods says why: they are gone or not in view (a StatefulSet's or DaemonSet's pods never created, deleted, or left out of a dump), or their events aged out.",
        DaemonPodFailed = "daemon_pod_failed": "The DaemonSet controller keeps finding its pod failed on a node and deletes it to make another (its FailedDaemonPod events, which name the node): the kubelet there rejects the pod or its containers end, and no pod in view says why (each failed one is deleted at once).",
        BackoffLimitExceeded = "backoff_limit_exceeded": "The job controller failed the Job: its pods failed more than backoffLimit times, and none is left to say how.",
        DeadlineExceeded = "deadline_exceeded": "The Job (or the pod) ran longer than its activeDeadlineSeconds.",
        PodFailurePolicy = "pod_failure_policy": "A podFailurePolicy rule failed the Job on a pod's exit code or condition (the message names the container, the exit code and the rule).",
        MaxFailedIndexesExceeded = "max_failed_indexes_exceeded": "An indexed Job failed more indexes than maxFailedIndexes allows (or has failed indexes).",
        RunningLong = "running_long": "The Job has been active longer than --job-after and its pods run without any finding: slow, or waiting for something that never comes.",
        Failed = "failed": "The controller failed it for a reason not in this list (the message is kept).",
        Unknown = "unknown": "Nothing says why.",
    }
}

impl PodsVerdict for VerdictCause {
    // About a controller (or a pod of none), not the pods a verdict counts.
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

family!(
    "workloads" each controller: RolloutStuck,
    StatefulSetUpdateStuck,
    DaemonSetRolloutStuck,
    JobFailed,
    JobNotCompleted,
    PodFailed,
);

/// `[owner_kind, owner_name, node, registry, cause, pod_cause]` of a verdict:
/// the controller whose pods explain it (so that its alert stands for theirs),
/// and the node and registry of the pod it names (so that a lost node's or a
/// failing registry's page covers it).
fn verdict_labels(f: &Finding) -> Vec<String> {
    let (kind, name) = f
        .owner
        .as_ref()
        .map(|o| (o.kind.clone(), o.name.clone()))
        .unwrap_or_default();
    let registry = match &f.detail {
        Detail::Verdict(v) => text(&v.registry),
        _ => String::new(),
    };
    vec![
        kind.to_string(),
        name.to_string(),
        text(&f.node),
        registry,
        f.cause.to_string(),
        pod_cause(f),
    ]
}

fn pod_cause(f: &Finding) -> String {
    match &f.detail {
        Detail::Verdict(v) => v.pod_cause.unwrap_or_default().to_string(),
        _ => String::new(),
    }
}

fn verdict_since(f: &Finding) -> Vec<Sample> {
    since(f, verdict_labels(f))
}

const VERDICT_LABELS: &[&str] = &[
    "owner_kind",
    "owner_name",
    "node",
    "registry",
    "cause",
    "pod_cause",
];

const METRICS: &[MetricFamily] = &[
    MetricFamily {
        name: "kube_lifecycle_deployment_rollout_stuck_since_timestamp_seconds",
        help: "Unix time a Deployment that lacks available pods or whose rollout does not finish got into trouble: its pods' (the newest ReplicaSet's first), else its controller's (ProgressDeadlineExceeded, or pods unavailable past --unavailable-after), by cause, the pods' own cause (pod_cause) and the ReplicaSet whose pods explain it (owner_kind, owner_name).",
        identity: Identity::Deployment,
        labels: VERDICT_LABELS,
        anomalies: &[Anomaly::RolloutStuck],
        aggregate: false,
        samples: verdict_since,
        fold: Fold::Never,
        example: r#"count by (namespace, cause) (kube_lifecycle_deployment_rollout_stuck_since_timestamp_seconds)"#,
    },
    MetricFamily {
        name: "kube_lifecycle_statefulset_update_stuck_since_timestamp_seconds",
        help: "Unix time the lowest ordinal in trouble of a StatefulSet that is not rolled out or not Ready got into trouble, by cause and the pod's own cause (pod_cause); with no pod of it in view to say why, when its shortage began (replicas_unavailable).",
        identity: Identity::StatefulSet,
        labels: VERDICT_LABELS,
        anomalies: &[Anomaly::StatefulSetUpdateStuck],
        aggregate: false,
        samples: verdict_since,
        fold: Fold::Never,
        example: "time() - kube_lifecycle_statefulset_update_stuck_since_timestamp_seconds > 1800",
    },
    MetricFamily {
        name: "kube_lifecycle_daemonset_rollout_stuck_since_timestamp_seconds",
        help: "Unix time a DaemonSet's pods became unavailable on some of its nodes, by cause, the pods' own cause (pod_cause) and one of their nodes; with no pod of it in view to say why, when its controller began deleting failed pods (daemon_pod_failed, on the node it names) or its shortage began (replicas_unavailable).",
        identity: Identity::DaemonSet,
        labels: VERDICT_LABELS,
        anomalies: &[Anomaly::DaemonSetRolloutStuck],
        aggregate: false,
        samples: verdict_since,
        fold: Fold::Never,
        example: "kube_lifecycle_daemonset_rollout_stuck_since_timestamp_seconds",
    },
    MetricFamily {
        name: "kube_lifecycle_job_failed_since_timestamp_seconds",
        help: "Unix time the job controller failed a Job (its Failed or FailureTarget condition), by cause: its failed pods' (pod_cause: their last termination), else the controller's reason.",
        identity: Identity::Job,
        labels: VERDICT_LABELS,
        anomalies: &[Anomaly::JobFailed],
        aggregate: false,
        samples: verdict_since,
        fold: Fold::Never,
        example: r#"count by (namespace, cause) (kube_lifecycle_job_failed_since_timestamp_seconds)"#,
    },
    MetricFamily {
        name: "kube_lifecycle_job_not_completed_since_timestamp_seconds",
        help: "Unix time an active Job stopped completing: its pods got stuck (by their cause), or its running pods whose containers restart in place (restartPolicy OnFailure) started, or it started, when active past --job-after with nothing to show (running_long).",
        identity: Identity::Job,
        labels: VERDICT_LABELS,
        anomalies: &[Anomaly::JobNotCompleted],
        aggregate: false,
        samples: verdict_since,
        fold: Fold::Never,
        example: "time() - kube_lifecycle_job_not_completed_since_timestamp_seconds > 86400",
    },
    MetricFamily {
        name: "kube_lifecycle_pod_failed_since_timestamp_seconds",
        help: "Unix time a pod of no controller (restartPolicy Never or OnFailure) failed: its failed container's end, by node, cause and the container's own cause (pod_cause).",
        identity: Identity::Container,
        labels: &["node", "cause", "pod_cause"],
        anomalies: &[Anomaly::PodFailed],
        aggregate: false,
        samples: |f| since(f, vec![text(&f.node), f.cause.to_string(), pod_cause(f)]),
        fold: Fold::Earliest,
        example: r#"count by (namespace, cause) (kube_lifecycle_pod_failed_since_timestamp_seconds)"#,
    },
];

/// The findings about each pod the families before this one made, and the
/// workloads they already explain.
struct Known<'a, 'f> {
    /// The findings about each pod: a pod's first with an alerted cause
    /// explains it (they come in the families' order: Terminating, Pending,
    /// containers...; a pod within its grace period, a pod gated on purpose,
    /// explain nothing).
    pods: &'a Found<'f>,
    /// (kind, namespace, name) of workloads with a finding already.
    workloads: HashMap<(Kind, &'a str, &'a str), &'a Finding>,
}

impl<'a, 'f: 'a> Known<'a, 'f> {
    fn new(found: &'a Found<'f>) -> Self {
        let mut workloads = HashMap::default();
        for f in found.beyond_pods() {
            if f.cause.alerted() {
                let namespace = f.namespace.as_deref().unwrap_or_default();
                workloads.insert((f.kind, namespace, f.name.as_str()), f);
            }
        }
        Known {
            pods: found,
            workloads,
        }
    }

    /// The finding that explains `pod`.
    fn of(&self, pod: &Pod) -> Option<&'a Finding> {
        self.pods.alerted(pod)
    }

    fn explains(&self, kind: Kind, namespace: &str, name: &str) -> Option<&'a Finding> {
        self.workloads.get(&(kind, namespace, name)).copied()
    }
}

/// What explains a workload: its cause, its pods' own cause, how many of its
/// pods share it, one of them with its message, and since when.
struct Explanation {
    /// An alert about the pods' node, registry or the cluster stands for
    /// them (their findings' alert is not about one pod): no verdict.
    covered: bool,
    cause: VerdictCause,
    pod_cause: Option<&'static str>,
    pods: usize,
    example: Option<(String, String)>,
    owner: Option<Owner>,
    /// The node and image registry of the pod it names.
    node: Option<Name>,
    registry: Option<String>,
    since: Option<Time>,
}

/// The workload-level cause of a pod's finding.
fn verdict_of(f: &Finding) -> VerdictCause {
    f.cause.pods_verdict()
}

/// The cause most of `findings` share (ties to the earlier in the
/// vocabulary), with the earliest of them.
fn explain<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Option<Explanation> {
    let mut by_cause: BTreeMap<(VerdictCause, &'static str), Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        by_cause
            .entry((verdict_of(f), f.cause.as_str()))
            .or_default()
            .push(f);
    }
    let ((cause, pod_cause), group) = by_cause
        .into_iter()
        .max_by(|(ka, a), (kb, b)| a.len().cmp(&b.len()).then(kb.cmp(ka)))?;
    let first = group.iter().min_by_key(|f| (f.since, f.name.clone()))?;
    Some(Explanation {
        covered: first.cause.runbook().scope() != Scope::Pod,
        cause,
        pod_cause: Some(pod_cause),
        pods: group.len(),
        example: Some((first.name.to_string(), first.message.to_string())),
        owner: first.owner.clone(),
        node: first.node.clone(),
        registry: first.detail.registry().map(str::to_string),
        since: group.iter().filter_map(|f| f.since).min(),
    })
}

/// A controller's own say, when no pod explains it.
fn controller_only(cause: VerdictCause, since: Option<Time>, owner: Option<Owner>) -> Explanation {
    Explanation {
        covered: false,
        cause,
        pod_cause: None,
        pods: 0,
        example: None,
        owner,
        node: None,
        registry: None,
        since,
    }
}

struct Subject<'a> {
    kind: Kind,
    namespace: &'a str,
    name: &'a str,
    wanted: i32,
    ready: i32,
    /// The controller's own words, when it said something.
    said: String,
}

fn finding(subject: &Subject<'_>, anomaly_cause: Cause, e: Explanation) -> Finding {
    let pods = match e.pods {
        0 => String::new(),
        1 => "1 pod".to_string(),
        n => format!("{n} pods"),
    };
    let said = &subject.said;
    let mut message = match (&e.example, e.pod_cause) {
        (Some((pod, example)), Some(cause)) => {
            let why = if cause == e.cause.as_str() {
                e.cause.to_string()
            } else {
                format!("{} ({cause})", e.cause)
            };
            let pods = format!("{pods} {why}, e.g. {pod}: {example}");
            if said.is_empty() {
                pods
            } else {
                format!("{}; {pods}", said.trim_end_matches('.'))
            }
        }
        _ => said.clone(),
    };
    if message.is_empty() {
        message = format!(
            "{}/{} ready, and nothing says why",
            subject.ready, subject.wanted
        );
    }
    Finding {
        kind: subject.kind,
        namespace: (!subject.namespace.is_empty()).then(|| Name::interned(subject.namespace)),
        name: Name::from(subject.name),
        container: None,
        container_kind: None,
        node: e.node,
        owner: e.owner,
        cause: anomaly_cause,
        since: e.since,
        message: message.into(),
        detail: Detail::Verdict(Box::new(VerdictDetail {
            pod_cause: e.pod_cause,
            pods: e.pods,
            example_pod: e.example.map(|(pod, _)| pod),
            wanted: subject.wanted,
            ready: subject.ready,
            reason: subject.said.clone(),
            registry: e.registry,
        })),
    }
}

/// Judges the controllers `verdicts` wants, one at a time; returns the
/// verdicts on pods of no controller.
fn diagnose_controllers(
    input: &Input<'_>,
    before: &Found<'_>,
    verdicts: &mut dyn Verdicts,
) -> Vec<Finding> {
    let known = Known::new(before);
    let cluster = input.cluster;
    for d in cluster.deployments() {
        input.verdict(verdicts, Kind::Deployment, &d.metadata, || {
            controllers::rollout_stuck(input, &known, d)
        });
    }
    for s in cluster.stateful_sets() {
        input.verdict(verdicts, Kind::StatefulSet, &s.metadata, || {
            controllers::update_stuck(input, &known, s)
        });
    }
    for d in cluster.daemon_sets() {
        input.verdict(verdicts, Kind::DaemonSet, &d.metadata, || {
            controllers::daemonset_stuck(input, &known, d)
        });
    }
    for job in cluster.jobs() {
        input.verdict(verdicts, Kind::Job, &job.metadata, || {
            jobs::job_verdict(input, &known, job)
        });
    }
    input
        .unsettled
        .iter()
        .filter_map(|p| jobs::pod_failed(&known, p))
        .collect()
}

/// Whether a verdict that needs time has waited long enough.
fn long_enough(input: &Input<'_>, since: Option<Time>) -> bool {
    since.is_some_and(|s| input.now.waited(s, input.settings.unavailable_after))
}

/// A StatefulSet or DaemonSet short of ready pods that none of its pods
/// explains, judged from its own status (`replicas_unavailable`) once the
/// shortage has lasted `--unavailable-after`: the pods it counts missing are
/// not in view (never created, deleted, or left out of a dump). A pod of it
/// in view that is not Ready, or is being deleted, is its own family's to
/// explain: the controller waits on it, and so does this verdict; with as
/// many Ready pods in view as it wants, nothing is missing. Neither
/// controller writes a condition with a transition time, and the model keeps
/// no Normal events (the pods' creations): the shortage dates from the
/// earliest warning about the controller, else from its creation.
fn short_by_status(
    input: &Input<'_>,
    kind: Kind,
    meta: &Meta,
    pods: &[&Pod],
    wanted: i32,
    rolling_out: bool,
) -> Option<Explanation> {
    if pods.iter().any(|p| p.is_terminating() || !p.is_ready()) {
        return None;
    }
    // As many Ready pods in view as it wants: its status is older than its
    // pods, and no pod is missing.
    if pods.len() >= usize::try_from(wanted).unwrap_or(0) {
        return None;
    }
    // Mid-update with no pod listed at all, a fresh rollout looks stuck.
    if rolling_out && !input.cluster.has_listed(Kind::Pod) {
        return None;
    }
    let warned = input
        .cluster
        .events_about(kind, &meta.namespace, &meta.name, &meta.uid)
        .filter_map(|e| e.first_seen.or(e.last_seen))
        .min();
    let since = match (warned, meta.creation_timestamp) {
        (Some(warned), Some(created)) => Some(warned.max(created)),
        (warned, created) => warned.or(created),
    };
    let owner = Owner {
        kind: Name::interned(kind.as_str()),
        name: meta.name.clone(),
    };
    long_enough(input, since)
        .then(|| controller_only(VerdictCause::ReplicasUnavailable, since, Some(owner)))
}

/// What a verdict from the status says: the counts, and that the pods
/// missing are not in view.
fn not_in_view(ready: i32, wanted: i32, in_view: usize) -> String {
    match in_view {
        0 => format!("{ready}/{wanted} ready, and no pod of it in view"),
        n => format!(
            "{ready}/{wanted} ready; the {} in view {} Ready, the others are not in view",
            crate::diagnosis::wording::count(n, "pod", "pods"),
            if n == 1 { "is" } else { "are" }
        ),
    }
}
