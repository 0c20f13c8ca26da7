//! A pod as the API prints it, and the policy that decodes it into the
//! model's [`Pod`]: which conditions are kept, containers reduced to the host
//! ports they claim, and a settled pod's container statuses dropped.
//!
//! The container statuses are decoded before it is known whether the pod
//! keeps them.
//!
//! Most pods of a large cluster are settled and drop their container
//! statuses (see [`Pod`](super::Pod)); decoded straight into the model's
//! types, each status cost its strings' allocations and its timestamps'
//! parsing only to be thrown away, a large part of the decoding of a pod.
//! Here the strings stay borrowed from the input and the timestamps unparsed
//! until a status is known to be kept. (The list decoder does better still: it
//! hands the statuses over as text, and a settled pod's are not decoded at all
//! unless they name a `waiting` state; see `deferred.rs`.)

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use super::deferred::{Deferred, Key};
use super::meta::{Condition, ConditionStatus, Labels, List, Meta, Time, nullable};
use super::name::{Name, interned};
use super::pod::{
    ContainerSpec, ContainerState, ContainerStatus, HostPort, Placement, Pod, PodCondition,
    PodConditions, PodPhase, PodResourceClaim, PodResourceClaimStatus, PodSpec, PodStatus,
    RareSpec, RareStatus, ResizeConditions, Running, SchedulingGate, Terminated, VolumeClaim,
    Waiting, host_ports,
};
use super::selector::Affinity;

/// A container status with a waiting state names this key.
static WAITING: Key = Key::new("\"waiting\"");
/// A container status whose run (or last run) ended names this key.
static TERMINATED: Key = Key::new("\"terminated\"");
/// A container spec that claims a port on the node names this key.
static HOST_PORT: Key = Key::new("\"hostPort\"");
/// A volume that uses a PersistentVolumeClaim names one of these keys.
static CLAIM: Key = Key::new("\"persistentVolumeClaim\"");
static EPHEMERAL: Key = Key::new("\"ephemeral\"");
/// An init container that is a native sidecar names this key (a pod's own
/// `restartPolicy` is outside its container lists).
static RESTART_POLICY: Key = Key::new("\"restartPolicy\"");

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
    conditions: ConditionsWire,
    #[serde(default, deserialize_with = "super::time::optional")]
    start_time: Option<Time>,
    #[serde(default, borrow)]
    reason: Text<'a>,
    #[serde(default, borrow)]
    message: Text<'a>,
    #[serde(default, borrow)]
    container_statuses: Deferred<'a, Vec<ContainerStatusWire<'a>>>,
    #[serde(default, borrow)]
    init_container_statuses: Deferred<'a, Vec<ContainerStatusWire<'a>>>,
    /// Before 1.33, what became the PodResizePending condition.
    #[serde(default, borrow)]
    resize: Text<'a>,
    #[serde(default, deserialize_with = "nullable")]
    resource_claim_statuses: Vec<PodResourceClaimStatus>,
}

impl<'de> Deserialize<'de> for Pod {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = PodWire::deserialize(deserializer)?;
        let mut status = wire.status.unwrap_or_default();
        // `status.resize` (before 1.33) says what the condition says since,
        // without a message; `InProgress` is a resize under way.
        let has_pending = status
            .conditions
            .resize
            .as_ref()
            .is_some_and(|r| r.pending.is_some());
        if !has_pending && matches!(&*status.resize.0, "Infeasible" | "Deferred") {
            status.conditions.resize.get_or_insert_default().pending = Some(PodCondition::said(
                &status.resize.0,
                "status.resize (before Kubernetes 1.33; no message)",
            ));
        }
        let rare = RareStatus {
            said: (!status.reason.0.is_empty() || !status.message.0.is_empty())
                .then(|| (status.reason.owned(), status.message.owned())),
            resource_claim_statuses: status.resource_claim_statuses,
            disruption_target: status.conditions.disruption_target,
            resize: status.conditions.resize,
            ..RareStatus::default()
        };
        let mut pod = Pod {
            metadata: wire.metadata,
            spec: wire.spec,
            status: PodStatus::new(
                status.phase,
                status.conditions.kept,
                status.start_time,
                rare,
            ),
        };
        // Settled as `is_settled` judges it, with the statuses still on the
        // wire: a settled pod whose statuses name no waiting state drops them
        // undecoded.
        let may_wait = |s: &Deferred<Vec<ContainerStatusWire>>| {
            s.may_name(&WAITING, |s| s.iter().any(ContainerStatusWire::is_waiting))
        };
        // A Job's running pod whose container restarted in place
        // (restartPolicy OnFailure), an init container or native sidecar
        // too, keeps them: how its last run ended is the Job's verdict
        // (diagnosis/families/workloads/jobs.rs reads every status).
        let job_running = pod.status.phase == PodPhase::Running
            && pod.metadata.controller().is_some_and(|c| c.kind == "Job");
        let may_restart = |s: &Deferred<Vec<ContainerStatusWire>>| {
            job_running
                && s.may_name(&TERMINATED, |s| {
                    s.iter().any(ContainerStatusWire::ran_before)
                })
        };
        let (regular, init) = (status.container_statuses, status.init_container_statuses);
        let may_have_restarted = may_restart(&regular) || may_restart(&init);
        if pod.is_settled() && !may_wait(&regular) && !may_wait(&init) && !may_have_restarted {
            regular.skip()?;
            init.skip()?;
            return Ok(pod);
        }
        let (regular, init) = (regular.decode()?, init.decode()?);
        // Decoded, the statuses say for certain what the text only may have
        // named: a "terminated" key is not a restart in place.
        let waiting = init
            .iter()
            .chain(&regular)
            .any(ContainerStatusWire::is_waiting);
        let in_place = job_running
            && init
                .iter()
                .chain(&regular)
                .any(ContainerStatusWire::ran_before);
        if !pod.is_settled() || waiting || in_place {
            pod.status.set_container_statuses(
                statuses(regular).map_err(de::Error::custom)?,
                statuses(init).map_err(de::Error::custom)?,
            );
        }
        Ok(pod)
    }
}

