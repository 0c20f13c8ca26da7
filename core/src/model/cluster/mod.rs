//! The cluster as the diagnosis sees it: the objects of every kind, with the
//! indexes the diagnosis looks them up by (pods by node and by owner, unsettled
//! pods, ReplicaSets by owner, warning events by object).
//!
//! This file holds the cluster and how it changes (`apply`, `delete`, `reset`),
//! the indexes kept in step; `lookups.rs`, what the diagnosis reads of it.

mod lookups;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

// foldhash rather than SipHash: the keys are the API server's own names,
// and hashing them weighs on every list.
use foldhash::HashMap;

use super::changes::{ChangeLog, Changes};
use super::event_store::{EventStore, Subject};
use super::index::{index_insert, index_remove};
use super::kind::Kind;
use super::meta::{Meta, ObjectKey, Time};
use super::name::Name;
use super::namespace::Namespace;
use super::node::Node;
use super::object::{Object, PlainStores};
use super::owner::OwnerKey;
use super::pod::Pod;
use super::workload::ReplicaSet;

/// A change to the events about `subject`: a pod's own findings read those
/// about it, and a pending pod's those about its claims (rare: no index).
fn event_touched(changes: &mut ChangeLog, pods: usize, (namespace, kind, name): &Subject) {
    match kind.as_str() {
        "Pod" => changes.pod(&ObjectKey::new(namespace.as_str(), name.as_str()), pods),
        "PersistentVolumeClaim" => changes.everything(),
        _ => {}
    }
}

/// Whether two versions of a pod sit in the same index entries (node,
/// controller, settled or not), so one can replace the other in place.
fn indexed_alike(held: &Pod, new: &Pod) -> bool {
    fn controller(p: &Pod) -> Option<(&str, &str)> {
        p.metadata
            .controller()
            .map(|o| (o.kind.as_str(), o.name.as_str()))
    }
    held.spec.node_name == new.spec.node_name
        && controller(held) == controller(new)
        && held.is_settled() == new.is_settled()
}

/// The cluster as the diagnosis sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Pods by key; the key is shared with the indexes rather than copied. A
    /// hash map: the diagnoses look pods up by key (through the indexes) far more
    /// often than they walk them, and nothing depends on the walking order
    /// (findings are sorted). Shared with the unsettled index, so the table's
    /// empty slots cost a pointer and a walk of that index no lookup.
    pods: HashMap<Arc<ObjectKey>, Arc<Pod>>,
    nodes: BTreeMap<Name, Node>,
    namespaces: BTreeMap<Name, Namespace>,
    /// Boxed: a B-tree's spare slots then cost a pointer each rather than a
    /// whole object.
    replica_sets: BTreeMap<ObjectKey, Box<ReplicaSet>>,
    /// The kinds held as they are, with no index of their own (`object.rs`).
    plain: PlainStores,
    events: EventStore,
    /// The pod indexes are looked up by node or owner and never walked, so
    /// they are hash maps; each holds its keys in a sorted list.
    pods_by_node: HashMap<Name, Vec<Arc<ObjectKey>>>,
    pods_by_owner: HashMap<OwnerKey, Vec<Arc<ObjectKey>>>,
    /// Pods that are not simply running (see [`Pod::is_settled`]): the only
    /// ones the per-pod diagnoses look at, so a scrape walks a few percent of a
    /// large cluster's pods instead of all of them. Each is held with its pod,
    /// so that walking them hashes no key (a storm has tens of thousands).
    unsettled_pods: BTreeMap<Arc<ObjectKey>, Arc<Pod>>,
    replica_sets_by_owner: HashMap<OwnerKey, Vec<ObjectKey>>,
    listed: BTreeSet<Kind>,
    /// What changed since the diagnosis last asked ([`Cluster::take_changes`]).
    changes: ChangeLog,
}

