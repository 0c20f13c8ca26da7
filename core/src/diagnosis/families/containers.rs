//! Container-level trouble on scheduled pods, read from each container's
//! waiting state and the kubelet's warning events about the pod:
//!
//! - `container_creating`: ContainerCreating (PodInitializing, when the pod
//!   has init containers) with sandbox, network, mount or attach failures
//!   reported (or for too long with nothing reported);
//! - `image_pull`: ErrImagePull, ImagePullBackOff, ImageInspectError,
//!   InvalidImageName, ErrImageNeverPull. The back-off message says only
//!   `Back-off pulling image "x"`: the cause is in the preceding ErrImagePull
//!   message and the kubelet's `Failed` event for that container;
//! - `crash_loop`: CrashLoopBackOff, judged by the last termination and, for
//!   a container its liveness or startup probe killed, the kubelet's
//!   `Unhealthy` (and `Killing`) events during the run that last ended;
//! - `container_config`: CreateContainerConfigError, CreateContainerError,
//!   RunContainerError, StartError.
//!
//! Init containers and native sidecars are read as the app's containers are:
//! their statuses and their events (`spec.initContainers{name}`), the finding
//! saying which kind of container it is.

use std::sync::Arc;

use crate::diagnosis::moment::Moment;
use crate::model::{
    ContainerKind, ContainerStatus, Event, Name, Pod, PodPhase, Terminated, Time, Waiting,
};

use crate::diagnosis::VerdictCause;
use crate::diagnosis::classify;
use crate::diagnosis::classify::ProbeKind;
use crate::diagnosis::family::PodsVerdict;
use crate::diagnosis::family::family;
use crate::diagnosis::image_ref::registry_host;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, one, probe_failure, since, text};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{
    Anomaly, Cause, Detail, Finding, ImagePullDetail, Input, Message, ProbeFailure, Settings,
};

use super::pod_finding::{
    events_of, first_seen, has_waiting_container, on_its_node, on_node_since, pod_finding,
};

vocabulary! {
    /// Why a scheduled pod's containers are stuck in ContainerCreating
    /// (anomaly `container_creating`), from the pod's warning events.
    pub enum CreatingCause {
        SandboxImagePull = "sandbox_image_pull" => PodSandboxFailingOnNode [sandbox]: "The pod sandbox (pause) image cannot be pulled.",
        Cni = "cni" => PodSandboxFailingOnNode [sandbox]: "The network plugin fails to set up the pod's network.",
        SandboxOther = "sandbox_other" => PodSandboxFailingOnNode [sandbox]: "Creating the pod sandbox fails for another reason.",
        MountConfigmapMissing = "mount_configmap_missing": "A ConfigMap volume's ConfigMap does not exist.",
        MountSecretMissing = "mount_secret_missing": "A Secret volume's Secret does not exist.",
        MountTimeout = "mount_timeout": "Volumes did not attach or mount in time.",
        MountFailed = "mount_failed": "Mounting a volume failed (NFS, CSI, ...) for a reason other than a missing ConfigMap or Secret.",
        AttachFailed = "attach_failed": "Attaching a volume to the node failed.",
        MultiAttach = "multi_attach": "A ReadWriteOnce volume is still attached to another node.",
        DevicesNotPrepared = "devices_not_prepared": "The kubelet cannot prepare the pod's devices (FailedPrepareDynamicResources, DRA): the claim's DRA driver is not registered on the node, its NodePrepareResources call fails, or the claim is not reserved for the pod.",
        Unknown = "unknown": "Still creating long after scheduling, with no warning event that explains it.",
    }
}

impl PodsVerdict for CreatingCause {
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::ContainerCreating
    }
}

