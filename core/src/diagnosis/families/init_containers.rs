//! `init_container_running`: a pod whose start waits on an init container
//! that runs and does not finish, or on a native sidecar that runs and does
//! not start.
//!
//! The kubelet starts init containers one at a time, in order, and each only
//! once the one before it has exited 0; a native sidecar (an init container
//! with `restartPolicy: Always`, 1.29+) keeps running, and the next starts
//! once it has *started*: its startup probe passed and its postStart hook
//! returned (`started: true` in its status; pkg/kubelet/kuberuntime,
//! `computeInitContainerActions`). Until then every later container, the
//! app's too, waits with reason `PodInitializing`.
//!
//! An init container that waits (pulling, backing off, misconfigured) is the
//! container diagnoses' ([`super::containers`]); this family speaks of the
//! one that runs.

use crate::diagnosis::moment::Moment;
use crate::model::{ContainerKind, ContainerStatus, Event, Pod, Time};

use crate::diagnosis::classify::{self, ProbeKind};
use crate::diagnosis::family::family;
use crate::diagnosis::metric::{Fold, Identity, MetricFamily, probe_failure, since, text};
use crate::diagnosis::vocabulary::vocabulary;
use crate::diagnosis::{Anomaly, Cause, Detail, Finding, Input, ProbeFailure, Settings};

use super::pod_finding::{events_of, first_seen, on_its_node, on_node_since, pod_finding};
use crate::diagnosis::VerdictCause;
use crate::diagnosis::family::PodsVerdict;

vocabulary! {
    /// What holds a pod's start in its init containers (anomaly
    /// `init_container_running`).
    pub enum InitCause {
        Running = "running": "An init container has run longer than --init-after without exiting: a wait-for loop on a Service, DNS name or port that never answers, a migration waiting for a lock, a download that hangs. The containers after it wait.",
        SidecarStartupProbe = "sidecar_startup_probe": "A native sidecar (an init container with restartPolicy Always) runs but its startup probe keeps failing (Unhealthy events \"Startup probe failed\"), so it never counts as started and the init containers after it and the app wait.",
        SidecarNotStarted = "sidecar_not_started": "A native sidecar runs but has not started and no startup probe failure is reported: a postStart hook that does not return, or probe events that aged out.",
    }
}

impl PodsVerdict for InitCause {
    fn pods_verdict(self) -> VerdictCause {
        VerdictCause::InitContainer
    }
}

family!("init_containers" each pod: InitContainerRunning);

const METRICS: &[MetricFamily] = &[MetricFamily {
    name: "kube_lifecycle_pod_init_container_running_since_timestamp_seconds",
    help: "Unix time a pod's start began waiting on an init container that runs and does not finish, or on a native sidecar that runs and has not started (reported past --init-after), by cause and, for a sidecar's failing startup probe, what the probe's output says (probe_failure).",
    identity: Identity::Container,
    labels: &["node", "cause", "probe_failure"],
    anomalies: &[Anomaly::InitContainerRunning],
    aggregate: false,
    samples: |f| {
        since(
            f,
            vec![text(&f.node), f.cause.to_string(), probe_failure(f)],
        )
    },
    fold: Fold::Earliest,
    example: r#"time() - kube_lifecycle_pod_init_container_running_since_timestamp_seconds{cause="running"} > 1800"#,
}];

fn diagnose_pod(input: &Input<'_>, pod: &Pod, out: &mut Vec<Finding>) {
    if !on_its_node(pod) {
        return;
    }
    let Some((kind, status)) = pod.pending_init_container() else {
        return;
    };
    if status.state.running.is_some() {
        out.extend(judge(input, pod, kind, status));
    }
}

/// Since when the pod's start has waited on `status`: its current run, or,
/// when it has run before (a sidecar its failing startup probe restarts), its
/// first failure reported, else since the pod reached its node.
fn waiting_since(pod: &Pod, status: &ContainerStatus, events: &[&Event]) -> Option<Time> {
    let run = status.state.running.as_ref().and_then(|r| r.started_at);
    if status.restart_count == 0 {
        return run.or_else(|| on_node_since(pod));
    }
    [first_seen(events), on_node_since(pod), run]
        .into_iter()
        .flatten()
        .min()
}

