//! PersistentVolumeClaims (`claim_stuck`): Pending on their provisioner,
//! Terminating while pods use them, failing an expansion; and the pod Pending
//! on an unbound claim, told what stops the claim. Messages are the ones
//! posted in public issues (the URL at each); object shapes are what
//! `kubectl get -o json` prints.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{
    self, Anomaly, Cause, ClaimCause, Detail, Incremental, PendingCause, Runbook, Settings,
};
use kube_lifecycle_exporter::model::Object;
use serde_json::{Value, json};

/// A claim created at `created`, Pending, of `class` (`None`: no
/// storageClassName field at all).
fn claim(namespace: &str, name: &str, class: Option<&str>, created: &str) -> Value {
    let mut spec = json!({"accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem",
                          "resources": {"requests": {"storage": "8Gi"}}});
    if let Some(class) = class {
        spec["storageClassName"] = json!(class);
    }
    json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace, "uid": format!("uid-{name}"),
                     "creationTimestamp": created, "finalizers": ["kubernetes.io/pvc-protection"],
                     "labels": {"app": "web"}},
        "spec": spec,
        "status": {"phase": "Pending"}})
}

fn bound(mut claim: Value, volume: &str) -> Value {
    claim["spec"]["volumeName"] = json!(volume);
    claim["status"] = json!({"phase": "Bound", "accessModes": ["ReadWriteOnce"],
                             "capacity": {"storage": "8Gi"}});
    claim
}

fn annotated(mut claim: Value, key: &str, value: &str) -> Value {
    claim["metadata"]["annotations"][key] = json!(value);
    claim
}

/// An event about a claim, as the PV controller or a CSI sidecar writes it.
fn claim_event(claim: &Value, type_: &str, reason: &str, message: &str, last: &str) -> Value {
    let meta = &claim["metadata"];
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{}.{reason}", meta["name"].as_str().unwrap()),
                     "namespace": meta["namespace"]},
        "involvedObject": {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                           "name": meta["name"], "namespace": meta["namespace"], "uid": meta["uid"]},
        "reason": reason, "message": message, "type": type_,
        "source": {"component": "persistentvolume-controller"},
        "firstTimestamp": "2024-06-01T11:00:05Z", "lastTimestamp": last, "count": 39})
}

/// A StatefulSet's pod that uses `claim` through its volume `data`.
fn pod_using(name: &str, claim: &str, node: &str) -> Value {
    let mut pod = running_pod("shop", name, node, Some(("StatefulSet", "web", "uid-web")));
    pod["spec"]["volumes"] = json!([
        {"name": "data", "persistentVolumeClaim": {"claimName": claim}},
        {"name": "kube-api-access-x2k9p", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}]);
    pod
}

fn unbound_pod(name: &str, claim: &str) -> Value {
    let mut pod = pod_using(name, claim, "");
    pod["spec"].as_object_mut().unwrap().remove("nodeName");
    pod["status"] = json!({"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/3 nodes are available: 3 pod has unbound immediate PersistentVolumeClaims.",
         "lastTransitionTime": "2024-06-01T11:00:03Z"}]});
    pod
}

fn claim_finding<'a>(findings: &'a [diagnosis::Finding], name: &str) -> &'a diagnosis::Finding {
    let found: Vec<_> = findings
        .iter()
        .filter(|f| f.anomaly() == Anomaly::ClaimStuck && f.name == name)
        .collect();
    assert_eq!(found.len(), 1, "{findings:#?}");
    found[0]
}

