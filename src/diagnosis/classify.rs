//! Message → cause: the tables that read like the troubleshooting handbook.
//!
//! Every table is a list of `(cause, fragments)` rows tried top to bottom; the
//! first row with a fragment contained in the lower-cased message wins, so more
//! specific rows come first. The fragments come from messages people posted in
//! public issues (the tests quote them with their sources). Messages are only
//! read here, never turned into label values.

use std::collections::BTreeMap;

use super::{ConfigCause, CreatingCause, ImagePullCause, PendingCause};

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
// Image pulls: the ErrImagePull message or the kubelet's
// `Failed to pull image "...": ...` event.
// ---------------------------------------------------------------------------

const IMAGE_PULL: &[Rule<ImagePullCause>] = &[
    (ImagePullCause::QpsExceeded, &["pull qps exceeded"]),
    (
        ImagePullCause::RateLimited,
        &[
            "toomanyrequests",
            "429 too many requests",
            "status 429",
            "pull rate limit",
            "rate limit exceeded",
        ],
    ),
    (
        ImagePullCause::HttpToHttps,
        &["server gave http response to https client"],
    ),
    (
        ImagePullCause::Tls,
        &[
            "x509:",
            "certificate signed by unknown authority",
            "tls: failed to verify certificate",
            "certificate is valid for",
            "certificate has expired",
            "tls: first record does not look like a tls handshake",
        ],
    ),
    (ImagePullCause::NoSpace, &["no space left on device"]),
    (
        ImagePullCause::PlatformMismatch,
        &[
            "no match for platform in manifest",
            "no matching manifest for",
            "does not match the specified platform",
            "image operating system",
        ],
    ),
    // docker's "error pulling image configuration: ..." wraps any failure of that
    // download (timeouts, resets) and is no cause by itself.
    (
        ImagePullCause::Corrupt,
        &[
            "unknown blob",
            "failed size validation",
            "digest mismatch",
            "unexpected commit digest",
            "verification failed",
            "failed to extract layer",
            "failed to register layer",
            "unexpected eof",
            "layer does not exist",
            "archive/tar",
            "blob unknown",
            "invalid checksum digest",
        ],
    ),
    // The registry says the node sent no credentials at all: unauthorized, even
    // where Docker Hub's "repository does not exist or may require ..." is around it.
    (ImagePullCause::Unauthorized, &["no basic auth credentials"]),
    // Docker Hub answers a missing repository and a private one pulled without
    // credentials alike ("pull access denied, repository does not exist or may
    // require ..."); a mistyped name is the common case, so not_found.
    // containerd's "failed to resolve reference" wraps every failure and is no cause.
    (
        ImagePullCause::NotFound,
        &[
            "manifest unknown",
            "repository does not exist",
            "not found: manifest",
            "name unknown",
            "manifest for",
            "not found",
        ],
    ),
    (
        ImagePullCause::Unauthorized,
        &[
            "unauthorized",
            "unexpected status: 401",
            "unexpected status: 403",
            "authorization failed",
            "authentication required",
            "access to the resource is denied",
            "403 forbidden",
            "insufficient_scope",
            "denied:",
            "permission denied",
        ],
    ),
    (
        ImagePullCause::Dns,
        &[
            "no such host",
            // any failure of the lookup itself, a DNS server timing out included
            "dial tcp: lookup",
            "server misbehaving",
            "temporary failure in name resolution",
            "name or service not known",
        ],
    ),
    (
        ImagePullCause::ConnectionRefused,
        &[
            "connection refused",
            "no route to host",
            "network is unreachable",
            "connection reset by peer",
        ],
    ),
    (
        ImagePullCause::Timeout,
        &[
            "i/o timeout",
            "context deadline exceeded",
            "deadline exceeded",
            "request canceled while waiting for connection",
            "tls handshake timeout",
            "timeout awaiting response headers",
            "client.timeout exceeded",
            "timed out",
        ],
    ),
];

