//! The slim Node: readiness, taints and labels (for DaemonSet placement).

use serde::{Deserialize, Deserializer};

use super::meta::{Condition, ConditionStatus, Labels, Meta, nullable};

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Node {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta<Labels>,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: NodeSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: NodeStatus,
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
pub struct Taint {
    #[serde(default, deserialize_with = "nullable")]
    pub key: String,
    #[serde(default, deserialize_with = "nullable")]
    pub value: String,
    #[serde(default, deserialize_with = "nullable")]
    pub effect: String,
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
}

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
        assert_eq!(node.status.ready.unwrap().reason, "NodeStatusUnknown");
        assert_eq!(node.metadata.labels["kubernetes.io/hostname"], "n1");
    }
}
