//! Workloads that cannot make progress because of their pods:
//!
//! - `recreate_blocked`: the deployment controller's Recreate strategy scales the
//!   old ReplicaSets to zero and creates the new one only when no old pod is left
//!   in a non-terminal phase (`oldPodsRunning` in pkg/controller/deployment/recreate.go:
//!   a Terminating pod is still Running or Unknown, so it counts); with
//!   `podReplacementPolicy: TerminationComplete` (KEP-3973, 1.33+) a rolling
//!   Deployment counts its Terminating pods as present too;
//! - `statefulset_blocked`: the StatefulSet controller recreates an ordinal only
//!   once the old pod object is gone;
//! - `job_blocked`: the job controller replaces a pod only once it is gone with
//!   `podReplacementPolicy: Failed` (which a `podFailurePolicy` requires), and
//!   writes a decided Job's `Failed` or `Complete` only once its pods are gone
//!   (1.31+).

use crate::diagnosis::Found;
use crate::diagnosis::moment::Moment;

use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, Sample, one, since, text};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::wording::count;
use crate::diagnosis::{
    Anomaly, BlockedDetail, Cause, Detail, Finding, Input, TerminatingCause, Verdicts, node_of,
};
use crate::model::{Cluster, Deployment, Job, Kind, Meta, Pod, ReplicaSet, StatefulSet};

use super::pod_finding::object_finding;
use super::terminating::{judge, node_lost};
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why the pod that blocks a workload is not gone
    /// (anomalies `recreate_blocked`, `statefulset_blocked` and `job_blocked`).
    pub enum BlockingCause {
        Graceful = "graceful" [quiet]: "The blocking pod is Terminating within its grace period; a rollout in progress.",
        NodeNotReady = "node_not_ready": "The blocking pod's node is Ready=False or Unknown.",
        NodeMissing = "node_missing": "The blocking pod's node no longer exists.",
        OutOfService = "out_of_service": "The blocking pod's node is declared out of service (node.kubernetes.io/out-of-service), yet the pod GC has not removed the pod (a finalizer, or the pod GC not running).",
        Finalizers = "finalizers": "The blocking pod is held by finalizers.",
        ContainersRunning = "containers_running": "The blocking pod's containers do not stop.",
        CleanupPending = "cleanup_pending": "The blocking pod's containers stopped but the kubelet has not finished cleaning up.",
        Unknown = "unknown": "The blocking pod is Terminating past its deadline for no reason found.",
        NotDeleted = "not_deleted": "The blocking pod belongs to a ReplicaSet scaled to zero but has not been deleted yet.",
    }
}

