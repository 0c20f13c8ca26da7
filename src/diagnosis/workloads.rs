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
//!   (1.31+);
//! - `daemonset_unscheduled`: a DaemonSet missing from nodes it should cover.

use crate::model::plural::count;
use std::collections::{BTreeSet, HashSet};

use crate::model::{
    Cluster, DaemonSet, Deployment, HostPort, Job, Kind, Pod, ReplicaSet, StatefulSet, Time,
    host_ports,
};

use super::classify;
use super::placement::daemon_pod_fits;
use super::terminating::{judge, node_lost};
use super::{
    BlockingCause, Cause, DaemonSetCause, Detail, Finding, PendingCause, namespace_of, node_of,
};

/// `unsettled`: the cluster's unsettled pods, where every Terminating pod is.
pub(super) fn diagnose(cluster: &Cluster, unsettled: &[&Pod], now: Time, out: &mut Vec<Finding>) {
    out.extend(
        cluster
            .deployments()
            .filter_map(|d| recreate_blocked(cluster, d, now)),
    );
    // Only a Terminating pod blocks a StatefulSet or a Job: the controllers no
    // such pod names are not walked (a scrape used to walk every set's pods).
    let with_terminating = controllers_with_terminating(unsettled, Kind::StatefulSet);
    out.extend(
        cluster
            .stateful_sets()
            .filter(|s| {
                with_terminating
                    .contains(&(s.metadata.namespace.as_str(), s.metadata.name.as_str()))
            })
            .filter_map(|s| statefulset_blocked(cluster, s, now)),
    );
    let jobs_with_terminating = controllers_with_terminating(unsettled, Kind::Job);
    out.extend(
        cluster
            .jobs()
            .filter(|j| {
                jobs_with_terminating
                    .contains(&(j.metadata.namespace.as_str(), j.metadata.name.as_str()))
            })
            .filter_map(|j| job_blocked(cluster, j, now)),
    );
    out.extend(
        cluster
            .daemon_sets()
            .filter_map(|d| daemonset_unscheduled(cluster, d)),
    );
}

/// (namespace, name) of the controllers of `kind` that a Terminating pod names.
fn controllers_with_terminating<'a>(
    unsettled: &[&'a Pod],
    kind: Kind,
) -> HashSet<(&'a str, &'a str)> {
    unsettled
        .iter()
        .filter(|p| p.is_terminating())
        .filter_map(|p| {
            let c = p.metadata.controller()?;
            (c.kind == kind.as_str()).then_some((p.metadata.namespace.as_str(), c.name.as_str()))
        })
        .collect()
}

/// Why a pod that blocks its workload is not gone.
fn blocking_cause(cluster: &Cluster, pod: &Pod, now: Time) -> (BlockingCause, String) {
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
/// oldest, when none is being deleted), since the earliest deletion request.
fn blocked_finding(
    cluster: &Cluster,
    now: Time,
    kind: Kind,
    namespace: &str,
    name: &str,
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
    Some(Finding {
        kind,
        namespace: namespace_of(namespace),
        name: name.to_string(),
        container: None,
        container_kind: None,
        // The reported pod's node: a lost node's alert then explains (and
        // inhibits) the workload's.
        node: node_of(&oldest.spec.node_name),
        cause: make_cause(cause),
        since,
        message: format!(
            "{} must go first; oldest {:?}: {why}",
            count(blocking.len(), "pod", "pods"),
            oldest.metadata.name
        ),
        detail: Detail::Blocked {
            blocking_pods: blocking.len(),
            oldest_pod: oldest.metadata.name.to_string(),
        },
    })
}

/// The pods a ReplicaSet controls.
fn pods_of<'a>(cluster: &'a Cluster, rs: &'a ReplicaSet) -> impl Iterator<Item = &'a Pod> + 'a {
    let m = &rs.metadata;
    cluster.pods_owned_by(Kind::ReplicaSet, &m.namespace, &m.name, &m.uid)
}

