//! Controllers whose pods the API server refuses (`pod_create_refused`): a
//! ReplicaSet, StatefulSet, DaemonSet, Job or ReplicationController that has
//! fewer pods than it wants, and says why it could not create them.
//!
//! - Short of pods, as each controller counts (its status, written by the
//!   controller itself): a ReplicaSet, ReplicationController or StatefulSet
//!   whose `status.replicas` (every pod it owns, ready or not) is below
//!   `spec.replicas`; a DaemonSet whose `currentNumberScheduled` is below
//!   `desiredNumberScheduled`; a Job whose `status.active` is below what its
//!   controller wants running ([`Job::wanted_active`]).
//! - The controller's own word for a refused creation: its `FailedCreate`
//!   warning event (every pod controller records the API server's error so,
//!   pkg/controller/controller_utils.go and stateful_pod_control.go), and for a
//!   ReplicaSet or ReplicationController the `ReplicaFailure` condition (True,
//!   reason `FailedCreate`) that carries the same text. `FailedCreatePodSandBox`
//!   is the kubelet's, about a pod that exists: not this.
//!
//! The latest refusal event decides (the condition keeps the first error's text
//! for as long as creations keep failing, kubernetes/kubernetes#127081); the
//! condition speaks when the events have aged out. The finding goes with the
//! shortage, or with the evidence: once the pods exist, or no refusal is left
//! to show (events older than `--event-max-age` are forgotten).

use crate::model::{Cluster, Condition, ConditionStatus, DaemonSet, Event, Job, Kind, Meta, Time};

use crate::diagnosis::classify::{Refusal, is_refusal_event, refusal};
use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, one, since, text};
use crate::diagnosis::placement::daemon_pod_fits;
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{Anomaly, Cause, Detail, Finding, Input, Message, RefusedDetail};

use super::pod_finding::object_finding;
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// Why the API server refuses a controller's pods (anomaly `pod_create_refused`),
    /// from the refusal's message.
    pub enum RefusalCause {
        QuotaExceeded = "quota_exceeded" => PodCreateQuotaExceeded: "A ResourceQuota of the namespace is used up (or its usage is not known yet): the quota and the resources over it are named.",
        QuotaRequiresLimits = "quota_requires_limits": "A ResourceQuota covers a resource (limits.cpu, requests.memory...) that the pod template neither requests nor limits (\"must specify\").",
        LimitRange = "limit_range": "The pod template is above a LimitRange maximum, below its minimum, or over its limit-to-request ratio.",
        PodSecurity = "pod_security": "Pod Security admission refuses the pod at the level the namespace enforces (privileged, baseline, restricted; named).",
        PodSecurityPolicy = "pod_security_policy": "No PodSecurityPolicy admits the pod (Kubernetes before 1.25; OpenShift's SecurityContextConstraints read alike).",
        WebhookDenied = "webhook_denied": "A validating or mutating admission webhook (or a ValidatingAdmissionPolicy) refused the pod; it is named.",
        WebhookUnreachable = "webhook_unreachable" => AdmissionWebhookUnreachable [webhook]: "The API server could not call an admission webhook that fails closed (timeout, connection refused, no endpoints, missing service, certificate, an error answer): every pod it covers, in every namespace, is refused; it is named.",
        ServiceAccountMissing = "service_account_missing": "The ServiceAccount the pod template names does not exist (or, before 1.24, has no token yet).",
        NamespaceTerminating = "namespace_terminating": "The namespace is being deleted: it admits no new content.",
        InvalidSpec = "invalid_spec": "Validation rejects the pod template (Pod \"x\" is invalid: ...).",
        Other = "other": "Another refusal or error of the API server (the message is kept).",
    }
}

impl PodsVerdict for RefusalCause {
    // About a controller whose pods are refused, not a pod.
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::PodStuck
    }
}

/// A controller of pods, as this diagnosis sees it.
struct Controller<'a> {
    kind: Kind,
    meta: &'a Meta,
    /// Pods it wants, and pods it has (its own count).
    desired: i32,
    current: i32,
    /// Its `ReplicaFailure` condition, for the kinds that have one.
    replica_failure: Option<&'a Condition>,
}

