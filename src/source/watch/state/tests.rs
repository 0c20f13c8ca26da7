//! The findings kept current are the findings of a full diagnosis: random
//! sequences of watch events (objects applied and deleted, relists, events
//! forgotten, namespaces dropped) and time passing, each followed by reads
//! compared with `diagnose_with` of the same model at the same moment.
//!
//! CI runs 96 sequences; `PROPTEST_CASES=3000 cargo test --lib kept_findings`
//! runs thousands (3,000 pass in 3.5 minutes of a debug build).

use std::sync::Arc;

use jiff::SignedDuration;

use proptest::prelude::*;

use crate::diagnosis::{self, Settings};
use crate::model::{Kind, Object, Time};

use super::LiveState;

const EXAMPLE: &str = include_str!("../../../../examples/incidents.yaml");

/// Objects whose findings read other objects than their own, in two
/// versions each (the same names): a Job that finishes under its pod that
/// is not Ready, and a scheduler some bound pod names, or none does, for an
/// unbound pod that waits for it.
const READING_OTHERS: [&str; 2] = [
    r#"
- apiVersion: batch/v1
  kind: Job
  metadata: {name: long-runner, namespace: batch, uid: 5a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c01, creationTimestamp: "2024-05-31T20:00:00Z"}
  status: {active: 1, startTime: "2024-05-31T20:00:00Z"}
- apiVersion: v1
  kind: Pod
  metadata:
    name: long-runner-x1
    namespace: batch
    uid: 5a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c02
    creationTimestamp: "2024-05-31T20:00:00Z"
    ownerReferences:
    - {apiVersion: batch/v1, kind: Job, name: long-runner, uid: 5a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c01, controller: true}
  spec: {nodeName: node1, restartPolicy: Never, containers: [{name: run, image: "busybox:1.36"}]}
  status:
    phase: Running
    startTime: "2024-05-31T20:00:02Z"
    conditions:
    - {type: Ready, status: "False", lastTransitionTime: "2024-05-31T21:10:00Z"}
    containerStatuses:
    - {name: run, image: "busybox:1.36", ready: false, restartCount: 0, state: {running: {startedAt: "2024-05-31T20:00:04Z"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: waits-for-custom, namespace: default, uid: 5a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c03, creationTimestamp: "2024-05-31T21:00:00Z"}
  spec: {schedulerName: custom-scheduler, containers: [{name: app, image: "nginx:1.27"}]}
  status: {phase: Pending}
- apiVersion: v1
  kind: Pod
  metadata: {name: custom-scheduled, namespace: default, uid: 5a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c04, creationTimestamp: "2024-05-31T21:00:00Z"}
  spec: {schedulerName: custom-scheduler, nodeName: node1, containers: [{name: app, image: "nginx:1.27"}]}
  status:
    phase: Running
    conditions: [{type: Ready, status: "True", lastTransitionTime: "2024-05-31T21:00:05Z"}]
    containerStatuses:
    - {name: app, image: "nginx:1.27", ready: true, restartCount: 0, state: {running: {startedAt: "2024-05-31T21:00:04Z"}}}
"#,
    r#"
- apiVersion: batch/v1
  kind: Job
  metadata: {name: long-runner, namespace: batch, uid: 5a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c01, creationTimestamp: "2024-05-31T20:00:00Z"}
  status:
    startTime: "2024-05-31T20:00:00Z"
    conditions: [{type: Complete, status: "True", lastTransitionTime: "2024-05-31T22:00:00Z"}]
- apiVersion: v1
  kind: Pod
  metadata: {name: custom-scheduled, namespace: default, uid: 5a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c04, creationTimestamp: "2024-05-31T21:00:00Z"}
  spec: {nodeName: node1, containers: [{name: app, image: "nginx:1.27"}]}
  status:
    phase: Running
    conditions: [{type: Ready, status: "True", lastTransitionTime: "2024-05-31T21:00:05Z"}]
    containerStatuses:
    - {name: app, image: "nginx:1.27", ready: true, restartCount: 0, state: {running: {startedAt: "2024-05-31T21:00:04Z"}}}
"#,
];

/// A Deployment whose one pod has two findings of one family (two
/// containers crash-looping for different causes), in two versions of the
/// pod (which container fails first): the Deployment's verdict is explained
/// by its pod's first finding, as a full diagnosis orders them.
const TWO_FINDINGS_OF_ONE_FAMILY: [&str; 2] = [
    r#"
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: cart, namespace: shop, uid: 6b0c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d01, creationTimestamp: "2024-05-31T19:00:00Z"}
  spec: {replicas: 1}
  status:
    replicas: 1
    unavailableReplicas: 1
    conditions:
    - {type: Available, status: "False", reason: MinimumReplicasUnavailable, lastTransitionTime: "2024-05-31T20:00:00Z"}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: cart-5d8f
    namespace: shop
    uid: 6b0c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d02
    creationTimestamp: "2024-05-31T19:00:00Z"
    ownerReferences:
    - {apiVersion: apps/v1, kind: Deployment, name: cart, uid: 6b0c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d01, controller: true}
  spec: {replicas: 1}
  status: {replicas: 1}
- apiVersion: v1
  kind: Pod
  metadata:
    name: cart-5d8f-aa
    namespace: shop
    uid: 6b0c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d03
    creationTimestamp: "2024-05-31T20:00:00Z"
    ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: cart-5d8f, uid: 6b0c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d02, controller: true}
  spec: {nodeName: node1, containers: [{name: app, image: "shop/cart:2"}, {name: cache, image: "redis:7"}]}
  status:
    phase: Running
    startTime: "2024-05-31T20:00:00Z"
    conditions: [{type: Ready, status: "False", reason: ContainersNotReady, lastTransitionTime: "2024-05-31T20:00:05Z"}]
    containerStatuses:
    - name: app
      image: "shop/cart:2"
      ready: false
      restartCount: 9
      state: {waiting: {reason: CrashLoopBackOff, message: "back-off 5m0s restarting failed container=app"}}
      lastState: {terminated: {exitCode: 137, reason: OOMKilled, startedAt: "2024-05-31T23:50:00Z", finishedAt: "2024-05-31T23:51:00Z"}}
    - name: cache
      image: "redis:7"
      ready: false
      restartCount: 9
      state: {waiting: {reason: CrashLoopBackOff, message: "back-off 5m0s restarting failed container=cache"}}
      lastState: {terminated: {exitCode: 1, reason: Error, startedAt: "2024-05-31T23:50:00Z", finishedAt: "2024-05-31T23:50:02Z"}}
"#,
    r#"
- apiVersion: v1
  kind: Pod
  metadata:
    name: cart-5d8f-aa
    namespace: shop
    uid: 6b0c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d03
    creationTimestamp: "2024-05-31T20:00:00Z"
    ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: cart-5d8f, uid: 6b0c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d02, controller: true}
  spec: {nodeName: node1, containers: [{name: app, image: "shop/cart:2"}, {name: cache, image: "redis:7"}]}
  status:
    phase: Running
    startTime: "2024-05-31T20:00:00Z"
    conditions: [{type: Ready, status: "False", reason: ContainersNotReady, lastTransitionTime: "2024-05-31T20:00:05Z"}]
    containerStatuses:
    - name: app
      image: "shop/cart:2"
      ready: false
      restartCount: 9
      state: {waiting: {reason: CrashLoopBackOff, message: "back-off 5m0s restarting failed container=app"}}
      lastState: {terminated: {exitCode: 1, reason: Error, startedAt: "2024-05-31T23:50:00Z", finishedAt: "2024-05-31T23:50:02Z"}}
    - name: cache
      image: "redis:7"
      ready: false
      restartCount: 9
      state: {waiting: {reason: CrashLoopBackOff, message: "back-off 5m0s restarting failed container=cache"}}
      lastState: {terminated: {exitCode: 137, reason: OOMKilled, startedAt: "2024-05-31T23:50:00Z", finishedAt: "2024-05-31T23:51:00Z"}}
