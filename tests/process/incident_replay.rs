//! Incidents replayed as an on-call engineer lives them: each incident is a cluster
//! dump served by its own real exporter (`serve --from-file`), scraped by one real
//! Prometheus under its own `cluster` label and evaluated with the shipped rules;
//! one real Alertmanager with the shipped configuration notifies a receiver owned by
//! the test, which counts the notifications each incident causes, per severity.
//! In the middle of two incidents a scrape fails and the exporter restarts.
//!
//! The bar (alerts/README.md): exactly one page for a lost node, a failing registry
//! or an admission webhook outage, none for a node-local image problem or one
//! misconfigured pod, and no flap (nothing resolved, nothing sent again) across a
//! missed scrape or a restart.
//!
//! The test-only rewrite of the shipped files is alerts/README.md's: `for` and
//! `keep_firing_for` in minutes become seconds; the Alertmanager configuration's
//! webhook URLs point at the receiver and its group_wait/group_interval become 1s.
//!
//! A second test runs the kubernetes-mixin inhibitions in Alertmanager with the
//! mixin's real alert names and labels.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use common::alerting::{
    Notification, alertmanager, alertmanager_config, shortened_rules, start_receiver,
};
use common::daemons::{prometheus_query, wait_until, wait_until_async};
use common::exporter::Exporter;
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scrape target in front of an exporter: it can fail scrapes (a missed scrape)
/// and be pointed at a new exporter (a restart).
#[derive(Clone, Default)]
struct Proxy {
    upstream: Arc<Mutex<Option<String>>>,
}

impl Proxy {
    async fn start() -> (Proxy, String) {
        let proxy = Proxy::default();
        async fn metrics(State(proxy): State<Proxy>) -> axum::response::Response {
            let Some(upstream) = proxy.upstream.lock().unwrap().clone() else {
                return (StatusCode::SERVICE_UNAVAILABLE, "no exporter").into_response();
            };
            match reqwest::get(format!("{upstream}/metrics")).await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    let content_type = response
                        .headers()
                        .get("content-type")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("text/plain")
                        .to_string();
                    let body = response.text().await.unwrap_or_default();
                    (
                        StatusCode::from_u16(status).unwrap(),
                        [("content-type", content_type)],
                        body,
                    )
                        .into_response()
                }
                Err(e) => (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
            }
        }
        let app = axum::Router::new()
            .route("/metrics", get(metrics))
            .with_state(proxy.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (proxy, address.to_string())
    }

    fn point_at(&self, upstream: Option<&str>) {
        *self.upstream.lock().unwrap() = upstream.map(String::from);
    }
}

/// Whether Prometheus' last scrape of each of `clusters` has `up` equal to `up`.
async fn scraped(http: &reqwest::Client, prometheus: &str, clusters: &[&str], up: f64) -> bool {
    let answer = prometheus_query(http, prometheus, "up").await;
    let series = answer["data"]["result"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    clusters.iter().all(|cluster| {
        series.iter().any(|s| {
            s["metric"]["cluster"] == *cluster
                && s["value"][1].as_str().and_then(|v| v.parse().ok()) == Some(up)
        })
    })
}

/// Whether Prometheus keeps an alert of one of `clusters` firing only by its
/// `keep_firing_for`, its expression not having held since.
async fn kept_firing(http: &reqwest::Client, prometheus: &str, clusters: &[&str]) -> bool {
    let alerts: Value = http
        .get(format!("{prometheus}/api/v1/alerts"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    alerts["data"]["alerts"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|a| {
            clusters.iter().any(|c| a["labels"]["cluster"] == *c)
                && a.get("keepFiringSince").is_some_and(|v| !v.is_null())
        })
}

// ------------------------------------------------------------------------ the cluster

fn at(offset_seconds: i64) -> String {
    jiff::Timestamp::now()
        .checked_add(jiff::SignedDuration::from_secs(offset_seconds))
        .unwrap()
        .to_string()
}

fn uid(name: &str) -> String {
    // Stable and distinct per name: good enough for a test dump.
    let mut h: u64 = 0xcbf29ce484222325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0xfff,
        (h >> 20) & 0xfff,
        h & 0xffffffffffff
    )
}

fn node(name: &str, ready: bool) -> Value {
    let (status, reason, message) = if ready {
        ("True", "KubeletReady", "kubelet is posting ready status")
    } else {
        (
            "Unknown",
            "NodeStatusUnknown",
            "Kubelet stopped posting node status.",
        )
    };
    let mut node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": uid(name), "creationTimestamp": at(-86400 * 30),
            "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
        "spec": {},
        "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": status, "reason": reason, "message": message,
                "lastHeartbeatTime": at(if ready { -10 } else { -1500 }),
                "lastTransitionTime": at(if ready { -86400 } else { -1460 })}]}});
    if !ready {
        node["spec"]["taints"] = json!([
            {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": at(-1460)},
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": at(-1455)}]);
    }
    node
}

fn owner(kind: &str, name: &str) -> Value {
    let api = if kind == "Job" { "batch/v1" } else { "apps/v1" };
    json!([{"apiVersion": api, "kind": kind, "name": name, "uid": uid(name), "controller": true, "blockOwnerDeletion": true}])
}

/// A running, ready pod of `owner` on `node`.
fn running(namespace: &str, name: &str, node: &str, owner_ref: Value, image: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid(name),
            "creationTimestamp": at(-7200), "ownerReferences": owner_ref},
        "spec": {"nodeName": node, "schedulerName": "default-scheduler",
            "containers": [{"name": "app", "image": image}]},
        "status": {"phase": "Running", "startTime": at(-7190),
            "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": at(-7200)},
                {"type": "Ready", "status": "True", "lastTransitionTime": at(-7100)}],
            "containerStatuses": [{"name": "app", "image": image, "ready": true, "restartCount": 0,
                "state": {"running": {"startedAt": at(-7180)}}}]}})
}

/// `pod`, deleted `ago` seconds ago with a 30 s grace period.
fn deleted(mut pod: Value, ago: i64) -> Value {
    pod["metadata"]["deletionTimestamp"] = json!(at(30 - ago));
    pod["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    pod["status"]["conditions"][1]["status"] = json!("False");
    pod
}

/// A pod on `node` whose one container waits with `reason` and `message`.
fn waiting(
    namespace: &str,
    name: &str,
    node: &str,
    image: &str,
    reason: &str,
    message: &str,
) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid(name), "creationTimestamp": at(-1500),
            "ownerReferences": owner("ReplicaSet", &format!("{namespace}-rs"))},
        "spec": {"nodeName": node, "schedulerName": "default-scheduler",
            "containers": [{"name": "app", "image": image}]},
        "status": {"phase": "Pending", "startTime": at(-1490),
            "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": at(-1500)},
                {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "lastTransitionTime": at(-1500)}],
            "containerStatuses": [{"name": "app", "image": image, "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": reason, "message": message}}}]}})
}

/// The kubelet's warning event about `pod`'s container `app`.
fn kubelet_event(namespace: &str, pod: &str, node: &str, reason: &str, message: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{pod}.{}", &uid(message)[..12]), "namespace": namespace},
        "involvedObject": {"kind": "Pod", "name": pod, "namespace": namespace, "uid": uid(pod),
            "fieldPath": "spec.containers{app}"},
        "reason": reason, "message": message, "type": "Warning", "count": 12,
        "source": {"component": "kubelet", "host": node},
        "firstTimestamp": at(-1400), "lastTimestamp": at(-20)})
}

