//! Slim Deployments, ReplicaSets, StatefulSets and DaemonSets.

use serde::Deserialize;

use super::controllers::{ReplicasSpec, ReplicasStatus};
use super::meta::{Condition, ConditionStatus, Labels, Meta, nullable};
use super::pod::ContainerSpec;
use super::selector::{Affinity, TemplateLabels, Toleration};

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Deployment {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: DeploymentSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: DeploymentStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentSpec {
    /// The API defaults a missing count to 1.
    #[serde(default)]
    pub replicas: Option<i32>,
    #[serde(default, deserialize_with = "nullable")]
    pub strategy: DeploymentStrategy,
    #[serde(default, deserialize_with = "nullable")]
    pub paused: bool,
    /// `TerminationStarted` (the default) or `TerminationComplete`: with the
    /// latter the deployment controller creates new pods only once the pods
    /// being deleted are gone (KEP-3973, alpha 1.33).
    #[serde(default, deserialize_with = "nullable")]
    pub pod_replacement_policy: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentStatus {
    #[serde(default, deserialize_with = "nullable")]
    pub available_replicas: i32,
    /// Pods still needed for full capacity: not created, or not available.
    #[serde(default, deserialize_with = "nullable")]
    pub unavailable_replicas: i32,
    /// Pods of the Deployment being deleted (1.33+, when the feature is on).
    #[serde(default)]
    pub terminating_replicas: Option<i32>,
    #[serde(default, deserialize_with = "rollout_conditions")]
    pub conditions: RolloutConditions,
}

/// The deployment controller's own verdicts (pkg/controller/deployment/util):
/// `Progressing` (False with reason `ProgressDeadlineExceeded` once a rollout
/// made no progress for `progressDeadlineSeconds`; only ever set mid-rollout)
/// and `Available` (False, `MinimumReplicasUnavailable`). Boxed: a healthy
/// Deployment's conditions say nothing the diagnosis reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RolloutConditions {
    pub progress_deadline_exceeded: Option<Box<Condition>>,
    pub unavailable: Option<Box<Condition>>,
    pub replica_failure: Option<Box<Condition>>,
}

fn rollout_conditions<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<RolloutConditions, D::Error> {
    let all: Vec<Condition> = nullable(deserializer)?;
    let mut kept = RolloutConditions::default();
    for c in all {
        match (c.type_.as_str(), c.status) {
            ("Progressing", ConditionStatus::False) if c.reason == "ProgressDeadlineExceeded" => {
                kept.progress_deadline_exceeded = Some(Box::new(c));
            }
            ("Available", ConditionStatus::False) => kept.unavailable = Some(Box::new(c)),
            ("ReplicaFailure", ConditionStatus::True) => kept.replica_failure = Some(Box::new(c)),
            _ => {}
        }
    }
    Ok(kept)
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct DeploymentStrategy {
    /// `RollingUpdate` (the default) or `Recreate`.
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: String,
}

impl Deployment {
    pub(crate) fn is_recreate(&self) -> bool {
        self.spec.strategy.type_ == "Recreate"
    }

    /// Whether the controller waits for pods being deleted before it creates
    /// new ones: the Recreate strategy, or `podReplacementPolicy: TerminationComplete`.
    pub(crate) fn waits_for_terminating_pods(&self) -> bool {
        self.is_recreate() || self.spec.pod_replacement_policy == "TerminationComplete"
    }

    pub(crate) fn desired_replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ReplicaSet {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: ReplicasSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: ReplicasStatus,
}

impl ReplicaSet {
    pub(crate) fn desired_replicas(&self) -> i32 {
        self.spec.desired()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct StatefulSet {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: StatefulSetSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: StatefulSetStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatefulSetSpec {
    #[serde(default)]
    pub replicas: Option<i32>,
    /// `OrderedReady` (the default) or `Parallel`.
    #[serde(default, deserialize_with = "nullable")]
    pub pod_management_policy: String,
    #[serde(default, deserialize_with = "nullable")]
    pub update_strategy: StatefulSetUpdateStrategy,
    /// Its pods' labels (beside the controller's own per pod), which
    /// PodDisruptionBudgets select.
    #[serde(default, deserialize_with = "nullable")]
    pub template: TemplateLabels,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatefulSetUpdateStrategy {
    /// `RollingUpdate` (the default) or `OnDelete`.
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: String,
    #[serde(default, deserialize_with = "nullable")]
    pub rolling_update: StatefulSetRollingUpdate,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct StatefulSetRollingUpdate {
    /// Ordinals below it keep the old revision on purpose (a staged rollout).
    #[serde(default, deserialize_with = "nullable")]
    pub partition: i32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatefulSetStatus {
    /// Pods the StatefulSet controller has created (ready or not).
    #[serde(default, deserialize_with = "nullable")]
    pub replicas: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub ready_replicas: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub updated_replicas: i32,
    /// The revision of ordinals `[0, currentReplicas)`, and the one being
    /// rolled out; they differ while an update is not rolled out.
    #[serde(default, deserialize_with = "nullable")]
    pub current_revision: String,
    #[serde(default, deserialize_with = "nullable")]
    pub update_revision: String,
}

impl StatefulSet {
    pub(crate) fn desired_replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
    }

    /// An update under way that is meant to reach every ordinal: a
    /// RollingUpdate without partition whose revisions differ (OnDelete waits
    /// for people, and a partition stages the rollout on purpose).
    pub(crate) fn is_rolling_out(&self) -> bool {
        let strategy = &self.spec.update_strategy;
        strategy.type_ != "OnDelete"
            && strategy.rolling_update.partition <= 0
            && !self.status.update_revision.is_empty()
            && self.status.current_revision != self.status.update_revision
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct DaemonSet {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: DaemonSetSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: DaemonSetStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct DaemonSetSpec {
    #[serde(default, deserialize_with = "nullable")]
    pub template: PodTemplate,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PodTemplate {
    #[serde(default, deserialize_with = "nullable")]
    pub spec: PodTemplateSpec,
}

/// The placement-relevant part of a pod template.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodTemplateSpec {
    #[serde(default, deserialize_with = "nullable")]
    pub node_selector: Labels,
    #[serde(default, deserialize_with = "nullable")]
    pub affinity: Affinity,
    #[serde(default, deserialize_with = "nullable")]
    pub tolerations: Vec<Toleration>,
    #[serde(default, deserialize_with = "nullable")]
    pub host_network: bool,
    #[serde(default, deserialize_with = "nullable")]
    pub containers: Vec<ContainerSpec>,
    #[serde(default, deserialize_with = "nullable")]
    pub init_containers: Vec<ContainerSpec>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonSetStatus {
    #[serde(default, deserialize_with = "nullable")]
    pub desired_number_scheduled: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub current_number_scheduled: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub number_ready: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub number_unavailable: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub updated_number_scheduled: i32,
}
