//! The benchmark: the real exporter binary against a generated cluster that
//! the in-repo fake API server serves over real HTTP. Everything is measured
//! from outside the exporter: its sync time through `/readyz`, its memory and
//! CPU from `/proc`, `/metrics` as a scraper sees it.

pub mod cluster;
pub mod fuzz;
mod process;
pub mod soak;

pub use cluster::Profile;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fake_apiserver::FakeApiServer;
use kube_lifecycle_exporter::model::Pod;
use kube_lifecycle_exporter::source::watch::pages::decode_page;
use serde::de::IgnoredAny;
use serde_json::json;

use process::ExporterProcess;

pub struct Config {
    /// The `kube-lifecycle-exporter` binary to run.
    pub exporter: PathBuf,
    pub pods: usize,
    pub profile: Profile,
    /// How long to change pods at `churn_rate` per second.
    pub churn: Duration,
    pub churn_rate: usize,
    pub scrapes: usize,
}

#[derive(Debug, Clone)]
pub struct Report {
    pub pods: usize,
    pub profile: Profile,
    pub nodes: usize,
    pub objects: usize,
    pub bytes: usize,
    pub pod_bytes_mean: usize,
    pub sync_seconds: f64,
    /// CPU the exporter spent from its start to its first complete sync.
    pub sync_cpu_seconds: f64,
    /// CPU the benchmark process (the fake API server serving the lists, and
    /// the wait for readiness) spent meanwhile, on the same cores.
    pub server_sync_cpu_seconds: f64,
    pub parse_only_mb_per_second: f64,
    /// The pods' pages decoded by the exporter's own list decoder, in the
    /// benchmark process: no network, no model.
    pub decode_only_mb_per_second: f64,
    /// The same pod pages parsed with `IgnoredAny`, in the same rounds.
    pub pod_parse_only_mb_per_second: f64,
    pub peak_rss: u64,
    pub steady_rss: u64,
    pub empty_rss: u64,
    pub findings: u64,
    pub metrics_bytes: usize,
    pub render_median_ms: f64,
    pub render_p99_ms: f64,
    pub scrape_median_ms: f64,
    pub scrape_p99_ms: f64,
    /// `/metrics` as Prometheus asks for it (gzip): bytes sent, whether it
    /// came compressed, and the scrape times.
    pub metrics_gzip_bytes: usize,
    pub metrics_gzipped: bool,
    pub scrape_gzip_median_ms: f64,
    pub scrape_gzip_p99_ms: f64,
    /// The landing page: bytes and time to fetch it.
    pub page_bytes: usize,
    pub page_ms: f64,
    /// `/findings` whole, and `/findings?anomaly=image_pull&limit=100`.
    pub findings_bytes: usize,
    pub findings_filtered_bytes: usize,
    pub churn_events_sent: usize,
    pub churn_events_applied: f64,
    pub churn_cpu_seconds: f64,
    pub churn_seconds: f64,
    /// From the server's history being lost and every watch cut to the
    /// exporter's pod watch having listed again (410 Gone, then a relist).
    pub relist_seconds: f64,
    /// The peak resident set during that relist, while the model still held
    /// the old objects.
    pub relist_peak_rss: u64,
    /// How long each crash-looping pod created during the churn took to show
    /// on `/findings`, sorted; `None` for one not seen within a minute.
    pub newcomer_seconds: Vec<Option<f64>>,
}

