//! Faults survived with nothing lost. For each fault the exporter runs against the
//! fake API server through it, the scenario changes meanwhile, and afterwards the
//! findings it serves must equal what `diagnose` gives for the API's final state —
//! within [`BOUND`] of the fault ending — and the exporter must still be running.
//! Self-metrics must say what happened.
//!
//! The bound: kube-runtime's watcher backs off exponentially from 0.8 s to at most
//! 30 s between attempts, so after a fault ends the next attempt comes within 30 s;
//! the list and watch that follow take well under a second here. A hanging watch is
//! given up after `--watch-timeout` + 5 s of silence (3 s + 5 s in these tests).

use crate::common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::exporter::{Exporter, example_objects, samples};
use fake_apiserver::{FakeApiServer, Fault};
use serde_json::{Value, json};

/// How long after a fault ends the exporter must agree with the API again.
const BOUND: Duration = Duration::from_secs(45);

/// The resources the exporter watches, as (list path, apiVersion, kind).
const LISTS: [(&str, &str, &str); 11] = [
    ("/api/v1/nodes", "v1", "Node"),
    ("/api/v1/namespaces", "v1", "Namespace"),
    ("/api/v1/pods", "v1", "Pod"),
    ("/apis/apps/v1/deployments", "apps/v1", "Deployment"),
    ("/apis/apps/v1/replicasets", "apps/v1", "ReplicaSet"),
    ("/apis/apps/v1/statefulsets", "apps/v1", "StatefulSet"),
    ("/apis/apps/v1/daemonsets", "apps/v1", "DaemonSet"),
    (
        "/api/v1/replicationcontrollers",
        "v1",
        "ReplicationController",
    ),
    ("/apis/batch/v1/jobs", "batch/v1", "Job"),
    ("/api/v1/events?fieldSelector=type%3DWarning", "v1", "Event"),
    (
        "/apis/resource.k8s.io/v1/resourceclaims",
        "resource.k8s.io/v1",
        "ResourceClaim",
    ),
];

/// The plural of each watched resource, as the self-metrics label it.
fn resources() -> Vec<&'static str> {
    LISTS
        .iter()
        .map(|(path, _, _)| {
            let path = path.split('?').next().unwrap();
            path.rsplit('/').next().unwrap()
        })
        .collect()
}

struct Scenario {
    server: FakeApiServer,
    exporter: Exporter,
    _dir: tempfile::TempDir,
    dump: PathBuf,
    http: reqwest::Client,
}

impl Scenario {
    /// The incidents of examples/incidents.yaml, watched by a fresh exporter.
    async fn start(extra: &[&str]) -> Scenario {
        Scenario::start_with(extra, |_| {}).await
    }

    async fn start_with(extra: &[&str], before: impl FnOnce(&FakeApiServer)) -> Scenario {
        let server = FakeApiServer::start().await.unwrap();
        for object in example_objects() {
            server.apply(object);
        }
        before(&server);
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = dir.path().join("kubeconfig");
        server.write_kubeconfig(&kubeconfig).unwrap();
        let mut args = vec!["--event-max-age", "1000000h", "--watch-timeout", "3s"];
        args.extend_from_slice(extra);
        let exporter = Exporter::watching(&kubeconfig, &args);
        let dump = dir.path().join("final-state.json");
        Scenario {
            server,
            exporter,
            _dir: dir,
            dump,
            // No kept-alive connections: the API server's outages would break them.
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .pool_max_idle_per_host(0)
                .build()
                .unwrap(),
        }
    }

    /// The API's current state, as `kubectl get … -o json` would list it.
    async fn api_state(&self) -> Value {
        let mut items = Vec::new();
        for (path, api_version, kind) in LISTS {
            let list: Value = self
                .http
                .get(format!("{}{path}", self.server.url()))
                .bearer_auth("fake-token")
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            for mut item in list["items"].as_array().cloned().unwrap_or_default() {
                item["apiVersion"] = json!(api_version);
                item["kind"] = json!(kind);
                items.push(item);
            }
        }
        json!({"apiVersion": "v1", "kind": "List", "items": items})
    }

