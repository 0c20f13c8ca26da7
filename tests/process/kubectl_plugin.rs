//! `kubectl lifecycle diagnose` (the `kubectl-lifecycle` binary) against the fake
//! API server: the same table as the offline command, namespaces, paging with a
//! progress line, errors.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::exporter::example_objects;
use fake_apiserver::FakeApiServer;
use serde_json::json;

const PLUGIN: &str = env!("CARGO_BIN_EXE_kubectl-lifecycle");
const EXPORTER: &str = env!("CARGO_BIN_EXE_kube-lifecycle-exporter");
const NOW: &str = "2024-06-01T00:00:00Z";

async fn example_cluster() -> (FakeApiServer, tempfile::TempDir, PathBuf) {
    let server = FakeApiServer::start().await.unwrap();
    for object in example_objects() {
        server.apply(object);
    }
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    server.write_kubeconfig(&kubeconfig).unwrap();
    (server, dir, kubeconfig)
}

fn plugin(kubeconfig: &Path, args: &[&str]) -> Output {
    Command::new(PLUGIN)
        .arg("diagnose")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["--now", NOW])
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The plugin's output with its runbook command written as the exporter's.
fn as_offline(bytes: &[u8]) -> String {
    text(bytes).replace(
        "kubectl lifecycle runbook ",
        "kube-lifecycle-exporter runbook ",
    )
}

