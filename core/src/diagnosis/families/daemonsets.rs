//! `daemonset_unscheduled`: a DaemonSet missing from nodes it should cover,
//! and why: another pod holds its hostPort on the nodes it misses, or (when no
//! conflict is found) the scheduler's own reasons for its unplaced pods.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnosis::classify;
use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, one, since};
use crate::diagnosis::placement::daemon_pod_fits;
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::wording::count;
use crate::diagnosis::{Anomaly, Cause, DaemonSetDetail, Detail, Finding, Input, PendingCause};
use crate::model::{Cluster, DaemonSet, HostPort, Kind, Name, Node, Pod, host_ports};

use super::pod_finding::object_finding;
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why a DaemonSet covers fewer nodes than it should (anomaly `daemonset_unscheduled`).
    pub enum DaemonSetCause {
        HostPortConflict = "host_port_conflict": "Another pod already holds the DaemonSet's hostPort on the nodes it misses.",
        Unknown = "unknown": "No conflicting hostPort found.",
    }
}

impl PodsVerdict for DaemonSetCause {
    // About a DaemonSet, not a pod.
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

family!("daemonsets": DaemonSetUnscheduled);

const METRICS: &[MetricFamily] = &[
    MetricFamily {
        name: "kube_lifecycle_daemonset_unscheduled_since_timestamp_seconds",
        help: "Unix time from which a DaemonSet missing from eligible nodes is known to be so (when its pods became unschedulable, else its creation), by cause.",
        identity: Identity::DaemonSet,
        labels: &["cause"],
        anomalies: &[Anomaly::DaemonSetUnscheduled],
        aggregate: false,
        samples: |f| since(f, vec![f.cause.to_string()]),
        fold: Fold::Never,
        example: "kube_lifecycle_daemonset_unscheduled_since_timestamp_seconds",
    },
    MetricFamily {
        name: "kube_lifecycle_daemonset_unscheduled_nodes",
        help: "Ready nodes a DaemonSet's selector and tolerations admit that have no pod of it.",
        identity: Identity::DaemonSet,
        labels: &["cause"],
        anomalies: &[Anomaly::DaemonSetUnscheduled],
        aggregate: false,
        samples: |f| match &f.detail {
            Detail::DaemonSet(d) => one(vec![f.cause.to_string()], d.missing_nodes as f64),
            _ => vec![],
        },
        fold: Fold::Never,
        example: "kube_lifecycle_daemonset_unscheduled_nodes > 0",
    },
];

/// A DaemonSet whose pods the API server refuses is the refusal's finding
/// (`pod_create_refused` names why), not a shortage of unknown cause.
fn diagnose(input: &Input<'_>) -> Vec<Finding> {
    let cluster = input.cluster;
    cluster
        .daemon_sets()
        .filter_map(|d| {
            daemonset_unscheduled(cluster, d).filter(|f| {
                f.cause != Cause::DaemonSetUnscheduled(DaemonSetCause::Unknown)
                    || !super::refused::refuses(cluster, d)
            })
        })
        .collect()
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
    let missing: Vec<&Node> = eligible
        .iter()
        .copied()
        .filter(|n| !covered.contains(n.metadata.name.as_str()))
        .collect();
    let unschedulable = unschedulable(&pods);
    let desired = ds.status.desired_number_scheduled;
    let short_of_nodes = (desired as usize) < eligible.len();
    if missing.is_empty() || (!short_of_nodes && unschedulable.is_empty()) {
        return None;
    }

    let wanted: Vec<HostPort> = host_ports(&template.containers, template.host_network);
    let conflict = port_conflict(cluster, &wanted, &missing);
    let gap = daemonset_gap(missing.len(), eligible.len(), desired);
    let (cause, message) = cause_and_message(conflict.as_ref(), &unschedulable, gap);
    // When its pods became unschedulable, if they say; else since it exists.
    let since = unschedulable
        .iter()
        .filter_map(|(p, _)| {
            p.status
                .conditions
                .pod_scheduled
                .as_ref()?
                .last_transition_time
        })
        .min()
        .or(m.creation_timestamp);
    Some(object_finding(
        Kind::DaemonSet,
        m,
        Cause::DaemonSetUnscheduled(cause),
        since,
        message,
        Detail::DaemonSet(Box::new(DaemonSetDetail {
            eligible_nodes: eligible.len(),
            missing_nodes: missing.len(),
            desired,
            conflicting_port: conflict.map(|(port, _, _)| port),
        })),
    ))
}

/// A daemon pod the scheduler cannot place, with the scheduler's reasons.
type Unplaced<'a> = (&'a Pod, BTreeMap<PendingCause, u32>);

/// Daemon pods the scheduler cannot place (DaemonSets scheduled by kube-scheduler, 1.12+).
fn unschedulable<'a>(pods: &[&'a Pod]) -> Vec<Unplaced<'a>> {
    pods.iter()
        .filter(|p| p.spec.node_name.is_empty())
        .filter_map(|p| {
            let c = p.status.conditions.pod_scheduled.as_ref()?;
            Some((*p, classify::scheduler_reasons(c.message()).reasons))
        })
        .collect()
}

/// The first hostPort the DaemonSet wants that a live pod holds on a node it
/// misses: the port, that pod, and the node.
fn port_conflict<'a>(
    cluster: &'a Cluster,
    wanted: &[HostPort],
    missing: &[&Node],
) -> Option<(HostPort, &'a Pod, Name)> {
    missing.iter().find_map(|node| {
        cluster
            .pods_on_node(&node.metadata.name)
            .filter(|p| !p.status.phase.is_terminal())
            .find_map(|p| {
                let held = p.host_ports();
                let port = wanted.iter().find(|w| held.contains(w))?;
                Some((port.clone(), p, node.metadata.name.clone()))
            })
    })
}

/// A hostPort conflict found (or that the scheduler reports), else what the
/// scheduler says of the first unplaced pod, else the `gap` alone.
fn cause_and_message(
    conflict: Option<&(HostPort, &Pod, Name)>,
    unschedulable: &[Unplaced<'_>],
    gap: String,
) -> (DaemonSetCause, String) {
    let scheduler_says_ports = unschedulable
        .iter()
        .any(|(_, reasons)| reasons.contains_key(&PendingCause::HostPort));
    match (conflict, scheduler_says_ports) {
        (Some((port, holder, node)), _) => (
            DaemonSetCause::HostPortConflict,
            format!(
                "{gap}; hostPort {}/{} on node {node:?} is held by {}/{}",
                port.port, port.protocol, holder.metadata.namespace, holder.metadata.name
            ),
        ),
        (None, true) => (
            DaemonSetCause::HostPortConflict,
            format!("{gap}; the scheduler reports no free host port"),
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
                None => gap,
            },
        ),
    }
}
