//! Property tests over hostile input: arbitrary JSON shaped like the objects the
//! model reads, arbitrary messages for every classifier, arbitrary clocks. The
//! loader either accepts or rejects with an error; the diagnosis and every
//! output never panic; and no case allocates more than a bounded multiple of
//! its input (a count in a message must never size an allocation).
//!
//! `PROPTEST_CASES` sets the cases per property (256 by default, what the
//! test command runs); docs/fuzzing.md records a longer run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use kube_lifecycle_exporter::codec;
use kube_lifecycle_exporter::diagnosis::{self, Settings, classify};
use kube_lifecycle_exporter::model::{Pod, Time};
use kube_lifecycle_exporter::output::{self, RunbookLinks};
use kube_lifecycle_exporter::source::dump;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------
// Allocation accounting, per thread (each test runs on its own thread).
// ---------------------------------------------------------------------------

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn account(delta: isize) {
    // `try_with`: allocations during thread teardown are not counted.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

#[allow(unsafe_code)] // a global allocator is an unsafe trait
// SAFETY: every call is forwarded to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller keeps `alloc`'s contract, which is System's too.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            account(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from System, with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        account(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from System with `layout`; the caller keeps
        // `realloc`'s contract for `new_size`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            account(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result with the most bytes it held at once.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let out = f();
    let peak = PEAK.with(Cell::get) - start;
    (out, peak.max(0) as usize)
}

/// What one case may hold at once: generous, but linear in the input.
fn allowed(input_bytes: usize) -> usize {
    64 * input_bytes + 4 * 1024 * 1024
}

// ---------------------------------------------------------------------------
// Strategies.
// ---------------------------------------------------------------------------

/// Text from every corner: any Unicode, control characters, quotes and
/// backslashes, pieces of real messages with huge or negative counts.
fn text() -> impl Strategy<Value = String> {
    let fragments = prop::sample::select(vec![
        "0/",
        " nodes are available: ",
        "No nodes are available that match all of the predicates: ",
        "Insufficient cpu",
        "Insufficient pods (",
        "4294967295 ",
        "18446744073709551615",
        "-1 ",
        "node(s) had untolerated taint {node-role.kubernetes.io/master: }",
        ", ",
        ". preemption: ",
        "Some resources are remaining: ",
        "pods. has ",
        " resource instances",
        "Some content in the namespace has finalizers remaining: ",
        "kubernetes.io/pvc-protection in ",
        "Failed to pull image \"",
        "rpc error: code = Unknown desc = ",
        "unauthorized",
        "manifest unknown",
        "toomanyrequests",
        "x509: certificate signed by unknown authority",
        "configmap \"",
        "\" not found",
        "failed to get sandbox image \"k8s.gcr.io/pause:3.2\"",
        "device or resource busy",
        "context deadline exceeded",
        "pod (p) failed to fit in any node\nfit failure summary on nodes : ",
        "fit failure on node (",
        "): ",
        "Failed for reason ",
        " (",
        ")",
        "rpc error: code = ",
        "NotFound",
        "dial tcp: lookup ",
        "tls: ",
        ": not found",
        "OOMKilled",
        "stat /",
        "\"",
        "\\",
        "\n",
        "\u{0}",
        "日本語",
        "🙂",
    ]);
    prop_oneof![
        any::<String>(),
        "\\PC{0,40}",
        prop::collection::vec(fragments, 0..12).prop_map(|v| v.concat()),
        (prop::collection::vec(any::<u64>(), 0..4), "[a-z ]{0,10}")
            .prop_map(|(ns, tail)| ns.iter().map(|n| format!("{n} {tail}, ")).collect()),
        scheduler_message(),
    ]
}

