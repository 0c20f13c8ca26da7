//! The runbooks, embedded in the binary and served as HTML, so that the landing
//! page's links and the alerts' `runbook_url` can point at the exporter itself.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};

use crate::diagnosis::{Cause, Runbook};
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

/// `/runbooks/for/<anomaly>/<cause>`: the runbook of the alert a finding with that
/// cause raises (the dashboards link a row's anomaly and cause here). Relative, so
/// it also works behind a path prefix.
pub(crate) async fn for_cause(Path((anomaly, cause)): Path<(String, String)>) -> Response {
    match Cause::from_labels(&anomaly, &cause) {
        Some(cause) => Redirect::to(&format!("../../{}", Runbook::for_cause(cause).slug())).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            format!("no cause {cause:?} of anomaly {anomaly:?} (docs/causes.md lists them); see /runbooks\n"),
        )
            .into_response(),
    }
}
