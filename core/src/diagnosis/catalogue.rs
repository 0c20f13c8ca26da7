//! The catalogue: every family, anomaly, cause, metric and alert, as the code
//! declares them, in one document. The binary prints it
//! (`kube-lifecycle-exporter catalogue`); the mixin imports its JSON instead of
//! restating cause lists, and the documentation's generated blocks
//! (`docs/causes.md`, `docs/metrics.md`) are rendered from it.

use serde::Serialize;

use super::metric::{FINDINGS_HELP, FINDINGS_METRIC, FOLDED_HELP, FOLDED_METRIC, Identity};
use super::roots::ROOT_FAMILIES;
use super::{Anomaly, Cause, FAMILIES, ProbeFailure, RootCause, RootKind, Runbook, VictimKind};
use crate::model::Kind;

#[derive(Debug, Serialize)]
pub struct Catalogue {
    pub families: Vec<FamilyEntry>,
    pub anomalies: Vec<AnomalyEntry>,
    pub causes: Vec<CauseEntry>,
    /// Label vocabularies other than `cause` (`probe_failure`).
    pub labels: Vec<LabelEntry>,
    pub metrics: Vec<MetricEntry>,
    pub alerts: Vec<AlertEntry>,
    /// What a root cause can be, why it explains, and what its victims are.
    pub roots: RootsEntry,
}

#[derive(Debug, Serialize)]
pub struct RootsEntry {
    pub kinds: Vec<LabelEntry>,
    pub causes: Vec<RootCauseEntry>,
    pub victims: Vec<VictimEntry>,
}

#[derive(Debug, Serialize)]
pub struct RootCauseEntry {
    pub root_cause: &'static str,
    /// What its roots are (none for a pod template: its workload's kind).
    pub root_kind: Option<&'static str>,
    /// The alert that speaks for it (none for a pod template: its verdict's).
    pub alert: Option<&'static str>,
    pub description: &'static str,
}

#[derive(Debug, Serialize)]
pub struct VictimEntry {
    pub victim_kind: &'static str,
    pub description: &'static str,
    /// The labels naming one, as kube-state-metrics (and so the
    /// kubernetes-mixin's alerts) name the object.
    pub labels: &'static [&'static str],
}

#[derive(Debug, Serialize)]
pub struct FamilyEntry {
    pub family: &'static str,
    pub anomalies: Vec<&'static str>,
    pub metrics: Vec<&'static str>,
}

#[derive(Debug, Serialize)]
pub struct AnomalyEntry {
    pub anomaly: &'static str,
    pub family: &'static str,
    pub description: &'static str,
}

#[derive(Debug, Serialize)]
pub struct CauseEntry {
    pub anomaly: &'static str,
    pub cause: &'static str,
    pub description: &'static str,
    /// The alert whose runbook explains it.
    pub alert: &'static str,
    /// Whether its findings raise that alert (not a quiet cause).
    pub alerted: bool,
    /// What else is known of it: the groups alerts count (`node_lost`,
    /// `registry_transport`, `registry_content`, `sandbox`), `quiet`.
    pub tags: &'static [&'static str],
}

#[derive(Debug, Serialize)]
pub struct LabelEntry {
    pub label: &'static str,
    pub value: &'static str,
    pub description: &'static str,
}

#[derive(Debug, Serialize)]
pub struct MetricEntry {
    pub metric: &'static str,
    #[serde(rename = "type")]
    pub type_: &'static str,
    pub help: &'static str,
    /// The labels naming the object; where there are several, the one the
    /// object's kind calls for (`deployment`, `statefulset` or `job_name`).
    pub object_labels: Vec<Vec<&'static str>>,
    /// The family's own labels, after the object's.
    pub labels: Vec<&'static str>,
    pub anomalies: Vec<&'static str>,
    pub family: Option<&'static str>,
    pub example: &'static str,
}

#[derive(Debug, Serialize)]
pub struct AlertEntry {
    pub alert: &'static str,
    pub runbook: String,
    /// What one of its alerts is about: `pod`, `workload`, `namespace`,
    /// `node`, `registry`, `cluster` or `exporter`.
    pub scope: &'static str,
    /// The causes it fires on, per anomaly (empty for the exporter's own).
    pub causes: Vec<AlertCause>,
}

#[derive(Debug, Serialize)]
pub struct AlertCause {
    pub anomaly: &'static str,
    pub cause: &'static str,
}

/// The object labels of an identity: one list, or one per kind it names.
fn object_labels(identity: Identity) -> Vec<Vec<&'static str>> {
    match identity {
        Identity::Workload => [Kind::Deployment, Kind::StatefulSet, Kind::Job]
            .iter()
            .map(|k| identity.labels(*k).to_vec())
            .collect(),
        _ => vec![identity.labels(Kind::Pod).to_vec()],
    }
}

