//! `claim_stuck`: a PersistentVolumeClaim that does not get its volume, does
//! not go away, or cannot grow.
//!
//! A Pending claim's cause is its provisioner's word, the `ProvisioningFailed`
//! warning (the PV controller's for a storage class that does not exist, the
//! external provisioner's for the CSI driver's error). The PV controller's
//! other words are Normal events (`ExternalProvisioning`, `FailedBinding`
//! "no persistent volumes available for this claim and no storage class is
//! set", `WaitForFirstConsumer`), which the live watch does not read
//! (`type=Warning`); what they say is read from the claim instead, past
//! `--claim-after`: a claim handed to a provisioner (its
//! `volume.kubernetes.io/storage-provisioner` annotation) that has said
//! nothing has no provisioner running; a claim with no storage class and no
//! volume has nothing to bind to. A claim with a class and neither
//! annotation waits for its first consumer (WaitForFirstConsumer) or for the
//! PV controller's next pass: quiet, and a pod that uses it says why it is
//! not scheduled.
//!
//! A Terminating claim is held by `kubernetes.io/pvc-protection` while a pod
//! that is not finished uses it (pkg/controller/volume/pvcprotection); the
//! pods are named with their state. An expansion fails when the resizer says
//! so (`VolumeResizeFailed`, the ControllerResizeError and NodeResizeError
//! conditions, an infeasible `allocatedResourceStatuses`, 1.31+) while the
//! claim still shows a resize under way.

use std::cell::OnceCell;
use std::collections::HashMap;

use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, since};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::wording::count;
use crate::diagnosis::{Anomaly, Cause, Detail, Finding, Input};
use crate::model::{Cluster, Event, Kind, PersistentVolumeClaim, Pod, Time};

use super::pod_finding::object_finding;
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why a PersistentVolumeClaim is stuck (anomaly `claim_stuck`).
    pub enum ClaimCause {
        StorageClassMissing = "storage_class_missing": "Pending: the storage class it names does not exist (ProvisioningFailed: storageclass.storage.k8s.io \"fast\" not found). Create the class, or recreate the claim with one that exists.",
        QuotaExceeded = "quota_exceeded": "Pending: the provisioner's backend refuses for lack of quota or capacity (ProvisioningFailed: rpc error: code = ResourceExhausted, QUOTA_EXCEEDED, VolumeLimitExceeded, volume limit reached).",
        ProvisioningFailed = "provisioning_failed": "Pending: the provisioner (the CSI driver, or an in-tree plugin) fails to create the volume; its error is the message (ProvisioningFailed: failed to provision volume with StorageClass ...).",
        NoProvisioner = "no_provisioner": "Pending longer than --claim-after, handed to a provisioner (its volume.kubernetes.io/storage-provisioner annotation) that has said nothing: no provisioner of that name is running (the PV controller's ExternalProvisioning \"waiting for a volume to be created, either by external provisioner ...\").",
        NoVolume = "no_volume": "Pending longer than --claim-after with no storage class to provision from and no PersistentVolume bound (the PV controller's FailedBinding: \"no persistent volumes available for this claim and no storage class is set\"), or the volume it names cannot be bound.",
        VolumeLost = "volume_lost": "Phase Lost: the PersistentVolume it was bound to is gone; its data with it, unless the volume is recreated.",
        InUse = "in_use": "Terminating longer than --claim-after, held by the kubernetes.io/pvc-protection finalizer while pods that have not finished use it; the pods and their state are named.",
        Finalizers = "finalizers": "Terminating longer than --claim-after, held by finalizers no controller removes (another controller's, or pvc-protection with no pod in view using it).",
        ResizeFailed = "resize_failed": "An expansion under way fails: the resizer's VolumeResizeFailed warning, or a ControllerResizeError or NodeResizeError condition.",
        ResizeInfeasible = "resize_infeasible": "An expansion the driver can never make (status.allocatedResourceStatuses ControllerResizeInfeasible or NodeResizeInfeasible, 1.31+): the request must be lowered.",
    }
}

