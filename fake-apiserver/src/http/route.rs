//! Maps request paths onto resources.
//!
//! Kubernetes paths are positional and overlap: `/api/v1/namespaces/x` is a
//! GET of the Namespace `x`, while `/api/v1/namespaces/x/pods` lists pods in
//! `x`. Matching on the segment count first and on whether the resource is
//! namespaced second keeps those apart.

use crate::resources::{self, ResourceId};

/// What a path addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// All objects of a resource, in one namespace or all of them.
    Collection {
        resource: ResourceId,
        namespace: Option<String>,
        /// Reached through the legacy `/watch/` path prefix.
        watch: bool,
    },
    /// One object.
    Object {
        resource: ResourceId,
        namespace: Option<String>,
        name: String,
        watch: bool,
    },
    /// The resource list of one group/version (discovery).
    GroupVersion {
        group: &'static str,
        version: &'static str,
    },
}

/// The route of `path`, or `None` for anything this server does not serve.
pub(crate) fn parse(path: &str) -> Option<Route> {
    let trimmed = path.strip_prefix('/')?;
    let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
    let segments: Vec<&str> = trimmed.split('/').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return None;
    }
    let (group, version, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return None,
    };
    let (group, version) = resources::group_versions()
        .into_iter()
        .find(|&(g, v)| g == group && v == version)?;
    let (watch, rest) = match rest {
        ["watch", rest @ ..] => (true, rest),
        _ => (false, rest),
    };
    let lookup = |plural: &str| resources::by_path(group, version, plural);
    let namespaced = |id: ResourceId| resources::resource(id).namespaced;
    match rest {
        [] if !watch => Some(Route::GroupVersion { group, version }),
        [plural] => Some(Route::Collection {
            resource: lookup(plural)?,
            namespace: None,
            watch,
        }),
        [plural, name] => {
            let resource = lookup(plural).filter(|&id| !namespaced(id))?;
            Some(Route::Object {
                resource,
                namespace: None,
                name: name.to_string(),
                watch,
            })
        }
        ["namespaces", namespace, plural] => Some(Route::Collection {
            resource: lookup(plural).filter(|&id| namespaced(id))?,
            namespace: Some(namespace.to_string()),
            watch,
        }),
        ["namespaces", namespace, plural, name] => Some(Route::Object {
            resource: lookup(plural).filter(|&id| namespaced(id))?,
            namespace: Some(namespace.to_string()),
            name: name.to_string(),
            watch,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::by_path;

    #[test]
    fn namespaces_and_namespaced_lists_are_told_apart() {
        let pods = by_path("", "v1", "pods").unwrap();
        let namespaces = by_path("", "v1", "namespaces").unwrap();
        let deployments = by_path("apps", "v1", "deployments").unwrap();
        assert_eq!(
            parse("/api/v1/namespaces/shop"),
            Some(Route::Object {
                resource: namespaces,
                namespace: None,
                name: "shop".into(),
                watch: false
            })
        );
        assert_eq!(
            parse("/api/v1/namespaces"),
            Some(Route::Collection {
                resource: namespaces,
                namespace: None,
                watch: false
            })
        );
        assert_eq!(
            parse("/api/v1/namespaces/shop/pods"),
            Some(Route::Collection {
                resource: pods,
                namespace: Some("shop".into()),
                watch: false
            })
        );
        assert_eq!(
            parse("/api/v1/namespaces/shop/pods/web-1"),
            Some(Route::Object {
                resource: pods,
                namespace: Some("shop".into()),
                name: "web-1".into(),
                watch: false
            })
        );
        assert_eq!(
            parse("/api/v1/pods"),
            Some(Route::Collection {
                resource: pods,
                namespace: None,
                watch: false
            })
        );
        assert_eq!(
            parse("/apis/apps/v1/namespaces/x/deployments/"),
            Some(Route::Collection {
                resource: deployments,
                namespace: Some("x".into()),
                watch: false
            })
        );
        assert_eq!(
            parse("/api/v1/watch/namespaces/x/pods"),
            Some(Route::Collection {
                resource: pods,
                namespace: Some("x".into()),
                watch: true
            })
        );
        assert_eq!(
            parse("/apis/apps/v1"),
            Some(Route::GroupVersion {
                group: "apps",
                version: "v1"
            })
        );
    }

    #[test]
    fn unknown_paths_do_not_route() {
        for path in [
            "/api/v1/pods/web-1",              // a namespaced object needs its namespace
            "/api/v1/namespaces/x/nodes",      // nodes are cluster-scoped
            "/api/v1/namespaces/x/pods/a/log", // no subresources
            "/api/v2/pods",
            "/apis/apps/v1/pods",
            "/apis/batch/v1/pods", // pods are in the core group
            "/api//pods",
            "/metrics",
            "",
        ] {
            assert_eq!(parse(path), None, "{path}");
        }
    }
}
