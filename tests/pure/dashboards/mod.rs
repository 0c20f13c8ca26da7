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

mod helpers;
mod on_call;
mod queries;
mod structure;

/// File name → uid, the dashboards this project ships.
const EXPECTED: &[(&str, &str)] = &[
    ("kube-lifecycle-exporter.json", "kube-lifecycle-exporter"),
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
