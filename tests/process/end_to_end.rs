//! End to end: the fake API server holds the incidents of `examples/incidents.yaml`
//! plus a registry outage, a healthy pod and a pod within its grace period; the real
//! exporter watches it; real Prometheus (Debian package `prometheus`) scrapes it and
//! evaluates the shipped rules; real Alertmanager (`prometheus-alertmanager`) runs
//! the shipped example configuration and notifies a webhook receiver owned by the
//! test. Then the scenario heals and every alert must resolve.
//!
//! The test-only rewrite, applied to the shipped files and nothing else:
//! - rules: every `for:` in minutes becomes the same number of seconds;
//! - Alertmanager: webhook URLs point at the test's receiver, `group_wait` and
//!   `group_interval` become 1s.

use crate::common;
use kube_lifecycle_exporter::model::Time;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use common::alerting::{
    Received, alertmanager, alertmanager_config, shortened_rules, start_receiver, wait_settled,
};
use common::daemons::{prometheus_query, wait_until};
use common::example::ExpectedAlert;
use common::exporter::{Exporter, example_objects};
use fake_apiserver::FakeApiServer;
use serde_json::{Value, json};

const RUNBOOK_BASE: &str = "https://kube-lifecycle-exporter.example/runbooks";
const REGISTRY: &str = "harbor.e2e.internal";
/// The admission webhook whose outage examples/incidents.yaml stages.
const WEBHOOK: &str = "namespace.sidecar-injector.istio.io";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every alert the receiver got, with the route it came by.
fn delivered(received: &Received) -> Vec<(String, Value)> {
    received
        .lock()
        .unwrap()
        .iter()
        .flat_map(|n| n.alerts.iter().map(|a| (n.severity.clone(), a.clone())))
        .collect()
}

fn rfc3339(offset_seconds: i64) -> String {
    Time::now()
        .checked_add(jiff::SignedDuration::from_secs(offset_seconds))
        .unwrap()
        .to_string()
}

fn running_pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "creationTimestamp": rfc3339(-3600)},
        "spec": {"nodeName": "node1", "containers": [{"name": "app", "image": "nginx:1.27"}]},
        "status": {"phase": "Running",
            "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}],
            "containerStatuses": [{"name": "app", "image": "nginx:1.27", "ready": true, "restartCount": 0,
                "state": {"running": {"startedAt": rfc3339(-3500)}}}]}})
}

/// Deleted a minute ago with a 10-minute grace period: Terminating, and normal.
fn graceful_pod() -> Value {
    let mut pod = running_pod("draining-web");
    pod["metadata"]["deletionTimestamp"] = json!(rfc3339(540));
    pod["metadata"]["deletionGracePeriodSeconds"] = json!(600);
    pod
}

/// A pull the registry refuses for lack of credentials: in two namespaces and
/// three images, the registry's authentication is what fails.
fn unauthorized_pull(namespace: &str, name: &str) -> Value {
    let image = format!("{REGISTRY}/{namespace}/{name}:1.0");
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "creationTimestamp": rfc3339(-1800)},
        "spec": {"nodeName": "node1", "containers": [{"name": "app", "image": image}]},
        "status": {"phase": "Pending",
            "conditions": [{"type": "PodScheduled", "status": "True"}],
            "containerStatuses": [{"name": "app", "image": image, "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": "ErrImagePull", "message": format!(
                    "failed to pull and unpack image \"{image}\": failed to resolve reference \"{image}\": \
                     pull access denied, repository does not exist or may require authorization: \
                     server message: insufficient_scope: authorization failed")}}}]}})
}

