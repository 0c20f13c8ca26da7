//! deploy/: the kustomize base, its overlays and the all-in-one file.
//!
//! What is generated (the PrometheusRule from alerts/, the dashboard ConfigMaps
//! from dashboards/, the all-in-one file from the base) is written by `cargo xtask
//! generate` (xtask/src/deploy.rs; scripts/test runs its `--check`); here it must
//! mean what it is made from. Every kustomization is rendered
//! (tests/deploy/kustomize.rs, and `kubectl kustomize` when kubectl is installed)
//! and validated against the Kubernetes schemas with `kubernetes-validate`, which
//! `scripts/test` installs. The ClusterRole is compared with what the code
//! watches, the workload with the restricted Pod Security Standard, and its flags
//! and probes with the real binary.

use crate::common;
use crate::generate;
use crate::kustomize;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::exporter::{BIN, Exporter};
use generate::{ALL_IN_ONE, NAMESPACE, PROMETHEUS_RULE, RULES};
use kube_lifecycle_exporter::source::watch::{VERBS, watched_resources};
use serde_json::{Value, json};

mod cluster_role;
mod generated;
mod operator_resources;
mod overlays;
mod validation;
mod workloads;

const OVERLAYS: &[&str] = &[
    "deploy/overlays/prometheus-operator",
    "deploy/overlays/kube-prometheus-stack",
    "deploy/overlays/sharded",
    "deploy/overlays/without-prometheus-operator",
    "deploy/overlays/auth-kubernetes",
];
/// The kinds kubernetes-validate has no schema for: the Prometheus Operator's.
const CUSTOM_KINDS: &[&str] = &["ServiceMonitor", "PrometheusRule"];
/// The oldest and newest Kubernetes versions whose schemas kubernetes-validate
/// 1.37 ships (it has 1.25 to 1.37).
const KUBERNETES_VERSIONS: &[&str] = &["1.25.0", "1.37.0"];
/// The API server's limit on the size of all annotations of an object, which
/// `kubectl apply`'s last-applied-configuration must fit in.
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(root().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

fn render(relative: &str) -> Vec<Value> {
    kustomize::render(&root().join(relative)).unwrap_or_else(|e| panic!("{e}"))
}

fn base() -> Vec<Value> {
    render("deploy")
}

/// The opt-in overlay for the Prometheus Operator: the default and its two kinds.
fn operator() -> Vec<Value> {
    render("deploy/overlays/prometheus-operator")
}

fn find<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

fn one<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    match find(objects, kind)[..] {
        [o] => o,
        ref all => panic!("expected one {kind}, found {}", all.len()),
    }
}

fn yaml(text: &str, what: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The dashboard files, sorted by name.
fn dashboard_files() -> Vec<(String, String)> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("dashboards"))
        .expect("dashboards/")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no dashboards");
    names
        .into_iter()
        .map(|n| {
            let text = read(&format!("dashboards/{n}"));
            (n, text)
        })
        .collect()
}

/// The pod templates of every workload the base and the overlays render.
fn workloads() -> Vec<(String, Value)> {
    let mut all = Vec::new();
    for dir in std::iter::once("deploy").chain(OVERLAYS.iter().copied()) {
        for object in render(dir) {
            if object["kind"] == "Deployment" || object["kind"] == "StatefulSet" {
                all.push((format!("{dir}: {}", kustomize::id(&object)), object));
            }
        }
    }
    assert_eq!(
        all.len(),
        1 + OVERLAYS.len(),
        "one workload per kustomization"
    );
    all
}

fn the_container(pod: &Value) -> &Value {
    let containers = pod["containers"].as_array().expect("containers");
    assert_eq!(containers.len(), 1);
    assert!(pod.get("initContainers").is_none());
    &containers[0]
}

fn args(container: &Value) -> Vec<String> {
    container["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("a string").to_string())
        .collect()
}
