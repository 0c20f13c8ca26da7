//! Watches: history replayed then live, the current state first, objects
//! crossing a selector, 410 for a compacted version, bookmarks, streaming
//! lists, timeouts, and thousands of initial events across chunks.

use super::*;

#[tokio::test]
async fn a_watch_from_a_resource_version_replays_history_then_goes_live() {
    let server = server_with(vec![pod("a", "old")]).await;
    let since = server.resource_version();
    server.apply(pod("a", "p1"));
    let mut changed = pod("a", "p1");
    changed["status"]["phase"] = json!("Succeeded");
    server.apply(changed);
    server.delete("v1", "Pod", Some("a"), "old");
    server.apply(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}));

    let mut lines = watch(
        &server,
        &format!("/api/v1/pods?watch=true&resourceVersion={since}"),
    )
    .await;
    let added = lines.change().await;
    assert_eq!(summary(&added), ("ADDED".into(), "a/p1".into()));
    assert_eq!(
        (
            added["object"]["apiVersion"].as_str(),
            added["object"]["kind"].as_str()
        ),
        (Some("v1"), Some("Pod"))
    );
    let modified = lines.change().await;
    assert_eq!(summary(&modified), ("MODIFIED".into(), "a/p1".into()));
    assert_eq!(modified["object"]["status"]["phase"], "Succeeded");
    let deleted = lines.change().await;
    assert_eq!(summary(&deleted), ("DELETED".into(), "a/old".into()));
    let deleted_rv: u64 = deleted["object"]["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        deleted_rv > since + 2,
        "a deletion carries a new resourceVersion"
    );

    server.apply(pod("a", "live"));
    let live = lines.change().await;
    assert_eq!(summary(&live), ("ADDED".into(), "a/live".into()));
    assert_eq!(
        live["object"]["metadata"]["resourceVersion"],
        server.resource_version().to_string()
    );
}

#[tokio::test]
async fn a_watch_without_a_resource_version_starts_with_the_current_state() {
    let server = server_with(vec![pod("a", "p1"), pod("b", "p2")]).await;
    let mut lines = watch(&server, "/api/v1/namespaces/a/pods?watch=1").await;
    assert_eq!(
        summary(&lines.change().await),
        ("ADDED".into(), "a/p1".into())
    );
    server.apply(pod("b", "ignored"));
    server.apply(pod("a", "p3"));
    assert_eq!(
        summary(&lines.change().await),
        ("ADDED".into(), "a/p3".into()),
        "other namespaces are filtered out"
    );

    // Watching one object by name.
    let mut one = watch(
        &server,
        "/api/v1/namespaces/a/pods/p3?watch=true&resourceVersion=0",
    )
    .await;
    assert_eq!(
        summary(&one.change().await),
        ("ADDED".into(), "a/p3".into())
    );
    server.apply(pod("a", "p4"));
    server.delete("v1", "Pod", Some("a"), "p3");
    assert_eq!(
        summary(&one.change().await),
        ("DELETED".into(), "a/p3".into())
    );
}

#[tokio::test]
async fn objects_moving_across_a_selector_are_added_and_deleted() {
    let server = server_with(vec![labelled_pod("a", "p", "web", "n1")]).await;
    let mut lines = watch(&server, "/api/v1/pods?watch=true&labelSelector=app%3Dweb").await;
    assert_eq!(
        summary(&lines.change().await),
        ("ADDED".into(), "a/p".into())
    );
    server.apply(labelled_pod("a", "p", "db", "n1"));
    assert_eq!(
        summary(&lines.change().await),
        ("DELETED".into(), "a/p".into())
    );
    server.apply(labelled_pod("a", "p", "db", "n2"));
    server.apply(labelled_pod("a", "p", "web", "n2"));
    assert_eq!(
        summary(&lines.change().await),
        ("ADDED".into(), "a/p".into())
    );
    server.apply(labelled_pod("a", "p", "web", "n3"));
    assert_eq!(
        summary(&lines.change().await),
        ("MODIFIED".into(), "a/p".into())
    );
}