fn recreate_blocked(cluster: &Cluster, d: &Deployment, now: Time) -> Option<Finding> {
    if !d.waits_for_terminating_pods() || d.spec.paused || d.desired_replicas() == 0 {
        return None;
    }
    if !d.is_recreate() {
        return termination_complete_blocked(cluster, d, now);
    }
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
    if rollout_moved_on {
        return None;
    }
    blocked_finding(
        cluster,
        now,
        Kind::Deployment,
        &d.metadata.namespace,
        &d.metadata.name,
        blocking,
        Cause::RecreateBlocked,
    )
}

/// A rolling Deployment with `podReplacementPolicy: TerminationComplete` short
/// of available pods while pods of it are Terminating: those count against
/// its surge until they are gone.
fn termination_complete_blocked(cluster: &Cluster, d: &Deployment, now: Time) -> Option<Finding> {
    if d.status.available_replicas >= d.desired_replicas() {
        return None;
    }
    let blocking: Vec<&Pod> = cluster
        .replica_sets_of(d)
        .flat_map(|rs| pods_of(cluster, rs))
        .filter(|p| p.is_terminating())
        .collect();
    if blocking.is_empty() {
        return None;
    }
    blocked_finding(
        cluster,
        now,
        Kind::Deployment,
        &d.metadata.namespace,
        &d.metadata.name,
        blocking,
        Cause::RecreateBlocked,
    )
}

/// A Job that waits for its Terminating pods: it wants pods and replaces only
/// pods that are gone, or its outcome is decided and waits for its pods to
/// terminate before it is written.
fn job_blocked(cluster: &Cluster, job: &Job, now: Time) -> Option<Finding> {
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
    if blocking.is_empty() {
        return None;
    }
    blocked_finding(
        cluster,
        now,
        Kind::Job,
        &m.namespace,
        &m.name,
        blocking,
        Cause::JobBlocked,
    )
}

/// The ordinal of a StatefulSet pod (`web-2` → 2).
fn ordinal(set: &str, pod: &str) -> Option<i32> {
    pod.strip_prefix(set)?.strip_prefix('-')?.parse().ok()
}

fn statefulset_blocked(cluster: &Cluster, s: &StatefulSet, now: Time) -> Option<Finding> {
    let m = &s.metadata;
    let desired = s.desired_replicas();
    // A Terminating pod of a wanted ordinal: that ordinal cannot be recreated
    // until the object is gone (and with OrderedReady, nothing after it).
    let blocking: Vec<&Pod> = cluster
        .pods_owned_by(Kind::StatefulSet, &m.namespace, &m.name, &m.uid)
        .filter(|p| p.is_terminating())
        .filter(|p| ordinal(&m.name, &p.metadata.name).is_none_or(|o| o < desired))
        .collect();
    if blocking.is_empty() {
        return None;
    }
    blocked_finding(
        cluster,
        now,
        Kind::StatefulSet,
        &m.namespace,
        &m.name,
        blocking,
        Cause::StatefulSetBlocked,
    )
}

/// What is wrong, as an operator says it: on how many of the nodes the DaemonSet
/// should cover it has no pod, and how many its controller means to run when
/// that is fewer (a controller that judges the nodes unfit counts them out).
fn daemonset_gap(missing: usize, eligible: usize, desired: i32) -> String {
    let nodes = count(eligible, "ready node", "ready nodes");
    let gap = if missing == eligible {
        match eligible {
            1 => "no pod on the 1 ready node it should run on".to_string(),
            _ => format!("no pod on any of the {nodes} it should run on"),
        }
    } else {
        format!("no pod on {missing} of the {nodes} it should run on")
    };
    let wanted = usize::try_from(desired).unwrap_or(0);
    if wanted >= eligible {
        gap
    } else if wanted == 0 {
        format!("{gap}; its controller schedules none of them")
    } else {
        format!("{gap}; its controller schedules only {wanted}")
    }
}

