//! What the watches live through: deletions counted by cause, pods deleted while
//! the watch is cut, a new resourceVersion epoch, forbidden events, a malformed
//! watch line.

use super::*;
use kube_lifecycle_exporter::model::Time;

#[tokio::test(flavor = "multi_thread")]
async fn a_pod_whose_deletion_completes_is_counted_by_cause() {
    let (server, _dir, kubeconfig) = cluster(vec![node("n1")]).await;
    let exporter = Exporter::watching(&kubeconfig, &[]);
    exporter.wait_ready().await;
    // Deleted a second ago with a 30 s grace period: graceful, then gone.
    let mut p = pod("web-1", "n1");
    let now = Time::now();
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
