//! Kubernetes 1.30–1.34 states: pods that wait for devices (Dynamic Resource
//! Allocation, GA 1.34), in-place resizes the kubelet cannot make (beta 1.33),
//! scheduling gates held too long, and pods left on out-of-service nodes.
//! Object shapes and messages are upstream's (the source named at each) or
//! from public issues (the URL at each).

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{Cause, PendingCause, Runbook, Settings};
use serde_json::{Value, json};

/// A pod of a DRA example (kubernetes-sigs/dra-example-driver demo/gpu-test1.yaml,
/// v0.2.0: resource.k8s.io/v1), Pending, created at 11:00.
fn gpu_pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "gpu-test1", "uid": format!("uid-{name}"),
                     "creationTimestamp": "2024-06-01T11:00:00Z"},
        "spec": {"schedulerName": "default-scheduler",
                 "containers": [{"name": "ctr0", "image": "ubuntu:22.04",
                                 "command": ["bash", "-c"], "args": ["export; trap 'exit 0' TERM; sleep 9999 & wait"],
                                 "resources": {"claims": [{"name": "gpu"}]}}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}]},
        "status": {"phase": "Pending", "qosClass": "BestEffort"}})
}

fn with_condition(mut pod: Value, message: &str) -> Value {
    pod["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": message, "lastTransitionTime": "2024-06-01T11:00:02Z"}]);
    pod
}

fn pending_cause(objects: &[Value], name: &str) -> String {
    only(&diagnose(objects), name).cause.to_string()
}

/// Three pods wait for their claims beside a scheduler that binds others
/// (the DRA plugin's PreEnqueue writes no PodScheduled condition): never
/// `not_scheduled`, never the scheduler page.
#[test]
fn pods_waiting_for_their_claims_are_not_a_scheduler_outage() {
    let mut objects = vec![
        ready_node("worker-1"),
        running_pod("default", "bound", "worker-1", None),
    ];
    for i in 0..3 {
        objects.push(gpu_pod(&format!("pod{i}")));
    }
    let findings = diagnose(&objects);
    assert_eq!(findings.len(), 3, "{findings:#?}");
    for f in &findings {
        assert_eq!(f.cause, Cause::PodPending(PendingCause::ClaimsPending));
        assert_ne!(f.cause.runbook(), Runbook::SchedulerNotScheduling);
        assert!(f.cause.alerted());
        assert!(
            f.message
                .contains("gpu (from template single-gpu: not generated yet)"),
            "{}",
            f.message
        );
    }
    // The same pods without claims: the scheduler is not working.
    let mut plain = gpu_pod("plain");
    plain["spec"]
        .as_object_mut()
        .unwrap()
        .remove("resourceClaims");
    assert_eq!(pending_cause(&[plain], "plain"), "not_scheduled");
}

/// The ResourceClaim controller says why it made no claim
/// (kubernetes/kubernetes#129362); the 1.30 shape names the template under `source`.
#[test]
fn the_claim_controllers_complaint_is_in_the_message() {
    let mut pod = gpu_pod("pod0");
    pod["spec"]["resourceClaims"] =
        json!([{"name": "shared-gpu", "source": {"resourceClaimTemplateName": "single-gpu"}}]);
    let mut event = warning(
        &pod,
        "FailedResourceClaimCreation",
        "PodResourceClaim shared-gpu: resource claim template \"single-gpu\": resourceclaimtemplate.resource.k8s.io \"single-gpu\" not found",
        None,
        "2024-06-01T11:59:00Z",
    );
    event["source"] = json!({"component": "resource_claim"});
    let findings = diagnose(&[pod, event]);
    let f = only(&findings, "pod0");
    assert_eq!(f.cause.to_string(), "claims_pending");
    assert!(
        f.message
            .contains("shared-gpu (from template single-gpu: not generated yet)"),
        "{}",
        f.message
    );
    assert!(
        f.message
            .contains("resourceclaimtemplate.resource.k8s.io \"single-gpu\" not found"),
        "{}",
        f.message
    );
}

