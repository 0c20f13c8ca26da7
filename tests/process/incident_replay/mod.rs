//! Incidents replayed as an on-call engineer lives them: each incident is a cluster
//! dump served by its own real exporter (`serve --from-file`), scraped by one real
//! Prometheus under its own `cluster` label and evaluated with the shipped rules;
//! one real Alertmanager with the shipped configuration notifies a receiver owned by
//! the test, which counts the notifications each incident causes, per severity.
//! In the middle of two incidents a scrape fails and the exporter restarts.
//!
//! The bar (alerts/README.md): exactly one page for a lost node, a failing registry
//! or an admission webhook outage, none for a node-local image problem or one
//! misconfigured pod, and no flap (nothing resolved, nothing sent again) across a
//! missed scrape or a restart.
//!
//! The test-only rewrite of the shipped files is alerts/README.md's: `for` and
//! `keep_firing_for` in minutes become seconds; the Alertmanager configuration's
//! webhook URLs point at the receiver and its group_wait/group_interval become 1s.
//!
//! A second test runs the kubernetes-mixin inhibitions in Alertmanager with the
//! mixin's real alert names and labels.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use common::alerting::{
    Notification, alertmanager, alertmanager_config, shortened_rules, start_receiver,
};
use common::daemons::{prometheus_query, wait_until, wait_until_async};
use common::exporter::Exporter;
use serde_json::{Value, json};

mod mixin_alerts;
mod mixin_silences;
mod pages;

use common::incidents::*;
use mixin_alerts::*;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scrape target in front of an exporter: it can fail scrapes (a missed scrape)
/// and be pointed at a new exporter (a restart).
#[derive(Clone, Default)]
struct Proxy {
    upstream: Arc<Mutex<Option<String>>>,
}

impl Proxy {
    async fn start() -> (Proxy, String) {
        let proxy = Proxy::default();
        async fn metrics(State(proxy): State<Proxy>) -> axum::response::Response {
            let Some(upstream) = proxy.upstream.lock().unwrap().clone() else {
                return (StatusCode::SERVICE_UNAVAILABLE, "no exporter").into_response();
            };
            match reqwest::get(format!("{upstream}/metrics")).await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    let content_type = response
                        .headers()
                        .get("content-type")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("text/plain")
                        .to_string();
                    let body = response.text().await.unwrap_or_default();
                    (
                        StatusCode::from_u16(status).unwrap(),
                        [("content-type", content_type)],
                        body,
                    )
                        .into_response()
                }
                Err(e) => (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
            }
        }
        let app = axum::Router::new()
            .route("/metrics", get(metrics))
            .with_state(proxy.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (proxy, address.to_string())
    }

    fn point_at(&self, upstream: Option<&str>) {
        *self.upstream.lock().unwrap() = upstream.map(String::from);
    }
}

