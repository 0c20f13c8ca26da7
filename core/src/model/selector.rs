//! What selects what: a label selector (a PodDisruptionBudget's) and the
//! template labels it is matched against, and the node affinity and
//! tolerations that say where a pod may run. Shared by the kinds that carry
//! them (pods, controllers' templates, budgets), so none imports another for
//! them.

use serde::Deserialize;

use super::meta::{Labels, nullable};

/// A label selector (`matchLabels` and `matchExpressions`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(default, deserialize_with = "nullable")]
    pub match_labels: Labels,
    #[serde(default, deserialize_with = "nullable")]
    /// `In`, `NotIn`, `Exists`, `DoesNotExist`: a node selector's shape.
    pub match_expressions: Vec<NodeSelectorRequirement>,
}

impl LabelSelector {
    /// Whether `labels` satisfy every term (apimachinery's
    /// `LabelSelectorAsSelector`; an unknown operator matches nothing, as
    /// the API would have refused it).
    pub fn matches(&self, labels: &Labels) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|r| {
                let value = labels.get(&r.key);
                match r.operator.as_str() {
                    "In" => value.is_some_and(|v| r.values.contains(v)),
                    "NotIn" => value.is_none_or(|v| !r.values.contains(v)),
                    "Exists" => value.is_some(),
                    "DoesNotExist" => value.is_none(),
                    _ => false,
                }
            })
    }
}

/// The labels a controller gives its pods: its template's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct TemplateLabels {
    #[serde(default, deserialize_with = "nullable")]
    metadata: TemplateMeta,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
struct TemplateMeta {
    #[serde(default, deserialize_with = "nullable")]
    labels: Labels,
}

impl TemplateLabels {
    pub fn labels(&self) -> &Labels {
        &self.metadata.labels
    }
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