vocabulary! {
    /// Why a container's image is not there (anomaly `image_pull`). For
    /// ImagePullBackOff the cause comes from the kubelet's `Failed` event, as the
    /// back-off message itself carries none.
    pub enum ImagePullCause {
        NotFound = "not_found" => ImagePullNotFound [registry_content]: "The image or tag does not exist (or the repository is private and says so).",
        Unauthorized = "unauthorized" => ImagePullUnauthorized [registry_content]: "The registry refused the credentials, or none were given (imagePullSecrets).",
        Tls = "tls" => ImagePullRegistryUnreachable [registry_transport]: "The registry's certificate is not trusted (self-signed, unknown authority, wrong name).",
        HttpToHttps = "http_to_https" => ImagePullRegistryUnreachable [registry_transport]: "The registry speaks plain HTTP and the runtime expects HTTPS (insecure registry not configured).",
        QpsExceeded = "qps_exceeded" => ImagePullRateLimited: "The kubelet's own pull limit (registryPullQPS / --registry-qps) was hit.",
        RateLimited = "rate_limited" => ImagePullRateLimited [registry_transport]: "The registry rate-limits pulls (HTTP 429, toomanyrequests).",
        Corrupt = "corrupt" => ImagePullNodeImageStore: "The image data is damaged (unknown blob, digest or size mismatch, failed layer extraction).",
        Timeout = "timeout" => ImagePullRegistryUnreachable [registry_transport]: "The pull timed out.",
        Dns = "dns" => ImagePullRegistryUnreachable [registry_transport]: "The registry host name does not resolve.",
        ConnectionRefused = "connection_refused" => ImagePullRegistryUnreachable [registry_transport]: "The registry is unreachable (connection refused, no route).",
        NoSpace = "no_space" => ImagePullNodeImageStore: "The node has no disk space left for the image.",
        PlatformMismatch = "platform_mismatch" => ImagePullNotFound: "The image has no variant for the node's OS/architecture.",
        InvalidName = "invalid_name" => ImagePullNotFound: "InvalidImageName: the image reference cannot be parsed.",
        NeverPull = "never_pull" => ImagePullNotFound: "ErrImageNeverPull: imagePullPolicy Never and the image is not on the node.",
        InspectError = "inspect_error" => ImagePullNodeImageStore: "ImageInspectError: the runtime cannot inspect the image on the node (often a damaged local image store).",
        Unknown = "unknown" [registry_transport]: "The pull fails with a message not in this list, or no message says why.",
    }
}

impl PodsVerdict for ImagePullCause {
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::ImagePull
    }
}

vocabulary! {
    /// What the last termination of a crash-looping container says
    /// (anomaly `crash_loop`).
    pub enum CrashLoopCause {
        OomKilled = "oom_killed" => ContainerOomKilledLooping: "OOMKilled: the container exceeded its memory limit.",
        LivenessProbe = "liveness_probe" => ContainerProbeKilled: "The kubelet killed the container because its liveness probe failed: `Unhealthy` events \"Liveness probe failed\" (or a `Killing` event \"failed liveness probe\") during the run that last ended. An exit code 137 or 143 alone does not say so.",
        StartupProbe = "startup_probe" => ContainerProbeKilled: "The kubelet killed the container because its startup probe failed: `Unhealthy` events \"Startup probe failed\" (or a `Killing` event \"failed startup probe\") during the run that last ended.",
        Error = "error": "The process exited with a non-zero code (see the exit code).",
        ContainerCannotRun = "container_cannot_run": "ContainerCannotRun: the runtime could not run the process (docker).",
        StartError = "start_error": "StartError: the runtime could not start the process (containerd, CRI-O).",
        Completed = "completed": "Completed: the process exited 0, but the pod's restartPolicy restarts it.",
        InitRerun = "init_rerun": "An init container of a pod whose app containers already run is run again and fails: its exited container was removed (docker system prune, the kubelet's garbage collection, a runtime restart) and the kubelet re-ran it, and a second run cannot do what the first did (istio-init: \"iptables: Chain already exists\"). The app keeps running.",
        Unknown = "unknown": "No last termination is recorded, or its reason is not in this list.",
    }
}

impl PodsVerdict for CrashLoopCause {
    fn pods_verdict(self) -> VerdictCause {
        match self {
            CrashLoopCause::OomKilled => VerdictCause::OomKilled,
            CrashLoopCause::LivenessProbe
            | CrashLoopCause::StartupProbe
            | CrashLoopCause::Error
            | CrashLoopCause::ContainerCannotRun
            | CrashLoopCause::StartError
            | CrashLoopCause::Completed
            | CrashLoopCause::InitRerun
            | CrashLoopCause::Unknown => VerdictCause::CrashLoop,
        }
    }
}

vocabulary! {
    /// Why a container cannot be created or started (anomaly `container_config`:
    /// CreateContainerConfigError, CreateContainerError, RunContainerError, StartError).
    pub enum ConfigCause {
        ConfigmapMissing = "configmap_missing": "A ConfigMap the container reads does not exist.",
        SecretMissing = "secret_missing": "A Secret the container reads does not exist.",
        KeyMissing = "key_missing": "A key the container reads is not in its ConfigMap or Secret.",
        RunAsNonRoot = "run_as_non_root": "runAsNonRoot is set and the image runs as root, or as a user that cannot be verified.",
        ExecNotFound = "exec_not_found": "The command or entrypoint does not exist in the image.",
        ReadOnlyFs = "read_only_fs": "The runtime hit a read-only file system (often a damaged image or node disk).",
        MountFailed = "mount_failed": "A volume or subPath could not be mounted into the container.",
        NameConflict = "name_conflict": "The runtime still holds a container of the same name.",
        Other = "other": "A message not in this list.",
    }
}

