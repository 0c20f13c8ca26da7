//! The metrics: every `kube_lifecycle_*` family is declared here, once.
//!
//! - `findings.rs`: the families generated from findings at scrape time, one
//!   declarative table, the labels naming each finding's object added once;
//! - `telemetry.rs`: the exporter's own families (its watches, the model's
//!   size, the lifecycle durations observed on transitions), recorded through
//!   methods that say what happened;
//! - `process.rs`: the standard `process_*` families, read from /proc.
//!
//! A scrape goes from the server to the collectors here, which read the
//! findings and the model's size from the live model (`register`).

mod findings;
mod process;
mod telemetry;

use std::sync::Arc;

use prometheus_client::registry::Registry;

pub use crate::diagnosis::metric::family_anomalies;
pub use findings::render;
pub(crate) use findings::{FindingsCollector, FindingsSource};
pub(crate) use telemetry::{HeldObjects, ModelSize, Telemetry};

/// The exporter's own families as markdown (a generated block of `docs/metrics.md`).
pub(crate) fn telemetry_markdown() -> String {
    telemetry::markdown_catalogue()
}

/// The `process_*` families as markdown (a generated block of `docs/metrics.md`).
pub(crate) fn process_markdown() -> String {
    telemetry::markdown_of(process::CATALOGUE)
}

/// Registers every family a live exporter serves, in the order they are
/// exposed: the findings', the model's size, the exporter's own, the process's.
pub(crate) fn register<S: FindingsSource + HeldObjects>(
    registry: &mut Registry,
    live: Arc<S>,
    telemetry: &Telemetry,
    series_ceiling: usize,
) {
    FindingsCollector::new(live.clone())
        .with_ceiling(series_ceiling)
        .register(registry);
    registry.register_collector(Box::new(ModelSize(live)));
    telemetry.register(registry);
    registry.register_collector(Box::new(process::ProcessCollector));
}
