//! The HTTP face of the fake API server: routing and request dispatch.
//!
//! Fixed endpoints (version, discovery, health) are axum routes; every
//! resource path goes through one fallback that parses the Kubernetes path
//! grammar itself (see [`route`]), because the overlapping paths of the real
//! API do not map onto a router's patterns cleanly.

mod discovery;
mod list;
mod query;
mod record;
mod reviews;
mod route;
mod watch;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{Method, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

pub use record::RequestRecord;

use crate::shared::Shared;
use crate::status::ApiError;
use query::Params;
use route::Route;

/// The application serving every request.
pub(crate) fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/version", get(discovery::version))
        .route("/healthz", get(discovery::healthz))
        .route("/livez", get(discovery::healthz))
        .route("/readyz", get(discovery::healthz))
        .route("/api", get(discovery::core_versions))
        .route("/apis", get(discovery::groups))
        .route(
            "/apis/authentication.k8s.io/v1/tokenreviews",
            post(reviews::token_review),
        )
        .route(
            "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            post(reviews::subject_access_review),
        )
        .route(
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            post(reviews::self_subject_access_review),
        )
        .fallback(resource_request)
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            record::record,
        ))
        .with_state(shared)
}

/// Any path under `/api/v1` or `/apis/{group}/{version}`.
async fn resource_request(State(shared): State<Arc<Shared>>, method: Method, uri: Uri) -> Response {
    let Some(route) = route::parse(uri.path()) else {
        return ApiError::no_route().into_response();
    };
    if method != Method::GET {
        return ApiError::method_not_allowed(method.as_str()).into_response();
    }
    let params = match Params::parse(uri.query()) {
        Ok(params) => params,
        Err(error) => return error.into_response(),
    };
    let answer = match route {
        Route::GroupVersion { group, version } => Ok(list::json_response(
            discovery::resource_list(group, version).to_string(),
        )),
        Route::Collection {
            resource,
            namespace,
            watch,
        } => {
            if watch || params.watch {
                watch::watch(shared, resource, namespace, None, params).await
            } else {
                list::list(shared, resource, namespace, params).await
            }
        }
        Route::Object {
            resource,
            namespace,
            name,
            watch,
        } => {
            if watch || params.watch {
                watch::watch(shared, resource, namespace, Some(name), params).await
            } else {
                list::get(shared, resource, namespace, name).await
            }
        }
    };
    answer.unwrap_or_else(IntoResponse::into_response)
}
