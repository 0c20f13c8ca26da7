//! The rule pack: overrides as the mixin's config allows, promtool, and NOTES.txt.

use super::*;

/// Alert name → rule, over all groups.
fn alerts(rule: &Value) -> BTreeMap<String, Value> {
    rule["spec"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap())
        .map(|r| (r["alert"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

#[test]
fn severity_for_and_runbooks_are_overridden_as_the_mixin_s_config_allows() {
    let file = yaml(&read(&root().join(RULES)), RULES);
    let original: BTreeMap<String, Value> = alerts(&json!({"spec": file}));
    let changed = alerts(variant("severity and for overridden").one("PrometheusRule"));
    assert!(
        !changed.contains_key("KubeLifecycleWatchRestarting"),
        "enabled: false"
    );
    assert_eq!(changed.len(), original.len() - 1);
    let tiers = BTreeMap::from([
        ("critical", "pager"),
        ("warning", "ticket"),
        ("info", "none"),
        // The silent tier keeps its `none` when the values do not name it.
        ("none", "none"),
    ]);
    for (name, before) in &original {
        let Some(after) = changed.get(name) else {
            continue;
        };
        let mut expected = before.clone();
        let severity = before["labels"]["severity"].as_str().unwrap();
        expected["labels"]["severity"] = json!(tiers[severity]);
        expected.as_object_mut().unwrap().remove("keep_firing_for");
        let url = before["annotations"]["runbook_url"].as_str().unwrap();
        assert_eq!(
            url,
            format!("{RUNBOOK_PLACEHOLDER}/{}", name.to_lowercase())
        );
        expected["annotations"]["runbook_url"] = json!(format!(
            "https://runbooks.example.com/kube-lifecycle/{}",
            name.to_lowercase()
        ));
        let expr = before["expr"].as_str().unwrap();
        expected["expr"] = json!(expr.replace(
            "job=\"kube-lifecycle-exporter\"",
            "job=\"lifecycle\", namespace=\"monitoring\""
        ));
        match name.as_str() {
            "KubeLifecycleDeploymentRecreateBlocked" => {
                expected["labels"]["severity"] = json!("warning");
                expected["for"] = json!("20m");
            }
            "KubeLifecycleDaemonSetUnscheduled" => {
                expected["for"] = json!("30m");
                expected["keep_firing_for"] = json!("10m");
                expected["labels"]["team"] = json!("apps");
            }
            _ => {}
        }
        assert_eq!(after, &expected, "{name}");
    }
}

#[test]
fn promtool_accepts_the_rules_of_every_render() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, rendered) in renders().renders.iter().enumerate() {
        for rule in rendered.find("PrometheusRule") {
            let path = dir.path().join(format!("rules-{i}.yaml"));
            // JSON is YAML.
            std::fs::write(&path, json!({"groups": rule["spec"]["groups"]}).to_string()).unwrap();
            files.push(path);
        }
    }
    assert!(files.len() >= 3);
    let output = Command::new("promtool")
        .args(["check", "rules"])
        .args(&files)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "promtool is needed ({e}); scripts/test installs it (apt-get install prometheus)"
            )
        });
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn notes_say_how_to_reach_the_landing_page_and_which_alerts_are_installed() {
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        let notes = &rendered.notes;
        let service = rendered.one("Service");
        let forward = format!(
            "kubectl -n {} port-forward svc/{} 9096:{}",
            rendered.variant.namespace,
            service["metadata"]["name"].as_str().unwrap(),
            service["spec"]["ports"][0]["port"]
        );
        assert!(
            notes.contains(&forward),
            "{what}: no `{forward}` in\n{notes}"
        );
        assert!(notes.contains("://localhost:9096/"), "{what}");
        match rendered.find("PrometheusRule").first() {
            Some(rule) => {
                let installed = alerts(rule);
                assert!(
                    notes.contains(&format!(
                        "Alerts installed (PrometheusRule {}), {},",
                        rule["metadata"]["name"].as_str().unwrap(),
                        installed.len()
                    )),
                    "{what}: {notes}"
                );
                for (name, alert) in &installed {
                    let line = format!(
                        "    {name} ({}, {})",
                        alert["labels"]["severity"].as_str().unwrap(),
                        alert["for"].as_str().unwrap()
                    );
                    assert!(
                        notes.lines().any(|l| l == line),
                        "{what}: no `{line}` in\n{notes}"
                    );
                }
                if what == "severity and for overridden" {
                    assert!(!notes.contains("KubeLifecycleWatchRestarting"));
                }
            }
            None => assert!(notes.contains("No alerts installed"), "{what}: {notes}"),
        }
    }
}
