//! Which nodes a pod template, or an unbound pod, may run on: nodeSelector,
//! required node affinity and taints against tolerations, with the
//! tolerations the DaemonSet controller adds to every daemon pod.

use crate::model::{
    Affinity, Labels, Node, NodeSelectorRequirement, Pod, PodTemplateSpec, Taint, Toleration,
};

/// Tolerations the DaemonSet controller adds to its pods
/// (pkg/controller/daemon/util: AddOrUpdateDaemonPodTolerations).
const DAEMON_TOLERATED: &[(&str, &str)] = &[
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
];
/// Added only to host-network daemon pods.
const DAEMON_TOLERATED_HOST_NETWORK: (&str, &str) =
    ("node.kubernetes.io/network-unavailable", "NoSchedule");

/// Whether the DaemonSet controller would place a pod of `template` on `node`.
pub(super) fn daemon_pod_fits(template: &PodTemplateSpec, node: &Node) -> bool {
    selector_matches(template, node)
        && node.spec.taints.iter().all(|taint| {
            !repels(taint)
                || tolerated(&template.tolerations, taint)
                || DAEMON_TOLERATED
                    .iter()
                    .chain(
                        template
                            .host_network
                            .then_some(&DAEMON_TOLERATED_HOST_NETWORK),
                    )
                    .any(|(key, effect)| taint.key == *key && taint.effect == *effect)
        })
}

/// Taints that keep pods off a node (PreferNoSchedule only discourages).
fn repels(taint: &Taint) -> bool {
    matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute")
}

/// Whether any toleration matches the taint (core/v1 `Toleration.ToleratesTaint`).
pub(super) fn tolerated(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| {
        let effect_ok = t.effect.is_empty() || t.effect == taint.effect;
        let key_ok = (t.key.is_empty() && t.operator == "Exists") || t.key == taint.key;
        let value_ok = match t.operator.as_str() {
            "Exists" => true,
            _ => t.value == taint.value,
        };
        effect_ok && key_ok && value_ok
    })
}

/// nodeSelector and required node affinity.
pub(super) fn selector_matches(template: &PodTemplateSpec, node: &Node) -> bool {
    asks_for(&template.node_selector, &template.affinity, node)
}

/// Whether a pod's own nodeSelector and required node affinity admit `node`
/// (an unbound pod's: [`Pod::placement`](crate::model::Pod)); `true` for a
/// pod that asks for nothing.
pub(super) fn pod_may_use(pod: &Pod, node: &Node) -> bool {
    pod.spec
        .placement()
        .is_none_or(|p| asks_for(&p.node_selector, &p.affinity, node))
}

fn asks_for(node_selector: &Labels, affinity: &Affinity, node: &Node) -> bool {
    let labels = &node.metadata.labels;
    let selector_ok = node_selector.iter().all(|(k, v)| labels.get(k) == Some(v));
    let affinity_ok = match &affinity
        .node_affinity
        .required_during_scheduling_ignored_during_execution
    {
        None => true,
        // Terms are ORed; an empty term matches nothing.
        Some(selector) => selector.node_selector_terms.iter().any(|term| {
            (!term.match_expressions.is_empty() || !term.match_fields.is_empty())
                && term
                    .match_expressions
                    .iter()
                    .all(|r| requirement_holds(r, labels.get(&r.key).map(String::as_str)))
                && term.match_fields.iter().all(|r| {
                    let field = (r.key == "metadata.name").then_some(node.metadata.name.as_str());
                    requirement_holds(r, field)
                })
        }),
    };
    selector_ok && affinity_ok
}

fn requirement_holds(r: &NodeSelectorRequirement, value: Option<&str>) -> bool {
    let number = |s: &str| s.parse::<i64>().ok();
    match r.operator.as_str() {
        "In" => value.is_some_and(|v| r.values.iter().any(|x| x == v)),
        "NotIn" => value.is_none_or(|v| r.values.iter().all(|x| x != v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" | "Lt" => {
            let (Some(v), Some(bound)) = (
                value.and_then(number),
                r.values.first().and_then(|b| number(b)),
            ) else {
                return false;
            };
            if r.operator == "Gt" {
                v > bound
            } else {
                v < bound
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(json: &str) -> Node {
        serde_json::from_str(json).unwrap()
    }

    fn template(json: &str) -> PodTemplateSpec {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn control_plane_taint_keeps_plain_daemon_pods_off() {
        let master = node(
            r#"{"metadata":{"name":"m","labels":{"kubernetes.io/os":"linux"}},
                "spec":{"taints":[{"key":"node-role.kubernetes.io/control-plane","effect":"NoSchedule"}]}}"#,
        );
        assert!(!daemon_pod_fits(&template("{}"), &master));
        let tolerant = template(r#"{"tolerations":[{"operator":"Exists"}]}"#);
        assert!(daemon_pod_fits(&tolerant, &master));
        let keyed = template(
            r#"{"tolerations":[{"key":"node-role.kubernetes.io/control-plane","operator":"Exists","effect":"NoSchedule"}]}"#,
        );
        assert!(daemon_pod_fits(&keyed, &master));
    }

    #[test]
    fn daemon_pods_tolerate_cordoned_and_unreachable_nodes() {
        let cordoned = node(
            r#"{"metadata":{"name":"c"},"spec":{"unschedulable":true,"taints":[
                {"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule"},
                {"key":"node.kubernetes.io/unreachable","effect":"NoExecute"}]}}"#,
        );
        assert!(daemon_pod_fits(&template("{}"), &cordoned));
    }

    #[test]
    fn selector_and_affinity_are_both_required() {
        let n = node(r#"{"metadata":{"name":"n1","labels":{"disk":"ssd","gen":"5"}}}"#);
        assert!(selector_matches(
            &template(r#"{"nodeSelector":{"disk":"ssd"}}"#),
            &n
        ));
        assert!(!selector_matches(
            &template(r#"{"nodeSelector":{"disk":"hdd"}}"#),
            &n
        ));
        let affinity = |expr: &str| {
            template(&format!(
                r#"{{"affinity":{{"nodeAffinity":{{"requiredDuringSchedulingIgnoredDuringExecution":
                    {{"nodeSelectorTerms":[{{"matchExpressions":[{expr}]}}]}}}}}}}}"#
            ))
        };
        assert!(selector_matches(
            &affinity(r#"{"key":"gen","operator":"Gt","values":["4"]}"#),
            &n
        ));
        assert!(!selector_matches(
            &affinity(r#"{"key":"gen","operator":"Lt","values":["4"]}"#),
            &n
        ));
        assert!(selector_matches(
            &affinity(r#"{"key":"gpu","operator":"DoesNotExist"}"#),
            &n
        ));
        assert!(!selector_matches(
            &affinity(r#"{"key":"disk","operator":"NotIn","values":["ssd"]}"#),
            &n
        ));
        let by_name = template(
            r#"{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
                {"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]}}}}"#,
        );
        assert!(selector_matches(&by_name, &n));
    }
}