/// kubernetes/kubernetes#81714: a StatefulSet's claim names the class
/// `standard`, which the cluster does not have; its pod is unschedulable with
/// "pod has unbound immediate PersistentVolumeClaims" (in the words of
/// kubernetes/website#26943). The claim says why,
/// and so does the pod, whose cause is the claim's (`claim_stuck`).
#[test]
fn a_claim_naming_a_missing_storage_class_explains_its_pending_pod() {
    let pvc = claim(
        "shop",
        "data-web-0",
        Some("standard"),
        "2024-06-01T11:00:00Z",
    );
    let objects = vec![
        ready_node("worker-1"),
        pvc.clone(),
        claim_event(
            &pvc,
            "Warning",
            "ProvisioningFailed",
            r#"storageclass.storage.k8s.io "standard" not found"#,
            "2024-06-01T11:58:00Z",
        ),
        unbound_pod("web-0", "data-web-0"),
    ];
    let findings = diagnose(&objects);
    let f = claim_finding(&findings, "data-web-0");
    assert_eq!(f.cause, Cause::ClaimStuck(ClaimCause::StorageClassMissing));
    assert_eq!(f.runbook(), Runbook::PersistentVolumeClaimStuck);
    assert_eq!(
        f.detail,
        Detail::Claim {
            storage_class: "standard".into()
        }
    );
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:00:00Z");
    assert!(
        f.message.starts_with(
            r#"ProvisioningFailed: storageclass.storage.k8s.io "standard" not found; used by pod web-0 (Pending)"#
        ),
        "{}",
        f.message
    );
    let pod = findings
        .iter()
        .find(|f| f.name == "web-0")
        .expect("the pod's finding");
    // The claim's own cause stands for the pod's: its alert speaks for both.
    assert_eq!(pod.cause, Cause::PodPending(PendingCause::ClaimStuck));
    assert_eq!(pod.runbook(), Runbook::PersistentVolumeClaimStuck);
    assert!(
        pod.message.ends_with(
            r#"; claim data-web-0 storage_class_missing: ProvisioningFailed: storageclass.storage.k8s.io "standard" not found"#
        ),
        "{}",
        pod.message
    );
}

/// The provisioner's own errors: okteto/okteto#929 (DigitalOcean's volume
/// limit), rook/rook#8727 (a deadline), and a claim that binds is quiet.
#[test]
fn provisioner_errors_are_quota_or_the_drivers_own() {
    let quota = claim(
        "dev",
        "okteto-data",
        Some("do-block-storage"),
        "2024-06-01T11:50:00Z",
    );
    let slow = claim(
        "pomerium",
        "redis-data",
        Some("throwaway"),
        "2024-06-01T11:50:00Z",
    );
    let done = bound(
        claim(
            "pomerium",
            "redis-done",
            Some("throwaway"),
            "2024-06-01T11:00:00Z",
        ),
        "pvc-1",
    );
    let objects = vec![
        quota.clone(),
        claim_event(
            &quota,
            "Warning",
            "ProvisioningFailed",
            r#"failed to provision volume with StorageClass "do-block-storage": rpc error: code = ResourceExhausted desc = volume limit (10) has been reached. Current number of volumes: 10. Please contact support."#,
            "2024-06-01T11:59:00Z",
        ),
        slow.clone(),
        claim_event(
            &slow,
            "Warning",
            "ProvisioningFailed",
            r#"failed to provision volume with StorageClass "throwaway": rpc error: code = DeadlineExceeded desc = context deadline exceeded"#,
            "2024-06-01T11:59:00Z",
        ),
        done.clone(),
        claim_event(
            &done,
            "Warning",
            "ProvisioningFailed",
            r#"failed to provision volume with StorageClass "throwaway": rpc error: code = DeadlineExceeded desc = context deadline exceeded"#,
            "2024-06-01T11:10:00Z",
        ),
    ];
    let findings = diagnose(&objects);
    assert_eq!(
        causes(&findings),
        [
            ("claim_stuck".to_string(), "quota_exceeded".to_string()),
            ("claim_stuck".to_string(), "provisioning_failed".to_string()),
        ]
    );
}

/// The EC2 API's throttling (kubernetes-sigs/aws-ebs-csi-driver#1148,
/// kubernetes/kubernetes#76079: `RequestLimitExceeded: Request limit
/// exceeded.`) in the driver's CreateVolume error is the provisioner's
/// failure, not quota: a quota raised would not help.
#[test]
fn a_cloud_api_throttling_the_provisioner_is_not_quota() {
    let throttled = claim(
        "monitoring",
        "prometheus-db",
        Some("ebs-sc"),
        "2024-06-01T11:50:00Z",
    );
    let objects = vec![
        throttled.clone(),
        claim_event(
            &throttled,
            "Warning",
            "ProvisioningFailed",
            r#"failed to provision volume with StorageClass "ebs-sc": rpc error: code = Internal desc = Could not create volume "pvc-b5ec3798-30ac-4bb8-a420-353cd43a7506": RequestLimitExceeded: Request limit exceeded. status code: 503, request id: 34004134-ee5d-4b7a-a361-e53e82560666"#,
            "2024-06-01T11:59:00Z",
        ),
    ];
    assert_eq!(
        causes(&diagnose(&objects)),
        [("claim_stuck".to_string(), "provisioning_failed".to_string())]
    );
}

