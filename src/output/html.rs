//! The HTML pages: the landing page (current findings grouped by anomaly, with
//! cause, age, message and runbook link, and how each watch is doing) and the
//! runbooks, rendered from their Markdown.

use jiff::Timestamp;

use super::{FindingFilter, RunbookLinks};
use crate::diagnosis::{Anomaly, Finding, Runbook};
use crate::model::Kind;
use crate::model::age;

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

pub(crate) struct Page<'a> {
    pub findings: &'a [Finding],
    pub now: Timestamp,
    pub links: &'a RunbookLinks,
    pub readiness: &'a [(Kind, bool)],
    pub counts: &'a [(Kind, usize)],
    pub errors: &'a [(Kind, Option<String>, String)],
    /// Each watched resource's connection to the API server, as words
    /// (`connected`, `retrying since …`, `relisting`).
    pub connections: &'a [(Kind, String)],
    pub source: &'a str,
    /// The filter `findings` was chosen with (from the page's query).
    pub filter: &'a FindingFilter,
}

/// The landing page.
pub(crate) fn landing(page: &Page) -> String {
    let mut html = String::from(concat!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        "<title>kube-lifecycle-exporter</title><style>",
        "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}",
        "table{border-collapse:collapse;margin-bottom:1.5em;width:100%}",
        "th,td{border-bottom:1px solid #ddd;padding:.3em .6em;text-align:left;vertical-align:top}",
        "th{background:#f4f4f4}code{font-size:.9em}.msg{font-size:.85em;color:#555;max-width:60em;word-break:break-word}",
        ".bad{color:#b00}.ok{color:#070}</style></head><body>\n",
        "<h1>kube-lifecycle-exporter</h1>\n",
    ));
    html.push_str(&format!(
        "<p>Source: {}. Judged at {}. <a href=\"/metrics\">/metrics</a> · <a href=\"/findings\">/findings</a> (JSON) · <a href=\"/readyz\">/readyz</a></p>\n",
        escape(page.source),
        page.now.strftime("%Y-%m-%d %H:%M:%S UTC")
    ));

    html.push_str(
        "<h2>Watches</h2>\n<table><tr><th>resource</th><th>state</th><th>connection</th><th>objects</th></tr>\n",
    );
    for (kind, ready) in page.readiness {
        let count = page
            .counts
            .iter()
            .find(|(k, _)| k == kind)
            .map_or(0, |(_, n)| *n);
        let state = if *ready {
            "<span class=\"ok\">synced</span>"
        } else {
            "<span class=\"bad\">not synced</span>"
        };
        let connection = page
            .connections
            .iter()
            .find(|(k, _)| k == kind)
            .map_or("", |(_, c)| c.as_str());
        html.push_str(&format!(
            "<tr><td>{}</td><td>{state}</td><td>{}</td><td>{count}</td></tr>\n",
            kind.plural(),
            escape(connection)
        ));
    }
    html.push_str("</table>\n");
    if page.readiness.is_empty() {
        html.push_str("<p>A fixed snapshot: nothing is watched.</p>\n");
    }
    for (kind, scope, message) in page.errors {
        html.push_str(&format!(
            "<p class=\"bad\">{}{}: {}</p>\n",
            kind.plural(),
            scope
                .as_deref()
                .map(|s| format!(" in {}", escape(s)))
                .unwrap_or_default(),
            escape(message)
        ));
    }

    html.push_str(&format!("<h2>Findings ({})</h2>\n", page.findings.len()));
    if !page.filter.is_empty() {
        html.push_str(&format!(
            "<p>Only the findings with {} are shown. <a href=\"/\">All findings</a></p>\n",
            escape(&page.filter.describe())
        ));
    }
    if page.findings.is_empty() {
        let none = if page.filter.is_empty() {
            "Nothing is stuck."
        } else {
            "No finding matches."
        };
        html.push_str(&format!("<p class=\"ok\">{none}</p>\n"));
    }
    for anomaly in Anomaly::ALL {
        let group: Vec<&Finding> = page
            .findings
            .iter()
            .filter(|f| f.anomaly() == *anomaly)
            .collect();
        if group.is_empty() {
            continue;
        }
        html.push_str(&format!(
            "<h3 id=\"{a}\"><code>{a}</code> ({n})</h3>\n<p>{d}</p>\n<table><tr><th>object</th><th>cause</th><th>age</th><th>message</th><th>runbook</th></tr>\n",
            a = anomaly.as_str(),
            n = group.len(),
            d = escape(anomaly.description()),
        ));
        for f in group {
            let object = format!(
                "{}/{}{}{}",
                f.kind.as_str().to_lowercase(),
                f.namespace
                    .as_deref()
                    .map(|n| format!("{n}/"))
                    .unwrap_or_default(),
                f.name,
                f.container
                    .as_deref()
                    .map(|c| format!(" [{c}]"))
                    .unwrap_or_default()
            );
            let age = f
                .since
                .map_or("-".to_string(), |s| age::short(page.now.duration_since(s)));
            let link = page.links.link(f.runbook());
            html.push_str(&format!(
                "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td class=\"msg\">{}</td><td><a href=\"{}\">{}</a></td></tr>\n",
                escape(&object),
                f.cause.as_str(),
                age,
                escape(&f.message),
                escape(&link),
                escape(f.runbook().alert())
            ));
        }
        html.push_str("</table>\n");
    }
    html.push_str("</body></html>\n");
    html
}

/// The list of every runbook, by alert.
pub(crate) fn runbook_index() -> String {
    let mut items = String::new();
    for runbook in Runbook::ALL {
        items.push_str(&format!(
            "<li><a href=\"/runbooks/{}\">{}</a></li>\n",
            runbook.slug(),
            runbook.alert()
        ));
    }
    runbook_frame(
        "Runbooks",
        &format!("<h1>Runbooks</h1>\n<ul>\n{items}</ul>\n"),
    )
}

/// One runbook.
pub(crate) fn runbook(runbook: Runbook) -> String {
    runbook_frame(runbook.alert(), &markdown(runbook.markdown()))
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
    out
}

fn runbook_frame(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{} · kube-lifecycle-exporter</title>\
         <style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}}\
         pre{{background:#f4f4f4;padding:.6em;overflow-x:auto}}code{{background:#f4f4f4}}\
         table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.2em .5em}}</style>\
         </head><body><p><a href=\"/\">findings</a> · <a href=\"/runbooks\">runbooks</a></p>\n{}</body></html>\n",
        escape(title),
        body
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
