//! The incidents, each a cluster dump: a lost node, a registry down, a node's image
//! store corrupt or disk full, a scheduler name typo, a webhook outage, CNI down,
//! stuck rollouts and StatefulSet updates, failed and stuck Jobs.

use serde_json::{Value, json};

mod cluster;
pub use cluster::*;

/// A node powered off without `kubectl delete node`: its pods were evicted (deleted)
/// and stay Terminating; a Recreate Deployment, a StatefulSet and DaemonSets had
/// pods on it. The seed incident.
pub fn node_lost() -> Vec<Value> {
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
    // DaemonSets: their pods on the lost node are not evicted (they tolerate it), and
    // the node controller marked them not Ready when the node went; nothing is
    // missing on the Ready nodes. kube-proxy's is the one its scrape target is.
    for (ns, ds) in [
        ("monitoring", "node-exporter"),
        ("monitoring", "fluent-bit"),
        ("kube-system", "kube-proxy"),
    ] {
        objects.push(json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": ds, "namespace": ns, "uid": uid(ds), "creationTimestamp": at(-86400)},
            "spec": {"selector": {"matchLabels": {"app": ds}},
                "template": {"metadata": {"labels": {"app": ds}},
                    "spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": ds, "image": format!("{ds}:1")}]}}},
            "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 2, "numberAvailable": 2}}));
        for node in ["worker-1", "worker-2", "worker-3"] {
            let mut pod = running(
                ns,
                &format!("{ds}-{node}"),
                node,
                owner("DaemonSet", ds),
                &format!("{ds}:1"),
            );
            if node == "worker-3" {
                pod["status"]["conditions"][1] = json!({"type": "Ready", "status": "False",
                    "lastTransitionTime": at(-1420)});
            }
            objects.push(pod);
        }
    }
    objects
}

pub const REGISTRY: &str = "registry.corp.example:5000";

