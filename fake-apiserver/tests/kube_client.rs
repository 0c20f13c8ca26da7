//! kube-rs, unmodified, against the fake server through a kubeconfig: the
//! watcher's list-then-watch and streaming-list flows, relisting after a new
//! resourceVersion epoch, and paginated lists.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::pod;
use fake_apiserver::FakeApiServer;
use futures::{Stream, StreamExt};
use k8s_openapi::api::core::v1::Pod;
use kube::api::ListParams;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client, Config, ResourceExt};

async fn client_for(server: &FakeApiServer) -> Client {
    let port = server.url().rsplit(':').next().unwrap().to_string();
    let dir = std::env::temp_dir().join(format!(
        "fake-apiserver-kubeconfig-{}-{port}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("kubeconfig");
    server.write_kubeconfig(&path).unwrap();
    let kubeconfig = Kubeconfig::read_from(&path).expect("kubeconfig parses");
    let _ = std::fs::remove_dir_all(&dir);
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .expect("kubeconfig loads");
    assert_eq!(
        config.cluster_url.to_string().trim_end_matches('/'),
        server.url()
    );
    Client::try_from(config).expect("client builds")
}

/// Pulls watcher events until `done` says stop, skipping errors (a cut
/// watch or an expired resourceVersion shows up as one before recovery).
async fn collect_until<S>(
    stream: &mut S,
    mut done: impl FnMut(&Event<Pod>) -> bool,
) -> Vec<Event<Pod>>
where
    S: Stream<Item = Result<Event<Pod>, watcher::Error>> + Unpin,
{
    let mut events = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(item) = stream.next().await {
            match item {
                Ok(event) => {
                    let stop = done(&event);
                    events.push(event);
                    if stop {
                        return;
                    }
                }
                Err(error) => eprintln!("watcher error (expected around faults): {error}"),
            }
        }
        panic!("watcher stream ended");
    })
    .await
    .unwrap_or_else(|_| panic!("timed out; events so far: {:?}", describe(&events)));
    events
}

fn describe(events: &[Event<Pod>]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e {
            Event::Init => "Init".to_string(),
            Event::InitApply(p) => format!("InitApply {}", p.name_any()),
            Event::InitDone => "InitDone".to_string(),
            Event::Apply(p) => format!("Apply {}", p.name_any()),
            Event::Delete(p) => format!("Delete {}", p.name_any()),
        })
        .collect()
}

