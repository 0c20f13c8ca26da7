//! The embedded example (examples/incidents.yaml): its objects, and what its
//! header says comes of each incident, which the tests of the CLI, the plugin,
//! the live exporter and the alerts hold the exporter to. An incident's
//! expectations are written once, beside it.

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");

fn text() -> String {
    std::fs::read_to_string(PATH).unwrap()
}

/// An alert the example raises: its name and the labels that identify it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ExpectedAlert {
    pub name: String,
    pub labels: Vec<(String, String)>,
}

impl ExpectedAlert {
    /// `alert` (Alertmanager's or Prometheus's JSON) is this one.
    pub fn matches(&self, alert: &serde_json::Value) -> bool {
        alert["labels"]["alertname"] == self.name.as_str()
            && self
                .labels
                .iter()
                .all(|(k, v)| alert["labels"][k.as_str()] == v.as_str())
    }
}

/// An object whose deletion heals an incident.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deletion {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

/// What the header says of every incident, in its order.
#[derive(Debug, Default)]
pub struct Expected {
    /// `Kind namespace/name[container] anomaly cause` (`-` for no namespace).
    pub findings: Vec<String>,
    pub alerts: Vec<ExpectedAlert>,
    pub deletions: Vec<Deletion>,
}

/// The expectations of the example's header; panics, naming the line, on one
/// it cannot read (a typo must not pass as an expectation left out).
pub fn expected() -> Expected {
    parse(&text())
}

fn parse(text: &str) -> Expected {
    let mut expected = Expected::default();
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        let line = line.trim_start_matches('#').trim();
        if let Some(finding) = line.strip_prefix("finding:") {
            let finding = finding.trim();
            assert_eq!(finding.split(' ').count(), 4, "finding line: {line}");
            expected.findings.push(finding.to_string());
        } else if let Some(alert) = line.strip_prefix("alert:") {
            let mut words = alert.split_whitespace();
            let name = words.next().unwrap_or_else(|| panic!("alert line: {line}"));
            let labels: Vec<(String, String)> = words
                .map(|w| {
                    let (k, v) = w
                        .split_once('=')
                        .unwrap_or_else(|| panic!("alert label {w:?}: {line}"));
                    (k.to_string(), v.to_string())
                })
                .collect();
            assert!(!labels.is_empty(), "an alert names a label: {line}");
            expected.alerts.push(ExpectedAlert {
                name: name.to_string(),
                labels,
            });
        } else if let Some(deletion) = line.strip_prefix("healed by deleting:") {
            let words: Vec<&str> = deletion.split_whitespace().collect();
            let [api_version, kind, object] = words[..] else {
                panic!("deletion line: {line}");
            };
            let (namespace, name) = match object.split_once('/') {
                Some((ns, name)) => (Some(ns.to_string()), name.to_string()),
                None => (None, object.to_string()),
            };
            expected.deletions.push(Deletion {
                api_version: api_version.to_string(),
                kind: kind.to_string(),
                namespace,
                name,
            });
        }
    }
    expected
}

/// How many findings the embedded example makes as of its own moment: what
/// the tests of the CLI, the plugin and the live exporter count theirs
/// against (tests/process/diagnose_cli.rs holds them to the header's).
pub fn findings() -> usize {
    let loaded = kube_lifecycle_exporter::source::dump::load_str(&text()).unwrap();
    kube_lifecycle_exporter::diagnosis::diagnose(&loaded.cluster, loaded.now.unwrap()).len()
}

/// The objects of examples/incidents.yaml, as JSON values.
pub fn objects() -> Vec<serde_json::Value> {
    let list: serde_json::Value = serde_saphyr::from_str(&text()).unwrap();
    list["items"].as_array().unwrap().clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_are_read_and_the_objects_below_are_not() {
        let expected = parse(
            "# intro\n\
             #   ns/a   what happens\n\
             #     finding: Pod ns/a pod_pending insufficient_cpu\n\
             #     alert: KubeLifecyclePodUnschedulable pod=a cause=insufficient_cpu\n\
             #     healed by deleting: v1 Pod ns/a\n\
             #     healed by deleting: v1 Namespace ns\n\
             apiVersion: v1\n\
             # finding: Pod ns/b pod_pending insufficient_cpu\n",
        );
        assert_eq!(expected.findings, ["Pod ns/a pod_pending insufficient_cpu"]);
        assert_eq!(expected.alerts[0].labels.len(), 2);
        assert_eq!(expected.deletions[1].namespace, None);
        assert_eq!(expected.deletions.len(), 2);
    }
}
