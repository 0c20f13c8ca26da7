use crate::common;

// Lints the Grafana dashboards under `dashboards/` in the spirit of grafana's
// dashboard-linter: stable uids, the `datasource` and `cluster` variables used
// everywhere, `$__rate_interval` in every rate, a description and a unit on every
// panel, only documented metrics, no deprecated panel types; and what an on-call
// engineer needs from them (issue 19): findings summed across exporter shards,
// every finding panel linking the runbook of its cause and the exporter's landing
// page, and the pages firing now at the top of the overview.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::dashboards::{
    self, Query, dashboards, is_row, panels, queries, raw_queries, substitute, variable,
    variable_promql, variable_query_text,
};
use serde_json::{Value, json};

/// File name → uid, the two dashboards this project ships.
const EXPECTED: &[(&str, &str)] = &[
    ("kube-lifecycle-namespace.json", "kube-lifecycle-namespace"),
    ("kube-lifecycle-overview.json", "kube-lifecycle-overview"),
];
const TAG: &str = "kube-lifecycle";
const CLUSTER_MATCHER: (&str, &str, &str) = ("cluster", "=~", "$cluster");
const ALLOWED_PANELS: &[&str] = &["row", "timeseries", "stat", "table", "heatmap", "bargauge"];
const DEPRECATED_PANELS: &[&str] = &[
    "graph",
    "singlestat",
    "table-old",
    "grafana-singlestat-panel",
    "grafana-piechart-panel",
    "grafana-worldmap-panel",
    "grafana-clock-panel",
];
/// Series of Prometheus itself that the dashboards read besides the exporter's:
/// the exporter's targets (`up`) and the firing alerts (`ALERTS`).
const PROMETHEUS_SERIES: &[&str] = &["up", "ALERTS"];
/// The `severity` of the pack's pages (`_config.severities.page` of the mixin)
/// and of its tickets (`_config.severities.ticket`).
const PAGE_SEVERITY: &str = "critical";
const TICKET_SEVERITY: &str = "warning";
/// The textbox variable every link to the exporter starts with.
const EXPORTER: &str = "${exporter}";
const AGGREGATIONS: &[&str] = &[
    "sum",
    "min",
    "max",
    "avg",
    "count",
    "group",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
    "limitk",
    "limit_ratio",
];

fn datasource() -> Value {
    json!({"type": "prometheus", "uid": "${datasource}"})
}

/// Collects `problems` and fails listing all of them.
fn check(what: &str, problems: Vec<String>) {
    assert!(problems.is_empty(), "{what}:\n  {}", problems.join("\n  "));
}

fn panel_queries() -> Vec<Query> {
    raw_queries()
        .into_iter()
        .filter(|q| !q.panel.starts_with("variable "))
        .collect()
}

// ----------------------------------------------------------------------------- PromQL

/// A PromQL token; string literals keep their raw content.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Num(String),
    /// A Grafana variable: `$name`, `${name}`, `${name:format}`, `[[name]]`.
    Var(String),
    Op(String),
}

fn tokens(expr: &str) -> Vec<Tok> {
    let chars: Vec<char> = expr.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let take_while = |i: &mut usize, f: &dyn Fn(char) -> bool| -> String {
        let start = *i;
        while *i < chars.len() && f(chars[*i]) {
            *i += 1;
        }
        chars[start..*i].iter().collect()
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '#' {
            take_while(&mut i, &|c| c != '\n');
        } else if c == '"' || c == '\'' || c == '`' {
            i += 1;
            let mut s = String::new();
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' && c != '`' && i + 1 < chars.len() {
                    s.push(chars[i]);
                    i += 1;
                }
                s.push(chars[i]);
                i += 1;
            }
            i += 1;
            out.push(Tok::Str(s));
        } else if c == '$' {
            i += 1;
            if chars.get(i) == Some(&'{') {
                i += 1;
                let name = take_while(&mut i, &|c| c != '}');
                i += 1;
                out.push(Tok::Var(name.split(':').next().unwrap_or("").to_string()));
            } else {
                out.push(Tok::Var(take_while(&mut i, &|c| {
                    c.is_ascii_alphanumeric() || c == '_'
                })));
            }
        } else if c == '[' && chars.get(i + 1) == Some(&'[') {
            i += 2;
            let name = take_while(&mut i, &|c| c != ']');
            i += 2;
            out.push(Tok::Var(name.split(':').next().unwrap_or("").to_string()));
        } else if c.is_ascii_alphabetic() || c == '_' || c == ':' {
            out.push(Tok::Ident(take_while(&mut i, &|c| {
                c.is_ascii_alphanumeric() || c == '_' || c == ':'
            })));
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            out.push(Tok::Num(take_while(&mut i, &|c| {
                c.is_ascii_alphanumeric() || c == '.'
            })));
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            if ["=~", "!~", "!=", "==", ">=", "<="].contains(&two.as_str()) {
                out.push(Tok::Op(two));
                i += 2;
            } else {
                out.push(Tok::Op(c.to_string()));
                i += 1;
            }
        }
    }
    out
}

fn is_op(t: Option<&Tok>, op: &str) -> bool {
    matches!(t, Some(Tok::Op(o)) if o == op)
}

/// Index of the token closing the bracket opened at `open`.
fn closing(toks: &[Tok], open: usize) -> usize {
    let (o, c) = match &toks[open] {
        Tok::Op(o) if o == "(" => ("(", ")"),
        Tok::Op(o) if o == "{" => ("{", "}"),
        Tok::Op(o) if o == "[" => ("[", "]"),
        t => panic!("{t:?} opens nothing"),
    };
    let mut depth = 0;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if is_op(Some(t), o) {
            depth += 1;
        } else if is_op(Some(t), c) {
            depth -= 1;
            if depth == 0 {
                return i;
            }
        }
    }
    panic!("unbalanced {o} in {toks:?}")
}

/// A label matcher block `{...}`: the metric name before it (if any) and its
/// matchers as (label, operator, value).
struct Selector {
    metric: Option<String>,
    matchers: Vec<(String, String, String)>,
}

fn selectors(toks: &[Tok]) -> Vec<Selector> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if !is_op(Some(t), "{") {
            continue;
        }
        let end = closing(toks, i);
        let metric = match i.checked_sub(1).map(|j| &toks[j]) {
            Some(Tok::Ident(name)) => Some(name.clone()),
            _ => None,
        };
        let matchers = toks[i + 1..end]
            .split(|t| is_op(Some(t), ","))
            .filter(|m| !m.is_empty())
            .map(|m| match m {
                [Tok::Ident(l), Tok::Op(op), Tok::Str(v)] => (l.clone(), op.clone(), v.clone()),
                other => panic!("unexpected matcher {other:?}"),
            })
            .collect();
        out.push(Selector { metric, matchers });
    }
    out
}

/// Whether a series is the exporter's own: its `kube_lifecycle_` families and
/// the standard `process_` families every exporter serves.
fn the_exporters(name: &str) -> bool {
    name.starts_with("kube_lifecycle_") || name.starts_with("process_")
}

/// The exporter's names an expression refers to, with whether each is
/// followed by a matcher block.
fn metric_references(toks: &[Tok]) -> Vec<(String, bool)> {
    toks.iter()
        .enumerate()
        .filter_map(|(i, t)| match t {
            Tok::Ident(name) if the_exporters(name) => {
                Some((name.clone(), is_op(toks.get(i + 1), "{")))
            }
            _ => None,
        })
        .collect()
}

/// `### \`name\`` headings of docs/metrics.md.
fn documented_metrics() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/metrics.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| l.strip_prefix("### `")?.strip_suffix('`'))
        .map(str::to_string)
        .collect()
}

fn documented_family<'a>(name: &'a str, documented: &BTreeSet<String>) -> Option<&'a str> {
    if documented.contains(name) {
        return Some(name);
    }
    ["_bucket", "_sum", "_count"]
        .iter()
        .filter_map(|s| name.strip_suffix(s))
        .find(|base| documented.contains(*base))
}