fn healthy_nodes(names: &[&str]) -> Vec<Value> {
    names.iter().map(|n| node(n, true)).collect()
}

/// A node powered off without `kubectl delete node`: its pods were evicted (deleted)
/// and stay Terminating; a Recreate Deployment, a StatefulSet and DaemonSets had
/// pods on it. The seed incident.
fn node_lost() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    objects.push(node("worker-3", false));
    // Recreate Deployment whose old pod is on the lost node; the new ReplicaSet
    // waits for it.
    objects.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "crontab-runner", "namespace": "cron", "uid": uid("crontab-runner"), "generation": 4,
            "annotations": {"deployment.kubernetes.io/revision": "4"}},
        "spec": {"replicas": 1, "strategy": {"type": "Recreate"}},
        "status": {"observedGeneration": 4, "replicas": 1, "unavailableReplicas": 1}}));
    for (rs, replicas, revision) in [
        ("crontab-runner-5b9f7c", 0, "3"),
        ("crontab-runner-6d4c8f", 1, "4"),
    ] {
        objects.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs, "namespace": "cron", "uid": uid(rs),
                "annotations": {"deployment.kubernetes.io/revision": revision},
                "ownerReferences": owner("Deployment", "crontab-runner")},
            "spec": {"replicas": replicas}, "status": {"replicas": 1 - replicas}}));
    }
    objects.push(deleted(
        running(
            "cron",
            "crontab-runner-5b9f7c-x2k9p",
            "worker-3",
            owner("ReplicaSet", "crontab-runner-5b9f7c"),
            "hub.example.com/ops/crontab:2026.10",
        ),
        900,
    ));
    // A StatefulSet whose pod on the lost node cannot be recreated.
    objects.push(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "zk", "namespace": "middleware", "uid": uid("zk")},
        "spec": {"replicas": 3, "serviceName": "zk", "podManagementPolicy": "OrderedReady"},
        "status": {"replicas": 3, "readyReplicas": 2}}));
    objects.push(running(
        "middleware",
        "zk-0",
        "worker-1",
        owner("StatefulSet", "zk"),
        "zookeeper:3.9",
    ));
    objects.push(deleted(
        running(
            "middleware",
            "zk-1",
            "worker-3",
            owner("StatefulSet", "zk"),
            "zookeeper:3.9",
        ),
        900,
    ));
    objects.push(running(
        "middleware",
        "zk-2",
        "worker-2",
        owner("StatefulSet", "zk"),
        "zookeeper:3.9",
    ));
    // A RollingUpdate workload's pod, evicted too, already replaced elsewhere.
    objects.push(deleted(
        running(
            "shop",
            "web-7f9d-abcde",
            "worker-3",
            owner("ReplicaSet", "web-7f9d"),
            "nginx:1.27",
        ),
        900,
    ));
    objects.push(running(
        "shop",
        "web-7f9d-fghij",
        "worker-1",
        owner("ReplicaSet", "web-7f9d"),
        "nginx:1.27",
    ));
    // DaemonSets: their pods on the lost node are not evicted; nothing is missing on
    // the Ready nodes.
    for ds in ["node-exporter", "fluent-bit"] {
        objects.push(json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": ds, "namespace": "monitoring", "uid": uid(ds), "creationTimestamp": at(-86400)},
            "spec": {"selector": {"matchLabels": {"app": ds}},
                "template": {"metadata": {"labels": {"app": ds}},
                    "spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": ds, "image": format!("{ds}:1")}]}}},
            "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 2, "numberAvailable": 2}}));
        for node in ["worker-1", "worker-2", "worker-3"] {
            objects.push(running(
                "monitoring",
                &format!("{ds}-{node}"),
                node,
                owner("DaemonSet", ds),
                &format!("{ds}:1"),
            ));
        }
    }
    objects
}

const REGISTRY: &str = "registry.corp.example:5000";

/// The company registry is down during a rolling update: pulls fail on every node.
fn registry_down() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2", "worker-3"]);
    objects.extend(deployment(
        "shop",
        "web",
        "shop-rs",
        3,
        3,
        ("True", "ReplicaSetUpdated"),
    ));
    objects.extend(deployment(
        "billing",
        "api",
        "billing-rs",
        2,
        2,
        ("True", "ReplicaSetUpdated"),
    ));
    for (i, node) in ["worker-1", "worker-2", "worker-3", "worker-1", "worker-2"]
        .iter()
        .enumerate()
    {
        let (ns, app) = if i < 3 {
            ("shop", "web")
        } else {
            ("billing", "api")
        };
        let image = format!("{REGISTRY}/{ns}/{app}:2.4");
        let pod = format!("{app}-6c8d9-{i}");
        let failure = if i % 2 == 0 {
            format!(
                "Failed to pull image \"{image}\": rpc error: code = Unknown desc = failed to pull and unpack image \"{image}\": failed to resolve reference \"{image}\": failed to do request: Head \"https://{REGISTRY}/v2/{ns}/{app}/manifests/2.4\": dial tcp 10.20.0.15:5000: connect: connection refused"
            )
        } else {
            format!(
                "Failed to pull image \"{image}\": rpc error: code = DeadlineExceeded desc = failed to pull and unpack image \"{image}\": failed to resolve reference \"{image}\": failed to do request: Head \"https://{REGISTRY}/v2/{ns}/{app}/manifests/2.4\": dial tcp 10.20.0.15:5000: i/o timeout"
            )
        };
        objects.push(waiting(
            ns,
            &pod,
            node,
            &image,
            "ImagePullBackOff",
            &format!("Back-off pulling image \"{image}\""),
        ));
        objects.push(kubelet_event(ns, &pod, node, "Failed", &failure));
    }
    objects
}

/// One node's image store is damaged: every image it inspects fails.
fn node_image_store_corrupt() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    for (i, image) in ["nginx:1.27", "redis:7.2", "ghcr.io/acme/api:3.1"]
        .iter()
        .enumerate()
    {
        let message = format!(
            "Failed to inspect image \"{image}\": rpc error: code = Unknown desc = Error response from daemon: readlink /var/lib/docker/overlay2/l: invalid argument"
        );
        let pod = format!("app-{i}");
        objects.push(waiting(
            "shop",
            &pod,
            "worker-2",
            image,
            "ImageInspectError",
            &message,
        ));
        objects.push(kubelet_event(
            "shop",
            &pod,
            "worker-2",
            "InspectFailed",
            &message,
        ));
    }
    objects
}

/// One node's disk is full: images do not unpack there, from any registry.
fn node_disk_full() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    for (i, image) in [
        format!("{REGISTRY}/shop/web:2.5"),
        "docker.io/library/postgres:16".to_string(),
        format!("{REGISTRY}/billing/api:2.5"),
    ]
    .iter()
    .enumerate()
    {
        let pod = format!("app-{i}");
        let message = format!(
            "Failed to pull image \"{image}\": rpc error: code = Unknown desc = failed to pull and unpack image \"{image}\": failed to extract layer sha256:5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef: write /var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/211/fs/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1: no space left on device: unknown"
        );
        objects.push(waiting(
            "shop",
            &pod,
            "worker-1",
            image,
            "ImagePullBackOff",
            &format!("Back-off pulling image \"{image}\""),
        ));
        objects.push(kubelet_event("shop", &pod, "worker-1", "Failed", &message));
    }
    objects
}

