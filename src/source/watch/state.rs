//! The live model shared by the watch tasks (writers) and the HTTP handlers
//! (readers), with what the exporter reports about itself.

use std::collections::BTreeMap;

use foldhash::HashSet;

use jiff::{SignedDuration, Timestamp};
use parking_lot::{Mutex, RwLock};

use crate::diagnosis::{self, Finding, Settings};
use crate::model::{Cluster, Kind, Object, ObjectKey, Uid};

use super::shard::Shard;
use super::transitions::{Observation, Transitions};
use crate::output::metrics::{FindingsSource, HeldObjects, Telemetry};

/// Which part of a kind one watch covers: every namespace, or one.
pub(super) type Scope = Option<String>;

/// How many objects a list's own count (`remainingItemCount`) is believed
/// up to when the model makes room for them: a count past this is not a
/// cluster Kubernetes supports, and room for it would only waste memory.
const MOST_EXPECTED: usize = 1 << 20;

/// A (re)list under way for one watch: the keys it has named so far, so that
/// what it did not name can be removed when it ends. `None` when the model
/// held nothing the list could replace (the first list of a kind across all
/// namespaces): there is nothing to compare against.
#[derive(Debug)]
pub(crate) struct Listing {
    seen: Option<HashSet<ObjectKey>>,
    objects: usize,
}

/// The uid of the pod or namespace the model holds at `key` (the kinds whose
/// deletion is recorded).
fn held_uid<'c>(cluster: &'c Cluster, kind: Kind, key: &ObjectKey) -> Option<&'c Uid> {
    match kind {
        Kind::Pod => cluster.pod(key).map(|p| &p.metadata.uid),
        Kind::Namespace => cluster.namespace(&key.name).map(|n| &n.metadata.uid),
        _ => None,
    }
}

pub(crate) struct LiveState {
    cluster: RwLock<Cluster>,
    settings: Settings,
    pub telemetry: Telemetry,
    transitions: Mutex<Transitions>,
    /// Each watch and whether it has completed its first list.
    synced: Mutex<BTreeMap<(Kind, Scope), bool>>,
    /// The last error logged per watch, so a persisting error is logged once.
    last_error: Mutex<BTreeMap<(Kind, Scope), String>>,
    /// The part of the cluster whose findings this exporter reports.
    shard: Shard,
    /// Sharded watches follow the namespaces: not ready until they have been
    /// started once for the namespaces listed.
    awaiting_namespaces: std::sync::atomic::AtomicBool,
    /// Added to the wall clock: a snapshot that carries its own `now` (the
    /// embedded example) is judged as of that moment, moving on from there.
    clock_offset: jiff::SignedDuration,
}

impl LiveState {
    /// State for watches that have yet to list.
    pub(crate) fn new(
        settings: Settings,
        watches: impl IntoIterator<Item = (Kind, Scope)>,
    ) -> Self {
        let state = LiveState {
            cluster: RwLock::new(Cluster::new()),
            settings,
            telemetry: Telemetry::default(),
            transitions: Mutex::new(Transitions::default()),
            synced: Mutex::new(watches.into_iter().map(|w| (w, false)).collect()),
            last_error: Mutex::new(BTreeMap::new()),
            shard: Shard::default(),
            awaiting_namespaces: std::sync::atomic::AtomicBool::new(false),
            clock_offset: jiff::SignedDuration::ZERO,
        };
        for (kind, _) in state.synced.lock().keys() {
            state.telemetry.watch_unsynced(*kind);
        }
        state
    }

    /// State for a fixed snapshot (`serve --from-file`): complete from the start.
    /// With `as_of` (the snapshot's own `now`), it is judged as if served from
    /// that moment on.
    pub(crate) fn from_cluster(
        cluster: Cluster,
        settings: Settings,
        as_of: Option<Timestamp>,
    ) -> Self {
        let mut state = LiveState::new(settings, []);
        if let Some(as_of) = as_of {
            state.clock_offset = as_of.duration_since(Timestamp::now());
        }
        for kind in Kind::ALL {
            state.telemetry.watch_synced(kind);
        }
        *state.cluster.write() = cluster;
        state
    }

