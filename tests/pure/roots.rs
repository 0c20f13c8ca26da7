//! Root causes: one test per kind of root cause, on the incidents the replays
//! serve (tests/common/incidents/): what names it, what it explains, and
//! which objects other packs' alerts about would be its victims.

use crate::common::explain_at;
use crate::common::incidents::*;
use kube_lifecycle_exporter::diagnosis::{Root, RootCauses, VictimKind};
use kube_lifecycle_exporter::model::Time;
use serde_json::Value;

fn explain(objects: &[Value]) -> RootCauses {
    explain_at(objects, Time::now()).1
}

/// `kind/name cause` of every root cause, oldest first.
fn keys(roots: &RootCauses) -> Vec<String> {
    roots
        .roots
        .iter()
        .map(|r| format!("{} {}", r.key.id(), r.key.cause))
        .collect()
}

fn root<'a>(roots: &'a RootCauses, id: &str) -> &'a Root {
    let found = roots.named(id);
    assert_eq!(found.len(), 1, "{id} in {:?}", keys(roots));
    found[0]
}

/// `namespace/name` of a root's victims of one kind.
fn victims(root: &Root, kind: VictimKind) -> Vec<String> {
    root.victims_of(kind).map(|v| v.path()).collect()
}

/// The seed incident: a powered-off node. Every pod bound to it is a victim,
/// the Terminating ones and the DaemonSets' pods that have no finding yet
/// alike, with the workloads they belong to.
#[test]
fn a_lost_node_explains_every_pod_on_it_and_their_workloads() {
    let roots = explain(&node_lost());
    assert_eq!(keys(&roots), ["node/worker-3 node_lost"]);
    let lost = root(&roots, "node/worker-3");
    assert_eq!(lost.runbook.alert(), "KubeLifecycleNodeLost");
    assert_eq!(
        victims(lost, VictimKind::Pod),
        [
            "cron/crontab-runner-5b9f7c-x2k9p",
            "kube-system/kube-proxy-worker-3",
            "middleware/zk-1",
            "monitoring/fluent-bit-worker-3",
            "monitoring/node-exporter-worker-3",
            "shop/web-7f9d-abcde",
        ]
    );
    assert_eq!(
        victims(lost, VictimKind::Deployment),
        ["cron/crontab-runner"]
    );
    assert_eq!(victims(lost, VictimKind::StatefulSet), ["middleware/zk"]);
    assert_eq!(
        victims(lost, VictimKind::DaemonSet),
        [
            "kube-system/kube-proxy",
            "monitoring/fluent-bit",
            "monitoring/node-exporter"
        ]
    );
    // Every finding of the incident is its, and the healthy pods are no victims.
    assert!(!lost.findings.is_empty());
    assert!(
        lost.findings
            .iter()
            .all(|f| roots.of_finding(f) == Some(lost))
    );
    assert!(!victims(lost, VictimKind::Pod).contains(&"middleware/zk-0".to_string()));
    // Since the node stopped reporting (24 minutes ago), not since the evictions.
    let since = lost.since.unwrap();
    let ago = Time::now().duration_since(since).as_secs();
    assert!((1400..1500).contains(&ago), "{ago}");
}

/// A Job that waits for its pod on a lost node: the Job is the node's victim.
#[test]
fn a_job_waiting_on_a_lost_node_is_its_victim() {
    let roots = explain(&job_on_lost_node());
    let lost = root(&roots, "node/worker-3");
    assert_eq!(victims(lost, VictimKind::Job), ["batch/nightly-export"]);
    assert_eq!(
        victims(lost, VictimKind::Pod),
        ["batch/nightly-export-8xq2d"]
    );
}

