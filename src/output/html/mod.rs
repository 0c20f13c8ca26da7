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

use std::borrow::Borrow;
use std::fmt::Write as _;

mod runbooks;
mod summary;

pub(crate) use runbooks::{Evidence, runbook, runbook_index};
pub(crate) use summary::summary;

use super::{FindingFilter, Paging, RunbookLinks};
use crate::diagnosis::wording::short_age;
use crate::diagnosis::{Anomaly, Finding, RootCauses};
use crate::model::{ContainerKind, Kind, Time};

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
        ("root", &filter.root),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.as_deref().map(|v| (k, v)))
    .collect()
}

/// The pages' one style sheet, inline; the server's Content-Security-Policy
/// allows it by its hash, and no script at all.
pub(crate) const STYLE: &str = concat!(
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
    "ul.roots{padding-left:1.2em;overflow-wrap:anywhere}ul.roots li{margin-bottom:.3em}",
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

fn finding_age(f: &Finding, now: Time) -> String {
    f.since
        .map_or("-".to_string(), |s| short_age(now.duration_since(s)))
}

/// Rows of findings: object, cause, the root cause that explains it, age,
/// message, runbook.
fn finding_rows<F: Borrow<Finding>>(
    findings: &[F],
    now: Time,
    links: &RunbookLinks,
    roots: &RootCauses,
) -> String {
    let mut rows = String::new();
    for f in findings.iter().map(F::borrow) {
        let link = links.link(f.runbook());
        let root = roots.of_finding(f).map_or("-".to_string(), |r| {
            let id = r.key.id();
            format!(
                "<a href=\"/{}#findings\"><code>{}</code></a>",
                query(&[("root", &id)]),
                foreign(&id)
            )
        });
        let _ = writeln!(
            rows,
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{root}</td><td class=\"n\">{}</td><td class=\"msg\">{}</td><td><a href=\"{}\">{}</a></td></tr>",
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

const FINDING_HEAD: &[&str] = &[
    "object",
    "cause",
    "explained by",
    "age",
    "message",
    "runbook",
];

/// Findings grouped by anomaly, in the order given (the diagnosis sorts them
/// by anomaly first).
fn findings_by_anomaly<F: Borrow<Finding>>(
    findings: &[F],
    now: Time,
    links: &RunbookLinks,
    roots: &RootCauses,
) -> String {
    let mut html = String::new();
    let mut rest = findings;
    while let Some(first) = rest.first() {
        let anomaly = first.borrow().anomaly();
        let n = rest
            .iter()
            .take_while(|f| (*f).borrow().anomaly() == anomaly)
            .count();
        let (group, tail) = rest.split_at(n);
        let _ = write!(
            html,
            "<h3 id=\"{a}\"><code>{a}</code> ({n})</h3>\n<p>{d}</p>\n{t}",
            a = anomaly.as_str(),
            d = escape(anomaly.description()),
            t = table(
                anomaly.as_str(),
                FINDING_HEAD,
                &finding_rows(group, now, links, roots)
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
        taken: Option<jiff::Timestamp>,
        objects: usize,
    },
}

/// `F` is a finding, or one shared (the live exporter's).
pub(crate) struct Page<'a, F = Finding> {
    /// The findings the filter chose, all of them (the summary counts them; the
    /// table shows the page's slice).
    pub findings: &'a [F],
    pub now: Time,
    pub links: &'a RunbookLinks,
    pub showing: Showing<'a>,
    /// The filter `findings` was chosen with (from the page's query).
    pub filter: &'a FindingFilter,
    pub paging: Paging,
    /// The root causes of the findings (of all of them, not only those chosen).
    pub roots: &'a RootCauses,
    /// A viewer who may see only part of the findings (`--auth kubernetes`):
    /// `findings` are already cut to that part; the page says so.
    pub viewer: Option<Viewer<'a>>,
}

/// What a viewer may see, as the page tells them.
pub(crate) struct Viewer<'a> {
    pub user: &'a str,
    /// May list pods in every namespace.
    pub all_namespaces: bool,
    /// Otherwise, the namespaces with findings where they may.
    pub namespaces: &'a std::collections::BTreeSet<String>,
    /// May list nodes.
    pub nodes: bool,
}

impl Viewer<'_> {
    /// What is shown and why, the same whether or not anything is hidden:
    /// the page must not tell a viewer that there is more than they may see.
    fn note(&self) -> String {
        let namespaces = if self.all_namespaces {
            "every namespace".to_string()
        } else if self.namespaces.is_empty() {
            "no namespace with findings".to_string()
        } else {
            let names: Vec<String> = self.namespaces.iter().map(|n| foreign(n)).collect();
            format!("the namespaces {}", names.join(", "))
        };
        let nodes = if self.nodes {
            "and the findings about nodes, registries and the cluster (you may list nodes)"
        } else {
            "but not the findings about nodes, registries and the cluster (they need <code>list nodes</code>)"
        };
        format!(
            "<p class=\"viewer\">Signed in as <code>{}</code>. You see the findings of {namespaces}, where you may <code>list pods</code>, {nodes}; counts and summaries are of those alone. Your cluster administrator grants more with a Role or ClusterRole.</p>\n",
            foreign(self.user)
        )
    }
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
         <label>anomaly<select name=\"anomaly\">{options}</select></label>{}{}{}{}{}\
         <label>per page<input name=\"limit\" type=\"number\" min=\"1\" value=\"{}\"></label>\
         <button type=\"submit\">Show</button> <a href=\"/\">clear</a></form>\n",
        text("cause", &filter.cause),
        text("namespace", &filter.namespace),
        text("node", &filter.node),
        text("registry", &filter.registry),
        text("root", &filter.root),
        paging.limit.unwrap_or(Paging::PAGE_SIZE),
    )
}

/// The landing page, summarised here (the server keeps its summaries:
/// [`landing_summarised`]).
#[cfg(test)]
pub(crate) fn landing<F: Borrow<Finding>>(page: &Page<F>) -> String {
    landing_summarised(page, &summary(page.findings, page.filter, page.roots))
}

/// The landing page, given [`summary`] of `page.findings` (a server keeps
/// it between views of the same findings).
pub(crate) fn landing_summarised<F: Borrow<Finding>>(page: &Page<F>, summarised: &str) -> String {
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
            html.push_str(&watches(readiness, counts, connections));
            watch_errors(&mut html, errors);
        }
    }
    findings_part(page, html, summarised)
}

