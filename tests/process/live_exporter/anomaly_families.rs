//! Every anomaly family of the example appears, then vanishes when healed.

use super::*;

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
                >= example_findings() as f64
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
        (
            "kube_lifecycle_node_drain_blocked_since_timestamp_seconds",
            vec![
                ("node", "pool-b-node-3"),
                ("cause", "budget_allows_none"),
                ("namespace", "cache"),
                ("pod", "redis-master-0"),
                ("poddisruptionbudget", "redis-master"),
            ],
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
        // The DaemonSet whose pod had no sandbox goes too: with its pod gone
        // and its status still short, it would be a verdict of its own status
        // (pods not in view).
        ("apps/v1", "DaemonSet", Some("default"), "dnsuutils-ds"),
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
        // The budget that held the drain is relaxed away: the drain goes on.
        (
            "policy/v1",
            "PodDisruptionBudget",
            Some("cache"),
            "redis-master",
        ),
        // The CronJob behind its stuck Job, and the StatefulSet whose claim
        // names a missing class: each goes with what it made (a CronJob whose
        // status still lists a Job that is gone still waits for it; a
        // StatefulSet whose pods are gone is short by its own status).
        (
            "batch/v1",
            "CronJob",
            Some("loculus"),
            "ena-submission-list-cronjob",
        ),
        (
            "batch/v1",
            "Job",
            Some("loculus"),
            "ena-submission-list-cronjob-28619220",
        ),
        (
            "v1",
            "Pod",
            Some("loculus"),
            "ena-submission-list-cronjob-28619220-7tq4m",
        ),
        (
            "apps/v1",
            "StatefulSet",
            Some("default"),
            "fastdfs-group0-storage0",
        ),
        (
            "v1",
            "PersistentVolumeClaim",
            Some("default"),
            "storage0-data-fastdfs-group0-storage0-0",
        ),
        ("v1", "Pod", Some("default"), "fastdfs-group0-storage0-0"),
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
            json!({"desiredNumberScheduled": 7, "currentNumberScheduled": 7,
                   "numberReady": 7, "numberAvailable": 7}),
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
