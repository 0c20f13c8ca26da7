//! The objects of the kinds the model holds, and the type each kind decodes
//! into: the dispatch from a [`Kind`] to its type, which every source uses.

use std::collections::BTreeMap;
use std::fmt::Debug;

use serde::de::DeserializeOwned;

use super::cluster::Cluster;
use super::controllers::{CronJob, Job, ReplicationController};
use super::event::{CoreEvent, Event};
use super::kind::Kind;
use super::meta::{Meta, ObjectKey};
use super::name::Name;
use super::namespace::Namespace;
use super::node::Node;
use super::persistent_volume_claim::PersistentVolumeClaim;
use super::pod::Pod;
use super::pod_disruption_budget::PodDisruptionBudget;
use super::resource_claim::ResourceClaim;
use super::uid::Uid;
use super::workload::{DaemonSet, Deployment, ReplicaSet, StatefulSet};

/// Name, namespace and resourceVersion.
fn parts<L, M>(m: &Meta<L, M>) -> (&str, &str, &str) {
    (&m.name, &m.namespace, &m.resource_version)
}

macro_rules! slim {
    ($ty:ty, $kind:ident, |$o:ident| $into:expr) => {
        impl Slim for $ty {
            const KIND: Kind = Kind::$kind;

            fn meta(&self) -> (&str, &str, &str) {
                parts(&self.metadata)
            }

            fn into_object(self) -> Object {
                let mut $o = self;
                $o.metadata.resource_version = Name::default();
                $into
            }
        }
    };
}

/// Declares the kinds the model holds, each once: the variant of [`Object`]
/// it decodes into and the type it decodes from (a kind the cluster indexes
/// in its own way), or, for a kind held as it is by key with no index of its
/// own, the name of its store and of its lookup by namespace and name. From
/// here come [`Object`], [`Kind::visit`], the plain kinds' stores and the
/// cluster's lookups of them (`cluster.cron_jobs()`, `cluster.cron_job(ns,
/// name)`): adding a plain kind is a row here and one in `kind.rs`'s table.
macro_rules! objects {
    (
        indexed { $( $iv:ident($ity:ty) from $iwire:ty, )+ }
        plain { $( $pv:ident($pty:ty) in $store:ident / $one:ident, )+ }
    ) => {
        /// One object of a kind the model holds. Objects only pass through on
        /// their way into the model, so the size difference between kinds
        /// costs nothing held.
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[allow(clippy::large_enum_variant)]
        pub enum Object {
            $( $iv($ity), )+
            $( $pv($pty), )+
        }

        impl Object {
            pub fn kind(&self) -> Kind {
                match self {
                    $( Object::$iv(_) => Kind::$iv, )+
                    $( Object::$pv(_) => Kind::$pv, )+
                }
            }

            /// The key of an object of a plain kind: its namespace and name.
            fn plain_key(&self) -> ObjectKey {
                match self {
                    $( Object::$pv(o) => ObjectKey::from(&o.metadata), )+
                    _ => ObjectKey::default(),
                }
            }
        }

        impl Kind {
            /// Calls `visitor` with the type this kind decodes into.
            pub fn visit<V: KindVisitor>(self, visitor: V) -> V::Output {
                match self {
                    $( Kind::$iv => visitor.visit::<$iwire>(), )+
                    $( Kind::$pv => visitor.visit::<$pty>(), )+
                }
            }
        }

        $( slim!($pty, $pv, |o| Object::$pv(o)); )+

        /// The kinds held as they are, by key, each in a B-tree of its own
        /// (boxed: a B-tree's spare slots then cost a pointer each rather
        /// than a whole object).
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub(crate) struct PlainStores {
            $( $store: BTreeMap<ObjectKey, Box<$pty>>, )+
        }

        impl PlainStores {
            /// Holds `object` under `key` if it is of a plain kind; hands it
            /// back otherwise.
            pub(crate) fn apply(&mut self, key: ObjectKey, object: Object) -> Option<Object> {
                match object {
                    $( Object::$pv(o) => {
                        self.$store.insert(key, Box::new(o));
                        None
                    } )+
                    other => Some(other),
                }
            }

            /// Whether `kind` is a plain kind (then `key` is removed).
            pub(crate) fn delete(&mut self, kind: Kind, key: &ObjectKey) -> bool {
                match kind {
                    $( Kind::$pv => {
                        self.$store.remove(key);
                        true
                    } )+
                    _ => false,
                }
            }

            /// Whether `kind` is a plain kind (then its objects are gone).
            pub(crate) fn clear(&mut self, kind: Kind) -> bool {
                match kind {
                    $( Kind::$pv => {
                        self.$store.clear();
                        true
                    } )+
                    _ => false,
                }
            }

            /// The keys held of `kind`, if it is a plain kind.
            pub(crate) fn keys(&self, kind: Kind) -> Option<Vec<ObjectKey>> {
                match kind {
                    $( Kind::$pv => Some(self.$store.keys().cloned().collect()), )+
                    _ => None,
                }
            }

            /// How many of `kind` are held, if it is a plain kind.
            pub(crate) fn len(&self, kind: Kind) -> Option<usize> {
                match kind {
                    $( Kind::$pv => Some(self.$store.len()), )+
                    _ => None,
                }
            }

            /// A copy of every object held, kind by kind.
            #[cfg(any(test, feature = "testing"))]
            pub(crate) fn objects(&self) -> impl Iterator<Item = Object> + '_ {
                std::iter::empty()
                    $( .chain(self.$store.values().map(|o| Object::$pv((**o).clone()))) )+
            }
        }

        impl Cluster {
            $(
                #[doc = concat!("Every ", stringify!($pv), " held, by namespace and name.")]
                pub fn $store(&self) -> impl Iterator<Item = &$pty> {
                    self.plain().$store.values().map(|o| &**o)
                }

                #[doc = concat!("The ", stringify!($pv), " `namespace`/`name`, if held.")]
                pub fn $one(&self, namespace: &str, name: &str) -> Option<&$pty> {
                    self.plain()
                        .$store
                        .get(&ObjectKey::new(namespace, name))
                        .map(|o| &**o)
                }
            )+
        }
    };
}

