//! The wire protocol as a plain HTTP client sees it: lists, pagination,
//! selectors, watches, bookmarks, expiry and injected faults.

mod common;

use std::time::{Duration, Instant};

use common::{Lines, Read, labelled_pod, names, pod, summary};
use fake_apiserver::{FakeApiServer, Fault};
use serde_json::{Value, json};

const CONTINUE_EXPIRED: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

async fn server_with(objects: Vec<Value>) -> FakeApiServer {
    let server = FakeApiServer::start().await.expect("server starts");
    for object in objects {
        server.apply(object);
    }
    server
}

async fn get(server: &FakeApiServer, path_and_query: &str) -> (u16, Value) {
    let response = reqwest::get(format!("{}{path_and_query}", server.url()))
        .await
        .expect("request");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn watch(server: &FakeApiServer, path_and_query: &str) -> Lines {
    let response = reqwest::get(format!("{}{path_and_query}", server.url()))
        .await
        .expect("watch request");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    assert!(
        response.content_length().is_none(),
        "watch bodies are chunked"
    );
    Lines::new(response)
}

fn assert_status(body: &Value, code: u16, reason: &str) {
    assert_eq!(body["kind"], "Status", "{body}");
    assert_eq!(body["apiVersion"], "v1", "{body}");
    assert_eq!(body["status"], "Failure", "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["reason"], reason, "{body}");
}

#[tokio::test]
async fn lists_page_through_one_consistent_snapshot() {
    let server = server_with(vec![
        pod("b", "p3"),
        pod("a", "p2"),
        pod("a", "p1"),
        pod("c", "p5"),
        pod("b", "p4"),
    ])
    .await;
    let (status, first) = get(&server, "/api/v1/pods?limit=2").await;
    assert_eq!(status, 200);
    assert_eq!(first["kind"], "PodList");
    assert_eq!(first["apiVersion"], "v1");
    assert_eq!(
        names(&first),
        ["a/p1", "a/p2"],
        "sorted by namespace, then name"
    );
    assert_eq!(first["metadata"]["remainingItemCount"], 3);
    assert_eq!(
        first["metadata"]["resourceVersion"],
        server.resource_version().to_string()
    );
    let item = &first["items"][0];
    assert!(
        item.get("kind").is_none() && item.get("apiVersion").is_none(),
        "list items carry no type: {item}"
    );
    assert!(
        item["metadata"]["uid"]
            .as_str()
            .is_some_and(|u| !u.is_empty())
    );
    assert!(
        item["metadata"]["creationTimestamp"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );

    // Changes after the first page do not show in later pages.
    server.delete("v1", "Pod", Some("c"), "p5");
    server.apply(pod("b", "p3b"));
    let mut seen = names(&first);
    let mut token = first["metadata"]["continue"]
        .as_str()
        .expect("continue")
        .to_string();
    loop {
        let (status, page) = get(&server, &format!("/api/v1/pods?limit=2&continue={token}")).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(
            page["metadata"]["resourceVersion"],
            first["metadata"]["resourceVersion"]
        );
        seen.extend(names(&page));
        match page["metadata"]["continue"].as_str() {
            Some(next) => token = next.to_string(),
            None => break,
        }
    }
    assert_eq!(seen, ["a/p1", "a/p2", "b/p3", "b/p4", "c/p5"]);

    // A fresh list sees the new state.
    let (_, fresh) = get(&server, "/api/v1/pods").await;
    assert_eq!(names(&fresh), ["a/p1", "a/p2", "b/p3", "b/p3b", "b/p4"]);
    assert!(fresh["metadata"].get("continue").is_none());
}

#[tokio::test]
async fn a_continue_token_from_before_a_compaction_is_expired() {
    let server = server_with(vec![pod("a", "p1"), pod("a", "p2"), pod("a", "p3")]).await;
    let (_, first) = get(&server, "/api/v1/namespaces/a/pods?limit=1").await;
    let token = first["metadata"]["continue"].as_str().unwrap().to_string();
    server.compact();
    let (status, body) = get(
        &server,
        &format!("/api/v1/namespaces/a/pods?limit=1&continue={token}"),
    )
    .await;
    assert_eq!(status, 410);
    assert_status(&body, 410, "Expired");
    assert_eq!(body["message"], CONTINUE_EXPIRED);

    let (status, body) = get(
        &server,
        "/api/v1/namespaces/a/pods?limit=1&continue=garbage",
    )
    .await;
    assert_eq!(status, 400);
    assert_status(&body, 400, "BadRequest");
}

#[tokio::test]
async fn selectors_and_namespaces_narrow_lists() {
    let server = server_with(vec![
        labelled_pod("shop", "web-1", "web", "n1"),
        labelled_pod("shop", "db-1", "db", "n2"),
        labelled_pod("shop", "cache-1", "cache", ""),
        labelled_pod("other", "web-2", "web", "n2"),
    ])
    .await;
    let cases = [
        (
            "/api/v1/pods?labelSelector=app%3Dweb",
            vec!["other/web-2", "shop/web-1"],
        ),
        (
            "/api/v1/pods?labelSelector=app%20in%20(db%2Ccache)",
            vec!["shop/cache-1", "shop/db-1"],
        ),
        (
            "/api/v1/pods?labelSelector=app%20notin%20(web),app",
            vec!["shop/cache-1", "shop/db-1"],
        ),
        (
            "/api/v1/pods?labelSelector=app!%3Dweb,!missing",
            vec!["shop/cache-1", "shop/db-1"],
        ),
        (
            "/api/v1/pods?fieldSelector=spec.nodeName%3Dn2",
            vec!["other/web-2", "shop/db-1"],
        ),
        (
            "/api/v1/pods?fieldSelector=spec.nodeName%3D",
            vec!["shop/cache-1"],
        ),
        (
            "/api/v1/pods?fieldSelector=metadata.namespace!%3Dshop",
            vec!["other/web-2"],
        ),
        (
            "/api/v1/pods?fieldSelector=metadata.name%3D%3Dweb-1,status.phase%3DRunning",
            vec!["shop/web-1"],
        ),
        (
            "/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb",
            vec!["shop/web-1"],
        ),
        ("/api/v1/namespaces/nowhere/pods", vec![]),
    ];
    for (query, expected) in cases {
        let (status, list) = get(&server, query).await;
        assert_eq!(status, 200, "{query}: {list}");
        assert_eq!(names(&list), expected, "{query}");
    }
    // Selectors combine with pagination: every page holds matches only.
    let (_, page) = get(
        &server,
        "/api/v1/pods?limit=1&fieldSelector=spec.nodeName%3Dn2",
    )
    .await;
    assert_eq!(names(&page), ["other/web-2"]);
    assert!(page["metadata"].get("remainingItemCount").is_none());
    let token = page["metadata"]["continue"].as_str().unwrap();
    let (_, page) = get(
        &server,
        &format!("/api/v1/pods?limit=1&fieldSelector=spec.nodeName%3Dn2&continue={token}"),
    )
    .await;
    assert_eq!(names(&page), ["shop/db-1"]);
    assert!(page["metadata"].get("continue").is_none());

    for query in [
        "/api/v1/pods?labelSelector=app%20in%20(web",
        "/api/v1/pods?fieldSelector=justaword",
        "/api/v1/pods?limit=many",
        "/api/v1/pods?resourceVersion=latest",
        "/api/v1/pods?watch=perhaps",
    ] {
        let (status, body) = get(&server, query).await;
        assert_eq!(status, 400, "{query}");
        assert_status(&body, 400, "BadRequest");
    }
}

#[tokio::test]
async fn single_objects_discovery_and_unknown_paths() {
    let server = server_with(vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}),
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}}),
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "shop"}, "reason": "Started"}),
        pod("shop", "web-1"),
    ])
    .await;
    let (status, namespace) = get(&server, "/api/v1/namespaces/shop").await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            namespace["kind"].as_str(),
            namespace["metadata"]["name"].as_str()
        ),
        (Some("Namespace"), Some("shop"))
    );
    let (_, node) = get(&server, "/api/v1/nodes/n1").await;
    assert_eq!(node["kind"], "Node");
    let (_, p) = get(&server, "/api/v1/namespaces/shop/pods/web-1").await;
    assert_eq!(
        (p["apiVersion"].as_str(), p["kind"].as_str()),
        (Some("v1"), Some("Pod"))
    );
    let (_, deployments) = get(&server, "/apis/apps/v1/namespaces/shop/deployments").await;
    assert_eq!(
        (
            deployments["apiVersion"].as_str(),
            deployments["kind"].as_str()
        ),
        (Some("apps/v1"), Some("DeploymentList"))
    );
    assert_eq!(names(&deployments), ["shop/web"]);
    let (_, events) = get(&server, "/apis/events.k8s.io/v1/events").await;
    assert_eq!(events["kind"], "EventList");
    assert_eq!(names(&events), ["shop/e1"]);
    let (_, core_events) = get(&server, "/api/v1/events").await;
    assert_eq!(
        names(&core_events),
        Vec::<String>::new(),
        "the two event APIs are separate stores"
    );

    let (status, missing) = get(&server, "/api/v1/namespaces/shop/pods/nope").await;
    assert_eq!(status, 404);
    assert_status(&missing, 404, "NotFound");
    assert_eq!(missing["message"], "pods \"nope\" not found");
    for path in [
        "/api/v1/pods/web-1",
        "/apis/batch/v1/cronjobs",
        "/nonsense",
        "/api/v1/namespaces/shop/pods/web-1/log",
    ] {
        let (status, body) = get(&server, path).await;
        assert_eq!(status, 404, "{path}");
        assert_status(&body, 404, "NotFound");
    }
    let post = reqwest::Client::new()
        .post(format!("{}/api/v1/namespaces/shop/pods", server.url()))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 405);

    let (_, version) = get(&server, "/version").await;
    assert_eq!(version["gitVersion"], "v1.33.0");
    let (_, api) = get(&server, "/api").await;
    assert_eq!(api["versions"], json!(["v1"]));
    let (_, apis) = get(&server, "/apis").await;
    let groups: Vec<&str> = apis["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert_eq!(
        groups,
        ["apps", "batch", "resource.k8s.io", "events.k8s.io"]
    );
    let (_, core) = get(&server, "/api/v1").await;
    assert!(
        core["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "pods" && r["namespaced"] == true)
    );
    assert_eq!(
        get(&server, "/healthz").await,
        (200, Value::String("ok".into()))
    );
}

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

#[tokio::test]
async fn list_resource_versions_the_server_cannot_serve_are_refused() {
    let server = server_with(vec![pod("a", "p1"), pod("a", "p2")]).await;
    let current = server.resource_version();
    for query in [
        "resourceVersion=0".to_string(),
        format!("resourceVersion={current}&resourceVersionMatch=Exact"),
        format!(
            "resourceVersion={}&resourceVersionMatch=NotOlderThan",
            current - 1
        ),
    ] {
        let (status, list) = get(&server, &format!("/api/v1/pods?{query}")).await;
        assert_eq!((status, names(&list).len()), (200, 2), "{query}");
    }
    let (status, body) = get(
        &server,
        &format!(
            "/api/v1/pods?resourceVersion={}&resourceVersionMatch=Exact",
            current - 1
        ),
    )
    .await;
    assert_eq!(status, 410);
    assert_status(&body, 410, "Expired");
    let (status, body) = get(
        &server,
        &format!("/api/v1/pods?resourceVersion={}", current + 10),
    )
    .await;
    assert_eq!(status, 504);
    assert_status(&body, 504, "Timeout");
}
