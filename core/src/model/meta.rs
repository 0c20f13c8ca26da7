//! Object metadata and the deserialization helpers every slim type shares.
//!
//! Kubernetes JSON uses a missing field, `null` and an empty value interchangeably
//! (`"finalizers": null` is as common as no `finalizers` key), so every collection
//! here goes through [`nullable`].

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;
use serde::{Deserialize, Deserializer, de::IgnoredAny};

use super::name::{Name, SharedSet, interned};
use super::uid::Uid;

pub use super::time::Time;

/// Deserializes `null` like a missing field: into the type's default.
pub fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A list as the model holds it: exactly its length, and a pointer and a
/// length inline (a `Vec` grows by doubling while it is parsed, and carries its
/// capacity; the model of a large cluster keeps several lists per pod).
pub type List<T> = Box<[T]>;

/// Like [`nullable`] for a list, held as a [`List`].
pub(crate) fn compact<'de, D, T>(deserializer: D) -> Result<List<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let list: Vec<T> = nullable(deserializer)?;
    Ok(list.into_boxed_slice())
}

/// A field whose content the diagnosis never reads: it is skipped while parsing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NotKept;

impl<'de> Deserialize<'de> for NotKept {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(deserializer)?;
        Ok(NotKept)
    }
}

/// Labels, kept only on the kinds whose labels the diagnosis matches (nodes).
pub type Labels = BTreeMap<String, String>;

/// The part of `metadata` the diagnosis reads. `L` is [`Labels`] where labels are
/// needed and [`NotKept`] elsewhere, so pods do not carry their labels in memory;
/// `M` what a kind reads of `managedFields` (a node: when its cordon was written).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(
    rename_all = "camelCase",
    bound(deserialize = "L: Deserialize<'de> + Default, M: Deserialize<'de> + Default")
)]
pub struct Meta<L = NotKept, M = NotKept> {
    #[serde(default, deserialize_with = "nullable")]
    pub name: Name,
    /// Empty for cluster-scoped objects. Interned: a namespace's objects share it.
    #[serde(default, deserialize_with = "interned")]
    pub namespace: Name,
    #[serde(default, deserialize_with = "nullable")]
    pub uid: Uid,
    /// Needed by the watcher to resume; cleared before an object is stored.
    #[serde(default, deserialize_with = "nullable")]
    pub resource_version: Name,
    #[serde(default, deserialize_with = "super::time::optional")]
    pub creation_timestamp: Option<Time>,
    /// The deadline: request time plus `deletionGracePeriodSeconds`
    /// (apiserver `BeforeDelete`, staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go).
    #[serde(default, deserialize_with = "super::time::optional")]
    pub deletion_timestamp: Option<Time>,
    #[serde(default)]
    pub deletion_grace_period_seconds: Option<i64>,
    #[serde(default, deserialize_with = "compact")]
    pub finalizers: List<String>,
    /// The owner reference with `controller: true`, the only one the diagnosis
    /// follows (the others are dropped while parsing). The objects of one
    /// controller share one copy: see [`shared_controller`].
    #[serde(
        rename = "ownerReferences",
        default,
        deserialize_with = "shared_controller"
    )]
    pub controller_ref: Option<Arc<OwnerReference>>,
    #[serde(default, deserialize_with = "nullable")]
    pub labels: L,
    #[serde(default, deserialize_with = "nullable")]
    pub managed_fields: M,
}

impl<L, M> Meta<L, M> {
    /// The owner reference with `controller: true`, the one controllers act on.
    pub fn controller(&self) -> Option<&OwnerReference> {
        self.controller_ref.as_deref()
    }
}

/// The controller references held, one copy each: the ten pods of a ReplicaSet
/// name it in the same words, and a copy per pod was a list and three
/// strings.
static CONTROLLER_REFERENCES: LazyLock<Mutex<SharedSet<OwnerReference>>> =
    LazyLock::new(|| Mutex::new(SharedSet::default()));

