//! What the rule pack says of each alert (severity, summary), read from the
//! generated `alerts/kube-lifecycle.rules.yaml` embedded at build time, so the
//! runbook pages never restate the mixin.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::diagnosis::Runbook;

const RULES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/alerts/kube-lifecycle.rules.yaml"
));

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AlertRule {
    pub severity: String,
    pub summary: String,
}

#[derive(Deserialize)]
struct File {
    groups: Vec<Group>,
}

#[derive(Deserialize)]
struct Group {
    rules: Vec<Rule>,
}

#[derive(Deserialize)]
struct Rule {
    alert: Option<String>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
}

fn parse(text: &str) -> BTreeMap<String, AlertRule> {
    // The file is generated and checked by the mixin's tests; an unreadable
    // copy leaves the pages without severities rather than failing a request.
    let Ok(file) = serde_saphyr::from_str::<File>(text) else {
        return BTreeMap::new();
    };
    file.groups
        .into_iter()
        .flat_map(|g| g.rules)
        .filter_map(|mut r| {
            Some((
                r.alert?,
                AlertRule {
                    severity: r.labels.remove("severity").unwrap_or_default(),
                    summary: r.annotations.remove("summary").unwrap_or_default(),
                },
            ))
        })
        .collect()
}

/// The rule of `runbook`'s alert.
pub(crate) fn rule(runbook: Runbook) -> Option<&'static AlertRule> {
    static RULES_BY_ALERT: OnceLock<BTreeMap<String, AlertRule>> = OnceLock::new();
    RULES_BY_ALERT
        .get_or_init(|| parse(RULES))
        .get(runbook.alert())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runbook_has_a_severity_and_a_summary_in_the_rule_pack() {
        for &runbook in Runbook::ALL {
            let rule = rule(runbook).unwrap_or_else(|| panic!("{runbook} not in the rules"));
            assert!(
                // `none`: the alert that never notifies, only inhibits.
                ["critical", "warning", "info", "none"].contains(&rule.severity.as_str()),
                "{runbook}: {rule:?}"
            );
            assert!(rule.summary.ends_with('.'), "{runbook}: {rule:?}");
        }
        assert_eq!(rule(Runbook::NodeLost).unwrap().severity, "critical");
        assert_eq!(
            rule(Runbook::PodTerminatingFinalizers).unwrap().summary,
            "A pod is held in Terminating by finalizers."
        );
    }
}