"#,
];

/// The objects of the embedded example and of `versions`, and the moment
/// the example describes.
fn example_with(versions: &[&str]) -> (Vec<Object>, Time) {
    let (mut pool, as_of) = example();
    for version in versions {
        pool.extend(
            crate::source::dump::load_str(version)
                .unwrap()
                .cluster
                .objects(),
        );
    }
    (pool, as_of)
}

/// The objects of the embedded example and of [`READING_OTHERS`], and the
/// moment the example describes.
fn example() -> (Vec<Object>, Time) {
    let loaded = crate::source::dump::load_str(EXAMPLE).unwrap();
    let mut pool = loaded.cluster.objects();
    for version in READING_OTHERS {
        pool.extend(
            crate::source::dump::load_str(version)
                .unwrap()
                .cluster
                .objects(),
        );
    }
    (pool, loaded.now.unwrap())
}

#[derive(Debug, Clone)]
enum Step {
    Apply(usize),
    Delete(usize),
    /// A relist of one kind naming the pool's objects of it whose index
    /// leaves remainder 0..k (a seed picks which).
    Relist(usize, u8),
    /// Forget events last seen before the example's moment minus these minutes.
    Prune(u16),
    ForgetNamespace(usize),
    /// Time passes by this many seconds.
    Wait(u32),
    /// Another read at the same moment.
    Read,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..10_000usize).prop_map(Step::Apply),
        3 => (0..10_000usize).prop_map(Step::Delete),
        1 => (0..10_000usize, 1..4u8).prop_map(|(k, m)| Step::Relist(k, m)),
        1 => (0..240u16).prop_map(Step::Prune),
        1 => (0..10_000usize).prop_map(Step::ForgetNamespace),
        2 => prop_oneof![1..60u32, 60..900u32, 900..14_400u32].prop_map(Step::Wait),
        2 => Just(Step::Read),
    ]
}

fn full(live: &LiveState, now: Time, settings: &Settings) -> Vec<diagnosis::Finding> {
    diagnosis::diagnose_with(&live.cluster.read(), now, settings)
}