/// One Deployment's pod template names `defualt-scheduler`: nothing ever schedules
/// its pod, while every other pod is scheduled as usual.
fn scheduler_name_typo() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    objects.push(running(
        "shop",
        "web-7f9d-aaaaa",
        "worker-1",
        owner("ReplicaSet", "web-7f9d"),
        "nginx:1.27",
    ));
    objects.push(running(
        "shop",
        "web-7f9d-bbbbb",
        "worker-2",
        owner("ReplicaSet", "web-7f9d"),
        "nginx:1.27",
    ));
    objects.push(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "billing-5c7d8-q2w3e", "namespace": "billing", "uid": uid("billing-typo"),
            "creationTimestamp": at(-1800), "ownerReferences": owner("ReplicaSet", "billing-5c7d8")},
        "spec": {"schedulerName": "defualt-scheduler", "containers": [{"name": "app", "image": "ghcr.io/acme/billing:1.4"}]},
        "status": {"phase": "Pending"}}));
    objects
}

/// A controller's `FailedCreate` warning event about itself.
fn failed_create(namespace: &str, kind: &str, name: &str, component: &str, message: &str) -> Value {
    let api = match kind {
        "Job" => "batch/v1",
        "ReplicationController" => "v1",
        _ => "apps/v1",
    };
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{name}.{}", &uid(message)[..12]), "namespace": namespace},
        "involvedObject": {"apiVersion": api, "kind": kind, "name": name, "namespace": namespace, "uid": uid(name)},
        "reason": "FailedCreate", "message": message, "type": "Warning", "count": 23,
        "source": {"component": component},
        "firstTimestamp": at(-1400), "lastTimestamp": at(-20)})
}

const INJECTOR: &str = "inject.mesh.example.io";

/// The mesh's sidecar injector is down and its webhook fails closed: in every
/// namespace it covers, no pod is created. Rollouts in two namespaces, a
/// StatefulSet in a third and a DaemonSet in a fourth are refused, each with its
/// controller's wording of the same failure (a timeout, no endpoints, a refused
/// connection).
fn webhook_outage() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2", "worker-3"]);
    let call = |error: &str| {
        format!(
            "Internal error occurred: failed calling webhook \"{INJECTOR}\": failed to call webhook: Post \"https://injector.mesh-system.svc:443/inject?timeout=10s\": {error}"
        )
    };
    for (ns, deployment, rs, error) in [
        ("shop", "web", "web-6c8d9f7b5", "context deadline exceeded"),
        (
            "billing",
            "api",
            "api-7d9e8f6c4",
            "no endpoints available for service \"injector\"",
        ),
    ] {
        objects.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs, "namespace": ns, "uid": uid(rs), "creationTimestamp": at(-1500),
                "ownerReferences": owner("Deployment", deployment)},
            "spec": {"replicas": 3}, "status": {"replicas": 1,
                "conditions": [{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
                    "message": call(error), "lastTransitionTime": at(-1400)}]}}));
        objects.push(failed_create(
            ns,
            "ReplicaSet",
            rs,
            "replicaset-controller",
            &format!("Error creating: {}", call(error)),
        ));
    }
    objects.push(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "queue", "namespace": "orders", "uid": uid("queue"), "creationTimestamp": at(-1500)},
        "spec": {"replicas": 3}, "status": {"replicas": 2}}));
    objects.push(failed_create(
        "orders",
        "StatefulSet",
        "queue",
        "statefulset-controller",
        &format!(
            "create Pod queue-2 in StatefulSet queue failed error: {}",
            call("dial tcp 10.96.14.7:443: connect: connection refused")
        ),
    ));
    objects.push(json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "log-agent", "namespace": "logging", "uid": uid("log-agent"), "creationTimestamp": at(-1500)},
        "spec": {"selector": {"matchLabels": {"app": "log-agent"}},
            "template": {"metadata": {"labels": {"app": "log-agent"}},
                "spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "agent", "image": "fluent-bit:3.0"}]}}},
        "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 0, "numberReady": 0}}));
    objects.push(failed_create(
        "logging",
        "DaemonSet",
        "log-agent",
        "daemonset-controller",
        &format!("Error creating: {}", call("context deadline exceeded")),
    ));
    objects
}

/// A meshed pod (Istio's proxy as a native sidecar) with no sandbox yet: every
/// container, init or not, waits with reason `PodInitializing`.
fn meshed_without_sandbox(namespace: &str, name: &str, node: &str) -> Value {
    let waits = |c: &str| {
        json!({"name": c, "image": "docker.io/istio/proxyv2:1.24.0", "ready": false, "restartCount": 0,
            "started": false, "state": {"waiting": {"reason": "PodInitializing"}}})
    };
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid(name), "creationTimestamp": at(-1500),
            "ownerReferences": owner("ReplicaSet", &format!("{namespace}-rs"))},
        "spec": {"nodeName": node, "schedulerName": "default-scheduler",
            "initContainers": [{"name": "istio-init", "image": "docker.io/istio/proxyv2:1.24.0"},
                {"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.24.0", "restartPolicy": "Always"}],
            "containers": [{"name": "app", "image": "ghcr.io/acme/app:1.0"}]},
        "status": {"phase": "Pending",
            "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": at(-1500)},
                {"type": "Initialized", "status": "False", "reason": "ContainersNotInitialized"},
                {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "lastTransitionTime": at(-1500)}],
            "initContainerStatuses": [waits("istio-init"), waits("istio-proxy")],
            "containerStatuses": [waits("app")]}})
}

/// The kubelet's FailedCreatePodSandBox about `pod`, as the network plugin
/// (Calico, projectcalico/calico#8379) answers it.
fn sandbox_failed(namespace: &str, pod: &str, node: &str) -> Value {
    let message = "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox \"d9f4c91394d548cca1b189e665fd0532f158bb5bb4407153aa48e1af40afe2f0\": plugin type=\"calico\" failed (add): error getting ClusterInformation: connection is unauthorized: Unauthorized";
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{pod}.sandbox"), "namespace": namespace},
        "involvedObject": {"kind": "Pod", "name": pod, "namespace": namespace, "uid": uid(pod)},
        "reason": "FailedCreatePodSandBox", "message": message, "type": "Warning", "count": 40,
        "source": {"component": "kubelet", "host": node},
        "firstTimestamp": at(-1400), "lastTimestamp": at(-20)})
}

/// The network plugin fails on one node only: that node's pods get no sandbox.
fn cni_down_on_one_node() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2", "worker-3"]);
    for (ns, pod) in [
        ("shop", "web-6c8d9-a"),
        ("shop", "web-6c8d9-b"),
        ("billing", "api-5f7b-c"),
    ] {
        objects.push(meshed_without_sandbox(ns, pod, "worker-2"));
        objects.push(sandbox_failed(ns, pod, "worker-2"));
    }
    objects
}

