//! The closed vocabularies: anomalies and, per anomaly, the causes it can have.
//! Every value here is a Prometheus label value and is documented in
//! `docs/causes.md` (a test keeps the two in step). Nothing outside these lists
//! ever becomes a `cause` or `reason` label.

use std::fmt;

use super::runbook::Runbook;

/// `Some(Runbook::X)` for a value declared `=> X`, else `None`.
macro_rules! own_runbook {
    () => {
        None
    };
    ($runbook:ident) => {
        Some(Runbook::$runbook)
    };
}

/// Declares a closed vocabulary: an enum whose `as_str()` is its label value,
/// whose `description()` is the line `docs/causes.md` carries for it, and, for
/// a vocabulary of causes, whose `runbook()` is the alert a value raises when
/// it is not its anomaly's (`=> Runbook`).
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $variant:ident = $label:literal $( => $runbook:ident )? : $description:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $variant, )+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$( $name::$variant, )+];

            /// The label value.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $label, )+
                }
            }

            /// One line saying what the value means.
            pub fn description(self) -> &'static str {
                match self {
                    $( $name::$variant => $description, )+
                }
            }

            /// The alert this value raises when it is not its anomaly's.
            #[allow(dead_code)]
            pub(crate) fn runbook(self) -> Option<Runbook> {
                match self {
                    $( $name::$variant => own_runbook!($($runbook)?), )+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

/// Declares the anomalies, once each: its label, the vocabulary of its causes,
/// the alert its findings raise unless a cause names another, and what it
/// means. [`Anomaly`], [`Cause`] and every lookup between them and their
/// labels are derived from this list.
macro_rules! anomalies {
    (
        $( $variant:ident = $label:literal ($causes:ident) => $runbook:ident : $description:literal, )+
    ) => {
        vocabulary! {
            /// The kinds of trouble the diagnosis recognises.
            pub enum Anomaly {
                $( $variant = $label : $description, )+
            }
        }

        impl Anomaly {
            /// The alert its findings raise, unless their cause names another.
            fn default_runbook(self) -> Runbook {
                match self {
                    $( Anomaly::$variant => Runbook::$runbook, )+
                }
            }

            /// Every cause label it can carry, with its description.
            pub fn causes(self) -> Vec<Cause> {
                match self {
                    $( Anomaly::$variant => $causes::ALL.iter().map(|c| Cause::$variant(*c)).collect(), )+
                }
            }
        }

        /// A finding's cause, tied to its anomaly by construction.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Cause {
            $( $variant($causes), )+
        }

        impl Cause {
            pub fn anomaly(self) -> Anomaly {
                match self {
                    $( Cause::$variant(_) => Anomaly::$variant, )+
                }
            }

            pub fn as_str(self) -> &'static str {
                match self {
                    $( Cause::$variant(c) => c.as_str(), )+
                }
            }

            pub fn description(self) -> &'static str {
                match self {
                    $( Cause::$variant(c) => c.description(), )+
                }
            }

            /// The alert a finding with this cause raises (after its `for:`),
            /// which is also where its runbook is.
            pub fn runbook(self) -> Runbook {
                let own = match self {
                    $( Cause::$variant(c) => c.runbook(), )+
                };
                own.unwrap_or(self.anomaly().default_runbook())
            }
        }
    };
}

