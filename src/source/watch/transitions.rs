//! Lifecycle durations observed on transitions the watch sees: a pod's deletion
//! completing, a pod being scheduled, a pod becoming Ready for the first time,
//! a namespace's deletion completing. Pure: the caller supplies old and new
//! objects and the time the change was seen.

use foldhash::HashSet;

use crate::diagnosis::{EvictionCause, TerminatingCause, eviction_cause, terminating_cause};
use crate::model::{Cluster, ConditionStatus, Namespace, Pod, Time, Uid};
use crate::output::metrics::Telemetry;

/// One duration to record.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Observation {
    /// Deletion request → object gone, with the Terminating cause at removal.
    PodTerminated {
        cause: TerminatingCause,
        seconds: f64,
    },
    /// Creation → PodScheduled=True.
    PodScheduled { seconds: f64 },
    /// Creation → first Ready=True.
    PodStarted { seconds: f64 },
    /// Namespace deletion request → namespace gone.
    NamespaceTerminated { seconds: f64 },
    /// A pod turned evicted (Failed for an eviction or admission reason, or
    /// a DisruptionTarget condition).
    PodEvicted {
        namespace: String,
        owner_kind: String,
        owner_name: String,
        cause: EvictionCause,
    },
}

impl Observation {
    /// Records the duration in the exporter's histograms.
    pub(super) fn record(&self, telemetry: &Telemetry) {
        match *self {
            Observation::PodTerminated { cause, seconds } => {
                telemetry.pod_terminated(cause, seconds)
            }
            Observation::PodScheduled { seconds } => telemetry.pod_scheduled(seconds),
            Observation::PodStarted { seconds } => telemetry.pod_started(seconds),
            Observation::NamespaceTerminated { seconds } => telemetry.namespace_terminated(seconds),
            Observation::PodEvicted {
                ref namespace,
                ref owner_kind,
                ref owner_name,
                cause,
            } => telemetry.pod_evicted(namespace, (owner_kind, owner_name), cause),
        }
    }
}

fn seconds_between(from: Time, to: Time) -> f64 {
    (to.duration_since(from).as_secs_f64()).max(0.0)
}

fn ready(pod: &Pod) -> Option<&crate::model::PodCondition> {
    pod.status
        .conditions
        .ready
        .as_ref()
        .filter(|c| c.status == ConditionStatus::True)
}

/// Remembers which pods have been seen Ready, so startup is counted once per pod.
#[derive(Debug, Default)]
pub(super) struct Transitions {
    ready_seen: SeenUids,
}

/// A set of object UIDs. The API server's UIDs are UUIDs, held as 16-byte
/// numbers (a set of strings cost several times as much per pod); any other
/// uid shares the text the pod holds.
#[derive(Debug, Default)]
struct SeenUids {
    uuids: HashSet<u128>,
    others: HashSet<Uid>,
}

impl SeenUids {
    fn insert(&mut self, uid: &Uid) -> bool {
        match uid.as_u128() {
            Some(id) => self.uuids.insert(id),
            None => self.others.insert(uid.clone()),
        }
    }

    fn remove(&mut self, uid: &Uid) {
        match uid.as_u128() {
            Some(id) => self.uuids.remove(&id),
            None => self.others.remove(uid),
        };
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.uuids.len() + self.others.len()
    }
}