/// kubernetes-sigs/nfs-subdir-external-provisioner#114: a claim handed to
/// `k8s-sigs.io/nfs-subdir-external-provisioner`, which never answers (the
/// PV controller's ExternalProvisioning is a Normal event, not watched): past
/// --claim-after, no provisioner runs. Before it, nothing.
#[test]
fn a_claim_no_provisioner_answers_is_stuck_past_claim_after() {
    let pvc = annotated(
        claim(
            "default",
            "idlcgrafana-pv",
            Some("managed-nfs-storage"),
            "2024-06-01T11:50:00Z",
        ),
        "volume.beta.kubernetes.io/storage-provisioner",
        "k8s-sigs.io/nfs-subdir-external-provisioner",
    );
    let normal = claim_event(
        &pvc,
        "Normal",
        "ExternalProvisioning",
        r#"waiting for a volume to be created, either by external provisioner "k8s-sigs.io/nfs-subdir-external-provisioner" or manually created by system administrator"#,
        "2024-06-01T11:59:00Z",
    );
    let objects = vec![pvc, normal];
    let findings = diagnose(&objects);
    let f = claim_finding(&findings, "idlcgrafana-pv");
    assert_eq!(f.cause, Cause::ClaimStuck(ClaimCause::NoProvisioner));
    assert!(
        f.message
            .contains(r#"provisioner "k8s-sigs.io/nfs-subdir-external-provisioner""#),
        "{}",
        f.message
    );
    assert!(diagnose_at(&objects, "2024-06-01T11:53:00Z").is_empty());
    // The threshold is a setting.
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
    let loaded = kube_lifecycle_exporter::source::dump::load_str(&list.to_string()).unwrap();
    let settings = Settings {
        claim_after: jiff::SignedDuration::from_mins(30),
        ..Settings::default()
    };
    assert!(diagnosis::diagnose_with(&loaded.cluster, now(), &settings).is_empty());
}

/// hashicorp/consul-helm#801: no class (the cluster has no default) and no
/// volume: FailedBinding "no persistent volumes available for this claim and
/// no storage class is set" is a Normal event; the claim says it as well. A
/// claim with a class and no provisioner annotation waits for its first
/// consumer (WaitForFirstConsumer): quiet.
#[test]
fn no_class_and_no_volume_is_stuck_and_waiting_for_a_consumer_is_quiet() {
    let no_class = claim(
        "default",
        "data-default-consul-server-0",
        None,
        "2024-06-01T01:00:00Z",
    );
    let empty_class = claim("default", "scratch", Some(""), "2024-06-01T01:00:00Z");
    let waiting = claim(
        "default",
        "local-data",
        Some("local-path"),
        "2024-06-01T01:00:00Z",
    );
    let objects = vec![
        no_class.clone(),
        claim_event(
            &no_class,
            "Normal",
            "FailedBinding",
            "no persistent volumes available for this claim and no storage class is set",
            "2024-06-01T11:59:00Z",
        ),
        empty_class,
        waiting.clone(),
        claim_event(
            &waiting,
            "Normal",
            "WaitForFirstConsumer",
            "waiting for first consumer to be created before binding",
            "2024-06-01T11:59:00Z",
        ),
    ];
    let findings = diagnose(&objects);
    assert_eq!(findings.len(), 2, "{findings:#?}");
    for name in ["data-default-consul-server-0", "scratch"] {
        let f = claim_finding(&findings, name);
        assert_eq!(f.cause, Cause::ClaimStuck(ClaimCause::NoVolume));
        assert!(
            f.message.contains("no storage class is set"),
            "{}",
            f.message
        );
    }
}

/// A claim deleted while its StatefulSet pod runs stays Terminating on
/// kubernetes.io/pvc-protection; the pod is named with its state. A claim
/// whose only user finished, or whose finalizer is another controller's, is
/// held by its finalizers. A generic ephemeral volume's claim is
/// `<pod>-<volume>`.
#[test]
fn a_terminating_claim_names_the_pods_that_hold_it() {
    let deleted_at = |mut c: Value| {
        c["metadata"]["deletionTimestamp"] = json!("2024-06-01T11:30:00Z");
        c
    };
    let held = deleted_at(bound(
        claim("shop", "data-web-0", Some("gp3"), "2024-06-01T08:00:00Z"),
        "pvc-a",
    ));
    let finished = deleted_at(bound(
        claim("shop", "data-job-0", Some("gp3"), "2024-06-01T08:00:00Z"),
        "pvc-b",
    ));
    let mut ephemeral = deleted_at(bound(
        claim(
            "shop",
            "build-7-scratch",
            Some("gp3"),
            "2024-06-01T08:00:00Z",
        ),
        "pvc-c",
    ));
    ephemeral["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "Pod",
        "name": "build-7", "uid": "uid-build-7", "controller": true}]);
    let recent = json!({"metadata": {"name": "new", "namespace": "shop", "deletionTimestamp": "2024-06-01T11:58:00Z",
        "finalizers": ["kubernetes.io/pvc-protection"], "creationTimestamp": "2024-06-01T08:00:00Z"},
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "status": {"phase": "Bound"}});
    let mut job_pod = pod_using("job-0", "data-job-0", "worker-1");
    job_pod["status"]["phase"] = json!("Succeeded");
    let mut builder = running_pod("shop", "build-7", "worker-2", None);
    builder["spec"]["volumes"] = json!([{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}]);
    let objects = vec![
        held,
        finished,
        ephemeral,
        recent,
        pod_using("web-0", "data-web-0", "worker-1"),
        job_pod,
        builder,
    ];
    let findings = diagnose(&objects);
    let f = claim_finding(&findings, "data-web-0");
    assert_eq!(f.cause, Cause::ClaimStuck(ClaimCause::InUse));
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:30:00Z");
    assert!(
        f.message.ends_with(
            "kubernetes.io/pvc-protection holds it while 1 pod still uses it: pod web-0 (Running on worker-1)"
        ),
        "{}",
        f.message
    );
    let f = claim_finding(&findings, "data-job-0");
    assert_eq!(f.cause, Cause::ClaimStuck(ClaimCause::Finalizers));
    assert!(
        f.message.contains("no pod in view uses it"),
        "{}",
        f.message
    );
    let f = claim_finding(&findings, "build-7-scratch");
    assert_eq!(f.cause, Cause::ClaimStuck(ClaimCause::InUse));
    assert!(
        f.message.contains("pod build-7 (Running on worker-2)"),
        "{}",
        f.message
    );
    // Deleted two minutes ago: not yet.
    assert!(findings.iter().all(|f| f.name != "new"), "{findings:#?}");
}

