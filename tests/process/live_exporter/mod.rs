//! The real exporter binary against the in-repo fake API server, which speaks the
//! list/watch protocol (resourceVersion, bookmarks, 410 Gone, chunked watches).

use crate::common;

use std::path::PathBuf;

use common::exporter::{Exporter, example_findings, example_objects, has, samples};
use fake_apiserver::{FakeApiServer, Fault};
use serde_json::{Value, json};

mod anomaly_families;
mod serving;
mod watches;

/// A fake API server holding `objects`, and a kubeconfig pointing at it.
async fn cluster(objects: Vec<Value>) -> (FakeApiServer, tempfile::TempDir, PathBuf) {
    let server = FakeApiServer::start()
        .await
        .expect("fake API server starts");
    for object in objects {
        server.apply(object);
    }
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    server.write_kubeconfig(&kubeconfig).unwrap();
    (server, dir, kubeconfig)
}

/// Example events are years old; keep them all.
const KEEP_EVENTS: [&str; 2] = ["--event-max-age", "1000000h"];

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/os": "linux"}},
           "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}})
}

fn pod(name: &str, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "shop", "creationTimestamp": "2024-06-01T10:00:00Z"},
           "spec": {"nodeName": node, "containers": [{"name": "app", "image": "nginx"}]},
           "status": {"phase": "Running", "conditions": [
               {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-06-01T10:00:01Z"},
               {"type": "Ready", "status": "True", "lastTransitionTime": "2024-06-01T10:00:09Z"}],
               "containerStatuses": [{"name": "app", "image": "nginx", "ready": true, "restartCount": 0,
                                      "state": {"running": {"startedAt": "2024-06-01T10:00:05Z"}}}]}})
}

/// A pod whose deletion was requested an hour ago and whose node is gone.
fn stuck_pod(name: &str) -> Value {
    let mut p = pod(name, "vanished-node");
    p["metadata"]["deletionTimestamp"] = json!("2020-01-01T00:00:30Z");
    p["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    p
}
