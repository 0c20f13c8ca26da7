//! The `kube-lifecycle-exporter` binary: parse, set up logging, run.

use std::process::ExitCode;

use clap::Parser;

use kube_lifecycle_exporter::cli::{Cli, Command, catalogue, diagnose, exit_code, runbook, serve};

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.logging.init();
    let result = match cli.command {
        Some(Command::Diagnose(args)) => diagnose::run(&args),
        Some(Command::Runbook(args)) => runbook::run(&args),
        Some(Command::Catalogue(args)) => catalogue::run(&args),
        Some(Command::Serve(args)) => runtime().and_then(|rt| rt.block_on(serve::run(args))),
        None => runtime().and_then(|rt| rt.block_on(serve::run(cli.serve))),
    };
    exit_code("kube-lifecycle-exporter", result)
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

// jemalloc rather than the system's glibc malloc: the model is built on the
// decoding thread and changed on the runtime's, and glibc's per-thread arenas
// kept much of what a storm's first list freed between the objects it kept.
// The figures are in docs/performance.md ("The allocator").
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
