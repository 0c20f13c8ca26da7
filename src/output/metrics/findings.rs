//! The families generated from findings, declared once as a list (name, help,
//! identity, label keys, generator) in the manner of kube-state-metrics'
//! stores. The same [`FindingsCollector`] serves the live `/metrics` and
//! `diagnose --output metrics`.
//!
//! Series describe the current state and are produced at scrape time, so a
//! series disappears with its anomaly. Values are Unix timestamps ("since"),
//! counts or exit codes; never time-since, never raw messages as labels.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

use crate::diagnosis::{Anomaly, Cause, CrashLoopCause, Detail, Finding};
use crate::model::Kind;
use crate::model::age::unix_seconds;

/// Whom a family's series are about: the labels they open with, which name
/// the object (and container) of the finding. Added here, once, for every
/// family, as kube-state-metrics' `wrapPodFunc` adds a pod's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Identity {
    /// `namespace`: the namespace itself.
    Namespace,
    /// `namespace`, `pod`.
    Pod,
    /// `namespace`, `pod`, `container`.
    Container,
    /// `namespace`, `deployment`.
    Deployment,
    /// `namespace`, `statefulset`.
    StatefulSet,
    /// `namespace`, `daemonset`.
    DaemonSet,
    /// `namespace`, `job_name` (kube-state-metrics' label for a Job).
    Job,
    /// `namespace` and `deployment`, `statefulset` or `job_name`, by the
    /// finding's kind: a family of them all.
    Workload,
    /// `namespace`, `owner_kind`, `owner_name`: a controller of pods of any
    /// kind, named as kube-state-metrics names a pod's owner.
    Controller,
    /// `namespace`, `owner_kind`, `owner_name`: the controller of the pod a
    /// finding is about (empty for a pod of none); for families that count
    /// pods by owner rather than one series each.
    PodOwner,
}

impl Identity {
    /// The label keys, for a finding of `kind`.
    pub(super) fn labels(self, kind: Kind) -> &'static [&'static str] {
        match self {
            Identity::Workload if kind == Kind::StatefulSet => &["namespace", "statefulset"],
            Identity::Workload if kind == Kind::Job => &["namespace", "job_name"],
            Identity::Workload => &["namespace", "deployment"],
            Identity::Job => &["namespace", "job_name"],
            Identity::Namespace => &["namespace"],
            Identity::Pod => &["namespace", "pod"],
            Identity::Container => &["namespace", "pod", "container"],
            Identity::Deployment => &["namespace", "deployment"],
            Identity::StatefulSet => &["namespace", "statefulset"],
            Identity::DaemonSet => &["namespace", "daemonset"],
            Identity::Controller | Identity::PodOwner => &["namespace", "owner_kind", "owner_name"],
        }
    }

    /// The label values for a finding.
    fn values(self, f: &Finding) -> Vec<String> {
        match self {
            Identity::Namespace => vec![f.name.clone()],
            Identity::Container => vec![text(&f.namespace), f.name.clone(), text(&f.container)],
            Identity::Pod
            | Identity::Deployment
            | Identity::StatefulSet
            | Identity::DaemonSet
            | Identity::Job
            | Identity::Workload => vec![text(&f.namespace), f.name.clone()],
            Identity::Controller => vec![
                text(&f.namespace),
                f.kind.as_str().to_string(),
                f.name.clone(),
            ],
            Identity::PodOwner => match &f.detail {
                Detail::Evicted {
                    owner_kind,
                    owner_name,
                    ..
                } => vec![text(&f.namespace), text(owner_kind), text(owner_name)],
                _ => vec![text(&f.namespace), String::new(), String::new()],
            },
        }
    }
}

/// `[deployment, cause, quota, resource, webhook, pod_security_level]` of a
/// refused controller: what the refusal names, empty where it names nothing
/// (an empty label is no label to Prometheus).
fn refusal_labels(f: &Finding) -> Vec<String> {
    match &f.detail {
        Detail::Refused {
            deployment,
            quota,
            resource,
            webhook,
            pod_security_level,
            ..
        } => vec![
            text(deployment),
            f.cause.to_string(),
            text(quota),
            text(resource),
            text(webhook),
            pod_security_level.unwrap_or_default().to_string(),
        ],
        _ => vec![],
    }
}

/// How a family's per-object series give way to aggregates when there are more
/// of them than the series ceiling: the object's own labels (`pod`,
/// `container`) are dropped, `namespace` and the family's labels (node, cause,
/// registry…) stay, so the rules that count by node, registry or namespace keep
/// firing on the folded series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fold {
    /// A timestamp: the earliest of the folded series (the oldest is what an
    /// age threshold needs).
    Earliest,
    /// A count: the sum.
    Sum,
    /// A size or a code: the largest.
    Largest,
    /// Never folded: one series per workload or namespace, as many as there
    /// are workloads, not pods.
    Never,
}