family!("refused": PodCreateRefused);

const METRICS: &[MetricFamily] = &[
    MetricFamily {
        name: "kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds",
        help: "Unix time a controller short of pods (ReplicaSet, StatefulSet, DaemonSet, Job, ReplicationController) was first refused a pod by the API server (its earliest FailedCreate event held, or its ReplicaFailure condition), by cause and what the refusal names: the Deployment of a ReplicaSet, the ResourceQuota and resources, the admission webhook, the Pod Security level.",
        identity: Identity::Controller,
        labels: &[
            "deployment",
            "cause",
            "quota",
            "resource",
            "webhook",
            "pod_security_level",
        ],
        anomalies: &[Anomaly::PodCreateRefused],
        aggregate: false,
        samples: |f| since(f, refusal_labels(f)),
        fold: Fold::Never,
        example: r#"count by (webhook) (kube_lifecycle_workload_pod_create_refused_since_timestamp_seconds{cause="webhook_unreachable"})"#,
    },
    MetricFamily {
        name: "kube_lifecycle_workload_pod_create_refused_missing_pods",
        help: "Pods a controller whose pod creations the API server refuses is short of (wanted minus created, as its status counts them), by cause.",
        identity: Identity::Controller,
        labels: &["cause"],
        anomalies: &[Anomaly::PodCreateRefused],
        aggregate: false,
        samples: |f| match &f.detail {
            Detail::Refused(r) => one(vec![f.cause.to_string()], f64::from(r.desired - r.current)),
            _ => vec![],
        },
        fold: Fold::Never,
        example: "sum by (namespace, cause) (kube_lifecycle_workload_pod_create_refused_missing_pods)",
    },
];

fn diagnose(input: &Input<'_>) -> Vec<Finding> {
    let cluster = input.cluster;
    let controllers = cluster
        .replica_sets()
        .map(|rs| Controller {
            kind: Kind::ReplicaSet,
            meta: &rs.metadata,
            desired: rs.desired_replicas(),
            current: rs.status.replicas,
            replica_failure: rs.status.replica_failure.as_deref(),
        })
        .chain(cluster.replication_controllers().map(|rc| Controller {
            kind: Kind::ReplicationController,
            meta: &rc.metadata,
            desired: rc.desired_replicas(),
            current: rc.status.replicas,
            replica_failure: rc.status.replica_failure.as_deref(),
        }))
        .chain(cluster.stateful_sets().map(|s| Controller {
            kind: Kind::StatefulSet,
            meta: &s.metadata,
            desired: s.desired_replicas(),
            current: s.status.replicas,
            replica_failure: None,
        }))
        .chain(cluster.daemon_sets().map(|d| daemon_set(cluster, d)))
        .chain(cluster.jobs().map(job));
    controllers.filter_map(|c| judge(cluster, &c)).collect()
}

/// Whether the API server refuses `d`'s pods (as this family finds it):
/// the `daemonsets` family leaves such a DaemonSet to this one.
pub(super) fn refuses(cluster: &Cluster, d: &DaemonSet) -> bool {
    judge(cluster, &daemon_set(cluster, d)).is_some()
}

/// A DaemonSet counts by its status; one with no status written at all (a
/// controller that has not synced it, a hand-made dump) by the Ready nodes its
/// template admits and the pods it has, when it has a refusal to explain: the
/// nodes are walked only then.
fn daemon_set<'a>(cluster: &'a Cluster, d: &'a DaemonSet) -> Controller<'a> {
    let s = &d.status;
    let m = &d.metadata;
    let unwritten = s.desired_number_scheduled == 0 && s.current_number_scheduled == 0;
    let (desired, current) = if unwritten
        && cluster
            .events_about(Kind::DaemonSet, &m.namespace, &m.name, &m.uid)
            .any(|e| is_refusal_event(&e.reason))
    {
        let eligible = cluster
            .nodes()
            .filter(|n| n.is_ready() && daemon_pod_fits(&d.spec.template.spec, n))
            .count();
        let pods = cluster
            .pods_owned_by(Kind::DaemonSet, &m.namespace, &m.name, &m.uid)
            .filter(|p| !p.is_terminating())
            .count();
        (
            i32::try_from(eligible).unwrap_or(i32::MAX),
            i32::try_from(pods).unwrap_or(i32::MAX),
        )
    } else {
        (s.desired_number_scheduled, s.current_number_scheduled)
    };
    Controller {
        kind: Kind::DaemonSet,
        meta: &d.metadata,
        desired,
        current,
        replica_failure: None,
    }
}

