//! The landing page's summary: what explains the findings (their root
//! causes, as the diagnosis found them: lost nodes, failing registries,
//! nodes under pressure, broken pod templates...; then the namespaces and
//! workloads most findings share), then counts by anomaly and cause.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::sync::Arc;

use foldhash::HashMap;
use std::fmt::Write as _;

use super::{filter_pairs, foreign, query, table};
use crate::diagnosis::wording::count;
use crate::diagnosis::{Anomaly, Cause, Finding, Root, RootCauses, Runbook, Victim, VictimKind};
use crate::model::Kind;
use crate::output::FindingFilter;

const TOP: usize = 5;

/// The `n` largest counts, largest first, ties by key.
fn top<K: Ord + Clone>(counts: BTreeMap<K, usize>, n: usize) -> (Vec<(K, usize)>, usize) {
    let total = counts.len();
    let mut v: Vec<(K, usize)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(n);
    (v, total)
}

/// The summary: what explains the findings, then counts by anomaly × cause.
pub(crate) fn summary<F: Borrow<Finding>>(
    findings: &[F],
    filter: &FindingFilter,
    roots: &RootCauses,
) -> String {
    let base: Vec<(&str, &str)> = filter_pairs(filter);
    let with = |k: &'static str, v: &str| -> String {
        let mut pairs: Vec<(&str, &str)> =
            base.iter().copied().filter(|(bk, _)| *bk != k).collect();
        pairs.push((k, v));
        format!("/{}", query(&pairs))
    };
    let mut tally = Tally::of(findings, roots);
    let counts = counts_section(&ordered(std::mem::take(&mut tally.cells)), &base);
    let mut html = explained_section(tally, filter, &with);
    html.push_str(&counts);
    html
}