impl PodsVerdict for ClaimCause {
    // About a claim, not a pod.
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

family!("claims": ClaimStuck);

const METRICS: &[MetricFamily] = &[MetricFamily {
    name: "kube_lifecycle_claim_stuck_since_timestamp_seconds",
    help: "Unix time a PersistentVolumeClaim became stuck (its creation when Pending or Lost, its deletion when Terminating, its resize's first failure), by storage class (empty when it names none) and cause.",
    identity: Identity::PersistentVolumeClaim,
    labels: &["storageclass", "cause"],
    anomalies: &[Anomaly::ClaimStuck],
    aggregate: false,
    samples: |f| match &f.detail {
        Detail::Claim { storage_class } => {
            since(f, vec![storage_class.clone(), f.cause.to_string()])
        }
        _ => vec![],
    },
    fold: Fold::Never,
    example: "count by (storageclass, cause) (kube_lifecycle_claim_stuck_since_timestamp_seconds)",
}];

/// How many of the pods that use a claim its finding names.
const NAMED_PODS: usize = 5;

/// The finalizer the PVC protection controller keeps while pods use a claim.
const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";

/// The pods that have not finished, by the claims their volumes use.
type Users<'a> = HashMap<(&'a str, String), Vec<&'a Pod>>;

fn users(cluster: &Cluster) -> Users<'_> {
    let mut users: Users = HashMap::new();
    for pod in cluster.pods().filter(|p| !p.status.phase.is_terminal()) {
        for claim in pod.claim_names() {
            users
                .entry((pod.metadata.namespace.as_str(), claim))
                .or_default()
                .push(pod);
        }
    }
    for pods in users.values_mut() {
        pods.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    }
    users
}

fn diagnose(input: &Input<'_>) -> Vec<Finding> {
    let cluster = input.cluster;
    // Read only when a claim is stuck: it walks every pod.
    let held = OnceCell::new();
    cluster
        .persistent_volume_claims()
        .filter_map(|claim| {
            let using = || {
                let key = (
                    claim.metadata.namespace.as_str(),
                    claim.metadata.name.to_string(),
                );
                held.get_or_init(|| users(cluster))
                    .get(&key)
                    .cloned()
                    .unwrap_or_default()
            };
            let (cause, since, mut message) = judge(input, claim, &using)?;
            if cause != ClaimCause::InUse {
                let pods = using();
                if !pods.is_empty() {
                    message.push_str(&format!("; used by {}", named(&pods)));
                }
            }
            Some(object_finding(
                Kind::PersistentVolumeClaim,
                &claim.metadata,
                Cause::ClaimStuck(cause),
                since,
                message,
                Detail::Claim {
                    storage_class: claim.spec.storage_class_name.clone().unwrap_or_default(),
                },
            ))
        })
        .collect()
}

/// Why `claim` is stuck, since when, and the words that say so; `None` when
/// it is not (yet). `using` names the pods that use it.
pub(super) fn judge<'a>(
    input: &Input<'a>,
    claim: &PersistentVolumeClaim,
    using: &dyn Fn() -> Vec<&'a Pod>,
) -> Option<(ClaimCause, Option<Time>, String)> {
    let m = &claim.metadata;
    let events: Vec<&Event> = input
        .cluster
        .events_about(Kind::PersistentVolumeClaim, &m.namespace, &m.name, &m.uid)
        .collect();
    if let Some(deleted) = m.deletion_timestamp {
        return terminating(input, claim, deleted, using);
    }
    match claim.status.phase.as_str() {
        "Pending" => pending(input, claim, &events),
        "Lost" => Some((
            ClaimCause::VolumeLost,
            m.creation_timestamp,
            format!(
                "status.phase Lost: PersistentVolume {:?} it was bound to is gone",
                claim.spec.volume_name
            ),
        )),
        _ => resize(claim, &events),
    }
}

