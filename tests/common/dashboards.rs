//! The Grafana dashboards under `dashboards/`: their JSON, their panels and every
//! PromQL query they run, with Grafana's variables replaced so that a plain
//! Prometheus can evaluate them.
//!
//! Used by the dashboard lint (`tests/pure/dashboards/`) and by end-to-end tests that
//! run every query against a real Prometheus.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One PromQL query of a dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// File name under `dashboards/`, e.g. `kube-lifecycle-overview.json`.
    pub dashboard: String,
    /// Panel title, or `variable NAME` for a template variable's query.
    pub panel: String,
    /// The PromQL expression.
    pub expr: String,
}

/// What Grafana's built-in interval variables become in [`substitute`].
pub const BUILTINS: &[(&str, &str)] = &[
    ("__rate_interval", "1m"),
    ("__rate_interval_ms", "60000"),
    ("__interval", "30s"),
    ("__interval_ms", "30000"),
    ("__range", "1h"),
    ("__range_s", "3600"),
    ("__range_ms", "3600000"),
];

/// The `dashboards/` directory of the crate.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("dashboards")
}

/// Every `dashboards/*.json`, sorted by file name: (file name, parsed JSON).
/// Panics with the file and position when one is not valid JSON.
pub fn dashboards() -> Vec<(String, Value)> {
    let dir = dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let json: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{} is not valid JSON: {e}", path.display()));
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, json)
        })
        .collect()
}

/// Every panel of a dashboard in order, rows included, and after each row the
/// panels it holds while collapsed (its `panels`).
pub fn panels(dashboard: &Value) -> Vec<&Value> {
    fn walk<'a>(list: &'a Value, out: &mut Vec<&'a Value>) {
        for panel in list.as_array().into_iter().flatten() {
            out.push(panel);
            walk(&panel["panels"], out);
        }
    }
    let mut out = Vec::new();
    walk(&dashboard["panels"], &mut out);
    out
}

/// Whether a panel is a row (a section header, which holds no query).
pub fn is_row(panel: &Value) -> bool {
    panel["type"] == "row"
}

/// The template variables of a dashboard.
pub fn variables(dashboard: &Value) -> Vec<&Value> {
    dashboard["templating"]["list"]
        .as_array()
        .map(|l| l.iter().collect())
        .unwrap_or_default()
}

/// The template variable called `name`, if any.
pub fn variable<'a>(dashboard: &'a Value, name: &str) -> Option<&'a Value> {
    variables(dashboard).into_iter().find(|v| v["name"] == name)
}

/// A query variable's query text, whether stored as a string or as the
/// `{"query": ...}` object of newer Grafana versions.
pub fn variable_query_text(variable: &Value) -> Option<&str> {
    match &variable["query"] {
        Value::String(s) => Some(s.as_str()),
        Value::Object(o) => o.get("query").and_then(Value::as_str),
        _ => None,
    }
}

/// Every query exactly as written in the dashboards, Grafana variables and all:
/// each target `expr` of each panel (collapsed rows included), then each query
/// variable's query as written (`label_values(...)`).
pub fn raw_queries() -> Vec<Query> {
    let mut out = Vec::new();
    for (file, dashboard) in dashboards() {
        for panel in panels(&dashboard) {
            for target in panel["targets"].as_array().into_iter().flatten() {
                if let Some(expr) = target["expr"].as_str() {
                    out.push(Query {
                        dashboard: file.clone(),
                        panel: panel_name(panel),
                        expr: expr.to_string(),
                    });
                }
            }
        }
        for v in variables(&dashboard) {
            if v["type"] != "query" {
                continue;
            }
            if let Some(text) = variable_query_text(v) {
                out.push(Query {
                    dashboard: file.clone(),
                    panel: format!("variable {}", v["name"].as_str().unwrap_or("?")),
                    expr: text.to_string(),
                });
            }
        }
    }
    out
}

/// Every query of every dashboard as plain PromQL a Prometheus can evaluate:
/// panel targets (collapsed rows included) and query variables
/// (`label_values(m, l)` → `group by (l) (m)`), with variables substituted
/// (see [`substitute`]).
pub fn queries() -> Vec<Query> {
    raw_queries()
        .into_iter()
        .filter_map(|q| {
            let expr = if q.panel.starts_with("variable ") {
                variable_promql(&q.expr)?
            } else {
                q.expr
            };
            Some(Query {
                expr: substitute(&expr),
                ..q
            })
        })
        .collect()
}

/// Replaces Grafana variables for a plain Prometheus query: the interval
/// built-ins as in [`BUILTINS`] (`$__rate_interval` → `1m`, `$__interval` → `30s`,
/// `$__range` → `1h`) and every other variable (`$cluster`, `${namespace}`,
/// `${job:regex}`, `[[var]]`) with `.*`, what "All" means in a regex matcher.
pub fn substitute(expr: &str) -> String {
    let value = |name: &str| -> String {
        let name = name.split(':').next().unwrap_or(name);
        BUILTINS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(".*", |(_, v)| v)
            .to_string()
    };
    let mut out = String::with_capacity(expr.len());
    let mut rest = expr;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("${")
            && let Some(end) = after.find('}')
        {
            out.push_str(&value(&after[..end]));
            rest = &after[end + 1..];
        } else if let Some(after) = rest.strip_prefix("[[")
            && let Some(end) = after.find("]]")
            && after[..end]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        {
            out.push_str(&value(&after[..end]));
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix('$') {
            let len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            if len == 0 {
                out.push('$');
            } else {
                out.push_str(&value(&after[..len]));
            }
            rest = &after[len..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// A Prometheus template variable query as an instant PromQL query listing the
/// same values: `label_values(sel, l)` → `group by (l) (sel)`, `label_values(l)` →
/// `group by (l) ({l!=""})`, `query_result(q)` → `q`, `metrics(re)` →
/// `group by (__name__) ({__name__=~"re"})`. None for `label_names()` and
/// anything else that is not PromQL.
pub fn variable_promql(query: &str) -> Option<String> {
    let query = query.trim();
    let call = |name: &str| -> Option<&str> {
        query
            .strip_prefix(name)?
            .trim_start()
            .strip_prefix('(')?
            .strip_suffix(')')
            .map(str::trim)
    };
    if let Some(args) = call("label_values") {
        return Some(match split_last_argument(args) {
            Some((selector, label)) => format!("group by ({label}) ({selector})"),
            None => format!("group by ({args}) ({{{args}!=\"\"}})"),
        });
    }
    if let Some(inner) = call("query_result") {
        return Some(inner.to_string());
    }
    if let Some(re) = call("metrics") {
        return Some(format!("group by (__name__) ({{__name__=~\"{re}\"}})"));
    }
    None
}

/// Splits `a, b` at its last comma outside braces, parentheses and quotes.
fn split_last_argument(args: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut last = None;
    for (i, c) in args.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => last = Some(i),
            _ => {}
        }
    }
    last.map(|i| (args[..i].trim(), args[i + 1..].trim()))
}

fn panel_name(panel: &Value) -> String {
    match panel["title"].as_str() {
        Some(t) if !t.is_empty() => t.to_string(),
        _ => format!("panel {}", panel["id"]),
    }
}