fn init_names(events: &[Event<Pod>]) -> BTreeSet<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::InitApply(p) => Some(p.name_any()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_lists_watches_and_relists_after_a_new_epoch() {
    let server = FakeApiServer::start().await.unwrap();
    for i in 0..5 {
        server.apply(pod("shop", &format!("p{i}")));
    }
    let client = client_for(&server).await;
    assert_eq!(
        client.apiserver_version().await.unwrap().git_version,
        "v1.33.0"
    );

    // Small pages so the initial list needs continue tokens.
    let config = watcher::Config::default().page_size(2);
    let mut stream = watcher::watcher(Api::<Pod>::all(client), config).boxed();
    let events = collect_until(&mut stream, |e| matches!(e, Event::InitDone)).await;
    assert!(matches!(events[0], Event::Init), "{:?}", describe(&events));
    assert_eq!(
        init_names(&events),
        (0..5).map(|i| format!("p{i}")).collect()
    );

    server.apply(pod("shop", "new"));
    let events = collect_until(&mut stream, |e| matches!(e, Event::Apply(_))).await;
    let Some(Event::Apply(added)) = events.last() else {
        unreachable!()
    };
    assert_eq!(added.name_any(), "new");
    assert_eq!(added.namespace().as_deref(), Some("shop"));
    assert!(added.uid().is_some() && added.creation_timestamp().is_some());

    server.delete("v1", "Pod", Some("shop"), "p0");
    let events = collect_until(&mut stream, |e| matches!(e, Event::Delete(_))).await;
    let Some(Event::Delete(gone)) = events.last() else {
        unreachable!()
    };
    assert_eq!(gone.name_any(), "p0");

    // A cut resumes from the last resourceVersion: changes made meanwhile arrive
    // as watch events, without a relist.
    server.cut_watches();
    server.apply(pod("shop", "during-cut"));
    let events = collect_until(
        &mut stream,
        |e| matches!(e, Event::Apply(p) if p.name_any() == "during-cut"),
    )
    .await;
    assert!(
        !events.iter().any(|e| matches!(e, Event::Init)),
        "{:?}",
        describe(&events)
    );

    // A new epoch: resuming fails with 410, so the watcher relists and converges.
    let old_rv = server.resource_version();
    server.restart_with_new_epoch();
    assert!(server.resource_version() >= old_rv + 1_000_000);
    server.delete("v1", "Pod", Some("shop"), "p1");
    server.apply(pod("shop", "after-epoch"));
    let events = collect_until(&mut stream, |e| matches!(e, Event::InitDone)).await;
    assert!(
        events.iter().any(|e| matches!(e, Event::Init)),
        "{:?}",
        describe(&events)
    );
    let expected: BTreeSet<String> = ["p2", "p3", "p4", "new", "during-cut", "after-epoch"]
        .map(String::from)
        .into();
    assert_eq!(init_names(&events), expected);
    let relists = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/v1/pods" && !r.watch && !r.query.contains("continue"))
        .count();
    assert_eq!(
        relists,
        2,
        "one initial list and one relist: {:#?}",
        server.requests()
    );

    // And keeps watching in the new epoch.
    server.apply(pod("shop", "later"));
    let events = collect_until(&mut stream, |e| matches!(e, Event::Apply(_))).await;
    let Some(Event::Apply(later)) = events.last() else {
        unreachable!()
    };
    assert_eq!(later.name_any(), "later");
    let rv: u64 = later.resource_version().unwrap().parse().unwrap();
    assert!(rv > old_rv + 1_000_000);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_recovers_when_the_server_comes_back() {
    let server = FakeApiServer::start().await.unwrap();
    server.apply(pod("shop", "p1"));
    let client = client_for(&server).await;
    let mut stream = watcher::watcher(
        Api::<Pod>::namespaced(client, "shop"),
        watcher::Config::default(),
    )
    .boxed();
    collect_until(&mut stream, |e| matches!(e, Event::InitDone)).await;

    server.pause().await;
    server.apply(pod("shop", "while-down"));
    let resumer = server.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        resumer.resume().await;
    });
    let events = collect_until(
        &mut stream,
        |e| matches!(e, Event::Apply(p) if p.name_any() == "while-down"),
    )
    .await;
    assert!(
        !events.iter().any(|e| matches!(e, Event::Init)),
        "resumed without a relist: {:?}",
        describe(&events)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_streaming_list_watcher_gets_its_initial_events_end_bookmark() {
    let server = FakeApiServer::start().await.unwrap();
    for name in ["a", "b", "c"] {
        server.apply(pod("shop", name));
    }
    let client = client_for(&server).await;
    let config = watcher::Config::default().streaming_lists();
    let mut stream = watcher::watcher(Api::<Pod>::all(client), config).boxed();
    let events = collect_until(&mut stream, |e| matches!(e, Event::InitDone)).await;
    assert!(matches!(events[0], Event::Init));
    assert_eq!(
        init_names(&events),
        ["a", "b", "c"].map(String::from).into()
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.path != "/api/v1/pods" || r.watch),
        "no list request"
    );

    server.apply(pod("shop", "d"));
    let events = collect_until(&mut stream, |e| matches!(e, Event::Apply(_))).await;
    assert!(matches!(events.last(), Some(Event::Apply(p)) if p.name_any() == "d"));
}

#[tokio::test(flavor = "multi_thread")]
async fn api_list_pages_with_continue_tokens() {
    let server = FakeApiServer::start().await.unwrap();
    for i in 0..7 {
        server.apply(pod(
            if i % 2 == 0 { "even" } else { "odd" },
            &format!("p{i}"),
        ));
    }
    let client = client_for(&server).await;
    let api = Api::<Pod>::all(client.clone());
    let mut params = ListParams::default().limit(2);
    let mut names = Vec::new();
    let mut pages = 0;
    loop {
        let page = api.list(&params).await.expect("page");
        pages += 1;
        names.extend(
            page.items
                .iter()
                .map(|p| format!("{}/{}", p.namespace().unwrap(), p.name_any())),
        );
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => break,
        }
    }
    assert_eq!(pages, 4);
    assert_eq!(
        names,
        [
            "even/p0", "even/p2", "even/p4", "even/p6", "odd/p1", "odd/p3", "odd/p5"
        ]
    );

    let odd = Api::<Pod>::namespaced(client.clone(), "odd")
        .list(&ListParams::default())
        .await
        .unwrap();
    assert_eq!(odd.items.len(), 3);
    let selected = api
        .list(&ListParams::default().fields("metadata.name=p3"))
        .await
        .unwrap();
    assert_eq!(selected.items.len(), 1);
    let one = Api::<Pod>::namespaced(client, "even")
        .get("p4")
        .await
        .unwrap();
    assert_eq!(one.name_any(), "p4");
}