/// A generated claim is named; a pod with claims is not judged before
/// --unscheduled-after.
#[test]
fn a_generated_claim_is_named_and_young_pods_wait() {
    let mut pod = gpu_pod("tester-1");
    pod["status"]["resourceClaimStatuses"] =
        json!([{"name": "gpu", "resourceClaimName": "tester-1-gpu-mhnh9"}]);
    let findings = diagnose(&[pod.clone()]);
    assert!(
        only(&findings, "tester-1")
            .message
            .contains("gpu (ResourceClaim tester-1-gpu-mhnh9, from template single-gpu)")
    );
    assert!(diagnose_at(&[pod], "2024-06-01T11:03:00Z").is_empty());
}

/// The DynamicResources plugin's reasons, as the scheduler aggregates them.
#[test]
fn the_schedulers_device_reasons() {
    for (message, cause) in [
        // kubernetes/kubernetes#133531 (1.34 TestGrid), PostFilter text included.
        (
            "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 timed out trying to allocate devices, 2 cannot allocate all claims. still not schedulable, preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
            "devices_unavailable",
        ),
        (
            "0/3 nodes are available: 3 cannot allocate all claims.",
            "devices_unavailable",
        ),
        (
            "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 resourceclaim not available on the node. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            "claim_on_other_node",
        ),
        // PreFilter rejections: one message, no count (dynamicresources_test.go).
        (
            "0/3 nodes are available: request gpu: device class gpu.example.com does not exist. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            "device_class_missing",
        ),
        (
            "0/2 nodes are available: request req-1/subreq-1: device class does-not-exist does not exist.",
            "device_class_missing",
        ),
        (
            "0/2 nodes are available: resourceclaim in use.",
            "claim_in_use",
        ),
        (
            "0/2 nodes are available: resource claim default/my-pod-my-resource is in the process of being allocated.",
            "claim_in_use",
        ),
        (
            "0/2 nodes are available: pod \"default/my-pod\": ResourceClaim not created yet.",
            "claim_missing",
        ),
        (
            "0/2 nodes are available: could not find ResourceClaim \"init/test-drav6c2h-resource-64bqw\".",
            "claim_missing",
        ),
        (
            "0/2 nodes are available: ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner).",
            "claim_missing",
        ),
        (
            "0/2 nodes are available: resourceclaim \"my-pod-my-resource\" is being deleted.",
            "claim_deleting",
        ),
        // A plain pod on 1.34: the PostFilter's words are not a reason
        // (github.com/AGMTZG/killercoda_cka_study_exercises, cut off there too).
        (
            "0/2 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. no new claims to deallocate, preemption: 0/2 nodes are available",
            "insufficient_memory",
        ),
    ] {
        let pod = with_condition(gpu_pod("p"), message);
        let findings = diagnose(&[pod]);
        let f = only(&findings, "p");
        assert_eq!(f.cause.to_string(), cause, "{message}");
        if let kube_lifecycle_exporter::diagnosis::Detail::Pending(pending) = &f.detail {
            let reasons = &pending.reasons;
            assert!(
                !reasons.contains_key(&PendingCause::Other),
                "{message}: {reasons:?}"
            );
        }
    }
}

