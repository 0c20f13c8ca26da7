//! Message → cause: the tables that read like the troubleshooting handbook.
//!
//! Messages are read by their structure first, then by small tables of words
//! where the words are the signal:
//!
//! - [`image_pull`]: the runtime's error chain (CRI gRPC code → runtime →
//!   registry client → transport), decided by its innermost layer that names a
//!   cause ([`chain`]), so that a new runtime's wrappers do not matter;
//! - [`scheduler_reasons`]: the scheduler's list of reasons with a count of
//!   nodes each, in every shape since 1.0, with predicate names read as the
//!   newer words for the same check;
//! - [`container_config`] and [`last_termination`]: who refused to create or
//!   start a container, and how a crash-looping one last ended (its exit code
//!   before its reason string);
//! - [`creating_event`], [`termination_event`]: the kubelet's event reason
//!   first, then its message;
//! - [`refusal`]: the API server's refusal of a controller's pod, by the
//!   admission plugin's own words, the outermost deciding;
//! - [`probe_event`], [`probe_kill`]: the kubelet's probe events, by the
//!   probe named first and the transport's error kind in its output;
//! - [`eviction`]: a Failed pod's status reason and message and its
//!   DisruptionTarget condition.
//!
//! Every table is a list of `(cause, fragments)` rows tried top to bottom; the
//! first row with a fragment contained in the lower-cased message wins, so more
//! specific rows come first. The fragments come from messages people posted in
//! public issues (the tests quote them with their sources). Messages are only
//! read here, never turned into label values.

use std::collections::BTreeMap;

use super::CreatingCause;

mod chain;
mod containers;
mod evicted;
mod image_pull;
mod pending;
mod probe;
mod refused;

pub use chain::GrpcCode;
pub use containers::{container_config, last_termination};
pub use evicted::{Eviction, eviction};
pub use image_pull::{image_pull, is_pull_failure_event};
pub use pending::{SchedulerReasons, scheduler_reasons};
pub use probe::{ProbeKind, ProbeResult, probe_event, probe_failure, probe_kill};
pub use refused::{Refusal, is_refusal_event, refusal};

/// One row of a table: the cause when the message contains any fragment.
type Rule<C> = (C, &'static [&'static str]);

fn first_match<C: Copy>(rules: &[Rule<C>], message: &str) -> Option<C> {
    let message = message.to_lowercase();
    rules
        .iter()
        .find(|(_, fragments)| fragments.iter().any(|f| message.contains(f)))
        .map(|(cause, _)| *cause)
}

// ---------------------------------------------------------------------------
// ContainerCreating: the pod's warning events (FailedCreatePodSandBox,
// FailedMount, FailedAttachVolume, FailedPrepareDynamicResources).
// ---------------------------------------------------------------------------

const SANDBOX: &[Rule<CreatingCause>] = &[
    (
        CreatingCause::SandboxImagePull,
        &[
            "sandbox image",
            "failed pulling image",
            "failed to pull image",
            "pulling image",
            "pause:",
            "pod-infrastructure",
            "infra container image",
            // CRI-O pulling its pause image: containers/image's wrappers
            "initializing source",
            "pinging container registry",
            "pinging docker registry",
        ],
    ),
    (
        CreatingCause::Cni,
        &[
            "cni",
            "network for sandbox",
            "setup network",
            "set up pod",
            "networkplugin",
            "network plugin",
            "failed to delegate",
            "subnet.env",
            "failed to allocate",
            "ipam",
            "plugin type=",
            "pod network",
        ],
    ),
];

const MOUNT: &[Rule<CreatingCause>] = &[
    (
        CreatingCause::MountConfigmapMissing,
        &["configmap \"", "configmaps \""],
    ),
    (
        CreatingCause::MountSecretMissing,
        &["secret \"", "secrets \""],
    ),
    (
        CreatingCause::MountTimeout,
        &[
            "timed out waiting for the condition",
            "timeout expired waiting for volumes",
            "unable to attach or mount volumes",
            "context deadline exceeded",
        ],
    ),
];

const ATTACH: &[Rule<CreatingCause>] = &[(CreatingCause::MultiAttach, &["multi-attach error"])];

/// The cause a ContainerCreating-related warning event names, if it is one.
pub fn creating_event(reason: &str, message: &str) -> Option<CreatingCause> {
    match reason {
        "FailedCreatePodSandBox" => {
            Some(first_match(SANDBOX, message).unwrap_or(CreatingCause::SandboxOther))
        }
        "FailedMount" => Some(first_match(MOUNT, message).unwrap_or(CreatingCause::MountFailed)),
        // The kubelet's DRA manager, before the sandbox (kuberuntime_manager.go).
        "FailedPrepareDynamicResources" => Some(CreatingCause::DevicesNotPrepared),
        "FailedAttachVolume" | "FailedMapVolume" => {
            Some(first_match(ATTACH, message).unwrap_or(CreatingCause::AttachFailed))
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Pods being deleted: kubelet warning events that confirm why.
// ---------------------------------------------------------------------------

/// What a kubelet event says about a pod that does not go away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminationEvent {
    /// Stopping a container failed or timed out: the runtime does not stop it.
    KillFailed,
    /// Containers stopped, tearing down volumes or the sandbox failed.
    CleanupFailed,
}

const TERMINATION: &[Rule<TerminationEvent>] = &[
    // A container that did not stop outranks the sandbox teardown failing with it.
    (
        TerminationEvent::KillFailed,
        &["killcontainer", "did not kill the pod"],
    ),
    (
        TerminationEvent::CleanupFailed,
        &[
            "killpodsandbox",
            "unmountvolume",
            "unmount failed",
            "device or resource busy",
            "target is busy",
            "error cleaning subpath mounts",
            "failed to teardown",
        ],
    ),
    (
        TerminationEvent::KillFailed,
        &[
            "stopcontainer",
            "failed to stop container",
            "termination failed with graceperiod",
            "failed to kill",
            "error killing pod",
        ],
    ),
];

pub fn termination_event(reason: &str, message: &str) -> Option<TerminationEvent> {
    match reason {
        "FailedKillPod"
        | "FailedPreStopHook"
        | "ExceededGracePeriod"
        | "FailedMount"
        | "FailedUnMount"
        | "FailedUnmount"
        | "VolumeUnmountFailed"
        | "Failed"
        | "FailedSync" => first_match(TERMINATION, message)
            .or((reason == "FailedKillPod").then_some(TerminationEvent::KillFailed)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Namespace deletion conditions.
// ---------------------------------------------------------------------------

/// `Some resources are remaining: persistentvolumeclaims. has 1 resource instances, pods. has 2 resource instances`
pub fn remaining_resources(message: &str) -> BTreeMap<String, u64> {
    counted_list(message, " has ")
}

/// `Some content in the namespace has finalizers remaining: kubernetes.io/pvc-protection in 1 resource instances`
pub fn remaining_finalizers(message: &str) -> BTreeMap<String, u64> {
    counted_list(message, " in ")
}

fn counted_list(message: &str, separator: &str) -> BTreeMap<String, u64> {
    let Some((_, list)) = message.split_once(": ") else {
        return BTreeMap::new();
    };
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for item in list.split(", ") {
        let Some((name, rest)) = item.rsplit_once(separator) else {
            continue;
        };
        let Some(count) = rest
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let instances = out.entry(name.trim().to_string()).or_default();
        *instances = instances.saturating_add(count);
    }
    out
}