/// The review APIs through kube's typed `Api` and k8s-openapi's types: what
/// the fake writes decodes into the real types, a token authenticates as its
/// user (for the API server's audience unless others are asked for), and a
/// SubjectAccessReview follows the rules, per namespace and for non-resource
/// URLs; a self review asks about the caller.
#[tokio::test(flavor = "multi_thread")]
async fn token_and_access_reviews_decode_into_the_real_types() {
    use fake_apiserver::{Rule, Subject, TokenUser};
    use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
    use k8s_openapi::api::authorization::v1::{
        NonResourceAttributes, ResourceAttributes, SelfSubjectAccessReview,
        SelfSubjectAccessReviewSpec, SubjectAccessReview, SubjectAccessReviewSpec,
    };
    use kube::api::PostParams;

    let server = FakeApiServer::start().await.unwrap();
    server.add_token("alice-token", TokenUser::new("alice", &["team-a"]));
    server.add_token(
        "job-token",
        TokenUser::new("job", &[]).for_audiences(&["vault"]),
    );
    server.grant(
        Subject::Group("team-a".into()),
        Rule::resource(&["list"], "", "pods", Some("ns-a")),
    );
    server.grant(
        Subject::User("prometheus".into()),
        Rule::non_resource(&["get"], "/metrics"),
    );
    let client = client_for(&server).await;
    let post = PostParams::default();

    let reviews: Api<TokenReview> = Api::all(client.clone());
    let review = |token: &str, audiences: Option<Vec<String>>| TokenReview {
        spec: TokenReviewSpec {
            token: Some(token.into()),
            audiences,
        },
        ..Default::default()
    };
    let alice = reviews
        .create(&post, &review("alice-token", None))
        .await
        .unwrap();
    let status = alice.status.unwrap();
    assert_eq!(status.authenticated, Some(true));
    let user = status.user.unwrap();
    assert_eq!(user.username.as_deref(), Some("alice"));
    assert_eq!(user.uid.as_deref(), Some("uid-alice"));
    assert_eq!(
        user.groups.unwrap(),
        vec!["team-a".to_string(), "system:authenticated".to_string()]
    );
    assert_eq!(
        status.audiences.unwrap(),
        vec![fake_apiserver::API_AUDIENCE.to_string()]
    );

    let unknown = reviews
        .create(&post, &review("nobody", None))
        .await
        .unwrap();
    let status = unknown.status.unwrap();
    assert_ne!(status.authenticated, Some(true));
    assert!(status.error.unwrap().contains("invalid bearer token"));
    // A token for another audience: refused for the API server's, accepted for its own.
    let job = reviews
        .create(&post, &review("job-token", None))
        .await
        .unwrap();
    assert_ne!(job.status.unwrap().authenticated, Some(true));
    let job = reviews
        .create(&post, &review("job-token", Some(vec!["vault".into()])))
        .await
        .unwrap();
    assert_eq!(
        job.status.unwrap().audiences.unwrap(),
        vec!["vault".to_string()]
    );

    let access: Api<SubjectAccessReview> = Api::all(client.clone());
    let pods = |namespace: &str| SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some("alice".into()),
            groups: Some(vec!["team-a".into()]),
            resource_attributes: Some(ResourceAttributes {
                namespace: Some(namespace.into()),
                verb: Some("list".into()),
                resource: Some("pods".into()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let allowed = |r: SubjectAccessReview| r.status.unwrap().allowed;
    assert!(allowed(access.create(&post, &pods("ns-a")).await.unwrap()));
    assert!(!allowed(access.create(&post, &pods("ns-b")).await.unwrap()));
    assert!(!allowed(access.create(&post, &pods("")).await.unwrap()));
    let metrics = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some("prometheus".into()),
            non_resource_attributes: Some(NonResourceAttributes {
                path: Some("/metrics".into()),
                verb: Some("get".into()),
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    assert!(allowed(access.create(&post, &metrics).await.unwrap()));

    // The caller (the kubeconfig's token: the exporter) may create reviews.
    let own: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    let create_reviews = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some("create".into()),
                group: Some("authentication.k8s.io".into()),
                resource: Some("tokenreviews".into()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let answer = own.create(&post, &create_reviews).await.unwrap();
    assert!(answer.status.unwrap().allowed);
    assert_eq!(
        server.reviews(),
        fake_apiserver::Reviews {
            token_reviews: 4,
            subject_access_reviews: 4,
            self_subject_access_reviews: 1
        }
    );

    // Without its grants the caller may create none (but may still ask about itself).
    server.set_rules(Vec::new());
    let refused = reviews.create(&post, &review("alice-token", None)).await;
    match refused {
        Err(kube::Error::Api(status)) => assert_eq!(status.code, 403, "{status:?}"),
        other => panic!("expected 403, got {other:?}"),
    }
    let answer = own.create(&post, &create_reviews).await.unwrap();
    assert!(!answer.status.unwrap().allowed);

    // A fault on the reviews: 500, the rest of the server unaffected.
    server.set_fault("subjectaccessreviews", fake_apiserver::Fault::ServerError);
    match access.create(&post, &pods("ns-a")).await {
        Err(kube::Error::Api(status)) => assert_eq!(status.code, 500, "{status:?}"),
        other => panic!("expected 500, got {other:?}"),
    }
}