/// Classic DRA (1.26-1.31): a control-plane driver allocates the claims, and
/// the scheduler waits for it once it has chosen a node. Waiting for the
/// driver is `claims_pending`; a template's claim the controller has not
/// made yet is `claim_missing`, though the message quotes the claim's name as
/// a claim being deleted does.
#[test]
fn classic_dra_waits_for_the_driver_and_the_claim_controller() {
    for (message, cause) in [
        // kubernetes-sigs/dra-example-driver#34 (its title: the FailedScheduling
        // event, Reserve failing while the driver allocates)
        (
            r#"running Reserve plugin "DynamicResources": waiting for resource driver to allocate resource"#,
            "claims_pending",
        ),
        // the counted form on one node: an OpenShift e2e test looks for
        // "1 waiting for resource driver to provide information" in `oc
        // describe pod` (dynamicresources.go Reserve, 1.27-1.30)
        (
            "0/1 nodes are available: 1 waiting for resource driver to provide information.",
            "claims_pending",
        ),
        // the DRA prototype's recorded events (EventsToRegister in
        // dynamicresources.go, 2022); the same PreFilter error upstream 1.26-1.30
        (
            r#"0/1 nodes are available: 1 waiting for dynamic resource controller to create the resourceclaim "pause-resource"."#,
            "claim_missing",
        ),
    ] {
        let pod = with_condition(gpu_pod("p"), message);
        let findings = diagnose(&[pod]);
        assert_eq!(pending_cause_of(&findings), cause, "{message}");
    }
}

/// The DynamicResources PostFilter's "no new claims to deallocate" follows
/// the reasons of every unschedulable pod on 1.34+ (claims or not): it is
/// never a reason, least of all a claim being deleted.
#[test]
fn no_new_claims_to_deallocate_is_never_a_claim_being_deleted() {
    for (message, cause) in [
        // kubernetes-sigs/node-readiness-controller#164 (1.35), no node under
        // pressure: someone else's taint
        (
            "0/3 nodes are available: 3 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            "taint",
        ),
        // github.com/AGMTZG/killercoda_cka_study_exercises (1.34, cut off there)
        (
            "0/2 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. no new claims to deallocate, preemption: 0/2 nodes are available",
            "insufficient_memory",
        ),
    ] {
        for pod in [
            with_condition(gpu_pod("p"), message),
            with_condition(plain_pod("p"), message),
        ] {
            let findings = diagnose(&[pod]);
            let found = pending_cause_of(&findings);
            assert_eq!(found, cause, "{message}");
            assert!(
                !matches!(
                    found.as_str(),
                    "claim_deleting" | "claim_missing" | "claims_pending"
                ),
                "{message}"
            );
        }
    }
}

fn pending_cause_of(findings: &[kube_lifecycle_exporter::diagnosis::Finding]) -> String {
    only(findings, "p").cause.to_string()
}

/// A pod without device claims, Pending.
fn plain_pod(name: &str) -> Value {
    let mut pod = gpu_pod(name);
    pod["spec"]
        .as_object_mut()
        .unwrap()
        .remove("resourceClaims");
    pod["spec"]["containers"][0]
        .as_object_mut()
        .unwrap()
        .remove("resources");
    pod
}

/// The kubelet's FailedPrepareDynamicResources (kuberuntime_manager.go): the
/// pod stays ContainerCreating, or PodInitializing with an init container.
#[test]
fn devices_the_kubelet_cannot_prepare() {
    for message in [
        // kubernetes-sigs/dra-driver-nvidia-gpu#814 (1.34.0)
        "Failed to prepare dynamic resources: prepare dynamic resources: DRA driver compute-domain.nvidia.com is not registered",
        // kubernetes/kubernetes#131957 (1.33)
        "Failed to prepare dynamic resources: failed to get gRPC client for driver dra-1411.k8s.io: plugin name dra-1411.k8s.io not found in the list of registered DRA plugins",
        // kubernetes-sigs/dra-driver-nvidia-gpu#766
        "Failed to prepare dynamic resources: failed to fetch ResourceClaim imex-channel-injection-imex-channel-0-hlldb referenced by pod imex-channel-injection: the server could not find the requested resource",
    ] {
        for init in [false, true] {
            let mut pod = running_pod("default", "nccl-test-worker-0", "worker-1", None);
            pod["status"]["phase"] = json!("Pending");
            pod["status"]["conditions"][1] =
                json!({"type": "Ready", "status": "False", "reason": "ContainersNotReady"});
            let reason = if init {
                "PodInitializing"
            } else {
                "ContainerCreating"
            };
            pod["status"]["containerStatuses"][0]["state"] = json!({"waiting": {"reason": reason}});
            pod["status"]["containerStatuses"][0]["ready"] = json!(false);
            if init {
                pod["spec"]["initContainers"] = json!([{"name": "init", "image": "busybox"}]);
                pod["status"]["initContainerStatuses"] = json!([{"name": "init", "image": "busybox",
                    "ready": false, "restartCount": 0, "state": {"waiting": {"reason": "PodInitializing"}}}]);
            }
            let event = warning(
                &pod,
                "FailedPrepareDynamicResources",
                message,
                None,
                "2024-06-01T11:58:00Z",
            );
            let findings = diagnose(&[ready_node("worker-1"), pod, event]);
            assert_eq!(
                causes(&findings),
                [(
                    "container_creating".to_string(),
                    "devices_not_prepared".to_string()
                )],
                "{message}"
            );
        }
    }
}

