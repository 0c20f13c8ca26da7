//! Why a namespace is still Terminating, from the conditions the namespace
//! controller writes while it deletes content
//! (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).
//!
//! The first True condition in this order is the cause: discovery and parsing
//! failures stop deletion outright; remaining finalizers explain remaining
//! content, so they come before it. A namespace whose conditions are all False
//! but whose `spec.finalizers` is not empty waits only for that finalizer.

use crate::model::{Cluster, ConditionStatus, Kind, Namespace};

use super::classify;
use super::{Cause, Detail, Finding, NamespaceCause};

const CONDITIONS: &[(&str, NamespaceCause)] = &[
    (
        "NamespaceDeletionDiscoveryFailure",
        NamespaceCause::DiscoveryFailed,
    ),
    (
        "NamespaceDeletionGroupVersionParsingFailure",
        NamespaceCause::GroupVersionParsingFailed,
    ),
    (
        "NamespaceDeletionContentFailure",
        NamespaceCause::ContentDeletionFailed,
    ),
    (
        "NamespaceFinalizersRemaining",
        NamespaceCause::FinalizersRemaining,
    ),
    (
        "NamespaceContentRemaining",
        NamespaceCause::ContentRemaining,
    ),
];

pub(super) fn diagnose(cluster: &Cluster, out: &mut Vec<Finding>) {
    out.extend(
        cluster
            .namespaces()
            .filter(|n| n.is_terminating())
            .map(judge),
    );
}

fn judge(ns: &Namespace) -> Finding {
    let active = |type_: &str| {
        ns.condition(type_)
            .filter(|c| c.status == ConditionStatus::True)
    };
    let (cause, message) = CONDITIONS
        .iter()
        .find_map(|(type_, cause)| active(type_).map(|c| (*cause, c.message.clone())))
        .unwrap_or_else(|| {
            if ns.spec.finalizers.is_empty() {
                (
                    NamespaceCause::Unknown,
                    "no condition explains the deletion yet".to_string(),
                )
            } else {
                (
                    NamespaceCause::NamespaceFinalizer,
                    format!("spec.finalizers: {}", ns.spec.finalizers.join(", ")),
                )
            }
        });
    let remaining_resources = active("NamespaceContentRemaining")
        .map(|c| classify::remaining_resources(&c.message))
        .unwrap_or_default();
    let remaining_finalizers = active("NamespaceFinalizersRemaining")
        .map(|c| classify::remaining_finalizers(&c.message))
        .unwrap_or_default();
    Finding {
        kind: Kind::Namespace,
        namespace: None,
        name: ns.metadata.name.to_string(),
        container: None,
        node: None,
        cause: Cause::NamespaceTerminating(cause),
        // Namespaces are deleted without a grace period: the timestamp is the request.
        since: ns.metadata.deletion_timestamp,
        message,
        detail: Detail::NamespaceContent {
            remaining_resources,
            remaining_finalizers,
        },
    }
}