/// The network plugin's credentials are refused everywhere: no node starts a pod.
fn cni_down_everywhere() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2", "worker-3"]);
    for (i, node) in ["worker-1", "worker-2", "worker-3", "worker-1"]
        .iter()
        .enumerate()
    {
        let pod = format!("web-6c8d9-{i}");
        objects.push(meshed_without_sandbox("shop", &pod, node));
        objects.push(sandbox_failed("shop", &pod, node));
    }
    objects
}

/// A Deployment and its ReplicaSet `rs` (the pods' owner), as the deployment
/// controller leaves them when `unavailable` of `replicas` pods are not
/// available; `progressing` is its Progressing condition (status, reason).
fn deployment(
    namespace: &str,
    name: &str,
    rs: &str,
    replicas: i64,
    unavailable: i64,
    progressing: (&str, &str),
) -> Vec<Value> {
    let (status, reason) = progressing;
    let message = match reason {
        "ProgressDeadlineExceeded" => format!("ReplicaSet \"{rs}\" has timed out progressing."),
        "NewReplicaSetAvailable" => format!("ReplicaSet \"{rs}\" has successfully progressed."),
        _ => format!("ReplicaSet \"{rs}\" is progressing."),
    };
    let mut conditions = vec![
        json!({"type": "Progressing", "status": status, "reason": reason,
        "message": message, "lastUpdateTime": at(-900), "lastTransitionTime": at(-900)}),
    ];
    conditions.push(if unavailable >= replicas {
        json!({"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
            "message": "Deployment does not have minimum availability.", "lastTransitionTime": at(-1500)})
    } else {
        json!({"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
            "message": "Deployment has minimum availability.", "lastTransitionTime": at(-86400)})
    });
    let mut status = json!({"observedGeneration": 5, "replicas": replicas, "updatedReplicas": replicas,
        "readyReplicas": replicas - unavailable, "availableReplicas": replicas - unavailable,
        "conditions": conditions});
    if unavailable > 0 {
        status["unavailableReplicas"] = json!(unavailable);
    }
    vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace, "uid": uid(name), "generation": 5},
            "spec": {"replicas": replicas, "progressDeadlineSeconds": 600,
                "selector": {"matchLabels": {"app": name}}},
            "status": status}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs, "namespace": namespace, "uid": uid(rs), "creationTimestamp": at(-1600),
                "ownerReferences": owner("Deployment", name)},
            "spec": {"replicas": replicas},
            "status": {"replicas": replicas, "readyReplicas": replicas - unavailable,
                "availableReplicas": replicas - unavailable, "observedGeneration": 1}}),
    ]
}

/// A rolling update whose new image does not exist: the controller gave up
/// after progressDeadlineSeconds while the old pod serves.
fn rollout_stuck() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    objects.extend(deployment(
        "web",
        "gui",
        "gui-5cd74fc875",
        1,
        0,
        ("False", "ProgressDeadlineExceeded"),
    ));
    objects.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "gui-6f7d8b9c4", "namespace": "web", "uid": uid("gui-6f7d8b9c4"),
            "creationTimestamp": at(-86400), "ownerReferences": owner("Deployment", "gui")},
        "spec": {"replicas": 1}, "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}}));
    objects.push(running(
        "web",
        "gui-6f7d8b9c4-wq4zt",
        "worker-1",
        owner("ReplicaSet", "gui-6f7d8b9c4"),
        "ghcr.io/acme/gui:1.41.0",
    ));
    let image = "ghcr.io/acme/gui:1.42.0-rc1";
    let mut pod = waiting(
        "web",
        "gui-5cd74fc875-7hx2m",
        "worker-2",
        image,
        "ImagePullBackOff",
        &format!("Back-off pulling image \"{image}\""),
    );
    pod["metadata"]["ownerReferences"] = owner("ReplicaSet", "gui-5cd74fc875");
    objects.push(pod);
    objects.push(kubelet_event("web", "gui-5cd74fc875-7hx2m", "worker-2", "Failed", &format!(
        "Failed to pull image \"{image}\": rpc error: code = NotFound desc = failed to pull and unpack image \"{image}\": failed to resolve reference \"{image}\": {image}: not found")));
    objects
}

/// A StatefulSet update whose new revision crash-loops on its highest ordinal:
/// the update stops there, the two others serve the old revision.
fn statefulset_update_stuck() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2", "worker-3"]);
    objects.push(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "kafka", "namespace": "streaming", "uid": uid("kafka"), "generation": 4},
        "spec": {"replicas": 3, "serviceName": "kafka-headless", "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}},
        "status": {"observedGeneration": 4, "replicas": 3, "readyReplicas": 2, "currentReplicas": 2,
            "updatedReplicas": 1, "currentRevision": "kafka-5f8d7c6b9", "updateRevision": "kafka-7b6c5d4e3"}}));
    for (i, node) in ["worker-1", "worker-2"].iter().enumerate() {
        objects.push(running(
            "streaming",
            &format!("kafka-{i}"),
            node,
            owner("StatefulSet", "kafka"),
            "docker.io/bitnami/kafka:3.7",
        ));
    }
    let mut pod = running(
        "streaming",
        "kafka-2",
        "worker-3",
        owner("StatefulSet", "kafka"),
        "docker.io/bitnami/kafka:3.8",
    );
    pod["status"]["conditions"][1] = json!({"type": "Ready", "status": "False", "reason": "ContainersNotReady",
        "lastTransitionTime": at(-1500)});
    pod["status"]["containerStatuses"][0] = json!({"name": "app", "image": "docker.io/bitnami/kafka:3.8",
        "ready": false, "restartCount": 9, "started": false,
        "state": {"waiting": {"reason": "CrashLoopBackOff",
            "message": "back-off 5m0s restarting failed container=app pod=kafka-2_streaming(uid)"}},
        "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
            "startedAt": at(-130), "finishedAt": at(-125)}}});
    objects.push(pod);
    objects.push(kubelet_event(
        "streaming",
        "kafka-2",
        "worker-3",
        "BackOff",
        "Back-off restarting failed container app in pod kafka-2_streaming(uid)",
    ));
    objects
}

/// A Job whose every pod runs out of memory: the job controller fails it at
/// its backoff limit.
fn job_failed() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1"]);
    objects.push(json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "monthly-invoices", "namespace": "reports", "uid": uid("monthly-invoices")},
        "spec": {"backoffLimit": 2, "completions": 1, "parallelism": 1},
        "status": {"failed": 3, "startTime": at(-3000),
            "conditions": [
                {"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded",
                 "message": "Job has reached the specified backoff limit", "lastTransitionTime": at(-600)},
                {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                 "message": "Job has reached the specified backoff limit", "lastTransitionTime": at(-598)}]}}));
    for i in 0..3 {
        let name = format!("monthly-invoices-{i}x9f");
        let mut pod = running(
            "reports",
            &name,
            "worker-1",
            owner("Job", "monthly-invoices"),
            "ghcr.io/acme/invoices:3.2.0",
        );
        pod["spec"]["restartPolicy"] = json!("Never");
        pod["status"]["phase"] = json!("Failed");
        pod["status"]["conditions"][1]["status"] = json!("False");
        pod["status"]["containerStatuses"][0] = json!({"name": "app", "image": "ghcr.io/acme/invoices:3.2.0",
            "ready": false, "restartCount": 0, "started": false,
            "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
                "startedAt": at(-3000 + i * 800), "finishedAt": at(-2400 + i * 800)}}});
        objects.push(pod);
    }
    objects
}