/// The company registry is down during a rolling update: pulls fail on every node.
pub fn registry_down() -> Vec<Value> {
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
pub fn node_image_store_corrupt() -> Vec<Value> {
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
pub fn node_disk_full() -> Vec<Value> {
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
pub fn scheduler_name_typo() -> Vec<Value> {
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
pub fn failed_create(
    namespace: &str,
    kind: &str,
    name: &str,
    component: &str,
    message: &str,
) -> Value {
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

pub const INJECTOR: &str = "inject.mesh.example.io";

/// The mesh's sidecar injector is down and its webhook fails closed: in every
/// namespace it covers, no pod is created. Rollouts in two namespaces, a
/// StatefulSet in a third and a DaemonSet in a fourth are refused, each with its
/// controller's wording of the same failure (a timeout, no endpoints, a refused
/// connection).
pub fn webhook_outage() -> Vec<Value> {
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
pub fn meshed_without_sandbox(namespace: &str, name: &str, node: &str) -> Value {
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
pub fn sandbox_failed(namespace: &str, pod: &str, node: &str) -> Value {
    let message = "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox \"d9f4c91394d548cca1b189e665fd0532f158bb5bb4407153aa48e1af40afe2f0\": plugin type=\"calico\" failed (add): error getting ClusterInformation: connection is unauthorized: Unauthorized";
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{pod}.sandbox"), "namespace": namespace},
        "involvedObject": {"kind": "Pod", "name": pod, "namespace": namespace, "uid": uid(pod)},
        "reason": "FailedCreatePodSandBox", "message": message, "type": "Warning", "count": 40,
        "source": {"component": "kubelet", "host": node},
        "firstTimestamp": at(-1400), "lastTimestamp": at(-20)})
}

/// The network plugin fails on one node only: that node's pods get no sandbox.
pub fn cni_down_on_one_node() -> Vec<Value> {
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
pub fn cni_down_everywhere() -> Vec<Value> {
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
pub fn deployment(
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
pub fn rollout_stuck() -> Vec<Value> {
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
pub fn statefulset_update_stuck() -> Vec<Value> {
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
pub fn job_failed() -> Vec<Value> {
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
pub fn init_container_stuck() -> Vec<Value> {
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
pub fn job_on_lost_node() -> Vec<Value> {
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

/// A pod of `owner` that no scheduler has touched since it was created
/// `age` seconds ago: no node, no PodScheduled condition.
pub fn unscheduled(namespace: &str, name: &str, owner_ref: Value, image: &str, age: i64) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid(name),
            "creationTimestamp": at(-age), "ownerReferences": owner_ref},
        "spec": {"schedulerName": "default-scheduler", "containers": [{"name": "app", "image": image}]},
        "status": {"phase": "Pending", "qosClass": "BestEffort"}})
}

/// kube-scheduler is down (seed 001): every new pod of a rollout and of a
/// StatefulSet's scale-up waits with no node and no PodScheduled condition,
/// while the pods scheduled before serve.
pub fn scheduler_down() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    objects.extend(deployment(
        "shop",
        "web",
        "web-6c8d9f7b5",
        3,
        2,
        ("True", "ReplicaSetUpdated"),
    ));
    objects.push(running(
        "shop",
        "web-6c8d9f7b5-aaaaa",
        "worker-1",
        owner("ReplicaSet", "web-6c8d9f7b5"),
        "ghcr.io/acme/web:3.1",
    ));
    for pod in ["web-6c8d9f7b5-bbbbb", "web-6c8d9f7b5-ccccc"] {
        objects.push(unscheduled(
            "shop",
            pod,
            owner("ReplicaSet", "web-6c8d9f7b5"),
            "ghcr.io/acme/web:3.1",
            1800,
        ));
    }
    objects.push(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "queue", "namespace": "orders", "uid": uid("queue"), "creationTimestamp": at(-86400)},
        "spec": {"replicas": 3, "serviceName": "queue", "podManagementPolicy": "Parallel"},
        "status": {"replicas": 3, "readyReplicas": 2, "currentReplicas": 3, "updatedReplicas": 3}}));
    for (i, node) in ["worker-1", "worker-2"].iter().enumerate() {
        objects.push(running(
            "orders",
            &format!("queue-{i}"),
            node,
            owner("StatefulSet", "queue"),
            "rabbitmq:3.13",
        ));
    }
    objects.push(unscheduled(
        "orders",
        "queue-2",
        owner("StatefulSet", "queue"),
        "rabbitmq:3.13",
        1700,
    ));
    objects
}

/// A Ready node whose kubelet reports pressure: it carries the pressure taint.
pub fn pressured(name: &str, taint: &str) -> Value {
    let mut node = node(name, true);
    node["spec"]["taints"] =
        json!([{"key": taint, "effect": "NoSchedule", "timeAdded": at(-2000)}]);
    node
}

/// The CI nodes' disks fill up: a rollout's new pods can go nowhere else (the
/// third node is dedicated to others) and wait.
pub fn nodes_under_pressure() -> Vec<Value> {
    let mut objects = vec![
        pressured("ci-1", "node.kubernetes.io/disk-pressure"),
        pressured("ci-2", "node.kubernetes.io/disk-pressure"),
        pressured("gpu-1", "dedicated"),
    ];
    objects.extend(deployment(
        "ci",
        "runner",
        "runner-7f8d9",
        2,
        2,
        ("True", "ReplicaSetUpdated"),
    ));
    for pod in ["runner-7f8d9-aaaaa", "runner-7f8d9-bbbbb"] {
        let mut pod = unscheduled(
            "ci",
            pod,
            owner("ReplicaSet", "runner-7f8d9"),
            "ghcr.io/acme/runner:5",
            1800,
        );
        pod["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "message": "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: }, 2 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            "lastTransitionTime": at(-1790)}]);
        objects.push(pod);
    }
    objects
}

/// The ResourceQuota of a team's namespace is used up: its Deployment's
/// ReplicaSet is refused the pods a scale-up asks for.
pub fn quota_exceeded() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    objects.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "invoice", "namespace": "billing", "uid": uid("invoice"), "generation": 3},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "invoice"}}},
        "status": {"observedGeneration": 3, "replicas": 1, "availableReplicas": 1, "readyReplicas": 1,
            "unavailableReplicas": 2,
            "conditions": [{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
                "message": "pods \"invoice-6d5f7c9b8-x2k4p\" is forbidden: exceeded quota: compute, requested: limits.cpu=1, used: limits.cpu=4, limited: limits.cpu=4",
                "lastTransitionTime": at(-1500)}]}}));
    objects.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "invoice-6d5f7c9b8", "namespace": "billing", "uid": uid("invoice-6d5f7c9b8"),
            "creationTimestamp": at(-1600), "ownerReferences": owner("Deployment", "invoice")},
        "spec": {"replicas": 3}, "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1,
            "conditions": [{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
                "message": "pods \"invoice-6d5f7c9b8-x2k4p\" is forbidden: exceeded quota: compute, requested: limits.cpu=1, used: limits.cpu=4, limited: limits.cpu=4",
                "lastTransitionTime": at(-1500)}]}}));
    objects.push(running(
        "billing",
        "invoice-6d5f7c9b8-aaaaa",
        "worker-1",
        owner("ReplicaSet", "invoice-6d5f7c9b8"),
        "ghcr.io/acme/invoice:2.0",
    ));
    objects.push(failed_create(
        "billing",
        "ReplicaSet",
        "invoice-6d5f7c9b8",
        "replicaset-controller",
        "Error creating: pods \"invoice-6d5f7c9b8-x2k4p\" is forbidden: exceeded quota: compute, requested: limits.cpu=1, used: limits.cpu=4, limited: limits.cpu=4",
    ));
    objects
}

