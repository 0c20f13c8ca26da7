//! WATCH: a chunked response of one JSON event per line.
//!
//! A spawned task turns the store subscription into lines and pushes them into
//! a small channel that the response body drains, so each event is written
//! when it happens and a slow client pushes back on the task instead of
//! buffering. The body itself watches the cut token: a cut must break the
//! connection at once, ahead of anything still queued, the way a dying API
//! server or a dropped load-balancer connection does.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use futures::Stream;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::query::Params;
use crate::faults::Fault;
use crate::object::StoredObject;
use crate::resources::{self, ResourceId, ResourceType};
use crate::selectors::{FieldSelector, Filter};
use crate::shared::Shared;
use crate::status::ApiError;
use crate::store::{Change, ChangeType, StoreError, Subscription, WatchMessage, WatchStart};

/// Initial events are written in chunks of about this size rather than one
/// chunk per object: tens of thousands of ADDED events stay cheap.
const BATCH_BYTES: usize = 64 * 1024;

/// How long a watch from a resourceVersion the server has not reached waits
/// for it (upstream's watch cache waits 3 s).
const TOO_LARGE_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Chunks buffered between the event task and the connection.
const BODY_BUFFER: usize = 16;

/// `GET .../{plural}?watch=true`, or a watch of one object when `name` is set.
pub(crate) async fn watch(
    shared: Arc<Shared>,
    resource: ResourceId,
    namespace: Option<String>,
    name: Option<String>,
    params: Params,
) -> Result<Response, ApiError> {
    let rt = resources::resource(resource);
    let fault = shared.faults.get(rt.plural);
    let hang = match fault {
        Fault::Forbidden => return Err(ApiError::forbidden(rt, "watch", namespace.as_deref())),
        Fault::ServerError => return Err(ApiError::internal_error()),
        Fault::HangWatch => true,
        Fault::Slow(_) | Fault::NoHistory | Fault::None => false,
    };
    let (start, initial_events_end) = start_point(&params);
    let start = match start {
        _ if hang => WatchStart::Now,
        WatchStart::Since(requested)
            if fault == Fault::NoHistory && requested > shared.store.resource_version() =>
        {
            WatchStart::Now
        }
        start => start,
    };
    if let WatchStart::Since(requested) = start {
        wait_for_version(&shared, requested).await;
    }
    let subscription = match shared
        .store
        .open_watch(resource, namespace.as_deref(), start, !hang)
    {
        Ok(subscription) => subscription,
        // The API server answers 200 and reports the expiry as the only
        // event of an otherwise ordinary (chunked) watch stream.
        Err(StoreError::TooOld { requested, oldest }) => {
            return Ok(error_event(ApiError::too_old(requested, oldest)));
        }
        // As the cacher does (`newErrWatcher`): 200, and the 504 Status
        // with cause ResourceVersionTooLarge as the only event.
        Err(StoreError::TooLarge { requested, current }) => {
            return Ok(error_event(ApiError::too_large(requested, current)));
        }
        Err(StoreError::ContinueExpired | StoreError::InvalidContinue(_)) => {
            return Err(ApiError::bad_request(
                "watch does not take a continue token",
            ));
        }
    };

    let (chunks_tx, chunks_rx) = mpsc::channel(BODY_BUFFER);
    let body = WatchBody::new(chunks_rx, &subscription.cut);
    if hang {
        tokio::spawn(hang_until_cut(subscription, chunks_tx));
    } else {
        // A watch of one object is a watch of its name.
        let fields = match name {
            Some(name) => params.field_selector.and(FieldSelector::name(&name)),
            None => params.field_selector,
        };
        let streamer = Streamer {
            shared,
            resource: rt,
            filter: Filter {
                namespace,
                labels: params.label_selector,
                fields,
            },
            out: chunks_tx,
            cut: subscription.cut.clone(),
            deadline: params.timeout.map(|t| Instant::now() + t),
            bookmarks: params.allow_bookmarks,
            initial_events_end,
        };
        tokio::spawn(streamer.run(subscription));
    }
    Ok(stream_response(Body::from_stream(body)))
}

