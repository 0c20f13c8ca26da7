//! The kinds as kube's `Api` reads them. [`Watched`] decodes straight into the
//! model's type ([`Slim`]), so no whole object is ever held; the list-watch
//! reads the resourceVersion from the slim type's own metadata. Where each
//! kind is served comes from the model's table of kinds.

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::DynamicResourceScope;
use kube::{Api, Client};
use serde::de::{Deserialize, Deserializer};

use crate::model::{Object, Slim};

/// Objects per list page, client-go's default.
pub(crate) const PAGE_SIZE: u32 = 500;

/// A slim object as received from a list or watch. It is a `kube::Resource`
/// only so that `Api` can build its URLs; its kube `ObjectMeta` is empty
/// unless something writes to it (nothing in the exporter does).
#[derive(Debug, Clone)]
pub struct Watched<T> {
    meta: Option<Box<ObjectMeta>>,
    pub object: T,
}

impl<T: Slim> Watched<T> {
    pub(crate) fn into_object(self) -> Object {
        self.object.into_object()
    }

    pub(crate) fn name(&self) -> &str {
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
    // The scope is the kind table's to say, at run time ([`api`]).
    type Scope = DynamicResourceScope;

    fn kind(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(T::KIND.as_str())
    }

    fn group(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(T::KIND.group())
    }

    fn version(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(T::KIND.version())
    }

    fn plural(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(T::KIND.plural())
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

/// The `Api` of a kind: in `namespace` when given and the kind is namespaced,
/// else across the cluster.
pub(crate) fn api<T: Slim>(client: Client, namespace: Option<&str>) -> Api<Watched<T>> {
    match namespace {
        Some(namespace) if T::KIND.is_namespaced() => Api::namespaced_with(client, namespace, &()),
        _ => Api::all_with(client, &()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DaemonSet, Pod};
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
