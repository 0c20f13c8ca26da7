//! What the diagnosis reads of the cluster: the objects of each kind, and
//! the lookups through its indexes (pods by node and by owner, unsettled pods,
//! a Deployment's ReplicaSets, the warning events about an object).

use std::sync::Arc;

use super::Cluster;
use crate::model::event::Event;
use crate::model::kind::Kind;
use crate::model::meta::ObjectKey;
use crate::model::namespace::Namespace;
use crate::model::node::Node;
use crate::model::owner::{OwnerKey, owner_uid_agrees};
use crate::model::pod::Pod;
use crate::model::uid::Uid;
use crate::model::workload::{Deployment, ReplicaSet};

impl Cluster {
    /// Every pod, in no particular order.
    pub fn pods(&self) -> impl Iterator<Item = &Pod> {
        self.pods.values().map(|p| &**p)
    }

    /// The pods that are not [settled](Pod::is_settled), in key order: every pod
    /// the Terminating, Pending and container diagnoses can report.
    pub(crate) fn unsettled_pods(&self) -> impl Iterator<Item = &Pod> {
        self.unsettled_pods.values().map(|p| &**p)
    }

    /// [`Cluster::unsettled_pods`] with their keys.
    pub(crate) fn unsettled_pods_keyed(&self) -> impl Iterator<Item = (&Arc<ObjectKey>, &Pod)> {
        self.unsettled_pods.iter().map(|(k, p)| (k, &**p))
    }

    pub fn pod(&self, key: &ObjectKey) -> Option<&Pod> {
        self.pods.get(key).map(|p| &**p)
    }

    pub fn namespace(&self, name: &str) -> Option<&Namespace> {
        self.namespaces.get(name)
    }

    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.values()
    }

    pub fn node(&self, name: &str) -> Option<&Node> {
        self.nodes.get(name)
    }

    pub fn namespaces(&self) -> impl Iterator<Item = &Namespace> {
        self.namespaces.values()
    }

    pub(crate) fn replica_sets(&self) -> impl Iterator<Item = &ReplicaSet> {
        self.replica_sets.values().map(|r| &**r)
    }

    pub(crate) fn replica_set(&self, key: &ObjectKey) -> Option<&ReplicaSet> {
        self.replica_sets.get(key).map(|r| &**r)
    }

    /// Pods bound to a node.
    pub(crate) fn pods_on_node<'a>(&'a self, node: &str) -> impl Iterator<Item = &'a Pod> + 'a {
        self.pods_by_node
            .get(node)
            .into_iter()
            .flatten()
            .filter_map(|k| self.pod(k))
    }

    /// Pods whose controller is the named object. When both sides know the
    /// owner's uid they must agree, so a recreated namesake does not adopt pods.
    pub(crate) fn pods_owned_by<'a>(
        &'a self,
        kind: Kind,
        namespace: &str,
        name: &str,
        uid: &'a Uid,
    ) -> impl Iterator<Item = &'a Pod> + 'a {
        self.pods_by_owner
            .get(&OwnerKey::new(namespace, kind, name))
            .into_iter()
            .flatten()
            .filter_map(|k| self.pod(k))
            .filter(move |p| owner_uid_agrees(&p.metadata, uid))
    }

    /// ReplicaSets whose controller is the named Deployment.
    pub(crate) fn replica_sets_of<'a>(
        &'a self,
        deployment: &'a Deployment,
    ) -> impl Iterator<Item = &'a ReplicaSet> + 'a {
        let d = &deployment.metadata;
        self.replica_sets_by_owner
            .get(&OwnerKey::new(&d.namespace, Kind::Deployment, &d.name))
            .into_iter()
            .flatten()
            .filter_map(|k| self.replica_sets.get(k))
            .map(|rs| &**rs)
            .filter(move |rs| owner_uid_agrees(&rs.metadata, &d.uid))
    }

    /// Warning events about an object, oldest first. Events that name a
    /// different uid are about an earlier object of the same name and are left out.
    pub(crate) fn events_about<'a>(
        &'a self,
        kind: Kind,
        namespace: &str,
        name: &str,
        uid: &Uid,
    ) -> impl Iterator<Item = &'a Event> + 'a {
        let mut list: Vec<&Event> = self
            .events
            .about(namespace, kind.as_str(), name)
            .iter()
            .filter(|e| e.regarding.uid.is_empty() || uid.is_empty() || *uid == e.regarding.uid)
            .collect();
        list.sort_by_key(|e| (e.last_seen, e.key.name.clone()));
        list.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use crate::model::event_store::MAX_EVENTS_PER_OBJECT;
    use crate::model::{Cluster, CoreEvent, Kind, Name, Object, ObjectKey, Uid};

    fn warning(name: &str, pod_uid: &str, last: &str) -> Object {
        let e: CoreEvent = serde_json::from_str(&format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"ns"}},"type":"Warning","reason":"Failed",
                "message":"m","involvedObject":{{"kind":"Pod","name":"p","namespace":"ns","uid":"{pod_uid}"}},
                "lastTimestamp":"{last}"}}"#
        ))
        .unwrap();
        Object::Event(e.into())
    }

    #[test]
    fn events_are_bounded_filtered_by_uid_and_prunable() {
        let mut c = Cluster::new();
        for i in 0..(MAX_EVENTS_PER_OBJECT + 4) {
            c.apply(warning(
                &format!("e{i:02}"),
                "u1",
                &format!("2024-05-01T10:{i:02}:00Z"),
            ));
        }
        c.apply(warning("old-pod", "u0", "2024-05-01T11:00:00Z"));
        let seen: Vec<_> = c
            .events_about(Kind::Pod, "ns", "p", &Uid::new("u1"))
            .map(|e| e.key.name.clone())
            .collect();
        assert_eq!(seen.len(), MAX_EVENTS_PER_OBJECT - 1);
        assert_eq!(seen.first().map(Name::as_str), Some("e05"));
        c.prune_events("2024-05-01T10:15:00Z".parse().unwrap());
        assert_eq!(
            c.events_about(Kind::Pod, "ns", "p", &Uid::new("u1"))
                .count(),
            5
        );
        c.delete(Kind::Event, &ObjectKey::new("ns", "e19"));
        assert_eq!(
            c.events_about(Kind::Pod, "ns", "p", &Uid::new("u1"))
                .count(),
            4
        );
    }

    #[test]
    fn normal_events_are_not_kept_but_probe_kills() {
        let mut c = Cluster::new();
        let normal = |name: &str, reason: &str, message: &str| -> Object {
            let e: CoreEvent = serde_json::from_str(&format!(
                r#"{{"metadata":{{"name":"{name}","namespace":"ns"}},"type":"Normal","reason":"{reason}",
                    "message":"{message}","involvedObject":{{"kind":"Pod","name":"p","namespace":"ns"}}}}"#
            ))
            .unwrap();
            Object::Event(e.into())
        };
        c.apply(normal("e", "Pulled", "Successfully pulled image"));
        c.apply(normal("k1", "Killing", "Stopping container app"));
        assert_eq!(c.len(Kind::Event), 0);
        c.apply(normal(
            "k2",
            "Killing",
            "Container app failed liveness probe, will be restarted",
        ));
        assert_eq!(c.len(Kind::Event), 1);
    }
}