/// Whether Prometheus' last scrape of each of `clusters` has `up` equal to `up`.
async fn scraped(http: &reqwest::Client, prometheus: &str, clusters: &[&str], up: f64) -> bool {
    let answer = prometheus_query(http, prometheus, "up").await;
    let series = answer["data"]["result"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    clusters.iter().all(|cluster| {
        series.iter().any(|s| {
            s["metric"]["cluster"] == *cluster
                && s["value"][1].as_str().and_then(|v| v.parse().ok()) == Some(up)
        })
    })
}

/// Whether Prometheus keeps an alert of one of `clusters` firing only by its
/// `keep_firing_for`, its expression not having held since.
async fn kept_firing(http: &reqwest::Client, prometheus: &str, clusters: &[&str]) -> bool {
    let alerts: Value = http
        .get(format!("{prometheus}/api/v1/alerts"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    alerts["data"]["alerts"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|a| {
            clusters.iter().any(|c| a["labels"]["cluster"] == *c)
                && a.get("keepFiringSince").is_some_and(|v| !v.is_null())
        })
}

/// The pages and tickets each incident must make, at most and at least.
struct Incident {
    name: &'static str,
    objects: fn() -> Vec<Value>,
    pages: usize,
    /// The one page's alert, when there is one.
    page: Option<&'static str>,
    /// (min, max) ticket notifications.
    tickets: (usize, usize),
    /// The one ticket's alert, when there is one.
    ticket: Option<&'static str>,
    /// A scrape fails, then the exporter restarts, after the first page.
    disturbed: bool,
    /// What the kubernetes-mixin fires for the same incident besides its
    /// alerts about the incident's objects (`kubernetes_mixin`, from the
    /// objects): alerts kube-state-metrics has no series for. Every incident is
    /// replayed a second time beside the mixin's alerts and must notify
    /// exactly as it does alone.
    extra_mixin: fn() -> Vec<Value>,
}

const INCIDENTS: &[Incident] = &[
    Incident {
        name: "node-lost",
        objects: node_lost,
        pages: 1,
        page: Some("KubeLifecycleNodeLost"),
        tickets: (0, 0),
        ticket: None,
        disturbed: true,
        extra_mixin: no_extra,
    },
    Incident {
        name: "registry-down",
        objects: registry_down,
        pages: 1,
        page: Some("KubeLifecycleRegistryPullFailing"),
        tickets: (0, 0),
        ticket: None,
        disturbed: true,
        extra_mixin: no_extra,
    },
    Incident {
        name: "node-image-store",
        objects: node_image_store_corrupt,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleImagePullNodeImageStore"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    Incident {
        name: "node-disk-full",
        objects: node_disk_full,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleImagePullNodeImageStore"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    // One page for the webhook; the four refused workloads' tickets are
    // inhibited by it, through a missed scrape and a restart.
    Incident {
        name: "webhook-outage",
        objects: webhook_outage,
        pages: 1,
        page: Some("KubeLifecycleAdmissionWebhookUnreachable"),
        tickets: (0, 0),
        ticket: None,
        disturbed: true,
        extra_mixin: no_extra,
    },
    Incident {
        name: "scheduler-typo",
        objects: scheduler_name_typo,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecyclePodSchedulerUnknown"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    // One node's network plugin: one ticket naming the node, not one per pod.
    Incident {
        name: "cni-one-node",
        objects: cni_down_on_one_node,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecyclePodSandboxFailingOnNode"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    // Every node's: one page, the per-node tickets inhibited by it.
    Incident {
        name: "cni-everywhere",
        objects: cni_down_everywhere,
        pages: 1,
        page: Some("KubeLifecyclePodSandboxFailing"),
        tickets: (0, 0),
        ticket: None,
        disturbed: true,
        extra_mixin: no_extra,
    },
    Incident {
        name: "init-stuck",
        objects: init_container_stuck,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleDeploymentRolloutStuck"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    Incident {
        name: "job-lost-node",
        objects: job_on_lost_node,
        pages: 1,
        page: Some("KubeLifecycleNodeLost"),
        tickets: (0, 0),
        ticket: None,
        disturbed: false,
        extra_mixin: no_extra,
    },
    // A rollout stuck on an image that does not exist: one ticket, the
    // Deployment's, naming the pods' cause; the pod's and the mixin's are
    // inhibited.
    Incident {
        name: "rollout-stuck",
        objects: rollout_stuck,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleDeploymentRolloutStuck"),
        disturbed: true,
        extra_mixin: no_extra,
    },
    Incident {
        name: "statefulset-update-stuck",
        objects: statefulset_update_stuck,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleStatefulSetUpdateStuck"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    Incident {
        name: "job-failed",
        objects: job_failed,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleJobFailed"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    // The scheduler down: one page; the mixin's alerts about the pods, the
    // Deployment and the StatefulSet it leaves waiting, and its own
    // cluster-less KubeSchedulerDown, are folded.
    Incident {
        name: "scheduler-down",
        objects: scheduler_down,
        pages: 1,
        page: Some("KubeLifecycleSchedulerNotScheduling"),
        tickets: (0, 0),
        ticket: None,
        disturbed: true,
        extra_mixin: scheduler_absent,
    },
    Incident {
        name: "nodes-under-pressure",
        objects: nodes_under_pressure,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleNodesUnderPressure"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    Incident {
        name: "quota-exceeded",
        objects: quota_exceeded,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecyclePodCreateQuotaExceeded"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    // An upgrade's drain held by a budget as large as its Deployment: a
    // ticket (alerts/README.md: a drain blocked during an upgrade).
    Incident {
        name: "drain-blocked",
        objects: drain_blocked_by_budget,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleNodeDrainBlocked"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    // A CronJob skipping its runs behind a Job whose pod no node has room
    // for: one ticket, the Job's verdict naming the pod's cause; the
    // CronJob's names that Job and is inhibited by it, as is the mixin's
    // KubeJobNotCompleted (the Job has been active 13 hours).
    Incident {
        name: "cronjob-blocked",
        objects: cronjob_blocked_by_stuck_job,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleJobNotCompleted"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    // A StatefulSet's claim names a storage class that does not exist: one
    // ticket, the claim's, the root cause of the pod and the StatefulSet;
    // the mixin's KubePodNotReady and KubeStatefulSetReplicasMismatch are
    // folded by KubeLifecycleExplainedByRootCause.
    Incident {
        name: "storage-class-missing",
        objects: storage_class_missing,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecyclePersistentVolumeClaimStuck"),
        disturbed: false,
        extra_mixin: no_extra,
    },
    Incident {
        name: "device-driver",
        objects: device_driver_missing,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecyclePodContainerCreatingStuck"),
        disturbed: false,
        extra_mixin: no_extra,
    },
];

struct Running {
    dump: std::path::PathBuf,
    proxy: Proxy,
    address: String,
    exporter: Option<Exporter>,
}

fn start_exporter(dump: &Path) -> Exporter {
    Exporter::start(&["--from-file", dump.to_str().unwrap()])
}
