//! Injected faults: forbidden and server errors, slow resources, hanging
//! and cut watches, injected lines, pause and resume, and the request record.

use super::*;

#[tokio::test]
async fn forbidden_and_server_error_faults() {
    let server = server_with(vec![pod("a", "p1")]).await;
    server.set_fault("pods", Fault::Forbidden);
    let (status, body) = get(&server, "/api/v1/pods").await;
    assert_eq!(status, 403);
    assert_status(&body, 403, "Forbidden");
    assert_eq!(
        body["message"],
        "pods is forbidden: User \"system:serviceaccount:monitoring:kube-lifecycle-exporter\" cannot list resource \"pods\" in API group \"\" at the cluster scope"
    );
    assert_eq!(body["details"]["kind"], "pods");
    let (status, body) = get(&server, "/api/v1/namespaces/a/pods?watch=true").await;
    assert_eq!(status, 403);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("cannot watch resource \"pods\" in API group \"\" in the namespace \"a\""),
        "{body}"
    );

    server.set_fault("deployments", Fault::Forbidden);
    let (_, body) = get(&server, "/apis/apps/v1/deployments").await;
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("deployments.apps is forbidden"),
        "{body}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("in API group \"apps\""),
        "{body}"
    );

    server.set_fault("events", Fault::ServerError);
    for path in ["/api/v1/events", "/apis/events.k8s.io/v1/events?watch=true"] {
        let (status, body) = get(&server, path).await;
        assert_eq!(status, 500, "{path}");
        assert_status(&body, 500, "InternalError");
    }
    // Other resources are unaffected; clearing restores everything.
    assert_eq!(get(&server, "/api/v1/nodes").await.0, 200);
    server.set_fault("pods", Fault::None);
    assert_eq!(get(&server, "/api/v1/pods").await.0, 200);
    server.clear_faults();
    assert_eq!(get(&server, "/api/v1/events").await.0, 200);
    assert_eq!(get(&server, "/apis/apps/v1/deployments").await.0, 200);
}

#[tokio::test]
async fn a_slow_resource_delays_pages_and_watch_lines() {
    let server = server_with(vec![pod("a", "p1"), pod("a", "p2")]).await;
    server.set_fault("pods", Fault::Slow(Duration::from_millis(300)));
    let started = Instant::now();
    assert_eq!(get(&server, "/api/v1/pods").await.0, 200);
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(get(&server, "/api/v1/nodes").await.0, 200);

    let started = Instant::now();
    let mut lines = watch(&server, "/api/v1/pods?watch=true").await;
    lines.event().await;
    lines.event().await;
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "each line waits"
    );
}

#[tokio::test]
async fn a_hanging_watch_sends_headers_then_nothing() {
    let server = server_with(vec![pod("a", "p1")]).await;
    server.set_bookmark_interval(Duration::from_millis(50));
    server.set_fault("pods", Fault::HangWatch);
    let mut lines = watch(
        &server,
        "/api/v1/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=1",
    )
    .await;
    server.apply(pod("a", "p2"));
    server.inject_watch_line("pods", "{}");
    assert!(
        matches!(lines.read(Duration::from_millis(1500)).await, Read::Silent),
        "not even at timeoutSeconds"
    );
    assert_eq!(server.open_watches(), 1);
    // Lists still work.
    let (status, list) = get(&server, "/api/v1/pods").await;
    assert_eq!((status, names(&list).len()), (200, 2));
    server.cut_watches_for("pods");
    assert!(matches!(
        lines.read(Duration::from_secs(5)).await,
        Read::Broken(_)
    ));
}

