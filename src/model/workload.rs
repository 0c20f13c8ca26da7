//! Slim Deployments, ReplicaSets, StatefulSets and DaemonSets.

use serde::Deserialize;

use super::controllers::{ReplicasSpec, ReplicasStatus};
use super::meta::{Labels, Meta, nullable};
use super::pod::ContainerSpec;

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
    /// Pods of the Deployment being deleted (1.33+, when the feature is on).
    #[serde(default)]
    pub terminating_replicas: Option<i32>,
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
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct StatefulSetStatus {
    /// Pods the StatefulSet controller has created (ready or not).
    #[serde(default, deserialize_with = "nullable")]
    pub replicas: i32,
}

impl StatefulSet {
    pub(crate) fn desired_replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
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
pub struct Affinity {
    #[serde(default, deserialize_with = "nullable")]
    pub node_affinity: NodeAffinity,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeAffinity {
    #[serde(default)]
    pub required_during_scheduling_ignored_during_execution: Option<NodeSelector>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSelector {
    #[serde(default, deserialize_with = "nullable")]
    pub node_selector_terms: Vec<NodeSelectorTerm>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSelectorTerm {
    #[serde(default, deserialize_with = "nullable")]
    pub match_expressions: Vec<NodeSelectorRequirement>,
    #[serde(default, deserialize_with = "nullable")]
    pub match_fields: Vec<NodeSelectorRequirement>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct NodeSelectorRequirement {
    #[serde(default, deserialize_with = "nullable")]
    pub key: String,
    #[serde(default, deserialize_with = "nullable")]
    pub operator: String,
    #[serde(default, deserialize_with = "nullable")]
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    #[serde(default, deserialize_with = "nullable")]
    pub key: String,
    /// `Equal` (the default) or `Exists`.
    #[serde(default, deserialize_with = "nullable")]
    pub operator: String,
    #[serde(default, deserialize_with = "nullable")]
    pub value: String,
    /// Empty matches every effect.
    #[serde(default, deserialize_with = "nullable")]
    pub effect: String,
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
}
