//! A settled pod is held without its container statuses (`pod_wire.rs`), and
//! widened again, whole, by the next update that makes it interesting. The
//! diagnosis of the model held so is the diagnosis of one that keeps every
//! pod whole: random pods of every owner kind (a Deployment's ReplicaSet, a
//! StatefulSet, a DaemonSet, a Job and a CronJob's Job, a
//! ReplicationController, a node for a static pod, a kind the model does not
//! know, none), in random states, given warning events and changed in random
//! sequences, each step diagnosed both ways.
//!
//! CI runs 96 sequences; `PROPTEST_CASES=3000 cargo test -p
//! kube-lifecycle-core settled_pods` runs thousands.

use std::collections::BTreeMap;

use jiff::SignedDuration;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::diagnosis::diagnose;
use crate::model::{
    Cluster, CoreEvent, CronJob, DaemonSet, Deployment, Job, Kind, Node, Object, ObjectKey, Pod,
    ReplicaSet, ReplicationController, Slim, StatefulSet, Time,
};

const NOW: &str = "2024-06-01T00:00:00Z";

/// What a pod's controller is.
#[derive(Debug, Clone, Copy)]
enum OwnerKind {
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    Job,
    /// A Job a CronJob made.
    CronJobJob,
    ReplicationController,
    /// A static pod's mirror, owned by its node.
    Node,
    /// A controller the model does not watch (Argo's Rollout).
    Unknown,
    None,
}

const OWNER_KINDS: [OwnerKind; 9] = [
    OwnerKind::ReplicaSet,
    OwnerKind::StatefulSet,
    OwnerKind::DaemonSet,
    OwnerKind::Job,
    OwnerKind::CronJobJob,
    OwnerKind::ReplicationController,
    OwnerKind::Node,
    OwnerKind::Unknown,
    OwnerKind::None,
];

impl OwnerKind {
    /// `ownerReferences` naming the controller.
    fn reference(self) -> Value {
        let (api, kind, name) = match self {
            OwnerKind::ReplicaSet => ("apps/v1", "ReplicaSet", "web-5d8f"),
            OwnerKind::StatefulSet => ("apps/v1", "StatefulSet", "db"),
            OwnerKind::DaemonSet => ("apps/v1", "DaemonSet", "agent"),
            OwnerKind::Job => ("batch/v1", "Job", "migrate"),
            OwnerKind::CronJobJob => ("batch/v1", "Job", "nightly-28600000"),
            OwnerKind::ReplicationController => ("v1", "ReplicationController", "legacy"),
            OwnerKind::Node => ("v1", "Node", "n1"),
            OwnerKind::Unknown => ("argoproj.io/v1alpha1", "Rollout", "canary"),
            OwnerKind::None => return json!([]),
        };
        json!([{"apiVersion": api, "kind": kind, "name": name, "uid": format!("uid-{name}"),
                "controller": true}])
    }
}