/// The cause an image-pull failure message names, if it names one.
pub fn image_pull(message: &str) -> Option<ImagePullCause> {
    first_match(IMAGE_PULL, message)
}

/// Whether a warning event reports a failed pull or inspect of an image (not
/// the bare `Error: ErrImagePull` / `Error: ImagePullBackOff` follow-ups).
pub fn is_pull_failure_event(reason: &str, message: &str) -> bool {
    let m = message.to_lowercase();
    match reason {
        "Failed" => {
            m.starts_with("failed to pull image") || m.starts_with("failed to inspect image")
        }
        "InspectFailed" | "ErrImageNeverPull" => true,
        _ => false,
    }
}

// ---------------------------------------------------------------------------
// ContainerCreating: the pod's warning events (FailedCreatePodSandBox,
// FailedMount, FailedAttachVolume).
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
        "FailedAttachVolume" | "FailedMapVolume" => {
            Some(first_match(ATTACH, message).unwrap_or(CreatingCause::AttachFailed))
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Containers that cannot be created or started: the waiting message of
// CreateContainerConfigError, CreateContainerError, RunContainerError, StartError.
// ---------------------------------------------------------------------------

const CONTAINER_CONFIG: &[Rule<ConfigCause>] = &[
    (ConfigCause::KeyMissing, &["couldn't find key"]),
    (
        ConfigCause::ConfigmapMissing,
        &["configmap \"", "configmaps \""],
    ),
    (ConfigCause::SecretMissing, &["secret \"", "secrets \""]),
    (ConfigCause::RunAsNonRoot, &["runasnonroot"]),
    (
        ConfigCause::NameConflict,
        &[
            "is already in use by container",
            "is reserved for",
            "name is reserved",
        ],
    ),
    (ConfigCause::ReadOnlyFs, &["read-only file system"]),
    (
        ConfigCause::ExecNotFound,
        &[
            "executable file not found",
            "not found in $path",
            "no such file or directory: unknown",
            "exec format error",
            "exec: \"",
        ],
    ),
    (
        ConfigCause::MountFailed,
        &[
            "error mounting",
            "rootfs_linux.go",
            "failed to prepare subpath",
            "subpath",
            "mount",
        ],
    ),
];

/// The cause a container create/start error message names, if it names one.
pub fn container_config(message: &str) -> Option<ConfigCause> {
    first_match(CONTAINER_CONFIG, message)
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
// The scheduler's PodScheduled message: which reason excluded how many nodes.
// ---------------------------------------------------------------------------

const SCHEDULER_REASONS: &[Rule<PendingCause>] = &[
    (PendingCause::InsufficientCpu, &["insufficient cpu"]),
    (PendingCause::InsufficientMemory, &["insufficient memory"]),
    (
        PendingCause::InsufficientPods,
        &["insufficient pods", "too many pods"],
    ),
    (
        PendingCause::InsufficientEphemeralStorage,
        &["insufficient ephemeral-storage"],
    ),
    (PendingCause::InsufficientOther, &["insufficient "]),
    (PendingCause::PodAntiAffinity, &["anti-affinity"]),
    (
        PendingCause::PodAffinity,
        &["pod affinity", "matchinterpodaffinity"],
    ),
    // Before node affinity: "volume node affinity conflict" is about the volume.
    (
        PendingCause::VolumeZone,
        &[
            "volume node affinity conflict",
            "no available volume zone",
            "novolumezoneconflict",
            "volume zone",
        ],
    ),
    (
        PendingCause::NodeAffinity,
        &[
            "node affinity/selector",
            "node selector",
            "matchnodeselector",
            "node affinity",
            "nodeaffinity",
        ],
    ),
    (
        PendingCause::NodeNotReady,
        &[
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
            "were not ready",
            "nodenotready",
            "node(s) were out of disk",
            "nodeoutofdisk",
        ],
    ),
    (
        PendingCause::NodeUnschedulable,
        &[
            "node.kubernetes.io/unschedulable",
            "were unschedulable",
            "nodeunschedulable",
        ],
    ),
    (PendingCause::Taint, &["taint"]),
    (
        PendingCause::HostPort,
        &["free ports", "podfitshostports", "host port"],
    ),
    (PendingCause::PvcNotFound, &["persistentvolumeclaim \""]),
    (
        PendingCause::VolumeBinding,
        &[
            "unbound immediate persistentvolumeclaims",
            "available persistent volumes to bind",
            "checkvolumebinding",
            "volumebinding",
            "unbound",
        ],
    ),
    (PendingCause::TopologySpread, &["topology spread"]),
    (
        PendingCause::TooManyVolumes,
        &[
            "max volume count",
            "maxvolumecount",
            "maxebsvolumecount",
            "maxgcepdvolumecount",
            "maxazurediskvolumecount",
        ],
    ),
];

/// What a PodScheduled=False message says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedulerReasons {
    /// Reason → number of nodes it excluded.
    pub reasons: BTreeMap<PendingCause, u32>,
    /// N in `0/N nodes are available`.
    pub nodes_total: Option<u32>,
}

/// Parses both forms the scheduler has used:
/// `0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {...}. preemption: ...`
/// and `No nodes are available that match all of the predicates: Insufficient pods (3).`
pub fn scheduler_reasons(message: &str) -> SchedulerReasons {
    let mut out = SchedulerReasons::default();
    // The preemption tail repeats the node count with other words; it is not a reason.
    let message = message.split(" preemption:").next().unwrap_or(message);
    let message = message.split(".preemption:").next().unwrap_or(message);
    let mut add = |text: &str, count: u32| {
        let text = text.trim().trim_end_matches('.').trim();
        if text.is_empty() {
            return;
        }
        let reason = first_match(SCHEDULER_REASONS, text).unwrap_or(PendingCause::Other);
        // Counts come from text: a repeated reason must not overflow.
        let nodes = out.reasons.entry(reason).or_default();
        *nodes = nodes.saturating_add(count);
    };

    // Volcano's scheduler says "nodes are unavailable:" with the same list.
    let list = message
        .split_once("nodes are available:")
        .or_else(|| message.split_once("nodes are unavailable:"));
    if let Some((head, list)) = list {
        let total = head
            .trim()
            .rsplit_once('/')
            .and_then(|(_, n)| n.trim().parse().ok());
        // Items start with a count; text without one continues the previous item
        // (the old taint wording has a comma inside it) or, first, applies to all nodes.
        let mut items: Vec<(Option<u32>, String)> = Vec::new();
        for piece in list.split(", ") {
            let piece = piece.trim();
            let counted = piece
                .split_once(' ')
                .and_then(|(n, rest)| n.parse::<u32>().ok().map(|n| (n, rest)));
            match (counted, items.last_mut()) {
                (Some((n, rest)), _) => items.push((Some(n), rest.to_string())),
                (None, Some(last)) => {
                    last.1.push_str(", ");
                    last.1.push_str(piece);
                }
                (None, None) => items.push((None, piece.to_string())),
            }
        }
        for (count, text) in items {
            add(&text, count.or(total).unwrap_or(1));
        }
        out.nodes_total = total;
    } else if let Some((_, list)) = message.split_once("predicates:") {
        // `Insufficient cpu (2), MatchNodeSelector (1).`
        for piece in list.trim_start_matches(':').split(", ") {
            let piece = piece.trim().trim_end_matches('.');
            match piece.rsplit_once(" (") {
                Some((text, n)) => add(text, n.trim_end_matches(')').parse().unwrap_or(1)),
                None => add(piece, 1),
            }
        }
    } else if !message.trim().is_empty() {
        add(message, 1);
    }
    out
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
