//! A generated cluster shaped like a real one: pods of about 8 KB each (labels,
//! annotations, owner references, managedFields of three managers, two
//! containers with env, probes and mounts, four conditions, statuses with
//! image and container IDs) owned by ReplicaSets of Deployments, StatefulSets
//! and DaemonSets, spread over namespaces and nodes. About 3% of the pods are
//! anomalous in each family the exporter diagnoses.
//!
//! The storm profile is the same cluster during an incident: a third of the
//! nodes NotReady (their pods Terminating past their deadline, the Recreate
//! Deployments and StatefulSets with pods there blocked) and one registry
//! refusing every pull of a rolling update (a container in ErrImagePull or
//! ImagePullBackOff in about one pod in seven elsewhere, each with the
//! kubelet's Failed event).

use serde_json::{Value, json};

/// The families a generated pod can be anomalous in, one in `ANOMALY_EVERY`
/// pods each.
const FAMILIES: [&str; 6] = [
    "terminating",
    "pending",
    "image_pull",
    "crash_loop",
    "config_error",
    "creating",
];
const ANOMALY_EVERY: usize = 33;
pub const PODS_PER_NODE: usize = 30;
const PODS_PER_NAMESPACE: usize = 300;
const PODS_PER_REPLICASET: usize = 10;

/// What the generated cluster is going through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// About 3% of the pods anomalous.
    #[default]
    Healthy,
    /// A third of the nodes lost and a registry refusing pulls.
    Storm,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Healthy => "healthy",
            Profile::Storm => "storm",
        }
    }
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "healthy" => Ok(Profile::Healthy),
            "storm" => Ok(Profile::Storm),
            other => Err(format!("{other}: expected healthy or storm")),
        }
    }
}

/// A lost node in the storm: one in three.
fn node_lost(profile: Profile, node: usize) -> bool {
    profile == Profile::Storm && node.is_multiple_of(3)
}

/// Pods of a rolling update whose image the failing registry refuses, in the
/// storm: one in seven of the pods on nodes still up.
fn pull_refused(profile: Profile, i: usize, nodes: usize) -> bool {
    profile == Profile::Storm && !node_lost(profile, i % nodes) && i % 7 == 3
}

/// The failing registry's host.
pub const FAILING_REGISTRY: &str = "registry.example.com";

pub struct Cluster {
    /// Nodes, namespaces and workloads.
    pub others: Vec<Value>,
    pub pods: Vec<Value>,
}

pub fn generate(pods: usize) -> Cluster {
    generate_profile(pods, Profile::Healthy)
}

pub fn generate_profile(pods: usize, profile: Profile) -> Cluster {
    let others = others_profile(pods, profile);
    let nodes = others.iter().filter(|o| o["kind"] == "Node").count();
    let pods = (0..pods).map(|i| pod_profile(i, nodes, profile)).collect();
    Cluster { others, pods }
}

/// The nodes, namespaces and workloads of a cluster of `pods` pods; pod `i`
/// is [`pod`]`(i, nodes)`.
pub fn others(pods: usize) -> Vec<Value> {
    others_profile(pods, Profile::Healthy)
}