    /// Reports only what `shard` owns; with `follows_namespaces`, is not ready
    /// until the per-namespace watches have been started once.
    pub(crate) fn sharded(mut self, shard: Shard, follows_namespaces: bool) -> Self {
        self.shard = shard;
        *self.awaiting_namespaces.get_mut() = follows_namespaces;
        if follows_namespaces {
            for kind in Kind::ALL.into_iter().filter(|k| k.is_namespaced()) {
                self.telemetry.watch_unsynced(kind);
            }
        }
        self
    }

    /// The moment findings are judged at: the wall clock, or the snapshot's
    /// own time moving on with it.
    pub(crate) fn now(&self) -> Timestamp {
        Timestamp::now()
            .checked_add(self.clock_offset)
            .unwrap_or_else(|_| Timestamp::now())
    }

    /// The findings of the moment. Sharded, a Terminating namespace is reported by
    /// the shard that owns it (every shard lists all namespaces).
    pub(crate) fn findings(&self, now: Timestamp) -> Vec<Finding> {
        let cluster = self.cluster.read();
        let mut findings = diagnosis::diagnose_with(&cluster, now, &self.settings);
        if self.shard.is_sharded() {
            findings.retain(|f| match (&f.namespace, f.kind) {
                (Some(namespace), _) => self.shard.owns(namespace),
                (None, Kind::Namespace) => self.shard.owns(&f.name),
                (None, _) => true,
            });
        }
        findings
    }

    /// The namespaces in the model, once the namespace watch has listed.
    pub(crate) fn namespace_names(&self) -> Option<Vec<String>> {
        if !self.kind_synced(Kind::Namespace) {
            return None;
        }
        let cluster = self.cluster.read();
        Some(
            cluster
                .namespaces()
                .map(|n| n.metadata.name.to_string())
                .collect(),
        )
    }

    /// Registers watches started after the exporter began (sharded namespaces).
    pub(crate) fn add_watches(&self, watches: impl IntoIterator<Item = (Kind, Scope)>) {
        let mut synced = self.synced.lock();
        for watch in watches {
            synced.entry(watch).or_insert(false);
        }
    }

    /// A followed namespace is gone: its watches, errors and objects are forgotten.
    pub(crate) fn forget_namespace(&self, namespace: &str) {
        let scope: Scope = Some(namespace.to_string());
        self.synced.lock().retain(|(_, s), _| *s != scope);
        self.last_error.lock().retain(|(_, s), _| *s != scope);
        let mut cluster = self.cluster.write();
        for kind in Kind::ALL.into_iter().filter(|k| k.is_namespaced()) {
            cluster.reset_namespace(kind, namespace, Vec::new());
        }
    }

    /// The per-namespace watches have been started for the namespaces listed.
    pub(crate) fn namespaces_followed(&self) {
        self.awaiting_namespaces
            .store(false, std::sync::atomic::Ordering::Relaxed);
    }

    /// Objects held per kind.
    pub(crate) fn counts(&self) -> Vec<(Kind, usize)> {
        let cluster = self.cluster.read();
        Kind::ALL.iter().map(|k| (*k, cluster.len(*k))).collect()
    }

    /// A (re)list of `kind` in `scope` begins.
    pub(crate) fn listing(&self, kind: Kind, scope: &Scope) -> Listing {
        let nothing_held = scope.is_none() && self.cluster.read().len(kind) == 0;
        Listing {
            seen: (!nothing_held).then(HashSet::default),
            objects: 0,
        }
    }