/// A pod on 1.33+ with its resize conditions (pkg/kubelet/allocation and
/// kubelet.go's texts), and before 1.33 with `status.resize`.
fn resized(conditions: Value, legacy: Option<&str>) -> Value {
    let mut pod = running_pod("default", "resize-pod", "worker-1", None);
    let list = pod["status"]["conditions"].as_array_mut().unwrap();
    list.extend(conditions.as_array().unwrap().iter().cloned());
    if let Some(value) = legacy {
        pod["status"]["resize"] = json!(value);
    }
    pod
}

#[test]
fn resizes_the_kubelet_cannot_make() {
    let cases = [
        (
            json!([{"type": "PodResizePending", "status": "True", "reason": "Infeasible",
                "message": "Node didn't have enough capacity: memory, requested: 4718592000, capacity: 4294967296",
                "lastTransitionTime": "2024-06-01T11:30:00Z", "observedGeneration": 2}]),
            None,
            Some("infeasible"),
        ),
        (
            json!([{"type": "PodResizePending", "status": "True", "reason": "Deferred",
                "message": "Node didn't have enough resource: cpu, requested: 1500, used: 1450, capacity: 1930",
                "lastTransitionTime": "2024-06-01T11:30:00Z"}]),
            None,
            Some("deferred"),
        ),
        (
            json!([{"type": "PodResizeInProgress", "status": "True", "reason": "Error",
                "message": "attempting to set pod memory limit (268435456) below current usage (402653184)",
                "lastTransitionTime": "2024-06-01T11:30:00Z"}]),
            None,
            Some("failed"),
        ),
        // kubernetes/kubernetes#126033: `{.status.resize}` → Infeasible.
        (json!([]), Some("Infeasible"), Some("infeasible")),
        // A resize under way, or none: nothing to say.
        (
            json!([{"type": "PodResizeInProgress", "status": "True", "lastTransitionTime": "2024-06-01T11:59:00Z"}]),
            None,
            None,
        ),
        (json!([]), Some("InProgress"), None),
        (
            json!([{"type": "PodResizePending", "status": "False", "reason": "Deferred"}]),
            None,
            None,
        ),
    ];
    for (conditions, legacy, want) in cases {
        let findings = diagnose(&[ready_node("worker-1"), resized(conditions.clone(), legacy)]);
        match want {
            Some(cause) => {
                let f = only(&findings, "resize-pod");
                assert_eq!(
                    (f.anomaly().to_string(), f.cause.to_string()),
                    ("pod_resize".to_string(), cause.to_string()),
                    "{conditions} {legacy:?}"
                );
                assert_eq!(f.cause.runbook(), Runbook::PodResizeStuck);
                assert!(f.since.is_some());
            }
            None => assert!(
                findings.is_empty(),
                "{conditions} {legacy:?}: {findings:#?}"
            ),
        }
    }
}