/// [`others`] in a profile; with the storm's, also the kubelet's Failed
/// events of the refused pulls.
pub fn others_profile(pods: usize, profile: Profile) -> Vec<Value> {
    let nodes = pods.div_ceil(PODS_PER_NODE).max(3);
    let namespaces = pods.div_ceil(PODS_PER_NAMESPACE).max(1);
    let mut others = Vec::new();
    for n in 0..nodes {
        others.push(node(n, node_lost(profile, n)));
    }
    for ns in 0..namespaces {
        others.push(json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": namespace_name(ns), "labels": {"kubernetes.io/metadata.name": namespace_name(ns)}},
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}));
    }
    let replica_sets = pods.div_ceil(PODS_PER_REPLICASET);
    for rs in 0..replica_sets {
        let ns = namespace_name(rs * PODS_PER_REPLICASET / PODS_PER_NAMESPACE);
        let app = format!("app-{rs}");
        if rs % 10 == 9 {
            others.push(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
                "metadata": {"name": app, "namespace": ns, "uid": format!("sts-{rs}")},
                "spec": {"replicas": PODS_PER_REPLICASET, "serviceName": app,
                         "selector": {"matchLabels": {"app": app}}, "podManagementPolicy": "OrderedReady"},
                "status": {"replicas": PODS_PER_REPLICASET, "readyReplicas": PODS_PER_REPLICASET}}));
        } else {
            others.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": app, "namespace": ns, "uid": format!("deploy-{rs}")},
                "spec": {"replicas": PODS_PER_REPLICASET, "selector": {"matchLabels": {"app": app}},
                         "strategy": {"type": if rs % 7 == 0 { "Recreate" } else { "RollingUpdate" }}},
                "status": {"replicas": PODS_PER_REPLICASET, "readyReplicas": PODS_PER_REPLICASET}}));
            // In the storm a Recreate Deployment with a pod on a lost node is
            // mid-rollout: its old ReplicaSet scaled to 0, the new one waiting.
            let rolling_out = rs % 7 == 0
                && (rs * PODS_PER_REPLICASET..(rs + 1) * PODS_PER_REPLICASET)
                    .any(|i| node_lost(profile, i % nodes));
            let owner = json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": app,
                                "uid": format!("deploy-{rs}"), "controller": true}]);
            others.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": format!("{app}-5f7b9c6d4"), "namespace": ns, "uid": format!("rs-{rs}"),
                             "ownerReferences": owner},
                "spec": {"replicas": if rolling_out { 0 } else { PODS_PER_REPLICASET }, "selector": {"matchLabels": {"app": app}}},
                "status": {"replicas": PODS_PER_REPLICASET}}));
            if rolling_out {
                others.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "metadata": {"name": format!("{app}-7c8d9e5f6"), "namespace": ns, "uid": format!("rs-{rs}-next"),
                                 "ownerReferences": owner},
                    "spec": {"replicas": PODS_PER_REPLICASET, "selector": {"matchLabels": {"app": app}}},
                    "status": {"replicas": 0}}));
            }
        }
    }
    others.push(json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "node-exporter", "namespace": "monitoring", "uid": "ds-1"},
        "spec": {"selector": {"matchLabels": {"app": "node-exporter"}},
                 "template": {"spec": {"containers": [{"name": "node-exporter", "image": "quay.io/prometheus/node-exporter:v1.8.1",
                                                       "ports": [{"containerPort": 9100, "hostPort": 9100}]}]}}},
        "status": {"desiredNumberScheduled": nodes, "currentNumberScheduled": nodes, "numberReady": nodes}}));
    for i in (0..pods).filter(|i| pull_refused(profile, *i, nodes)) {
        others.push(pull_failed_event(i));
    }
    others
}

/// The kubelet's event for a pull the failing registry refused.
fn pull_failed_event(i: usize) -> Value {
    let (ns, name, image) = (
        namespace_name(i / PODS_PER_NAMESPACE),
        pod_name(i),
        image_of(i),
    );
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{name}.17d8c2b5a1f0{i:06x}"), "namespace": ns},
        "involvedObject": {"kind": "Pod", "namespace": ns, "name": name, "apiVersion": "v1",
                           "uid": format!("8d2c5e7a-0000-4000-8000-{i:012}"), "fieldPath": "spec.containers{app}"},
        "reason": "Failed", "type": "Warning", "count": 12,
        "source": {"component": "kubelet", "host": "node"},
        "firstTimestamp": "2024-06-01T09:00:00Z", "lastTimestamp": "2024-06-01T09:20:00Z",
        "message": format!("Failed to pull image \"{image}\": rpc error: code = Unknown desc = failed to pull and unpack image \"{image}\": failed to resolve reference \"{image}\": unexpected status from HEAD request to https://{FAILING_REGISTRY}/v2/{}/manifests/{}: 503 Service Unavailable",
            image.trim_start_matches(&format!("{FAILING_REGISTRY}/")).split(':').next().unwrap_or_default(),
            image.rsplit(':').next().unwrap_or_default())})
}

