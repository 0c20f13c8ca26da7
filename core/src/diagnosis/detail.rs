//! What a finding knows beyond its cause, and how it reads: the facts each
//! output shows before the finding's message ([`Detail::lead`]), read in one
//! place for the terminal table, the pages and the JSON.

use std::collections::BTreeMap;

use crate::diagnosis::wording::count;
use crate::model::{HostPort, Time};

use super::{PendingCause, ProbeFailure, TerminatingCause};

/// Facts particular to an anomaly, for outputs that show more than the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    None,
    Terminating {
        /// `deletionTimestamp - deletionGracePeriodSeconds`.
        requested: Time,
        /// `deletionTimestamp`.
        deadline: Time,
    },
    Blocked {
        /// Pods that must go before the controller creates anything.
        blocking_pods: usize,
        /// The one whose cause is reported: the longest in deletion.
        oldest_pod: String,
    },
    NamespaceContent {
        /// Resource (as the condition prints it, e.g. `pods.`) to instance count.
        remaining_resources: BTreeMap<String, u64>,
        /// Finalizer to the number of objects carrying it.
        remaining_finalizers: BTreeMap<String, u64>,
        /// Pods of the namespace stuck Terminating past their deadline, oldest
        /// deletion first (at most [`namespaces::NAMED_PODS`]), and how many in all.
        terminating_pods: Vec<StuckPod>,
        terminating_pods_total: usize,
    },
    Pending {
        /// Scheduler reason to the number of nodes it excluded.
        reasons: BTreeMap<PendingCause, u32>,
        /// `N` of `0/N nodes are available`, when the message says.
        nodes_total: Option<u32>,
        /// For a node pressure cause, the nodes that carry its taint now
        /// (the scheduler's message counts them but does not name them).
        pressured_nodes: Vec<String>,
    },
    ImagePull {
        image: String,
        registry: String,
        /// ErrImagePull, ImagePullBackOff, ImageInspectError, ...
        waiting_reason: String,
    },
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
    Verdict {
        /// The pods' own cause (their finding's, or how they ended), when
        /// pods explain the verdict.
        pod_cause: Option<&'static str>,
        /// How many of the workload's pods share it, and one of them.
        pods: usize,
        example_pod: Option<String>,
        /// Pods the controller wants, and has ready (available for a
        /// Deployment, succeeded for a Job).
        wanted: i32,
        ready: i32,
        /// The controller's own words: its condition's reason and message.
        reason: String,
        /// The image registry of the pod it names, for an image pull.
        registry: Option<String>,
    },
    Stuck {
        /// `status.phase`.
        phase: &'static str,
        /// The pod's PodScheduled and Ready conditions, as `type=status (reason)`.
        conditions: Vec<String>,
        /// The latest warning events about the pod, newest first, as `reason: message`.
        events: Vec<String>,
    },
    Evicted {
        /// `status.reason` (`Evicted`, `OutOfcpu`, ...), or the DisruptionTarget
        /// condition's reason when the status has none.
        reason: String,
        /// The pod's controller, as kube-state-metrics names a pod's owner.
        owner_kind: Option<String>,
        owner_name: Option<String>,
    },
    ContainerConfig {
        waiting_reason: String,
    },
    DaemonSet {
        /// Ready nodes the DaemonSet's selector, affinity and tolerations admit.
        eligible_nodes: usize,
        /// Of those, nodes with no pod of the DaemonSet.
        missing_nodes: usize,
        desired: i32,
        conflicting_port: Option<HostPort>,
    },
    Claim {
        /// `spec.storageClassName`, empty when it names none.
        storage_class: String,
    },
    CronJob {
        /// The Job the finding names: the active one a Forbid policy waits
        /// for, or the newest failed one.
        job: Option<String>,
        /// That Job's own cause (its finding's, or its pods'), where one
        /// explains it.
        job_cause: Option<&'static str>,
    },
    Drain {
        /// The first pod a drain cannot evict (`namespace/name`; empty when
        /// only an autoscaler's words say the drain fails), and how many.
        pod: String,
        blocking_pods: usize,
        /// The PodDisruptionBudget that holds it, in the pod's namespace.
        budget: Option<String>,
    },
    Refused {
        /// The Deployment whose ReplicaSet is refused.
        deployment: Option<String>,
        /// What the refusal names (see [`classify::Refusal`]): the quota, the
        /// resources, the webhook, the Pod Security level.
        quota: Option<String>,
        resource: Option<String>,
        webhook: Option<String>,
        pod_security_level: Option<&'static str>,
        /// Pods the controller wants, and has.
        desired: i32,
        current: i32,
    },
}

impl Detail {
    /// How the finding reads in one line: the facts first, then `message`
    /// (the facts alone where they say it all: a scheduler's reasons, a
    /// namespace's remaining content).
    pub fn reading(&self, message: &str) -> String {
        match self {
            Detail::Pending {
                reasons,
                nodes_total,
                pressured_nodes,
            } if !reasons.is_empty() => {
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
            Detail::ImagePull { image, .. } => format!("{image}: {}", message),
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
            Detail::NamespaceContent {
                terminating_pods, ..
            } if !terminating_pods.is_empty() => message.to_string(),
            Detail::NamespaceContent {
                remaining_resources,
                remaining_finalizers,
                ..
            } if !remaining_resources.is_empty() || !remaining_finalizers.is_empty() => {
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
            Detail::Refused {
                deployment,
                quota,
                resource,
                webhook,
                pod_security_level,
                desired,
                current,
            } => {
                let mut facts = vec![format!("{current}/{desired} pods")];
                facts.extend(deployment.iter().map(|d| format!("deployment {d}")));
                facts.extend(quota.iter().map(|q| format!("quota {q}")));
                facts.extend(resource.iter().cloned());
                facts.extend(webhook.iter().map(|w| format!("webhook {w}")));
                facts.extend(pod_security_level.iter().map(|l| format!("level {l}")));
                format!("{}: {}", facts.join(", "), message)
            }
            Detail::Evicted {
                owner_kind: Some(kind),
                owner_name: Some(name),
                ..
            } => format!("{kind} {name}: {}", message),
            _ => message.to_string(),
        }
    }

    /// The registry an image pull finding names.
    pub fn registry(&self) -> Option<&str> {
        match self {
            Detail::ImagePull { registry, .. } => Some(registry),
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
