//! The pages and `/findings` as a client gets them from the real binary serving a
//! file: what a snapshot says of itself, the runbooks opened on their evidence,
//! 404s that say what exists, filters and limits, gzip when asked, and a page
//! that stays small when a third of the cluster is broken.

use crate::common;

use std::io::{Read, Write};
use std::path::Path;

use common::deleted;
use common::exporter::Exporter;
use serde_json::{Value, json};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");

struct Reply {
    status: u16,
    encoding: Option<String>,
    content_type: String,
    /// Absent when the body was streamed (chunked).
    content_length: Option<String>,
    /// The body as sent (compressed when `encoding` says so).
    wire: Vec<u8>,
    /// The body decompressed.
    text: String,
}

async fn fetch(base: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    let client = reqwest::Client::new();
    let mut request = client.get(format!("{base}{path}"));
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    let status = response.status().as_u16();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    let encoding = header("content-encoding");
    let content_type = header("content-type").unwrap_or_default();
    let content_length = header("content-length");
    let wire = response.bytes().await.unwrap().to_vec();
    let text = match encoding.as_deref() {
        Some("gzip") => {
            let mut text = String::new();
            flate2::read::GzDecoder::new(&wire[..])
                .read_to_string(&mut text)
                .expect("valid gzip");
            text
        }
        None => String::from_utf8(wire.clone()).unwrap(),
        Some(other) => panic!("{path}: unexpected encoding {other}"),
    };
    Reply {
        status,
        encoding,
        content_type,
        content_length,
        wire,
        text,
    }
}

const HTML: (&str, &str) = ("accept", "text/html,application/xhtml+xml");

