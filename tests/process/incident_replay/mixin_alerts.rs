//! What the kubernetes-mixin fires for each incident: its alerts about the
//! incident's objects, as its rules' expressions (kubernetes-monitoring/
//! kubernetes-mixin, alerts/apps_alerts.libsonnet, kubelet.libsonnet,
//! lib/instance_unreachable_alert.libsonnet) fire them for the series
//! kube-state-metrics makes of those objects, with the labels those series
//! carry and their `for`, shortened as ours are; and the rule file that
//! replays them.

use super::*;

/// A kubernetes-mixin alert as its rule fires it for kube-state-metrics'
/// series: `labels` plus the scrape's.
pub(super) fn ksm_alert(alertname: &str, for_: &str, labels: Value) -> Value {
    let mut all = json!({"alertname": alertname, "for": for_, "severity": "warning",
        "job": "kube-state-metrics", "instance": "10.0.3.4:8080"});
    all.as_object_mut()
        .unwrap()
        .extend(labels.as_object().unwrap().clone());
    all
}

pub(super) fn no_extra() -> Vec<Value> {
    Vec::new()
}

/// kube-scheduler gone: `absent(up{job="kube-scheduler"})` has only the labels
/// of its matchers, so none names a cluster (`"cluster": ""` keeps the replay
/// from adding one).
pub(super) fn scheduler_absent() -> Vec<Value> {
    vec![
        json!({"alertname": "KubeSchedulerDown", "for": "15s", "severity": "critical",
        "job": "kube-scheduler", "cluster": ""}),
    ]
}

fn str_of<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    path.iter()
        .fold(v, |v, key| &v[*key])
        .as_str()
        .unwrap_or_default()
}

fn int_of(v: &Value, path: &[&str]) -> i64 {
    path.iter()
        .fold(v, |v, key| &v[*key])
        .as_i64()
        .unwrap_or_default()
}

fn condition<'a>(object: &'a Value, kind: &str) -> Option<&'a Value> {
    object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)
}

/// The controller of an object, by kind.
fn controller_kind(object: &Value) -> &str {
    object["metadata"]["ownerReferences"]
        .as_array()
        .and_then(|owners| owners.iter().find(|o| o["controller"] == true))
        .map_or("", |o| o["kind"].as_str().unwrap_or_default())
}

/// Whether a node is Ready, as `kube_node_status_condition{condition="Ready",
/// status="true"}` says.
fn node_ready(node: &Value) -> bool {
    condition(node, "Ready").is_some_and(|c| c["status"] == "True")
}

