//! Faults the exporter retries through: the API server down and back (also with a
//! new resourceVersion epoch), reset and hanging watches, slow pages, server errors,
//! a forbidden resource, malformed lines, a huge object, a burst of events, objects
//! recreated while disconnected.

use super::*;

/// Failed attempts per watch that make an outage long: the first error and
/// then retries 0.8 s, 1.6 s and 3.2 s apart (kube-runtime's default backoff,
/// jittered), so the backoff has grown to 6.4 s when the server comes back.
const OUTAGE_ERRORS: f64 = 4.0;

#[tokio::test(flavor = "multi_thread")]
async fn api_server_down_through_several_retries_then_back() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.converges("before the outage").await;
    let errors = async |s: &Scenario| {
        let metrics = s.exporter.metrics().await;
        resources()
            .into_iter()
            .map(|resource| {
                samples(
                    &metrics,
                    "kube_lifecycle_watch_errors_total",
                    &[("resource", resource)],
                )
                .iter()
                .sum::<f64>()
            })
            .collect::<Vec<f64>>()
    };
    let before = errors(&s).await;
    s.server.pause().await;
    s.change_the_cluster("outage");
    // The outage lasts until every watch has failed OUTAGE_ERRORS times, its
    // backoff grown, rather than for a fixed time.
    s.wait_for(
        &format!("every watch to fail {OUTAGE_ERRORS} times while the API server is down"),
        async |s| {
            let now = errors(s).await;
            now.iter()
                .zip(&before)
                .all(|(now, before)| now - before >= OUTAGE_ERRORS)
        },
    )
    .await;
    assert!(s.exporter.is_running());
    s.server.resume().await;
    s.converges("after the outage").await;
    assert!(
        s.metric_sum("kube_lifecycle_watch_errors_total", &[]).await >= 1.0,
        "the outage is counted"
    );
    assert!(
        s.exporter
            .logs()
            .iter()
            .any(|l| l.contains("\"level\":\"WARN\"") || l.contains("\"level\":\"ERROR\"")),
        "the outage is logged"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn api_server_back_with_a_new_resource_version_epoch() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.pause().await;
    s.change_the_cluster("epoch");
    s.server.restart_with_new_epoch();
    s.server.resume().await;
    s.converges("after 410 Gone").await;
    s.wait_metric(
        "relist counted",
        "kube_lifecycle_watch_restarts_total",
        &[],
        1.0,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn connection_reset_in_the_middle_of_a_chunked_watch() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    for round in 0..3 {
        s.server.cut_watches();
        s.change_the_cluster(&format!("reset-{round}"));
    }
    s.converges("after resets").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_watch_that_hangs_without_a_byte_is_given_up_and_reopened() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.set_fault("pods", Fault::HangWatch);
    s.server.clear_requests();
    s.server.cut_watches_for("pods");
    // The pods watch is reopened, and hangs, before the cluster changes.
    s.wait_for_watch_request("pods").await;
    s.change_the_cluster("hang");
    let (_, findings) = s.exporter.get("/findings").await;
    assert!(
        !findings.contains("stuck-hang"),
        "the hanging watch said nothing: {findings}"
    );
    // Clearing the fault does not end the hanging watch: only giving it up
    // (--watch-timeout + 5 s of silence) lets the exporter see the change.
    s.server.clear_faults();
    s.converges("after the hanging watch").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn slow_list_pages() {
    let mut s = Scenario::start_with(&[], |server| {
        for plural in ["pods", "nodes", "events"] {
            server.set_fault(plural, Fault::Slow(Duration::from_secs(2)));
        }
    })
    .await;
    let (status, _) = s.exporter.get("/readyz").await;
    assert_eq!(status, 503, "not ready while the first lists are slow");
    s.exporter.wait_ready().await;
    s.change_the_cluster("slow");
    s.converges("with slow lists").await;
    s.server.clear_faults();
}

#[tokio::test(flavor = "multi_thread")]
async fn server_errors_then_recovery() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.set_fault("pods", Fault::ServerError);
    s.server.cut_watches_for("pods");
    s.change_the_cluster("500");
    s.wait_metric(
        "500s counted",
        "kube_lifecycle_watch_errors_total",
        &[("resource", "pods"), ("reason", "server_error")],
        1.0,
    )
    .await;
    s.server.clear_faults();
    s.converges("after the 500s").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn forbidden_on_one_resource_then_granted() {
    let mut s =
        Scenario::start_with(&[], |server| server.set_fault("events", Fault::Forbidden)).await;
    s.wait_metric(
        "403 counted",
        "kube_lifecycle_watch_errors_total",
        &[("resource", "events"), ("reason", "forbidden")],
        1.0,
    )
    .await;
    // The other resources keep working.
    s.wait_metric(
        "pods synced",
        "kube_lifecycle_watch_synced",
        &[("resource", "pods")],
        1.0,
    )
    .await;
    let (status, body) = s.exporter.get("/readyz").await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("events"), "{body}");
    s.server.clear_faults();
    s.exporter.wait_ready().await;
    s.converges("once events may be read").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_lines_and_wrong_field_types_in_a_watch_stream() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.wait_for_watch("pods", BOUND).await;
    s.server
        .inject_watch_line("pods", "{\"type\":\"ADDED\",\"object\":{\"kind\":");
    s.server.inject_watch_line(
        "pods",
        r#"{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"wrong-types","namespace":"faults","uid":"u-1","resourceVersion":"1"},"spec":{"nodeName":42,"containers":"nope"},"status":{"phase":["Running"]}}}"#,
    );
    s.change_the_cluster("malformed");
    s.converges("after malformed lines").await;
    s.wait_metric(
        "decode errors counted",
        "kube_lifecycle_watch_errors_total",
        &[("resource", "pods")],
        1.0,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_object_with_a_one_mib_annotation() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    let mut pod = stuck_pod("big-annotation");
    pod["metadata"]["annotations"] = json!({"example.com/blob": "x".repeat(1 << 20)});
    s.server.apply(pod);
    s.converges("with a 1 MiB annotation").await;
    let (_, findings) = s.exporter.get("/findings").await;
    assert!(findings.contains("big-annotation"));
    assert!(findings.len() < 1 << 20, "annotations are not kept");
}

#[tokio::test(flavor = "multi_thread")]
async fn ten_thousand_events_in_one_burst() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    let before = s
        .metric_sum(
            "kube_lifecycle_watch_events_total",
            &[("resource", "events")],
        )
        .await;
    for i in 0..10_000 {
        s.server.apply(json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("burst.{i}"), "namespace": "faults"},
            "involvedObject": {"kind": "Pod", "namespace": "faults", "name": format!("gone-{}", i % 100),
                "uid": format!("uid-{}", i % 100), "fieldPath": "spec.containers{app}"},
            "reason": "BackOff", "message": "Back-off restarting failed container", "type": "Warning",
            "count": 1, "firstTimestamp": "2024-05-01T00:00:00Z", "lastTimestamp": "2024-05-01T00:00:00Z"}));
    }
    s.change_the_cluster("burst");
    s.wait_metric(
        "every event applied",
        "kube_lifecycle_watch_events_total",
        &[("resource", "events")],
        before + 10_000.0,
    )
    .await;
    s.converges("after the burst").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn objects_deleted_and_recreated_with_a_new_uid_while_disconnected() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.server.apply(stuck_pod("phoenix"));
    s.converges("the stuck pod is seen").await;
    let old_uid = s
        .server
        .get("v1", "Pod", Some("faults"), "phoenix")
        .unwrap()["metadata"]["uid"]
        .clone();
    s.server.pause().await;
    // The stuck pod goes and a healthy one of the same name comes back; the
    // StatefulSet's stuck zookeeper-0 is replaced by a healthy one too.
    s.server.delete("v1", "Pod", Some("faults"), "phoenix");
    let mut healthy = stuck_pod("phoenix");
    let meta = healthy["metadata"].as_object_mut().unwrap();
    for key in [
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "finalizers",
    ] {
        meta.remove(key);
    }
    healthy["status"] = json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [{"name": "app", "image": "nginx:1.27", "ready": true, "restartCount": 0,
            "state": {"running": {"startedAt": "2024-05-01T00:00:05Z"}}}]});
    s.server.apply(healthy);
    let zookeeper = s
        .server
        .get("v1", "Pod", Some("middleware"), "zookeeper-0")
        .unwrap();
    s.server
        .delete("v1", "Pod", Some("middleware"), "zookeeper-0");
    let mut reborn = zookeeper.clone();
    let meta = reborn["metadata"].as_object_mut().unwrap();
    for key in [
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "uid",
        "resourceVersion",
    ] {
        meta.remove(key);
    }
    reborn["status"] = json!({"phase": "Running"});
    s.server.apply(reborn);
    let new_uid = s
        .server
        .get("v1", "Pod", Some("faults"), "phoenix")
        .unwrap()["metadata"]["uid"]
        .clone();
    assert_ne!(old_uid, new_uid);
    s.server.resume().await;
    s.converges("after the recreation").await;
    let (_, findings) = s.exporter.get("/findings").await;
    assert!(!findings.contains("phoenix"), "{findings}");
    assert!(!findings.contains("zookeeper"), "{findings}");
}