/// Each watch's state, connection and object count, folded away (nothing
/// when no watch is known yet).
fn watches(
    readiness: &[(Kind, bool)],
    counts: &[(Kind, usize)],
    connections: &[(Kind, String)],
) -> String {
    let mut rows = String::new();
    for (kind, ready) in readiness {
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
    if rows.is_empty() {
        return rows;
    }
    let mut html = String::from("<details><summary>Watches</summary>\n");
    html.push_str(&table(
        "watches",
        &["resource", "state", "connection", "objects"],
        &rows,
    ));
    html.push_str("</details>\n");
    html
}

/// The landing page from its findings on, after `html` (its heading and
/// what it shows): the summary, the filter form and the page of findings.
fn findings_part<F: Borrow<Finding>>(page: &Page<F>, mut html: String, summarised: &str) -> String {
    let total = page.findings.len();
    if let Some(viewer) = &page.viewer {
        html.push_str(&viewer.note());
    }
    if !page.filter.is_empty() {
        let _ = writeln!(
            html,
            "<p>Only the findings with {} are counted and shown. <a href=\"/\">All findings</a></p>",
            foreign(&page.filter.describe())
        );
    }
    if total == 0 {
        let none = if page.viewer.is_some() {
            "Nothing to show in what you may see."
        } else if page.filter.is_empty() {
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
    html.push_str(summarised);

    let range = page.paging.range(total);
    let _ = writeln!(html, "<h2 id=\"findings\">Findings ({total})</h2>");
    html.push_str(&filter_form(page.filter, &page.paging));
    let pager = pager(page, range.clone(), total);
    html.push_str(&pager);
    html.push_str(&findings_by_anomaly(
        &page.findings[range.clone()],
        page.now,
        page.links,
        page.roots,
    ));
    if range.len() > 20 {
        html.push_str(&pager);
    }
    frame("kube-lifecycle-exporter", &html)
}

/// "Findings 201–400 of 70,010" with links to the pages around.
fn pager<F>(page: &Page<F>, range: std::ops::Range<usize>, total: usize) -> String {
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

/// The page for an address that serves nothing: what does exist.
pub(crate) fn not_found(path: &str) -> String {
    frame(
        "Not found · kube-lifecycle-exporter",
        &format!(
            "<h1>Not found</h1>\n<p>Nothing is served at <code>{}</code>. What is:</p>\n<ul>\n\
             <li><a href=\"/\">/</a>: the findings, summarised, filtered and paged</li>\n\
             <li><a href=\"/metrics\">/metrics</a>: the Prometheus metrics</li>\n\
             <li><a href=\"/findings\">/findings</a>: the findings as JSON (<code>?anomaly=&amp;cause=&amp;namespace=&amp;node=&amp;registry=&amp;root=&amp;limit=</code>)</li>\n\
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
mod tests;
