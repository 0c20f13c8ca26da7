//! The HTTP side: `/metrics`, `/healthz`, `/readyz`, `/findings`, the landing page
//! and the runbooks. Routing and HTTP only: what a response says is the
//! outputs' to render.

pub(crate) mod basic_auth;
pub(crate) mod exposition;
pub(crate) mod runbooks;
pub(crate) mod tls;
pub(crate) mod web_config;

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use prometheus_client::registry::Registry;

use crate::output::{FindingFilter, RunbookLinks, html, json, metrics};
use crate::source::watch::{Connection, LiveState};

use exposition::Format;

/// What the handlers share.
pub(crate) struct App {
    pub live: Arc<LiveState>,
    pub registry: Registry,
    pub links: RunbookLinks,
    /// Where the data comes from, for the landing page.
    pub source: String,
}

impl App {
    pub(crate) fn new(
        live: Arc<LiveState>,
        links: RunbookLinks,
        source: String,
        series_ceiling: usize,
    ) -> Self {
        let mut registry = Registry::default();
        metrics::register(&mut registry, live.clone(), &live.telemetry, series_ceiling);
        App {
            live,
            registry,
            links,
            source,
        }
    }

    pub(crate) fn router(self: Arc<Self>) -> Router {
        Router::new()
            .route("/", get(landing_page))
            .route("/metrics", get(metrics))
            .route("/findings", get(findings))
            .route("/healthz", get(|| async { "ok\n" }))
            .route("/readyz", get(readyz))
            .route("/runbooks", get(runbooks::index))
            .route("/runbooks/{slug}", get(runbooks::show))
            .route("/runbooks/for/{anomaly}/{cause}", get(runbooks::for_cause))
            .with_state(self)
    }
}

async fn metrics(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let format = Format::negotiate(headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()));
    // Rendering walks the whole model: keep it off the async workers.
    let rendered = tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let mut text = String::new();
        let result = prometheus_client::encoding::text::encode(&mut text, &app.registry);
        app.live.telemetry.rendered(started.elapsed().as_secs_f64());
        result.map(|()| text)
    })
    .await;
    match rendered {
        Ok(Ok(text)) => {
            let body = match format {
                Format::OpenMetrics => text,
                Format::Classic => exposition::to_classic(&text),
            };
            ([(header::CONTENT_TYPE, format.content_type())], body).into_response()
        }
        Ok(Err(_)) | Err(_) => {
            tracing::error!("rendering /metrics failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "rendering metrics failed\n",
            )
                .into_response()
        }
    }
}

async fn findings(State(app): State<Arc<App>>, Query(filter): Query<FindingFilter>) -> Response {
    let live = app.live.clone();
    let mut list = tokio::task::spawn_blocking(move || live.findings(live.now()))
        .await
        .unwrap_or_default();
    list.retain(|f| filter.matches(f));
    (
        [(header::CONTENT_TYPE, "application/json")],
        json::render(&list, &app.links),
    )
        .into_response()
}

async fn readyz(State(app): State<Arc<App>>) -> Response {
    let readiness = app.live.readiness();
    let pending: Vec<&str> = readiness
        .iter()
        .filter(|(_, ready)| !ready)
        .map(|(k, _)| k.plural())
        .collect();
    if pending.is_empty() {
        (StatusCode::OK, "ready\n").into_response()
    } else {
        let errors: Vec<String> = app
            .live
            .current_errors()
            .into_iter()
            .map(|(k, scope, message)| {
                format!(
                    "{}{}: {message}",
                    k.plural(),
                    scope.map(|s| format!(" in {s}")).unwrap_or_default()
                )
            })
            .collect();
        let mut body = format!("not synced: {}\n", pending.join(", "));
        for e in errors {
            body.push_str(&e);
            body.push('\n');
        }
        (StatusCode::SERVICE_UNAVAILABLE, body).into_response()
    }
}

/// A watch's connection as the landing page says it.
fn connection_words(connection: Connection) -> String {
    match connection {
        Connection::Starting => "listing".into(),
        Connection::Connected => "connected".into(),
        Connection::Retrying { since } => format!(
            "retrying since {} (serving the last known state)",
            since.strftime("%Y-%m-%d %H:%M:%S UTC")
        ),
        Connection::Relisting { .. } => "relisting".into(),
    }
}

async fn landing_page(
    State(app): State<Arc<App>>,
    Query(filter): Query<FindingFilter>,
) -> Html<String> {
    let live = app.live.clone();
    let now = live.now();
    let mut findings = tokio::task::spawn_blocking(move || live.findings(now))
        .await
        .unwrap_or_default();
    findings.retain(|f| filter.matches(f));
    let readiness = app.live.readiness();
    let counts = app.live.counts();
    let errors = app.live.current_errors();
    let connections: Vec<_> = app
        .live
        .connections()
        .into_iter()
        .map(|(kind, c)| (kind, connection_words(c)))
        .collect();
    Html(html::landing(&html::Page {
        findings: &findings,
        now,
        links: &app.links,
        readiness: &readiness,
        counts: &counts,
        errors: &errors,
        connections: &connections,
        source: &app.source,
        filter: &filter,
    }))
}
