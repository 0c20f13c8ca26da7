//! List, then watch: the loop behind every watch of the exporter.
//!
//! It speaks the same protocol as kube-runtime's watcher and yields the same
//! errors and, but for a list's objects coming a page at a time ([`Event`]),
//! the same events (so its backoff, the telemetry and the model's handling stay
//! as they were): a paginated list (`limit`, `continue`) read with the most recent
//! semantics, then a watch from the list's resourceVersion with bookmarks, resumed
//! from the last version seen when the server ends it.
//!
//! It lists again, rather than resuming, whenever the server's history cannot be
//! trusted to bring the model up to date: after 410 Gone (the version is
//! compacted away), after "Too large resource version" (504, cause
//! `ResourceVersionTooLarge`: the server has not reached our version, so it has
//! started over, as after an etcd restore or on a server that keeps no history),
//! and after the server was unreachable (connection refused or reset, DNS,
//! TLS): a server that comes back may come back with another store, and a
//! history that starts over may pass our version before we ask. That is one
//! list per outage per resource; a watch the server ends normally (its
//! timeout) is resumed. `relist_every`, when set, lists again on a schedule as
//! well, for servers that lose events without saying so.
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
    /// List again this long after the last list, even if nothing went wrong.
    pub relist_every: Option<Duration>,
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
    /// A list begins: the first, or again when the watch cannot be resumed
    /// (410 Gone, too large a resourceVersion, the server unreachable) or
    /// after a failed list.
    Init,
    /// The server answered a request that brought no object: a watch opened,
    /// or a bookmark came. (Pages and watch events say so themselves.)
    Contact,
    /// The list that follows is the scheduled one (`relist_every`), not a
    /// watch that could not be resumed.
    Scheduled,
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
    /// When the next scheduled relist is due (`relist_every`).
    relist_at: Option<tokio::time::Instant>,
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
        relist_at: None,
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
            Phase::Empty => Some(Ok(self.start_list())),
            Phase::Paging { pages, last } => Some(self.next_page(pages, last).await),
            Phase::Listed { resource_version } => Some(self.open_watch(resource_version).await),
            Phase::Watching {
                resource_version,
                stream,
            } => self.watched(resource_version, stream).await,
        }
    }

    /// A list begins, from its first page.
    fn start_list(&mut self) -> Event<Watched<T>> {
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
        Event::Init
    }

    /// The list's next page, or its end once the last page (the one that
    /// gave `last`, the version to watch from) is through.
    async fn next_page(
        &mut self,
        mut pages: Pages<T>,
        last: Option<String>,
    ) -> watcher::Result<Event<Watched<T>>> {
        if let Some(resource_version) = last {
            self.phase = Phase::Listed { resource_version };
            self.relist_at = self
                .params
                .relist_every
                .map(|every| tokio::time::Instant::now() + every);
            return Ok(Event::InitDone);
        }
        match pages.next().await {
            Ok(list) => {
                let resource_version = list.metadata.resource_version.filter(|v| !v.is_empty());
                let more = list.metadata.continue_.is_some_and(|c| !c.is_empty());
                if resource_version.is_none() && !more {
                    return Err(watcher::Error::NoResourceVersion);
                }
                self.phase = Phase::Paging {
                    pages,
                    last: resource_version.filter(|_| !more),
                };
                Ok(Event::InitPage {
                    objects: list.items,
                    remaining: list
                        .metadata
                        .remaining_item_count
                        .and_then(|n| usize::try_from(n).ok()),
                })
            }
            Err(err) => {
                // A failed page starts the list again (after the backoff).
                log_failure("list", &err);
                Err(watcher::Error::InitialListFailed(err))
            }
        }
    }

    /// A watch opened from `resource_version`.
    async fn open_watch(&mut self, resource_version: String) -> watcher::Result<Event<Watched<T>>> {
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
                Ok(Event::Contact)
            }
            Err(err) => {
                log_failure("watch", &err);
                // Unreachable, or ahead of the server: the history to
                // resume from is not to be trusted; list again (the
                // phase is left `Empty`).
                if !(unreachable(&err) || too_large_error(&err)) {
                    self.phase = Phase::Listed { resource_version };
                }
                Err(watcher::Error::WatchStartFailed(err))
            }
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
        let Some(next) = next_watch_event(&mut stream, idle, self.relist_at).await else {
            // The phase is left `Empty`: list again.
            return Some(Ok(Event::Scheduled));
        };
        let previous = resource_version.clone();
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
            Some(Ok(WatchEvent::Bookmark(bookmark))) => {
                (Some(Ok(Event::Contact)), bookmark.metadata.resource_version)
            }
            Some(Ok(WatchEvent::Error(status))) => {
                tracing::debug!(?status, "the watch ended in an error");
                // Compacted away (410), or ahead of a server that started
                // over (504, too large): list again.
                let relist = status.code == 410 || too_large(&status);
                let error = Some(Err(watcher::Error::WatchError(status)));
                if relist {
                    return error;
                }
                (error, resource_version)
            }
            Some(Err(err)) => {
                log_failure("watch", &err);
                let reset = unreachable(&err);
                let error = Some(Err(watcher::Error::WatchFailed(err)));
                if reset {
                    // The connection broke mid-watch: the server may be coming
                    // back with another store. List again.
                    return error;
                }
                (error, resource_version)
            }
            None => {
                // The server ended the watch (its timeout): resume from here.
                self.phase = Phase::Listed { resource_version };
                return None;
            }
        };
        if let Some(status) = started_over(&previous, &resource_version) {
            // The phase is left `Empty`: list again.
            return Some(Err(watcher::Error::WatchError(Box::new(status))));
        }
        self.phase = Phase::Watching {
            resource_version,
            stream,
        };
        event
    }
}