impl Cluster {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces an object, keeping the indexes in step.
    pub fn apply(&mut self, object: Object) {
        self.listed(object.kind());
        let key = object.key();
        // The pod held under this key, looked up once: whether it is the
        // same (a relist brings every pod again, most of them as they were:
        // those change nothing, and are not logged as changed) and whether
        // the new one sits in the same index entries.
        let (unchanged, alike) = match &object {
            Object::Pod(pod) => match self.pods.get(&key) {
                Some(held) => (**held == *pod, Some(indexed_alike(held, pod))),
                None => (false, None),
            },
            _ => (false, None),
        };
        if unchanged {
            return;
        }
        self.changed(object.kind(), &key);
        match &object {
            Object::Pod(p) => self.controller_changed(&p.metadata),
            Object::ReplicaSet(rs) => self.controller_changed(&rs.metadata),
            _ => {}
        }
        match object {
            Object::Pod(pod) => {
                // Most updates are status changes of a pod that stays where the
                // indexes have it: replace it in place, no index touched.
                if alike == Some(true)
                    && let Some(held) = self.pods.get_mut(&key)
                {
                    let pod = Arc::new(pod);
                    if let Some(unsettled) = self.unsettled_pods.get_mut(&key) {
                        *unsettled = pod.clone();
                    }
                    *held = pod;
                } else {
                    if alike.is_some() {
                        self.unindex_pod(&key);
                    }
                    let key = Arc::new(key);
                    let pod = Arc::new(pod);
                    self.index_pod(&key, &pod);
                    self.pods.insert(key, pod);
                }
            }
            Object::Node(node) => {
                self.nodes.insert(key.name, node);
            }
            Object::Namespace(ns) => {
                self.namespaces.insert(key.name, ns);
            }
            Object::ReplicaSet(rs) => {
                if let Some(old) = self.replica_sets.get(&key) {
                    index_remove(
                        &mut self.replica_sets_by_owner,
                        OwnerKey::controller_of(&old.metadata),
                        &key,
                    );
                }
                index_insert(
                    &mut self.replica_sets_by_owner,
                    OwnerKey::controller_of(&rs.metadata),
                    &key,
                );
                self.replica_sets.insert(key, Box::new(rs));
            }
            Object::Event(e) => {
                let pods = self.pods.len();
                let changes = &mut self.changes;
                self.events
                    .apply(e, &mut |subject| event_touched(changes, pods, subject));
            }
            plain => {
                // Every other kind is a plain one (the match above names the
                // indexed kinds); it takes them all.
                let rest = self.plain.apply(key, plain);
                debug_assert!(rest.is_none(), "{rest:?}: neither indexed nor plain");
            }
        }
    }

    /// Room for `total` objects of `kind` in all, as a list that brings them
    /// begins: the pod map is then sized once instead of growing by rehashing
    /// every key it holds as they come. The other kinds are held in B-trees.
    pub fn reserve(&mut self, kind: Kind, total: usize) {
        if kind == Kind::Pod {
            self.pods.reserve(total.saturating_sub(self.pods.len()));
        }
    }

    /// Removes an object; a key that is not held is ignored.
    pub fn delete(&mut self, kind: Kind, key: &ObjectKey) {
        self.changed(kind, key);
        match kind {
            Kind::Pod => {
                self.unindex_pod(key);
                self.pods.remove(key);
            }
            Kind::Node => {
                self.nodes.remove(&key.name);
            }
            Kind::Namespace => {
                self.namespaces.remove(&key.name);
            }
            Kind::ReplicaSet => {
                if let Some(old) = self.replica_sets.remove(key) {
                    index_remove(
                        &mut self.replica_sets_by_owner,
                        OwnerKey::controller_of(&old.metadata),
                        key,
                    );
                }
            }
            Kind::Event => {
                let pods = self.pods.len();
                let changes = &mut self.changes;
                self.events
                    .delete(key, &mut |subject| event_touched(changes, pods, subject));
            }
            plain => {
                self.plain.delete(plain, key);
            }
        }
    }

    /// Replaces every object of `kind` with `objects` (a relist): what is not in
    /// the new list is gone. Objects of another kind in `objects` are applied too.
    pub fn reset(&mut self, kind: Kind, objects: impl IntoIterator<Item = Object>) {
        self.clear(kind);
        self.listed(kind);
        for object in objects {
            self.apply(object);
        }
    }