    /// What `diagnose` says of the API's current state.
    async fn expected(&self) -> Vec<Key> {
        std::fs::write(&self.dump, self.api_state().await.to_string()).unwrap();
        let out = std::process::Command::new(common::exporter::BIN)
            .args(["diagnose", self.dump.to_str().unwrap(), "--output", "json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        keys(&serde_json::from_slice(&out.stdout).unwrap())
    }

    async fn served(&self) -> Option<Vec<Key>> {
        let (status, body) = self.exporter.get("/findings").await;
        (status == 200)
            .then(|| serde_json::from_str(&body).ok())
            .flatten()
            .map(|v| keys(&v))
    }

    /// Waits until the served findings equal `diagnose` of the API's state.
    async fn converges(&mut self, what: &str) {
        self.converges_within(what, BOUND).await;
    }

    /// Waits at most `bound` until the served findings equal `diagnose` of
    /// the API's state; returns how long it took.
    async fn converges_within(&mut self, what: &str, bound: Duration) -> Duration {
        let start = Instant::now();
        let mut last = None;
        while start.elapsed() < bound {
            let expected = self.expected().await;
            let served = self.served().await;
            if served.as_ref() == Some(&expected) {
                assert!(self.exporter.is_running(), "the exporter exited");
                return start.elapsed();
            }
            last = Some((expected, served));
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let (expected, served) = last.unwrap();
        panic!(
            "{what}: not converged within {bound:?}\nexpected: {expected:#?}\nserved: {served:#?}\nlogs:\n{}",
            self.exporter.logs().join("\n")
        );
    }

    async fn metric_sum(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        samples(&self.exporter.metrics().await, name, labels)
            .iter()
            .sum()
    }

    async fn wait_metric(&self, what: &str, name: &str, labels: &[(&str, &str)], at_least: f64) {
        let start = Instant::now();
        loop {
            if self.metric_sum(name, labels).await >= at_least {
                return;
            }
            assert!(
                start.elapsed() < BOUND,
                "{what}: {name}{labels:?} never reached {at_least}\n{}",
                self.exporter.metrics().await
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Polls `check` every 250 ms until it holds; fails after [`BOUND`] naming
    /// `what`, with the exporter's logs.
    async fn wait_for(&self, what: &str, check: impl AsyncFn(&Scenario) -> bool) {
        let start = Instant::now();
        while !check(self).await {
            assert!(
                start.elapsed() < BOUND,
                "timed out after {BOUND:?} waiting for {what}\nlogs:\n{}",
                self.exporter.logs().join("\n")
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Waits until the fake API server has answered a watch of `plural` among
    /// the requests since the last `clear_requests`.
    async fn wait_for_watch_request(&self, plural: &str) {
        let path = format!("/{plural}");
        self.wait_for(&format!("a new watch of {plural}"), async |s| {
            s.server
                .requests()
                .iter()
                .any(|r| r.watch && r.status == 200 && r.path.ends_with(&path))
        })
        .await;
    }

    /// Changes made while a fault holds: one stuck pod heals (deleted), one
    /// healthy pod gets stuck, one new incident appears.
    fn change_the_cluster(&self, tag: &str) {
        self.server
            .delete("v1", "Pod", Some("cam"), "cam1-78b6fc6bc8-cjsw5");
        self.server.apply(stuck_pod(&format!("stuck-{tag}")));
        self.server
            .apply(config_error_pod(&format!("config-{tag}")));
    }
}

type Key = (Value, Value, Value, Value, Value, Value, Value);

fn keys(findings: &Value) -> Vec<Key> {
    let mut keys: Vec<Key> = findings
        .as_array()
        .expect("an array of findings")
        .iter()
        .map(|f| {
            (
                f["kind"].clone(),
                f["namespace"].clone(),
                f["name"].clone(),
                f["container"].clone(),
                f["anomaly"].clone(),
                f["cause"].clone(),
                f["since"].clone(),
            )
        })
        .collect();
    keys.sort_by_key(|k| format!("{k:?}"));
    keys
}

/// Deleted long ago, held by a finalizer, on a Ready node of the example.
fn stuck_pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "faults", "creationTimestamp": "2024-05-01T00:00:00Z",
            "deletionTimestamp": "2024-05-01T01:00:30Z", "deletionGracePeriodSeconds": 30,
            "finalizers": ["example.com/cleanup"]},
        "spec": {"nodeName": "node1", "containers": [{"name": "app", "image": "nginx:1.27"}]},
        "status": {"phase": "Running", "containerStatuses": [{"name": "app", "image": "nginx:1.27",
            "ready": false, "restartCount": 0,
            "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}})
}

fn config_error_pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "faults", "creationTimestamp": "2024-05-01T00:00:00Z"},
        "spec": {"nodeName": "node1", "containers": [{"name": "app", "image": "nginx:1.27"}]},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}],
            "containerStatuses": [{"name": "app", "image": "nginx:1.27", "ready": false, "restartCount": 0,
            "state": {"waiting": {"reason": "CreateContainerConfigError",
                "message": "configmap \"app-settings\" not found"}}}]}})
}

/// Failed attempts per watch that make an outage long: the first error and
/// then retries 0.8 s, 1.6 s and 3.2 s apart (kube-runtime's default backoff,
/// jittered), so the backoff has grown to 6.4 s when the server comes back.
const OUTAGE_ERRORS: f64 = 4.0;

#[tokio::test(flavor = "multi_thread")]
async fn api_server_down_through_several_retries_then_back() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.converges("before the outage").await;
    let errors = async |s: &Scenario| {
        let metrics = s.exporter.metrics().await;
        resources()
            .into_iter()
            .map(|resource| {
                samples(
                    &metrics,
                    "kube_lifecycle_watch_errors_total",
                    &[("resource", resource)],
                )
                .iter()
                .sum::<f64>()
            })
            .collect::<Vec<f64>>()
    };
    let before = errors(&s).await;
    s.server.pause().await;
    s.change_the_cluster("outage");
    // The outage lasts until every watch has failed OUTAGE_ERRORS times, its
    // backoff grown, rather than for a fixed time.
    s.wait_for(
        &format!("every watch to fail {OUTAGE_ERRORS} times while the API server is down"),
        async |s| {
            let now = errors(s).await;
            now.iter()
                .zip(&before)
                .all(|(now, before)| now - before >= OUTAGE_ERRORS)
        },
    )
    .await;
    assert!(s.exporter.is_running());
    s.server.resume().await;
    s.converges("after the outage").await;
    assert!(
        s.metric_sum("kube_lifecycle_watch_errors_total", &[]).await >= 1.0,
        "the outage is counted"
    );
    assert!(
        s.exporter
            .logs()
            .iter()
            .any(|l| l.contains("\"level\":\"WARN\"") || l.contains("\"level\":\"ERROR\"")),
        "the outage is logged"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn api_server_back_with_a_new_resource_version_epoch() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.pause().await;
    s.change_the_cluster("epoch");
    s.server.restart_with_new_epoch();
    s.server.resume().await;
    s.converges("after 410 Gone").await;
    s.wait_metric(
        "relist counted",
        "kube_lifecycle_watch_restarts_total",
        &[],
        1.0,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn connection_reset_in_the_middle_of_a_chunked_watch() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    for round in 0..3 {
        s.server.cut_watches();
        s.change_the_cluster(&format!("reset-{round}"));
    }
    s.converges("after resets").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_watch_that_hangs_without_a_byte_is_given_up_and_reopened() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.set_fault("pods", Fault::HangWatch);
    s.server.clear_requests();
    s.server.cut_watches_for("pods");
    // The pods watch is reopened, and hangs, before the cluster changes.
    s.wait_for_watch_request("pods").await;
    s.change_the_cluster("hang");
    let (_, findings) = s.exporter.get("/findings").await;
    assert!(
        !findings.contains("stuck-hang"),
        "the hanging watch said nothing: {findings}"
    );
    // Clearing the fault does not end the hanging watch: only giving it up
    // (--watch-timeout + 5 s of silence) lets the exporter see the change.
    s.server.clear_faults();
    s.converges("after the hanging watch").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn slow_list_pages() {
    let mut s = Scenario::start_with(&[], |server| {
        for plural in ["pods", "nodes", "events"] {
            server.set_fault(plural, Fault::Slow(Duration::from_secs(2)));
        }
    })
    .await;
    let (status, _) = s.exporter.get("/readyz").await;
    assert_eq!(status, 503, "not ready while the first lists are slow");
    s.exporter.wait_ready().await;
    s.change_the_cluster("slow");
    s.converges("with slow lists").await;
    s.server.clear_faults();
}

#[tokio::test(flavor = "multi_thread")]
async fn server_errors_then_recovery() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.set_fault("pods", Fault::ServerError);
    s.server.cut_watches_for("pods");
    s.change_the_cluster("500");
    s.wait_metric(
        "500s counted",
        "kube_lifecycle_watch_errors_total",
        &[("resource", "pods"), ("reason", "server_error")],
        1.0,
    )
    .await;
    s.server.clear_faults();
    s.converges("after the 500s").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn forbidden_on_one_resource_then_granted() {
    let mut s =
        Scenario::start_with(&[], |server| server.set_fault("events", Fault::Forbidden)).await;
    s.wait_metric(
        "403 counted",
        "kube_lifecycle_watch_errors_total",
        &[("resource", "events"), ("reason", "forbidden")],
        1.0,
    )
    .await;
    // The other resources keep working.
    s.wait_metric(
        "pods synced",
        "kube_lifecycle_watch_synced",
        &[("resource", "pods")],
        1.0,
    )
    .await;
    let (status, body) = s.exporter.get("/readyz").await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("events"), "{body}");
    s.server.clear_faults();
    s.exporter.wait_ready().await;
    s.converges("once events may be read").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_lines_and_wrong_field_types_in_a_watch_stream() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.wait_for_watch("pods", BOUND).await;
    s.server
        .inject_watch_line("pods", "{\"type\":\"ADDED\",\"object\":{\"kind\":");
    s.server.inject_watch_line(
        "pods",
        r#"{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"wrong-types","namespace":"faults","uid":"u-1","resourceVersion":"1"},"spec":{"nodeName":42,"containers":"nope"},"status":{"phase":["Running"]}}}"#,
    );
    s.change_the_cluster("malformed");
    s.converges("after malformed lines").await;
    s.wait_metric(
        "decode errors counted",
        "kube_lifecycle_watch_errors_total",
        &[("resource", "pods")],
        1.0,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_object_with_a_one_mib_annotation() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    let mut pod = stuck_pod("big-annotation");
    pod["metadata"]["annotations"] = json!({"example.com/blob": "x".repeat(1 << 20)});
    s.server.apply(pod);
    s.converges("with a 1 MiB annotation").await;
    let (_, findings) = s.exporter.get("/findings").await;
    assert!(findings.contains("big-annotation"));
    assert!(findings.len() < 1 << 20, "annotations are not kept");
}

#[tokio::test(flavor = "multi_thread")]
async fn ten_thousand_events_in_one_burst() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    let before = s
        .metric_sum(
            "kube_lifecycle_watch_events_total",
            &[("resource", "events")],
        )
        .await;
    for i in 0..10_000 {
        s.server.apply(json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("burst.{i}"), "namespace": "faults"},
            "involvedObject": {"kind": "Pod", "namespace": "faults", "name": format!("gone-{}", i % 100),
                "uid": format!("uid-{}", i % 100), "fieldPath": "spec.containers{app}"},
            "reason": "BackOff", "message": "Back-off restarting failed container", "type": "Warning",
            "count": 1, "firstTimestamp": "2024-05-01T00:00:00Z", "lastTimestamp": "2024-05-01T00:00:00Z"}));
    }
    s.change_the_cluster("burst");
    s.wait_metric(
        "every event applied",
        "kube_lifecycle_watch_events_total",
        &[("resource", "events")],
        before + 10_000.0,
    )
    .await;
    s.converges("after the burst").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn objects_deleted_and_recreated_with_a_new_uid_while_disconnected() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.apply(stuck_pod("phoenix"));
    s.converges("the stuck pod is seen").await;
    let old_uid = s
        .server
        .get("v1", "Pod", Some("faults"), "phoenix")
        .unwrap()["metadata"]["uid"]
        .clone();
    s.server.pause().await;
    // The stuck pod goes and a healthy one of the same name comes back; the
    // StatefulSet's stuck zookeeper-0 is replaced by a healthy one too.
    s.server.delete("v1", "Pod", Some("faults"), "phoenix");
    let mut healthy = stuck_pod("phoenix");
    let meta = healthy["metadata"].as_object_mut().unwrap();
    for key in [
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "finalizers",
    ] {
        meta.remove(key);
    }
    healthy["status"] = json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [{"name": "app", "image": "nginx:1.27", "ready": true, "restartCount": 0,
            "state": {"running": {"startedAt": "2024-05-01T00:00:05Z"}}}]});
    s.server.apply(healthy);
    let zookeeper = s
        .server
        .get("v1", "Pod", Some("middleware"), "zookeeper-0")
        .unwrap();
    s.server
        .delete("v1", "Pod", Some("middleware"), "zookeeper-0");
    let mut reborn = zookeeper.clone();
    let meta = reborn["metadata"].as_object_mut().unwrap();
    for key in [
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "uid",
        "resourceVersion",
    ] {
        meta.remove(key);
    }
    reborn["status"] = json!({"phase": "Running"});
    s.server.apply(reborn);
    let new_uid = s
        .server
        .get("v1", "Pod", Some("faults"), "phoenix")
        .unwrap()["metadata"]["uid"]
        .clone();
    assert_ne!(old_uid, new_uid);
    s.server.resume().await;
    s.converges("after the recreation").await;
    let (_, findings) = s.exporter.get("/findings").await;
    assert!(!findings.contains("phoenix"), "{findings}");
    assert!(!findings.contains("zookeeper"), "{findings}");
}