impl Report {
    pub fn ingest_mb_per_second(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.sync_seconds
    }
    pub fn objects_per_second(&self) -> f64 {
        self.objects as f64 / self.sync_seconds
    }
    pub fn ingest_ratio(&self) -> f64 {
        self.ingest_mb_per_second() / self.parse_only_mb_per_second
    }
    /// Bytes listed per CPU second of the exporter: the rate one core of it
    /// would reach were the server and the network free.
    pub fn ingest_mb_per_cpu_second(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.sync_cpu_seconds
    }
    pub fn ingest_cpu_ratio(&self) -> f64 {
        self.ingest_mb_per_cpu_second() / self.parse_only_mb_per_second
    }
    /// The decoder's rate against parsing the same bytes: the most the whole
    /// ingest could reach with this decoder, were everything else free.
    pub fn decode_ratio(&self) -> f64 {
        self.decode_only_mb_per_second / self.pod_parse_only_mb_per_second
    }
    pub fn retained_bytes_per_pod(&self) -> f64 {
        self.steady_rss.saturating_sub(self.empty_rss) as f64 / self.pods as f64
    }
    pub fn relist_peak_ratio(&self) -> f64 {
        self.relist_peak_rss as f64 / self.steady_rss as f64
    }
    /// CPU seconds per 1,000 watch events applied.
    pub fn cpu_per_thousand_events(&self) -> f64 {
        self.churn_cpu_seconds / (self.churn_events_applied / 1000.0)
    }
    /// Share of one core used during the churn.
    pub fn churn_core_share(&self) -> f64 {
        self.churn_cpu_seconds / self.churn_seconds
    }
}

/// Parses the same list bodies the exporter receives without building
/// anything: the rate any decoder is bounded by.
fn parse_only_rate(pages: &[String]) -> f64 {
    // The best of a few rounds: the figure is a bound, and the first round
    // also pays for faulting the pages in.
    let bytes: usize = pages.iter().map(String::len).sum();
    let rounds = (400_000_000 / bytes.max(1)).clamp(3, 20);
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        for page in pages {
            let _: IgnoredAny = serde_json::from_str(page).expect("generated JSON parses");
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    bytes as f64 / 1e6 / best
}

/// Decodes pod list pages with the exporter's own decoder and, in the same
/// rounds, parses them with `IgnoredAny`: (decode MB/s, parse-only MB/s), each
/// the best of its rounds.
fn pod_decode_rates(pages: &[String]) -> (f64, f64) {
    let bytes: usize = pages.iter().map(String::len).sum();
    let rounds = (400_000_000 / bytes.max(1)).clamp(3, 20);
    let (mut decode, mut parse) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        let start = Instant::now();
        for page in pages {
            let list = decode_page::<Pod>(page).expect("generated pods decode");
            std::hint::black_box(list);
        }
        decode = decode.min(start.elapsed().as_secs_f64());
        let start = Instant::now();
        for page in pages {
            let _: IgnoredAny = serde_json::from_str(page).expect("generated JSON parses");
        }
        parse = parse.min(start.elapsed().as_secs_f64());
    }
    let mb = bytes as f64 / 1e6;
    (mb / decode, mb / parse)
}