/// A container's state, or last state.
#[derive(Debug, Clone)]
enum State {
    None,
    Running,
    Terminated(i32, &'static str),
    Waiting(&'static str),
}

impl State {
    fn json(&self, at: &str) -> Value {
        match self {
            State::None => json!({}),
            State::Running => json!({"running": {"startedAt": at}}),
            State::Terminated(code, reason) => json!({"terminated": {
                "exitCode": code, "reason": reason, "message": format!("{reason} {code}"),
                "startedAt": "2024-05-31T20:00:00Z", "finishedAt": at}}),
            State::Waiting(reason) => json!({"waiting": {
                "reason": reason, "message": format!("back-off 5m0s ({reason})")}}),
        }
    }
}

fn state() -> impl Strategy<Value = State> {
    prop_oneof![
        4 => Just(State::Running),
        2 => prop::sample::select(vec![
            (0, "Completed"), (1, "Error"), (137, "OOMKilled"), (143, "Error"), (128, "ContainerCannotRun"),
        ]).prop_map(|(c, r)| State::Terminated(c, r)),
        1 => prop::sample::select(vec!["CrashLoopBackOff", "ImagePullBackOff", "ContainerCreating", "CreateContainerConfigError"])
            .prop_map(State::Waiting),
        1 => Just(State::None),
    ]
}

#[derive(Debug, Clone)]
struct Container {
    state: State,
    last: State,
    restarts: i32,
    ready: bool,
}

fn container() -> impl Strategy<Value = Container> {
    (
        state(),
        prop_oneof![2 => Just(State::None), 1 => state()],
        prop_oneof![3 => Just(0), 1 => 1..12i32],
        any::<bool>(),
    )
        .prop_map(|(state, last, restarts, ready)| Container {
            state,
            last,
            restarts,
            ready,
        })
}

/// One version of a pod: most of them settled (Running and Ready, or
/// Succeeded), the rest what makes a pod interesting.
#[derive(Debug, Clone)]
struct PodVersion {
    phase: &'static str,
    /// The Ready condition's status and when it last changed.
    ready: Option<(&'static str, &'static str)>,
    bound: bool,
    deleting: bool,
    /// An init container (a native sidecar when the flag says so).
    init: Option<(Container, bool)>,
    containers: Vec<Container>,
    reason: Option<&'static str>,
}

const TIMES: [&str; 4] = [
    "2024-05-31T12:00:00Z",
    "2024-05-31T23:00:00Z",
    "2024-05-31T23:55:00Z",
    "2024-05-31T23:59:30Z",
];

fn pod_version() -> impl Strategy<Value = PodVersion> {
    (
        prop::sample::select(vec![
            "Running",
            "Running",
            "Running",
            "Succeeded",
            "Failed",
            "Pending",
        ]),
        prop::option::weighted(
            0.9,
            (
                prop::sample::select(vec!["True", "True", "False"]),
                prop::sample::select(TIMES.to_vec()),
            ),
        ),
        prop::bool::weighted(0.95),
        prop::bool::weighted(0.05),
        prop::option::weighted(0.3, (container(), any::<bool>())),
        prop::collection::vec(container(), 1..3),
        prop::option::weighted(
            0.1,
            prop::sample::select(vec!["Evicted", "DeadlineExceeded"]),
        ),
    )
        .prop_map(
            |(phase, ready, bound, deleting, init, containers, reason)| PodVersion {
                phase,
                ready,
                bound,
                deleting,
                init,
                containers,
                reason,
            },
        )
}

/// A version made settled: Running and Ready (or Succeeded), its containers
/// not waiting. (Most pods of a cluster are; the test needs many.)
fn settled(mut v: PodVersion) -> PodVersion {
    v.phase = if v.phase == "Succeeded" {
        "Succeeded"
    } else {
        "Running"
    };
    v.ready = Some(("True", v.ready.map_or(TIMES[0], |(_, at)| at)));
    v.bound = true;
    v.deleting = false;
    v.reason = None;
    for c in v
        .containers
        .iter_mut()
        .chain(v.init.iter_mut().map(|(c, _)| c))
    {
        if matches!(c.state, State::Waiting(_)) {
            c.state = State::Running;
        }
    }
    v
}

fn status_json(name: &str, c: &Container, at: &str) -> Value {
    json!({"name": name, "image": format!("registry.example/{name}:1"), "ready": c.ready,
           "restartCount": c.restarts, "started": c.ready,
           "state": c.state.json(at), "lastState": c.last.json(at)})
}

fn pod_json(slot: usize, owner: OwnerKind, v: &PodVersion) -> Value {
    let name = format!("p{slot}");
    let at = v.ready.map_or(TIMES[1], |(_, at)| at);
    let mut meta = json!({"name": name, "namespace": "ns", "uid": format!("uid-{name}"),
        "creationTimestamp": "2024-05-31T10:00:00Z", "ownerReferences": owner.reference()});
    if v.deleting {
        meta["deletionTimestamp"] = json!("2024-05-31T23:50:00Z");
        meta["deletionGracePeriodSeconds"] = json!(30);
    }
    let containers: Vec<Value> = (0..v.containers.len())
        .map(|i| json!({"name": format!("c{i}"), "image": format!("registry.example/c{i}:1")}))
        .collect();
    let statuses: Vec<Value> = v
        .containers
        .iter()
        .enumerate()
        .map(|(i, c)| status_json(&format!("c{i}"), c, at))
        .collect();
    let mut spec = json!({"containers": containers,
        "restartPolicy": if matches!(owner, OwnerKind::Job | OwnerKind::CronJobJob) { "OnFailure" } else { "Always" }});
    let mut status = json!({"phase": v.phase, "startTime": "2024-05-31T10:00:05Z",
        "containerStatuses": statuses,
        "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-05-31T10:00:01Z"}]});
    if v.bound {
        spec["nodeName"] = json!("n1");
    }
    if let Some((c, sidecar)) = &v.init {
        let mut init = json!({"name": "init", "image": "registry.example/init:1"});
        if *sidecar {
            init["restartPolicy"] = json!("Always");
        }
        spec["initContainers"] = json!([init]);
        status["initContainerStatuses"] = json!([status_json("init", c, at)]);
    }
    if let Some((ready, at)) = v.ready {
        let reason = if ready == "True" {
            ""
        } else {
            "ContainersNotReady"
        };
        status["conditions"]
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "Ready",
            "status": ready, "reason": reason, "lastTransitionTime": at}));
    }
    if let Some(reason) = v.reason {
        status["reason"] = json!(reason);
        status["message"] = json!(format!("The pod was {reason}."));
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status})
}

