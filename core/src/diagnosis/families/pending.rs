//! Why a pod is not bound to a node. The scheduler writes its reasons into the
//! PodScheduled condition (`0/5 nodes are available: 3 Insufficient cpu, ...`);
//! the reason that excluded the most of the nodes the pod may use (its own
//! nodeSelector and required affinity admit) is the cause. A pod that no scheduler
//! ever touched has no PodScheduled condition at all: either the scheduler it
//! names is not working (`not_scheduled`), or it names one that nothing in the
//! cluster serves (`unknown_scheduler`, a typo).

use crate::diagnosis::moment::Moment;
use crate::model::{Cluster, ConditionStatus, Kind, Node, Pod, PodCondition, PodPhase, Time};

use crate::diagnosis::classify;
use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, Sample, one, since};
use crate::diagnosis::placement::pod_may_use;
use crate::diagnosis::vocabulary::vocabulary;

use super::pod_finding::{events_of, pod_finding};
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;
use crate::diagnosis::{Anomaly, Cause, Detail, Finding, Input, PendingDetail, Settings};

vocabulary! {
    /// Why a pod is Pending (anomaly `pod_pending`). All but the last three are
    /// scheduler reasons, parsed from the PodScheduled condition with the number
    /// of nodes each excluded; the finding's cause is the reason with most nodes.
    pub enum PendingCause {
        InsufficientCpu = "insufficient_cpu": "Insufficient cpu.",
        InsufficientMemory = "insufficient_memory": "Insufficient memory.",
        InsufficientPods = "insufficient_pods": "Insufficient pods: the node runs its maximum (kubelet --max-pods, 110 by default).",
        InsufficientEphemeralStorage = "insufficient_ephemeral_storage": "Insufficient ephemeral-storage.",
        InsufficientOther = "insufficient_other": "Insufficient of an extended resource (nvidia.com/gpu, hugepages, ...).",
        NodeAffinity = "node_affinity": "The node did not match the pod's nodeSelector or node affinity.",
        PodAffinity = "pod_affinity": "The node did not match the pod's pod affinity rules.",
        PodAntiAffinity = "pod_anti_affinity": "The node did not match the pod's anti-affinity rules, or existing pods' anti-affinity.",
        Taint = "taint": "The node had a taint the pod does not tolerate.",
        NodeUnschedulable = "node_unschedulable": "The node is cordoned (spec.unschedulable).",
        NodeNotReady = "node_not_ready": "The node is not ready or unreachable (its kubelet does not report, or reports it not ready).",
        NodeDiskPressure = "node_disk_pressure" => NodesUnderPressure: "The node is Ready but low on disk (DiskPressure: nodefs or imagefs below the kubelet's eviction threshold, or out of inodes); it carries the node.kubernetes.io/disk-pressure taint and admits no new pod.",
        NodeMemoryPressure = "node_memory_pressure" => NodesUnderPressure: "The node is Ready but low on memory (MemoryPressure: memory.available below the kubelet's eviction threshold); it carries the node.kubernetes.io/memory-pressure taint and admits no BestEffort pod.",
        NodePidPressure = "node_pid_pressure" => NodesUnderPressure: "The node is Ready but low on process ids (PIDPressure: pid.available below the kubelet's eviction threshold); it carries the node.kubernetes.io/pid-pressure taint.",
        HostPort = "host_port": "The node had no free port for the pod's hostPort.",
        VolumeBinding = "volume_binding": "The pod's PersistentVolumeClaims are unbound or no volume can be bound.",
        ClaimStuck = "claim_stuck" => PersistentVolumeClaimStuck: "The pod's PersistentVolumeClaims are unbound and one of them is stuck (its own claim_stuck finding: a storage class missing, its provisioner failing or absent, no volume, Lost...): the message adds each claim's cause, and the claim's alert (its root cause) stands for the pod and its workload.",
        VolumeZone = "volume_zone": "The pod's volumes are bound to another zone or node (volume node affinity conflict).",
        PvcNotFound = "pvc_not_found": "A PersistentVolumeClaim the pod uses does not exist.",
        TopologySpread = "topology_spread": "The node did not satisfy the pod's topology spread constraints.",
        TooManyVolumes = "too_many_volumes": "The node exceeds its maximum attachable volume count.",
        DevicesUnavailable = "devices_unavailable": "No node has the devices the pod's ResourceClaims ask for, free (DRA: \"cannot allocate all claims\", \"timed out trying to allocate devices\", \"cannot schedule extended resource claim\").",
        ClaimOnOtherNode = "claim_on_other_node": "A ResourceClaim of the pod is allocated to devices of another node (\"resourceclaim not available on the node\").",
        ClaimInUse = "claim_in_use": "A ResourceClaim of the pod is in use by, or being allocated for, another pod (\"resourceclaim in use\", \"is in the process of being allocated\").",
        DeviceClassMissing = "device_class_missing": "A request of the pod's ResourceClaim names a DeviceClass that does not exist (\"device class ... does not exist\").",
        ClaimMissing = "claim_missing": "A ResourceClaim the pod names does not exist or was not made for it (\"ResourceClaim not created yet\", before 1.31 \"waiting for dynamic resource controller to create the resourceclaim\", \"could not find ResourceClaim\", \"was not created for pod\"; or, before the scheduler tried the pod, the listed ResourceClaims lack it).",
        ClaimDeleting = "claim_deleting": "A ResourceClaim the pod names is being deleted (\"resourceclaim ... is being deleted\"; or, before the scheduler tried the pod, the listed claim has a deletionTimestamp).",
        Other = "other": "A scheduler reason not in this list (the message is kept).",
        NotScheduled = "not_scheduled" => SchedulerNotScheduling: "No PodScheduled condition and no node long after creation, though the pod names a scheduler the cluster uses (default-scheduler, or one that bound other pods): that scheduler is not working.",
        UnknownScheduler = "unknown_scheduler" => PodSchedulerUnknown: "No PodScheduled condition and no node long after creation, and spec.schedulerName names a scheduler nothing in the cluster serves (not default-scheduler, no pod bound by it): a typo, or a scheduler not installed.",
        ClaimsPending = "claims_pending": "No PodScheduled condition long after creation, and the pod claims devices (spec.resourceClaims): the scheduler holds it until its ResourceClaims exist and are usable (DRA PreEnqueue, which writes no condition), not a scheduler outage. The message names the claims not generated yet and the ResourceClaim controller's FailedResourceClaimCreation event; a claim the listed ResourceClaims show missing or being deleted makes the cause claim_missing or claim_deleting. Also the scheduler's own word with classic DRA (1.26-1.31, a control-plane driver allocates): it chose a node and waits for the driver (\"waiting for resource driver to allocate resource\", \"... to provide information\").",
        SchedulingGated = "scheduling_gated" [quiet]: "Held by spec.schedulingGates on purpose, for less than --gated-after (30 minutes by default); informational, not alerted on.",
        GatedTooLong = "gated_too_long" => PodSchedulingGated: "Held by spec.schedulingGates longer than --gated-after (30 minutes by default): the controller that owns a gate (Kueue admission, a custom controller) has not removed it. The gates are named in the message.",
    }
}

