//! The watch side of the store: the open watches, what each is sent first
//! (the current objects, or the history since its resourceVersion), and
//! their queues of live changes.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::object::StoredObject;
use crate::resources::{self, ResourceId};

use super::{Change, State, Store, StoreError};

/// How many changes may queue for one watch before it is closed. A closed
/// watch resumes from the history, like a watcher the API server dropped for
/// being too slow.
pub(super) const WATCH_QUEUE: usize = 100_000;

/// What an open watch receives besides cancellation.
#[derive(Debug)]
pub(crate) enum WatchMessage {
    Change(Arc<Change>),
    /// Text to write verbatim as one line (fault injection).
    Raw(Arc<str>),
}

/// Where a watch starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WatchStart {
    /// Synthetic ADDED events for every current object, then live changes.
    CurrentState,
    /// Every retained change after this resourceVersion, then live changes.
    Since(u64),
    /// Live changes only.
    Now,
}

/// An open watch's share of the store. Dropping it unregisters the watch.
pub(crate) struct Subscription {
    pub id: u64,
    /// The resourceVersion up to which `initial` and `replay` bring the watch.
    pub start_resource_version: u64,
    pub initial: Vec<Arc<StoredObject>>,
    pub replay: Vec<Arc<Change>>,
    /// Live changes; `None` for a watch that must never send anything.
    pub events: Option<mpsc::Receiver<WatchMessage>>,
    /// Cancelled when the watch is cut: the stream must then break.
    pub cut: CancellationToken,
    _registration: Registration,
}

struct Registration {
    store: Arc<Store>,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.store.state.lock().watchers.remove(&self.id);
    }
}

pub(super) struct WatcherSlot {
    pub(super) resource: ResourceId,
    pub(super) events: Option<mpsc::Sender<WatchMessage>>,
    pub(super) cut: CancellationToken,
}

impl Store {
    /// Registers a watch of `resource` (in `namespace`, if any) and returns
    /// what it must send first. `receive` is false for a watch that must stay
    /// silent (a hanging fault) but still be counted and cut.
    pub fn open_watch(
        self: &Arc<Self>,
        resource: ResourceId,
        namespace: Option<&str>,
        start: WatchStart,
        receive: bool,
    ) -> Result<Subscription, StoreError> {
        let mut state = self.state.lock();
        let mut initial = Vec::new();
        let mut replay = Vec::new();
        match start {
            WatchStart::CurrentState => initial = state.scope(resource, namespace),
            WatchStart::Since(requested) => {
                if requested > state.resource_version {
                    return Err(StoreError::TooLarge {
                        requested,
                        current: state.resource_version,
                    });
                }
                if requested < state.floor {
                    return Err(StoreError::TooOld {
                        requested,
                        oldest: state.floor,
                    });
                }
                let first = state
                    .history
                    .partition_point(|c| c.resource_version() <= requested);
                replay = state
                    .history
                    .range(first..)
                    .filter(|c| c.resource == resource)
                    .cloned()
                    .collect();
            }
            WatchStart::Now => {}
        }
        let id = state.next_watcher;
        state.next_watcher += 1;
        let cut = CancellationToken::new();
        let (sender, events) = if receive {
            let (tx, rx) = mpsc::channel(state.watch_queue);
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        state.watchers.insert(
            id,
            WatcherSlot {
                resource,
                events: sender,
                cut: cut.clone(),
            },
        );
        Ok(Subscription {
            id,
            start_resource_version: state.resource_version,
            initial,
            replay,
            events,
            cut,
            _registration: Registration {
                store: self.clone(),
                id,
            },
        })
    }

    /// The resourceVersion a bookmark may announce to watch `id`: the current
    /// one if every change so far has reached the watch (`drained` reports an
    /// empty queue; asked under the lock, so no change is in flight), else the
    /// last one the watch has processed.
    pub fn bookmark_resource_version(
        &self,
        id: u64,
        drained: impl FnOnce() -> bool,
        processed: u64,
    ) -> u64 {
        let state = self.state.lock();
        if state.watchers.contains_key(&id) && drained() {
            state.resource_version
        } else {
            processed
        }
    }

    /// Breaks every open watch of resources named `plural` (all if `None`).
    pub fn cut_watches(&self, plural: Option<&str>) {
        self.state.lock().cut_watches(plural);
    }

    /// Queues `line` for every open watch of resources named `plural`.
    pub fn inject_line(&self, plural: &str, line: &str) {
        let line: Arc<str> = Arc::from(line);
        let state = self.state.lock();
        for w in state.watchers.values() {
            if resources::resource(w.resource).plural == plural
                && let Some(tx) = &w.events
            {
                let _ = tx.try_send(WatchMessage::Raw(line.clone()));
            }
        }
    }

    pub fn open_watches(&self) -> usize {
        self.state.lock().watchers.len()
    }

    /// Open watches of resources named `plural`.
    pub fn open_watches_of(&self, plural: &str) -> usize {
        let state = self.state.lock();
        state
            .watchers
            .values()
            .filter(|w| resources::resource(w.resource).plural == plural && w.events.is_some())
            .count()
    }
}

impl State {
    /// Cancels and unregisters the watches of resources named `plural` (all
    /// if `None`); unregistering here, not when their tasks notice, keeps
    /// `open_watches` exact at once.
    pub(super) fn cut_watches(&mut self, plural: Option<&str>) {
        self.watchers.retain(|_, w| {
            let hit = plural.is_none_or(|p| resources::resource(w.resource).plural == p);
            if hit {
                w.cut.cancel();
            }
            !hit
        });
    }
}