#[tokio::test]
async fn injected_lines_appear_verbatim_in_order() {
    let server = server_with(vec![]).await;
    let mut pods = watch(&server, "/api/v1/pods?watch=true").await;
    let mut nodes = watch(&server, "/api/v1/nodes?watch=true").await;
    server.inject_watch_line("pods", "{\"type\":\"ADDED\",\"object\":{\"metadata\":");
    server.inject_watch_line("pods", "this is not json");
    server.apply(pod("a", "after"));
    assert!(
        matches!(pods.read(Duration::from_secs(5)).await, Read::Line(l) if l == "{\"type\":\"ADDED\",\"object\":{\"metadata\":")
    );
    assert!(
        matches!(pods.read(Duration::from_secs(5)).await, Read::Line(l) if l == "this is not json")
    );
    assert_eq!(
        summary(&pods.change().await),
        ("ADDED".into(), "a/after".into())
    );
    assert!(matches!(
        nodes.read(Duration::from_millis(300)).await,
        Read::Silent
    ));
}

#[tokio::test]
async fn cut_watches_break_the_body_instead_of_ending_it() {
    let server = server_with(vec![pod("a", "p1")]).await;
    let mut pods = watch(&server, "/api/v1/pods?watch=true").await;
    let mut nodes = watch(&server, "/api/v1/nodes?watch=true").await;
    pods.event().await;
    assert_eq!(server.open_watches(), 2);

    server.cut_watches_for("pods");
    assert!(matches!(
        pods.read(Duration::from_secs(5)).await,
        Read::Broken(_)
    ));
    assert_eq!(server.open_watches(), 1);
    server.apply(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}));
    assert_eq!(
        summary(&nodes.change().await),
        ("ADDED".into(), "n1".into()),
        "other watches live on"
    );

    server.cut_watches();
    assert!(matches!(
        nodes.read(Duration::from_secs(5)).await,
        Read::Broken(_)
    ));
    assert_eq!(server.open_watches(), 0);

    // A dropped client unregisters its watch.
    let lines = watch(&server, "/api/v1/pods?watch=true&allowWatchBookmarks=true").await;
    server.set_bookmark_interval(Duration::from_millis(50));
    assert_eq!(server.open_watches(), 1);
    drop(lines);
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.open_watches() > 0 {
        assert!(
            Instant::now() < deadline,
            "the watch of a gone client stays open"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn pause_drops_everything_and_resume_serves_on_the_same_port() {
    let server = server_with(vec![pod("a", "p1")]).await;
    let url = server.url();
    let mut lines = watch(&server, "/api/v1/pods?watch=true").await;
    lines.event().await;

    server.pause().await;
    assert!(matches!(
        lines.read(Duration::from_secs(5)).await,
        Read::Broken(_)
    ));
    assert_eq!(server.open_watches(), 0);
    let refused = reqwest::get(format!("{url}/api/v1/pods")).await;
    assert!(
        refused.as_ref().is_err_and(|e| e.is_connect()),
        "{refused:?}"
    );

    server.apply(pod("a", "while-down"));
    server.resume().await;
    assert_eq!(server.url(), url);
    let (status, list) = get(&server, "/api/v1/pods").await;
    assert_eq!(status, 200);
    assert_eq!(names(&list), ["a/p1", "a/while-down"]);

    // Pausing twice or resuming twice is harmless.
    server.resume().await;
    server.pause().await;
    server.pause().await;
    server.resume().await;
    assert_eq!(get(&server, "/healthz").await.0, 200);
}

#[tokio::test]
async fn requests_are_recorded() {
    let server = server_with(vec![]).await;
    server.set_fault("events", Fault::Forbidden);
    get(&server, "/api/v1/pods?limit=5").await;
    get(&server, "/api/v1/events").await;
    let lines = watch(&server, "/api/v1/pods?watch=true&resourceVersion=0").await;
    drop(lines);
    let records = server.requests();
    assert_eq!(records.len(), 3, "{records:?}");
    assert_eq!(
        (
            records[0].method.as_str(),
            records[0].path.as_str(),
            records[0].query.as_str()
        ),
        ("GET", "/api/v1/pods", "limit=5")
    );
    assert_eq!((records[0].status, records[0].watch), (200, false));
    assert_eq!((records[1].status, records[1].watch), (403, false));
    assert_eq!((records[2].status, records[2].watch), (200, true));
    server.clear_requests();
    assert!(server.requests().is_empty());
}