/// An event changed as the kubelet changes it on every retry: the count and
/// last time bumped. The storm's churn sends these.
pub fn pull_failed_event_again(i: usize, nodes: usize, revision: usize) -> Option<Value> {
    if !pull_refused(Profile::Storm, i, nodes) {
        return None;
    }
    let mut event = pull_failed_event(i);
    event["count"] = json!(12 + revision);
    let last = jiff::Timestamp::from_second(1_717_233_600 + revision as i64).ok()?;
    event["lastTimestamp"] = json!(last.to_string());
    Some(event)
}

fn pod_name(i: usize) -> String {
    let rs = i / PODS_PER_REPLICASET;
    let app = format!("app-{rs}");
    if rs % 10 == 9 {
        format!("{app}-{}", i % PODS_PER_REPLICASET)
    } else {
        format!("{app}-5f7b9c6d4-{i:06x}")
    }
}

/// The image of pod `i`: one per ReplicaSet, as a rollout's pods share one.
fn image_of(i: usize) -> String {
    let rs = i / PODS_PER_REPLICASET;
    format!(
        "{FAILING_REGISTRY}/team-{}/app-{rs}:1.{}.{}",
        rs % 40,
        rs % 9,
        rs % 17
    )
}

fn namespace_name(i: usize) -> String {
    format!("team-{i:04}")
}

