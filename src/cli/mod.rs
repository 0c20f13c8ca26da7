//! Command-line interface: argument definitions and the commands they run.

pub mod catalogue;
mod cluster;
pub mod diagnose;
pub mod kubectl_plugin;
pub mod open;
mod report;
pub mod runbook;
pub mod serve;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use jiff::SignedDuration;

use crate::diagnosis::Settings;
use crate::model::Time;
use crate::output::terminal;

/// Without a subcommand the exporter serves (`serve` is the default).
#[derive(Debug, Parser)]
#[command(
    name = "kube-lifecycle-exporter",
    version,
    about = "Explains why Kubernetes pods, workloads and namespaces are stuck, as Prometheus metrics",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub serve: serve::ServeArgs,

    #[command(flatten)]
    pub logging: Logging,
}

#[derive(Debug, Subcommand)]
// Parsed once at startup: the size of the largest arguments costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Watch the cluster and serve /metrics, /findings and a landing page (the default).
    Serve(serve::ServeArgs),
    /// Diagnose a dump of `kubectl get <the kinds it watches> -A -o json` (or -o yaml): README's "Diagnose a cluster from a dump" has the command.
    Diagnose(diagnose::DiagnoseArgs),
    /// Print an alert's runbook (embedded in the binary); without an alert, list them.
    Runbook(runbook::RunbookArgs),
    /// Print the catalogue: every anomaly family, cause, metric and alert, as JSON (read by the mixin) or as the documentation's tables.
    Catalogue(catalogue::CatalogueArgs),
}

/// How a binary ends: successfully, or with `program: ` and the error on
/// standard error, its characters made visible (an error may quote names and
/// values from the input, or what the cluster returned).
pub fn exit_code(program: &str, result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let message = format!("{program}: {err:#}");
            eprintln!("{}", terminal::visible(&message));
            ExitCode::FAILURE
        }
    }
}

/// What `diagnose`'s runbook column names: the `runbook` command.
pub(crate) const RUNBOOK_COMMAND: &str = "kube-lifecycle-exporter runbook";

#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub(crate) enum LogFormat {
    #[default]
    Text,
    Json,
}

#[derive(Debug, Clone, clap::Args)]
pub struct Logging {
    /// Log format on standard error.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text, env = "KUBE_LIFECYCLE_LOG_FORMAT")]
    pub(crate) log_format: LogFormat,

    /// Log level (error, warn, info, debug, trace); RUST_LOG, when set, takes precedence.
    #[arg(
        long,
        global = true,
        default_value = "info",
        env = "KUBE_LIFECYCLE_LOG_LEVEL"
    )]
    pub(crate) log_level: String,
}

impl Logging {
    pub fn init(&self) {
        use tracing_subscriber::EnvFilter;
        // kube's watcher logs its own copy of every error, and kube-client an
        // ERROR per failed request (every retry of an outage); the watch
        // reports an outage itself, once, and its end with its length.
        let default = format!(
            "{},kube_runtime=error,kube_client=error,kube_client::client::builder=off,hyper=warn,tower=warn",
            self.log_level
        );
        let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
        let builder = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr);
        let _ = match self.log_format {
            // Colours only for a person at a terminal: in a file, journald or
            // `kubectl logs` the escape codes are noise.
            LogFormat::Text => builder.with_ansi(colours_wanted()).try_init(),
            LogFormat::Json => builder
                .with_ansi(false)
                .json()
                .flatten_event(true)
                .try_init(),
        };
    }
}

/// Standard error is a terminal and `NO_COLOR` (no-color.org) is unset or empty.
fn colours_wanted() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Thresholds for anomalies that need time to be anomalies.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct Thresholds {
    /// A pod with no PodScheduled condition this long after creation counts as `not_scheduled`.
    #[arg(long, value_parser = parse_duration, default_value = "5m", env = "KUBE_LIFECYCLE_UNSCHEDULED_AFTER")]
    pub(crate) unscheduled_after: SignedDuration,

    /// A scheduled pod creating containers this long with no warning event counts as `container_creating`.
    #[arg(long, value_parser = parse_duration, default_value = "5m", env = "KUBE_LIFECYCLE_CREATING_AFTER")]
    pub(crate) creating_after: SignedDuration,

    /// A Running pod not Ready this long (since its Ready condition changed) counts as `pod_not_ready`.
    #[arg(long, value_parser = parse_duration, default_value = "5m", env = "KUBE_LIFECYCLE_NOT_READY_AFTER")]
    pub(crate) not_ready_after: SignedDuration,

    /// A pod whose start waits this long on an init container that runs (or a native sidecar that has not started) counts as `init_container_running`.
    #[arg(long, value_parser = parse_duration, default_value = "5m", env = "KUBE_LIFECYCLE_INIT_AFTER")]
    pub(crate) init_after: SignedDuration,

    /// A Deployment (its Available condition False), StatefulSet or DaemonSet short of available pods this long with no pod of it saying why gets the verdict `replicas_unavailable` (a DaemonSet whose failed pods its controller keeps deleting, `daemon_pod_failed`).
    #[arg(long, value_parser = parse_duration, default_value = "5m", env = "KUBE_LIFECYCLE_UNAVAILABLE_AFTER")]
    pub(crate) unavailable_after: SignedDuration,

    /// A Job active this long after it started, with no pod of it in trouble, is `job_not_completed` (`running_long`).
    #[arg(long, value_parser = parse_duration, default_value = "11h", env = "KUBE_LIFECYCLE_JOB_AFTER")]
    pub(crate) job_after: SignedDuration,

    /// A pod held by spec.schedulingGates this long is `pod_pending` with cause `gated_too_long` (alerted); before, `scheduling_gated` (informational).
    #[arg(long, value_parser = parse_duration, default_value = "30m", env = "KUBE_LIFECYCLE_GATED_AFTER")]
    pub(crate) gated_after: SignedDuration,

    /// A PersistentVolumeClaim Pending this long with no provisioner's error (none running, or no volume and no class), or Terminating this long, is `claim_stuck`.
    #[arg(long, value_parser = parse_duration, default_value = "5m", env = "KUBE_LIFECYCLE_CLAIM_AFTER")]
    pub(crate) claim_after: SignedDuration,

    /// A node being drained (cordoned, or tainted by an autoscaler draining it) this long that keeps pods a drain cannot evict (a PodDisruptionBudget allowing no disruption, a pod of no controller, one stuck Terminating) is `node_drain_blocked`.
    #[arg(long, value_parser = parse_duration, default_value = "10m", env = "KUBE_LIFECYCLE_DRAIN_AFTER")]
    pub(crate) drain_after: SignedDuration,
}

impl Thresholds {
    pub(crate) fn settings(&self) -> Settings {
        Settings {
            unscheduled_after: self.unscheduled_after,
            creating_after: self.creating_after,
            not_ready_after: self.not_ready_after,
            init_after: self.init_after,
            unavailable_after: self.unavailable_after,
            job_after: self.job_after,
            gated_after: self.gated_after,
            claim_after: self.claim_after,
            drain_after: self.drain_after,
        }
    }
}

pub(crate) fn parse_time(s: &str) -> Result<Time, String> {
    s.parse::<Time>()
        .map_err(|e| format!("{e} (expected RFC 3339, e.g. 2024-05-01T10:00:00Z)"))
}

pub(crate) fn parse_duration(s: &str) -> Result<SignedDuration, String> {
    let d = humantime::parse_duration(s).map_err(|e| format!("{e} (expected e.g. 90s, 5m, 1h)"))?;
    SignedDuration::try_from(d).map_err(|e| e.to_string())
}
