//! The HTML pages: the landing page (a summary of the current findings — what
//! explains them, counts by anomaly and cause — then the findings themselves,
//! filtered and paged), the runbook index and each runbook opened on the
//! evidence its alert covers right now, and the page for an unknown address.
//!
//! Every page works at a phone's width (tables scroll inside their own box, long
//! names wrap) and by keyboard (a skip link, visible focus, real links and
//! forms). Names and messages come from anyone who can create a pod or an event:
//! they are escaped, and isolated in `<bdi>` so a bidi override in one cannot
//! reorder the rest of the page.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use jiff::Timestamp;

use super::{FindingFilter, Paging, RunbookLinks, alerts, registry};
use crate::diagnosis::{Anomaly, Cause, Finding, Runbook};
use crate::model::age;
use crate::model::{ContainerKind, Kind};

/// Escapes text for HTML element content and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Text someone else wrote: escaped and direction-isolated.
fn foreign(text: &str) -> String {
    format!("<bdi>{}</bdi>", escape(text))
}

/// The watches' current errors, one paragraph each.
fn watch_errors(html: &mut String, errors: &[(Kind, Option<String>, String)]) {
    for (kind, scope, message) in errors {
        let _ = writeln!(
            html,
            "<p class=\"bad\">{}{}: {}</p>",
            kind.plural(),
            scope
                .as_deref()
                .map(|s| format!(" in {}", foreign(s)))
                .unwrap_or_default(),
            foreign(message)
        );
    }
}

/// Percent-encodes a query value.
fn query_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// `?k=v&…` for the given pairs (the empty string without any), HTML-escaped.
fn query(pairs: &[(&str, &str)]) -> String {
    let joined: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", query_value(v)))
        .collect();
    if joined.is_empty() {
        String::new()
    } else {
        escape(&format!("?{}", joined.join("&")))
    }
}

fn filter_pairs(filter: &FindingFilter) -> Vec<(&'static str, &str)> {
    [
        ("anomaly", &filter.anomaly),
        ("cause", &filter.cause),
        ("namespace", &filter.namespace),
        ("node", &filter.node),
        ("registry", &filter.registry),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.as_deref().map(|v| (k, v)))
    .collect()
}

const STYLE: &str = concat!(
    "body{font-family:system-ui,sans-serif;margin:0 auto;padding:0 1em 2em;max-width:80em;color:#222;line-height:1.4}",
    "h1{font-size:1.6em}h1,h2,h3{overflow-wrap:anywhere}",
    ".skip{position:absolute;left:-999px;top:0;background:#fff;padding:.4em}.skip:focus{left:.5em}",
    "a{color:#0645ad}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,",
    "summary:focus-visible,.scroll:focus-visible{outline:3px solid #e07a00;outline-offset:2px}",
    ".scroll{overflow-x:auto;max-width:100%;margin-bottom:1.5em}",
    "table{border-collapse:collapse;width:100%}",
    "th,td{border-bottom:1px solid #ddd;padding:.3em .6em;text-align:left;vertical-align:top;overflow-wrap:anywhere}",
    "th{background:#f4f4f4}td.n{text-align:right;white-space:nowrap}",
    "code{font-size:.9em;overflow-wrap:anywhere}.msg{font-size:.85em;color:#555;min-width:12em}",
    "pre{background:#f4f4f4;padding:.6em;overflow-x:auto}",
    ".bad{color:#b00}.ok{color:#070}.sev-critical{color:#b00;font-weight:bold}.sev-warning{color:#a60}",
    "form{display:flex;flex-wrap:wrap;gap:.5em;align-items:end;margin-bottom:1em}",
    "label{display:flex;flex-direction:column;font-size:.85em}input,select,button{font:inherit;max-width:14em}",
    "nav p{margin:.6em 0}h2{margin:.8em 0 .4em}",
    ".groups{display:grid;grid-template-columns:repeat(auto-fit,minmax(15em,1fr));gap:0 2em}",
    ".groups h3{font-size:1em;margin:.6em 0 .2em}.groups ul{margin:0;padding-left:1.2em}",
);

