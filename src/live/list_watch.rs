//! List, then watch: the loop behind every watch of the exporter.
//!
//! It speaks the same protocol as kube-runtime's watcher and yields the same
//! events and errors (so its backoff, the telemetry and the model's handling stay
//! as they were): a paginated list (`limit`, `continue`) read with the most recent
//! semantics, then a watch from the list's resourceVersion with bookmarks, resumed
//! from the last version seen when the server ends it, and a new list after
//! 410 Gone.
//!
//! What it does differently is how a list page is read. kube-client collects a
//! page's body, copies it twice into fresh buffers (whose pages the kernel must
//! zero first), checks it as UTF-8 and decodes it. Here the body is read into
//! one buffer kept for the pages of a list, checked once and decoded in place
//! by [`skim`], which passes over what the slim types do not keep without
//! parsing it. At 150,000 pods the lists are about 1.2 GB, and those copies and
//! fresh pages were a tenth of the exporter's CPU for its first sync. Watch
//! events are few and small by comparison, and are read by kube-client.

use std::time::Duration;

use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use http_body_util::BodyExt;
use kube::api::{ListParams, WatchEvent, WatchParams};
use kube::core::Status;
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client};
use serde::Deserialize;

use super::resources::{Slim, Watched};
use super::skim;

/// What a list-watch asks of the server.
#[derive(Debug, Clone)]
pub struct Params {
    pub field_selector: Option<String>,
    /// The server-side timeout of one watch request, in seconds (290 when unset).
    pub timeout: Option<u32>,
    /// Objects per list page.
    pub page_size: u32,
}

/// The server's own default when a watch asks for no timeout, and how much
/// longer a silent watch is waited for before it is taken as dead.
const DEFAULT_WATCH_TIMEOUT: u32 = 290;
const IDLE_MARGIN: Duration = Duration::from_secs(5);

type WatchStream<K> = BoxStream<'static, kube::Result<WatchEvent<K>>>;

enum Phase<T: Slim> {
    /// Nothing listed: the next step starts a list.
    Empty,
    /// Inside a list: the page's objects not yet yielded, and where the list goes on.
    Paging {
        items: std::vec::IntoIter<Watched<T>>,
        continue_token: Option<String>,
        resource_version: Option<String>,
    },
    /// Listed (or a watch ended): the next step starts a watch from here.
    Listed { resource_version: String },
    Watching {
        resource_version: String,
        stream: WatchStream<Watched<T>>,
    },
}

struct ListWatch<T: Slim> {
    api: Api<Watched<T>>,
    client: Client,
    params: Params,
    phase: Phase<T>,
    /// A list page's body, kept for the next page of the same list.
    body: Vec<u8>,
}

/// The events of one resource, listed and then watched, for ever.
pub fn list_watch<T: Slim>(
    api: Api<Watched<T>>,
    client: Client,
    params: Params,
) -> impl Stream<Item = watcher::Result<Event<Watched<T>>>> + Send
where
    Watched<T>: kube::Resource<DynamicType = ()>,
{
    let state = ListWatch {
        api,
        client,
        params,
        phase: Phase::Empty,
        body: Vec::new(),
    };
    futures::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(item) = state.step().await {
                return Some((item, state));
            }
        }
    })
}

