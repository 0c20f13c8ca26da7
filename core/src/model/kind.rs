//! The kinds the model holds, in one table: what the API calls each one, where
//! it is served, and whether it lives in a namespace. The type each kind
//! decodes into is the other half of the table ([`Kind::visit`], in
//! `object.rs`). Adding a kind is adding a row to both, and what the model
//! and the diagnosis do with it: the sources read every kind from here.

use std::fmt;

/// The kinds the model holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Pod,
    Node,
    Namespace,
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    ReplicationController,
    Job,
    Event,
    ResourceClaim,
}

/// Where a kind's objects live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Cluster,
    Namespaced,
}

/// What the API says about a kind.
struct About {
    /// The `kind` as the API spells it.
    name: &'static str,
    /// The resource, as URLs and RBAC rules spell it.
    plural: &'static str,
    /// The API group (`""` for core).
    group: &'static str,
    /// Groups that served the kind before its own, as old dumps name them.
    older_groups: &'static [&'static str],
    version: &'static str,
    scope: Scope,
}

impl Kind {
    pub const ALL: [Kind; 11] = [
        Kind::Pod,
        Kind::Node,
        Kind::Namespace,
        Kind::Deployment,
        Kind::ReplicaSet,
        Kind::StatefulSet,
        Kind::DaemonSet,
        Kind::ReplicationController,
        Kind::Job,
        Kind::Event,
        Kind::ResourceClaim,
    ];

    /// The table.
    const fn about(self) -> About {
        use Scope::{Cluster, Namespaced};
        const NONE: &[&str] = &[];
        // extensions/v1beta1 served Deployments, ReplicaSets and DaemonSets
        // until Kubernetes 1.16 (StatefulSets were never in it).
        const EXTENSIONS: &[&str] = &["extensions"];
        #[rustfmt::skip]
        let about = match self {
            Kind::Pod =>         About { name: "Pod",         plural: "pods",         group: "",     older_groups: NONE,       version: "v1", scope: Namespaced },
            Kind::Node =>        About { name: "Node",        plural: "nodes",        group: "",     older_groups: NONE,       version: "v1", scope: Cluster },
            Kind::Namespace =>   About { name: "Namespace",   plural: "namespaces",   group: "",     older_groups: NONE,       version: "v1", scope: Cluster },
            Kind::Deployment =>  About { name: "Deployment",  plural: "deployments",  group: "apps", older_groups: EXTENSIONS, version: "v1", scope: Namespaced },
            Kind::ReplicaSet =>  About { name: "ReplicaSet",  plural: "replicasets",  group: "apps", older_groups: EXTENSIONS, version: "v1", scope: Namespaced },
            Kind::StatefulSet => About { name: "StatefulSet", plural: "statefulsets", group: "apps", older_groups: NONE,       version: "v1", scope: Namespaced },
            Kind::DaemonSet =>   About { name: "DaemonSet",   plural: "daemonsets",   group: "apps", older_groups: EXTENSIONS, version: "v1", scope: Namespaced },
            Kind::ReplicationController => About { name: "ReplicationController", plural: "replicationcontrollers", group: "", older_groups: NONE, version: "v1", scope: Namespaced },
            Kind::Job =>         About { name: "Job",         plural: "jobs",         group: "batch", older_groups: NONE,     version: "v1", scope: Namespaced },
            Kind::Event =>       About { name: "Event",       plural: "events",       group: "",     older_groups: NONE,       version: "v1", scope: Namespaced },
            // GA in 1.34; dumps of 1.31-1.33 clusters name v1alpha3/v1beta1/v1beta2 of the same group.
            Kind::ResourceClaim => About { name: "ResourceClaim", plural: "resourceclaims", group: "resource.k8s.io", older_groups: NONE, version: "v1", scope: Namespaced },
        };
        about
    }

    /// The `kind` as the API spells it.
    pub const fn as_str(self) -> &'static str {
        self.about().name
    }

    /// The plural resource name, as RBAC rules and URLs spell it.
    pub const fn plural(self) -> &'static str {
        self.about().plural
    }

    /// The API group (`""` for core).
    pub const fn group(self) -> &'static str {
        self.about().group
    }

    pub const fn version(self) -> &'static str {
        self.about().version
    }

    /// Served only by newer API servers: watched where they are served.
    pub const fn is_optional(self) -> bool {
        matches!(self, Kind::ResourceClaim)
    }

    pub const fn is_namespaced(self) -> bool {
        matches!(self.about().scope, Scope::Namespaced)
    }

    /// The kind an object of `apiVersion`'s `group` and `kind` is, if the
    /// model holds it: in its own group, or one that served it before.
    pub fn of(group: &str, kind: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| {
            let about = k.about();
            about.name == kind && (about.group == group || about.older_groups.contains(&group))
        })
    }

    /// The kinds in the order the sources list and watch them: cluster-scoped
    /// first (sharding and the namespaced watches read the namespaces), then
    /// the namespaced ones.
    pub fn watch_order() -> impl Iterator<Item = Kind> + Clone {
        let cluster = Kind::ALL.into_iter().filter(|k| !k.is_namespaced());
        cluster.chain(Kind::ALL.into_iter().filter(|k| k.is_namespaced()))
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_found_by_group_and_name_old_groups_included() {
        for kind in Kind::ALL {
            assert_eq!(Kind::of(kind.group(), kind.as_str()), Some(kind));
        }
        assert_eq!(Kind::of("extensions", "Deployment"), Some(Kind::Deployment));
        assert_eq!(Kind::of("extensions", "StatefulSet"), None);
        assert_eq!(Kind::of("apps", "Pod"), None);
        assert_eq!(Kind::of("batch", "Job"), Some(Kind::Job));
        assert_eq!(Kind::of("apps", "Job"), None);
        assert_eq!(
            Kind::of("", "ReplicationController"),
            Some(Kind::ReplicationController)
        );
    }

    #[test]
    fn cluster_scoped_kinds_are_watched_first() {
        let order: Vec<&str> = Kind::watch_order().map(Kind::plural).collect();
        assert_eq!(
            order,
            [
                "nodes",
                "namespaces",
                "pods",
                "deployments",
                "replicasets",
                "statefulsets",
                "daemonsets",
                "replicationcontrollers",
                "jobs",
                "events",
                "resourceclaims"
            ]
        );
    }
}
