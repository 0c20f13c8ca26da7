//! The runbook pages: the index of every alert with its severity and summary,
//! and each runbook opened on the evidence its alert covers right now.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use std::sync::Arc;

use super::summary::victims_in;
use super::{FINDING_HEAD, escape, finding_rows, foreign, frame, query, table, watch_errors};
use crate::diagnosis::wording::count;
use crate::diagnosis::{Anomaly, Finding, Root, RootCauses, Runbook};
use crate::model::{Kind, Time};
use crate::output::{RunbookLinks, alerts};

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
    /// The findings the alert covers (already chosen), judged at `now`, and
    /// the root causes of all findings.
    Findings {
        findings: &'a [Arc<Finding>],
        now: Time,
        links: &'a RunbookLinks,
        roots: &'a RootCauses,
    },
    /// The exporter's own alerts: the watches not synced and their errors.
    Exporter {
        not_synced: &'a [Kind],
        errors: &'a [(Kind, Option<String>, String)],
    },
}

/// How many covered findings a runbook page lists before pointing on.
const EVIDENCE_ROWS: usize = 50;

/// The root causes this alert speaks for, oldest first, each with its
/// victims: what the alert is about, before the findings it covers.
fn roots_of(runbook: Runbook, roots: &RootCauses) -> String {
    let of_alert: Vec<&Root> = roots
        .roots
        .iter()
        .filter(|r| r.runbook == runbook)
        .collect();
    if of_alert.is_empty() {
        return String::new();
    }
    let mut html = format!(
        "<p>{} this alert speaks for, oldest first:</p>\n<ul class=\"roots\">\n",
        count(of_alert.len(), "root cause", "root causes")
    );
    for root in &of_alert {
        let id = root.key.id();
        let _ = writeln!(
            html,
            "<li><a href=\"/{}#findings\"><code>{}</code></a>: <code>{}</code>{}{}</li>",
            query(&[("root", &id)]),
            foreign(&id),
            root.key.cause,
            root.since
                .map(|s| format!(" since {}", s.strftime("%Y-%m-%d %H:%M UTC")))
                .unwrap_or_default(),
            victims_in(root, None),
        );
    }
    html.push_str("</ul>\n");
    html
}

fn evidence(runbook: Runbook, evidence: &Evidence) -> String {
    let mut html = String::from("<section aria-labelledby=\"now\"><h2 id=\"now\">Right now</h2>\n");
    match evidence {
        Evidence::Findings {
            findings,
            now,
            links,
            roots,
        } => {
            html.push_str(&roots_of(runbook, roots));
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
                    &finding_rows(shown, *now, links, roots),
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
    body.push_str(&evidence(runbook, now));
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

/// Markdown to HTML. Raw HTML in the Markdown is shown as text, not
/// interpreted; comments (the generated blocks' markers) are dropped.
pub(super) fn markdown(markdown: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, html};
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) if raw.trim_start().starts_with("<!--") => {
            Event::Text("".into())
        }
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, parser);
    // Markdown tables scroll in their own box on a phone.
    out.replace("<table>", "<div class=\"scroll\"><table>")
        .replace("</table>", "</table></div>")
}