/// A namespace being deleted while its Job still wants a pod: the API server
/// refuses every new pod in it (antrea-io/antrea's e2e logs).
pub fn namespace_deleted() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1"]);
    objects.push(json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "antrea-test", "uid": uid("antrea-test"), "creationTimestamp": at(-86400),
            "deletionTimestamp": at(-1500)},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Terminating"}}));
    objects.push(json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "test-pod", "namespace": "antrea-test", "uid": uid("test-pod"), "creationTimestamp": at(-1600)},
        "spec": {"completions": 1, "parallelism": 1, "backoffLimit": 6},
        "status": {"active": 0, "startTime": at(-1600)}}));
    objects.push(failed_create(
        "antrea-test",
        "Job",
        "test-pod",
        "job-controller",
        "Error creating: pods \"test-pod-0-hq7ym9ch\" is forbidden: unable to create new content in namespace antrea-test because it is being terminated",
    ));
    objects
}

/// The GPU nodes' DRA driver is not registered with their kubelets: pods
/// whose claims were allocated there wait in ContainerCreating.
pub fn device_driver_missing() -> Vec<Value> {
    let mut objects = healthy_nodes(&["gpu-1", "gpu-2"]);
    for (pod, node) in [("trainer-0", "gpu-1"), ("trainer-1", "gpu-2")] {
        let mut waiting = waiting(
            "ml",
            pod,
            node,
            "ghcr.io/acme/trainer:1.0",
            "ContainerCreating",
            "",
        );
        waiting["status"]["containerStatuses"][0]["state"] =
            json!({"waiting": {"reason": "ContainerCreating"}});
        objects.push(waiting);
        let mut event = kubelet_event(
            "ml",
            pod,
            node,
            "FailedPrepareDynamicResources",
            "Failed to prepare dynamic resources: prepare dynamic resources: DRA driver gpu.example.com is not registered",
        );
        event["involvedObject"]
            .as_object_mut()
            .unwrap()
            .remove("fieldPath");
        objects.push(event);
    }
    objects
}