/// Every metric family: the two about all findings, then each family's.
fn metric_entries() -> Vec<MetricEntry> {
    let mut metrics = vec![
        MetricEntry {
            metric: FINDINGS_METRIC,
            type_: "gauge",
            help: FINDINGS_HELP,
            object_labels: vec![],
            labels: vec!["anomaly", "cause"],
            anomalies: Anomaly::ALL.iter().map(|a| a.as_str()).collect(),
            family: None,
            example: "sum by (anomaly) (kube_lifecycle_findings)",
        },
        MetricEntry {
            metric: FOLDED_METRIC,
            type_: "gauge",
            help: FOLDED_HELP,
            object_labels: vec![],
            labels: vec!["family"],
            anomalies: vec![],
            family: None,
            example: "max by (family) (kube_lifecycle_series_folded) > 0",
        },
    ];
    for family in ROOT_FAMILIES {
        metrics.push(MetricEntry {
            metric: family.name,
            type_: "gauge",
            help: family.help,
            object_labels: vec![],
            labels: family.labels.to_vec(),
            anomalies: vec![],
            family: None,
            example: family.example,
        });
    }
    for family in FAMILIES {
        for m in family.metrics {
            metrics.push(MetricEntry {
                metric: m.name,
                type_: "gauge",
                help: m.help,
                object_labels: object_labels(m.identity),
                labels: m.labels.to_vec(),
                anomalies: m.anomalies.iter().map(|a| a.as_str()).collect(),
                family: Some(family.name),
                example: m.example,
            });
        }
    }
    metrics
}

/// Every alert, with the causes it fires on.
fn alert_entries() -> Vec<AlertEntry> {
    Runbook::ALL
        .iter()
        .map(|r| AlertEntry {
            alert: r.alert(),
            runbook: r.path(),
            scope: r.scope().as_str(),
            causes: r
                .fires_on()
                .into_iter()
                .map(|c| AlertCause {
                    anomaly: c.anomaly().as_str(),
                    cause: c.as_str(),
                })
                .collect(),
        })
        .collect()
}

impl Catalogue {
    pub fn new() -> Self {
        let family_of = |anomaly: Anomaly| {
            FAMILIES
                .iter()
                .find(|f| f.anomalies.contains(&anomaly))
                .map_or("", |f| f.name)
        };
        Catalogue {
            families: FAMILIES
                .iter()
                .map(|f| FamilyEntry {
                    family: f.name,
                    anomalies: f.anomalies.iter().map(|a| a.as_str()).collect(),
                    metrics: f.metrics.iter().map(|m| m.name).collect(),
                })
                .collect(),
            anomalies: Anomaly::ALL
                .iter()
                .map(|a| AnomalyEntry {
                    anomaly: a.as_str(),
                    family: family_of(*a),
                    description: a.description(),
                })
                .collect(),
            causes: Cause::all()
                .map(|c| CauseEntry {
                    anomaly: c.anomaly().as_str(),
                    cause: c.as_str(),
                    description: c.description(),
                    alert: c.runbook().alert(),
                    alerted: c.alerted(),
                    tags: c.tags(),
                })
                .collect(),
            labels: ProbeFailure::ALL
                .iter()
                .map(|p| LabelEntry {
                    label: "probe_failure",
                    value: p.as_str(),
                    description: p.description(),
                })
                .collect(),
            metrics: metric_entries(),
            alerts: alert_entries(),
            roots: RootsEntry {
                kinds: RootKind::ALL
                    .iter()
                    .map(|k| LabelEntry {
                        label: "root_kind",
                        value: k.as_str(),
                        description: k.description(),
                    })
                    .collect(),
                causes: RootCause::ALL
                    .iter()
                    .map(|c| RootCauseEntry {
                        root_cause: c.as_str(),
                        root_kind: c.kind().map(RootKind::as_str),
                        alert: c.alert().map(Runbook::alert),
                        description: c.description(),
                    })
                    .collect(),
                victims: VictimKind::ALL
                    .iter()
                    .map(|k| VictimEntry {
                        victim_kind: k.as_str(),
                        description: k.description(),
                        labels: k.labels(),
                    })
                    .collect(),
            },
        }
    }

