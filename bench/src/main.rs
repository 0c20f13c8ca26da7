//! `cargo run --release -p lifecycle-bench -- --pods 10000,50000,150000`
//! `cargo run --release -p lifecycle-bench -- --pods 50000 --soak 3600s`
//!
//! Runs the release exporter against generated clusters of each size and
//! prints the figures as a Markdown table.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::Parser;
use lifecycle_bench::soak::{SoakConfig, soak};
use lifecycle_bench::{Config, Profile, empty_rss, mib, run, table};

#[derive(Parser)]
#[command(about = "Benchmark the exporter against generated clusters")]
struct Args {
    /// Cluster sizes in pods, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "10000,50000,150000")]
    pods: Vec<usize>,
    /// Profiles to run at each size, comma separated: `healthy` (about 3% of
    /// the pods anomalous) and `storm` (a third of the nodes lost, a registry
    /// refusing pulls, 10,000 events/s during the churn).
    #[arg(long, value_delimiter = ',', default_value = "healthy,storm")]
    profile: Vec<Profile>,
    /// The exporter binary (build it with `cargo build --release` first).
    #[arg(long, default_value = "target/release/kube-lifecycle-exporter")]
    exporter: PathBuf,
    /// How long to change pods after the sync.
    #[arg(long, default_value = "30s", value_parser = humantime_like)]
    churn: Duration,
    /// Pod changes per second during the healthy profile's churn.
    #[arg(long, default_value_t = 1000)]
    churn_rate: usize,
    /// Events per second during the storm's churn.
    #[arg(long, default_value_t = 10_000)]
    storm_event_rate: usize,
    /// /metrics scrapes (and landing-page fetches) to time.
    #[arg(long, default_value_t = 50)]
    scrapes: usize,
    /// Landing-page viewers reloading the page every second during the
    /// second viewer phase.
    #[arg(long, default_value_t = 20)]
    viewers: usize,
    /// How long each of the two viewer phases churns (without, then with
    /// the viewers), with a gzip scrape every half second.
    #[arg(long, default_value = "20s", value_parser = humantime_like)]
    viewer_phase: Duration,
    /// Instead of the profiles: churn the first size's healthy cluster at
    /// `--churn-rate` for this long, reading the exporter's resident set every
    /// `--soak-sample` (e.g. `--pods 50000 --soak 3600s`).
    #[arg(long, value_parser = humantime_like)]
    soak: Option<Duration>,
    /// How often the soak reads the resident set.
    #[arg(long, default_value = "60s", value_parser = humantime_like)]
    soak_sample: Duration,
}

fn humantime_like(s: &str) -> Result<Duration, String> {
    s.strip_suffix('s')
        .and_then(|n| n.parse::<u64>().ok())
        .map(Duration::from_secs)
        .ok_or_else(|| format!("{s}: expected seconds like 30s"))
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    if !args.exporter.exists() {
        bail!(
            "{} not found: run `cargo build --release` first or pass --exporter",
            args.exporter.display()
        );
    }
    if let Some(duration) = args.soak {
        let report = soak(&SoakConfig {
            exporter: args.exporter.clone(),
            pods: args.pods[0],
            rate: args.churn_rate,
            duration,
            sample: args.soak_sample,
        })
        .await?;
        println!("{}", report.table());
        return Ok(());
    }
    let empty = empty_rss(&args.exporter).await?;
    let mut reports = Vec::new();
    for pods in &args.pods {
        for profile in &args.profile {
            let config = Config {
                exporter: args.exporter.clone(),
                pods: *pods,
                profile: *profile,
                churn: args.churn,
                churn_rate: match profile {
                    Profile::Healthy => args.churn_rate,
                    Profile::Storm => args.storm_event_rate,
                },
                scrapes: args.scrapes,
                viewers: args.viewers,
                viewer_phase: args.viewer_phase,
            };
            reports.push(run(&config, empty).await?);
            println!("{}", table(&reports));
        }
    }
    println!("exporter RSS with an empty cluster: {:.1} MiB", mib(empty));
    Ok(())
}
