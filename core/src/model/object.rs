//! The objects of the kinds the model holds, and the type each kind decodes
//! into: the dispatch from a [`Kind`] to its type, which every source uses.

use std::fmt::Debug;

use serde::de::DeserializeOwned;

use super::controllers::{Job, ReplicationController};
use super::event::{CoreEvent, Event};
use super::kind::Kind;
use super::meta::{Meta, ObjectKey};
use super::name::Name;
use super::namespace::Namespace;
use super::node::Node;
use super::pod::Pod;
use super::resource_claim::ResourceClaim;
use super::uid::Uid;
use super::workload::{DaemonSet, Deployment, ReplicaSet, StatefulSet};

/// One object of a kind the model holds. Objects only pass through on their
/// way into the model, so the size difference between kinds costs nothing held.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)]
pub enum Object {
    Pod(Pod),
    Node(Node),
    Namespace(Namespace),
    Deployment(Deployment),
    ReplicaSet(ReplicaSet),
    StatefulSet(StatefulSet),
    DaemonSet(DaemonSet),
    ReplicationController(ReplicationController),
    Job(Job),
    Event(Event),
    ResourceClaim(ResourceClaim),
}

impl Object {
    pub fn kind(&self) -> Kind {
        match self {
            Object::Pod(_) => Kind::Pod,
            Object::Node(_) => Kind::Node,
            Object::Namespace(_) => Kind::Namespace,
            Object::Deployment(_) => Kind::Deployment,
            Object::ReplicaSet(_) => Kind::ReplicaSet,
            Object::StatefulSet(_) => Kind::StatefulSet,
            Object::DaemonSet(_) => Kind::DaemonSet,
            Object::ReplicationController(_) => Kind::ReplicationController,
            Object::Job(_) => Kind::Job,
            Object::Event(_) => Kind::Event,
            Object::ResourceClaim(_) => Kind::ResourceClaim,
        }
    }

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
            Object::Deployment(o) => ObjectKey::from(&o.metadata),
            Object::ReplicaSet(o) => ObjectKey::from(&o.metadata),
            Object::StatefulSet(o) => ObjectKey::from(&o.metadata),
            Object::DaemonSet(o) => ObjectKey::from(&o.metadata),
            Object::ReplicationController(o) => ObjectKey::from(&o.metadata),
            Object::Job(o) => ObjectKey::from(&o.metadata),
            Object::Event(o) => o.key.clone(),
            Object::ResourceClaim(o) => ObjectKey::from(&o.metadata),
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

impl Kind {
    /// Calls `visitor` with the type this kind decodes into.
    pub fn visit<V: KindVisitor>(self, visitor: V) -> V::Output {
        match self {
            Kind::Pod => visitor.visit::<Pod>(),
            Kind::Node => visitor.visit::<Node>(),
            Kind::Namespace => visitor.visit::<Namespace>(),
            Kind::Deployment => visitor.visit::<Deployment>(),
            Kind::ReplicaSet => visitor.visit::<ReplicaSet>(),
            Kind::StatefulSet => visitor.visit::<StatefulSet>(),
            Kind::DaemonSet => visitor.visit::<DaemonSet>(),
            Kind::ReplicationController => visitor.visit::<ReplicationController>(),
            Kind::Job => visitor.visit::<Job>(),
            // The core v1 Event (what a list or watch of `events` serves).
            Kind::Event => visitor.visit::<CoreEvent>(),
            Kind::ResourceClaim => visitor.visit::<ResourceClaim>(),
        }
    }
}

/// Name, namespace and resourceVersion.
fn parts<L>(m: &Meta<L>) -> (&str, &str, &str) {
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

slim!(Pod, Pod, |o| Object::Pod(o));
slim!(Node, Node, |o| Object::Node(o));
slim!(Namespace, Namespace, |o| Object::Namespace(o));
slim!(Deployment, Deployment, |o| Object::Deployment(o));
slim!(ReplicaSet, ReplicaSet, |o| Object::ReplicaSet(o));
slim!(StatefulSet, StatefulSet, |o| Object::StatefulSet(o));
slim!(DaemonSet, DaemonSet, |o| Object::DaemonSet(o));
slim!(ReplicationController, ReplicationController, |o| {
    Object::ReplicationController(o)
});
slim!(Job, Job, |o| Object::Job(o));
slim!(ResourceClaim, ResourceClaim, |o| Object::ResourceClaim(o));
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
