//! Object metadata and the deserialization helpers every slim type shares.
//!
//! Kubernetes JSON uses a missing field, `null` and an empty value interchangeably
//! (`"finalizers": null` is as common as no `finalizers` key), so every collection
//! here goes through [`nullable`].

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, de::IgnoredAny};

/// A point in time as the API prints it (RFC 3339, `Time` or `MicroTime`).
pub type Time = jiff::Timestamp;

/// Deserializes `null` like a missing field: into the type's default.
pub(crate) fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// Like [`nullable`] for a list, with its spare capacity released: a list grows
/// by doubling while it is parsed, and a model of 150,000 pods keeps every one.
pub(crate) fn compact<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let mut list: Vec<T> = nullable(deserializer)?;
    list.shrink_to_fit();
    Ok(list)
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
/// needed and [`NotKept`] elsewhere, so pods do not carry their labels in memory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(
    rename_all = "camelCase",
    bound(deserialize = "L: Deserialize<'de> + Default")
)]
pub struct Meta<L = NotKept> {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    /// Empty for cluster-scoped objects.
    #[serde(default, deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(default, deserialize_with = "nullable")]
    pub uid: String,
    /// Needed by the watcher to resume; cleared before an object is stored.
    #[serde(default, deserialize_with = "nullable")]
    pub resource_version: String,
    #[serde(default)]
    pub creation_timestamp: Option<Time>,
    /// The deadline: request time plus `deletionGracePeriodSeconds`
    /// (apiserver `BeforeDelete`, staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go).
    #[serde(default)]
    pub deletion_timestamp: Option<Time>,
    #[serde(default)]
    pub deletion_grace_period_seconds: Option<i64>,
    #[serde(default, deserialize_with = "compact")]
    pub finalizers: Vec<String>,
    #[serde(default, deserialize_with = "compact")]
    pub owner_references: Vec<OwnerReference>,
    #[serde(default, deserialize_with = "nullable")]
    pub labels: L,
}

impl<L> Meta<L> {
    /// The owner reference with `controller: true`, the one controllers act on.
    pub fn controller(&self) -> Option<&OwnerReference> {
        self.owner_references.iter().find(|o| o.controller)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default, deserialize_with = "nullable")]
    pub kind: String,
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
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
    #[serde(default)]
    pub last_transition_time: Option<Time>,
}

/// The namespace and name that identify a namespaced object (namespace empty when cluster-scoped).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub namespace: String,
    pub name: String,
}

impl ObjectKey {
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        ObjectKey {
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

impl<L> From<&Meta<L>> for ObjectKey {
    fn from(meta: &Meta<L>) -> Self {
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
        assert!(meta.owner_references.is_empty());
        assert_eq!(meta.labels, NotKept);
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