/// A cluster upgrade drains worker-2: the checkout Deployment's budget says
/// minAvailable 2 over its 2 replicas (the shape of kured#82 and
/// eks-anywhere#5189), so the eviction API refuses its pod there for ever.
/// kubectl cordon's managedFields entry dates the drain.
pub fn drain_blocked_by_budget() -> Vec<Value> {
    let mut objects = healthy_nodes(&["worker-1", "worker-2"]);
    let node = &mut objects[1];
    node["spec"] = json!({"unschedulable": true, "taints": [
        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]});
    node["metadata"]["managedFields"] = json!([
        {"manager": "kubectl-cordon", "operation": "Update", "apiVersion": "v1", "time": at(-1500),
         "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:unschedulable": {}}}}]);
    let labels = json!({"app": "checkout", "pod-template-hash": "5d8f7c6b9"});
    objects.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "checkout", "namespace": "shop", "uid": uid("checkout"), "generation": 1},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "checkout"}}},
        "status": {"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2,
            "availableReplicas": 2,
            "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                "lastTransitionTime": at(-7000)}]}}));
    objects.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "checkout-5d8f7c6b9", "namespace": "shop", "uid": uid("checkout-5d8f7c6b9"),
            "creationTimestamp": at(-7200), "labels": labels, "ownerReferences": owner("Deployment", "checkout")},
        "spec": {"replicas": 2, "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "app", "image": "ghcr.io/acme/checkout:4.1"}]}}},
        "status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2}}));
    for (name, node) in [
        ("checkout-5d8f7c6b9-7xk2p", "worker-1"),
        ("checkout-5d8f7c6b9-m4q9z", "worker-2"),
    ] {
        objects.push(running(
            "shop",
            name,
            node,
            owner("ReplicaSet", "checkout-5d8f7c6b9"),
            "ghcr.io/acme/checkout:4.1",
        ));
    }
    objects.push(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "checkout", "namespace": "shop", "uid": uid("pdb-checkout"), "generation": 1},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "checkout"}}},
        "status": {"observedGeneration": 1, "disruptionsAllowed": 0, "currentHealthy": 2,
            "desiredHealthy": 2, "expectedPods": 2,
            "conditions": [{"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods",
                "message": "", "lastTransitionTime": at(-7000), "observedGeneration": 1}]}}));
    objects
}

/// A half-hourly CronJob under `concurrencyPolicy: Forbid` whose Job has
/// waited 13 hours on a pod no node has room for, so every run since is
/// skipped: loculus-project/loculus#4198 ("ena-submission-list-cronjob: not
/// running": `0/6 nodes are available: 6 Insufficient cpu. preemption: 0/6
/// nodes are available: 6 No preemption victims found for incoming pod.`, here
/// on 3 nodes), the shape of kubernetes/kubernetes#58748 (a Forbid CronJob
/// behind a Job that cannot run). One ticket: the Job's verdict, with its pod's
/// cause; the CronJob's names that Job and is inhibited by it, the pod's by
/// the verdict, the kubernetes-mixin's KubeJobNotCompleted by both.
pub fn cronjob_blocked_by_stuck_job() -> Vec<Value> {
    let (namespace, cronjob) = ("loculus", "ena-submission-list-cronjob");
    let job = "ena-submission-list-cronjob-29431080";
    let pod = "ena-submission-list-cronjob-29431080-7tq4m";
    let mut objects = healthy_nodes(&["worker-1", "worker-2", "worker-3"]);
    objects.push(json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": cronjob, "namespace": namespace, "uid": uid(cronjob),
            "creationTimestamp": at(-86400 * 30)},
        "spec": {"schedule": "*/30 * * * *", "concurrencyPolicy": "Forbid", "suspend": false,
            "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1,
            "jobTemplate": {"spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "app", "image": "ghcr.io/loculus-project/ena-submission:latest"}]}}}}},
        "status": {"lastScheduleTime": at(-13 * 3600), "lastSuccessfulTime": at(-13 * 3600 - 1800),
            "active": [{"apiVersion": "batch/v1", "kind": "Job", "name": job, "namespace": namespace,
                "uid": uid(job), "resourceVersion": "48213377"}]}}));
    objects.push(json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": job, "namespace": namespace, "uid": uid(job), "creationTimestamp": at(-13 * 3600),
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": cronjob, "uid": uid(cronjob),
                "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"completions": 1, "parallelism": 1, "backoffLimit": 0},
        "status": {"active": 1, "ready": 0, "startTime": at(-13 * 3600)}}));
    objects.push(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": pod, "namespace": namespace, "uid": uid(pod),
            "creationTimestamp": at(-13 * 3600), "ownerReferences": owner("Job", job)},
        "spec": {"schedulerName": "default-scheduler", "restartPolicy": "Never",
            "containers": [{"name": "app", "image": "ghcr.io/loculus-project/ena-submission:latest",
                "resources": {"requests": {"cpu": "12", "memory": "2Gi"}}}]},
        "status": {"phase": "Pending", "qosClass": "Burstable",
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
                "lastTransitionTime": at(-13 * 3600 + 1)}]}}));
    objects
}

