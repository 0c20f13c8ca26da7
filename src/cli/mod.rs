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

use crate::diagnosis::{Settings, THRESHOLDS};
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

/// Thresholds for anomalies that need time to be anomalies: a flag and an
/// environment variable for each of the diagnosis's `THRESHOLDS`, so that a
/// threshold is declared once, beside its default and meaning.
#[derive(Debug, Clone)]
pub(crate) struct Thresholds(Settings);

impl Thresholds {
    pub(crate) fn settings(&self) -> Settings {
        self.0.clone()
    }
}

impl clap::FromArgMatches for Thresholds {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut thresholds = Thresholds(Settings::default());
        thresholds.update_from_arg_matches(matches)?;
        Ok(thresholds)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        for threshold in THRESHOLDS {
            if let Some(value) = matches.get_one::<SignedDuration>(threshold.field) {
                (threshold.set)(&mut self.0, *value);
            }
        }
        Ok(())
    }
}

impl clap::Args for Thresholds {
    fn augment_args(command: clap::Command) -> clap::Command {
        THRESHOLDS.iter().fold(command, |command, threshold| {
            command.arg(
                clap::Arg::new(threshold.field)
                    .long(threshold.flag())
                    .value_name("DURATION")
                    .value_parser(parse_duration)
                    .default_value(threshold.default)
                    .env(threshold.env())
                    .help(threshold.meaning),
            )
        })
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
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

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{Cli, Command};
    use crate::diagnosis::{Settings, THRESHOLDS};

    fn diagnose_settings(args: &[&str]) -> Settings {
        let argv = ["kube-lifecycle-exporter", "diagnose"].iter().chain(args);
        match Cli::try_parse_from(argv).unwrap().command {
            Some(Command::Diagnose(args)) => args.thresholds.settings(),
            other => panic!("{other:?}"),
        }
    }

    /// Every threshold is a flag that sets its own field, and defaults to the
    /// table's default when not given.
    #[test]
    fn each_threshold_is_a_flag_with_its_default() {
        assert_eq!(diagnose_settings(&[]), Settings::default());
        for t in THRESHOLDS {
            let flag = format!("--{}", t.flag());
            let settings = diagnose_settings(&[flag.as_str(), "17m"]);
            assert_eq!(
                (t.get)(&settings),
                jiff::SignedDuration::from_mins(17),
                "{flag}"
            );
        }
        let bad = Cli::try_parse_from([
            "kube-lifecycle-exporter",
            "diagnose",
            "--drain-after",
            "soon",
        ]);
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("expected e.g. 90s, 5m")
        );
    }
}
