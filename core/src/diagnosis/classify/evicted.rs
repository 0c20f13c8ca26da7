//! Pods thrown out of their node: a Failed pod's `status.reason` and
//! `status.message`, and its `DisruptionTarget` condition (1.26+), read by
//! their structure.
//!
//! | who | reason | message |
//! |---|---|---|
//! | kubelet eviction manager (pkg/kubelet/eviction/helpers.go) | `Evicted` | `The node was low on resource: memory. ` then, 1.20+, `Threshold quantity: 100Mi, available: 50Mi. `, then per container over its request `Container app was using 1200Mi, request is 512Mi, has larger consumption of memory. ` (before 1.20: `Container app was using 1200Mi, which exceeds its request of 512Mi. `); before 1.9 `The node was low on resource: [MemoryPressure].` |
//! | the same, local storage limits | `Evicted` | `Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. `, `Usage of EmptyDir volume "cache" exceeds the limit "1Gi". `, `Container app exceeded its local ephemeral storage limit "1Gi". ` |
//! | kubelet admission under pressure (before 1.20) | `Evicted` | `The node had condition: [DiskPressure]. ` |
//! | kubelet admission (pkg/kubelet/lifecycle/predicate.go) | `OutOfcpu`, `OutOfmemory`, `OutOfpods`, `OutOf<resource>` | `Node didn't have enough resource: cpu, requested: 2000, used: 3500, capacity: 4000` (prefixed `Pod ` before 1.22, `Pod was rejected: ` since) |
//! | | `NodeAffinity` (`MatchNodeSelector` before 1.20) | `Predicate NodeAffinity failed` |
//! | | `UnexpectedAdmissionError`, `TopologyAffinityError`, `NodePorts`, `SysctlForbidden`, ... | the admit handler's words |
//! | kubelet preemption of a critical pod | `Preempting` | `Preempted in order to admit critical pod` |
//! | graceful node shutdown (1.20+) | `Terminated` (`Shutdown`, `NodeShutdown` in some versions) | `Pod was terminated in response to imminent node shutdown.` / `Node is shutting down` |
//! | DisruptionTarget condition (1.26+) | `PreemptionByScheduler` (`PreemptionByKubeScheduler` 1.26), `DeletionByTaintManager`, `TerminationByKubelet`, `EvictionByEvictionAPI`, `DeletionByPodGC` | `<scheduler>: preempting to accommodate a higher priority pod`, `Taint manager: deleting due to NoExecute taint`, the kubelet's eviction or shutdown message, `Eviction API: evicting` |
//!
//! The kubelet's own message decides where there is one (a TerminationByKubelet
//! disruption carries the eviction's words); a controller's DisruptionTarget
//! reason decides the rest.

use crate::diagnosis::EvictionCause;

use EvictionCause::*;

/// What a Failed pod's status says about its eviction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eviction {
    pub cause: EvictionCause,
    /// The container the message names as using most of the resource.
    pub container: Option<String>,
}

/// Reasons the kubelet's admit handlers write when they reject a pod.
const ADMISSION_REASONS: &[&str] = &[
    "UnexpectedAdmissionError",
    "TopologyAffinityError",
    "SMTAlignmentError",
    "NodePorts",
    "SysctlForbidden",
    "AppArmor",
    "InvalidNodeInfo",
    "PodOSNotSupported",
    "PodOSSelectorNodeLabelDoesNotMatch",
    "NodeSelectorMismatching",
    "UnexpectedPredicateFailureType",
    "NodeUnschedulable",
    "TaintToleration",
    "NodeName",
    "NotServicingPod",
    "Forbidden",
];

/// Why a Failed pod was thrown out: from its status reason and message, and
/// its DisruptionTarget condition (reason, message) when it is True. `None`
/// for a pod that failed on its own (a container's exit, a Job's deadline).
pub fn eviction(reason: &str, message: &str, disruption: Option<(&str, &str)>) -> Option<Eviction> {
    let lower = message.to_ascii_lowercase();
    let by_cause = |cause| {
        Some(Eviction {
            cause,
            container: None,
        })
    };
    if reason == "Evicted" || is_eviction_message(&lower) {
        if let Some(found) = eviction_message(message) {
            return Some(found);
        }
    }
    if reason.starts_with("OutOf") || lower.contains("didn't have enough resource") {
        return by_cause(AdmissionOutOfResource);
    }
    if matches!(reason, "NodeAffinity" | "MatchNodeSelector")
        || lower.contains("predicate nodeaffinity failed")
        || lower.contains("predicate matchnodeselector failed")
    {
        return by_cause(AdmissionNodeAffinity);
    }
    if reason == "Preempting" || lower.contains("preempted in order to admit") {
        return by_cause(Preempted);
    }
    if matches!(reason, "Terminated" | "Shutdown" | "NodeShutdown") || is_shutdown(&lower) {
        return by_cause(NodeShutdown);
    }
    if ADMISSION_REASONS.contains(&reason)
        || lower.starts_with("pod was rejected")
        || lower.starts_with("pod predicate")
        || (lower.starts_with("predicate ") && lower.contains(" failed"))
    {
        return by_cause(AdmissionOther);
    }
    if let Some((d_reason, d_message)) = disruption {
        let d_lower = d_message.to_ascii_lowercase();
        if let Some(found) = eviction_message(d_message) {
            return Some(found);
        }
        return by_cause(match d_reason {
            "PreemptionByScheduler" | "PreemptionByKubeScheduler" => Preempted,
            "DeletionByTaintManager" => TaintEviction,
            "TerminationByKubelet" if is_shutdown(&d_lower) => NodeShutdown,
            _ if d_lower.contains("preempting") => Preempted,
            _ if d_lower.contains("noexecute taint") => TaintEviction,
            _ => Other,
        });
    }
    (reason == "Evicted").then_some(Eviction {
        cause: Other,
        container: None,
    })
}