impl Transitions {
    /// A pod was added or changed (not part of an initial list).
    pub(super) fn pod_applied(&mut self, old: Option<&Pod>, new: &Pod) -> Vec<Observation> {
        let mut out = Vec::new();
        let created = new.metadata.creation_timestamp;
        let was_scheduled = old.is_some_and(|o| o.scheduled_at().is_some());
        if let (false, Some(created), Some(scheduled)) =
            (was_scheduled, created, new.scheduled_at())
        {
            out.push(Observation::PodScheduled {
                seconds: seconds_between(created, scheduled),
            });
        }
        if let Some(ready) = ready(new)
            && self.ready_seen.insert(&new.metadata.uid)
            && let (Some(created), Some(at)) = (created, ready.last_transition_time)
        {
            out.push(Observation::PodStarted {
                seconds: seconds_between(created, at),
            });
        }
        // Counted once: when the pod first shows an eviction (a later update
        // of the same evicted pod, or its disruption turning into Failed, is not new).
        if let Some(cause) = eviction_cause(new)
            && old.is_none_or(|o| eviction_cause(o).is_none())
        {
            let owner = new.metadata.controller();
            out.push(Observation::PodEvicted {
                namespace: new.metadata.namespace.to_string(),
                owner_kind: owner.map(|o| o.kind.to_string()).unwrap_or_default(),
                owner_name: owner.map(|o| o.name.to_string()).unwrap_or_default(),
                cause,
            });
        }
        out
    }

