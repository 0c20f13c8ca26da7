//! The slim Node: readiness, taints and labels (for DaemonSet placement),
//! and whether and since when it is cordoned or being drained.

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::meta::{Condition, ConditionStatus, Labels, Meta, Time, nullable};

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Node {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta<Labels, CordonWritten>,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: NodeSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: NodeStatus,
}

/// When a node's cordon or taints were last written: the latest
/// `metadata.managedFields` entry that owns `spec.unschedulable` or
/// `spec.taints` (`kubectl cordon`'s, the node controller's taint after
/// it, an autoscaler's). Nothing else in a Node dates a cordon; `kubectl
/// get -o json` leaves managedFields out, the watch carries them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CordonWritten(Option<Time>);

impl<'de> Deserialize<'de> for CordonWritten {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        cordon_written(deserializer).map(CordonWritten)
    }
}

/// A `managedFields` entry, down to its time and whether it owns
/// `spec.unschedulable` or `spec.taints`.
#[derive(Deserialize)]
struct ManagedFields {
    #[serde(default, deserialize_with = "super::time::optional")]
    time: Option<Time>,
    #[serde(rename = "fieldsV1", default)]
    fields: Option<OwnedFields>,
}

#[derive(Deserialize)]
struct OwnedFields {
    #[serde(rename = "f:spec", default)]
    spec: Option<OwnedSpecFields>,
}

#[derive(Deserialize)]
struct OwnedSpecFields {
    #[serde(rename = "f:unschedulable", default)]
    unschedulable: Option<IgnoredAny>,
    #[serde(rename = "f:taints", default)]
    taints: Option<IgnoredAny>,
}

