//! The slim Pod: what the diagnosis reads from `v1/Pod`, nothing else.

use serde::Deserialize;

use super::meta::{Condition, ConditionStatus, Labels, List, Meta, Time, nullable};
use super::name::Name;
use super::selector::Affinity;

/// A pod as the model holds it. A [settled](Pod::is_settled) pod (the bulk of
/// a large cluster) is held without its container statuses: no diagnosis reads
/// them from a running pod, and they were most of what a pod cost in memory.
/// The next event about the pod carries them again, whole. How a pod is
/// decoded, and sheds them, is `pod_wire.rs`'s business.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pod {
    pub metadata: Meta,
    pub spec: PodSpec,
    pub status: PodStatus,
}

/// The pod spec as the diagnosis keeps it: of the containers, only the host
/// ports they claim (a pod of a large cluster rarely claims any) and which init
/// containers are native sidecars.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodSpec {
    /// Interned: a node's pods share its name.
    pub node_name: Name,
    /// `spec.schedulerName`, interned (a cluster has a handful); empty when the
    /// object does not say, which the API server defaults to `default-scheduler`.
    pub scheduler_name: Name,
    /// What few pods carry, boxed together so that the others pay one pointer.
    pub rare: Option<Box<RareSpec>>,
}

/// The parts of a pod spec most pods leave empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RareSpec {
    /// `spec.hostNetwork`.
    pub host_network: bool,
    /// What the containers and init containers claim on the node, sorted, no duplicates.
    pub host_ports: List<HostPort>,
    pub scheduling_gates: Vec<SchedulingGate>,
    /// Init containers with `restartPolicy: Always`: native sidecars (1.29+,
    /// GA 1.33), which keep running beside the app; the init containers after
    /// one start once it has started.
    pub sidecars: Vec<String>,
    /// `spec.resourceClaims`: the devices (DRA, GA 1.34) the pod waits for.
    pub resource_claims: Vec<PodResourceClaim>,
    /// `spec.nodeSelector` and the required node affinity, kept only while
    /// the pod is not bound: which nodes it may go to is what its Pending
    /// cause is judged on, and nothing reads it once it has a node.
    pub placement: Option<Box<Placement>>,
    /// The PersistentVolumeClaims its volumes use.
    pub volume_claims: Vec<VolumeClaim>,
}

/// Which nodes a pod asks for: its nodeSelector and required node affinity
/// (a DaemonSet's pod names its one node there, 1.12+).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    pub node_selector: Labels,
    pub affinity: Affinity,
}

/// A PersistentVolumeClaim a pod's volume uses: one it names
/// (`persistentVolumeClaim.claimName`), or the one made for a generic
/// ephemeral volume, named `<pod>-<volume>` (KEP-1698), by its volume's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VolumeClaim {
    Named(String),
    Ephemeral(String),
}

/// A claim on devices a pod names (`spec.resourceClaims[]`): an existing
/// ResourceClaim, or a template the ResourceClaim controller makes one from
/// (1.30 spelled both under `source`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodResourceClaim {
    pub name: String,
    pub resource_claim_name: Option<String>,
    pub resource_claim_template_name: Option<String>,
}

/// `status.resourceClaimStatuses[]`: the ResourceClaim generated for a
/// template claim, written by the ResourceClaim controller.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodResourceClaimStatus {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub resource_claim_name: Option<String>,
}

impl PodSpec {
    /// `spec.hostNetwork`: the pod uses its node's network namespace.
    pub fn host_network(&self) -> bool {
        self.rare.as_ref().is_some_and(|r| r.host_network)
    }

    pub(crate) fn scheduling_gates(&self) -> &[SchedulingGate] {
        self.rare.as_ref().map_or(&[], |r| &r.scheduling_gates)
    }

    pub(crate) fn resource_claims(&self) -> &[PodResourceClaim] {
        self.rare.as_ref().map_or(&[], |r| &r.resource_claims)
    }

    /// The nodes an unbound pod asks for; `None` when it names none (every
    /// node will do) or is bound.
    pub(crate) fn placement(&self) -> Option<&Placement> {
        self.rare.as_ref().and_then(|r| r.placement.as_deref())
    }

    pub(crate) fn volume_claims(&self) -> &[VolumeClaim] {
        self.rare.as_ref().map_or(&[], |r| &r.volume_claims)
    }