    /// Like [`Cluster::reset`], but only for the objects of `kind` in one
    /// namespace (a relist of a namespaced watch); other namespaces are kept.
    pub fn reset_namespace(
        &mut self,
        kind: Kind,
        namespace: &str,
        objects: impl IntoIterator<Item = Object>,
    ) {
        for key in self
            .keys(kind)
            .into_iter()
            .filter(|k| k.namespace == namespace)
        {
            self.delete(kind, &key);
        }
        self.listed(kind);
        for object in objects {
            self.apply(object);
        }
    }

    /// The keys of every held object of `kind` (pods' in no particular order).
    pub fn keys(&self, kind: Kind) -> Vec<ObjectKey> {
        fn named<T>(m: &BTreeMap<Name, T>) -> Vec<ObjectKey> {
            m.keys().map(|n| ObjectKey::new("", n.clone())).collect()
        }
        match kind {
            Kind::Pod => self.pods.keys().map(|k| (**k).clone()).collect(),
            Kind::Node => named(&self.nodes),
            Kind::Namespace => named(&self.namespaces),
            Kind::ReplicaSet => self.replica_sets.keys().cloned().collect(),
            Kind::Event => self.events.keys().cloned().collect(),
            plain => self.plain.keys(plain).unwrap_or_default(),
        }
    }

