//! The slim cluster model: only what the diagnosis reads, in our own small types,
//! with the indexes it needs. It changes only through [`Cluster::apply`],
//! [`Cluster::delete`] and [`Cluster::reset`]; the file loader and the live
//! watcher both speak just that.
//!
//! - `kind.rs`: the table of kinds; `object.rs`: an object of any of them, and
//!   the type each kind decodes into;
//! - `pod.rs`, `node.rs`, `namespace.rs`, `workload.rs`, `controllers.rs`,
//!   `event.rs`, `persistent_volume_claim.rs`, `pod_disruption_budget.rs`: the slim types, with `meta.rs`, `name.rs`, `uid.rs`, `time.rs` for what they share;
//!   `pod_wire.rs` and `deferred.rs`: how a pod is decoded into its slim type;
//! - `cluster/`: the cluster and its indexes, kept with `index.rs`,
//!   `owner.rs` (controllers as their dependents name them) and
//!   `event_store.rs` (warning events by object).

mod changes;
mod cluster;
mod controllers;
mod deferred;
mod event;
mod event_store;
mod index;
mod kind;
mod meta;
mod name;
mod namespace;
mod node;
mod object;
mod owner;
mod persistent_volume_claim;
mod pod;
mod pod_disruption_budget;
mod pod_wire;
mod resource_claim;
mod selector;
mod time;
mod uid;
mod workload;

#[cfg(test)]
mod tests;

pub use changes::Changes;
pub use cluster::Cluster;
pub use controllers::{
    CronJob, CronJobSpec, CronJobStatus, Job, JobSpec, JobStatus, ReplicasSpec, ReplicasStatus,
    ReplicationController,
};
pub use event::{CoreEvent, Event, EventSubject, EventsApiEvent};
pub use kind::Kind;
pub use meta::nullable;
pub use meta::{
    Condition, ConditionStatus, Labels, List, Meta, NotKept, ObjectKey, OwnerReference, Time,
};
pub use name::Name;
pub use namespace::{Namespace, NamespaceSpec, NamespaceStatus};
pub use node::{CordonWritten, Node, NodeSpec, NodeStatus, Readiness, Taint};
pub use object::KindVisitor;
pub use object::{Object, Slim};
pub use persistent_volume_claim::{ClaimSpec, ClaimStatus, PersistentVolumeClaim};
pub(crate) use pod::host_ports;
pub use pod::{
    ContainerKind, ContainerPort, ContainerSpec, ContainerState, ContainerStatus, HostPort, Pod,
    PodCondition, PodConditions, PodPhase, PodResourceClaim, PodResourceClaimStatus, PodSpec,
    PodStatus, RareStatus, ResizeConditions, Running, SchedulingGate, Terminated, VolumeClaim,
    Waiting,
};
pub use pod_disruption_budget::{BudgetSpec, BudgetStatus, IntOrPercent, PodDisruptionBudget};
pub use selector::{
    Affinity, LabelSelector, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    TemplateLabels, Toleration,
};
pub use time::unix_seconds;
pub use uid::Uid;
pub use workload::{
    DaemonSet, DaemonSetSpec, DaemonSetStatus, Deployment, DeploymentSpec, DeploymentStrategy,
    PodTemplate, PodTemplateSpec, ReplicaSet, StatefulSet, StatefulSetSpec, StatefulSetStatus,
};