    /// Pods listed at (re)start: those already Ready are not new starts.
    pub(super) fn pods_listed<'a>(&mut self, pods: impl IntoIterator<Item = &'a Pod>) {
        for pod in pods {
            if ready(pod).is_some() {
                self.ready_seen.insert(&pod.metadata.uid);
            }
        }
    }

    /// A pod is gone. `cluster` still holds it, so the cause is judged as it
    /// stood at removal.
    pub(super) fn pod_deleted(
        &mut self,
        cluster: &Cluster,
        pod: &Pod,
        now: Time,
    ) -> Vec<Observation> {
        self.ready_seen.remove(&pod.metadata.uid);
        match pod.deletion_requested() {
            Some(requested) => vec![Observation::PodTerminated {
                cause: terminating_cause(cluster, pod, now),
                seconds: seconds_between(requested, now),
            }],
            // Force-deleted without a graceful phase: nothing was Terminating.
            None => Vec::new(),
        }
    }

    pub(super) fn namespace_deleted(
        &self,
        namespace: &Namespace,
        now: Time,
    ) -> Option<Observation> {
        let requested = namespace.metadata.deletion_timestamp?;
        Some(Observation::NamespaceTerminated {
            seconds: seconds_between(requested, now),
        })
    }

    /// Room for as many pods as a list will hold in all, so that remembering
    /// the Ready ones does not rehash every uid each time the set doubles.
    pub(super) fn reserve_pods(&mut self, total: usize) {
        let uuids = &mut self.ready_seen.uuids;
        uuids.reserve(total.saturating_sub(uuids.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(json: &str) -> Pod {
        serde_json::from_str(json).unwrap()
    }

    const PENDING: &str = r#"{"metadata":{"name":"p","uid":"u1","creationTimestamp":"2024-06-01T10:00:00Z"},
        "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False"}]}}"#;
    const SCHEDULED: &str = r#"{"metadata":{"name":"p","uid":"u1","creationTimestamp":"2024-06-01T10:00:00Z"},
        "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"2024-06-01T10:00:03Z"}]}}"#;
    const READY: &str = r#"{"metadata":{"name":"p","uid":"u1","creationTimestamp":"2024-06-01T10:00:00Z"},
        "status":{"phase":"Running","conditions":[
            {"type":"PodScheduled","status":"True","lastTransitionTime":"2024-06-01T10:00:03Z"},
            {"type":"Ready","status":"True","lastTransitionTime":"2024-06-01T10:00:20Z"}]}}"#;

    #[test]
    fn scheduling_and_first_readiness_are_counted_once() {
        let mut t = Transitions::default();
        let (pending, scheduled, ready) = (pod(PENDING), pod(SCHEDULED), pod(READY));
        assert_eq!(t.pod_applied(None, &pending), vec![]);
        assert_eq!(
            t.pod_applied(Some(&pending), &scheduled),
            vec![Observation::PodScheduled { seconds: 3.0 }]
        );
        assert_eq!(
            t.pod_applied(Some(&scheduled), &ready),
            vec![Observation::PodStarted { seconds: 20.0 }]
        );
        // A later update of a Ready pod, or a relist, does not count again.
        assert_eq!(t.pod_applied(Some(&ready), &ready), vec![]);
        t.pods_listed([&ready]);
        assert_eq!(t.pod_applied(Some(&ready), &ready), vec![]);
    }

    #[test]
    fn uids_of_every_spelling_are_told_apart() {
        let uuid = "0f8b6c2e-5d1a-4c3b-9e7f-1a2b3c4d5e6f";
        let mut seen = SeenUids::default();
        for uid in [uuid, "u1", "0F8B6C2E-5D1A-4C3B-9E7F-1A2B3C4D5E6F"].map(Uid::new) {
            assert!(seen.insert(&uid), "{uid}");
            assert!(!seen.insert(&uid), "{uid}");
        }
        assert_eq!((seen.uuids.len(), seen.others.len()), (1, 2));
        seen.remove(&Uid::new(uuid));
        seen.remove(&Uid::new("u1"));
        assert_eq!(seen.len(), 1);
        assert!(seen.insert(&Uid::new(uuid)));
    }

    #[test]
    fn pods_ready_at_the_initial_list_are_not_new_starts() {
        let mut t = Transitions::default();
        let ready = pod(READY);
        t.pods_listed([&ready]);
        assert_eq!(t.pod_applied(Some(&ready), &ready), vec![]);
    }

    #[test]
    fn a_completed_deletion_is_measured_from_the_request() {
        let mut t = Transitions::default();
        let deleted = pod(
            r#"{"metadata":{"name":"p","uid":"u1","deletionTimestamp":"2024-06-01T10:00:30Z",
                "deletionGracePeriodSeconds":30},"spec":{"nodeName":""}}"#,
        );
        let now: Time = "2024-06-01T10:00:12Z".parse().unwrap();
        let seen = t.pod_deleted(&Cluster::new(), &deleted, now);
        assert_eq!(
            seen,
            vec![Observation::PodTerminated {
                cause: TerminatingCause::Graceful,
                seconds: 12.0
            }]
        );
        let never_terminating = pod(r#"{"metadata":{"name":"q","uid":"u2"}}"#);
        assert!(
            t.pod_deleted(&Cluster::new(), &never_terminating, now)
                .is_empty()
        );
    }

    #[test]
    fn an_eviction_is_counted_once_when_it_happens() {
        let mut t = Transitions::default();
        let running = pod(
            r#"{"metadata":{"name":"p","namespace":"ns","uid":"u1","ownerReferences":[
                {"kind":"ReplicaSet","name":"web-7d9f8","uid":"r1","controller":true}]},
                "spec":{"nodeName":"n1"},"status":{"phase":"Running"}}"#,
        );
        // https://github.com/openshift/release/pull/57180
        let evicted = pod(
            r#"{"metadata":{"name":"p","namespace":"ns","uid":"u1","ownerReferences":[
                {"kind":"ReplicaSet","name":"web-7d9f8","uid":"r1","controller":true}]},
                "spec":{"nodeName":"n1"},"status":{"phase":"Failed","reason":"Evicted",
                "message":"The node was low on resource: memory. Threshold quantity: 100Mi, available: 20948Ki. Container docker-build was using 25378008Ki, request is 15234375Ki, has larger consumption of memory. "}}"#,
        );
        assert_eq!(t.pod_applied(None, &running), vec![]);
        assert_eq!(
            t.pod_applied(Some(&running), &evicted),
            vec![Observation::PodEvicted {
                namespace: "ns".into(),
                owner_kind: "ReplicaSet".into(),
                owner_name: "web-7d9f8".into(),
                cause: EvictionCause::MemoryPressure,
            }]
        );
        // A later update of the evicted pod is not another eviction.
        assert_eq!(t.pod_applied(Some(&evicted), &evicted), vec![]);
    }
}
