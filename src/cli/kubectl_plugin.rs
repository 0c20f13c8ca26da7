//! `kubectl lifecycle diagnose`: the offline command's table for the current
//! context, from one listing of the cluster (or, with `-f`, of a dump), and
//! `kubectl lifecycle runbook`. Installed as `kubectl-lifecycle`, which kubectl
//! finds on PATH and runs for `kubectl lifecycle ...`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use kube::Client;

use super::report::{self, Format};
use super::{Thresholds, parse_time};
use crate::diagnosis;
use crate::diagnosis::wording::count;
use crate::model::Time;
use crate::output::RunbookLinks;
use crate::source::snapshot::{self, Progress};

#[derive(Debug, Parser)]
#[command(
    name = "kubectl lifecycle",
    bin_name = "kubectl lifecycle",
    version,
    about = "Why pods, workloads and namespaces of the current kubectl context are stuck"
)]
pub struct PluginCli {
    #[command(subcommand)]
    pub command: PluginCommand,
}

#[derive(Debug, Subcommand)]
pub enum PluginCommand {
    /// List the cluster once (or read a dump with -f) and print what is stuck and why.
    Diagnose(Box<PluginDiagnoseArgs>),
    /// Print an alert's runbook (embedded in the binary); without an alert, list them.
    Runbook(super::runbook::RunbookArgs),
    /// Open the exporter's pages as the current kubeconfig user: a port-forward
    /// to its Service and a local proxy that adds your bearer token (for an
    /// exporter run with --auth kubernetes).
    Open(Box<super::open::OpenArgs>),
}

/// What the table's runbook column names: this plugin's own `runbook` command.
pub(crate) const RUNBOOK_COMMAND: &str = "kubectl lifecycle runbook";

#[derive(Debug, clap::Args)]
pub struct PluginDiagnoseArgs {
    /// Read this dump (kubectl get ... -o json or -o yaml; `-` for standard input)
    /// instead of listing the cluster.
    #[arg(long = "filename", short = 'f', value_name = "FILE", conflicts_with_all = ["namespace", "kubeconfig", "context"])]
    pub(crate) file: Option<PathBuf>,

    /// Only this namespace (nodes are always listed). Default: all namespaces.
    #[arg(long, short = 'n', conflicts_with = "all_namespaces")]
    pub(crate) namespace: Option<String>,

    /// All namespaces (the default; accepted for kubectl's sake).
    #[arg(long, short = 'A')]
    pub(crate) all_namespaces: bool,

    /// Kubeconfig file (default: $KUBECONFIG or ~/.kube/config, as kubectl).
    #[arg(long)]
    pub(crate) kubeconfig: Option<PathBuf>,

    /// Kubeconfig context (default: the current one).
    #[arg(long)]
    pub(crate) context: Option<String>,

    #[arg(long, short, value_enum, default_value_t = Format::Table)]
    pub(crate) output: Format,

    /// Judge as of this time (RFC 3339) instead of now.
    #[arg(long, value_parser = parse_time)]
    pub(crate) now: Option<Time>,

    /// Base URL of a published copy of the runbooks; links become <base>/<alert name in lower case>.
    #[arg(long, env = "KUBE_LIFECYCLE_RUNBOOK_BASE_URL")]
    pub(crate) runbook_base_url: Option<String>,

    #[command(flatten)]
    pub(crate) thresholds: Thresholds,
}

/// Progress on standard error, on a terminal only: one line rewritten in place
/// and erased at the end. Redirected, stderr gets none of it (a log or a CI job
/// wants the result, not a line per resource).
struct ProgressLine {
    terminal: bool,
}

impl ProgressLine {
    fn report(&self, p: Progress) {
        if self.terminal {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[Klisting {}: {}", p.resource, p.listed);
            let _ = err.flush();
        }
    }

    fn finish(&self) {
        if self.terminal {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
        }
    }
}

pub async fn run(args: PluginDiagnoseArgs) -> Result<()> {
    let links =
        RunbookLinks::base_url_or_command(args.runbook_base_url.as_deref(), RUNBOOK_COMMAND);
    if let Some(file) = &args.file {
        let (label, loaded) = super::diagnose::load_input(file)?;
        let now = args.now.or(loaded.now).unwrap_or_else(Time::now);
        let (findings, roots) =
            diagnosis::explain_with(&loaded.cluster, now, &args.thresholds.settings());
        eprintln!(
            "{label}: {}; {}",
            loaded.summary(),
            count(findings.len(), "finding", "findings")
        );
        return report::print(&findings, roots, args.output, now, &links);
    }
    let config =
        super::cluster::config(args.kubeconfig.as_deref(), args.context.as_deref()).await?;
    let url = config.cluster_url.to_string();
    let client = Client::try_from(config).context("building the Kubernetes client")?;
    let progress = ProgressLine {
        terminal: std::io::stderr().is_terminal(),
    };
    let cluster =
        snapshot::list_cluster(&client, args.namespace.as_deref(), |p| progress.report(p))
            .await
            .with_context(|| format!("listing the cluster at {url}"))?;
    progress.finish();

    let now = args.now.unwrap_or_else(Time::now);
    let (findings, roots) = diagnosis::explain_with(&cluster, now, &args.thresholds.settings());
    eprintln!("{url}: {}", count(findings.len(), "finding", "findings"));
    report::print(&findings, roots, args.output, now, &links)
}