/// A StatefulSet whose volumeClaimTemplates name a storage class the cluster
/// does not have: its first claim stays Pending and so does its first pod
/// (OrderedReady creates no other). ZP-AlwaysWin/K8S-FastDFS#6: claim
/// storage0-data-fastdfs-group0-storage0-0, `ProvisioningFailed ... (x39 over
/// 71m) persistentvolume-controller storageclass.storage.k8s.io "fast" not
/// found`; the pod's scheduler message as in kubernetes/website#26943. One
/// ticket: the claim's, the root cause of the pod and the StatefulSet (which
/// gets no verdict); the kubernetes-mixin's KubePodNotReady and
/// KubeStatefulSetReplicasMismatch are folded by KubeLifecycleExplainedByRootCause.
pub fn storage_class_missing() -> Vec<Value> {
    let (namespace, sts) = ("default", "fastdfs-group0-storage0");
    let claim = "storage0-data-fastdfs-group0-storage0-0";
    let pod = "fastdfs-group0-storage0-0";
    let mut objects = healthy_nodes(&["worker-1", "worker-2", "worker-3"]);
    objects.push(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": sts, "namespace": namespace, "uid": uid(sts), "generation": 1,
            "creationTimestamp": at(-71 * 60)},
        "spec": {"replicas": 2, "serviceName": sts, "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "volumeClaimTemplates": [{"metadata": {"name": "storage0-data",
                "annotations": {"volume.beta.kubernetes.io/storage-class": "fast"}},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}}]},
        "status": {"observedGeneration": 1, "replicas": 1, "readyReplicas": 0, "currentReplicas": 1,
            "updatedReplicas": 1, "currentRevision": format!("{sts}-7c9f8b6d5"),
            "updateRevision": format!("{sts}-7c9f8b6d5")}}));
    objects.push(json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": claim, "namespace": namespace, "uid": uid(claim),
            "creationTimestamp": at(-71 * 60), "finalizers": ["kubernetes.io/pvc-protection"],
            "labels": {"app": sts},
            "annotations": {"volume.beta.kubernetes.io/storage-class": "fast"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem",
            "storageClassName": "fast", "resources": {"requests": {"storage": "10Gi"}}},
        "status": {"phase": "Pending"}}));
    objects.push(json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{claim}.17e2b3c4d5e6f708"), "namespace": namespace},
        "involvedObject": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": claim,
            "namespace": namespace, "uid": uid(claim)},
        "reason": "ProvisioningFailed", "message": "storageclass.storage.k8s.io \"fast\" not found",
        "type": "Warning", "count": 39, "source": {"component": "persistentvolume-controller"},
        "firstTimestamp": at(-71 * 60), "lastTimestamp": at(-11)}));
    objects.push(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": pod, "namespace": namespace, "uid": uid(pod),
            "creationTimestamp": at(-71 * 60), "ownerReferences": owner("StatefulSet", sts)},
        "spec": {"schedulerName": "default-scheduler", "hostname": pod, "subdomain": sts,
            "containers": [{"name": "app", "image": "docker.io/season/fastdfs:1.2"}],
            "volumes": [{"name": "storage0-data", "persistentVolumeClaim": {"claimName": claim}}]},
        "status": {"phase": "Pending", "qosClass": "BestEffort",
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": "0/3 nodes are available: 3 pod has unbound immediate PersistentVolumeClaims.",
                "lastTransitionTime": at(-71 * 60 + 1)}]}}));
    objects
}