fn node(n: usize, lost: bool) -> Value {
    let mut node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": format!("node-{n:05}"),
                     "labels": {"kubernetes.io/hostname": format!("node-{n:05}"), "kubernetes.io/os": "linux",
                                "node.kubernetes.io/instance-type": "m5.2xlarge", "topology.kubernetes.io/zone": format!("zone-{}", n % 3)}},
        "spec": {"podCIDR": format!("10.{}.{}.0/24", n / 256, n % 256)},
        "status": {"conditions": [
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory", "message": "kubelet has sufficient memory available"},
            {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure", "message": "kubelet has no disk pressure"},
            {"type": "PIDPressure", "status": "False", "reason": "KubeletHasSufficientPID", "message": "kubelet has sufficient PID available"},
            {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}],
            "allocatable": {"cpu": "7910m", "memory": "31Gi", "pods": "110"}}});
    if lost {
        node["spec"]["taints"] = json!([
            {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": "2024-06-01T08:55:00Z"},
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2024-06-01T08:55:05Z"}]);
        node["status"]["conditions"][3] = json!({"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
            "message": "Kubelet stopped posting node status.", "lastTransitionTime": "2024-06-01T08:55:00Z"});
    }
    node
}

/// The pod with index `i`, anomalous in family `i / ANOMALY_EVERY % 6`
/// every `ANOMALY_EVERY` pods.
pub fn pod(i: usize, nodes: usize) -> Value {
    pod_profile(i, nodes, Profile::Healthy)
}

/// [`pod`] in a profile.
pub fn pod_profile(i: usize, nodes: usize, profile: Profile) -> Value {
    let app = format!("app-{}", i / PODS_PER_REPLICASET);
    let image = image_of(i);
    let mut pod = json!({"apiVersion": "v1", "kind": "Pod"});
    pod["metadata"] = pod_metadata(i, &app);
    pod["spec"] = pod_spec(i, nodes, &app, &image);
    pod["status"] = pod_status(i, nodes, &image);
    if node_lost(profile, i % nodes) {
        // Evicted by the taint manager once the node was lost; no kubelet
        // confirms the containers stopped.
        anomaly(&mut pod, "terminating", &image);
    } else if pull_refused(profile, i, nodes) {
        let reason = if i.is_multiple_of(2) {
            "ErrImagePull"
        } else {
            "ImagePullBackOff"
        };
        waiting(
            &mut pod,
            reason,
            &format!("Back-off pulling image \"{image}\""),
        );
    } else if i.is_multiple_of(ANOMALY_EVERY) {
        anomaly(
            &mut pod,
            FAMILIES[(i / ANOMALY_EVERY) % FAMILIES.len()],
            &image,
        );
    }
    pod
}

/// The sidecar every pod runs beside its app.
const SIDECAR_IMAGE: &str = "docker.io/envoyproxy/envoy:v1.30.2";

/// Pod `i`'s metadata: its name and owner (a StatefulSet's for one
/// application in ten, a ReplicaSet's otherwise), labels, annotations and the
/// managed fields the API server keeps, as large as a real pod's.
fn pod_metadata(i: usize, app: &str) -> Value {
    let rs = i / PODS_PER_REPLICASET;
    let ns = namespace_name(i / PODS_PER_NAMESPACE);
    let stateful = rs % 10 == 9;
    let (name, owner) = if stateful {
        (
            format!("{app}-{}", i % PODS_PER_REPLICASET),
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "name": app, "uid": format!("sts-{rs}"),
                   "controller": true, "blockOwnerDeletion": true}),
        )
    } else {
        (
            format!("{app}-5f7b9c6d4-{i:06x}"),
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{app}-5f7b9c6d4"),
                   "uid": format!("rs-{rs}"), "controller": true, "blockOwnerDeletion": true}),
        )
    };
    let fields = |manager: &str, fields: Value| {
        json!({"manager": manager, "operation": "Update", "apiVersion": "v1",
               "time": "2024-06-01T08:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields})
    };
    json!({
        "name": name, "namespace": ns, "uid": format!("8d2c5e7a-0000-4000-8000-{i:012}"),
        "generateName": format!("{app}-5f7b9c6d4-"),
        "creationTimestamp": "2024-06-01T08:00:00Z",
        "labels": {"app": app, "pod-template-hash": "5f7b9c6d4", "team": format!("team-{}", i % 40),
                   "app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "shop", "version": "1.4.2"},
        "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "8080",
                        "kubectl.kubernetes.io/restartedAt": "2024-05-30T11:02:13Z",
                        "checksum/config": "4f9d2b7d0c3e8a61f5b2c9d7e1a04b3c8f6e2d1a9b7c5e3f1d0a2b4c6e8f0a1b"},
        "ownerReferences": [owner],
        "managedFields": [
            fields("kube-controller-manager", json!({"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}, "f:team": {}},
                "f:ownerReferences": {".": {}, "k:{\"uid\":\"x\"}": {}}},
                "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:env": {".": {}, "k:{\"name\":\"LOG_LEVEL\"}": {".": {}, "f:name": {}, "f:value": {}}},
                    "f:image": {}, "f:imagePullPolicy": {}, "f:livenessProbe": {".": {}, "f:httpGet": {".": {}, "f:path": {}, "f:port": {}}},
                    "f:name": {}, "f:ports": {".": {}, "k:{\"containerPort\":8080,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:protocol": {}}},
                    "f:resources": {".": {}, "f:limits": {".": {}, "f:memory": {}}, "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}},
                    "f:volumeMounts": {".": {}, "k:{\"mountPath\":\"/etc/app\"}": {".": {}, "f:mountPath": {}, "f:name": {}}}},
                    "k:{\"name\":\"envoy\"}": {".": {}, "f:image": {}, "f:name": {}}},
                    "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {},
                    "f:securityContext": {}, "f:terminationGracePeriodSeconds": {}, "f:volumes": {".": {}, "k:{\"name\":\"config\"}": {".": {}, "f:configMap": {}, "f:name": {}}}}})),
            fields("kube-scheduler", json!({"f:status": {"f:conditions": {".": {}, "k:{\"type\":\"PodScheduled\"}": {".": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}}}})),
            fields("kubelet", json!({"f:status": {"f:conditions": {"k:{\"type\":\"ContainersReady\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                "k:{\"type\":\"Initialized\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                "k:{\"type\":\"Ready\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}},
                "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {}, "f:podIPs": {".": {}, "k:{\"ip\":\"10.1.2.3\"}": {".": {}, "f:ip": {}}}, "f:startTime": {}}})),
        ]
    })
}

