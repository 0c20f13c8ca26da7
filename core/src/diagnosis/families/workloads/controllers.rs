//! The verdicts of the controllers that keep pods running: a Deployment's
//! rollout, a StatefulSet's update, a DaemonSet's pods. Each takes the cause
//! of the pods that make it so, else (a Deployment) its controller's own.

use super::{
    Explanation, Known, Subject, VerdictCause, controller_only, explain, finding, long_enough,
    not_in_view, short_by_status,
};
use crate::diagnosis::families::blocking::ordinal;
use crate::diagnosis::{Cause, Finding, Input, Owner};
use crate::model::{
    Cluster, Condition, DaemonSet, Deployment, Kind, Name, Pod, ReplicaSet, StatefulSet,
};

/// `ReplicaSet "web-7f9d" has timed out progressing.` → `web-7f9d`.
pub(super) fn named_replica_set(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("ReplicaSet \"")?;
    rest.split('"').next().filter(|n| !n.is_empty())
}

pub(super) fn rollout_stuck<'a>(
    input: &Input<'a>,
    known: &Known<'_, '_>,
    d: &'a Deployment,
) -> Option<Finding> {
    let m = &d.metadata;
    let wanted = d.desired_replicas();
    if d.spec.paused
        || wanted == 0
        || known
            .explains(Kind::Deployment, &m.namespace, &m.name)
            .is_some()
    {
        return None;
    }
    let conditions = &d.status.conditions;
    let deadline = conditions.progress_deadline_exceeded.as_deref();
    let rollout = Rollout::of(input.cluster, d, deadline);
    // A ReplicaSet the API server refuses pods: that refusal's alert stands
    // for the Deployment.
    if rollout.replica_sets.iter().any(|rs| {
        known
            .explains(Kind::ReplicaSet, &m.namespace, &rs.metadata.name)
            .is_some()
    }) {
        return None;
    }
    // `unavailableReplicas` is written whenever some are (a count of zero is
    // left out, as is a status the controller never wrote).
    let unavailable = d.status.unavailable_replicas > 0;
    if deadline.is_none() && !unavailable && !rollout.newest_short() {
        return None;
    }
    let rs_owner = rollout.newest.map(|rs| Owner {
        kind: Name::interned(Kind::ReplicaSet.as_str()),
        name: rs.metadata.name.clone(),
    });
    let explanation = match rollout.explained(known, unavailable) {
        Some(e) if e.covered => return None,
        Some(e) => Explanation {
            since: e.since.or(deadline.and_then(|c| c.last_transition_time)),
            ..e
        },
        None => deployment_only(
            input,
            deadline,
            conditions.unavailable.as_deref(),
            &rs_owner,
        )?,
    };
    let said = deadline
        .or(conditions.replica_failure.as_deref())
        .or(conditions.unavailable.as_deref())
        .map(|c| c.message.clone())
        .unwrap_or_default();
    let subject = Subject {
        kind: Kind::Deployment,
        namespace: &m.namespace,
        name: &m.name,
        wanted,
        ready: d.status.available_replicas,
        said,
    };
    let explanation = Explanation {
        owner: explanation.owner.or(rs_owner),
        ..explanation
    };
    Some(finding(
        &subject,
        Cause::RolloutStuck(explanation.cause),
        explanation,
    ))
}

/// A Deployment's ReplicaSets, and the one its rollout is about.
struct Rollout<'a> {
    cluster: &'a Cluster,
    replica_sets: Vec<&'a ReplicaSet>,
    /// The one the controller names past its deadline, else the newest that
    /// wants pods.
    newest: Option<&'a ReplicaSet>,
}

impl<'a> Rollout<'a> {
    fn of(cluster: &'a Cluster, d: &'a Deployment, deadline: Option<&Condition>) -> Self {
        let replica_sets: Vec<_> = cluster.replica_sets_of(d).collect();
        let named = deadline.and_then(|c| named_replica_set(&c.message));
        let newest = replica_sets
            .iter()
            .filter(|rs| named.is_none_or(|n| *rs.metadata.name == *n))
            .filter(|rs| named.is_some() || rs.desired_replicas() > 0)
            .max_by_key(|rs| (rs.metadata.creation_timestamp, rs.metadata.name.clone()))
            .copied();
        Rollout {
            cluster,
            replica_sets,
            newest,
        }
    }