    /// A copy of every object held (the tests replay them).
    #[cfg(any(test, feature = "testing"))]
    pub fn objects(&self) -> Vec<Object> {
        fn boxed<T: Clone>(
            m: &BTreeMap<ObjectKey, Box<T>>,
            object: fn(T) -> Object,
        ) -> impl Iterator<Item = Object> + '_ {
            m.values().map(move |o| object((**o).clone()))
        }
        let mut pods: Vec<&Pod> = self.pods.values().map(|p| &**p).collect();
        pods.sort_by_key(|p| (p.metadata.namespace.clone(), p.metadata.name.clone()));
        (pods.into_iter().map(|p| Object::Pod(p.clone())))
            .chain(self.nodes.values().cloned().map(Object::Node))
            .chain(self.namespaces.values().cloned().map(Object::Namespace))
            .chain(boxed(&self.replica_sets, Object::ReplicaSet))
            .chain(self.plain.objects())
            .chain(self.events.all().cloned().map(Object::Event))
            .collect()
    }

    fn clear(&mut self, kind: Kind) {
        self.changes.everything();
        if kind != Kind::Event {
            self.changes.object();
        }
        match kind {
            Kind::Pod => {
                self.pods.clear();
                self.pods_by_node.clear();
                self.pods_by_owner.clear();
                self.unsettled_pods.clear();
            }
            Kind::Node => self.nodes.clear(),
            Kind::Namespace => self.namespaces.clear(),
            Kind::ReplicaSet => {
                self.replica_sets.clear();
                self.replica_sets_by_owner.clear();
            }
            Kind::Event => self.events = EventStore::default(),
            plain => {
                self.plain.clear(plain);
            }
        }
    }

    /// Forgets warning events last seen before `cutoff` (the live watcher bounds
    /// their age with this; a file is diagnosed with all it holds).
    pub fn prune_events(&mut self, cutoff: Time) {
        let pods = self.pods.len();
        let changes = &mut self.changes;
        self.events
            .prune(cutoff, &mut |subject| event_touched(changes, pods, subject));
    }

    /// The kinds held as they are (their lookups are `object.rs`'s).
    pub(crate) fn plain(&self) -> &PlainStores {
        &self.plain
    }

    /// Records that `kind` was listed even if no object of it exists, so that
    /// absence means "none" rather than "not looked at".
    pub fn mark_listed(&mut self, kind: Kind) {
        self.listed(kind);
    }

    fn listed(&mut self, kind: Kind) {
        // Whether a kind was listed at all changes what absence means.
        if self.listed.insert(kind) {
            self.changes.everything();
            self.changes.object();
        }
    }

    /// Notes what a change to the object `key` of `kind` may change of the
    /// pods' own findings (events note theirs as the store applies them).
    fn changed(&mut self, kind: Kind, key: &ObjectKey) {
        let pods = self.pods.len();
        if kind != Kind::Event {
            self.changes.object();
        }
        if kind.is_namespaced()
            && !matches!(kind, Kind::Pod | Kind::Event)
            && self.changes.logs_controllers()
        {
            self.changes.controller(kind.as_str(), key.clone());
        }
        match kind {
            Kind::Pod => {
                self.changes.pod(key, pods);
                if self.changes.logs_controllers()
                    && let Some(held) = self.pods.get(key)
                {
                    let meta = &held.metadata;
                    Self::controller_of_changed(&mut self.changes, meta);
                }
            }
            Kind::ReplicaSet => {
                if let Some(held) = self.replica_sets.get(key) {
                    Self::controller_of_changed(&mut self.changes, &held.metadata);
                }
            }
            // A pending pod reads every node (pressure taints) and claim.
            Kind::Node | Kind::ResourceClaim => self.changes.everything(),
            Kind::PersistentVolumeClaim => self.changes.everything(),
            Kind::Job => {
                let owner = OwnerKey::new(&key.namespace, Kind::Job, &key.name);
                for pod in self.pods_by_owner.get(&owner).into_iter().flatten() {
                    self.changes.pod(pod, pods);
                }
            }
            _ => {}
        }
    }

    fn controller_changed<L>(&mut self, meta: &Meta<L>) {
        Self::controller_of_changed(&mut self.changes, meta);
    }

    /// Notes that what `meta` is controlled by changed (one of its objects did).
    fn controller_of_changed<L>(changes: &mut ChangeLog, meta: &Meta<L>) {
        if changes.logs_controllers()
            && let Some(c) = meta.controller()
        {
            changes.controller(
                &c.kind,
                ObjectKey::new(meta.namespace.clone(), c.name.as_str()),
            );
        }
    }

    /// A count that moves with every change to an object other than a
    /// warning event: what reads no event reads the same model while it
    /// stays the same.
    pub fn objects_version(&self) -> u64 {
        self.changes.objects()
    }

    /// What changed since the last call (everything, the first time: the
    /// model starts keeping the log then).
    pub fn take_changes(&mut self) -> Changes {
        self.changes.take()
    }

    /// Whether objects of `kind` were listed at all. Without nodes, for instance,
    /// a pod's node cannot be called missing.
    pub(crate) fn has_listed(&self, kind: Kind) -> bool {
        self.listed.contains(&kind)
    }

    pub fn len(&self, kind: Kind) -> usize {
        match kind {
            Kind::Pod => self.pods.len(),
            Kind::Node => self.nodes.len(),
            Kind::Namespace => self.namespaces.len(),
            Kind::ReplicaSet => self.replica_sets.len(),
            Kind::Event => self.events.len(),
            plain => self.plain.len(plain).unwrap_or_default(),
        }
    }

    /// The pod indexes: by node, by controller, and whether it is unsettled.
    fn index_pod(&mut self, key: &Arc<ObjectKey>, pod: &Arc<Pod>) {
        let node = &pod.spec.node_name;
        index_insert(
            &mut self.pods_by_node,
            (!node.is_empty()).then(|| node.clone()),
            key,
        );
        index_insert(
            &mut self.pods_by_owner,
            OwnerKey::controller_of(&pod.metadata),
            key,
        );
        if !pod.is_settled() {
            self.unsettled_pods.insert(key.clone(), pod.clone());
        }
    }

    fn unindex_pod(&mut self, key: &ObjectKey) {
        let Some(old) = self.pods.get(key) else {
            return;
        };
        let node = old.spec.node_name.clone();
        let owner = OwnerKey::controller_of(&old.metadata);
        index_remove(&mut self.pods_by_node, Some(node), key);
        index_remove(&mut self.pods_by_owner, owner, key);
        self.unsettled_pods.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Uid;

    fn pod(json: &str) -> Object {
        Object::Pod(serde_json::from_str(json).unwrap())
    }

    /// A pod on node n1 and nothing more.
    fn on_n1(namespace: &str, name: &str) -> Object {
        pod(&format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"{namespace}"}},"spec":{{"nodeName":"n1"}}}}"#
        ))
    }

    /// What a model holds once every pod it listed is gone again.
    fn empty_with_pods_listed() -> Cluster {
        let mut empty = Cluster::new();
        empty.mark_listed(Kind::Pod);
        empty
    }

    #[test]
    fn indexes_follow_apply_update_and_delete() {
        let mut c = Cluster::new();
        c.apply(pod(
            r#"{"metadata":{"name":"a","namespace":"ns","ownerReferences":[
                {"kind":"ReplicaSet","name":"rs","uid":"u-rs","controller":true}]},
                "spec":{"nodeName":"n1"}}"#,
        ));
        assert_eq!(c.pods_on_node("n1").count(), 1);
        assert_eq!(
            c.pods_owned_by(Kind::ReplicaSet, "ns", "rs", &Uid::new("u-rs"))
                .count(),
            1
        );
        assert_eq!(
            c.pods_owned_by(Kind::ReplicaSet, "ns", "rs", &Uid::new("other-uid"))
                .count(),
            0
        );

        // Rescheduled onto another node: the old index entry goes.
        c.apply(pod(
            r#"{"metadata":{"name":"a","namespace":"ns"},"spec":{"nodeName":"n2"}}"#,
        ));
        assert_eq!(c.pods_on_node("n1").count(), 0);
        assert_eq!(c.pods_on_node("n2").count(), 1);
        assert_eq!(
            c.pods_owned_by(Kind::ReplicaSet, "ns", "rs", &Uid::new(""))
                .count(),
            0
        );

        c.delete(Kind::Pod, &ObjectKey::new("ns", "a"));
        assert_eq!(c.len(Kind::Pod), 0);
        assert_eq!(c.pods_on_node("n2").count(), 0);
        assert_eq!(c, empty_with_pods_listed());
    }

    /// A pod that runs, its containers started and its init container done.
    const RUNNING: &str = r#""status":{"phase":"Running","containerStatuses":[
            {"name":"app","state":{"running":{}}}],"initContainerStatuses":[
            {"name":"init","state":{"terminated":{"exitCode":0}}}]}"#;

    /// Pods settled and not, as (name, the pod's fields as JSON, settled); a
    /// pod given without `metadata` is named `name`.
    fn pod_shapes() -> [(&'static str, String, bool); 7] {
        let running = RUNNING;
        [
            (
                "ok",
                format!(r#""spec":{{"nodeName":"n1"}},{running}"#),
                true,
            ),
            (
                "done",
                r#""spec":{"nodeName":"n1"},"status":{"phase":"Succeeded"}"#.to_string(),
                true,
            ),
            (
                "unbound",
                r#""status":{"phase":"Pending"}"#.to_string(),
                false,
            ),
            (
                "creating",
                r#""spec":{"nodeName":"n1"},"status":{"phase":"Pending"}"#.to_string(),
                false,
            ),
            (
                "waiting",
                r#""spec":{"nodeName":"n1"},"status":{"phase":"Running","containerStatuses":[
                {"name":"app","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}"#
                    .to_string(),
                false,
            ),
            (
                "init-waiting",
                r#""spec":{"nodeName":"n1"},"status":{"phase":"Running","initContainerStatuses":[
                {"name":"init","state":{"waiting":{"reason":"ImagePullBackOff"}}}]}"#
                    .to_string(),
                false,
            ),
            (
                "deleting",
                format!(
                    r#""metadata":{{"name":"deleting","namespace":"ns",
                "deletionTimestamp":"2024-05-01T10:00:30Z"}},"spec":{{"nodeName":"n1"}},{running}"#
                ),
                false,
            ),
        ]
    }

    #[test]
    fn only_unsettled_pods_are_listed_for_the_per_pod_diagnoses() {
        let running = RUNNING;
        let shapes = pod_shapes();
        let mut c = Cluster::new();
        for (name, body, settled) in &shapes {
            let json = if body.contains("metadata") {
                format!("{{{body}}}")
            } else {
                format!(r#"{{"metadata":{{"name":"{name}","namespace":"ns"}},{body}}}"#)
            };
            let Object::Pod(p) = pod(&json) else {
                unreachable!()
            };
            assert_eq!(p.is_settled(), *settled, "{name}");
            c.apply(Object::Pod(p));
        }
        let unsettled = |c: &Cluster| -> Vec<String> {
            c.unsettled_pods()
                .map(|p| p.metadata.name.to_string())
                .collect()
        };
        assert_eq!(
            unsettled(&c),
            ["creating", "deleting", "init-waiting", "unbound", "waiting"]
        );

        // The index follows updates both ways, deletes and relists.
        c.apply(pod(&format!(
            r#"{{"metadata":{{"name":"waiting","namespace":"ns"}},"spec":{{"nodeName":"n1"}},{running}}}"#
        )));
        c.apply(pod(
            r#"{"metadata":{"name":"ok","namespace":"ns"},"spec":{"nodeName":"n1"},
                "status":{"phase":"Running","containerStatuses":[
                {"name":"app","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}"#,
        ));
        c.delete(Kind::Pod, &ObjectKey::new("ns", "unbound"));
        assert_eq!(
            unsettled(&c),
            ["creating", "deleting", "init-waiting", "ok"]
        );
        c.reset_namespace(Kind::Pod, "ns", []);
        assert!(unsettled(&c).is_empty());
        assert_eq!(c, empty_with_pods_listed());
    }

    #[test]
    fn pods_updated_in_any_order_leave_the_indexes_as_a_fresh_load_would() {
        // Pods hop between nodes, controllers and states; the model built by
        // the updates must equal the one built from the final versions alone.
        let states = [
            r#""status":{"phase":"Running"}"#,
            r#""status":{"phase":"Pending"}"#,
            r#""status":{"phase":"Running","containerStatuses":[
                {"name":"app","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}"#,
        ];
        let version = |i: u64| {
            let node = ["", "n1", "n2"][(i % 3) as usize];
            let owner = [
                "",
                r#","ownerReferences":[{"kind":"ReplicaSet","name":"a","controller":true}]"#,
                r#","ownerReferences":[{"kind":"ReplicaSet","name":"b","controller":true}]"#,
            ][(i / 3 % 3) as usize];
            let state = states[(i / 9 % 3) as usize];
            let deleting = if i / 27 % 2 == 1 {
                r#","deletionTimestamp":"2024-05-01T10:00:30Z""#
            } else {
                ""
            };
            format!(
                r#"{{"metadata":{{"name":"p{}","namespace":"ns","annotations":{{"rev":"{i}"}}{owner}{deleting}}},
                    "spec":{{"nodeName":"{node}"}},{state}}}"#,
                i % 5
            )
        };
        let mut updated = Cluster::new();
        let mut last = BTreeMap::new();
        let mut x: u64 = 7;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let i = (x >> 33) % 270;
            let json = version(i).replace(&format!(r#""p{}""#, i % 5), &format!(r#""p{}""#, x % 5));
            updated.apply(pod(&json));
            last.insert(x % 5, json);
        }
        let mut fresh = Cluster::new();
        for json in last.values() {
            fresh.apply(pod(json));
        }
        assert_eq!(updated, fresh);
    }

    #[test]
    fn a_namespace_relist_leaves_other_namespaces_alone() {
        let mut c = Cluster::new();
        c.apply(on_n1("one", "a"));
        c.apply(on_n1("two", "b"));
        c.reset_namespace(Kind::Pod, "one", []);
        let names: Vec<_> = c.pods().map(|p| p.metadata.name.as_str()).collect();
        assert_eq!(names, ["b"]);
        assert_eq!(c.pods_on_node("n1").count(), 1);
    }

    #[test]
    fn reset_drops_what_the_relist_no_longer_has() {
        let mut c = Cluster::new();
        c.apply(on_n1("ns", "gone"));
        c.apply(on_n1("ns", "kept"));
        c.reset(Kind::Pod, [on_n1("ns", "kept")]);
        let names: Vec<_> = c
            .pods_on_node("n1")
            .map(|p| p.metadata.name.as_str())
            .collect();
        assert_eq!(names, ["kept"]);
    }
}
