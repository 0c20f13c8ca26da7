//! The landing page's summary: what explains the findings (lost nodes,
//! failing registries, nodes under pressure, workload verdicts...), then
//! counts by anomaly and cause.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use foldhash::HashMap;
use std::fmt::Write as _;

use super::{filter_pairs, foreign, query, table};
use crate::diagnosis::{Anomaly, Cause, Finding, Runbook};
use crate::model::Kind;
use crate::output::{FindingFilter, registry};

const TOP: usize = 5;

/// The `n` largest counts, largest first, ties by key.
fn top<K: Ord + Clone>(counts: BTreeMap<K, usize>, n: usize) -> (Vec<(K, usize)>, usize) {
    let total = counts.len();
    let mut v: Vec<(K, usize)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(n);
    (v, total)
}

/// The controllers' verdicts, most pods first: the workload, its verdict and
/// cause, and the pods that make it so (how many, one by name).
fn verdict_section(verdicts: &[&Finding], with: &dyn Fn(&'static str, &str) -> String) -> String {
    let mut sorted: Vec<&&Finding> = verdicts.iter().collect();
    let pods_of = |f: &Finding| match &f.detail {
        crate::diagnosis::Detail::Verdict { pods, .. } => *pods,
        _ => 0,
    };
    sorted.sort_by(|a, b| {
        pods_of(b)
            .cmp(&pods_of(a))
            .then_with(|| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)))
    });
    let mut html = format!(
        "<section><h3>Workload verdicts ({})</h3>\n<ul>\n",
        sorted.len()
    );
    for f in sorted.iter().take(TOP) {
        let crate::diagnosis::Detail::Verdict {
            pod_cause,
            pods,
            example_pod,
            ..
        } = &f.detail
        else {
            continue;
        };
        let ns = f.namespace.as_deref().unwrap_or("");
        let why = match pod_cause {
            Some(p) if *p != f.cause.as_str() => format!("{} ({p})", f.cause),
            _ => f.cause.to_string(),
        };
        let pods = match (pods, example_pod) {
            (0, _) => String::new(),
            (n, Some(pod)) => format!(
                ", {n} pod{}, e.g. <code>{}</code>",
                if *n == 1 { "" } else { "s" },
                foreign(pod)
            ),
            (n, None) => format!(", {n} pod{}", if *n == 1 { "" } else { "s" }),
        };
        let _ = writeln!(
            html,
            "<li><a href=\"{}\"><code>{}</code></a>: {} {why}{pods}</li>",
            with("namespace", ns),
            foreign(&format!(
                "{}/{ns}{}{}",
                f.kind.as_str().to_lowercase(),
                if ns.is_empty() { "" } else { "/" },
                f.name
            )),
            f.anomaly().as_str().replace('_', " "),
        );
    }
    if sorted.len() > TOP {
        let _ = writeln!(html, "<li>and {} more</li>", sorted.len() - TOP);
    }
    html.push_str("</ul></section>\n");
    html
}

/// The summary: what explains the findings, then counts by anomaly × cause.
pub(crate) fn summary<F: Borrow<Finding>>(findings: &[F], filter: &FindingFilter) -> String {
    let base: Vec<(&str, &str)> = filter_pairs(filter);
    let with = |k: &'static str, v: &str| -> String {
        let mut pairs: Vec<(&str, &str)> =
            base.iter().copied().filter(|(bk, _)| *bk != k).collect();
        pairs.push((k, v));
        format!("/{}", query(&pairs))
    };
    let mut tally = Tally::of(findings);
    let counts = counts_section(&ordered(std::mem::take(&mut tally.cells)), &base);
    let mut html = explained_section(tally, &with);
    html.push_str(&counts);
    html
}