    /// As pretty JSON, ending in a newline.
    pub fn json(&self) -> String {
        // Serializing strings, booleans and lists of them cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// The vocabulary as markdown: one table per anomaly, then the other label
    /// vocabularies (the generated block of `docs/causes.md`).
    pub fn causes_markdown(&self) -> String {
        let mut out = String::new();
        for anomaly in &self.anomalies {
            out.push_str(&format!(
                "### `{}`\n\n{}\n\n",
                anomaly.anomaly, anomaly.description
            ));
            out.push_str("| cause | meaning |\n|---|---|\n");
            for cause in self.causes.iter().filter(|c| c.anomaly == anomaly.anomaly) {
                out.push_str(&format!("| `{}` | {} |\n", cause.cause, cause.description));
            }
            out.push('\n');
        }
        out.push_str("### label `probe_failure`\n\nWhat a failing probe's message says, on `crash_loop` findings caused by a probe and on `pod_not_ready` findings with probe evidence.\n\n| probe_failure | meaning |\n|---|---|\n");
        for label in &self.labels {
            out.push_str(&format!("| `{}` | {} |\n", label.value, label.description));
        }
        out.push('\n');
        out
    }

    /// The root causes' vocabularies as markdown (the generated block of
    /// `docs/causes.md`'s "Root causes").
    pub fn roots_markdown(&self) -> String {
        let mut out = String::from(
            "### label `root_kind`: what a root cause is\n\n| root_kind | meaning |\n|---|---|\n",
        );
        for e in &self.roots.kinds {
            out.push_str(&format!("| `{}` | {} |\n", e.value, e.description));
        }
        out.push_str("\n### label `root_cause`: why it explains its victims\n\n| root_cause | root_kind | alert | meaning |\n|---|---|---|---|\n");
        let or_dash = |v: Option<&str>| v.map_or("-".to_string(), |v| format!("`{v}`"));
        for c in &self.roots.causes {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                c.root_cause,
                c.root_kind
                    .map_or("the workload's".to_string(), |k| format!("`{k}`")),
                c.alert
                    .map_or("its verdict's".to_string(), |a| or_dash(Some(a))),
                c.description
            ));
        }
        out.push('\n');
        out.push_str("### label `victim_kind`: what a victim is\n\n| victim_kind | labels | meaning |\n|---|---|---|\n");
        for v in &self.roots.victims {
            let labels: Vec<String> = v.labels.iter().map(|l| format!("`{l}`")).collect();
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                v.victim_kind,
                labels.join(", "),
                v.description
            ));
        }
        out.push('\n');
        out
    }

    /// The metric families as markdown (the generated block of `docs/metrics.md`).
    pub fn metrics_markdown(&self) -> String {
        let mut out = String::new();
        for m in &self.metrics {
            let object: Vec<String> = match m.object_labels.as_slice() {
                [] => vec![],
                [one] => one.iter().map(|l| format!("`{l}`")).collect(),
                several => {
                    let first = several[0].first().copied().unwrap_or_default();
                    let alternatives: Vec<String> = several
                        .iter()
                        .filter_map(|labels| labels.get(1).map(|l| format!("`{l}`")))
                        .collect();
                    let last = alternatives.len().saturating_sub(1);
                    vec![format!(
                        "`{first}`, {} or {}",
                        alternatives[..last].join(", "),
                        alternatives[last]
                    )]
                }
            };
            let labels: Vec<String> = object
                .into_iter()
                .chain(m.labels.iter().map(|l| format!("`{l}`")))
                .collect();
            let anomalies = match m.family {
                Some(_) => {
                    let list: Vec<String> = m
                        .anomalies
                        .iter()
                        .map(|a| format!("anomaly `{a}`"))
                        .collect();
                    format!(" · {}", list.join(", "))
                }
                None => String::new(),
            };
            let help = if m.metric == FINDINGS_METRIC {
                "Current findings by anomaly and cause. Every pair of the vocabulary is always present, 0 when there is no such finding."
            } else {
                m.help
            };
            out.push_str(&format!(
                "### `{}`\n\ngauge{anomalies} · labels: {}\n\n{help}\n\n```promql\n{}\n```\n\n",
                m.metric,
                labels.join(", "),
                m.example
            ));
        }
        out
    }
}

impl Default for Catalogue {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cause_is_listed_once_with_its_alert_and_every_alert_names_its_causes() {
        let catalogue = Catalogue::new();
        let causes: usize = Anomaly::ALL.iter().map(|a| a.causes().len()).sum();
        assert_eq!(catalogue.causes.len(), causes);
        let node_lost = catalogue
            .alerts
            .iter()
            .find(|a| a.alert == "KubeLifecycleNodeLost")
            .unwrap();
        let names: Vec<&str> = node_lost.causes.iter().map(|c| c.cause).collect();
        assert_eq!(names, ["node_not_ready", "node_missing"]);
        // A quiet cause is explained by a runbook and raises nothing.
        let graceful = catalogue
            .causes
            .iter()
            .find(|c| c.anomaly == "pod_terminating" && c.cause == "graceful")
            .unwrap();
        assert!(!graceful.alerted);
        assert!(catalogue.alerts.iter().all(|a| {
            !a.causes
                .iter()
                .any(|c| c.anomaly == "pod_terminating" && c.cause == "graceful")
        }));
        // Every metric family of every anomaly family, and the two totals.
        let per_family: usize = FAMILIES.iter().map(|f| f.metrics.len()).sum();
        assert_eq!(
            catalogue.metrics.len(),
            per_family + 2 + ROOT_FAMILIES.len()
        );
        let parsed: serde_json::Value = serde_json::from_str(&catalogue.json()).unwrap();
        assert!(parsed["families"].as_array().unwrap().len() >= 10);
    }
}