/// Whether `name` matches a `__name__` regex made of literals, `.*` and `.+`.
fn simple_regex_matches(re: &str, name: &str) -> bool {
    fn go(re: &[u8], s: &[u8]) -> bool {
        match re {
            [] => s.is_empty(),
            [b'.', q @ (b'*' | b'+'), rest @ ..] => {
                let min = usize::from(*q == b'+');
                (min..=s.len()).any(|k| go(rest, &s[k..]))
            }
            [c, rest @ ..] => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    assert!(
        !re.contains(['[', '(', '|', '?', '\\', '^', '$']),
        "{re}: only literals, .* and .+ are understood here"
    );
    go(re.as_bytes(), name.as_bytes())
}

/// Labels that identify the object a per-object family describes; an aggregation
/// directly over the family must keep them (and `cluster`) so that replicas of the
/// exporter are not added up and objects stay apart.
fn identifying_labels(metric: &str) -> Option<&'static [&'static str]> {
    let m = metric.strip_prefix("kube_lifecycle_")?;
    Some(match m {
        "findings" => &["anomaly", "cause"],
        "pod_pending_reason" => &["namespace", "pod", "reason"],
        // Deployments' series carry `deployment`, StatefulSets' `statefulset`.
        "recreate_blocked_by_terminating" => &["namespace"],
        "namespace_remaining_resources" => &["namespace", "resource"],
        "namespace_remaining_finalizers" => &["namespace", "finalizer"],
        _ if m.starts_with("pod_") && m.ends_with("_timestamp_seconds") => &["namespace", "pod"],
        _ if m.starts_with("container_") => &["namespace", "pod", "container"],
        _ if m.starts_with("deployment_") => &["namespace", "deployment"],
        _ if m.starts_with("statefulset_") => &["namespace", "statefulset"],
        _ if m.starts_with("daemonset_") => &["namespace", "daemonset"],
        _ if m.starts_with("workload_") => &["namespace", "owner_kind", "owner_name"],
        _ if m.starts_with("job_") => &["namespace", "job_name"],
        _ if m.starts_with("namespace_") && m.ends_with("_timestamp_seconds") => &["namespace"],
        _ => return None,
    })
}

/// Every aggregation in `toks`: (operator, `by` labels or None, argument tokens).
fn aggregations(toks: &[Tok]) -> Vec<(String, Option<Vec<String>>, Vec<Tok>)> {
    let labels = |open: usize| -> (Vec<String>, usize) {
        let end = closing(toks, open);
        let names = toks[open + 1..end]
            .iter()
            .filter_map(|t| match t {
                Tok::Ident(l) => Some(l.clone()),
                _ => None,
            })
            .collect();
        (names, end)
    };
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Tok::Ident(op) = t else { continue };
        if !AGGREGATIONS.contains(&op.as_str()) {
            continue;
        }
        let mut j = i + 1;
        let mut by = None;
        if let Some(Tok::Ident(kw)) = toks.get(j)
            && (kw == "by" || kw == "without")
        {
            let (names, end) = labels(j + 1);
            by = (kw == "by").then_some(names);
            j = end + 1;
        }
        if !is_op(toks.get(j), "(") {
            continue; // a label or function name that happens to be "sum"…
        }
        let end = closing(toks, j);
        let arg = toks[j + 1..end].to_vec();
        if let Some(Tok::Ident(kw)) = toks.get(end + 1)
            && (kw == "by" || kw == "without")
        {
            let (names, _) = labels(end + 2);
            by = (kw == "by").then_some(names);
        }
        out.push((op.clone(), by, arg));
    }
    out
}

/// docs/metrics.md: the anomalies of each family of findings (the "anomaly `x`"
/// on the line after its heading; a family of two anomalies names both).
fn documented_anomalies() -> BTreeMap<String, Vec<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/metrics.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = BTreeMap::new();
    let mut family: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("### `").and_then(|l| l.strip_suffix('`')) {
            family = Some(name.to_string());
        } else if let Some(name) = &family
            && line.contains("anomaly `")
        {
            let anomalies = line
                .split("anomaly `")
                .skip(1)
                .filter_map(|rest| rest.split('`').next())
                .map(String::from)
                .collect();
            out.insert(name.clone(), anomalies);
            family = None;
        }
    }
    out
}