/// The scheduler's two wordings with any counts, repeated reasons included.
fn scheduler_message() -> impl Strategy<Value = String> {
    // Counts near the top of u32 add up past it; u64s and negatives do not parse.
    let count = prop_oneof![
        3 => (u32::MAX / 2..=u32::MAX).prop_map(|n| n.to_string()),
        2 => (0u32..10).prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => Just("-3".to_string()),
    ];
    let reason = prop::sample::select(vec![
        "Insufficient cpu",
        "Insufficient memory",
        "Too many pods",
        "node(s) didn't match Pod's node affinity/selector",
        "node(s) had untolerated taint {a: b}",
        "node(s) didn't have free ports for the requested pod ports",
        "x",
    ]);
    let items = prop::collection::vec((count.clone(), reason.clone()), 0..5);
    prop_oneof![
        (count.clone(), items).prop_map(|(total, items)| {
            let list: Vec<String> = items.iter().map(|(n, r)| format!("{n} {r}")).collect();
            format!(
                "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available.",
                list.join(", ")
            )
        }),
        prop::collection::vec((reason, count), 0..5).prop_map(|items| {
            let list: Vec<String> = items.iter().map(|(r, n)| format!("{r} ({n})")).collect();
            format!(
                "No nodes are available that match all of the predicates: {}.",
                list.join(", ")
            )
        }),
    ]
}

/// Timestamps from the first to the last year jiff can hold (values of the
/// wrong type are the shapeless objects' business).
fn time() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => (0i64..4_000_000_000).prop_map(|s| json!(Time::from_second(s).unwrap().to_string())),
        1 => Just(json!("0001-01-01T00:00:00Z")),
        // The last whole day jiff holds: RFC 3339 allows a little more.
        1 => Just(json!("9999-12-30T00:00:00Z")),
        1 => Just(json!("-009999-01-03T00:00:00Z")),
        1 => Just(Value::Null),
    ]
}

/// Any JSON value, nested a few levels.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map(field_name(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Keys the model reads, mixed with anything.
fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "metadata", "name", "namespace", "uid", "deletionTimestamp", "deletionGracePeriodSeconds",
            "finalizers", "ownerReferences", "kind", "controller", "creationTimestamp", "spec",
            "status", "nodeName", "containers", "image", "conditions", "type", "reason", "message",
            "phase", "containerStatuses", "state", "waiting", "terminated", "running", "lastState",
            "exitCode", "restartCount", "strategy", "replicas", "involvedObject", "regarding",
            "note", "count", "lastTimestamp", "eventTime", "fieldPath", "items", "apiVersion",
            "hostPort", "ports", "selector", "desiredNumberScheduled", "numberUnavailable",
        ]).prop_map(String::from),
        1 => any::<String>(),
    ]
}

fn kind_and_version() -> impl Strategy<Value = (&'static str, &'static str)> {
    prop::sample::select(vec![
        ("v1", "Pod"),
        ("v1", "Node"),
        ("v1", "Namespace"),
        ("apps/v1", "Deployment"),
        ("apps/v1", "ReplicaSet"),
        ("apps/v1", "StatefulSet"),
        ("apps/v1", "DaemonSet"),
        ("v1", "Event"),
        ("events.k8s.io/v1", "Event"),
        ("v1", "ConfigMap"),
    ])
}

/// An object of a kind the model reads whose every part is arbitrary.
fn shapeless_object() -> impl Strategy<Value = Value> {
    (
        kind_and_version(),
        prop::collection::btree_map(field_name(), any_json(), 0..6),
    )
        .prop_map(|((api_version, kind), fields)| {
            let mut object: Map<String, Value> = fields.into_iter().collect();
            object.insert("apiVersion".into(), json!(api_version));
            object.insert("kind".into(), json!(kind));
            Value::Object(object)
        })
}

fn small_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["a", "b", "web", "n1", "n2", "shop"]).prop_map(String::from),
        1 => text(),
    ]
}

fn condition() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![
            "Ready",
            "PodScheduled",
            "NamespaceDeletionDiscoveryFailure",
            "NamespaceDeletionGroupVersionParsingFailure",
            "NamespaceDeletionContentFailure",
            "NamespaceContentRemaining",
            "NamespaceFinalizersRemaining",
            "Other",
        ]),
        prop::sample::select(vec!["True", "False", "Unknown", ""]),
        text(),
        text(),
        time(),
    )
        .prop_map(|(t, status, reason, message, at)| {
            json!({"type": t, "status": status, "reason": reason, "message": message,
                   "lastTransitionTime": at})
        })
}

