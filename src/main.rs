//! The `kube-lifecycle-exporter` binary: argument parsing and wiring only.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use jiff::{SignedDuration, Timestamp};

use kube_lifecycle_exporter::diagnosis::{self, Settings};
use kube_lifecycle_exporter::dump;
use kube_lifecycle_exporter::output::{self, RunbookLinks};

#[derive(Debug, Parser)]
#[command(
    name = "kube-lifecycle-exporter",
    version,
    about = "Explains why Kubernetes pods, workloads and namespaces are stuck"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Diagnose a dump of `kubectl get pods,nodes,namespaces,deployments,replicasets,statefulsets,daemonsets,events -A -o json` (or -o yaml).
    Diagnose(DiagnoseArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// Aligned columns for a terminal.
    Table,
    /// An array of findings.
    Json,
    /// The Prometheus exposition (OpenMetrics text) the exporter would serve.
    Metrics,
}

#[derive(Debug, clap::Args)]
struct DiagnoseArgs {
    /// The file to read; `-` reads standard input.
    file: PathBuf,

    /// Judge as of this time (RFC 3339, e.g. 2024-05-01T10:00:00Z) instead of now.
    #[arg(long, value_parser = parse_time)]
    now: Option<Timestamp>,

    #[arg(long, short, value_enum, default_value_t = Format::Table)]
    output: Format,

    /// Base URL of a published copy of the runbooks; links become <base>/<alert name in lower case>.
    /// Without it, links are the runbooks' paths in this repository.
    #[arg(long, env = "KUBE_LIFECYCLE_RUNBOOK_BASE_URL")]
    runbook_base_url: Option<String>,

    #[command(flatten)]
    thresholds: Thresholds,
}

/// Thresholds for anomalies that need time to be anomalies.
#[derive(Debug, Clone, clap::Args)]
struct Thresholds {
    /// A pod with no PodScheduled condition this long after creation counts as `not_scheduled`.
    #[arg(long, value_parser = parse_duration, default_value = "5m", env = "KUBE_LIFECYCLE_UNSCHEDULED_AFTER")]
    unscheduled_after: SignedDuration,

    /// A scheduled pod creating containers this long with no warning event counts as `container_creating`.
    #[arg(long, value_parser = parse_duration, default_value = "5m", env = "KUBE_LIFECYCLE_CREATING_AFTER")]
    creating_after: SignedDuration,
}

impl Thresholds {
    fn settings(&self) -> Settings {
        Settings {
            unscheduled_after: self.unscheduled_after,
            creating_after: self.creating_after,
        }
    }
}

fn parse_time(s: &str) -> Result<Timestamp, String> {
    s.parse::<Timestamp>()
        .map_err(|e| format!("{e} (expected RFC 3339, e.g. 2024-05-01T10:00:00Z)"))
}

fn parse_duration(s: &str) -> Result<SignedDuration, String> {
    let d = humantime::parse_duration(s).map_err(|e| format!("{e} (expected e.g. 90s, 5m, 1h)"))?;
    SignedDuration::try_from(d).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Diagnose(args) => run_diagnose(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("kube-lifecycle-exporter: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run_diagnose(args: &DiagnoseArgs) -> Result<()> {
    let (label, input) = if args.file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading standard input")?;
        ("standard input".to_string(), text)
    } else {
        let text = std::fs::read_to_string(&args.file)
            .with_context(|| format!("reading {}", args.file.display()))?;
        (args.file.display().to_string(), text)
    };
    let loaded = dump::load_str(&input).with_context(|| label.clone())?;
    drop(input);
    let now = args.now.unwrap_or_else(Timestamp::now);
    let findings = diagnosis::diagnose_with(&loaded.cluster, now, &args.thresholds.settings());
    eprintln!("{label}: {}; {} findings", loaded.summary(), findings.len());

    let links = RunbookLinks::from_base_url(args.runbook_base_url.as_deref());
    let text = match args.output {
        Format::Table => output::table::render(&findings, now, &links),
        Format::Json => output::json::render(&findings, &links),
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