fn identity(object: &Value) -> (String, String, Option<String>, String) {
    (
        object["apiVersion"].as_str().unwrap().to_string(),
        object["kind"].as_str().unwrap().to_string(),
        object["metadata"]["namespace"].as_str().map(String::from),
        object["metadata"]["name"].as_str().unwrap().to_string(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn alerts_reach_alertmanager_with_runbooks_and_resolve_and_dashboards_evaluate() {
    let dir = tempfile::tempdir().unwrap();

    // The cluster.
    let server = FakeApiServer::start().await.unwrap();
    let incidents: Vec<Value> = example_objects()
        .into_iter()
        .chain(
            [
                ("shop", "checkout-1"),
                ("billing", "checkout-2"),
                ("billing", "checkout-3"),
            ]
            .into_iter()
            .map(|(namespace, name)| unauthorized_pull(namespace, name)),
        )
        .collect();
    for object in &incidents {
        server.apply(object.clone());
    }
    server.apply(running_pod("healthy-web"));
    server.apply(graceful_pod());
    let kubeconfig = dir.path().join("kubeconfig");
    server.write_kubeconfig(&kubeconfig).unwrap();

    // The exporter; the example's events are years old, keep them.
    let exporter = Exporter::watching(&kubeconfig, &["--event-max-age", "1000000h"]);
    exporter.wait_ready().await;
    let exporter_address = exporter.base.trim_start_matches("http://").to_string();

    // The receiver and Alertmanager.
    let (receiver, received) = start_receiver().await;
    let (alertmanager, am_port) = alertmanager(dir.path(), &alertmanager_config(&receiver, None));

    // Prometheus, scraping the exporter every second under the job name the
    // ServiceMonitor gives it, honouring the objects' namespace labels.
    std::fs::write(dir.path().join("rules.yaml"), shortened_rules()).unwrap();
    let prometheus_config = format!(
        "global: {{scrape_interval: 1s, evaluation_interval: 1s}}\n\
         rule_files: [{rules}]\n\
         alerting:\n  alertmanagers: [{{static_configs: [{{targets: ['127.0.0.1:{am_port}']}}]}}]\n\
         scrape_configs:\n  - job_name: kube-lifecycle-exporter\n    honor_labels: true\n    \
         static_configs: [{{targets: ['{exporter_address}']}}]\n",
        rules = dir.path().join("rules.yaml").display()
    );
    let (prometheus, prom) = common::daemons::prometheus(dir.path(), &prometheus_config);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let diagnostics = || {
        format!(
            "{}\n{}\nreceived: {:#?}",
            prometheus.log(),
            alertmanager.log(),
            received.lock().unwrap()
        )
    };

    // Every alert the incidents call for (the example's header names each, by
    // its identifying labels), and the registry's pulls added here; what the
    // inhibition rules must keep quiet is checked below.
    let mut expected = common::example::expected().alerts;
    expected.push(ExpectedAlert {
        name: "KubeLifecycleRegistryPullFailing".to_string(),
        labels: vec![("registry".to_string(), REGISTRY.to_string())],
    });

    // 1. The expected alerts arrive, firing, each with its runbook.
    wait_until(
        "every expected alert at the receiver",
        Duration::from_secs(120),
        &diagnostics,
        || {
            let got = delivered(&received);
            expected
                .iter()
                .all(|e| {
                    got.iter()
                        .any(|(_, a)| a["status"] == "firing" && e.matches(a))
                })
                .then_some(())
        },
    )
    .await;
    // Judge silence only once nothing more is on its way: no alert pending,
    // every firing one notified or suppressed.
    wait_settled(
        &http,
        Some(&prom),
        &format!("http://127.0.0.1:{am_port}"),
        &received,
        Duration::from_secs(120),
        &diagnostics,
    )
    .await;
    {
        let got = delivered(&received);
        for (route, alert) in got.iter() {
            let name = alert["labels"]["alertname"].as_str().unwrap();
            assert_eq!(
                alert["labels"]["severity"].as_str(),
                Some(route.as_str()),
                "{name} routed by severity"
            );
            let url = alert["annotations"]["runbook_url"]
                .as_str()
                .unwrap_or_default();
            assert_eq!(
                url,
                format!("{RUNBOOK_BASE}/{}", name.to_lowercase()),
                "{name}"
            );
            let slug = url.rsplit('/').next().unwrap();
            let runbook = kube_lifecycle_exporter::diagnosis::runbook::Runbook::from_slug(slug)
                .unwrap_or_else(|| panic!("{url} names no runbook"));
            assert!(root().join(runbook.path()).exists(), "{url}");
            assert!(
                alert["annotations"]["description"]
                    .as_str()
                    .is_some_and(|d| !d.is_empty())
            );
            // Healthy and graceful objects raise nothing.
            for quiet in ["healthy-web", "draining-web"] {
                assert_ne!(alert["labels"]["pod"], quiet, "{alert:#}");
            }
            // Inhibited: the lost node's pods and the Recreate Deployment waiting on
            // one of them, and the failing registry's pods.
            assert!(
                !(name.starts_with("KubeLifecyclePodTerminating")
                    || name == "KubeLifecycleDeploymentRecreateBlocked"
                    || name == "KubeLifecycleJobBlockedByTerminating")
                    || alert["labels"]["node"] != "ucloud-node-7",
                "inhibited by KubeLifecycleNodeLost: {alert:#}"
            );
            assert!(
                !(name.starts_with("KubeLifecycleImagePull")
                    && alert["labels"]["registry"] == REGISTRY),
                "inhibited by KubeLifecycleRegistryPullFailing: {alert:#}"
            );
            assert!(
                alert["labels"]["owner_name"] != "gui-5cd74fc875"
                    || name == "KubeLifecycleDeploymentRolloutStuck",
                "inhibited by KubeLifecycleDeploymentRolloutStuck: {alert:#}"
            );
            assert!(
                !(name == "KubeLifecyclePodCreateRefused" && alert["labels"]["webhook"] == WEBHOOK),
                "inhibited by KubeLifecycleAdmissionWebhookUnreachable: {alert:#}"
            );
            assert!(
                !name.starts_with("KubeLifecycleExporter")
                    && !name.starts_with("KubeLifecycleWatch"),
                "the exporter is healthy: {alert:#}"
            );
        }
        let fired: BTreeSet<String> = got
            .iter()
            .map(|(_, a)| a["labels"]["alertname"].as_str().unwrap().to_string())
            .collect();
        let wanted: BTreeSet<String> = expected.iter().map(|e| e.name.clone()).collect();
        assert_eq!(fired, wanted, "only the expected alerts are delivered");
    }
    // Prometheus itself has the inhibited alerts firing: inhibition is Alertmanager's doing.
    let firing = prometheus_query(&http, &prom, "ALERTS{alertstate=\"firing\"}").await;
    let firing_names: BTreeSet<&str> = firing["data"]["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["metric"]["alertname"].as_str())
        .collect();
    for inhibited in [
        "KubeLifecyclePodTerminatingNodeLost",
        "KubeLifecycleDeploymentRecreateBlocked",
        "KubeLifecycleJobBlockedByTerminating",
        "KubeLifecycleCronJobNotRunning",
    ] {
        assert!(firing_names.contains(inhibited), "{firing_names:?}");
    }
    let refused_by_webhook = firing["data"]["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            s["metric"]["alertname"] == "KubeLifecyclePodCreateRefused"
                && s["metric"]["webhook"] == WEBHOOK
        })
        .count();
    assert_eq!(refused_by_webhook, 2, "{firing:#}");
    assert!(
        firing_names.contains("KubeLifecycleImagePullNotFound")
            || firing_names.contains("KubeLifecycleImagePullUnauthorized"),
        "{firing_names:?}"
    );

    // 2. Every dashboard query evaluates without error against this Prometheus, and
    // every seeded anomaly family shows on some panel.
    let mut families_with_data = BTreeSet::new();
    for query in common::dashboards::queries() {
        let answer = prometheus_query(&http, &prom, &query.expr).await;
        assert_eq!(
            answer["status"], "success",
            "{} / {}: {}\n{answer:#}",
            query.dashboard, query.panel, query.expr
        );
        let has_data = answer["data"]["result"]
            .as_array()
            .is_some_and(|r| !r.is_empty());
        if has_data {
            for family in SEEDED_FAMILIES {
                if query.expr.contains(family) {
                    families_with_data.insert(*family);
                }
            }
        }
    }
    let missing: Vec<_> = SEEDED_FAMILIES
        .iter()
        .filter(|f| !families_with_data.contains(*f))
        .collect();
    assert!(
        missing.is_empty(),
        "no dashboard panel shows data for {missing:?}"
    );

    // 3. The scenario heals: every incident object is deleted; every alert resolves.
    let fired: Vec<Value> = delivered(&received).into_iter().map(|(_, a)| a).collect();
    for object in &incidents {
        let (api_version, kind, namespace, name) = identity(object);
        if kind != "Node" {
            server.delete(&api_version, &kind, namespace.as_deref(), &name);
        }
    }
    wait_until(
        "every delivered alert resolved",
        Duration::from_secs(120),
        &diagnostics,
        || {
            let got = delivered(&received);
            fired
                .iter()
                .all(|f| {
                    got.iter()
                        .any(|(_, a)| a["status"] == "resolved" && a["labels"] == f["labels"])
                })
                .then_some(())
        },
    )
    .await;
    exporter.terminate();
}

/// A metric of each anomaly family the scenario seeds.
const SEEDED_FAMILIES: &[&str] = &[
    "kube_lifecycle_pod_terminating_since_timestamp_seconds",
    "kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds",
    "kube_lifecycle_statefulset_blocked_since_timestamp_seconds",
    "kube_lifecycle_namespace_terminating_since_timestamp_seconds",
    "kube_lifecycle_pod_pending_since_timestamp_seconds",
    "kube_lifecycle_pod_container_creating_since_timestamp_seconds",
    "kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds",
    "kube_lifecycle_container_crash_looping_since_timestamp_seconds",
    "kube_lifecycle_container_config_error_since_timestamp_seconds",
    "kube_lifecycle_daemonset_unscheduled_nodes",
    "kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds",
    "kube_lifecycle_workload_pod_create_refused_missing_pods",
    "kube_lifecycle_cronjob_not_running_since_timestamp_seconds",
    "kube_lifecycle_claim_stuck_since_timestamp_seconds",
];
