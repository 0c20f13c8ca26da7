//! Changes no watch event tells: an API server restarted on an empty store, a watch
//! from a version the server has not reached, objects dropped without events, a
//! server without history that starts over; found by relisting.

use super::*;

/// How long after an API server comes back different the exporter must serve
/// what a fresh listing gives (the held-out check allows 90 s). The watches'
/// backoff after a short outage is a few seconds, a watch from a version the
/// server has not reached waits 3 s for it (as upstream's watch cache does),
/// and the relist takes well under a second here.
const RELIST_BOUND: Duration = Duration::from_secs(20);

/// Log lines at `level` whose message contains `text`.
fn logged(s: &Scenario, level: &str, text: &str) -> Vec<String> {
    s.exporter
        .logs()
        .into_iter()
        .filter(|l| l.contains(&format!("\"level\":\"{level}\"")) && l.contains(text))
        .collect()
}

/// The example's pods but two, as the store a server restarted empty is
/// filled again with: the objects gone and the resourceVersions smaller.
fn refill_all_but(server: &FakeApiServer, gone: &[&str]) -> usize {
    let mut count = 0;
    for object in example_objects() {
        if !gone.contains(&object["metadata"]["name"].as_str().unwrap_or_default()) {
            server.apply(object);
            count += 1;
        }
    }
    count
}

/// Issue 24: killed and restarted on an empty store — resourceVersions start
/// over and nothing answers 410. Before, the exporter resumed every watch from
/// its old version and kept serving the findings of objects that no longer
/// existed, for as long as it ran. After an outage it now lists again, once
/// per resource, and says so once per resource each way.
#[tokio::test(flavor = "multi_thread")]
async fn api_server_restarted_on_an_empty_store() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.converges("before the restart").await;
    let before = s.expected().await.len();
    s.server.pause().await;
    s.server.reset_store();
    refill_all_but(&s.server, &["cam1-78b6fc6bc8-cjsw5", "zookeeper-0"]);
    s.wait_for(
        "every watch to have lost the API server, and the page to say so",
        async |s| {
            logged(s, "WARN", "lost the API server").len() == Kind::ALL.len()
                && s.exporter.get("/").await.1.contains("retrying since")
        },
    )
    .await;
    let (status, _) = s.exporter.get("/readyz").await;
    assert_eq!(status, 200, "the last known state is still served");
    s.server.resume().await;
    let took = s.converges_within("after the restart", RELIST_BOUND).await;
    assert!(
        s.expected().await.len() < before,
        "the restart removed findings"
    );
    eprintln!("converged {took:?} after the server came back");
    // One warning per resource when it lost the server, one info line with
    // the outage's length when it was back; nothing per retry, and none of
    // the client library's own ERROR lines.
    let lost = logged(&s, "WARN", "lost the API server");
    assert_eq!(lost.len(), Kind::ALL.len(), "{lost:#?}");
    assert!(
        logged(&s, "ERROR", "").is_empty(),
        "{:#?}",
        logged(&s, "ERROR", "")
    );
    // The findings converge once the resources they depend on are back; the
    // others follow within the bound (their backoff).
    let start = Instant::now();
    while logged(&s, "INFO", "the API server is back after").len() < Kind::ALL.len()
        && start.elapsed() < RELIST_BOUND
    {
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let back = logged(&s, "INFO", "the API server is back after");
    assert_eq!(back.len(), Kind::ALL.len(), "{back:#?}");
    assert!(
        back.iter().all(|l| l.contains("outage_seconds")),
        "{back:#?}"
    );
    let (_, page) = s.exporter.get("/").await;
    assert!(
        page.contains("connected") && !page.contains("retrying since"),
        "{page}"
    );
    let contact = s
        .metric_sum(
            "kube_lifecycle_watch_last_contact_timestamp_seconds",
            &[("resource", "pods")],
        )
        .await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        (now - contact).abs() < 15.0,
        "last contact {contact}, now {now}"
    );
}

/// Issue 24: the server starts over without the clients seeing an outage (its
/// watches end as at a graceful shutdown): a watch resumed from a version the
/// server has not reached gets upstream's "Too large resource version" (504,
/// cause ResourceVersionTooLarge) and lists again, as client-go's reflector does.
#[tokio::test(flavor = "multi_thread")]
async fn a_watch_from_a_resource_version_the_server_has_not_reached() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.converges("before").await;
    s.server.reset_store();
    refill_all_but(&s.server, &["cam1-78b6fc6bc8-cjsw5", "zookeeper-0"]);
    s.converges_within("after the store started over", RELIST_BOUND)
        .await;
    s.wait_metric(
        "too large counted",
        "kube_lifecycle_watch_errors_total",
        &[("resource", "pods"), ("reason", "too_large")],
        1.0,
    )
    .await;
    assert!(
        !logged(&s, "INFO", "behind this watch's resourceVersion").is_empty(),
        "{:#?}",
        s.exporter.logs()
    );
    assert!(logged(&s, "WARN", "lost the API server").is_empty());
}

/// Issue 24: a server that loses events (a compaction that dropped the
/// deletions) says nothing a watch could notice; `--relist-interval` lists
/// again on a schedule, the safety net for such servers.
#[tokio::test(flavor = "multi_thread")]
async fn objects_dropped_without_events_are_found_by_the_relist_interval() {
    let mut s = Scenario::start(&["--relist-interval", "5s"]).await;
    s.exporter.wait_ready().await;
    s.converges("before").await;
    let before = s.expected().await.len();
    assert!(
        s.server
            .lose_object("v1", "Pod", Some("cam"), "cam1-78b6fc6bc8-cjsw5")
    );
    assert!(
        s.server
            .lose_object("v1", "Pod", Some("middleware"), "zookeeper-0")
    );
    s.server.compact();
    assert!(s.expected().await.len() < before);
    s.converges_within("after the lost deletions", RELIST_BOUND)
        .await;
}

/// Issue 24: a server that starts over and keeps no history answers neither
/// 410 nor "too large": the watch resumed from the old version is simply
/// served from now. The first event after it carries a resourceVersion below
/// the one the watch resumed from, which only a server that started over
/// sends; the exporter lists again then. Bound: the first change after the
/// restart, plus RELIST_BOUND.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_history_that_starts_over_is_found_by_its_versions() {
    let mut s = Scenario::start(&[]).await;
    s.exporter.wait_ready().await;
    s.converges("before").await;
    s.server.set_fault("pods", Fault::NoHistory);
    s.server.clear_requests();
    s.server.reset_store();
    let gone = ["cam1-78b6fc6bc8-cjsw5", "zookeeper-0"];
    refill_all_but(&s.server, &gone);
    // The pods watch resumes (from now, on this server) before anything changes.
    s.wait_for_watch_request("pods").await;
    let mut touched = example_objects()
        .into_iter()
        .find(|o| o["kind"] == "Pod" && !gone.contains(&o["metadata"]["name"].as_str().unwrap()))
        .expect("the example has pods");
    touched["metadata"]["labels"]["touched"] = serde_json::json!("yes");
    s.server.apply(touched);
    s.converges_within("after the first change on the new store", RELIST_BOUND)
        .await;
}
