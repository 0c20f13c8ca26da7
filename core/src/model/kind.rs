//! The kinds the model holds, in one table: what the API calls each one, where
//! it is served, whether it lives in a namespace and whether every API server
//! serves it. The type each kind decodes into is the other half of the table
//! (`objects!`, in `object.rs`). Adding a kind is adding a row to both, and
//! what the model and the diagnosis do with it: the sources, the RBAC of
//! deploy/ and the documentation's lists read every kind from here.

use std::fmt;

/// Declares the table: one row per kind, from which [`Kind`], [`Kind::ALL`]
/// and what the API says of each come.
macro_rules! kinds {
    ( $( $variant:ident => $name:literal, $plural:literal, $group:literal, $older:expr, $version:literal, $scope:ident, $served:ident, $why:literal; )+ ) => {
        /// The kinds the model holds.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Kind {
            $( $variant, )+
        }

        impl Kind {
            pub const ALL: [Kind; [$( Kind::$variant ),+].len()] = [$( Kind::$variant ),+];

            /// The table.
            const fn about(self) -> About {
                match self {
                    $( Kind::$variant => About {
                        name: $name,
                        plural: $plural,
                        group: $group,
                        older_groups: $older,
                        version: $version,
                        scope: Scope::$scope,
                        optional: matches!(Served::$served, Served::Optional),
                        why: $why,
                    }, )+
                }
            }
        }
    };
}

/// Where a kind's objects live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Cluster,
    Namespaced,
}

/// Whether every API server serves a kind (`Always`), or only some do
/// (`Optional`: newer ones, or where an API is enabled): an optional kind is
/// watched where discovery says it is served.
#[allow(dead_code)]
enum Served {
    Always,
    Optional,
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
    optional: bool,
    /// Why the exporter watches it (the RBAC rule's comment and the
    /// documentation's tables say it).
    why: &'static str,
}

const NONE: &[&str] = &[];
// extensions/v1beta1 served Deployments, ReplicaSets and DaemonSets until
// Kubernetes 1.16 (StatefulSets were never in it).
const EXTENSIONS: &[&str] = &["extensions"];

#[rustfmt::skip]
kinds! {
    Pod => "Pod", "pods", "", NONE, "v1", Namespaced, Always,
        "what is diagnosed";
    Node => "Node", "nodes", "", NONE, "v1", Cluster, Always,
        "a lost or NotReady node explains its pods; pressure, taints and cordons explain pending pods and drains";
    Namespace => "Namespace", "namespaces", "", NONE, "v1", Cluster, Always,
        "Terminating namespaces; which namespaces a shard owns";
    Deployment => "Deployment", "deployments", "apps", EXTENSIONS, "v1", Namespaced, Always,
        "owners blocked by their pods (Recreate) or whose rollout is stuck";
    ReplicaSet => "ReplicaSet", "replicasets", "apps", EXTENSIONS, "v1", Namespaced, Always,
        "a Deployment's pods, by revision; owners whose pods the API server refuses";
    StatefulSet => "StatefulSet", "statefulsets", "apps", NONE, "v1", Namespaced, Always,
        "owners whose ordinals are blocked, whose update is stuck or whose pods are refused";
    DaemonSet => "DaemonSet", "daemonsets", "apps", EXTENSIONS, "v1", Namespaced, Always,
        "owners that miss nodes, whose pods are unavailable or refused";
    ReplicationController => "ReplicationController", "replicationcontrollers", "", NONE, "v1", Namespaced, Always,
        "owners whose pods the API server refuses";
    Job => "Job", "jobs", "batch", NONE, "v1", Namespaced, Always,
        "Jobs failed, not completing, blocked or refused their pods";
    Event => "Event", "events", "", NONE, "v1", Namespaced, Always,
        "the kubelet's, scheduler's and controllers' messages (warnings only: field selector type=Warning)";
    // GA in 1.34; dumps of 1.31-1.33 clusters name v1alpha3/v1beta1/v1beta2 of the same group.
    ResourceClaim => "ResourceClaim", "resourceclaims", "resource.k8s.io", NONE, "v1", Namespaced, Optional,
        "device claims (DRA, 1.34+): whether a pod's claim exists or is being deleted";
    PersistentVolumeClaim => "PersistentVolumeClaim", "persistentvolumeclaims", "", NONE, "v1", Namespaced, Always,
        "claims Pending on their provisioner, Terminating while pods use them, or whose expansion failed";
    // GA in 1.21 (batch/v1beta1 until 1.25): served everywhere this exporter runs.
    CronJob => "CronJob", "cronjobs", "batch", NONE, "v1", Namespaced, Always,
        "CronJobs that should have started a Job and did not, or whose runs keep failing";
    // GA in 1.21 (policy/v1beta1 until 1.25).
    PodDisruptionBudget => "PodDisruptionBudget", "poddisruptionbudgets", "policy", NONE, "v1", Namespaced, Always,
        "the budgets that keep a cordoned node's pods from being evicted";
}

impl Kind {
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

    /// Why the exporter watches it.
    pub const fn purpose(self) -> &'static str {
        self.about().why
    }

    /// Served only by some API servers: watched where they are served.
    pub const fn is_optional(self) -> bool {
        self.about().optional
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
                "resourceclaims",
                "persistentvolumeclaims",
                "cronjobs",
                "poddisruptionbudgets"
            ]
        );
    }
}
