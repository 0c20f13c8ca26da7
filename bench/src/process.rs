//! The exporter as a child process, measured through `/proc`.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fake_apiserver::FakeApiServer;
use tempfile::TempDir;

pub struct ExporterProcess {
    child: Child,
    base: String,
    http: reqwest::Client,
    /// The kubeconfig the exporter was started with, removed with it.
    _kubeconfig: TempDir,
}

impl ExporterProcess {
    /// Starts `binary` watching `server`, through a kubeconfig of its own.
    pub fn against(binary: &Path, server: &FakeApiServer) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let kubeconfig = dir.path().join("kubeconfig");
        server.write_kubeconfig(&kubeconfig)?;
        let mut child = Command::new(binary)
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--log-format",
                "json",
                "--kubeconfig",
            ])
            .arg(&kubeconfig)
            .env_remove("RUST_LOG")
            // glibc's defaults, as in the container image.
            .env_remove("GLIBC_TUNABLES")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let stderr = child.stderr.take().context("the exporter's stderr")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) {
                    if v["message"] == "serving /metrics" {
                        if let Some(address) = v["address"].as_str() {
                            let _ = tx.send(address.to_string());
                        }
                    } else if v["level"] == "WARN" || v["level"] == "ERROR" {
                        eprintln!("exporter: {line}");
                    }
                }
            }
        });
        let address = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(address) => address,
            Err(_) => {
                let _ = child.kill();
                bail!("the exporter did not say where it listens within 60 s");
            }
        };
        Ok(ExporterProcess {
            child,
            base: format!("http://{address}"),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(120))
                .build()?,
            _kubeconfig: dir,
        })
    }

    /// `http://address` the exporter listens on.
    pub fn base(&self) -> &str {
        &self.base
    }

    pub async fn get(&self, path: &str) -> Result<String> {
        let response = self.http.get(format!("{}{path}", self.base)).send().await?;
        Ok(response.error_for_status()?.text().await?)
    }

    /// The body's size as sent, asking for gzip as Prometheus does, and
    /// whether it came compressed.
    pub async fn get_gzip_size(&self, path: &str) -> Result<(usize, bool)> {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .header("Accept-Encoding", "gzip")
            .header(
                "Accept",
                "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
            )
            .send()
            .await?
            .error_for_status()?;
        let gzip = response
            .headers()
            .get("content-encoding")
            .is_some_and(|v| v.as_bytes() == b"gzip");
        Ok((response.bytes().await?.len(), gzip))
    }

    pub async fn wait_ready(&self, timeout: Duration) -> Result<()> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if let Ok(response) = self.http.get(format!("{}/readyz", self.base)).send().await
                && response.status().is_success()
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        bail!("not ready after {timeout:?}")
    }

    fn status_field(&self, field: &str) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let line = status
            .lines()
            .find(|l| l.starts_with(field))
            .with_context(|| format!("{field} in /proc/PID/status"))?;
        let kib: u64 = line
            .split_whitespace()
            .nth(1)
            .context("a number")?
            .parse()?;
        Ok(kib * 1024)
    }

    pub fn rss(&self) -> Result<u64> {
        self.status_field("VmRSS:")
    }

    pub fn peak_rss(&self) -> Result<u64> {
        self.status_field("VmHWM:")
    }

    /// Brings the peak resident set (`VmHWM`) down to the current one, so the
    /// next peak read is that of what follows (Linux `clear_refs`, value 5).
    pub fn reset_peak_rss(&self) -> Result<()> {
        std::fs::write(format!("/proc/{}/clear_refs", self.child.id()), "5")
            .context("resetting the peak resident set through /proc/PID/clear_refs")
    }

    /// User plus system CPU time so far.
    pub fn cpu_seconds(&self) -> Result<f64> {
        cpu_seconds_of(&self.child.id().to_string())
    }
}

impl Drop for ExporterProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// User plus system CPU time so far of this process (the benchmark, with the
/// fake API server it runs).
pub fn own_cpu_seconds() -> Result<f64> {
    cpu_seconds_of("self")
}

/// User plus system CPU time so far of the process `/proc/{pid}` names.
fn cpu_seconds_of(pid: &str) -> Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the parenthesised command name; utime and stime are 14 and 15.
    let rest = stat.rsplit_once(')').context("/proc/PID/stat")?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>()? + fields[12].parse::<u64>()?;
    let per_second = 100.0; // USER_HZ on Linux
    Ok(ticks as f64 / per_second)
}