anomalies! {
    PodTerminating = "pod_terminating" (TerminatingCause) => PodTerminatingStuck : "A pod has a deletionTimestamp and is still there.",
    RecreateBlocked = "recreate_blocked" (BlockingCause) => DeploymentRecreateBlocked : "A Deployment that waits for its old pods to be gone (strategy Recreate, or podReplacementPolicy TerminationComplete) creates no new pods because pods of its old ReplicaSets are not gone.",
    StatefulSetBlocked = "statefulset_blocked" (BlockingCause) => StatefulSetPodStuck : "A StatefulSet cannot recreate an ordinal because that ordinal's pod is stuck Terminating.",
    JobBlocked = "job_blocked" (BlockingCause) => JobBlockedByTerminating : "A Job waits for a Terminating pod: with podReplacementPolicy Failed (required by a podFailurePolicy) it creates no replacement until the pod is gone, and a Job whose outcome is decided (FailureTarget, SuccessCriteriaMet) is not Failed or Complete until its pods are.",
    NamespaceTerminating = "namespace_terminating" (NamespaceCause) => NamespaceTerminatingContent : "A namespace is Terminating.",
    PodPending = "pod_pending" (PendingCause) => PodUnschedulable : "A pod is not bound to a node.",
    ContainerCreating = "container_creating" (CreatingCause) => PodContainerCreatingStuck : "A scheduled pod's containers are still being created (reported as ContainerCreating, or PodInitializing when the pod has init containers).",
    InitContainerRunning = "init_container_running" (InitCause) => InitContainerStuck : "A pod's start has waited longer than --init-after (10 minutes by default) on an init container that runs and does not finish, or on a native sidecar that runs and does not start.",
    ImagePull = "image_pull" (ImagePullCause) => ContainerImagePullFailing : "A container's image cannot be pulled or inspected.",
    CrashLoop = "crash_loop" (CrashLoopCause) => ContainerCrashLooping : "A container is in CrashLoopBackOff.",
    ContainerConfig = "container_config" (ConfigCause) => ContainerConfigError : "A container cannot be created or started because of its configuration.",
    DaemonSetUnscheduled = "daemonset_unscheduled" (DaemonSetCause) => DaemonSetUnscheduled : "A DaemonSet runs on fewer nodes than it should.",
    PodCreateRefused = "pod_create_refused" (RefusalCause) => PodCreateRefused : "A ReplicaSet, StatefulSet, DaemonSet, Job or ReplicationController has fewer pods than it wants and the API server refuses the ones it tries to create (its FailedCreate event or ReplicaFailure condition).",
    PodNotReady = "pod_not_ready" (NotReadyCause) => PodNotReady : "A Running pod, not being deleted, has been not Ready longer than --not-ready-after (10 minutes by default) and no container of it is in CrashLoopBackOff (that is a `crash_loop` finding).",
    PodEvicted = "pod_evicted" (EvictionCause) => PodEvictions : "A pod the kubelet evicted or refused to admit, or that a controller disrupted (preemption, taint eviction, node shutdown), still exists in phase Failed.",
    PodStuck = "pod_stuck" (StuckCause) => PodStuckUnexplained : "A pod Pending, not Ready or not initialized past its threshold (--unscheduled-after, --creating-after, --init-after, --not-ready-after) that no other anomaly explains: never \"nothing is stuck\" when something is.",
}

vocabulary! {
    /// Why a pod is still Terminating (anomaly `pod_terminating`).
    pub enum TerminatingCause {
        Graceful = "graceful": "Before the deadline (deletionTimestamp): the grace period is still running; normal.",
        NodeNotReady = "node_not_ready" => PodTerminatingNodeLost: "Past the deadline and the pod's node is Ready=False or Unknown: no kubelet confirms the containers stopped.",
        NodeMissing = "node_missing" => PodTerminatingNodeLost: "Past the deadline and the pod's nodeName is not among the nodes: nothing will ever confirm the pod stopped.",
        Finalizers = "finalizers" => PodTerminatingFinalizers: "Past the deadline, containers gone, and metadata.finalizers is not empty: a controller has not removed its finalizer.",
        ContainersRunning = "containers_running" => PodTerminatingContainersRunning: "Past the deadline with a container still running (or a kill that failed): the runtime does not stop it.",
        CleanupPending = "cleanup_pending" => PodTerminatingCleanupStuck: "Past the deadline, no container running, no finalizer: the kubelet has not reclaimed the pod's volumes or cgroups (an unmount that fails, a busy device).",
        Unknown = "unknown": "Past the deadline for none of the reasons above (for instance a pod never bound to a node).",
    }
}

