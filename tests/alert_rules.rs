//! The rule pack: promtool and amtool accept it, every alert is unit-tested,
//! carries what an on-call needs, and links to a runbook with all four sections.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use kube_lifecycle_exporter::diagnosis::runbook::Runbook;
use serde_json::Value;

const RULES: &str = "alerts/kube-lifecycle.rules.yaml";
const ALERTMANAGER: &str = "alerts/alertmanager.yaml";
/// The documented placeholder deploy tooling replaces with the runbooks' address.
const RUNBOOK_BASE: &str = "https://kube-lifecycle-exporter.example/runbooks";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs a tool from the Debian packages `prometheus` / `prometheus-alertmanager`,
/// which `scripts/test` installs; returns its combined output.
fn run(tool: &str, args: &[&str]) -> (bool, String) {
    let output = Command::new(tool)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| {
            panic!("{tool} is needed ({e}); scripts/test installs it (apt-get install prometheus prometheus-alertmanager)")
        });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

fn rules() -> Vec<Value> {
    yaml(&root().join(RULES))["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["rules"].as_array().expect("rules").clone())
        .collect()
}

fn test_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("alerts/tests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
}

#[test]
fn promtool_accepts_the_rules() {
    let (ok, out) = run("promtool", &["check", "rules", RULES]);
    assert!(ok, "{out}");
}

#[test]
fn promtool_unit_tests_pass() {
    let files: Vec<String> = test_files()
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["test", "rules"];
    args.extend(files.iter().map(String::as_str));
    let (ok, out) = run("promtool", &args);
    assert!(ok, "{out}");
}

#[test]
fn every_alert_is_tested_firing_and_resolving() {
    let mut fired = BTreeSet::new();
    let mut quiet_after_firing = BTreeSet::new();
    for file in test_files() {
        for test in yaml(&file)["tests"].as_array().unwrap() {
            let mut seen_firing = BTreeSet::new();
            for step in test["alert_rule_test"].as_array().unwrap() {
                let name = step["alertname"].as_str().unwrap().to_string();
                let expected = step["exp_alerts"].as_array().map_or(0, Vec::len);
                if expected > 0 {
                    // Every expected alert states its annotations, so templates are checked.
                    for alert in step["exp_alerts"].as_array().unwrap() {
                        assert!(
                            alert["exp_annotations"]["runbook_url"].is_string(),
                            "{}: {name} expected without annotations",
                            file.display()
                        );
                    }
                    fired.insert(name.clone());
                    seen_firing.insert(name);
                } else if seen_firing.contains(&name) {
                    quiet_after_firing.insert(name);
                }
            }
        }
    }
    let all: BTreeSet<String> = rules()
        .iter()
        .filter_map(|r| r["alert"].as_str().map(String::from))
        .collect();
    let untested: Vec<_> = all.difference(&fired).collect();
    assert!(
        untested.is_empty(),
        "alerts never seen firing in a test: {untested:?}"
    );
    let unresolved: Vec<_> = all.difference(&quiet_after_firing).collect();
    assert!(
        unresolved.is_empty(),
        "alerts never seen resolving in a test: {unresolved:?}"
    );
}

#[test]
fn every_alert_has_severity_summary_description_and_its_runbook_url() {
    let severities = ["critical", "warning", "info"];
    for rule in rules() {
        let Some(name) = rule["alert"].as_str() else {
            continue;
        };
        let severity = rule["labels"]["severity"].as_str().unwrap_or_default();
        assert!(
            severities.contains(&severity),
            "{name}: severity {severity:?}"
        );
        for key in ["summary", "description"] {
            let text = rule["annotations"][key].as_str().unwrap_or_default();
            assert!(text.len() > 10, "{name}: {key} missing");
        }
        let runbook = Runbook::from_slug(name).unwrap_or_else(|| panic!("{name}: no runbook"));
        assert_eq!(
            rule["annotations"]["runbook_url"].as_str(),
            Some(runbook.url(RUNBOOK_BASE).as_str()),
            "{name}: runbook_url must be the placeholder base and the lower-cased alert name"
        );
    }
}

#[test]
fn the_rule_file_and_the_code_name_the_same_alerts() {
    let in_rules: BTreeSet<String> = rules()
        .iter()
        .filter_map(|r| r["alert"].as_str().map(String::from))
        .collect();
    let in_code: BTreeSet<String> = Runbook::ALL.iter().map(|r| r.alert().to_string()).collect();
    assert_eq!(in_rules, in_code);
}

#[test]
fn object_alerts_aggregate_by_cluster() {
    for rule in rules() {
        let (Some(name), Some(expr)) = (rule["alert"].as_str(), rule["expr"].as_str()) else {
            continue;
        };
        if expr.contains("absent(") {
            continue;
        }
        for by in expr.match_indices(" by (") {
            let labels = &expr[by.0 + 5..];
            let labels = &labels[..labels.find(')').unwrap()];
            assert!(
                labels.split(',').any(|l| l.trim() == "cluster"),
                "{name}: `by ({labels})` drops the cluster label"
            );
        }
    }
}

#[test]
fn every_runbook_exists_with_the_four_sections() {
    let sections = ["## Meaning", "## Impact", "## Diagnosis", "## Mitigation"];
    for runbook in Runbook::ALL {
        let path = root().join(runbook.path());
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            text.starts_with(&format!("# {}\n", runbook.alert())),
            "{} must start with its title",
            path.display()
        );
        let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("## ")).collect();
        assert_eq!(headings, sections, "{}", path.display());
        for (i, heading) in sections.iter().enumerate() {
            let start = text.find(heading).unwrap() + heading.len();
            let end = sections
                .get(i + 1)
                .map_or(text.len(), |next| text.find(next).unwrap());
            assert!(
                text[start..end].trim().len() > 40,
                "{}: section {heading} is empty",
                path.display()
            );
        }
    }
    // And no runbook without an alert.
    for entry in std::fs::read_dir(root().join("docs/runbooks")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let alert = name.strip_suffix(".md").unwrap_or(&name);
        assert!(
            alert == "README" || Runbook::ALL.iter().any(|r| r.alert() == alert),
            "docs/runbooks/{name} belongs to no alert"
        );
    }
}

#[test]
fn amtool_accepts_the_alertmanager_example_and_routes_by_severity() {
    let (ok, out) = run("amtool", &["check-config", ALERTMANAGER]);
    assert!(ok, "{out}");
    for (severity, receiver) in [
        ("critical", "pager"),
        ("warning", "tickets"),
        ("info", "info"),
    ] {
        let label = format!("severity={severity}");
        let (ok, out) = run(
            "amtool",
            &[
                "config",
                "routes",
                "test",
                "--config.file",
                ALERTMANAGER,
                "alertname=KubeLifecyclePodTerminatingFinalizers",
                &label,
            ],
        );
        assert!(ok, "{out}");
        assert_eq!(out.lines().next(), Some(receiver), "{severity}: {out}");
    }
}
