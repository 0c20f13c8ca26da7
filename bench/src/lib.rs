//! The benchmark: the real exporter binary against a generated cluster that
//! the in-repo fake API server serves over real HTTP. Everything is measured
//! from outside the exporter: its sync time through `/readyz`, its memory and
//! CPU from `/proc`, `/metrics` as a scraper sees it.
//!
//! A run ([`run`]) goes through its phases in order, each a function here:
//! the cluster generated and its lists parsed and decoded offline, the sync,
//! the scrapes, the churn, scrapes during churn with and without page
//! viewers, the relist. `report.rs` holds what they measured
//! and prints it; `cluster.rs` generates the cluster, `process.rs` runs the
//! exporter, `soak.rs` is the long run, `fuzz.rs` the fuzzing targets.

pub mod cluster;
pub mod fuzz;
mod process;
mod report;
pub mod soak;

pub use cluster::Profile;
pub use report::{Report, mib, table};

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
    /// Landing-page viewers during the second half of the viewer phases.
    pub viewers: usize,
    /// How long each viewer phase churns (without viewers, then with).
    pub viewer_phase: Duration,
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
    let process = ExporterProcess::against(exporter, &server)?;
    process.wait_ready(Duration::from_secs(60)).await?;
    // Scrape once so the exposition buffers exist, as in the measured runs.
    process.get("/metrics").await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    process.rss()
}

/// One run: the cluster generated and served, the exporter started against
/// it, and every phase measured in turn into the report.
pub async fn run(config: &Config, empty_rss: u64) -> Result<Report> {
    let mut report = Report {
        pods: config.pods,
        profile: config.profile,
        empty_rss,
        ..Report::default()
    };
    eprintln!(
        "[{} pods, {}] generating the cluster",
        config.pods,
        config.profile.name()
    );
    let generated = Generated::new(config.pods, config.profile);
    report.nodes = generated.nodes;
    measure_offline(config, &generated, &mut report);
    let server = serve(config, generated).await?;

    let process = start_and_sync(config, &server, &mut report).await?;
    // Settle, then the steady resident set.
    tokio::time::sleep(Duration::from_secs(3)).await;
    report.steady_rss = process.rss()?;
    let metrics = scrape(&process, config.scrapes, &mut report).await?;
    scrape_gzip(&process, config.scrapes, &mut report).await?;
    fetch_pages(&process, config.scrapes, &mut report).await?;

    churn(config, &server, &process, &metrics, &mut report).await?;
    viewer_phases(config, &server, &process, &mut report).await;
    report.peak_rss = process.peak_rss()?;
    let (applied, sent) = (report.churn_events_applied, report.churn_events_sent);
    if applied < sent as f64 * 0.99 {
        let churned = churned_resource(config.profile);
        bail!("the exporter applied {applied} of {sent} {churned} changes");
    }
    relist(config, &server, &process, &mut report).await?;
    Ok(report)
}

/// The generated cluster, each object as JSON text.
struct Generated {
    /// Everything but the pods: nodes, namespaces, workloads, events.
    others: Vec<String>,
    pods: Vec<String>,
    nodes: usize,
}

impl Generated {
    fn new(pods: usize, profile: Profile) -> Generated {
        // Each object is serialised as it is generated and its JSON tree dropped
        // at once: a tree of the whole cluster dropped in one go left the
        // allocator of this process consolidating its free lists for seconds,
        // while the exporter listed, and the sync time counted that stall.
        let mut others: Vec<String> = Vec::new();
        let mut nodes = 0;
        for object in cluster::others_profile(pods, profile) {
            nodes += usize::from(object["kind"] == "Node");
            others.push(object.to_string());
        }
        let pods: Vec<String> = (0..pods)
            .map(|i| cluster::pod_profile(i, nodes, profile).to_string())
            .collect();
        Generated {
            others,
            pods,
            nodes,
        }
    }

    /// Every object, the pods last.
    fn all(&self) -> Vec<&str> {
        self.others
            .iter()
            .chain(&self.pods)
            .map(String::as_str)
            .collect()
    }
}