impl Fold {
    fn combine(self, held: f64, new: f64) -> f64 {
        match self {
            Fold::Earliest => held.min(new),
            Fold::Sum => held + new,
            Fold::Largest | Fold::Never => held.max(new),
        }
    }
}

/// The label keys a folded series keeps: `namespace` and the family's own.
fn folded_label_names(family: &Family) -> impl Iterator<Item = &'static str> {
    std::iter::once("namespace").chain(family.labels.iter().copied())
}

/// One sample: the values of the family's own labels, in order, and the value.
pub(super) struct Sample {
    pub labels: Vec<String>,
    pub value: f64,
}

/// A gauge family generated from findings.
pub(super) struct Family {
    pub name: &'static str,
    pub help: &'static str,
    /// The labels every series opens with.
    pub identity: Identity,
    /// The family's own labels, after the identity's.
    pub labels: &'static [&'static str],
    /// The anomalies whose findings feed it.
    pub anomalies: &'static [Anomaly],
    pub samples: fn(&Finding) -> Vec<Sample>,
    /// How the family's per-pod series are folded above the series ceiling.
    pub fold: Fold,
    /// Whether samples with the same labels are summed into one series: a
    /// count of findings by their labels, not a series per finding.
    pub aggregate: bool,
    /// An example query for `docs/metrics.md` (read by its generator, a test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub example: &'static str,
}

/// Each per-object family's name and the anomaly that feeds it: what the rule
/// pack's tests need to know which causes an alert expression selects.
pub fn family_anomalies() -> impl Iterator<Item = (&'static str, Anomaly)> {
    FAMILIES
        .iter()
        .flat_map(|f| f.anomalies.iter().map(|a| (f.name, *a)))
}

impl Family {
    /// Every label key of a finding's series, in order.
    pub(super) fn label_names(&self, f: &Finding) -> impl Iterator<Item = &'static str> {
        self.identity
            .labels(f.kind)
            .iter()
            .chain(self.labels)
            .copied()
    }
}

fn text(s: &Option<String>) -> String {
    s.clone().unwrap_or_default()
}

fn since(f: &Finding, labels: Vec<String>) -> Vec<Sample> {
    f.since
        .map(|t| Sample {
            labels,
            value: unix_seconds(t),
        })
        .into_iter()
        .collect()
}

/// `[cause]` → the number of pods blocking the workload.
fn blocking_pods(f: &Finding) -> Vec<Sample> {
    match f.detail {
        Detail::Blocked { blocking_pods, .. } => one(
            vec![text(&f.node), f.cause.to_string()],
            blocking_pods as f64,
        ),
        _ => vec![],
    }
}

fn one(labels: Vec<String>, value: f64) -> Vec<Sample> {
    vec![Sample { labels, value }]
}

/// Total findings by anomaly and cause; every pair is always present (0 when none).
pub(super) const FINDINGS_FAMILY: &str = "kube_lifecycle_findings";

/// Per-object series folded into aggregates, by family (0 when none).
pub(super) const FOLDED_FAMILY: &str = "kube_lifecycle_series_folded";
const FOLDED_HELP: &str = "Per-pod series of a family not exposed because the family had more than --max-series-per-family of them; they are folded into series by namespace and the family's other labels. 0 when the family is whole.";