/// The stream's next event, `None` in it when the server ended the watch or
/// it stayed silent for `idle` (a dead connection); `None` when the scheduled
/// relist comes first.
async fn next_watch_event<K>(
    stream: &mut WatchStream<K>,
    idle: Duration,
    relist_at: Option<tokio::time::Instant>,
) -> Option<Option<kube::Result<WatchEvent<K>>>> {
    tokio::select! {
        next = tokio::time::timeout(idle, stream.next()) => match next {
            Ok(next) => Some(next),
            Err(_) => {
                tracing::debug!(
                    seconds = idle.as_secs(),
                    "watch silent past its timeout; watching again"
                );
                Some(None)
            }
        },
        () = until(relist_at) => {
            tracing::debug!("scheduled relist");
            None
        }
    }
}

/// A watch event older than the version the watch resumed from: the server's
/// history started over (a store restored or rebuilt, on a server that
/// answers neither 410 nor "too large"). Versions are opaque to clients, but
/// every server seen numbers them by a counter that only grows, so a step
/// back is only trusted when both read as numbers. Answered as 410 Gone,
/// which lists again.
fn started_over(previous: &str, now: &str) -> Option<kube::core::Status> {
    let (Ok(previous), Ok(now)) = (previous.parse::<u64>(), now.parse::<u64>()) else {
        return None;
    };
    (now < previous).then(|| {
        let mut status = kube::core::Status::failure(
            &format!(
                "resourceVersion went back from {previous} to {now}: the API server's history started over"
            ),
            "Expired",
        );
        status.code = 410;
        status
    })
}

/// Resolves at `deadline`, or never.
async fn until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Whether the request never reached the server or the connection broke:
/// refused, reset, DNS, TLS, a connect timeout. Not an answer of the server.
pub(crate) fn unreachable(err: &kube::Error) -> bool {
    matches!(
        err,
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_)
    )
}

/// The upstream answer to a watch or list from a resourceVersion the server
/// has not reached (`storage.NewTooLargeResourceVersionError`): 504, reason
/// Timeout, cause `ResourceVersionTooLarge`, message "Too large resource
/// version: 123, current: 45".
pub(crate) fn too_large(status: &kube::core::Status) -> bool {
    status.code == 504
        && (status.details.as_ref().is_some_and(|d| {
            d.causes
                .iter()
                .any(|c| c.reason == "ResourceVersionTooLarge")
        }) || status.message.starts_with("Too large resource version"))
}

fn too_large_error(err: &kube::Error) -> bool {
    matches!(err, kube::Error::Api(status) if too_large(status))
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
