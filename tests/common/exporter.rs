//! Runs the real exporter binary for integration tests and reads what it serves.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_kube-lifecycle-exporter");

/// A running exporter.
pub struct Exporter {
    child: Option<Child>,
    pub base: String,
    logs: Arc<Mutex<Vec<String>>>,
    http: reqwest::Client,
}

impl Exporter {
    /// Starts `kube-lifecycle-exporter serve` with `args`, listening on a free
    /// port, and waits until it says where it listens.
    pub fn start(args: &[&str]) -> Exporter {
        let mut child = Command::new(BIN)
            .arg("serve")
            .args([
                "--listen",
                "127.0.0.1:0",
                "--log-format",
                "json",
                "--log-level",
                "debug",
            ])
            .args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the exporter starts");
        let stderr = child.stderr.take().unwrap();
        let logs = Arc::new(Mutex::new(Vec::new()));
        let (address_tx, address_rx) = std::sync::mpsc::channel();
        let sink = logs.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line)
                    && v["message"] == "serving /metrics"
                    && let Some(address) = v["address"].as_str()
                {
                    let _ = address_tx.send(address.to_string());
                }
                sink.lock().unwrap().push(line);
            }
        });
        let address = match address_rx.recv_timeout(Duration::from_secs(30)) {
            Ok(a) => a,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "the exporter did not start; logs:\n{}",
                    logs.lock().unwrap().join("\n")
                );
            }
        };
        Exporter {
            child: Some(child),
            base: format!("http://{address}"),
            logs,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(20))
                .build()
                .unwrap(),
        }
    }

    /// Watches the fake API server behind `kubeconfig`.
    pub fn watching(kubeconfig: &Path, extra: &[&str]) -> Exporter {
        let mut args = vec!["--kubeconfig", kubeconfig.to_str().unwrap()];
        args.extend_from_slice(extra);
        Exporter::start(&args)
    }

    pub async fn get(&self, path: &str) -> (u16, String) {
        self.get_with(path, None).await
    }

    pub async fn get_with(&self, path: &str, accept: Option<&str>) -> (u16, String) {
        let mut request = self.http.get(format!("{}{path}", self.base));
        if let Some(accept) = accept {
            request = request.header("Accept", accept);
        }
        let response = request
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    }

    pub async fn metrics(&self) -> String {
        self.get("/metrics").await.1
    }

    /// Polls /metrics until `predicate` holds; fails with the last text and the logs.
    pub async fn wait_for_metrics(&self, what: &str, predicate: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = self.metrics().await;
            if predicate(&text) {
                return text;
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out waiting for {what}\n--- /metrics ---\n{text}\n--- logs ---\n{}",
                    self.logs().join("\n")
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub async fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (status, body) = self.get("/readyz").await;
            if status == 200 {
                return;
            }
            if Instant::now() > deadline {
                panic!("never ready: {body}\n{}", self.logs().join("\n"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub fn logs(&self) -> Vec<String> {
        self.logs.lock().unwrap().clone()
    }

    /// Sends SIGTERM and waits for the exit.
    pub fn terminate(mut self) -> ExitStatus {
        let mut child = self.child.take().unwrap();
        let pid = child.id().to_string();
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs");
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("the exporter did not stop on SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| c.try_wait().unwrap().is_none())
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Samples of `name` whose labels include every `(key, value)`.
pub fn samples(metrics: &str, name: &str, labels: &[(&str, &str)]) -> Vec<f64> {
    metrics
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let metric = series.split('{').next()?;
            if metric != name {
                return None;
            }
            let all = labels
                .iter()
                .all(|(k, v)| series.contains(&format!("{k}=\"{v}\"")));
            all.then(|| value.parse().ok()).flatten()
        })
        .collect()
}

pub fn has(metrics: &str, name: &str, labels: &[(&str, &str)]) -> bool {
    !samples(metrics, name, labels).is_empty()
}

// The embedded example's count of findings and its objects, which most
// tests of a running exporter start from (not every test binary uses them).
#[allow(unused_imports)]
pub use super::example::{findings as example_findings, objects as example_objects};
