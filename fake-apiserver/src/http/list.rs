//! LIST and GET of one object.
//!
//! List bodies are sent as the stored serialised items themselves, shared
//! rather than copied: a page of hundreds of pods is a few megabytes the
//! server would otherwise copy once more for every page it serves (in the
//! benchmark, on the cores the exporter runs on).

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body::{Frame, SizeHint};

use super::query::{Params, VersionMatch};
use crate::faults::Fault;
use crate::object::StoredObject;
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
        Fault::HangWatch | Fault::NoHistory | Fault::None => Ok(()),
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
            StoreError::TooLarge { requested, current } => ApiError::too_large(requested, current),
        })?;
    let body = ListBody::new(list_parts(rt, &page));
    let length = body.remaining;
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (header::CONTENT_LENGTH, length.to_string()),
        ],
        Body::new(body),
    )
        .into_response())
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
    let mut body = String::with_capacity(object.json().len() + 64);
    object.write_typed(rt, &mut body);
    Ok(json_response(body))
}

/// A `{Kind}List` whose items carry no apiVersion/kind, like the API server's,
/// in parts: its head, each item's stored text, and its tail.
fn list_parts(resource: &ResourceType, page: &ListPage) -> Vec<Bytes> {
    let mut head = String::with_capacity(256);
    head.push_str("{\"apiVersion\":\"");
    head.push_str(resource.api_version);
    head.push_str("\",\"kind\":\"");
    head.push_str(&resource.list_kind());
    head.push_str("\",\"metadata\":{\"resourceVersion\":\"");
    head.push_str(&page.resource_version.to_string());
    head.push('"');
    if let Some(token) = &page.continue_token {
        head.push_str(",\"continue\":");
        head.push_str(&serde_json::Value::String(token.clone()).to_string());
    }
    if let Some(remaining) = page.remaining_item_count {
        head.push_str(",\"remainingItemCount\":");
        head.push_str(&remaining.to_string());
    }
    head.push_str("},\"items\":[");
    let mut parts = Vec::with_capacity(page.items.len() + 2);
    parts.push(Bytes::from(head));
    parts.extend(page.items.iter().enumerate().map(|(i, item)| {
        Bytes::from_owner(ItemText {
            object: Arc::clone(item),
            first: i == 0,
        })
    }));
    parts.push(Bytes::from_static(b"]}"));
    parts
}

/// A stored object's text as a list item: the first without the comma that
/// separates it from the one before.
struct ItemText {
    object: Arc<StoredObject>,
    first: bool,
}

impl AsRef<[u8]> for ItemText {
    fn as_ref(&self) -> &[u8] {
        let text = if self.first {
            self.object.json()
        } else {
            self.object.json_after_comma()
        };
        text.as_bytes()
    }
}

/// A body of parts known in advance, sent with its length.
struct ListBody {
    parts: std::vec::IntoIter<Bytes>,
    remaining: u64,
}

impl ListBody {
    fn new(parts: Vec<Bytes>) -> Self {
        let remaining = parts.iter().map(|p| p.len() as u64).sum();
        ListBody {
            parts: parts.into_iter(),
            remaining,
        }
    }
}

impl http_body::Body for ListBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let part = self.parts.next();
        if let Some(part) = &part {
            self.remaining -= part.len() as u64;
        }
        Poll::Ready(part.map(|p| Ok(Frame::data(p))))
    }

    fn is_end_stream(&self) -> bool {
        self.parts.len() == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

pub(crate) fn json_response(body: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::by_type;
    use http_body::Body as _;
    use http_body_util::BodyExt;
    use serde_json::{Value, json};

    fn pod(name: &str) -> Arc<StoredObject> {
        let body =
            json!({"metadata": {"name": name, "namespace": "ns"}, "spec": {"nodeName": "n1"}});
        Arc::new(StoredObject::from_body(
            "ns".into(),
            name.into(),
            7,
            body.as_object().unwrap(),
        ))
    }

    async fn sent(page: &ListPage) -> Value {
        let pods = resources::resource(by_type("v1", "Pod").unwrap());
        let body = ListBody::new(list_parts(pods, page));
        let length = body.size_hint().exact().expect("a length known in advance");
        let bytes = body.collect().await.unwrap().to_bytes();
        assert_eq!(bytes.len() as u64, length, "the length sent is the body's");
        serde_json::from_slice(&bytes).expect("the parts make one JSON document")
    }

    #[tokio::test]
    async fn a_page_is_sent_as_its_items_in_order_between_head_and_tail() {
        let page = ListPage {
            resource_version: 9,
            items: vec![pod("a"), pod("b"), pod("c")],
            continue_token: Some("next \"one\"".into()),
            remaining_item_count: Some(4),
        };
        let list = sent(&page).await;
        assert_eq!(list["kind"], "PodList");
        assert_eq!(list["apiVersion"], "v1");
        assert_eq!(list["metadata"]["resourceVersion"], "9");
        assert_eq!(list["metadata"]["continue"], "next \"one\"");
        assert_eq!(list["metadata"]["remainingItemCount"], 4);
        let items = list["items"].as_array().unwrap();
        let names: Vec<_> = items.iter().map(|i| &i["metadata"]["name"]).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(items.iter().all(|i| i.get("kind").is_none()));
        assert_eq!(items[1]["spec"]["nodeName"], "n1");
    }

    #[tokio::test]
    async fn a_page_of_one_item_or_none_is_still_a_list() {
        let mut page = ListPage {
            resource_version: 3,
            items: vec![pod("only")],
            continue_token: None,
            remaining_item_count: None,
        };
        let list = sent(&page).await;
        assert_eq!(list["items"][0]["metadata"]["name"], "only");
        assert!(list["metadata"].get("continue").is_none());
        page.items.clear();
        assert_eq!(sent(&page).await["items"], json!([]));
    }
}
