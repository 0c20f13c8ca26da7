//! The anomaly families, each declared once in its own module: its causes
//! (`vocabulary!`), how it diagnoses, how its findings' facts read and the
//! metric families they feed ([`Family`]). This file is the one list: the
//! anomalies with their cause vocabularies and default alerts, the alerts
//! (each with its runbook), and the families in the order the diagnosis
//! runs them (a family may read the findings of those before it:
//! [`unexplained`] runs last).
//!
//! Adding a family is adding its module and one line to each list below,
//! and the rule, runbook, example and tests CONTRIBUTING.md lists.

mod blocking;
mod claims;
mod containers;
mod cronjobs;
mod daemonsets;
mod drains;
mod evicted;
mod init_containers;
mod namespaces;
mod not_ready;
mod pending;
mod pod_finding;
mod refused;
mod resize;
mod terminating;
mod unexplained;
mod workloads;

pub use blocking::BlockingCause;
pub use claims::ClaimCause;
pub use containers::{ConfigCause, CrashLoopCause, CreatingCause, ImagePullCause};
pub use cronjobs::CronJobCause;
pub use daemonsets::DaemonSetCause;
pub use drains::DrainCause;
pub use evicted::EvictionCause;
pub use init_containers::InitCause;
pub use namespaces::NamespaceCause;
pub use not_ready::NotReadyCause;
pub use pending::PendingCause;
pub use refused::RefusalCause;
pub use resize::ResizeCause;
pub use terminating::TerminatingCause;
pub use unexplained::StuckCause;
pub use workloads::VerdictCause;

pub(crate) use claims::claims_of_pod;
pub use evicted::eviction_cause;
pub(crate) use terminating::is_lost_node;
pub use terminating::terminating_cause;

use super::family::Family;
use super::runbook::runbooks;
use super::vocabulary::anomalies;