/// Pod `i`'s spec: on its node, an init container, the app and its sidecar,
/// with the volumes, probes and environment a real deployment has.
fn pod_spec(i: usize, nodes: usize, app: &str, image: &str) -> Value {
    let node = format!("node-{:05}", i % nodes);
    let sidecar = SIDECAR_IMAGE;
    json!({
        "nodeName": node, "serviceAccountName": "default", "schedulerName": "default-scheduler",
        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30,
        "priority": 0, "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority",
        "securityContext": {"runAsNonRoot": true, "fsGroup": 2000},
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
        "initContainers": [
            {"name": "wait-for-db", "image": "docker.io/library/busybox:1.36", "imagePullPolicy": "IfNotPresent",
             "command": ["sh", "-c", "until nc -z db.shop.svc.cluster.local 5432; do echo waiting for db; sleep 2; done"],
             "resources": {"limits": {"memory": "32Mi"}, "requests": {"cpu": "10m", "memory": "16Mi"}},
             "volumeMounts": [{"name": "kube-api-access-x7q2z", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}],
             "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
        "containers": [
            {"name": "app", "image": image, "imagePullPolicy": "IfNotPresent",
             "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
             "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "HTTP_PORT", "value": "8080"},
                     {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.observability.svc.cluster.local:4317"},
                     {"name": "OTEL_SERVICE_NAME", "value": app}, {"name": "GOMAXPROCS", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1"}}}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
                     {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}},
                     {"name": "DATABASE_URL", "valueFrom": {"secretKeyRef": {"name": "db", "key": "url"}}}],
             "resources": {"limits": {"memory": "512Mi"}, "requests": {"cpu": "250m", "memory": "256Mi"}},
             "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 10, "timeoutSeconds": 1, "failureThreshold": 3, "successThreshold": 1},
             "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 5, "timeoutSeconds": 1, "failureThreshold": 3, "successThreshold": 1},
             "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}, {"name": "kube-api-access-x7q2z", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}],
             "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"},
            {"name": "envoy", "image": sidecar, "imagePullPolicy": "IfNotPresent",
             "args": ["--config-path", "/etc/envoy/envoy.yaml", "--log-level", "warn"],
             "resources": {"limits": {"memory": "256Mi"}, "requests": {"cpu": "50m", "memory": "64Mi"}},
             "volumeMounts": [{"name": "kube-api-access-x7q2z", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}],
             "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
        "volumes": [
            {"name": "config", "configMap": {"name": format!("{app}-config"), "defaultMode": 420}},
            {"name": "kube-api-access-x7q2z", "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}}]
    })
}

/// Pod `i`'s status: Running and Ready, every container started.
fn pod_status(i: usize, nodes: usize, image: &str) -> Value {
    let sidecar = SIDECAR_IMAGE;
    json!({
        "phase": "Running", "hostIP": format!("10.0.{}.{}", (i % nodes) / 256, (i % nodes) % 256),
        "podIP": format!("10.{}.{}.{}", 100 + i / 65536 % 100, i / 256 % 256, i % 256),
        "podIPs": [{"ip": format!("10.{}.{}.{}", 100 + i / 65536 % 100, i / 256 % 256, i % 256)}],
        "qosClass": "Burstable", "startTime": "2024-06-01T08:00:01Z",
        "conditions": [
            {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-06-01T08:00:01Z"},
            {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-06-01T08:00:09Z"},
            {"type": "ContainersReady", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-06-01T08:00:09Z"},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-06-01T08:00:00Z"}],
        "initContainerStatuses": [
            {"name": "wait-for-db", "image": "docker.io/library/busybox:1.36",
             "imageID": "docker.io/library/busybox@sha256:768e5c6f5cb6db0794eec98dc7a967f40631746c32232b78a3105fb946f3ab83",
             "containerID": format!("containerd://{:064x}", i + 2), "ready": true, "restartCount": 0, "started": false,
             "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2024-06-01T08:00:01Z",
                                      "finishedAt": "2024-06-01T08:00:03Z", "containerID": format!("containerd://{:064x}", i + 2)}},
             "lastState": {}}],
        "containerStatuses": [
            {"name": "app", "image": image, "imageID": format!("{image}@sha256:9b2a1c3d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789abcdef"),
             "containerID": format!("containerd://{:064x}", i), "ready": true, "restartCount": 0, "started": true,
             "state": {"running": {"startedAt": "2024-06-01T08:00:05Z"}}, "lastState": {}},
            {"name": "envoy", "image": sidecar, "imageID": format!("{sidecar}@sha256:1f2e3d4c5b6a79880716253443526170f1e2d3c4b5a69788796a5b4c3d2e1f00"),
             "containerID": format!("containerd://{:064x}", i + 1), "ready": true, "restartCount": 0, "started": true,
             "state": {"running": {"startedAt": "2024-06-01T08:00:04Z"}}, "lastState": {}}]
    })
}

fn waiting(pod: &mut Value, reason: &str, message: &str) {
    pod["status"]["containerStatuses"][0]["ready"] = json!(false);
    pod["status"]["containerStatuses"][0]["state"] =
        json!({"waiting": {"reason": reason, "message": message}});
}

fn anomaly(pod: &mut Value, family: &str, image: &str) {
    match family {
        "terminating" => {
            pod["metadata"]["deletionTimestamp"] = json!("2024-06-01T09:00:30Z");
            pod["metadata"]["deletionGracePeriodSeconds"] = json!(30);
        }
        "pending" => {
            pod["spec"].as_object_mut().unwrap().remove("nodeName");
            pod["status"] = json!({"phase": "Pending", "qosClass": "Burstable", "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": "2024-06-01T08:00:00Z",
                 "message": "0/5000 nodes are available: 4000 Insufficient cpu, 1000 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/5000 nodes are available: 1000 Preemption is not helpful for scheduling, 4000 No preemption victims found for incoming pod."}]});
        }
        "image_pull" => waiting(
            pod,
            "ImagePullBackOff",
            &format!("Back-off pulling image \"{image}\""),
        ),
        "crash_loop" => {
            waiting(
                pod,
                "CrashLoopBackOff",
                "back-off 5m0s restarting failed container=app",
            );
            pod["status"]["containerStatuses"][0]["restartCount"] = json!(42);
            pod["status"]["containerStatuses"][0]["lastState"] = json!({"terminated": {"exitCode": 137, "reason": "OOMKilled",
                "startedAt": "2024-06-01T08:10:00Z", "finishedAt": "2024-06-01T08:10:30Z"}});
        }
        "config_error" => waiting(
            pod,
            "CreateContainerConfigError",
            "configmap \"app-config\" not found",
        ),
        _ => {
            pod["status"]["phase"] = json!("Pending");
            waiting(pod, "ContainerCreating", "");
            pod["status"]["containerStatuses"][0]["started"] = json!(false);
        }
    }
}

/// Pod `i` in its `generation`th incarnation: a rollout replaced it `generation`
/// times, each time under a new name and uid, as a ReplicaSet's pods are.
pub fn pod_generation(i: usize, nodes: usize, generation: usize) -> Value {
    let mut pod = pod(i, nodes);
    if generation > 0 {
        let name = format!(
            "{}-r{generation}",
            pod["metadata"]["name"].as_str().unwrap_or_default()
        );
        pod["metadata"]["name"] = json!(name);
        pod["metadata"]["uid"] = json!(format!(
            "8d2c5e7a-{:04x}-4000-8000-{i:012}",
            generation % 0x10000
        ));
    }
    pod
}

/// A kubelet warning about a pod, new each time (`serial` names it), as a
/// readiness probe failing now and then makes them.
pub fn probe_warning(pod: &Value, serial: usize) -> Value {
    let meta = &pod["metadata"];
    let (ns, name) = (
        meta["namespace"].as_str().unwrap_or_default(),
        meta["name"].as_str().unwrap_or_default(),
    );
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{name}.{serial:016x}"), "namespace": ns},
        "involvedObject": {"kind": "Pod", "namespace": ns, "name": name, "apiVersion": "v1",
                           "uid": meta["uid"], "fieldPath": "spec.containers{app}"},
        "reason": "Unhealthy", "type": "Warning", "count": 1,
        "source": {"component": "kubelet", "host": pod["spec"]["nodeName"]},
        "firstTimestamp": "2024-06-01T09:00:00Z", "lastTimestamp": "2024-06-01T09:00:00Z",
        "message": "Readiness probe failed: Get \"http://10.1.2.3:8080/ready\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"})
}

/// A pod that appears in CrashLoopBackOff during the churn, named by `k`, in
/// the namespace of pod 0: the benchmark times how soon its finding shows.
pub fn crash_looping_newcomer(k: usize, nodes: usize) -> Value {
    let mut pod = pod(0, nodes);
    pod["metadata"]["name"] = json!(format!("newcomer-{k}"));
    pod["metadata"]["uid"] = json!(format!("5e1f0c2a-0000-4000-8000-{k:012}"));
    pod["metadata"]["ownerReferences"] = json!([]);
    anomaly(&mut pod, "crash_loop", "");
    pod
}
