//! The runbooks, embedded in the binary and served as HTML, so that the landing
//! page's links and the alerts' `runbook_url` can point at the exporter itself.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::diagnosis::Runbook;
use crate::output::html;

/// `/runbooks`: every runbook, by alert.
pub(crate) async fn index() -> Html<String> {
    Html(html::runbook_index())
}

/// `/runbooks/<alert in lower case>` (the alert name in any case is accepted).
pub(crate) async fn show(Path(slug): Path<String>) -> Response {
    let slug = slug.trim_end_matches(".md");
    match Runbook::from_slug(slug) {
        Some(runbook) => Html(html::runbook(runbook)).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            format!("no runbook named {slug:?}; see /runbooks\n"),
        )
            .into_response(),
    }
}