impl PodsVerdict for PendingCause {
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::Pending
    }
}

/// The API server's default `spec.schedulerName`.
const DEFAULT_SCHEDULER: &str = "default-scheduler";

family!("pending" each pod: PodPending);

const METRICS: &[MetricFamily] = &[
    MetricFamily {
        name: "kube_lifecycle_pod_pending_since_timestamp_seconds",
        help: "Unix time an unscheduled pod became unschedulable (or was created, for not_scheduled and scheduling_gated), by cause: the scheduler reason that excluded the most nodes.",
        identity: Identity::Pod,
        labels: &["cause"],
        anomalies: &[Anomaly::PodPending],
        aggregate: false,
        samples: |f| since(f, vec![f.cause.to_string()]),
        fold: Fold::Earliest,
        example: r#"count by (cause) (time() - kube_lifecycle_pod_pending_since_timestamp_seconds{cause!="scheduling_gated"} > 900)"#,
    },
    MetricFamily {
        name: "kube_lifecycle_pod_pending_reason",
        help: "A pending pod's scheduler reasons, each valued by the nodes it excluded; 1 for a pod no scheduler reason explains (not_scheduled, unknown_scheduler, scheduling_gated, or a message with no node counts).",
        identity: Identity::Pod,
        labels: &["reason"],
        anomalies: &[Anomaly::PodPending],
        aggregate: false,
        samples: |f| match &f.detail {
            Detail::Pending(p) if !p.reasons.is_empty() => p
                .reasons
                .iter()
                .map(|(r, n)| Sample {
                    labels: vec![r.to_string()],
                    value: f64::from(*n),
                })
                .collect(),
            _ => one(vec![f.cause.to_string()], 1.0),
        },
        fold: Fold::Largest,
        example: "sum by (reason) (kube_lifecycle_pod_pending_reason)",
    },
];