objects! {
    indexed {
        Pod(Pod) from Pod,
        Node(Node) from Node,
        Namespace(Namespace) from Namespace,
        ReplicaSet(ReplicaSet) from ReplicaSet,
        // The core v1 Event (what a list or watch of `events` serves).
        Event(Event) from CoreEvent,
    }
    plain {
        Deployment(Deployment) in deployments / deployment,
        StatefulSet(StatefulSet) in stateful_sets / stateful_set,
        DaemonSet(DaemonSet) in daemon_sets / daemon_set,
        ReplicationController(ReplicationController) in replication_controllers / replication_controller,
        Job(Job) in jobs / job,
        ResourceClaim(ResourceClaim) in resource_claims / resource_claim,
        PersistentVolumeClaim(PersistentVolumeClaim) in persistent_volume_claims / persistent_volume_claim,
        CronJob(CronJob) in cron_jobs / cron_job,
        PodDisruptionBudget(PodDisruptionBudget) in pod_disruption_budgets / pod_disruption_budget,
    }
}

impl Object {
    /// The uid of a pod or namespace: what tells a recreated object from the
    /// one it replaced.
    pub fn uid(&self) -> Option<&Uid> {
        match self {
            Object::Pod(o) => Some(&o.metadata.uid),
            Object::Namespace(o) => Some(&o.metadata.uid),
            _ => None,
        }
    }

    /// Namespace and name (namespace empty for cluster-scoped kinds).
    pub fn key(&self) -> ObjectKey {
        match self {
            Object::Pod(o) => ObjectKey::from(&o.metadata),
            Object::Node(o) => ObjectKey::new("", o.metadata.name.clone()),
            Object::Namespace(o) => ObjectKey::new("", o.metadata.name.clone()),
            Object::ReplicaSet(o) => ObjectKey::from(&o.metadata),
            Object::Event(o) => o.key.clone(),
            other => other.plain_key(),
        }
    }
}

/// The type a kind's objects decode into, as the API serves them.
pub trait Slim: DeserializeOwned + Clone + Debug + Send + Sync + 'static {
    const KIND: Kind;

    /// Name, namespace and resourceVersion.
    fn meta(&self) -> (&str, &str, &str);

    /// The object as the model holds it: without its resourceVersion, which
    /// is a source's business, not the model's.
    fn into_object(self) -> Object;
}

/// Something to do with the type of a kind chosen at run time ([`Kind::visit`]).
pub trait KindVisitor {
    type Output;
    fn visit<T: Slim>(self) -> Self::Output;
}

slim!(Pod, Pod, |o| Object::Pod(o));
slim!(Node, Node, |o| Object::Node(o));
slim!(Namespace, Namespace, |o| Object::Namespace(o));
slim!(ReplicaSet, ReplicaSet, |o| Object::ReplicaSet(o));
slim!(CoreEvent, Event, |o| Object::Event(Event::from(o)));

#[cfg(test)]
mod tests {
    use super::*;

    /// The kind each type says it is.
    struct KindOf;

    impl KindVisitor for KindOf {
        type Output = Kind;
        fn visit<T: Slim>(self) -> Kind {
            T::KIND
        }
    }

    #[test]
    fn every_kind_decodes_into_a_type_of_that_kind() {
        for kind in Kind::ALL {
            assert_eq!(kind.visit(KindOf), kind);
        }
    }

    #[test]
    fn an_object_leaves_its_resource_version_behind() {
        let pod: Pod = serde_json::from_str(
            r#"{"metadata":{"name":"p","namespace":"ns","resourceVersion":"42"}}"#,
        )
        .unwrap();
        assert_eq!(pod.meta(), ("p", "ns", "42"));
        match pod.into_object() {
            Object::Pod(p) => assert!(p.metadata.resource_version.is_empty()),
            other => panic!("{other:?}"),
        }
    }
}
