//! The production pod: a test pod reshaped as the kubelet reports it when the
//! pod carries an init container or a native sidecar, or when the failing
//! container is itself an init container. The shapes follow the kubelet:
//!
//! - until a pod has a sandbox, every container, init or not, waits with
//!   reason `PodInitializing` when the pod has init containers, instead of
//!   `ContainerCreating` (`convertToAPIContainerStatuses`,
//!   pkg/kubelet/kubelet_pods.go);
//! - an init container that exited 0 is `terminated` with reason `Completed`
//!   and the pod is `Initialized`; a native sidecar (`restartPolicy: Always`)
//!   runs with `started: true` beside the app;
//! - while an init container has not finished, the pod is `Pending` and the
//!   app's containers wait with reason `PodInitializing`; events about an init
//!   container name it `spec.initContainers{name}`.

use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The pod as the test wrote it.
    Plain,
    /// With an init container that has completed (`wait-for-db`).
    CompletedInit,
    /// With a native sidecar that runs and has started (`istio-proxy`).
    RunningSidecar,
    /// The failing container made an init container, the app waiting behind it.
    FailingAsInit,
}

impl Shape {
    pub const ALL: [Shape; 4] = [
        Shape::Plain,
        Shape::CompletedInit,
        Shape::RunningSidecar,
        Shape::FailingAsInit,
    ];
}

const NOT_CREATED: [&str; 2] = ["ContainerCreating", "PodInitializing"];

fn waiting_reason(status: &Value) -> Option<&str> {
    status["state"]["waiting"]["reason"].as_str()
}

