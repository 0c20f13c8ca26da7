//! What one viewer may see of the findings: those in namespaces where they
//! may `list pods`, and those about nodes, registries and the cluster when
//! they may `list nodes`. Decided here, from the answers of reviews, and
//! applied to the findings before any output sees them: an output only ever
//! gets a smaller list.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::diagnosis::{Finding, RootCauses};
use crate::model::Kind;

/// Where a finding belongs, for who may see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place<'a> {
    /// In a namespace: a namespaced object's, or a Namespace itself (whose
    /// findings are about what it still holds).
    Namespace(&'a str),
    /// A node, or anything else of the cluster as a whole.
    Cluster,
}

pub(crate) fn place(f: &Finding) -> Place<'_> {
    match (&f.namespace, f.kind) {
        (Some(namespace), _) => Place::Namespace(namespace),
        (None, Kind::Namespace) => Place::Namespace(&f.name),
        (None, _) => Place::Cluster,
    }
}

/// What a viewer may see.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Scope {
    /// May list pods in every namespace.
    pub all_namespaces: bool,
    /// Otherwise, the namespaces (among those asked about) where they may.
    pub namespaces: BTreeSet<String>,
    /// May list nodes.
    pub nodes: bool,
}

impl Scope {
    /// Everything: what a viewer sees without authentication.
    #[cfg(test)]
    pub(crate) fn everything() -> Scope {
        Scope {
            all_namespaces: true,
            namespaces: BTreeSet::new(),
            nodes: true,
        }
    }

    pub(crate) fn is_everything(&self) -> bool {
        self.all_namespaces && self.nodes
    }

    /// Whether the viewer may see what is in `namespace`.
    pub(crate) fn sees_namespace(&self, namespace: &str) -> bool {
        self.all_namespaces || self.namespaces.contains(namespace)
    }

    /// The part of `roots` the viewer may see (their findings and victims).
    pub(crate) fn roots(&self, roots: &RootCauses) -> RootCauses {
        roots.restricted(|f| self.sees(f), |ns| self.sees_namespace(ns))
    }

    pub(crate) fn sees(&self, f: &Finding) -> bool {
        match place(f) {
            Place::Namespace(namespace) => {
                self.all_namespaces || self.namespaces.contains(namespace)
            }
            Place::Cluster => self.nodes,
        }
    }
}

/// The namespaces of `findings` a viewer's scope must be asked about.
pub(crate) fn namespaces_of(findings: &[Arc<Finding>]) -> BTreeSet<&str> {
    findings
        .iter()
        .filter_map(|f| match place(f) {
            Place::Namespace(namespace) => Some(namespace),
            Place::Cluster => None,
        })
        .collect()
}

/// The findings `scope` sees: all of them shared as they are when it sees
/// every one, else a copy of those it does.
pub(crate) fn visible(findings: Arc<Vec<Arc<Finding>>>, scope: &Scope) -> Arc<Vec<Arc<Finding>>> {
    if scope.is_everything() || findings.iter().all(|f| scope.sees(f)) {
        return findings;
    }
    Arc::new(findings.iter().filter(|f| scope.sees(f)).cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Name;
    use crate::output::tests::finding;

    fn in_namespace(namespace: Option<&str>, kind: Kind, name: &str) -> Arc<Finding> {
        let mut f = finding(name, "m");
        f.kind = kind;
        f.namespace = namespace.map(Name::from);
        Arc::new(f)
    }

    fn names(findings: &[Arc<Finding>]) -> Vec<&str> {
        findings.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn a_team_sees_its_namespaces_and_the_cluster_only_with_nodes() {
        let all = Arc::new(vec![
            in_namespace(Some("ns-a"), Kind::Pod, "a-1"),
            in_namespace(Some("ns-b"), Kind::Pod, "b-1"),
            in_namespace(None, Kind::Node, "worker-1"),
            in_namespace(None, Kind::Namespace, "ns-a"),
            in_namespace(None, Kind::Namespace, "ns-c"),
        ]);
        let team_a = Scope {
            all_namespaces: false,
            namespaces: ["ns-a".to_string()].into(),
            nodes: false,
        };
        assert_eq!(names(&visible(all.clone(), &team_a)), ["a-1", "ns-a"]);
        let with_nodes = Scope {
            nodes: true,
            ..team_a.clone()
        };
        assert_eq!(
            names(&visible(all.clone(), &with_nodes)),
            ["a-1", "worker-1", "ns-a"]
        );
        let nothing = Scope {
            all_namespaces: false,
            namespaces: BTreeSet::new(),
            nodes: false,
        };
        assert!(visible(all.clone(), &nothing).is_empty());
        let every_namespace = Scope {
            all_namespaces: true,
            ..nothing
        };
        assert_eq!(
            names(&visible(all.clone(), &every_namespace)),
            ["a-1", "b-1", "ns-a", "ns-c"]
        );
        // Everything: the same list, not a copy.
        assert!(Arc::ptr_eq(
            &visible(all.clone(), &Scope::everything()),
            &all
        ));
        assert_eq!(
            namespaces_of(&all).into_iter().collect::<Vec<_>>(),
            ["ns-a", "ns-b", "ns-c"]
        );
    }
}
