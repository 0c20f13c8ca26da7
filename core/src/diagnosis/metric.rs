//! Metric families, declared by the anomaly families whose findings feed them
//! (in the manner of kube-state-metrics' stores: name, help, the labels naming
//! the object, the family's own labels, a generator). Plain data: the outputs
//! encode them (`output/metrics`), the catalogue lists them.

use crate::model::Kind;
use crate::model::unix_seconds;

use super::{Anomaly, Finding};

/// Whom a family's series are about: the labels they open with, which name
/// the object (and container) of the finding. Added here, once, for every
/// family, as kube-state-metrics' `wrapPodFunc` adds a pod's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identity {
    /// `namespace`: the namespace itself.
    Namespace,
    /// `namespace`, `pod`, and the pod's controller (`owner_kind`,
    /// `owner_name`, empty for a pod of none), so that a workload's alert can
    /// stand for its pods'.
    Pod,
    /// `namespace`, `pod`, `container`, and the pod's controller
    /// (`owner_kind`, `owner_name`).
    Container,
    /// `namespace`, `deployment`.
    Deployment,
    /// `namespace`, `statefulset`.
    StatefulSet,
    /// `namespace`, `daemonset`.
    DaemonSet,
    /// `namespace`, `job_name` (kube-state-metrics' label for a Job).
    Job,
    /// `namespace`, `cronjob` (kube-state-metrics' label for a CronJob).
    CronJob,
    /// `namespace` and `deployment`, `statefulset` or `job_name`, by the
    /// finding's kind: a family of them all.
    Workload,
    /// `namespace`, `owner_kind`, `owner_name`: a controller of pods of any
    /// kind, named as kube-state-metrics names a pod's owner.
    Controller,
    /// `namespace`, `persistentvolumeclaim` (kube-state-metrics' label).
    PersistentVolumeClaim,
    /// `node`: a node (kube-state-metrics' label).
    Node,
    /// `namespace`, `owner_kind`, `owner_name`: the controller of the pod a
    /// finding is about (empty for a pod of none); for families that count
    /// pods by owner rather than one series each.
    PodOwner,
}

impl Identity {
    /// The label keys, for a finding of `kind`.
    pub fn labels(self, kind: Kind) -> &'static [&'static str] {
        match self {
            Identity::Workload if kind == Kind::StatefulSet => &["namespace", "statefulset"],
            Identity::Workload if kind == Kind::Job => &["namespace", "job_name"],
            Identity::Workload => &["namespace", "deployment"],
            Identity::Job => &["namespace", "job_name"],
            Identity::CronJob => &["namespace", "cronjob"],
            Identity::Namespace => &["namespace"],
            Identity::Node => &["node"],
            Identity::Pod => &["namespace", "pod", "owner_kind", "owner_name"],
            Identity::Container => &["namespace", "pod", "container", "owner_kind", "owner_name"],
            Identity::Deployment => &["namespace", "deployment"],
            Identity::StatefulSet => &["namespace", "statefulset"],
            Identity::DaemonSet => &["namespace", "daemonset"],
            Identity::PersistentVolumeClaim => &["namespace", "persistentvolumeclaim"],
            Identity::Controller | Identity::PodOwner => &["namespace", "owner_kind", "owner_name"],
        }
    }

    /// The label values for a finding.
    pub fn values(self, f: &Finding) -> Vec<String> {
        match self {
            Identity::Namespace | Identity::Node => vec![f.name.to_string()],
            Identity::Pod => {
                let (kind, name) = owner(f);
                vec![text(&f.namespace), f.name.to_string(), kind, name]
            }
            Identity::Container => {
                let (kind, name) = owner(f);
                vec![
                    text(&f.namespace),
                    f.name.to_string(),
                    text(&f.container),
                    kind,
                    name,
                ]
            }
            Identity::Deployment
            | Identity::StatefulSet
            | Identity::DaemonSet
            | Identity::Job
            | Identity::PersistentVolumeClaim
            | Identity::CronJob
            | Identity::Workload => vec![text(&f.namespace), f.name.to_string()],
            Identity::Controller => vec![
                text(&f.namespace),
                f.kind.as_str().to_string(),
                f.name.to_string(),
            ],
            Identity::PodOwner => {
                let (kind, name) = owner(f);
                vec![text(&f.namespace), kind, name]
            }
        }
    }
}