impl PodsVerdict for BlockingCause {
    // About a controller blocked by a pod, not a pod.
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

impl From<TerminatingCause> for BlockingCause {
    fn from(cause: TerminatingCause) -> Self {
        match cause {
            TerminatingCause::Graceful => BlockingCause::Graceful,
            TerminatingCause::NodeNotReady => BlockingCause::NodeNotReady,
            TerminatingCause::NodeMissing => BlockingCause::NodeMissing,
            TerminatingCause::OutOfService => BlockingCause::OutOfService,
            TerminatingCause::Finalizers => BlockingCause::Finalizers,
            TerminatingCause::ContainersRunning => BlockingCause::ContainersRunning,
            TerminatingCause::CleanupPending => BlockingCause::CleanupPending,
            TerminatingCause::Unknown => BlockingCause::Unknown,
        }
    }
}

family!("blocking" each controller: RecreateBlocked, StatefulSetBlocked, JobBlocked);

const METRICS: &[MetricFamily] = &[
    MetricFamily {
        name: "kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds",
        help: "Unix time the earliest deletion was requested among the old pods keeping a Recreate Deployment from creating new ones, by the oldest pod's node and cause.",
        identity: Identity::Deployment,
        labels: &["node", "cause"],
        anomalies: &[Anomaly::RecreateBlocked],
        aggregate: false,
        samples: |f| since(f, vec![text(&f.node), f.cause.to_string()]),
        fold: Fold::Never,
        example: r#"time() - kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds{cause!="graceful"} > 600"#,
    },
    MetricFamily {
        name: "kube_lifecycle_statefulset_blocked_since_timestamp_seconds",
        help: "Unix time the earliest deletion was requested among a StatefulSet's Terminating pods whose ordinals it cannot recreate, by the oldest pod, its node and its cause.",
        identity: Identity::StatefulSet,
        labels: &["pod", "node", "cause"],
        anomalies: &[Anomaly::StatefulSetBlocked],
        aggregate: false,
        samples: |f| since(f, vec![oldest_pod(f), text(&f.node), f.cause.to_string()]),
        fold: Fold::Never,
        example: r#"time() - kube_lifecycle_statefulset_blocked_since_timestamp_seconds{cause!="graceful"} > 600"#,
    },
    MetricFamily {
        name: "kube_lifecycle_recreate_blocked_by_terminating",
        help: "Pods that must be gone before a Recreate Deployment creates new pods, a StatefulSet recreates an ordinal or a Job replaces a pod or writes its outcome: Terminating pods (or, cause not_deleted, pods of a zero-scaled ReplicaSet nobody deleted), by the oldest one's node and cause.",
        identity: Identity::Workload,
        labels: &["node", "cause"],
        anomalies: &[
            Anomaly::RecreateBlocked,
            Anomaly::StatefulSetBlocked,
            Anomaly::JobBlocked,
        ],
        aggregate: false,
        samples: blocking_pods,
        fold: Fold::Never,
        example: r#"kube_lifecycle_recreate_blocked_by_terminating{deployment!="", cause!="graceful"} > 0"#,
    },
    MetricFamily {
        name: "kube_lifecycle_job_blocked_since_timestamp_seconds",
        help: "Unix time the earliest deletion was requested among the Terminating pods a Job waits for (to replace them, with podReplacementPolicy Failed, or to write its decided outcome), by the oldest pod, its node and its cause.",
        identity: Identity::Job,
        labels: &["pod", "node", "cause"],
        anomalies: &[Anomaly::JobBlocked],
        aggregate: false,
        samples: |f| since(f, vec![oldest_pod(f), text(&f.node), f.cause.to_string()]),
        fold: Fold::Never,
        example: r#"time() - kube_lifecycle_job_blocked_since_timestamp_seconds{cause!="graceful"} > 600"#,
    },
];

/// Each controller on its own: its pods (by the model's index of pods by
/// owner) and their nodes; what the families before it found, it does not
/// read.
fn diagnose_controllers(
    input: &Input<'_>,
    _: &Found<'_>,
    verdicts: &mut dyn Verdicts,
) -> Vec<Finding> {
    let (cluster, now) = (input.cluster, &input.now);
    for d in cluster.deployments() {
        input.verdict(verdicts, Kind::Deployment, &d.metadata, || {
            recreate_blocked(cluster, d, now)
        });
    }
    for s in cluster.stateful_sets() {
        input.verdict(verdicts, Kind::StatefulSet, &s.metadata, || {
            statefulset_blocked(cluster, s, now)
        });
    }
    for j in cluster.jobs() {
        input.verdict(verdicts, Kind::Job, &j.metadata, || {
            job_blocked(cluster, j, now)
        });
    }
    Vec::new()
}

/// Why a pod that blocks its workload is not gone.
fn blocking_cause(cluster: &Cluster, pod: &Pod, now: &Moment) -> (BlockingCause, String) {
    if pod.is_terminating() {
        let v = judge(cluster, pod, now);
        return (v.cause.into(), v.message);
    }
    match node_lost(cluster, &pod.spec.node_name) {
        Some(v) => (v.cause.into(), v.message),
        None => (
            BlockingCause::NotDeleted,
            format!(
                "pod {:?} of a ReplicaSet scaled to zero is not being deleted",
                pod.metadata.name
            ),
        ),
    }
}

/// The blocking pods' finding: the cause of the pod longest in deletion (or
/// oldest, when none is being deleted), since the earliest deletion request;
/// `None` when no pod blocks.
fn blocked_finding(
    cluster: &Cluster,
    now: &Moment,
    kind: Kind,
    meta: &Meta,
    blocking: Vec<&Pod>,
    make_cause: fn(BlockingCause) -> Cause,
) -> Option<Finding> {
    let oldest = blocking.iter().min_by_key(|p| {
        (
            p.deletion_requested().is_none(),
            p.deletion_requested().or(p.metadata.creation_timestamp),
            p.metadata.name.clone(),
        )
    })?;
    let (cause, why) = blocking_cause(cluster, oldest, now);
    let since = blocking.iter().filter_map(|p| p.deletion_requested()).min();
    let message = format!(
        "{} must go first; oldest {:?}: {why}",
        count(blocking.len(), "pod", "pods"),
        oldest.metadata.name
    );
    let detail = Detail::Blocked(Box::new(BlockedDetail {
        blocking_pods: blocking.len(),
        oldest_pod: oldest.metadata.name.to_string(),
    }));
    Some(Finding {
        // The reported pod's node: a lost node's alert then explains (and
        // inhibits) the workload's.
        node: node_of(&oldest.spec.node_name),
        ..object_finding(kind, meta, make_cause(cause), since, message, detail)
    })
}

/// The pods a ReplicaSet controls.
fn pods_of<'a>(cluster: &'a Cluster, rs: &'a ReplicaSet) -> impl Iterator<Item = &'a Pod> + 'a {
    let m = &rs.metadata;
    cluster.pods_owned_by(Kind::ReplicaSet, &m.namespace, &m.name, &m.uid)
}