impl PodsVerdict for ConfigCause {
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::ContainerConfig
    }
}

family!("containers" each pod: ContainerCreating, ImagePull, CrashLoop, ContainerConfig);

const METRICS: &[MetricFamily] = &[
    MetricFamily {
        name: "kube_lifecycle_pod_container_creating_since_timestamp_seconds",
        help: "Unix time a pod stuck in ContainerCreating reached its node, by cause.",
        identity: Identity::Pod,
        labels: &["node", "cause"],
        anomalies: &[Anomaly::ContainerCreating],
        aggregate: false,
        samples: |f| since(f, vec![text(&f.node), f.cause.to_string()]),
        fold: Fold::Earliest,
        example: "time() - kube_lifecycle_pod_container_creating_since_timestamp_seconds > 600",
    },
    MetricFamily {
        name: "kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds",
        help: "Unix time a container's image first failed to pull (first Failed event, else when the pod reached its node), by cause and registry.",
        identity: Identity::Container,
        labels: &["node", "image", "registry", "cause"],
        anomalies: &[Anomaly::ImagePull],
        aggregate: false,
        samples: |f| {
            let (image, registry) = match &f.detail {
                Detail::ImagePull(pull) => (pull.image.to_string(), pull.registry.to_string()),
                _ => Default::default(),
            };
            since(f, vec![text(&f.node), image, registry, f.cause.to_string()])
        },
        fold: Fold::Earliest,
        example: "time() - kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds > 600",
    },
    MetricFamily {
        name: "kube_lifecycle_container_image_pull_backoff",
        help: "1 for every container whose image does not pull (ErrImagePull, ImagePullBackOff, ImageInspectError, ...), by node, registry and cause.",
        identity: Identity::Container,
        labels: &["node", "registry", "cause"],
        anomalies: &[Anomaly::ImagePull],
        aggregate: false,
        samples: |f| {
            let registry = match &f.detail {
                Detail::ImagePull(pull) => pull.registry.to_string(),
                _ => String::new(),
            };
            one(vec![text(&f.node), registry, f.cause.to_string()], 1.0)
        },
        fold: Fold::Sum,
        example: "count by (registry, cause) (kube_lifecycle_container_image_pull_backoff)",
    },
    MetricFamily {
        name: "kube_lifecycle_container_crash_looping_since_timestamp_seconds",
        help: "Unix time a container in CrashLoopBackOff started backing off (first BackOff event, else its last exit), by the last termination's cause and, when a liveness or startup probe killed it, what the probe's output says (probe_failure).",
        identity: Identity::Container,
        labels: &["node", "cause", "probe_failure"],
        anomalies: &[Anomaly::CrashLoop],
        aggregate: false,
        samples: |f| {
            since(
                f,
                vec![text(&f.node), f.cause.to_string(), probe_failure(f)],
            )
        },
        fold: Fold::Earliest,
        example: r#"kube_lifecycle_container_crash_looping_since_timestamp_seconds{cause="oom_killed"}"#,
    },
    MetricFamily {
        name: "kube_lifecycle_container_probe_killed",
        help: "1 for every crash-looping container whose last run its liveness or startup probe ended (cause liveness_probe or startup_probe), by what the probe's output says (probe_failure).",
        identity: Identity::Container,
        labels: &["node", "cause", "probe_failure"],
        anomalies: &[Anomaly::CrashLoop],
        aggregate: false,
        samples: |f| match f.cause {
            Cause::CrashLoop(CrashLoopCause::LivenessProbe | CrashLoopCause::StartupProbe) => one(
                vec![text(&f.node), f.cause.to_string(), probe_failure(f)],
                1.0,
            ),
            _ => vec![],
        },
        fold: Fold::Sum,
        example: "count by (namespace, probe_failure) (kube_lifecycle_container_probe_killed)",
    },
    MetricFamily {
        name: "kube_lifecycle_container_crash_looping_last_exit_code",
        help: "Exit code of the last termination of a container in CrashLoopBackOff.",
        identity: Identity::Container,
        labels: &[],
        anomalies: &[Anomaly::CrashLoop],
        aggregate: false,
        samples: |f| match f.detail {
            Detail::CrashLoop {
                exit_code: Some(code),
                ..
            } => one(vec![], f64::from(code)),
            _ => vec![],
        },
        fold: Fold::Largest,
        example: "kube_lifecycle_container_crash_looping_last_exit_code == 137",
    },
    MetricFamily {
        name: "kube_lifecycle_container_config_error_since_timestamp_seconds",
        help: "Unix time a container that cannot be created or started first failed (first Failed event, else when the pod reached its node), by cause.",
        identity: Identity::Container,
        labels: &["node", "cause"],
        anomalies: &[Anomaly::ContainerConfig],
        aggregate: false,
        samples: |f| since(f, vec![text(&f.node), f.cause.to_string()]),
        fold: Fold::Earliest,
        example: r#"kube_lifecycle_container_config_error_since_timestamp_seconds{cause=~"configmap_missing|secret_missing|key_missing"}"#,
    },
];

