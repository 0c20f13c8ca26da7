//! Every variant linted by Helm, validated against the Kubernetes schemas, and its
//! custom resources checked against the fields their APIs define.

use super::*;

#[test]
fn helm_lint_finds_nothing_to_report_in_any_variant() {
    let renders = renders();
    assert!(renders.sdk.starts_with("v4."), "Helm SDK {}", renders.sdk);
    for (variant, report) in VARIANTS.iter().zip(&renders.lints) {
        // Severity 1 is information ("icon is recommended"); 2 a warning, 3 an
        // error. Linted strict: warnings fail.
        let serious: Vec<&Value> = report["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["severity"].as_u64().unwrap_or(3) > 1)
            .collect();
        assert!(
            serious.is_empty() && report["errors"].as_array().is_none_or(Vec::is_empty),
            "{}: helm lint --strict: {report}",
            variant.name
        );
        assert_eq!(report["total_charts_linted"], 1);
    }
}

#[test]
fn every_render_validates_against_the_kubernetes_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, rendered) in renders().renders.iter().enumerate() {
        // Helm's output as `helm template` prints it, comments and all.
        let text: Vec<&str> = rendered
            .manifests
            .iter()
            .filter(|(template, _)| !template.ends_with("NOTES.txt"))
            .map(|(_, text)| text.as_str())
            .collect();
        let path = dir.path().join(format!("variant-{i}.yaml"));
        std::fs::write(&path, text.join("\n---\n")).unwrap();
        files.push((path, rendered));
    }
    let validate = std::env::var_os("KUBERNETES_VALIDATE")
        .map(PathBuf::from)
        .unwrap_or_else(|| "kubernetes-validate".into());
    let mut command = Command::new(validate);
    command.arg("--strict");
    for version in KUBERNETES_VERSIONS {
        command.args(["-k", version]);
    }
    command.args(files.iter().map(|(path, _)| path));
    let output = command.output().unwrap_or_else(|e| {
        panic!(
            "kubernetes-validate is needed ({e}); scripts/test installs it, or set KUBERNETES_VALIDATE"
        )
    });
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = report.lines().collect();
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("INFO ") || l.starts_with("WARN ")),
        "{report}"
    );
    for (path, rendered) in &files {
        let file = path.to_string_lossy();
        assert!(!rendered.objects.is_empty());
        for object in &rendered.objects {
            let kind = object["kind"].as_str().unwrap();
            let name = object["metadata"]["name"].as_str().unwrap();
            if CUSTOM_KINDS.contains(&kind) {
                // No schema: checked by the test below instead.
                assert!(
                    lines.iter().any(|l| l.starts_with(&format!("WARN {file} "))
                        && l.contains(&format!("kind {kind} "))),
                    "{report}"
                );
                continue;
            }
            for version in KUBERNETES_VERSIONS {
                let minor = version.trim_end_matches(".0");
                let passed = format!(
                    "INFO {file} passed for resource {}/{name} against version {minor}",
                    kind.to_lowercase()
                );
                assert!(
                    lines.contains(&passed.as_str()),
                    "{}: missing `{passed}` in\n{report}",
                    rendered.variant.name
                );
            }
        }
    }
}

fn within(v: &Value, allowed: &[&str], what: &str) {
    let unknown: Vec<&str> = keys(v)
        .into_iter()
        .filter(|k| !allowed.contains(k))
        .collect();
    assert!(unknown.is_empty(), "{what}: unknown fields {unknown:?}");
}

