//! The request log tests read through `FakeApiServer::requests`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::query::asks_for_watch;
use super::route::{self, Route};
use crate::shared::Shared;

/// One request the server answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRecord {
    pub method: String,
    pub path: String,
    /// The raw query string, empty if there was none.
    pub query: String,
    /// The status of the response headers (200 for every watch that started,
    /// even one that later breaks or reports an ERROR event).
    pub status: u16,
    pub watch: bool,
}

/// Middleware appending a [`RequestRecord`] once the response headers are ready.
pub(crate) async fn record(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let method = request.method().to_string();
    let path = request.uri().path().to_string();
    let query = request.uri().query().map(str::to_string);
    let watch = asks_for_watch(query.as_deref())
        || matches!(
            route::parse(&path),
            Some(Route::Collection { watch: true, .. } | Route::Object { watch: true, .. })
        );
    let response = next.run(request).await;
    shared.requests.lock().push(RequestRecord {
        method,
        path,
        query: query.unwrap_or_default(),
        status: response.status().as_u16(),
        watch,
    });
    response
}
