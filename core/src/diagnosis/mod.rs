//! The diagnosis: plain functions from the cluster model and a time to findings.
//! No clock, no I/O, no async; the same model and `now` always give the same
//! findings in the same order.
//!
//! Each anomaly family is one module of [`families`], declared once there
//! (its causes, its diagnosis, its metric families: [`Family`]); the list of
//! them in `families/mod.rs` is what the diagnosis runs, the outputs encode
//! and the catalogue prints. What a finding knows beyond its cause, and how
//! that reads, is [`detail`]; [`classify`] holds the message tables the
//! families share; [`runbook`] the alerts; [`wording`] how ages and counts
//! read in messages (the outputs print them the same way).

pub mod catalogue;
pub mod classify;
mod detail;
pub mod families;
mod family;
mod image_ref;
mod incremental;
pub mod metric;
pub(crate) mod moment;
mod placement;
pub mod roots;
pub mod runbook;
mod schedule;
mod settings;
#[cfg(test)]
mod settled_tests;
mod vocabulary;
pub mod wording;

use std::sync::Arc;

use crate::model::{Cluster, ContainerKind, Kind, Name, Time};

// What a finding knows beyond its cause, each family's boxed facts with it.
pub use detail::*;
// Every family's cause type, the anomalies and the list of families: a new
// family's causes are exported here without a line of their own.
pub use families::*;
pub use family::Family;
pub(crate) use family::{AllVerdicts, Found, Input, Judge, KeptByPod, Verdicts};
pub use incremental::Incremental;
pub use roots::{Root, RootCause, RootCauses, RootKey, RootKind, Victim, VictimKind};
pub use runbook::Scope;
pub use settings::{Settings, THRESHOLDS, Threshold, thresholds_markdown};
pub use vocabulary::ProbeFailure;

/// A controller of pods, by kind and name (shared with the model's copy).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Owner {
    pub kind: Name,
    pub name: Name,
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

/// A finding's message, read as text: shared, not copied, by the findings
/// kept between judgements and those handed out (a kubelet message runs to
/// 2 KB, and a storm has tens of thousands).
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Message(std::sync::Arc<str>);

impl std::ops::Deref for Message {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<String> for Message {
    fn from(text: String) -> Self {
        Message(text.into())
    }
}

/// An event's message, shared with the event store rather than copied: the
/// kubelet's ~2 KB pull failure is quoted by the finding of every pod it is
/// about.
impl From<&Arc<str>> for Message {
    fn from(text: &Arc<str>) -> Self {
        Message(text.clone())
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Self {
        Message(text.into())
    }
}

impl PartialEq<str> for Message {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Message {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Message {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One thing that is wrong, and why. Its names are the model's own copies
/// (shared, not copied): a storm has tens of thousands of findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    /// `None` for cluster-scoped objects.
    pub namespace: Option<Name>,
    pub name: Name,
    /// The container, for container-level anomalies.
    pub container: Option<Name>,
    /// Whether that container is an init container, a native sidecar or one
    /// of the app's.
    pub container_kind: Option<ContainerKind>,
    /// The node the pod is bound to, for pod-level anomalies.
    pub node: Option<Name>,
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
    pub message: Message,
    pub detail: Detail,
}

impl Finding {
    pub fn anomaly(&self) -> Anomaly {
        self.cause.anomaly()
    }

    pub fn runbook(&self) -> Runbook {
        self.cause.runbook()
    }

