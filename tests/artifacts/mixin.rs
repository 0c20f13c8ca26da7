//! The jsonnet mixin (`mixin/`) is the source of the rule pack, the Alertmanager
//! inhibitions and the dashboards: the shipped files are what it renders with its
//! default `_config` (`cargo xtask generate` writes them, and its `--check`, run by
//! scripts/test, fails when they differ), they hold exactly the mixin's values,
//! and every `_config` setting reaches what it should. Rendered by a real jsonnet
//! (Debian's `jsonnet` package, which scripts/test installs).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `jsonnet` with `args` from the repository root; its standard output.
fn jsonnet(args: &[&str]) -> String {
    let output = Command::new("jsonnet")
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| {
            panic!("jsonnet is needed ({e}); scripts/test installs it (apt-get install jsonnet)")
        });
    assert!(
        output.status.success(),
        "jsonnet {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("jsonnet prints UTF-8")
}

/// Evaluates a jsonnet expression with the mixin as `m` (its `_config` changed by
/// `config`, a jsonnet object body) and the YAML writer as `yaml`.
fn eval(config: &str, expr: &str) -> String {
    let mixin = root().join("mixin/mixin.libsonnet");
    let yaml = root().join("mixin/lib/yaml.libsonnet");
    let code = format!(
        "local m = (import '{}') + {{ _config+:: {{ {config} }} }};\nlocal yaml = import '{}';\n{expr}",
        mixin.display(),
        yaml.display()
    );
    jsonnet(&["-S", "-e", &code])
}

/// Fails naming the first line where the two values' pretty JSON differ.
fn assert_same(what: &str, got: &Value, expected: &Value) {
    if got == expected {
        return;
    }
    let got = serde_json::to_string_pretty(got).unwrap();
    let expected = serde_json::to_string_pretty(expected).unwrap();
    let (line, (a, b)) = got
        .lines()
        .zip(expected.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .unwrap_or((0, ("(length differs)", "")));
    panic!("{what}: line {line} differs:\n  file:  {a}\n  mixin: {b}");
}

fn parse_yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The YAML writer (mixin/lib/yaml.libsonnet) writes what jsonnet evaluated: each
/// rendered file parses back to the very values the mixin holds.
#[test]
fn the_yaml_files_hold_exactly_the_mixin_values() {
    let value = |expr: &str| -> Value {
        serde_json::from_str(&jsonnet(&[
            "-e",
            &format!("local m = import 'mixin/mixin.libsonnet'; {expr}"),
        ]))
        .unwrap()
    };
    let read =
        |relative: &str| parse_yaml(&std::fs::read_to_string(root().join(relative)).unwrap());
    assert_same(
        "alerts/kube-lifecycle.rules.yaml",
        &read("alerts/kube-lifecycle.rules.yaml"),
        &value("m.prometheusAlerts"),
    );
    assert_same(
        "alerts/alertmanager.yaml",
        &read("alerts/alertmanager.yaml")["inhibit_rules"],
        &value("m.alertmanagerInhibitRules"),
    );
    assert_same(
        "alerts/kubernetes-mixin-inhibitions.yaml",
        &read("alerts/kubernetes-mixin-inhibitions.yaml")["inhibit_rules"],
        &value("m.kubernetesMixinInhibitRules"),
    );
    let values = read("deploy/overlays/kube-prometheus-stack/alertmanager-values.yaml");
    let rules = values["alertmanager"]["config"]["inhibit_rules"]
        .as_array()
        .unwrap();
    for rule in value("m.alertmanagerInhibitRules + m.kubernetesMixinInhibitRules")
        .as_array()
        .unwrap()
    {
        assert!(
            rules.contains(rule),
            "kube-prometheus-stack values lack {rule}"
        );
    }
    // The chart's own defaults come first and are kept.
    assert!(
        rules
            .iter()
            .any(|r| r["target_matchers"][0] == "alertname = InfoInhibitor"),
        "the chart's default inhibit_rules are kept"
    );
}

/// Strings that YAML would read as something else, or that need quoting, survive
/// the writer; plain scalars stay plain.
#[test]
fn the_yaml_writer_quotes_what_yaml_would_misread() {
    let cases = r#"{
        plain: '10m', word: 'critical', colon_inside: 'a:b', number_like: '1e3', zero: '0',
        boolean_like: 'yes', nothing: 'null', empty: '', leading_dash: '- x', colon_space: 'a: b',
        hash: 'a #b', brace: '{{ x }}', quote: '"q"', trailing_space: 'x ', tab: 'a	b',
        multi_line: 'a\n  b\n', no_newline_end: 'a\nb', two_newlines: 'a\n\n', date: '2024-06-01',
        long: std.join(' ', std.repeat(['word'], 60)), long_template: std.join(' ', std.repeat(['{{ $labels.pod }}'], 20)),
        list: ['a', 1, true, null, [], {}], nested: { a: [{ b: 'c', d: ['e'] }] }, number: 1.5, flag: false,
    }"#;
    let written = eval("", &format!("yaml.manifest({cases})"));
    let expected: Value = serde_json::from_str(&jsonnet(&["-e", cases])).unwrap();
    assert_same(&written, &parse_yaml(&written), &expected);
    assert!(written.contains("plain: 10m\n"), "{written}");
    assert!(written.contains("word: critical\n"), "{written}");
    assert!(written.contains("long: >-\n"), "{written}");
    assert!(written.contains("multi_line: |\n"), "{written}");
}