/// What the summary groups and counts, in one pass over the findings:
/// counted in hash tables (a storm's 80,000 findings made ordered maps of
/// node names cost more than the rest of the page), ordered once counted.
#[derive(Default)]
struct Tally<'a> {
    /// A lost node explains its pods' Terminating and the workloads they block.
    lost_nodes: HashMap<&'a str, usize>,
    /// A node whose sandboxes fail, or under pressure, explains its pods.
    sandbox_nodes: HashMap<&'a str, usize>,
    pressured_nodes: HashMap<&'a str, (usize, &'a str)>,
    registries: HashMap<&'a str, usize>,
    namespaces: HashMap<&'a str, usize>,
    workloads: HashMap<(&'a str, &'a str, &'a str), usize>,
    /// A controller's verdict names the cause of its pods.
    verdicts: Vec<&'a Finding>,
    cells: HashMap<(Anomaly, &'static str), (usize, Cause)>,
}

/// A table's counts in key order.
fn ordered<K: Ord, V>(counts: HashMap<K, V>) -> BTreeMap<K, V> {
    counts.into_iter().collect()
}

impl<'a> Tally<'a> {
    fn of<F: Borrow<Finding>>(findings: &'a [F]) -> Self {
        let mut t = Tally::default();
        for f in findings.iter().map(F::borrow) {
            t.add(f);
        }
        t
    }

    fn add(&mut self, f: &'a Finding) {
        if matches!(f.cause.as_str(), "node_not_ready" | "node_missing") {
            if let Some(node) = f.node.as_deref() {
                *self.lost_nodes.entry(node).or_default() += 1;
            }
        }
        if f.cause.tags().contains(&"sandbox") {
            if let Some(node) = f.node.as_deref() {
                *self.sandbox_nodes.entry(node).or_default() += 1;
            }
        }
        if let crate::diagnosis::Detail::Pending {
            pressured_nodes: nodes,
            ..
        } = &f.detail
        {
            for node in nodes {
                self.pressured_nodes
                    .entry(node)
                    .or_insert((0, f.cause.as_str()))
                    .0 += 1;
            }
        }
        if let Some(r) = registry(f) {
            *self.registries.entry(r).or_default() += 1;
        }
        if let Some(ns) = f.namespace.as_deref() {
            *self.namespaces.entry(ns).or_default() += 1;
        }
        if matches!(f.detail, crate::diagnosis::Detail::Verdict { .. }) {
            self.verdicts.push(f);
        } else if f.kind != Kind::Pod {
            *self
                .workloads
                .entry((
                    f.kind.as_str(),
                    f.namespace.as_deref().unwrap_or(""),
                    &f.name,
                ))
                .or_default() += 1;
        }
        self.cells
            .entry((f.anomaly(), f.cause.as_str()))
            .or_insert((0, f.cause))
            .0 += 1;
    }
}

/// "What explains them": the nodes, registries and namespaces most findings
/// share, the workload verdicts and the workloads with findings.
fn explained_section(tally: Tally<'_>, with: &dyn Fn(&'static str, &str) -> String) -> String {
    let mut html = String::new();
    html.push_str("<h2 id=\"explained\">What explains them</h2>\n");
    let mut any = false;
    html.push_str("<div class=\"groups\">\n");
    for (title, key, counts, one, many) in [
        (
            "Lost nodes",
            "node",
            ordered(tally.lost_nodes),
            "finding on it",
            "findings on it",
        ),
        (
            "Nodes failing pod sandboxes",
            "node",
            ordered(tally.sandbox_nodes),
            "pod without a sandbox",
            "pods without a sandbox",
        ),
        (
            "Failing registries",
            "registry",
            ordered(tally.registries),
            "failing pull",
            "failing pulls",
        ),
        (
            "Namespaces",
            "namespace",
            ordered(tally.namespaces),
            "finding",
            "findings",
        ),
    ] {
        if counts.is_empty() {
            continue;
        }
        any = true;
        let (top, total) = top(counts, TOP);
        let _ = write!(html, "<section><h3>{title} ({total})</h3>\n<ul>\n");
        for (name, n) in top {
            let _ = writeln!(
                html,
                "<li><a href=\"{}\"><code>{}</code></a>: {n} {}</li>",
                with(key, name),
                foreign(name),
                if n == 1 { one } else { many }
            );
        }
        if total > TOP {
            let _ = writeln!(html, "<li>and {} more</li>", total - TOP);
        }
        html.push_str("</ul></section>\n");
    }
    if !tally.pressured_nodes.is_empty() {
        any = true;
        html.push_str(&pressured_section(ordered(tally.pressured_nodes), with));
    }
    if !tally.verdicts.is_empty() {
        any = true;
        html.push_str(&verdict_section(&tally.verdicts, with));
    }
    if !tally.workloads.is_empty() {
        any = true;
        html.push_str(&workloads_section(ordered(tally.workloads), with));
    }
    html.push_str("</div>\n");
    if !any {
        html.push_str("<p>Nothing groups them.</p>\n");
    }
    html
}