/// Reads `ownerReferences` down to the controller's, shared with every other
/// object that names the same controller in the same words.
fn shared_controller<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Arc<OwnerReference>>, D::Error> {
    let all: Vec<OwnerReference> = nullable(deserializer)?;
    Ok(all.into_iter().find(|o| o.controller).map(|o| {
        CONTROLLER_REFERENCES
            .lock()
            .share(&o, || Arc::new(o.clone()))
    }))
}

/// An owner reference; its kind interned (a handful), its name held once
/// for every object that names it (see [`shared_controller`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default, deserialize_with = "interned")]
    pub kind: Name,
    #[serde(default, deserialize_with = "nullable")]
    pub name: Name,
    #[serde(default, deserialize_with = "nullable")]
    pub uid: String,
    #[serde(default, deserialize_with = "nullable")]
    pub controller: bool,
}

/// `True`, `False` or `Unknown`, as conditions spell it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum ConditionStatus {
    True,
    False,
    #[default]
    #[serde(other)]
    Unknown,
}

/// A status condition of any kind (pods, nodes, namespaces share this shape).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: String,
    #[serde(default)]
    pub status: ConditionStatus,
    #[serde(default, deserialize_with = "nullable")]
    pub reason: String,
    #[serde(default, deserialize_with = "nullable")]
    pub message: String,
    #[serde(default, deserialize_with = "super::time::optional")]
    pub last_transition_time: Option<Time>,
}

/// The namespace and name that identify a namespaced object (namespace empty when cluster-scoped).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub namespace: Name,
    pub name: Name,
}

impl ObjectKey {
    pub fn new(namespace: impl Into<Name>, name: impl Into<Name>) -> Self {
        ObjectKey {
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

impl<L, M> From<&Meta<L, M>> for ObjectKey {
    fn from(meta: &Meta<L, M>) -> Self {
        ObjectKey::new(meta.namespace.clone(), meta.name.clone())
    }
}

impl std::fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.namespace.is_empty() {
            f.write_str(&self.name)
        } else {
            write!(f, "{}/{}", self.namespace, self.name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_collections_and_missing_fields_read_as_empty() {
        let meta: Meta = serde_json::from_str(
            r#"{"name":"a","namespace":null,"finalizers":null,"ownerReferences":null,
                "labels":{"app":"x"},"managedFields":[{"manager":"kubectl"}]}"#,
        )
        .unwrap();
        assert_eq!(meta.name, "a");
        assert!(meta.namespace.is_empty());
        assert!(meta.finalizers.is_empty());
        assert!(meta.controller().is_none());
        assert_eq!(meta.labels, NotKept);
    }

    #[test]
    fn objects_of_one_controller_share_its_reference() {
        let meta = |pod: &str, owners: &str| -> Meta {
            serde_json::from_str(&format!(r#"{{"name":"{pod}","ownerReferences":{owners}}}"#))
                .unwrap()
        };
        let rs = r#"{"kind":"ReplicaSet","name":"web-5f7b","uid":"u-rs","controller":true}"#;
        let other = r#"{"kind":"ConfigMap","name":"cm","uid":"u-cm"}"#;
        let a = meta("web-5f7b-a", &format!("[{other},{rs}]"));
        let b = meta("web-5f7b-b", &format!("[{rs}]"));
        let (ca, cb) = (a.controller_ref.unwrap(), b.controller_ref.unwrap());
        assert!(Arc::ptr_eq(&ca, &cb));
        assert_eq!(
            (ca.kind.as_str(), ca.name.as_str()),
            ("ReplicaSet", "web-5f7b")
        );
        // No controller among the owners: none kept.
        assert!(meta("x", &format!("[{other}]")).controller().is_none());
        assert!(meta("x", "null").controller().is_none());
    }

    #[test]
    fn labels_are_kept_only_when_asked_for() {
        let meta: Meta<Labels> =
            serde_json::from_str(r#"{"name":"n1","labels":{"zone":"a"}}"#).unwrap();
        assert_eq!(meta.labels.get("zone").map(String::as_str), Some("a"));
    }

    #[test]
    fn unknown_condition_status_is_unknown() {
        let c: Condition = serde_json::from_str(r#"{"type":"Ready","status":"Maybe"}"#).unwrap();
        assert_eq!(c.status, ConditionStatus::Unknown);
    }
}
