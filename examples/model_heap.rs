//! How many heap bytes the model keeps per pod, counted by the allocator rather
//! than read from the resident set (which adds the allocator's own overhead and
//! what it has not returned to the system).
//!
//! ```sh
//! cargo run --release --example model_heap -- 150000
//! cargo run --release --example model_heap -- 20000 storm
//! ```
//!
//! Last, it weighs the findings of the whole model: a full diagnosis's, and
//! the live judgement's (the findings shared, with what it keeps to judge
//! again only what changes).
//!
//! The pods are the benchmark's (`bench/src/cluster.rs`, about 8 KB of JSON each).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use kube_lifecycle_exporter::diagnosis::{self, Incremental, Settings};
use kube_lifecycle_exporter::model::{Changes, Pod, Time};
use kube_lifecycle_exporter::source::dump;
use lifecycle_bench::cluster;
use serde_json::{Value, json};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

#[allow(unsafe_code)] // a global allocator is an unsafe trait
// SAFETY: every call is forwarded to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller keeps `alloc`'s contract, which is System's too.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator, that is from System, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: `ptr` came from System with `layout`; the caller keeps
        // `realloc`'s contract for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn list(items: &[Value]) -> String {
    json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

fn main() {
    let pods: usize = match std::env::args().nth(1) {
        None => 10_000,
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("usage: model_heap [PODS]  (a count of pods, got {arg:?})");
            std::process::exit(2)
        }),
    };
    let profile: cluster::Profile = match std::env::args().nth(2) {
        None => cluster::Profile::Healthy,
        Some(arg) => arg.parse().unwrap_or_else(|e| {
            eprintln!("usage: model_heap [PODS [healthy|storm]]  ({e})");
            std::process::exit(2)
        }),
    };
    let generated = cluster::generate_profile(pods, profile);
    let pod_texts: Vec<String> = generated.pods.iter().map(Value::to_string).collect();
    let json_bytes: usize = pod_texts.iter().map(String::len).sum();
    let pods_only = list(&generated.pods);
    let everything = list(
        &generated
            .others
            .iter()
            .chain(&generated.pods)
            .cloned()
            .collect::<Vec<_>>(),
    );
    let of_kinds = |kinds: &[&str]| {
        let items: Vec<Value> = generated
            .others
            .iter()
            .filter(|o| kinds.contains(&o["kind"].as_str().unwrap_or_default()))
            .cloned()
            .collect();
        list(&items)
    };
    let nodes_only = of_kinds(&["Node"]);
    let workloads_only = of_kinds(&["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"]);
    let namespaces_only = of_kinds(&["Namespace"]);
    let events_only = of_kinds(&["Event"]);
    drop(generated);

    // The slim pods alone, in a vector of exactly their number.
    let before = live();
    let mut slim: Vec<Pod> = Vec::with_capacity(pods);
    slim.extend(
        pod_texts
            .iter()
            .map(|t| serde_json::from_str::<Pod>(t).expect("generated pods decode")),
    );
    let slim_bytes = live() - before;
    drop(slim);
    drop(pod_texts);

    let per_pod = |bytes: isize| bytes as f64 / pods as f64;
    println!(
        "pods: {pods}, mean JSON {:.0} B",
        json_bytes as f64 / pods as f64
    );
    println!(
        "slim pod: {} B inline, {:.0} B with its heap",
        std::mem::size_of::<Pod>(),
        per_pod(slim_bytes)
    );
    for (what, text) in [
        ("model of the pods", pods_only),
        ("  of the nodes", nodes_only),
        ("  of the workloads", workloads_only),
        ("  of the namespaces", namespaces_only),
        ("  of the events", events_only),
        ("model of everything", everything),
    ] {
        let before = live();
        let loaded = dump::load_str(&text).expect("generated lists load");
        let held = live() - before;
        println!("{what}: {:.0} B per pod (indexes included)", per_pod(held));
        if what != "model of everything" {
            continue;
        }
        // What the findings of that model weigh, on their own and as the live
        // exporter keeps them (each shared, with the judgement's bookkeeping).
        let now = Time::now();
        let before = live();
        let findings = diagnosis::diagnose(&loaded.cluster, now);
        let alone = live() - before;
        let count = findings.len();
        drop(findings);
        let before = live();
        let mut judge = Incremental::new(Settings::default());
        let everything = Changes {
            everything: true,
            ..Changes::default()
        };
        let lasting = judge.diagnose(&loaded.cluster, everything, now);
        let kept = live() - before;
        println!(
            "findings: {count}, {:.0} B each ({} B inline), {:.0} B per pod; \
             kept by the live judgement: {:.0} B per pod",
            alone as f64 / count.max(1) as f64,
            std::mem::size_of::<diagnosis::Finding>(),
            per_pod(alone),
            per_pod(kept)
        );
        drop(lasting);
    }
}
