//! `pod_not_ready`: a Running pod whose Ready condition has not been True for
//! longer than `--not-ready-after`, read from that condition and the kubelet's
//! `Unhealthy` readiness events.
//!
//! The kubelet writes the Ready condition (pkg/kubelet/status/generate.go)
//! with reason `ContainersNotReady` (`containers with unready status: [app]`)
//! when a container is not ready, and `ReadinessGatesNotReady` (`the status of
//! pod readiness gate "x" is not "True", but False`, `corresponding condition
//! of pod readiness gate "x" does not exist.`) when the containers are but a
//! gate is not.
//!
//! A pod with a waiting container is left to the container diagnoses: a
//! crash-looping, pulling or misconfigured container is not Ready either, and
//! its own finding already says why. A pod being deleted is `pod_terminating`'s;
//! a pod of a Job that is over is winding down.

use crate::model::{Cluster, Pod, PodCondition, Time};

use crate::diagnosis::classify::{self, ProbeKind};
use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, probe_failure, since, text};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{Anomaly, Cause, Detail, Finding, Input, Message};

use super::pod_finding::{events_of, has_waiting_container, pod_finding};
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why a Running pod is not Ready (anomaly `pod_not_ready`).
    pub enum NotReadyCause {
        ReadinessProbe = "readiness_probe": "A container's readiness probe fails (`Unhealthy` events \"Readiness probe failed\").",
        ContainersNotReady = "containers_not_ready": "Ready=False with reason ContainersNotReady and no readiness probe failure reported: a container is not running or not ready for another reason (it may have no probe event yet, or events aged out).",
        ReadinessGate = "readiness_gate": "The containers are ready but a readiness gate's condition (spec.readinessGates) is False or missing (reason ReadinessGatesNotReady): the controller that should set it (a load balancer controller, ...) has not.",
        Unknown = "unknown": "Not Ready for none of the reasons above (for instance a Ready condition with no reason).",
    }
}

impl PodsVerdict for NotReadyCause {
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::NotReady
    }
}

/// Readiness events this long before the condition changed still explain it
/// (the kubelet reports the failures that turn it False just before).
const EVENT_SLACK: jiff::SignedDuration = jiff::SignedDuration::from_secs(60);

family!("not_ready" each pod: PodNotReady);

const METRICS: &[MetricFamily] = &[MetricFamily {
    name: "kube_lifecycle_pod_not_ready_since_timestamp_seconds",
    help: "Unix time a Running pod not Ready for longer than --not-ready-after last turned not Ready (its Ready condition's lastTransitionTime), by cause, the container a readiness probe or the condition names, and what the readiness probe's output says (probe_failure).",
    identity: Identity::Pod,
    labels: &["container", "node", "cause", "probe_failure"],
    anomalies: &[Anomaly::PodNotReady],
    aggregate: false,
    samples: |f| {
        since(
            f,
            vec![
                text(&f.container),
                text(&f.node),
                f.cause.to_string(),
                probe_failure(f),
            ],
        )
    },
    fold: Fold::Earliest,
    example: r#"count by (namespace, cause) (kube_lifecycle_pod_not_ready_since_timestamp_seconds)"#,
}];

fn diagnose_pod(input: &Input<'_>, pod: &Pod, out: &mut Vec<Finding>) {
    let cluster = input.cluster;
    if !pod.is_not_ready()
        || pod.is_terminating()
        || pod.spec.node_name.is_empty()
        || has_waiting_container(pod)
    {
        return;
    }
    let Some(ready) = pod.status.conditions.ready.as_ref() else {
        return;
    };
    let since = ready.last_transition_time.or(pod.status.start_time);
    let Some(since) = since else {
        return;
    };
    if !input.now.waited(since, input.settings.not_ready_after) || of_finished_job(cluster, pod) {
        return;
    }
    out.push(judge(cluster, pod, ready, since));
}

pub(super) fn of_finished_job(cluster: &Cluster, pod: &Pod) -> bool {
    let Some(owner) = pod.metadata.controller() else {
        return false;
    };
    owner.kind == "Job"
        && cluster
            .job(&pod.metadata.namespace, &owner.name)
            .is_some_and(|j| j.status.outcome.over)
}

fn judge(cluster: &Cluster, pod: &Pod, ready: &PodCondition, since: Time) -> Finding {
    let events = events_of(cluster, pod);
    let from = since.checked_sub(EVENT_SLACK).unwrap_or(since);
    // The latest readiness failure reported since the pod turned not Ready.
    let probe = events
        .iter()
        .rev()
        .filter(|e| e.last_seen.is_none_or(|t| t >= from))
        .find_map(|e| {
            classify::probe_event(&e.reason, &e.message)
                .filter(|r| r.probe == ProbeKind::Readiness)
                .map(|r| (r, *e))
        });
    let unready = unready_containers(ready.message());
    let (cause, container, message, probe_failure) = if ready.reason() == "ReadinessGatesNotReady" {
        (
            NotReadyCause::ReadinessGate,
            None,
            Message::from(ready.message()),
            None,
        )
    } else if let Some((result, event)) = probe {
        (
            NotReadyCause::ReadinessProbe,
            container_of(&event.regarding.field_path),
            Message::from(&event.message),
            Some(result.failure),
        )
    } else if ready.reason() == "ContainersNotReady" {
        let container = match unready.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        };
        (
            NotReadyCause::ContainersNotReady,
            container,
            Message::from(ready.message()),
            None,
        )
    } else {
        let message = if ready.message().is_empty() {
            Message::from(format!(
                "Ready is {:?} (reason {:?})",
                ready.status,
                ready.reason()
            ))
        } else {
            Message::from(ready.message())
        };
        (NotReadyCause::Unknown, None, message, None)
    };
    pod_finding(
        pod,
        container.as_deref().map(|c| (pod.container_kind(c), c)),
        Cause::PodNotReady(cause),
        Some(since),
        message,
        Detail::NotReady { probe_failure },
    )
}