/// `spec` as the API prints it, before the containers are reduced to host ports.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PodSpecWire<'a> {
    #[serde(default, deserialize_with = "interned")]
    node_name: Name,
    #[serde(default, deserialize_with = "interned")]
    scheduler_name: Name,
    #[serde(default, deserialize_with = "nullable")]
    host_network: bool,
    #[serde(default, deserialize_with = "nullable")]
    scheduling_gates: Vec<SchedulingGate>,
    #[serde(default, deserialize_with = "nullable")]
    resource_claims: Vec<PodResourceClaimWire>,
    #[serde(default, deserialize_with = "nullable")]
    node_selector: Labels,
    #[serde(default, deserialize_with = "nullable")]
    affinity: Affinity,
    #[serde(default, borrow)]
    containers: Deferred<'a, Vec<ContainerSpec>>,
    #[serde(default, borrow)]
    init_containers: Deferred<'a, Vec<ContainerSpec>>,
    /// Every pod has volumes (its service account token's); few use a claim.
    #[serde(default, borrow)]
    volumes: Deferred<'a, Vec<VolumeWire>>,
}

/// A volume of a pod spec: only whether, and how, it uses a claim.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VolumeWire {
    #[serde(default, deserialize_with = "nullable")]
    name: String,
    #[serde(default, deserialize_with = "nullable")]
    persistent_volume_claim: Option<ClaimVolumeWire>,
    #[serde(default)]
    ephemeral: Option<serde::de::IgnoredAny>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaimVolumeWire {
    #[serde(default, deserialize_with = "nullable")]
    claim_name: String,
}

/// The claims of a pod's volumes; the volumes are decoded only when their
/// text names a claim.
fn volume_claims<E: de::Error>(
    volumes: Deferred<'_, Vec<VolumeWire>>,
) -> Result<Vec<VolumeClaim>, E> {
    let uses_claims = |v: &Vec<VolumeWire>| {
        v.iter()
            .any(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some())
    };
    if !volumes.may_name(&CLAIM, uses_claims) && !volumes.may_name(&EPHEMERAL, uses_claims) {
        volumes.skip()?;
        return Ok(Vec::new());
    }
    Ok(volumes
        .decode()?
        .into_iter()
        .filter_map(|v| match (v.persistent_volume_claim, v.ephemeral) {
            (Some(c), _) if !c.claim_name.is_empty() => Some(VolumeClaim::Named(c.claim_name)),
            (None, Some(_)) => Some(VolumeClaim::Ephemeral(v.name)),
            _ => None,
        })
        .collect())
}

