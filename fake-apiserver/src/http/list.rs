//! LIST and GET of one object.
//!
//! List bodies are assembled from the stored serialised items, so a page of
//! thousands of pods costs one string concatenation.

use std::sync::Arc;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::query::{Params, VersionMatch};
use crate::faults::Fault;
use crate::resources::{self, ResourceId, ResourceType};
use crate::selectors::Filter;
use crate::shared::Shared;
use crate::status::ApiError;
use crate::store::{ListPage, StoreError};

/// Applies the resource's fault to a list or get: an error answer, or the
/// delay of a slow server.
pub(crate) async fn request_fault(
    shared: &Shared,
    resource: &ResourceType,
    verb: &str,
    namespace: Option<&str>,
) -> Result<(), ApiError> {
    match shared.faults.get(resource.plural) {
        Fault::Forbidden => Err(ApiError::forbidden(resource, verb, namespace)),
        Fault::ServerError => Err(ApiError::internal_error()),
        Fault::Slow(delay) => {
            tokio::time::sleep(delay).await;
            Ok(())
        }
        Fault::HangWatch | Fault::None => Ok(()),
    }
}

/// `GET .../{plural}` without `watch`.
pub(crate) async fn list(
    shared: Arc<Shared>,
    resource: ResourceId,
    namespace: Option<String>,
    params: Params,
) -> Result<Response, ApiError> {
    let rt = resources::resource(resource);
    request_fault(&shared, rt, "list", namespace.as_deref()).await?;
    if params.continue_token.is_none()
        && let Some(requested) = params.resource_version.filter(|&rv| rv != 0)
    {
        // No MVCC here: only the current state can be served.
        let current = shared.store.resource_version();
        if requested > current {
            return Err(ApiError::too_large(requested, current));
        }
        if params.resource_version_match == Some(VersionMatch::Exact) && requested != current {
            return Err(ApiError::too_old(requested, current));
        }
    }
    let filter = Filter {
        namespace,
        labels: params.label_selector,
        fields: params.field_selector,
    };
    let page = shared
        .store
        .list(
            resource,
            &filter,
            params.limit,
            params.continue_token.as_deref(),
        )
        .map_err(|e| match e {
            StoreError::ContinueExpired => ApiError::continue_expired(),
            StoreError::InvalidContinue(message) => ApiError::bad_request(message),
            StoreError::TooOld { requested, oldest } => ApiError::too_old(requested, oldest),
        })?;
    Ok(json_response(render_list(rt, &page)))
}

/// `GET .../{plural}/{name}`.
pub(crate) async fn get(
    shared: Arc<Shared>,
    resource: ResourceId,
    namespace: Option<String>,
    name: String,
) -> Result<Response, ApiError> {
    let rt = resources::resource(resource);
    request_fault(&shared, rt, "get", namespace.as_deref()).await?;
    let object = shared
        .store
        .get(resource, namespace.as_deref().unwrap_or(""), &name)
        .ok_or_else(|| ApiError::object_not_found(rt, &name))?;
    let mut body = String::with_capacity(object.json.len() + 64);
    object.write_typed(rt, &mut body);
    Ok(json_response(body))
}

/// A `{Kind}List` whose items carry no apiVersion/kind, like the API server's.
fn render_list(resource: &ResourceType, page: &ListPage) -> String {
    let items_len: usize = page.items.iter().map(|o| o.json.len() + 1).sum();
    let mut out = String::with_capacity(items_len + 256);
    out.push_str("{\"apiVersion\":\"");
    out.push_str(resource.api_version);
    out.push_str("\",\"kind\":\"");
    out.push_str(&resource.list_kind());
    out.push_str("\",\"metadata\":{\"resourceVersion\":\"");
    out.push_str(&page.resource_version.to_string());
    out.push('"');
    if let Some(token) = &page.continue_token {
        out.push_str(",\"continue\":");
        out.push_str(&serde_json::Value::String(token.clone()).to_string());
    }
    if let Some(remaining) = page.remaining_item_count {
        out.push_str(",\"remainingItemCount\":");
        out.push_str(&remaining.to_string());
    }
    out.push_str("},\"items\":[");
    for (i, item) in page.items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&item.json);
    }
    out.push_str("]}");
    out
}

pub(crate) fn json_response(body: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}