/// What the summary groups and counts, in one pass over the findings:
/// counted in hash tables (a storm's 80,000 findings made ordered maps of
/// node names cost more than the rest of the page), ordered once counted.
struct Tally<'a> {
    /// The root causes, and how many of the findings each explains (in
    /// `roots.roots`' order, oldest first).
    roots: &'a RootCauses,
    explained: Vec<usize>,
    namespaces: HashMap<&'a str, usize>,
    workloads: HashMap<(&'a str, &'a str, &'a str), usize>,
    cells: HashMap<(Anomaly, &'static str), (usize, Cause)>,
}

/// A table's counts in key order.
fn ordered<K: Ord, V>(counts: HashMap<K, V>) -> BTreeMap<K, V> {
    counts.into_iter().collect()
}

impl<'a> Tally<'a> {
    fn of<F: Borrow<Finding>>(findings: &'a [F], roots: &'a RootCauses) -> Self {
        let mut t = Tally {
            roots,
            explained: Vec::new(),
            namespaces: HashMap::default(),
            workloads: HashMap::default(),
            cells: HashMap::default(),
        };
        // A root counts the findings shown that it explains, as its first
        // root cause or not (a pod pending on several pressured nodes).
        let shown: foldhash::HashSet<*const Finding> = findings
            .iter()
            .map(|f| std::ptr::from_ref(f.borrow()))
            .collect();
        t.explained = roots
            .roots
            .iter()
            .map(|r| {
                r.findings
                    .iter()
                    .filter(|f| shown.contains(&Arc::as_ptr(f)))
                    .count()
            })
            .collect();
        for f in findings.iter().map(F::borrow) {
            t.add(f);
        }
        t
    }

    fn add(&mut self, f: &'a Finding) {
        if let Some(ns) = f.namespace.as_deref() {
            *self.namespaces.entry(ns).or_default() += 1;
        }
        if f.kind != Kind::Pod && !matches!(f.detail, crate::diagnosis::Detail::Verdict(_)) {
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

/// How many root causes the page lists before pointing on.
const ROOTS_LISTED: usize = 12;

/// "What explains them": the root causes of the findings shown, oldest
/// first, each with its victims by kind and a link to the findings it
/// explains; then the namespaces and the workloads most findings share.
fn explained_section(
    tally: Tally<'_>,
    filter: &FindingFilter,
    with: &dyn Fn(&'static str, &str) -> String,
) -> String {
    let mut html = String::new();
    html.push_str("<h2 id=\"explained\">What explains them</h2>\n");
    let shown: Vec<(&Root, usize)> = tally
        .roots
        .roots
        .iter()
        .zip(&tally.explained)
        .filter(|(root, n)| **n > 0 || filter.root.as_deref().is_some_and(|id| root.key.is(id)))
        .map(|(root, n)| (root, *n))
        .collect();
    if !shown.is_empty() {
        html.push_str(&roots_section(&shown, filter, with));
    }
    let mut any = !shown.is_empty();
    html.push_str("<div class=\"groups\">\n");
    let namespaces = ordered(tally.namespaces);
    if !namespaces.is_empty() {
        any = true;
        let (top, total) = top(namespaces, TOP);
        let _ = write!(html, "<section><h3>Namespaces ({total})</h3>\n<ul>\n");
        for (name, n) in top {
            let _ = writeln!(
                html,
                "<li><a href=\"{}\"><code>{}</code></a>: {}</li>",
                with("namespace", name),
                foreign(name),
                count(n, "finding", "findings")
            );
        }
        if total > TOP {
            let _ = writeln!(html, "<li>and {} more</li>", total - TOP);
        }
        html.push_str("</ul></section>\n");
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

/// The root causes, oldest first: what each is, why, since when, its
/// victims by kind with a few of them, its runbook, and the findings it
/// explains (`?root=`).
fn roots_section(
    shown: &[(&Root, usize)],
    filter: &FindingFilter,
    with: &dyn Fn(&'static str, &str) -> String,
) -> String {
    let mut html = format!(
        "<section aria-labelledby=\"roots\"><h3 id=\"roots\">Root causes ({})</h3>\n<ul class=\"roots\">\n",
        shown.len()
    );
    for (root, explained) in shown.iter().take(ROOTS_LISTED) {
        let victims = victims_in(root, filter.namespace.as_deref());
        let _ = writeln!(
            html,
            "<li><a href=\"{}#findings\"><code>{}</code></a>: <code>{}</code>{}; {}{}. <a href=\"/runbooks/{}\">{}</a></li>",
            with("root", &root.key.id()),
            foreign(&root.key.id()),
            root.key.cause,
            root.since
                .map(|s| format!(" since {}", s.strftime("%Y-%m-%d %H:%M UTC")))
                .unwrap_or_default(),
            count(*explained, "finding", "findings"),
            victims,
            root.runbook.slug(),
            root.runbook.alert(),
        );
    }
    if shown.len() > ROOTS_LISTED {
        let _ = writeln!(html, "<li>and {} more</li>", shown.len() - ROOTS_LISTED);
    }
    html.push_str("</ul></section>\n");
    html
}

/// A root's victims by kind, with up to three of each (those of
/// `namespace` only, when the page is filtered by one).
pub(super) fn victims_in(root: &Root, namespace: Option<&str>) -> String {
    let mut parts = Vec::new();
    for kind in VictimKind::ALL {
        let of_kind: Vec<&Victim> = root
            .victims_of(*kind)
            .filter(|v| namespace.is_none_or(|ns| v.namespace() == ns))
            .collect();
        if of_kind.is_empty() {
            continue;
        }
        let examples: Vec<String> = of_kind
            .iter()
            .take(3)
            .map(|v| format!("<code>{}</code>", foreign(&v.path())))
            .collect();
        let more = if of_kind.len() > 3 { ", …" } else { "" };
        parts.push(format!(
            "{} ({}{more})",
            count(of_kind.len(), kind.as_str(), &format!("{}s", kind.as_str())),
            examples.join(", ")
        ));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" of {}", parts.join(", "))
    }
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