impl<'de> Deserialize<'de> for PodSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = Option::<PodSpecWire>::deserialize(deserializer)?;
        let Some(wire) = wire else {
            return Ok(PodSpec::default());
        };
        let mut ports = claimed_ports(wire.containers, wire.host_network)?;
        let init = wire.init_containers;
        let sidecars = if init.may_name(&RESTART_POLICY, |c| {
            c.iter().any(|c| !c.restart_policy.is_empty())
        }) || init.may_name(&HOST_PORT, |_| true)
            || wire.host_network
        {
            let init = init.decode()?;
            ports.extend(host_ports(&init, wire.host_network));
            init.into_iter()
                .filter(|c| c.restart_policy == "Always")
                .map(|c| c.name)
                .collect()
        } else {
            init.skip()?;
            Vec::new()
        };
        ports.sort();
        ports.dedup();
        // Only an unbound pod keeps where it asks to go.
        let asks = !wire.node_selector.is_empty()
            || wire
                .affinity
                .node_affinity
                .required_during_scheduling_ignored_during_execution
                .is_some();
        let placement = (wire.node_name.is_empty() && asks).then(|| {
            Box::new(Placement {
                node_selector: wire.node_selector,
                affinity: wire.affinity,
            })
        });
        let volume_claims = volume_claims(wire.volumes)?;
        let rare = (!wire.scheduling_gates.is_empty()
            || !sidecars.is_empty()
            || !volume_claims.is_empty()
            || !wire.resource_claims.is_empty()
            || !ports.is_empty()
            || wire.host_network
            || placement.is_some())
        .then(|| {
            Box::new(RareSpec {
                host_network: wire.host_network,
                host_ports: ports.into_boxed_slice(),
                scheduling_gates: wire.scheduling_gates,
                sidecars,
                resource_claims: wire
                    .resource_claims
                    .into_iter()
                    .map(PodResourceClaimWire::into_claim)
                    .collect(),
                placement,
                volume_claims,
            })
        });
        Ok(PodSpec {
            node_name: wire.node_name,
            scheduler_name: wire.scheduler_name,
            rare,
        })
    }
}

/// `spec.resourceClaims[]` as 1.31+ writes it, or 1.30 (under `source`).
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PodResourceClaimWire {
    #[serde(default, deserialize_with = "nullable")]
    name: String,
    #[serde(default, deserialize_with = "nullable")]
    resource_claim_name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    resource_claim_template_name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    source: Option<ClaimSourceWire>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaimSourceWire {
    #[serde(default, deserialize_with = "nullable")]
    resource_claim_name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    resource_claim_template_name: Option<String>,
}

impl PodResourceClaimWire {
    fn into_claim(self) -> PodResourceClaim {
        let source = self.source.unwrap_or_default();
        PodResourceClaim {
            name: self.name,
            resource_claim_name: self.resource_claim_name.or(source.resource_claim_name),
            resource_claim_template_name: self
                .resource_claim_template_name
                .or(source.resource_claim_template_name),
        }
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

/// The conditions kept: those every pod carries inline, and the rare ones.
#[derive(Default)]
struct ConditionsWire {
    kept: PodConditions,
    disruption_target: Option<PodCondition>,
    resize: Option<ResizeConditions>,
}

fn pod_conditions<'de, D: Deserializer<'de>>(deserializer: D) -> Result<ConditionsWire, D::Error> {
    let all: Vec<ConditionWire<'de>> = nullable(deserializer)?;
    let kept_as = |wire: ConditionWire<'de>| -> Result<PodCondition, D::Error> {
        Ok(wire.into_condition().map_err(de::Error::custom)?.into())
    };
    let mut kept = ConditionsWire::default();
    for wire in all {
        match wire.kind() {
            "PodScheduled" => kept.kept.pod_scheduled = Some(kept_as(wire)?),
            "Ready" => kept.kept.ready = Some(kept_as(wire)?),
            "DisruptionTarget" => kept.disruption_target = Some(kept_as(wire)?),
            "PodResizePending" if wire.status == ConditionStatus::True => {
                kept.resize.get_or_insert_default().pending = Some(kept_as(wire)?);
            }
            "PodResizeInProgress" if wire.reason.0 == "Error" => {
                kept.resize.get_or_insert_default().failed = Some(kept_as(wire)?);
            }
            _ => {}
        }
    }
    Ok(kept)
}

/// A string borrowed from the input where it has no escapes; `null` and a
/// missing field read as empty.
#[derive(Debug, Default)]
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text::default())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_str(self)
            }
        }
        deserializer.deserialize_option(TextVisitor)
    }
}

impl Text<'_> {
    fn owned(self) -> String {
        self.0.into_owned()
    }

    /// A timestamp as the API prints it, parsed as `Time` decodes it.
    fn time(&self) -> Result<Time, String> {
        super::time::parse_time(&self.0).map_err(|e| format!("invalid timestamp {:?}: {e}", self.0))
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ContainerStatusWire<'a> {
    #[serde(default, borrow)]
    name: Text<'a>,
    #[serde(default, borrow)]
    image: Text<'a>,
    #[serde(default, deserialize_with = "nullable")]
    ready: bool,
    #[serde(default)]
    started: Option<bool>,
    #[serde(default, deserialize_with = "nullable")]
    restart_count: i32,
    #[serde(default, borrow)]
    state: Option<StateWire<'a>>,
    #[serde(default, borrow)]
    last_state: Option<StateWire<'a>>,
}

