//! List, then watch: the loop behind every watch of the exporter.
//!
//! It speaks the same protocol as kube-runtime's watcher and yields the same
//! errors and, but for a list's objects coming a page at a time ([`Event`]),
//! the same events (so its backoff, the telemetry and the model's handling stay
//! as they were): a paginated list (`limit`, `continue`) read with the most recent
//! semantics, then a watch from the list's resourceVersion with bookmarks, resumed
//! from the last version seen when the server ends it, and a new list after
//! 410 Gone.
//!
//! What it does differently is how a list is read: by `Pages`, which reads,
//! decodes and hands over a list's pages as a pipeline, decoding with
//! the [`codec`](crate::codec) instead of serde_json. Watch events are few and small
//! by comparison, and are read by kube-client.

use std::time::Duration;

use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use kube::api::{ListParams, WatchEvent, WatchParams};
use kube::runtime::watcher;
use kube::{Api, Client};

use super::pages::Pages;
use crate::model::Slim;
use crate::source::api::Watched;

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

/// What a list-watch yields: kube-runtime's watcher events, but a list's
/// objects a page at a time, so the model takes in a page at once.
#[derive(Debug)]
pub enum Event<K> {
    /// A list begins: the first, or again after 410 Gone or an error.
    Init,
    /// A page of the list, and how many objects the server said are left
    /// after it (`remainingItemCount`), when it did.
    InitPage {
        objects: Vec<K>,
        remaining: Option<usize>,
    },
    /// The list is whole.
    InitDone,
    /// An object was added or changed.
    Apply(K),
    /// An object was deleted.
    Delete(K),
}

enum Phase<T: Slim> {
    /// Nothing listed: the next step starts a list.
    Empty,
    /// Inside a list: the pages still to come, and the list's resourceVersion
    /// once its last page is in.
    Paging {
        pages: Pages<T>,
        last: Option<String>,
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
                    pages: Pages::start(
                        self.client.clone(),
                        self.api.resource_url().to_string(),
                        ListParams {
                            field_selector: self.params.field_selector.clone(),
                            limit: Some(self.params.page_size),
                            ..ListParams::default()
                        },
                    ),
                    last: None,
                };
                Some(Ok(Event::Init))
            }
            Phase::Paging { mut pages, last } => {
                if let Some(resource_version) = last {
                    self.phase = Phase::Listed { resource_version };
                    return Some(Ok(Event::InitDone));
                }
                match pages.next().await {
                    Ok(list) => {
                        let resource_version =
                            list.metadata.resource_version.filter(|v| !v.is_empty());
                        let more = list.metadata.continue_.is_some_and(|c| !c.is_empty());
                        if resource_version.is_none() && !more {
                            return Some(Err(watcher::Error::NoResourceVersion));
                        }
                        self.phase = Phase::Paging {
                            pages,
                            last: resource_version.filter(|_| !more),
                        };
                        Some(Ok(Event::InitPage {
                            objects: list.items,
                            remaining: list
                                .metadata
                                .remaining_item_count
                                .and_then(|n| usize::try_from(n).ok()),
                        }))
                    }
                    Err(err) => {
                        // A failed page starts the list again (after the backoff).
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
}

/// The resourceVersion a watch resumes from after this object, if it has one.
fn version_of<T: Slim>(object: &Watched<T>) -> Option<String> {
    let (_, _, version) = object.object.meta();
    (!version.is_empty()).then(|| version.to_string())
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
    use crate::source::watch::pages::decode_page;

    #[test]
    fn a_watch_resumes_from_the_version_of_the_last_object_seen() {
        let page = decode_page::<Pod>(
            r#"{"metadata":{"resourceVersion":"7"},"items":[
                {"metadata":{"name":"p","namespace":"ns","resourceVersion":"5"}}]}"#,
        )
        .unwrap();
        assert_eq!(version_of(&page.items[0]).as_deref(), Some("5"));
    }

    #[test]
    fn an_object_without_a_resource_version_gives_none_to_resume_from() {
        let page =
            decode_page::<Pod>(r#"{"metadata":{},"items":[{"metadata":{"name":"p"}}]}"#).unwrap();
        assert_eq!(version_of(&page.items[0]), None);
    }
}
