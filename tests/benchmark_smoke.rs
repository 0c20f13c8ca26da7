//! The benchmark kept working: the same code that produces docs/performance.md
//! runs here at a small size against the test build of the exporter. No figure
//! is judged, only that every measure was taken and is plausible.

use std::path::PathBuf;
use std::time::Duration;

use lifecycle_bench::{Config, empty_rss, run, table};

#[tokio::test(flavor = "multi_thread")]
async fn the_benchmark_runs_end_to_end_at_a_small_size() {
    let exporter = PathBuf::from(env!("CARGO_BIN_EXE_kube-lifecycle-exporter"));
    let empty = empty_rss(&exporter)
        .await
        .expect("the exporter runs on an empty cluster");
    let config = Config {
        exporter,
        pods: 400,
        churn: Duration::from_secs(2),
        churn_rate: 200,
        scrapes: 5,
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
    // Served as Prometheus asks, compressed; the page and /findings measured.
    assert!(
        report.metrics_gzip_bytes > 0 && report.metrics_gzip_bytes * 3 < report.metrics_bytes,
        "{} gzip of {}",
        report.metrics_gzip_bytes,
        report.metrics_bytes
    );
    assert!(report.page_bytes > 0 && report.page_median_ms.is_finite());
    assert!(report.findings_limited_bytes <= report.findings_bytes);
    // Every change sent during the churn reached the exporter's model.
    assert!(report.churn_events_sent >= 200);
    assert!(report.churn_events_applied >= report.churn_events_sent as f64);
    assert!(report.cpu_per_thousand_events().is_finite());
    // The pods were listed again after the server's history was lost.
    assert!(report.relist_seconds > 0.0 && report.relist_peak_rss > 0);
}
