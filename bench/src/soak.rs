//! The soak: a healthy cluster under steady churn for a long time, the
//! exporter's resident set sampled as it goes, to see whether what it holds
//! levels off.
//!
//! The churn is what a busy cluster does all day: of every ten changes, eight
//! are status updates of running pods, one replaces a pod by a new one (a new
//! name and uid, as a rollout does) and one is a new kubelet warning, the
//! oldest warnings deleted past 10,000 as the API server's event TTL does.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use fake_apiserver::FakeApiServer;
use serde_json::json;

use crate::cluster::{self, Profile};
use crate::mib;
use crate::process::ExporterProcess;

/// Warnings kept before the oldest is deleted.
const EVENTS_KEPT: usize = 10_000;

pub struct SoakConfig {
    pub exporter: PathBuf,
    pub pods: usize,
    /// Changes per second.
    pub rate: usize,
    pub duration: Duration,
    /// How often the resident set is read.
    pub sample: Duration,
}

/// One reading of the exporter during the soak.
#[derive(Debug, Clone)]
pub struct SoakSample {
    pub seconds: f64,
    /// Changes sent so far.
    pub changes: usize,
    pub rss: u64,
}

pub struct SoakReport {
    pub pods: usize,
    pub rate: usize,
    /// The resident set once the first list is applied.
    pub synced_rss: u64,
    pub samples: Vec<SoakSample>,
}

pub async fn soak(config: &SoakConfig) -> Result<SoakReport> {
    eprintln!("[soak, {} pods] generating the cluster", config.pods);
    let (server, nodes) = serve_healthy_cluster(config).await?;
    let process = ExporterProcess::against(&config.exporter, &server)?;
    process.wait_ready(Duration::from_secs(1800)).await?;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let synced_rss = process.rss()?;
    eprintln!(
        "[soak] synced, {:.1} MiB; churning {} changes/s for {} s",
        mib(synced_rss),
        config.rate,
        config.duration.as_secs()
    );

    let mut churn = Churn {
        server: &server,
        pods: config.pods,
        nodes,
        generation: vec![0usize; config.pods],
        events: VecDeque::new(),
    };
    let mut samples = vec![SoakSample {
        seconds: 0.0,
        changes: 0,
        rss: synced_rss,
    }];
    let per_tick = (config.rate / 100).max(1);
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    let start = Instant::now();
    let mut next_sample = config.sample;
    let mut sent = 0usize;
    while start.elapsed() < config.duration {
        tick.tick().await;
        for _ in 0..per_tick {
            churn.change(sent);
            sent += 1;
        }
        if start.elapsed() >= next_sample {
            let sample = SoakSample {
                seconds: start.elapsed().as_secs_f64(),
                changes: sent,
                rss: process.rss()?,
            };
            eprintln!(
                "[soak] {:>5.0} s, {} changes, {:.1} MiB",
                sample.seconds,
                sample.changes,
                mib(sample.rss)
            );
            samples.push(sample);
            next_sample += config.sample;
        }
    }
    if process.get("/readyz").await.is_err() {
        bail!("the exporter is not ready at the end of the soak");
    }
    Ok(SoakReport {
        pods: config.pods,
        rate: config.rate,
        synced_rss,
        samples,
    })
}

/// The fake API server holding a healthy cluster of `config.pods` pods, and
/// how many nodes it has.
async fn serve_healthy_cluster(config: &SoakConfig) -> Result<(FakeApiServer, usize)> {
    let server = FakeApiServer::start().await?;
    // Enough history for the exporter to resume after a slow moment, not so
    // much that the benchmark's own memory grows for an hour.
    server.set_history_limit(config.rate * 120 + 10_000);
    let mut nodes = 0;
    for object in cluster::others_profile(config.pods, Profile::Healthy) {
        nodes += usize::from(object["kind"] == "Node");
        server.apply(object);
    }
    for i in 0..config.pods {
        server.apply(cluster::pod(i, nodes));
    }
    Ok((server, nodes))
}

/// The soak's changes to the served cluster, and what they need to remember.
struct Churn<'a> {
    server: &'a FakeApiServer,
    pods: usize,
    nodes: usize,
    /// Each pod's incarnation: how many times a rollout replaced it.
    generation: Vec<usize>,
    /// The warnings sent and not yet deleted, oldest first (namespace, name).
    events: VecDeque<(String, String)>,
}

impl Churn<'_> {
    /// The `sent`th change: of every ten, a pod replaced by a new one, a new
    /// warning, and eight status updates.
    fn change(&mut self, sent: usize) {
        let (server, nodes) = (self.server, self.nodes);
        let i = (sent * 7919) % self.pods;
        match sent % 10 {
            0 => {
                // A rollout's new pod replaces the old.
                let old = cluster::pod_generation(i, nodes, self.generation[i]);
                let meta = &old["metadata"];
                server.delete(
                    "v1",
                    "Pod",
                    meta["namespace"].as_str(),
                    meta["name"].as_str().unwrap_or_default(),
                );
                self.generation[i] += 1;
                server.apply(cluster::pod_generation(i, nodes, self.generation[i]));
            }
            5 => {
                let pod = cluster::pod_generation(i, nodes, self.generation[i]);
                let event = cluster::probe_warning(&pod, sent);
                let meta = &event["metadata"];
                self.events.push_back((
                    meta["namespace"].as_str().unwrap_or_default().to_string(),
                    meta["name"].as_str().unwrap_or_default().to_string(),
                ));
                server.apply(event);
                if self.events.len() > EVENTS_KEPT
                    && let Some((ns, name)) = self.events.pop_front()
                {
                    server.delete("v1", "Event", Some(&ns), &name);
                }
            }
            _ => {
                let mut pod = cluster::pod_generation(i, nodes, self.generation[i]);
                pod["metadata"]["annotations"]["bench/revision"] = json!(sent.to_string());
                server.apply(pod);
            }
        }
    }
}

impl SoakReport {
    /// The last sample at or before `seconds`.
    fn at(&self, seconds: f64) -> Option<&SoakSample> {
        self.samples
            .iter()
            .rev()
            .find(|s| s.seconds <= seconds + 0.5)
    }

    /// The samples as a Markdown table, then the end against the tenth minute.
    pub fn table(&self) -> String {
        let mut out = format!(
            "Soak: {} pods, {} changes/s. Synced: {:.1} MiB.\n\n| minute | changes | RSS |\n|---:|---:|---:|\n",
            self.pods,
            self.rate,
            mib(self.synced_rss)
        );
        for s in &self.samples {
            out.push_str(&format!(
                "| {:.0} | {} | {:.1} MiB |\n",
                s.seconds / 60.0,
                s.changes,
                mib(s.rss)
            ));
        }
        if let (Some(ten), Some(last)) = (self.at(600.0), self.samples.last())
            && last.seconds > ten.seconds
        {
            out.push_str(&format!(
                "\nRSS at {:.0} min {:.1} MiB, at {:.0} min {:.1} MiB: {:+.1}%\n",
                ten.seconds / 60.0,
                mib(ten.rss),
                last.seconds / 60.0,
                mib(last.rss),
                100.0 * (last.rss as f64 / ten.rss as f64 - 1.0)
            ));
        }
        out
    }
}
