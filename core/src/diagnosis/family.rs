//! What an anomaly family is: the one declaration each family makes of
//! itself (its anomalies, its metric families, how it diagnoses), and what
//! every family judges with. The families are listed once, in
//! `families/mod.rs`; the diagnosis runs them in that order, the outputs and
//! the catalogue read them from there.

use crate::model::{Cluster, Pod, Time};

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
}

impl<'a> Input<'a> {
    pub(crate) fn new(cluster: &'a Cluster, now: Time, settings: &'a Settings) -> Self {
        Input {
            cluster,
            unsettled: cluster.unsettled_pods().collect(),
            now: Moment::at(now),
            settings,
        }
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
    /// Adds its findings to `out`, which holds those of the families before it
    /// (a family that supersedes or completes others reads them there).
    pub(crate) diagnose: fn(&Input<'_>, &mut Vec<Finding>),
}

/// Declares a family module's `FAMILY` from its name and anomalies; its
/// metric families and its diagnosis are the module's own `METRICS` and
/// `diagnose`, as in every family.
macro_rules! family {
    ($name:literal: $($anomaly:ident),+ $(,)?) => {
        pub(super) const FAMILY: $crate::diagnosis::Family = $crate::diagnosis::Family {
            name: $name,
            anomalies: &[$($crate::diagnosis::Anomaly::$anomaly),+],
            metrics: METRICS,
            diagnose,
        };
    };
}
pub(crate) use family;
