//! What the end-to-end tests of the rule pack share: the test-only rewrite of the
//! shipped rules and Alertmanager configuration (alerts/README.md), a webhook
//! receiver that records every notification, and a real Alertmanager.

#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use serde_json::Value;

use super::daemons::{Daemon, free_port};
use super::exporter::samples;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The shipped rules with every `for` and `keep_firing_for` in minutes read as
/// seconds.
pub fn shortened_rules() -> String {
    let text = std::fs::read_to_string(root().join("alerts/kube-lifecycle.rules.yaml")).unwrap();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        match ["for: ", "keep_firing_for: "]
            .iter()
            .find_map(|key| trimmed.strip_prefix(key).map(|v| (key, v)))
        {
            Some((key, value)) if value.ends_with('m') => {
                out.push_str(&format!("{indent}{key}{}s", value.trim_end_matches('m')))
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    assert!(out.contains("keep_firing_for: 5s") && out.contains("for: 10s"));
    out
}

/// The shipped Alertmanager configuration, plus the inhibit rules of `extra` (a
/// YAML document with `inhibit_rules:`), with the receivers pointing at
/// `receiver` and 1s grouping.
pub fn alertmanager_config(receiver: &str, extra: Option<&str>) -> String {
    let text = std::fs::read_to_string(root().join("alerts/alertmanager.yaml")).unwrap();
    let mut config: Value = serde_saphyr::from_str(
        &text
            .replace("http://alert-receiver.example", receiver)
            .replace("group_wait: 30s", "group_wait: 1s")
            .replace("group_interval: 5m", "group_interval: 1s"),
    )
    .unwrap();
    assert_eq!(config["route"]["group_wait"], "1s");
    if let Some(extra) = extra {
        let extra: Value = serde_saphyr::from_str(extra).unwrap();
        let rules = config["inhibit_rules"].as_array_mut().unwrap();
        rules.extend(extra["inhibit_rules"].as_array().unwrap().iter().cloned());
    }
    // JSON is YAML.
    serde_json::to_string_pretty(&config).unwrap()
}

/// One webhook notification: the route it came by (`critical`, `warning`,
/// `info`), its status and its alerts (status, labels, annotations).
#[derive(Debug, Clone)]
pub struct Notification {
    pub severity: String,
    pub status: String,
    pub alerts: Vec<Value>,
    /// The whole payload, as Alertmanager sent it (the data its templates read).
    pub body: Value,
}

impl Notification {
    /// The `cluster` label of its alerts (Alertmanager groups by it).
    pub fn cluster(&self) -> Option<&str> {
        self.alerts
            .first()
            .and_then(|a| a["labels"]["cluster"].as_str())
    }

    pub fn names(&self) -> Vec<String> {
        self.alerts
            .iter()
            .map(|a| {
                a["labels"]["alertname"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    }
}

pub type Received = Arc<Mutex<Vec<Notification>>>;

/// A webhook receiver on a free port: its base URL (routes `/<severity>`) and
/// what it received.
pub async fn start_receiver() -> (String, Received) {
    let received: Received = Arc::default();
    async fn hook(
        State(sink): State<Received>,
        axum::extract::Path(severity): axum::extract::Path<String>,
        Json(body): Json<Value>,
    ) -> &'static str {
        sink.lock().unwrap().push(Notification {
            severity,
            status: body["status"].as_str().unwrap_or("").to_string(),
            alerts: body["alerts"].as_array().cloned().unwrap_or_default(),
            body,
        });
        "ok"
    }
    let app = axum::Router::new()
        .route("/{severity}", post(hook))
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}"), received)
}

/// `template` (a name the notification templates of alerts/templates/
/// define) rendered by Alertmanager's own `amtool template render` for the
/// notification `data` (a webhook payload: the same data the templates read).
pub fn render_template(dir: &Path, template: &str, data: &Value) -> String {
    let file = dir.join(format!("notification-{}.json", free_port()));
    std::fs::write(&file, data.to_string()).unwrap();
    let output = std::process::Command::new("amtool")
        .arg("template")
        .arg("render")
        .arg(format!(
            "--template.glob={}",
            root().join("alerts/templates/*.tmpl").display()
        ))
        .arg(format!(
            "--template.text={{{{ template \"{template}\" . }}}}"
        ))
        .arg(format!("--template.data={}", file.display()))
        .output()
        .expect("amtool (Debian package prometheus-alertmanager; scripts/test installs it)");
    assert!(
        output.status.success(),
        "amtool template render {template}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Alertmanager (Debian package `prometheus-alertmanager`) with `config`, in
/// `dir`; returns it and its port.
pub fn alertmanager(dir: &Path, config: &str) -> (Daemon, u16) {
    let port = free_port();
    let path = dir.join("alertmanager.yaml");
    std::fs::write(&path, config).unwrap();
    let daemon = Daemon::spawn(
        "alertmanager",
        "prometheus-alertmanager",
        &[
            format!("--config.file={}", path.display()),
            format!("--storage.path={}", dir.join("am-data").display()),
            format!("--web.listen-address=127.0.0.1:{port}"),
            "--cluster.listen-address=".into(),
        ],
        dir,
    );
    (daemon, port)
}

/// Why the alerting pipeline has not settled yet, or `None` once it has: no
/// alert of Prometheus (`prometheus`, a base URL) is pending or only kept
/// firing by `keep_firing_for`, Alertmanager (`alertmanager`, a base URL)
/// holds every firing one, every alert Alertmanager holds is suppressed or
/// has reached the receiver, and no notification is in flight. From then on
/// nothing more is sent unless an alert changes state.
pub async fn unsettled(
    http: &reqwest::Client,
    prometheus: Option<&str>,
    alertmanager: &str,
    received: &Received,
) -> Option<String> {
    async fn get(http: &reqwest::Client, url: &str) -> Result<reqwest::Response, String> {
        http.get(url)
            .send()
            .await
            .and_then(|r| r.error_for_status())
            .map_err(|e| format!("GET {url}: {e}"))
    }
    async fn json(http: &reqwest::Client, url: &str) -> Result<Value, String> {
        get(http, url)
            .await?
            .json()
            .await
            .map_err(|e| format!("GET {url}: {e}"))
    }
    async fn check(
        http: &reqwest::Client,
        prometheus: Option<&str>,
        alertmanager: &str,
        received: &Received,
    ) -> Result<Option<String>, String> {
        let held = json(http, &format!("{alertmanager}/api/v2/alerts")).await?;
        let held = held.as_array().cloned().unwrap_or_default();
        if let Some(prometheus) = prometheus {
            let alerts = json(http, &format!("{prometheus}/api/v1/alerts")).await?;
            for alert in alerts["data"]["alerts"].as_array().into_iter().flatten() {
                if alert["state"] != "firing" {
                    return Ok(Some(format!(
                        "Prometheus has a {} alert: {alert}",
                        alert["state"]
                    )));
                }
                if alert.get("keepFiringSince").is_some_and(|v| !v.is_null()) {
                    return Ok(Some(format!("Prometheus keeps an alert firing: {alert}")));
                }
                if !held.iter().any(|a| a["labels"] == alert["labels"]) {
                    return Ok(Some(format!("Alertmanager lacks the firing {alert}")));
                }
            }
        }
        let notifications = received.lock().unwrap().clone();
        let delivered = |labels: &Value| {
            notifications
                .iter()
                .flat_map(|n| &n.alerts)
                .any(|a| &a["labels"] == labels && a["status"] == "firing")
        };
        // An alert routed only to the receiver with no integration (the one
        // that only inhibits) is never delivered: it is settled once held.
        let silent = |alert: &Value| {
            alert["receivers"]
                .as_array()
                .is_some_and(|r| !r.is_empty() && r.iter().all(|r| r["name"] == "null"))
        };
        for alert in &held {
            let state = &alert["status"]["state"];
            if state == "unprocessed"
                || (state == "active" && !silent(alert) && !delivered(&alert["labels"]))
            {
                return Ok(Some(format!("Alertmanager has not notified {alert}")));
            }
        }
        let metrics = get(http, &format!("{alertmanager}/metrics"))
            .await?
            .text()
            .await
            .map_err(|e| e.to_string())?;
        let sent: f64 = samples(
            &metrics,
            "alertmanager_notification_requests_total",
            &[("integration", "webhook")],
        )
        .iter()
        .sum();
        if sent != notifications.len() as f64 {
            return Ok(Some(format!(
                "Alertmanager made {sent} webhook requests, the receiver has {}",
                notifications.len()
            )));
        }
        Ok(None)
    }
    check(http, prometheus, alertmanager, received)
        .await
        .unwrap_or_else(Some)
}

/// Waits until [`unsettled`] says nothing, or fails after `timeout` with the
/// last reason and `diagnostics()`.
pub async fn wait_settled(
    http: &reqwest::Client,
    prometheus: Option<&str>,
    alertmanager: &str,
    received: &Received,
    timeout: Duration,
    diagnostics: impl Fn() -> String,
) {
    let start = Instant::now();
    while let Some(reason) = unsettled(http, prometheus, alertmanager, received).await {
        assert!(
            start.elapsed() < timeout,
            "timed out after {timeout:?} waiting for the alerting pipeline to settle: {reason}\n{}",
            diagnostics()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