/// Pressured nodes keep unbound pods out: they link to those pods' cause.
fn pressured_section(
    pressured_nodes: BTreeMap<&str, (usize, &str)>,
    with: &dyn Fn(&'static str, &str) -> String,
) -> String {
    let mut html = String::new();
    let total = pressured_nodes.len();
    let mut nodes: Vec<(&str, (usize, &str))> = pressured_nodes.into_iter().collect();
    nodes.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(b.0)));
    let _ = write!(
        html,
        "<section><h3>Nodes under pressure ({total})</h3>\n<ul>\n"
    );
    for (node, (n, cause)) in nodes.into_iter().take(TOP) {
        let _ = writeln!(
            html,
            "<li><a href=\"{}\"><code>{}</code></a>: {cause}, {n} pending pod{}</li>",
            with("cause", cause),
            foreign(node),
            if n == 1 { "" } else { "s" }
        );
    }
    if total > TOP {
        let _ = writeln!(html, "<li>and {} more</li>", total - TOP);
    }
    html.push_str("</ul></section>\n");
    html
}

/// The workloads (not pods) with most findings.
fn workloads_section(
    workloads: BTreeMap<(&str, &str, &str), usize>,
    with: &dyn Fn(&'static str, &str) -> String,
) -> String {
    let mut html = String::new();
    let (top, total) = top(workloads, TOP);
    let _ = write!(html, "<section><h3>Workloads ({total})</h3>\n<ul>\n");
    for ((kind, ns, name), n) in top {
        let _ = writeln!(
            html,
            "<li><a href=\"{}\"><code>{}</code></a>: {n} finding{}</li>",
            with("namespace", ns),
            foreign(&format!(
                "{}/{ns}{}{name}",
                kind.to_lowercase(),
                if ns.is_empty() { "" } else { "/" }
            )),
            if n == 1 { "" } else { "s" }
        );
    }
    if total > TOP {
        let _ = writeln!(html, "<li>and {} more</li>", total - TOP);
    }
    html.push_str("</ul></section>\n");
    html
}

/// "By anomaly and cause": a row per cell, linking to its findings and its
/// runbook.
fn counts_section(
    cells: &BTreeMap<(Anomaly, &'static str), (usize, Cause)>,
    base: &[(&str, &str)],
) -> String {
    let mut html = String::new();
    html.push_str("<h2 id=\"counts\">By anomaly and cause</h2>\n");
    let mut rows = String::new();
    for ((anomaly, cause_label), (n, cause)) in cells {
        let mut pairs: Vec<(&str, &str)> = base
            .iter()
            .copied()
            .filter(|(k, _)| *k != "anomaly" && *k != "cause")
            .collect();
        pairs.push(("anomaly", anomaly.as_str()));
        pairs.push(("cause", cause_label));
        let runbook = Runbook::for_cause(*cause);
        let _ = writeln!(
            rows,
            "<tr><td><code>{}</code></td><td><a href=\"/{}#findings\"><code>{cause_label}</code></a></td><td class=\"n\">{n}</td><td><a href=\"/runbooks/{}\">{}</a></td></tr>",
            anomaly.as_str(),
            query(&pairs),
            runbook.slug(),
            runbook.alert()
        );
    }
    html.push_str(&table(
        "counts by anomaly and cause",
        &["anomaly", "cause", "findings", "alert"],
        &rows,
    ));
    html
}