fn job(j: &Job) -> Controller<'_> {
    Controller {
        kind: Kind::Job,
        meta: &j.metadata,
        desired: j.wanted_active(),
        current: j.status.active,
        replica_failure: None,
    }
}

fn judge(cluster: &Cluster, c: &Controller) -> Option<Finding> {
    // Cheap first: most controllers have their pods.
    if c.current >= c.desired {
        return None;
    }
    let m = c.meta;
    let events: Vec<&Event> = cluster
        .events_about(c.kind, &m.namespace, &m.name, &m.uid)
        .filter(|e| is_refusal_event(&e.reason))
        .collect();
    let condition = c
        .replica_failure
        .filter(|f| f.status == ConditionStatus::True && f.reason == "FailedCreate");
    // Events come oldest first: the last is the latest refusal.
    let message = match (events.last(), condition) {
        (Some(latest), _) => Message::from(&latest.message),
        (None, Some(condition)) => Message::from(condition.message.as_str()),
        (None, None) => return None,
    };
    // Events without a time (hand-made dumps) leave the controller's creation.
    let since: Option<Time> = events
        .iter()
        .filter_map(|e| e.first_seen)
        .chain(condition.and_then(|c| c.last_transition_time))
        .min()
        .or(m.creation_timestamp);
    let Refusal {
        cause,
        quota,
        resource,
        webhook,
        level,
    } = refusal(&message);
    // A ReplicaSet's Deployment is what people know and roll out.
    let deployment = (c.kind == Kind::ReplicaSet)
        .then(|| m.controller())
        .flatten()
        .filter(|o| o.kind == Kind::Deployment.as_str())
        .map(|o| o.name.to_string());
    Some(object_finding(
        c.kind,
        m,
        Cause::PodCreateRefused(cause),
        since,
        message,
        Detail::Refused(Box::new(RefusedDetail {
            deployment,
            quota,
            resource,
            webhook,
            pod_security_level: level,
            desired: c.desired,
            current: c.current,
        })),
    ))
}

