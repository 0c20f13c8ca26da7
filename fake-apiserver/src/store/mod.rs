//! The object store: current objects, the change history that watches resume
//! from, pagination snapshots and the registry of open watches.
//!
//! Everything lives behind one lock so that a change gets its resourceVersion,
//! enters the history and reaches every open watch in one step, as etcd and
//! the watch cache order them. Work proportional to the number of objects
//! (serialising a list page, evaluating selectors) happens outside the lock on
//! shared `Arc`s.
//!
//! This file holds the objects, their changes and the history; `list.rs`
//! the list pages and their snapshots; `watch.rs` the open watches.

mod list;
mod watch;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::object::StoredObject;
use crate::resources::{self, ResourceId};
use crate::time::now_rfc3339;

pub(crate) use list::ListPage;
use list::Snapshot;
pub(crate) use watch::{Subscription, WatchMessage, WatchStart};
use watch::{WATCH_QUEUE, WatcherSlot};

/// How many changes are kept for watches to resume from by default; older
/// ones are compacted away, as etcd does every few minutes.
pub(crate) const DEFAULT_HISTORY_LIMIT: usize = 100_000;

/// What happened to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChangeType {
    Added,
    Modified,
    Deleted,
}

/// One change, as recorded in the history and sent to watches.
#[derive(Debug)]
pub(crate) struct Change {
    pub resource: ResourceId,
    pub change: ChangeType,
    /// The new state; for a deletion, the last state with a new resourceVersion.
    pub object: Arc<StoredObject>,
    /// The state before a modification, so a watch can tell whether the
    /// object entered or left its selectors.
    pub previous: Option<Arc<StoredObject>>,
}

impl Change {
    pub fn resource_version(&self) -> u64 {
        self.object.resource_version
    }
}

/// Why the store refused a request.
#[derive(Debug)]
pub(crate) enum StoreError {
    /// A watch asked for history that was compacted away.
    TooOld { requested: u64, oldest: u64 },
    /// A watch asked for a resourceVersion the store has not reached.
    TooLarge { requested: u64, current: u64 },
    /// A continue token whose snapshot is gone.
    ContinueExpired,
    /// A continue token that this server did not make for this request.
    InvalidContinue(String),
}

type ObjectKey = (String, String);

struct State {
    resource_version: u64,
    uids_issued: u64,
    /// Per resource type, keyed by (namespace, name): iteration order is the
    /// list order.
    objects: Vec<BTreeMap<ObjectKey, Arc<StoredObject>>>,
    history: VecDeque<Arc<Change>>,
    history_limit: usize,
    /// The history holds every change with a resourceVersion above this.
    floor: u64,
    snapshots: BTreeMap<u64, Snapshot>,
    next_snapshot: u64,
    watchers: HashMap<u64, WatcherSlot>,
    next_watcher: u64,
    /// Capacity of each new watch's queue ([`WATCH_QUEUE`]; smaller in tests).
    watch_queue: usize,
}

/// The store shared by the HTTP handlers and the scenario API.
pub(crate) struct Store {
    state: Mutex<State>,
}

#[derive(Deserialize)]
struct MetadataOnly {
    #[serde(default)]
    metadata: IdentityFields,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct IdentityFields {
    uid: Option<String>,
    creation_timestamp: Option<String>,
}

impl Store {
    pub fn new() -> Arc<Store> {
        Arc::new(Store {
            state: Mutex::new(State {
                resource_version: 1,
                uids_issued: 0,
                objects: resources::RESOURCES
                    .iter()
                    .map(|_| BTreeMap::new())
                    .collect(),
                history: VecDeque::new(),
                history_limit: DEFAULT_HISTORY_LIMIT,
                floor: 1,
                snapshots: BTreeMap::new(),
                next_snapshot: 1,
                watchers: HashMap::new(),
                next_watcher: 1,
                watch_queue: WATCH_QUEUE,
            }),
        })
    }

    pub fn resource_version(&self) -> u64 {
        self.state.lock().resource_version
    }

