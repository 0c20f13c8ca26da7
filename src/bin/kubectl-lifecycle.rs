//! The kubectl plugin binary: `kubectl lifecycle diagnose [-n NS | -f FILE]`,
//! `kubectl lifecycle runbook [ALERT]`, `kubectl lifecycle open`.

use std::process::ExitCode;

use clap::Parser;

use kube_lifecycle_exporter::cli::kubectl_plugin::{PluginCli, PluginCommand, run};
use kube_lifecycle_exporter::cli::{exit_code, open, runbook};

fn main() -> ExitCode {
    let cli = PluginCli::parse();
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| match cli.command {
            PluginCommand::Diagnose(args) => rt.block_on(run(*args)),
            PluginCommand::Runbook(args) => runbook::run(&args),
            PluginCommand::Open(args) => rt.block_on(open::run(*args)),
        });
    exit_code("kubectl lifecycle", result)
}
