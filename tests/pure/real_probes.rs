//! The probe and eviction classifiers against messages people actually posted:
//! the kubelet's `Unhealthy` events, and evicted or rejected pods' status
//! reason and message.
//!
//! Quoting rules as in `tests/pure/real_messages/mod.rs`: every message is quoted from
//! the public issue or pull request next to it; where it was cut, it is cut
//! where its poster cut it; a message a terminal or YAML folded over lines is
//! joined back with one space.

use kube_lifecycle_exporter::diagnosis::classify::{ProbeKind, eviction, probe_event};
use kube_lifecycle_exporter::diagnosis::{EvictionCause, ProbeFailure};

use EvictionCause::*;
use ProbeFailure::*;

/// Every `Unhealthy` row that disagrees, at once.
fn check_probes(rows: &[(&str, &str, ProbeKind, ProbeFailure)]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(source, message, kind, failure)| {
            let got = probe_event("Unhealthy", message).map(|r| (r.probe, r.failure));
            (got != Some((*kind, *failure))).then(|| {
                format!("  {source}\n    expected {kind:?} {failure:?}, got {got:?}\n    {message}")
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} real probe messages misclassified:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}

/// (source, status reason, status message, DisruptionTarget reason and message, cause).
type EvictionRow<'a> = (
    &'a str,
    &'a str,
    &'a str,
    Option<(&'a str, &'a str)>,
    EvictionCause,
);

/// Every eviction row that disagrees, at once.
fn check_evictions(rows: &[EvictionRow]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(source, reason, message, disruption, expected)| {
            let got = eviction(reason, message, *disruption).map(|e| e.cause);
            (got != Some(*expected)).then(|| {
                format!(
                    "  {source}\n    expected {expected:?}, got {got:?}\n    {reason}: {message}"
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} real evictions misclassified:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}

#[test]
fn probe_messages() {
    use ProbeKind::*;
    check_probes(&[
        // 1.1x wording, the URL unquoted
        (
            "https://github.com/helm/charts/issues/12409",
            "Liveness probe failed: Get http://xxx.xx.x..x:8080/healthz: dial tcp xxx.xxx.xx:8080: connect: connection refused",
            Liveness,
            ConnectionRefused,
        ),
        // 1.21: the URL quoted
        (
            "https://github.com/mittwald/kubernetes-secret-generator/issues/65",
            r#"Liveness probe failed: Get "http://10.0.171.162:8080/healthz": dial tcp 10.0.171.162:8080: connect: connection refused"#,
            Liveness,
            ConnectionRefused,
        ),
        (
            "https://github.com/mittwald/kubernetes-secret-generator/issues/65",
            r#"Readiness probe failed: Get "http://10.0.171.162:8080/readyz": dial tcp 10.0.171.162:8080: connect: connection refused"#,
            Readiness,
            ConnectionRefused,
        ),
        (
            "https://github.com/traefik/traefik-helm-chart/issues/3",
            "Readiness probe failed: Get http://10.1.0.120:9000/ping: dial tcp 10.1.0.120:9000: connect: connection refused",
            Readiness,
            ConnectionRefused,
        ),
        // grpc_health_probe run by an exec probe: its own timeout wording
        (
            "https://github.com/GoogleCloudPlatform/microservices-demo/issues/62",
            "Readiness probe failed: config:\n> addr=:8080 conn_timeout=1s rpc_timeout=1s\n> tls=false\nestablishing connection\nhealth check rpc failed: rpc error: code = DeadlineExceeded desc = Deadline Exceeded",
            Readiness,
            Timeout,
        ),
        // an exec probe's command output (mysqladmin)
        (
            "https://github.com/kubernetes/kubernetes/issues/98780",
            "Startup probe failed: Warning: Using a password on the command line interface can be insecure.\nmysqladmin: connect to server at 'localhost' failed\nerror: 'Can't connect to",
            Startup,
            ExecFailed,
        ),
    ]);
}

#[test]
fn eviction_messages() {
    check_evictions(&[
        // before 1.20: "which exceeds its request of"
        (
            "https://github.com/kubernetes/kubernetes/issues/112927",
            "Evicted",
            "The node was low on resource: memory. Container citadel was using 43536Ki, which exceeds its request of 0.",
            None,
            MemoryPressure,
        ),
        (
            "https://github.com/nforgeio/neonKUBE/issues/1897",
            "Evicted",
            "The node was low on resource: memory. Container cstor-pool-mgmt was using 27484Ki, which exceeds its request of 0. Container maya-exporter was using 9736Ki, which exceeds its request of 0. Container cstor-pool was using 51480Ki, which exceeds its request of 0. ",
            None,
            MemoryPressure,
        ),
        (
            "https://github.com/concourse/hush-house/issues/8",
            "Evicted",
            "The node was low on resource: ephemeral-storage. Container hush-house-worker was using 73712Ki, which exceeds its request of 0. ",
            None,
            DiskPressure,
        ),
        // 1.20+: threshold and "has larger consumption of"
        (
            "https://github.com/openshift/release/pull/57180",
            "Evicted",
            "The node was low on resource: memory. Threshold quantity: 100Mi, available: 20948Ki. Container docker-build was using 25378008Ki, request is 15234375Ki, has larger consumption of memory. ",
            None,
            MemoryPressure,
        ),
        // kubelet admission under pressure, before 1.20
        (
            "https://github.com/FederatedAI/KubeFATE/issues/64",
            "Evicted",
            "The node had condition: [MemoryPressure].",
            None,
            MemoryPressure,
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/122160",
            "Evicted",
            "Pod ephemeral local storage usage exceeds the total limit of containers 5Mi.",
            None,
            EphemeralStorageLimit,
        ),
        (
            "https://github.com/akash-network/support/issues/275",
            "Evicted",
            "Pod ephemeral local storage usage exceeds the total limit of containers 1073741824.",
            None,
            EphemeralStorageLimit,
        ),
        // admission: "Pod " before 1.22, "Pod was rejected: " since
        (
            "https://github.com/hail-is/hail/issues/6709",
            "OutOfcpu",
            "Pod Node didn't have enough resource: cpu, requested: 600, used: 7371, capacity: 7910",
            None,
            AdmissionOutOfResource,
        ),
        (
            "https://github.com/red-hat-storage/ocs-ci/issues/12362",
            "OutOfcpu",
            "Pod was rejected: Node didn't have enough resource: cpu, requested: 150, used: 11388, capacity: 11500",
            None,
            AdmissionOutOfResource,
        ),
        (
            "https://github.com/kubernetes/website/issues/47264",
            "OutOfPods",
            "Node didn't have enough resource: pods, requested: 1, used: 32, capacity: 32",
            None,
            AdmissionOutOfResource,
        ),
        (
            "https://github.com/longhorn/longhorn/issues/6930",
            "NodeAffinity",
            "Pod was rejected: Predicate NodeAffinity failed",
            None,
            AdmissionNodeAffinity,
        ),
        (
            "https://github.com/flyteorg/flyte/pull/6461",
            "NodeAffinity",
            "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
            None,
            AdmissionNodeAffinity,
        ),
        // graceful node shutdown: 1.20, then 1.21+
        (
            "https://github.com/kubernetes/kubernetes/issues/102820",
            "Shutdown",
            "Node is shutting, evicting pods",
            None,
            NodeShutdown,
        ),
        (
            "https://github.com/cloudnative-pg/cloudnative-pg/issues/1593",
            "Terminated",
            "Pod was terminated in response to imminent node shutdown.",
            None,
            NodeShutdown,
        ),
        (
            "https://github.com/kubernetes/kubernetes/pull/102840",
            "NodeShutdown",
            "Pod was rejected as node is shutting down.",
            None,
            NodeShutdown,
        ),
        // DisruptionTarget reasons (1.26+), from the API's documented values
        (
            "https://github.com/kubernetes/website/pull/37242",
            "",
            "",
            Some((
                "DeletionByTaintManager",
                "Taint manager: deleting due to NoExecute taint",
            )),
            TaintEviction,
        ),
        (
            "https://github.com/kubernetes/website/pull/37242",
            "",
            "",
            Some((
                "PreemptionByScheduler",
                "default-scheduler: preempting to accommodate a higher priority pod",
            )),
            Preempted,
        ),
    ]);
}

#[test]
fn the_container_that_used_most_is_named_in_every_wording() {
    let named = |message: &str| eviction("Evicted", message, None).unwrap().container;
    // https://github.com/nforgeio/neonKUBE/issues/1897: three containers, cstor-pool used most
    assert_eq!(
        named(
            "The node was low on resource: memory. Container cstor-pool-mgmt was using 27484Ki, which exceeds its request of 0. Container maya-exporter was using 9736Ki, which exceeds its request of 0. Container cstor-pool was using 51480Ki, which exceeds its request of 0. "
        )
        .as_deref(),
        Some("cstor-pool")
    );
    // https://github.com/openshift/release/pull/57180 (1.20+ wording)
    assert_eq!(
        named(
            "The node was low on resource: memory. Threshold quantity: 100Mi, available: 20948Ki. Container docker-build was using 25378008Ki, request is 15234375Ki, has larger consumption of memory. "
        )
        .as_deref(),
        Some("docker-build")
    );
    // No container named: the node-condition admission wording.
    assert_eq!(named("The node had condition: [DiskPressure]."), None);
}

#[test]
fn failures_of_the_pod_itself_are_no_eviction() {
    // A Job's activeDeadlineSeconds, and a pod whose containers failed.
    assert_eq!(
        eviction(
            "DeadlineExceeded",
            "Pod was active on the node longer than the specified deadline",
            None
        ),
        None
    );
    assert_eq!(eviction("", "", None), None);
}