/// The per-object families.
pub(super) const FAMILIES: &[Family] = &[
    Family {
        name: "kube_lifecycle_pod_terminating_since_timestamp_seconds",
        help: "Unix time the deletion of a pod still Terminating was requested (deletionTimestamp minus deletionGracePeriodSeconds), by cause.",
        identity: Identity::Pod,
        labels: &["node", "cause"],
        anomalies: &[Anomaly::PodTerminating],
        aggregate: false,
        samples: |f| since(f, vec![text(&f.node), f.cause.to_string()]),
        fold: Fold::Earliest,
        example: r#"time() - kube_lifecycle_pod_terminating_since_timestamp_seconds{cause!="graceful"} > 600"#,
    },
    Family {
        name: "kube_lifecycle_pod_terminating_deadline_timestamp_seconds",
        help: "Unix time a Terminating pod should have been gone by (its deletionTimestamp).",
        identity: Identity::Pod,
        labels: &["node"],
        anomalies: &[Anomaly::PodTerminating],
        aggregate: false,
        samples: |f| match f.detail {
            Detail::Terminating { deadline, .. } => {
                one(vec![text(&f.node)], unix_seconds(deadline))
            }
            _ => vec![],
        },
        fold: Fold::Earliest,
        example: "time() - kube_lifecycle_pod_terminating_deadline_timestamp_seconds > 300",
    },
    Family {
        name: "kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds",
        help: "Unix time the earliest deletion was requested among the old pods keeping a Recreate Deployment from creating new ones, by the oldest pod's node and cause.",
        identity: Identity::Deployment,
        labels: &["node", "cause"],
        anomalies: &[Anomaly::RecreateBlocked],
        aggregate: false,
        samples: |f| since(f, vec![text(&f.node), f.cause.to_string()]),
        fold: Fold::Never,
        example: r#"time() - kube_lifecycle_deployment_recreate_blocked_since_timestamp_seconds{cause!="graceful"} > 600"#,
    },
    Family {
        name: "kube_lifecycle_statefulset_blocked_since_timestamp_seconds",
        help: "Unix time the earliest deletion was requested among a StatefulSet's Terminating pods whose ordinals it cannot recreate, by the oldest pod, its node and its cause.",
        identity: Identity::StatefulSet,
        labels: &["pod", "node", "cause"],
        anomalies: &[Anomaly::StatefulSetBlocked],
        aggregate: false,
        samples: |f| since(f, vec![oldest_pod(f), text(&f.node), f.cause.to_string()]),
        fold: Fold::Never,
        example: r#"time() - kube_lifecycle_statefulset_blocked_since_timestamp_seconds{cause!="graceful"} > 600"#,
    },
    Family {
        name: "kube_lifecycle_recreate_blocked_by_terminating",
        help: "Pods that must be gone before a Recreate Deployment creates new pods, a StatefulSet recreates an ordinal or a Job replaces a pod or writes its outcome: Terminating pods (or, cause not_deleted, pods of a zero-scaled ReplicaSet nobody deleted), by the oldest one's node and cause.",
        identity: Identity::Workload,
        labels: &["node", "cause"],
        anomalies: &[
            Anomaly::RecreateBlocked,
            Anomaly::StatefulSetBlocked,
            Anomaly::JobBlocked,
        ],
        aggregate: false,
        samples: blocking_pods,
        fold: Fold::Never,
        example: r#"kube_lifecycle_recreate_blocked_by_terminating{deployment!="", cause!="graceful"} > 0"#,
    },
    Family {
        name: "kube_lifecycle_job_blocked_since_timestamp_seconds",
        help: "Unix time the earliest deletion was requested among the Terminating pods a Job waits for (to replace them, with podReplacementPolicy Failed, or to write its decided outcome), by the oldest pod, its node and its cause.",
        identity: Identity::Job,
        labels: &["pod", "node", "cause"],
        anomalies: &[Anomaly::JobBlocked],
        aggregate: false,
        samples: |f| since(f, vec![oldest_pod(f), text(&f.node), f.cause.to_string()]),
        fold: Fold::Never,
        example: r#"time() - kube_lifecycle_job_blocked_since_timestamp_seconds{cause!="graceful"} > 600"#,
    },
    Family {
        name: "kube_lifecycle_namespace_terminating_since_timestamp_seconds",
        help: "Unix time the deletion of a namespace still Terminating was requested, by cause; for cause pods_terminating, `node` is the lost node of a pod it waits for, if any.",
        identity: Identity::Namespace,
        labels: &["node", "cause"],
        anomalies: &[Anomaly::NamespaceTerminating],
        aggregate: false,
        samples: |f| since(f, vec![text(&f.node), f.cause.to_string()]),
        fold: Fold::Never,
        example: "time() - kube_lifecycle_namespace_terminating_since_timestamp_seconds > 1800",
    },
    Family {
        name: "kube_lifecycle_namespace_remaining_resources",
        help: "Objects of a resource still in a Terminating namespace, as its NamespaceContentRemaining condition counts them.",
        identity: Identity::Namespace,
        labels: &["resource"],
        anomalies: &[Anomaly::NamespaceTerminating],
        aggregate: false,
        samples: |f| match &f.detail {
            Detail::NamespaceContent {
                remaining_resources,
                ..
            } => counts(remaining_resources),
            _ => vec![],
        },
        fold: Fold::Never,
        example: "sum by (namespace) (kube_lifecycle_namespace_remaining_resources)",
    },
    Family {
        name: "kube_lifecycle_namespace_remaining_finalizers",
        help: "Objects in a Terminating namespace held by a finalizer, as its NamespaceFinalizersRemaining condition counts them.",
        identity: Identity::Namespace,
        labels: &["finalizer"],
        anomalies: &[Anomaly::NamespaceTerminating],
        aggregate: false,
        samples: |f| match &f.detail {
            Detail::NamespaceContent {
                remaining_finalizers,
                ..
            } => counts(remaining_finalizers),
            _ => vec![],
        },
        fold: Fold::Never,
        example: "topk(5, kube_lifecycle_namespace_remaining_finalizers)",
    },
    Family {
        name: "kube_lifecycle_pod_pending_since_timestamp_seconds",
        help: "Unix time an unscheduled pod became unschedulable (or was created, for not_scheduled and scheduling_gated), by cause: the scheduler reason that excluded the most nodes.",
        identity: Identity::Pod,
        labels: &["cause"],
        anomalies: &[Anomaly::PodPending],
        aggregate: false,
        samples: |f| since(f, vec![f.cause.to_string()]),
        fold: Fold::Earliest,
        example: r#"count by (cause) (time() - kube_lifecycle_pod_pending_since_timestamp_seconds{cause!="scheduling_gated"} > 900)"#,
    },
    Family {
        name: "kube_lifecycle_pod_pending_reason",
        help: "A pending pod's scheduler reasons, each valued by the nodes it excluded; 1 for a pod no scheduler reason explains (not_scheduled, unknown_scheduler, scheduling_gated, or a message with no node counts).",
        identity: Identity::Pod,
        labels: &["reason"],
        anomalies: &[Anomaly::PodPending],
        aggregate: false,
        samples: |f| match &f.detail {
            Detail::Pending { reasons, .. } if !reasons.is_empty() => reasons
                .iter()
                .map(|(r, n)| Sample {
                    labels: vec![r.to_string()],
                    value: f64::from(*n),
                })
                .collect(),
            _ => one(vec![f.cause.to_string()], 1.0),
        },
        fold: Fold::Largest,
        example: "sum by (reason) (kube_lifecycle_pod_pending_reason)",
    },
    Family {
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
    Family {
        name: "kube_lifecycle_pod_init_container_running_since_timestamp_seconds",
        help: "Unix time a pod's start began waiting on an init container that runs and does not finish, or on a native sidecar that runs and has not started (reported past --init-after), by cause and, for a sidecar's failing startup probe, what the probe's output says (probe_failure).",
        identity: Identity::Container,
        labels: &["node", "cause", "probe_failure"],
        anomalies: &[Anomaly::InitContainerRunning],
        aggregate: false,
        samples: |f| {
            since(
                f,
                vec![text(&f.node), f.cause.to_string(), probe_failure(f)],
            )
        },
        fold: Fold::Earliest,
        example: r#"time() - kube_lifecycle_pod_init_container_running_since_timestamp_seconds{cause="running"} > 1800"#,
    },
    Family {
        name: "kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds",
        help: "Unix time a container's image first failed to pull (first Failed event, else when the pod reached its node), by cause and registry.",
        identity: Identity::Container,
        labels: &["node", "image", "registry", "cause"],
        anomalies: &[Anomaly::ImagePull],
        aggregate: false,
        samples: |f| {
            let (image, registry) = match &f.detail {
                Detail::ImagePull {
                    image, registry, ..
                } => (image.clone(), registry.clone()),
                _ => Default::default(),
            };
            since(f, vec![text(&f.node), image, registry, f.cause.to_string()])
        },
        fold: Fold::Earliest,
        example: "time() - kube_lifecycle_container_image_pull_backoff_since_timestamp_seconds > 600",
    },
    Family {
        name: "kube_lifecycle_container_image_pull_backoff",
        help: "1 for every container whose image does not pull (ErrImagePull, ImagePullBackOff, ImageInspectError, ...), by node, registry and cause.",
        identity: Identity::Container,
        labels: &["node", "registry", "cause"],
        anomalies: &[Anomaly::ImagePull],
        aggregate: false,
        samples: |f| {
            let registry = match &f.detail {
                Detail::ImagePull { registry, .. } => registry.clone(),
                _ => String::new(),
            };
            one(vec![text(&f.node), registry, f.cause.to_string()], 1.0)
        },
        fold: Fold::Sum,
        example: "count by (registry, cause) (kube_lifecycle_container_image_pull_backoff)",
    },
    Family {
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
    Family {
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
    Family {
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
    Family {
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
    Family {
        name: "kube_lifecycle_daemonset_unscheduled_since_timestamp_seconds",
        help: "Unix time from which a DaemonSet missing from eligible nodes is known to be so (when its pods became unschedulable, else its creation), by cause.",
        identity: Identity::DaemonSet,
        labels: &["cause"],
        anomalies: &[Anomaly::DaemonSetUnscheduled],
        aggregate: false,
        samples: |f| since(f, vec![f.cause.to_string()]),
        fold: Fold::Never,
        example: "kube_lifecycle_daemonset_unscheduled_since_timestamp_seconds",
    },
    Family {
        name: "kube_lifecycle_daemonset_unscheduled_nodes",
        help: "Ready nodes a DaemonSet's selector and tolerations admit that have no pod of it.",
        identity: Identity::DaemonSet,
        labels: &["cause"],
        anomalies: &[Anomaly::DaemonSetUnscheduled],
        aggregate: false,
        samples: |f| match f.detail {
            Detail::DaemonSet { missing_nodes, .. } => {
                one(vec![f.cause.to_string()], missing_nodes as f64)
            }
            _ => vec![],
        },
        fold: Fold::Never,
        example: "kube_lifecycle_daemonset_unscheduled_nodes > 0",
    },
    Family {
        name: "kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds",
        help: "Unix time a controller short of pods (ReplicaSet, StatefulSet, DaemonSet, Job, ReplicationController) was first refused a pod by the API server (its earliest FailedCreate event held, or its ReplicaFailure condition), by cause and what the refusal names: the Deployment of a ReplicaSet, the ResourceQuota and resources, the admission webhook, the Pod Security level.",
        identity: Identity::Controller,
        labels: &[
            "deployment",
            "cause",
            "quota",
            "resource",
            "webhook",
            "pod_security_level",
        ],
        anomalies: &[Anomaly::PodCreateRefused],
        aggregate: false,
        samples: |f| since(f, refusal_labels(f)),
        fold: Fold::Never,
        example: r#"count by (webhook) (kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds{cause="webhook_unreachable"})"#,
    },
    Family {
        name: "kube_lifecycle_workload_pod_create_refused_missing_pods",
        help: "Pods a controller whose pod creations the API server refuses is short of (wanted minus created, as its status counts them), by cause.",
        identity: Identity::Controller,
        labels: &["cause"],
        anomalies: &[Anomaly::PodCreateRefused],
        aggregate: false,
        samples: |f| match f.detail {
            Detail::Refused {
                desired, current, ..
            } => one(vec![f.cause.to_string()], f64::from(desired - current)),
            _ => vec![],
        },
        fold: Fold::Never,
        example: "sum by (namespace, cause) (kube_lifecycle_workload_pod_create_refused_missing_pods)",
    },
    Family {
        name: "kube_lifecycle_pod_not_ready_since_timestamp_seconds",
        help: "Unix time a Running pod not Ready for longer than --not-ready-after last turned not Ready (its Ready condition's lastTransitionTime), by cause, the container a readiness probe or the condition names, and what the readiness probe's output says (probe_failure).",
        identity: Identity::Pod,
        labels: &["container", "node", "cause", "probe_failure"],
        anomalies: &[Anomaly::PodNotReady],
        aggregate: false,
        samples: |f| {
            since(
                f,
                vec![
                    text(&f.container),
                    text(&f.node),
                    f.cause.to_string(),
                    probe_failure(f),
                ],
            )
        },
        fold: Fold::Earliest,
        example: r#"count by (namespace, cause) (kube_lifecycle_pod_not_ready_since_timestamp_seconds)"#,
    },
    Family {
        name: "kube_lifecycle_pod_stuck_since_timestamp_seconds",
        help: "Unix time a pod Pending, not initialized or not Ready past its threshold, that no other anomaly explains, began to wait, by its phase (cause unknown).",
        identity: Identity::Pod,
        labels: &["node", "phase", "cause"],
        anomalies: &[Anomaly::PodStuck],
        aggregate: false,
        samples: |f| {
            let phase = match &f.detail {
                Detail::Stuck { phase, .. } => phase.to_string(),
                _ => String::new(),
            };
            since(f, vec![text(&f.node), phase, f.cause.to_string()])
        },
        fold: Fold::Earliest,
        example: "count by (namespace, phase) (kube_lifecycle_pod_stuck_since_timestamp_seconds)",
    },
    Family {
        name: "kube_lifecycle_evicted_pods",
        help: "Pods evicted or rejected by their node, or disrupted by a controller, that still exist in phase Failed, counted by namespace, owner and cause (one series per owner and cause, however many pods).",
        identity: Identity::PodOwner,
        labels: &["cause"],
        anomalies: &[Anomaly::PodEvicted],
        aggregate: true,
        samples: |f| one(vec![f.cause.to_string()], 1.0),
        fold: Fold::Never,
        example: "sum by (namespace, cause) (kube_lifecycle_evicted_pods)",
    },
];

/// `probe_failure` of a finding, empty when no probe output was read.
fn probe_failure(f: &Finding) -> String {
    f.detail
        .probe_failure()
        .map(|p| p.to_string())
        .unwrap_or_default()
}

/// The blocking pod a workload finding reports, empty for other findings.
fn oldest_pod(f: &Finding) -> String {
    match &f.detail {
        Detail::Blocked { oldest_pod, .. } => oldest_pod.clone(),
        _ => String::new(),
    }
}

/// One sample per (name, count) of a namespace's remaining content.
fn counts(remaining: &BTreeMap<String, u64>) -> Vec<Sample> {
    remaining
        .iter()
        .map(|(name, n)| Sample {
            labels: vec![name.clone()],
            value: *n as f64,
        })
        .collect()
}

/// Where a collector gets the findings of the moment.
pub(crate) trait FindingsSource: Send + Sync + 'static {
    fn current(&self) -> Vec<Finding>;
}

/// A fixed set of findings (the offline `diagnose`).
impl FindingsSource for Vec<Finding> {
    fn current(&self) -> Vec<Finding> {
        self.clone()
    }
}

/// A source shared with others (the live model, shared with the server).
impl<S: FindingsSource> FindingsSource for Arc<S> {
    fn current(&self) -> Vec<Finding> {
        S::current(self)
    }
}

/// Encodes every family from the source's findings on each scrape.
pub(crate) struct FindingsCollector<S> {
    source: S,
    /// Per-pod series a family may have before they are folded (`None`: no limit).
    ceiling: Option<usize>,
    /// The families folded at the last scrape, so that going over and coming
    /// back under are each logged once.
    folded: parking_lot::Mutex<BTreeSet<&'static str>>,
}

impl<S: FindingsSource> FindingsCollector<S> {
    pub(crate) fn new(source: S) -> Self {
        FindingsCollector {
            source,
            ceiling: None,
            folded: Default::default(),
        }
    }

    /// Folds a family's per-pod series above `ceiling` (0: never).
    pub(crate) fn with_ceiling(mut self, ceiling: usize) -> Self {
        self.ceiling = (ceiling > 0).then_some(ceiling);
        self
    }

    pub(crate) fn register(self, registry: &mut Registry) {
        registry.register_collector(Box::new(self));
    }

    fn note_folds(&self, folds: &[(&'static str, usize)]) {
        let mut held = self.folded.lock();
        for &(family, series) in folds {
            let over = series > 0;
            if over && held.insert(family) {
                tracing::warn!(
                    family,
                    series,
                    ceiling = self.ceiling.unwrap_or_default(),
                    "too many series: folding this family's per-pod series into aggregates (by namespace, node and cause, or by node and cause); /findings and the page still list every object"
                );
            } else if !over && held.remove(family) {
                tracing::info!(
                    family,
                    "back under the series ceiling: per-pod series again"
                );
            }
        }
    }
}

impl<S> fmt::Debug for FindingsCollector<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FindingsCollector")
    }
}

impl<S: FindingsSource> Collector for FindingsCollector<S> {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let findings = self.source.current();
        let folds = encode_findings(&findings, self.ceiling, &mut encoder)?;
        self.note_folds(&folds);
        Ok(())
    }
}

/// Encodes every family; returns, for each foldable family, how many per-pod
/// series were folded (0 when none).
fn encode_findings(
    findings: &[Finding],
    ceiling: Option<usize>,
    encoder: &mut DescriptorEncoder,
) -> Result<Vec<(&'static str, usize)>, fmt::Error> {
    // Totals: every (anomaly, cause) pair, so dashboards see zeros rather than gaps.
    let mut metric = encoder.encode_descriptor(
        FINDINGS_FAMILY,
        "Current findings by anomaly and cause.",
        None,
        MetricType::Gauge,
    )?;
    let mut counts: BTreeMap<(Anomaly, &str), usize> = BTreeMap::new();
    for f in findings {
        *counts.entry((f.anomaly(), f.cause.as_str())).or_default() += 1;
    }
    for anomaly in Anomaly::ALL {
        for (cause, _) in Cause::vocabulary(*anomaly) {
            let count = counts.get(&(*anomaly, cause)).copied().unwrap_or_default();
            let labels = [("anomaly", anomaly.as_str()), ("cause", cause)];
            ConstGauge::new(count as i64).encode(metric.encode_family(&labels)?)?;
        }
    }

    let mut folds = Vec::new();
    for family in FAMILIES {
        let mut metric =
            encoder.encode_descriptor(family.name, family.help, None, MetricType::Gauge)?;
        let of_family = || {
            findings
                .iter()
                .filter(|f| family.anomalies.contains(&f.anomaly()))
        };
        if family.fold != Fold::Never {
            let series: usize = match ceiling {
                Some(_) => of_family().map(|f| (family.samples)(f).len()).sum(),
                None => 0,
            };
            if let Some(ceiling) = ceiling.filter(|ceiling| series > *ceiling) {
                folds.push((family.name, series));
                let mut folded = fold(family, of_family(), true);
                // Pods of a namespace spread over many nodes: when folding by
                // namespace still leaves more series than the ceiling, the
                // namespace goes too (series by node, registry, cause).
                if folded.len() > ceiling {
                    folded = fold(family, of_family(), false);
                }
                for (labels, value) in folded {
                    let labels: Vec<(&str, &str)> = folded_label_names(family)
                        .zip(labels.iter().map(String::as_str))
                        .collect();
                    ConstGauge::new(value).encode(metric.encode_family(&labels)?)?;
                }
                continue;
            }
            folds.push((family.name, 0));
        }
        // Label pairs to the summed value, for an aggregate family.
        let mut sums: BTreeMap<Vec<(&'static str, String)>, f64> = BTreeMap::new();
        for finding in of_family() {
            let identity = family.identity.values(finding);
            for sample in (family.samples)(finding) {
                let values = identity.iter().chain(&sample.labels);
                if family.aggregate {
                    let key = family.label_names(finding).zip(values.cloned()).collect();
                    *sums.entry(key).or_default() += sample.value;
                    continue;
                }
                let labels: Vec<(&str, &str)> = family
                    .label_names(finding)
                    .zip(values.map(String::as_str))
                    .collect();
                ConstGauge::new(sample.value).encode(metric.encode_family(&labels)?)?;
            }
        }
        for (labels, value) in &sums {
            let labels: Vec<(&str, &str)> = labels.iter().map(|(k, v)| (*k, v.as_str())).collect();
            ConstGauge::new(*value).encode(metric.encode_family(&labels)?)?;
        }
    }

    let mut metric =
        encoder.encode_descriptor(FOLDED_FAMILY, FOLDED_HELP, None, MetricType::Gauge)?;
    for (family, series) in &folds {
        ConstGauge::new(*series as i64).encode(metric.encode_family(&[("family", *family)])?)?;
    }
    Ok(folds)
}

/// A family's samples folded by the family's own labels, and by namespace
/// when `by_namespace` (else the namespace is empty: the label is absent).
fn fold<'a>(
    family: &Family,
    findings: impl Iterator<Item = &'a Finding>,
    by_namespace: bool,
) -> BTreeMap<Vec<String>, f64> {
    let mut folded: BTreeMap<Vec<String>, f64> = BTreeMap::new();
    for finding in findings {
        for sample in (family.samples)(finding) {
            let namespace = if by_namespace {
                text(&finding.namespace)
            } else {
                String::new()
            };
            let key: Vec<String> = std::iter::once(namespace).chain(sample.labels).collect();
            folded
                .entry(key)
                .and_modify(|held| *held = family.fold.combine(*held, sample.value))
                .or_insert(sample.value);
        }
    }
    folded
}

/// The catalogue as markdown (kept in `docs/metrics.md`).
#[cfg(test)]
pub(super) fn markdown_catalogue() -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "### `{FINDINGS_FAMILY}`\n\ngauge · labels: `anomaly`, `cause`\n\nCurrent findings by anomaly and cause. Every pair of the vocabulary is always present, 0 when there is no such finding.\n\n```promql\nsum by (anomaly) ({FINDINGS_FAMILY})\n```\n\n"
    ));
    out.push_str(&format!(
        "### `{FOLDED_FAMILY}`\n\ngauge · labels: `family`\n\n{FOLDED_HELP}\n\n```promql\nmax by (family) ({FOLDED_FAMILY}) > 0\n```\n\n"
    ));
    for family in FAMILIES {
        let labels: Vec<String> = match family.identity {
            Identity::Workload => {
                vec!["`namespace`, `deployment`, `statefulset` or `job_name`".to_string()]
            }
            identity => identity
                .labels(Kind::Pod)
                .iter()
                .map(|l| format!("`{l}`"))
                .collect(),
        }
        .into_iter()
        .chain(family.labels.iter().map(|l| format!("`{l}`")))
        .collect();
        let anomalies: Vec<String> = family
            .anomalies
            .iter()
            .map(|a| format!("anomaly `{a}`"))
            .collect();
        out.push_str(&format!(
            "### `{}`\n\ngauge · {} · labels: {}\n\n{}\n\n```promql\n{}\n```\n\n",
            family.name,
            anomalies.join(", "),
            labels.join(", "),
            family.help,
            family.example
        ));
    }
    out
}