/// Waiting reasons of a container whose image is not there (pkg/kubelet/images/types.go).
const IMAGE_PULL_REASONS: &[&str] = &[
    "ErrImagePull",
    "ImagePullBackOff",
    "ImageInspectError",
    "InvalidImageName",
    "ErrImageNeverPull",
    "RegistryUnavailable",
    "SignatureValidationFailed",
];

/// Waiting reasons of a container that cannot be created or started
/// (pkg/kubelet/container/sync_result.go, kuberuntime).
const CONFIG_REASONS: &[&str] = &[
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "StartError",
    "PreStartHookError",
    "PostStartHookError",
    "PreCreateHookError",
];

/// Waiting reasons of a container the kubelet has not created yet: the
/// default it reports, `PodInitializing` instead of `ContainerCreating` when
/// the pod has init containers (`convertToAPIContainerStatuses`,
/// pkg/kubelet/kubelet_pods.go). Until the pod has a sandbox every container
/// reads so, init containers too.
const NOT_CREATED_REASONS: &[&str] = &["ContainerCreating", "PodInitializing"];

/// Whether the pod waits for its containers to be created: no status yet, the
/// container its start waits on (its first unfinished init container, else an
/// app container) not created, or an app container being created again.
/// App containers that read `PodInitializing` while an init container runs
/// are waiting for it, not being created.
fn is_creating(pod: &Pod) -> bool {
    let not_created = |s: &ContainerStatus| {
        s.state.waiting.as_ref().is_some_and(|w| {
            w.reason.is_empty() || NOT_CREATED_REASONS.contains(&w.reason.as_str())
        })
    };
    if pod.status.phase == PodPhase::Pending && pod.status.container_statuses().is_empty() {
        return pod
            .pending_init_container()
            .is_none_or(|(_, s)| not_created(s));
    }
    match pod.pending_init_container() {
        Some((_, s)) => not_created(s),
        None => pod.status.container_statuses().iter().any(not_created),
    }
}

fn diagnose_pod(input: &Input<'_>, pod: &Pod, out: &mut Vec<Finding>) {
    if !on_its_node(pod) {
        return;
    }
    let creating = is_creating(pod);
    if !creating && !has_waiting_container(pod) {
        return;
    }
    // Events are looked up only for pods with something to explain.
    let events = events_of(input.cluster, pod);
    for (kind, status) in pod.container_statuses() {
        let Some(waiting) = &status.state.waiting else {
            continue;
        };
        let reason = waiting.reason.as_str();
        let container_events: Vec<&Event> = events
            .iter()
            .copied()
            .filter(|e| e.regarding.field_path == kind.field_path(&status.name))
            .collect();
        let stuck = Stuck {
            pod,
            kind,
            status,
            waiting,
            events: &container_events,
        };
        let found = match reason {
            _ if IMAGE_PULL_REASONS.contains(&reason) => Some(image_pull(&stuck)),
            "CrashLoopBackOff" => Some(crash_loop(&stuck)),
            _ if CONFIG_REASONS.contains(&reason) => Some(container_config(&stuck)),
            _ => None,
        };
        out.extend(found);
    }
    if creating {
        out.extend(container_creating(pod, &events, &input.now, input.settings));
    }
}