/// The network plugin failing on one node, and everywhere: one root cause per
/// node, each with its pods; the alert that counts nodes reads them all.
#[test]
fn a_node_without_sandboxes_explains_its_pods() {
    let roots = explain(&cni_down_on_one_node());
    assert_eq!(keys(&roots), ["node/worker-2 cni"]);
    let node = root(&roots, "node/worker-2");
    assert_eq!(node.runbook.alert(), "KubeLifecyclePodSandboxFailingOnNode");
    assert_eq!(
        victims(node, VictimKind::Pod),
        ["billing/api-5f7b-c", "shop/web-6c8d9-a", "shop/web-6c8d9-b"]
    );

    let roots = explain(&cni_down_everywhere());
    let mut ids = keys(&roots);
    ids.sort();
    assert_eq!(
        ids,
        [
            "node/worker-1 cni",
            "node/worker-2 cni",
            "node/worker-3 cni"
        ]
    );
    assert_eq!(
        victims(root(&roots, "node/worker-1"), VictimKind::Pod),
        ["shop/web-6c8d9-0", "shop/web-6c8d9-3"]
    );
}

/// A scheduler that schedules nothing: its pods, the Deployment and the
/// StatefulSet they belong to.
#[test]
fn a_scheduler_down_explains_its_pending_pods_and_their_workloads() {
    let roots = explain(&scheduler_down());
    assert_eq!(keys(&roots), ["scheduler/default-scheduler not_scheduled"]);
    let scheduler = root(&roots, "scheduler/default-scheduler");
    assert_eq!(
        scheduler.runbook.alert(),
        "KubeLifecycleSchedulerNotScheduling"
    );
    assert_eq!(
        victims(scheduler, VictimKind::Pod),
        [
            "orders/queue-2",
            "shop/web-6c8d9f7b5-bbbbb",
            "shop/web-6c8d9f7b5-ccccc"
        ]
    );
    assert_eq!(victims(scheduler, VictimKind::Deployment), ["shop/web"]);
    assert_eq!(
        victims(scheduler, VictimKind::StatefulSet),
        ["orders/queue"]
    );
}

/// Nodes under pressure: one root per node the pods could only go to, each
/// with every pod that waits on it.
#[test]
fn nodes_under_pressure_explain_the_pods_that_wait_on_them() {
    let roots = explain(&nodes_under_pressure());
    let mut ids = keys(&roots);
    ids.sort();
    assert_eq!(
        ids,
        [
            "node/ci-1 node_disk_pressure",
            "node/ci-2 node_disk_pressure"
        ]
    );
    for node in ["node/ci-1", "node/ci-2"] {
        let pressured = root(&roots, node);
        assert_eq!(pressured.runbook.alert(), "KubeLifecycleNodesUnderPressure");
        assert_eq!(
            victims(pressured, VictimKind::Pod),
            ["ci/runner-7f8d9-aaaaa", "ci/runner-7f8d9-bbbbb"]
        );
        assert_eq!(victims(pressured, VictimKind::Deployment), ["ci/runner"]);
    }
}

/// A registry down: every pod whose pull it fails, and their Deployments.
#[test]
fn a_failing_registry_explains_its_pulls() {
    let roots = explain(&registry_down());
    assert_eq!(
        keys(&roots),
        [format!("registry/{REGISTRY} registry_unreachable")]
    );
    let registry = root(&roots, &format!("registry/{REGISTRY}"));
    assert_eq!(registry.runbook.alert(), "KubeLifecycleRegistryPullFailing");
    assert_eq!(victims(registry, VictimKind::Pod).len(), 5);
    assert_eq!(
        victims(registry, VictimKind::Deployment),
        ["billing/api", "shop/web"]
    );
    // Every finding is the registry's, the Deployments' verdicts too.
    for f in &registry.findings {
        assert_eq!(
            roots.of_finding(f).map(|r| r.key.id()),
            Some(registry.key.id())
        );
    }
}

/// A node's own image store is the node's problem, not a registry's nor a
/// root cause the rest of the cluster shares.
#[test]
fn a_node_image_store_is_no_registry_root() {
    let roots = explain(&node_image_store_corrupt());
    assert!(roots.is_empty(), "{:?}", keys(&roots));
}