    /// Creates or replaces an object, returning it as stored.
    ///
    /// Panics on objects that cannot be stored (no known apiVersion/kind, no
    /// name): these are mistakes in a test, not inputs to tolerate.
    pub fn apply(&self, object: Value) -> Value {
        let Value::Object(mut body) = object else {
            panic!("apply needs a JSON object, got {object}");
        };
        let api_version = take_string(&mut body, "apiVersion");
        let kind = take_string(&mut body, "kind");
        let Some(id) = resources::by_type(&api_version, &kind) else {
            panic!("apply: unknown resource type apiVersion={api_version:?} kind={kind:?}");
        };
        let resource = resources::resource(id);
        let metadata = match body
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()))
        {
            Value::Object(m) => m,
            other => panic!("apply: metadata must be an object, got {other}"),
        };
        let name = match metadata.get("name").and_then(Value::as_str) {
            Some(name) if !name.is_empty() => name.to_string(),
            _ => panic!("apply: {kind} without metadata.name"),
        };
        let namespace = if resource.namespaced {
            let ns = match metadata.get("namespace").and_then(Value::as_str) {
                Some(ns) if !ns.is_empty() => ns.to_string(),
                _ => "default".to_string(),
            };
            metadata.insert("namespace".into(), Value::String(ns.clone()));
            ns
        } else {
            metadata.remove("namespace");
            String::new()
        };
        let missing = |m: &Map<String, Value>, field: &str| {
            m.get(field)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
        };

        {
            let mut state = self.state.lock();
            let key = (namespace.clone(), name.clone());
            let previous = state.objects[id].get(&key).cloned();
            let kept = previous
                .as_ref()
                .and_then(|p| serde_json::from_str::<MetadataOnly>(p.json()).ok())
                .map(|m| m.metadata)
                .unwrap_or_default();
            if missing(metadata, "uid") {
                let uid = match kept.uid {
                    Some(uid) => uid,
                    None => state.issue_uid(),
                };
                metadata.insert("uid".into(), Value::String(uid));
            }
            if missing(metadata, "creationTimestamp") {
                let created = kept.creation_timestamp.unwrap_or_else(now_rfc3339);
                metadata.insert("creationTimestamp".into(), Value::String(created));
            }
            state.resource_version += 1;
            let rv = state.resource_version;
            metadata.insert("resourceVersion".into(), Value::String(rv.to_string()));
            let stored = Arc::new(StoredObject::from_body(namespace, name, rv, &body));
            state.objects[id].insert(key, stored.clone());
            let change = if previous.is_some() {
                ChangeType::Modified
            } else {
                ChangeType::Added
            };
            state.record(Change {
                resource: id,
                change,
                object: stored,
                previous,
            });
        }
        body.insert("apiVersion".into(), Value::String(api_version));
        body.insert("kind".into(), Value::String(kind));
        Value::Object(body)
    }

    /// Removes an object, returning its last state with the deletion's
    /// resourceVersion.
    pub fn delete(&self, id: ResourceId, namespace: &str, name: &str) -> Option<Value> {
        let mut state = self.state.lock();
        let previous = state.objects[id].remove(&(namespace.to_string(), name.to_string()))?;
        state.resource_version += 1;
        let rv = state.resource_version;
        let mut body = previous.body();
        if let Some(Value::Object(metadata)) = body.get_mut("metadata") {
            metadata.insert("resourceVersion".into(), Value::String(rv.to_string()));
        }
        let last = Arc::new(StoredObject::from_body(
            previous.namespace.clone(),
            previous.name.clone(),
            rv,
            &body,
        ));
        state.record(Change {
            resource: id,
            change: ChangeType::Deleted,
            object: last.clone(),
            previous: Some(previous),
        });
        drop(state);
        Some(last.to_value(resources::resource(id)))
    }

    pub fn get(&self, id: ResourceId, namespace: &str, name: &str) -> Option<Arc<StoredObject>> {
        self.state.lock().objects[id]
            .get(&(namespace.to_string(), name.to_string()))
            .cloned()
    }

    /// Forgets all history and every pagination snapshot: any resume from an
    /// older resourceVersion, and any outstanding continue token, gets 410.
    /// (Real etcd would keep a snapshot taken at exactly the compaction
    /// revision; dropping them all lets a test force Expired without a write.)
    pub fn compact(&self) {
        self.state.lock().compact();
    }

    /// What a restore of etcd from backup looks like: every watch breaks,
    /// the resourceVersion counter jumps by `jump` and history is gone. Done
    /// in one step so no client can slip a watch in between.
    pub fn new_epoch(&self, jump: u64) {
        let mut state = self.state.lock();
        state.cut_watches(None);
        state.resource_version += jump;
        state.compact();
    }

    /// What a server that keeps no history looks like after a restart on an
    /// empty store: every object and all history are gone, resourceVersions
    /// start over, and nothing answers 410 (there is no compaction to report).
    /// Open watches end cleanly, as at a graceful shutdown.
    pub fn reset(&self) {
        let mut state = self.state.lock();
        for objects in &mut state.objects {
            objects.clear();
        }
        state.history.clear();
        state.snapshots.clear();
        state.resource_version = 1;
        state.floor = 1;
        // Dropping a watch's sender ends its stream cleanly; a hanging watch
        // has none, and is cut.
        for (_, watcher) in state.watchers.drain() {
            if watcher.events.is_none() {
                watcher.cut.cancel();
            }
        }
    }

    /// Removes an object without a change: no resourceVersion, no history, no
    /// watch event. A server that loses an event (a compaction that dropped
    /// the deletion) looks like this to clients. Returns whether it existed.
    pub fn lose(&self, id: ResourceId, namespace: &str, name: &str) -> bool {
        self.state.lock().objects[id]
            .remove(&(namespace.to_string(), name.to_string()))
            .is_some()
    }

    pub fn set_history_limit(&self, limit: usize) {
        let mut state = self.state.lock();
        state.history_limit = limit;
        state.trim_history();
    }
}