fn container_status() -> impl Strategy<Value = Value> {
    let waiting_reason = prop::sample::select(vec![
        "ImagePullBackOff",
        "ErrImagePull",
        "CrashLoopBackOff",
        "ContainerCreating",
        "CreateContainerConfigError",
        "ImageInspectError",
        "InvalidImageName",
        "Other",
    ]);
    (
        small_name(),
        text(),
        waiting_reason,
        text(),
        any::<i32>(),
        any::<i32>(),
        time(),
        any::<bool>(),
    )
        .prop_map(
            |(name, image, reason, message, restarts, exit_code, at, running)| {
                let state = if running {
                    json!({"running": {"startedAt": at}})
                } else {
                    json!({"waiting": {"reason": reason, "message": message}})
                };
                json!({"name": name, "image": image, "ready": running, "restartCount": restarts,
                   "state": state,
                   "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": exit_code,
                                                "message": message, "finishedAt": at}}})
            },
        )
}

fn owners() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["ReplicaSet", "StatefulSet", "DaemonSet", "Deployment", "Job"]),
        small_name(),
    )
        .prop_map(|(kind, name)| {
            json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": name, "controller": true}])
        })
}

/// Objects with the right shape and hostile values, linked to each other by
/// the few names they share (owners, nodes, involved objects).
fn shaped_object() -> impl Strategy<Value = Value> {
    let pod = (
        small_name(),
        small_name(),
        small_name(),
        time(),
        any::<i64>(),
        prop::collection::vec(text(), 0..3),
        owners(),
        prop::collection::vec(condition(), 0..3),
        prop::collection::vec(container_status(), 0..3),
        prop::sample::select(vec![
            "Pending",
            "Running",
            "Succeeded",
            "Failed",
            "Unknown",
            "",
        ]),
        time(),
    )
        .prop_map(
            |(
                name,
                namespace,
                node,
                deletion,
                grace,
                finalizers,
                owners,
                conditions,
                statuses,
                phase,
                created,
            )| {
                json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "namespace": namespace, "uid": format!("u-{name}"),
                                "creationTimestamp": created, "deletionTimestamp": deletion,
                                "deletionGracePeriodSeconds": grace, "finalizers": finalizers,
                                "ownerReferences": owners},
                   "spec": {"nodeName": node, "containers": [{"name": "app", "image": "x",
                            "ports": [{"containerPort": 80, "hostPort": 80}]}]},
                   "status": {"phase": phase, "conditions": conditions,
                              "containerStatuses": statuses, "initContainerStatuses": statuses}})
            },
        );
    let node =
        (small_name(), prop::collection::vec(condition(), 0..3)).prop_map(|(name, conditions)| {
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
               "status": {"conditions": conditions}})
        });
    let namespace = (
        small_name(),
        time(),
        prop::collection::vec(condition(), 0..4),
        prop::collection::vec(text(), 0..2),
    )
        .prop_map(|(name, deletion, conditions, finalizers)| {
            json!({"apiVersion": "v1", "kind": "Namespace",
                   "metadata": {"name": name, "deletionTimestamp": deletion},
                   "spec": {"finalizers": finalizers},
                   "status": {"phase": "Terminating", "conditions": conditions}})
        });
    let workload = (
        prop::sample::select(vec!["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"]),
        small_name(), small_name(), owners(), any::<i32>(), any::<i32>(),
        prop::sample::select(vec!["Recreate", "RollingUpdate", "OnDelete", ""]),
    )
        .prop_map(|(kind, name, namespace, owners, a, b, strategy)| {
            json!({"apiVersion": "apps/v1", "kind": kind,
                   "metadata": {"name": name, "namespace": namespace, "uid": name, "ownerReferences": owners},
                   "spec": {"replicas": a, "strategy": {"type": strategy}, "updateStrategy": {"type": strategy},
                            "template": {"spec": {"containers": [{"name": "c", "image": "x",
                                                   "ports": [{"containerPort": 9100, "hostPort": 9100}]}]}}},
                   "status": {"replicas": b, "desiredNumberScheduled": a, "currentNumberScheduled": b,
                              "numberUnavailable": a, "numberMisscheduled": b}})
        });
    let event = (
        small_name(),
        small_name(),
        prop::sample::select(vec![
            "FailedScheduling",
            "Failed",
            "FailedKillPod",
            "FailedMount",
            "FailedCreatePodSandBox",
            "BackOff",
            "FailedSync",
            "Other",
        ]),
        text(),
        any::<i32>(),
        time(),
        any::<bool>(),
    )
        .prop_map(|(name, namespace, reason, message, count, at, new_api)| {
            if new_api {
                json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "type": "Warning",
                       "metadata": {"name": format!("{name}.1"), "namespace": namespace},
                       "regarding": {"kind": "Pod", "name": name, "namespace": namespace,
                                     "fieldPath": "spec.containers{app}"},
                       "reason": reason, "note": message, "eventTime": at,
                       "series": {"count": count, "lastObservedTime": at}})
            } else {
                json!({"apiVersion": "v1", "kind": "Event", "type": "Warning",
                       "metadata": {"name": format!("{name}.1"), "namespace": namespace},
                       "involvedObject": {"kind": "Pod", "name": name, "namespace": namespace},
                       "reason": reason, "message": message, "count": count,
                       "firstTimestamp": at, "lastTimestamp": at})
            }
        });
    prop_oneof![4 => pod, 2 => node, 2 => namespace, 2 => workload, 3 => event]
}