#[tokio::test(flavor = "multi_thread")]
async fn a_snapshot_page_says_what_it_shows_and_runbooks_open_on_the_evidence() {
    let exporter = Exporter::start(&["--from-file", EXAMPLE]);
    let base = &exporter.base;

    let page = fetch(base, "/", &[HTML]).await;
    assert_eq!(page.status, 200);
    assert!(
        page.text.contains("Showing a snapshot read from the file"),
        "{}",
        page.text
    );
    assert!(page.text.contains("examples/incidents.yaml"));
    // The example carries its own now: the page is judged as of then.
    assert!(page.text.contains("judged at 2024-06-01"), "{}", page.text);
    assert!(!page.text.contains("Watches"), "no watch table for a file");
    assert!(
        page.text
            .contains("<h2 id=\"counts\">By anomaly and cause</h2>")
    );
    // What explains them: the root causes, oldest first, each with its victims
    // by kind and a link to the findings it explains.
    assert!(
        page.text.contains("<h3 id=\"roots\">Root causes (13)</h3>"),
        "{}",
        page.text
    );
    assert!(
        page.text.contains("<a href=\"/?root=node%2Fucloud-node-7#findings\"><code><bdi>node/ucloud-node-7</bdi></code></a>: <code>node_lost</code> since 2024-05-31 06:36 UTC; 4 findings of 3 pods"),
        "{}",
        page.text
    );
    assert!(page.text.contains("1 deployment (<code><bdi>cron/crontab-runner</bdi></code>), 1 daemonset (<code><bdi>monitoring/node-exporter</bdi></code>), 1 job (<code><bdi>batch/nightly-export</bdi></code>). <a href=\"/runbooks/kubelifecyclenodelost\">KubeLifecycleNodeLost</a>"));
    // A workload whose pods fail alike, nothing outside explaining them: its
    // pod template.
    assert!(page.text.contains(
        "<code><bdi>job/reports/monthly-invoices</bdi></code></a>: <code>pod_template</code>"
    ));
    // A pod pending on two pressured nodes is explained by both.
    for node in ["ci-runner-1", "ci-runner-2"] {
        assert!(
            page.text.contains(&format!(
                "<code><bdi>node/{node}</bdi></code></a>: <code>node_disk_pressure</code>"
            )),
            "{node}"
        );
    }
    // The root filter shows what one root cause explains.
    let lost = fetch(base, "/?root=node/ucloud-node-7", &[HTML]).await;
    assert!(lost.text.contains("Findings (4)"), "{}", lost.text);
    let json: Vec<Value> = serde_json::from_str(
        &fetch(
            base,
            "/findings?root=webhook/namespace.sidecar-injector.istio.io",
            &[],
        )
        .await
        .text,
    )
    .unwrap();
    assert_eq!(json.len(), 2, "{json:?}");

    let index = fetch(base, "/runbooks", &[HTML]).await;
    assert!(
        index
            .text
            .contains("<td class=\"sev-critical\">critical</td>")
    );
    assert!(
        index
            .text
            .contains("A pod is held in Terminating by finalizers.")
    );

    // The crontab-runner's old pod sits on a powered-off node: the node's
    // alert page lists it before the advice.
    let lost = fetch(base, "/runbooks/kubelifecyclenodelost", &[HTML]).await;
    assert_eq!(lost.status, 200);
    let evidence = lost
        .text
        .find("crontab-runner-7697bd68c9-qx7tm")
        .expect("the lost pod is listed");
    assert!(evidence < lost.text.find("<h2>Meaning</h2>").unwrap());
    assert!(lost.text.contains("<code>node_not_ready</code></a>: "));
    // A runbook whose alert covers nothing in the example says so.
    let quiet = fetch(
        base,
        "/runbooks/kubelifecycleimagepullunauthorized",
        &[HTML],
    )
    .await;
    assert!(
        quiet
            .text
            .contains("Nothing this alert covers is happening now.")
    );
    // The exporter's own alerts show the watches (a snapshot is complete).
    let synced = fetch(base, "/runbooks/kubelifecyclewatchnotsynced", &[HTML]).await;
    assert!(synced.text.contains("Every watch is synced"));

    for path in ["/runbooks/", "/metrics/", "/nothing-here", "/runbooks/nope"] {
        let html = fetch(base, path, &[HTML]).await;
        assert_eq!(html.status, 404, "{path}");
        assert!(
            html.text.contains("<a href=\"/runbooks\">/runbooks</a>"),
            "{path}: {}",
            html.text
        );
        assert!(
            html.text.contains("<a href=\"/metrics\">/metrics</a>"),
            "{path}"
        );
    }
    let text = fetch(base, "/metrics/", &[]).await;
    assert_eq!(text.status, 404);
    assert!(
        text.content_type.starts_with("text/plain"),
        "{}",
        text.content_type
    );
    assert!(
        text.text.contains("/metrics, /findings (JSON), /runbooks"),
        "{}",
        text.text
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn findings_take_the_pages_filters_and_a_limit() {
    let exporter = Exporter::start(&["--from-file", EXAMPLE]);
    let base = &exporter.base;
    let all: Vec<Value> = serde_json::from_str(&fetch(base, "/findings", &[]).await.text).unwrap();
    assert!(all.len() >= 20, "{}", all.len());
    let pulls: Vec<Value> =
        serde_json::from_str(&fetch(base, "/findings?anomaly=image_pull", &[]).await.text).unwrap();
    assert!(!pulls.is_empty());
    assert!(pulls.iter().all(|f| f["anomaly"] == "image_pull"));
    assert_eq!(
        pulls.len(),
        all.iter().filter(|f| f["anomaly"] == "image_pull").count()
    );
    let one: Vec<Value> = serde_json::from_str(
        &fetch(base, "/findings?anomaly=pod_terminating&limit=1", &[])
            .await
            .text,
    )
    .unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(
        one[0],
        *all.iter()
            .find(|f| f["anomaly"] == "pod_terminating")
            .unwrap()
    );
    let second: Vec<Value> =
        serde_json::from_str(&fetch(base, "/findings?limit=2&page=2", &[]).await.text).unwrap();
    assert_eq!(second, all[2..4]);
    let none = fetch(base, "/findings?namespace=no-such-namespace", &[]).await;
    assert_eq!(none.text, "[]\n");
    let bad = fetch(base, "/findings?limit=many", &[]).await;
    assert_eq!(bad.status, 400);
}

/// A generated cluster in which every third node is NotReady with its pods
/// deleted: a storm at a size a test can afford.
fn write_storm(path: &Path, pods: usize) {
    let cluster = lifecycle_bench::cluster::generate(pods);
    let mut lost = std::collections::BTreeSet::new();
    let mut items = Vec::with_capacity(pods + cluster.others.len());
    for (i, mut object) in cluster.others.into_iter().enumerate() {
        if object["kind"] == "Node" && i % 3 == 0 {
            lost.insert(object["metadata"]["name"].as_str().unwrap().to_string());
            for condition in object["status"]["conditions"].as_array_mut().unwrap() {
                if condition["type"] == "Ready" {
                    *condition = json!({"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
                        "message": "Kubelet stopped posting node status.", "lastTransitionTime": "2024-06-01T09:00:00Z"});
                }
            }
        }
        items.push(object);
    }
    for pod in cluster.pods {
        let on_lost = lost.contains(pod["spec"]["nodeName"].as_str().unwrap_or_default());
        items.push(if on_lost {
            deleted(pod, "2024-06-01T09:05:00Z", 30)
        } else {
            pod
        });
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    serde_json::to_writer(
        &mut out,
        &json!({"apiVersion": "v1", "kind": "List", "items": items}),
    )
    .unwrap();
    out.flush().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn in_a_storm_the_page_is_summarised_and_paged_and_everything_is_gzipped_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("storm.json");
    write_storm(&dump, 3_000);
    let exporter = Exporter::start(&["--from-file", dump.to_str().unwrap()]);
    let base = &exporter.base;

    let whole = fetch(base, "/findings", &[]).await;
    // Written piece by piece, not rendered whole first.
    assert_eq!(whole.content_length, None, "/findings is streamed");
    let all_text = whole.text;
    let all: Vec<Value> = serde_json::from_str(&all_text).unwrap();
    let lost = all
        .iter()
        .filter(|f| f["cause"] == "node_not_ready")
        .count();
    assert!(
        lost >= 900,
        "{lost} of {} findings on lost nodes",
        all.len()
    );

    let page = fetch(base, "/", &[HTML]).await;
    assert!(
        page.text
            .contains(&format!("Findings 1–200 of {}.", all.len())),
        "paged"
    );
    assert_eq!(page.text.matches("<tr><td><code><bdi>").count(), 200);
    // Grouped by root cause: the lost nodes among them, the oldest listed.
    let roots = page
        .text
        .split("<h3 id=\"roots\">Root causes (")
        .nth(1)
        .unwrap();
    let listed: usize = roots.split(')').next().unwrap().parse().unwrap();
    assert!(listed >= 34, "{listed} root causes");
    assert!(
        page.text.contains("<a href=\"/?root=node%2Fnode-"),
        "grouped by node"
    );
    // The whole answer grows with the page, not with the findings.
    let per_finding = page.text.len() / 200;
    assert!(
        page.text.len() < 200 * per_finding + 64 * 1024,
        "{} bytes",
        page.text.len()
    );
    let node = fetch(base, "/?node=node-00003&limit=5", &[HTML]).await;
    assert!(
        node.text
            .contains("Only the findings with <bdi>node=node-00003</bdi>")
    );
    assert_eq!(node.text.matches("<tr><td><code><bdi>").count(), 5);

    let limited: Vec<Value> = serde_json::from_str(
        &fetch(base, "/findings?cause=node_not_ready&limit=100", &[])
            .await
            .text,
    )
    .unwrap();
    assert_eq!(limited.len(), 100);
    assert!(limited.iter().all(|f| f["cause"] == "node_not_ready"));

    // gzip only when asked, with the same content.
    let gzip = ("accept-encoding", "gzip");
    for (path, accept) in [
        (
            "/metrics",
            "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
        ),
        // The classic text, compressed apart from the OpenMetrics parts.
        ("/metrics", "text/plain"),
        ("/findings", "application/json"),
        ("/", "text/html"),
    ] {
        let plain = fetch(base, path, &[("accept", accept)]).await;
        let packed = fetch(base, path, &[("accept", accept), gzip]).await;
        // A scrape again reads the same, its kept parts compressed before.
        let again = fetch(base, path, &[("accept", accept), gzip]).await;
        assert_eq!(again.text.lines().count(), packed.text.lines().count());
        assert_eq!(plain.encoding, None, "{path}");
        assert_eq!(packed.encoding.as_deref(), Some("gzip"), "{path}");
        assert!(
            packed.wire.len() * 4 < plain.wire.len(),
            "{path}: {} of {}",
            packed.wire.len(),
            plain.wire.len()
        );
        if path == "/findings" {
            assert_eq!(packed.text, plain.text, "{path}");
        } else {
            // The metrics carry the scrape's own figures, the page its time.
            assert_eq!(
                packed.text.lines().count(),
                plain.text.lines().count(),
                "{path}"
            );
        }
    }
}