/// `spec.containers{app}` → `app`.
fn container_of(field_path: &str) -> Option<String> {
    let inner = field_path
        .strip_prefix("spec.containers{")
        .or_else(|| field_path.strip_prefix("spec.initContainers{"))?;
    inner
        .strip_suffix('}')
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}

/// `containers with unready status: [app sidecar]` → `[app, sidecar]`.
fn unready_containers(message: &str) -> Vec<String> {
    let Some(start) = message.find('[') else {
        return Vec::new();
    };
    let Some(end) = message[start..].find(']') else {
        return Vec::new();
    };
    message[start + 1..start + end]
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::diagnosis::{Cause, NotReadyCause, diagnose};
    use crate::model::{Cluster, CoreEvent, Object, Pod};

    const NOW: &str = "2024-06-01T00:00:00Z";

    fn pod(name: &str, extra_meta: &str, ready: &str, waiting: bool) -> Object {
        let state = if waiting {
            r#"{"waiting":{"reason":"CrashLoopBackOff"}}"#
        } else {
            r#"{"running":{}}"#
        };
        let json = format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"ns","uid":"u-{name}"{extra_meta}}},
                "spec":{{"nodeName":"n1"}},
                "status":{{"phase":"Running","conditions":[{ready}],
                  "containerStatuses":[{{"name":"app","state":{state}}}]}}}}"#
        );
        Object::Pod(serde_json::from_str::<Pod>(&json).unwrap())
    }

    fn not_ready(reason: &str, message: &str, since: &str) -> String {
        format!(
            r#"{{"type":"Ready","status":"False","reason":"{reason}","message":"{message}","lastTransitionTime":"{since}"}}"#
        )
    }

    #[test]
    fn only_long_not_ready_running_pods_nobody_else_explains() {
        let mut c = Cluster::new();
        let old = "2024-05-31T23:00:00Z";
        let gate = not_ready(
            "ReadinessGatesNotReady",
            "corresponding condition of pod readiness gate \\\"target-health.elbv2.k8s.aws/k8s-web\\\" does not exist.",
            old,
        );
        let containers = not_ready(
            "ContainersNotReady",
            "containers with unready status: [app]",
            old,
        );
        c.apply(pod("gated", "", &gate, false));
        c.apply(pod("probed", "", &containers, false));
        c.apply(pod("quiet", "", &containers, false));
        // Not Ready for 2 minutes only, crash-looping, being deleted, Ready: nothing.
        c.apply(pod(
            "recent",
            "",
            &not_ready("ContainersNotReady", "", "2024-05-31T23:58:00Z"),
            false,
        ));
        c.apply(pod("looping", "", &containers, true));
        c.apply(pod(
            "deleting",
            r#","deletionTimestamp":"2024-05-31T23:59:00Z""#,
            &containers,
            false,
        ));
        c.apply(pod(
            "healthy",
            "",
            r#"{"type":"Ready","status":"True"}"#,
            false,
        ));
        let event: CoreEvent = serde_json::from_str(
            r#"{"metadata":{"name":"probed.1","namespace":"ns"},"type":"Warning","reason":"Unhealthy",
                "message":"Readiness probe failed: HTTP probe failed with statuscode: 503",
                "involvedObject":{"kind":"Pod","namespace":"ns","name":"probed","uid":"u-probed",
                                  "fieldPath":"spec.containers{app}"},
                "firstTimestamp":"2024-05-31T22:59:40Z","lastTimestamp":"2024-05-31T23:59:50Z"}"#,
        )
        .unwrap();
        c.apply(Object::Event(event.into()));
        let found: Vec<(String, Cause, Option<String>)> = diagnose(&c, NOW.parse().unwrap())
            .into_iter()
            .filter(|f| matches!(f.cause, Cause::PodNotReady(_)))
            .map(|f| {
                (
                    f.name.to_string(),
                    f.cause,
                    f.container.map(|c| c.to_string()),
                )
            })
            .collect();
        assert_eq!(
            found,
            vec![
                (
                    "gated".to_string(),
                    Cause::PodNotReady(NotReadyCause::ReadinessGate),
                    None
                ),
                (
                    "probed".to_string(),
                    Cause::PodNotReady(NotReadyCause::ReadinessProbe),
                    Some("app".to_string())
                ),
                (
                    "quiet".to_string(),
                    Cause::PodNotReady(NotReadyCause::ContainersNotReady),
                    Some("app".to_string())
                ),
            ]
        );
    }
}