fn container_creating(
    pod: &Pod,
    events: &[&Event],
    now: &Moment,
    settings: &Settings,
) -> Option<Finding> {
    let since = on_node_since(pod);
    let explained = events
        .iter()
        .rev()
        .find_map(|e| classify::creating_event(&e.reason, &e.message).map(|cause| (cause, *e)));
    let (cause, message, since) = match explained {
        Some((cause, event)) => (
            cause,
            Message::from(&event.message),
            since.or(event.first_seen),
        ),
        None => {
            let since = since?;
            if !now.waited(since, settings.creating_after) {
                return None;
            }
            (
                CreatingCause::Unknown,
                Message::from(format!(
                    "containers still being created {} after the pod reached its node",
                    now.age_of(since)
                )),
                Some(since),
            )
        }
    };
    Some(pod_finding(
        pod,
        None,
        Cause::ContainerCreating(cause),
        since,
        message,
        Detail::None,
    ))
}

/// A container that waits, in its pod, with the events about it: what the
/// container diagnoses judge.
struct Stuck<'a> {
    pod: &'a Pod,
    kind: ContainerKind,
    status: &'a ContainerStatus,
    waiting: &'a Waiting,
    events: &'a [&'a Event],
}

impl Stuck<'_> {
    /// The finding about this container.
    fn finding(
        &self,
        cause: Cause,
        since: Option<Time>,
        message: impl Into<Message>,
        detail: Detail,
    ) -> Finding {
        let container = Some((self.kind, self.status.name.as_str()));
        pod_finding(self.pod, container, cause, since, message, detail)
    }
}

fn image_pull(c: &Stuck) -> Finding {
    let Stuck {
        pod,
        status,
        waiting,
        events,
        ..
    } = *c;
    let pull_failures: Vec<&Event> = events
        .iter()
        .copied()
        .filter(|e| classify::is_pull_failure_event(&e.reason, &e.message))
        .collect();
    let waited = Quote::Pod(&waiting.message);
    let (cause, message) = match waiting.reason.as_str() {
        "InvalidImageName" => (ImagePullCause::InvalidName, waited.message()),
        "ErrImageNeverPull" => (ImagePullCause::NeverPull, waited.message()),
        "ImageInspectError" => {
            let mut candidates = vec![waited];
            candidates.extend(pull_failures.last().map(|e| Quote::Event(&e.message)));
            (ImagePullCause::InspectError, first_non_empty(&candidates))
        }
        _ => {
            // The ErrImagePull message, then the latest Failed event, then the
            // waiting message (newer kubelets append the error to the back-off).
            let mut candidates: Vec<Quote> = Vec::new();
            if waiting.reason == "ErrImagePull" {
                candidates.push(waited);
            }
            candidates.extend(pull_failures.iter().rev().map(|e| Quote::Event(&e.message)));
            candidates.push(waited);
            candidates
                .iter()
                .find_map(|q| classify::image_pull(q.text()).map(|c| (c, q.message())))
                .unwrap_or_else(|| (ImagePullCause::Unknown, first_non_empty(&candidates)))
        }
    };
    let image = status.image.clone();
    c.finding(
        Cause::ImagePull(cause),
        first_seen(&pull_failures).or_else(|| on_node_since(pod)),
        message,
        Detail::ImagePull(Box::new(ImagePullDetail {
            registry: Name::interned(&registry_host(&image)),
            image,
            waiting_reason: waiting.reason.clone(),
        })),
    )
}

/// Text a finding may quote: the pod's own, copied, or an event's, shared
/// with the event store.
#[derive(Clone, Copy)]
enum Quote<'a> {
    Pod(&'a str),
    Event(&'a Arc<str>),
}

impl Quote<'_> {
    fn text(&self) -> &str {
        match self {
            Quote::Pod(text) => text,
            Quote::Event(text) => text,
        }
    }

    fn message(&self) -> Message {
        match self {
            Quote::Pod(text) => Message::from(*text),
            Quote::Event(text) => Message::from(*text),
        }
    }
}

fn first_non_empty(quotes: &[Quote]) -> Message {
    quotes
        .iter()
        .find(|q| !q.text().is_empty())
        .map_or_else(Message::default, Quote::message)
}

