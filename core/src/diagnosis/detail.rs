//! What a finding knows beyond its cause, and how it reads: the facts each
//! output shows before the finding's message ([`Detail::lead`]), read in one
//! place for the terminal table, the pages and the JSON.

use std::collections::BTreeMap;

use crate::diagnosis::wording::count;
use crate::model::{HostPort, Name, Time};

use super::{PendingCause, ProbeFailure, TerminatingCause};

/// Facts particular to an anomaly, for outputs that show more than the cause.
///
/// A finding carries one inline. The variants with more than 24 bytes of
/// facts hold them boxed, so that a `Detail` is 32 bytes where it was 120:
/// most findings (a crash loop, a pod not Ready, one stuck Terminating) carry
/// small facts or none, and paid for the largest variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    None,
    Terminating {
        /// `deletionTimestamp - deletionGracePeriodSeconds`.
        requested: Time,
        /// `deletionTimestamp`.
        deadline: Time,
    },
    Blocked(Box<BlockedDetail>),
    NamespaceContent(Box<NamespaceDetail>),
    Pending(Box<PendingDetail>),
    ImagePull(Box<ImagePullDetail>),
    CrashLoop {
        exit_code: Option<i32>,
        restarts: i32,
        /// For `liveness_probe` and `startup_probe`: what the probe's output says.
        probe_failure: Option<ProbeFailure>,
    },
    NotReady {
        /// For `readiness_probe`: what the probe's output says.
        probe_failure: Option<ProbeFailure>,
    },
    InitContainer {
        /// When the container's current run started.
        running_since: Option<Time>,
        restarts: i32,
        /// For `sidecar_startup_probe`: what the probe's output says.
        probe_failure: Option<ProbeFailure>,
    },
    Verdict(Box<VerdictDetail>),
    Stuck(Box<StuckDetail>),
    Evicted(Box<EvictedDetail>),
    ContainerConfig {
        waiting_reason: Name,
    },
    DaemonSet(Box<DaemonSetDetail>),
    Claim {
        /// `spec.storageClassName`, empty when it names none.
        storage_class: String,
    },
    CronJob(Box<CronJobDetail>),
    Drain(Box<DrainDetail>),
    Refused(Box<RefusedDetail>),
}

/// The facts of [`Detail::Blocked`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedDetail {
    /// Pods that must go before the controller creates anything.
    pub blocking_pods: usize,
    /// The one whose cause is reported: the longest in deletion.
    pub oldest_pod: String,
}

/// The facts of [`Detail::NamespaceContent`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceDetail {
    /// Resource (as the condition prints it, e.g. `pods.`) to instance count.
    pub remaining_resources: BTreeMap<String, u64>,
    /// Finalizer to the number of objects carrying it.
    pub remaining_finalizers: BTreeMap<String, u64>,
    /// Pods of the namespace stuck Terminating past their deadline, oldest
    /// deletion first (at most [`namespaces::NAMED_PODS`]), and how many in all.
    pub terminating_pods: Vec<StuckPod>,
    pub terminating_pods_total: usize,
}

/// The facts of [`Detail::Pending`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingDetail {
    /// Scheduler reason to the number of nodes it excluded.
    pub reasons: BTreeMap<PendingCause, u32>,
    /// `N` of `0/N nodes are available`, when the message says.
    pub nodes_total: Option<u32>,
    /// For a node pressure cause, the nodes that carry its taint now
    /// (the scheduler's message counts them but does not name them).
    pub pressured_nodes: Vec<String>,
}

/// The facts of [`Detail::ImagePull`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImagePullDetail {
    /// The model's interned copies: a failing registry's pods share them.
    pub image: Name,
    pub registry: Name,
    /// ErrImagePull, ImagePullBackOff, ImageInspectError, ...
    pub waiting_reason: Name,
}

/// The facts of [`Detail::Verdict`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictDetail {
    /// The pods' own cause (their finding's, or how they ended), when
    /// pods explain the verdict.
    pub pod_cause: Option<&'static str>,
    /// How many of the workload's pods share it, and one of them.
    pub pods: usize,
    pub example_pod: Option<String>,
    /// Pods the controller wants, and has ready (available for a
    /// Deployment, succeeded for a Job).
    pub wanted: i32,
    pub ready: i32,
    /// The controller's own words: its condition's reason and message.
    pub reason: String,
    /// The image registry of the pod it names, for an image pull.
    pub registry: Option<String>,
}

/// The facts of [`Detail::Stuck`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckDetail {
    /// `status.phase`.
    pub phase: &'static str,
    /// The pod's PodScheduled and Ready conditions, as `type=status (reason)`.
    pub conditions: Vec<String>,
    /// The latest warning events about the pod, newest first, as `reason: message`.
    pub events: Vec<String>,
}

/// The facts of [`Detail::Evicted`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvictedDetail {
    /// `status.reason` (`Evicted`, `OutOfcpu`, ...), or the DisruptionTarget
    /// condition's reason when the status has none.
    pub reason: String,
    /// The pod's controller, as kube-state-metrics names a pod's owner.
    pub owner_kind: Option<String>,
    pub owner_name: Option<String>,
}

/// The facts of [`Detail::DaemonSet`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaemonSetDetail {
    /// Ready nodes the DaemonSet's selector, affinity and tolerations admit.
    pub eligible_nodes: usize,
    /// Of those, nodes with no pod of the DaemonSet.
    pub missing_nodes: usize,
    pub desired: i32,
    pub conflicting_port: Option<HostPort>,
}