/// A Pending claim: its provisioner's error, else what its silence says.
fn pending(
    input: &Input<'_>,
    claim: &PersistentVolumeClaim,
    events: &[&Event],
) -> Option<(ClaimCause, Option<Time>, String)> {
    let created = claim.metadata.creation_timestamp;
    // The latest word: a provisioner that failed and then succeeded leaves
    // no Pending claim.
    let said = events
        .iter()
        .rev()
        .find(|e| matches!(e.reason.as_str(), "ProvisioningFailed" | "FailedBinding"));
    if let Some(e) = said {
        let cause = if e.reason == "FailedBinding" {
            ClaimCause::NoVolume
        } else {
            provisioning_cause(&e.message)
        };
        return Some((cause, created, format!("{}: {}", e.reason, e.message)));
    }
    let created_at = created?;
    if !input.now.waited(created_at, input.settings.claim_after) {
        return None;
    }
    let age = input.now.age_of(created_at);
    if !claim.provisioner.is_empty() {
        return Some((
            ClaimCause::NoProvisioner,
            created,
            format!(
                "Pending {age}: handed to provisioner {:?}, which has said nothing (no ProvisioningFailed); no provisioner of that name is running, or it does not watch this claim",
                claim.provisioner
            ),
        ));
    }
    let class = claim.spec.storage_class_name.as_deref().unwrap_or_default();
    if !class.is_empty() {
        // WaitForFirstConsumer, or the PV controller has not looked yet.
        return None;
    }
    let message = if claim.spec.volume_name.is_empty() {
        format!(
            "Pending {age}: no storage class is set and no PersistentVolume is available for it (the cluster has no default storage class, or the claim sets storageClassName \"\")"
        )
    } else {
        format!(
            "Pending {age}: it names PersistentVolume {:?}, which does not exist or cannot be bound to it",
            claim.spec.volume_name
        )
    };
    Some((ClaimCause::NoVolume, created, message))
}

/// What a `ProvisioningFailed` message says: the PV controller's words for a
/// class that does not exist (pkg/controller/volume/persistentvolume), a
/// backend out of quota (gRPC ResourceExhausted, the clouds' quota errors),
/// else the provisioner's own error. A cloud API's throttling
/// (`RequestLimitExceeded`, `Rate exceeded`) is not quota: retries get
/// through, and raising a quota would not help.
fn provisioning_cause(message: &str) -> ClaimCause {
    let lower = message.to_ascii_lowercase();
    let throttled = ["requestlimitexceeded", "rate exceeded", "throttl"]
        .iter()
        .any(|w| lower.contains(w));
    if lower.contains("storageclass.storage.k8s.io \"") && lower.contains("not found") {
        ClaimCause::StorageClassMissing
    } else if throttled {
        ClaimCause::ProvisioningFailed
    } else if [
        "resourceexhausted",
        "quota",
        "limitexceeded",
        "limit exceeded",
        "volume limit",
        "exceeded your maximum",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        ClaimCause::QuotaExceeded
    } else {
        ClaimCause::ProvisioningFailed
    }
}

/// A claim being deleted past `--claim-after`: the pods pvc-protection waits
/// for, else the finalizers left.
fn terminating<'a>(
    input: &Input<'a>,
    claim: &PersistentVolumeClaim,
    deleted: Time,
    using: &dyn Fn() -> Vec<&'a Pod>,
) -> Option<(ClaimCause, Option<Time>, String)> {
    let finalizers = &claim.metadata.finalizers;
    // Claims are deleted with no grace period: the timestamp is the request.
    if finalizers.is_empty() || !input.now.waited(deleted, input.settings.claim_after) {
        return None;
    }
    let age = input.now.age_of(deleted);
    let protected = finalizers.iter().any(|f| f == PVC_PROTECTION);
    let pods = if protected { using() } else { Vec::new() };
    if !pods.is_empty() {
        return Some((
            ClaimCause::InUse,
            Some(deleted),
            format!(
                "Terminating {age}: {PVC_PROTECTION} holds it while {} still {} it: {}",
                count(pods.len(), "pod", "pods"),
                if pods.len() == 1 { "uses" } else { "use" },
                named(&pods)
            ),
        ));
    }
    let mut message = format!("Terminating {age}: finalizers {}", finalizers.join(", "));
    if protected {
        message.push_str(
            "; no pod in view uses it, yet the PVC protection controller (kube-controller-manager) has not removed its finalizer",
        );
    }
    Some((ClaimCause::Finalizers, Some(deleted), message))
}