/// An admission webhook that cannot be called: every workload it refuses,
/// by the names other packs give them (the Deployment, not its ReplicaSet).
#[test]
fn an_unreachable_webhook_explains_the_workloads_it_refuses() {
    let roots = explain(&webhook_outage());
    assert_eq!(
        keys(&roots),
        [format!("webhook/{INJECTOR} webhook_unreachable")]
    );
    let webhook = root(&roots, &format!("webhook/{INJECTOR}"));
    assert_eq!(
        webhook.runbook.alert(),
        "KubeLifecycleAdmissionWebhookUnreachable"
    );
    assert_eq!(
        victims(webhook, VictimKind::Deployment),
        ["billing/api", "shop/web"]
    );
    assert_eq!(victims(webhook, VictimKind::StatefulSet), ["orders/queue"]);
    assert_eq!(
        victims(webhook, VictimKind::DaemonSet),
        ["logging/log-agent"]
    );
    assert_eq!(webhook.findings.len(), 4);
}

#[test]
fn a_used_up_quota_explains_the_workloads_it_refuses() {
    let roots = explain(&quota_exceeded());
    assert_eq!(
        keys(&roots),
        ["resource_quota/billing/compute quota_exceeded"]
    );
    let quota = root(&roots, "resource_quota/billing/compute");
    assert_eq!(quota.runbook.alert(), "KubeLifecyclePodCreateQuotaExceeded");
    assert_eq!(victims(quota, VictimKind::Deployment), ["billing/invoice"]);
}

#[test]
fn a_namespace_being_deleted_explains_the_pods_it_refuses() {
    let roots = explain(&namespace_deleted());
    let ns = root(&roots, "namespace/antrea-test");
    assert_eq!(ns.key.cause.as_str(), "namespace_terminating");
    assert_eq!(victims(ns, VictimKind::Job), ["antrea-test/test-pod"]);
}

/// The DRA driver named by the kubelet's message, with the pods it does not
/// prepare.
#[test]
fn a_device_driver_not_registered_explains_its_pods() {
    let roots = explain(&device_driver_missing());
    assert_eq!(
        keys(&roots),
        ["device_driver/gpu.example.com devices_not_prepared"]
    );
    assert_eq!(
        victims(
            root(&roots, "device_driver/gpu.example.com"),
            VictimKind::Pod
        ),
        ["ml/trainer-0", "ml/trainer-1"]
    );
}

/// A rollout whose new image does not exist: the registry does not serve
/// it. Its page counts many images; one missing image is a ticket for the
/// Deployment, which names the registry's part.
#[test]
fn an_image_the_registry_does_not_serve_names_the_registry() {
    let roots = explain(&rollout_stuck());
    assert_eq!(keys(&roots), ["registry/ghcr.io image_unavailable"]);
    let registry = root(&roots, "registry/ghcr.io");
    assert_eq!(
        victims(registry, VictimKind::Pod),
        ["web/gui-5cd74fc875-7hx2m"]
    );
    assert_eq!(victims(registry, VictimKind::Deployment), ["web/gui"]);
}

/// A StatefulSet whose new revision crash-loops, a Job whose pods run out of
/// memory: nothing outside them explains it, so their pod template is the
/// root cause, their verdict the root's own finding and their pods the
/// victims.
#[test]
fn a_broken_pod_template_explains_its_workloads_pods() {
    let roots = explain(&statefulset_update_stuck());
    assert_eq!(keys(&roots), ["statefulset/streaming/kafka pod_template"]);
    let template = root(&roots, "statefulset/streaming/kafka");
    assert_eq!(
        template.runbook.alert(),
        "KubeLifecycleStatefulSetUpdateStuck"
    );
    assert_eq!(victims(template, VictimKind::Pod), ["streaming/kafka-2"]);
    assert!(victims(template, VictimKind::StatefulSet).is_empty());
    assert!(
        template
            .findings
            .iter()
            .any(|f| f.kind.as_str() == "StatefulSet")
    );

    let roots = explain(&job_failed());
    let template = root(&roots, "job/reports/monthly-invoices");
    assert_eq!(template.runbook.alert(), "KubeLifecycleJobFailed");
}