    /// Whether the init container `name` is a native sidecar.
    pub(crate) fn is_sidecar(&self, name: &str) -> bool {
        self.rare
            .as_ref()
            .is_some_and(|r| r.sidecars.iter().any(|s| s == name))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct SchedulingGate {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
}

/// A container of a pod spec or pod template: only its ports matter here, and
/// for an init container whether it is a native sidecar.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerSpec {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub ports: Vec<ContainerPort>,
    /// `Always` on an init container makes it a native sidecar.
    #[serde(default, deserialize_with = "nullable")]
    pub restart_policy: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerPort {
    #[serde(default, deserialize_with = "nullable")]
    pub container_port: i32,
    #[serde(default)]
    pub host_port: Option<i32>,
    #[serde(default, deserialize_with = "nullable")]
    pub protocol: String,
}

/// A port a pod holds on its node's network namespace.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostPort {
    pub port: i32,
    /// `TCP` unless the spec says otherwise (the API default).
    pub protocol: String,
}

/// The host ports a set of containers claims. With `hostNetwork` every container
/// port is a host port (the API defaults `hostPort` to `containerPort` there).
pub(crate) fn host_ports(containers: &[ContainerSpec], host_network: bool) -> Vec<HostPort> {
    let mut ports: Vec<HostPort> = containers
        .iter()
        .flat_map(|c| c.ports.iter())
        .filter_map(|p| {
            let port = match p.host_port {
                Some(port) if port > 0 => port,
                _ if host_network && p.container_port > 0 => p.container_port,
                _ => return None,
            };
            let protocol = if p.protocol.is_empty() {
                "TCP".to_string()
            } else {
                p.protocol.clone()
            };
            Some(HostPort { port, protocol })
        })
        .collect();
    ports.sort();
    ports.dedup();
    ports
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum PodPhase {
    /// The API server sets `Pending` on create, so a missing phase reads as Pending.
    #[default]
    Pending,
    Running,
    Succeeded,
    Failed,
    #[serde(other)]
    Unknown,
}

impl PodPhase {
    /// Succeeded and Failed are terminal: controllers stop counting such pods.
    pub(crate) fn is_terminal(self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }
}

/// A pod's status: what every pod carries inline (a settled pod, the bulk of
/// a large cluster, carries nothing else: phase, the two conditions read of
/// it and its start), the rest boxed together, held only by the pods that
/// carry any of it (those not settled, mostly).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodStatus {
    pub phase: PodPhase,
    pub conditions: PodConditions,
    pub start_time: Option<Time>,
    rare: Option<Box<RareStatus>>,
}

/// The parts of a pod status a settled pod does not carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RareStatus {
    /// Empty for a settled pod (see [`Pod`]).
    pub container_statuses: List<ContainerStatus>,
    /// Empty for a settled pod (see [`Pod`]).
    pub init_container_statuses: List<ContainerStatus>,
    /// `status.reason` and `status.message` (`Evicted`, `OutOfcpu`, `NodeShutdown`
    /// and the kubelet's words): most pods carry neither.
    pub said: Option<(String, String)>,
    /// `status.resourceClaimStatuses`: the claims generated for the pod
    /// (only pods that claim devices carry any).
    pub resource_claim_statuses: Vec<PodResourceClaimStatus>,
    /// Why the pod is being disrupted (taint eviction, preemption, API eviction),
    /// 1.26+.
    pub disruption_target: Option<PodCondition>,
    /// A resize in trouble.
    pub resize: Option<ResizeConditions>,
}

impl PodStatus {
    /// A status of these parts; the rare ones boxed only when there are any.
    pub(crate) fn new(
        phase: PodPhase,
        conditions: PodConditions,
        start_time: Option<Time>,
        rare: RareStatus,
    ) -> Self {
        PodStatus {
            phase,
            conditions,
            start_time,
            rare: (rare != RareStatus::default()).then(|| Box::new(rare)),
        }
    }

    /// Adds the container statuses (a pod that is not settled keeps them).
    pub(crate) fn set_container_statuses(
        &mut self,
        regular: List<ContainerStatus>,
        init: List<ContainerStatus>,
    ) {
        if !regular.is_empty() || !init.is_empty() {
            let rare = self.rare.get_or_insert_default();
            rare.container_statuses = regular;
            rare.init_container_statuses = init;
        }
    }

