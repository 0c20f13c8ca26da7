//! The diagnosis: plain functions from the cluster model and a time to findings.
//! No clock, no I/O, no async; the same model and `now` always give the same
//! findings in the same order.
//!
//! Each anomaly family is one module of [`families`], declared once there
//! (its causes, its diagnosis, its metric families: [`Family`]); the list of
//! them in `families/mod.rs` is what the diagnosis runs, the outputs encode
//! and the catalogue prints. What a finding knows beyond its cause, and how
//! that reads, is [`detail`]; [`classify`] holds the message tables the
//! families share; [`runbook`] the alerts.

pub mod catalogue;
pub mod classify;
mod detail;
pub mod families;
mod family;
mod image_ref;
pub mod metric;
pub(crate) mod moment;
mod placement;
pub mod runbook;
mod vocabulary;

use jiff::SignedDuration;

use crate::model::{Cluster, ContainerKind, Kind, Time};

pub use detail::{Detail, StuckPod};
pub use families::{
    Anomaly, BlockingCause, Cause, ConfigCause, CrashLoopCause, CreatingCause, DaemonSetCause,
    EvictionCause, FAMILIES, ImagePullCause, InitCause, NamespaceCause, NotReadyCause,
    PendingCause, RefusalCause, ResizeCause, StuckCause, TerminatingCause, VerdictCause,
};
pub(crate) use families::{eviction_cause, terminating_cause};
pub use family::Family;
pub(crate) use family::Input;
pub use runbook::{Runbook, Scope};
pub use vocabulary::ProbeFailure;

/// A controller of pods, by kind and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Owner {
    pub kind: String,
    pub name: String,
}

impl Owner {
    /// The controller of `pod`, if it has one.
    pub(crate) fn of(pod: &crate::model::Pod) -> Option<Owner> {
        pod.metadata.controller().map(|c| Owner {
            kind: c.kind.clone(),
            name: c.name.clone(),
        })
    }
}

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
    /// A Deployment short of available pods this long (since its Available
    /// condition turned False) with no pod of it saying why gets the verdict
    /// `replicas_unavailable`. (A workload whose pods say why gets its verdict
    /// as soon as they do.)
    pub unavailable_after: SignedDuration,
    /// A Job still active this long after it started, with no pod of it in
    /// trouble, is `job_not_completed` with cause `running_long`.
    pub job_after: SignedDuration,
    /// A pod held by scheduling gates this long is `gated_too_long`.
    pub gated_after: SignedDuration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            unscheduled_after: SignedDuration::from_mins(5),
            creating_after: SignedDuration::from_mins(5),
            not_ready_after: SignedDuration::from_mins(5),
            init_after: SignedDuration::from_mins(5),
            unavailable_after: SignedDuration::from_mins(5),
            job_after: SignedDuration::from_hours(11),
            gated_after: SignedDuration::from_mins(30),
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
    /// The controller of the pod a pod-level finding is about, as
    /// kube-state-metrics names a pod's owner (a ReplicaSet for a
    /// Deployment's pods); for a workload verdict, the controller whose pods
    /// explain it. It ties a pod's finding to its workload's.
    pub owner: Option<Owner>,
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
        self.cause.runbook()
    }

    fn order_key(&self) -> (Anomaly, &Option<String>, &str, &Option<String>) {
        (self.anomaly(), &self.namespace, &self.name, &self.container)
    }
}

/// Everything wrong in `cluster` at `now`, with default thresholds.
pub fn diagnose(cluster: &Cluster, now: Time) -> Vec<Finding> {
    diagnose_with(cluster, now, &Settings::default())
}

/// Everything wrong in `cluster` at `now`, ordered by anomaly, namespace, name, container.
pub fn diagnose_with(cluster: &Cluster, now: Time, settings: &Settings) -> Vec<Finding> {
    diagnose_until(cluster, now, settings).findings
}

/// Findings, and how long they hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lasting {
    /// What [`diagnose_with`] gives at the same moment.
    pub findings: Vec<Finding>,
    /// The first moment after the one judged at when, with the model
    /// unchanged, the findings could read differently (a threshold waited
    /// out, a deadline passing, an age in a message ticking over); `None`
    /// when nothing in them depends on time.
    pub until: Option<Time>,
}

/// Everything wrong in `cluster` at `now`, and until when that stays true
/// of an unchanged model.
pub fn diagnose_until(cluster: &Cluster, now: Time, settings: &Settings) -> Lasting {
    let input = Input::new(cluster, now, settings);
    let mut findings = Vec::new();
    for family in FAMILIES {
        (family.diagnose)(&input, &mut findings);
    }
    findings.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    Lasting {
        findings,
        until: input.now.next_change(),
    }
}

/// `Some(namespace)` unless empty.
pub(crate) fn namespace_of(namespace: &str) -> Option<String> {
    (!namespace.is_empty()).then(|| namespace.to_string())
}

/// `Some(node)` unless empty.
pub(crate) fn node_of(node: &str) -> Option<String> {
    (!node.is_empty()).then(|| node.to_string())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

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

    /// Every file under `dir`, its subfolders' too (classify/), sorted.
    fn files_under(dir: std::path::PathBuf) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        let mut dirs = vec![dir];
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
        files
    }

    /// The line without its comment and the text inside quotes.
    fn code_of(line: &str) -> String {
        line.split("//")
            .next()
            .unwrap_or_default()
            .split('"')
            .step_by(2)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether a path starts at byte `i` of `code` (not inside a longer name).
    fn path_at(code: &str, i: usize) -> bool {
        !code[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    }

    /// Whether a line of code names a part of the crate other than the model
    /// and the diagnosis, imports from elsewhere, or names a crate that
    /// reaches out of the process.
    fn imports_beyond_the_model(code: &str) -> bool {
        let other_part = code.match_indices("crate::").any(|(i, _)| {
            path_at(code, i) && !CRATE_PARTS.iter().any(|p| code[i..].starts_with(p))
        });
        // `use Cause::*;`: the variants of a type already in scope.
        let other_use = code.trim_start().strip_prefix("use ").is_some_and(|path| {
            !USE_ROOTS.iter().any(|root| path.starts_with(root))
                && !path.starts_with(|c: char| c.is_ascii_uppercase())
        });
        let out_of_process = OUT_OF_PROCESS.iter().any(|krate| {
            code.match_indices(&format!("{krate}::"))
                .any(|(i, _)| path_at(code, i))
        });
        other_part || other_use || out_of_process
    }

    /// The diagnosis decides from the model alone. No file of it names another
    /// part of the crate (a source, an output, the server), nor a crate that
    /// reaches out of the process; it imports std, jiff, serde, the model and
    /// aho-corasick (string matching for the message classifiers).
    #[test]
    fn the_diagnosis_imports_nothing_but_the_model() {
        let files = files_under(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/diagnosis"));
        assert!(files.len() > 5, "{files:?}");
        let mut wrong = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            let name = file.file_name().unwrap().to_string_lossy();
            for (number, line) in text.lines().enumerate() {
                if imports_beyond_the_model(&code_of(line)) {
                    wrong.push(format!("{name}:{}: {}", number + 1, line.trim()));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "the diagnosis reads the model only; these lines import something else:\n{}",
            wrong.join("\n")
        );
    }
}