/// Nothing outside explains a misconfigured pod with no workload: no root.
#[test]
fn a_pod_alone_has_no_root_cause() {
    let roots = explain(&scheduler_name_typo());
    assert!(roots.is_empty(), "{:?}", keys(&roots));
}

/// A StatefulSet's claim names a storage class that does not exist
/// (ZP-AlwaysWin/K8S-FastDFS#6): the claim is the root cause of the pod
/// Pending on it and of the StatefulSet, which gets no verdict of its own;
/// the pod's cause is the claim's.
#[test]
fn a_stuck_claim_explains_the_pods_pending_on_it_and_their_workload() {
    let objects = storage_class_missing();
    let roots = explain(&objects);
    assert_eq!(
        keys(&roots),
        ["claim/default/storage0-data-fastdfs-group0-storage0-0 claim_stuck"]
    );
    let claim = root(
        &roots,
        "claim/default/storage0-data-fastdfs-group0-storage0-0",
    );
    assert_eq!(
        claim.runbook.alert(),
        "KubeLifecyclePersistentVolumeClaimStuck"
    );
    assert_eq!(
        victims(claim, VictimKind::Pod),
        ["default/fastdfs-group0-storage0-0"]
    );
    assert_eq!(
        victims(claim, VictimKind::StatefulSet),
        ["default/fastdfs-group0-storage0"]
    );
    let (findings, _) = explain_at(&objects, Time::now());
    let findings: Vec<_> = findings.iter().map(|f| (**f).clone()).collect();
    let causes: Vec<(String, String)> = crate::common::causes(&findings);
    assert_eq!(
        causes,
        [
            ("pod_pending".to_string(), "claim_stuck".to_string()),
            (
                "claim_stuck".to_string(),
                "storage_class_missing".to_string()
            ),
        ],
        "{findings:#?}"
    );
    let pod = findings.iter().find(|f| f.kind.as_str() == "Pod").unwrap();
    assert!(
        pod.message.ends_with(
            r#"; claim storage0-data-fastdfs-group0-storage0-0 storage_class_missing: ProvisioningFailed: storageclass.storage.k8s.io "fast" not found"#
        ),
        "{}",
        pod.message
    );
}

/// A claim stuck with no pod waiting on it (Terminating while its pod
/// runs) is a root of its own alert with no victims; a claim that binds
/// is none.
#[test]
fn a_stuck_claim_no_pod_waits_on_has_no_victims() {
    let mut objects = storage_class_missing();
    // Only the claim and its event: no pod uses it.
    objects.retain(|o| o["kind"] != "Pod" && o["kind"] != "StatefulSet");
    let roots = explain(&objects);
    let claim = root(
        &roots,
        "claim/default/storage0-data-fastdfs-group0-storage0-0",
    );
    assert!(claim.victims.is_empty(), "{:?}", claim.victims);
    assert_eq!(claim.findings.len(), 1);
}

/// A CronJob skipping runs behind its Job (loculus-project/loculus#4198): no
/// root cause outside them; the Job's verdict is its pod's template's root,
/// and the CronJob's finding names the Job by the label its alert is matched
/// on.
#[test]
fn a_cronjob_behind_a_stuck_job_names_the_job() {
    let objects = cronjob_blocked_by_stuck_job();
    let (findings, _) = explain_at(&objects, Time::now());
    let cronjob = findings
        .iter()
        .find(|f| f.kind.as_str() == "CronJob")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert_eq!(cronjob.cause.to_string(), "previous_run_active");
    assert_eq!(
        cronjob.detail,
        kube_lifecycle_exporter::diagnosis::Detail::CronJob(Box::new(
            kube_lifecycle_exporter::diagnosis::CronJobDetail {
                job: Some("ena-submission-list-cronjob-29431080".to_string()),
                job_cause: Some("pending"),
            }
        )),
        "{}",
        cronjob.message
    );
    assert!(
        findings
            .iter()
            .any(|f| f.kind.as_str() == "Job" && f.anomaly().to_string() == "job_not_completed"),
        "{findings:#?}"
    );
}