fn recreate_blocked(cluster: &Cluster, d: &Deployment, now: &Moment) -> Option<Finding> {
    if !d.waits_for_terminating_pods() || d.spec.paused || d.desired_replicas() == 0 {
        return None;
    }
    let blocking = if d.is_recreate() {
        old_pods_left(cluster, d)?
    } else {
        terminating_pods_counted(cluster, d)?
    };
    blocked_finding(
        cluster,
        now,
        Kind::Deployment,
        &d.metadata,
        blocking,
        Cause::RecreateBlocked,
    )
}

/// Strategy Recreate: the pods of its old ReplicaSets not yet gone, unless the
/// rollout is past waiting for them.
fn old_pods_left<'a>(cluster: &'a Cluster, d: &'a Deployment) -> Option<Vec<&'a Pod>> {
    let (old, current): (Vec<_>, Vec<_>) = cluster
        .replica_sets_of(d)
        .partition(|rs| rs.desired_replicas() == 0);
    // Old ReplicaSets kept as revision history own no pods: the cheap check first.
    let blocking: Vec<&Pod> = old
        .iter()
        .flat_map(|rs| pods_of(cluster, rs))
        .filter(|p| !p.status.phase.is_terminal())
        .collect();
    if blocking.is_empty() {
        return None;
    }
    // Recreate scales the new ReplicaSet up only after the old pods are gone: a
    // live pod of a scaled-up ReplicaSet means the rollout is past that point.
    let rollout_moved_on = current
        .iter()
        .any(|rs| pods_of(cluster, rs).any(|p| !p.is_terminating()));
    (!rollout_moved_on).then_some(blocking)
}

/// A rolling Deployment with `podReplacementPolicy: TerminationComplete` short
/// of available pods: its Terminating pods count against its surge until they
/// are gone.
fn terminating_pods_counted<'a>(cluster: &'a Cluster, d: &'a Deployment) -> Option<Vec<&'a Pod>> {
    if d.status.available_replicas >= d.desired_replicas() {
        return None;
    }
    let blocking = cluster
        .replica_sets_of(d)
        .flat_map(|rs| pods_of(cluster, rs))
        .filter(|p| p.is_terminating())
        .collect();
    Some(blocking)
}

/// A Job that waits for its Terminating pods: it wants pods and replaces only
/// pods that are gone, or its outcome is decided and waits for its pods to
/// terminate before it is written.
fn job_blocked(cluster: &Cluster, job: &Job, now: &Moment) -> Option<Finding> {
    let wants_replacements = job.replaces_only_gone_pods()
        && !job.spec.suspend
        && job.wanted_active() > job.status.active;
    if !wants_replacements && !job.status.outcome.finishing {
        return None;
    }
    let m = &job.metadata;
    let blocking: Vec<&Pod> = cluster
        .pods_owned_by(Kind::Job, &m.namespace, &m.name, &m.uid)
        .filter(|p| p.is_terminating())
        .collect();
    blocked_finding(cluster, now, Kind::Job, m, blocking, Cause::JobBlocked)
}

/// The ordinal of a StatefulSet pod (`web-2` → 2).
pub(super) fn ordinal(set: &str, pod: &str) -> Option<i32> {
    pod.strip_prefix(set)?.strip_prefix('-')?.parse().ok()
}

fn statefulset_blocked(cluster: &Cluster, s: &StatefulSet, now: &Moment) -> Option<Finding> {
    let m = &s.metadata;
    let desired = s.desired_replicas();
    // A Terminating pod of a wanted ordinal: that ordinal cannot be recreated
    // until the object is gone (and with OrderedReady, nothing after it).
    let blocking: Vec<&Pod> = cluster
        .pods_owned_by(Kind::StatefulSet, &m.namespace, &m.name, &m.uid)
        .filter(|p| p.is_terminating())
        .filter(|p| ordinal(&m.name, &p.metadata.name).is_none_or(|o| o < desired))
        .collect();
    blocked_finding(
        cluster,
        now,
        Kind::StatefulSet,
        m,
        blocking,
        Cause::StatefulSetBlocked,
    )
}

/// `[cause]` → the number of pods blocking the workload.
fn blocking_pods(f: &Finding) -> Vec<Sample> {
    match &f.detail {
        Detail::Blocked(b) => one(
            vec![text(&f.node), f.cause.to_string()],
            b.blocking_pods as f64,
        ),
        _ => vec![],
    }
}

/// The blocking pod a workload finding reports, empty for other findings.
fn oldest_pod(f: &Finding) -> String {
    match &f.detail {
        Detail::Blocked(b) => b.oldest_pod.clone(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::ordinal;

    #[test]
    fn ordinals_come_from_the_name_suffix() {
        assert_eq!(ordinal("zookeeper", "zookeeper-0"), Some(0));
        assert_eq!(ordinal("web", "web-12"), Some(12));
        assert_eq!(ordinal("web", "webx-1"), None);
        assert_eq!(ordinal("web", "web-a"), None);
    }
}