/// Every unbound pod is among the unsettled ones.
fn diagnose_pod(input: &Input<'_>, pod: &Pod, out: &mut Vec<Finding>) {
    if pod.status.phase == PodPhase::Pending
        && pod.spec.node_name.is_empty()
        && !pod.is_terminating()
    {
        out.extend(judge(input, pod));
    }
}

/// Whether some scheduler serves `scheduler`'s pods: `default-scheduler`
/// does, and every scheduler a bound pod names (read from the pods only when
/// a pod names another scheduler and waits for it, which is rare).
fn served(input: &Input<'_>, scheduler: &str) -> bool {
    scheduler.is_empty() || scheduler == DEFAULT_SCHEDULER || input.scheduler_in_use(scheduler)
}

/// The taint the node lifecycle controller puts on a node whose kubelet reports
/// this pressure (pkg/controller/nodelifecycle, `nodeConditionToTaintKeyStatusMap`).
fn pressure_taint(cause: PendingCause) -> Option<&'static str> {
    match cause {
        PendingCause::NodeDiskPressure => Some("node.kubernetes.io/disk-pressure"),
        PendingCause::NodeMemoryPressure => Some("node.kubernetes.io/memory-pressure"),
        PendingCause::NodePidPressure => Some("node.kubernetes.io/pid-pressure"),
        _ => None,
    }
}

/// Schedulers before 1.18 (`node(s) had taints that the pod didn't tolerate`)
/// and since 1.35 (and 1.34 patches: `node(s) had untolerated taint(s)`,
/// kubernetes/kubernetes#134740) do not name the taint. The nodes do: the
/// nodes excluded for a taint are counted against the nodes that carry a
/// pressure taint now, largest pressure first, and what is left stays `taint`.
fn attribute_unnamed_taints(
    cluster: &Cluster,
    eligible: Option<&[&Node]>,
    message: &str,
    reasons: &mut std::collections::BTreeMap<PendingCause, u32>,
) {
    let Some(&tainted) = reasons.get(&PendingCause::Taint) else {
        return;
    };
    if message.contains("taint {") || !cluster.has_listed(Kind::Node) {
        return;
    }
    let mut pressured: Vec<(u32, PendingCause)> = [
        PendingCause::NodeDiskPressure,
        PendingCause::NodeMemoryPressure,
        PendingCause::NodePidPressure,
    ]
    .into_iter()
    .filter_map(|cause| {
        let taint = pressure_taint(cause)?;
        let nodes = usable(cluster, eligible)
            .filter(|n| n.has_taint(taint))
            .count();
        (nodes > 0).then(|| (u32::try_from(nodes).unwrap_or(u32::MAX), cause))
    })
    .collect();
    pressured.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut left = tainted;
    for (nodes, cause) in pressured {
        let taken = nodes.min(left);
        if taken > 0 {
            *reasons.entry(cause).or_default() += taken;
            left -= taken;
        }
    }
    if left == 0 {
        reasons.remove(&PendingCause::Taint);
    } else {
        reasons.insert(PendingCause::Taint, left);
    }
}

