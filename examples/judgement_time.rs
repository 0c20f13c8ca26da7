//! How long one judgement of the model takes: the whole diagnosis, and the
//! incremental one after the changes half a second of the benchmark's churn
//! brings at 10,000 changes a second (as the benchmark's churn makes them:
//! in the storm, its pods' repeated pull failures; healthy, a pod's
//! annotation).
//!
//! ```sh
//! cargo run --release --example judgement_time -- 150000 storm
//! ```
//!
//! The pods are the benchmark's (`bench/src/cluster.rs`).

use std::time::{Duration, Instant};

use kube_lifecycle_exporter::diagnosis::{self, Incremental, Settings};
use kube_lifecycle_exporter::model::{Cluster, Time};
use kube_lifecycle_exporter::source::dump;
use lifecycle_bench::cluster::{self, Profile};
use serde_json::{Value, json};

fn load(items: Vec<Value>) -> Cluster {
    let text = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    dump::load_str(&text)
        .expect("the benchmark's objects load")
        .cluster
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let pods: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(50_000);
    let profile = match args.next().as_deref() {
        Some("storm") => Profile::Storm,
        _ => Profile::Healthy,
    };
    let generated = cluster::generate_profile(pods, profile);
    let nodes = generated
        .others
        .iter()
        .filter(|o| o["kind"] == "Node")
        .count();
    let mut model = load(generated.others.into_iter().chain(generated.pods).collect());
    let settings = Settings::default();
    let now = Time::now();

    let mut whole = Vec::new();
    let mut findings = 0;
    for _ in 0..5 {
        let started = Instant::now();
        findings = diagnosis::diagnose_until(&model, now, &settings)
            .findings
            .len();
        whole.push(started.elapsed());
    }
    println!(
        "{pods} pods, {} profile: {findings} findings",
        profile.name()
    );
    println!("whole diagnosis: median {}", ms(median(whole)));

    let mut incremental = Incremental::new(settings.clone());
    let started = Instant::now();
    let changes = model.take_changes();
    let first = incremental.diagnose(&model, changes, now);
    println!(
        "incremental, first judgement ({} pods judged): {}",
        incremental.pods_judged(),
        ms(started.elapsed())
    );
    assert_eq!(first.findings.len(), findings);

    // Half a second of churn at 10,000 changes a second: the storm's
    // repeated pull failures, else (healthy) new versions of pods.
    let mut times = Vec::new();
    let mut judged = Vec::new();
    let mut serial = 0usize;
    for round in 1..=10 {
        for _ in 0..5_000 {
            serial += 1;
            let i = serial.wrapping_mul(2_654_435_761) % pods;
            let changed = match profile {
                Profile::Storm => {
                    let Some(event) = cluster::pull_failed_event_again(i, nodes, serial) else {
                        continue;
                    };
                    event
                }
                _ => {
                    let mut pod = cluster::pod(i, nodes);
                    pod["metadata"]["annotations"]["bench/revision"] = json!(serial.to_string());
                    pod
                }
            };
            let one = load(vec![changed]);
            for object in one.objects() {
                model.apply(object);
            }
        }
        let changes = model.take_changes();
        let started = Instant::now();
        let lasting = incremental.diagnose(&model, changes, now);
        times.push(started.elapsed());
        judged.push(incremental.pods_judged());
        if round == 10 {
            let full = diagnosis::diagnose_until(&model, now, &settings);
            assert!(lasting == full, "the incremental findings differ");
        }
    }
    judged.sort_unstable();
    println!(
        "incremental, after 5,000 changes: median {} ({} pods judged again, median)",
        ms(median(times)),
        judged[judged.len() / 2]
    );
}
