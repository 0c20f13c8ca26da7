//! The runbooks, embedded in the binary and rendered to HTML, so that the landing
//! page's links and the alerts' `runbook_url` can point at the exporter itself.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use super::landing::escape;
use crate::diagnosis::Runbook;

/// `/runbooks`: every runbook, by alert.
pub async fn index() -> Html<String> {
    let mut items = String::new();
    for runbook in Runbook::ALL {
        items.push_str(&format!(
            "<li><a href=\"/runbooks/{}\">{}</a></li>\n",
            runbook.slug(),
            runbook.alert()
        ));
    }
    Html(page(
        "Runbooks",
        &format!("<h1>Runbooks</h1>\n<ul>\n{items}</ul>\n"),
    ))
}

/// `/runbooks/<alert in lower case>` (the alert name in any case is accepted).
pub async fn show(Path(slug): Path<String>) -> Response {
    let slug = slug.trim_end_matches(".md");
    match Runbook::from_slug(slug) {
        Some(runbook) => Html(page(runbook.alert(), &render(runbook.markdown()))).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            format!("no runbook named {slug:?}; see /runbooks\n"),
        )
            .into_response(),
    }
}

/// Markdown to HTML. Raw HTML in the Markdown is shown as text, not interpreted.
pub fn render(markdown: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, html};
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, parser);
    out
}

fn page(title: &str, body: &str) -> String {
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
    fn markdown_renders_and_raw_html_is_shown_as_text() {
        let html = render("# Title\n\n`kubectl get pods`\n\n<script>alert(1)</script>\n");
        assert!(html.contains("<h1>Title</h1>"));
        assert!(html.contains("<code>kubectl get pods</code>"));
        assert!(!html.contains("<script>"));
    }
}