impl State {
    fn compact(&mut self) {
        self.history.clear();
        self.floor = self.resource_version;
        self.snapshots.clear();
    }

    fn issue_uid(&mut self) -> String {
        self.uids_issued += 1;
        format!("fa4e5e00-0000-4000-8000-{:012x}", self.uids_issued)
    }

    /// Every object of `resource`, in list order, in one namespace or all.
    fn scope(&self, resource: ResourceId, namespace: Option<&str>) -> Vec<Arc<StoredObject>> {
        let objects = &self.objects[resource];
        match namespace {
            None => objects.values().cloned().collect(),
            Some(ns) => objects
                .range((ns.to_string(), String::new())..)
                .take_while(|((object_ns, _), _)| object_ns == ns)
                .map(|(_, o)| o.clone())
                .collect(),
        }
    }

    /// Appends a change to the history and hands it to the watches of its
    /// resource. A watch whose queue is full is dropped without a cut: its
    /// stream ends cleanly and the client resumes from the history.
    fn record(&mut self, change: Change) {
        let change = Arc::new(change);
        self.watchers.retain(|_, w| {
            if w.resource != change.resource {
                return true;
            }
            let Some(tx) = &w.events else { return true };
            match tx.try_send(WatchMessage::Change(change.clone())) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    tracing::debug!(
                        "watch queue full; closing the watch so it resumes from history"
                    );
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
        self.history.push_back(change);
        if self.history.len() > self.history_limit {
            self.trim_history();
        }
    }

    fn trim_history(&mut self) {
        let before = self.floor;
        while self.history.len() > self.history_limit {
            if let Some(oldest) = self.history.pop_front() {
                self.floor = oldest.resource_version();
            }
        }
        if self.floor != before {
            let floor = self.floor;
            self.snapshots.retain(|_, s| s.resource_version >= floor);
        }
    }
}

fn take_string(body: &mut Map<String, Value>, field: &str) -> String {
    match body.remove(field) {
        Some(Value::String(s)) => s,
        other => panic!("apply: {field} must be a string, got {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selectors::Filter;
    use serde_json::json;

    fn pod(ns: &str, name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}})
    }

    const PODS: ResourceId = 0;

    #[test]
    fn apply_assigns_identity_and_keeps_it_on_update() {
        let store = Store::new();
        let first = store.apply(pod("a", "p"));
        let uid = first["metadata"]["uid"].as_str().unwrap().to_string();
        assert_eq!(first["metadata"]["resourceVersion"], "2");
        assert!(
            first["metadata"]["creationTimestamp"]
                .as_str()
                .unwrap()
                .ends_with('Z')
        );
        let second = store.apply(pod("a", "p"));
        assert_eq!(second["metadata"]["uid"], uid.as_str());
        assert_eq!(
            second["metadata"]["creationTimestamp"],
            first["metadata"]["creationTimestamp"]
        );
        assert_eq!(second["metadata"]["resourceVersion"], "3");
        let other = store.apply(pod("a", "q"));
        assert_ne!(other["metadata"]["uid"], uid.as_str());
    }

    #[test]
    fn history_is_trimmed_and_raises_the_floor() {
        let store = Store::new();
        store.set_history_limit(3);
        for i in 0..5 {
            store.apply(pod("a", &format!("p{i}")));
        }
        // RVs 2..=6 were issued; 3 kept (4, 5, 6), so the floor is 3.
        assert!(matches!(
            store.open_watch(PODS, None, WatchStart::Since(2), true),
            Err(StoreError::TooOld {
                requested: 2,
                oldest: 3
            })
        ));
        let sub = store
            .open_watch(PODS, None, WatchStart::Since(3), true)
            .ok()
            .unwrap();
        assert_eq!(sub.replay.len(), 3);
        assert_eq!(store.open_watches(), 1);
        drop(sub);
        assert_eq!(store.open_watches(), 0);
    }

    #[test]
    fn a_watch_that_falls_behind_is_dropped_without_a_cut() {
        let store = Store::new();
        store.state.lock().watch_queue = 2;
        let mut sub = store
            .open_watch(PODS, None, WatchStart::Now, true)
            .ok()
            .unwrap();
        for name in ["a", "b", "c"] {
            store.apply(pod("x", name));
        }
        assert_eq!(store.open_watches(), 0);
        assert!(
            !sub.cut.is_cancelled(),
            "the stream ends cleanly, to be resumed"
        );
        let events = sub.events.as_mut().unwrap();
        assert!(matches!(events.try_recv(), Ok(WatchMessage::Change(c)) if c.object.name == "a"));
        assert!(matches!(events.try_recv(), Ok(WatchMessage::Change(c)) if c.object.name == "b"));
        assert!(
            events.try_recv().is_err(),
            "closed after the queued changes"
        );
    }

    #[test]
    fn a_reset_store_starts_over_and_a_watch_from_beyond_it_is_too_large() {
        let store = Store::new();
        for name in ["a", "b", "c"] {
            store.apply(pod("x", name));
        }
        let sub = store
            .open_watch(PODS, None, WatchStart::Since(4), true)
            .ok()
            .unwrap();
        store.reset();
        assert_eq!(store.open_watches(), 0);
        assert!(!sub.cut.is_cancelled(), "ended cleanly, as at a shutdown");
        assert_eq!(store.resource_version(), 1);
        let again = store.apply(pod("x", "a"));
        assert_eq!(again["metadata"]["resourceVersion"], "2");
        assert!(matches!(
            store.open_watch(PODS, None, WatchStart::Since(4), true),
            Err(StoreError::TooLarge {
                requested: 4,
                current: 2
            })
        ));
        // Nothing was compacted: an old-enough version is not too old either.
        assert!(
            store
                .open_watch(PODS, None, WatchStart::Since(1), true)
                .is_ok()
        );
        assert!(store.lose(PODS, "x", "a"));
        assert_eq!(
            store.resource_version(),
            2,
            "a lost object leaves no change"
        );
        assert!(store.get(PODS, "x", "a").is_none());
    }

    #[test]
    fn pages_come_from_one_snapshot() {
        let store = Store::new();
        for name in ["c", "a", "b"] {
            store.apply(pod("x", name));
        }
        let all = Filter::default();
        let first = store.list(PODS, &all, Some(2), None).ok().unwrap();
        let names: Vec<_> = first.items.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(first.remaining_item_count, Some(1));
        store.delete(PODS, "x", "c");
        let token = first.continue_token.unwrap();
        let second = store.list(PODS, &all, Some(2), Some(&token)).ok().unwrap();
        assert_eq!(second.items[0].name, "c", "the snapshot still holds c");
        assert_eq!(second.resource_version, first.resource_version);
        assert!(second.continue_token.is_none());
        assert!(matches!(
            store.list(PODS, &all, Some(2), Some(&token)),
            Err(StoreError::ContinueExpired)
        ));
        assert!(matches!(
            store.list(PODS, &all, Some(2), Some("x.y")),
            Err(StoreError::InvalidContinue(_))
        ));
    }
}
