//! Owner keys: a controller as its dependents name it, for the indexes of
//! pods and ReplicaSets by controller.

use std::hash::Hash;
use std::sync::Arc;

use super::kind::Kind;
use super::meta::{Meta, OwnerReference};
use super::name::Name;
use super::uid::Uid;

/// A controller as named in its dependents' `ownerReferences`: namespace,
/// kind and name. It holds the dependent's namespace and its shared controller
/// reference ([`Meta::controller_ref`]) rather than copies of them, so indexing
/// a pod under its controller allocates nothing; it compares and hashes as
/// the three names.
#[derive(Debug, Clone)]
pub(super) struct OwnerKey {
    namespace: Name,
    controller: Arc<OwnerReference>,
}

impl OwnerKey {
    pub(super) fn new(namespace: &str, kind: Kind, name: &str) -> Self {
        OwnerKey {
            namespace: Name::from(namespace),
            controller: Arc::new(OwnerReference {
                kind: Name::interned(kind.as_str()),
                name: Name::from(name),
                uid: String::new(),
                controller: true,
            }),
        }
    }

    pub(super) fn controller_of<L>(meta: &Meta<L>) -> Option<OwnerKey> {
        meta.controller_ref.as_ref().map(|controller| OwnerKey {
            namespace: meta.namespace.clone(),
            controller: Arc::clone(controller),
        })
    }

    fn names(&self) -> (&str, &str, &str) {
        (
            &self.namespace,
            &self.controller.kind,
            &self.controller.name,
        )
    }
}

impl PartialEq for OwnerKey {
    fn eq(&self, other: &Self) -> bool {
        // The pods of one controller share its reference.
        (self.namespace == other.namespace && Arc::ptr_eq(&self.controller, &other.controller))
            || self.names() == other.names()
    }
}

impl Eq for OwnerKey {}

impl Hash for OwnerKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.names().hash(state);
    }
}

/// Whether a dependent's controller reference names the owner of `owner_uid`:
/// when both sides know the uid they must agree, so a recreated namesake does
/// not adopt the dependents of the object it replaced.
pub(super) fn owner_uid_agrees<L>(meta: &Meta<L>, owner_uid: &Uid) -> bool {
    match meta.controller() {
        Some(o) => o.uid.is_empty() || owner_uid.is_empty() || *owner_uid == o.uid,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Pod;

    #[test]
    fn an_owner_key_is_its_three_names_however_it_is_held() {
        use std::hash::BuildHasher;
        let listed: Pod = serde_json::from_str(
            r#"{"metadata":{"name":"a","namespace":"ns","ownerReferences":[
                {"kind":"ReplicaSet","name":"rs","uid":"u-rs","controller":true}]}}"#,
        )
        .unwrap();
        let held = OwnerKey::controller_of(&listed.metadata).unwrap();
        let asked = OwnerKey::new("ns", Kind::ReplicaSet, "rs");
        let hasher = foldhash::fast::FixedState::default();
        assert_eq!(held, asked);
        assert_eq!(hasher.hash_one(&held), hasher.hash_one(&asked));
        for other in [
            OwnerKey::new("ns2", Kind::ReplicaSet, "rs"),
            OwnerKey::new("ns", Kind::StatefulSet, "rs"),
            OwnerKey::new("ns", Kind::ReplicaSet, "rs2"),
        ] {
            assert_ne!(held, other);
        }
        // Another namespace naming the same controller reference is another owner.
        let elsewhere = OwnerKey {
            namespace: Name::from("ns2"),
            controller: Arc::clone(&held.controller),
        };
        assert_ne!(held, elsewhere);
    }
}