/// A Helm chart's wait-for-db init container loops for an hour on a database
/// Service with no endpoint; the app's other pod runs.
fn init_container_stuck() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    objects.extend(deployment(
        "orders",
        "orders-api",
        "orders-api-7d4c",
        2,
        1,
        ("True", "NewReplicaSetAvailable"),
    ));
    objects.push(running(
        "orders",
        "orders-api-7d4c-aaaaa",
        "worker-1",
        owner("ReplicaSet", "orders-api-7d4c"),
        "ghcr.io/acme/orders-api:2.8",
    ));
    objects.push(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "orders-api-7d4c-bbbbb", "namespace": "orders", "uid": uid("orders-api-7d4c-bbbbb"),
            "creationTimestamp": at(-3600), "ownerReferences": owner("ReplicaSet", "orders-api-7d4c")},
        "spec": {"nodeName": "worker-2", "schedulerName": "default-scheduler",
            "initContainers": [{"name": "wait-for-db", "image": "busybox:1.36",
                "command": ["sh", "-c", "until nc -z orders-db 5432; do sleep 2; done"]}],
            "containers": [{"name": "app", "image": "ghcr.io/acme/orders-api:2.8"}]},
        "status": {"phase": "Pending", "startTime": at(-3595),
            "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": at(-3600)},
                {"type": "Initialized", "status": "False", "reason": "ContainersNotInitialized"},
                {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "lastTransitionTime": at(-3595)}],
            "initContainerStatuses": [{"name": "wait-for-db", "image": "busybox:1.36", "ready": false,
                "restartCount": 0, "started": true, "state": {"running": {"startedAt": at(-3590)}}}],
            "containerStatuses": [{"name": "app", "image": "ghcr.io/acme/orders-api:2.8", "ready": false,
                "restartCount": 0, "started": false, "state": {"waiting": {"reason": "PodInitializing"}}}]}}));
    objects
}

/// A Job that replaces pods only once gone (it has a podFailurePolicy) waits for
/// its pod on a powered-off node: the node's page covers the Job's ticket.
fn job_on_lost_node() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    objects.push(node("worker-3", false));
    objects.push(json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "nightly-export", "namespace": "batch", "uid": uid("nightly-export")},
        "spec": {"completions": 1, "parallelism": 1, "podReplacementPolicy": "Failed",
            "podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}},
        "status": {"active": 0, "terminating": 1, "startTime": at(-7200)}}));
    objects.push(deleted(
        running(
            "batch",
            "nightly-export-8xq2d",
            "worker-3",
            owner("Job", "nightly-export"),
            "ghcr.io/acme/export:5.0",
        ),
        900,
    ));
    objects
}

/// The pages and tickets each incident must make, at most and at least.
struct Incident {
    name: &'static str,
    objects: fn() -> Vec<Value>,
    pages: usize,
    /// The one page's alert, when there is one.
    page: Option<&'static str>,
    /// (min, max) ticket notifications.
    tickets: (usize, usize),
    /// The one ticket's alert, when there is one.
    ticket: Option<&'static str>,
    /// A scrape fails, then the exporter restarts, after the first page.
    disturbed: bool,
    /// What the kubernetes-mixin fires for the same incident: its alert names
    /// and labels (kube-state-metrics' series, scraped with honor_labels) and
    /// its `for`, shortened as ours are. An incident with some is replayed a
    /// second time beside them and must notify exactly as it does alone.
    mixin: fn() -> Vec<Value>,
}

fn no_mixin() -> Vec<Value> {
    Vec::new()
}

/// A kubernetes-mixin alert as its rule fires it for kube-state-metrics'
/// series: `labels` plus the scrape's.
fn ksm_alert(alertname: &str, for_: &str, labels: Value) -> Value {
    let mut all = json!({"alertname": alertname, "for": for_, "severity": "warning",
        "job": "kube-state-metrics", "instance": "10.0.3.4:8080"});
    all.as_object_mut()
        .unwrap()
        .extend(labels.as_object().unwrap().clone());
    all
}