fn crash_loop(c: &Stuck) -> Finding {
    let Stuck {
        pod,
        kind,
        status,
        waiting,
        events,
    } = *c;
    let last: Option<&Terminated> = status
        .last_state
        .terminated
        .as_deref()
        .or(status.state.terminated.as_deref());
    let mut cause = last.map_or(CrashLoopCause::Unknown, |t| {
        classify::last_termination(&t.reason, t.exit_code, &t.message)
    });
    let mut message = Message::from(match last {
        Some(t) if !t.message.is_empty() => t.message.clone(),
        Some(t) => format!("last terminated: {} (exit code {})", t.reason, t.exit_code),
        None => waiting.message.clone(),
    });
    let mut probe_failure = None;
    // An init container runs once, before the app: one that crash-loops
    // beside app containers that run was re-run after its exited container
    // was removed (kubernetes/kubernetes#67261), whatever its exit says.
    if kind == ContainerKind::Init
        && pod
            .status
            .container_statuses()
            .iter()
            .any(|s| s.state.running.is_some())
    {
        cause = CrashLoopCause::InitRerun;
    }
    // An OOM kill is the kernel's word and outranks a probe failing meanwhile.
    if cause != CrashLoopCause::OomKilled
        && cause != CrashLoopCause::InitRerun
        && let Some(kill) = probe_kill(last, events)
    {
        cause = kill.cause;
        probe_failure = kill.failure;
        message = kill.message;
    }
    let back_offs = with_reason(events, "BackOff");
    c.finding(
        Cause::CrashLoop(cause),
        first_seen(&back_offs).or(last.and_then(|t| t.finished_at)),
        message,
        Detail::CrashLoop {
            exit_code: last.map(|t| t.exit_code),
            restarts: status.restart_count,
            probe_failure,
        },
    )
}

/// A restart the kubelet caused by a failed probe.
struct ProbeKill {
    cause: CrashLoopCause,
    failure: Option<ProbeFailure>,
    message: Message,
}

/// Events this close around the last run still count as about it: event
/// times have a second's precision and the kubelet records the kill before
/// the runtime reports the exit.
const EVENT_SLACK: jiff::SignedDuration = jiff::SignedDuration::from_secs(30);

/// The liveness or startup probe that killed the container's last run: a
/// `Killing` event naming the probe, or `Unhealthy` events of that probe seen
/// during the run (from its start to its end). An exit code alone (137, 143)
/// says only that a signal ended it.
fn probe_kill(last: Option<&Terminated>, events: &[&Event]) -> Option<ProbeKill> {
    let during_last_run = |e: &Event| {
        let started = last.and_then(|t| t.started_at);
        let finished = last.and_then(|t| t.finished_at);
        let after_start = match (started, e.last_seen) {
            (Some(s), Some(seen)) => seen >= s.checked_sub(EVENT_SLACK).unwrap_or(s),
            _ => true,
        };
        let before_end = match (finished, e.first_seen) {
            (Some(f), Some(seen)) => seen <= f.checked_add(EVENT_SLACK).unwrap_or(f),
            _ => true,
        };
        after_start && before_end
    };
    let killed_by = events
        .iter()
        .rev()
        .filter(|e| during_last_run(e))
        .find_map(|e| classify::probe_kill(&e.reason, &e.message));
    let failed = events
        .iter()
        .rev()
        .filter(|e| during_last_run(e))
        .filter_map(|e| classify::probe_event(&e.reason, &e.message).map(|r| (r, *e)))
        .find(|(r, _)| match killed_by {
            Some(kind) => r.probe == kind,
            None => matches!(r.probe, ProbeKind::Liveness | ProbeKind::Startup),
        });
    let probe = killed_by.or(failed.as_ref().map(|(r, _)| r.probe))?;
    let cause = match probe {
        ProbeKind::Startup => CrashLoopCause::StartupProbe,
        _ => CrashLoopCause::LivenessProbe,
    };
    let message = match &failed {
        Some((_, event)) => Message::from(&event.message),
        None => events
            .iter()
            .rev()
            .find(|e| classify::probe_kill(&e.reason, &e.message).is_some())
            .map(|e| Message::from(&e.message))
            .unwrap_or_default(),
    };
    Some(ProbeKill {
        cause,
        failure: failed.map(|(r, _)| r.failure),
        message,
    })
}

fn container_config(c: &Stuck) -> Finding {
    let waiting = c.waiting;
    let failures = with_reason(c.events, "Failed");
    let cause = classify::container_config(&waiting.message).unwrap_or(ConfigCause::Other);
    c.finding(
        Cause::ContainerConfig(cause),
        first_seen(&failures).or_else(|| on_node_since(c.pod)),
        waiting.message.clone(),
        Detail::ContainerConfig {
            waiting_reason: waiting.reason.clone(),
        },
    )
}

/// The events of `events` with this `reason`.
fn with_reason<'a>(events: &[&'a Event], reason: &str) -> Vec<&'a Event> {
    events
        .iter()
        .copied()
        .filter(|e| e.reason == reason)
        .collect()
}