    /// A page of a (re)list, applied at once: a relist never holds a second
    /// copy of what it lists beside the model. A pod or namespace that comes
    /// back under the same name with a new uid replaces one whose deletion
    /// completed while the watch was down: that is recorded as observed now,
    /// an upper bound. `remaining` is how many objects the server said follow
    /// this page: the model makes room for the whole list at once rather than
    /// growing as it comes.
    pub(crate) fn list(
        &self,
        listing: &mut Listing,
        objects: impl IntoIterator<Item = Object>,
        remaining: Option<usize>,
    ) {
        let mut objects = objects.into_iter().peekable();
        let Some(kind) = objects.peek().map(Object::kind) else {
            return;
        };
        let (at_least, at_most) = objects.size_hint();
        let expected = (listing.objects + at_most.unwrap_or(at_least))
            .saturating_add(remaining.unwrap_or(0))
            .min(MOST_EXPECTED);
        let mut observations = Vec::new();
        {
            let mut cluster = self.cluster.write();
            let mut transitions = self.transitions.lock();
            cluster.reserve(kind, expected);
            if kind == Kind::Pod {
                transitions.reserve_pods(expected);
            }
            if let Some(seen) = &mut listing.seen {
                seen.reserve(expected.saturating_sub(seen.len()));
            }
            for object in objects {
                let key = object.key();
                // Only a list that found objects held can replace one.
                let replaced = listing.seen.is_some()
                    && held_uid(&cluster, kind, &key).is_some_and(|old| Some(old) != object.uid());
                if replaced {
                    let now = Timestamp::now();
                    observations.extend(vanished(&mut transitions, &cluster, kind, &key, now));
                }
                if let Object::Pod(new) = &object {
                    // Pods listed Ready are not new starts.
                    transitions.pods_listed([new]);
                }
                cluster.apply(object);
                if let Some(seen) = &mut listing.seen {
                    seen.insert(key);
                }
                listing.objects += 1;
            }
        }
        self.record(&observations);
    }

    /// A watch's (re)list ended: what the model holds in its scope that the
    /// list did not name is gone. Pods and namespaces among them completed
    /// their deletion while the watch was down, recorded as observed now.
    pub(crate) fn relist(&self, kind: Kind, scope: &Scope, listing: Listing) {
        let resource = kind.plural();
        let count = listing.objects;
        let observations = {
            let mut cluster = self.cluster.write();
            let gone: Vec<ObjectKey> = match &listing.seen {
                // Nothing was held when the list began: all there is, it listed.
                None => Vec::new(),
                Some(seen) => cluster
                    .keys(kind)
                    .into_iter()
                    .filter(|k| scope.as_deref().is_none_or(|ns| k.namespace == ns))
                    .filter(|k| !seen.contains(k))
                    .collect(),
            };
            let now = Timestamp::now();
            let mut observations = Vec::new();
            let mut transitions = self.transitions.lock();
            for key in gone {
                observations.extend(vanished(&mut transitions, &cluster, kind, &key, now));
                cluster.delete(kind, &key);
            }
            cluster.mark_listed(kind);
            observations
        };
        self.record(&observations);
        let was_synced = self
            .synced
            .lock()
            .insert((kind, scope.clone()), true)
            .unwrap_or(false);
        if was_synced {
            self.telemetry.watch_restarted(kind);
            tracing::info!(
                resource,
                namespace = scope.as_deref(),
                objects = count,
                "relisted"
            );
        } else {
            tracing::info!(
                resource,
                namespace = scope.as_deref(),
                objects = count,
                "synced"
            );
        }
        if self.kind_synced(kind) {
            self.telemetry.watch_synced(kind);
        }
        self.telemetry.listed(kind, count);
        self.last_error.lock().remove(&(kind, scope.clone()));
    }

    /// An object was added or changed.
    pub(crate) fn apply(&self, object: Object) {
        let kind = object.kind();
        let observations = {
            let mut cluster = self.cluster.write();
            let observations = match &object {
                Object::Pod(new) => {
                    let old = cluster.pod(&object.key());
                    self.transitions.lock().pod_applied(old, new)
                }
                _ => Vec::new(),
            };
            cluster.apply(object);
            observations
        };
        self.record(&observations);
        self.telemetry.applied(kind);
    }