vocabulary! {
    /// Why the pod that blocks a workload is not gone
    /// (anomalies `recreate_blocked` and `statefulset_blocked`).
    pub enum BlockingCause {
        Graceful = "graceful": "The blocking pod is Terminating within its grace period; a rollout in progress.",
        NodeNotReady = "node_not_ready": "The blocking pod's node is Ready=False or Unknown.",
        NodeMissing = "node_missing": "The blocking pod's node no longer exists.",
        Finalizers = "finalizers": "The blocking pod is held by finalizers.",
        ContainersRunning = "containers_running": "The blocking pod's containers do not stop.",
        CleanupPending = "cleanup_pending": "The blocking pod's containers stopped but the kubelet has not finished cleaning up.",
        Unknown = "unknown": "The blocking pod is Terminating past its deadline for no reason found.",
        NotDeleted = "not_deleted": "The blocking pod belongs to a ReplicaSet scaled to zero but has not been deleted yet.",
    }
}

impl From<TerminatingCause> for BlockingCause {
    fn from(cause: TerminatingCause) -> Self {
        match cause {
            TerminatingCause::Graceful => BlockingCause::Graceful,
            TerminatingCause::NodeNotReady => BlockingCause::NodeNotReady,
            TerminatingCause::NodeMissing => BlockingCause::NodeMissing,
            TerminatingCause::Finalizers => BlockingCause::Finalizers,
            TerminatingCause::ContainersRunning => BlockingCause::ContainersRunning,
            TerminatingCause::CleanupPending => BlockingCause::CleanupPending,
            TerminatingCause::Unknown => BlockingCause::Unknown,
        }
    }
}

vocabulary! {
    /// Why a namespace is still Terminating (anomaly `namespace_terminating`),
    /// from the namespace controller's conditions.
    pub enum NamespaceCause {
        DiscoveryFailed = "discovery_failed" => NamespaceTerminatingDiscoveryFailed: "NamespaceDeletionDiscoveryFailure: an aggregated API (often metrics.k8s.io) does not answer, so the controller cannot list what to delete.",
        GroupVersionParsingFailed = "group_version_parsing_failed" => NamespaceTerminatingDiscoveryFailed: "NamespaceDeletionGroupVersionParsingFailure: an API group version could not be parsed.",
        ContentDeletionFailed = "content_deletion_failed": "NamespaceDeletionContentFailure: deleting some content failed.",
        FinalizersRemaining = "finalizers_remaining" => NamespaceTerminatingFinalizers: "NamespaceFinalizersRemaining: objects in the namespace carry finalizers nobody removes.",
        ContentRemaining = "content_remaining": "NamespaceContentRemaining: objects are still being deleted.",
        NamespaceFinalizer = "namespace_finalizer" => NamespaceTerminatingFinalizers: "The namespace is empty but spec.finalizers is not (the `kubernetes` finalizer or a third party's).",
        PodsTerminating = "pods_terminating": "The namespace waits for pods stuck Terminating past their deadline (namespace deletion deletes pods first, 1.33+, and cannot finish before they are gone); the pods, their nodes and their causes are named. A pod on a lost node is covered by that node's alert.",
        Unknown = "unknown": "Terminating with no condition that explains it yet.",
    }
}

