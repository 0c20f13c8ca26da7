//! The files of `deploy/` made from other files: the PrometheusRule from
//! `alerts/`, the dashboard ConfigMaps from `dashboards/`, and the all-in-one file
//! from the kustomize base. Text in, text out, so comments and layout survive.

use std::path::Path;

use super::kustomize;

/// The prefix of every `runbook_url` in `alerts/` (alerts/README.md).
pub const RUNBOOK_PLACEHOLDER: &str = "https://kube-lifecycle-exporter.example/runbooks";
/// What deploy/ puts there: the runbooks the exporter serves, in a browser on the
/// machine that runs `kubectl -n kube-lifecycle port-forward svc/kube-lifecycle-exporter 9096`.
/// The in-cluster Service's address would not open in anyone's browser.
pub const RUNBOOK_BASE: &str = "http://localhost:9096/runbooks";

pub const NAMESPACE: &str = "kube-lifecycle";
pub const RULES: &str = "alerts/kube-lifecycle.rules.yaml";
pub const PROMETHEUS_RULE: &str = "deploy/base/prometheusrule.yaml";
pub const DASHBOARDS: &str = "deploy/base/dashboards.yaml";
pub const ALL_IN_ONE: &str = "deploy/kube-lifecycle-exporter.yaml";
/// The base's files of the Prometheus Operator's kinds: only its overlay has them.
pub const OPERATOR_FILES: &[&str] = &[PROMETHEUS_RULE, "deploy/base/servicemonitor.yaml"];

const REGENERATE: &str = "run `UPDATE_DEPLOY=1 cargo test --test deploy`";

/// The rule file's `groups:` under a PrometheusRule's `spec:`, runbook links
/// pointing at [`RUNBOOK_BASE`].
pub fn prometheus_rule(rules: &str) -> String {
    let start = rules
        .find("\ngroups:\n")
        .unwrap_or_else(|| panic!("{RULES}: no top-level `groups:`"));
    let mut out = format!(
        "# Generated from {RULES} by tests/deploy.rs: do not edit here; change the rule\n\
         # file and {REGENERATE}.\n\
         # runbook_url points at {RUNBOOK_BASE}/<alert name in lower case>: the\n\
         # runbooks the exporter serves, after\n\
         #   kubectl -n {NAMESPACE} port-forward svc/kube-lifecycle-exporter 9096\n\
         # To point them at your own copy, see deploy/README.md.\n\
         apiVersion: monitoring.coreos.com/v1\n\
         kind: PrometheusRule\n\
         metadata:\n\
         \x20 name: kube-lifecycle-exporter\n\
         \x20 namespace: {NAMESPACE}\n\
         \x20 labels:\n\
         \x20   app.kubernetes.io/name: kube-lifecycle-exporter\n\
         spec:\n"
    );
    for line in rules[start + 1..].lines() {
        // Indenting every line keeps block scalars intact: their indentation is
        // relative to the key that opens them.
        if !line.is_empty() {
            out.push_str("  ");
            out.push_str(&line.replace(RUNBOOK_PLACEHOLDER, RUNBOOK_BASE));
        }
        out.push('\n');
    }
    out
}

/// One ConfigMap per dashboard file, labelled for the Grafana sidecar. The JSON is
/// minified (whitespace outside strings dropped, nothing reordered) so that
/// `kubectl apply`'s last-applied-configuration annotation stays far below the
/// 256 KiB limit on annotations.
pub fn dashboards(files: &[(String, String)]) -> String {
    let mut out = format!(
        "# Generated from dashboards/*.json by tests/deploy.rs: do not edit here; change the\n\
         # dashboards and {REGENERATE}.\n\
         # The Grafana sidecar (kube-prometheus-stack's grafana.sidecar.dashboards) loads\n\
         # every ConfigMap labelled grafana_dashboard: \"1\" in the namespaces it searches.\n"
    );
    for (i, (file, json)) in files.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        let stem = file.trim_end_matches(".json");
        out.push_str(&format!(
            "apiVersion: v1\n\
             kind: ConfigMap\n\
             metadata:\n\
             \x20 name: {stem}-dashboard\n\
             \x20 namespace: {NAMESPACE}\n\
             \x20 labels:\n\
             \x20   app.kubernetes.io/name: kube-lifecycle-exporter\n\
             \x20   grafana_dashboard: \"1\"\n\
             data:\n\
             \x20 {file}: |-\n\
             \x20   {}\n",
            minify(json)
        ));
    }
    out
}

/// JSON without the whitespace between tokens.
pub fn minify(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !c.is_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// The kustomize base as one file: its resources' documents, comments included,
/// in the order kustomize renders them. `files` gives the text of each resource
/// file the base lists.
pub fn all_in_one(resource_files: &[(String, String)]) -> String {
    let mut documents: Vec<(serde_json::Value, String)> = Vec::new();
    for (file, text) in resource_files {
        for chunk in split_documents(text) {
            let mut parsed = kustomize::documents(&chunk, file).unwrap_or_else(|e| panic!("{e}"));
            match parsed.len() {
                0 => continue,
                1 => documents.push((parsed.remove(0), chunk)),
                _ => panic!("{file}: a document split wrongly"),
            }
        }
    }
    let mut objects: Vec<serde_json::Value> = documents.iter().map(|(v, _)| v.clone()).collect();
    kustomize::sort(&mut objects);
    let mut out = format!(
        "# kube-lifecycle-exporter for `kubectl apply -f`: what `kubectl apply -k deploy`\n\
         # applies (deploy/base but the Prometheus Operator's kinds) in one file, in the\n\
         # order kustomize renders them. Generated by tests/deploy.rs from the files of\n\
         # deploy/base: do not edit here; change them and {REGENERATE}.\n"
    );
    for object in objects {
        let (_, text) = documents
            .iter()
            .find(|(v, _)| *v == object)
            .expect("every sorted object has its text");
        out.push_str("---\n");
        out.push_str(text);
    }
    out
}

/// Splits a multi-document YAML text on its `---` lines.
fn split_documents(text: &str) -> Vec<String> {
    let mut chunks = vec![String::new()];
    for line in text.lines() {
        if line == "---" {
            chunks.push(String::new());
        } else if let Some(last) = chunks.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    chunks
}

/// Compares a generated file with the committed one; `UPDATE_DEPLOY=1` rewrites it.
pub fn check(root: &Path, relative: &str, generated: &str) -> Result<(), String> {
    let path = root.join(relative);
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current == generated {
        return Ok(());
    }
    if std::env::var_os("UPDATE_DEPLOY").is_some() {
        std::fs::write(&path, generated).map_err(|e| format!("writing {relative}: {e}"))?;
        return Ok(());
    }
    Err(format!(
        "{relative} is out of date with what it is generated from; {REGENERATE} and review the diff"
    ))
}
