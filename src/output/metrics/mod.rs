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
//! live model. The findings' families are encoded once per set of findings
//! and kept as text until the findings change.

mod findings;
mod process;
mod telemetry;

use std::sync::Arc;

use parking_lot::Mutex;
use prometheus_client::encoding::text::{encode_eof, encode_registry};
use prometheus_client::registry::Registry;

use crate::diagnosis::Finding;

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

/// Every family a live exporter serves, in the order they are exposed: the
/// exporter's own, the findings', the model's size, the process's.
pub(crate) struct Exposition<S> {
    live: Arc<S>,
    own: Registry,
    findings: Registry,
    /// The findings the `findings` registry encodes next.
    encoding: Arc<Latest>,
    encoded: Mutex<Option<Encoded>>,
    rest: Registry,
}

/// The findings last encoded, and their families as text (no `# EOF`).
type Encoded = (Arc<Vec<Arc<Finding>>>, Arc<str>);

/// The findings handed to the findings' collector for one encoding.
#[derive(Default)]
struct Latest(Mutex<Arc<Vec<Arc<Finding>>>>);

impl FindingsSource for Latest {
    fn current(&self) -> Arc<Vec<Arc<Finding>>> {
        self.0.lock().clone()
    }
}

impl<S: FindingsSource + HeldObjects> Exposition<S> {
    pub(crate) fn new(live: Arc<S>, telemetry: &Telemetry, series_ceiling: usize) -> Self {
        let mut own = Registry::default();
        telemetry.register(&mut own);
        let encoding = Arc::new(Latest::default());
        let mut findings = Registry::default();
        FindingsCollector::new(encoding.clone())
            .with_ceiling(series_ceiling)
            .register(&mut findings);
        let mut rest = Registry::default();
        rest.register_collector(Box::new(ModelSize(live.clone())));
        rest.register_collector(Box::new(process::ProcessCollector));
        Exposition {
            live,
            own,
            findings,
            encoding,
            encoded: Mutex::new(None),
            rest,
        }
    }

    /// The OpenMetrics text of a scrape. The findings' part is encoded again
    /// only when the findings are others than last time.
    pub(crate) fn encode(&self) -> Result<String, std::fmt::Error> {
        let findings = self.findings_text()?;
        let mut text = String::with_capacity(findings.len() + 64 * 1024);
        encode_registry(&mut text, &self.own)?;
        text.push_str(&findings);
        encode_registry(&mut text, &self.rest)?;
        encode_eof(&mut text)?;
        Ok(text)
    }

    fn findings_text(&self) -> Result<Arc<str>, std::fmt::Error> {
        let current = self.live.current();
        let mut encoded = self.encoded.lock();
        if let Some((findings, text)) = &*encoded
            && Arc::ptr_eq(findings, &current)
        {
            return Ok(text.clone());
        }
        *self.encoding.0.lock() = current.clone();
        let mut text = String::new();
        encode_registry(&mut text, &self.findings)?;
        let text: Arc<str> = text.into();
        *encoded = Some((current, text.clone()));
        Ok(text)
    }
}
