//! What the offline commands print: findings in the format asked for, on
//! standard output.

use std::io::Write;

use anyhow::{Context, Result};
use clap::ValueEnum;
use jiff::Timestamp;

use crate::diagnosis::Finding;
use crate::output::{self, RunbookLinks};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Format {
    /// Aligned columns for a terminal.
    Table,
    /// An array of findings.
    Json,
    /// The Prometheus exposition (OpenMetrics text) the exporter would serve.
    Metrics,
}

/// Renders `findings`, judged at `now`, as `format` and writes them to
/// standard output.
pub(super) fn print(
    findings: Vec<Finding>,
    format: Format,
    now: Timestamp,
    links: &RunbookLinks,
) -> Result<()> {
    let text = match format {
        Format::Table => output::table::render(&findings, now, links),
        Format::Json => output::json::render(&findings, links),
        Format::Metrics => output::metrics::render(findings),
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing the output"),
    }
}