fn is_eviction_message(lower: &str) -> bool {
    lower.contains("low on resource")
        || lower.contains("node had condition")
        || lower.contains("ephemeral local storage")
        || lower.contains("local ephemeral storage")
        || lower.contains("emptydir volume")
}

fn is_shutdown(lower: &str) -> bool {
    // "Node is shutting, evicting pods" (1.20), "... in response to imminent
    // node shutdown." (1.21+), "Pod was rejected as node is shutting down."
    lower.contains("node shutdown") || lower.contains("is shutting")
}

/// The eviction manager's message: a storage limit, or a resource the node
/// was low on (or, at admission, a pressure condition it had).
fn eviction_message(message: &str) -> Option<Eviction> {
    let lower = message.to_ascii_lowercase();
    if lower.contains("ephemeral local storage usage exceeds")
        || lower.contains("exceeded its local ephemeral storage limit")
        || (lower.contains("emptydir volume") && lower.contains("exceeds the limit"))
    {
        return Some(Eviction {
            cause: EphemeralStorageLimit,
            container: word_after(message, "Container ", " exceeded its local ephemeral"),
        });
    }
    let resource = after(&lower, "low on resource:").or_else(|| after(&lower, "had condition:"))?;
    // The first sentence: "memory", "[MemoryPressure]", "nodefs", "ephemeral-storage", "pids".
    let resource = resource.split(". ").next().unwrap_or(resource);
    let cause = if resource.contains("memory") {
        MemoryPressure
    } else if resource.contains("pid") {
        PidPressure
    } else if ["disk", "fs", "storage", "inode"]
        .iter()
        .any(|w| resource.contains(w))
    {
        DiskPressure
    } else {
        Other
    };
    Some(Eviction {
        cause,
        container: biggest_user(message),
    })
}

fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker).map(|i| text[i + marker.len()..].trim())
}

/// The name between `prefix` and `suffix`, when it is a container name's characters.
fn word_after(message: &str, prefix: &str, suffix: &str) -> Option<String> {
    let start = message.find(prefix)? + prefix.len();
    let end = start + message[start..].find(suffix)?;
    name(&message[start..end])
}

fn name(word: &str) -> Option<String> {
    let ok = !word.is_empty()
        && word.len() <= 63
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_');
    ok.then(|| word.to_string())
}

/// Of `Container x was using 1200Mi, ...` clauses, the container using most.
fn biggest_user(message: &str) -> Option<String> {
    let mut best: Option<(f64, String)> = None;
    let mut rest = message;
    while let Some(i) = rest.find("Container ") {
        rest = &rest[i + "Container ".len()..];
        let Some((container, tail)) = rest.split_once(" was using ") else {
            continue;
        };
        let Some(container) = name(container) else {
            continue;
        };
        let usage = tail
            .split([',', ' '])
            .next()
            .and_then(quantity)
            .unwrap_or(0.0);
        if best.as_ref().is_none_or(|(most, _)| usage > *most) {
            best = Some((usage, container));
        }
    }
    best.map(|(_, c)| c)
}

/// A Kubernetes quantity (`1200Mi`, `1Gi`, `500M`, `250m`, `12345`), as a number.
fn quantity(text: &str) -> Option<f64> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match suffix {
        "" => 1.0,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024.0_f64.powi(4),
        _ => return None,
    };
    Some(number * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_container_that_used_most_is_named() {
        let e = eviction(
            "Evicted",
            "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container sidecar was using 200Mi, request is 0, has larger consumption of memory. Container app was using 1Gi, request is 512Mi, has larger consumption of memory. ",
            None,
        )
        .unwrap();
        assert_eq!(e.cause, MemoryPressure);
        assert_eq!(e.container.as_deref(), Some("app"));
    }

    #[test]
    fn quantities_compare_across_units() {
        assert!(quantity("1Gi").unwrap() > quantity("1000Mi").unwrap());
        assert!(quantity("2G").unwrap() > quantity("1500Mi").unwrap());
        assert_eq!(quantity("0"), Some(0.0));
    }
}