fn now() -> impl Strategy<Value = Time> {
    prop_oneof![
        8 => (0i64..4_000_000_000).prop_map(|s| Time::from_second(s).unwrap()),
        1 => Just(Time::MIN),
        1 => Just(Time::MAX),
    ]
}

/// Loads `objects` as one List; whatever loads is diagnosed and rendered in
/// every format. Returns whether the input loaded.
fn load_and_diagnose(objects: Vec<Value>, now: Time) -> bool {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects}).to_string();
    let (accepted, peak) = peak_of(|| {
        let Ok(loaded) = dump::load_str(&list) else {
            return false;
        };
        {
            let settings = Settings::default();
            let (findings, roots) = diagnosis::explain_with(&loaded.cluster, now, &settings);
            let links = RunbookLinks::default();
            let _ = output::table::render(&findings, now, &links);
            let _ = output::json::render(&findings, &links);
            let text = output::metrics::render(&findings, roots);
            assert!(text.ends_with("# EOF\n"));
        }
        true
    });
    assert!(
        peak <= allowed(list.len()),
        "held {peak} bytes at once for {} bytes of input",
        list.len()
    );
    accepted
}

/// The shaped strategy's value tree is deep; unoptimised test builds need more
/// than a test thread's stack to build it (the code under test does not).
#[test]
fn shaped_objects_with_hostile_values_diagnose_and_render() {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::default());
            let strategy = (prop::collection::vec(shaped_object(), 0..16), now());
            let (cases, accepted) = (Cell::new(0), Cell::new(0));
            let result = runner.run(&strategy, |(objects, now)| {
                cases.set(cases.get() + 1);
                accepted.set(accepted.get() + usize::from(load_and_diagnose(objects, now)));
                Ok(())
            });
            if let Err(e) = result {
                panic!("{e}");
            }
            // Most lists load, so the diagnosis and outputs do see hostile values.
            assert!(
                accepted.get() * 2 > cases.get(),
                "{} of {} lists loaded",
                accepted.get(),
                cases.get()
            );
        })
        .unwrap()
        .join()
        .unwrap();
}