fn daemonset_unscheduled(cluster: &Cluster, ds: &DaemonSet) -> Option<Finding> {
    if !cluster.has_listed(Kind::Node) {
        return None;
    }
    let m = &ds.metadata;
    let template = &ds.spec.template.spec;
    let eligible: Vec<_> = cluster
        .nodes()
        .filter(|n| n.is_ready() && daemon_pod_fits(template, n))
        .collect();
    let pods: Vec<&Pod> = cluster
        .pods_owned_by(Kind::DaemonSet, &m.namespace, &m.name, &m.uid)
        .filter(|p| !p.is_terminating())
        .collect();
    let covered: BTreeSet<&str> = pods.iter().map(|p| p.spec.node_name.as_str()).collect();
    let missing: Vec<_> = eligible
        .iter()
        .filter(|n| !covered.contains(n.metadata.name.as_str()))
        .collect();
    // Daemon pods the scheduler cannot place (DaemonSets scheduled by kube-scheduler, 1.12+).
    let unschedulable: Vec<(&Pod, std::collections::BTreeMap<PendingCause, u32>)> = pods
        .iter()
        .filter(|p| p.spec.node_name.is_empty())
        .filter_map(|p| {
            let c = p.status.conditions.pod_scheduled.as_ref()?;
            Some((*p, classify::scheduler_reasons(c.message()).reasons))
        })
        .collect();
    let desired = ds.status.desired_number_scheduled;
    let short_of_nodes = (desired as usize) < eligible.len();
    if missing.is_empty() || (!short_of_nodes && unschedulable.is_empty()) {
        return None;
    }

    let wanted: Vec<HostPort> = host_ports(&template.containers, template.host_network);
    let conflict = missing.iter().find_map(|node| {
        cluster
            .pods_on_node(&node.metadata.name)
            .filter(|p| !p.status.phase.is_terminal())
            .find_map(|p| {
                let held = p.host_ports();
                let port = wanted.iter().find(|w| held.contains(w))?;
                Some((port.clone(), p, node.metadata.name.clone()))
            })
    });
    let scheduler_says_ports = unschedulable
        .iter()
        .any(|(_, reasons)| reasons.contains_key(&PendingCause::HostPort));

    let (cause, message) = match (&conflict, scheduler_says_ports) {
        (Some((port, holder, node)), _) => (
            DaemonSetCause::HostPortConflict,
            format!(
                "{}; hostPort {}/{} on node {node:?} is held by {}/{}",
                daemonset_gap(missing.len(), eligible.len(), desired),
                port.port,
                port.protocol,
                holder.metadata.namespace,
                holder.metadata.name
            ),
        ),
        (None, true) => (
            DaemonSetCause::HostPortConflict,
            format!(
                "{}; the scheduler reports no free host port",
                daemonset_gap(missing.len(), eligible.len(), desired)
            ),
        ),
        (None, false) => (
            DaemonSetCause::Unknown,
            match unschedulable.first() {
                Some((p, _)) => p
                    .status
                    .conditions
                    .pod_scheduled
                    .as_ref()
                    .map(|c| c.message().to_string())
                    .unwrap_or_default(),
                None => daemonset_gap(missing.len(), eligible.len(), desired),
            },
        ),
    };
    Some(Finding {
        kind: Kind::DaemonSet,
        namespace: namespace_of(&m.namespace),
        name: m.name.to_string(),
        container: None,
        container_kind: None,
        node: None,
        cause: Cause::DaemonSetUnscheduled(cause),
        // When its pods became unschedulable, if they say; else since it exists.
        since: unschedulable
            .iter()
            .filter_map(|(p, _)| {
                p.status
                    .conditions
                    .pod_scheduled
                    .as_ref()?
                    .last_transition_time
            })
            .min()
            .or(m.creation_timestamp),
        message,
        detail: Detail::DaemonSet {
            eligible_nodes: eligible.len(),
            missing_nodes: missing.len(),
            desired,
            conflicting_port: conflict.map(|(port, _, _)| port),
        },
    })
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
