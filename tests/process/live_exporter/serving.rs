//! Serving: readyz waits for every first list, namespace limits and exclusions,
//! SIGTERM, `--from-file` as `diagnose`, folding above the series ceiling.

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn readyz_waits_for_every_first_list() {
    let (server, _dir, kubeconfig) = cluster(vec![node("n1")]).await;
    server.set_fault("pods", Fault::Slow(std::time::Duration::from_secs(3)));
    let exporter = Exporter::watching(&kubeconfig, &[]);
    let (status, body) = exporter.get("/readyz").await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("pods"), "{body}");
    assert_eq!(exporter.get("/healthz").await.0, 200);
    exporter.wait_ready().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn namespace_limits_and_exclusions_are_applied() {
    let mut other = stuck_pod("elsewhere");
    other["metadata"]["namespace"] = json!("other");
    let mut system = stuck_pod("system");
    system["metadata"]["namespace"] = json!("kube-system");
    let (_server, _dir, kubeconfig) =
        cluster(vec![node("n1"), stuck_pod("mine"), other, system]).await;
    let only = Exporter::watching(&kubeconfig, &["--namespace", "shop"]);
    only.wait_ready().await;
    let metrics = only.metrics().await;
    let pods: Vec<f64> = samples(
        &metrics,
        "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        &[],
    );
    assert_eq!(pods.len(), 1, "{metrics}");
    assert!(has(
        &metrics,
        "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        &[("pod", "mine")]
    ));

    let excluding = Exporter::watching(&kubeconfig, &["--exclude-namespace", "kube-system"]);
    excluding.wait_ready().await;
    let metrics = excluding.metrics().await;
    assert_eq!(
        samples(
            &metrics,
            "kube_lifecycle_pod_terminating_since_timestamp_seconds",
            &[]
        )
        .len(),
        2,
        "{metrics}"
    );
    assert!(!has(
        &metrics,
        "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        &[("pod", "system")]
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_stops_the_exporter_cleanly() {
    let (_server, _dir, kubeconfig) = cluster(vec![node("n1")]).await;
    let exporter = Exporter::watching(&kubeconfig, &[]);
    exporter.wait_ready().await;
    let status = exporter.terminate();
    assert!(status.success(), "{status:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn from_file_serves_the_same_findings_as_diagnose() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");
    let exporter = Exporter::start(&["--from-file", example]);
    exporter.wait_ready().await;
    let (status, body) = exporter.get("/findings").await;
    assert_eq!(status, 200);
    let served: Vec<Value> = serde_json::from_str(&body).unwrap();
    let offline = std::process::Command::new(common::exporter::BIN)
        .args(["diagnose", example, "--output", "json"])
        .output()
        .unwrap();
    let diagnosed: Vec<Value> = serde_json::from_slice(&offline.stdout).unwrap();
    // Same findings; only a clock-relative message may differ.
    let key = |f: &Value| {
        (
            f["kind"].clone(),
            f["namespace"].clone(),
            f["name"].clone(),
            f["container"].clone(),
            f["cause"].clone(),
            f["since"].clone(),
        )
    };
    assert_eq!(
        served.iter().map(key).collect::<Vec<_>>(),
        diagnosed.iter().map(key).collect::<Vec<_>>()
    );

    let (_, html) = exporter.get("/").await;
    assert!(html.contains("<h3 id=\"pod_terminating\">"));
    // Judged as of the example's own time (its List's annotation), moving on from
    // there: zookeeper-0 has been Terminating for 14h15m, not for years.
    assert!(
        html.contains(">14h15m<") || html.contains(">14h16m<"),
        "{html}"
    );
    assert!(html.contains("KubeLifecyclePodTerminatingContainersRunning"));
    assert!(
        html.contains("&quot;KillContainer&quot;"),
        "messages are escaped"
    );

    // Runbook links point at the copies the exporter serves.
    assert!(html.contains("href=\"/runbooks/kubelifecyclepodterminatingcontainersrunning\""));
    let (status, runbook) = exporter
        .get("/runbooks/kubelifecyclepodterminatingcontainersrunning")
        .await;
    assert_eq!(status, 200);
    for section in ["Meaning", "Impact", "Diagnosis", "Mitigation"] {
        assert!(
            runbook.contains(&format!("<h2>{section}</h2>")),
            "{runbook}"
        );
    }
    let (status, index) = exporter.get("/runbooks").await;
    assert_eq!(status, 200);
    assert!(index.contains("KubeLifecycleNodeLost"));
    assert_eq!(exporter.get("/runbooks/no-such-alert").await.0, 404);

    // The dashboards' links: a finding's anomaly and cause lead to its alert's
    // runbook (the client follows the redirect), and the page and /findings take
    // the same filters.
    let (status, runbook) = exporter
        .get("/runbooks/for/pod_terminating/containers_running")
        .await;
    assert_eq!(status, 200);
    assert!(runbook.contains("KubeLifecyclePodTerminatingContainersRunning"));
    let (status, runbook) = exporter
        .get("/runbooks/for/pod_pending/not_scheduled")
        .await;
    assert_eq!(status, 200);
    assert!(runbook.contains("KubeLifecycleSchedulerNotScheduling"));
    assert_eq!(
        exporter.get("/runbooks/for/pod_pending/finalizers").await.0,
        404
    );
    let (_, filtered) = exporter.get("/?anomaly=pod_terminating").await;
    assert!(filtered.contains("<h3 id=\"pod_terminating\">"));
    assert!(!filtered.contains("<h3 id=\"pod_pending\">"));
    assert!(filtered.contains("anomaly=pod_terminating"));
    let (_, json) = exporter
        .get("/findings?anomaly=pod_pending&namespace=default")
        .await;
    let json: Vec<Value> = serde_json::from_str(&json).unwrap();
    assert!(!json.is_empty());
    assert!(
        json.iter()
            .all(|f| f["anomaly"] == "pod_pending" && f["namespace"] == "default"),
        "{json:#?}"
    );

    let (_, classic) = exporter.get_with("/metrics", Some("*/*")).await;
    assert!(!classic.contains("# EOF"));
    assert!(
        classic.contains("# TYPE kube_lifecycle_pod_terminating_since_timestamp_seconds gauge")
    );
    let (_, openmetrics) = exporter
        .get_with(
            "/metrics",
            Some("application/openmetrics-text;version=1.0.0"),
        )
        .await;
    assert!(openmetrics.ends_with("# EOF\n"));
    // The standard process families, as every exporter serves them.
    for family in [
        "process_cpu_seconds_total ",
        "process_resident_memory_bytes ",
        "process_virtual_memory_bytes ",
        "process_open_fds ",
        "process_max_fds ",
        "process_start_time_seconds ",
    ] {
        assert!(
            openmetrics.lines().any(|l| l.starts_with(family)),
            "{family}in\n{openmetrics}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn above_the_series_ceiling_pod_families_fold_and_findings_stay_whole() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");
    let exporter = Exporter::start(&["--from-file", example, "--max-series-per-family", "1"]);
    exporter.wait_ready().await;
    let (_, metrics) = exporter.get("/metrics").await;
    let family = "kube_lifecycle_pod_terminating_since_timestamp_seconds";
    let folded = metrics
        .lines()
        .find(|l| {
            l.starts_with(&format!(
                "kube_lifecycle_series_folded{{family=\"{family}\"}}"
            ))
        })
        .unwrap_or_else(|| panic!("no folded count for {family}:\n{metrics}"));
    let withheld: f64 = folded.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(withheld > 1.0, "{folded}");
    let series: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with(&format!("{family}{{")))
        .collect();
    assert!(!series.is_empty());
    assert!(
        series
            .iter()
            .all(|l| !l.contains("pod=") && l.contains("namespace=")),
        "folded by namespace, no pod label: {series:#?}"
    );
    // Workload families are never folded.
    assert!(metrics.contains("kube_lifecycle_recreate_blocked_by_terminating{namespace="));
    // Every object is still listed.
    let (_, body) = exporter.get("/findings").await;
    let findings: Vec<Value> = serde_json::from_str(&body).unwrap();
    let terminating = findings
        .iter()
        .filter(|f| f["anomaly"] == "pod_terminating")
        .count();
    assert_eq!(terminating as f64, withheld);
}