    /// An object is gone; `object` is its last state.
    pub(crate) fn delete(&self, object: Object) {
        let kind = object.kind();
        let now = Timestamp::now();
        let observations = {
            let mut cluster = self.cluster.write();
            let observations = match &object {
                Object::Pod(pod) => self.transitions.lock().pod_deleted(&cluster, pod, now),
                Object::Namespace(ns) => self
                    .transitions
                    .lock()
                    .namespace_deleted(ns, now)
                    .into_iter()
                    .collect(),
                _ => Vec::new(),
            };
            cluster.delete(kind, &object.key());
            observations
        };
        self.record(&observations);
        self.telemetry.deleted(kind);
    }

    fn record(&self, observations: &[Observation]) {
        for observation in observations {
            observation.record(&self.telemetry);
        }
    }

    /// Records a watch error; returns whether it differs from the previous one
    /// of that watch (so the caller logs a persisting error once).
    pub(crate) fn record_error(
        &self,
        kind: Kind,
        scope: &Scope,
        reason: &'static str,
        message: &str,
    ) -> bool {
        self.telemetry.watch_failed(kind, reason);
        let mut last = self.last_error.lock();
        let key = (kind, scope.clone());
        let new = last.get(&key).is_none_or(|m| m != message);
        if new {
            last.insert(key, message.to_string());
        }
        new
    }

    /// Forgets warning events older than `max_age`.
    pub(crate) fn prune_events(&self, max_age: SignedDuration) {
        if let Ok(cutoff) = Timestamp::now().checked_sub(max_age) {
            self.cluster.write().prune_events(cutoff);
        }
    }

    fn kind_synced(&self, kind: Kind) -> bool {
        self.synced
            .lock()
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .all(|(_, s)| *s)
    }

    /// Each watched resource and whether all its watches have listed once.
    pub(crate) fn readiness(&self) -> Vec<(Kind, bool)> {
        let synced = self.synced.lock();
        let mut by_kind: BTreeMap<Kind, bool> = BTreeMap::new();
        for ((kind, _), done) in synced.iter() {
            let entry = by_kind.entry(*kind).or_insert(true);
            *entry &= *done;
        }
        if self
            .awaiting_namespaces
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            for kind in Kind::ALL.into_iter().filter(|k| k.is_namespaced()) {
                by_kind.insert(kind, false);
            }
        }
        by_kind.into_iter().collect()
    }

    /// The last error of each watch that has not recovered since.
    pub(crate) fn current_errors(&self) -> Vec<(Kind, Scope, String)> {
        self.last_error
            .lock()
            .iter()
            .map(|((k, s), m)| (*k, s.clone(), m.clone()))
            .collect()
    }

    #[cfg(test)]
    pub(crate) fn is_ready(&self) -> bool {
        self.readiness().iter().all(|(_, ready)| *ready)
    }
}

/// What a scrape reads: the findings of the moment.
impl FindingsSource for LiveState {
    fn current(&self) -> Vec<Finding> {
        self.findings(self.now())
    }
}

/// What a scrape reads: the objects held per kind.
impl HeldObjects for LiveState {
    fn counts(&self) -> Vec<(Kind, usize)> {
        LiveState::counts(self)
    }
}

