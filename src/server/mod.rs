//! The HTTP side: `/metrics`, `/healthz`, `/readyz`, `/findings`, the landing page
//! and the runbooks. Routing and HTTP only: what a response says is the
//! outputs' to render.

pub(crate) mod auth;
pub(crate) mod basic_auth;
pub(crate) mod exposition;
mod gzip;
pub(crate) mod runbooks;
mod summaries;
pub(crate) mod tls;
pub(crate) mod web_config;

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Extension, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Router, middleware};

use crate::diagnosis::{Finding, RootCauses};
use crate::output::{FindingFilter, Paging, RunbookLinks, html, json, metrics};
use crate::source::watch::{Connection, LiveState};

use auth::scope::{self, Scope};
use auth::{Auth, Viewer};
use exposition::Format;

/// Where the findings come from, as the pages say it.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// The cluster at this address, watched.
    Cluster(String),
    /// A snapshot read from a file (`serve --from-file`).
    File {
        name: String,
        /// When the file was last written, if the file system says.
        written: Option<jiff::Timestamp>,
    },
}

/// What the handlers share.
pub(crate) struct App {
    pub live: Arc<LiveState>,
    pub metrics: metrics::Exposition<LiveState>,
    pub links: RunbookLinks,
    /// Where the data comes from, for the landing page.
    pub source: Source,
    summaries: summaries::Summaries,
    /// The findings' families in the classic text format, as last written.
    classic: exposition::ClassicParts,
    /// The findings' families compressed, as last written.
    gzip: gzip::GzipParts,
    /// `--auth kubernetes`: who asks, and what they may see.
    auth: Option<Arc<Auth>>,
}

/// Sends what a connection writes at once. With Nagle's algorithm on, a
/// response written in pieces (its headers, then a gzip body a fraction of a
/// TCP segment long) waits for the client's delayed acknowledgement, 40 ms
/// on Linux, on every scrape.
pub(crate) fn no_delay(tcp: &tokio::net::TcpStream) {
    if let Err(error) = tcp.set_nodelay(true) {
        tracing::debug!(%error, "could not set TCP_NODELAY");
    }
}

/// How many findings one piece of a streamed `/findings` body holds.
const FINDINGS_PER_CHUNK: usize = 256;

impl App {
    pub(crate) fn new(
        live: Arc<LiveState>,
        links: RunbookLinks,
        source: Source,
        series_ceiling: usize,
    ) -> Self {
        let metrics = metrics::Exposition::new(live.clone(), &live.telemetry, series_ceiling);
        App {
            live,
            metrics,
            links,
            source,
            summaries: Default::default(),
            classic: Default::default(),
            gzip: Default::default(),
            auth: None,
        }
    }

    /// Every request but the probes authenticated and authorized by `auth`.
    pub(crate) fn with_auth(mut self, auth: Auth) -> Self {
        self.auth = Some(Arc::new(auth));
        self
    }

    pub(crate) fn router(self: Arc<Self>) -> Router {
        let auth = self.auth.clone();
        let router = Router::new()
            .route("/", get(landing_page))
            .route("/metrics", get(metrics))
            .route("/findings", get(findings))
            .route("/healthz", get(|| async { "ok\n" }))
            .route("/readyz", get(readyz))
            .route("/runbooks", get(runbooks::index))
            .route("/runbooks/{slug}", get(runbooks::show))
            .route("/runbooks/for/{anomaly}/{cause}", get(runbooks::for_cause))
            .fallback(not_found)
            .with_state(self);
        let router = match auth {
            Some(auth) => router.layer(middleware::from_fn_with_state(auth, auth::guard)),
            None => router,
        };
        router
            .layer(middleware::from_fn(auth::security_headers))
            // gzip whenever the client asks (Prometheus does), streamed bodies
            // too; /metrics compresses its own (gzip.rs).
            .layer(tower_http::compression::CompressionLayer::new())
    }
}