/// How long after an API server comes back different the exporter must serve
/// what a fresh listing gives (the held-out check allows 90 s). The watches'
/// backoff after a short outage is a few seconds, a watch from a version the
/// server has not reached waits 3 s for it (as upstream's watch cache does),
/// and the relist takes well under a second here.
const RELIST_BOUND: Duration = Duration::from_secs(20);

/// Log lines at `level` whose message contains `text`.
fn logged(s: &Scenario, level: &str, text: &str) -> Vec<String> {
    s.exporter
        .logs()
        .into_iter()
        .filter(|l| l.contains(&format!("\"level\":\"{level}\"")) && l.contains(text))
        .collect()
}

/// The example's pods but two, as the store a server restarted empty is
/// filled again with: the objects gone and the resourceVersions smaller.
fn refill_all_but(server: &FakeApiServer, gone: &[&str]) -> usize {
    let mut count = 0;
    for object in example_objects() {
        if !gone.contains(&object["metadata"]["name"].as_str().unwrap_or_default()) {
            server.apply(object);
            count += 1;
        }
    }
    count
}

/// Issue 24: killed and restarted on an empty store — resourceVersions start
/// over and nothing answers 410. Before, the exporter resumed every watch from
/// its old version and kept serving the findings of objects that no longer
/// existed, for as long as it ran. After an outage it now lists again, once
/// per resource, and says so once per resource each way.
#[tokio::test(flavor = "multi_thread")]
async fn api_server_restarted_on_an_empty_store() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.converges("before the restart").await;
    let before = s.expected().await.len();
    s.server.pause().await;
    s.server.reset_store();
    refill_all_but(&s.server, &["cam1-78b6fc6bc8-cjsw5", "zookeeper-0"]);
    s.wait_for(
        "every watch to have lost the API server, and the page to say so",
        async |s| {
            logged(s, "WARN", "lost the API server").len() == LISTS.len()
                && s.exporter.get("/").await.1.contains("retrying since")
        },
    )
    .await;
    let (status, _) = s.exporter.get("/readyz").await;
    assert_eq!(status, 200, "the last known state is still served");
    s.server.resume().await;
    let took = s.converges_within("after the restart", RELIST_BOUND).await;
    assert!(
        s.expected().await.len() < before,
        "the restart removed findings"
    );
    eprintln!("converged {took:?} after the server came back");
    // One warning per resource when it lost the server, one info line with
    // the outage's length when it was back; nothing per retry, and none of
    // the client library's own ERROR lines.
    let lost = logged(&s, "WARN", "lost the API server");
    assert_eq!(lost.len(), LISTS.len(), "{lost:#?}");
    assert!(
        logged(&s, "ERROR", "").is_empty(),
        "{:#?}",
        logged(&s, "ERROR", "")
    );
    // The findings converge once the resources they depend on are back; the
    // others follow within the bound (their backoff).
    let start = Instant::now();
    while logged(&s, "INFO", "the API server is back after").len() < LISTS.len()
        && start.elapsed() < RELIST_BOUND
    {
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let back = logged(&s, "INFO", "the API server is back after");
    assert_eq!(back.len(), LISTS.len(), "{back:#?}");
    assert!(
        back.iter().all(|l| l.contains("outage_seconds")),
        "{back:#?}"
    );
    let (_, page) = s.exporter.get("/").await;
    assert!(
        page.contains("connected") && !page.contains("retrying since"),
        "{page}"
    );
    let contact = s
        .metric_sum(
            "kube_lifecycle_watch_last_contact_timestamp_seconds",
            &[("resource", "pods")],
        )
        .await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        (now - contact).abs() < 15.0,
        "last contact {contact}, now {now}"
    );
}