/// The cluster's objects as list pages of 500, the exporter's page size.
fn pages_of(objects: &[&str]) -> Vec<String> {
    objects
        .chunks(500)
        .map(|chunk| {
            format!(
                r#"{{"apiVersion":"v1","kind":"List","metadata":{{"resourceVersion":"1"}},"items":[{}]}}"#,
                chunk.join(",")
            )
        })
        .collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The sum of a family's samples in an exposition.
fn sum_of(metrics: &str, family: &str, filter: &str) -> f64 {
    metrics
        .lines()
        .filter(|l| l.starts_with(family) && l[family.len()..].starts_with(['{', ' ']))
        .filter(|l| l.contains(filter))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// The watch events of a resource the exporter has applied, from its /metrics.
fn events_applied(metrics: &str, resource: &str) -> f64 {
    metrics
        .lines()
        .filter(|l| l.starts_with("kube_lifecycle_watch_events_total{"))
        .filter(|l| {
            l.contains(&format!("resource=\"{resource}\"")) && l.contains("event=\"applied\"")
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// How many times the exporter's pod watch has listed again after its first sync.
fn pod_relists(metrics: &str) -> f64 {
    sum_of(
        metrics,
        "kube_lifecycle_watch_restarts_total",
        "resource=\"pods\"",
    )
}

/// The exporter's resident set with an empty cluster: the base every pod adds to.
pub async fn empty_rss(exporter: &Path) -> Result<u64> {
    let server = FakeApiServer::start().await?;
    let dir = tempfile::tempdir()?;
    let kubeconfig = dir.path().join("kubeconfig");
    server.write_kubeconfig(&kubeconfig)?;
    let process = ExporterProcess::start(exporter, &kubeconfig)?;
    process.wait_ready(Duration::from_secs(60)).await?;
    // Scrape once so the exposition buffers exist, as in the measured runs.
    process.get("/metrics").await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    process.rss()
}

pub async fn run(config: &Config, empty_rss: u64) -> Result<Report> {
    let profile = config.profile;
    eprintln!(
        "[{} pods, {}] generating the cluster",
        config.pods,
        profile.name()
    );
    // Each object is serialised as it is generated and its JSON tree dropped
    // at once: a tree of the whole cluster dropped in one go left the
    // allocator of this process consolidating its free lists for seconds,
    // while the exporter listed, and the sync time counted that stall.
    let mut others: Vec<String> = Vec::new();
    let mut nodes = 0;
    for object in cluster::others_profile(config.pods, profile) {
        nodes += usize::from(object["kind"] == "Node");
        others.push(object.to_string());
    }
    let pods: Vec<String> = (0..config.pods)
        .map(|i| cluster::pod_profile(i, nodes, profile).to_string())
        .collect();
    let all: Vec<&str> = others.iter().chain(&pods).map(String::as_str).collect();
    let objects = all.len();
    let pages = pages_of(&all);
    let bytes: usize = pages.iter().map(String::len).sum();
    let pod_bytes: usize = pods.iter().map(String::len).sum();
    eprintln!(
        "[{} pods] {} objects, {:.0} MB as lists; parsing them without decoding",
        config.pods,
        objects,
        bytes as f64 / 1e6
    );
    let parse_only = parse_only_rate(&pages);
    drop(pages);
    eprintln!("[{} pods] decoding the pods' pages", config.pods);
    let pod_pages = pages_of(&pods.iter().map(String::as_str).collect::<Vec<_>>());
    let (decode_only, pod_parse_only) = pod_decode_rates(&pod_pages);
    drop(pod_pages);

    let server = FakeApiServer::start().await?;
    // Room for the churn's changes without compaction during the run.
    server.set_history_limit(config.churn_rate * config.churn.as_secs() as usize + 100_000);
    for json in all {
        server.apply(serde_json::from_str(json).context("generated JSON parses")?);
    }
    drop((others, pods));
    let dir = tempfile::tempdir()?;
    let kubeconfig = dir.path().join("kubeconfig");
    server.write_kubeconfig(&kubeconfig)?;

    eprintln!("[{} pods] starting the exporter", config.pods);
    let started = Instant::now();
    let server_cpu_before = process::own_cpu_seconds()?;
    let process = ExporterProcess::start(&config.exporter, &kubeconfig)?;
    process
        .wait_ready(Duration::from_secs(1800))
        .await
        .context("waiting for the first sync")?;
    let sync_seconds = started.elapsed().as_secs_f64();
    let sync_cpu_seconds = process.cpu_seconds()?;
    let server_sync_cpu_seconds = process::own_cpu_seconds()? - server_cpu_before;
    eprintln!("[{} pods] synced in {sync_seconds:.2} s", config.pods);

    // Settle, then the steady resident set.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let steady_rss = process.rss()?;

    // /metrics as a scraper sees it, and as the exporter timed its render.
    let mut scrape_ms = Vec::new();
    let mut render_ms = Vec::new();
    let mut metrics = String::new();
    for _ in 0..config.scrapes {
        let start = Instant::now();
        metrics = process.get("/metrics").await?;
        scrape_ms.push(start.elapsed().as_secs_f64() * 1000.0);
        // The gauge reports the previous render; the next scrape shows this one.
        render_ms.push(
            sum_of(
                &metrics,
                "kube_lifecycle_scrape_render_duration_seconds",
                "",
            ) * 1000.0,
        );
    }
    render_ms.remove(0);
    scrape_ms.sort_by(f64::total_cmp);
    render_ms.sort_by(f64::total_cmp);
    let findings = sum_of(&metrics, "kube_lifecycle_findings", "") as u64;
    let metrics_bytes = metrics.len();

    let mut gzip_ms = Vec::new();
    let (mut metrics_gzip_bytes, mut metrics_gzipped) = (0, false);
    for _ in 0..config.scrapes {
        let start = Instant::now();
        (metrics_gzip_bytes, metrics_gzipped) = process.get_gzip_size("/metrics").await?;
        gzip_ms.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    gzip_ms.sort_by(f64::total_cmp);
    let start = Instant::now();
    let page_bytes = process.get("/").await?.len();
    let page_ms = start.elapsed().as_secs_f64() * 1000.0;
    let findings_bytes = process.get("/findings").await?.len();
    let findings_filtered_bytes = process
        .get("/findings?anomaly=image_pull&limit=100")
        .await?
        .len();

    // Churn: `churn_rate` changes a second, in ticks of 10 ms: pods in the
    // healthy profile; in the storm, the kubelet's pull-failure events bumped
    // on every retry, as they arrive during a registry outage.
    let churned = match profile {
        Profile::Healthy => "pods",
        Profile::Storm => "events",
    };
    let applied_before = events_applied(&metrics, churned);
    let cpu_before = process.cpu_seconds()?;
    let churn_start = Instant::now();
    let per_tick = (config.churn_rate / 100).max(1);
    let mut sent = 0;
    let mut cursor = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    let nodes_total = nodes;
    // Every 10 s of churn a new pod starts crash-looping; a task polls
    // `/findings` for it every 250 ms (few enough requests not to weigh on the
    // CPU measured).
    let mut newcomers = Vec::new();
    while churn_start.elapsed() < config.churn {
        tick.tick().await;
        if churn_start.elapsed() >= Duration::from_secs(1 + 10 * newcomers.len() as u64) {
            let k = newcomers.len();
            let pod = cluster::crash_looping_newcomer(k, nodes_total);
            let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default();
            let url = format!("{}/findings?namespace={namespace}", process.base());
            server.apply(pod);
            newcomers.push(tokio::spawn(newcomer_seen(url, format!("newcomer-{k}"))));
        }
        let mut done = 0;
        while done < per_tick {
            let i = (cursor * 7919) % config.pods;
            cursor += 1;
            let object = match profile {
                Profile::Healthy => {
                    let mut pod = cluster::pod(i, nodes_total);
                    pod["metadata"]["annotations"]["bench/revision"] = json!(sent.to_string());
                    pod
                }
                Profile::Storm => match cluster::pull_failed_event_again(i, nodes_total, sent) {
                    Some(event) => event,
                    None => continue,
                },
            };
            server.apply(object);
            sent += 1;
            done += 1;
        }
    }
    let churn_seconds = churn_start.elapsed().as_secs_f64();
    let mut newcomer_seconds = Vec::new();
    for task in newcomers {
        newcomer_seconds.push(task.await?);
    }
    newcomer_seconds.sort_by(|a, b| a.unwrap_or(f64::MAX).total_cmp(&b.unwrap_or(f64::MAX)));
    // Let the exporter drain what was sent. Its CPU is read before each scrape
    // that counts the events applied, so the counting scrape that finds them
    // all is not charged to the events.
    let mut applied = 0.0;
    let mut churn_cpu_seconds = 0.0;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        churn_cpu_seconds = process.cpu_seconds()? - cpu_before;
        let m = process.get("/metrics").await?;
        applied = events_applied(&m, churned) - applied_before;
        if applied >= sent as f64 {
            break;
        }
    }
    let peak_rss = process.peak_rss()?;
    if applied < sent as f64 * 0.99 {
        bail!("the exporter applied {applied} of {sent} {churned} changes");
    }

    // A relist, as after etcd is restored: every watch is cut and its resume
    // point is gone (410 Gone, even for a watch that saw the last change), so
    // each lists again while the model still holds what it built.
    eprintln!("[{} pods] relisting", config.pods);
    process.reset_peak_rss()?;
    let relists_before = pod_relists(&process.get("/metrics").await?);
    let relist_start = Instant::now();
    server.restart_with_new_epoch();
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        if pod_relists(&process.get("/metrics").await?) > relists_before {
            break;
        }
        if relist_start.elapsed() > Duration::from_secs(1800) {
            bail!("the exporter did not relist its pods within 30 minutes");
        }
    }
    let relist_seconds = relist_start.elapsed().as_secs_f64();
    let relist_peak_rss = process.peak_rss()?;
    drop(process);

    Ok(Report {
        pods: config.pods,
        profile,
        metrics_gzip_bytes,
        metrics_gzipped,
        scrape_gzip_median_ms: percentile(&gzip_ms, 0.5),
        scrape_gzip_p99_ms: percentile(&gzip_ms, 0.99),
        page_bytes,
        page_ms,
        findings_bytes,
        findings_filtered_bytes,
        nodes,
        objects,
        bytes,
        pod_bytes_mean: pod_bytes / config.pods.max(1),
        sync_seconds,
        sync_cpu_seconds,
        server_sync_cpu_seconds,
        parse_only_mb_per_second: parse_only,
        decode_only_mb_per_second: decode_only,
        pod_parse_only_mb_per_second: pod_parse_only,
        peak_rss,
        steady_rss,
        empty_rss,
        findings,
        metrics_bytes,
        render_median_ms: percentile(&render_ms, 0.5),
        render_p99_ms: percentile(&render_ms, 0.99),
        scrape_median_ms: percentile(&scrape_ms, 0.5),
        scrape_p99_ms: percentile(&scrape_ms, 0.99),
        churn_events_sent: sent,
        churn_events_applied: applied,
        churn_cpu_seconds,
        churn_seconds,
        relist_seconds,
        relist_peak_rss,
        newcomer_seconds,
    })
}

/// Seconds from now until `/findings` at `url` names the pod `name`; `None`
/// after a minute.
async fn newcomer_seen(url: String, name: String) -> Option<f64> {
    let client = reqwest::Client::new();
    let quoted = format!("\"{name}\"");
    let since = Instant::now();
    while since.elapsed() < Duration::from_secs(60) {
        if let Ok(response) = client.get(&url).send().await
            && let Ok(text) = response.text().await
            && text.contains(&quoted)
        {
            return Some(since.elapsed().as_secs_f64());
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    None
}

/// Bytes in MiB, as the tables print them.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// A measure's name and how to print it for one report.
type Row = (&'static str, fn(&Report) -> String);

/// One row per measure, one column per size, as Markdown.
pub fn table(reports: &[Report]) -> String {
    let mut out = String::from("| measure |");
    for r in reports {
        out.push_str(&format!(" {} pods, {} |", r.pods, r.profile.name()));
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(reports.len()));
    out.push('\n');
    let rows: [Row; 28] = [
        ("nodes / objects", |r| {
            format!("{} / {}", r.nodes, r.objects)
        }),
        ("mean pod JSON", |r| {
            format!("{:.1} KB", r.pod_bytes_mean as f64 / 1000.0)
        }),
        ("initial sync", |r| format!("{:.2} s", r.sync_seconds)),
        ("ingest", |r| {
            format!(
                "{:.0} MB/s, {:.0} objects/s",
                r.ingest_mb_per_second(),
                r.objects_per_second()
            )
        }),
        ("parse only (IgnoredAny)", |r| {
            format!("{:.0} MB/s", r.parse_only_mb_per_second)
        }),
        ("ingest / parse only", |r| {
            format!("{:.2}×", r.ingest_ratio())
        }),
        ("exporter CPU for the sync", |r| {
            format!("{:.2} s", r.sync_cpu_seconds)
        }),
        ("API server CPU meanwhile (same cores)", |r| {
            format!("{:.2} s", r.server_sync_cpu_seconds)
        }),
        ("ingest per exporter CPU second", |r| {
            format!(
                "{:.0} MB/s ({:.2}× parse only)",
                r.ingest_mb_per_cpu_second(),
                r.ingest_cpu_ratio()
            )
        }),
        ("decode only: pods, the exporter's decoder", |r| {
            format!(
                "{:.0} MB/s ({:.2}× parse only of the same pages)",
                r.decode_only_mb_per_second,
                r.decode_ratio()
            )
        }),
        ("peak RSS", |r| format!("{:.0} MiB", mib(r.peak_rss))),
        ("steady RSS", |r| format!("{:.0} MiB", mib(r.steady_rss))),
        ("retained per pod", |r| {
            format!("{:.0} B", r.retained_bytes_per_pod())
        }),
        ("findings", |r| r.findings.to_string()),
        ("/metrics size", |r| {
            format!("{:.1} MB", r.metrics_bytes as f64 / 1e6)
        }),
        ("/metrics render (median / p99)", |r| {
            format!("{:.1} / {:.1} ms", r.render_median_ms, r.render_p99_ms)
        }),
        ("/metrics scrape (median / p99)", |r| {
            format!("{:.1} / {:.1} ms", r.scrape_median_ms, r.scrape_p99_ms)
        }),
        ("/metrics with gzip: size, scrape (median / p99)", |r| {
            format!(
                "{:.2} MB{}, {:.1} / {:.1} ms",
                r.metrics_gzip_bytes as f64 / 1e6,
                if r.metrics_gzipped {
                    ""
                } else {
                    " (not compressed)"
                },
                r.scrape_gzip_median_ms,
                r.scrape_gzip_p99_ms
            )
        }),
        ("landing page: size, time", |r| {
            format!("{:.2} MB, {:.0} ms", r.page_bytes as f64 / 1e6, r.page_ms)
        }),
        ("/findings whole", |r| {
            format!("{:.2} MB", r.findings_bytes as f64 / 1e6)
        }),
        ("/findings?anomaly=image_pull&limit=100", |r| {
            format!("{:.3} MB", r.findings_filtered_bytes as f64 / 1e6)
        }),
        ("churn", |r| {
            format!(
                "{:.0} {}/s for {:.0} s",
                r.churn_events_sent as f64 / r.churn_seconds,
                match r.profile {
                    Profile::Healthy => "pod changes",
                    Profile::Storm => "events",
                },
                r.churn_seconds
            )
        }),
        ("churn events applied", |r| {
            format!("{:.0}", r.churn_events_applied)
        }),
        ("CPU per 1,000 events", |r| {
            format!("{:.3} s", r.cpu_per_thousand_events())
        }),
        ("CPU at that churn", |r| {
            format!("{:.1}% of a core", 100.0 * r.churn_core_share())
        }),
        (
            "a new crash-looping pod on /findings during the churn (median / slowest)",
            |r| {
                let seen: Vec<f64> = r.newcomer_seconds.iter().flatten().copied().collect();
                let missed = r.newcomer_seconds.len() - seen.len();
                let mut cell = match (seen.get(seen.len() / 2), seen.last()) {
                    (Some(median), Some(slowest)) => {
                        format!("{median:.2} / {slowest:.2} s of {}", seen.len())
                    }
                    _ => "none created".to_string(),
                };
                if missed > 0 {
                    cell.push_str(&format!(", {missed} not seen within 60 s"));
                }
                cell
            },
        ),
        ("relist after 410 Gone (time / peak RSS)", |r| {
            format!(
                "{:.2} s / {:.0} MiB",
                r.relist_seconds,
                mib(r.relist_peak_rss)
            )
        }),
        ("relist peak / steady RSS", |r| {
            format!("{:.2}×", r.relist_peak_ratio())
        }),
    ];
    for (name, cell) in rows {
        out.push_str(&format!("| {name} |"));
        for r in reports {
            out.push_str(&format!(" {} |", cell(r)));
        }
        out.push('\n');
    }
    out
}