/// The pod as the model holds it, and the same pod whole: the container
/// statuses the decoder dropped put back (decoded from the same pod marked
/// for deletion, which no pod settled is).
fn held_and_whole(pod: &Value) -> (Pod, Pod) {
    let held: Pod = serde_json::from_value(pod.clone()).unwrap();
    let mut deleting = pod.clone();
    deleting["metadata"]["deletionTimestamp"] = json!("2024-05-31T23:50:00Z");
    let statuses: Pod = serde_json::from_value(deleting).unwrap();
    let mut whole = held.clone();
    whole.status.set_container_statuses(
        statuses.status.container_statuses().into(),
        statuses.status.init_container_statuses().into(),
    );
    (held, whole)
}

fn object<T: Slim>(value: Value) -> Object {
    serde_json::from_value::<T>(value).unwrap().into_object()
}

/// The pods' controllers and node, in states drawn once per sequence.
fn owners(healthy: bool, failed_job: bool) -> Vec<Object> {
    let meta = |name: &str, owner: Value| {
        json!({"name": name, "namespace": "ns", "uid": format!("uid-{name}"),
               "creationTimestamp": "2024-05-31T10:00:00Z", "ownerReferences": owner})
    };
    let ready = if healthy { 2 } else { 1 };
    let deployment_ref = json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                 "uid": "uid-web", "controller": true}]);
    let cron_ref = json!([{"apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly",
                           "uid": "uid-nightly", "controller": true}]);
    let available = if healthy { "True" } else { "False" };
    let job_status = if failed_job {
        json!({"failed": 3, "startTime": "2024-05-31T10:00:00Z", "conditions": [
            {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
             "message": "Job has reached the specified backoff limit",
             "lastTransitionTime": "2024-05-31T23:00:00Z"}]})
    } else {
        json!({"active": 1, "startTime": "2024-05-31T10:00:00Z"})
    };
    vec![
        object::<Node>(json!({"metadata": {"name": "n1", "uid": "uid-n1"},
            "status": {"conditions": [{"type": "Ready", "status": "True",
                "lastTransitionTime": "2024-05-31T00:00:00Z"}]}})),
        object::<Deployment>(json!({"metadata": meta("web", json!([])),
            "spec": {"replicas": 2},
            "status": {"replicas": 2, "availableReplicas": ready, "unavailableReplicas": 2 - ready,
                "conditions": [{"type": "Available", "status": available,
                    "reason": "MinimumReplicasUnavailable", "lastTransitionTime": "2024-05-31T20:00:00Z"}]}})),
        object::<ReplicaSet>(json!({"metadata": meta("web-5d8f", deployment_ref),
            "spec": {"replicas": 2}, "status": {"replicas": 2, "readyReplicas": ready}})),
        object::<StatefulSet>(json!({"metadata": meta("db", json!([])),
            "spec": {"replicas": 2},
            "status": {"replicas": 2, "readyReplicas": ready, "updatedReplicas": 2,
                "currentRevision": "db-1", "updateRevision": "db-1"}})),
        object::<DaemonSet>(json!({"metadata": meta("agent", json!([])),
            "status": {"desiredNumberScheduled": 1, "currentNumberScheduled": 1,
                "numberReady": ready - 1, "numberUnavailable": 2 - ready}})),
        object::<Job>(json!({"metadata": meta("migrate", json!([])),
            "spec": {"backoffLimit": 2}, "status": job_status.clone()})),
        object::<CronJob>(json!({"metadata": meta("nightly", json!([])),
            "spec": {"schedule": "0 0 * * *"},
            "status": {"lastScheduleTime": "2024-05-31T00:00:00Z"}})),
        object::<Job>(json!({"metadata": meta("nightly-28600000", cron_ref),
            "spec": {"backoffLimit": 2}, "status": job_status})),
        object::<ReplicationController>(json!({"metadata": meta("legacy", json!([])),
            "spec": {"replicas": 2}, "status": {"replicas": 2, "readyReplicas": ready}})),
    ]
}