/// The anomalies whose findings a panel shows: the family's anomaly for a
/// per-object series, the `anomaly="x"` matcher for kube_lifecycle_findings, or
/// `*` when a findings query is not restricted to one anomaly.
fn panel_anomalies(panel: &Value, documented: &BTreeMap<String, Vec<String>>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for t in panel["targets"].as_array().into_iter().flatten() {
        for s in selectors(&tokens(t["expr"].as_str().unwrap_or(""))) {
            let Some(metric) = s.metric else { continue };
            if metric == "kube_lifecycle_findings" {
                let anomaly = s
                    .matchers
                    .iter()
                    .find(|(l, o, _)| l == "anomaly" && o == "=")
                    .map_or("*".to_string(), |(_, _, v)| v.clone());
                out.insert(anomaly);
            } else if let Some(anomalies) = documented.get(&metric) {
                // A family of Deployments' and StatefulSets' series: the kind the
                // query keeps (`deployment!=""`) is the anomaly it shows.
                let kept = |label: &str| {
                    s.matchers
                        .iter()
                        .any(|(l, o, v)| l == label && o == "!=" && v.is_empty())
                };
                let shown: Vec<&String> = match anomalies.as_slice() {
                    [_, _, ..] if kept("deployment") => anomalies
                        .iter()
                        .filter(|a| *a == "recreate_blocked")
                        .collect(),
                    [_, _, ..] if kept("statefulset") => anomalies
                        .iter()
                        .filter(|a| *a == "statefulset_blocked")
                        .collect(),
                    _ => anomalies.iter().collect(),
                };
                out.extend(shown.into_iter().cloned());
            }
        }
    }
    out
}

/// A panel's data links: its defaults' and those its overrides set.
fn panel_links(panel: &Value) -> Vec<&Value> {
    links_of(panel, |_| true)
}

/// The data links of all a panel's values: its defaults' and those of its
/// per-query overrides (a panel of several anomalies links each query's series
/// to its own), not those of a single column.
fn value_links(panel: &Value) -> Vec<&Value> {
    links_of(panel, |o| o["matcher"]["id"] == "byFrameRefID")
}

fn links_of(panel: &Value, overrides: impl Fn(&Value) -> bool) -> Vec<&Value> {
    let defaults = panel["fieldConfig"]["defaults"]["links"].as_array();
    let overrides = panel["fieldConfig"]["overrides"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |o| overrides(o))
        .flat_map(|o| o["properties"].as_array().into_iter().flatten())
        .filter(|p| p["id"] == "links")
        .flat_map(|p| p["value"].as_array().into_iter().flatten());
    defaults.into_iter().flatten().chain(overrides).collect()
}

/// The columns a table names in its organize transformation.
fn table_columns(panel: &Value) -> BTreeSet<String> {
    panel["transformations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["id"] == "organize")
        .flat_map(|t| {
            t["options"]["indexByName"]
                .as_object()
                .into_iter()
                .flatten()
        })
        .map(|(k, _)| k.clone())
        .collect()
}

/// The `name=value` parameters of a link's query string.
fn link_parameters(url: &str) -> BTreeMap<String, String> {
    url.split_once('?')
        .map(|(_, q)| q)
        .unwrap_or("")
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Aggregations directly over kube_lifecycle_findings that are not sums. The
/// exporter can be sharded by namespace: each shard counts the findings it holds,
/// so counts add up across targets; a `max` (or any other aggregation) across them
/// shows one shard's count only.
fn findings_aggregations_that_are_not_sums(expr: &str) -> Vec<String> {
    aggregations(&tokens(expr))
        .into_iter()
        .filter(|(_, _, arg)| aggregations(arg).is_empty())
        .filter(|(_, _, arg)| {
            metric_references(arg)
                .iter()
                .any(|(m, _)| m == "kube_lifecycle_findings")
        })
        .filter(|(op, _, _)| op != "sum")
        .map(|(op, by, _)| format!("{op} by ({})", by.unwrap_or_default().join(", ")))
        .collect()
}

// ----------------------------------------------------------------------------- tests

#[test]
fn every_dashboard_file_is_valid_json_with_the_expected_stable_uid() {
    let found: BTreeMap<String, String> = dashboards()
        .into_iter()
        .map(|(file, d)| (file, d["uid"].as_str().unwrap_or("").to_string()))
        .collect();
    let expected: BTreeMap<String, String> = EXPECTED
        .iter()
        .map(|(f, u)| (f.to_string(), u.to_string()))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn dashboards_use_the_current_schema_and_standard_settings() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        let mut bad = |what: &str, ok: bool| {
            if !ok {
                problems.push(format!("{file}: {what}"));
            }
        };
        bad(
            "schemaVersion >= 39",
            d["schemaVersion"].as_u64().unwrap_or(0) >= 39,
        );
        bad("editable true", d["editable"] == true);
        // The mixin's _config.dashboardRefresh and dashboardTimezone.
        bad("refresh 1m", d["refresh"] == "1m");
        bad("timezone browser", d["timezone"] == "browser");
        bad(
            "the refresh interval offered in the time picker",
            d["timepicker"]["refresh_intervals"]
                .as_array()
                .is_some_and(|l| l.contains(&d["refresh"])),
        );
        bad(
            "time from now-6h to now",
            d["time"] == json!({"from": "now-6h", "to": "now"}),
        );
        bad(
            "a title",
            d["title"].as_str().is_some_and(|t| !t.is_empty()),
        );
        bad(
            "a description",
            d["description"].as_str().is_some_and(|t| !t.is_empty()),
        );
        bad("no fixed numeric id", d["id"].is_null());
    }
    check("dashboard settings", problems);
}

#[test]
fn every_dashboard_is_tagged_kube_lifecycle() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        let tags: Vec<&str> = d["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !tags.contains(&TAG) {
            problems.push(format!("{file}: tags {tags:?}"));
        }
    }
    check("dashboards without the kube-lifecycle tag", problems);
}

#[test]
fn datasource_and_cluster_template_variables_are_defined() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        match variable(&d, "datasource") {
            Some(v) if v["type"] == "datasource" && v["query"] == "prometheus" => {}
            other => problems.push(format!(
                "{file}: datasource variable must be type datasource, query prometheus: {other:?}"
            )),
        }
        match variable(&d, "cluster") {
            Some(v) => {
                let query = variable_query_text(v).unwrap_or("").replace(' ', "");
                if v["type"] != "query"
                    || query != "label_values(kube_lifecycle_build_info,cluster)"
                    || v["includeAll"] != true
                    || v["allValue"] != ".*"
                    || v["datasource"] != datasource()
                {
                    problems.push(format!(
                        "{file}: cluster must be a query variable on label_values(kube_lifecycle_build_info, cluster) \
                         with includeAll and allValue .* from ${{datasource}}: {v}"
                    ));
                }
            }
            None => problems.push(format!("{file}: no cluster variable")),
        }
        for v in dashboards::variables(&d) {
            if v["type"] == "query" && v["datasource"] != datasource() {
                problems.push(format!(
                    "{file}: variable {} does not query ${{datasource}}",
                    v["name"]
                ));
            }
        }
    }
    check("template variables", problems);
}

