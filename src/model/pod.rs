//! The slim Pod: what the diagnosis reads from `v1/Pod`, nothing else.

use serde::{Deserialize, Deserializer, de};

use super::deferred::{Deferred, Key};
use super::meta::{Condition, ConditionStatus, List, Meta, Time, compact, nullable};
use super::name::{Name, interned};
use super::pod_wire::{ConditionWire, ContainerStatusWire, statuses};

/// A container status with a waiting state names this key.
static WAITING: Key = Key::new("\"waiting\"");
/// A container spec that claims a port on the node names this key.
static HOST_PORT: Key = Key::new("\"hostPort\"");

/// A pod as the model holds it. A [settled](Pod::is_settled) pod (the bulk of
/// a large cluster) is held without its container statuses: no diagnosis reads
/// them from a running pod, and they were most of what a pod cost in memory.
/// The next event about the pod carries them again, whole. They are decoded
/// ([`pod_wire`](super::pod_wire)) only once the pod is known to keep them, and
/// a decoder that hands them over as text ([`Deferred`]) has them decoded only
/// when the pod is not settled or they name a `waiting` state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pod {
    pub metadata: Meta,
    pub spec: PodSpec,
    pub status: PodStatus,
}

/// A pod as the API prints it (of the fields kept), before a settled pod sheds
/// its container statuses.
#[derive(Deserialize)]
struct PodWire<'a> {
    #[serde(default, deserialize_with = "nullable")]
    metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    spec: PodSpec,
    #[serde(default, borrow)]
    status: Option<PodStatusWire<'a>>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PodStatusWire<'a> {
    #[serde(default, deserialize_with = "nullable")]
    phase: PodPhase,
    #[serde(default, deserialize_with = "pod_conditions")]
    conditions: PodConditions,
    #[serde(default, deserialize_with = "super::time::optional")]
    start_time: Option<Time>,
    #[serde(default, borrow)]
    container_statuses: Deferred<'a, Vec<ContainerStatusWire<'a>>>,
    #[serde(default, borrow)]
    init_container_statuses: Deferred<'a, Vec<ContainerStatusWire<'a>>>,
}

impl<'de> Deserialize<'de> for Pod {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = PodWire::deserialize(deserializer)?;
        let status = wire.status.unwrap_or_default();
        let mut pod = Pod {
            metadata: wire.metadata,
            spec: wire.spec,
            status: PodStatus {
                phase: status.phase,
                conditions: status.conditions,
                start_time: status.start_time,
                container_statuses: List::default(),
                init_container_statuses: List::default(),
            },
        };
        // Settled as `is_settled` judges it, with the statuses still on the
        // wire: a settled pod whose statuses name no waiting state drops them
        // undecoded.
        let may_wait = |s: &Deferred<Vec<ContainerStatusWire>>| {
            s.may_name(&WAITING, |s| s.iter().any(ContainerStatusWire::is_waiting))
        };
        let (regular, init) = (status.container_statuses, status.init_container_statuses);
        if pod.is_settled() && !may_wait(&regular) && !may_wait(&init) {
            regular.skip()?;
            init.skip()?;
            return Ok(pod);
        }
        let (regular, init) = (regular.decode()?, init.decode()?);
        let waiting = init
            .iter()
            .chain(&regular)
            .any(ContainerStatusWire::is_waiting);
        if !pod.is_settled() || waiting {
            pod.status.container_statuses = statuses(regular).map_err(de::Error::custom)?;
            pod.status.init_container_statuses = statuses(init).map_err(de::Error::custom)?;
        }
        Ok(pod)
    }
}

/// The pod spec as the diagnosis keeps it: of the containers, only the host
/// ports they claim (a pod of a large cluster rarely claims any).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodSpec {
    /// Interned: a node's pods share its name.
    pub node_name: Name,
    pub host_network: bool,
    pub scheduling_gates: List<SchedulingGate>,
    /// What the containers and init containers claim on the node, sorted, no duplicates.
    pub host_ports: List<HostPort>,
}

/// `spec` as the API prints it, before the containers are reduced to host ports.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PodSpecWire<'a> {
    #[serde(default, deserialize_with = "interned")]
    node_name: Name,
    #[serde(default, deserialize_with = "nullable")]
    host_network: bool,
    #[serde(default, deserialize_with = "compact")]
    scheduling_gates: List<SchedulingGate>,
    #[serde(default, borrow)]
    containers: Deferred<'a, Vec<ContainerSpec>>,
    #[serde(default, borrow)]
    init_containers: Deferred<'a, Vec<ContainerSpec>>,
}

