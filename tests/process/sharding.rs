//! Sharding by namespace: three exporters together report exactly what one does,
//! each lists only its own namespaces' objects, and namespaces that appear later
//! are picked up by their shard.

use crate::common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::exporter::{BIN, Exporter, example_objects};
use fake_apiserver::FakeApiServer;
use serde_json::{Value, json};

type Key = (String, String, String, String, String, String);

fn keys(body: &str) -> Vec<Key> {
    let findings: Vec<Value> = serde_json::from_str(body).expect("findings JSON");
    findings
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or("-").to_string();
            (
                s("kind"),
                s("namespace"),
                s("name"),
                s("container"),
                s("cause"),
                s("since"),
            )
        })
        .collect()
}

fn stuck_pod(namespace: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "creationTimestamp": "2024-05-01T00:00:00Z",
            "deletionTimestamp": "2024-05-01T01:00:30Z", "deletionGracePeriodSeconds": 30,
            "finalizers": ["example.com/cleanup"]},
        "spec": {"nodeName": "node1", "containers": [{"name": "app", "image": "nginx:1.27"}]},
        "status": {"phase": "Running"}})
}

fn namespace(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name},
           "status": {"phase": "Active"}})
}

async fn findings(exporter: &Exporter) -> Vec<Key> {
    let (status, body) = exporter.get("/findings").await;
    assert_eq!(status, 200);
    keys(&body)
}

#[tokio::test(flavor = "multi_thread")]
async fn three_shards_report_together_what_one_exporter_does() {
    let server = FakeApiServer::start().await.unwrap();
    let objects = example_objects();
    // Every namespace the example's objects live in exists, as in a real cluster.
    let mut namespaces: BTreeSet<String> = objects
        .iter()
        .filter_map(|o| o["metadata"]["namespace"].as_str().map(String::from))
        .collect();
    for object in objects {
        if object["kind"] == "Namespace" {
            namespaces.remove(object["metadata"]["name"].as_str().unwrap());
        }
        server.apply(object);
    }
    for ns in &namespaces {
        server.apply(namespace(ns));
    }
    // More namespaces with incidents, so that every shard has some.
    for i in 0..12 {
        let ns = format!("team-{i}");
        server.apply(namespace(&ns));
        server.apply(stuck_pod(&ns, &format!("stuck-{i}")));
    }
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    server.write_kubeconfig(&kubeconfig).unwrap();
    let keep_events = ["--event-max-age", "1000000h"];

    let single = Exporter::watching(&kubeconfig, &keep_events);
    single.wait_ready().await;
    let mut expected = findings(&single).await;
    expected.sort();
    single.terminate();
    server.clear_requests();

    let shards: Vec<Exporter> = (0..3)
        .map(|i| {
            let index = i.to_string();
            let mut args = vec!["--total-shards", "3", "--shard", index.as_str()];
            args.extend_from_slice(&keep_events);
            Exporter::watching(&kubeconfig, &args)
        })
        .collect();
    for shard in &shards {
        shard.wait_ready().await;
    }
    let mut union = Vec::new();
    for shard in &shards {
        let mine = findings(shard).await;
        assert!(!mine.is_empty(), "every shard has findings here");
        union.extend(mine);
    }
    union.sort();
    assert_eq!(
        union, expected,
        "the union of the shards is the single exporter's"
    );

    // No shard listed a namespaced kind across all namespaces, and each
    // namespace's pods were listed by exactly one shard.
    let requests = server.requests();
    for r in &requests {
        assert!(
            ![
                "/api/v1/pods",
                "/api/v1/events",
                "/apis/apps/v1/deployments"
            ]
            .contains(&r.path.as_str()),
            "a shard listed {} across namespaces",
            r.path
        );
    }
    let every_namespace: BTreeSet<String> = example_objects()
        .iter()
        .filter_map(|o| match o["kind"].as_str() {
            Some("Namespace") => o["metadata"]["name"].as_str().map(String::from),
            _ => o["metadata"]["namespace"].as_str().map(String::from),
        })
        .chain((0..12).map(|i| format!("team-{i}")))
        .collect();
    for ns in &every_namespace {
        let lists = requests
            .iter()
            .filter(|r| !r.watch && r.path == format!("/api/v1/namespaces/{ns}/pods"))
            .count();
        assert_eq!(lists, 1, "pods of {ns} listed {lists} times");
    }

    // A namespace that appears later is followed by its shard only; when it is
    // deleted, its findings go.
    server.apply(namespace("late-team"));
    server.apply(stuck_pod("late-team", "late-stuck"));
    let start = Instant::now();
    let reporting = loop {
        let mut reporting = Vec::new();
        for (i, shard) in shards.iter().enumerate() {
            if findings(shard).await.iter().any(|k| k.2 == "late-stuck") {
                reporting.push(i);
            }
        }
        if !reporting.is_empty() || start.elapsed() > Duration::from_secs(30) {
            break reporting;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(reporting.len(), 1, "reported by shards {reporting:?}");
    server.delete("v1", "Pod", Some("late-team"), "late-stuck");
    server.delete("v1", "Namespace", None, "late-team");
    let owner = &shards[reporting[0]];
    let start = Instant::now();
    while findings(owner).await.iter().any(|k| k.1 == "late-team") {
        assert!(start.elapsed() < Duration::from_secs(30));
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    for shard in shards {
        shard.terminate();
    }
}

#[test]
fn shard_arguments_are_checked() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(BIN)
            .arg("serve")
            .args(args)
            .args(["--kubeconfig", "/nonexistent", "--listen", "127.0.0.1:0"])
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, err) = run(&["--shard", "3", "--total-shards", "3"]);
    assert!(!ok);
    assert!(err.contains("shards are numbered 0 to 2"), "{err}");
    let (ok, err) = run(&[
        "--shard-from-pod-name",
        "exporter-7d9f8-abcde",
        "--total-shards",
        "3",
    ]);
    assert!(!ok);
    assert!(err.contains("does not end in -<ordinal>"), "{err}");
}
