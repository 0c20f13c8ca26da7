//! The metrics: every `kube_lifecycle_*` family is declared here, once.
//!
//! - `findings.rs`: the families generated from findings at scrape time, one
//!   declarative table, the labels naming each finding's object added once;
//! - `telemetry.rs`: the exporter's own families (its watches, the model's
//!   size, the lifecycle durations observed on transitions), recorded through
//!   methods that say what happened;
//! - `process.rs`: the standard `process_*` families, read from /proc.
//!
//! A scrape goes from the server to [`Exposition`], which encodes the
//! collectors here; they read the findings and the model's size from the
//! live model. The findings' families are encoded once per set of findings,
//! each family's text kept until its own findings change.

mod findings;
mod process;
mod roots;
mod telemetry;

use std::sync::Arc;

use parking_lot::Mutex;
use prometheus_client::encoding::text::{encode_eof, encode_registry};
use prometheus_client::registry::Registry;

use crate::diagnosis::{Finding, RootCauses};

pub use crate::diagnosis::metric::family_anomalies;
pub(crate) use findings::FindingsSource;
use findings::FindingsText;
pub use findings::render;
pub(crate) use telemetry::{HeldObjects, ModelSize, Telemetry};

/// The exporter's own families as markdown (a generated block of `docs/metrics.md`).
pub(crate) fn telemetry_markdown() -> String {
    telemetry::markdown_catalogue()
}

/// The `process_*` families as markdown (a generated block of `docs/metrics.md`).
pub(crate) fn process_markdown() -> String {
    telemetry::markdown_of(process::CATALOGUE)
}

/// Every family a live exporter serves, in the order they are exposed: the
/// exporter's own, the findings', the model's size, the process's.
pub(crate) struct Exposition<S> {
    live: Arc<S>,
    own: Registry,
    findings: FindingsText,
    encoded: Mutex<Option<Encoded>>,
    rest: Registry,
}

/// A scrape's OpenMetrics text, in the order it is written.
pub(crate) struct Scrape {
    /// The exporter's own families.
    pub(crate) own: String,
    /// The findings' families, whole families to a part, each part kept
    /// (the same `Arc`) for as long as its findings are the same.
    pub(crate) findings: Arc<[Arc<str>]>,
    /// The model's size and the process's families, then `# EOF`.
    pub(crate) rest: String,
}

/// The findings and root causes last encoded, and their families as text
/// (no `# EOF`), in parts.
type Encoded = (Arc<Vec<Arc<Finding>>>, Arc<RootCauses>, Arc<[Arc<str>]>);

impl<S: FindingsSource + HeldObjects> Exposition<S> {
    pub(crate) fn new(live: Arc<S>, telemetry: &Telemetry, series_ceiling: usize) -> Self {
        let mut own = Registry::default();
        telemetry.register(&mut own);
        let mut rest = Registry::default();
        rest.register_collector(Box::new(ModelSize(live.clone())));
        rest.register_collector(Box::new(process::ProcessCollector));
        Exposition {
            live,
            own,
            findings: FindingsText::new(series_ceiling),
            encoded: Mutex::new(None),
            rest,
        }
    }

    /// The OpenMetrics text of a scrape, in parts. The findings' part is
    /// encoded again only when the findings are others than last time, and
    /// then only the families whose findings are others; the parts kept are
    /// handed out as they are, not copied into one text.
    pub(crate) fn encode(&self) -> Result<Scrape, std::fmt::Error> {
        let findings = self.findings_text()?;
        let mut own = String::new();
        encode_registry(&mut own, &self.own)?;
        let mut rest = String::new();
        encode_registry(&mut rest, &self.rest)?;
        encode_eof(&mut rest)?;
        Ok(Scrape {
            own,
            findings,
            rest,
        })
    }

    fn findings_text(&self) -> Result<Arc<[Arc<str>]>, std::fmt::Error> {
        let (current, roots) = self.live.current();
        let mut encoded = self.encoded.lock();
        if let Some((findings, of, text)) = &*encoded
            && Arc::ptr_eq(findings, &current)
            && Arc::ptr_eq(of, &roots)
        {
            return Ok(text.clone());
        }
        let text: Arc<[Arc<str>]> = self.findings.encode(&current, &roots)?.into();
        *encoded = Some((current, roots, text.clone()));
        Ok(text)
    }
}
