//! The slim PodDisruptionBudget (policy/v1) and what it selects: a budget's
//! selector, how many disruptions it allows now (`status.disruptionsAllowed`,
//! what the eviction API checks) and why, and the labels a controller's pods
//! carry (its template's), which is how the model tells the pods a budget
//! covers without keeping every pod's labels.

use serde::{Deserialize, Deserializer};

use super::meta::{Condition, ConditionStatus, Labels, Meta, nullable};
use super::selector::LabelSelector;

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PodDisruptionBudget {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: BudgetSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: BudgetStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetSpec {
    #[serde(default)]
    pub min_available: Option<IntOrPercent>,
    #[serde(default)]
    pub max_unavailable: Option<IntOrPercent>,
    /// `None` selects no pod; an empty selector every pod of the namespace
    /// (policy/v1; policy/v1beta1 read an empty one as none).
    #[serde(default)]
    pub selector: Option<LabelSelector>,
    /// `IfHealthyBudget` (the default) or `AlwaysAllow` (1.26+): whether a
    /// running pod that is not Ready may be evicted while the budget allows
    /// no disruption.
    #[serde(default, deserialize_with = "nullable")]
    pub unhealthy_pod_eviction_policy: String,
}

/// `minAvailable` / `maxUnavailable`: a count or a percentage of the pods
/// the budget covers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum IntOrPercent {
    Int(i32),
    Text(String),
}

impl IntOrPercent {
    /// Whether it is zero (`0`, `"0"`, `"0%"`).
    pub(crate) fn is_zero(&self) -> bool {
        match self {
            IntOrPercent::Int(n) => *n == 0,
            IntOrPercent::Text(t) => t.trim_end_matches('%').trim() == "0",
        }
    }

    /// Whether it is all of `pods` (`"100%"`, or a count at least `pods`).
    pub(crate) fn is_all_of(&self, pods: i32) -> bool {
        match self {
            IntOrPercent::Int(n) => *n >= pods,
            IntOrPercent::Text(t) => {
                t.trim() == "100%" || t.trim().parse().is_ok_and(|n: i32| n >= pods)
            }
        }
    }
}

impl std::fmt::Display for IntOrPercent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntOrPercent::Int(n) => write!(f, "{n}"),
            IntOrPercent::Text(t) => f.write_str(t),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetStatus {
    #[serde(default, deserialize_with = "nullable")]
    pub disruptions_allowed: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub current_healthy: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub desired_healthy: i32,
    #[serde(default, deserialize_with = "nullable")]
    pub expected_pods: i32,
    /// The disruption controller's `DisruptionAllowed` condition when False
    /// (reason `InsufficientPods`, or `SyncFailed` with its error).
    #[serde(rename = "conditions", default, deserialize_with = "not_allowed")]
    pub not_allowed: Option<Box<Condition>>,
}

fn not_allowed<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Box<Condition>>, D::Error> {
    let all: Vec<Condition> = nullable(deserializer)?;
    Ok(all
        .into_iter()
        .find(|c| c.type_ == "DisruptionAllowed" && c.status == ConditionStatus::False)
        .map(Box::new))
}

impl PodDisruptionBudget {
    /// Whether it selects a pod with `labels`.
    pub(crate) fn selects(&self, labels: &Labels) -> bool {
        self.spec
            .selector
            .as_ref()
            .is_some_and(|s| s.matches(labels))
    }

    /// Whether an unhealthy (running, not Ready) pod it covers may be
    /// evicted although it allows no disruption: with `AlwaysAllow`, or
    /// with the default policy while the budget is healthy (pkg/registry/
    /// core/pod/storage/eviction.go).
    pub(crate) fn evicts_unhealthy(&self) -> bool {
        self.spec.unhealthy_pod_eviction_policy == "AlwaysAllow"
            || (self.status.desired_healthy > 0
                && self.status.current_healthy >= self.status.desired_healthy)
    }

    /// Whether it allows no disruption even with every pod it covers
    /// healthy: `maxUnavailable: 0`, `minAvailable` all of them, or (a
    /// percentage rounded up over few pods) none allowed while all are.
    pub(crate) fn allows_none_by_design(&self) -> bool {
        let s = &self.status;
        let pods = s.expected_pods;
        self.spec
            .max_unavailable
            .as_ref()
            .is_some_and(IntOrPercent::is_zero)
            || self
                .spec
                .min_available
                .as_ref()
                .is_some_and(|m| pods > 0 && m.is_all_of(pods))
            || (pods > 0 && s.current_healthy >= pods && s.disruptions_allowed == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(json: &str) -> PodDisruptionBudget {
        serde_json::from_str(json).unwrap()
    }

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn selectors_match_labels_and_expressions() {
        let b = budget(
            r#"{"spec":{"selector":{"matchLabels":{"app":"db"},
                "matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]},
                                    {"key":"canary","operator":"DoesNotExist"}]}}}"#,
        );
        assert!(b.selects(&labels(&[("app", "db"), ("tier", "a")])));
        assert!(!b.selects(&labels(&[("app", "db"), ("tier", "c")])));
        assert!(!b.selects(&labels(&[("app", "db"), ("tier", "a"), ("canary", "1")])));
        assert!(!b.selects(&labels(&[("tier", "a")])));
        // No selector: no pod; an empty one: every pod (policy/v1).
        assert!(!budget(r#"{"spec":{}}"#).selects(&labels(&[("app", "db")])));
        assert!(budget(r#"{"spec":{"selector":{}}}"#).selects(&labels(&[])));
    }

    #[test]
    fn a_budget_that_allows_none_by_design_is_told_from_one_short_of_healthy_pods() {
        let all = budget(
            r#"{"spec":{"minAvailable":3,"selector":{}},
                "status":{"disruptionsAllowed":0,"currentHealthy":3,"desiredHealthy":3,"expectedPods":3}}"#,
        );
        assert!(all.allows_none_by_design());
        let zero = budget(r#"{"spec":{"maxUnavailable":"0%"},"status":{"expectedPods":2}}"#);
        assert!(zero.allows_none_by_design());
        let short = budget(
            r#"{"spec":{"minAvailable":"50%"},
                "status":{"disruptionsAllowed":0,"currentHealthy":1,"desiredHealthy":2,"expectedPods":4}}"#,
        );
        assert!(!short.allows_none_by_design());
        assert!(!short.evicts_unhealthy());
        // 50% of one pod rounds up to it: all healthy, none allowed.
        let half_of_one = budget(
            r#"{"spec":{"minAvailable":"50%"},
                "status":{"disruptionsAllowed":0,"currentHealthy":1,"desiredHealthy":1,"expectedPods":1}}"#,
        );
        assert!(half_of_one.allows_none_by_design());
        let always: PodDisruptionBudget = budget(
            r#"{"spec":{"minAvailable":"50%","unhealthyPodEvictionPolicy":"AlwaysAllow"},
                "status":{"currentHealthy":1,"desiredHealthy":2,"expectedPods":4,
                  "conditions":[{"type":"DisruptionAllowed","status":"False","reason":"InsufficientPods"}]}}"#,
        );
        assert!(always.evicts_unhealthy());
        assert_eq!(
            always.status.not_allowed.unwrap().reason,
            "InsufficientPods"
        );
    }
}
