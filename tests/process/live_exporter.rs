//! The real exporter binary against the in-repo fake API server, which speaks the
//! list/watch protocol (resourceVersion, bookmarks, 410 Gone, chunked watches).

use crate::common;

use std::path::PathBuf;

use common::exporter::{Exporter, example_objects, has, samples};
use fake_apiserver::{FakeApiServer, Fault};
use serde_json::{Value, json};

/// A fake API server holding `objects`, and a kubeconfig pointing at it.
async fn cluster(objects: Vec<Value>) -> (FakeApiServer, tempfile::TempDir, PathBuf) {
    let server = FakeApiServer::start()
        .await
        .expect("fake API server starts");
    for object in objects {
        server.apply(object);
    }
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    server.write_kubeconfig(&kubeconfig).unwrap();
    (server, dir, kubeconfig)
}

/// Example events are years old; keep them all.
const KEEP_EVENTS: [&str; 2] = ["--event-max-age", "1000000h"];

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/os": "linux"}},
           "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}})
}

fn pod(name: &str, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "shop", "creationTimestamp": "2024-06-01T10:00:00Z"},
           "spec": {"nodeName": node, "containers": [{"name": "app", "image": "nginx"}]},
           "status": {"phase": "Running", "conditions": [
               {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-06-01T10:00:01Z"},
               {"type": "Ready", "status": "True", "lastTransitionTime": "2024-06-01T10:00:09Z"}],
               "containerStatuses": [{"name": "app", "image": "nginx", "ready": true, "restartCount": 0,
                                      "state": {"running": {"startedAt": "2024-06-01T10:00:05Z"}}}]}})
}

