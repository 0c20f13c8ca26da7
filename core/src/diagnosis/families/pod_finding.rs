//! What the per-pod families share: which pods they look at, the events
//! about a pod, when a pod reached its node, and the finding about a pod (or
//! about a controller, for the families that judge those).

use crate::diagnosis::{Cause, Detail, Finding, Message, Owner, namespace_of, node_of};
use crate::model::{Cluster, ContainerKind, Event, Kind, Meta, Name, Pod, Time};

/// Bound to a node, not being deleted, not finished: a pod whose containers
/// the kubelet is running or trying to run.
pub(super) fn on_its_node(pod: &Pod) -> bool {
    !pod.spec.node_name.is_empty() && !pod.is_terminating() && !pod.status.phase.is_terminal()
}

/// The warning events about `pod`, oldest first.
pub(super) fn events_of<'a>(cluster: &'a Cluster, pod: &Pod) -> Vec<&'a Event> {
    cluster
        .events_about(
            Kind::Pod,
            &pod.metadata.namespace,
            &pod.metadata.name,
            &pod.metadata.uid,
        )
        .collect()
}

/// Whether a container of the pod waits: what the container diagnoses
/// report (and so what explains a pod that is not Ready).
pub(super) fn has_waiting_container(pod: &Pod) -> bool {
    pod.container_statuses()
        .any(|(_, s)| s.state.waiting.is_some())
}

pub(super) fn pod_finding(
    pod: &Pod,
    container: Option<(ContainerKind, &str)>,
    cause: Cause,
    since: Option<Time>,
    message: impl Into<Message>,
    detail: Detail,
) -> Finding {
    let about_pod = object_finding(Kind::Pod, &pod.metadata, cause, since, message, detail);
    Finding {
        container: container.map(|(_, name)| Name::interned(name)),
        container_kind: container.map(|(kind, _)| kind),
        node: node_of(&pod.spec.node_name),
        owner: Owner::of(pod),
        ..about_pod
    }
}

/// The finding about a controller (or another object that is not a pod): no
/// container, no owner, and no node unless the caller names one.
pub(super) fn object_finding<L, M>(
    kind: Kind,
    meta: &Meta<L, M>,
    cause: Cause,
    since: Option<Time>,
    message: impl Into<Message>,
    detail: Detail,
) -> Finding {
    Finding {
        kind,
        namespace: namespace_of(&meta.namespace),
        name: meta.name.clone(),
        container: None,
        container_kind: None,
        owner: None,
        node: None,
        cause,
        since,
        message: message.into(),
        detail,
    }
}

/// When the pod reached its node: scheduling time, else start time, else creation.
pub(super) fn on_node_since(pod: &Pod) -> Option<Time> {
    pod.scheduled_at()
        .or(pod.status.start_time)
        .or(pod.metadata.creation_timestamp)
}

/// The first time any of `events` was seen.
pub(super) fn first_seen(events: &[&Event]) -> Option<Time> {
    events.iter().filter_map(|e| e.first_seen).min()
}
