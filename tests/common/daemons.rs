//! Real daemons the end-to-end tests run (Prometheus, Alertmanager from the
//! Debian packages scripts/test installs), and waiting on them.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process killed when the test ends, whatever the outcome.
pub struct Daemon {
    name: &'static str,
    child: Child,
    log: PathBuf,
}

impl Daemon {
    pub fn spawn(name: &'static str, program: &str, args: &[String], dir: &Path) -> Daemon {
        let log = dir.join(format!("{name}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{program} is needed ({e}); scripts/test installs it (apt-get install prometheus prometheus-alertmanager)")
            });
        Daemon { name, child, log }
    }

    pub fn log(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        format!(
            "--- {} log (last lines) ---\n{}",
            self.name,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `check` to give a value, or fails with `diagnostics()`.
pub async fn wait_until<T>(
    what: &str,
    timeout: Duration,
    diagnostics: impl Fn() -> String,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    wait_until_async(what, timeout, diagnostics, async || check()).await
}

/// [`wait_until`] for a check that has to await (an HTTP request).
pub async fn wait_until_async<T>(
    what: &str,
    timeout: Duration,
    diagnostics: impl Fn() -> String,
    mut check: impl AsyncFnMut() -> Option<T>,
) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = check().await {
            return value;
        }
        if start.elapsed() > timeout {
            panic!("timed out waiting for {what}\n{}", diagnostics());
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

pub async fn prometheus_query(http: &reqwest::Client, base: &str, query: &str) -> Value {
    http.get(format!("{base}/api/v1/query"))
        .query(&[("query", query)])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Starts Prometheus with `config` (YAML) in `dir`; returns it and its base URL.
pub fn prometheus(dir: &Path, config: &str) -> (Daemon, String) {
    let port = free_port();
    let config_path = dir.join("prometheus.yaml");
    std::fs::write(&config_path, config).unwrap();
    let daemon = Daemon::spawn(
        "prometheus",
        "prometheus",
        &[
            format!("--config.file={}", config_path.display()),
            format!("--storage.tsdb.path={}", dir.join("prom-data").display()),
            format!("--web.listen-address=127.0.0.1:{port}"),
        ],
        dir,
    );
    (daemon, format!("http://127.0.0.1:{port}"))
}