/// The cluster's lists measured without the exporter: their size, and the
/// rates at which they parse and the pods' decode.
fn measure_offline(config: &Config, generated: &Generated, report: &mut Report) {
    let all = generated.all();
    report.objects = all.len();
    let pages = pages_of(&all);
    report.bytes = pages.iter().map(String::len).sum();
    let pod_bytes: usize = generated.pods.iter().map(String::len).sum();
    report.pod_bytes_mean = pod_bytes / config.pods.max(1);
    eprintln!(
        "[{} pods] {} objects, {:.0} MB as lists; parsing them without decoding",
        config.pods,
        report.objects,
        report.bytes as f64 / 1e6
    );
    report.parse_only_mb_per_second = parse_only_rate(&pages);
    drop(pages);
    eprintln!("[{} pods] decoding the pods' pages", config.pods);
    let pod_pages = pages_of(
        &generated
            .pods
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    (
        report.decode_only_mb_per_second,
        report.pod_parse_only_mb_per_second,
    ) = pod_decode_rates(&pod_pages);
}

/// The fake API server holding the generated cluster (dropped here: the
/// server keeps its own copy).
async fn serve(config: &Config, generated: Generated) -> Result<FakeApiServer> {
    let server = FakeApiServer::start().await?;
    // Room for the churn's changes without compaction during the run.
    server.set_history_limit(config.churn_rate * config.churn.as_secs() as usize + 100_000);
    for json in generated.all() {
        server.apply(serde_json::from_str(json).context("generated JSON parses")?);
    }
    Ok(server)
}

/// The exporter started and its first sync timed: the wall time, the
/// exporter's CPU, and the CPU of this process (the server) meanwhile.
async fn start_and_sync(
    config: &Config,
    server: &FakeApiServer,
    report: &mut Report,
) -> Result<ExporterProcess> {
    eprintln!("[{} pods] starting the exporter", config.pods);
    let started = Instant::now();
    let server_cpu_before = process::own_cpu_seconds()?;
    let process = ExporterProcess::against(&config.exporter, server)?;
    process
        .wait_ready(Duration::from_secs(1800))
        .await
        .context("waiting for the first sync")?;
    report.sync_seconds = started.elapsed().as_secs_f64();
    report.sync_cpu_seconds = process.cpu_seconds()?;
    report.server_sync_cpu_seconds = process::own_cpu_seconds()? - server_cpu_before;
    eprintln!(
        "[{} pods] synced in {:.2} s",
        config.pods, report.sync_seconds
    );
    Ok(process)
}

/// `/metrics` as a scraper sees it, and as the exporter timed its render;
/// returns the last exposition.
async fn scrape(process: &ExporterProcess, scrapes: usize, report: &mut Report) -> Result<String> {
    let mut scrape_ms = Vec::new();
    let mut render_ms = Vec::new();
    let mut metrics = String::new();
    for _ in 0..scrapes {
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
    report.findings = sum_of(&metrics, "kube_lifecycle_findings", "") as u64;
    report.metrics_bytes = metrics.len();
    report.render_median_ms = percentile(&render_ms, 0.5);
    report.render_p99_ms = percentile(&render_ms, 0.99);
    report.scrape_median_ms = percentile(&scrape_ms, 0.5);
    report.scrape_p99_ms = percentile(&scrape_ms, 0.99);
    Ok(metrics)
}

/// CPU time enough to be read from counters that move in 10 ms ticks
/// (a tenth off at most).
const CPU_READABLE_SECONDS: f64 = 0.1;

/// Seconds the exporter has spent diagnosing, by its own counter.
fn judge_seconds(metrics: &str) -> f64 {
    sum_of(metrics, "kube_lifecycle_judgement_seconds_total", "")
}

/// `/metrics` asked for as Prometheus does (gzip): the bytes sent, whether
/// they came compressed, the scrape times, and the exporter's CPU per scrape
/// with the part of it spent diagnosing.
async fn scrape_gzip(process: &ExporterProcess, scrapes: usize, report: &mut Report) -> Result<()> {
    let mut ms = Vec::new();
    let judged_before = judge_seconds(&process.get("/metrics").await?);
    let cpu_before = process.cpu_seconds()?;
    let began = Instant::now();
    let mut cpu = 0.0;
    // The kernel counts CPU time in ticks of 10 ms: a small model's scrapes
    // can all fit in one, so scraping goes on until enough ticks have passed
    // to read (or ten seconds, for a model whose scrapes cost nothing).
    while ms.len() < scrapes.max(1)
        || (cpu < CPU_READABLE_SECONDS && began.elapsed() < Duration::from_secs(10))
    {
        let start = Instant::now();
        (report.metrics_gzip_bytes, report.metrics_gzipped) =
            process.get_gzip_size("/metrics").await?;
        ms.push(start.elapsed().as_secs_f64() * 1000.0);
        cpu = process.cpu_seconds()? - cpu_before;
    }
    let judged = judge_seconds(&process.get("/metrics").await?) - judged_before;
    let per_scrape = |seconds: f64| seconds * 1000.0 / ms.len() as f64;
    report.scrape_cpu_ms = per_scrape(cpu);
    report.scrape_judge_ms = per_scrape(judged);
    ms.sort_by(f64::total_cmp);
    report.scrape_gzip_median_ms = percentile(&ms, 0.5);
    report.scrape_gzip_p99_ms = percentile(&ms, 0.99);
    Ok(())
}

/// The landing page (bytes and times to fetch it, as many times as the
/// scrapes) and `/findings`, whole and filtered (bytes).
async fn fetch_pages(process: &ExporterProcess, times: usize, report: &mut Report) -> Result<()> {
    let mut ms = Vec::new();
    for _ in 0..times.max(1) {
        let start = Instant::now();
        report.page_bytes = process.get("/").await?.len();
        ms.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    report.page_median_ms = percentile(&ms, 0.5);
    report.page_p99_ms = percentile(&ms, 0.99);
    report.findings_bytes = process.get("/findings").await?.len();
    report.findings_filtered_bytes = process
        .get("/findings?anomaly=image_pull&limit=100")
        .await?
        .len();
    Ok(())
}

/// What the churn changes: pods in the healthy profile; in the storm, the
/// kubelet's pull-failure events bumped on every retry, as they arrive
/// during a registry outage.
fn churned_resource(profile: Profile) -> &'static str {
    match profile {
        Profile::Healthy => "pods",
        Profile::Storm => "events",
    }
}

/// `churn_rate` changes a second for `churn`, then the exporter left to
/// apply them: the changes sent and applied (from its `/metrics`; `metrics`
/// is an exposition from before the churn), its CPU, the churn's length, and
/// how long each crash-looping newcomer took to show on `/findings`, sorted.
async fn churn(
    config: &Config,
    server: &FakeApiServer,
    process: &ExporterProcess,
    metrics: &str,
    report: &mut Report,
) -> Result<()> {
    let churned = churned_resource(config.profile);
    let applied_before = events_applied(metrics, churned);
    let judged_before = judge_seconds(metrics);
    let cpu_before = process.cpu_seconds()?;
    let churn_start = Instant::now();
    let (sent, newcomers) =
        send_changes(config, server, process, report.nodes, config.churn, 0, true).await;
    report.churn_seconds = churn_start.elapsed().as_secs_f64();
    let mut newcomer_seconds = Vec::new();
    for task in newcomers {
        newcomer_seconds.push(task.await?);
    }
    newcomer_seconds.sort_by(|a, b| a.unwrap_or(f64::MAX).total_cmp(&b.unwrap_or(f64::MAX)));
    // Let the exporter drain what was sent. Its CPU is read before each scrape
    // that counts the events applied, so the counting scrape that finds them
    // all is not charged to the events.
    let mut applied = 0.0;
    let mut cpu_seconds = 0.0;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cpu_seconds = process.cpu_seconds()? - cpu_before;
        let m = process.get("/metrics").await?;
        applied = events_applied(&m, churned) - applied_before;
        report.churn_judge_seconds = judge_seconds(&m) - judged_before;
        if applied >= sent as f64 {
            break;
        }
    }
    report.churn_events_sent = sent;
    report.churn_events_applied = applied;
    report.churn_cpu_seconds = cpu_seconds;
    report.newcomer_seconds = newcomer_seconds;
    Ok(())
}

/// Sends the churn's changes in ticks of 10 ms for `length`, the first
/// numbered `first` (what makes each change new); returns how many were
/// sent, and, with `newcomers`, the tasks timing the crash-looping newcomers.
async fn send_changes(
    config: &Config,
    server: &FakeApiServer,
    process: &ExporterProcess,
    nodes: usize,
    length: Duration,
    first: usize,
    with_newcomers: bool,
) -> (usize, Vec<tokio::task::JoinHandle<Option<f64>>>) {
    let churn_start = Instant::now();
    let per_tick = (config.churn_rate / 100).max(1);
    let mut sent = first;
    let mut cursor = first;
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    // Every 10 s of churn a new pod starts crash-looping; a task polls
    // `/findings` for it every 250 ms (few enough requests not to weigh on the
    // CPU measured).
    let mut newcomers = Vec::new();
    while churn_start.elapsed() < length {
        tick.tick().await;
        if with_newcomers
            && churn_start.elapsed() >= Duration::from_secs(1 + 10 * newcomers.len() as u64)
        {
            let k = newcomers.len();
            let pod = cluster::crash_looping_newcomer(k, nodes);
            let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default();
            let url = format!("{}/findings?namespace={namespace}", process.base());
            server.apply(pod);
            newcomers.push(tokio::spawn(newcomer_seen(url, format!("newcomer-{k}"))));
        }
        let mut done = 0;
        while done < per_tick {
            let i = (cursor * 7919) % config.pods;
            cursor += 1;
            let object = match config.profile {
                Profile::Healthy => {
                    let mut pod = cluster::pod(i, nodes);
                    pod["metadata"]["annotations"]["bench/revision"] = json!(sent.to_string());
                    pod
                }
                Profile::Storm => match cluster::pull_failed_event_again(i, nodes, sent) {
                    Some(event) => event,
                    None => continue,
                },
            };
            server.apply(object);
            sent += 1;
            done += 1;
        }
    }
    (sent - first, newcomers)
}

/// Two further stretches of the same churn, gzip scrapes every half second
/// in both, and in the second `viewers` landing-page viewers each reloading
/// the page every second: whether many people looking at the page during an
/// incident slow Prometheus' scrapes.
async fn viewer_phases(
    config: &Config,
    server: &FakeApiServer,
    process: &ExporterProcess,
    report: &mut Report,
) {
    report.viewers = config.viewers;
    let mut first = report.churn_events_sent;
    for viewers in [0, config.viewers] {
        eprintln!(
            "[{} pods] churning with scrapes and {viewers} page viewers",
            config.pods
        );
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let base = process.base().to_string();
        let scraper = tokio::spawn(fetch_until(
            format!("{base}/metrics"),
            true,
            Duration::from_millis(500),
            stop.clone(),
        ));
        let pages: Vec<_> = (0..viewers)
            .map(|_| {
                tokio::spawn(fetch_until(
                    format!("{base}/"),
                    false,
                    Duration::from_secs(1),
                    stop.clone(),
                ))
            })
            .collect();
        let (sent, _) = send_changes(
            config,
            server,
            process,
            report.nodes,
            config.viewer_phase,
            first,
            false,
        )
        .await;
        first += sent;
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let mut scrapes = scraper.await.unwrap_or_default();
        scrapes.sort_by(f64::total_cmp);
        let mut page_ms: Vec<f64> = Vec::new();
        for viewer in pages {
            page_ms.extend(viewer.await.unwrap_or_default());
        }
        page_ms.sort_by(f64::total_cmp);
        if viewers == 0 {
            report.churn_scrape_p99_ms = percentile(&scrapes, 0.99);
        } else {
            report.viewers_scrape_p99_ms = percentile(&scrapes, 0.99);
            report.viewers_page_p99_ms = percentile(&page_ms, 0.99);
        }
    }
}

/// Fetches `url` (asking for gzip when `gzip`) every `every` (or again as
/// soon as the last answer came) until `stop`; the times in milliseconds.
async fn fetch_until(
    url: String,
    gzip: bool,
    every: Duration,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Vec<f64> {
    let client = reqwest::Client::new();
    let mut ms = Vec::new();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let start = Instant::now();
        let mut request = client.get(&url);
        if gzip {
            request = request.header("Accept-Encoding", "gzip");
        }
        if let Ok(response) = request.send().await
            && response.bytes().await.is_ok()
        {
            ms.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        tokio::time::sleep(every.saturating_sub(start.elapsed())).await;
    }
    ms
}

/// A relist, as after etcd is restored: every watch is cut and its resume
/// point is gone (410 Gone, even for a watch that saw the last change), so
/// each lists again while the model still holds what it built. How long the
/// pods took to list again, and the peak resident set meanwhile.
async fn relist(
    config: &Config,
    server: &FakeApiServer,
    process: &ExporterProcess,
    report: &mut Report,
) -> Result<()> {
    eprintln!("[{} pods] relisting", config.pods);
    report.relist_start_rss = process.rss()?;
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
    report.relist_seconds = relist_start.elapsed().as_secs_f64();
    report.relist_peak_rss = process.peak_rss()?;
    Ok(())
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