impl<T: Slim> ListWatch<T>
where
    Watched<T>: kube::Resource<DynamicType = ()>,
{
    /// One step of the protocol: an event or error to yield, or `None` when the
    /// step only moved the state on.
    async fn step(&mut self) -> Option<watcher::Result<Event<Watched<T>>>> {
        match std::mem::replace(&mut self.phase, Phase::Empty) {
            Phase::Empty => {
                self.phase = Phase::Paging {
                    items: Vec::new().into_iter(),
                    continue_token: None,
                    resource_version: None,
                };
                Some(Ok(Event::Init))
            }
            Phase::Paging {
                mut items,
                continue_token,
                resource_version,
            } => {
                if let Some(object) = items.next() {
                    self.phase = Phase::Paging {
                        items,
                        continue_token,
                        resource_version,
                    };
                    return Some(Ok(Event::InitApply(object)));
                }
                if continue_token.is_none()
                    && let Some(resource_version) = resource_version
                {
                    // The list is done; its buffer is not kept between lists.
                    self.body = Vec::new();
                    self.phase = Phase::Listed { resource_version };
                    return Some(Ok(Event::InitDone));
                }
                match self.list_page(continue_token).await {
                    Ok(list) => {
                        let resource_version =
                            list.metadata.resource_version.filter(|v| !v.is_empty());
                        let continue_token = list.metadata.continue_.filter(|c| !c.is_empty());
                        if resource_version.is_none() && continue_token.is_none() {
                            self.body = Vec::new();
                            return Some(Err(watcher::Error::NoResourceVersion));
                        }
                        self.phase = Phase::Paging {
                            items: list.items.into_iter(),
                            continue_token,
                            resource_version,
                        };
                        None
                    }
                    Err(err) => {
                        // A failed page starts the list again (after the backoff).
                        self.body = Vec::new();
                        log_failure("list", &err);
                        Some(Err(watcher::Error::InitialListFailed(err)))
                    }
                }
            }
            Phase::Listed { resource_version } => {
                let params = WatchParams {
                    field_selector: self.params.field_selector.clone(),
                    timeout: self.params.timeout,
                    bookmarks: true,
                    ..WatchParams::default()
                };
                match self.api.watch(&params, &resource_version).await {
                    Ok(stream) => {
                        self.phase = Phase::Watching {
                            resource_version,
                            stream: stream.boxed(),
                        };
                        None
                    }
                    Err(err) => {
                        log_failure("watch", &err);
                        self.phase = Phase::Listed { resource_version };
                        Some(Err(watcher::Error::WatchStartFailed(err)))
                    }
                }
            }
            Phase::Watching {
                resource_version,
                stream,
            } => self.watched(resource_version, stream).await,
        }
    }

    /// The next watch event; the phase after it is set here (left `Empty`, a
    /// new list, when the watch cannot be resumed).
    async fn watched(
        &mut self,
        resource_version: String,
        mut stream: WatchStream<Watched<T>>,
    ) -> Option<watcher::Result<Event<Watched<T>>>> {
        let idle = Duration::from_secs(u64::from(
            self.params.timeout.unwrap_or(DEFAULT_WATCH_TIMEOUT),
        )) + IDLE_MARGIN;
        let next = match tokio::time::timeout(idle, stream.next()).await {
            Ok(next) => next,
            Err(_) => {
                tracing::debug!(
                    seconds = idle.as_secs(),
                    "watch silent past its timeout; watching again"
                );
                None
            }
        };
        let (event, resource_version) = match next {
            Some(Ok(WatchEvent::Added(object) | WatchEvent::Modified(object))) => {
                let Some(version) = version_of(&object) else {
                    return Some(Err(watcher::Error::NoResourceVersion));
                };
                (Some(Ok(Event::Apply(object))), version)
            }
            Some(Ok(WatchEvent::Deleted(object))) => {
                let Some(version) = version_of(&object) else {
                    return Some(Err(watcher::Error::NoResourceVersion));
                };
                (Some(Ok(Event::Delete(object))), version)
            }
            Some(Ok(WatchEvent::Bookmark(bookmark))) => (None, bookmark.metadata.resource_version),
            Some(Ok(WatchEvent::Error(status))) => {
                tracing::debug!(?status, "the watch ended in an error");
                let gone = status.code == 410;
                let error = Some(Err(watcher::Error::WatchError(status)));
                if gone {
                    // The version to resume from is compacted away: list again.
                    return error;
                }
                (error, resource_version)
            }
            Some(Err(err)) => {
                log_failure("watch", &err);
                (
                    Some(Err(watcher::Error::WatchFailed(err))),
                    resource_version,
                )
            }
            None => {
                // The server ended the watch (its timeout): resume from here.
                self.phase = Phase::Listed { resource_version };
                return None;
            }
        };
        self.phase = Phase::Watching {
            resource_version,
            stream,
        };
        event
    }

    /// One page of the list, read into the list's buffer and decoded from it.
    async fn list_page(&mut self, continue_token: Option<String>) -> kube::Result<Page<T>> {
        let params = ListParams {
            field_selector: self.params.field_selector.clone(),
            limit: Some(self.params.page_size),
            continue_token,
            ..ListParams::default()
        };
        let request = kube::core::Request::new(self.api.resource_url())
            .list(&params)
            .map_err(kube::Error::BuildRequest)?;
        let response = self
            .client
            .send(request.map(kube::client::Body::from))
            .await?;
        let status = response.status();
        let length = response
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
        let body = &mut self.body;
        body.clear();
        if let Some(length) = length {
            body.reserve(length);
        }
        let mut incoming = response.into_body();
        while let Some(frame) = incoming.frame().await {
            if let Ok(data) = frame?.into_data() {
                body.extend_from_slice(&data);
            }
        }
        if status.is_client_error() || status.is_server_error() {
            return Err(api_error(status, body));
        }
        // One check of the whole page as UTF-8 is cheaper than serde_json
        // checking every key and kept string of a page decoded from bytes.
        let text = std::str::from_utf8(body).map_err(|e| {
            kube::Error::SerdeError(serde::de::Error::custom(format!(
                "a list page that is not UTF-8: {e}"
            )))
        })?;
        decode_page(text)
            .map_err(|e| kube::Error::SerdeError(serde::de::Error::custom(e.to_string())))
    }
}