#[test]
fn namespace_dashboard_has_a_multi_value_namespace_variable_listing_namespaces_with_findings() {
    let (_, d) = dashboards()
        .into_iter()
        .find(|(f, _)| f == "kube-lifecycle-namespace.json")
        .expect("the namespace dashboard");
    let v = variable(&d, "namespace").expect("a namespace variable");
    assert_eq!(v["type"], "query");
    assert_eq!(v["multi"], true);
    assert_eq!(v["includeAll"], true);
    assert_eq!(v["allValue"], ".*");
    let query = variable_query_text(v).expect("a query");
    assert!(query.starts_with("label_values("), "{query}");
    assert!(query.contains(r#"cluster=~"$cluster""#), "{query}");
    assert!(query.replace(' ', "").ends_with(",namespace)"), "{query}");
    // Every panel query of the namespace dashboard is restricted to the selection.
    let mut problems = Vec::new();
    for q in panel_queries()
        .iter()
        .filter(|q| q.dashboard == "kube-lifecycle-namespace.json")
    {
        for s in selectors(&tokens(&q.expr)) {
            if !s
                .matchers
                .iter()
                .any(|(l, o, v)| l == "namespace" && o == "=~" && v == "$namespace")
            {
                problems.push(format!(
                    "{}: {} has no namespace=~\"$namespace\"",
                    q.panel,
                    s.metric.unwrap_or_default()
                ));
            }
        }
    }
    check("namespace dashboard selectors", problems);
}

#[test]
fn every_panel_and_target_uses_the_datasource_variable() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        for p in panels(&d).into_iter().filter(|p| !is_row(p)) {
            if p["datasource"] != datasource() {
                problems.push(format!(
                    "{file}: {}: panel datasource {}",
                    p["title"], p["datasource"]
                ));
            }
            let targets = p["targets"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            if targets.is_empty() {
                problems.push(format!("{file}: {}: no targets", p["title"]));
            }
            for t in targets {
                if t["datasource"] != datasource() {
                    problems.push(format!(
                        "{file}: {} {}: target datasource {}",
                        p["title"], t["refId"], t["datasource"]
                    ));
                }
                if t["expr"].as_str().is_none_or(str::is_empty) {
                    problems.push(format!("{file}: {} {}: no expr", p["title"], t["refId"]));
                }
            }
        }
    }
    check("panels not on ${datasource}", problems);
}

#[test]
fn every_selector_filters_on_the_cluster_variable() {
    let mut problems = Vec::new();
    for q in panel_queries() {
        let toks = tokens(&q.expr);
        for s in selectors(&toks) {
            let has = s
                .matchers
                .iter()
                .any(|(l, o, v)| (l.as_str(), o.as_str(), v.as_str()) == CLUSTER_MATCHER);
            if !has {
                problems.push(format!(
                    "{} / {}: {} has no cluster=~\"$cluster\"",
                    q.dashboard,
                    q.panel,
                    s.metric.as_deref().unwrap_or("{…}")
                ));
            }
        }
        // The same check over the raw text, the way a regex linter would see it.
        let text = &q.expr;
        let mut rest = text.as_str();
        while let Some(at) = rest.find("kube_lifecycle_") {
            let after = &rest[at..];
            let name_len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let tail = &after[name_len..];
            match tail
                .strip_prefix('{')
                .and_then(|t| t.find('}').map(|e| &t[..e]))
            {
                Some(block) if block.contains(r#"cluster=~"$cluster""#) => {}
                _ => problems.push(format!(
                    "{} / {}: {} is not followed by {{…cluster=~\"$cluster\"…}}",
                    q.dashboard,
                    q.panel,
                    &after[..name_len]
                )),
            }
            rest = &after[name_len..];
        }
    }
    check("selectors without the cluster filter", problems);
}

#[test]
fn no_kube_lifecycle_metric_is_used_without_a_label_matcher() {
    let mut problems = Vec::new();
    for q in panel_queries() {
        for (name, braced) in metric_references(&tokens(&q.expr)) {
            if !braced {
                problems.push(format!(
                    "{} / {}: {name} without {{…}}",
                    q.dashboard, q.panel
                ));
            }
        }
    }
    check("bare metric names", problems);
}

#[test]
fn every_rate_and_increase_uses_rate_interval() {
    let mut problems = Vec::new();
    let mut seen = 0;
    for q in panel_queries() {
        let toks = tokens(&q.expr);
        for (i, t) in toks.iter().enumerate() {
            let Tok::Ident(f) = t else { continue };
            if !["rate", "irate", "increase"].contains(&f.as_str()) || !is_op(toks.get(i + 1), "(")
            {
                continue;
            }
            seen += 1;
            let end = closing(&toks, i + 1);
            let arg = &toks[i + 2..end];
            let ranges: Vec<&[Tok]> = arg
                .iter()
                .enumerate()
                .filter(|(_, t)| is_op(Some(t), "["))
                .map(|(j, _)| &arg[j + 1..closing(arg, j)])
                .collect();
            let ok = !ranges.is_empty()
                && ranges
                    .iter()
                    .all(|r| *r == [Tok::Var("__rate_interval".into())]);
            if !ok {
                problems.push(format!(
                    "{} / {}: {f}(…) range {ranges:?}",
                    q.dashboard, q.panel
                ));
            }
        }
    }
    assert!(seen > 0, "no rate() at all: the check checks nothing");
    check("rates not over [$__rate_interval]", problems);
}

#[test]
fn template_variables_appear_only_in_regex_matchers() {
    // Multi-value and "All" selections expand to regexes: `=` would break them.
    let mut problems = Vec::new();
    for q in panel_queries() {
        let toks = tokens(&q.expr);
        for (i, t) in toks.iter().enumerate() {
            match t {
                Tok::Var(v) if !v.starts_with("__") => {
                    problems.push(format!(
                        "{} / {}: ${v} outside a matcher",
                        q.dashboard, q.panel
                    ));
                }
                Tok::Str(s) if s.contains('$') => {
                    let regex = matches!(toks.get(i.wrapping_sub(1)), Some(Tok::Op(o)) if o == "=~" || o == "!~");
                    if !regex {
                        problems.push(format!(
                            "{} / {}: \"{s}\" is not a regex matcher",
                            q.dashboard, q.panel
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    check("variables outside regex matchers", problems);
}

#[test]
fn every_panel_has_a_description_and_a_unit() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        for p in panels(&d).into_iter().filter(|p| !is_row(p)) {
            if p["description"]
                .as_str()
                .is_none_or(|s| s.trim().is_empty())
            {
                problems.push(format!("{file}: {}: no description", p["title"]));
            }
            if p["fieldConfig"]["defaults"]["unit"]
                .as_str()
                .is_none_or(str::is_empty)
            {
                problems.push(format!(
                    "{file}: {}: no fieldConfig.defaults.unit",
                    p["title"]
                ));
            }
        }
    }
    check("panels without description or unit", problems);
}

#[test]
fn panel_ids_and_titles_are_unique_within_each_dashboard() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        let mut ids = BTreeSet::new();
        let mut titles = BTreeSet::new();
        for p in panels(&d) {
            match p["id"].as_u64() {
                Some(id) if ids.insert(id) => {}
                Some(id) => problems.push(format!("{file}: id {id} twice")),
                None => problems.push(format!("{file}: {} has no id", p["title"])),
            }
            match p["title"].as_str() {
                Some(t) if t.trim().is_empty() => {
                    problems.push(format!("{file}: empty title (id {})", p["id"]))
                }
                Some(t) if !titles.insert(t.to_string()) => {
                    problems.push(format!("{file}: title {t:?} twice"))
                }
                Some(_) => {}
                None => problems.push(format!("{file}: no title (id {})", p["id"])),
            }
        }
    }
    check("duplicate panel ids or titles", problems);
}

#[test]
fn every_panel_has_a_grid_position_inside_the_grid_without_overlaps() {
    type Rect = (u64, u64, u64, u64);
    fn rect(p: &Value) -> Option<Rect> {
        let g = &p["gridPos"];
        Some((
            g["x"].as_u64()?,
            g["y"].as_u64()?,
            g["w"].as_u64()?,
            g["h"].as_u64()?,
        ))
    }
    fn overlaps(a: Rect, b: Rect) -> bool {
        a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
    }
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        // The top level, and separately the panels each collapsed row holds.
        let mut groups: Vec<Vec<&Value>> = vec![d["panels"].as_array().unwrap().iter().collect()];
        for p in panels(&d) {
            if let Some(inner) = p["panels"].as_array().filter(|a| !a.is_empty()) {
                groups.push(inner.iter().collect());
            }
        }
        for group in groups {
            let mut placed: Vec<(Rect, &Value)> = Vec::new();
            for p in group {
                let Some(r) = rect(p) else {
                    problems.push(format!("{file}: {} has no complete gridPos", p["title"]));
                    continue;
                };
                if r.2 == 0 || r.3 == 0 || r.0 + r.2 > 24 {
                    problems.push(format!(
                        "{file}: {} gridPos {r:?} outside the 24-column grid",
                        p["title"]
                    ));
                }
                for (other, q) in &placed {
                    if overlaps(r, *other) {
                        problems.push(format!("{file}: {} overlaps {}", p["title"], q["title"]));
                    }
                }
                placed.push((r, p));
            }
        }
    }
    check("grid positions", problems);
}

#[test]
fn panels_are_grouped_in_rows() {
    for (file, d) in dashboards() {
        let top = d["panels"].as_array().expect("panels");
        assert!(is_row(&top[0]), "{file}: the first panel is not a row");
        assert!(
            top.iter().filter(|p| is_row(p)).count() >= 3,
            "{file}: fewer than 3 rows"
        );
    }
}

#[test]
fn every_referenced_metric_is_documented_in_docs_metrics_md() {
    let documented = documented_metrics();
    assert!(
        documented.len() > 20,
        "docs/metrics.md headings: {documented:?}"
    );
    let mut problems = Vec::new();
    for q in raw_queries() {
        let toks = tokens(&q.expr);
        let mut names: Vec<String> = toks
            .iter()
            .filter_map(|t| match t {
                Tok::Ident(n) if the_exporters(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        for s in selectors(&toks) {
            if let Some(metric) = &s.metric
                && !the_exporters(metric)
                && !PROMETHEUS_SERIES.contains(&metric.as_str())
            {
                problems.push(format!(
                    "{} / {}: {metric} is neither the exporter's nor one of Prometheus' own {PROMETHEUS_SERIES:?}",
                    q.dashboard, q.panel
                ));
            }
            for (l, o, v) in &s.matchers {
                if l != "__name__" {
                    continue;
                }
                match o.as_str() {
                    "=" => names.push(v.clone()),
                    "=~" if !documented.iter().any(|m| simple_regex_matches(v, m)) => {
                        problems.push(format!(
                            "{} / {}: __name__=~{v:?} matches no documented metric",
                            q.dashboard, q.panel
                        ));
                    }
                    _ => {}
                }
            }
        }
        for name in names {
            if documented_family(&name, &documented).is_none() {
                problems.push(format!(
                    "{} / {}: {name} is not in docs/metrics.md",
                    q.dashboard, q.panel
                ));
            }
        }
    }
    check("undocumented metrics", problems);
}

#[test]
fn aggregations_over_per_object_series_keep_cluster_and_the_object_labels() {
    let mut problems = Vec::new();
    for q in panel_queries() {
        for (op, by, arg) in aggregations(&tokens(&q.expr)) {
            // Only the innermost aggregation sees the raw per-object series.
            if !aggregations(&arg).is_empty() {
                continue;
            }
            for (metric, _) in metric_references(&arg) {
                let Some(needed) = identifying_labels(&metric) else {
                    continue;
                };
                let by = by.clone().unwrap_or_default();
                let missing: Vec<&str> = std::iter::once("cluster")
                    .chain(needed.iter().copied())
                    .filter(|l| !by.iter().any(|b| b == l))
                    .collect();
                if !missing.is_empty() {
                    problems.push(format!(
                        "{} / {}: {op} by ({}) over {metric} drops {missing:?}",
                        q.dashboard,
                        q.panel,
                        by.join(", ")
                    ));
                }
            }
        }
    }
    check("aggregations that merge objects", problems);
}

#[test]
fn findings_are_counted_with_sums_across_exporter_shards() {
    // The rule the lint applies, on an expression it must reject and one it must
    // accept.
    assert_eq!(
        findings_aggregations_that_are_not_sums(
            r#"sum(max by (cluster, anomaly, cause) (kube_lifecycle_findings{cluster=~"$cluster"}))"#
        ),
        vec!["max by (cluster, anomaly, cause)".to_string()]
    );
    assert!(
        findings_aggregations_that_are_not_sums(
            r#"sum(sum by (cluster, anomaly, cause) (kube_lifecycle_findings{cluster=~"$cluster"}))"#
        )
        .is_empty()
    );
    let mut problems = Vec::new();
    let mut seen = 0;
    for q in panel_queries() {
        if q.expr.contains("kube_lifecycle_findings") {
            seen += 1;
        }
        for agg in findings_aggregations_that_are_not_sums(&q.expr) {
            problems.push(format!(
                "{} / {}: {agg} over kube_lifecycle_findings (shards' counts add up: sum)",
                q.dashboard, q.panel
            ));
        }
    }
    assert!(
        seen > 0,
        "no query of kube_lifecycle_findings: the check checks nothing"
    );
    check("findings not summed across shards", problems);
}

#[test]
fn every_finding_panel_links_the_runbook_of_its_cause_and_the_landing_page() {
    let documented = documented_anomalies();
    assert!(
        documented.len() > 15
            && documented
                .values()
                .any(|a| a.iter().any(|a| a == "pod_terminating")),
        "anomalies of docs/metrics.md: {documented:?}"
    );
    let mut problems = Vec::new();
    let mut checked = 0;
    for (file, d) in dashboards() {
        for p in panels(&d).into_iter().filter(|p| !is_row(p)) {
            let anomalies = panel_anomalies(p, &documented);
            if anomalies.is_empty() {
                continue;
            }
            checked += 1;
            let mut bad = |what: String| problems.push(format!("{file}: {}: {what}", p["title"]));
            let links = value_links(p);
            let exporter: Vec<&str> = links
                .iter()
                .filter_map(|l| l["url"].as_str())
                .filter(|u| u.starts_with(EXPORTER))
                .collect();
            for l in &links {
                let url = l["url"].as_str().unwrap_or("");
                if url.starts_with(EXPORTER)
                    && (l["targetBlank"] != true || l["title"].as_str().is_none_or(str::is_empty))
                {
                    bad(format!("link {url} needs a title and targetBlank"));
                }
            }
            let is_table = p["type"] == "table";
            let columns = table_columns(p);
            let by_cause = if is_table {
                columns.contains("cause")
            } else {
                p["targets"].as_array().into_iter().flatten().any(|t| {
                    t["legendFormat"]
                        .as_str()
                        .is_some_and(|l| l.contains("{{cause}}"))
                })
            };
            let cause_variable = if is_table {
                "${__data.fields.cause}"
            } else {
                "${__field.labels.cause}"
            };

            // The runbook: of the cause when the panel shows causes, else the index.
            let runbooks: Vec<&str> = exporter
                .iter()
                .copied()
                .filter(|u| u.starts_with(&format!("{EXPORTER}/runbooks")))
                .collect();
            if runbooks.is_empty() {
                bad(format!("no link to {EXPORTER}/runbooks"));
            }
            let mut cause_runbook = false;
            for url in &runbooks {
                let Some(rest) = url.strip_prefix(&format!("{EXPORTER}/runbooks/for/")) else {
                    continue;
                };
                let (anomaly, cause) = rest.split_once('/').unwrap_or((rest, ""));
                if !anomalies.contains(anomaly) {
                    bad(format!(
                        "runbook link {url}: {anomaly} is not the panel's anomaly {anomalies:?}"
                    ));
                }
                let literal = p["targets"].as_array().into_iter().flatten().any(|t| {
                    selectors(&tokens(t["expr"].as_str().unwrap_or("")))
                        .iter()
                        .flat_map(|s| &s.matchers)
                        .any(|(l, o, v)| l == "cause" && o == "=" && v == cause)
                });
                if cause == cause_variable {
                    cause_runbook = true;
                } else if !literal {
                    bad(format!(
                        "runbook link {url}: the cause is neither {cause_variable} nor the panel's cause=\"…\""
                    ));
                }
            }
            if by_cause && !cause_runbook {
                bad(format!(
                    "shows causes but links no {EXPORTER}/runbooks/for/<anomaly>/{cause_variable}"
                ));
            }

            // The landing page, filtered on each anomaly the panel shows (on the
            // row's namespace in tables that have one).
            let landing: Vec<BTreeMap<String, String>> = exporter
                .iter()
                .filter(|u| {
                    u.starts_with(&format!("{EXPORTER}/?")) || **u == format!("{EXPORTER}/")
                })
                .map(|u| link_parameters(u))
                .collect();
            for anomaly in &anomalies {
                let found = landing.iter().any(|params| match params.get("anomaly") {
                    Some(a) if anomaly == "*" => a.starts_with("${"),
                    Some(a) => a == anomaly,
                    None => false,
                });
                if !found {
                    bad(format!("no link to {EXPORTER}/?anomaly={anomaly}"));
                }
            }
            if is_table && columns.contains("namespace") {
                let filtered = landing.iter().any(|params| {
                    params.get("namespace").map(String::as_str)
                        == Some("${__data.fields.namespace}")
                });
                if !filtered {
                    bad("a table with namespaces links no landing page &namespace=${__data.fields.namespace}".into());
                }
            }
        }
    }
    assert!(
        checked > 30,
        "only {checked} finding panels: the check checks little"
    );
    check("finding panels without their links", problems);
}

#[test]
fn the_exporter_url_is_a_described_textbox_variable_and_every_link_uses_it() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        match variable(&d, "exporter") {
            Some(v) => {
                let url = v["query"].as_str().unwrap_or("");
                if v["type"] != "textbox"
                    || v["label"] != "Exporter URL"
                    || v["description"]
                        .as_str()
                        .is_none_or(|s| s.trim().is_empty())
                    || !(url.starts_with("http://") || url.starts_with("https://"))
                    || url.ends_with('/')
                    || v["current"]["value"] != url
                {
                    problems.push(format!(
                        "{file}: exporter must be a textbox labelled \"Exporter URL\" with a description and \
                         an http(s) address without a trailing / as its default and current value: {v}"
                    ));
                }
            }
            None => problems.push(format!("{file}: no exporter variable")),
        }
        // Every data link opens the exporter or a dashboard of the pack: no host
        // written into a link.
        for p in panels(&d) {
            for l in panel_links(p) {
                let url = l["url"].as_str().unwrap_or("");
                if !(url.starts_with(&format!("{EXPORTER}/")) || url.starts_with("/d/")) {
                    problems.push(format!("{file}: {}: link {url}", p["title"]));
                }
            }
        }
    }
    check("exporter variable and links", problems);
}

#[test]
fn the_overview_shows_the_pages_firing_now_at_its_top() {
    // The page severity is one the rule file uses.
    let rules = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("alerts/kube-lifecycle.rules.yaml"),
    )
    .expect("alerts/kube-lifecycle.rules.yaml");
    let severities: BTreeSet<&str> = rules
        .lines()
        .filter_map(|l| l.trim().strip_prefix("severity:"))
        .map(|v| v.trim().trim_matches('"'))
        .collect();
    assert!(
        severities.contains(PAGE_SEVERITY) && severities.contains(TICKET_SEVERITY),
        "the rules' severities {severities:?}"
    );

    let (file, d) = dashboards()
        .into_iter()
        .find(|(f, _)| f == "kube-lifecycle-overview.json")
        .expect("the overview");
    let all = panels(&d);
    let p = *all
        .iter()
        .find(|p| p["title"] == "What pages right now")
        .unwrap_or_else(|| panic!("{file}: no \"What pages right now\" panel"));
    let mut problems = Vec::new();
    let mut bad = |what: String| problems.push(format!("{file}: What pages right now: {what}"));
    if p["type"] != "table" {
        bad(format!("a {} rather than a table", p["type"]));
    }
    let top = all
        .iter()
        .filter(|q| !is_row(q))
        .filter_map(|q| q["gridPos"]["y"].as_u64())
        .min();
    if p["gridPos"]["y"].as_u64() != top {
        bad(format!(
            "at y {} rather than at the top ({top:?})",
            p["gridPos"]["y"]
        ));
    }
    let targets = p["targets"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if targets.len() != 1 || targets[0]["instant"] != true || targets[0]["format"] != "table" {
        bad("not one instant table query".into());
    }
    let expr = targets
        .first()
        .and_then(|t| t["expr"].as_str())
        .unwrap_or("");
    let toks = tokens(expr);
    // One row per alert: the series as they are, not aggregated.
    if !aggregations(&toks).is_empty() {
        bad(format!("aggregates the alerts: {expr}"));
    }
    let sels = selectors(&toks);
    let alerts = sels.iter().find(|s| s.metric.as_deref() == Some("ALERTS"));
    match alerts {
        Some(s) => {
            let has = |l: &str, o: &str, v: &str| {
                s.matchers
                    .iter()
                    .any(|m| (m.0.as_str(), m.1.as_str(), m.2.as_str()) == (l, o, v))
            };
            for (l, o, v) in [
                ("alertstate", "=", "firing"),
                ("severity", "=", PAGE_SEVERITY),
                ("alertname", "=~", "KubeLifecycle.+"),
                CLUSTER_MATCHER,
            ] {
                if !has(l, o, v) {
                    bad(format!("ALERTS without {l}{o}\"{v}\": {expr}"));
                }
            }
        }
        None => bad(format!("does not query ALERTS: {expr}")),
    }
    // Every label that identifies the alert stays a column.
    for t in p["transformations"].as_array().into_iter().flatten() {
        for (name, excluded) in t["options"]["excludeByName"]
            .as_object()
            .into_iter()
            .flatten()
        {
            let shared = [
                "Time",
                "Value",
                "Value #A",
                "__name__",
                "alertstate",
                "severity",
            ];
            if *excluded == true && !shared.contains(&name.as_str()) {
                bad(format!("hides the {name} column"));
            }
        }
    }
    let runbook = format!("{EXPORTER}/runbooks/${{__data.fields.alertname}}");
    if !panel_links(p)
        .iter()
        .any(|l| l["url"] == runbook.as_str() && l["targetBlank"] == true)
    {
        bad(format!("no data link to {runbook}"));
    }
    // The tickets firing are counted beside it.
    let tickets = all.iter().any(|q| {
        q["targets"].as_array().into_iter().flatten().any(|t| {
            selectors(&tokens(t["expr"].as_str().unwrap_or("")))
                .iter()
                .any(|s| {
                    s.metric.as_deref() == Some("ALERTS")
                        && s.matchers
                            .iter()
                            .any(|(l, o, v)| l == "severity" && o == "=" && v == TICKET_SEVERITY)
                })
        })
    });
    if !tickets {
        bad(format!(
            "no panel of the alerts firing at {TICKET_SEVERITY}"
        ));
    }
    check("the paging panel", problems);
}

#[test]
fn no_deprecated_or_unexpected_panel_types() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        for p in panels(&d) {
            let ty = p["type"].as_str().unwrap_or("");
            if DEPRECATED_PANELS.contains(&ty) {
                problems.push(format!(
                    "{file}: {}: deprecated panel type {ty}",
                    p["title"]
                ));
            } else if !ALLOWED_PANELS.contains(&ty) {
                problems.push(format!(
                    "{file}: {}: panel type {ty:?} not in {ALLOWED_PANELS:?}",
                    p["title"]
                ));
            }
        }
    }
    check("panel types", problems);
}

#[test]
fn time_tables_show_ages_as_durations() {
    // A table over `time() - …since_timestamp_seconds` must render a duration, not a
    // number of seconds or a date.
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        for p in panels(&d).into_iter().filter(|p| p["type"] == "table") {
            for t in p["targets"].as_array().into_iter().flatten() {
                let expr = t["expr"].as_str().unwrap_or("");
                if !expr.contains("time() -") {
                    continue;
                }
                let units: Vec<&str> = std::iter::once(&p["fieldConfig"]["defaults"]["unit"])
                    .chain(
                        p["fieldConfig"]["overrides"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .flat_map(|o| o["properties"].as_array().into_iter().flatten())
                            .filter(|prop| prop["id"] == "unit")
                            .map(|prop| &prop["value"]),
                    )
                    .filter_map(Value::as_str)
                    .collect();
                if !units
                    .iter()
                    .any(|u| ["dtdurations", "dtdurationms", "s"].contains(u))
                {
                    problems.push(format!(
                        "{file}: {}: ages without a duration unit ({units:?})",
                        p["title"]
                    ));
                }
                if t["instant"] != true || t["format"] != "table" {
                    problems.push(format!(
                        "{file}: {} {}: not an instant table query",
                        p["title"], t["refId"]
                    ));
                }
            }
        }
    }
    check("age tables", problems);
}

#[test]
fn the_two_dashboards_link_to_each_other() {
    for (file, d) in dashboards() {
        let by_tag = d["links"].as_array().into_iter().flatten().any(|l| {
            l["type"] == "dashboards"
                && l["tags"]
                    .as_array()
                    .is_some_and(|t| t.contains(&json!(TAG)))
        });
        let other = EXPECTED.iter().find(|(f, _)| *f != file).unwrap().1;
        let by_url = d.to_string().contains(&format!("/d/{other}"));
        assert!(by_tag || by_url, "{file}: no link to {other}");
    }
}

#[test]
fn the_overview_covers_every_documented_metric_family() {
    let documented = documented_metrics();
    let used: BTreeSet<String> = panel_queries()
        .iter()
        .filter(|q| q.dashboard == "kube-lifecycle-overview.json")
        .flat_map(|q| metric_references(&tokens(&q.expr)))
        .filter_map(|(n, _)| documented_family(&n, &documented).map(str::to_string))
        .collect();
    let missing: Vec<&String> = documented.iter().filter(|m| !used.contains(*m)).collect();
    assert!(missing.is_empty(), "not on the overview: {missing:?}");
}

// ----------------------------------------------------------------------------- the helper

#[test]
fn queries_include_collapsed_rows_and_variables_with_no_grafana_variable_left() {
    let all = queries();
    let raw = raw_queries();
    assert_eq!(all.len(), raw.len(), "every raw query becomes PromQL");
    for (file, d) in dashboards() {
        let nested: usize = panels(&d)
            .iter()
            .filter(|p| is_row(p))
            .flat_map(|r| r["panels"].as_array().into_iter().flatten())
            .map(|p| p["targets"].as_array().map_or(0, Vec::len))
            .sum();
        let top: usize = panels(&d)
            .iter()
            .map(|p| p["targets"].as_array().map_or(0, Vec::len))
            .sum();
        let vars = dashboards::variables(&d)
            .iter()
            .filter(|v| v["type"] == "query")
            .count();
        assert_eq!(
            all.iter().filter(|q| q.dashboard == file).count(),
            top + vars,
            "{file}"
        );
        if file == "kube-lifecycle-overview.json" {
            assert!(
                nested > 0,
                "the overview's collapsed exporter row holds queries"
            );
        }
    }
    for q in &all {
        assert!(
            !q.expr.contains('$'),
            "{} / {}: {}",
            q.dashboard,
            q.panel,
            q.expr
        );
        assert!(
            !q.expr.contains("[["),
            "{} / {}: {}",
            q.dashboard,
            q.panel,
            q.expr
        );
        assert!(!q.expr.trim().is_empty());
    }
    assert!(
        all.iter().any(|q| q.panel == "variable cluster"
            && q.expr.replace(' ', "") == "groupby(cluster)(kube_lifecycle_build_info)"),
        "{all:#?}"
    );
}

#[test]
fn substitute_replaces_grafana_variables_for_plain_prometheus() {
    assert_eq!(
        substitute(
            r#"sum(rate(m{cluster=~"$cluster", namespace=~"${namespace}"}[$__rate_interval]))"#
        ),
        r#"sum(rate(m{cluster=~".*", namespace=~".*"}[1m]))"#
    );
    assert_eq!(
        substitute("x[$__interval] offset $__range"),
        "x[30s] offset 1h"
    );
    assert_eq!(
        substitute(r#"m{job=~"${job:regex}", a=~"[[a]]"}"#),
        r#"m{job=~".*", a=~".*"}"#
    );
    assert_eq!(substitute("${__rate_interval}"), "1m");
    assert_eq!(substitute("a $ b"), "a $ b");
}

#[test]
fn variable_queries_become_instant_promql() {
    assert_eq!(
        variable_promql("label_values(kube_lifecycle_build_info, cluster)").as_deref(),
        Some("group by (cluster) (kube_lifecycle_build_info)")
    );
    assert_eq!(
        variable_promql(r#"label_values({__name__=~"a.+", cluster=~"$cluster"}, namespace)"#)
            .as_deref(),
        Some(r#"group by (namespace) ({__name__=~"a.+", cluster=~"$cluster"})"#)
    );
    assert_eq!(
        variable_promql("label_values(job)").as_deref(),
        Some(r#"group by (job) ({job!=""})"#)
    );
    assert_eq!(variable_promql("query_result(up)").as_deref(), Some("up"));
    assert_eq!(variable_promql("label_names()"), None);
}

#[test]
fn the_promql_scanner_finds_what_the_lints_rely_on() {
    let toks = tokens(
        r#"max by (cluster, pod) (time() - kube_lifecycle_x{cluster=~"$cluster", a!="b"}) or kube_lifecycle_y"#,
    );
    assert_eq!(
        metric_references(&toks),
        vec![
            ("kube_lifecycle_x".to_string(), true),
            ("kube_lifecycle_y".to_string(), false)
        ]
    );
    let s = selectors(&toks);
    assert_eq!(s.len(), 1);
    assert_eq!(
        s[0].matchers[0],
        ("cluster".into(), "=~".into(), "$cluster".into())
    );
    let aggs = aggregations(&toks);
    assert_eq!(aggs.len(), 1);
    assert_eq!(
        aggs[0].1,
        Some(vec!["cluster".to_string(), "pod".to_string()])
    );
    assert!(simple_regex_matches(
        "kube_lifecycle_.+_since_timestamp_seconds",
        "kube_lifecycle_pod_pending_since_timestamp_seconds"
    ));
    assert!(!simple_regex_matches(
        "kube_lifecycle_.+_since_timestamp_seconds",
        "kube_lifecycle_findings"
    ));
}