/// kubernetes-sigs/vsphere-csi-driver#2762 and kubernetes-csi/external-resizer#474:
/// VolumeResizeFailed while the claim shows a resize under way; the same
/// warning after the resize is done is history, not a finding. An
/// expansion the driver can never make is infeasible.
#[test]
fn a_failing_expansion_is_stuck_while_the_resize_is_under_way() {
    let resizing = |name: &str| {
        let mut c = bound(
            claim("db", name, Some("vsphere-csi"), "2024-06-01T08:00:00Z"),
            "pvc-d",
        );
        c["status"]["conditions"] = json!([{"type": "Resizing", "status": "True",
            "lastTransitionTime": "2024-06-01T11:40:00Z"}]);
        c
    };
    let failing = resizing("pg-data-0");
    let done = bound(
        claim(
            "db",
            "pg-data-1",
            Some("vsphere-csi"),
            "2024-06-01T08:00:00Z",
        ),
        "pvc-e",
    );
    let mut infeasible = resizing("pg-data-2");
    infeasible["status"]["allocatedResourceStatuses"] =
        json!({"storage": "ControllerResizeInfeasible"});
    infeasible["status"]["conditions"] = json!([{"type": "ControllerResizeError", "status": "True",
        "message": "resize volume \"pvc-f\" by resizer \"volume.csi.azure.com\" failed: rpc error: code = OutOfRange desc = new size 17592186044416 exceeds the maximum",
        "lastTransitionTime": "2024-06-01T11:45:00Z"}]);
    let vsphere = r#"resize volume "pvc-d454253a-a8e3-43ed-88b9-b8e443c761de" by resizer "csi.vsphere.vmware.com" failed: rpc error: code = Internal desc = failed to expand volume: "fbae8120-a4db-48ff-bb53-22c3dcd234d5" to size: 12288 with error: failed to extend volume"#;
    let azure = r#"resize volume "pv-a1eb04da-8553-4a23-a164-7efe66020f3d" by resizer "volume.csi.azure.com" failed: rpc error: code = DeadlineExceeded desc = context deadline exceeded"#;
    let objects = vec![
        claim_event(
            &failing,
            "Warning",
            "VolumeResizeFailed",
            vsphere,
            "2024-06-01T11:59:00Z",
        ),
        failing,
        claim_event(
            &done,
            "Warning",
            "VolumeResizeFailed",
            azure,
            "2024-06-01T11:30:00Z",
        ),
        done,
        infeasible,
    ];
    let findings = diagnose(&objects);
    assert_eq!(findings.len(), 2, "{findings:#?}");
    let f = claim_finding(&findings, "pg-data-0");
    assert_eq!(f.cause, Cause::ClaimStuck(ClaimCause::ResizeFailed));
    assert_eq!(f.message, format!("VolumeResizeFailed: {vsphere}"));
    let f = claim_finding(&findings, "pg-data-2");
    assert_eq!(f.cause, Cause::ClaimStuck(ClaimCause::ResizeInfeasible));
    assert!(
        f.message.starts_with(
            "allocatedResourceStatuses storage=ControllerResizeInfeasible; ControllerResizeError"
        ),
        "{}",
        f.message
    );
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:45:00Z");
}