#[derive(Debug, Deserialize)]
struct StateWire<'a> {
    #[serde(default, borrow)]
    waiting: Option<WaitingWire<'a>>,
    #[serde(default, borrow)]
    running: Option<RunningWire<'a>>,
    #[serde(default, borrow)]
    terminated: Option<TerminatedWire<'a>>,
}

#[derive(Debug, Deserialize)]
struct WaitingWire<'a> {
    #[serde(default, borrow)]
    reason: Text<'a>,
    #[serde(default, borrow)]
    message: Text<'a>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunningWire<'a> {
    #[serde(default, borrow)]
    started_at: Option<Text<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TerminatedWire<'a> {
    #[serde(default, deserialize_with = "nullable")]
    exit_code: i32,
    #[serde(default)]
    signal: Option<i32>,
    #[serde(default, borrow)]
    reason: Text<'a>,
    #[serde(default, borrow)]
    message: Text<'a>,
    #[serde(default, borrow)]
    started_at: Option<Text<'a>>,
    #[serde(default, borrow)]
    finished_at: Option<Text<'a>>,
}

impl ContainerStatusWire<'_> {
    /// Whether the container restarted after a run that ended.
    fn ran_before(&self) -> bool {
        self.restart_count > 0
            && self
                .last_state
                .as_ref()
                .is_some_and(|s| s.terminated.is_some())
    }

    /// Whether the container waits (not created, pulling, backing off).
    fn is_waiting(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.waiting.is_some())
    }

    fn into_status(self) -> Result<ContainerStatus, String> {
        Ok(ContainerStatus {
            name: Name::interned(&self.name.0),
            image: Name::interned(&self.image.0),
            ready: self.ready,
            started: self.started,
            restart_count: self.restart_count,
            state: state(self.state)?,
            last_state: state(self.last_state)?,
        })
    }
}

fn state(wire: Option<StateWire<'_>>) -> Result<ContainerState, String> {
    let Some(wire) = wire else {
        return Ok(ContainerState::default());
    };
    Ok(ContainerState {
        waiting: wire.waiting.map(|w| {
            Box::new(Waiting {
                reason: Name::interned(&w.reason.0),
                message: w.message.owned(),
            })
        }),
        running: match wire.running {
            Some(r) => Some(Running {
                started_at: time(r.started_at)?,
            }),
            None => None,
        },
        terminated: match wire.terminated {
            Some(t) => Some(Box::new(Terminated {
                exit_code: t.exit_code,
                signal: t.signal,
                started_at: time(t.started_at)?,
                finished_at: time(t.finished_at)?,
                reason: Name::interned(&t.reason.0),
                message: t.message.owned(),
            })),
            None => None,
        },
    })
}

fn time(text: Option<Text<'_>>) -> Result<Option<Time>, String> {
    text.map(|t| t.time()).transpose()
}

/// The statuses as the model holds them.
fn statuses(wire: Vec<ContainerStatusWire<'_>>) -> Result<List<ContainerStatus>, String> {
    wire.into_iter()
        .map(ContainerStatusWire::into_status)
        .collect::<Result<Vec<_>, _>>()
        .map(Vec::into_boxed_slice)
}

/// A pod condition as the API prints it: a pod carries four or more, of which
/// the diagnosis keeps two or three, so the others' type names are not
/// allocated nor their timestamps parsed.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConditionWire<'a> {
    #[serde(rename = "type", default, borrow)]
    type_: Text<'a>,
    #[serde(default)]
    status: ConditionStatus,
    #[serde(default, borrow)]
    reason: Text<'a>,
    #[serde(default, borrow)]
    message: Text<'a>,
    #[serde(default, borrow)]
    last_transition_time: Option<Text<'a>>,
}

impl ConditionWire<'_> {
    fn kind(&self) -> &str {
        &self.type_.0
    }

    fn into_condition(self) -> Result<Condition, String> {
        Ok(Condition {
            last_transition_time: time(self.last_transition_time)?,
            type_: self.type_.owned(),
            status: self.status,
            reason: self.reason.owned(),
            message: self.message.owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(pod.status.container_statuses().len(), 3);
        assert_eq!(pod.status.init_container_statuses().len(), 1);
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