/// The pod has no sandbox yet: no status, or every container not created.
fn without_sandbox(pod: &Value) -> bool {
    let statuses = pod["status"]["containerStatuses"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    statuses
        .iter()
        .all(|s| waiting_reason(s).is_some_and(|r| NOT_CREATED.contains(&r)))
}

fn waiting_initializing(name: &str, image: &str) -> Value {
    json!({"name": name, "image": image, "ready": false, "restartCount": 0, "started": false,
           "state": {"waiting": {"reason": "PodInitializing"}}})
}

/// Every regular container status that waits to be created now reads
/// `PodInitializing`, as the kubelet reports it for a pod with init containers.
fn app_waits_for_init(pod: &mut Value) {
    if let Some(statuses) = pod["status"]["containerStatuses"].as_array_mut() {
        for s in statuses {
            if waiting_reason(s).is_some_and(|r| NOT_CREATED.contains(&r)) {
                s["state"] = json!({"waiting": {"reason": "PodInitializing"}});
            }
        }
    }
}

fn set_condition(pod: &mut Value, type_: &str, status: &str, reason: Option<&str>) {
    let conditions = pod["status"]["conditions"]
        .as_array_mut()
        .map(std::mem::take)
        .unwrap_or_default();
    let mut kept: Vec<Value> = conditions
        .into_iter()
        .filter(|c| c["type"] != type_)
        .collect();
    let mut c = json!({"type": type_, "status": status});
    if let Some(reason) = reason {
        c["reason"] = json!(reason);
    }
    kept.push(c);
    pod["status"]["conditions"] = Value::Array(kept);
}

/// `pod` with one init container in front of its containers, in the state
/// that `running` gives it once the pod has a sandbox.
fn with_init(mut pod: Value, spec: Value, running: Value) -> Value {
    let name = spec["name"].as_str().unwrap_or_default().to_string();
    let image = spec["image"].as_str().unwrap_or_default().to_string();
    pod["spec"]["initContainers"] = json!([spec]);
    if without_sandbox(&pod) {
        if pod["status"]["containerStatuses"].is_array() {
            pod["status"]["initContainerStatuses"] = json!([waiting_initializing(&name, &image)]);
        }
        app_waits_for_init(&mut pod);
        set_condition(
            &mut pod,
            "Initialized",
            "False",
            Some("ContainersNotInitialized"),
        );
    } else {
        pod["status"]["initContainerStatuses"] = json!([running]);
        set_condition(&mut pod, "Initialized", "True", None);
    }
    pod
}

/// The first container status that neither runs nor waits to be created.
fn failing_index(pod: &Value) -> Option<usize> {
    pod["status"]["containerStatuses"]
        .as_array()?
        .iter()
        .position(|s| {
            s["state"]["running"].is_null()
                && !waiting_reason(s).is_some_and(|r| NOT_CREATED.contains(&r))
        })
}

fn failing_as_init(mut pod: Value, objects: &mut [Value]) -> Value {
    let Some(i) = failing_index(&pod) else {
        // A pod-level failure (no sandbox): an init container in front, which
        // waits as the rest do.
        let spec = json!({"name": "setup", "image": "registry.example.com/demo/setup:1.0"});
        return with_init(pod, spec, Value::Null);
    };
    let status = pod["status"]["containerStatuses"][i].clone();
    let name = status["name"].as_str().unwrap_or_default().to_string();
    let spec = pod["spec"]["containers"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name.as_str()))
        .cloned()
        .unwrap_or_else(|| json!({"name": name, "image": status["image"]}));
    pod["spec"]["initContainers"] = json!([spec]);
    pod["spec"]["containers"] =
        json!([{"name": "main", "image": "registry.example.com/demo/main:2.0"}]);
    pod["status"]["initContainerStatuses"] = json!([status]);
    pod["status"]["containerStatuses"] = json!([waiting_initializing(
        "main",
        "registry.example.com/demo/main:2.0"
    )]);
    pod["status"]["phase"] = json!("Pending");
    set_condition(
        &mut pod,
        "Initialized",
        "False",
        Some("ContainersNotInitialized"),
    );
    set_condition(&mut pod, "Ready", "False", Some("ContainersNotReady"));
    // Events about the container now name it as an init container.
    let old = format!("spec.containers{{{name}}}");
    let new = format!("spec.initContainers{{{name}}}");
    for object in objects.iter_mut() {
        if object["kind"] == "Event"
            && object["involvedObject"]["name"] == pod["metadata"]["name"]
            && object["involvedObject"]["fieldPath"] == old.as_str()
        {
            object["involvedObject"]["fieldPath"] = json!(new);
        }
    }
    pod
}

/// `objects` with the pod named `pod` reshaped.
pub fn reshape(objects: &[Value], pod: &str, shape: Shape) -> Vec<Value> {
    let mut objects = objects.to_vec();
    let Some(i) = objects
        .iter()
        .position(|o| o["kind"] == "Pod" && o["metadata"]["name"] == pod)
    else {
        panic!("no pod {pod}");
    };
    let original = objects[i].clone();
    objects[i] = match shape {
        Shape::Plain => original,
        Shape::CompletedInit => with_init(
            original,
            json!({"name": "wait-for-db", "image": "docker.io/library/busybox:1.36",
                   "command": ["sh", "-c", "until nc -z db 5432; do sleep 2; done"]}),
            json!({"name": "wait-for-db", "image": "docker.io/library/busybox:1.36",
                   "ready": true, "restartCount": 0, "started": false,
                   "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                       "startedAt": "2024-06-01T08:00:02Z", "finishedAt": "2024-06-01T08:00:04Z"}}}),
        ),
        Shape::RunningSidecar => with_init(
            original,
            json!({"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.24.0",
                   "restartPolicy": "Always",
                   "startupProbe": {"httpGet": {"path": "/healthz/ready", "port": 15021}}}),
            json!({"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.24.0",
                   "ready": true, "restartCount": 0, "started": true,
                   "state": {"running": {"startedAt": "2024-06-01T08:00:02Z"}}}),
        ),
        Shape::FailingAsInit => failing_as_init(original, &mut objects),
    };
    objects
}