anomalies! {
    PodTerminating = "pod_terminating" (TerminatingCause) => PodTerminatingStuck : "A pod has a deletionTimestamp and is still there.",
    RecreateBlocked = "recreate_blocked" (BlockingCause) => DeploymentRecreateBlocked : "A Deployment that waits for its old pods to be gone (strategy Recreate, or podReplacementPolicy TerminationComplete) creates no new pods because pods of its old ReplicaSets are not gone.",
    StatefulSetBlocked = "statefulset_blocked" (BlockingCause) => StatefulSetPodStuck : "A StatefulSet cannot recreate an ordinal because that ordinal's pod is stuck Terminating.",
    JobBlocked = "job_blocked" (BlockingCause) => JobBlockedByTerminating : "A Job waits for a Terminating pod: with podReplacementPolicy Failed (required by a podFailurePolicy) it creates no replacement until the pod is gone, and a Job whose outcome is decided (FailureTarget, SuccessCriteriaMet) is not Failed or Complete until its pods are.",
    NamespaceTerminating = "namespace_terminating" (NamespaceCause) => NamespaceTerminatingContent : "A namespace is Terminating.",
    PodPending = "pod_pending" (PendingCause) => PodUnschedulable : "A pod is not bound to a node.",
    ContainerCreating = "container_creating" (CreatingCause) => PodContainerCreatingStuck : "A scheduled pod's containers are still being created (reported as ContainerCreating, or PodInitializing when the pod has init containers).",
    InitContainerRunning = "init_container_running" (InitCause) => InitContainerStuck : "A pod's start has waited longer than --init-after (5 minutes by default) on an init container that runs and does not finish, or on a native sidecar that runs and does not start.",
    ImagePull = "image_pull" (ImagePullCause) => ContainerImagePullFailing : "A container's image cannot be pulled or inspected.",
    CrashLoop = "crash_loop" (CrashLoopCause) => ContainerCrashLooping : "A container is in CrashLoopBackOff.",
    ContainerConfig = "container_config" (ConfigCause) => ContainerConfigError : "A container cannot be created or started because of its configuration.",
    DaemonSetUnscheduled = "daemonset_unscheduled" (DaemonSetCause) => DaemonSetUnscheduled : "A DaemonSet runs on fewer nodes than it should.",
    PodCreateRefused = "pod_create_refused" (RefusalCause) => PodCreateRefused : "A ReplicaSet, StatefulSet, DaemonSet, Job or ReplicationController has fewer pods than it wants and the API server refuses the ones it tries to create (its FailedCreate event or ReplicaFailure condition).",
    PodNotReady = "pod_not_ready" (NotReadyCause) => PodNotReady : "A Running pod, not being deleted, has been not Ready longer than --not-ready-after (5 minutes by default) and no container of it is in CrashLoopBackOff (that is a `crash_loop` finding).",
    PodEvicted = "pod_evicted" (EvictionCause) => PodEvictions : "A pod the kubelet evicted or refused to admit, or that a controller disrupted (preemption, taint eviction, node shutdown), still exists in phase Failed.",
    PodResize = "pod_resize" (ResizeCause) => PodResizeStuck : "A pod's in-place resize (beta 1.33) is not made: the kubelet finds it infeasible on the node, defers it, or failed making it (its PodResizePending or PodResizeInProgress condition; before 1.33, status.resize).",
    RolloutStuck = "rollout_stuck" (VerdictCause) => DeploymentRolloutStuck : "A Deployment lacks available pods or its rollout does not finish, and its pods say why (the newest ReplicaSet's first; its verdict appears with theirs), or its controller does (ProgressDeadlineExceeded; pods unavailable longer than --unavailable-after, 5 minutes by default).",
    StatefulSetUpdateStuck = "statefulset_update_stuck" (VerdictCause) => StatefulSetUpdateStuck : "A StatefulSet's update is not rolled out, or its pods are not Ready, and its lowest ordinal in trouble says why; or it has been short of Ready pods longer than --unavailable-after (5 minutes by default) and no pod of it in view says why (replicas_unavailable, from its status).",
    DaemonSetRolloutStuck = "daemonset_rollout_stuck" (VerdictCause) => DaemonSetRolloutStuck : "A DaemonSet's pods are unavailable on some of its nodes, and those pods say why; or its controller keeps deleting its failed pod on a node (FailedDaemonPod: daemon_pod_failed); or it has been short longer than --unavailable-after (5 minutes by default) and no pod of it in view says why (replicas_unavailable, from its status).",
    JobFailed = "job_failed" (VerdictCause) => JobFailed : "The job controller failed a Job (its Failed or FailureTarget condition: backoff limit, deadline, pod failure policy, failed indexes); the cause is its failed pods' (how they ended), else the controller's reason. A Job retrying within its backoffLimit is not failed.",
    JobNotCompleted = "job_not_completed" (VerdictCause) => JobNotCompleted : "An active Job does not complete: its pods are stuck (their cause), its running pods' containers restart in place after runs that ended badly (restartPolicy OnFailure: oom_killed, exit_error), or it has been active longer than --job-after (11 hours by default) with nothing to show (running_long).",
    PodFailed = "pod_failed" (VerdictCause) => PodFailed : "A pod of no controller (a one-off run) ended in phase Failed; the cause is how its container ended (or its deadline). Evicted pods are pod_evicted.",
    ClaimStuck = "claim_stuck" (ClaimCause) => PersistentVolumeClaimStuck : "A PersistentVolumeClaim is Pending with its provisioner's error (or, past --claim-after, with no provisioner or volume to answer), Lost, Terminating past --claim-after held by the pods that use it or by a finalizer, or its expansion fails.",
    CronJobNotRunning = "cronjob_not_running" (CronJobCause) => CronJobNotRunning : "A CronJob, not suspended, has not run as its schedule says: a schedule time passed more than 5 minutes ago without a Job started (its controller's reason, or a prior Job still active under concurrencyPolicy Forbid, with that Job's own cause), its schedule or time zone starts nothing, or its runs keep failing since its last success.",
    NodeDrainBlocked = "node_drain_blocked" (DrainCause) => NodeDrainBlocked : "A node being drained (cordoned, or tainted by an autoscaler that drains it) for longer than --drain-after (10 minutes by default) keeps pods a drain cannot evict: held by a PodDisruptionBudget that allows no disruption, covered by two budgets, of no controller, or stuck Terminating; or an autoscaler says its drain fails.",
    PodStuck = "pod_stuck" (StuckCause) => PodStuckUnexplained : "A pod Pending, not Ready or not initialized past its threshold (--unscheduled-after, --creating-after, --init-after, --not-ready-after) that no other anomaly explains: never \"nothing is stuck\" when something is.",
}

