//! The diagnosis: plain functions from the cluster model and a time to findings.
//! No clock, no I/O, no async; the same model and `now` always give the same
//! findings in the same order.
//!
//! One module per anomaly family decides its findings:
//! - [`terminating`]: why a pod is still Terminating;
//! - [`workloads`]: Recreate Deployments and StatefulSets blocked by such pods, DaemonSets short of nodes;
//! - [`namespaces`]: why a namespace is still Terminating;
//! - [`pending`]: why a pod is not scheduled;
//! - [`containers`]: ContainerCreating, image pulls, crash loops and config errors;
//! - [`init_containers`]: init containers that never finish, sidecars that never start;
//! - [`refused`]: controllers whose pods the API server refuses to create;
//! - [`not_ready`]: Running pods not Ready for long;
//! - [`evicted`]: pods thrown out of their node that still exist;
//! - [`unexplained`]: pods stuck past their threshold that none of the above explains.
//!
//! [`classify`] holds the message tables they share.

mod causes;
pub mod classify;
mod containers;
mod evicted;
mod image_ref;
mod init_containers;
mod namespaces;
mod not_ready;
mod pending;
mod placement;
mod refused;
pub mod runbook;
mod terminating;
mod unexplained;
mod workloads;

use std::collections::BTreeMap;

use jiff::SignedDuration;

use crate::model::{Cluster, ContainerKind, HostPort, Kind, Pod, Time};

pub use causes::{
    Anomaly, BlockingCause, Cause, ConfigCause, CrashLoopCause, CreatingCause, DaemonSetCause,
    EvictionCause, ImagePullCause, InitCause, NamespaceCause, NotReadyCause, PendingCause,
    ProbeFailure, RefusalCause, StuckCause, TerminatingCause,
};
pub use runbook::Runbook;

/// Thresholds for anomalies that are only anomalies after a while.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// A pod with no PodScheduled condition this long after creation is `not_scheduled`.
    pub unscheduled_after: SignedDuration,
    /// A scheduled pod still creating containers this long, with no event that
    /// explains it, is `container_creating` with cause `unknown`.
    pub creating_after: SignedDuration,
    /// A Running pod not Ready this long (since its Ready condition last
    /// changed) is `pod_not_ready`.
    pub not_ready_after: SignedDuration,
    /// A pod whose start has waited this long on an init container that runs
    /// (or a sidecar that has not started) is `init_container_running`.
    pub init_after: SignedDuration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            unscheduled_after: SignedDuration::from_mins(5),
            creating_after: SignedDuration::from_mins(5),
            not_ready_after: SignedDuration::from_mins(10),
            init_after: SignedDuration::from_mins(10),
        }
    }
}

/// One thing that is wrong, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    /// `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    pub name: String,
    /// The container, for container-level anomalies.
    pub container: Option<String>,
    /// Whether that container is an init container, a native sidecar or one
    /// of the app's.
    pub container_kind: Option<ContainerKind>,
    /// The node the pod is bound to, for pod-level anomalies.
    pub node: Option<String>,
    pub cause: Cause,
    /// When the anomaly began, as the API shows it (deletion request, condition
    /// transition, first warning event).
    pub since: Option<Time>,
    /// The message the cause was judged from: a condition's or event's text as
    /// the API gave it, or a short statement of the fact used when no text was.
    pub message: String,
    pub detail: Detail,
}

impl Finding {
    pub fn anomaly(&self) -> Anomaly {
        self.cause.anomaly()
    }

    pub fn runbook(&self) -> Runbook {
        Runbook::for_cause(self.cause)
    }

    fn order_key(&self) -> (Anomaly, &Option<String>, &str, &Option<String>) {
        (self.anomaly(), &self.namespace, &self.name, &self.container)
    }
}

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

/// Everything wrong in `cluster` at `now`, with default thresholds.
pub fn diagnose(cluster: &Cluster, now: Time) -> Vec<Finding> {
    diagnose_with(cluster, now, &Settings::default())
}

