//! Which alert, and so which runbook, a finding belongs to.
//!
//! Runbooks live in `docs/runbooks/<Alert>.md`; an online copy is addressed as
//! `<base>/<alert in lower case>`, as kube-prometheus addresses its runbooks.

use super::causes::{Cause, CrashLoopCause, NamespaceCause, PendingCause, TerminatingCause};

/// Alert names; each has exactly one runbook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Runbook {
    PodTerminatingStuck,
    PodTerminatingFinalizers,
    PodTerminatingNodeLost,
    PodTerminatingContainersRunning,
    PodTerminatingCleanupStuck,
    DeploymentRecreateBlocked,
    StatefulSetPodStuck,
    NamespaceTerminatingContent,
    NamespaceTerminatingFinalizers,
    NamespaceTerminatingDiscoveryFailed,
    PodUnschedulable,
    SchedulerNotScheduling,
    PodContainerCreatingStuck,
    ContainerImagePullFailing,
    ContainerCrashLooping,
    ContainerOomKilledLooping,
    ContainerConfigError,
    DaemonSetUnscheduled,
}

impl Runbook {
    pub const ALL: &'static [Runbook] = &[
        Runbook::PodTerminatingStuck,
        Runbook::PodTerminatingFinalizers,
        Runbook::PodTerminatingNodeLost,
        Runbook::PodTerminatingContainersRunning,
        Runbook::PodTerminatingCleanupStuck,
        Runbook::DeploymentRecreateBlocked,
        Runbook::StatefulSetPodStuck,
        Runbook::NamespaceTerminatingContent,
        Runbook::NamespaceTerminatingFinalizers,
        Runbook::NamespaceTerminatingDiscoveryFailed,
        Runbook::PodUnschedulable,
        Runbook::SchedulerNotScheduling,
        Runbook::PodContainerCreatingStuck,
        Runbook::ContainerImagePullFailing,
        Runbook::ContainerCrashLooping,
        Runbook::ContainerOomKilledLooping,
        Runbook::ContainerConfigError,
        Runbook::DaemonSetUnscheduled,
    ];

    /// The alert name, which is also the runbook's file name.
    pub fn alert(self) -> &'static str {
        match self {
            Runbook::PodTerminatingStuck => "KubeLifecyclePodTerminatingStuck",
            Runbook::PodTerminatingFinalizers => "KubeLifecyclePodTerminatingFinalizers",
            Runbook::PodTerminatingNodeLost => "KubeLifecyclePodTerminatingNodeLost",
            Runbook::PodTerminatingContainersRunning => {
                "KubeLifecyclePodTerminatingContainersRunning"
            }
            Runbook::PodTerminatingCleanupStuck => "KubeLifecyclePodTerminatingCleanupStuck",
            Runbook::DeploymentRecreateBlocked => "KubeLifecycleDeploymentRecreateBlocked",
            Runbook::StatefulSetPodStuck => "KubeLifecycleStatefulSetPodStuck",
            Runbook::NamespaceTerminatingContent => "KubeLifecycleNamespaceTerminatingContent",
            Runbook::NamespaceTerminatingFinalizers => {
                "KubeLifecycleNamespaceTerminatingFinalizers"
            }
            Runbook::NamespaceTerminatingDiscoveryFailed => {
                "KubeLifecycleNamespaceTerminatingDiscoveryFailed"
            }
            Runbook::PodUnschedulable => "KubeLifecyclePodUnschedulable",
            Runbook::SchedulerNotScheduling => "KubeLifecycleSchedulerNotScheduling",
            Runbook::PodContainerCreatingStuck => "KubeLifecyclePodContainerCreatingStuck",
            Runbook::ContainerImagePullFailing => "KubeLifecycleContainerImagePullFailing",
            Runbook::ContainerCrashLooping => "KubeLifecycleContainerCrashLooping",
            Runbook::ContainerOomKilledLooping => "KubeLifecycleContainerOOMKilledLooping",
            Runbook::ContainerConfigError => "KubeLifecycleContainerConfigError",
            Runbook::DaemonSetUnscheduled => "KubeLifecycleDaemonSetUnscheduled",
        }
    }

    /// The runbook's path in this repository.
    pub fn path(self) -> String {
        format!("docs/runbooks/{}.md", self.alert())
    }

    /// The runbook's address under a published base URL.
    pub fn url(self, base: &str) -> String {
        format!(
            "{}/{}",
            base.trim_end_matches('/'),
            self.alert().to_lowercase()
        )
    }

    pub fn for_cause(cause: Cause) -> Runbook {
        match cause {
            Cause::PodTerminating(c) => match c {
                TerminatingCause::Finalizers => Runbook::PodTerminatingFinalizers,
                TerminatingCause::NodeNotReady | TerminatingCause::NodeMissing => {
                    Runbook::PodTerminatingNodeLost
                }
                TerminatingCause::ContainersRunning => Runbook::PodTerminatingContainersRunning,
                TerminatingCause::CleanupPending => Runbook::PodTerminatingCleanupStuck,
                TerminatingCause::Graceful | TerminatingCause::Unknown => {
                    Runbook::PodTerminatingStuck
                }
            },
            Cause::RecreateBlocked(_) => Runbook::DeploymentRecreateBlocked,
            Cause::StatefulSetBlocked(_) => Runbook::StatefulSetPodStuck,
            Cause::NamespaceTerminating(c) => match c {
                NamespaceCause::DiscoveryFailed | NamespaceCause::GroupVersionParsingFailed => {
                    Runbook::NamespaceTerminatingDiscoveryFailed
                }
                NamespaceCause::FinalizersRemaining | NamespaceCause::NamespaceFinalizer => {
                    Runbook::NamespaceTerminatingFinalizers
                }
                NamespaceCause::ContentDeletionFailed
                | NamespaceCause::ContentRemaining
                | NamespaceCause::Unknown => Runbook::NamespaceTerminatingContent,
            },
            Cause::PodPending(PendingCause::NotScheduled) => Runbook::SchedulerNotScheduling,
            Cause::PodPending(_) => Runbook::PodUnschedulable,
            Cause::ContainerCreating(_) => Runbook::PodContainerCreatingStuck,
            Cause::ImagePull(_) => Runbook::ContainerImagePullFailing,
            Cause::CrashLoop(CrashLoopCause::OomKilled) => Runbook::ContainerOomKilledLooping,
            Cause::CrashLoop(_) => Runbook::ContainerCrashLooping,
            Cause::ContainerConfig(_) => Runbook::ContainerConfigError,
            Cause::DaemonSetUnscheduled(_) => Runbook::DaemonSetUnscheduled,
        }
    }
}

impl std::fmt::Display for Runbook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.alert())
    }
}