vocabulary! {
    /// Why a pod is Pending (anomaly `pod_pending`). All but the last three are
    /// scheduler reasons, parsed from the PodScheduled condition with the number
    /// of nodes each excluded; the finding's cause is the reason with most nodes.
    pub enum PendingCause {
        InsufficientCpu = "insufficient_cpu": "Insufficient cpu.",
        InsufficientMemory = "insufficient_memory": "Insufficient memory.",
        InsufficientPods = "insufficient_pods": "Insufficient pods: the node runs its maximum (kubelet --max-pods, 110 by default).",
        InsufficientEphemeralStorage = "insufficient_ephemeral_storage": "Insufficient ephemeral-storage.",
        InsufficientOther = "insufficient_other": "Insufficient of an extended resource (nvidia.com/gpu, hugepages, ...).",
        NodeAffinity = "node_affinity": "The node did not match the pod's nodeSelector or node affinity.",
        PodAffinity = "pod_affinity": "The node did not match the pod's pod affinity rules.",
        PodAntiAffinity = "pod_anti_affinity": "The node did not match the pod's anti-affinity rules, or existing pods' anti-affinity.",
        Taint = "taint": "The node had a taint the pod does not tolerate.",
        NodeUnschedulable = "node_unschedulable": "The node is cordoned (spec.unschedulable).",
        NodeNotReady = "node_not_ready": "The node is not ready or unreachable (its kubelet does not report, or reports it not ready).",
        NodeDiskPressure = "node_disk_pressure" => NodesUnderPressure: "The node is Ready but low on disk (DiskPressure: nodefs or imagefs below the kubelet's eviction threshold, or out of inodes); it carries the node.kubernetes.io/disk-pressure taint and admits no new pod.",
        NodeMemoryPressure = "node_memory_pressure" => NodesUnderPressure: "The node is Ready but low on memory (MemoryPressure: memory.available below the kubelet's eviction threshold); it carries the node.kubernetes.io/memory-pressure taint and admits no BestEffort pod.",
        NodePidPressure = "node_pid_pressure" => NodesUnderPressure: "The node is Ready but low on process ids (PIDPressure: pid.available below the kubelet's eviction threshold); it carries the node.kubernetes.io/pid-pressure taint.",
        HostPort = "host_port": "The node had no free port for the pod's hostPort.",
        VolumeBinding = "volume_binding": "The pod's PersistentVolumeClaims are unbound or no volume can be bound.",
        VolumeZone = "volume_zone": "The pod's volumes are bound to another zone or node (volume node affinity conflict).",
        PvcNotFound = "pvc_not_found": "A PersistentVolumeClaim the pod uses does not exist.",
        TopologySpread = "topology_spread": "The node did not satisfy the pod's topology spread constraints.",
        TooManyVolumes = "too_many_volumes": "The node exceeds its maximum attachable volume count.",
        Other = "other": "A scheduler reason not in this list (the message is kept).",
        NotScheduled = "not_scheduled" => SchedulerNotScheduling: "No PodScheduled condition and no node long after creation, though the pod names a scheduler the cluster uses (default-scheduler, or one that bound other pods): that scheduler is not working.",
        UnknownScheduler = "unknown_scheduler" => PodSchedulerUnknown: "No PodScheduled condition and no node long after creation, and spec.schedulerName names a scheduler nothing in the cluster serves (not default-scheduler, no pod bound by it): a typo, or a scheduler not installed.",
        SchedulingGated = "scheduling_gated": "Held by spec.schedulingGates on purpose; informational, not alerted on.",
    }
}

vocabulary! {
    /// Why a scheduled pod's containers are stuck in ContainerCreating
    /// (anomaly `container_creating`), from the pod's warning events.
    pub enum CreatingCause {
        SandboxImagePull = "sandbox_image_pull" => PodSandboxFailingOnNode: "The pod sandbox (pause) image cannot be pulled.",
        Cni = "cni" => PodSandboxFailingOnNode: "The network plugin fails to set up the pod's network.",
        SandboxOther = "sandbox_other" => PodSandboxFailingOnNode: "Creating the pod sandbox fails for another reason.",
        MountConfigmapMissing = "mount_configmap_missing": "A ConfigMap volume's ConfigMap does not exist.",
        MountSecretMissing = "mount_secret_missing": "A Secret volume's Secret does not exist.",
        MountTimeout = "mount_timeout": "Volumes did not attach or mount in time.",
        MountFailed = "mount_failed": "Mounting a volume failed (NFS, CSI, ...) for a reason other than a missing ConfigMap or Secret.",
        AttachFailed = "attach_failed": "Attaching a volume to the node failed.",
        MultiAttach = "multi_attach": "A ReadWriteOnce volume is still attached to another node.",
        Unknown = "unknown": "Still creating long after scheduling, with no warning event that explains it.",
    }
}