// Every alert of `alerts/kube-lifecycle.rules.yaml`, each with one runbook
// (`docs/runbooks/<alert>.md`) and what it is about: the anomalies' default
// alerts above, the alerts some causes raise instead, and the exporter's own.
runbooks! {
    PodTerminatingStuck => "KubeLifecyclePodTerminatingStuck": Pod,
    PodTerminatingFinalizers => "KubeLifecyclePodTerminatingFinalizers": Pod,
    PodTerminatingNodeLost => "KubeLifecyclePodTerminatingNodeLost": Pod,
    NodeLost => "KubeLifecycleNodeLost": Node,
    PodTerminatingContainersRunning => "KubeLifecyclePodTerminatingContainersRunning": Pod,
    PodTerminatingCleanupStuck => "KubeLifecyclePodTerminatingCleanupStuck": Pod,
    DeploymentRecreateBlocked => "KubeLifecycleDeploymentRecreateBlocked": Workload,
    StatefulSetPodStuck => "KubeLifecycleStatefulSetPodStuck": Workload,
    JobBlockedByTerminating => "KubeLifecycleJobBlockedByTerminating": Workload,
    DeploymentRolloutStuck => "KubeLifecycleDeploymentRolloutStuck": Workload,
    StatefulSetUpdateStuck => "KubeLifecycleStatefulSetUpdateStuck": Workload,
    DaemonSetRolloutStuck => "KubeLifecycleDaemonSetRolloutStuck": Workload,
    JobFailed => "KubeLifecycleJobFailed": Workload,
    JobNotCompleted => "KubeLifecycleJobNotCompleted": Workload,
    PodFailed => "KubeLifecyclePodFailed": Pod,
    NamespaceTerminatingContent => "KubeLifecycleNamespaceTerminatingContent": Namespace,
    NamespaceTerminatingFinalizers => "KubeLifecycleNamespaceTerminatingFinalizers": Namespace,
    NamespaceTerminatingDiscoveryFailed => "KubeLifecycleNamespaceTerminatingDiscoveryFailed": Namespace,
    PodUnschedulable => "KubeLifecyclePodUnschedulable": Pod,
    SchedulerNotScheduling => "KubeLifecycleSchedulerNotScheduling": Cluster,
    PodSchedulerUnknown => "KubeLifecyclePodSchedulerUnknown": Pod,
    PodSchedulingGated => "KubeLifecyclePodSchedulingGated": Pod,
    NodesUnderPressure => "KubeLifecycleNodesUnderPressure": Node,
    PodContainerCreatingStuck => "KubeLifecyclePodContainerCreatingStuck": Pod,
    PodSandboxFailingOnNode => "KubeLifecyclePodSandboxFailingOnNode": Node,
    PodSandboxFailing => "KubeLifecyclePodSandboxFailing": Cluster,
    InitContainerStuck => "KubeLifecycleInitContainerStuck": Pod,
    ImagePullUnauthorized => "KubeLifecycleImagePullUnauthorized": Pod,
    ImagePullNotFound => "KubeLifecycleImagePullNotFound": Pod,
    ImagePullRegistryUnreachable => "KubeLifecycleImagePullRegistryUnreachable": Pod,
    ImagePullRateLimited => "KubeLifecycleImagePullRateLimited": Pod,
    ImagePullNodeImageStore => "KubeLifecycleImagePullNodeImageStore": Pod,
    ContainerImagePullFailing => "KubeLifecycleContainerImagePullFailing": Pod,
    RegistryPullFailing => "KubeLifecycleRegistryPullFailing": Registry,
    ContainerCrashLooping => "KubeLifecycleContainerCrashLooping": Pod,
    ContainerOomKilledLooping => "KubeLifecycleContainerOOMKilledLooping": Pod,
    ContainerProbeKilled => "KubeLifecycleContainerProbeKilled": Pod,
    PodNotReady => "KubeLifecyclePodNotReady": Pod,
    PodEvictions => "KubeLifecyclePodEvictions": Namespace,
    PodResizeStuck => "KubeLifecyclePodResizeStuck": Pod,
    PersistentVolumeClaimStuck => "KubeLifecyclePersistentVolumeClaimStuck": Claim,
    PodStuckUnexplained => "KubeLifecyclePodStuckUnexplained": Pod,
    ContainerConfigError => "KubeLifecycleContainerConfigError": Pod,
    DaemonSetUnscheduled => "KubeLifecycleDaemonSetUnscheduled": Workload,
    CronJobNotRunning => "KubeLifecycleCronJobNotRunning": Workload,
    NodeDrainBlocked => "KubeLifecycleNodeDrainBlocked": Node,
    AdmissionWebhookUnreachable => "KubeLifecycleAdmissionWebhookUnreachable": Cluster,
    PodCreateQuotaExceeded => "KubeLifecyclePodCreateQuotaExceeded": Workload,
    PodCreateRefused => "KubeLifecyclePodCreateRefused": Workload,
    ExporterDown => "KubeLifecycleExporterDown": Exporter,
    WatchNotSynced => "KubeLifecycleWatchNotSynced": Exporter,
    WatchErrors => "KubeLifecycleWatchErrors": Exporter,
    WatchRestarting => "KubeLifecycleWatchRestarting": Exporter,
    ExporterFoldingSeries => "KubeLifecycleExporterFoldingSeries": Exporter,
    ExplainedByRootCause => "KubeLifecycleExplainedByRootCause": Victims,
}

/// Every family, in the order the diagnosis runs them and their metric
/// families are exposed.
pub const FAMILIES: &[Family] = &[
    terminating::FAMILY,
    blocking::FAMILY,
    namespaces::FAMILY,
    pending::FAMILY,
    containers::FAMILY,
    init_containers::FAMILY,
    daemonsets::FAMILY,
    refused::FAMILY,
    not_ready::FAMILY,
    evicted::FAMILY,
    resize::FAMILY,
    claims::FAMILY,
    workloads::FAMILY,
    cronjobs::FAMILY,
    drains::FAMILY,
    unexplained::FAMILY,
];
