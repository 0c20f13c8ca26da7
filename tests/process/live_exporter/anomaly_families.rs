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

    // Every anomaly and cause the example's header expects is counted (every
    // pair has a series; the expected ones are not 0).
    let expected = common::example::expected();
    for finding in &expected.findings {
        let words: Vec<&str> = finding.split(' ').collect();
        let (anomaly, cause) = (words[2], words[3]);
        let counted: f64 = samples(
            &metrics,
            "kube_lifecycle_findings",
            &[("anomaly", anomaly), ("cause", cause)],
        )
        .iter()
        .sum();
        assert!(
            counted >= 1.0,
            "{finding}: no kube_lifecycle_findings{{anomaly={anomaly:?}, cause={cause:?}}}:\n{metrics}"
        );
    }

    // Heal: what the header says heals each incident is deleted (the stuck
    // pods go, the namespaces finish, the second DaemonSet is removed, ...).
    for deletion in &expected.deletions {
        assert!(
            server
                .delete(
                    &deletion.api_version,
                    &deletion.kind,
                    deletion.namespace.as_deref(),
                    &deletion.name
                )
                .is_some(),
            "{deletion:?}"
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
