//! Label values with quotes, backslashes, newlines and non-ASCII characters in
//! names and images survive both exposition formats: the classic text format
//! is checked by `promtool check metrics`, and real Prometheus scrapes both
//! formats and must store exactly the original values.

use crate::common;

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::Duration;

use axum::http::header;
use axum::routing::get;
use common::daemons::prometheus;
use common::exporter::Exporter;
use serde_json::{Value, json};

const NAMESPACE: &str = "ns-\"quoted\"-ä";
const STUCK_POD: &str = "pod \"x\" \\back\\slash\nsecond line 日本 🙂";
const NODE: &str = "node\\n-not-a-newline\t\"tab\"";
const PULLING_POD: &str = "puller-ü";
const CONTAINER: &str = "c\"1\\";
const IMAGE: &str = "registry.example:5000/te\"am\\img:ü\nx";

const CLASSIC: &str = "text/plain; version=0.0.4; charset=utf-8";
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

fn dump() -> Value {
    json!({"apiVersion": "v1", "kind": "List", "items": [
        // The one node the dump holds; the stuck pod's node is not among them.
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "other-node"},
         "status": {"conditions": [{"type": "Ready", "status": "True"}]}},
        // Terminating past its deadline on a node that is gone.
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": STUCK_POD, "namespace": NAMESPACE, "uid": "u1",
                      "creationTimestamp": "2024-06-01T08:00:00Z",
                      "deletionTimestamp": "2024-06-01T09:00:30Z", "deletionGracePeriodSeconds": 30},
         "spec": {"nodeName": NODE, "containers": [{"name": CONTAINER, "image": IMAGE}]},
         "status": {"phase": "Running"}},
        // An image that cannot be pulled.
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": PULLING_POD, "namespace": NAMESPACE, "uid": "u2",
                      "creationTimestamp": "2024-06-01T08:00:00Z"},
         "spec": {"nodeName": NODE, "containers": [{"name": CONTAINER, "image": IMAGE}]},
         "status": {"phase": "Pending", "containerStatuses": [
             {"name": CONTAINER, "image": IMAGE, "ready": false, "restartCount": 0,
              "state": {"waiting": {"reason": "ErrImagePull",
                                    "message": "rpc error: code = Unknown desc = failed to authorize: 401 Unauthorized"}}}]}},
    ]})
}

/// Serves two captured bodies with their content types, so Prometheus parses
/// each with the parser of its format.
async fn serve_bodies(classic: String, openmetrics: String) -> String {
    let app = axum::Router::new()
        .route(
            "/classic",
            get(move || async move { ([(header::CONTENT_TYPE, CLASSIC)], classic) }),
        )
        .route(
            "/openmetrics",
            get(move || async move { ([(header::CONTENT_TYPE, OPENMETRICS)], openmetrics) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    address.to_string()
}

/// The label sets Prometheus stored for `job`, as (name, value) sets; empty
/// while Prometheus is starting.
async fn stored(http: &reqwest::Client, prom: &str, job: &str) -> Vec<BTreeSet<(String, String)>> {
    let Ok(response) = http
        .get(format!("{prom}/api/v1/series"))
        .query(&[(
            "match[]",
            format!("{{__name__=~\"kube_lifecycle_.+_since_timestamp_seconds\",job=\"{job}\"}}"),
        )])
        .send()
        .await
    else {
        return Vec::new();
    };
    let response: Value = response.json().await.unwrap_or_default();
    response["data"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|series| {
            series
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| !["__name__", "job", "instance"].contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect()
        })
        .collect()
}

fn labels(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_label_values_survive_both_formats_through_real_parsers() {
    let dir = tempfile::tempdir().unwrap();
    let dump_path = dir.path().join("dump.json");
    std::fs::write(&dump_path, dump().to_string()).unwrap();
    let exporter = Exporter::start(&["--from-file", dump_path.to_str().unwrap()]);
    let (status, classic) = exporter.get_with("/metrics", Some("text/plain")).await;
    assert_eq!(status, 200);
    let (status, openmetrics) = exporter
        .get_with("/metrics", Some("application/openmetrics-text"))
        .await;
    assert_eq!(status, 200);
    assert!(openmetrics.ends_with("# EOF\n"), "{openmetrics}");
    assert!(!classic.contains("# EOF"), "{classic}");

    // promtool parses the classic format with Prometheus's own parser.
    let mut promtool = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool is needed; scripts/test installs it (apt-get install prometheus)");
    std::io::Write::write_all(&mut promtool.stdin.take().unwrap(), classic.as_bytes()).unwrap();
    let checked = promtool.wait_with_output().unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    assert!(
        checked.status.success(),
        "promtool check metrics:\n{report}\n{classic}"
    );

    // Real Prometheus scrapes each format and stores the original values.
    let bodies = serve_bodies(classic.clone(), openmetrics.clone()).await;
    let config = format!(
        "global: {{scrape_interval: 1s}}\nscrape_configs:\n\
         - job_name: classic\n  honor_labels: true\n  metrics_path: /classic\n  static_configs: [{{targets: ['{bodies}']}}]\n\
         - job_name: openmetrics\n  honor_labels: true\n  metrics_path: /openmetrics\n  static_configs: [{{targets: ['{bodies}']}}]\n"
    );
    let (prometheus, prom) = prometheus(dir.path(), &config);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let expected: BTreeSet<_> = [
        labels(&[
            ("namespace", NAMESPACE),
            ("pod", STUCK_POD),
            ("node", NODE),
            ("cause", "node_missing"),
        ]),
        labels(&[
            ("namespace", NAMESPACE),
            ("pod", PULLING_POD),
            ("container", CONTAINER),
            ("node", NODE),
            ("image", IMAGE),
            ("registry", "registry.example:5000"),
            ("cause", "unauthorized"),
        ]),
        // The lost node as a root cause, named by the same hostile value (the
        // registry's has no time it began: the pull's finding has none).
        labels(&[
            ("root_kind", "node"),
            ("root_name", NODE),
            ("root_cause", "node_lost"),
        ]),
    ]
    .into_iter()
    .collect();
    for job in ["classic", "openmetrics"] {
        let mut last = Vec::new();
        for _ in 0..120 {
            last = stored(&http, &prom, job).await;
            if last.len() >= expected.len() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let got: BTreeSet<_> = last.into_iter().collect();
        assert_eq!(
            got,
            expected,
            "{job} scrape\n{}\n{classic}",
            prometheus.log()
        );
    }
}