    fn pods_of(&self, rs: &'a ReplicaSet) -> Vec<&'a Pod> {
        let rm = &rs.metadata;
        self.cluster
            .pods_owned_by(Kind::ReplicaSet, &rm.namespace, &rm.name, &rm.uid)
            .collect()
    }

    /// Mid-rollout, a surge pod that never becomes Ready leaves the
    /// Deployment's counts whole (the old pods serve): its ReplicaSet's pods
    /// tell.
    fn newest_short(&self) -> bool {
        self.newest.is_some_and(|rs| {
            let rm = &rs.metadata;
            let ready = self
                .cluster
                .pods_owned_by(Kind::ReplicaSet, &rm.namespace, &rm.name, &rm.uid)
                .filter(|p| !p.is_terminating() && p.is_ready())
                .count();
            ready < usize::try_from(rs.desired_replicas()).unwrap_or(0)
        })
    }

    /// What the pods say: its newest ReplicaSet's pods first; for unavailable
    /// replicas, every ReplicaSet's. A pod being deleted is no longer counted
    /// nor waited for (one that is waited for makes a `recreate_blocked`
    /// finding instead).
    fn explained(&self, known: &Known<'_, '_>, unavailable: bool) -> Option<Explanation> {
        let counted = |p: &&Pod| !p.is_terminating();
        let explained = self.newest.and_then(|rs| {
            explain(
                self.pods_of(rs)
                    .into_iter()
                    .filter(counted)
                    .filter_map(|p| known.of(p)),
            )
        });
        if explained.is_some() || !unavailable {
            return explained;
        }
        explain(
            self.replica_sets
                .iter()
                .flat_map(|rs| self.pods_of(rs))
                .filter(counted)
                .filter_map(|p| known.of(p)),
        )
    }
}

/// The deployment controller's own verdict, when no pod explains: the
/// deadline at once, a shortage once it has lasted.
fn deployment_only(
    input: &Input<'_>,
    deadline: Option<&Condition>,
    unavailable: Option<&Condition>,
    rs_owner: &Option<Owner>,
) -> Option<Explanation> {
    match (deadline, unavailable) {
        (Some(c), _) => Some(controller_only(
            VerdictCause::ProgressDeadlineExceeded,
            c.last_transition_time,
            rs_owner.clone(),
        )),
        (None, Some(c)) if long_enough(input, c.last_transition_time) => Some(controller_only(
            VerdictCause::ReplicasUnavailable,
            c.last_transition_time,
            rs_owner.clone(),
        )),
        _ => None,
    }
}

pub(super) fn update_stuck(
    input: &Input<'_>,
    known: &Known<'_, '_>,
    s: &StatefulSet,
) -> Option<Finding> {
    let m = &s.metadata;
    let wanted = s.desired_replicas();
    let not_ready = s.status.ready_replicas < wanted;
    let not_rolled_out = s.is_rolling_out() && s.status.updated_replicas < wanted;
    if wanted == 0
        || !(not_ready || not_rolled_out)
        || known
            .explains(Kind::StatefulSet, &m.namespace, &m.name)
            .is_some()
    {
        return None;
    }
    // The lowest ordinal in trouble holds the others (OrderedReady).
    let mut pods: Vec<&Pod> = input
        .cluster
        .pods_owned_by(Kind::StatefulSet, &m.namespace, &m.name, &m.uid)
        .collect();
    pods.sort_by_key(|p| (ordinal(&m.name, &p.metadata.name), p.metadata.name.clone()));
    // A pod above the wanted replicas is being scaled away: it holds nothing.
    let counted: Vec<&Pod> = pods
        .into_iter()
        .filter(|p| ordinal(&m.name, &p.metadata.name).is_none_or(|o| o < wanted))
        .collect();
    let ready = s.status.ready_replicas;
    let (explanation, said) = match counted.iter().find_map(|p| known.of(p)) {
        Some(first) => (explain([first]).filter(|e| !e.covered)?, String::new()),
        None if not_ready => (
            short_by_status(
                input,
                Kind::StatefulSet,
                m,
                &counted,
                wanted,
                s.is_rolling_out(),
            )?,
            not_in_view(ready, wanted, counted.len()),
        ),
        None => return None,
    };
    let subject = Subject {
        kind: Kind::StatefulSet,
        namespace: &m.namespace,
        name: &m.name,
        wanted,
        ready,
        said,
    };
    Some(finding(
        &subject,
        Cause::StatefulSetUpdateStuck(explanation.cause),
        explanation,
    ))
}

pub(super) fn daemonset_stuck(
    input: &Input<'_>,
    known: &Known<'_, '_>,
    ds: &DaemonSet,
) -> Option<Finding> {
    let m = &ds.metadata;
    let status = &ds.status;
    let wanted = status.desired_number_scheduled;
    let unavailable = status.number_unavailable > 0 || status.number_ready < wanted;
    if wanted == 0
        || !unavailable
        || known
            .explains(Kind::DaemonSet, &m.namespace, &m.name)
            .is_some()
    {
        return None;
    }
    let pods: Vec<&Pod> = input
        .cluster
        .pods_owned_by(Kind::DaemonSet, &m.namespace, &m.name, &m.uid)
        .collect();
    let (explanation, said) = match explain(pods.iter().filter_map(|p| known.of(p))) {
        Some(e) => ((!e.covered).then_some(e)?, String::new()),
        None => match failed_daemon_pods(input, ds) {
            Some(found) => found,
            None => (
                short_by_status(
                    input,
                    Kind::DaemonSet,
                    m,
                    &pods,
                    wanted,
                    status.updated_number_scheduled < wanted,
                )?,
                not_in_view(status.number_ready, wanted, pods.len()),
            ),
        },
    };
    let subject = Subject {
        kind: Kind::DaemonSet,
        namespace: &m.namespace,
        name: &m.name,
        wanted,
        ready: status.number_ready,
        said,
    };
    Some(finding(
        &subject,
        Cause::DaemonSetRolloutStuck(explanation.cause),
        explanation,
    ))
}

/// `Found failed daemon pod shop/agent-x2 on node n3, will try to kill it`
/// → `n3` (pkg/controller/daemon/daemon_controller.go, `FailedDaemonPod`).
fn failed_daemon_pod_node(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Found failed daemon pod ")?;
    let (_, node) = rest.split_once(" on node ")?;
    let node = node.split(", will try").next()?.trim();
    (!node.is_empty()).then_some(node)
}

/// The DaemonSet controller's `FailedDaemonPod` warnings: it found its pod
/// failed on a node and deletes it to make another, and the pod there keeps
/// failing (the kubelet rejects it, or its containers end). The failed pods
/// are gone at once, so the warnings are what tells, once they have gone on
/// for `--unavailable-after`; the node is the latest warning's.
fn failed_daemon_pods(input: &Input<'_>, ds: &DaemonSet) -> Option<(Explanation, String)> {
    let m = &ds.metadata;
    let warnings: Vec<_> = input
        .cluster
        .events_about(Kind::DaemonSet, &m.namespace, &m.name, &m.uid)
        .filter(|e| e.reason == "FailedDaemonPod")
        .collect();
    let latest = warnings.last()?;
    let since = warnings
        .iter()
        .filter_map(|e| e.first_seen.or(e.last_seen))
        .min();
    if !long_enough(input, since) {
        return None;
    }
    let times: i64 = warnings.iter().map(|e| i64::from(e.count.max(1))).sum();
    let explanation = Explanation {
        node: failed_daemon_pod_node(&latest.message).map(Name::from),
        ..controller_only(
            VerdictCause::DaemonPodFailed,
            since,
            Some(Owner {
                kind: Name::interned(Kind::DaemonSet.as_str()),
                name: m.name.clone(),
            }),
        )
    };
    let said = format!(
        "{}/{} ready; FailedDaemonPod {}: {}",
        ds.status.number_ready,
        ds.status.desired_number_scheduled,
        crate::diagnosis::wording::count(times, "time", "times"),
        latest.message
    );
    Some((explanation, said))
}

#[cfg(test)]
mod tests {
    use super::{failed_daemon_pod_node, named_replica_set};

    #[test]
    fn the_daemonset_controller_names_the_node_of_its_failed_pod() {
        // https://github.com/openshift/origin/issues/19678
        assert_eq!(
            failed_daemon_pod_node(
                "Found failed daemon pod instana-agent/hello-daemonset-hd67x on node ip-172-31-38-104.ec2.internal, will try to kill it"
            ),
            Some("ip-172-31-38-104.ec2.internal")
        );
        assert_eq!(
            failed_daemon_pod_node("Deleted pod: hello-daemonset-hd67x"),
            None
        );
    }

    #[test]
    fn the_deployment_controller_names_its_replica_set() {
        assert_eq!(
            named_replica_set(r#"ReplicaSet "web-7f9d" has timed out progressing."#),
            Some("web-7f9d")
        );
        assert_eq!(
            named_replica_set(r#"Deployment "web" has timed out progressing."#),
            None
        );
    }
}