/// A gated pod is informational until --gated-after, then an alerted
/// finding that names its gates (Kueue's admission gate here).
#[test]
fn gates_held_too_long() {
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "job-sample-abc", "namespace": "team-a", "uid": "u-gated",
                     "creationTimestamp": "2024-06-01T11:00:00Z"},
        "spec": {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}],
                 "containers": [{"name": "app", "image": "busybox"}]},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "SchedulingGated", "message": "Scheduling is blocked due to non-empty scheduling gates",
            "lastTransitionTime": "2024-06-01T11:00:00Z"}]}});
    let early = diagnose_at(std::slice::from_ref(&pod), "2024-06-01T11:20:00Z");
    let f = only(&early, "job-sample-abc");
    assert_eq!(f.cause.to_string(), "scheduling_gated");
    assert!(!f.cause.alerted());
    let late = diagnose(std::slice::from_ref(&pod));
    let f = only(&late, "job-sample-abc");
    assert_eq!(f.cause.to_string(), "gated_too_long");
    assert!(f.cause.alerted());
    assert_eq!(f.cause.runbook(), Runbook::PodSchedulingGated);
    assert!(
        f.message.contains("kueue.x-k8s.io/admission"),
        "{}",
        f.message
    );
    // The threshold is a setting.
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [pod]});
    let loaded = kube_lifecycle_exporter::source::dump::load_str(&list.to_string()).unwrap();
    let settings = Settings {
        gated_after: jiff::SignedDuration::from_hours(2),
        ..Settings::default()
    };
    let findings =
        kube_lifecycle_exporter::diagnosis::diagnose_with(&loaded.cluster, now(), &settings);
    assert_eq!(findings[0].cause.to_string(), "scheduling_gated");
}

fn out_of_service_node(name: &str) -> Value {
    let mut node = lost_node(name);
    node["spec"]["taints"].as_array_mut().unwrap().push(
        json!({"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown",
                     "effect": "NoExecute", "timeAdded": "2024-06-01T10:30:00Z"}),
    );
    node
}

/// Non-graceful node shutdown: the node is declared out of service. Pods
/// still there are not a lost node nobody acted on, and do not count
/// towards the NodeLost page; pods the pod GC is deleting are resolved.
#[test]
fn pods_left_on_an_out_of_service_node() {
    let held = {
        let mut pod = deleted(
            running_pod(
                "db",
                "postgres-0",
                "worker-2",
                Some(("StatefulSet", "postgres", "u-pg")),
            ),
            "2024-06-01T10:10:00Z",
            30,
        );
        pod["metadata"]["finalizers"] = json!(["example.com/backup"]);
        pod
    };
    let gc = {
        let mut pod = deleted(
            running_pod("db", "cache-0", "worker-2", None),
            "2024-06-01T10:31:00Z",
            0,
        );
        pod["status"]["conditions"]
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
                "message": "PodGC: node no longer exists", "lastTransitionTime": "2024-06-01T10:31:00Z"}));
        pod
    };
    let lost = deleted(
        running_pod("db", "web-0", "worker-3", None),
        "2024-06-01T10:10:00Z",
        30,
    );
    let findings = diagnose(&[
        out_of_service_node("worker-2"),
        lost_node("worker-3"),
        held,
        gc,
        lost,
    ]);
    let f = only(&findings, "postgres-0");
    assert_eq!(f.cause.to_string(), "out_of_service");
    assert!(f.message.contains("example.com/backup"), "{}", f.message);
    assert!(!f.cause.tags().contains(&"node_lost"));
    assert!(
        findings.iter().all(|f| f.name != "cache-0"),
        "{findings:#?}"
    );
    assert_eq!(only(&findings, "web-0").cause.to_string(), "node_not_ready");
}