/// Everything wrong in `cluster` at `now`, ordered by anomaly, namespace, name, container.
pub fn diagnose_with(cluster: &Cluster, now: Time, settings: &Settings) -> Vec<Finding> {
    let mut findings = Vec::new();
    // The pods the per-pod diagnoses walk, looked up once for all of them.
    let unsettled: Vec<&Pod> = cluster.unsettled_pods().collect();
    terminating::diagnose(cluster, &unsettled, now, &mut findings);
    workloads::diagnose(cluster, &unsettled, now, &mut findings);
    namespaces::diagnose(cluster, &unsettled, now, &mut findings);
    pending::diagnose(cluster, &unsettled, now, settings, &mut findings);
    containers::diagnose(cluster, &unsettled, now, settings, &mut findings);
    init_containers::diagnose(cluster, &unsettled, now, settings, &mut findings);
    refused::diagnose(cluster, &mut findings);
    refused::supersede(&mut findings);
    not_ready::diagnose(cluster, &unsettled, now, settings, &mut findings);
    evicted::diagnose(&unsettled, &mut findings);
    unexplained::diagnose(cluster, &unsettled, now, settings, &mut findings);
    findings.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    findings
}

/// Why a pod with a deletionTimestamp still exists at `now` (the rules of
/// [`terminating`]), for observers that need the cause without a finding.
pub(crate) fn terminating_cause(
    cluster: &Cluster,
    pod: &crate::model::Pod,
    now: Time,
) -> TerminatingCause {
    terminating::judge(cluster, pod, now).cause
}

/// Why a pod was evicted or disrupted (the rules of [`evicted`]), `None` when
/// it shows no eviction: for the watch's count of evictions it sees happen.
pub(crate) fn eviction_cause(pod: &Pod) -> Option<EvictionCause> {
    evicted::eviction_cause(pod)
}

/// `Some(namespace)` unless empty.
fn namespace_of(namespace: &str) -> Option<String> {
    (!namespace.is_empty()).then(|| namespace.to_string())
}

/// `Some(node)` unless empty.
fn node_of(node: &str) -> Option<String> {
    (!node.is_empty()).then(|| node.to_string())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The diagnosis decides from the model alone. No file of it names another
    /// part of the crate (a source, an output, the server), nor a crate that
    /// reaches out of the process; it imports std, jiff, serde, the model and
    /// aho-corasick (string matching for the message classifiers).
    #[test]
    fn the_diagnosis_imports_nothing_but_the_model() {
        // `doc_blocks` is the tests' check of generated documentation.
        const CRATE_PARTS: &[&str] = &["crate::model", "crate::diagnosis", "crate::doc_blocks"];
        const USE_ROOTS: &[&str] = &[
            "std::",
            "core::",
            "jiff::",
            "serde::",
            "serde_json::",
            "aho_corasick::",
            "crate::",
            "super::",
            "self::",
        ];
        const OUT_OF_PROCESS: &[&str] = &[
            "kube",
            "k8s_openapi",
            "tokio",
            "futures",
            "axum",
            "http",
            "hyper",
            "tracing",
            "prometheus_client",
            "clap",
            "reqwest",
            "rustls",
        ];
        // Every file of the room, its subfolders' too (classify/).
        let mut files = Vec::new();
        let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src/diagnosis")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        files.sort();
        assert!(files.len() > 5, "{files:?}");
        let mut wrong = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            let name = file.file_name().unwrap().to_string_lossy();
            for (number, line) in text.lines().enumerate() {
                let at = format!("{name}:{}: {}", number + 1, line.trim());
                // The line without its comment and the text inside quotes.
                let code: String = line
                    .split("//")
                    .next()
                    .unwrap_or_default()
                    .split('"')
                    .step_by(2)
                    .collect::<Vec<_>>()
                    .join(" ");
                let code = code.as_str();
                for (i, _) in code.match_indices("crate::") {
                    let ident_before = code[..i]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_');
                    if !ident_before && !CRATE_PARTS.iter().any(|p| code[i..].starts_with(p)) {
                        wrong.push(at.clone());
                    }
                }
                // `use Cause::*;`: the variants of a type already in scope.
                if let Some(path) = code.trim_start().strip_prefix("use ")
                    && !USE_ROOTS.iter().any(|root| path.starts_with(root))
                    && !path.starts_with(|c: char| c.is_ascii_uppercase())
                {
                    wrong.push(at.clone());
                }
                for krate in OUT_OF_PROCESS {
                    let named = code.match_indices(&format!("{krate}::")).any(|(i, _)| {
                        !code[..i]
                            .chars()
                            .next_back()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_')
                    });
                    if named {
                        wrong.push(at.clone());
                    }
                }
            }
        }
        wrong.dedup();
        assert!(
            wrong.is_empty(),
            "the diagnosis reads the model only; these lines import something else:\n{}",
            wrong.join("\n")
        );
    }
}