fn cordon_written<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Time>, D::Error> {
    let all: Vec<ManagedFields> = nullable(deserializer)?;
    Ok(all
        .into_iter()
        .filter(|m| {
            m.fields
                .as_ref()
                .and_then(|f| f.spec.as_ref())
                .is_some_and(|s| s.unschedulable.is_some() || s.taints.is_some())
        })
        .filter_map(|m| m.time)
        .max())
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSpec {
    #[serde(default, deserialize_with = "nullable")]
    pub unschedulable: bool,
    #[serde(default, deserialize_with = "nullable")]
    pub taints: Vec<Taint>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Taint {
    #[serde(default, deserialize_with = "nullable")]
    pub key: String,
    #[serde(default, deserialize_with = "nullable")]
    pub value: String,
    #[serde(default, deserialize_with = "nullable")]
    pub effect: String,
    /// Written for NoExecute taints only.
    #[serde(default, deserialize_with = "super::time::optional")]
    pub time_added: Option<Time>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct NodeStatus {
    /// Only the `Ready` condition is kept.
    #[serde(default, rename = "conditions", deserialize_with = "ready_condition")]
    pub ready: Option<Condition>,
}

fn ready_condition<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Condition>, D::Error> {
    let all: Vec<Condition> = nullable(deserializer)?;
    Ok(all.into_iter().find(|c| c.type_ == "Ready"))
}

/// How the API sees a node's kubelet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    /// `Ready=False`: the kubelet reports, and reports a problem.
    NotReady,
    /// `Ready=Unknown` or no Ready condition: the kubelet stopped reporting.
    Unknown,
}

impl Node {
    /// Whether the node carries a taint with this key (any value, any effect).
    pub(crate) fn has_taint(&self, key: &str) -> bool {
        self.spec.taints.iter().any(|t| t.key == key)
    }

    pub fn readiness(&self) -> Readiness {
        match self.status.ready.as_ref().map(|c| c.status) {
            Some(ConditionStatus::True) => Readiness::Ready,
            Some(ConditionStatus::False) => Readiness::NotReady,
            Some(ConditionStatus::Unknown) | None => Readiness::Unknown,
        }
    }

    pub(crate) fn is_ready(&self) -> bool {
        self.readiness() == Readiness::Ready
    }

    /// Whether the node is being emptied: cordoned (`spec.unschedulable`, or
    /// the taint that mirrors it), or tainted by an autoscaler draining it
    /// (cluster-autoscaler's `ToBeDeletedByClusterAutoscaler`, Karpenter's
    /// `karpenter.sh/disrupted` and, before v1, `karpenter.sh/disruption`).
    pub(crate) fn is_draining(&self) -> bool {
        self.spec.unschedulable || DRAIN_TAINTS.iter().any(|k| self.has_taint(k))
    }

    /// When the node began to be emptied, where the node says: the write of
    /// its cordon, or cluster-autoscaler's taint (its value is the Unix time
    /// it was added).
    pub(crate) fn draining_since(&self) -> Option<Time> {
        if !self.is_draining() {
            return None;
        }
        let autoscaler = self
            .spec
            .taints
            .iter()
            .filter(|t| t.key == CLUSTER_AUTOSCALER_DELETION)
            .find_map(|t| {
                t.time_added.or_else(|| {
                    t.value
                        .parse::<i64>()
                        .ok()
                        .and_then(|s| Time::from_second(s).ok())
                })
            });
        let cordoned = self.metadata.managed_fields.0;
        [cordoned, autoscaler].into_iter().flatten().min()
    }
}

const CLUSTER_AUTOSCALER_DELETION: &str = "ToBeDeletedByClusterAutoscaler";

/// The taints of a drained node: the node controller's for a cordon (where
/// a dump leaves `spec.unschedulable` out), the autoscalers' that drain it.
const DRAIN_TAINTS: [&str; 4] = [
    "node.kubernetes.io/unschedulable",
    CLUSTER_AUTOSCALER_DELETION,
    "karpenter.sh/disrupted",
    "karpenter.sh/disruption",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_that_stopped_posting_status_is_unknown() {
        let node: Node = serde_json::from_str(
            r#"{"metadata":{"name":"n1","labels":{"kubernetes.io/hostname":"n1"}},
                "status":{"conditions":[
                  {"type":"MemoryPressure","status":"Unknown"},
                  {"type":"Ready","status":"Unknown","reason":"NodeStatusUnknown",
                   "message":"Kubelet stopped posting node status."}]}}"#,
        )
        .unwrap();
        assert_eq!(node.readiness(), Readiness::Unknown);
        assert!(!node.is_draining());
        assert_eq!(node.status.ready.unwrap().reason, "NodeStatusUnknown");
        assert_eq!(node.metadata.labels["kubernetes.io/hostname"], "n1");
    }

    #[test]
    fn a_cordon_is_dated_by_the_managed_fields_entry_that_wrote_it() {
        let node: Node = serde_json::from_str(
            r#"{"metadata":{"name":"n1","managedFields":[
                  {"manager":"kubelet","operation":"Update","time":"2024-05-01T09:00:00Z",
                   "fieldsV1":{"f:status":{"f:conditions":{}}}},
                  {"manager":"kubectl-cordon","operation":"Update","time":"2024-05-01T10:00:00Z",
                   "fieldsV1":{"f:spec":{"f:unschedulable":{}}}}]},
                "spec":{"unschedulable":true,"taints":[
                  {"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule","timeAdded":null}]}}"#,
        )
        .unwrap();
        assert!(node.is_draining());
        assert_eq!(
            node.draining_since().unwrap().to_string(),
            "2024-05-01T10:00:00Z"
        );
        // Uncordoned since: the old entry dates nothing.
        let uncordoned: Node = serde_json::from_str(
            r#"{"metadata":{"name":"n1","managedFields":[
                  {"manager":"kubectl-cordon","time":"2024-05-01T10:00:00Z",
                   "fieldsV1":{"f:spec":{"f:unschedulable":{}}}}]},"spec":{}}"#,
        )
        .unwrap();
        assert!(!uncordoned.is_draining());
        assert_eq!(uncordoned.draining_since(), None);
    }

    #[test]
    fn an_autoscaler_taint_marks_a_drain_and_cluster_autoscaler_dates_it() {
        let node: Node = serde_json::from_str(
            r#"{"metadata":{"name":"n1"},"spec":{"taints":[
                  {"key":"ToBeDeletedByClusterAutoscaler","value":"1714557600","effect":"NoSchedule"}]}}"#,
        )
        .unwrap();
        assert!(node.is_draining());
        assert_eq!(
            node.draining_since().unwrap().to_string(),
            "2024-05-01T10:00:00Z"
        );
        let karpenter: Node = serde_json::from_str(
            r#"{"spec":{"taints":[{"key":"karpenter.sh/disrupted","effect":"NoSchedule"}]}}"#,
        )
        .unwrap();
        assert!(karpenter.is_draining());
        assert_eq!(karpenter.draining_since(), None);
    }
}