/// `(owner_kind, owner_name)` of a finding, empty when it names no owner.
fn owner(f: &Finding) -> (String, String) {
    f.owner
        .as_ref()
        .map(|o| (o.kind.to_string(), o.name.to_string()))
        .unwrap_or_default()
}

/// How a family's per-object series give way to aggregates when there are more
/// of them than the series ceiling: the object's own labels (`pod`,
/// `container`) are dropped, `namespace` and the family's labels (node, cause,
/// registry…) stay, so the rules that count by node, registry or namespace keep
/// firing on the folded series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fold {
    /// A timestamp: the earliest of the folded series (the oldest is what an
    /// age threshold needs).
    Earliest,
    /// A count: the sum.
    Sum,
    /// A size or a code: the largest.
    Largest,
    /// Never folded: one series per workload or namespace, as many as there
    /// are workloads, not pods.
    Never,
}

impl Fold {
    pub fn combine(self, held: f64, new: f64) -> f64 {
        match self {
            Fold::Earliest => held.min(new),
            Fold::Sum => held + new,
            Fold::Largest | Fold::Never => held.max(new),
        }
    }
}

/// One sample: the values of the family's own labels, in order, and the value.
pub struct Sample {
    pub labels: Vec<String>,
    pub value: f64,
}

/// A gauge family generated from findings.
pub struct MetricFamily {
    pub name: &'static str,
    pub help: &'static str,
    /// The labels every series opens with.
    pub identity: Identity,
    /// The family's own labels, after the identity's.
    pub labels: &'static [&'static str],
    /// The anomalies whose findings feed it.
    pub anomalies: &'static [Anomaly],
    pub samples: fn(&Finding) -> Vec<Sample>,
    /// How the family's per-pod series are folded above the series ceiling.
    pub fold: Fold,
    /// Whether samples with the same labels are summed into one series: a
    /// count of findings by their labels, not a series per finding.
    pub aggregate: bool,
    /// An example query for `docs/metrics.md` (read by its generator, a test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub example: &'static str,
}

impl MetricFamily {
    /// Every label key of a finding's series, in order.
    pub fn label_names(&self, f: &Finding) -> impl Iterator<Item = &'static str> {
        self.identity
            .labels(f.kind)
            .iter()
            .chain(self.labels)
            .copied()
    }
}

/// Total findings by anomaly and cause; every pair is always present (0 when none).
pub const FINDINGS_METRIC: &str = "kube_lifecycle_findings";
pub const FINDINGS_HELP: &str = "Current findings by anomaly and cause.";

/// Per-object series folded into aggregates, by family (0 when none).
pub const FOLDED_METRIC: &str = "kube_lifecycle_series_folded";
pub const FOLDED_HELP: &str = "Per-pod series of a family not exposed because the family had more than --max-series-per-family of them; they are folded into series by namespace and the family's other labels. 0 when the family is whole.";

/// Every metric family of every anomaly family, in the order they are exposed.
pub fn metric_families() -> impl Iterator<Item = &'static MetricFamily> {
    super::families::FAMILIES.iter().flat_map(|f| f.metrics)
}

/// Each per-object family's name and the anomaly that feeds it: what the rule
/// pack's tests need to know which causes an alert expression selects.
pub fn family_anomalies() -> impl Iterator<Item = (&'static str, Anomaly)> {
    metric_families().flat_map(|f| f.anomalies.iter().map(|a| (f.name, *a)))
}

/// A label value from an optional text: empty when there is none.
pub fn text<S: AsRef<str>>(s: &Option<S>) -> String {
    s.as_ref()
        .map_or_else(String::new, |s| s.as_ref().to_string())
}

pub(crate) fn since(f: &Finding, labels: Vec<String>) -> Vec<Sample> {
    f.since
        .map(|t| Sample {
            labels,
            value: unix_seconds(t),
        })
        .into_iter()
        .collect()
}

pub(crate) fn one(labels: Vec<String>, value: f64) -> Vec<Sample> {
    vec![Sample { labels, value }]
}

/// `probe_failure` of a finding, empty when no probe output was read.
pub(crate) fn probe_failure(f: &Finding) -> String {
    f.detail
        .probe_failure()
        .map(|p| p.to_string())
        .unwrap_or_default()
}
