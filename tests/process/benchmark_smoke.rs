//! The benchmark kept working: the same code that produces docs/performance.md
//! runs here at a small size against the test build of the exporter. No figure
//! is judged, only that every measure was taken and is plausible.

use std::path::PathBuf;
use std::time::Duration;

use lifecycle_bench::soak::{SoakConfig, soak};
use lifecycle_bench::{Config, Profile, empty_rss, run, table};

#[tokio::test(flavor = "multi_thread")]
async fn the_benchmark_runs_end_to_end_at_a_small_size() {
    let exporter = PathBuf::from(env!("CARGO_BIN_EXE_kube-lifecycle-exporter"));
    let empty = empty_rss(&exporter)
        .await
        .expect("the exporter runs on an empty cluster");
    let config = Config {
        exporter,
        pods: 400,
        profile: Profile::Healthy,
        churn: Duration::from_secs(2),
        churn_rate: 200,
        scrapes: 5,
        viewers: 2,
        viewer_phase: Duration::from_secs(2),
    };
    let report = run(&config, empty).await.expect("the benchmark completes");
    println!("{}", table(std::slice::from_ref(&report)));

    assert_eq!(report.pods, 400);
    assert!(report.nodes >= 3 && report.objects > report.pods);
    // Pods shaped like real ones: several KB each.
    assert!(
        (5_000..12_000).contains(&report.pod_bytes_mean),
        "{}",
        report.pod_bytes_mean
    );
    assert!(report.sync_seconds > 0.0 && report.parse_only_mb_per_second > 0.0);
    assert!(report.decode_only_mb_per_second > 0.0 && report.pod_parse_only_mb_per_second > 0.0);
    assert!(report.steady_rss > 0 && report.peak_rss >= report.steady_rss);
    // One pod in 33 is anomalous, each giving at least one finding.
    assert!(report.findings >= 400 / 33, "{} findings", report.findings);
    assert!(report.metrics_bytes > 0 && report.render_median_ms.is_finite());
    // Every change sent during the churn reached the exporter's model.
    assert!(report.churn_events_sent >= 200);
    assert!(report.churn_events_applied >= report.churn_events_sent as f64);
    assert!(report.cpu_per_thousand_events().is_finite());
    // The pods were listed again after the server's history was lost.
    assert!(report.relist_seconds > 0.0 && report.relist_peak_rss > 0);
    // The pod that started crash-looping during the churn was found.
    assert_eq!(report.newcomer_seconds.len(), 1);
    assert!(report.newcomer_seconds[0].is_some_and(|s| s < 60.0));
    // Scrapes and page views were timed during the churn, with and without
    // viewers; the landing page several times.
    assert!(report.churn_scrape_p99_ms > 0.0 && report.viewers_scrape_p99_ms > 0.0);
    assert!(report.viewers_page_p99_ms > 0.0 && report.page_p99_ms >= report.page_median_ms);
    // The exporter's CPU per scrape was read, and its diagnosis counter:
    // a churning model is diagnosed again (in the background).
    assert!(report.scrape_cpu_ms > 0.0 && report.scrape_judge_ms >= 0.0);
    assert!(report.churn_judge_seconds > 0.0, "{report:?}");

    // The storm at a small size: a third of the nodes lost, a registry
    // refusing pulls, events churned instead of pods.
    let storm = run(
        &Config {
            profile: Profile::Storm,
            pods: 600,
            churn_rate: 300,
            ..config
        },
        empty,
    )
    .await
    .expect("the storm benchmark completes");
    println!("{}", table(&[report.clone(), storm.clone()]));
    // Every pod on a lost node (a third) and one in seven of the others
    // (their pulls refused) is a finding: far more than the healthy 3%.
    assert!(
        storm.findings >= 600 / 3 + 600 * 2 / 3 / 7,
        "{} findings",
        storm.findings
    );
    assert!(storm.metrics_gzip_bytes > 0 && storm.page_bytes > 0);
    // Compressed when asked, as Prometheus asks.
    assert!(report.metrics_gzipped && storm.metrics_gzipped);
    assert!(storm.metrics_gzip_bytes * 3 < storm.metrics_bytes);
    assert!(storm.findings_filtered_bytes > 0 && storm.findings_bytes > 0);
    assert!(storm.churn_events_applied >= storm.churn_events_sent as f64);
    assert!(storm.newcomer_seconds.iter().all(Option::is_some));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_soak_samples_the_resident_set_as_it_churns() {
    let report = soak(&SoakConfig {
        exporter: PathBuf::from(env!("CARGO_BIN_EXE_kube-lifecycle-exporter")),
        pods: 300,
        rate: 200,
        duration: Duration::from_secs(3),
        sample: Duration::from_secs(1),
    })
    .await
    .expect("the soak completes");
    let table = report.table();
    println!("{table}");
    // The sync's reading, then one a second.
    assert!(report.samples.len() >= 3, "{table}");
    assert!(report.samples.iter().all(|s| s.rss > 0));
    assert!(
        report
            .samples
            .windows(2)
            .all(|w| w[0].changes < w[1].changes && w[0].seconds < w[1].seconds),
        "{table}"
    );
}