fn run(steps: &[Step], start_before: u32, pool: &[Object], as_of: Time) {
    let settings = Settings::default();
    let live = LiveState::new(settings.clone(), []);
    let mut now = as_of - SignedDuration::from_secs(i64::from(start_before));
    for object in pool.iter().step_by(2) {
        live.apply(object.clone());
    }
    let kinds: Vec<Kind> = Kind::ALL.to_vec();
    let mut namespaces: Vec<String> = pool
        .iter()
        .map(|o| o.key().namespace.to_string())
        .filter(|n| !n.is_empty())
        .collect();
    namespaces.dedup();
    let (mut last, mut last_roots) = live.explained(now);
    for (i, step) in steps.iter().enumerate() {
        let (generation, held_until) = (live.kept.generation(), live.kept.latest().until);
        match step {
            Step::Apply(k) => live.apply(pool[k % pool.len()].clone()),
            Step::Delete(k) => live.delete(pool[k % pool.len()].clone()),
            Step::Relist(k, m) => {
                let kind = kinds[k % kinds.len()];
                let listed: Vec<Object> = pool
                    .iter()
                    .filter(|o| o.kind() == kind)
                    .enumerate()
                    .filter(|(j, _)| (j + k) % usize::from(*m) == 0)
                    .map(|(_, o)| o.clone())
                    .collect();
                let mut listing = live.listing(kind, &None);
                for page in listed.chunks(2) {
                    live.list(&mut listing, page.iter().cloned(), None);
                }
                live.relist(kind, &None, listing);
            }
            Step::Prune(minutes) => {
                let cutoff = as_of - SignedDuration::from_mins(i64::from(*minutes));
                live.kept.write(&live.cluster).prune_events(cutoff);
            }
            Step::ForgetNamespace(k) => {
                if !namespaces.is_empty() {
                    live.forget_namespace(&namespaces[k % namespaces.len()]);
                }
            }
            Step::Wait(secs) => now += SignedDuration::from_secs(i64::from(*secs)),
            Step::Read => {}
        }
        let (kept, roots) = live.explained(now);
        // The root causes kept with them (found again only when the
        // findings or the objects changed) are those of the model now.
        let found = diagnosis::RootCauses::of(&live.cluster.read(), &kept);
        assert!(
            roots.roots == found.roots,
            "step {i} ({step:?}): the kept root causes differ from those of the model"
        );
        // Reads only read: an unchanged model whose findings still hold is
        // not judged again.
        if live.kept.generation() == generation && held_until.is_none_or(|u| now < u) {
            assert!(
                Arc::ptr_eq(&kept, &last),
                "step {i} ({step:?}): an unchanged model was judged again at {now}"
            );
        }
        // Findings that read as before are the set kept before, so that
        // what was made of them (encoded metrics, summaries) holds.
        if *kept == *last {
            assert!(
                Arc::ptr_eq(&kept, &last),
                "step {i} ({step:?}): the same findings were handed out as another set"
            );
        }
        let expected = full(&live, now, &settings);
        assert!(
            *kept == expected,
            "step {i} ({step:?}) at {now}: the kept findings differ from a full diagnosis\n\
             kept:     {:#?}\nexpected: {:#?}",
            kept.iter()
                .map(|f| (&f.name, f.cause, &f.message))
                .collect::<Vec<_>>(),
            expected
                .iter()
                .map(|f| (&f.name, f.cause, &f.message))
                .collect::<Vec<_>>()
        );
        // Root causes found again alike are the set kept before, for the
        // same reason (their text, and its compressed form).
        if *roots == *last_roots {
            assert!(
                Arc::ptr_eq(&roots, &last_roots),
                "step {i} ({step:?}): the same root causes were handed out as another set"
            );
        }
        last = kept;
        last_roots = roots;
    }
}

/// 96 sequences, or as many as `PROPTEST_CASES` says (a config written out
/// in full would otherwise ignore it).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(96)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn kept_findings_are_those_of_a_full_diagnosis(
        steps in proptest::collection::vec(step(), 1..60),
        start_before in 0..7_200u32,
    ) {
        let (pool, as_of) = example();
        run(&steps, start_before, &pool, as_of);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn kept_findings_explain_workloads_as_a_full_diagnosis(
        steps in proptest::collection::vec(step(), 1..60),
        start_before in 0..7_200u32,
    ) {
        let (pool, as_of) = example_with(&TWO_FINDINGS_OF_ONE_FAMILY);
        run(&steps, start_before, &pool, as_of);
    }
}

/// Time alone changes the findings of the example: the kept ones follow
/// them seven seconds at a time over two hours, judged again only when due.
#[test]
fn kept_findings_follow_time_alone() {
    let (pool, as_of) = example();
    let steps: Vec<Step> = std::iter::repeat_n([Step::Wait(7), Step::Read], 1_000)
        .flatten()
        .collect();
    run(&steps, 3_600, &pool, as_of);
}