/// How many pressured nodes a finding names.
const PRESSURED_NODES_NAMED: usize = 10;

/// The nodes the pod may use that carry the taint of a pressure cause now,
/// by name: a node its own selector excludes holds nothing of it.
fn pressured_nodes(
    cluster: &Cluster,
    eligible: Option<&[&Node]>,
    cause: PendingCause,
) -> Vec<String> {
    let Some(taint) = pressure_taint(cause) else {
        return Vec::new();
    };
    let mut nodes: Vec<String> = usable(cluster, eligible)
        .filter(|n| n.has_taint(taint))
        .map(|n| n.metadata.name.to_string())
        .collect();
    nodes.sort();
    nodes.truncate(PRESSURED_NODES_NAMED);
    nodes
}

/// Since when an unbound pod has been pending: since it was created. A
/// scheduler that rewrites the PodScheduled condition on every attempt moves
/// its lastTransitionTime each time, which would restart the clock; the
/// earlier of the two is the trustworthy one.
fn pending_since(created: Option<Time>, transition: Option<Time>) -> Option<Time> {
    match (created, transition) {
        (Some(c), Some(t)) => Some(c.min(t)),
        (c, t) => c.or(t),
    }
}

/// What a pod held for its device claims waits for: each claim, whether the
/// ResourceClaim controller generated it yet (`status.resourceClaimStatuses`)
/// and, where the claims were listed, whether it exists or is being deleted;
/// and that controller's last complaint about the pod. The cause is the
/// worst a claim shows: missing, being deleted, else waiting.
fn claims_pending(cluster: &Cluster, pod: &Pod, age: String) -> (PendingCause, String) {
    let namespace = pod.metadata.namespace.as_str();
    let generated = |name: &str| {
        pod.status
            .resource_claim_statuses()
            .iter()
            .find(|s| s.name == name)
            .and_then(|s| s.resource_claim_name.clone())
    };
    let listed = cluster.has_listed(Kind::ResourceClaim);
    let mut cause = PendingCause::ClaimsPending;
    let mut state = |claim: &str| -> &'static str {
        if !listed {
            return "";
        }
        match cluster.resource_claim(namespace, claim) {
            None => {
                cause = PendingCause::ClaimMissing;
                ": does not exist"
            }
            Some(c) if c.is_deleting() => {
                if cause != PendingCause::ClaimMissing {
                    cause = PendingCause::ClaimDeleting;
                }
                ": being deleted"
            }
            Some(c)
                if c.reserved_for_pods()
                    .any(|p| p != pod.metadata.name.as_str()) =>
            {
                ": reserved for another pod"
            }
            Some(_) => "",
        }
    };
    let claims: Vec<String> = pod
        .spec
        .resource_claims()
        .iter()
        .map(
            |c| match (&c.resource_claim_name, &c.resource_claim_template_name) {
                (Some(claim), _) => format!("{} (ResourceClaim {claim}{})", c.name, state(claim)),
                (None, Some(template)) => match generated(&c.name) {
                    Some(claim) => format!(
                        "{} (ResourceClaim {claim}{}, from template {template})",
                        c.name,
                        state(&claim)
                    ),
                    None => format!("{} (from template {template}: not generated yet)", c.name),
                },
                (None, None) => c.name.clone(),
            },
        )
        .collect();
    let mut message = format!(
        "not tried by the scheduler {age} after creation: it waits for the pod's ResourceClaims to exist and be usable: {}",
        claims.join(", ")
    );
    let complaint = events_of(cluster, pod)
        .into_iter()
        .rfind(|e| e.reason == "FailedResourceClaimCreation");
    if let Some(event) = complaint {
        message.push_str("; FailedResourceClaimCreation: ");
        message.push_str(&event.message);
    }
    (cause, message)
}

