//! What the kubernetes-mixin fires for each incident (its alert names, labels and
//! `for`), and the rule file that replays it.

use super::*;

pub(super) fn no_mixin() -> Vec<Value> {
    Vec::new()
}

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

pub(super) fn node_lost_mixin() -> Vec<Value> {
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

pub(super) fn registry_down_mixin() -> Vec<Value> {
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

pub(super) fn init_stuck_mixin() -> Vec<Value> {
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

pub(super) fn rollout_stuck_mixin() -> Vec<Value> {
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

pub(super) fn statefulset_mixin() -> Vec<Value> {
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

pub(super) fn job_failed_mixin() -> Vec<Value> {
    vec![ksm_alert(
        "KubeJobFailed",
        "15s",
        json!({"namespace": "reports", "job_name": "monthly-invoices", "condition": "true"}),
    )]
}

/// A Prometheus rule group that fires each run's kubernetes-mixin alerts
/// under its `cluster`.
pub(super) fn mixin_rules(runs: &[(String, &Incident, bool)]) -> String {
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