/// Waits, as upstream's watch cache does, up to [`TOO_LARGE_WAIT`] for the
/// store to reach `requested` before the watch gives up with "Too large
/// resource version".
async fn wait_for_version(shared: &Shared, requested: u64) {
    let deadline = Instant::now() + TOO_LARGE_WAIT;
    while shared.store.resource_version() < requested && Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// A watch stream whose only event is the `ERROR` carrying `error`'s Status.
fn error_event(error: ApiError) -> Response {
    let status = error.to_status();
    let line = Bytes::from(format!("{{\"type\":\"ERROR\",\"object\":{status}}}\n"));
    let once = futures::stream::iter([Ok::<_, io::Error>(line)]);
    stream_response(Body::from_stream(once))
}

/// Where the watch starts, and whether the initial events end with the
/// `k8s.io/initial-events-end` bookmark.
fn start_point(params: &Params) -> (WatchStart, bool) {
    match (params.send_initial_events, params.resource_version) {
        (Some(true), _) => (WatchStart::CurrentState, true),
        (Some(false), None | Some(0)) => (WatchStart::Now, false),
        (_, None | Some(0)) => (WatchStart::CurrentState, false),
        (_, Some(rv)) => (WatchStart::Since(rv), false),
    }
}

fn stream_response(body: Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache, private"),
    );
    response
}

/// A hanging watch: registered (so it is counted and can be cut) but silent.
/// Keeping the sender alive keeps the body open.
async fn hang_until_cut(subscription: Subscription, chunks: mpsc::Sender<Bytes>) {
    tokio::select! {
        () = subscription.cut.cancelled() => {}
        () = chunks.closed() => {}
    }
}

/// Why the event task stopped early.
enum Stop {
    /// Cut by the scenario: the body reports the error.
    Cut,
    /// The client went away.
    Gone,
    /// `timeoutSeconds` elapsed: the body ends cleanly.
    Deadline,
}

struct Streamer {
    shared: Arc<Shared>,
    resource: &'static ResourceType,
    filter: Filter,
    out: mpsc::Sender<Bytes>,
    cut: CancellationToken,
    deadline: Option<Instant>,
    bookmarks: bool,
    initial_events_end: bool,
}

impl Streamer {
    async fn run(self, mut subscription: Subscription) {
        // However it stops, dropping `out` ends the body; a cut makes the body
        // fail instead of ending.
        let _ = self.stream(&mut subscription).await;
    }

    async fn stream(&self, subscription: &mut Subscription) -> Result<(), Stop> {
        let mut batch = String::new();
        for object in std::mem::take(&mut subscription.initial) {
            if self.filter.matches(&object) {
                write_event(&mut batch, "ADDED", self.resource, &object);
                self.flush_if_due(&mut batch).await?;
            }
        }
        for change in std::mem::take(&mut subscription.replay) {
            if let Some((kind, object)) = self.translate(&change) {
                write_event(&mut batch, kind, self.resource, object);
                self.flush_if_due(&mut batch).await?;
            }
        }
        if !batch.is_empty() {
            self.emit(std::mem::take(&mut batch)).await?;
        }
        let mut processed = subscription.start_resource_version;
        if self.initial_events_end {
            self.emit(bookmark(self.resource, processed, true)).await?;
        }

        let Some(mut events) = subscription.events.take() else {
            return Ok(());
        };
        let mut next_bookmark = Instant::now() + self.shared.bookmark_interval();
        loop {
            tokio::select! {
                biased;
                () = self.cut.cancelled() => return Err(Stop::Cut),
                () = self.out.closed() => return Err(Stop::Gone),
                () = until(self.deadline) => return Err(Stop::Deadline),
                message = events.recv() => match message {
                    // Dropped by the store for falling behind: end cleanly so
                    // the client resumes from the history.
                    None => return Ok(()),
                    Some(WatchMessage::Change(change)) => {
                        processed = change.resource_version();
                        if let Some((kind, object)) = self.translate(&change) {
                            let mut line = String::new();
                            write_event(&mut line, kind, self.resource, object);
                            self.emit(line).await?;
                        }
                    }
                    Some(WatchMessage::Raw(text)) => self.emit(format!("{text}\n")).await?,
                },
                () = tokio::time::sleep_until(next_bookmark), if self.bookmarks => {
                    let rv = self.shared.store.bookmark_resource_version(subscription.id, || events.is_empty(), processed);
                    self.emit(bookmark(self.resource, rv, false)).await?;
                    next_bookmark = Instant::now() + self.shared.bookmark_interval();
                }
            }
        }
    }

