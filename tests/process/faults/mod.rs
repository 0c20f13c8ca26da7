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
use kube_lifecycle_exporter::model::Kind;
use serde_json::{Value, json};

mod outages;
mod relists;

/// How long after a fault ends the exporter must agree with the API again.
const BOUND: Duration = Duration::from_secs(45);

/// Each watched kind's list (path, apiVersion, kind), from the model's table
/// of kinds: warning events only, as the exporter watches them.
fn lists() -> Vec<(String, String, &'static str)> {
    Kind::ALL
        .iter()
        .map(|&kind| {
            let api_version = match kind.group() {
                "" => kind.version().to_string(),
                group => format!("{group}/{}", kind.version()),
            };
            let base = if kind.group().is_empty() {
                "/api".to_string()
            } else {
                "/apis/".to_string() + kind.group()
            };
            let mut path = format!("{base}/{}/{}", kind.version(), kind.plural());
            if kind == Kind::Event {
                path.push_str("?fieldSelector=type%3DWarning");
            }
            (path, api_version, kind.as_str())
        })
        .collect()
}

/// The plural of each watched resource, as the self-metrics label it.
fn resources() -> Vec<&'static str> {
    Kind::ALL.iter().map(|k| k.plural()).collect()
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
        for (path, api_version, kind) in lists() {
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
        let logs = || format!("logs:\n{}", self.exporter.logs().join("\n"));
        common::daemons::wait_until_async(what, BOUND, logs, async || {
            check(self).await.then_some(())
        })
        .await
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