/// A warning event about a pod, in the kubelet's words.
fn warning(slot: usize, n: usize, reason: usize, at: &str) -> Object {
    let (reason, message) = [
        (
            "Unhealthy",
            "Readiness probe failed: HTTP probe failed with statuscode: 503",
        ),
        (
            "Unhealthy",
            "Liveness probe failed: Get \"http://10.0.0.7:8080/healthz\": context deadline exceeded",
        ),
        (
            "BackOff",
            "Back-off restarting failed container c0 in pod p0_ns(uid-p0)",
        ),
        (
            "FailedMount",
            "MountVolume.SetUp failed for volume \"config\" : configmap \"app-config\" not found",
        ),
        (
            "Failed",
            "Failed to pull image \"registry.example/c0:1\": rpc error: code = NotFound",
        ),
    ][reason % 5];
    let name = format!("p{slot}");
    object::<CoreEvent>(json!({
        "metadata": {"name": format!("{name}.{n}"), "namespace": "ns", "uid": format!("uid-ev-{slot}-{n}")},
        "involvedObject": {"kind": "Pod", "namespace": "ns", "name": name, "uid": format!("uid-{name}")},
        "type": "Warning", "reason": reason, "message": message, "count": 3,
        "firstTimestamp": "2024-05-31T22:00:00Z", "lastTimestamp": at}))
}

#[derive(Debug, Clone)]
enum Step {
    /// A new version of the pod in a slot (settled when the flag says so).
    Pod(usize, PodVersion, bool),
    /// A warning event about the pod in a slot.
    Warn(usize, usize, usize),
    /// The pod in a slot deleted.
    Delete(usize),
    /// Time passes by this many seconds.
    Wait(u32),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..12usize, pod_version(), prop::bool::weighted(0.6)).prop_map(|(s, v, settle)| Step::Pod(s, v, settle)),
        3 => (0..12usize, 0..5usize, 0..TIMES.len()).prop_map(|(s, r, t)| Step::Warn(s, r, t)),
        1 => (0..12usize).prop_map(Step::Delete),
        1 => prop_oneof![1..600u32, 600..7_200u32].prop_map(Step::Wait),
    ]
}

