//! The kubernetes-mixin inhibitions in a real Alertmanager: this pack's precise
//! alert silences the mixin's generic one for the same object only.

use super::*;

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
        // The webhook's victim: the Deployment its page explains.
        (
            ours(
                json!({"alertname": "KubeLifecycleExplainedByRootCause", "victim_kind": "deployment", "namespace": "shop", "deployment": "web", "root_kind": "webhook", "root_name": INJECTOR, "root_cause": "webhook_unreachable", "severity": "none"}),
            ),
            false,
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
        // A CronJob skipping runs behind its Job silences the mixin's alerts
        // about that Job, not another's.
        (
            ours(
                json!({"alertname": "KubeLifecycleCronJobNotRunning", "namespace": "ops", "cronjob": "backup", "job_name": "backup-29012345", "cause": "previous_run_active", "severity": "warning"}),
            ),
            true,
        ),
        (
            ksm(
                json!({"alertname": "KubeJobNotCompleted", "namespace": "ops", "job_name": "backup-29012345"}),
            ),
            false,
        ),
        (
            ksm(
                json!({"alertname": "KubeJobFailed", "namespace": "ops", "job_name": "backup-29012345", "condition": "true"}),
            ),
            false,
        ),
        (
            ksm(
                json!({"alertname": "KubeJobFailed", "namespace": "ops", "job_name": "report-29012345", "condition": "true"}),
            ),
            true,
        ),
        // A claim whose expansion fails silences the mixin's prediction that
        // it fills up, not the critical alert that it is full, and not for
        // another cause (a claim Terminating in use fills up on its own).
        (
            ours(
                json!({"alertname": "KubeLifecyclePersistentVolumeClaimStuck", "namespace": "db", "persistentvolumeclaim": "data-pg-0", "claim": "db/data-pg-0", "storageclass": "gp3", "cause": "resize_failed", "root_kind": "claim", "root_name": "db/data-pg-0", "root_cause": "claim_stuck", "severity": "warning"}),
            ),
            true,
        ),
        (
            json!({"alertname": "KubePersistentVolumeFillingUp", "job": "kubelet", "namespace": "db", "persistentvolumeclaim": "data-pg-0", "cluster": "prod", "severity": "warning"}),
            false,
        ),
        (
            json!({"alertname": "KubePersistentVolumeFillingUp", "job": "kubelet", "namespace": "db", "persistentvolumeclaim": "data-pg-0", "cluster": "prod", "severity": "critical"}),
            true,
        ),
        (
            ours(
                json!({"alertname": "KubeLifecyclePersistentVolumeClaimStuck", "namespace": "db", "persistentvolumeclaim": "scratch", "claim": "db/scratch", "storageclass": "gp3", "cause": "in_use", "root_kind": "claim", "root_name": "db/scratch", "root_cause": "claim_stuck", "severity": "warning"}),
            ),
            true,
        ),
        (
            json!({"alertname": "KubePersistentVolumeFillingUp", "job": "kubelet", "namespace": "db", "persistentvolumeclaim": "scratch", "cluster": "prod", "severity": "warning"}),
            true,
        ),
        // A drain held by a budget short of healthy pods: the mixin's alert
        // about that budget goes quiet, not another namespace's budget of the
        // same name.
        (
            ours(
                json!({"alertname": "KubeLifecycleNodeDrainBlocked", "node": "worker-2", "cause": "budget_pods_unhealthy", "namespace": "shop", "pod": "web-7d9f8-x2x4z", "poddisruptionbudget": "web", "severity": "warning"}),
            ),
            true,
        ),
        (
            ksm(
                json!({"alertname": "KubePdbNotEnoughHealthyPods", "namespace": "shop", "poddisruptionbudget": "web"}),
            ),
            false,
        ),
        (
            ksm(
                json!({"alertname": "KubePdbNotEnoughHealthyPods", "namespace": "staging", "poddisruptionbudget": "web"}),
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
    // the mixin's alerts). KubeLifecycleExplainedByRootCause follows its root
    // cause's page by one evaluation: it goes with the pages.
    let ours_only = |pages_only: bool| -> Vec<Value> {
        body.iter()
            .filter(|a| {
                a["labels"]["alertname"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("KubeLifecycle"))
                    && (!pages_only
                        || a["labels"]["severity"] == "critical"
                        || a["labels"]["severity"] == "none")
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