fn judge(input: &Input<'_>, pod: &Pod) -> Option<Finding> {
    let (now, settings) = (&input.now, input.settings);
    let scheduled = pod.status.conditions.pod_scheduled.as_ref();
    let gated = scheduled.is_some_and(|c| c.reason() == "SchedulingGated");
    if !pod.spec.scheduling_gates().is_empty() || gated {
        return Some(scheduling_gated(pod, scheduled, now, settings));
    }
    match scheduled {
        Some(c) if c.status != ConditionStatus::True => Some(unschedulable(input, pod, c)),
        Some(_) => None,
        None => not_tried(input, pod),
    }
}

fn finding(
    pod: &Pod,
    cause: PendingCause,
    since: Option<Time>,
    message: String,
    detail: Detail,
) -> Finding {
    pod_finding(pod, None, Cause::PodPending(cause), since, message, detail)
}

/// Held by its scheduling gates: on purpose, until it lasts longer than
/// `--gated-after`.
fn scheduling_gated(
    pod: &Pod,
    scheduled: Option<&PodCondition>,
    now: &Moment,
    settings: &Settings,
) -> Finding {
    let gates: Vec<_> = pod
        .spec
        .scheduling_gates()
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    // Gated since the gate was set: at creation, or when the condition says.
    let created = pod.metadata.creation_timestamp;
    let since = pending_since(created, scheduled.and_then(|c| c.last_transition_time));
    let too_long = since.is_some_and(|s| now.waited(s, settings.gated_after));
    let message = format!("spec.schedulingGates: {}", gates.join(", "));
    if too_long {
        finding(
            pod,
            PendingCause::GatedTooLong,
            since,
            format!(
                "{message}: held {} (longer than --gated-after); the controller that owns each gate has not removed it",
                since.map(|s| now.age_of(s)).unwrap_or_default()
            ),
            Detail::None,
        )
    } else {
        finding(
            pod,
            PendingCause::SchedulingGated,
            since,
            message,
            Detail::None,
        )
    }
}

/// The nodes an unbound pod's own nodeSelector and required node affinity
/// admit, when the nodes were listed and the pod asks for some; `None`:
/// every node, as far as is known.
fn eligible_nodes<'a>(cluster: &'a Cluster, pod: &Pod) -> Option<Vec<&'a Node>> {
    (pod.spec.placement().is_some() && cluster.has_listed(Kind::Node))
        .then(|| cluster.nodes().filter(|n| pod_may_use(pod, n)).collect())
}

/// The nodes `eligible` names, else every node.
fn usable<'a>(
    cluster: &'a Cluster,
    eligible: Option<&'a [&'a Node]>,
) -> Box<dyn Iterator<Item = &'a Node> + 'a> {
    match eligible {
        Some(nodes) => Box::new(nodes.iter().copied()),
        None => Box::new(cluster.nodes()),
    }
}

/// The reason that stops the pod: the one that excluded the most of the
/// nodes it may use (ties to the first in the vocabulary's order). Nodes its
/// own selector or required affinity exclude say nothing of why it does not
/// go where it may, so `node_affinity` is the cause only when no node admits
/// it (the nodes tell) or it is the one reason. The scheduler counts a node
/// under the first filter it fails, and the filters that run before node
/// affinity (NodeUnschedulable, TaintToleration: pkg/scheduler/apis/config/v1
/// default plugins) count nodes the pod may not use too; with the nodes
/// listed, those reasons count only the eligible nodes that can fail them.
/// Without the nodes, the message's counts for the other reasons decide.
fn main_reason(
    reasons: &std::collections::BTreeMap<PendingCause, u32>,
    eligible: Option<&[&Node]>,
) -> PendingCause {
    let most = |weighed: &mut dyn Iterator<Item = (PendingCause, u32)>| {
        weighed
            .filter(|(_, n)| *n > 0)
            .max_by(|(ra, na), (rb, nb)| na.cmp(nb).then(rb.cmp(ra)))
            .map(|(reason, _)| reason)
    };
    let all = || reasons.iter().map(|(r, n)| (*r, *n));
    if !reasons.contains_key(&PendingCause::NodeAffinity) {
        return most(&mut all()).unwrap_or(PendingCause::Other);
    }
    let others = || all().filter(|(r, _)| *r != PendingCause::NodeAffinity);
    let on_eligible = match eligible {
        Some([]) => return PendingCause::NodeAffinity,
        Some(nodes) => most(&mut others().map(|(r, n)| (r, n.min(may_fail(r, nodes))))),
        None => None,
    };
    on_eligible
        .or_else(|| most(&mut others()))
        .unwrap_or(PendingCause::NodeAffinity)
}