/// A pod whose deletion was requested an hour ago and whose node is gone.
fn stuck_pod(name: &str) -> Value {
    let mut p = pod(name, "vanished-node");
    p["metadata"]["deletionTimestamp"] = json!("2020-01-01T00:00:30Z");
    p["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    p
}

#[tokio::test(flavor = "multi_thread")]
async fn every_anomaly_family_of_the_example_appears_then_vanishes_when_healed() {
    let objects = example_objects();
    let (server, _dir, kubeconfig) = cluster(objects.clone()).await;
    let exporter = Exporter::watching(&kubeconfig, &KEEP_EVENTS);
    exporter.wait_ready().await;
    let metrics = exporter
        .wait_for_metrics("all example findings", |m| {
            samples(m, "kube_lifecycle_findings", &[])
                .iter()
                .sum::<f64>()
                >= 37.0
        })
        .await;
    for (family, labels) in [
        (
            "kube_lifecycle_pod_terminating_since_timestamp_seconds",
            vec![("pod", "zookeeper-0"), ("cause", "containers_running")],
        ),
        (
            "kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds",
            vec![
                ("deployment", "crontab-runner"),
                ("cause", "node_not_ready"),
            ],
        ),
        (
            "kube_lifecycle_statefulset_blocked_since_timestamp_seconds",
            vec![("statefulset", "zookeeper")],
        ),
        (
            "kube_lifecycle_namespace_terminating_since_timestamp_seconds",
            vec![
                ("namespace", "legacy-app"),
                ("cause", "finalizers_remaining"),
            ],
        ),
        (
            "kube_lifecycle_pod_pending_since_timestamp_seconds",
            vec![("pod", "cpu-hungry"), ("cause", "insufficient_cpu")],
        ),
        (
            "kube_lifecycle_pod_container_creating_since_timestamp_seconds",
            vec![
                ("pod", "dnsuutils-ds-7q6dr"),
                ("cause", "sandbox_image_pull"),
            ],
        ),
        (
            "kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds",
            vec![
                ("container", "filebeat"),
                ("cause", "qps_exceeded"),
                ("registry", "172.27.129.211:35000"),
            ],
        ),
        (
            "kube_lifecycle_container_crash_looping_since_timestamp_seconds",
            vec![("pod", "mypod"), ("cause", "oom_killed")],
        ),
        (
            "kube_lifecycle_container_config_error_since_timestamp_seconds",
            vec![("container", "predictor"), ("cause", "read_only_fs")],
        ),
        (
            "kube_lifecycle_daemonset_unscheduled_since_timestamp_seconds",
            vec![
                ("daemonset", "my-prom-prometheus-node-exporter"),
                ("cause", "host_port_conflict"),
            ],
        ),
        (
            "kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds",
            vec![
                ("owner_kind", "Job"),
                ("owner_name", "db-migrate"),
                ("cause", "service_account_missing"),
            ],
        ),
        (
            "kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds",
            vec![
                ("owner_name", "invoice-6d5f7c9b8"),
                ("deployment", "invoice"),
                ("quota", "billing-compute"),
            ],
        ),
        (
            "kube_lifecycle_deployment_rollout_stuck_since_timestamp_seconds",
            vec![
                ("deployment", "gui"),
                ("owner_name", "gui-5cd74fc875"),
                ("cause", "image_pull"),
                ("pod_cause", "not_found"),
            ],
        ),
        (
            "kube_lifecycle_job_failed_since_timestamp_seconds",
            vec![("job_name", "monthly-invoices"), ("cause", "oom_killed")],
        ),
        (
            "kube_lifecycle_pod_failed_since_timestamp_seconds",
            vec![("pod", "restore-orders-db"), ("cause", "exit_error")],
        ),
        (
            "kube_lifecycle_pod_resize_since_timestamp_seconds",
            vec![
                ("pod", "search-api-6f7d8c9b5-r2x4k"),
                ("resource", "memory"),
                ("cause", "infeasible"),
            ],
        ),
        (
            "kube_lifecycle_pod_pending_since_timestamp_seconds",
            vec![("pod", "trainer-0"), ("cause", "claims_pending")],
        ),
    ] {
        assert!(
            has(&metrics, family, &labels),
            "{family} {labels:?} missing:\n{metrics}"
        );
    }

    // Heal: the stuck pods go, the namespace finishes, images pull, the second DaemonSet is removed.
    for (api_version, kind, namespace, name) in [
        ("v1", "Pod", Some("middleware"), "zookeeper-0"),
        ("v1", "Pod", Some("cron"), "crontab-runner-7697bd68c9-qx7tm"),
        ("v1", "Pod", Some("cam"), "cam1-78b6fc6bc8-cjsw5"),
        ("v1", "Namespace", None, "legacy-app"),
        ("v1", "Namespace", None, "old-tenant"),
        ("v1", "Pod", Some("default"), "cpu-hungry"),
        (
            "v1",
            "Pod",
            Some("default"),
            "report-builder-5f7b9c6d4-2mzvq",
        ),
        (
            "v1",
            "Pod",
            Some("default"),
            "nightly-batch-7d8f9c5b6-h4j2k",
        ),
        ("v1", "Pod", Some("default"), "dnsuutils-ds-7q6dr"),
        ("v1", "Pod", Some("payments"), "checkout-6b8f9d7c5-x2k4p"),
        ("v1", "Pod", Some("orders"), "orders-api-7d4c9b8f6-5lq2w"),
        ("v1", "Pod", Some("ci"), "log-backfill-28617780-kq2zs"),
        ("v1", "Pod", Some("batch"), "nightly-export-8xq2d"),
        ("v1", "Pod", Some("fangrong"), "pms-558b58dfbd-fpjzl"),
        ("v1", "Pod", Some("default"), "mypod"),
        (
            "v1",
            "Pod",
            Some("default"),
            "ecsdemo-nodejs-6f8b9c7d5-k4m2p",
        ),
        ("v1", "Pod", Some("default"), "storefront-7c9d8b6f4-q8w2e"),
        (
            "v1",
            "Pod",
            Some("pgpool"),
            "treetracker-pgpool-598947fd8f-vzvkq",
        ),
        (
            "v1",
            "Pod",
            Some("prophet-resource-qa312"),
            "pas-7e9f06b0-6f42-4c40-b9a9-eb3471ee824b-predictor-7789d7bjqzdw",
        ),
        (
            "apps/v1",
            "DaemonSet",
            Some("monitoring"),
            "my-prom-prometheus-node-exporter",
        ),
        // The stuck rollout is rolled back (its new ReplicaSet's pod goes with
        // the Deployment's verdict), the failed Job and the failed pod deleted.
        ("v1", "Pod", Some("web"), "gui-5cd74fc875-7hx2m"),
        ("apps/v1", "Deployment", Some("web"), "gui"),
        ("batch/v1", "Job", Some("reports"), "monthly-invoices"),
        ("v1", "Pod", Some("ops"), "restore-orders-db"),
        // The device claim, the resize, the gate and the out-of-service node's
        // pod: each pod goes.
        ("v1", "Pod", Some("ml"), "trainer-0"),
        ("v1", "Pod", Some("web"), "search-api-6f7d8c9b5-r2x4k"),
        ("v1", "Pod", Some("team-a"), "sample-job-x7k2p-0-5tq8w"),
        ("v1", "Pod", Some("db"), "postgres-1"),
    ] {
        assert!(
            server.delete(api_version, kind, namespace, name).is_some(),
            "{kind} {name}"
        );
    }
    // The image pull heals by the container starting.
    let mut engine = objects
        .iter()
        .find(|o| o["metadata"]["name"] == "alert-engine-alert-engine-54fd454f64-clbd7")
        .unwrap()
        .clone();
    engine["status"]["containerStatuses"][2]["state"] =
        json!({"running": {"startedAt": "2024-06-01T10:00:00Z"}});
    engine["status"]["phase"] = json!("Running");
    // ... and the pod turning Ready (else it is a pod_not_ready finding).
    if let Some(conditions) = engine["status"]["conditions"].as_array_mut() {
        for c in conditions {
            if c["type"] == "Ready" || c["type"] == "ContainersReady" {
                c["status"] = json!("True");
            }
        }
    }
    for status in engine["status"]["containerStatuses"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        status["ready"] = json!(true);
    }
    server.apply(engine);
    // The refused controllers get their pods (the quota raised, the ServiceAccount
    // created, the Pod Security level fitted, the webhook back): their statuses
    // say so, the old refusal events stay.
    for (name, status) in [
        ("invoice-6d5f7c9b8", json!({"replicas": 3})),
        ("db-migrate", json!({"active": 1})),
        (
            "log-agent",
            json!({"desiredNumberScheduled": 7, "currentNumberScheduled": 7}),
        ),
        ("api-7b9c5d6f4", json!({"replicas": 2})),
        ("queue", json!({"replicas": 3})),
    ] {
        let mut healed = objects
            .iter()
            .find(|o| o["metadata"]["name"] == name && o["kind"] != "Event")
            .unwrap_or_else(|| panic!("{name}"))
            .clone();
        healed["status"] = status;
        server.apply(healed);
    }

    // Counters and findings are read in one scrape but not under one lock:
    // wait for both to have caught up with the heal.
    let terminated = |m: &str| -> f64 {
        samples(
            m,
            "kube_lifecycle_pod_terminating_duration_seconds_count",
            &[],
        )
        .iter()
        .sum()
    };
    let metrics = exporter
        .wait_for_metrics("every finding gone and every removal counted", |m| {
            samples(m, "kube_lifecycle_findings", &[])
                .iter()
                .sum::<f64>()
                == 0.0
                && terminated(m) >= 5.0
                && samples(
                    m,
                    "kube_lifecycle_namespace_terminating_duration_seconds_count",
                    &[],
                ) == [2.0]
        })
        .await;
    for family in [
        "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        "kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds",
        "kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds",
        "kube_lifecycle_daemonset_unscheduled_since_timestamp_seconds",
        "kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds",
    ] {
        assert!(
            !has(&metrics, family, &[]),
            "{family} still present:\n{metrics}"
        );
    }
    // Five Terminating pods completed their deletion while watched.
    assert_eq!(terminated(&metrics), 5.0, "{metrics}");
    assert_eq!(
        samples(
            &metrics,
            "kube_lifecycle_namespace_terminating_duration_seconds_count",
            &[]
        ),
        [2.0]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pod_whose_deletion_completes_is_counted_by_cause() {
    let (server, _dir, kubeconfig) = cluster(vec![node("n1")]).await;
    let exporter = Exporter::watching(&kubeconfig, &[]);
    exporter.wait_ready().await;
    // Deleted a second ago with a 30 s grace period: graceful, then gone.
    let mut p = pod("web-1", "n1");
    let now = jiff::Timestamp::now();
    p["metadata"]["deletionTimestamp"] = json!(
        now.checked_add(jiff::SignedDuration::from_secs(29))
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    );
    p["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    server.apply(p);
    exporter
        .wait_for_metrics("graceful termination", |m| {
            has(
                m,
                "kube_lifecycle_pod_terminating_since_timestamp_seconds",
                &[("pod", "web-1"), ("cause", "graceful")],
            )
        })
        .await;
    server.delete("v1", "Pod", Some("shop"), "web-1");
    let metrics = exporter
        .wait_for_metrics("the histogram count", |m| {
            samples(
                m,
                "kube_lifecycle_pod_terminating_duration_seconds_count",
                &[("cause", "graceful")],
            ) == [1.0]
        })
        .await;
    assert!(!has(
        &metrics,
        "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        &[("pod", "web-1")]
    ));
    // Scheduling and startup were seen as the pod arrived.
    assert_eq!(
        samples(
            &metrics,
            "kube_lifecycle_pod_scheduling_latency_seconds_count",
            &[]
        ),
        [1.0]
    );
    assert_eq!(
        samples(
            &metrics,
            "kube_lifecycle_pod_startup_duration_seconds_count",
            &[]
        ),
        [1.0]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pod_deleted_while_the_watch_is_cut_disappears_after_resume_or_relist() {
    let (server, _dir, kubeconfig) =
        cluster(vec![node("n1"), stuck_pod("ghost-a"), stuck_pod("ghost-b")]).await;
    let exporter = Exporter::watching(&kubeconfig, &[]);
    exporter.wait_ready().await;
    exporter
        .wait_for_metrics("both stuck pods", |m| {
            samples(
                m,
                "kube_lifecycle_pod_terminating_since_timestamp_seconds",
                &[("cause", "node_missing")],
            )
            .len()
                == 2
        })
        .await;

    // Cut every watch mid-stream and delete while disconnected: the resumed watch replays the deletion.
    server.cut_watches();
    server.delete("v1", "Pod", Some("shop"), "ghost-a");
    exporter
        .wait_for_metrics("ghost-a gone after resume", |m| {
            !has(
                m,
                "kube_lifecycle_pod_terminating_since_timestamp_seconds",
                &[("pod", "ghost-a")],
            )
        })
        .await;

    // Cut again while the pod watch cannot come back (its requests fail), delete,
    // and forget history: resuming is then impossible (410 Gone), so the exporter
    // relists. (Without the fault, a watch resumed between the cut and the
    // compaction was still valid and saw the deletion as an event.)
    server.set_fault("pods", Fault::ServerError);
    server.cut_watches();
    server.delete("v1", "Pod", Some("shop"), "ghost-b");
    server.compact();
    server.clear_faults();
    let metrics = exporter
        .wait_for_metrics("ghost-b gone after relist", |m| {
            !has(
                m,
                "kube_lifecycle_pod_terminating_since_timestamp_seconds",
                &[("pod", "ghost-b")],
            )
        })
        .await;
    let restarts: f64 = samples(
        &metrics,
        "kube_lifecycle_watch_restarts_total",
        &[("resource", "pods")],
    )
    .iter()
    .sum();
    assert!(restarts >= 1.0, "{metrics}");
    // Both deletions are counted: ghost-a from its DELETED event, ghost-b from
    // its absence in the relist (observed then, an upper bound).
    exporter
        .wait_for_metrics("both removals counted by cause", |m| {
            samples(
                m,
                "kube_lifecycle_pod_terminating_duration_seconds_count",
                &[("cause", "node_missing")],
            ) == [2.0]
        })
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_resource_version_epoch_makes_the_exporter_relist_and_converge() {
    let (server, _dir, kubeconfig) = cluster(vec![node("n1"), stuck_pod("before")]).await;
    let exporter = Exporter::watching(&kubeconfig, &[]);
    exporter.wait_ready().await;
    exporter
        .wait_for_metrics("the first stuck pod", |m| {
            has(
                m,
                "kube_lifecycle_pod_terminating_since_timestamp_seconds",
                &[("pod", "before")],
            )
        })
        .await;
    server.restart_with_new_epoch();
    server.delete("v1", "Pod", Some("shop"), "before");
    server.apply(stuck_pod("after"));
    let metrics = exporter
        .wait_for_metrics("the model to follow the new epoch", |m| {
            has(
                m,
                "kube_lifecycle_pod_terminating_since_timestamp_seconds",
                &[("pod", "after")],
            ) && !has(
                m,
                "kube_lifecycle_pod_terminating_since_timestamp_seconds",
                &[("pod", "before")],
            )
        })
        .await;
    assert!(
        samples(
            &metrics,
            "kube_lifecycle_watch_restarts_total",
            &[("resource", "pods")]
        )
        .iter()
        .sum::<f64>()
            >= 1.0,
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn forbidden_events_leave_everything_else_working_and_are_reported() {
    let (server, _dir, kubeconfig) = cluster(vec![node("n1"), stuck_pod("stuck")]).await;
    server.set_fault("events", Fault::Forbidden);
    let exporter = Exporter::watching(&kubeconfig, &[]);
    let metrics = exporter
        .wait_for_metrics("pods exported despite events", |m| {
            has(
                m,
                "kube_lifecycle_pod_terminating_since_timestamp_seconds",
                &[("pod", "stuck")],
            ) && has(
                m,
                "kube_lifecycle_watch_errors_total",
                &[("resource", "events"), ("reason", "forbidden")],
            ) && samples(m, "kube_lifecycle_watch_synced", &[("resource", "pods")]) == [1.0]
        })
        .await;
    // The pods watch synced (waited for above: a scrape may fall between the
    // model taking the list and the gauge being set); the events watch never.
    assert_eq!(
        samples(
            &metrics,
            "kube_lifecycle_watch_synced",
            &[("resource", "events")]
        ),
        [0.0]
    );
    let (status, body) = exporter.get("/readyz").await;
    assert_eq!(status, 503);
    assert!(body.contains("not synced: events"), "{body}");
    assert!(body.contains("forbidden"), "{body}");
    // Logged once, however often the watch retries: wait for two retries
    // after the first denial.
    exporter
        .wait_for_metrics("the events watch denied three times", |m| {
            samples(
                m,
                "kube_lifecycle_watch_errors_total",
                &[("resource", "events"), ("reason", "forbidden")],
            )
            .iter()
            .sum::<f64>()
                >= 3.0
        })
        .await;
    let denials = exporter
        .logs()
        .iter()
        .filter(|l| l.contains("permission denied"))
        .count();
    assert_eq!(denials, 1, "{:#?}", exporter.logs());
    let line = exporter
        .logs()
        .into_iter()
        .find(|l| l.contains("permission denied"))
        .unwrap();
    assert!(
        line.contains("\"resource\":\"events\"") && line.contains("\"verb\":\"list\""),
        "{line}"
    );

    // RBAC fixed: events sync and the exporter becomes ready.
    server.clear_faults();
    exporter.wait_ready().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_watch_line_does_not_stop_the_exporter() {
    let (server, _dir, kubeconfig) = cluster(vec![node("n1")]).await;
    let mut exporter = Exporter::watching(&kubeconfig, &[]);
    exporter.wait_ready().await;
    server
        .wait_for_watch("pods", std::time::Duration::from_secs(30))
        .await;
    server.inject_watch_line("pods", "{\"type\":\"ADDED\",\"object\":{\"metadata\":");
    server.inject_watch_line("pods", "this is not json");
    server.apply(stuck_pod("after-garbage"));
    exporter
        .wait_for_metrics("later events still applied", |m| {
            has(
                m,
                "kube_lifecycle_pod_terminating_since_timestamp_seconds",
                &[("pod", "after-garbage")],
            )
        })
        .await;
    assert!(exporter.is_running());
    let metrics = exporter.metrics().await;
    assert!(
        has(
            &metrics,
            "kube_lifecycle_watch_errors_total",
            &[("resource", "pods"), ("reason", "decode")]
        ),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn readyz_waits_for_every_first_list() {
    let (server, _dir, kubeconfig) = cluster(vec![node("n1")]).await;
    server.set_fault("pods", Fault::Slow(std::time::Duration::from_secs(3)));
    let exporter = Exporter::watching(&kubeconfig, &[]);
    let (status, body) = exporter.get("/readyz").await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("pods"), "{body}");
    assert_eq!(exporter.get("/healthz").await.0, 200);
    exporter.wait_ready().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn namespace_limits_and_exclusions_are_applied() {
    let mut other = stuck_pod("elsewhere");
    other["metadata"]["namespace"] = json!("other");
    let mut system = stuck_pod("system");
    system["metadata"]["namespace"] = json!("kube-system");
    let (_server, _dir, kubeconfig) =
        cluster(vec![node("n1"), stuck_pod("mine"), other, system]).await;
    let only = Exporter::watching(&kubeconfig, &["--namespace", "shop"]);
    only.wait_ready().await;
    let metrics = only.metrics().await;
    let pods: Vec<f64> = samples(
        &metrics,
        "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        &[],
    );
    assert_eq!(pods.len(), 1, "{metrics}");
    assert!(has(
        &metrics,
        "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        &[("pod", "mine")]
    ));

    let excluding = Exporter::watching(&kubeconfig, &["--exclude-namespace", "kube-system"]);
    excluding.wait_ready().await;
    let metrics = excluding.metrics().await;
    assert_eq!(
        samples(
            &metrics,
            "kube_lifecycle_pod_terminating_since_timestamp_seconds",
            &[]
        )
        .len(),
        2,
        "{metrics}"
    );
    assert!(!has(
        &metrics,
        "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        &[("pod", "system")]
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_stops_the_exporter_cleanly() {
    let (_server, _dir, kubeconfig) = cluster(vec![node("n1")]).await;
    let exporter = Exporter::watching(&kubeconfig, &[]);
    exporter.wait_ready().await;
    let status = exporter.terminate();
    assert!(status.success(), "{status:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn from_file_serves_the_same_findings_as_diagnose() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");
    let exporter = Exporter::start(&["--from-file", example]);
    exporter.wait_ready().await;
    let (status, body) = exporter.get("/findings").await;
    assert_eq!(status, 200);
    let served: Vec<Value> = serde_json::from_str(&body).unwrap();
    let offline = std::process::Command::new(common::exporter::BIN)
        .args(["diagnose", example, "--output", "json"])
        .output()
        .unwrap();
    let diagnosed: Vec<Value> = serde_json::from_slice(&offline.stdout).unwrap();
    // Same findings; only a clock-relative message may differ.
    let key = |f: &Value| {
        (
            f["kind"].clone(),
            f["namespace"].clone(),
            f["name"].clone(),
            f["container"].clone(),
            f["cause"].clone(),
            f["since"].clone(),
        )
    };
    assert_eq!(
        served.iter().map(key).collect::<Vec<_>>(),
        diagnosed.iter().map(key).collect::<Vec<_>>()
    );

    let (_, html) = exporter.get("/").await;
    assert!(html.contains("<h3 id=\"pod_terminating\">"));
    // Judged as of the example's own time (its List's annotation), moving on from
    // there: zookeeper-0 has been Terminating for 14h15m, not for years.
    assert!(
        html.contains(">14h15m<") || html.contains(">14h16m<"),
        "{html}"
    );
    assert!(html.contains("KubeLifecyclePodTerminatingContainersRunning"));
    assert!(
        html.contains("&quot;KillContainer&quot;"),
        "messages are escaped"
    );

    // Runbook links point at the copies the exporter serves.
    assert!(html.contains("href=\"/runbooks/kubelifecyclepodterminatingcontainersrunning\""));
    let (status, runbook) = exporter
        .get("/runbooks/kubelifecyclepodterminatingcontainersrunning")
        .await;
    assert_eq!(status, 200);
    for section in ["Meaning", "Impact", "Diagnosis", "Mitigation"] {
        assert!(
            runbook.contains(&format!("<h2>{section}</h2>")),
            "{runbook}"
        );
    }
    let (status, index) = exporter.get("/runbooks").await;
    assert_eq!(status, 200);
    assert!(index.contains("KubeLifecycleNodeLost"));
    assert_eq!(exporter.get("/runbooks/no-such-alert").await.0, 404);

    // The dashboards' links: a finding's anomaly and cause lead to its alert's
    // runbook (the client follows the redirect), and the page and /findings take
    // the same filters.
    let (status, runbook) = exporter
        .get("/runbooks/for/pod_terminating/containers_running")
        .await;
    assert_eq!(status, 200);
    assert!(runbook.contains("KubeLifecyclePodTerminatingContainersRunning"));
    let (status, runbook) = exporter
        .get("/runbooks/for/pod_pending/not_scheduled")
        .await;
    assert_eq!(status, 200);
    assert!(runbook.contains("KubeLifecycleSchedulerNotScheduling"));
    assert_eq!(
        exporter.get("/runbooks/for/pod_pending/finalizers").await.0,
        404
    );
    let (_, filtered) = exporter.get("/?anomaly=pod_terminating").await;
    assert!(filtered.contains("<h3 id=\"pod_terminating\">"));
    assert!(!filtered.contains("<h3 id=\"pod_pending\">"));
    assert!(filtered.contains("anomaly=pod_terminating"));
    let (_, json) = exporter
        .get("/findings?anomaly=pod_pending&namespace=default")
        .await;
    let json: Vec<Value> = serde_json::from_str(&json).unwrap();
    assert!(!json.is_empty());
    assert!(
        json.iter()
            .all(|f| f["anomaly"] == "pod_pending" && f["namespace"] == "default"),
        "{json:#?}"
    );

    let (_, classic) = exporter.get_with("/metrics", Some("*/*")).await;
    assert!(!classic.contains("# EOF"));
    assert!(
        classic.contains("# TYPE kube_lifecycle_pod_terminating_since_timestamp_seconds gauge")
    );
    let (_, openmetrics) = exporter
        .get_with(
            "/metrics",
            Some("application/openmetrics-text;version=1.0.0"),
        )
        .await;
    assert!(openmetrics.ends_with("# EOF\n"));
    // The standard process families, as every exporter serves them.
    for family in [
        "process_cpu_seconds_total ",
        "process_resident_memory_bytes ",
        "process_virtual_memory_bytes ",
        "process_open_fds ",
        "process_max_fds ",
        "process_start_time_seconds ",
    ] {
        assert!(
            openmetrics.lines().any(|l| l.starts_with(family)),
            "{family}in\n{openmetrics}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn above_the_series_ceiling_pod_families_fold_and_findings_stay_whole() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");
    let exporter = Exporter::start(&["--from-file", example, "--max-series-per-family", "1"]);
    exporter.wait_ready().await;
    let (_, metrics) = exporter.get("/metrics").await;
    let family = "kube_lifecycle_pod_terminating_since_timestamp_seconds";
    let folded = metrics
        .lines()
        .find(|l| {
            l.starts_with(&format!(
                "kube_lifecycle_series_folded{{family=\"{family}\"}}"
            ))
        })
        .unwrap_or_else(|| panic!("no folded count for {family}:\n{metrics}"));
    let withheld: f64 = folded.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(withheld > 1.0, "{folded}");
    let series: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with(&format!("{family}{{")))
        .collect();
    assert!(!series.is_empty());
    assert!(
        series
            .iter()
            .all(|l| !l.contains("pod=") && l.contains("namespace=")),
        "folded by namespace, no pod label: {series:#?}"
    );
    // Workload families are never folded.
    assert!(metrics.contains("kube_lifecycle_recreate_blocked_by_terminating{namespace="));
    // Every object is still listed.
    let (_, body) = exporter.get("/findings").await;
    let findings: Vec<Value> = serde_json::from_str(&body).unwrap();
    let terminating = findings
        .iter()
        .filter(|f| f["anomaly"] == "pod_terminating")
        .count();
    assert_eq!(terminating as f64, withheld);
}
