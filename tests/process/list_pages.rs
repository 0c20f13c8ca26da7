//! A list of many pages, read by the exporter's list-watch through its page
//! pipeline (src/source/watch/pages.rs) from the fake API server: every object once and
//! in order, the next page asked for with the continue token of the one
//! before, a list whose continue token expires midway listed again whole, and
//! nothing more read once the list is no longer wanted.

use std::time::Duration;

use fake_apiserver::FakeApiServer;
use futures::StreamExt;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::watcher;
use kube::{Api, Client, Config};
use kube_lifecycle_exporter::model::Pod;
use kube_lifecycle_exporter::source::api::Watched;
use kube_lifecycle_exporter::source::watch::list_watch::{Event, Params, list_watch};
use serde_json::json;

const NAMESPACE: &str = "paged";

async fn server_with_pods(count: usize) -> FakeApiServer {
    let server = FakeApiServer::start().await.expect("fake API server");
    for i in 0..count {
        server.apply(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("pod-{i:05}"), "namespace": NAMESPACE},
            "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "nginx"}]},
            "status": {"phase": "Running"}}));
    }
    server
}

async fn client(server: &FakeApiServer) -> Client {
    let kubeconfig = Kubeconfig::from_yaml(&server.kubeconfig_yaml()).expect("kubeconfig");
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .expect("client config");
    Client::try_from(config).expect("client")
}

type Events = futures::stream::BoxStream<'static, watcher::Result<Event<Watched<Pod>>>>;

async fn pods(server: &FakeApiServer, page_size: u32) -> Events {
    let client = client(server).await;
    let api = Api::<Watched<Pod>>::namespaced_with(client.clone(), NAMESPACE, &());
    let params = Params {
        field_selector: None,
        timeout: None,
        page_size,
        relist_every: None,
    };
    list_watch(api, client, params).boxed()
}

async fn next(events: &mut Events) -> watcher::Result<Event<Watched<Pod>>> {
    tokio::time::timeout(Duration::from_secs(20), events.next())
        .await
        .expect("an event within 20 s")
        .expect("the list-watch never ends")
}

/// The names of one whole list, from its `Init` to its `InitDone`; each page
/// must say how many objects follow it, as the fake API server counts them.
/// The start of a list and its first page.
async fn first_page(events: &mut Events) {
    assert!(matches!(next(events).await, Ok(Event::Init)));
    assert!(matches!(next(events).await, Ok(Event::InitPage { .. })));
}

async fn one_list(events: &mut Events) -> Vec<String> {
    assert!(matches!(next(events).await, Ok(Event::Init)));
    let mut names = Vec::new();
    let mut said_remaining = Vec::new();
    loop {
        match next(events).await {
            Ok(Event::InitPage { objects, remaining }) => {
                names.extend(
                    objects
                        .into_iter()
                        .map(|p| p.object.metadata.name.to_string()),
                );
                said_remaining.push((names.len(), remaining));
            }
            Ok(Event::InitDone) => break,
            other => panic!("inside a list: {other:?}"),
        }
    }
    for (read, remaining) in said_remaining {
        let left = names.len() - read;
        assert_eq!(
            remaining,
            (left > 0).then_some(left),
            "after {read} objects"
        );
    }
    names
}

fn list_requests(server: &FakeApiServer) -> Vec<String> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET" && !r.watch && r.path.ends_with("/pods"))
        .map(|r| r.query)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_of_many_pages_arrives_whole_and_in_order() {
    let server = server_with_pods(1_234).await;
    let mut events = pods(&server, 100).await;
    let names = one_list(&mut events).await;
    let expected: Vec<String> = (0..1_234).map(|i| format!("pod-{i:05}")).collect();
    assert_eq!(names, expected);

    let requests = list_requests(&server);
    assert_eq!(requests.len(), 13, "{requests:?}");
    assert!(
        requests.iter().all(|q| q.contains("limit=100")),
        "{requests:?}"
    );
    assert!(!requests[0].contains("continue="), "{requests:?}");
    assert!(
        requests[1..].iter().all(|q| q.contains("continue=")),
        "every later page names where the list goes on: {requests:?}"
    );
    // After the list, a watch from its resourceVersion.
    let version = server.resource_version();
    tokio::spawn(async move { while events.next().await.is_some() {} });
    server.wait_for_watch("pods", Duration::from_secs(10)).await;
    let watch = server
        .requests()
        .into_iter()
        .find(|r| r.watch && r.path.ends_with("/pods"))
        .expect("the watch request");
    assert!(
        watch.query.contains(&format!("resourceVersion={version}")),
        "{watch:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_whose_continue_token_expires_midway_is_listed_again_whole() {
    let server = server_with_pods(60).await;
    let mut events = pods(&server, 5).await;
    first_page(&mut events).await;
    // The pipeline reads at most a few pages ahead; the rest of the twelve
    // are asked for with a token the server no longer honours.
    server.compact();
    let mut listed = 5;
    let error = loop {
        match next(&mut events).await {
            Ok(Event::InitPage { objects, .. }) => listed += objects.len(),
            Err(err) => break err,
            other => panic!("inside a list: {other:?}"),
        }
    };
    assert!(listed < 60, "the expired token must fail a later page");
    match error {
        watcher::Error::InitialListFailed(kube::Error::Api(status)) => {
            assert_eq!(status.code, 410, "{status:?}")
        }
        other => panic!("{other:?}"),
    }
    // The next list starts from the beginning and is whole.
    assert_eq!(one_list(&mut events).await.len(), 60);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_no_longer_wanted_is_read_no_further() {
    let server = server_with_pods(200).await;
    let mut events = pods(&server, 5).await;
    first_page(&mut events).await;
    drop(events);
    // Why fixed pauses: the claim is that nothing happens after the drop, and
    // nothing in the dropped pipeline can be waited on. The first lets the
    // pages already asked for be answered; the second is the window in which
    // no more may be asked for.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let read = list_requests(&server).len();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        list_requests(&server).len(),
        read,
        "pages read after the drop"
    );
    assert!(read < 40, "{read} of 40 pages read for one object");
}
