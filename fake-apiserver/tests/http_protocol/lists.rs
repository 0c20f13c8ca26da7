//! Lists: pages of one consistent snapshot, expired continue tokens,
//! selectors and namespaces, single objects, discovery, versions refused.

use super::*;

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
        "/apis/batch/v1/pods",
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
        [
            "apps",
            "batch",
            "policy",
            "resource.k8s.io",
            "events.k8s.io"
        ]
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