/// The kubernetes-mixin's alerts about `objects` (a dump), as its rules fire
/// them from kube-state-metrics' series; `for` shortened as ours are
/// (minutes read as seconds).
pub(super) fn kubernetes_mixin(objects: &[Value]) -> Vec<Value> {
    let now = jiff::Timestamp::now();
    let lost: Vec<&str> = objects
        .iter()
        .filter(|o| o["kind"] == "Node" && !node_ready(o))
        .map(|o| str_of(o, &["metadata", "name"]))
        .collect();
    let mut alerts = Vec::new();
    for o in objects {
        let namespace = str_of(o, &["metadata", "namespace"]);
        let name = str_of(o, &["metadata", "name"]);
        match o["kind"].as_str().unwrap_or_default() {
            "Pod" => {
                let phase = str_of(o, &["status", "phase"]);
                let ready = condition(o, "Ready").is_some_and(|c| c["status"] == "True");
                let gated =
                    condition(o, "PodScheduled").is_some_and(|c| c["reason"] == "SchedulingGated");
                // KubePodNotReady: Pending or Unknown, or Running and not Ready;
                // not a Job's pod, not one gated on purpose.
                if controller_kind(o) != "Job"
                    && !gated
                    && (matches!(phase, "Pending" | "Unknown") || phase == "Running" && !ready)
                {
                    alerts.push(ksm_alert(
                        "KubePodNotReady",
                        "15s",
                        json!({"namespace": namespace, "pod": name}),
                    ));
                }
                // kube_pod_container_status_waiting_reason: the app containers.
                for status in o["status"]["containerStatuses"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let reason = str_of(status, &["state", "waiting", "reason"]);
                    let container = str_of(status, &["name"]);
                    let labels = json!({"namespace": namespace, "pod": name, "container": container,
                        "reason": reason, "uid": str_of(o, &["metadata", "uid"])});
                    match reason {
                        "" => {}
                        "CrashLoopBackOff" => {
                            alerts.push(ksm_alert("KubePodCrashLooping", "15s", labels))
                        }
                        _ => alerts.push(ksm_alert("KubeContainerWaiting", "60s", labels)),
                    }
                }
                // kube-proxy's scrape target is its pod: down with its node.
                let node = str_of(o, &["spec", "nodeName"]);
                if namespace == "kube-system"
                    && name.starts_with("kube-proxy-")
                    && lost.contains(&node)
                {
                    alerts.push(ksm_alert(
                        "KubeProxyInstanceUnreachable",
                        "15s",
                        json!({"job": "kube-proxy", "namespace": namespace, "pod": name,
                            "instance": format!("{node}:10249"), "service": "kube-proxy"}),
                    ));
                }
            }
            "Deployment" => {
                let labels = json!({"namespace": namespace, "deployment": name});
                let available = int_of(o, &["status", "availableReplicas"]);
                if int_of(o, &["spec", "replicas"]) > available {
                    alerts.push(ksm_alert(
                        "KubeDeploymentReplicasMismatch",
                        "15s",
                        labels.clone(),
                    ));
                }
                if condition(o, "Progressing").is_some_and(|c| c["status"] == "False") {
                    let mut labels = labels;
                    labels["condition"] = json!("Progressing");
                    labels["status"] = json!("false");
                    alerts.push(ksm_alert("KubeDeploymentRolloutStuck", "15s", labels));
                }
            }
            "StatefulSet" => {
                let labels = json!({"namespace": namespace, "statefulset": name});
                let replicas = int_of(o, &["spec", "replicas"]);
                if int_of(o, &["status", "readyReplicas"]) != replicas {
                    alerts.push(ksm_alert(
                        "KubeStatefulSetReplicasMismatch",
                        "15s",
                        labels.clone(),
                    ));
                }
                let current = str_of(o, &["status", "currentRevision"]);
                let update = str_of(o, &["status", "updateRevision"]);
                if !current.is_empty()
                    && current != update
                    && replicas != int_of(o, &["status", "updatedReplicas"])
                {
                    alerts.push(ksm_alert(
                        "KubeStatefulSetUpdateNotRolledOut",
                        "15s",
                        labels,
                    ));
                }
            }
            "DaemonSet" => {
                let labels = json!({"namespace": namespace, "daemonset": name});
                let status = |key: &str| int_of(o, &["status", key]);
                let desired = status("desiredNumberScheduled");
                let current = status("currentNumberScheduled");
                let updated = o["status"]["updatedNumberScheduled"]
                    .as_i64()
                    .unwrap_or(current);
                if current != desired
                    || status("numberMisscheduled") != 0
                    || updated != desired
                    || status("numberAvailable") != desired
                {
                    alerts.push(ksm_alert(
                        "KubeDaemonSetRolloutStuck",
                        "15s",
                        labels.clone(),
                    ));
                }
                if desired - current > 0 {
                    alerts.push(ksm_alert("KubeDaemonSetNotScheduled", "10s", labels));
                }
            }
            "Job" => {
                let labels = json!({"namespace": namespace, "job_name": name});
                if condition(o, "Failed").is_some_and(|c| c["status"] == "True") {
                    let mut labels = labels.clone();
                    labels["condition"] = json!("true");
                    alerts.push(ksm_alert("KubeJobFailed", "15s", labels));
                }
                let started: Option<jiff::Timestamp> =
                    str_of(o, &["status", "startTime"]).parse().ok();
                let active_for = started.map(|s| now.duration_since(s).as_secs());
                // No `for`: it holds from 12 hours after the Job started. A Job
                // past that whose pods are stuck has had this pack's alerts
                // about it (7 to 12 minutes after its pods' findings) for
                // hours when it fires; replayed from the first scrape, it is
                // given the mixin's latest replayed `for` so that, as in the
                // cluster, it comes after them.
                if int_of(o, &["status", "active"]) > 0 && active_for.is_some_and(|s| s > 12 * 3600)
                {
                    alerts.push(ksm_alert("KubeJobNotCompleted", "15s", labels));
                }
            }
            // apps_alerts.libsonnet: desired_healthy - current_healthy > 0.
            "PodDisruptionBudget"
                if int_of(o, &["status", "desiredHealthy"])
                    > int_of(o, &["status", "currentHealthy"]) =>
            {
                alerts.push(ksm_alert(
                    "KubePdbNotEnoughHealthyPods",
                    "15s",
                    json!({"namespace": namespace, "poddisruptionbudget": name}),
                ));
            }
            "Node" if !node_ready(o) => {
                let unschedulable = o["spec"]["unschedulable"] == true;
                if !unschedulable {
                    alerts.push(ksm_alert(
                        "KubeNodeNotReady",
                        "15s",
                        json!({"node": name, "condition": "Ready", "status": "true"}),
                    ));
                }
                let unreachable = o["spec"]["taints"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|t| {
                        t["key"] == "node.kubernetes.io/unreachable" && t["effect"] == "NoSchedule"
                    });
                if unreachable {
                    alerts.push(ksm_alert(
                        "KubeNodeUnreachable",
                        "15s",
                        json!({"node": name, "key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}),
                    ));
                }
                // The kubelet's own scrape target, labelled with its node.
                alerts.push(ksm_alert(
                    "KubeletInstanceUnreachable",
                    "15s",
                    json!({"job": "kubelet", "node": name, "instance": format!("{name}:10250"),
                        "namespace": "kube-system", "metrics_path": "/metrics", "service": "kubelet"}),
                ));
            }
            _ => {}
        }
    }
    alerts
}

/// The kubernetes-mixin's alerts of an incident: about its objects, and any
/// it says besides.
pub(super) fn mixin_of(incident: &Incident) -> Vec<Value> {
    let mut alerts = kubernetes_mixin(&(incident.objects)());
    alerts.extend((incident.extra_mixin)());
    alerts
}

/// A Prometheus rule group that fires each run's kubernetes-mixin alerts
/// under its `cluster` (none where an alert says `"cluster": ""`).
pub(super) fn mixin_rules(runs: &[(String, &Incident, bool)]) -> String {
    let mut rules = Vec::new();
    for (cluster, incident, with_mixin) in runs {
        if !with_mixin {
            continue;
        }
        for alert in mixin_of(incident) {
            let mut labels = alert.as_object().unwrap().clone();
            let name = labels.remove("alertname").unwrap();
            let for_ = labels.remove("for").unwrap();
            if labels.get("cluster").is_some_and(|c| c == "") {
                labels.remove("cluster");
            } else {
                labels.insert("cluster".into(), json!(cluster));
            }
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