#[tokio::test]
async fn resuming_from_a_compacted_resource_version_gets_one_410_error_event() {
    let server = server_with(vec![pod("a", "p1")]).await;
    let old = server.resource_version();
    server.apply(pod("a", "p2"));
    server.compact();
    let mut lines = watch(
        &server,
        &format!("/api/v1/pods?watch=true&resourceVersion={old}"),
    )
    .await;
    let error = lines.event().await;
    assert_eq!(error["type"], "ERROR");
    assert_status(&error["object"], 410, "Expired");
    assert_eq!(
        error["object"]["message"],
        format!(
            "too old resource version: {old} ({})",
            server.resource_version()
        )
    );
    assert!(matches!(
        lines.read(Duration::from_secs(5)).await,
        Read::End
    ));

    // Resuming from the compaction point itself is fine.
    let now = server.resource_version();
    let mut lines = watch(
        &server,
        &format!("/api/v1/pods?watch=true&resourceVersion={now}"),
    )
    .await;
    server.apply(pod("a", "p3"));
    assert_eq!(
        summary(&lines.change().await),
        ("ADDED".into(), "a/p3".into())
    );

    // The history also compacts by itself past its limit.
    server.set_history_limit(2);
    let before = server.resource_version();
    for i in 0..3 {
        server.apply(pod("a", &format!("q{i}")));
    }
    let mut lines = watch(
        &server,
        &format!("/api/v1/pods?watch=true&resourceVersion={before}"),
    )
    .await;
    assert_eq!(lines.event().await["type"], "ERROR");
}

#[tokio::test]
async fn bookmarks_carry_the_current_resource_version() {
    let server = server_with(vec![pod("a", "p1")]).await;
    server.set_bookmark_interval(Duration::from_millis(100));
    let rv = server.resource_version();
    let mut lines = watch(
        &server,
        &format!("/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion={rv}"),
    )
    .await;
    // A change to another resource moves the global resourceVersion.
    server.apply(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "a"}}));
    let current = server.resource_version().to_string();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let event = lines.event().await;
        assert_eq!(event["type"], "BOOKMARK", "{event}");
        assert_eq!(event["object"]["kind"], "Pod");
        assert_eq!(event["object"]["apiVersion"], "v1");
        if event["object"]["metadata"]["resourceVersion"] == current.as_str() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no bookmark at {current}: {event}"
        );
    }

    // Without allowWatchBookmarks, none.
    let mut quiet = watch(
        &server,
        &format!("/apis/apps/v1/deployments?watch=true&resourceVersion={rv}"),
    )
    .await;
    assert!(matches!(
        quiet.read(Duration::from_millis(400)).await,
        Read::Silent
    ));
}

#[tokio::test]
async fn streaming_lists_end_their_initial_events_with_a_bookmark() {
    let server = server_with(vec![pod("a", "p1"), pod("a", "p2")]).await;
    let rv = server.resource_version().to_string();
    let mut lines = watch(
        &server,
        "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=",
    )
    .await;
    assert_eq!(
        summary(&lines.event().await),
        ("ADDED".into(), "a/p1".into())
    );
    assert_eq!(
        summary(&lines.event().await),
        ("ADDED".into(), "a/p2".into())
    );
    let end = lines.event().await;
    assert_eq!(end["type"], "BOOKMARK");
    assert_eq!(end["object"]["metadata"]["resourceVersion"], rv.as_str());
    assert_eq!(
        end["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
    server.apply(pod("a", "p3"));
    assert_eq!(
        summary(&lines.change().await),
        ("ADDED".into(), "a/p3".into())
    );
}

#[tokio::test]
async fn timeout_seconds_ends_a_watch_cleanly() {
    let server = server_with(vec![]).await;
    let started = Instant::now();
    let mut lines = watch(&server, "/api/v1/pods?watch=true&timeoutSeconds=1").await;
    assert!(matches!(
        lines.read(Duration::from_secs(5)).await,
        Read::End
    ));
    assert!(started.elapsed() >= Duration::from_millis(900));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(server.open_watches(), 0);
}

#[tokio::test]
async fn thousands_of_initial_events_arrive_in_order_across_chunks() {
    let server = server_with((0..3000).map(|i| pod("big", &format!("p{i:05}"))).collect()).await;
    let mut lines = watch(
        &server,
        "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
    )
    .await;
    for i in 0..3000 {
        assert_eq!(
            summary(&lines.event().await),
            ("ADDED".into(), format!("big/p{i:05}"))
        );
    }
    assert_eq!(lines.event().await["type"], "BOOKMARK");
}
