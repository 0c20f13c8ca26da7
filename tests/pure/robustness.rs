//! Partial and malformed objects never panic: every field of every object in the
//! example is removed, nulled, or given a value of another type, one at a time;
//! the loader either accepts the object or names the bad field, and whatever it
//! accepts is diagnosed and rendered in every format.

use kube_lifecycle_exporter::diagnosis::{Settings, explain_with};
use kube_lifecycle_exporter::output::{self, RunbookLinks};
use kube_lifecycle_exporter::source::dump::{self, LoadError};
use serde_json::{Value, json};

const EXAMPLE: &str = include_str!("../../examples/incidents.yaml");

/// Paths to every value in a JSON tree (object keys and array indexes).
fn paths(value: &Value, prefix: Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let mut p = prefix.clone();
                p.push(PathStep::Key(k.clone()));
                out.push(p.clone());
                paths(v, p, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let mut p = prefix.clone();
                p.push(PathStep::Index(i));
                out.push(p.clone());
                paths(v, p, out);
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn parent_mut<'a>(root: &'a mut Value, path: &[PathStep]) -> &'a mut Value {
    let mut v = root;
    for step in &path[..path.len() - 1] {
        v = match step {
            PathStep::Key(k) => &mut v[k.as_str()],
            PathStep::Index(i) => &mut v[*i],
        };
    }
    v
}

fn mutate(object: &Value, path: &[PathStep], replacement: Option<Value>) -> Value {
    let mut copy = object.clone();
    let parent = parent_mut(&mut copy, path);
    match (path.last().unwrap(), replacement) {
        (PathStep::Key(k), None) => {
            parent.as_object_mut().unwrap().remove(k);
        }
        (PathStep::Index(i), None) => {
            parent.as_array_mut().unwrap().remove(*i);
        }
        (PathStep::Key(k), Some(r)) => parent[k.as_str()] = r,
        (PathStep::Index(i), Some(r)) => parent[*i] = r,
    }
    copy
}

fn check(objects: &[Value]) -> Result<(), LoadError> {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects}).to_string();
    let loaded = dump::load_str(&list)?;
    let now = "2024-06-01T00:00:00Z".parse().unwrap();
    let (findings, roots) = explain_with(&loaded.cluster, now, &Settings::default());
    let links = RunbookLinks::default();
    let _ = output::table::render(&findings, now, &links);
    let _ = output::json::render(&findings, &links);
    let text = output::metrics::render(&findings, roots);
    assert!(text.ends_with("# EOF\n"));
    Ok(())
}

#[test]
fn no_mutation_of_any_field_panics() {
    let list: Value = serde_saphyr::from_str(EXAMPLE).unwrap();
    let objects = list["items"].as_array().unwrap().clone();
    let replacements = [
        None,
        Some(Value::Null),
        Some(json!("x")),
        Some(json!(-1)),
        Some(json!([])),
        Some(json!({})),
        Some(json!(true)),
    ];
    // The objects are shared out among the cores: this is the slowest pure test.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (accepted, rejected) = std::thread::scope(|scope| {
        let shards: Vec<_> = (0..threads)
            .map(|shard| {
                let (objects, replacements) = (&objects, &replacements);
                scope.spawn(move || {
                    let mine = (0..objects.len()).filter(|i| i % threads == shard);
                    mine.map(|index| mutate_one_by_one(objects, index, replacements))
                        .fold((0, 0), |(a, r), (a2, r2)| (a + a2, r + r2))
                })
            })
            .collect();
        shards
            .into_iter()
            .map(|shard| shard.join().expect("a mutation panicked"))
            .fold((0, 0), |(a, r), (a2, r2)| (a + a2, r + r2))
    });
    // Both outcomes happen: tolerance for nulls and missing fields, errors for wrong types.
    assert!(
        accepted > 1000 && rejected > 100,
        "accepted {accepted}, rejected {rejected}"
    );
}

#[test]
fn objects_with_no_status_no_spec_or_nothing_at_all_diagnose_cleanly() {
    let bare = [
        json!({"apiVersion": "v1", "kind": "Pod"}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "deletionTimestamp": "2024-01-01T00:00:00Z"}}),
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}, "status": {"phase": "Terminating"}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"strategy": {"type": "Recreate"}}}),
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"}}),
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"}, "status": null}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "ownerReferences": null}}),
        json!({"apiVersion": "v1", "kind": "Event", "involvedObject": null, "type": "Warning"}),
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "regarding": {}, "type": "Warning", "note": null}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q", "unknownField": [1, 2]},
               "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "message": null}],
                          "containerStatuses": [{"name": "c", "state": {"waiting": {"reason": "ImagePullBackOff"}}}]},
               "spec": {"nodeName": "n", "containers": null, "futureField": {"a": 1}}}),
    ];
    check(&bare).expect("partial objects load");
}

/// Every mutation of one object, among its neighbours: how many the loader
/// accepted and how many it rejected naming the field.
fn mutate_one_by_one(
    objects: &[Value],
    index: usize,
    replacements: &[Option<Value>],
) -> (usize, usize) {
    let (mut accepted, mut rejected) = (0, 0);
    let object = &objects[index];
    let mut all = Vec::new();
    paths(object, Vec::new(), &mut all);
    // The mutated object among its neighbours: cluster-scoped objects and its namespace.
    let namespace = &object["metadata"]["namespace"];
    let neighbours: Vec<Value> = objects
        .iter()
        .enumerate()
        .filter(|(i, o)| {
            *i != index
                && (o["metadata"]["namespace"].is_null()
                    || &o["metadata"]["namespace"] == namespace)
        })
        .map(|(_, o)| o.clone())
        .collect();
    for path in &all {
        for replacement in replacements {
            let mut variant = neighbours.clone();
            variant.push(mutate(object, path, replacement.clone()));
            match check(&variant) {
                Ok(()) => accepted += 1,
                Err(LoadError::BadObject { path: field, .. }) => {
                    assert!(!field.is_empty());
                    rejected += 1;
                }
                Err(other) => panic!("unexpected error kind for {path:?}: {other}"),
            }
        }
    }
    (accepted, rejected)
}
