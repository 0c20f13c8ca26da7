//! The slim Namespace: phase, finalizers and the deletion conditions.

use serde::Deserialize;

use super::meta::{Condition, Meta, nullable};

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Namespace {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: NamespaceSpec,
    #[serde(default, deserialize_with = "nullable")]
    pub status: NamespaceStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct NamespaceSpec {
    /// `kubernetes` until the namespace controller has emptied the namespace.
    #[serde(default, deserialize_with = "nullable")]
    pub finalizers: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct NamespaceStatus {
    #[serde(default, deserialize_with = "nullable")]
    pub phase: String,
    #[serde(default, deserialize_with = "nullable")]
    pub conditions: Vec<Condition>,
}

impl Namespace {
    pub(crate) fn is_terminating(&self) -> bool {
        self.status.phase == "Terminating" || self.metadata.deletion_timestamp.is_some()
    }

    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        self.status.conditions.iter().find(|c| c.type_ == type_)
    }
}