impl<'de> Deserialize<'de> for PodSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = Option::<PodSpecWire>::deserialize(deserializer)?;
        let Some(wire) = wire else {
            return Ok(PodSpec::default());
        };
        let mut ports = claimed_ports(wire.containers, wire.host_network)?;
        ports.extend(claimed_ports(wire.init_containers, wire.host_network)?);
        ports.sort();
        ports.dedup();
        Ok(PodSpec {
            node_name: wire.node_name,
            host_network: wire.host_network,
            scheduling_gates: wire.scheduling_gates,
            host_ports: ports.into_boxed_slice(),
        })
    }
}

/// What the containers of a pod spec claim on the node. Only `hostPort`, or
/// `hostNetwork` with any container port, claims a port, so containers given
/// as text that name no `hostPort` are not decoded: most pods claim none, and
/// the container specs are most of a pod spec's bytes.
fn claimed_ports<E: de::Error>(
    containers: Deferred<'_, Vec<ContainerSpec>>,
    host_network: bool,
) -> Result<Vec<HostPort>, E> {
    if host_network || containers.may_name(&HOST_PORT, |_| true) {
        Ok(host_ports(&containers.decode()?, host_network))
    } else {
        containers.skip()?;
        Ok(Vec::new())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct SchedulingGate {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
}

/// A container of a pod spec or pod template: only its ports matter here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerSpec {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub ports: Vec<ContainerPort>,
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
pub fn host_ports(containers: &[ContainerSpec], host_network: bool) -> Vec<HostPort> {
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
    pub fn is_terminal(self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodStatus {
    pub phase: PodPhase,
    pub conditions: PodConditions,
    pub start_time: Option<Time>,
    /// Empty for a settled pod (see [`Pod`]).
    pub container_statuses: List<ContainerStatus>,
    /// Empty for a settled pod (see [`Pod`]).
    pub init_container_statuses: List<ContainerStatus>,
}

/// The pod conditions the diagnosis reads; the others are dropped while parsing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodConditions {
    pub pod_scheduled: Option<PodCondition>,
    pub ready: Option<PodCondition>,
    /// Why the pod is being disrupted (taint eviction, preemption, API eviction),
    /// 1.26+. Boxed: few pods carry it.
    pub disruption_target: Option<Box<PodCondition>>,
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

fn pod_conditions<'de, D: Deserializer<'de>>(deserializer: D) -> Result<PodConditions, D::Error> {
    let all: Vec<ConditionWire<'de>> = nullable(deserializer)?;
    let kept_as = |wire: ConditionWire<'de>| -> Result<PodCondition, D::Error> {
        Ok(wire.into_condition().map_err(de::Error::custom)?.into())
    };
    let mut kept = PodConditions::default();
    for wire in all {
        match wire.kind() {
            "PodScheduled" => kept.pod_scheduled = Some(kept_as(wire)?),
            "Ready" => kept.ready = Some(kept_as(wire)?),
            "DisruptionTarget" => kept.disruption_target = Some(Box::new(kept_as(wire)?)),
            _ => {}
        }
    }
    Ok(kept)
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerStatus {
    pub name: String,
    pub image: String,
    pub ready: bool,
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
    pub reason: String,
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
    pub reason: String,
    pub message: String,
    pub started_at: Option<Time>,
    pub finished_at: Option<Time>,
}

/// Which list of the pod a container status came from; events name containers
/// by field path (`spec.containers{app}`, `spec.initContainers{init}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerKind {
    Init,
    Regular,
}

impl ContainerKind {
    pub fn field_path(self, container: &str) -> String {
        match self {
            ContainerKind::Init => format!("spec.initContainers{{{container}}}"),
            ContainerKind::Regular => format!("spec.containers{{{container}}}"),
        }
    }
}

impl Pod {
    pub fn is_terminating(&self) -> bool {
        self.metadata.deletion_timestamp.is_some()
    }

    /// Bound to a node, not being deleted, past Pending, and no container
    /// waiting: nothing the per-pod diagnoses report (a terminal pod is settled
    /// too). Such pods are the bulk of a large cluster and are skipped at scrape
    /// time; the workload diagnoses still see them through their owners.
    pub fn is_settled(&self) -> bool {
        !self.is_terminating()
            && !self.spec.node_name.is_empty()
            && self.status.phase != PodPhase::Pending
            && self
                .container_statuses()
                .all(|(_, s)| s.state.waiting.is_none())
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

    /// Every container status, init containers first, with the list it came from.
    pub fn container_statuses(&self) -> impl Iterator<Item = (ContainerKind, &ContainerStatus)> {
        self.status
            .init_container_statuses
            .iter()
            .map(|s| (ContainerKind::Init, s))
            .chain(
                self.status
                    .container_statuses
                    .iter()
                    .map(|s| (ContainerKind::Regular, s)),
            )
    }

    /// The host ports the pod's containers and init containers claim.
    pub fn host_ports(&self) -> &[HostPort] {
        &self.spec.host_ports
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
    fn a_pod_with_null_everything_parses() {
        let pod: Pod =
            serde_json::from_str(r#"{"metadata":null,"spec":null,"status":null}"#).unwrap();
        assert_eq!(pod.status.phase, PodPhase::Pending);
        assert!(pod.container_statuses().next().is_none());
    }

    #[test]
    fn only_the_conditions_read_are_kept() {
        let pod: Pod = serde_json::from_str(
            r#"{"status":{"phase":"Running","conditions":[
                {"type":"Initialized","status":"True"},
                {"type":"Ready","status":"False","reason":"ContainersNotReady"},
                {"type":"PodScheduled","status":"True","lastTransitionTime":"2024-05-01T10:00:00Z"}]}}"#,
        )
        .unwrap();
        assert_eq!(
            pod.status.conditions.ready.as_ref().unwrap().reason(),
            "ContainersNotReady"
        );
        assert_eq!(
            pod.scheduled_at().unwrap().to_string(),
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

    #[test]
    fn a_settled_pod_is_held_without_its_container_statuses() {
        let status = |phase: &str, state: &str, deletion: &str| {
            format!(
                r#"{{"metadata":{{"name":"p"{deletion}}},"spec":{{"nodeName":"n1"}},
                    "status":{{"phase":"{phase}",
                      "initContainerStatuses":[{{"name":"i","image":"busybox","state":{{"terminated":{{"exitCode":0,"reason":"Completed"}}}}}}],
                      "containerStatuses":[{{"name":"app","image":"nginx:1.27","state":{state}}}]}}}}"#
            )
        };
        let running = r#"{"running":{"startedAt":"2024-05-01T10:00:00Z"}}"#;
        let waiting = r#"{"waiting":{"reason":"CrashLoopBackOff"}}"#;
        let deleting = r#","deletionTimestamp":"2024-05-01T10:00:30Z""#;
        for (json, kept) in [
            (status("Running", running, ""), false),
            (status("Running", waiting, ""), true),
            (status("Running", running, deleting), true),
            (status("Pending", running, ""), true),
        ] {
            let pod: Pod = serde_json::from_str(&json).unwrap();
            assert_eq!(
                pod.container_statuses().count(),
                if kept { 2 } else { 0 },
                "{json}"
            );
            assert_eq!(pod.is_settled(), !kept, "{json}");
        }
    }

    /// The host ports a pod claims, as (port, protocol).
    fn claimed(pod: &Pod) -> Vec<(i32, &str)> {
        pod.host_ports()
            .iter()
            .map(|p| (p.port, p.protocol.as_str()))
            .collect()
    }

    #[test]
    fn containers_are_reduced_to_their_host_ports() {
        let pod: Pod = serde_json::from_str(
            r#"{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"hostPort":8080}]},
                                      {"name":"b"},{"name":"c","ports":[{"containerPort":81}]}],
                        "initContainers":[{"name":"i","ports":[{"containerPort":53,"hostPort":53,"protocol":"UDP"},
                                                               {"containerPort":80,"hostPort":8080}]}]},
                "status":{"containerStatuses":[{"name":"a"},{"name":"b"},{"name":"c"}],
                          "initContainerStatuses":[{"name":"i"}]}}"#,
        )
        .unwrap();
        assert_eq!(claimed(&pod), [(53, "UDP"), (8080, "TCP")]);
        assert_eq!(pod.status.container_statuses.len(), 3);
        assert_eq!(pod.status.init_container_statuses.len(), 1);
    }

    #[test]
    fn host_network_turns_container_ports_into_host_ports() {
        let pod: Pod = serde_json::from_str(
            r#"{"spec":{"hostNetwork":true,"containers":[{"name":"ne","ports":[
                {"containerPort":9100,"name":"metrics"},{"containerPort":53,"protocol":"UDP"}]}]}}"#,
        )
        .unwrap();
        assert_eq!(claimed(&pod), [(53, "UDP"), (9100, "TCP")]);
    }
}
