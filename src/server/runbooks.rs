//! The runbooks, embedded in the binary and served as HTML, so that the landing
//! page's links and the alerts' `runbook_url` can point at the exporter itself.

use std::sync::Arc;

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};

use super::App;
use super::auth::{Viewer, scope};
use crate::diagnosis::{Cause, Runbook};
use crate::output::html;

/// `/runbooks`: every runbook, by alert.
pub(crate) async fn index() -> Html<String> {
    Html(html::runbook_index())
}

/// `/runbooks/<alert in lower case>` (the alert name in any case is accepted),
/// opened on what the alert covers right now.
pub(crate) async fn show(
    State(app): State<Arc<App>>,
    viewer: Option<Extension<Viewer>>,
    Path(slug): Path<String>,
) -> Response {
    let slug = slug.trim_end_matches(".md");
    let Some(runbook) = Runbook::from_slug(slug) else {
        return (
            StatusCode::NOT_FOUND,
            Html(html::not_found(&format!("/runbooks/{slug}"))),
        )
            .into_response();
    };
    let covers = runbook.covers();
    if covers.is_empty() {
        let not_synced: Vec<_> = app
            .live
            .readiness()
            .into_iter()
            .filter(|(_, ready)| !ready)
            .map(|(kind, _)| kind)
            .collect();
        let errors = app.live.current_errors();
        let evidence = html::Evidence::Exporter {
            not_synced: &not_synced,
            errors: &errors,
        };
        return Html(html::runbook(runbook, &evidence)).into_response();
    }
    let live = app.live.clone();
    let now = app.live.now();
    let (all, roots) = tokio::task::spawn_blocking(move || live.explained(now))
        .await
        .unwrap_or_default();
    let mut covered: Arc<Vec<_>> = Arc::new(
        all.iter()
            .filter(|f| covers.contains(&f.cause))
            .cloned()
            .collect(),
    );
    let mut roots = roots;
    if let Some(Extension(viewer)) = viewer {
        match viewer.scope(&covered, false).await {
            Ok(scope) => {
                covered = scope::visible(covered, &scope);
                if !scope.is_everything() {
                    roots = Arc::new(scope.roots(&roots));
                }
            }
            Err(unavailable) => return unavailable.into_response(),
        }
    }
    let evidence = html::Evidence::Findings {
        findings: &covered,
        now,
        links: &app.links,
        roots: &roots,
    };
    Html(html::runbook(runbook, &evidence)).into_response()
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