/// The facts of [`Detail::CronJob`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronJobDetail {
    /// The Job the finding names: the active one a Forbid policy waits
    /// for, or the newest failed one.
    pub job: Option<String>,
    /// That Job's own cause (its finding's, or its pods'), where one
    /// explains it.
    pub job_cause: Option<&'static str>,
}

/// The facts of [`Detail::Drain`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrainDetail {
    /// The first pod a drain cannot evict (`namespace/name`; empty when
    /// only an autoscaler's words say the drain fails), and how many.
    pub pod: String,
    pub blocking_pods: usize,
    /// The PodDisruptionBudget that holds it, in the pod's namespace.
    pub budget: Option<String>,
}

/// The facts of [`Detail::Refused`], boxed (see [`Detail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedDetail {
    /// The Deployment whose ReplicaSet is refused.
    pub deployment: Option<String>,
    /// What the refusal names (see [`classify::Refusal`]): the quota, the
    /// resources, the webhook, the Pod Security level.
    pub quota: Option<String>,
    pub resource: Option<String>,
    pub webhook: Option<String>,
    pub pod_security_level: Option<&'static str>,
    /// Pods the controller wants, and has.
    pub desired: i32,
    pub current: i32,
}

impl Detail {
    /// How the finding reads in one line: the facts first, then `message`
    /// (the facts alone where they say it all: a scheduler's reasons, a
    /// namespace's remaining content).
    pub fn reading(&self, message: &str) -> String {
        match self {
            Detail::Pending(d) if !d.reasons.is_empty() => {
                let PendingDetail {
                    reasons,
                    nodes_total,
                    pressured_nodes,
                } = &**d;
                let mut parts: Vec<_> = reasons.iter().collect();
                parts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                let list: Vec<String> = parts.iter().map(|(r, n)| format!("{n} {r}")).collect();
                let reasons = match nodes_total {
                    Some(total) => format!("0/{total} nodes: {}", list.join(", ")),
                    None => list.join(", "),
                };
                match pressured_nodes.as_slice() {
                    [] => reasons,
                    nodes => format!("{reasons}; under pressure: {}", nodes.join(", ")),
                }
            }
            Detail::ImagePull(d) => format!("{}: {}", d.image, message),
            Detail::CrashLoop {
                exit_code,
                restarts,
                ..
            } => match exit_code {
                Some(code) => format!(
                    "exit {code}, {}: {}",
                    count(*restarts, "restart", "restarts"),
                    message
                ),
                None => format!("{}: {}", count(*restarts, "restart", "restarts"), message),
            },
            Detail::NamespaceContent(d) if !d.terminating_pods.is_empty() => message.to_string(),
            Detail::NamespaceContent(d)
                if !d.remaining_resources.is_empty() || !d.remaining_finalizers.is_empty() =>
            {
                let (remaining_resources, remaining_finalizers) =
                    (&d.remaining_resources, &d.remaining_finalizers);
                let r: Vec<String> = remaining_resources
                    .iter()
                    .map(|(k, n)| format!("{k} {n}"))
                    .collect();
                let fz: Vec<String> = remaining_finalizers
                    .iter()
                    .map(|(k, n)| format!("{k} {n}"))
                    .collect();
                match (r.is_empty(), fz.is_empty()) {
                    (false, false) => {
                        format!("remaining {}; finalizers {}", r.join(", "), fz.join(", "))
                    }
                    (false, true) => format!("remaining {}", r.join(", ")),
                    _ => format!("finalizers {}", fz.join(", ")),
                }
            }
            Detail::Refused(d) => {
                let RefusedDetail {
                    deployment,
                    quota,
                    resource,
                    webhook,
                    pod_security_level,
                    desired,
                    current,
                } = &**d;
                let mut facts = vec![format!("{current}/{desired} pods")];
                facts.extend(deployment.iter().map(|d| format!("deployment {d}")));
                facts.extend(quota.iter().map(|q| format!("quota {q}")));
                facts.extend(resource.iter().cloned());
                facts.extend(webhook.iter().map(|w| format!("webhook {w}")));
                facts.extend(pod_security_level.iter().map(|l| format!("level {l}")));
                format!("{}: {}", facts.join(", "), message)
            }
            Detail::Evicted(d) => match (&d.owner_kind, &d.owner_name) {
                (Some(kind), Some(name)) => format!("{kind} {name}: {}", message),
                _ => message.to_string(),
            },
            _ => message.to_string(),
        }
    }

    /// The registry an image pull finding names.
    pub fn registry(&self) -> Option<&str> {
        match self {
            Detail::ImagePull(d) => Some(&d.registry),
            _ => None,
        }
    }

    /// What a failing probe's output says, for findings a probe explains.
    pub fn probe_failure(&self) -> Option<ProbeFailure> {
        match self {
            Detail::CrashLoop { probe_failure, .. }
            | Detail::NotReady { probe_failure }
            | Detail::InitContainer { probe_failure, .. } => *probe_failure,
            _ => None,
        }
    }
}

/// A pod stuck Terminating that holds something else (a namespace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckPod {
    pub name: String,
    pub node: Option<String>,
    pub cause: TerminatingCause,
}