/// A Bound claim whose expansion fails while it is still under way.
fn resize(
    claim: &PersistentVolumeClaim,
    events: &[&Event],
) -> Option<(ClaimCause, Option<Time>, String)> {
    if !claim.is_resizing() {
        return None;
    }
    let error = ["ControllerResizeError", "NodeResizeError"]
        .iter()
        .find_map(|t| claim.condition(t));
    let failed: Vec<&Event> = events
        .iter()
        .copied()
        .filter(|e| e.reason == "VolumeResizeFailed")
        .collect();
    let infeasible = claim
        .status
        .allocated_resource_statuses
        .iter()
        .find(|(_, state)| state.ends_with("ResizeInfeasible"));
    let since = error
        .and_then(|c| c.last_transition_time)
        .or_else(|| failed.iter().filter_map(|e| e.first_seen).min());
    let words = error
        .map(|c| match c.reason.as_str() {
            "" => format!("{}: {}", c.type_, c.message),
            reason => format!("{} {reason}: {}", c.type_, c.message),
        })
        .or_else(|| {
            failed
                .last()
                .map(|e| format!("VolumeResizeFailed: {}", e.message))
        });
    match (infeasible, words) {
        (Some((resource, state)), words) => Some((
            ClaimCause::ResizeInfeasible,
            since.or(claim.metadata.creation_timestamp),
            match words {
                Some(words) => format!("allocatedResourceStatuses {resource}={state}; {words}"),
                None => format!("allocatedResourceStatuses {resource}={state}"),
            },
        )),
        (None, Some(words)) => Some((ClaimCause::ResizeFailed, since, words)),
        (None, None) => None,
    }
}

/// The first few pods, each with its state: `web-0 (Running on node-1)`.
fn named(pods: &[&Pod]) -> String {
    let mut list: Vec<String> = pods
        .iter()
        .take(NAMED_PODS)
        .map(|p| {
            let state = if p.is_terminating() {
                "Terminating".to_string()
            } else {
                format!("{:?}", p.status.phase)
            };
            match p.spec.node_name.as_str() {
                "" => format!("pod {} ({state})", p.metadata.name),
                node => format!("pod {} ({state} on {node})", p.metadata.name),
            }
        })
        .collect();
    if pods.len() > NAMED_PODS {
        list.push(format!("and {} more", pods.len() - NAMED_PODS));
    }
    list.join(", ")
}

/// What a pod Pending on its claims is told of them: for each claim of
/// `pod` that does not exist or is stuck, what stops it (the scheduler only
/// says "unbound immediate PersistentVolumeClaims"); and whether one of them
/// is stuck (has a `claim_stuck` finding of its own).
pub(crate) fn claims_of_pod(input: &Input<'_>, pod: &Pod) -> (Vec<String>, bool) {
    let cluster = input.cluster;
    if !cluster.has_listed(Kind::PersistentVolumeClaim) {
        return (Vec::new(), false);
    }
    let namespace = pod.metadata.namespace.as_str();
    let mut stuck = false;
    let said = pod
        .claim_names()
        .filter_map(
            |name| match cluster.persistent_volume_claim(namespace, &name) {
                None => Some(format!("claim {name} does not exist")),
                Some(claim) => {
                    let (cause, _, message) = judge(input, claim, &|| Vec::new())?;
                    stuck = true;
                    Some(format!("claim {name} {cause}: {message}"))
                }
            },
        )
        .collect();
    (said, stuck)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ProvisioningFailed messages as posted: kubernetes/kubernetes#81714
    /// (the PV controller), okteto/okteto#929 (DigitalOcean's CSI driver),
    /// rook/rook#8727, ceph/ceph-csi#1062.
    #[test]
    fn provisioning_failures_read_as_their_cause() {
        for (message, cause) in [
            (
                r#"storageclass.storage.k8s.io "standard" not found"#,
                ClaimCause::StorageClassMissing,
            ),
            (
                r#"failed to provision volume with StorageClass "do-block-storage": rpc error: code = ResourceExhausted desc = volume limit (10) has been reached. Current number of volumes: 10. Please contact support."#,
                ClaimCause::QuotaExceeded,
            ),
            (
                r#"failed to provision volume with StorageClass "throwaway": rpc error: code = DeadlineExceeded desc = context deadline exceeded"#,
                ClaimCause::ProvisioningFailed,
            ),
            (
                r#"failed to provision volume with StorageClass "csi-rbd-sc": rpc error: code = Aborted desc = an operation with the given Volume ID pvc-3b2b already exists"#,
                ClaimCause::ProvisioningFailed,
            ),
        ] {
            assert_eq!(provisioning_cause(message), cause, "{message}");
        }
    }
}
