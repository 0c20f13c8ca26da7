//! `diagnose`: a dump in, findings out.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::diagnosis;
use crate::diagnosis::wording::count;
use crate::model::Time;
use crate::output::{RunbookLinks, terminal};
use crate::source::dump;

use super::report::{self, Format};
use super::{Thresholds, parse_time};

#[derive(Debug, clap::Args)]
pub struct DiagnoseArgs {
    /// The dump to read (kubectl get ... -o json or -o yaml); `-` or none reads
    /// standard input, which must then be a pipe or a file.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,

    /// Judge as of this time (RFC 3339, e.g. 2024-05-01T10:00:00Z) instead of now
    /// (or of the time the dump's List declares, as the embedded example does).
    #[arg(long, value_parser = parse_time)]
    pub(crate) now: Option<Time>,

    #[arg(long, short, value_enum, default_value_t = Format::Table)]
    pub(crate) output: Format,

    /// Base URL of a published copy of the runbooks; links become <base>/<alert name in lower case>.
    /// Without it, the runbook column names the command that prints the runbook.
    #[arg(long, env = "KUBE_LIFECYCLE_RUNBOOK_BASE_URL")]
    pub(crate) runbook_base_url: Option<String>,

    #[command(flatten)]
    pub(crate) thresholds: Thresholds,
}

/// Loads a dump from a file, or standard input for `-`, as a stream; returns
/// the name to use in messages with what was read.
pub(crate) fn load_input(path: &std::path::Path) -> Result<(String, dump::Loaded)> {
    if path.as_os_str() == "-" {
        let label = "standard input".to_string();
        let loaded = dump::load_reader(std::io::stdin().lock()).with_context(|| label.clone())?;
        Ok((label, loaded))
    } else {
        let label = path.display().to_string();
        let file = std::fs::File::open(path).with_context(|| format!("reading {label}"))?;
        let loaded = dump::load_reader(file).with_context(|| label.clone())?;
        Ok((label, loaded))
    }
}

pub fn run(args: &DiagnoseArgs) -> Result<()> {
    let stdin = Path::new("-");
    let file = args.file.as_deref().unwrap_or(stdin);
    if file == stdin && std::io::stdin().is_terminal() {
        // Waiting for a dump typed at the keyboard helps nobody.
        bail!(
            "no dump to read: name a file (diagnose cluster.json) or pipe one (kubectl get ... -o json | kube-lifecycle-exporter diagnose)"
        );
    }
    let (label, loaded) = load_input(file)?;
    let now = args.now.or(loaded.now).unwrap_or_else(Time::now);
    let (findings, roots) =
        diagnosis::explain_with(&loaded.cluster, now, &args.thresholds.settings());
    // The summary names the kinds the dump declared, whatever they are.
    let line = format!(
        "{label}: {}; {}",
        loaded.summary(),
        count(findings.len(), "finding", "findings")
    );
    eprintln!("{}", terminal::visible(&line));

    let links =
        RunbookLinks::base_url_or_command(args.runbook_base_url.as_deref(), super::RUNBOOK_COMMAND);
    report::print(&findings, roots, args.output, now, &links)
}
