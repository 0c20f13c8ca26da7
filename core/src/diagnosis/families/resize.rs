//! `pod_resize`: an in-place resize (beta 1.33, `kubectl patch --subresource
//! resize`, VPA's InPlaceOrRecreate mode) that the kubelet cannot make. The
//! kubelet says so in the PodResizePending condition (reason `Infeasible` or
//! `Deferred`, `pkg/kubelet/allocation`) or, when making it failed, in
//! PodResizeInProgress with reason `Error`; before 1.33, `status.resize`
//! carried the first two values without a message. A resize under way is not
//! a finding.

use crate::model::{Pod, PodCondition};

use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, since};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{Anomaly, Cause, Detail, Finding, Input};

use super::pod_finding::pod_finding;
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why a pod's in-place resize is not made (anomaly `pod_resize`).
    pub enum ResizeCause {
        Infeasible = "infeasible": "PodResizePending, reason Infeasible: the node can never fit the new requests (\"Node didn't have enough capacity: memory, requested: ..., capacity: ...\"), or the CPU or Memory Manager static policy, or swap, forbids resizing this pod in place. The kubelet does not try again: change the request, or let the pod be recreated elsewhere.",
        Deferred = "deferred": "PodResizePending, reason Deferred: the new requests would fit the node but not beside what runs there now (\"Node didn't have enough resource: cpu, requested: ..., used: ..., capacity: ...\"); the kubelet retries when room frees.",
        Failed = "failed": "PodResizeInProgress, reason Error: the kubelet accepted the resize but making it failed (the runtime refused, or a memory limit below what the container uses).",
    }
}

impl PodsVerdict for ResizeCause {
    // A resize not made leaves the pod running: the controller has nothing of its own to say.
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

family!("resize" each pod: PodResize);

const METRICS: &[MetricFamily] = &[MetricFamily {
    name: "kube_lifecycle_pod_resize_since_timestamp_seconds",
    help: "Unix time an in-place pod resize became stuck (its PodResizePending or PodResizeInProgress condition's last transition; before 1.33, when the pod started), by cause and by the resource the kubelet names (cpu, memory, other; empty when it names none).",
    identity: Identity::Pod,
    labels: &["resource", "cause"],
    anomalies: &[Anomaly::PodResize],
    aggregate: false,
    samples: |f| {
        since(
            f,
            vec![short_resource(&f.message).to_string(), f.cause.to_string()],
        )
    },
    fold: Fold::Earliest,
    example: "count by (cause, resource) (kube_lifecycle_pod_resize_since_timestamp_seconds)",
}];

fn diagnose_pod(_: &Input<'_>, pod: &Pod, out: &mut Vec<Finding>) {
    if !pod.is_terminating() {
        out.extend(judge(pod));
    }
}

fn judge(pod: &Pod) -> Option<Finding> {
    let resize = pod.status.resize()?;
    // A failure while making it outranks what a newer request waits for.
    let (cause, condition, what) = match (&resize.failed, &resize.pending) {
        (Some(c), _) => (ResizeCause::Failed, c, "PodResizeInProgress"),
        (None, Some(c)) if c.reason() == "Infeasible" => {
            (ResizeCause::Infeasible, c, "PodResizePending")
        }
        (None, Some(c)) if c.reason() == "Deferred" => {
            (ResizeCause::Deferred, c, "PodResizePending")
        }
        _ => return None,
    };
    Some(pod_finding(
        pod,
        None,
        Cause::PodResize(cause),
        condition
            .last_transition_time
            .or(pod.status.start_time)
            .or(pod.metadata.creation_timestamp),
        message(what, condition),
        Detail::None,
    ))
}

fn message(what: &str, condition: &PodCondition) -> String {
    if condition.message().is_empty() {
        format!("{what}: {}", condition.reason())
    } else {
        format!("{what} {}: {}", condition.reason(), condition.message())
    }
}

/// The resource the kubelet's words name: `enough capacity: memory, ...`,
/// `enough resource: cpu, ...` (as a bounded label value).
fn short_resource(message: &str) -> &'static str {
    let named = ["enough capacity: ", "enough resource: "]
        .iter()
        .find_map(|lead| message.split_once(lead))
        .map(|(_, rest)| rest.split([',', ' ']).next().unwrap_or(""));
    match named {
        Some("cpu") => "cpu",
        Some("memory") => "memory",
        Some(_) => "other",
        None if message.contains("CPU Manager") => "cpu",
        None if message.contains("Memory Manager") => "memory",
        None => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kubelet's texts (pkg/kubelet/allocation/allocation_manager.go and
    /// its test; pkg/kubelet/lifecycle/predicate.go for Deferred).
    #[test]
    fn the_resource_is_read_from_the_kubelets_words() {
        for (message, resource) in [
            (
                "Node didn't have enough capacity: memory, requested: 4718592000, capacity: 4294967296",
                "memory",
            ),
            (
                "Node didn't have enough resource: cpu, requested: 1500, used: 1450, capacity: 1930",
                "cpu",
            ),
            (
                "Resize is infeasible for Guaranteed Pods alongside CPU Manager static policy",
                "cpu",
            ),
            (
                "Resize is infeasible for Guaranteed Pods alongside Memory Manager policy \"Static\"",
                "memory",
            ),
            (
                "Node didn't have enough capacity: hugepages-2Mi, requested: 4, capacity: 2",
                "other",
            ),
            (
                "In-place resize of containers with swap is not supported.",
                "",
            ),
        ] {
            assert_eq!(short_resource(message), resource, "{message}");
        }
    }
}