    /// The event a change means to this watch, given its filter: an object
    /// entering the selection is ADDED, one leaving it is DELETED.
    fn translate<'c>(&self, change: &'c Change) -> Option<(&'static str, &'c StoredObject)> {
        let now = self.filter.matches(&change.object);
        let kind = match change.change {
            ChangeType::Added => now.then_some("ADDED")?,
            ChangeType::Deleted => now.then_some("DELETED")?,
            ChangeType::Modified => {
                let before = change
                    .previous
                    .as_deref()
                    .is_some_and(|p| self.filter.matches(p));
                match (before, now) {
                    (true, true) => "MODIFIED",
                    (false, true) => "ADDED",
                    (true, false) => "DELETED",
                    (false, false) => return None,
                }
            }
        };
        Some((kind, &change.object))
    }

    /// Sends the batch once it is large enough, or after every line while the
    /// resource is slow (the delay applies per line).
    async fn flush_if_due(&self, batch: &mut String) -> Result<(), Stop> {
        if batch.len() >= BATCH_BYTES || self.shared.faults.delay(self.resource.plural).is_some() {
            self.emit(std::mem::take(batch)).await?;
        }
        Ok(())
    }

    /// Writes one chunk, after the slow fault's delay if one is set, giving up
    /// as soon as the watch is cut, times out or loses its client.
    async fn emit(&self, chunk: String) -> Result<(), Stop> {
        if let Some(delay) = self.shared.faults.delay(self.resource.plural) {
            tokio::select! {
                biased;
                () = self.cut.cancelled() => return Err(Stop::Cut),
                () = until(self.deadline) => return Err(Stop::Deadline),
                () = tokio::time::sleep(delay) => {}
            }
        }
        tokio::select! {
            biased;
            () = self.cut.cancelled() => Err(Stop::Cut),
            () = until(self.deadline) => Err(Stop::Deadline),
            sent = self.out.send(Bytes::from(chunk)) => sent.map_err(|_| Stop::Gone),
        }
    }
}

/// Resolves at `deadline`, or never.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Appends `{"type":..,"object":{..}}\n`; watch objects carry apiVersion/kind.
fn write_event(out: &mut String, kind: &str, resource: &ResourceType, object: &StoredObject) {
    out.push_str("{\"type\":\"");
    out.push_str(kind);
    out.push_str("\",\"object\":");
    object.write_typed(resource, out);
    out.push_str("}\n");
}

fn bookmark(resource: &ResourceType, resource_version: u64, initial_events_end: bool) -> String {
    let annotations = if initial_events_end {
        ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}"
    } else {
        ""
    };
    format!(
        "{{\"type\":\"BOOKMARK\",\"object\":{{\"kind\":\"{}\",\"apiVersion\":\"{}\",\"metadata\":{{\"resourceVersion\":\"{resource_version}\"{annotations}}}}}}}\n",
        resource.kind, resource.api_version
    )
}

/// The response body of a watch: chunks from the event task, or an error as
/// soon as the watch is cut, so the client sees a broken chunked body rather
/// than a clean end.
struct WatchBody {
    chunks: mpsc::Receiver<Bytes>,
    cut: Pin<Box<WaitForCancellationFutureOwned>>,
    cut_token: CancellationToken,
    finished: bool,
}

impl WatchBody {
    /// The body that sends `chunks` until the watch is cut by `cut`.
    fn new(chunks: mpsc::Receiver<Bytes>, cut: &CancellationToken) -> WatchBody {
        WatchBody {
            chunks,
            cut: Box::pin(cut.clone().cancelled_owned()),
            cut_token: cut.clone(),
            finished: false,
        }
    }

    fn broken() -> io::Error {
        io::Error::new(
            io::ErrorKind::ConnectionAborted,
            "watch cut by the fake API server",
        )
    }
}

impl Stream for WatchBody {
    type Item = Result<Bytes, io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.finished {
            return Poll::Ready(None);
        }
        if self.cut.as_mut().poll(cx).is_ready() {
            self.finished = true;
            return Poll::Ready(Some(Err(Self::broken())));
        }
        match self.chunks.poll_recv(cx) {
            Poll::Ready(Some(chunk)) => Poll::Ready(Some(Ok(chunk))),
            Poll::Ready(None) => {
                self.finished = true;
                if self.cut_token.is_cancelled() {
                    Poll::Ready(Some(Err(Self::broken())))
                } else {
                    Poll::Ready(None)
                }
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bookmarks_are_valid_json() {
        let pods = resources::resource(resources::by_type("v1", "Pod").unwrap());
        let plain: serde_json::Value = serde_json::from_str(&bookmark(pods, 7, false)).unwrap();
        assert_eq!(plain["object"]["metadata"]["resourceVersion"], "7");
        assert_eq!(plain["object"]["kind"], "Pod");
        let end: serde_json::Value = serde_json::from_str(&bookmark(pods, 7, true)).unwrap();
        assert_eq!(
            end["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
            "true"
        );
    }
}