/// Each step is applied to the held model as a watch would apply it; the
/// whole model is made afresh from the objects current at that step, every
/// pod whole, so that neither the shedding nor the way an update widens a
/// held pod again (in place or re-indexed) can hide from it.
fn run(
    owner_of: &[OwnerKind],
    healthy: bool,
    failed_job: bool,
    steps: &[Step],
) -> Result<(), TestCaseError> {
    let controllers = owners(healthy, failed_job);
    // Both models as after a sync: every kind listed.
    let synced = || {
        let mut cluster = Cluster::new();
        for kind in Kind::ALL {
            cluster.mark_listed(kind);
        }
        cluster
    };
    let mut held = synced();
    for object in &controllers {
        held.apply(object.clone());
    }
    let mut pods: BTreeMap<usize, Pod> = BTreeMap::new();
    let mut warnings: Vec<Object> = Vec::new();
    let mut now: Time = NOW.parse().unwrap();
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Pod(slot, version, settle) => {
                let owner = owner_of[slot % owner_of.len()];
                let version = if *settle {
                    settled(version.clone())
                } else {
                    version.clone()
                };
                let (as_held, whole) = held_and_whole(&pod_json(*slot, owner, &version));
                held.apply(Object::Pod(as_held));
                pods.insert(*slot, whole);
            }
            Step::Warn(slot, reason, at) => {
                let event = warning(*slot, warnings.len(), *reason, TIMES[*at]);
                held.apply(event.clone());
                warnings.push(event);
            }
            Step::Delete(slot) => {
                held.delete(Kind::Pod, &ObjectKey::new("ns", format!("p{slot}")));
                pods.remove(slot);
            }
            Step::Wait(secs) => now += SignedDuration::from_secs(i64::from(*secs)),
        }
        let mut whole = synced();
        for object in controllers
            .iter()
            .cloned()
            .chain(pods.values().cloned().map(Object::Pod))
            .chain(warnings.iter().cloned())
        {
            whole.apply(object);
        }
        let (found, expected) = (diagnose(&held, now), diagnose(&whole, now));
        prop_assert!(
            found == expected,
            "step {i} ({step:?}) at {now}: settled pods held without their statuses are \
             diagnosed otherwise than whole\nheld:  {:#?}\nwhole: {:#?}",
            found
                .iter()
                .map(|f| (&f.name, f.cause, &f.message))
                .collect::<Vec<_>>(),
            expected
                .iter()
                .map(|f| (&f.name, f.cause, &f.message))
                .collect::<Vec<_>>()
        );
    }
    Ok(())
}

/// 96 sequences, or as many as `PROPTEST_CASES` says.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(96)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn settled_pods_are_diagnosed_as_if_held_whole(
        owner_of in prop::collection::vec(prop::sample::select(OWNER_KINDS.to_vec()), 12),
        healthy in any::<bool>(),
        failed_job in any::<bool>(),
        steps in prop::collection::vec(step(), 1..40),
    ) {
        run(&owner_of, healthy, failed_job, &steps)?;
    }
}

/// Every owner kind's settled pod, given a warning event and widened again
/// by an update that makes it interesting (not Ready, its probe failing),
/// then settled again: the held model reads as the whole one at each step,
/// and the pod is held without its statuses exactly while it is settled.
#[test]
fn a_settled_pod_of_every_owner_kind_widened_by_a_warning_reads_as_whole() {
    let running = Container {
        state: State::Running,
        last: State::Terminated(137, "OOMKilled"),
        restarts: 3,
        ready: true,
    };
    let calm = PodVersion {
        phase: "Running",
        ready: Some(("True", TIMES[0])),
        bound: true,
        deleting: false,
        init: Some((
            Container {
                state: State::Terminated(0, "Completed"),
                ..running.clone()
            },
            false,
        )),
        containers: vec![running.clone(), running.clone()],
        reason: None,
    };
    let failing = PodVersion {
        ready: Some(("False", TIMES[1])),
        containers: vec![
            Container {
                ready: false,
                ..running.clone()
            },
            running.clone(),
        ],
        ..calm.clone()
    };
    let owner_of = OWNER_KINDS.to_vec();
    let mut steps = Vec::new();
    for slot in 0..OWNER_KINDS.len() {
        steps.push(Step::Pod(slot, calm.clone(), false));
        steps.push(Step::Warn(slot, 0, 1));
        steps.push(Step::Pod(slot, failing.clone(), false));
        steps.push(Step::Wait(1_800));
        steps.push(Step::Pod(slot, calm.clone(), false));
    }
    for (healthy, failed_job) in [(true, false), (false, true)] {
        run(&owner_of, healthy, failed_job, &steps).unwrap();
    }
    for owner in OWNER_KINDS {
        let (held, whole) = held_and_whole(&pod_json(0, owner, &calm));
        // A Job's running pod that restarted in place keeps its statuses:
        // how its last run ended is the Job's verdict.
        let job = matches!(owner, OwnerKind::Job | OwnerKind::CronJobJob);
        assert!(held.is_settled(), "{owner:?}");
        assert_eq!(
            held.container_statuses().count(),
            if job { 3 } else { 0 },
            "{owner:?}"
        );
        assert_eq!(whole.container_statuses().count(), 3, "{owner:?}");
        let (held, _) = held_and_whole(&pod_json(0, owner, &failing));
        assert!(
            !held.is_settled() && held.container_statuses().count() == 3,
            "{owner:?}"
        );
    }
}