/// The deletion of the pod or namespace the model holds at `key`, gone
/// without a watch event: it completed while the watch was down, and is
/// recorded as observed `now`, an upper bound.
fn vanished(
    transitions: &mut Transitions,
    cluster: &Cluster,
    kind: Kind,
    key: &ObjectKey,
    now: Timestamp,
) -> Vec<Observation> {
    match kind {
        Kind::Pod => cluster
            .pod(key)
            .map(|pod| transitions.pod_deleted(cluster, pod, now))
            .unwrap_or_default(),
        Kind::Namespace => cluster
            .namespace(&key.name)
            .and_then(|ns| transitions.namespace_deleted(ns, now))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use prometheus_client::registry::Registry;

    use super::*;

    fn pod(name: &str, uid: &str, terminating: bool) -> Object {
        let deletion = if terminating {
            r#","deletionTimestamp":"2024-06-01T09:00:30Z","deletionGracePeriodSeconds":30"#
        } else {
            ""
        };
        let json = format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"shop","uid":"{uid}"{deletion}}},
                "spec":{{"nodeName":"n1"}},"status":{{"phase":"Running"}}}}"#
        );
        Object::Pod(serde_json::from_str(&json).unwrap())
    }

    /// The pods held, as (name, uid).
    fn held(state: &LiveState) -> Vec<(String, String)> {
        let cluster = state.cluster.read();
        let mut pods: Vec<_> = cluster
            .pods()
            .map(|p| (p.metadata.name.to_string(), format!("{:?}", p.metadata.uid)))
            .collect();
        pods.sort();
        pods
    }

    /// Removals of Terminating pods counted by the termination histogram.
    fn terminations(state: &LiveState) -> usize {
        let mut registry = Registry::default();
        state.telemetry.register(&mut registry);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        text.lines()
            .filter(|l| l.starts_with("kube_lifecycle_pod_terminating_duration_seconds_count"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as usize
    }

    /// A list in pages of two, each saying how many pods follow it.
    fn list(state: &LiveState, pods: Vec<Object>) {
        let mut listing = state.listing(Kind::Pod, &None);
        let mut remaining = pods.len();
        for page in pods.chunks(2) {
            remaining -= page.len();
            state.list(&mut listing, page.to_vec(), Some(remaining));
        }
        state.relist(Kind::Pod, &None, listing);
    }

    #[test]
    fn a_relist_replaces_what_it_lists_and_removes_what_it_does_not() {
        let state = LiveState::new(Settings::default(), [(Kind::Pod, None)]);
        list(
            &state,
            vec![
                pod("a", "u-a", true),
                pod("b", "u-b1", true),
                pod("c", "u-c", false),
            ],
        );
        assert_eq!(held(&state).len(), 3);
        assert!(state.is_ready());
        assert_eq!(terminations(&state), 0);

        // a is gone, b came back as a new pod under the same name, d is new:
        // the deletions of a and of the first b completed while the watch was
        // down, and are counted.
        list(
            &state,
            vec![
                pod("b", "u-b2", false),
                pod("c", "u-c", false),
                pod("d", "u-d", false),
            ],
        );
        let names: Vec<String> = held(&state).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["b", "c", "d"]);
        assert!(held(&state)[0].1.contains("u-b2"));
        assert_eq!(terminations(&state), 2);
    }

    #[test]
    fn a_list_cut_short_is_compared_against_when_it_starts_again() {
        let state = LiveState::new(Settings::default(), [(Kind::Pod, None)]);
        // The first list applies one page, then fails; the model held nothing,
        // so it kept no keys.
        let mut first = state.listing(Kind::Pod, &None);
        state.list(
            &mut first,
            vec![
                pod("gone-meanwhile", "u-g", false),
                pod("stays", "u-s", false),
            ],
            // A count no cluster has is not believed: no room is made for it.
            Some(usize::MAX),
        );
        drop(first);
        // The list starts again and no longer names the first pod.
        list(&state, vec![pod("stays", "u-s", false)]);
        let names: Vec<String> = held(&state).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["stays"]);
    }

    #[test]
    fn a_namespace_relist_leaves_other_namespaces_alone() {
        let state = LiveState::new(Settings::default(), [(Kind::Pod, None)]);
        list(&state, vec![pod("a", "u-a", false)]);
        let scope = Some("elsewhere".to_string());
        let listing = state.listing(Kind::Pod, &scope);
        state.relist(Kind::Pod, &scope, listing);
        assert_eq!(held(&state).len(), 1);
    }
}