fn node_lost_mixin() -> Vec<Value> {
    vec![
        ksm_alert(
            "KubeNodeNotReady",
            "15s",
            json!({"node": "worker-3", "condition": "Ready", "status": "true"}),
        ),
        ksm_alert(
            "KubeNodeUnreachable",
            "15s",
            json!({"node": "worker-3", "key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}),
        ),
    ]
}

fn registry_down_mixin() -> Vec<Value> {
    vec![
        ksm_alert(
            "KubeDeploymentReplicasMismatch",
            "15s",
            json!({"namespace": "shop", "deployment": "web"}),
        ),
        ksm_alert(
            "KubeDeploymentReplicasMismatch",
            "15s",
            json!({"namespace": "billing", "deployment": "api"}),
        ),
        ksm_alert(
            "KubePodNotReady",
            "15s",
            json!({"namespace": "shop", "pod": "web-6c8d9-0"}),
        ),
    ]
}

fn init_stuck_mixin() -> Vec<Value> {
    vec![
        ksm_alert(
            "KubeDeploymentReplicasMismatch",
            "15s",
            json!({"namespace": "orders", "deployment": "orders-api"}),
        ),
        ksm_alert(
            "KubePodNotReady",
            "15s",
            json!({"namespace": "orders", "pod": "orders-api-7d4c-bbbbb"}),
        ),
    ]
}

fn rollout_stuck_mixin() -> Vec<Value> {
    vec![
        ksm_alert(
            "KubeDeploymentRolloutStuck",
            "15s",
            json!({"namespace": "web", "deployment": "gui",
            "condition": "Progressing", "status": "false", "reason": "ProgressDeadlineExceeded"}),
        ),
        ksm_alert(
            "KubePodNotReady",
            "15s",
            json!({"namespace": "web", "pod": "gui-5cd74fc875-7hx2m"}),
        ),
    ]
}

fn statefulset_mixin() -> Vec<Value> {
    vec![
        ksm_alert(
            "KubeStatefulSetUpdateNotRolledOut",
            "15s",
            json!({"namespace": "streaming", "statefulset": "kafka"}),
        ),
        ksm_alert(
            "KubeStatefulSetReplicasMismatch",
            "15s",
            json!({"namespace": "streaming", "statefulset": "kafka"}),
        ),
        ksm_alert(
            "KubePodCrashLooping",
            "15s",
            json!({"namespace": "streaming", "pod": "kafka-2", "container": "app",
            "reason": "CrashLoopBackOff", "uid": "u-kafka-2"}),
        ),
        ksm_alert(
            "KubePodNotReady",
            "15s",
            json!({"namespace": "streaming", "pod": "kafka-2"}),
        ),
    ]
}

fn job_failed_mixin() -> Vec<Value> {
    vec![ksm_alert(
        "KubeJobFailed",
        "15s",
        json!({"namespace": "reports", "job_name": "monthly-invoices", "condition": "true"}),
    )]
}

/// A Prometheus rule group that fires each run's kubernetes-mixin alerts
/// under its `cluster`.
fn mixin_rules(runs: &[(String, &Incident, bool)]) -> String {
    let mut rules = Vec::new();
    for (cluster, incident, with_mixin) in runs {
        if !with_mixin {
            continue;
        }
        for alert in (incident.mixin)() {
            let mut labels = alert.as_object().unwrap().clone();
            let name = labels.remove("alertname").unwrap();
            let for_ = labels.remove("for").unwrap();
            labels.insert("cluster".into(), json!(cluster));
            // Firing from the first successful scrape of the incident's exporter,
            // as kube-state-metrics' series would: the `for`s then compare.
            let expr = format!("max(up{{cluster=\"{cluster}\"}}) > 0");
            rules.push(
                json!({"alert": name, "expr": expr, "for": for_, "labels": labels,
                "annotations": {"summary": "the kubernetes-mixin's, replayed"}}),
            );
        }
    }
    json!({"groups": [{"name": "kubernetes-mixin-replayed", "rules": rules}]}).to_string()
}

const INCIDENTS: &[Incident] = &[
    Incident {
        name: "node-lost",
        objects: node_lost,
        pages: 1,
        page: Some("KubeLifecycleNodeLost"),
        tickets: (0, 0),
        ticket: None,
        disturbed: true,
        mixin: node_lost_mixin,
    },
    Incident {
        name: "registry-down",
        objects: registry_down,
        pages: 1,
        page: Some("KubeLifecycleRegistryPullFailing"),
        tickets: (0, 0),
        ticket: None,
        disturbed: true,
        mixin: registry_down_mixin,
    },
    Incident {
        name: "node-image-store",
        objects: node_image_store_corrupt,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleImagePullNodeImageStore"),
        disturbed: false,
        mixin: no_mixin,
    },
    Incident {
        name: "node-disk-full",
        objects: node_disk_full,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleImagePullNodeImageStore"),
        disturbed: false,
        mixin: no_mixin,
    },
    // One page for the webhook; the four refused workloads' tickets are
    // inhibited by it, through a missed scrape and a restart.
    Incident {
        name: "webhook-outage",
        objects: webhook_outage,
        pages: 1,
        page: Some("KubeLifecycleAdmissionWebhookUnreachable"),
        tickets: (0, 0),
        ticket: None,
        disturbed: true,
        mixin: no_mixin,
    },
    Incident {
        name: "scheduler-typo",
        objects: scheduler_name_typo,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecyclePodSchedulerUnknown"),
        disturbed: false,
        mixin: no_mixin,
    },
    // One node's network plugin: one ticket naming the node, not one per pod.
    Incident {
        name: "cni-one-node",
        objects: cni_down_on_one_node,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecyclePodSandboxFailingOnNode"),
        disturbed: false,
        mixin: no_mixin,
    },
    // Every node's: one page, the per-node tickets inhibited by it.
    Incident {
        name: "cni-everywhere",
        objects: cni_down_everywhere,
        pages: 1,
        page: Some("KubeLifecyclePodSandboxFailing"),
        tickets: (0, 0),
        ticket: None,
        disturbed: true,
        mixin: no_mixin,
    },
    Incident {
        name: "init-stuck",
        objects: init_container_stuck,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleDeploymentRolloutStuck"),
        disturbed: false,
        mixin: init_stuck_mixin,
    },
    Incident {
        name: "job-lost-node",
        objects: job_on_lost_node,
        pages: 1,
        page: Some("KubeLifecycleNodeLost"),
        tickets: (0, 0),
        ticket: None,
        disturbed: false,
        mixin: no_mixin,
    },
    // A rollout stuck on an image that does not exist: one ticket, the
    // Deployment's, naming the pods' cause; the pod's and the mixin's are
    // inhibited.
    Incident {
        name: "rollout-stuck",
        objects: rollout_stuck,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleDeploymentRolloutStuck"),
        disturbed: true,
        mixin: rollout_stuck_mixin,
    },
    Incident {
        name: "statefulset-update-stuck",
        objects: statefulset_update_stuck,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleStatefulSetUpdateStuck"),
        disturbed: false,
        mixin: statefulset_mixin,
    },
    Incident {
        name: "job-failed",
        objects: job_failed,
        pages: 0,
        page: None,
        tickets: (1, 1),
        ticket: Some("KubeLifecycleJobFailed"),
        disturbed: false,
        mixin: job_failed_mixin,
    },
];

struct Running {
    dump: std::path::PathBuf,
    proxy: Proxy,
    address: String,
    exporter: Option<Exporter>,
}

fn start_exporter(dump: &Path) -> Exporter {
    Exporter::start(&["--from-file", dump.to_str().unwrap()])
}

#[tokio::test(flavor = "multi_thread")]
async fn incidents_page_once_and_never_flap() {
    let dir = tempfile::tempdir().unwrap();
    let (receiver, received) = start_receiver().await;

    // Each incident alone, and those the kubernetes-mixin also alerts on a
    // second time beside its alerts: (cluster, incident, with the mixin).
    let mut runs: Vec<(String, &Incident, bool)> = Vec::new();
    for incident in INCIDENTS {
        runs.push((incident.name.to_string(), incident, false));
        if !(incident.mixin)().is_empty() {
            runs.push((format!("{}-with-mixin", incident.name), incident, true));
        }
    }
    let mut running: BTreeMap<&str, Running> = BTreeMap::new();
    for (cluster, incident, _) in &runs {
        let dump = dir.path().join(format!("{cluster}.json"));
        let list = json!({"apiVersion": "v1", "kind": "List", "items": (incident.objects)()});
        std::fs::write(&dump, serde_json::to_vec_pretty(&list).unwrap()).unwrap();
        let exporter = start_exporter(&dump);
        let (proxy, address) = Proxy::start().await;
        proxy.point_at(Some(&exporter.base));
        running.insert(
            cluster.as_str(),
            Running {
                dump,
                proxy,
                address,
                exporter: Some(exporter),
            },
        );
    }

    let mixin_inhibitions =
        std::fs::read_to_string(root().join("alerts/kubernetes-mixin-inhibitions.yaml")).unwrap();
    let (_alertmanager, am_port) = alertmanager(
        dir.path(),
        &alertmanager_config(&receiver, Some(&mixin_inhibitions)),
    );
    std::fs::write(dir.path().join("rules.yaml"), shortened_rules()).unwrap();
    std::fs::write(dir.path().join("mixin.yaml"), mixin_rules(&runs)).unwrap();
    let targets: String = running
        .iter()
        .map(|(name, r)| {
            format!(
                "      - targets: ['{}']\n        labels: {{cluster: {name}}}\n",
                r.address
            )
        })
        .collect();
    let config = format!(
        "global: {{scrape_interval: 1s, evaluation_interval: 1s}}\n\
         rule_files: [{rules}, {mixin}]\n\
         alerting:\n  alertmanagers: [{{static_configs: [{{targets: ['127.0.0.1:{am_port}']}}]}}]\n\
         scrape_configs:\n  - job_name: kube-lifecycle-exporter\n    honor_labels: true\n    static_configs:\n{targets}",
        rules = dir.path().join("rules.yaml").display(),
        mixin = dir.path().join("mixin.yaml").display(),
    );
    let (prometheus, prom) = common::daemons::prometheus(dir.path(), &config);

    let of = |cluster: &str, severity: &str| -> Vec<Notification> {
        received
            .lock()
            .unwrap()
            .iter()
            .filter(|n| n.cluster() == Some(cluster) && n.severity == severity)
            .cloned()
            .collect()
    };
    let report = || {
        format!(
            "{}\nreceived: {:#?}",
            prometheus.log(),
            received.lock().unwrap()
        )
    };

    // 1. Every expected page and ticket arrives.
    wait_until(
        "every incident's first notifications",
        Duration::from_secs(120),
        report,
        || {
            runs.iter()
                .all(|(cluster, i, _)| {
                    of(cluster, "critical").len() >= i.pages
                        && of(cluster, "warning").len() >= i.tickets.0
                })
                .then_some(())
        },
    )
    .await;

    // 2. Mid-incident: a failed scrape, then an exporter restart, for the disturbed ones.
    let disturbed: Vec<&str> = runs
        .iter()
        .filter(|(_, i, _)| i.disturbed)
        .map(|(cluster, _, _)| cluster.as_str())
        .collect();
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let up_is = async |up: f64, what: &str| {
        wait_until_async(what, Duration::from_secs(30), report, async || {
            scraped(&http, &prom, &disturbed, up).await.then_some(())
        })
        .await
    };
    for cluster in &disturbed {
        running[cluster].proxy.point_at(None);
    }
    up_is(0.0, "a failed scrape of each disturbed exporter").await;
    for cluster in &disturbed {
        let r = running.get_mut(cluster).unwrap();
        r.proxy
            .point_at(r.exporter.as_ref().map(|e| e.base.as_str()));
    }
    up_is(1.0, "each disturbed exporter scraped again").await;
    // The two gaps stay apart: the rules see the exporters back in between.
    wait_until_async(
        "the rules to see the disturbed exporters again (nothing only kept firing)",
        Duration::from_secs(30),
        report,
        async || (!kept_firing(&http, &prom, &disturbed).await).then_some(()),
    )
    .await;
    for cluster in &disturbed {
        let r = running.get_mut(cluster).unwrap();
        r.proxy.point_at(None);
        r.exporter.take().unwrap().terminate();
    }
    up_is(0.0, "a failed scrape of each stopped exporter").await;
    for cluster in &disturbed {
        let r = running.get_mut(cluster).unwrap();
        let exporter = start_exporter(&r.dump);
        r.proxy.point_at(Some(&exporter.base));
        r.exporter = Some(exporter);
    }
    up_is(1.0, "each restarted exporter scraped").await;

    // 3. Count once nothing more is on its way: every `for` run out (no
    // alert pending), no alert only kept firing through the gap, and
    // everything that fires notified or suppressed. A flap would show as a
    // resolved notification or a pending alert that fires again.
    common::alerting::wait_settled(
        &http,
        Some(&prom),
        &format!("http://127.0.0.1:{am_port}"),
        &received,
        Duration::from_secs(120),
        report,
    )
    .await;
    let mut problems = Vec::new();
    for (cluster, incident, _) in &runs {
        let cluster = cluster.as_str();
        let pages = of(cluster, "critical");
        let tickets = of(cluster, "warning");
        if pages.len() != incident.pages {
            problems.push(format!(
                "{}: {} page(s), want {}: {pages:#?}",
                cluster,
                pages.len(),
                incident.pages
            ));
        }
        if let Some(alert) = incident.page {
            for page in &pages {
                if page.names() != [alert] {
                    problems.push(format!(
                        "{cluster}: paged for {:?}, want {alert}",
                        page.names()
                    ));
                }
            }
        }
        if let Some(alert) = incident.ticket {
            for ticket in &tickets {
                if ticket.names().iter().any(|n| n != alert) {
                    problems.push(format!(
                        "{cluster}: ticket for {:?}, want {alert}",
                        ticket.names()
                    ));
                }
                // The one notification names the cause.
                if ticket
                    .alerts
                    .iter()
                    .any(|a| a["labels"]["cause"].as_str().is_none_or(str::is_empty))
                {
                    problems.push(format!("{cluster}: a ticket without a cause: {ticket:#?}"));
                }
            }
        }
        if tickets.len() < incident.tickets.0 || tickets.len() > incident.tickets.1 {
            problems.push(format!(
                "{}: {} ticket(s), want {:?}: {tickets:#?}",
                cluster,
                tickets.len(),
                incident.tickets
            ));
        }
        for n in pages.iter().chain(&tickets) {
            if n.status != "firing" || n.alerts.iter().any(|a| a["status"] != "firing") {
                problems.push(format!("{cluster}: resolved mid-incident (a flap): {n:#?}"));
            }
        }
        let info = of(cluster, "info");
        if !info.is_empty() {
            problems.push(format!("{cluster}: info notifications {info:#?}"));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n{}",
        problems.join("\n"),
        prometheus.log()
    );
}

// ------------------------------------------------------------- with the kubernetes-mixin

/// An alert as Prometheus sends it to Alertmanager.
fn alert(labels: Value) -> Value {
    json!({"labels": labels, "annotations": {"summary": "replayed"}, "startsAt": at(-60)})
}

/// This pack's precise alert silences the kubernetes-mixin's generic one for the
/// same object, and only for it. The mixin alerts carry the labels the mixin's
/// expressions give them (kube-state-metrics series, scraped with honor_labels).
#[tokio::test(flavor = "multi_thread")]
async fn kubernetes_mixin_alerts_are_silenced_for_the_same_object_only() {
    let dir = tempfile::tempdir().unwrap();
    let (receiver, received) = start_receiver().await;
    let extra =
        std::fs::read_to_string(root().join("alerts/kubernetes-mixin-inhibitions.yaml")).unwrap();
    let (alertmanager, am_port) =
        alertmanager(dir.path(), &alertmanager_config(&receiver, Some(&extra)));
    let ksm = |extra: Value| -> Value {
        let mut labels = json!({"job": "kube-state-metrics", "instance": "10.0.3.4:8080", "service": "kube-state-metrics",
            "endpoint": "http", "cluster": "prod", "severity": "warning"});
        labels
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        labels
    };
    let ours = |extra: Value| -> Value {
        let mut labels = json!({"cluster": "prod"});
        labels
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        labels
    };
    // (alert, whether it must reach the receiver)
    let alerts: Vec<(Value, bool)> = vec![
        (
            ours(
                json!({"alertname": "KubeLifecycleContainerCrashLooping", "namespace": "shop", "pod": "web-1", "container": "app", "cause": "error", "severity": "warning"}),
            ),
            true,
        ),
        (
            ksm(
                json!({"alertname": "KubePodCrashLooping", "namespace": "shop", "pod": "web-1", "container": "app", "reason": "CrashLoopBackOff", "uid": "1"}),
            ),
            false,
        ),
        (
            ksm(
                json!({"alertname": "KubePodCrashLooping", "namespace": "shop", "pod": "web-2", "container": "app", "reason": "CrashLoopBackOff", "uid": "2"}),
            ),
            true,
        ),
        (
            ksm(json!({"alertname": "KubePodNotReady", "namespace": "shop", "pod": "web-1"})),
            false,
        ),
        (
            ours(
                json!({"alertname": "KubeLifecycleImagePullUnauthorized", "namespace": "shop", "pod": "api-1", "container": "app", "registry": "ghcr.io", "image": "ghcr.io/acme/api:1", "cause": "unauthorized", "severity": "warning"}),
            ),
            true,
        ),
        (
            ksm(
                json!({"alertname": "KubeContainerWaiting", "namespace": "shop", "pod": "api-1", "container": "app", "reason": "ImagePullBackOff"}),
            ),
            false,
        ),
        (
            ours(
                json!({"alertname": "KubeLifecycleDeploymentRecreateBlocked", "namespace": "cron", "deployment": "crontab", "node": "worker-2", "cause": "finalizers", "severity": "critical"}),
            ),
            true,
        ),
        (
            ksm(
                json!({"alertname": "KubeDeploymentRolloutStuck", "namespace": "cron", "deployment": "crontab", "condition": "Progressing", "status": "false"}),
            ),
            false,
        ),
        (
            ksm(
                json!({"alertname": "KubeDeploymentReplicasMismatch", "namespace": "cron", "deployment": "other"}),
            ),
            true,
        ),
        (
            ours(
                json!({"alertname": "KubeLifecycleNodeLost", "node": "worker-3", "severity": "critical"}),
            ),
            true,
        ),
        (
            ksm(
                json!({"alertname": "KubeNodeNotReady", "node": "worker-3", "condition": "Ready", "status": "true"}),
            ),
            false,
        ),
        (
            ksm(
                json!({"alertname": "KubeNodeUnreachable", "node": "worker-3", "key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}),
            ),
            false,
        ),
        (
            ours(
                json!({"alertname": "KubeLifecycleSchedulerNotScheduling", "severity": "critical"}),
            ),
            true,
        ),
        (
            json!({"alertname": "KubeSchedulerDown", "job": "kube-scheduler", "cluster": "prod", "severity": "critical"}),
            false,
        ),
        // A webhook outage: the page arrives; the refused workload's ticket is
        // inhibited by it, and still silences the mixin's alert for its Deployment
        // (Alertmanager takes inhibited alerts as inhibition sources too).
        (
            ours(
                json!({"alertname": "KubeLifecycleAdmissionWebhookUnreachable", "webhook": INJECTOR, "severity": "critical"}),
            ),
            true,
        ),
        (
            ours(
                json!({"alertname": "KubeLifecyclePodCreateRefused", "namespace": "shop", "owner_kind": "ReplicaSet", "owner_name": "web-6c8d9f7b5", "deployment": "web", "cause": "webhook_unreachable", "webhook": INJECTOR, "severity": "warning"}),
            ),
            false,
        ),
        (
            ksm(
                json!({"alertname": "KubeDeploymentReplicasMismatch", "namespace": "shop", "deployment": "web"}),
            ),
            false,
        ),
        // Refusals by kind: the mixin's alert for the same StatefulSet or Job only.
        (
            ours(
                json!({"alertname": "KubeLifecyclePodCreateRefused", "namespace": "orders", "owner_kind": "StatefulSet", "owner_name": "queue", "statefulset": "queue", "cause": "pod_security", "pod_security_level": "restricted", "severity": "warning"}),
            ),
            true,
        ),
        (
            ksm(
                json!({"alertname": "KubeStatefulSetReplicasMismatch", "namespace": "orders", "statefulset": "queue"}),
            ),
            false,
        ),
        (
            ours(
                json!({"alertname": "KubeLifecyclePodCreateQuotaExceeded", "namespace": "batch", "owner_kind": "Job", "owner_name": "nightly", "job_name": "nightly", "cause": "quota_exceeded", "quota": "batch-pods", "resource": "count/pods", "severity": "warning"}),
            ),
            true,
        ),
        (
            ksm(
                json!({"alertname": "KubeJobNotCompleted", "namespace": "batch", "job_name": "nightly"}),
            ),
            false,
        ),
        (
            ksm(
                json!({"alertname": "KubeJobNotCompleted", "namespace": "batch", "job_name": "weekly"}),
            ),
            true,
        ),
        // Another cluster's identical object is never silenced by this one's.
        (
            json!({"alertname": "KubePodCrashLooping", "namespace": "shop", "pod": "web-1", "container": "app", "cluster": "staging", "severity": "warning"}),
            true,
        ),
    ];
    let http = reqwest::Client::new();
    let body: Vec<Value> = alerts
        .iter()
        .map(|(labels, _)| alert(labels.clone()))
        .collect();
    wait_until(
        "Alertmanager up",
        Duration::from_secs(30),
        || alertmanager.log(),
        || {
            std::net::TcpStream::connect(("127.0.0.1", am_port))
                .ok()
                .map(|_| ())
        },
    )
    .await;
    // Sources before targets: every inhibiting alert's `for` is at most its
    // targets' (tests/artifacts/alert_rules.rs), so in an incident the source reaches
    // Alertmanager first; posted in one batch, a target can be dispatched before
    // the inhibitor has seen its source, a race no deployment has. So this pack's
    // pages (which inhibit its tickets) first, then its tickets (which inhibit
    // the mixin's alerts).
    let ours_only = |pages_only: bool| -> Vec<Value> {
        body.iter()
            .filter(|a| {
                a["labels"]["alertname"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("KubeLifecycle"))
                    && (!pages_only || a["labels"]["severity"] == "critical")
            })
            .cloned()
            .collect()
    };
    let (pages, tickets) = (ours_only(true), ours_only(false));
    // Then everything, twice, as Prometheus resends: inhibition must hold on the
    // second too.
    for (i, batch) in [&pages, &tickets, &body, &body].into_iter().enumerate() {
        let response = http
            .post(format!("http://127.0.0.1:{am_port}/api/v2/alerts"))
            .json(batch)
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_success(),
            "{:?}",
            response.text().await
        );
        // Why a pause: the order of arrival is the scenario (pages before
        // tickets before the rest), and Alertmanager shows no sign of its
        // inhibitor having taken in a source until a target arrives. A second
        // stands for Prometheus' evaluation interval between them. The resends
        // need no order.
        if i < 2 {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
    let delivered = |labels: &Value| {
        received
            .lock()
            .unwrap()
            .iter()
            .flat_map(|n| n.alerts.clone())
            .any(|a| &a["labels"] == labels)
    };
    wait_until(
        "the alerts that must arrive",
        Duration::from_secs(60),
        || alertmanager.log(),
        || {
            alerts
                .iter()
                .filter(|(_, shown)| *shown)
                .all(|(l, _)| delivered(l))
                .then_some(())
        },
    )
    .await;
    // Judge silence once every alert Alertmanager holds is either suppressed
    // or notified, and no notification is in flight.
    common::alerting::wait_settled(
        &http,
        None,
        &format!("http://127.0.0.1:{am_port}"),
        &received,
        Duration::from_secs(60),
        || alertmanager.log(),
    )
    .await;
    for (labels, shown) in &alerts {
        if !shown {
            assert!(!delivered(labels), "inhibited, yet delivered: {labels}");
        }
    }
}