    fn order_key(&self) -> (Anomaly, &Option<Name>, &str, &Option<Name>) {
        (self.anomaly(), &self.namespace, &self.name, &self.container)
    }
}

/// A finding shared with its judgement is the finding it holds (what a
/// kept judgement hands out compares with a full diagnosis's).
impl PartialEq<Finding> for Arc<Finding> {
    fn eq(&self, other: &Finding) -> bool {
        **self == *other
    }
}

/// Whether `a` and `b` are the very same findings (by address), in the same
/// order: whatever was made of the one (encoded text, a summary) holds for
/// the other.
pub fn same_findings<'a, 'b>(
    a: impl ExactSizeIterator<Item = &'a Arc<Finding>>,
    b: impl ExactSizeIterator<Item = &'b Arc<Finding>>,
) -> bool {
    a.len() == b.len() && a.zip(b).all(|(a, b)| Arc::ptr_eq(a, b))
}

/// Everything wrong in `cluster` at `now`, with default thresholds.
pub fn diagnose(cluster: &Cluster, now: Time) -> Vec<Finding> {
    diagnose_with(cluster, now, &Settings::default())
}

/// Everything wrong in `cluster` at `now`, ordered by anomaly, namespace, name, container.
pub fn diagnose_with(cluster: &Cluster, now: Time, settings: &Settings) -> Vec<Finding> {
    diagnose_until(cluster, now, settings)
        .findings
        .into_iter()
        .map(Arc::unwrap_or_clone)
        .collect()
}

/// Everything wrong in `cluster` at `now`, each finding shared, and the
/// root causes that explain them.
pub fn explain_with(
    cluster: &Cluster,
    now: Time,
    settings: &Settings,
) -> (Vec<Arc<Finding>>, RootCauses) {
    let findings = diagnose_until(cluster, now, settings).findings;
    let roots = RootCauses::of(cluster, &findings);
    (findings, roots)
}

/// Findings, and how long they hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lasting {
    /// What [`diagnose_with`] gives at the same moment, each finding shared
    /// (a judgement that keeps a finding hands out the one it kept).
    pub findings: Vec<Arc<Finding>>,
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
    let mut of_pod = Vec::new();
    for family in FAMILIES {
        match family.judge {
            Judge::EachPod(judge) => {
                for pod in &input.unsettled {
                    judge(&input, pod, &mut of_pod);
                }
                findings.extend(of_pod.drain(..).map(Arc::new));
            }
            Judge::EachController(judge) => {
                let mut verdicts = AllVerdicts::default();
                let beyond = judge(&input, &Found::indexed(&input, &findings), &mut verdicts);
                findings.extend(verdicts.0.into_iter().chain(beyond).map(Arc::new));
            }
            Judge::Reading(judge) => {
                let more = judge(&input, &Found::indexed(&input, &findings));
                findings.extend(more.into_iter().map(Arc::new));
            }
            Judge::Whole(judge) => findings.extend(judge(&input).into_iter().map(Arc::new)),
        }
    }
    sort(&mut findings);
    Lasting {
        findings,
        until: input.now.next_change(),
    }
}

/// Findings in the order the diagnosis gives them.
fn sort(findings: &mut [Arc<Finding>]) {
    findings.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
}

/// `Some(namespace)` unless empty (the same copy).
pub(crate) fn namespace_of(namespace: &Name) -> Option<Name> {
    (!namespace.is_empty()).then(|| namespace.clone())
}

/// `Some(node)` unless empty (the same copy).
pub(crate) fn node_of(node: &Name) -> Option<Name> {
    (!node.is_empty()).then(|| node.clone())
}

#[cfg(test)]
mod tests {

    /// A finding is held in an `Arc` (with two counts): at 160 bytes it takes
    /// one of the allocator's 192-byte slots, where its 120-byte `Detail`
    /// made it 248 and a 320-byte slot. The storm holds 80,000.
    #[test]
    fn a_finding_and_its_counts_fit_192_bytes() {
        assert!(std::mem::size_of::<super::Detail>() <= 32);
        assert!(std::mem::size_of::<super::Finding>() + 16 <= 192);
    }
    /// Within the core the diagnosis reads the model, never the decoder: what
    /// it knows of a pod is what the model kept. (What the core may use at all
    /// is its Cargo.toml's dependencies: the compiler holds that line.)
    #[test]
    fn the_diagnosis_reads_the_model_not_the_decoder() {
        let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/diagnosis")];
        let mut wrong = Vec::new();
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if std::fs::read_to_string(&path)
                    .unwrap()
                    .contains(concat!("crate::", "codec"))
                {
                    wrong.push(path);
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "the diagnosis names the decoder: {wrong:?}"
        );
    }
}