/// `[deployment, cause, quota, resource, webhook, pod_security_level]` of a
/// refused controller: what the refusal names, empty where it names nothing
/// (an empty label is no label to Prometheus).
fn refusal_labels(f: &Finding) -> Vec<String> {
    match &f.detail {
        Detail::Refused(r) => vec![
            text(&r.deployment),
            f.cause.to_string(),
            text(&r.quota),
            text(&r.resource),
            text(&r.webhook),
            r.pod_security_level.unwrap_or_default().to_string(),
        ],
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::{RefusalCause, diagnose};
    use crate::model::{CoreEvent, Object, Slim};
    use serde::de::DeserializeOwned;

    const NOW: &str = "2024-05-01T12:00:00Z";

    fn now() -> Time {
        NOW.parse().unwrap()
    }

    fn object<T: Slim + DeserializeOwned>(json: &str) -> Object {
        serde_json::from_str::<T>(json).unwrap().into_object()
    }

    fn failed_create(kind: &str, name: &str, reason: &str, message: &str, first: &str) -> Object {
        let e: CoreEvent = serde_json::from_value(serde_json::json!({
            "metadata": {"name": format!("{name}.{first}"), "namespace": "shop"},
            "type": "Warning", "reason": reason, "message": message, "count": 7,
            "involvedObject": {"kind": kind, "name": name, "namespace": "shop", "uid": format!("uid-{name}")},
            "firstTimestamp": first, "lastTimestamp": "2024-05-01T11:59:00Z"
        }))
        .unwrap();
        Object::Event(e.into())
    }

    /// The controller's `FailedCreate` event, first seen at 11:00.
    fn refused_create(kind: &str, name: &str, message: &str) -> Object {
        failed_create(kind, name, "FailedCreate", message, "2024-05-01T11:00:00Z")
    }

    fn replica_set(replicas: i32, current: i32, conditions: &str) -> Object {
        object::<crate::model::ReplicaSet>(&format!(
            r#"{{"metadata":{{"name":"web-7d9f8","namespace":"shop","uid":"uid-web-7d9f8",
                "ownerReferences":[{{"kind":"Deployment","name":"web","uid":"u-d","controller":true}}]}},
               "spec":{{"replicas":{replicas}}},"status":{{"replicas":{current},"conditions":{conditions}}}}}"#
        ))
    }

    const QUOTA: &str = r#"Error creating: pods "web-7d9f8-x2k9p" is forbidden: exceeded quota: compute, requested: limits.memory=2Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi"#;

    /// The StatefulSet `db`, wanting 3 pods and having `current`.
    fn stateful_set(current: i32) -> Object {
        object::<crate::model::StatefulSet>(&format!(
            r#"{{"metadata":{{"name":"db","namespace":"shop","uid":"uid-db"}},
                "spec":{{"replicas":3}},"status":{{"replicas":{current}}}}}"#
        ))
    }

    /// `f` is a refusal for `cause`, since `since`.
    fn assert_refused(f: &Finding, cause: RefusalCause, since: &str) {
        assert_eq!(f.cause, Cause::PodCreateRefused(cause));
        assert_eq!(f.since, Some(since.parse().unwrap()));
    }

    fn refused(cluster: &Cluster) -> Vec<Finding> {
        diagnose(cluster, now())
            .into_iter()
            .filter(|f| f.anomaly() == Anomaly::PodCreateRefused)
            .collect()
    }

    #[test]
    fn a_replica_set_short_of_pods_with_a_refusal_names_its_deployment() {
        let mut c = Cluster::new();
        c.apply(replica_set(3, 1, "[]"));
        c.apply(refused_create("ReplicaSet", "web-7d9f8", QUOTA));
        let found = refused(&c);
        assert_eq!(found.len(), 1, "{found:#?}");
        let f = &found[0];
        assert_eq!((f.kind, f.name.as_str()), (Kind::ReplicaSet, "web-7d9f8"));
        assert_refused(f, RefusalCause::QuotaExceeded, "2024-05-01T11:00:00Z");
        assert_eq!(f.message, QUOTA);
        match &f.detail {
            Detail::Refused(r) => {
                assert_eq!(r.deployment.as_deref(), Some("web"));
                assert_eq!(r.quota.as_deref(), Some("compute"));
                assert_eq!(r.resource.as_deref(), Some("limits.memory"));
                assert_eq!((r.desired, r.current), (3, 1));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_replica_failure_condition_speaks_when_no_event_is_left() {
        let mut c = Cluster::new();
        c.apply(replica_set(
            2,
            0,
            r#"[{"type":"ReplicaFailure","status":"True","reason":"FailedCreate",
                 "lastTransitionTime":"2024-05-01T10:30:00Z",
                 "message":"pods \"web-7d9f8-\" is forbidden: error looking up service account shop/web: serviceaccount \"web\" not found"}]"#,
        ));
        let found = refused(&c);
        assert_eq!(found.len(), 1);
        assert_refused(
            &found[0],
            RefusalCause::ServiceAccountMissing,
            "2024-05-01T10:30:00Z",
        );
    }

    #[test]
    fn the_latest_refusal_decides() {
        let mut c = Cluster::new();
        c.apply(replica_set(
            2,
            0,
            r#"[{"type":"ReplicaFailure","status":"True","reason":"FailedCreate","message":"old text"}]"#,
        ));
        c.apply(failed_create(
            "ReplicaSet",
            "web-7d9f8",
            "FailedCreate",
            QUOTA,
            "2024-05-01T10:00:00Z",
        ));
        let newer: CoreEvent = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web-7d9f8.newer", "namespace": "shop"},
            "type": "Warning", "reason": "FailedCreate",
            "message": "Error creating: Internal error occurred: failed calling webhook \"inject.example.io\": failed to call webhook: Post \"https://injector.system.svc:443/inject?timeout=10s\": dial tcp 10.96.0.12:443: connect: connection refused",
            "involvedObject": {"kind": "ReplicaSet", "name": "web-7d9f8", "namespace": "shop"},
            "firstTimestamp": "2024-05-01T11:50:00Z", "lastTimestamp": "2024-05-01T11:59:30Z"
        }))
        .unwrap();
        c.apply(Object::Event(newer.into()));
        let found = refused(&c);
        // Since the first refusal still held.
        assert_refused(
            &found[0],
            RefusalCause::WebhookUnreachable,
            "2024-05-01T10:00:00Z",
        );
        match &found[0].detail {
            Detail::Refused(r) => {
                assert_eq!(r.webhook.as_deref(), Some("inject.example.io"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn nothing_on_healthy_controllers_or_other_reasons() {
        let mut c = Cluster::new();
        // Has its pods: an old refusal is history.
        c.apply(replica_set(3, 3, "[]"));
        c.apply(refused_create("ReplicaSet", "web-7d9f8", QUOTA));
        // Short of pods, but only the kubelet's sandbox trouble and no refusal.
        c.apply(stateful_set(2));
        c.apply(failed_create(
            "StatefulSet",
            "db",
            "FailedCreatePodSandBox",
            "Failed to create pod sandbox: rpc error",
            "2024-05-01T11:00:00Z",
        ));
        // A finished Job with an old refusal; a suspended one.
        c.apply(object::<Job>(
            r#"{"metadata":{"name":"once","namespace":"shop","uid":"uid-once"},
                "spec":{"completions":1},"status":{"succeeded":1,
                "conditions":[{"type":"Complete","status":"True"}]}}"#,
        ));
        c.apply(refused_create("Job", "once", QUOTA));
        c.apply(object::<Job>(
            r#"{"metadata":{"name":"paused","namespace":"shop","uid":"uid-paused"},
                "spec":{"suspend":true}}"#,
        ));
        c.apply(refused_create("Job", "paused", QUOTA));
        assert_eq!(refused(&c), vec![]);
    }

    #[test]
    fn every_kind_is_judged_by_its_own_count() {
        let mut c = Cluster::new();
        let psa = r#"create Pod db-0 in StatefulSet db failed error: pods "db-0" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true"#;
        c.apply(stateful_set(0));
        c.apply(refused_create("StatefulSet", "db", psa));
        c.apply(object::<crate::model::DaemonSet>(
            r#"{"metadata":{"name":"agent","namespace":"shop","uid":"uid-agent"},
                "status":{"desiredNumberScheduled":4,"currentNumberScheduled":1}}"#,
        ));
        c.apply(refused_create(
            "DaemonSet",
            "agent",
            r#"Error creating: pods "agent-" is forbidden: no providers available to validate pod request"#,
        ));
        c.apply(object::<Job>(
            r#"{"metadata":{"name":"batch","namespace":"shop","uid":"uid-batch"},
                "spec":{"completions":4,"parallelism":2},"status":{"active":1,"succeeded":1}}"#,
        ));
        c.apply(refused_create(
            "Job",
            "batch",
            r#"Error creating: Pod "batch-x2k9p" is invalid: spec.containers[0].image: Required value"#,
        ));
        c.apply(object::<crate::model::ReplicationController>(
            r#"{"metadata":{"name":"legacy","namespace":"shop","uid":"uid-legacy"},
                "spec":{"replicas":2},"status":{"replicas":1}}"#,
        ));
        c.apply(refused_create(
            "ReplicationController",
            "legacy",
            r#"Error creating: pods "legacy-" is forbidden: unable to create new content in namespace shop because it is being terminated"#,
        ));
        let found: Vec<(Kind, String, &str)> = refused(&c)
            .iter()
            .map(|f| (f.kind, f.name.to_string(), f.cause.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (Kind::DaemonSet, "agent".to_string(), "pod_security_policy"),
                (Kind::Job, "batch".to_string(), "invalid_spec"),
                (Kind::StatefulSet, "db".to_string(), "pod_security"),
                (
                    Kind::ReplicationController,
                    "legacy".to_string(),
                    "namespace_terminating"
                ),
            ]
        );
    }

    #[test]
    fn a_daemon_set_without_status_counts_its_nodes() {
        let mut c = Cluster::new();
        for (name, ready) in [("n1", "True"), ("n2", "True"), ("n3", "False")] {
            c.apply(object::<crate::model::Node>(&format!(
                r#"{{"metadata":{{"name":"{name}"}},"status":{{"conditions":[{{"type":"Ready","status":"{ready}"}}]}}}}"#
            )));
        }
        c.apply(object::<crate::model::DaemonSet>(
            r#"{"metadata":{"name":"agent","namespace":"shop","uid":"uid-agent"},
                "spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}"#,
        ));
        c.apply(refused_create(
            "DaemonSet",
            "agent",
            r#"Error creating: pods "agent-" is forbidden: error looking up service account shop/agent: serviceaccount "agent" not found"#,
        ));
        let found = refused(&c);
        assert_eq!(found.len(), 1, "{found:#?}");
        match &found[0].detail {
            Detail::Refused(r) => assert_eq!((r.desired, r.current), (2, 0)),
            other => panic!("{other:?}"),
        }
        // With a pod on each Ready node it is not short.
        for node in ["n1", "n2"] {
            c.apply(object::<crate::model::Pod>(&format!(
                r#"{{"metadata":{{"name":"agent-{node}","namespace":"shop","uid":"p-{node}",
                    "ownerReferences":[{{"kind":"DaemonSet","name":"agent","uid":"uid-agent","controller":true}}]}},
                   "spec":{{"nodeName":"{node}"}},"status":{{"phase":"Running"}}}}"#
            )));
        }
        assert_eq!(refused(&c), vec![]);
    }

    #[test]
    fn events_of_an_earlier_namesake_do_not_count() {
        let mut c = Cluster::new();
        c.apply(replica_set(3, 1, "[]"));
        let e: CoreEvent = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web-7d9f8.old", "namespace": "shop"},
            "type": "Warning", "reason": "FailedCreate", "message": QUOTA,
            "involvedObject": {"kind": "ReplicaSet", "name": "web-7d9f8", "namespace": "shop", "uid": "uid-of-another"},
            "lastTimestamp": "2024-05-01T11:00:00Z"
        }))
        .unwrap();
        c.apply(Object::Event(e.into()));
        assert_eq!(refused(&c), vec![]);
    }

    /// A DaemonSet short of nodes with no port conflict is an `unknown`
    /// shortage, until its refusal explains it: then it is the refusal's
    /// finding alone.
    #[test]
    fn a_refused_daemon_set_is_the_refusal_not_an_unknown_shortage() {
        let mut c = Cluster::new();
        for name in ["n1", "n2"] {
            c.apply(object::<crate::model::Node>(&format!(
                r#"{{"metadata":{{"name":"{name}"}},"status":{{"conditions":[{{"type":"Ready","status":"True"}}]}}}}"#
            )));
        }
        c.apply(object::<crate::model::DaemonSet>(
            r#"{"metadata":{"name":"agent","namespace":"shop","uid":"uid-agent"},
                "spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}"#,
        ));
        let about_agent = |c: &Cluster| -> Vec<&'static str> {
            diagnose(c, now())
                .iter()
                .filter(|f| f.name == "agent")
                .map(|f| f.cause.as_str())
                .collect()
        };
        assert_eq!(about_agent(&c), ["unknown"]);
        c.apply(refused_create(
            "DaemonSet",
            "agent",
            r#"Error creating: pods "agent-" is forbidden: error looking up service account shop/agent: serviceaccount "agent" not found"#,
        ));
        assert_eq!(about_agent(&c), ["service_account_missing"]);
    }
}
