//! kubectl against the fake server: discovery, short names, tables, chunked
//! lists, selectors and `--watch`. Skipped where no kubectl is installed.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{labelled_pod, pod};
use fake_apiserver::FakeApiServer;
use serde_json::json;

fn kubectl_available() -> bool {
    Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs kubectl with its own kubeconfig and discovery cache; returns stdout,
/// panicking with stderr on failure.
fn kubectl(kubeconfig: &Path, cache: &Path, args: &[&str]) -> String {
    let output = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("--cache-dir")
        .arg(cache)
        .args(args)
        .output()
        .expect("kubectl runs");
    assert!(
        output.status.success(),
        "kubectl {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn scratch_dir(server: &FakeApiServer) -> PathBuf {
    let port = server.url().rsplit(':').next().unwrap_or("0").to_string();
    let dir = std::env::temp_dir().join(format!(
        "fake-apiserver-kubectl-{}-{port}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread")]
async fn kubectl_gets_lists_and_watches() {
    if !kubectl_available() {
        eprintln!("kubectl is not installed; skipping");
        return;
    }
    let server = FakeApiServer::start().await.unwrap();
    server.apply(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}));
    server.apply(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}}));
    server.apply(labelled_pod("shop", "web-1", "web", "n1"));
    server.apply(labelled_pod("shop", "web-2", "web", "n2"));
    server.apply(labelled_pod("shop", "db-1", "db", "n1"));
    let dir = scratch_dir(&server);
    let kubeconfig = dir.join("kubeconfig");
    server.write_kubeconfig(&kubeconfig).unwrap();
    let cache = dir.join("cache");

    let background = server.clone();
    let (kubeconfig2, cache2) = (kubeconfig.clone(), cache.clone());
    let outputs = tokio::task::spawn_blocking(move || {
        let run = |args: &[&str]| kubectl(&kubeconfig2, &cache2, args);
        let all = run(&["get", "pods", "-A"]);
        let names = run(&["get", "po", "-n", "shop", "-o", "name", "--chunk-size=1"]);
        let namespace = run(&["get", "ns", "shop", "-o", "json"]);
        let deployments = run(&["get", "deploy", "-n", "shop", "-o", "name"]);
        let selected = run(&[
            "get",
            "pods",
            "-n",
            "shop",
            "-l",
            "app=web",
            "--field-selector",
            "spec.nodeName=n2",
            "-o",
            "name",
        ]);
        (all, names, namespace, deployments, selected)
    })
    .await
    .unwrap();
    let (all, names, namespace, deployments, selected) = outputs;
    assert!(all.contains("shop") && all.contains("web-1"), "{all}");
    assert_eq!(names, "pod/db-1\npod/web-1\npod/web-2\n");
    let namespace: serde_json::Value = serde_json::from_str(&namespace).unwrap();
    assert_eq!(namespace["metadata"]["name"], "shop");
    assert_eq!(deployments, "deployment.apps/web\n");
    assert_eq!(selected, "pod/web-2\n");
    let chunked = server
        .requests()
        .iter()
        .filter(|r| r.query.contains("continue="))
        .count();
    assert_eq!(chunked, 2, "--chunk-size=1 pages through three pods");

    // --watch prints the initial pods, then a change, until the request times out.
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        background.apply(pod("shop", "web-3"));
    });
    let watched = tokio::task::spawn_blocking(move || {
        let output = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .arg("--cache-dir")
            .arg(&cache)
            .args([
                "get",
                "pods",
                "-n",
                "shop",
                "--watch",
                "--request-timeout=3s",
                "-o",
                "name",
            ])
            .output()
            .expect("kubectl runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    })
    .await
    .unwrap();
    assert_eq!(watched, "pod/db-1\npod/web-1\npod/web-2\npod/web-3\n");
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.watch && r.path == "/api/v1/namespaces/shop/pods")
    );
    let _ = std::fs::remove_dir_all(dir);
}