/// Issue 24: the server starts over without the clients seeing an outage (its
/// watches end as at a graceful shutdown): a watch resumed from a version the
/// server has not reached gets upstream's "Too large resource version" (504,
/// cause ResourceVersionTooLarge) and lists again, as client-go's reflector does.
#[tokio::test(flavor = "multi_thread")]
async fn a_watch_from_a_resource_version_the_server_has_not_reached() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.converges("before").await;
    s.server.reset_store();
    refill_all_but(&s.server, &["cam1-78b6fc6bc8-cjsw5", "zookeeper-0"]);
    s.converges_within("after the store started over", RELIST_BOUND)
        .await;
    s.wait_metric(
        "too large counted",
        "kube_lifecycle_watch_errors_total",
        &[("resource", "pods"), ("reason", "too_large")],
        1.0,
    )
    .await;
    assert!(
        !logged(&s, "INFO", "behind this watch's resourceVersion").is_empty(),
        "{:#?}",
        s.exporter.logs()
    );
    assert!(logged(&s, "WARN", "lost the API server").is_empty());
}

/// Issue 24: a server that loses events (a compaction that dropped the
/// deletions) says nothing a watch could notice; `--relist-interval` lists
/// again on a schedule, the safety net for such servers.
#[tokio::test(flavor = "multi_thread")]
async fn objects_dropped_without_events_are_found_by_the_relist_interval() {
    let mut s = Scenario::start(&["--relist-interval", "5s"]).await;
    s.exporter.wait_ready().await;
    s.converges("before").await;
    let before = s.expected().await.len();
    assert!(
        s.server
            .lose_object("v1", "Pod", Some("cam"), "cam1-78b6fc6bc8-cjsw5")
    );
    assert!(
        s.server
            .lose_object("v1", "Pod", Some("middleware"), "zookeeper-0")
    );
    s.server.compact();
    assert!(s.expected().await.len() < before);
    s.converges_within("after the lost deletions", RELIST_BOUND)
        .await;
}

/// Issue 24: a server that starts over and keeps no history answers neither
/// 410 nor "too large": the watch resumed from the old version is simply
/// served from now. The first event after it carries a resourceVersion below
/// the one the watch resumed from, which only a server that started over
/// sends; the exporter lists again then. Bound: the first change after the
/// restart, plus RELIST_BOUND.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_history_that_starts_over_is_found_by_its_versions() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.converges("before").await;
    s.server.set_fault("pods", Fault::NoHistory);
    s.server.clear_requests();
    s.server.reset_store();
    let gone = ["cam1-78b6fc6bc8-cjsw5", "zookeeper-0"];
    refill_all_but(&s.server, &gone);
    // The pods watch resumes (from now, on this server) before anything changes.
    s.wait_for_watch_request("pods").await;
    let mut touched = example_objects()
        .into_iter()
        .find(|o| o["kind"] == "Pod" && !gone.contains(&o["metadata"]["name"].as_str().unwrap()))
        .expect("the example has pods");
    touched["metadata"]["labels"]["touched"] = serde_json::json!("yes");
    s.server.apply(touched);
    s.converges_within("after the first change on the new store", RELIST_BOUND)
        .await;
}