proptest! {
    #[test]
    fn shapeless_objects_load_or_are_rejected_and_never_panic(
        objects in prop::collection::vec(shapeless_object(), 0..8),
        now in now(),
    ) {
        load_and_diagnose(objects, now);
    }

    #[test]
    fn every_classifier_takes_any_message(reason in text(), message in text(), exit_code in any::<i32>()) {
        let (_, peak) = peak_of(|| {
            let _ = classify::image_pull(&message);
            let _ = classify::is_pull_failure_event(&reason, &message);
            let _ = classify::creating_event(&reason, &message);
            let _ = classify::container_config(&message);
            let _ = classify::last_termination(&reason, exit_code, &message);
            let _ = classify::termination_event(&reason, &message);
            let _ = classify::scheduler_reasons(&message);
            let _ = classify::remaining_resources(&message);
            let _ = classify::remaining_finalizers(&message);
        });
        prop_assert!(peak <= allowed(reason.len() + message.len()), "held {} bytes", peak);
    }

    #[test]
    fn arbitrary_bytes_as_a_dump_are_loaded_or_rejected(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = dump::load_reader(bytes.as_slice());
    }

    #[test]
    fn arbitrary_text_as_a_dump_is_loaded_or_rejected(input in prop_oneof![
        text(),
        any_json().prop_map(|v| v.to_string()),
        any_json().prop_map(|v| format!("kind: List\nitems:\n- {v}\n")),
    ]) {
        let _ = dump::load_str(&input);
    }
}

/// The list decoder (`skim`) and serde_json on the same text: the same value,
/// or both an error. For a pod, skim may accept a little more: inside
/// containers it does not read (they claim no host port), an element of the
/// wrong type goes unseen.
fn decoded_alike<T>(text: &str) -> Result<(), TestCaseError>
where
    T: for<'de> serde::Deserialize<'de> + std::fmt::Debug + 'static,
{
    let lenient = std::any::TypeId::of::<T>() == std::any::TypeId::of::<Pod>();
    match (serde_json::from_str::<T>(text), codec::from_str::<T>(text)) {
        (Ok(a), Ok(b)) => prop_assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (Err(_), Err(_)) => {}
        (Err(_), Ok(_)) if lenient => {}
        (a, b) => prop_assert!(false, "serde_json: {:?}\nskim: {:?}\n{}", a, b, text),
    }
    Ok(())
}

/// Every slim kind the exporter lists, decoded from `object` both ways.
fn every_kind_decoded_alike(object: &Value) -> Result<(), TestCaseError> {
    use kube_lifecycle_exporter::model::{
        CoreEvent, DaemonSet, Deployment, Namespace, Node, ReplicaSet, StatefulSet,
    };
    let text = object.to_string();
    decoded_alike::<Pod>(&text)?;
    decoded_alike::<Node>(&text)?;
    decoded_alike::<Namespace>(&text)?;
    decoded_alike::<Deployment>(&text)?;
    decoded_alike::<ReplicaSet>(&text)?;
    decoded_alike::<StatefulSet>(&text)?;
    decoded_alike::<DaemonSet>(&text)?;
    decoded_alike::<CoreEvent>(&text)?;
    Ok(())
}

proptest! {
    #[test]
    fn the_list_decoder_reads_shaped_objects_as_serde_json_does(object in shaped_object()) {
        every_kind_decoded_alike(&object)?;
    }

    #[test]
    fn the_list_decoder_reads_shapeless_objects_as_serde_json_does(object in shapeless_object()) {
        every_kind_decoded_alike(&object)?;
    }

    #[test]
    fn the_list_decoder_reads_any_json_as_serde_json_does(value in any_json()) {
        // (Not as a `Value`: serde_json's default float parsing rounds the
        // last digit differently; no slim type keeps a float.)
        every_kind_decoded_alike(&value)?;
    }
}

#[test]
fn the_list_decoder_reads_the_benchmark_cluster_as_serde_json_does() {
    let cluster = lifecycle_bench::cluster::generate(400);
    for object in cluster.others.iter().chain(&cluster.pods) {
        every_kind_decoded_alike(object).unwrap();
    }
}