async fn metrics(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let format = Format::negotiate(headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()));
    let gzip = gzip::accepted(
        headers
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok()),
    );
    // A scrape may encode new findings, convert or compress them: off the
    // async workers.
    let rendered = tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let result = app.metrics.encode();
        app.live.telemetry.rendered(started.elapsed().as_secs_f64());
        let sections = exposition::scrape_sections(result?, format, &app.classic);
        if gzip {
            match app.gzip.gzip(&sections, format) {
                Ok(compressed) => return Ok((compressed, true)),
                // The client takes the text as it is, too.
                Err(error) => tracing::error!(%error, "compressing /metrics failed"),
            }
        }
        Ok::<_, std::fmt::Error>((exposition::plain(sections), false))
    })
    .await;
    match rendered {
        Ok(Ok((parts, compressed))) => {
            let body = axum::body::Body::new(exposition::Parts::new(parts));
            let mut response = (
                [
                    (header::CONTENT_TYPE, format.content_type()),
                    (header::VARY, "accept-encoding"),
                ],
                body,
            )
                .into_response();
            if compressed {
                // The compression layer leaves a response it finds encoded.
                response.headers_mut().insert(
                    header::CONTENT_ENCODING,
                    header::HeaderValue::from_static("gzip"),
                );
            }
            response
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

/// `/findings`: the findings the query chooses (`?anomaly=&cause=&namespace=&node=&registry=`,
/// `?limit=`, `?page=` with a limit), every one without a query, as a JSON array
/// written a few hundred findings at a time.
async fn findings(
    State(app): State<Arc<App>>,
    viewer: Option<Extension<Viewer>>,
    Query(filter): Query<FindingFilter>,
    Query(paging): Query<Paging>,
) -> Response {
    let live = app.live.clone();
    let (all, roots) = tokio::task::spawn_blocking(move || live.explained(live.now()))
        .await
        .unwrap_or_default();
    let mut list = chosen(all, &filter, &roots);
    if let Some(Extension(viewer)) = viewer {
        match viewer.scope(&list, false).await {
            Ok(scope) => list = scope::visible(list, &scope),
            Err(unavailable) => return unavailable.into_response(),
        }
    }
    if paging.limit.is_some() || paging.page.is_some() {
        let range = Paging {
            limit: Some(paging.limit.unwrap_or(usize::MAX)),
            ..paging
        }
        .range(list.len());
        if range != (0..list.len()) {
            list = Arc::new(list[range].to_vec());
        }
    }
    let links = app.links.clone();
    let chunks = json::ranges(list.len(), FINDINGS_PER_CHUNK)
        .map(move |range| Ok::<_, std::convert::Infallible>(json::chunk_of(&list, &links, range)));
    (
        [(header::CONTENT_TYPE, "application/json")],
        axum::body::Body::from_stream(futures::stream::iter(chunks)),
    )
        .into_response()
}

/// The findings `filter` chooses: all of them shared as they are when it
/// chooses every one, else a copy of those it does.
fn chosen(
    all: Arc<Vec<Arc<Finding>>>,
    filter: &FindingFilter,
    roots: &RootCauses,
) -> Arc<Vec<Arc<Finding>>> {
    if filter.is_empty() || all.iter().all(|f| filter.matches(f, roots)) {
        return all;
    }
    Arc::new(
        all.iter()
            .filter(|f| filter.matches(f, roots))
            .cloned()
            .collect(),
    )
}

/// Any other address: a short page of what exists (text unless HTML is accepted).
async fn not_found(uri: axum::http::Uri, headers: HeaderMap) -> Response {
    let path = uri.path();
    let wants_html = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/html"));
    if wants_html {
        (StatusCode::NOT_FOUND, Html(html::not_found(path))).into_response()
    } else {
        (StatusCode::NOT_FOUND, html::not_found_text(path)).into_response()
    }
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
    viewer: Option<Extension<Viewer>>,
    Query(filter): Query<FindingFilter>,
    Query(paging): Query<Paging>,
) -> Response {
    let live = app.live.clone();
    let now = live.now();
    let (all, roots) = tokio::task::spawn_blocking(move || live.explained(now))
        .await
        .unwrap_or_default();
    let mut findings = chosen(all.clone(), &filter, &roots);
    // A viewer who may not see everything gets the findings they may see,
    // summarised apart, the part of their root causes they may see, and no
    // count or error of the whole cluster.
    let mut restricted: Option<(Viewer, Scope)> = None;
    if let Some(Extension(viewer)) = viewer {
        match viewer.scope(&findings, true).await {
            Ok(scope) if scope.is_everything() => {}
            Ok(scope) => {
                findings = scope::visible(findings, &scope);
                restricted = Some((viewer, scope));
            }
            Err(unavailable) => return unavailable.into_response(),
        }
    }
    let shown_roots = match &restricted {
        Some((_, scope)) => Arc::new(scope.roots(&roots)),
        None => roots.clone(),
    };
    let summary = app.summaries.of(
        &all,
        &roots,
        &filter,
        restricted.as_ref().map(|(_, scope)| scope),
        &findings,
        &shown_roots,
    );
    let readiness = app.live.readiness();
    let (counts, errors) = match restricted {
        None => (app.live.counts(), app.live.current_errors()),
        Some(_) => (Vec::new(), Vec::new()),
    };
    let connections: Vec<_> = app
        .live
        .connections()
        .into_iter()
        .map(|(kind, c)| (kind, connection_words(c)))
        .collect();
    let showing = match &app.source {
        Source::Cluster(url) => html::Showing::Watching {
            cluster: url,
            readiness: &readiness,
            counts: &counts,
            errors: &errors,
            connections: &connections,
        },
        Source::File { name, written } => html::Showing::Snapshot {
            file: name,
            taken: *written,
            objects: counts.iter().map(|(_, n)| n).sum(),
        },
    };
    let page = html::Page {
        findings: &findings,
        now,
        links: &app.links,
        showing,
        filter: &filter,
        paging,
        roots: &shown_roots,
        viewer: restricted.as_ref().map(|(viewer, scope)| html::Viewer {
            user: &viewer.user.username,
            all_namespaces: scope.all_namespaces,
            namespaces: &scope.namespaces,
            nodes: scope.nodes,
        }),
    };
    Html(html::landing_summarised(&page, &summary)).into_response()
}
