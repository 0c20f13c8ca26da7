mod common;

// Lints the Grafana dashboards under `dashboards/` in the spirit of grafana's
// dashboard-linter: stable uids, the `datasource` and `cluster` variables used
// everywhere, `$__rate_interval` in every rate, a description and a unit on every
// panel, only documented metrics, no deprecated panel types.

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

/// The `kube_lifecycle_` names an expression refers to, with whether each is
/// followed by a matcher block.
fn metric_references(toks: &[Tok]) -> Vec<(String, bool)> {
    toks.iter()
        .enumerate()
        .filter_map(|(i, t)| match t {
            Tok::Ident(name) if name.starts_with("kube_lifecycle_") => {
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
        "pod_pending_unschedulable_nodes" => &["namespace", "pod", "reason"],
        "namespace_remaining_resources" => &["namespace", "resource"],
        "namespace_remaining_finalizers" => &["namespace", "finalizer"],
        _ if m.starts_with("pod_") && m.ends_with("_timestamp_seconds") => &["namespace", "pod"],
        _ if m.starts_with("container_") => &["namespace", "pod", "container"],
        _ if m.starts_with("deployment_") => &["namespace", "deployment"],
        _ if m.starts_with("statefulset_") => &["namespace", "statefulset"],
        _ if m.starts_with("daemonset_") => &["namespace", "daemonset"],
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
        bad("refresh 30s", d["refresh"] == "30s");
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
                Tok::Ident(n) if n.starts_with("kube_lifecycle_") => Some(n.clone()),
                _ => None,
            })
            .collect();
        for s in selectors(&toks) {
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