/// A whole page: skip link, navigation, the content in `<main>`.
fn frame(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n\
         <a class=\"skip\" href=\"#main\">Skip to content</a>\n\
         <nav aria-label=\"site\"><p><a href=\"/\">findings</a> · <a href=\"/runbooks\">runbooks</a> · \
         <a href=\"/metrics\">/metrics</a> · <a href=\"/findings\">/findings</a> (JSON) · <a href=\"/readyz\">/readyz</a></p></nav>\n\
         <main id=\"main\" tabindex=\"-1\">\n{body}</main>\n</body></html>\n",
        escape(title)
    )
}

/// A table that scrolls sideways in its own box on a narrow screen, reachable
/// by keyboard (a focusable region) when it does.
fn table(label: &str, head: &[&str], rows: &str) -> String {
    let mut out = format!(
        "<div class=\"scroll\" role=\"region\" tabindex=\"0\" aria-label=\"{}\"><table><thead><tr>",
        escape(label)
    );
    for h in head {
        let _ = write!(out, "<th scope=\"col\">{h}</th>");
    }
    let _ = write!(out, "</tr></thead><tbody>\n{rows}</tbody></table></div>\n");
    out
}

fn object_name(f: &Finding) -> String {
    format!(
        "{}/{}{}{}",
        f.kind.as_str().to_lowercase(),
        f.namespace
            .as_deref()
            .map(|n| format!("{n}/"))
            .unwrap_or_default(),
        f.name,
        f.container
            .as_deref()
            .map(|c| match f.container_kind {
                Some(kind @ (ContainerKind::Init | ContainerKind::Sidecar)) => {
                    format!(" [{} {c}]", kind.as_str())
                }
                _ => format!(" [{c}]"),
            })
            .unwrap_or_default()
    )
}

fn finding_age(f: &Finding, now: Timestamp) -> String {
    f.since
        .map_or("-".to_string(), |s| age::short(now.duration_since(s)))
}

/// Rows of findings: object, cause, age, message, runbook.
fn finding_rows(findings: &[Finding], now: Timestamp, links: &RunbookLinks) -> String {
    let mut rows = String::new();
    for f in findings {
        let link = links.link(f.runbook());
        let _ = writeln!(
            rows,
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"msg\">{}</td><td><a href=\"{}\">{}</a></td></tr>",
            foreign(&object_name(f)),
            f.cause.as_str(),
            finding_age(f, now),
            foreign(&f.message),
            escape(&link),
            escape(f.runbook().alert())
        );
    }
    rows
}

const FINDING_HEAD: &[&str] = &["object", "cause", "age", "message", "runbook"];

/// Findings grouped by anomaly, in the order given (the diagnosis sorts them
/// by anomaly first).
fn findings_by_anomaly(findings: &[Finding], now: Timestamp, links: &RunbookLinks) -> String {
    let mut html = String::new();
    let mut rest = findings;
    while let Some(first) = rest.first() {
        let anomaly = first.anomaly();
        let n = rest.iter().take_while(|f| f.anomaly() == anomaly).count();
        let (group, tail) = rest.split_at(n);
        let _ = write!(
            html,
            "<h3 id=\"{a}\"><code>{a}</code> ({n})</h3>\n<p>{d}</p>\n{t}",
            a = anomaly.as_str(),
            d = escape(anomaly.description()),
            t = table(
                anomaly.as_str(),
                FINDING_HEAD,
                &finding_rows(group, now, links)
            ),
        );
        rest = tail;
    }
    html
}

/// What the page shows: a live watch or a snapshot from a file.
pub(crate) enum Showing<'a> {
    /// Watching a cluster: how each watch is doing.
    Watching {
        cluster: &'a str,
        readiness: &'a [(Kind, bool)],
        counts: &'a [(Kind, usize)],
        errors: &'a [(Kind, Option<String>, String)],
        /// Each watched resource's connection to the API server, as words
        /// (`connected`, `retrying since …`, `relisting`).
        connections: &'a [(Kind, String)],
    },
    /// A fixed snapshot (`serve --from-file`).
    Snapshot {
        file: &'a str,
        /// When the file was written, if known.
        taken: Option<Timestamp>,
        objects: usize,
    },
}