/// A cloud provider's shutdown taint: still a lost node, and the message
/// says when to declare it out of service.
#[test]
fn a_shut_down_instance_says_what_to_do() {
    let mut node = lost_node("worker-4");
    node["spec"]["taints"]
        .as_array_mut()
        .unwrap()
        .push(json!({"key": "node.cloudprovider.kubernetes.io/shutdown", "effect": "NoSchedule"}));
    let pod = deleted(
        running_pod("db", "web-1", "worker-4", None),
        "2024-06-01T10:10:00Z",
        30,
    );
    let findings = diagnose(&[node, pod]);
    let f = only(&findings, "web-1");
    assert_eq!(f.cause.to_string(), "node_not_ready");
    assert!(
        f.message
            .contains("node.kubernetes.io/out-of-service=nodeshutdown:NoExecute")
    );
}

/// A pod whose devices the DRA driver does not release stays Terminating with
/// no event (the kubelet only logs "unprepare dynamic resources"): the
/// cleanup the kubelet has not finished says so.
#[test]
fn devices_not_released_are_named_in_the_cleanup() {
    let mut pod = containers_exited(deleted(
        running_pod("gpu-test1", "pod0", "worker-1", None),
        "2024-06-01T11:00:00Z",
        30,
    ));
    pod["spec"]["resourceClaims"] =
        json!([{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}]);
    let findings = diagnose(&[ready_node("worker-1"), pod]);
    let f = only(&findings, "pod0");
    assert_eq!(f.cause.to_string(), "cleanup_pending");
    assert!(
        f.message.contains("unprepare dynamic resources"),
        "{}",
        f.message
    );
}

/// Where the ResourceClaims were listed, they tell what the pod waits for
/// (the scheduler writes nothing before the claims are usable): a claim that
/// does not exist, one being deleted, one reserved for another pod.
#[test]
fn the_listed_claims_say_what_the_pod_waits_for() {
    let claim = |name: &str, extra: Value| {
        let mut claim = json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "gpu-test1", "uid": format!("uid-{name}"),
                         "finalizers": ["resource.kubernetes.io/delete-protection"]},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
            "status": {}});
        for (k, v) in extra.as_object().unwrap() {
            claim[k.as_str()] = v.clone();
        }
        claim
    };
    let shared = |pod: &str, claim: &str| {
        let mut p = gpu_pod(pod);
        p["spec"]["resourceClaims"] = json!([{"name": "gpu", "resourceClaimName": claim}]);
        p
    };
    let mut deleting = claim("old-gpu", json!({}));
    deleting["metadata"]["deletionTimestamp"] = json!("2024-06-01T11:30:00Z");
    let mut reserved = claim("busy-gpu", json!({}));
    reserved["status"] = json!({"allocation": {"devices": {"results": [{"device": "gpu-4", "driver": "gpu.example.com",
        "pool": "worker-1", "request": "gpu"}]}}, "reservedFor": [{"resource": "pods", "name": "other", "uid": "u-other"}]});
    let objects = [
        shared("a", "missing-gpu"),
        shared("b", "old-gpu"),
        shared("c", "busy-gpu"),
        deleting,
        reserved,
    ];
    let findings = diagnose(&objects);
    assert_eq!(only(&findings, "a").cause.to_string(), "claim_missing");
    assert!(
        only(&findings, "a")
            .message
            .contains("missing-gpu: does not exist")
    );
    assert_eq!(only(&findings, "b").cause.to_string(), "claim_deleting");
    let c = only(&findings, "c");
    assert_eq!(c.cause.to_string(), "claims_pending");
    assert!(
        c.message.contains("busy-gpu: reserved for another pod"),
        "{}",
        c.message
    );
    // Not listed (a dump without them, an API server that serves none): the
    // pods only say they wait.
    let findings = diagnose(&objects[..3]);
    assert!(
        findings
            .iter()
            .all(|f| f.cause.to_string() == "claims_pending"),
        "{findings:#?}"
    );
}
