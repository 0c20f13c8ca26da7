//! The slim kinds as the exporter lists and watches them. [`Watched`] decodes
//! straight into the model's type, so no whole object is ever held; the
//! list-watch reads the resourceVersion from the slim type's own metadata.

use std::borrow::Cow;
use std::fmt::Debug;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use serde::de::{Deserialize, DeserializeOwned, Deserializer};

use crate::model::{
    CoreEvent, DaemonSet, Deployment, Event, Kind, Meta, Name, Namespace, Node, Object, Pod,
    ReplicaSet, StatefulSet,
};

/// A model type the exporter watches.
pub trait Slim: DeserializeOwned + Clone + Debug + Send + Sync + 'static {
    const KIND: Kind;
    const GROUP: &'static str;
    const VERSION: &'static str;
    const PLURAL: &'static str;
    type Scope;

    fn meta(&self) -> (&str, &str, &str);
    fn into_object(self) -> Object;
}

/// Name, namespace and resourceVersion.
fn parts<L>(m: &Meta<L>) -> (&str, &str, &str) {
    (&m.name, &m.namespace, &m.resource_version)
}

macro_rules! slim {
    ($ty:ty, $kind:ident, $group:literal, $version:literal, $plural:literal, $scope:ty, |$o:ident| $into:expr) => {
        impl Slim for $ty {
            const KIND: Kind = Kind::$kind;
            const GROUP: &'static str = $group;
            const VERSION: &'static str = $version;
            const PLURAL: &'static str = $plural;
            type Scope = $scope;

            fn meta(&self) -> (&str, &str, &str) {
                parts(&self.metadata)
            }

            fn into_object(self) -> Object {
                let mut $o = self;
                // The resourceVersion is the watcher's business, not the model's.
                $o.metadata.resource_version = Name::default();
                $into
            }
        }
    };
}

slim!(Pod, Pod, "", "v1", "pods", NamespaceResourceScope, |o| {
    Object::Pod(o)
});
slim!(Node, Node, "", "v1", "nodes", ClusterResourceScope, |o| {
    Object::Node(o)
});
slim!(
    Namespace,
    Namespace,
    "",
    "v1",
    "namespaces",
    ClusterResourceScope,
    |o| Object::Namespace(o)
);
slim!(
    Deployment,
    Deployment,
    "apps",
    "v1",
    "deployments",
    NamespaceResourceScope,
    |o| Object::Deployment(o)
);
slim!(
    ReplicaSet,
    ReplicaSet,
    "apps",
    "v1",
    "replicasets",
    NamespaceResourceScope,
    |o| Object::ReplicaSet(o)
);
slim!(
    StatefulSet,
    StatefulSet,
    "apps",
    "v1",
    "statefulsets",
    NamespaceResourceScope,
    |o| Object::StatefulSet(o)
);
slim!(
    DaemonSet,
    DaemonSet,
    "apps",
    "v1",
    "daemonsets",
    NamespaceResourceScope,
    |o| Object::DaemonSet(o)
);
slim!(
    CoreEvent,
    Event,
    "",
    "v1",
    "events",
    NamespaceResourceScope,
    |o| Object::Event(Event::from(o))
);

/// A slim object as received from a list or watch. It is a `kube::Resource`
/// only so that `Api` can build its URLs; its kube `ObjectMeta` is empty
/// unless something writes to it (nothing in the exporter does).
#[derive(Debug, Clone)]
pub struct Watched<T> {
    meta: Option<Box<ObjectMeta>>,
    pub object: T,
}

impl<T: Slim> Watched<T> {
    pub fn into_object(self) -> Object {
        self.object.into_object()
    }

    pub fn namespace(&self) -> &str {
        self.object.meta().1
    }

    pub fn name(&self) -> &str {
        self.object.meta().0
    }
}

impl<'de, T: Slim> Deserialize<'de> for Watched<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Watched {
            meta: None,
            object: T::deserialize(deserializer)?,
        })
    }
}

impl<T: Slim> kube::Resource for Watched<T> {
    type DynamicType = ();
    type Scope = T::Scope;

    fn kind(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(T::KIND.as_str())
    }

    fn group(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(T::GROUP)
    }

    fn version(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(T::VERSION)
    }

    fn plural(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(T::PLURAL)
    }

    fn meta(&self) -> &ObjectMeta {
        static EMPTY: std::sync::LazyLock<ObjectMeta> =
            std::sync::LazyLock::new(ObjectMeta::default);
        self.meta.as_deref().unwrap_or(&EMPTY)
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        self.meta.get_or_insert_default()
    }
}

/// The plural resource name of a kind, as RBAC rules and URLs spell it.
pub fn plural(kind: Kind) -> &'static str {
    match kind {
        Kind::Pod => Pod::PLURAL,
        Kind::Node => Node::PLURAL,
        Kind::Namespace => Namespace::PLURAL,
        Kind::Deployment => Deployment::PLURAL,
        Kind::ReplicaSet => ReplicaSet::PLURAL,
        Kind::StatefulSet => StatefulSet::PLURAL,
        Kind::DaemonSet => DaemonSet::PLURAL,
        Kind::Event => CoreEvent::PLURAL,
    }
}

/// The API group of a kind (`""` for core).
pub fn group(kind: Kind) -> &'static str {
    match kind {
        Kind::Pod => Pod::GROUP,
        Kind::Node => Node::GROUP,
        Kind::Namespace => Namespace::GROUP,
        Kind::Deployment => Deployment::GROUP,
        Kind::ReplicaSet => ReplicaSet::GROUP,
        Kind::StatefulSet => StatefulSet::GROUP,
        Kind::DaemonSet => DaemonSet::GROUP,
        Kind::Event => CoreEvent::GROUP,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::Resource;

    #[test]
    fn a_watched_pod_is_the_slim_pod_with_its_resource_version() {
        let w: Watched<Pod> = serde_json::from_str(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"u",
                "resourceVersion":"42","labels":{"a":"b"},"managedFields":[{"manager":"x"}]},
                "spec":{"nodeName":"n1"}}"#,
        )
        .unwrap();
        assert_eq!(w.object.meta(), ("p", "ns", "42"));
        assert_eq!(w.meta(), &ObjectMeta::default());
        assert_eq!(
            Watched::<Pod>::url_path(&(), Some("ns")),
            "/api/v1/namespaces/ns/pods"
        );
        assert_eq!(
            Watched::<DaemonSet>::url_path(&(), None),
            "/apis/apps/v1/daemonsets"
        );
        match w.into_object() {
            Object::Pod(p) => {
                assert_eq!(p.spec.node_name, "n1");
                assert!(p.metadata.resource_version.is_empty());
            }
            other => panic!("{other:?}"),
        }
    }
}