/// One page of a list: its objects and where the list goes on.
#[derive(Debug, Deserialize)]
#[serde(bound(deserialize = "T: Slim"))]
pub struct Page<T: Slim> {
    #[serde(default)]
    pub metadata: PageMeta,
    #[serde(default, deserialize_with = "crate::model::nullable")]
    pub items: Vec<Watched<T>>,
}

/// A list's `metadata` (ListMeta), of the fields the list-watch reads.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageMeta {
    #[serde(default)]
    pub resource_version: Option<String>,
    #[serde(rename = "continue", default)]
    pub continue_: Option<String>,
}

/// Decodes one list page (a `List` of `T`) the way the list-watch does, with
/// [`skim`]. Public for the benchmark, which times it on its own.
pub fn decode_page<T: Slim>(text: &str) -> Result<Page<T>, skim::Error> {
    skim::from_str(text)
}

/// The resourceVersion a watch resumes from after this object, if it has one.
fn version_of<T: Slim>(object: &Watched<T>) -> Option<String> {
    let (_, _, version) = object.object.meta();
    (!version.is_empty()).then(|| version.to_string())
}

/// An error response as kube-client reports it: the server's `Status` when the
/// body is one, otherwise a `Status` built from the HTTP code and the body text.
fn api_error(code: http::StatusCode, body: &[u8]) -> kube::Error {
    let status = serde_json::from_slice::<Status>(body).unwrap_or_else(|_| {
        let text = String::from_utf8_lossy(body);
        Status::failure(text.trim(), "Failed to parse error data").with_code(code.as_u16())
    });
    kube::Error::Api(Box::new(status))
}

/// The failure in detail, for debugging; the watch task reports it to the
/// operator (`watch::report`), counted and with its bounded reason.
fn log_failure(verb: &str, err: &kube::Error) {
    tracing::debug!(verb, error = %err, "request failed");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Pod;

    #[test]
    fn a_page_decodes_into_slim_objects_with_where_the_list_goes_on() {
        let page = decode_page::<Pod>(
            r#"{"kind":"PodList","apiVersion":"v1",
                "metadata":{"resourceVersion":"7","continue":"abc","remainingItemCount":1},
                "items":[{"metadata":{"name":"p","namespace":"ns","resourceVersion":"5",
                  "managedFields":[{"manager":"kubectl"}]},"spec":{"nodeName":"n1"}}]}"#,
        )
        .unwrap();
        assert_eq!(page.metadata.resource_version.as_deref(), Some("7"));
        assert_eq!(page.metadata.continue_.as_deref(), Some("abc"));
        assert_eq!(page.items.len(), 1);
        assert_eq!(version_of(&page.items[0]).as_deref(), Some("5"));
        assert_eq!(page.items[0].object.spec.node_name, "n1");
    }

    #[test]
    fn an_object_without_a_resource_version_gives_none_to_resume_from() {
        let page =
            decode_page::<Pod>(r#"{"metadata":{},"items":[{"metadata":{"name":"p"}}]}"#).unwrap();
        assert_eq!(version_of(&page.items[0]), None);
    }

    #[test]
    fn error_responses_become_api_errors_with_the_server_status_or_the_http_code() {
        let json = br#"{"kind":"Status","apiVersion":"v1","status":"Failure",
            "message":"pods is forbidden: User \"x\" cannot list resource \"pods\"",
            "reason":"Forbidden","code":403}"#;
        match api_error(http::StatusCode::FORBIDDEN, json) {
            kube::Error::Api(status) => {
                assert_eq!(status.code, 403);
                assert!(status.is_forbidden());
                assert!(status.message.contains("cannot list"));
            }
            other => panic!("{other:?}"),
        }
        match api_error(
            http::StatusCode::BAD_GATEWAY,
            b"<html>502 Bad Gateway</html>\n",
        ) {
            kube::Error::Api(status) => {
                assert_eq!(status.code, 502);
                assert_eq!(status.message, "<html>502 Bad Gateway</html>");
            }
            other => panic!("{other:?}"),
        }
    }
}