/// The OpenMetrics text a set of findings produces.
pub fn render(findings: Vec<Finding>) -> String {
    let mut registry = Registry::default();
    FindingsCollector::new(findings).register(&mut registry);
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terminating(namespace: &str, pod: &str, node: &str, since: i64) -> Finding {
        use crate::diagnosis::TerminatingCause;
        let at = jiff::Timestamp::from_second(since).unwrap();
        Finding {
            kind: Kind::Pod,
            namespace: Some(namespace.into()),
            name: pod.into(),
            container: None,
            container_kind: None,
            node: Some(node.into()),
            cause: Cause::PodTerminating(TerminatingCause::NodeNotReady),
            since: Some(at),
            message: String::new(),
            detail: Detail::Terminating {
                requested: at,
                deadline: at,
            },
        }
    }

    fn scrape(findings: Vec<Finding>, ceiling: usize) -> String {
        let mut registry = Registry::default();
        FindingsCollector::new(findings)
            .with_ceiling(ceiling)
            .register(&mut registry);
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &registry).unwrap();
        out
    }

    fn lines<'a>(text: &'a str, family: &str) -> Vec<&'a str> {
        text.lines()
            .filter(|l| l.starts_with(&format!("{family}{{")))
            .collect()
    }

    #[test]
    fn above_the_ceiling_pod_series_fold_by_namespace_and_keep_node_and_cause() {
        let findings = vec![
            terminating("shop", "web-1", "worker-1", 2_000),
            terminating("shop", "web-2", "worker-1", 1_000),
            terminating("shop", "web-3", "worker-2", 3_000),
            terminating("blog", "app-1", "worker-1", 4_000),
        ];
        let since = "kube_lifecycle_pod_terminating_since_timestamp_seconds";

        let whole = scrape(findings.clone(), 4);
        assert_eq!(lines(&whole, since).len(), 4, "{whole}");
        assert!(whole.contains(&format!("{FOLDED_FAMILY}{{family=\"{since}\"}} 0")));

        let folded = scrape(findings.clone(), 3);
        let mut got = lines(&folded, since);
        got.sort();
        assert_eq!(
            got,
            [
                format!(
                    "{since}{{namespace=\"blog\",node=\"worker-1\",cause=\"node_not_ready\"}} 4000.0"
                ),
                format!(
                    "{since}{{namespace=\"shop\",node=\"worker-1\",cause=\"node_not_ready\"}} 1000.0"
                ),
                format!(
                    "{since}{{namespace=\"shop\",node=\"worker-2\",cause=\"node_not_ready\"}} 3000.0"
                ),
            ],
            "the earliest since per namespace, node and cause; no pod label"
        );
        assert!(folded.contains(&format!("{FOLDED_FAMILY}{{family=\"{since}\"}} 4")));
        // The totals never fold.
        assert!(folded.contains(
            "kube_lifecycle_findings{anomaly=\"pod_terminating\",cause=\"node_not_ready\"} 4"
        ));
        // 0 is no ceiling.
        assert_eq!(lines(&scrape(findings, 0), since).len(), 4);
    }

    #[test]
    fn when_namespaces_do_not_fold_enough_the_namespace_goes_too() {
        // A lost node's pods come from many namespaces: by namespace and node
        // there are as many series as pods.
        let findings: Vec<Finding> = (0..6)
            .map(|i| {
                terminating(
                    &format!("ns-{i}"),
                    "web",
                    &format!("worker-{}", i % 2),
                    1_000 + i,
                )
            })
            .collect();
        let since = "kube_lifecycle_pod_terminating_since_timestamp_seconds";
        let folded = scrape(findings, 3);
        let mut got = lines(&folded, since);
        got.sort();
        assert_eq!(
            got,
            [
                format!(
                    "{since}{{namespace=\"\",node=\"worker-0\",cause=\"node_not_ready\"}} 1000.0"
                ),
                format!(
                    "{since}{{namespace=\"\",node=\"worker-1\",cause=\"node_not_ready\"}} 1001.0"
                ),
            ],
            "{folded}"
        );
        assert!(folded.contains(&format!("{FOLDED_FAMILY}{{family=\"{since}\"}} 6")));
    }

    #[test]
    fn every_per_pod_family_can_fold() {
        for family in FAMILIES {
            let per_pod = matches!(family.identity, Identity::Pod | Identity::Container);
            assert_eq!(
                per_pod,
                family.fold != Fold::Never,
                "{}: per-pod families fold above the ceiling, others never",
                family.name
            );
        }
    }

    #[test]
    fn docs_list_every_family() {
        crate::doc_blocks::check("docs/metrics.md", "catalogue", &markdown_catalogue());
    }

    #[test]
    fn names_follow_prometheus_conventions() {
        let mut names: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
        names.push(FINDINGS_FAMILY);
        for name in &names {
            assert!(name.starts_with("kube_lifecycle_"), "{name}");
            assert!(
                !name.ends_with("_total"),
                "{name}: gauges never end in _total"
            );
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{name}"
            );
        }
        let unique: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        for f in FAMILIES {
            if f.name.contains("timestamp") {
                assert!(f.name.ends_with("_timestamp_seconds"), "{}", f.name);
            }
            for kind in [Kind::Pod, Kind::Deployment, Kind::StatefulSet] {
                assert!(
                    !f.identity
                        .labels(kind)
                        .iter()
                        .chain(f.labels)
                        .any(|l| *l == "message"),
                    "{}: no raw messages as labels",
                    f.name
                );
            }
        }
    }
}