pub(crate) struct Page<'a> {
    /// The findings the filter chose, all of them (the summary counts them; the
    /// table shows the page's slice).
    pub findings: &'a [Finding],
    pub now: Timestamp,
    pub links: &'a RunbookLinks,
    pub showing: Showing<'a>,
    /// The filter `findings` was chosen with (from the page's query).
    pub filter: &'a FindingFilter,
    pub paging: Paging,
}

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
fn summary(findings: &[Finding], filter: &FindingFilter) -> String {
    let mut html = String::new();
    let base: Vec<(&str, &str)> = filter_pairs(filter);
    let with = |k: &'static str, v: &str| -> String {
        let mut pairs: Vec<(&str, &str)> =
            base.iter().copied().filter(|(bk, _)| *bk != k).collect();
        pairs.push((k, v));
        format!("/{}", query(&pairs))
    };

    // A lost node explains its pods' Terminating and the workloads they block.
    let mut lost_nodes: BTreeMap<&str, usize> = BTreeMap::new();
    // A node whose sandboxes fail, or under pressure, explains its pods.
    let mut sandbox_nodes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut pressured_nodes: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    let mut registries: BTreeMap<&str, usize> = BTreeMap::new();
    let mut namespaces: BTreeMap<&str, usize> = BTreeMap::new();
    let mut workloads: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    let mut cells: BTreeMap<(Anomaly, &'static str), (usize, Cause)> = BTreeMap::new();
    for f in findings {
        if matches!(f.cause.as_str(), "node_not_ready" | "node_missing") {
            if let Some(node) = f.node.as_deref() {
                *lost_nodes.entry(node).or_default() += 1;
            }
        }
        if f.cause.tags().contains(&"sandbox") {
            if let Some(node) = f.node.as_deref() {
                *sandbox_nodes.entry(node).or_default() += 1;
            }
        }
        if let crate::diagnosis::Detail::Pending {
            pressured_nodes: nodes,
            ..
        } = &f.detail
        {
            for node in nodes {
                pressured_nodes
                    .entry(node)
                    .or_insert((0, f.cause.as_str()))
                    .0 += 1;
            }
        }
        if let Some(r) = registry(f) {
            *registries.entry(r).or_default() += 1;
        }
        if let Some(ns) = f.namespace.as_deref() {
            *namespaces.entry(ns).or_default() += 1;
        }
        if f.kind != Kind::Pod {
            *workloads
                .entry((
                    f.kind.as_str(),
                    f.namespace.as_deref().unwrap_or(""),
                    &f.name,
                ))
                .or_default() += 1;
        }
        cells
            .entry((f.anomaly(), f.cause.as_str()))
            .or_insert((0, f.cause))
            .0 += 1;
    }

    html.push_str("<h2 id=\"explained\">What explains them</h2>\n");
    let mut any = false;
    html.push_str("<div class=\"groups\">\n");
    for (title, key, counts, one, many) in [
        (
            "Lost nodes",
            "node",
            lost_nodes,
            "finding on it",
            "findings on it",
        ),
        (
            "Nodes failing pod sandboxes",
            "node",
            sandbox_nodes,
            "pod without a sandbox",
            "pods without a sandbox",
        ),
        (
            "Failing registries",
            "registry",
            registries,
            "failing pull",
            "failing pulls",
        ),
        ("Namespaces", "namespace", namespaces, "finding", "findings"),
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
    // Pressured nodes keep unbound pods out: they link to those pods' cause.
    if !pressured_nodes.is_empty() {
        any = true;
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
    }
    if !workloads.is_empty() {
        any = true;
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
    }
    html.push_str("</div>\n");
    if !any {
        html.push_str("<p>Nothing groups them.</p>\n");
    }

    html.push_str("<h2 id=\"counts\">By anomaly and cause</h2>\n");
    let mut rows = String::new();
    for ((anomaly, cause_label), (n, cause)) in &cells {
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

/// The filter form: plain GET, usable without a script.
fn filter_form(filter: &FindingFilter, paging: &Paging) -> String {
    let mut options = String::from("<option value=\"\">any</option>");
    for a in Anomaly::ALL {
        let selected = if filter.anomaly.as_deref() == Some(a.as_str()) {
            " selected"
        } else {
            ""
        };
        let _ = write!(options, "<option{selected}>{}</option>", a.as_str());
    }
    let text = |name: &str, value: &Option<String>| {
        format!(
            "<label>{name}<input name=\"{name}\" value=\"{}\"></label>",
            escape(value.as_deref().unwrap_or(""))
        )
    };
    format!(
        "<form method=\"get\" action=\"/\" aria-label=\"filter findings\">\
         <label>anomaly<select name=\"anomaly\">{options}</select></label>{}{}{}{}\
         <label>per page<input name=\"limit\" type=\"number\" min=\"1\" value=\"{}\"></label>\
         <button type=\"submit\">Show</button> <a href=\"/\">clear</a></form>\n",
        text("cause", &filter.cause),
        text("namespace", &filter.namespace),
        text("node", &filter.node),
        text("registry", &filter.registry),
        paging.limit.unwrap_or(Paging::PAGE_SIZE),
    )
}

/// The landing page.
pub(crate) fn landing(page: &Page) -> String {
    let mut html = String::from("<h1>kube-lifecycle-exporter</h1>\n");
    let judged = page.now.strftime("%Y-%m-%d %H:%M:%S UTC");
    match &page.showing {
        Showing::Snapshot {
            file,
            taken,
            objects,
        } => {
            let _ = writeln!(
                html,
                "<p>Showing a snapshot read from the file <code>{}</code> ({objects} objects{}), judged at {judged}. Nothing is watched: the findings do not change.</p>",
                foreign(file),
                taken
                    .map(|t| format!(", written {}", t.strftime("%Y-%m-%d %H:%M:%S UTC")))
                    .unwrap_or_default(),
            );
        }
        Showing::Watching {
            cluster,
            readiness,
            counts,
            errors,
            connections,
        } => {
            let _ = writeln!(
                html,
                "<p>Watching the cluster at <code>{}</code>; judged at {judged}.</p>",
                foreign(cluster)
            );
            let mut rows = String::new();
            for (kind, ready) in *readiness {
                let count = counts
                    .iter()
                    .find(|(k, _)| k == kind)
                    .map_or(0, |(_, n)| *n);
                let state = if *ready {
                    "<span class=\"ok\">synced</span>"
                } else {
                    "<span class=\"bad\">not synced</span>"
                };
                let connection = connections
                    .iter()
                    .find(|(k, _)| k == kind)
                    .map_or("", |(_, c)| c.as_str());
                let _ = writeln!(
                    rows,
                    "<tr><td>{}</td><td>{state}</td><td>{}</td><td class=\"n\">{count}</td></tr>",
                    kind.plural(),
                    foreign(connection)
                );
            }
            if !rows.is_empty() {
                html.push_str("<details><summary>Watches</summary>\n");
                html.push_str(&table(
                    "watches",
                    &["resource", "state", "connection", "objects"],
                    &rows,
                ));
                html.push_str("</details>\n");
            }
            watch_errors(&mut html, errors);
        }
    }

    let total = page.findings.len();
    if !page.filter.is_empty() {
        let _ = writeln!(
            html,
            "<p>Only the findings with {} are counted and shown. <a href=\"/\">All findings</a></p>",
            foreign(&page.filter.describe())
        );
    }
    if total == 0 {
        let none = if page.filter.is_empty() {
            "Nothing is stuck."
        } else {
            "No finding matches."
        };
        let _ = writeln!(
            html,
            "<h2 id=\"findings\">Findings (0)</h2>\n<p class=\"ok\">{none}</p>"
        );
        html.push_str(&filter_form(page.filter, &page.paging));
        return frame("kube-lifecycle-exporter", &html);
    }
    html.push_str(&summary(page.findings, page.filter));

    let range = page.paging.range(total);
    let _ = writeln!(html, "<h2 id=\"findings\">Findings ({total})</h2>");
    html.push_str(&filter_form(page.filter, &page.paging));
    let pager = pager(page, range.clone(), total);
    html.push_str(&pager);
    html.push_str(&findings_by_anomaly(
        &page.findings[range.clone()],
        page.now,
        page.links,
    ));
    if range.len() > 20 {
        html.push_str(&pager);
    }
    frame("kube-lifecycle-exporter", &html)
}

/// "Findings 201–400 of 70,010" with links to the pages around.
fn pager(page: &Page, range: std::ops::Range<usize>, total: usize) -> String {
    let limit = page.paging.limit.unwrap_or(Paging::PAGE_SIZE).max(1);
    let current = page.paging.page.unwrap_or(1).max(1);
    let last = total.div_ceil(limit).max(1);
    let link = |p: usize, text: &str| {
        let mut pairs = filter_pairs(page.filter);
        let (p, l) = (p.to_string(), limit.to_string());
        pairs.push(("page", &p));
        if page.paging.limit.is_some() {
            pairs.push(("limit", &l));
        }
        format!("<a href=\"/{}#findings\">{text}</a>", query(&pairs))
    };
    let shown = if range.is_empty() {
        format!("No findings on page {current} of {last}.")
    } else {
        format!("Findings {}–{} of {total}.", range.start + 1, range.end)
    };
    let mut nav = Vec::new();
    if current > 1 {
        nav.push(link(1, "first"));
        nav.push(link((current - 1).min(last), "previous"));
    }
    if current < last {
        nav.push(link(current + 1, "next"));
        nav.push(link(last, "last"));
    }
    format!(
        "<nav aria-label=\"pages\"><p>{shown} {}</p></nav>\n",
        nav.join(" · ")
    )
}

/// `/runbooks`: every alert with its severity and summary, from the rule pack.
pub(crate) fn runbook_index() -> String {
    let mut rows = String::new();
    for &runbook in Runbook::ALL {
        let (severity, summary) =
            alerts::rule(runbook).map_or(("", ""), |r| (r.severity.as_str(), r.summary.as_str()));
        let _ = writeln!(
            rows,
            "<tr><td><a href=\"/runbooks/{}\">{}</a></td><td class=\"sev-{s}\">{s}</td><td>{}</td></tr>",
            runbook.slug(),
            runbook.alert(),
            escape(summary),
            s = escape(severity),
        );
    }
    frame(
        "Runbooks · kube-lifecycle-exporter",
        &format!(
            "<h1>Runbooks</h1>\n<p>One per alert of the rule pack. Each opens on what its alert covers right now.</p>\n{}",
            table("runbooks", &["alert", "severity", "summary"], &rows)
        ),
    )
}

/// What a runbook page shows of the present.
pub(crate) enum Evidence<'a> {
    /// The findings the alert covers (already chosen), judged at `now`.
    Findings {
        findings: &'a [Finding],
        now: Timestamp,
        links: &'a RunbookLinks,
    },
    /// The exporter's own alerts: the watches not synced and their errors.
    Exporter {
        not_synced: &'a [Kind],
        errors: &'a [(Kind, Option<String>, String)],
    },
}

/// How many covered findings a runbook page lists before pointing on.
const EVIDENCE_ROWS: usize = 50;

fn evidence(evidence: &Evidence) -> String {
    let mut html = String::from("<section aria-labelledby=\"now\"><h2 id=\"now\">Right now</h2>\n");
    match evidence {
        Evidence::Findings {
            findings,
            now,
            links,
        } => {
            if findings.is_empty() {
                html.push_str("<p class=\"ok\">Nothing this alert covers is happening now.</p>\n");
            } else {
                let mut by_cause: BTreeMap<(Anomaly, &'static str), usize> = BTreeMap::new();
                for f in *findings {
                    *by_cause.entry((f.anomaly(), f.cause.as_str())).or_default() += 1;
                }
                let _ = writeln!(
                    html,
                    "<p>{} object{} this alert covers:</p>\n<ul>",
                    findings.len(),
                    if findings.len() == 1 { "" } else { "s" }
                );
                for ((anomaly, cause), n) in &by_cause {
                    let _ = writeln!(
                        html,
                        "<li><a href=\"/{}#findings\"><code>{}</code> <code>{cause}</code></a>: {n}</li>",
                        query(&[("anomaly", anomaly.as_str()), ("cause", cause)]),
                        anomaly.as_str()
                    );
                }
                html.push_str("</ul>\n");
                let shown = &findings[..findings.len().min(EVIDENCE_ROWS)];
                if shown.len() < findings.len() {
                    let _ = writeln!(
                        html,
                        "<p>The first {} (the links above list every one):</p>",
                        shown.len()
                    );
                }
                html.push_str(&table(
                    "findings this alert covers",
                    FINDING_HEAD,
                    &finding_rows(shown, *now, links),
                ));
            }
        }
        Evidence::Exporter { not_synced, errors } => {
            if not_synced.is_empty() && errors.is_empty() {
                html.push_str("<p class=\"ok\">Every watch is synced and none reports an error. See <a href=\"/readyz\">/readyz</a>.</p>\n");
            }
            if !not_synced.is_empty() {
                let kinds: Vec<&str> = not_synced.iter().map(|k| k.plural()).collect();
                let _ = writeln!(
                    html,
                    "<p class=\"bad\">Not synced: {}.</p>",
                    kinds.join(", ")
                );
            }
            watch_errors(&mut html, errors);
        }
    }
    html.push_str("</section>\n");
    html
}

/// One runbook: the alert's severity and summary, what it covers now, then the
/// runbook itself.
pub(crate) fn runbook(runbook: Runbook, now: &Evidence) -> String {
    let mut body = format!("<h1>{}</h1>\n", runbook.alert());
    if let Some(rule) = alerts::rule(runbook) {
        let _ = writeln!(
            body,
            "<p><span class=\"sev-{s}\">{s}</span>: {}</p>",
            escape(&rule.summary),
            s = escape(&rule.severity)
        );
    }
    body.push_str(&evidence(now));
    body.push_str("<section aria-label=\"runbook\">\n");
    // The Markdown's own title repeats the alert's name.
    let text = runbook.markdown();
    let text = match text.strip_prefix('#') {
        Some(rest) if !rest.starts_with('#') => rest.split_once('\n').map_or("", |(_, r)| r),
        _ => text,
    };
    body.push_str(&markdown(text));
    body.push_str("</section>\n");
    frame(
        &format!("{} · kube-lifecycle-exporter", runbook.alert()),
        &body,
    )
}

/// Markdown to HTML. Raw HTML in the Markdown is shown as text, not interpreted.
fn markdown(markdown: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, html};
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, parser);
    // Markdown tables scroll in their own box on a phone.
    out.replace("<table>", "<div class=\"scroll\"><table>")
        .replace("</table>", "</table></div>")
}

/// The page for an address that serves nothing: what does exist.
pub(crate) fn not_found(path: &str) -> String {
    frame(
        "Not found · kube-lifecycle-exporter",
        &format!(
            "<h1>Not found</h1>\n<p>Nothing is served at <code>{}</code>. What is:</p>\n<ul>\n\
             <li><a href=\"/\">/</a>: the findings, summarised, filtered and paged</li>\n\
             <li><a href=\"/metrics\">/metrics</a>: the Prometheus metrics</li>\n\
             <li><a href=\"/findings\">/findings</a>: the findings as JSON (<code>?anomaly=&amp;cause=&amp;namespace=&amp;node=&amp;registry=&amp;limit=</code>)</li>\n\
             <li><a href=\"/runbooks\">/runbooks</a>: a runbook per alert</li>\n\
             <li><a href=\"/healthz\">/healthz</a>, <a href=\"/readyz\">/readyz</a>: liveness and readiness</li>\n</ul>\n",
            foreign(path)
        ),
    )
}

/// The same for a client that asked for no HTML.
pub(crate) fn not_found_text(path: &str) -> String {
    format!(
        "404: nothing is served at {path:?}.\nWhat is: / (the page), /metrics, /findings (JSON), /runbooks, /healthz, /readyz.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::{Detail, ImagePullCause, TerminatingCause};

    #[test]
    fn markup_in_messages_is_escaped() {
        assert_eq!(
            escape("<script>\"x\" & 'y'</script>"),
            "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;"
        );
    }

    #[test]
    fn markdown_renders_and_raw_html_is_shown_as_text() {
        let html = markdown("# Title\n\n`kubectl get pods`\n\n<script>alert(1)</script>\n");
        assert!(html.contains("<h1>Title</h1>"));
        assert!(html.contains("<code>kubectl get pods</code>"));
        assert!(!html.contains("<script>"));
    }

    fn pod(ns: &str, name: &str, node: &str, cause: Cause, message: &str) -> Finding {
        Finding {
            kind: Kind::Pod,
            namespace: Some(ns.into()),
            name: name.into(),
            container: None,
            container_kind: None,
            node: Some(node.into()),
            cause,
            since: Some("2026-11-27T05:00:00Z".parse().unwrap()),
            message: message.into(),
            detail: Detail::None,
        }
    }

    fn now() -> Timestamp {
        "2026-11-27T06:00:00Z".parse().unwrap()
    }

    fn snapshot_page(findings: &[Finding], filter: &FindingFilter, paging: Paging) -> String {
        landing(&Page {
            findings,
            now: now(),
            links: &RunbookLinks::BaseUrl("/runbooks".into()),
            showing: Showing::Snapshot {
                file: "examples/incidents.yaml",
                taken: Some("2026-11-26T12:00:00Z".parse().unwrap()),
                objects: 42,
            },
            filter,
            paging,
        })
    }

    const LOST: Cause = Cause::PodTerminating(TerminatingCause::NodeNotReady);

    #[test]
    fn names_and_messages_are_isolated_and_escaped() {
        // A pod name with a right-to-left override and markup: it must read as
        // text and reorder nothing outside its own cell.
        let evil = "web-\u{202E}<img src=x onerror=alert(1)>gnp";
        let page = snapshot_page(
            &[pod(
                "shop",
                evil,
                "worker-1",
                LOST,
                "<b>node</b>\u{202E} lost",
            )],
            &FindingFilter::default(),
            Paging::default(),
        );
        assert!(
            page.contains("<bdi>pod/shop/web-\u{202E}&lt;img src=x onerror=alert(1)&gt;gnp</bdi>")
        );
        assert!(page.contains("<bdi>&lt;b&gt;node&lt;/b&gt;\u{202E} lost</bdi>"));
        assert!(!page.contains("<img"));
        assert!(!page.contains("<b>"));
    }

    #[test]
    fn a_snapshot_says_what_it_shows_and_has_no_watches() {
        let page = snapshot_page(&[], &FindingFilter::default(), Paging::default());
        assert!(page.contains("examples/incidents.yaml"), "{page}");
        assert!(page.contains("written 2026-11-26 12:00:00 UTC"), "{page}");
        assert!(page.contains("judged at 2026-11-27 06:00:00 UTC"), "{page}");
        assert!(!page.contains("Watches"), "{page}");
        assert!(page.contains("Nothing is stuck."));
    }

    #[test]
    fn the_page_is_for_phones_and_keyboards() {
        let page = snapshot_page(
            &[pod("shop", "web-1", "worker-1", LOST, "m")],
            &FindingFilter::default(),
            Paging::default(),
        );
        assert!(
            page.contains(
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            )
        );
        assert!(page.contains("<a class=\"skip\" href=\"#main\">Skip to content</a>"));
        assert!(page.contains("<main id=\"main\""));
        assert!(page.contains(":focus-visible{outline:3px"));
        // Every table scrolls in its own box rather than widening the page.
        assert_eq!(
            page.matches("<table>").count(),
            page.matches("<div class=\"scroll\"").count()
        );
        assert!(!page.contains("onclick"));
    }

    #[test]
    fn many_findings_are_summarised_then_paged() {
        let mut findings: Vec<Finding> = (0..450)
            .map(|i| {
                pod(
                    &format!("ns-{}", i % 12),
                    &format!("web-{i:04}"),
                    &format!("node-{}", i % 3),
                    LOST,
                    "NodeNotReady",
                )
            })
            .collect();
        findings.extend((0..30).map(|i| {
            let mut f = pod(
                "shop",
                &format!("api-{i:02}"),
                "node-9",
                Cause::ImagePull(ImagePullCause::ConnectionRefused),
                "dial tcp: connection refused",
            );
            f.detail = Detail::ImagePull {
                image: "registry.example:5000/api:2".into(),
                registry: "registry.example:5000".into(),
                waiting_reason: "ImagePullBackOff".into(),
            };
            f
        }));
        findings.sort_by(|a, b| {
            (a.anomaly(), &a.namespace, &a.name).cmp(&(b.anomaly(), &b.namespace, &b.name))
        });
        let page = snapshot_page(&findings, &FindingFilter::default(), Paging::default());
        assert_eq!(page.matches("<tr><td><code><bdi>pod/").count(), 200);
        assert!(page.contains("Findings 1–200 of 480."), "{page}");
        assert!(page.contains("<a href=\"/?page=2#findings\">next</a>"));
        assert!(page.contains("<a href=\"/?page=3#findings\">last</a>"));
        // What explains them: the three lost nodes, the registry, top namespaces.
        assert!(page.contains("<h3>Lost nodes (3)</h3>"));
        assert!(page.contains(
            "<a href=\"/?node=node-0\"><code><bdi>node-0</bdi></code></a>: 150 findings on it"
        ));
        assert!(page.contains("<a href=\"/?registry=registry.example%3A5000\"><code><bdi>registry.example:5000</bdi></code></a>: 30 failing pulls"));
        assert!(page.contains("<h3>Namespaces (13)</h3>"));
        assert!(page.contains("<li>and 8 more</li>"));
        assert!(page.contains("<code>connection_refused</code></a></td><td class=\"n\">30</td>"));
        assert!(page.contains("<code>node_not_ready</code></a></td><td class=\"n\">450</td>"));

        let last = snapshot_page(
            &findings,
            &FindingFilter::default(),
            Paging {
                page: Some(3),
                limit: None,
            },
        );
        assert_eq!(last.matches("<tr><td><code><bdi>pod/").count(), 80);
        assert!(last.contains("Findings 401–480 of 480."));
        let filtered = FindingFilter {
            node: Some("node-1".into()),
            ..Default::default()
        };
        let small = snapshot_page(
            &findings,
            &filtered,
            Paging {
                page: Some(2),
                limit: Some(50),
            },
        );
        assert!(
            small.contains("<a href=\"/?node=node-1&amp;page=1&amp;limit=50#findings\">first</a>"),
            "{small}"
        );
    }

    #[test]
    fn the_runbook_index_has_each_alerts_severity_and_summary() {
        let index = runbook_index();
        assert!(index.contains("<tr><td><a href=\"/runbooks/kubelifecyclenodelost\">KubeLifecycleNodeLost</a></td><td class=\"sev-critical\">critical</td><td>Pods on a lost node cannot finish Terminating, and workloads wait on them.</td></tr>"), "{index}");
        assert_eq!(
            index.matches("<tr><td><a href=\"/runbooks/").count(),
            Runbook::ALL.len()
        );
    }

    #[test]
    fn a_runbook_opens_on_the_objects_its_alert_covers() {
        let findings: Vec<Finding> = (0..60)
            .map(|i| {
                pod(
                    "shop",
                    &format!("web-{i:02}"),
                    "worker-1",
                    LOST,
                    "node worker-1 is NotReady",
                )
            })
            .collect();
        let page = runbook(
            Runbook::NodeLost,
            &Evidence::Findings {
                findings: &findings,
                now: now(),
                links: &RunbookLinks::default(),
            },
        );
        let now_at = page.find("Right now").unwrap();
        assert!(
            now_at < page.find("Meaning").unwrap(),
            "evidence comes first"
        );
        assert!(page.contains("<p>60 objects this alert covers:</p>"));
        assert!(page.contains("<a href=\"/?anomaly=pod_terminating&amp;cause=node_not_ready#findings\"><code>pod_terminating</code> <code>node_not_ready</code></a>: 60"));
        assert!(page.contains("<p>The first 50 (the links above list every one):</p>"));
        assert_eq!(page.matches("<tr><td><code><bdi>pod/shop/web-").count(), 50);
        assert!(page.contains("<td class=\"n\">1h</td>"), "{page}");
        let quiet = runbook(
            Runbook::NodeLost,
            &Evidence::Findings {
                findings: &[],
                now: now(),
                links: &RunbookLinks::default(),
            },
        );
        assert!(quiet.contains("Nothing this alert covers is happening now."));
        let exporter = runbook(
            Runbook::WatchNotSynced,
            &Evidence::Exporter {
                not_synced: &[Kind::Pod],
                errors: &[],
            },
        );
        assert!(exporter.contains("Not synced: pods."));
    }

    #[test]
    fn an_unknown_address_lists_what_exists() {
        let page = not_found("/runbooks/<x>");
        assert!(page.contains("<code><bdi>/runbooks/&lt;x&gt;</bdi></code>"));
        for link in ["/metrics", "/findings", "/runbooks", "/readyz"] {
            assert!(page.contains(&format!("<a href=\"{link}\">")), "{link}");
        }
    }
}