fn judge(
    input: &Input<'_>,
    pod: &Pod,
    kind: ContainerKind,
    status: &ContainerStatus,
) -> Option<Finding> {
    let (now, settings): (&Moment, &Settings) = (&input.now, input.settings);
    let field_path = kind.field_path(&status.name);
    let events: Vec<&Event> = events_of(input.cluster, pod)
        .into_iter()
        .filter(|e| e.regarding.field_path == field_path)
        .collect();
    let since = waiting_since(pod, status, &events)?;
    if !now.waited(since, settings.init_after) {
        return None;
    }
    let waited = now.age_of(since);
    let running_since = status.state.running.as_ref().and_then(|r| r.started_at);
    let restarts = match status.restart_count {
        0 => String::new(),
        1 => ", 1 restart".to_string(),
        n => format!(", {n} restarts"),
    };
    let (cause, message, probe_failure): (InitCause, String, Option<ProbeFailure>) = match kind {
        ContainerKind::Sidecar => {
            // The latest startup probe failure of the sidecar.
            let failed = events.iter().rev().find_map(|e| {
                classify::probe_event(&e.reason, &e.message)
                    .filter(|r| r.probe == ProbeKind::Startup)
                    .map(|r| (r.failure, e.message.clone()))
            });
            match failed {
                Some((failure, message)) => (
                    InitCause::SidecarStartupProbe,
                    format!(
                        "sidecar {:?} has not started for {}{restarts}: {message}",
                        status.name, waited
                    ),
                    Some(failure),
                ),
                None => (
                    InitCause::SidecarNotStarted,
                    format!(
                        "sidecar {:?} runs but has not started for {}{restarts}; no startup probe failure is reported",
                        status.name, waited
                    ),
                    None,
                ),
            }
        }
        _ => (
            InitCause::Running,
            format!(
                "init container {:?} has been running for {} without finishing{restarts}{}",
                status.name,
                waited,
                latest_warning(&events)
            ),
            None,
        ),
    };
    Some(pod_finding(
        pod,
        Some((kind, &status.name)),
        Cause::InitContainerRunning(cause),
        Some(since),
        message,
        Detail::InitContainer {
            running_since,
            restarts: status.restart_count,
            probe_failure,
        },
    ))
}