    /// The parts a settled pod does not carry, if this one carries any.
    pub fn rare(&self) -> Option<&RareStatus> {
        self.rare.as_deref()
    }

    /// `status.reason`: why a pod failed as a whole (an eviction, an admission refusal).
    pub fn reason(&self) -> &str {
        self.rare()
            .and_then(|r| r.said.as_ref())
            .map_or("", |said| &said.0)
    }

    /// `status.message`, the kubelet's words for `reason`.
    pub fn message(&self) -> &str {
        self.rare()
            .and_then(|r| r.said.as_ref())
            .map_or("", |said| &said.1)
    }

    /// The app containers' statuses (none for a settled pod).
    pub fn container_statuses(&self) -> &[ContainerStatus] {
        self.rare().map_or(&[], |r| &r.container_statuses)
    }

    /// The init containers' statuses (none for a settled pod).
    pub fn init_container_statuses(&self) -> &[ContainerStatus] {
        self.rare().map_or(&[], |r| &r.init_container_statuses)
    }

    /// `status.resourceClaimStatuses`.
    pub fn resource_claim_statuses(&self) -> &[PodResourceClaimStatus] {
        self.rare().map_or(&[], |r| &r.resource_claim_statuses)
    }

    /// The DisruptionTarget condition, when the pod carries one.
    pub fn disruption_target(&self) -> Option<&PodCondition> {
        self.rare().and_then(|r| r.disruption_target.as_ref())
    }

    /// The resize conditions kept (those of a resize in trouble).
    pub fn resize(&self) -> Option<&ResizeConditions> {
        self.rare().and_then(|r| r.resize.as_ref())
    }
}

/// The pod conditions every pod carries inline; DisruptionTarget and the
/// resize conditions are [`RareStatus`]'s, the others dropped while parsing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodConditions {
    pub pod_scheduled: Option<PodCondition>,
    pub ready: Option<PodCondition>,
}

/// The in-place resize (beta 1.33) conditions kept: those of a resize in trouble.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResizeConditions {
    /// A resize the kubelet cannot make (1.33+: PodResizePending, reason
    /// Infeasible or Deferred; before: `status.resize` with those values).
    pub pending: Option<PodCondition>,
    /// A resize that failed while being made (PodResizeInProgress, reason
    /// Error); a resize in progress without an error is not kept.
    pub failed: Option<PodCondition>,
}

/// A pod condition as kept: the slot in [`PodConditions`] names its type;
/// status and transition time are held inline, reason and message boxed
/// together (the conditions of a running pod carry neither, and a boxed
/// condition cost every pod two allocations).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodCondition {
    pub status: ConditionStatus,
    pub last_transition_time: Option<Time>,
    said: Option<Box<(String, String)>>,
}

impl PodCondition {
    pub fn reason(&self) -> &str {
        self.said.as_ref().map_or("", |said| &said.0)
    }

    pub fn message(&self) -> &str {
        self.said.as_ref().map_or("", |said| &said.1)
    }
}

impl PodCondition {
    /// A condition the model makes from a field that is not one (`status.resize`).
    pub(crate) fn said(reason: &str, message: &str) -> Self {
        PodCondition {
            status: ConditionStatus::True,
            last_transition_time: None,
            said: Some(Box::new((reason.to_string(), message.to_string()))),
        }
    }
}