fn offline(args: &[&str]) -> String {
    let out = Command::new(EXPORTER)
        .args([
            "diagnose",
            concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml"),
            "--now",
            NOW,
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[tokio::test(flavor = "multi_thread")]
async fn prints_the_same_table_as_the_offline_command() {
    let (_server, _dir, kubeconfig) = example_cluster().await;
    let out = plugin(&kubeconfig, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert_eq!(as_offline(&out.stdout), offline(&[]));
    assert!(table.contains("cam1-78b6fc6bc8-cjsw5"), "{table}");
    // The runbook column names the plugin's own command.
    assert!(
        table.contains("kubectl lifecycle runbook KubeLifecyclePodTerminatingCleanupStuck"),
        "{table}"
    );

    let json_out = plugin(&kubeconfig, &["-o", "json"]);
    assert_eq!(as_offline(&json_out.stdout), offline(&["--output", "json"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_namespace_limits_what_is_listed_and_reported() {
    let (server, _dir, kubeconfig) = example_cluster().await;
    server.clear_requests();
    let out = plugin(&kubeconfig, &["-n", "middleware", "-o", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!findings.is_empty());
    for f in &findings {
        assert_eq!(f["namespace"], "middleware", "{f}");
    }
    // Namespaced kinds were listed in that namespace only.
    let requests = server.requests();
    let namespaced: Vec<&str> = requests
        .iter()
        .map(|r| r.path.as_str())
        .filter(|p| {
            ["/pods", "/deployments", "/events"]
                .iter()
                .any(|k| p.ends_with(k))
        })
        .collect();
    assert_eq!(namespaced.len(), 3, "{namespaced:?}");
    for path in namespaced {
        assert!(path.contains("/namespaces/middleware/"), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_large_cluster_is_listed_in_pages_with_progress() {
    let (server, _dir, kubeconfig) = example_cluster().await;
    for i in 0..1_200 {
        server.apply(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("web-{i}"), "namespace": "bulk", "creationTimestamp": "2024-05-01T00:00:00Z"},
            "spec": {"nodeName": "node1", "containers": [{"name": "app", "image": "nginx:1.27"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                "containerStatuses": [{"name": "app", "image": "nginx:1.27", "ready": true, "restartCount": 0,
                    "state": {"running": {"startedAt": "2024-05-01T00:00:05Z"}}}]}}));
    }
    let out = plugin(&kubeconfig, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Not a terminal: no progress at all, only the one-line summary.
    let progress = text(&out.stderr);
    assert!(
        !progress.contains("listing") && !progress.contains("listed"),
        "{progress}"
    );
    assert_eq!(progress.lines().count(), 1, "{progress}");
    assert!(progress.ends_with(": 42 findings\n"), "{progress}");
    // Every page was read.
    let pod_pages = server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/pods"))
        .count();
    assert!(pod_pages >= 3, "{pod_pages} pod list requests");
    // Healthy pods add nothing.
    assert_eq!(as_offline(&out.stdout), offline(&[]));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_cluster_is_a_clear_error() {
    let (server, dir, kubeconfig) = example_cluster().await;
    server.pause().await;
    let out = plugin(&kubeconfig, &[]);
    assert!(!out.status.success());
    let message = text(&out.stderr);
    assert!(
        message.contains("kubectl lifecycle: listing the cluster at"),
        "{message}"
    );
    assert!(message.contains("listing nodes"), "{message}");
    drop(dir);
}

/// Through kubectl itself, where it is installed (it is not a Debian package, so CI
/// machines may not have it; the tests above run the same binary directly).
#[tokio::test(flavor = "multi_thread")]
async fn kubectl_finds_and_runs_the_plugin() {
    if Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_err()
    {
        eprintln!("kubectl not installed; skipped");
        return;
    }
    let (_server, _dir, kubeconfig) = example_cluster().await;
    let bin_dir = Path::new(PLUGIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("kubectl")
        .args(["lifecycle", "diagnose", "--now", NOW])
        .env("PATH", path)
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(as_offline(&out.stdout), offline(&[]));
}

/// `kubectl lifecycle diagnose -f dump.json`: a dump instead of the cluster, no
/// kubeconfig needed; `-f -` reads standard input.
#[test]
fn a_dump_is_read_with_f() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");
    let out = Command::new(PLUGIN)
        .args(["diagnose", "-f", example])
        .env("KUBECONFIG", "/nonexistent")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Judged as of the example's own time, as the offline command does.
    assert_eq!(as_offline(&out.stdout), offline(&[]));

    let piped = Command::new(PLUGIN)
        .args(["diagnose", "--filename", "-", "-o", "json", "--now", NOW])
        .stdin(std::fs::File::open(example).unwrap())
        .output()
        .unwrap();
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    assert_eq!(as_offline(&piped.stdout), offline(&["-o", "json"]));

    let both = Command::new(PLUGIN)
        .args(["diagnose", "-f", example, "-n", "shop"])
        .output()
        .unwrap();
    assert_eq!(
        both.status.code(),
        Some(2),
        "-f and -n together are refused"
    );
}

#[test]
fn runbooks_are_printed_from_the_binary() {
    let out = Command::new(PLUGIN)
        .args(["runbook", "KubeLifecycleNodeLost"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        include_str!("../../docs/runbooks/KubeLifecycleNodeLost.md")
    );
}

/// On a terminal the progress is one line, rewritten in place (`\r`, erase to
/// the end of the line) and erased before the table. `script` (util-linux)
/// gives the plugin a terminal; without it the test says so and passes.
#[tokio::test(flavor = "multi_thread")]
async fn on_a_terminal_progress_is_one_line_rewritten_in_place() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: script (util-linux) is not installed");
        return;
    }
    let (_server, _dir, kubeconfig) = example_cluster().await;
    let command = format!(
        "{PLUGIN} diagnose --kubeconfig {} --now {NOW} >/dev/null",
        kubeconfig.display()
    );
    let out = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let terminal = text(&out.stdout);
    assert!(terminal.contains("\r\x1b[Klisting pods: "), "{terminal:?}");
    // No line of its own per resource: every progress write starts with `\r`.
    let lines: Vec<&str> = terminal
        .split('\n')
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "one line on the terminal: {terminal:?}");
    // Erased at the end, then the summary.
    assert!(
        lines[0].contains("\r\x1b[K") && lines[0].trim_end().ends_with(": 42 findings"),
        "{terminal:?}"
    );
    assert!(!terminal.contains("listed "), "{terminal:?}");
}