#[test]
fn a_lost_claim_is_stuck() {
    let mut lost = bound(
        claim("shop", "data-web-2", Some("gp3"), "2024-06-01T08:00:00Z"),
        "pvc-gone",
    );
    lost["status"]["phase"] = json!("Lost");
    let findings = diagnose(&[lost]);
    let f = claim_finding(&findings, "data-web-2");
    assert_eq!(f.cause, Cause::ClaimStuck(ClaimCause::VolumeLost));
    assert!(f.message.contains("\"pvc-gone\""), "{}", f.message);
}

/// A pending pod reads its claims and their events: judged piece by piece,
/// a claim's new warning changes the pod's finding as a full judgement does.
#[test]
fn a_claims_new_warning_is_judged_again_for_the_pod_that_uses_it() {
    let pvc = claim("shop", "data-web-0", Some("fast"), "2024-06-01T11:00:00Z");
    let list = json!({"apiVersion": "v1", "kind": "List",
        "items": [ready_node("worker-1"), pvc.clone(), unbound_pod("web-0", "data-web-0")]});
    let mut cluster = kube_lifecycle_exporter::source::dump::load_str(&list.to_string())
        .unwrap()
        .cluster;
    let mut incremental = Incremental::new(Settings::default());
    let changes = cluster.take_changes();
    let first = incremental.diagnose(&cluster, changes, now());
    assert_eq!(first.findings.len(), 1, "{:#?}", first.findings);
    let event = claim_event(
        &pvc,
        "Warning",
        "ProvisioningFailed",
        r#"storageclass.storage.k8s.io "fast" not found"#,
        "2024-06-01T11:59:00Z",
    );
    let event: kube_lifecycle_exporter::model::CoreEvent = serde_json::from_value(event).unwrap();
    cluster.apply(Object::Event(event.into()));
    let later = now()
        .checked_add(jiff::SignedDuration::from_secs(1))
        .unwrap();
    let changes = cluster.take_changes();
    let kept = incremental.diagnose(&cluster, changes, later);
    let full = diagnosis::diagnose_until(&cluster, later, &Settings::default());
    assert_eq!(kept.findings, full.findings);
    assert!(
        kept.findings
            .iter()
            .any(|f| f.name == "web-0"
                && f.message.contains("claim data-web-0 storage_class_missing")),
        "{:#?}",
        kept.findings
    );
}