vocabulary! {
    /// What holds a pod's start in its init containers (anomaly
    /// `init_container_running`).
    pub enum InitCause {
        Running = "running": "An init container has run longer than --init-after without exiting: a wait-for loop on a Service, DNS name or port that never answers, a migration waiting for a lock, a download that hangs. The containers after it wait.",
        SidecarStartupProbe = "sidecar_startup_probe": "A native sidecar (an init container with restartPolicy Always) runs but its startup probe keeps failing (Unhealthy events \"Startup probe failed\"), so it never counts as started and the init containers after it and the app wait.",
        SidecarNotStarted = "sidecar_not_started": "A native sidecar runs but has not started and no startup probe failure is reported: a postStart hook that does not return, or probe events that aged out.",
    }
}

vocabulary! {
    /// A pod stuck for a reason no other anomaly names (anomaly `pod_stuck`).
    pub enum StuckCause {
        Unknown = "unknown": "No anomaly explains the pod: its phase, conditions and last warning events are in the finding.",
    }
}

vocabulary! {
    /// Why a container's image is not there (anomaly `image_pull`). For
    /// ImagePullBackOff the cause comes from the kubelet's `Failed` event, as the
    /// back-off message itself carries none.
    pub enum ImagePullCause {
        NotFound = "not_found" => ImagePullNotFound: "The image or tag does not exist (or the repository is private and says so).",
        Unauthorized = "unauthorized" => ImagePullUnauthorized: "The registry refused the credentials, or none were given (imagePullSecrets).",
        Tls = "tls" => ImagePullRegistryUnreachable: "The registry's certificate is not trusted (self-signed, unknown authority, wrong name).",
        HttpToHttps = "http_to_https" => ImagePullRegistryUnreachable: "The registry speaks plain HTTP and the runtime expects HTTPS (insecure registry not configured).",
        QpsExceeded = "qps_exceeded" => ImagePullRateLimited: "The kubelet's own pull limit (registryPullQPS / --registry-qps) was hit.",
        RateLimited = "rate_limited" => ImagePullRateLimited: "The registry rate-limits pulls (HTTP 429, toomanyrequests).",
        Corrupt = "corrupt" => ImagePullNodeImageStore: "The image data is damaged (unknown blob, digest or size mismatch, failed layer extraction).",
        Timeout = "timeout" => ImagePullRegistryUnreachable: "The pull timed out.",
        Dns = "dns" => ImagePullRegistryUnreachable: "The registry host name does not resolve.",
        ConnectionRefused = "connection_refused" => ImagePullRegistryUnreachable: "The registry is unreachable (connection refused, no route).",
        NoSpace = "no_space" => ImagePullNodeImageStore: "The node has no disk space left for the image.",
        PlatformMismatch = "platform_mismatch" => ImagePullNotFound: "The image has no variant for the node's OS/architecture.",
        InvalidName = "invalid_name" => ImagePullNotFound: "InvalidImageName: the image reference cannot be parsed.",
        NeverPull = "never_pull" => ImagePullNotFound: "ErrImageNeverPull: imagePullPolicy Never and the image is not on the node.",
        InspectError = "inspect_error" => ImagePullNodeImageStore: "ImageInspectError: the runtime cannot inspect the image on the node (often a damaged local image store).",
        Unknown = "unknown": "The pull fails with a message not in this list, or no message says why.",
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

vocabulary! {
    /// Why a DaemonSet covers fewer nodes than it should (anomaly `daemonset_unscheduled`).
    pub enum DaemonSetCause {
        HostPortConflict = "host_port_conflict": "Another pod already holds the DaemonSet's hostPort on the nodes it misses.",
        Unknown = "unknown": "No conflicting hostPort found.",
    }
}

vocabulary! {
    /// Why the API server refuses a controller's pods (anomaly `pod_create_refused`),
    /// from the refusal's message.
    pub enum RefusalCause {
        QuotaExceeded = "quota_exceeded" => PodCreateQuotaExceeded: "A ResourceQuota of the namespace is used up (or its usage is not known yet): the quota and the resources over it are named.",
        QuotaRequiresLimits = "quota_requires_limits": "A ResourceQuota covers a resource (limits.cpu, requests.memory...) that the pod template neither requests nor limits (\"must specify\").",
        LimitRange = "limit_range": "The pod template is above a LimitRange maximum, below its minimum, or over its limit-to-request ratio.",
        PodSecurity = "pod_security": "Pod Security admission refuses the pod at the level the namespace enforces (privileged, baseline, restricted; named).",
        PodSecurityPolicy = "pod_security_policy": "No PodSecurityPolicy admits the pod (Kubernetes before 1.25; OpenShift's SecurityContextConstraints read alike).",
        WebhookDenied = "webhook_denied": "A validating or mutating admission webhook (or a ValidatingAdmissionPolicy) refused the pod; it is named.",
        WebhookUnreachable = "webhook_unreachable" => AdmissionWebhookUnreachable: "The API server could not call an admission webhook that fails closed (timeout, connection refused, no endpoints, missing service, certificate, an error answer): every pod it covers, in every namespace, is refused; it is named.",
        ServiceAccountMissing = "service_account_missing": "The ServiceAccount the pod template names does not exist (or, before 1.24, has no token yet).",
        NamespaceTerminating = "namespace_terminating": "The namespace is being deleted: it admits no new content.",
        InvalidSpec = "invalid_spec": "Validation rejects the pod template (Pod \"x\" is invalid: ...).",
        Other = "other": "Another refusal or error of the API server (the message is kept).",
    }
}

vocabulary! {
    /// Why a Running pod is not Ready (anomaly `pod_not_ready`).
    pub enum NotReadyCause {
        ReadinessProbe = "readiness_probe": "A container's readiness probe fails (`Unhealthy` events \"Readiness probe failed\").",
        ContainersNotReady = "containers_not_ready": "Ready=False with reason ContainersNotReady and no readiness probe failure reported: a container is not running or not ready for another reason (it may have no probe event yet, or events aged out).",
        ReadinessGate = "readiness_gate": "The containers are ready but a readiness gate's condition (spec.readinessGates) is False or missing (reason ReadinessGatesNotReady): the controller that should set it (a load balancer controller, ...) has not.",
        Unknown = "unknown": "Not Ready for none of the reasons above (for instance a Ready condition with no reason).",
    }
}

vocabulary! {
    /// What a failing probe's own message says (label `probe_failure` of
    /// `crash_loop` findings caused by a probe and of `pod_not_ready`).
    pub enum ProbeFailure {
        HttpStatus = "http_status": "An HTTP probe got an answer outside 200-399 (\"HTTP probe failed with statuscode: 503\").",
        ConnectionRefused = "connection_refused": "Nothing accepted, or the peer dropped, the probe's connection: connection refused, reset by peer, no route to host, EOF.",
        Timeout = "timeout": "The probe timed out: an HTTP client timeout, a dial i/o timeout, an exec command that timed out, a gRPC health check that did not complete in time.",
        ExecFailed = "exec_failed": "An exec probe's command failed: it exited non-zero (its output is the message) or could not be run in the container.",
        Grpc = "grpc": "A gRPC health check answered NOT_SERVING, or failed with a gRPC status code (Unimplemented, Unavailable, ...).",
        Other = "other": "A probe error not in this list (DNS, TLS, redirects, ...; the message is kept).",
    }
}

vocabulary! {
    /// Why a pod was evicted or rejected (anomaly `pod_evicted`), from its
    /// status reason and message and its DisruptionTarget condition.
    pub enum EvictionCause {
        MemoryPressure = "memory_pressure": "The kubelet evicted the pod because the node was low on memory (\"The node was low on resource: memory\"); the container using most is named when the message says.",
        EphemeralStorageLimit = "ephemeral_storage_limit": "The pod, a container or an emptyDir volume used more local ephemeral storage than its limit.",
        DiskPressure = "disk_pressure": "The kubelet evicted the pod because the node was low on disk (nodefs, imagefs, ephemeral-storage, inodes), or refused it under DiskPressure.",
        PidPressure = "pid_pressure": "The kubelet evicted the pod because the node was low on process ids.",
        Preempted = "preempted": "The scheduler (or the kubelet, for a critical pod) preempted the pod for one of higher priority.",
        TaintEviction = "taint_eviction": "The taint manager deleted the pod for a NoExecute taint it does not tolerate (a node not ready or unreachable, ...).",
        NodeShutdown = "node_shutdown": "The kubelet terminated the pod because its node was shutting down (graceful node shutdown).",
        AdmissionOutOfResource = "admission_out_of_resource": "The kubelet refused to run the pod: the node had not enough of a resource (OutOfcpu, OutOfmemory, OutOfpods, OutOfephemeral-storage, OutOf<extended resource>).",
        AdmissionNodeAffinity = "admission_node_affinity": "The kubelet refused to run the pod: the node no longer matches its node selector or affinity (NodeAffinity, MatchNodeSelector).",
        AdmissionOther = "admission_other": "The kubelet refused to run the pod for another reason (UnexpectedAdmissionError, device or topology allocation, node ports, sysctls, ...).",
        Other = "other": "Evicted or disrupted for another reason (the Eviction API, pod garbage collection, ...; the message is kept).",
    }
}

impl Cause {
    /// The cause with these label values (`anomaly`, `cause`), if the vocabulary has it.
    pub fn from_labels(anomaly: &str, cause: &str) -> Option<Cause> {
        let anomaly = Anomaly::ALL.iter().find(|a| a.as_str() == anomaly)?;
        anomaly.causes().into_iter().find(|c| c.as_str() == cause)
    }

    /// Every cause label an anomaly can carry, with its description.
    pub fn vocabulary(anomaly: Anomaly) -> Vec<(&'static str, &'static str)> {
        anomaly
            .causes()
            .into_iter()
            .map(|c| (c.as_str(), c.description()))
            .collect()
    }

    /// Every cause of every anomaly.
    pub fn all() -> impl Iterator<Item = Cause> {
        Anomaly::ALL.iter().flat_map(|a| a.causes())
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Cause {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The vocabulary as markdown: one table per anomaly (kept in `docs/causes.md`).
#[cfg(test)]
pub(crate) fn markdown_tables() -> String {
    let mut out = String::new();
    for anomaly in Anomaly::ALL {
        out.push_str(&format!("### `{anomaly}`\n\n{}\n\n", anomaly.description()));
        out.push_str("| cause | meaning |\n|---|---|\n");
        for (value, description) in Cause::vocabulary(*anomaly) {
            out.push_str(&format!("| `{value}` | {description} |\n"));
        }
        out.push('\n');
    }
    out.push_str("### label `probe_failure`\n\nWhat a failing probe's message says, on `crash_loop` findings caused by a probe and on `pod_not_ready` findings with probe evidence.\n\n| probe_failure | meaning |\n|---|---|\n");
    for value in ProbeFailure::ALL {
        out.push_str(&format!("| `{value}` | {} |\n", value.description()));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Label values must be valid, stable, snake_case and unique per anomaly.
    #[test]
    fn every_vocabulary_is_snake_case_and_unique() {
        for anomaly in Anomaly::ALL {
            let values = Cause::vocabulary(*anomaly);
            let mut seen = std::collections::BTreeSet::new();
            for (value, description) in &values {
                assert!(
                    value.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                    "{value}"
                );
                assert!(!description.is_empty());
                assert!(seen.insert(*value), "duplicate {value} in {anomaly}");
            }
        }
    }

    /// Every cause is found again from its label values, and nothing else is.
    #[test]
    fn causes_are_found_from_their_labels() {
        for anomaly in Anomaly::ALL {
            for (value, _) in Cause::vocabulary(*anomaly) {
                let cause = Cause::from_labels(anomaly.as_str(), value).unwrap();
                assert_eq!((cause.anomaly(), cause.as_str()), (*anomaly, value));
            }
        }
        assert_eq!(Cause::from_labels("pod_terminating", "oom_killed"), None);
        assert_eq!(Cause::from_labels("nope", "unknown"), None);
    }

    /// docs/causes.md carries the vocabulary tables exactly as the code defines them.
    #[test]
    fn docs_list_the_whole_vocabulary() {
        crate::doc_blocks::check("docs/causes.md", "vocabulary", &markdown_tables());
    }
}
