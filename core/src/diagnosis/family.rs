//! What an anomaly family is: the one declaration each family makes of
//! itself (its anomalies, its metric families, how it diagnoses), and what
//! every family judges with. The families are listed once, in
//! `families/mod.rs`; the diagnosis runs them in that order, the outputs and
//! the catalogue read them from there.

use std::cell::{Cell, OnceCell};
use std::collections::HashSet;
use std::sync::Arc;

use foldhash::HashMap;

use crate::model::{Cluster, Kind, Meta, ObjectKey, Pod, Time};

use super::moment::Moment;

use super::metric::MetricFamily;
use super::{Anomaly, Finding, Settings};

/// What a family judges with: the model, the moment, the thresholds, and the
/// pods any per-pod family can name (the cluster's unsettled pods, looked up
/// once for all of them).
pub(crate) struct Input<'a> {
    pub cluster: &'a Cluster,
    pub unsettled: Vec<&'a Pod>,
    pub now: Moment,
    pub settings: &'a Settings,
    /// The schedulers bound pods name, read once when a judgement needs them.
    schedulers: OnceCell<HashSet<&'a str>>,
    /// Whether the judgement under way read every pod (see [`Input::apart`]).
    read_every_pod: Cell<bool>,
}

impl<'a> Input<'a> {
    pub(crate) fn new(cluster: &'a Cluster, now: Time, settings: &'a Settings) -> Self {
        Input {
            cluster,
            unsettled: cluster.unsettled_pods().collect(),
            now: Moment::at(now),
            settings,
            schedulers: OnceCell::new(),
            read_every_pod: Cell::new(false),
        }
    }

    /// Whether a bound pod names `scheduler` (so some scheduler serves it):
    /// a judgement that asks reads every pod.
    pub(crate) fn scheduler_in_use(&self, scheduler: &str) -> bool {
        self.read_every_pod.set(true);
        self.schedulers
            .get_or_init(|| {
                self.cluster
                    .pods()
                    .filter(|p| !p.spec.node_name.is_empty())
                    .map(|p| p.spec.scheduler_name.as_str())
                    .collect()
            })
            .contains(scheduler)
    }

    /// Judges the controller `meta` of `kind` with `judge`, if `verdicts`
    /// wants it judged, and hands it the verdict.
    pub(crate) fn verdict<L>(
        &self,
        verdicts: &mut dyn Verdicts,
        kind: Kind,
        meta: &Meta<L>,
        judge: impl FnOnce() -> Option<Finding>,
    ) {
        let key = ObjectKey::new(meta.namespace.clone(), meta.name.clone());
        if verdicts.wanted(kind, &key) {
            let (verdict, until, _) = self.apart(judge);
            verdicts.found(kind, key, verdict, until);
        }
    }

    /// Runs `judge` as a judgement of its own: what it read beyond its
    /// subject is told apart from the rest. Returns its result, the first
    /// moment it could read differently (see [`Moment::next_change`]), and
    /// whether it read every pod (then any pod's change may change it).
    pub(crate) fn apart<R>(&self, judge: impl FnOnce() -> R) -> (R, Option<Time>, bool) {
        let read_every_pod = self.read_every_pod.replace(false);
        let (result, until) = self.now.apart(judge);
        (result, until, self.read_every_pod.replace(read_every_pod))
    }
}