#[test]
fn custom_resources_use_only_fields_their_apis_define() {
    // kubernetes-validate has no schema for them: their fields are checked here
    // against monitoring.coreos.com/v1 and autoscaling.k8s.io/v1, as
    // tests/artifacts/deploy/operator_resources.rs does for the kustomize base (a
    // hand-kept list of the fields the chart can emit, not the operators' schemas).
    let mut seen = BTreeSet::new();
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        for object in &rendered.objects {
            let kind = object["kind"].as_str().unwrap();
            if !CUSTOM_KINDS.contains(&kind) {
                continue;
            }
            seen.insert(kind);
            within(object, &["apiVersion", "kind", "metadata", "spec"], kind);
            within(
                &object["metadata"],
                &["name", "namespace", "labels", "annotations"],
                kind,
            );
            for map in ["labels", "annotations"] {
                if let Some(m) = object["metadata"].get(map) {
                    assert!(m.as_object().unwrap().values().all(Value::is_string));
                }
            }
            let spec = &object["spec"];
            match kind {
                "ServiceMonitor" => {
                    assert_eq!(object["apiVersion"], "monitoring.coreos.com/v1");
                    within(spec, &["jobLabel", "selector", "endpoints"], what);
                    for endpoint in spec["endpoints"].as_array().unwrap() {
                        within(
                            endpoint,
                            &[
                                "port",
                                "path",
                                "interval",
                                "scrapeTimeout",
                                "honorLabels",
                                "scheme",
                                "tlsConfig",
                                "basicAuth",
                                // Prometheus's own token (--auth kubernetes),
                                // as kube-prometheus's kubelet monitor reads it.
                                "bearerTokenFile",
                                "relabelings",
                                "metricRelabelings",
                            ],
                            what,
                        );
                        for duration in ["interval", "scrapeTimeout"] {
                            if let Some(d) = endpoint.get(duration) {
                                assert!(d.as_str().is_some_and(is_duration), "{what}: {d}");
                            }
                        }
                        if let Some(scheme) = endpoint.get("scheme") {
                            assert!(scheme == "http" || scheme == "https", "{what}");
                        }
                        if let Some(tls) = endpoint.get("tlsConfig") {
                            // SafeTLSConfig and the file-based fields of TLSConfig.
                            within(
                                tls,
                                &[
                                    "ca",
                                    "cert",
                                    "keySecret",
                                    "serverName",
                                    "insecureSkipVerify",
                                    "caFile",
                                    "certFile",
                                    "keyFile",
                                    "minVersion",
                                    "maxVersion",
                                ],
                                what,
                            );
                        }
                        if let Some(auth) = endpoint.get("basicAuth") {
                            within(auth, &["username", "password"], what);
                            for part in ["username", "password"] {
                                within(&auth[part], &["name", "key", "optional"], what);
                            }
                        }
                        for list in ["relabelings", "metricRelabelings"] {
                            for relabeling in endpoint.get(list).into_iter().flat_map(|l| {
                                l.as_array().unwrap_or_else(|| panic!("{what}: {list}"))
                            }) {
                                within(
                                    relabeling,
                                    &[
                                        "sourceLabels",
                                        "separator",
                                        "targetLabel",
                                        "regex",
                                        "modulus",
                                        "replacement",
                                        "action",
                                    ],
                                    what,
                                );
                            }
                        }
                    }
                }
                "PrometheusRule" => {
                    assert_eq!(object["apiVersion"], "monitoring.coreos.com/v1");
                    within(spec, &["groups"], what);
                    for group in spec["groups"].as_array().unwrap() {
                        within(group, &["name", "interval", "rules"], what);
                        assert!(!group["rules"].as_array().unwrap().is_empty());
                        for rule in group["rules"].as_array().unwrap() {
                            within(
                                rule,
                                &[
                                    "alert",
                                    "expr",
                                    "for",
                                    "keep_firing_for",
                                    "labels",
                                    "annotations",
                                ],
                                what,
                            );
                            for duration in ["for", "keep_firing_for"] {
                                if let Some(d) = rule.get(duration) {
                                    assert!(d.as_str().is_some_and(is_duration), "{what}: {d}");
                                }
                            }
                            for map in ["labels", "annotations"] {
                                assert!(
                                    rule[map]
                                        .as_object()
                                        .unwrap()
                                        .values()
                                        .all(Value::is_string),
                                    "{what}: {rule}"
                                );
                            }
                        }
                    }
                }
                "VerticalPodAutoscaler" => {
                    assert_eq!(object["apiVersion"], "autoscaling.k8s.io/v1");
                    within(
                        spec,
                        &[
                            "targetRef",
                            "recommenders",
                            "updatePolicy",
                            "resourcePolicy",
                        ],
                        what,
                    );
                    let workload = rendered.workload();
                    assert_eq!(
                        spec["targetRef"],
                        json!({"apiVersion": "apps/v1", "kind": workload["kind"], "name": workload["metadata"]["name"]})
                    );
                    for policy in spec["resourcePolicy"]["containerPolicies"]
                        .as_array()
                        .unwrap()
                    {
                        within(
                            policy,
                            &[
                                "containerName",
                                "mode",
                                "minAllowed",
                                "maxAllowed",
                                "controlledResources",
                                "controlledValues",
                            ],
                            what,
                        );
                        assert_eq!(policy["containerName"], rendered.container()["name"]);
                    }
                }
                _ => unreachable!(),
            }
        }
    }
    assert_eq!(seen.len(), CUSTOM_KINDS.len(), "{seen:?}");
}

/// A Prometheus duration, as the operator's schema requires.
fn is_duration(text: &str) -> bool {
    if text == "0" {
        return true;
    }
    let mut rest = text;
    let mut parts = 0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let unit = ["ms", "s", "m", "h", "d", "w", "y"]
            .into_iter()
            .find(|u| rest[digits..].starts_with(u));
        match unit {
            Some(u) if digits > 0 => rest = &rest[digits + u.len()..],
            _ => return false,
        }
        parts += 1;
    }
    parts > 0
}