/// `; last warning: Reason: message` for the container's latest warning, if any.
fn latest_warning(events: &[&Event]) -> String {
    events
        .last()
        .map(|e| format!("; last warning: {}: {}", e.reason, e.message))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use crate::diagnosis::{Cause, InitCause, ProbeFailure, diagnose};
    use crate::model::{Cluster, ContainerKind, CoreEvent, Object, Pod};

    const NOW: &str = "2024-06-01T01:00:00Z";

    /// A pod whose init containers are `init` (JSON statuses) and whose spec
    /// makes `sidecars` native sidecars; its app container waits for them.
    fn pod(name: &str, init_specs: &str, init_statuses: &str) -> Object {
        let json = format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"shop","uid":"u-{name}",
                 "creationTimestamp":"2024-05-31T23:00:00Z"}},
                "spec":{{"nodeName":"n1","initContainers":[{init_specs}],
                  "containers":[{{"name":"app","image":"shop/app:1"}}]}},
                "status":{{"phase":"Pending","startTime":"2024-05-31T23:00:05Z",
                  "conditions":[{{"type":"PodScheduled","status":"True","lastTransitionTime":"2024-05-31T23:00:00Z"}},
                    {{"type":"Initialized","status":"False","reason":"ContainersNotInitialized"}}],
                  "initContainerStatuses":[{init_statuses}],
                  "containerStatuses":[{{"name":"app","image":"shop/app:1","ready":false,"restartCount":0,
                    "started":false,"state":{{"waiting":{{"reason":"PodInitializing"}}}}}}]}}}}"#
        );
        Object::Pod(serde_json::from_str::<Pod>(&json).unwrap())
    }

    /// A pod with the native sidecar `istio-proxy` and then the init
    /// container `migrate`, in these states.
    fn meshed(name: &str, sidecar: String, migrate: String) -> Object {
        pod(
            name,
            r#"{"name":"istio-proxy","restartPolicy":"Always"},{"name":"migrate"}"#,
            &[sidecar, migrate].join(","),
        )
    }

    fn running(name: &str, since: &str, started: bool, restarts: i32) -> String {
        format!(
            r#"{{"name":"{name}","image":"busybox:1.36","ready":false,"started":{started},
                "restartCount":{restarts},"state":{{"running":{{"startedAt":"{since}"}}}}}}"#
        )
    }

    fn done(name: &str) -> String {
        format!(
            r#"{{"name":"{name}","image":"busybox:1.36","ready":false,"restartCount":0,
                "state":{{"terminated":{{"exitCode":0,"reason":"Completed",
                  "startedAt":"2024-05-31T23:00:06Z","finishedAt":"2024-05-31T23:00:09Z"}}}}}}"#
        )
    }

    fn waiting(name: &str) -> String {
        format!(
            r#"{{"name":"{name}","image":"busybox:1.36","ready":false,"restartCount":0,
                "state":{{"waiting":{{"reason":"PodInitializing"}}}}}}"#
        )
    }

    fn found(c: &Cluster) -> Vec<(String, Cause, Option<String>, Option<ContainerKind>)> {
        diagnose(c, NOW.parse().unwrap())
            .into_iter()
            .map(|f| {
                (
                    f.name.to_string(),
                    f.cause,
                    f.container.map(|c| c.to_string()),
                    f.container_kind,
                )
            })
            .collect()
    }

    #[test]
    fn an_init_container_that_runs_past_the_threshold_holds_the_pod() {
        let mut c = Cluster::new();
        // wait-for-db has run for an hour; migrate waits behind it.
        c.apply(pod(
            "api",
            r#"{"name":"wait-for-db"},{"name":"migrate"}"#,
            &[
                running("wait-for-db", "2024-06-01T00:00:00Z", false, 0),
                waiting("migrate"),
            ]
            .join(","),
        ));
        // Running for 3 minutes only: not yet.
        c.apply(pod(
            "fresh",
            r#"{"name":"wait-for-db"}"#,
            &running("wait-for-db", "2024-06-01T00:57:00Z", false, 0),
        ));
        assert_eq!(
            found(&c),
            vec![(
                "api".to_string(),
                Cause::InitContainerRunning(InitCause::Running),
                Some("wait-for-db".to_string()),
                Some(ContainerKind::Init)
            )]
        );
    }

    #[test]
    fn a_sidecar_whose_startup_probe_fails_names_the_probe() {
        let mut c = Cluster::new();
        c.apply(meshed(
            "meshed",
            running("istio-proxy", "2024-06-01T00:55:00Z", false, 23),
            waiting("migrate"),
        ));
        let event: CoreEvent = serde_json::from_str(
            r#"{"metadata":{"name":"meshed.1","namespace":"shop"},"type":"Warning","reason":"Unhealthy",
                "message":"Startup probe failed: Get \"http://10.1.2.3:15021/healthz/ready\": dial tcp 10.1.2.3:15021: connect: connection refused",
                "involvedObject":{"kind":"Pod","namespace":"shop","name":"meshed","uid":"u-meshed",
                                  "fieldPath":"spec.initContainers{istio-proxy}"},
                "count":700,"firstTimestamp":"2024-05-31T23:00:20Z","lastTimestamp":"2024-06-01T00:59:50Z"}"#,
        )
        .unwrap();
        c.apply(Object::Event(event.into()));
        let findings = diagnose(&c, NOW.parse().unwrap());
        let [f] = findings.as_slice() else {
            panic!("{findings:#?}")
        };
        assert_eq!(
            f.cause,
            Cause::InitContainerRunning(InitCause::SidecarStartupProbe)
        );
        assert_eq!(f.container_kind, Some(ContainerKind::Sidecar));
        assert_eq!(f.since.unwrap().to_string(), "2024-05-31T23:00:00Z");
        assert!(f.message.contains("connection refused"), "{}", f.message);
        assert!(matches!(
            f.detail,
            crate::diagnosis::Detail::InitContainer {
                restarts: 23,
                probe_failure: Some(ProbeFailure::ConnectionRefused),
                ..
            }
        ));
    }

    #[test]
    fn a_started_sidecar_and_finished_init_containers_hold_nothing() {
        let mut c = Cluster::new();
        // The sidecar started, the migration is done: the app is being created.
        c.apply(meshed(
            "ready-to-go",
            running("istio-proxy", "2024-05-31T23:00:06Z", true, 0),
            done("migrate"),
        ));
        assert!(
            !found(&c)
                .iter()
                .any(|(_, cause, ..)| matches!(cause, Cause::InitContainerRunning(_))),
            "{:?}",
            found(&c)
        );
    }
}