/// How a family judges: each unsettled pod on its own (the pod, the events
/// about it, its Job, the nodes and claims, and nothing of other pods but
/// through [`Input::scheduler_in_use`]); each controller on its own (the
/// controller, its ReplicaSets, their pods, those pods' findings and the
/// other families' findings about it: given those before it, it returns
/// what it finds beyond single controllers); the whole cluster, reading
/// the findings before it (`Reading`) or not (`Whole`). A family adds
/// findings and never changes another's: what one leaves to another it
/// asks of that family's own functions.
pub(crate) enum Judge {
    EachPod(fn(&Input<'_>, &Pod, &mut Vec<Finding>)),
    EachController(JudgeControllers),
    Reading(fn(&Input<'_>, &Found<'_>) -> Vec<Finding>),
    Whole(fn(&Input<'_>) -> Vec<Finding>),
}

/// A family that judges each controller: given the findings of the families
/// before it, it hands `Verdicts` each verdict and returns the rest.
type JudgeControllers = fn(&Input<'_>, &Found<'_>, &mut dyn Verdicts) -> Vec<Finding>;

/// What the families before one found: every finding, and those about each
/// pod, looked up by pod.
pub(crate) struct Found<'a> {
    /// [`Input::unsettled`], whose order [`KeptByPod`] follows.
    unsettled: &'a [&'a Pod],
    by_pod: ByPod<'a>,
}

/// The per-pod families' findings a judgement keeps with each pod.
pub(crate) trait KeptByPod {
    /// Those about the pod `Input::unsettled[i]`, each with the index of its
    /// family in `FAMILIES`, in the families' order.
    fn at(&self, i: usize) -> &[(usize, Arc<Finding>)];
}

enum ByPod<'a> {
    /// Every finding, in the order found, indexed when first asked (a
    /// whole diagnosis).
    Indexed {
        all: &'a [Arc<Finding>],
        index: OnceCell<PodIndex<'a>>,
    },
    /// Kept with each pod; `others`, the findings of the families that judge
    /// more than one pod (each with its family's index), indexed when first
    /// asked.
    Kept {
        pods: &'a dyn KeptByPod,
        others: &'a [(usize, Arc<Finding>)],
        index: OnceCell<PodIndex<'a>>,
    },
}

/// For each pod some findings are about, the first of them whose cause is
/// alerted, with its family's index (`None`: none is alerted).
type PodIndex<'a> = HashMap<(&'a str, &'a str), Option<(usize, &'a Finding)>>;

/// Indexes `findings` (with their families' indices) by the pod each is about.
fn index_pods<'a>(findings: impl Iterator<Item = (usize, &'a Finding)>) -> PodIndex<'a> {
    let mut index: PodIndex = HashMap::default();
    for (family, f) in findings.filter(|(_, f)| f.kind == Kind::Pod) {
        let namespace = f.namespace.as_deref().unwrap_or_default();
        let first = index.entry((namespace, f.name.as_str())).or_default();
        if first.is_none() && f.cause.alerted() {
            *first = Some((family, f));
        }
    }
    index
}

impl<'a> Found<'a> {
    /// The findings `all`, indexed by pod when asked.
    pub(crate) fn indexed(input: &'a Input<'_>, all: &'a [Arc<Finding>]) -> Self {
        Found {
            unsettled: &input.unsettled,
            by_pod: ByPod::Indexed {
                all,
                index: OnceCell::new(),
            },
        }
    }

    /// The findings of the per-pod families kept by pod in `pods`, the
    /// others in `others`.
    pub(crate) fn kept(
        input: &'a Input<'_>,
        pods: &'a dyn KeptByPod,
        others: &'a [(usize, Arc<Finding>)],
    ) -> Self {
        Found {
            unsettled: &input.unsettled,
            by_pod: ByPod::Kept {
                pods,
                others,
                index: OnceCell::new(),
            },
        }
    }

    /// The findings about something other than a pod (a workload, a
    /// namespace), in the order found: only the families that judge more
    /// than one pod make them.
    pub(crate) fn beyond_pods(&self) -> Box<dyn Iterator<Item = &'a Finding> + 'a> {
        match &self.by_pod {
            ByPod::Indexed { all, .. } => {
                Box::new(all.iter().map(|f| &**f).filter(|f| f.kind != Kind::Pod))
            }
            ByPod::Kept { others, .. } => Box::new(
                others
                    .iter()
                    .map(|(_, f)| &**f)
                    .filter(|f| f.kind != Kind::Pod),
            ),
        }
    }

    /// The first finding about `pod` whose cause is alerted.
    pub(crate) fn alerted(&self, pod: &Pod) -> Option<&'a Finding> {
        self.about(self.position(pod), pod).0
    }

    /// Whether a finding is about `pod`, `Input::unsettled[i]`.
    pub(crate) fn any_at(&self, i: usize, pod: &Pod) -> bool {
        self.about(Some(i), pod).1
    }

    /// Where `pod` is among the unsettled pods (kept findings are only
    /// about them).
    fn position(&self, pod: &Pod) -> Option<usize> {
        let key = (pod.metadata.namespace.as_str(), pod.metadata.name.as_str());
        self.unsettled
            .binary_search_by(|p| {
                (p.metadata.namespace.as_str(), p.metadata.name.as_str()).cmp(&key)
            })
            .ok()
    }

    /// The first finding about `pod` (at `i` among the unsettled pods) whose
    /// cause is alerted, and whether any is about it.
    fn about(&self, i: Option<usize>, pod: &Pod) -> (Option<&'a Finding>, bool) {
        let key = (pod.metadata.namespace.as_str(), pod.metadata.name.as_str());
        match &self.by_pod {
            ByPod::Indexed { all, index } => {
                let index = index.get_or_init(|| index_pods(all.iter().map(|f| (0, &**f))));
                match index.get(&key) {
                    Some(first) => (first.map(|(_, f)| f), true),
                    None => (None, false),
                }
            }
            ByPod::Kept {
                pods,
                others,
                index,
            } => {
                let own: &'a [(usize, Arc<Finding>)] = i.map(|i| pods.at(i)).unwrap_or_default();
                let own_first = own
                    .iter()
                    .find(|(_, f)| f.kind == Kind::Pod && f.cause.alerted())
                    .map(|(family, f)| (*family, &**f));
                let own_any = own.iter().any(|(_, f)| f.kind == Kind::Pod);
                let others = index
                    .get_or_init(|| index_pods(others.iter().map(|(family, f)| (*family, &**f))))
                    .get(&key);
                // The first in the order found: the earlier family's.
                let first = match (own_first, others.copied().flatten()) {
                    (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
                    (a, b) => a.or(b),
                };
                (first.map(|(_, f)| f), own_any || others.is_some())
            }
        }
    }
}