impl From<Condition> for PodCondition {
    fn from(c: Condition) -> Self {
        let said = (!c.reason.is_empty() || !c.message.is_empty())
            .then(|| Box::new((c.reason, c.message)));
        PodCondition {
            status: c.status,
            last_transition_time: c.last_transition_time,
            said,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerStatus {
    /// Interned: the pods of one controller name their containers and
    /// images alike.
    pub name: Name,
    pub image: Name,
    pub ready: bool,
    /// `started`: false until the startup probe (if any) passes and a
    /// postStart hook returns; the kubelet starts the init containers after a
    /// native sidecar only once it has started.
    pub started: Option<bool>,
    pub restart_count: i32,
    pub state: ContainerState,
    pub last_state: ContainerState,
}

/// Waiting and terminated states are boxed: most containers of a large
/// cluster are running, and an empty state then costs two pointers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerState {
    pub waiting: Option<Box<Waiting>>,
    pub running: Option<Running>,
    pub terminated: Option<Box<Terminated>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Waiting {
    /// Interned: a handful of reasons (ImagePullBackOff, CrashLoopBackOff, ...).
    pub reason: Name,
    pub message: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Running {
    pub started_at: Option<Time>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terminated {
    pub exit_code: i32,
    pub signal: Option<i32>,
    /// Interned, as a waiting reason is.
    pub reason: Name,
    pub message: String,
    pub started_at: Option<Time>,
    pub finished_at: Option<Time>,
}

/// Which list of the pod a container status came from, and for an init
/// container whether it is a native sidecar; events name containers by field
/// path (`spec.containers{app}`, `spec.initContainers{init}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContainerKind {
    Init,
    Sidecar,
    Regular,
}

impl ContainerKind {
    pub(crate) fn field_path(self, container: &str) -> String {
        match self {
            ContainerKind::Init | ContainerKind::Sidecar => {
                format!("spec.initContainers{{{container}}}")
            }
            ContainerKind::Regular => format!("spec.containers{{{container}}}"),
        }
    }

    /// `init`, `sidecar`, `app`: how the outputs name the container's role.
    pub fn as_str(self) -> &'static str {
        match self {
            ContainerKind::Init => "init",
            ContainerKind::Sidecar => "sidecar",
            ContainerKind::Regular => "app",
        }
    }
}

impl Pod {
    pub(crate) fn is_terminating(&self) -> bool {
        self.metadata.deletion_timestamp.is_some()
    }

    /// The names of the PersistentVolumeClaims its volumes use.
    pub(crate) fn claim_names(&self) -> impl Iterator<Item = String> + '_ {
        self.spec.volume_claims().iter().map(|c| match c {
            VolumeClaim::Named(claim) => claim.clone(),
            VolumeClaim::Ephemeral(volume) => format!("{}-{volume}", self.metadata.name),
        })
    }

    /// Bound to a node, not being deleted, past Pending (and not Unknown: a
    /// pod whose node stopped reporting; not Failed: how it ended is a
    /// workload's verdict, or its own), no container waiting, Ready if
    /// Running, and not thrown out of its node: nothing the
    /// per-pod diagnoses report (a pod that completed or failed on its own is
    /// settled too). Such pods are the bulk of a large cluster and are skipped
    /// at scrape time; the workload diagnoses still see them through their owners.
    pub(crate) fn is_settled(&self) -> bool {
        !self.is_terminating()
            && !self.spec.node_name.is_empty()
            && !matches!(
                self.status.phase,
                PodPhase::Pending | PodPhase::Unknown | PodPhase::Failed
            )
            && !self.is_not_ready()
            && !self.may_be_evicted()
            && self.status.resize().is_none()
            && self
                .container_statuses()
                .all(|(_, s)| s.state.waiting.is_none())
    }

    /// Running, Ready (or with no Ready condition written) and no container
    /// waiting: serving, as far as its controller counts.
    pub(crate) fn is_ready(&self) -> bool {
        self.status.phase == PodPhase::Running
            && !self.is_not_ready()
            && self
                .container_statuses()
                .all(|(_, s)| s.state.waiting.is_none())
    }

    /// Running with a Ready condition that is not True.
    pub(crate) fn is_not_ready(&self) -> bool {
        self.status.phase == PodPhase::Running
            && self
                .status
                .conditions
                .ready
                .as_ref()
                .is_some_and(|c| c.status != ConditionStatus::True)
    }

    /// Failed with a reason for the whole pod, or a disruption: what an
    /// evicted or rejected pod looks like (the diagnosis reads which it is).
    pub(crate) fn may_be_evicted(&self) -> bool {
        self.status.phase == PodPhase::Failed
            && (!self.status.reason().is_empty()
                || self
                    .status
                    .disruption_target()
                    .is_some_and(|c| c.status == ConditionStatus::True))
    }

    /// When deletion was requested: the deadline minus the grace period.
    /// A later delete with a shorter grace period moves both, so this is the time
    /// of the request that set the current deadline.
    pub fn deletion_requested(&self) -> Option<Time> {
        let deadline = self.metadata.deletion_timestamp?;
        let grace = self
            .metadata
            .deletion_grace_period_seconds
            .unwrap_or(0)
            .max(0);
        Some(
            deadline
                .checked_sub(jiff::SignedDuration::from_secs(grace))
                .unwrap_or(deadline),
        )
    }

    /// Every container status, init containers first (in the order the
    /// kubelet starts them), with the list it came from.
    pub(crate) fn container_statuses(
        &self,
    ) -> impl Iterator<Item = (ContainerKind, &ContainerStatus)> {
        self.status
            .init_container_statuses()
            .iter()
            .map(|s| {
                let kind = if self.spec.is_sidecar(&s.name) {
                    ContainerKind::Sidecar
                } else {
                    ContainerKind::Init
                };
                (kind, s)
            })
            .chain(
                self.status
                    .container_statuses()
                    .iter()
                    .map(|s| (ContainerKind::Regular, s)),
            )
    }

    /// The init container the pod's start waits on: the first, in the order
    /// the kubelet starts them, that has not finished (an init container that
    /// has not exited 0) or not started (a native sidecar whose startup probe
    /// has not passed); `None` once every init container is done, or when the
    /// pod has none.
    pub(crate) fn pending_init_container(&self) -> Option<(ContainerKind, &ContainerStatus)> {
        self.container_statuses()
            .take_while(|(kind, _)| *kind != ContainerKind::Regular)
            .find(|(kind, s)| match kind {
                ContainerKind::Sidecar => {
                    s.started != Some(true) && !(s.started.is_none() && s.state.running.is_some())
                }
                _ => s.state.terminated.as_ref().is_none_or(|t| t.exit_code != 0),
            })
    }

    /// Which kind of container of the pod `name` is (an app container when
    /// no status names it).
    pub(crate) fn container_kind(&self, name: &str) -> ContainerKind {
        self.container_statuses()
            .find(|(_, s)| s.name == name)
            .map_or(ContainerKind::Regular, |(kind, _)| kind)
    }

    /// The host ports the pod's containers and init containers claim.
    pub(crate) fn host_ports(&self) -> &[HostPort] {
        self.spec.rare.as_ref().map_or(&[], |r| &r.host_ports)
    }

    /// When the scheduler bound the pod, if it says so.
    pub fn scheduled_at(&self) -> Option<Time> {
        self.status
            .conditions
            .pod_scheduled
            .as_ref()
            .filter(|c| c.status == ConditionStatus::True)
            .and_then(|c| c.last_transition_time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ObjectKey, Uid};

    /// A pod is held in an `Arc`: with its two counts, a settled pod fills
    /// one of the allocator's 256-byte slots, where it took a 384-byte one.
    #[test]
    fn a_pod_and_its_counts_fit_256_bytes() {
        assert!(std::mem::size_of::<Pod>() + 16 <= 256);
    }

    #[test]
    fn deletion_request_is_deadline_minus_grace() {
        let pod: Pod = serde_json::from_str(
            r#"{"metadata":{"name":"p","deletionTimestamp":"2024-05-01T10:00:30Z",
                "deletionGracePeriodSeconds":30}}"#,
        )
        .unwrap();
        assert_eq!(
            pod.deletion_requested().unwrap().to_string(),
            "2024-05-01T10:00:00Z"
        );
    }

    #[test]
    fn pods_share_their_namespace_and_node_names_and_key_their_own_name() {
        let pod = |name: &str| -> Pod {
            serde_json::from_str(&format!(
                r#"{{"metadata":{{"name":"{name}","namespace":"team-a",
                    "uid":"0f8b6c2e-5d1a-4c3b-9e7f-1a2b3c4d5e6f"}},"spec":{{"nodeName":"node-1"}}}}"#
            ))
            .unwrap()
        };
        let same = |a: &str, b: &str| std::ptr::eq(a.as_ptr(), b.as_ptr());
        let (a, b) = (pod("web-a"), pod("web-b"));
        assert!(same(&a.metadata.namespace, &b.metadata.namespace));
        assert!(same(&a.spec.node_name, &b.spec.node_name));
        assert!(!same(&a.metadata.name, &b.metadata.name));
        assert!(matches!(a.metadata.uid, Uid::Uuid(_)));
        // The model's key holds the pod's own copy of its name.
        let key = ObjectKey::from(&a.metadata);
        assert!(same(&key.name, &a.metadata.name));
        assert!(same(&key.namespace, &b.metadata.namespace));
    }
}
