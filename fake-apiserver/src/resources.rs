//! The resource types the fake server serves.
//!
//! Kept as one static table so routing (by group, version and plural), `apply`
//! (by apiVersion and kind), faults (by plural) and discovery all agree on the
//! same set without a registry that could drift.

/// One kind of object the server stores and serves.
#[derive(Debug)]
pub(crate) struct ResourceType {
    /// API group; empty for the core ("legacy") group served under `/api`.
    pub group: &'static str,
    pub version: &'static str,
    /// `group/version`, or just `version` for the core group, as objects carry it.
    pub api_version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    /// Abbreviations kubectl resolves through discovery (`po`, `deploy`...).
    pub short_names: &'static [&'static str],
    pub namespaced: bool,
}

impl ResourceType {
    /// The kind of a list of these objects, e.g. `PodList`.
    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }
}

/// Index into [`RESOURCES`]; cheap to copy and compare.
pub(crate) type ResourceId = usize;

const fn core(
    kind: &'static str,
    plural: &'static str,
    singular: &'static str,
    short_names: &'static [&'static str],
    namespaced: bool,
) -> ResourceType {
    ResourceType {
        group: "",
        version: "v1",
        api_version: "v1",
        kind,
        plural,
        singular,
        short_names,
        namespaced,
    }
}

const fn apps(
    kind: &'static str,
    plural: &'static str,
    singular: &'static str,
    short_names: &'static [&'static str],
) -> ResourceType {
    ResourceType {
        group: "apps",
        version: "v1",
        api_version: "apps/v1",
        kind,
        plural,
        singular,
        short_names,
        namespaced: true,
    }
}

/// Every resource type served. Core `Event` and `events.k8s.io` `Event` are
/// separate stores, as they would be two views of one store in a real cluster;
/// tests apply whichever shape they need.
pub(crate) static RESOURCES: &[ResourceType] = &[
    core("Pod", "pods", "pod", &["po"], true),
    core("Node", "nodes", "node", &["no"], false),
    core("Namespace", "namespaces", "namespace", &["ns"], false),
    core("Event", "events", "event", &["ev"], true),
    core("ConfigMap", "configmaps", "configmap", &["cm"], true),
    core("Service", "services", "service", &["svc"], true),
    core(
        "ReplicationController",
        "replicationcontrollers",
        "replicationcontroller",
        &["rc"],
        true,
    ),
    core(
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        "persistentvolumeclaim",
        &["pvc"],
        true,
    ),
    apps("Deployment", "deployments", "deployment", &["deploy"]),
    apps("ReplicaSet", "replicasets", "replicaset", &["rs"]),
    apps("StatefulSet", "statefulsets", "statefulset", &["sts"]),
    apps("DaemonSet", "daemonsets", "daemonset", &["ds"]),
    ResourceType {
        group: "batch",
        version: "v1",
        api_version: "batch/v1",
        kind: "Job",
        plural: "jobs",
        singular: "job",
        short_names: &[],
        namespaced: true,
    },
    ResourceType {
        group: "batch",
        version: "v1",
        api_version: "batch/v1",
        kind: "CronJob",
        plural: "cronjobs",
        singular: "cronjob",
        short_names: &["cj"],
        namespaced: true,
    },
    ResourceType {
        group: "policy",
        version: "v1",
        api_version: "policy/v1",
        kind: "PodDisruptionBudget",
        plural: "poddisruptionbudgets",
        singular: "poddisruptionbudget",
        short_names: &["pdb"],
        namespaced: true,
    },
    // Dynamic Resource Allocation, GA in 1.34.
    ResourceType {
        group: "resource.k8s.io",
        version: "v1",
        api_version: "resource.k8s.io/v1",
        kind: "ResourceClaim",
        plural: "resourceclaims",
        singular: "resourceclaim",
        short_names: &[],
        namespaced: true,
    },
    ResourceType {
        group: "events.k8s.io",
        version: "v1",
        api_version: "events.k8s.io/v1",
        kind: "Event",
        plural: "events",
        singular: "event",
        short_names: &["ev"],
        namespaced: true,
    },
];

/// The resource type of `id`, which always comes from this module's lookups.
pub(crate) fn resource(id: ResourceId) -> &'static ResourceType {
    &RESOURCES[id]
}

/// The resource served at `/api[s]/{group}/{version}/{plural}`.
pub(crate) fn by_path(group: &str, version: &str, plural: &str) -> Option<ResourceId> {
    RESOURCES
        .iter()
        .position(|r| r.group == group && r.version == version && r.plural == plural)
}

/// The resource an object with this `apiVersion` and `kind` belongs to.
pub(crate) fn by_type(api_version: &str, kind: &str) -> Option<ResourceId> {
    RESOURCES
        .iter()
        .position(|r| r.api_version == api_version && r.kind == kind)
}

/// The group/version pairs served, in table order, without repeats.
pub(crate) fn group_versions() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = Vec::new();
    for r in RESOURCES {
        if !out.contains(&(r.group, r.version)) {
            out.push((r.group, r.version));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_agree() {
        let pods = by_path("", "v1", "pods").unwrap();
        assert_eq!(by_type("v1", "Pod"), Some(pods));
        assert_eq!(resource(pods).list_kind(), "PodList");
        let new_events = by_type("events.k8s.io/v1", "Event").unwrap();
        assert_eq!(by_path("events.k8s.io", "v1", "events"), Some(new_events));
        assert_eq!(by_path("apps", "v1", "pods"), None);
        assert!(group_versions().contains(&("apps", "v1")));
    }
}
