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
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = completed_test_files(dir.path())
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["test", "rules"];
    args.extend(files.iter().map(String::as_str));
    let (ok, out) = run("promtool", &args);
    assert!(ok, "{out}");
}

/// The unit tests as promtool runs them. A test states what is particular to
/// its case; what the rule states for every alert it fires (its `severity`, and
/// its `summary` and `runbook_url` where they hold no template) is added here
/// from the rule file where the test does not say it, so that it is written
/// once. The text is completed line by line (a YAML round trip would read
/// `values: 0x30` as the number 48).
fn completed_test_files(dir: &Path) -> Vec<PathBuf> {
    let rules: std::collections::BTreeMap<String, Value> = alert_rules().into_iter().collect();
    let indent = |line: &str| line.len() - line.trim_start().len();
    // The tests name `../kube-lifecycle.rules.yaml`: the same layout here.
    std::fs::copy(root().join(RULES), dir.join("kube-lifecycle.rules.yaml")).unwrap();
    let tests = dir.join("tests");
    std::fs::create_dir(&tests).unwrap();
    let mut completed = Vec::new();
    for file in test_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut out = String::new();
        let mut rule: Option<&Value> = None;
        for (i, line) in lines.iter().enumerate() {
            out.push_str(line);
            out.push('\n');
            let key = line.trim_start().trim_start_matches("- ");
            if let Some(name) = key.strip_prefix("alertname:") {
                rule = Some(
                    rules
                        .get(name.trim())
                        .unwrap_or_else(|| panic!("{}: no rule {}", file.display(), name.trim())),
                );
            }
            let (section, fields) = match key {
                "exp_labels:" => ("labels", &["severity"][..]),
                "exp_annotations:" => ("annotations", &["summary", "runbook_url"][..]),
                _ => continue,
            };
            let rule =
                rule.unwrap_or_else(|| panic!("{}:{}: no alertname before", file.display(), i + 1));
            let at = line.len() - key.len();
            let body: Vec<&str> = lines[i + 1..]
                .iter()
                .copied()
                .take_while(|l| indent(l) > at)
                .collect();
            let inner = body.first().map_or(at + 2, |l| indent(l));
            for field in fields {
                let stated = &rule[section][*field];
                let said = body
                    .iter()
                    .any(|l| l.trim_start().starts_with(&format!("{field}:")));
                if !said && !stated.as_str().unwrap().contains("{{") {
                    // A JSON string is a YAML double-quoted scalar.
                    out.push_str(&format!("{}{field}: {stated}\n", " ".repeat(inner)));
                }
            }
        }
        let path = tests.join(file.file_name().unwrap());
        std::fs::write(&path, out).unwrap();
        completed.push(path);
    }
    completed
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
                    // Every expected alert states its description, so templates are checked.
                    for alert in step["exp_alerts"].as_array().unwrap() {
                        assert!(
                            alert["exp_annotations"]["description"].is_string(),
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
    // `none`: KubeLifecycleExplainedByRootCause, which never notifies.
    let severities = ["critical", "warning", "info", "none"];
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

// ----------------------------------------------------------------------- the policy

/// `10m` → 600 seconds.
fn seconds(duration: &str) -> u64 {
    let (number, unit) = duration.split_at(duration.len() - 1);
    let n: u64 = number
        .parse()
        .unwrap_or_else(|_| panic!("duration {duration}"));
    n * match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => panic!("duration {duration}"),
    }
}

fn alert_rules() -> Vec<(String, Value)> {
    rules()
        .into_iter()
        .filter_map(|r| r["alert"].as_str().map(|n| (n.to_string(), r.clone())))
        .collect()
}

/// The labels of the outermost `by (...)` of an expression, if it has one.
fn outer_by(expr: &str) -> Option<Vec<String>> {
    let start = expr.find("by (")? + 4;
    let end = start + expr[start..].find(')')?;
    Some(
        expr[start..end]
            .split(',')
            .map(|l| l.trim().to_string())
            .collect(),
    )
}

/// The severity policy of alerts/README.md: everything one pod or container does is
/// a ticket, never a page. (The README's table of alerts is generated from the
/// rules: `cargo xtask generate --check` keeps it theirs.)
#[test]
fn severities_follow_the_written_policy() {
    let mut in_rules = std::collections::BTreeMap::new();
    for (name, rule) in alert_rules() {
        let severity = rule["labels"]["severity"].as_str().unwrap().to_string();
        let for_ = rule["for"].as_str().unwrap().to_string();
        if severity == "critical" {
            let expr = rule["expr"].as_str().unwrap();
            if let Some(labels) = outer_by(expr) {
                for one in ["pod", "container"] {
                    assert!(
                        !labels.iter().any(|l| l == one),
                        "{name} pages per {one}: by ({labels:?}); one pod is a ticket (alerts/README.md)"
                    );
                }
            }
        }
        in_rules.insert(name, (severity, for_));
    }
    // A page is rare: the policy names seven kinds of certain outage.
    let pages: Vec<_> = in_rules
        .iter()
        .filter(|(_, (s, _))| s == "critical")
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(
        pages,
        [
            "KubeLifecycleAdmissionWebhookUnreachable",
            "KubeLifecycleDeploymentRecreateBlocked",
            "KubeLifecycleExporterDown",
            "KubeLifecycleNodeLost",
            "KubeLifecyclePodSandboxFailing",
            "KubeLifecycleRegistryPullFailing",
            "KubeLifecycleSchedulerNotScheduling",
        ]
    );
}

/// Whether `name` matches an Alertmanager matcher on `alertname`
/// (`alertname="X"` or `alertname=~"A|B.+"`, anchored as Alertmanager anchors it).
fn alertname_matches(matcher: &str, name: &str) -> bool {
    let matcher = matcher.replace(' ', "");
    if let Some(value) = matcher.strip_prefix("alertname=~") {
        let pattern = value.trim_matches('"');
        pattern
            .split('|')
            .any(|alternative| match alternative.strip_suffix(".+") {
                Some(prefix) => name.starts_with(prefix) && name.len() > prefix.len(),
                None => alternative == name,
            })
    } else if let Some(value) = matcher.strip_prefix("alertname=") {
        value.trim_matches('"') == name
    } else {
        false
    }
}

/// `for` of the kubernetes-mixin alerts this pack inhibits, as the mixin defines
/// them (kubernetes-monitoring/kubernetes-mixin, alerts/apps_alerts.libsonnet,
/// kubelet.libsonnet, lib/absent_alert.libsonnet).
const KUBERNETES_MIXIN_FOR: &[(&str, &str)] = &[
    ("KubePodCrashLooping", "15m"),
    ("KubePodNotReady", "15m"),
    ("KubeContainerWaiting", "1h"),
    ("KubeDeploymentRolloutStuck", "15m"),
    ("KubeDeploymentReplicasMismatch", "15m"),
    ("KubeStatefulSetReplicasMismatch", "15m"),
    ("KubeStatefulSetUpdateNotRolledOut", "15m"),
    ("KubeDaemonSetNotScheduled", "10m"),
    ("KubeDaemonSetRolloutStuck", "15m"),
    ("KubeDaemonSetMisScheduled", "15m"),
    ("KubePdbNotEnoughHealthyPods", "15m"),
    ("KubeJobFailed", "15m"),
    // storage_alerts.libsonnet: the predicted (warning) ones, which are the
    // only ones inhibited (their critical namesakes fire after 1m).
    ("KubePersistentVolumeFillingUp", "1h"),
    ("KubePersistentVolumeInodesFillingUp", "1h"),
    ("KubeNodeNotReady", "15m"),
    ("KubeNodeUnreachable", "15m"),
    ("KubeNodeReadinessFlapping", "15m"),
    // lib/instance_unreachable_alert.libsonnet (kubelet.libsonnet, kube_proxy.libsonnet).
    ("KubeletInstanceUnreachable", "15m"),
    ("KubeProxyInstanceUnreachable", "15m"),
    ("KubeSchedulerDown", "15m"),
    // No `for`: its expression fires once a Job has been active longer than
    // kubeJobTimeoutDuration, 12 hours by default (config.libsonnet).
    ("KubeJobNotCompleted", "12h"),
];

const EXPLAINED: &str = "KubeLifecycleExplainedByRootCause";

/// The root causes an alert about root causes fires for: its constant
/// `root_cause`, else the causes its expression selects, else those the
/// catalogue says it speaks for.
fn root_causes_of(name: &str, rule: &Value) -> Vec<String> {
    let label = rule["labels"]["root_cause"].as_str().unwrap_or_default();
    if !label.is_empty() && !label.contains("{{") {
        return vec![label.to_string()];
    }
    let selected: Vec<String> = cause_matchers(rule["expr"].as_str().unwrap())
        .into_iter()
        .filter(|(op, _)| op == "=" || op == "=~")
        .flat_map(|(_, v)| v.split('|').map(String::from).collect::<Vec<_>>())
        .collect();
    if !selected.is_empty() {
        return selected;
    }
    kube_lifecycle_exporter::diagnosis::catalogue::Catalogue::new()
        .roots
        .causes
        .iter()
        .filter(|c| c.alert == Some(name))
        .map(|c| c.root_cause.to_string())
        .collect()
}

/// When KubeLifecycleExplainedByRootCause fires at the latest for the root
/// causes an inhibition's `root_cause` matcher names: the `for` of the
/// slowest alert about them (it fires one evaluation after that one).
fn explained_after(inhibition: &Value) -> u64 {
    let matcher = inhibition["source_matchers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m.as_str())
        .find_map(|m| m.strip_prefix("root_cause=~"))
        .unwrap_or_else(|| {
            panic!("{EXPLAINED} inhibits without naming its root causes: {inhibition}")
        });
    let named: Vec<&str> = matcher.trim_matches('"').split('|').collect();
    let slowest = alert_rules()
        .iter()
        .filter(|(_, r)| r["labels"]["root_kind"].is_string())
        .filter(|(n, r)| {
            root_causes_of(n, r)
                .iter()
                .any(|c| named.contains(&c.as_str()))
        })
        .map(|(_, r)| seconds(r["for"].as_str().unwrap()))
        .max();
    slowest.unwrap_or_else(|| panic!("no alert speaks for the root causes {named:?}"))
}

/// An inhibiting alert must fire before the alerts it inhibits, by 2 minutes at
/// least: were it slower, the alert it explains would page first and the inhibition
/// would come too late; were they close, a scrape's or an evaluation's lag would
/// decide which goes out first. Every inhibition names at least one alert on each
/// side.
#[test]
fn inhibitors_fire_no_later_than_what_they_inhibit() {
    let mut fors: Vec<(String, u64)> = alert_rules()
        .iter()
        .map(|(n, r)| (n.clone(), seconds(r["for"].as_str().unwrap())))
        .collect();
    fors.extend(
        KUBERNETES_MIXIN_FOR
            .iter()
            .map(|(n, f)| (n.to_string(), seconds(f))),
    );
    for file in [ALERTMANAGER, "alerts/kubernetes-mixin-inhibitions.yaml"] {
        let config = yaml(&root().join(file));
        for rule in config["inhibit_rules"].as_array().unwrap() {
            let side = |key: &str| -> Vec<(String, u64)> {
                // The alert names; other matchers (a cause) only narrow them.
                let matchers: Vec<&str> = rule[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m.as_str().unwrap())
                    .filter(|m| m.starts_with("alertname"))
                    .collect();
                fors.iter()
                    .filter(|(name, _)| matchers.iter().all(|m| alertname_matches(m, name)))
                    .cloned()
                    .collect()
            };
            let (mut sources, targets) = (side("source_matchers"), side("target_matchers"));
            // KubeLifecycleExplainedByRootCause fires once the alert about its
            // root cause fires: as late as the slowest alert that speaks for
            // the root causes its rule names.
            for (name, source_for) in &mut sources {
                if name == EXPLAINED {
                    *source_for = explained_after(rule);
                }
            }
            assert!(!sources.is_empty() && !targets.is_empty(), "{file}: {rule}");
            for (source, source_for) in &sources {
                for (target, target_for) in &targets {
                    assert!(
                        source_for + 120 <= *target_for,
                        "{file}: {source} (for {source_for}s) inhibits {target} (for {target_for}s) with less than 2 minutes to spare"
                    );
                }
            }
        }
    }
}

/// A failed scrape or an exporter restart makes every series stale at once: every
/// alert keeps firing through such a gap instead of resolving and paging again.
#[test]
fn every_alert_keeps_firing_through_a_missed_scrape() {
    for (name, rule) in alert_rules() {
        let keep = rule["keep_firing_for"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no keep_firing_for"));
        assert!(seconds(keep) >= 120, "{name}: keep_firing_for {keep}");
    }
}

/// The first paragraph of a runbook's Meaning says when its alert fires, in words
/// that match the rule: its severity, its `for`, the causes its expression selects
/// (or, for `!=`/`!~`, the ones it leaves out), and any selector it quotes is the
/// expression's own.
#[test]
fn every_runbook_says_when_its_alert_fires_as_the_rule_does() {
    use kube_lifecycle_exporter::diagnosis::Cause;
    use kube_lifecycle_exporter::output::metrics::family_anomalies;

    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let mut problems = Vec::new();
    for (name, rule) in alert_rules() {
        let expr = rule["expr"].as_str().unwrap();
        let runbook = Runbook::from_slug(&name).unwrap();
        let text = std::fs::read_to_string(root().join(runbook.path())).unwrap();
        let meaning = &text[text.find("## Meaning").unwrap() + 10..];
        let first = meaning
            .trim_start()
            .split("\n\n")
            .next()
            .unwrap()
            .to_string();
        let first_flat = first.replace('\n', " ");
        let severity = rule["labels"]["severity"].as_str().unwrap();
        if !first.contains(&format!("Severity: **{severity}**")) {
            problems.push(format!("{name}: no `Severity: **{severity}**`"));
        }
        let minutes = seconds(rule["for"].as_str().unwrap()) / 60;
        if minutes > 0 && !first_flat.contains(&format!("{minutes} minute")) {
            problems.push(format!("{name}: does not say {minutes} minutes"));
        }
        // Quoted selectors are the expression's.
        for quoted in first.split('`').skip(1).step_by(2) {
            if quoted.contains('{') && !squeeze(expr).contains(&squeeze(quoted)) {
                problems.push(format!("{name}: quotes `{quoted}`, not in its expression"));
            }
        }
        // The causes the rule selects, from its cause matchers and the vocabulary of
        // the family it reads.
        let Some((_, anomaly)) = family_anomalies().find(|(name, _)| expr.contains(name)) else {
            continue;
        };
        let vocabulary: Vec<&str> = Cause::vocabulary(anomaly)
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        // Named in backticks, or inside a quoted selector (`cause=~"a|b"`).
        let spans: Vec<&str> = first.split('`').skip(1).step_by(2).collect();
        let named = |cause: &str| {
            spans.iter().any(|span| {
                *span == cause || span.split(['"', '|']).skip(1).any(|token| token == cause)
            })
        };
        for (op, value) in cause_matchers(expr) {
            let listed: Vec<&str> = value.split('|').collect();
            match op.as_str() {
                "=" | "=~" => {
                    for cause in &listed {
                        if !named(cause) {
                            problems.push(format!("{name}: fires on `{cause}`, not said"));
                        }
                    }
                    // A cause the rule does not select is named only to say so.
                    for cause in vocabulary.iter().filter(|c| !listed.contains(c)) {
                        for sentence in first_flat.split(". ") {
                            let negated = ["not", "never", "except", "but", "instead"]
                                .iter()
                                .any(|w| sentence.contains(w));
                            if sentence.contains(&format!("`{cause}`")) && !negated {
                                problems.push(format!(
                                    "{name}: names `{cause}` as if it fired: {sentence}"
                                ));
                            }
                        }
                    }
                }
                _ => {
                    for cause in &listed {
                        if !named(cause) {
                            problems.push(format!("{name}: leaves out `{cause}`, not said"));
                        }
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `(op, value)` of every `cause` matcher in an expression.
fn cause_matchers(expr: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (at, _) in expr.match_indices("cause") {
        let rest = &expr[at + 5..];
        let op: String = rest.chars().take_while(|c| "=!~".contains(*c)).collect();
        if op.is_empty() {
            continue;
        }
        let value = rest[op.len()..].trim_start_matches('"');
        let value = &value[..value.find('"').unwrap()];
        out.push((op, value.to_string()));
    }
    out
}

/// The rules take their cause lists from the catalogue (`mixin/catalogue.json`,
/// what the code declares): every rule's `cause` matchers name only causes the
/// vocabulary has, and select exactly the causes the catalogue says the alert
/// fires on, no more and none left out.
#[test]
fn every_rule_selects_the_causes_the_catalogue_sends_it() {
    use kube_lifecycle_exporter::output::metrics::family_anomalies;
    use std::collections::BTreeSet;

    let catalogue: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("mixin/catalogue.json")).unwrap(),
    )
    .unwrap();
    let vocabulary = |anomaly: &str| -> BTreeSet<String> {
        catalogue["causes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["anomaly"] == anomaly)
            .map(|c| c["cause"].as_str().unwrap().to_string())
            .collect()
    };
    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, rule) in alert_rules() {
        let expr = rule["expr"].as_str().unwrap();
        let Some(alert) = catalogue["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["alert"] == name.as_str())
        else {
            problems.push(format!("{name}: not in the catalogue"));
            continue;
        };
        let fires: BTreeSet<(String, String)> = alert["causes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["anomaly"].as_str().unwrap().to_string(),
                    c["cause"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        if fires.is_empty() {
            // The exporter's own alerts read no findings.
            assert!(cause_matchers(expr).is_empty(), "{name}");
            continue;
        }
        // The anomaly whose vocabulary the matchers speak: the one the alert
        // fires on (each alert fires on one anomaly's causes). A root cause's
        // alert also stands for its victims' cause that names it (pod_pending
        // `claim_stuck` for the claim's), a series it does not read.
        let all: BTreeSet<String> = fires.iter().map(|(a, _)| a.clone()).collect();
        let anomalies: BTreeSet<String> = all
            .iter()
            .filter(|a| {
                all.len() == 1
                    || family_anomalies()
                        .any(|(family, an)| an.as_str() == a.as_str() && expr.contains(family))
            })
            .cloned()
            .collect();
        assert_eq!(anomalies.len(), 1, "{name}: {all:?}");
        let fires: BTreeSet<(String, String)> = fires
            .into_iter()
            .filter(|(a, _)| anomalies.contains(a))
            .collect();
        let anomaly = anomalies.iter().next().unwrap().as_str();
        // It reads a family of that anomaly, or the eviction counter.
        assert!(
            family_anomalies().any(|(family, a)| a.as_str() == anomaly && expr.contains(family))
                || expr.contains("kube_lifecycle_pod_evictions_total"),
            "{name} reads no family of {anomaly}"
        );
        let words = vocabulary(anomaly);
        let mut selected: BTreeSet<String> = BTreeSet::new();
        let matchers = cause_matchers(expr);
        if matchers.is_empty() {
            selected = words.clone();
        }
        for (op, value) in matchers {
            let listed: BTreeSet<String> = value.split('|').map(String::from).collect();
            for cause in listed.difference(&words) {
                problems.push(format!(
                    "{name}: names `{cause}`, which {anomaly} does not have"
                ));
            }
            match op.as_str() {
                "=" | "=~" => selected.extend(listed),
                _ => selected.extend(words.difference(&listed).cloned()),
            }
        }
        let fires: BTreeSet<String> = fires.into_iter().map(|(_, c)| c).collect();
        for cause in fires.difference(&selected) {
            problems.push(format!(
                "{name}: leaves out `{cause}`, which the catalogue sends to it"
            ));
        }
        for cause in selected.difference(&fires) {
            problems.push(format!(
                "{name}: fires on `{cause}`, which the catalogue does not send to it"
            ));
        }
        checked += 1;
    }
    assert!(checked >= 30, "{checked} rules checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
