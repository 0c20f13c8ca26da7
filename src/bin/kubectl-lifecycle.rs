//! The kubectl plugin binary: `kubectl lifecycle diagnose [-n NS | -f FILE]`,
//! `kubectl lifecycle runbook [ALERT]`.

use std::process::ExitCode;

use clap::Parser;

use kube_lifecycle_exporter::cli::kubectl_plugin::{PluginCli, PluginCommand, run};
use kube_lifecycle_exporter::cli::runbook;
use kube_lifecycle_exporter::output::terminal;

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
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // An error may quote what the cluster returned.
            let message = format!("kubectl lifecycle: {err:#}");
            eprintln!("{}", terminal::visible(&message));
            ExitCode::FAILURE
        }
    }
}