/// Which controllers a family that judges each controller is to judge, and
/// what it found of each.
pub(crate) trait Verdicts {
    fn wanted(&self, kind: Kind, key: &ObjectKey) -> bool;
    /// The verdict on one controller, and the first moment it could differ.
    fn found(&mut self, kind: Kind, key: ObjectKey, verdict: Option<Finding>, until: Option<Time>);
}

/// Every controller judged, the verdicts in the order found.
#[derive(Default)]
pub(crate) struct AllVerdicts(pub(crate) Vec<Finding>);

impl Verdicts for AllVerdicts {
    fn wanted(&self, _: Kind, _: &ObjectKey) -> bool {
        true
    }

    fn found(&mut self, _: Kind, _: ObjectKey, verdict: Option<Finding>, _: Option<Time>) {
        self.0.extend(verdict);
    }
}

/// One anomaly family, declared once.
pub struct Family {
    /// Its name: the module it lives in.
    pub name: &'static str,
    /// The anomalies its findings carry (their causes and alerts are declared
    /// with the anomalies, in `families/mod.rs`).
    pub anomalies: &'static [Anomaly],
    /// The metric families its findings feed, in the order they are exposed.
    pub metrics: &'static [MetricFamily],
    /// How it finds what it finds (a family that completes others reads
    /// theirs, those of the families before it).
    pub(crate) judge: Judge,
}

/// Declares a family module's `FAMILY` from its name and anomalies; its
/// metric families and its diagnosis are the module's own `METRICS` and
/// `diagnose` (`diagnose_pod` for a family that judges each pod), as in every
/// family.
macro_rules! family {
    ($name:literal each pod: $($anomaly:ident),+ $(,)?) => {
        $crate::diagnosis::family::family!(@ $name, Judge::EachPod(diagnose_pod), $($anomaly),+);
    };
    ($name:literal each controller: $($anomaly:ident),+ $(,)?) => {
        $crate::diagnosis::family::family!(@ $name, Judge::EachController(diagnose_controllers), $($anomaly),+);
    };
    ($name:literal reading: $($anomaly:ident),+ $(,)?) => {
        $crate::diagnosis::family::family!(@ $name, Judge::Reading(diagnose), $($anomaly),+);
    };
    ($name:literal: $($anomaly:ident),+ $(,)?) => {
        $crate::diagnosis::family::family!(@ $name, Judge::Whole(diagnose), $($anomaly),+);
    };
    (@ $name:literal, Judge::$judge:ident($f:ident), $($anomaly:ident),+) => {
        pub(super) const FAMILY: $crate::diagnosis::Family = $crate::diagnosis::Family {
            name: $name,
            anomalies: &[$($crate::diagnosis::Anomaly::$anomaly),+],
            metrics: METRICS,
            judge: $crate::diagnosis::family::Judge::$judge($f),
        };
    };
}
pub(crate) use family;

/// What a workload's verdict says of its pods when they have a cause of this
/// type (`families/workloads/`): each family's cause type says it beside its
/// vocabulary, and the compiler asks a new one (the anomalies' `Cause`
/// reads it through [`Cause::pods_verdict`](super::Cause::pods_verdict)).
/// A cause about another object than a pod is no pod's: `PodStuck`.
pub(crate) trait PodsVerdict: Copy {
    fn pods_verdict(self) -> super::VerdictCause;
}