/// Every `_config` setting of the rule pack reaches the rules, and the result is
/// still a rule file promtool accepts.
#[test]
fn config_settings_reach_the_rules() {
    let config = r#"
        exporterSelector: 'job="lifecycle"',
        findingsSelector: 'prometheus="k8s"',
        clusterLabel: 'k8s_cluster',
        runbookURLPattern: 'https://runbooks.example.com/lifecycle/%s.html',
        severities: { page: 'P1', ticket: 'P3', info: 'P5' },
        keepFiringFor: '7m',
        registryFailingNodes: 4,
        alerts: {
          KubeLifecycleDeploymentRecreateBlocked: { severity: 'P2', 'for': '20m', labels: { team: 'apps' } },
          KubeLifecycleWatchRestarting: { keep_firing_for: null },
        },
    "#;
    let text = eval(config, "yaml.manifest(m.prometheusAlerts)");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rules.yaml");
    std::fs::write(&file, &text).unwrap();
    let check = Command::new("promtool")
        .args(["check", "rules"])
        .arg(&file)
        .output()
        .expect("promtool (Debian package prometheus) is needed");
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );

    let rules: Vec<Value> = parse_yaml(&text)["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap().clone())
        .collect();
    assert!(rules.len() > 20);
    for rule in &rules {
        let name = rule["alert"].as_str().unwrap();
        let expr = rule["expr"].as_str().unwrap();
        for by in expr.match_indices("by (") {
            let labels = &expr[by.0 + 4..];
            let labels = &labels[..labels.find(')').unwrap()];
            assert!(
                labels.split(", ").any(|l| l == "k8s_cluster")
                    && !labels.split(", ").any(|l| l == "cluster"),
                "{name}: by ({labels})"
            );
        }
        // Every findings series carries the findings selector; `up` the exporter's.
        for (at, _) in expr.match_indices("kube_lifecycle_") {
            let rest = &expr[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            assert!(
                rest[end..].starts_with("{prometheus=\"k8s\""),
                "{name}: {}",
                &rest[..end]
            );
        }
        if expr.contains("up{") {
            assert!(expr.contains("up{job=\"lifecycle\"}"), "{name}: {expr}");
        }
        let url = rule["annotations"]["runbook_url"].as_str().unwrap();
        assert_eq!(
            url,
            format!(
                "https://runbooks.example.com/lifecycle/{}.html",
                name.to_lowercase()
            )
        );
        for template in ["description", "summary"] {
            let text = rule["annotations"][template].as_str().unwrap();
            assert!(!text.contains("$labels.cluster "), "{name}: {text}");
        }
        let severity = rule["labels"]["severity"].as_str().unwrap();
        match name {
            "KubeLifecycleDeploymentRecreateBlocked" => {
                assert_eq!(severity, "P2");
                assert_eq!(rule["for"], "20m");
                assert_eq!(rule["labels"]["team"], "apps");
                assert_eq!(rule["keep_firing_for"], "7m");
            }
            "KubeLifecycleWatchRestarting" => {
                assert_eq!(severity, "P5");
                assert!(rule.get("keep_firing_for").is_none(), "{rule}");
            }
            "KubeLifecycleNodeLost" | "KubeLifecycleExporterDown" => {
                assert_eq!(severity, "P1")
            }
            "KubeLifecycleRegistryPullFailing" => {
                assert_eq!(severity, "P1");
                assert!(expr.contains(">= 4"), "{expr}");
            }
            // It never notifies: `none` whatever the tiers are called.
            "KubeLifecycleExplainedByRootCause" => assert_eq!(severity, "none"),
            _ => assert!(["P1", "P3", "P5"].contains(&severity), "{name}"),
        }
    }

    // The inhibitions use the cluster label too, and the example Alertmanager
    // configuration routes the configured severities.
    let inhibitions = eval(
        config,
        "std.manifestJson(m.alertmanagerInhibitRules + m.kubernetesMixinInhibitRules)",
    );
    let inhibitions: Value = serde_json::from_str(&inhibitions).unwrap();
    for rule in inhibitions.as_array().unwrap() {
        let Some(equal) = rule["equal"].as_array() else {
            // The one rule for an alert with no cluster label at all
            // (KubeSchedulerDown's absent()), which matches on its absence.
            assert!(
                rule["target_matchers"]
                    .as_array()
                    .unwrap()
                    .contains(&Value::from("k8s_cluster=\"\"")),
                "{rule}"
            );
            continue;
        };
        let equal: Vec<&str> = equal.iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(equal[0], "k8s_cluster", "{rule}");
        assert!(!equal.contains(&"cluster"), "{rule}");
    }
}
