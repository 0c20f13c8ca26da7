//! What the offline commands print: findings in the format asked for, on
//! standard output, and how anything is written there.

use std::io::Write;

use anyhow::{Context, Result};
use clap::ValueEnum;

use std::sync::Arc;

use crate::diagnosis::{Finding, RootCauses};
use crate::model::Time;
use crate::output::{self, RunbookLinks, terminal};

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
/// standard output (the metrics with their root causes' families).
pub(super) fn print(
    findings: &[Arc<Finding>],
    roots: RootCauses,
    format: Format,
    now: Time,
    links: &RunbookLinks,
) -> Result<()> {
    let text = match format {
        Format::Table => output::table::render(findings, now, links),
        // The same JSON, with the characters a terminal would act on escaped.
        Format::Json => terminal::json_escaped(&output::json::render(findings, links)).into_owned(),
        // Label values are names from the input, which a dump does not
        // validate as the API server does.
        Format::Metrics => {
            terminal::visible_lines(&output::metrics::render(findings, roots)).into_owned()
        }
    };
    write_stdout(&text, "writing the output")
}

/// Writes `text` to standard output; `doing` says what failed if it does.
pub(super) fn write_stdout(text: &str, doing: &'static str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context(doing),
    }
}
