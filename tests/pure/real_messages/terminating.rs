//! Things that do not go away: namespace conditions (remaining resources and
//! finalizers) and the kubelet's events about pods stuck terminating.

use super::*;

// ---------------------------------------------------------------------------
// Namespace conditions.
// ---------------------------------------------------------------------------

/// `(source, message, name → count)`.
type CountRow = (&'static str, &'static str, &'static [(&'static str, u64)]);

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn namespace_condition_messages() {
    // NamespaceContentRemaining
    let content: &[CountRow] = &[
        (
            "https://github.com/kubeshop/kusk-gateway/issues/599",
            "Some resources are remaining: staticroutes.gateway.kusk.io has 1 resource instances",
            &[("staticroutes.gateway.kusk.io", 1)],
        ),
        // joined: YAML folded the message (`>-`) over lines
        (
            "https://github.com/StarRocks/starrocks-kubernetes-operator/issues/147",
            "Some resources are remaining: services. has 2 resource instances, starrocksclusters.starrocks.com has 1 resource instances",
            &[("services.", 2), ("starrocksclusters.starrocks.com", 1)],
        ),
    ];
    for (source, message, expected) in content {
        assert_eq!(
            remaining_resources(message),
            counts(expected),
            "{source}: {message}"
        );
    }

    // NamespaceFinalizersRemaining
    let finalizers: &[CountRow] = &[
        // joined: YAML folded these quoted scalars over lines
        (
            "https://github.com/halkyonio/tap/issues/1",
            "Some content in the namespace has finalizers remaining: finalizers.kapp-ctrl.k14s.io/delete in 1 resource instances",
            &[("finalizers.kapp-ctrl.k14s.io/delete", 1)],
        ),
        (
            "https://github.com/k0rdent/kof/issues/83",
            "Some content in the namespace has finalizers remaining: apps.victoriametrics.com/finalizer in 14 resource instances",
            &[("apps.victoriametrics.com/finalizer", 14)],
        ),
        (
            "https://github.com/StarRocks/starrocks-kubernetes-operator/issues/147",
            "Some content in the namespace has finalizers remaining: starrocks.com.service/protection in 2 resource instances, starrocks.com.starrockscluster/protection in 1 resource instances",
            &[
                ("starrocks.com.service/protection", 2),
                ("starrocks.com.starrockscluster/protection", 1),
            ],
        ),
    ];
    for (source, message, expected) in finalizers {
        assert_eq!(
            remaining_finalizers(message),
            counts(expected),
            "{source}: {message}"
        );
    }

    // NamespaceDeletionDiscoveryFailure carries no counts; neither parser may
    // invent any from it.
    let discovery = [
        (
            "https://github.com/deckhouse/deckhouse/issues/3246",
            "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: bashible.deckhouse.io/v1alpha1: the server is currently unable to handle the request",
        ),
        (
            "https://github.com/prometheus-operator/kube-prometheus/issues/275",
            "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
        ),
    ];
    for (source, message) in discovery {
        assert!(remaining_resources(message).is_empty(), "{source}");
        assert!(remaining_finalizers(message).is_empty(), "{source}");
    }
}

// ---------------------------------------------------------------------------
// Pods that do not go away: kubelet events.
// ---------------------------------------------------------------------------

#[test]
fn termination_event_messages() {
    use TerminationEvent::*;
    let rows: &[(&str, &str, &str, Option<TerminationEvent>)] = &[
        (
            "https://github.com/k3s-io/k3s/issues/2370",
            "FailedKillPod",
            r#"error killing pod: failed to "KillContainer" for "lil-upload" with KillContainerError: "rpc error: code = DeadlineExceeded desc = context deadline exceeded""#,
            Some(KillFailed),
        ),
        // both the container and the sandbox failed to stop: the container is
        // still running, which is what matters
        (
            "https://github.com/Mossaka/containerd-wasm-shims/issues/10",
            "FailedKillPod",
            r#"error killing pod: [failed to "KillContainer" for "testwasm" with KillContainerError: "rpc error: code = InvalidArgument desc = failed to stop container \"37c1b531b6f245d7d7eb916f71c856d37a16da5f865126a7be401acd905c171a\": only SIGKILL is supported: invalid argument", failed to "KillPodSandbox" for "33546130-d84b-479c-b8c5-94d795dcae82" with KillPodSandboxError: "rpc error: code = DeadlineExceeded desc = failed to stop container \"37c1b531b6f245d7d7eb916f71c856d37a16da5f865126a7be401acd905c171a\": an error occurs during waiting for container \"37c1b531b6f2"#,
            Some(KillFailed),
        ),
        // only the sandbox: tearing down the pod's network failed
        (
            "https://github.com/METR/vivaria/issues/537",
            "FailedKillPod",
            r#"error killing pod: failed to "KillPodSandbox" for "536a0727-13e6-445b-8d29-3d445f18f419" with KillPodSandboxError: "rpc error: code = DeadlineExceeded desc = context deadline exceeded""#,
            Some(CleanupFailed),
        ),
        (
            "https://github.com/cisco-open/martian-bank-demo/issues/50",
            "FailedKillPod",
            r#"error killing pod: failed to "KillPodSandbox" for "a33e88fb-a2a9-4dbb-9996-466ca7ca5bd9" with KillPodSandboxError: "rpc error: code = Unknown desc = networkPlugin cni failed to teardown pod \" nginx-5f47c5c8f4-hvctg_default\" network: error getting ClusterInformation: Get \"https://10.96.0.1:443/apis/crd.projectcalico.org/v1/clusterinformations/default\": dial tcp 10.96.0.1:443: i/o timeout""#,
            Some(CleanupFailed),
        ),
        // ExceededGracePeriod: the runtime did not kill the containers
        (
            "https://github.com/kubernetes/kubernetes/issues/41347",
            "ExceededGracePeriod",
            "Container runtime did not kill the pod within specified grace period.",
            Some(KillFailed),
        ),
        // a 2017 kubelet's log line; its FailedSync event carried the same
        // "Error syncing pod, skipping: error killing pod: ..." text
        (
            "https://github.com/projectcalico/libcalico-go/issues/415",
            "FailedSync",
            r#"Error syncing pod 61270e6c-3442-11e7-9f7f-080027ee3298 ("my-nginx-3047691970-t46th_default(61270e6c-3442-11e7-9f7f-080027ee3298)"), skipping: error killing pod: failed to "KillPodSandbox" for "61270e6c-3442-11e7-9f7f-080027ee3298" with KillPodSandboxError: "rpc error: code = 2 desc = NetworkPlugin cni failed to teardown pod \"my-nginx-3047691970-t46th_default\" network: netplugin failed but error parsing its diagnostic message \"\": unexpected end of JSON input""#,
            Some(CleanupFailed),
        ),
        // an ordinary pull failure is no termination event
        (
            "https://github.com/kubernetes/minikube/issues/15626",
            "Failed",
            r#"Failed to pull image "noyandocker/authservice": rpc error: code = Unknown desc = context deadline exceeded"#,
            None,
        ),
    ];
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(source, reason, message, expected)| {
            let got = termination_event(reason, message);
            (got != *expected).then(|| {
                format!(
                    "  {source}\n    {reason}: expected {expected:?}, got {got:?}\n    {message}"
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "termination: {} of {} real messages misclassified:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}