/// How many of `nodes` can fail the filter of a reason that runs before
/// node affinity (a node cordoned, not ready, tainted); `u32::MAX` for a
/// reason of a later filter, whose count holds only nodes the pod may use.
fn may_fail(reason: PendingCause, nodes: &[&Node]) -> u32 {
    let count = |f: &dyn Fn(&Node) -> bool| {
        u32::try_from(nodes.iter().filter(|n| f(n)).count()).unwrap_or(u32::MAX)
    };
    match reason {
        PendingCause::NodeUnschedulable => count(&|n| n.spec.unschedulable),
        PendingCause::NodeNotReady => count(&|n| !n.is_ready()),
        PendingCause::Taint => count(&|n| !n.spec.taints.is_empty()),
        r => match pressure_taint(r) {
            Some(taint) => count(&|n| n.has_taint(taint)),
            None => u32::MAX,
        },
    }
}

/// The scheduler tried and could not place it: what stops it on the nodes
/// it may use. Of unbound claims the scheduler says only that they are
/// unbound: what stops each claim is added.
fn unschedulable(input: &Input<'_>, pod: &Pod, c: &PodCondition) -> Finding {
    let cluster = input.cluster;
    let mut parsed = classify::scheduler_reasons(c.message());
    let eligible = eligible_nodes(cluster, pod);
    let eligible = eligible.as_deref();
    attribute_unnamed_taints(cluster, eligible, c.message(), &mut parsed.reasons);
    let mut cause = main_reason(&parsed.reasons, eligible);
    let mut message = c.message().to_string();
    if cause == PendingCause::VolumeBinding {
        let (claims, stuck) = super::claims_of_pod(input, pod);
        for claim in claims {
            message.push_str("; ");
            message.push_str(&claim);
        }
        // A claim stuck on its own cause is the pod's: its alert speaks.
        if stuck {
            cause = PendingCause::ClaimStuck;
        }
    }
    finding(
        pod,
        cause,
        pending_since(pod.metadata.creation_timestamp, c.last_transition_time),
        message,
        Detail::Pending(Box::new(PendingDetail {
            reasons: parsed.reasons,
            nodes_total: parsed.nodes_total,
            pressured_nodes: pressured_nodes(cluster, eligible, cause),
        })),
    )
}

/// No scheduler has tried it, past `--unscheduled-after`: its claims are
/// not ready, its scheduler does not work, or no scheduler serves it.
fn not_tried(input: &Input<'_>, pod: &Pod) -> Option<Finding> {
    let (now, settings) = (&input.now, input.settings);
    let created = pod.metadata.creation_timestamp?;
    if !now.waited(created, settings.unscheduled_after) {
        return None;
    }
    let age = now.age_of(created);
    if !pod.spec.resource_claims().is_empty() {
        let (cause, message) = claims_pending(input.cluster, pod, age);
        return Some(finding(pod, cause, Some(created), message, Detail::None));
    }
    let scheduler = pod.spec.scheduler_name.as_str();
    Some(if served(input, scheduler) {
        finding(
            pod,
            PendingCause::NotScheduled,
            Some(created),
            format!("no scheduler has set PodScheduled {age} after creation"),
            Detail::None,
        )
    } else {
        finding(
            pod,
            PendingCause::UnknownScheduler,
            Some(created),
            format!(
                "spec.schedulerName {scheduler:?} is served by no scheduler in the cluster \
                 (not default-scheduler, and no pod was bound by it): not scheduled {age} after creation"
            ),
            Detail::None,
        )
    })
}
