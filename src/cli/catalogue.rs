//! `catalogue`: prints every family, anomaly, cause, metric and alert as the
//! code declares them (JSON, read by the mixin), or the documentation's
//! generated blocks rendered from it.

use std::io::Write;

use anyhow::{Context, Result};
use clap::ValueEnum;

use crate::diagnosis::catalogue::Catalogue;

#[derive(Debug, Clone, Copy, Default, ValueEnum)]
pub(crate) enum CatalogueOutput {
    /// The whole catalogue (what `mixin/catalogue.json` holds).
    #[default]
    Json,
    /// The vocabulary tables of `docs/causes.md`.
    Causes,
    /// The metric families of `docs/metrics.md`.
    Metrics,
}

#[derive(Debug, clap::Args)]
pub struct CatalogueArgs {
    /// What to print.
    #[arg(long, short = 'o', value_enum, default_value_t = CatalogueOutput::Json)]
    pub(crate) output: CatalogueOutput,
}

pub fn run(args: &CatalogueArgs) -> Result<()> {
    let catalogue = Catalogue::new();
    let text = match args.output {
        CatalogueOutput::Json => catalogue.json(),
        CatalogueOutput::Causes => catalogue.causes_markdown(),
        CatalogueOutput::Metrics => catalogue.metrics_markdown(),
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // `| head` closing the pipe is the reader's choice.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing the catalogue"),
    }
}
