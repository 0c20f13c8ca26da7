//! The kubectl plugin binary: `kubectl lifecycle diagnose [-n NS | -f FILE]`,
//! `kubectl lifecycle runbook [ALERT]`.

use std::process::ExitCode;

use clap::Parser;

use kube_lifecycle_exporter::cli::kubectl_plugin::{PluginCli, PluginCommand, run};
use kube_lifecycle_exporter::cli::{exit_code, runbook};

fn main() -> ExitCode {
    let cli = PluginCli::parse();
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| match cli.command {
            PluginCommand::Diagnose(args) => rt.block_on(run(*args)),
            PluginCommand::Runbook(args) => runbook::run(&args),
        });
    exit_code("kubectl lifecycle", result)
}
