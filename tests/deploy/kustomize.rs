//! A kustomize renderer for exactly the fields `deploy/` uses, so the
//! kustomization is rendered in every test run: kustomize is neither a Debian
//! package nor on any registry reachable here, and kubectl (which embeds it) is
//! not guaranteed. Any other field fails the render instead of being ignored, and
//! `kubectl kustomize` checks this renderer whenever kubectl is installed.
//!
//! Supported: `resources` (files inside the kustomization's directory, or
//! directories holding a kustomization) and `patches` (`path` or inline `patch`)
//! holding either a strategic-merge patch that names its target by apiVersion,
//! kind, name and namespace, and either merges maps (no lists, no other
//! directives) or is `$patch: delete`; or, with a `target` (kind, name and
//! optionally namespace), a JSON patch of `add` and `replace` operations (RFC
//! 6902; `-` appends to a list). Output is in kustomize's default ("legacy") order.
//!
//! `cargo xtask generate` includes this file too: the all-in-one file is in the
//! order [`sort`] gives.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::path::{Component, Path};

use serde_json::{Map, Value};

const FIELDS: &[&str] = &["apiVersion", "kind", "resources", "patches"];
const PATCH_FIELDS: &[&str] = &["path", "patch", "target"];
const TARGET_FIELDS: &[&str] = &["kind", "name", "namespace"];

/// Kinds kustomize puts first and last, in its order (api/resid/gvk.go).
const ORDER_FIRST: &[&str] = &[
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
];
const ORDER_LAST: &[&str] = &[
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// Renders the kustomization in `dir`.
pub fn render(dir: &Path) -> Result<Vec<Value>, String> {
    let mut objects = build(dir)?;
    sort(&mut objects);
    Ok(objects)
}

/// Every YAML document of `text` that is not empty.
pub fn documents(text: &str, what: &str) -> Result<Vec<Value>, String> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(text).map_err(|e| format!("{what}: {e}"))?;
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// kustomize's default order: by kind (the lists above, other kinds between them
/// by group/version/kind), then by namespace and name.
pub fn sort(objects: &mut [Value]) {
    objects.sort_by(compare);
}

fn compare(a: &Value, b: &Value) -> Ordering {
    let rank = |o: &Value| {
        let kind = o["kind"].as_str().unwrap_or_default();
        if let Some(i) = ORDER_FIRST.iter().position(|k| *k == kind) {
            i as i64 - ORDER_FIRST.len() as i64
        } else if let Some(i) = ORDER_LAST.iter().position(|k| *k == kind) {
            i as i64 + 1
        } else {
            0
        }
    };
    let gvk = |o: &Value| {
        let api_version = o["apiVersion"].as_str().unwrap_or_default();
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        format!(
            "{}.{version}.{group}",
            o["kind"].as_str().unwrap_or_default()
        )
    };
    let key = |o: &Value| {
        (
            rank(o),
            gvk(o),
            o["metadata"]["namespace"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            o["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    };
    key(a).cmp(&key(b))
}

/// apiVersion, kind, namespace and name: what kustomize identifies an object by.
pub fn id(o: &Value) -> String {
    format!(
        "{}/{}/{}/{}",
        o["apiVersion"].as_str().unwrap_or_default(),
        o["kind"].as_str().unwrap_or_default(),
        o["metadata"]["namespace"].as_str().unwrap_or_default(),
        o["metadata"]["name"].as_str().unwrap_or_default()
    )
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn build(dir: &Path) -> Result<Vec<Value>, String> {
    let path = dir.join("kustomization.yaml");
    let what = path.display().to_string();
    let mut docs = documents(&read(&path)?, &what)?;
    if docs.len() != 1 {
        return Err(format!("{what}: expected one document"));
    }
    let Value::Object(kustomization) = docs.remove(0) else {
        return Err(format!("{what}: not a map"));
    };
    for key in kustomization.keys() {
        if !FIELDS.contains(&key.as_str()) {
            return Err(format!(
                "{what}: field `{key}` is not supported by tests/deploy/kustomize.rs \
                 (supported: {FIELDS:?}); extend it, and compare with `kubectl kustomize`"
            ));
        }
    }
    if kustomization.get("apiVersion") != Some(&"kustomize.config.k8s.io/v1beta1".into())
        || kustomization.get("kind") != Some(&"Kustomization".into())
    {
        return Err(format!(
            "{what}: expected apiVersion kustomize.config.k8s.io/v1beta1, kind Kustomization"
        ));
    }

    let mut objects = Vec::new();
    for resource in strings(&kustomization, "resources", &what)? {
        let target = dir.join(&resource);
        if target.is_dir() {
            objects.extend(build(&target)?);
        } else if Path::new(&resource)
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            // kustomize's load restrictor: files only from inside the directory.
            return Err(format!(
                "{what}: resource file `{resource}` is outside the kustomization's directory"
            ));
        } else {
            objects.extend(documents(&read(&target)?, &target.display().to_string())?);
        }
    }
    let mut seen = BTreeSet::new();
    for object in &objects {
        if !seen.insert(id(object)) {
            return Err(format!("{what}: {} appears twice", id(object)));
        }
    }

    for patch in kustomization
        .get("patches")
        .map(|p| {
            p.as_array()
                .cloned()
                .ok_or(format!("{what}: patches: not a list"))
        })
        .transpose()?
        .unwrap_or_default()
    {
        let Value::Object(patch) = patch else {
            return Err(format!("{what}: a patch is not a map"));
        };
        let target = patch.get("target").cloned();
        if patch.keys().any(|k| !PATCH_FIELDS.contains(&k.as_str()))
            || patch.len() != 1 + usize::from(target.is_some())
        {
            return Err(format!(
                "{what}: a patch has one of `path` and `patch`, and a `target` only for a JSON patch"
            ));
        }
        let (text, source) = match (patch.get("path"), patch.get("patch")) {
            (Some(Value::String(file)), None) => (read(&dir.join(file))?, file.clone()),
            (None, Some(Value::String(inline))) => (inline.clone(), "inline patch".into()),
            _ => return Err(format!("{what}: patch path/patch must be a string")),
        };
        let mut bodies = documents(&text, &format!("{what}: {source}"))?;
        if bodies.len() != 1 {
            return Err(format!("{what}: {source}: expected one document"));
        }
        let body = bodies.remove(0);
        match target {
            None => apply(&mut objects, body),
            Some(target) => apply_json_patch(&mut objects, &target, &body),
        }
        .map_err(|e| format!("{what}: {source}: {e}"))?;
    }
    Ok(objects)
}

fn strings(map: &Map<String, Value>, key: &str, what: &str) -> Result<Vec<String>, String> {
    match map.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(String::from)
                    .ok_or(format!("{what}: {key}: not a string"))
            })
            .collect(),
        Some(_) => Err(format!("{what}: {key}: not a list")),
    }
}

fn apply(objects: &mut Vec<Value>, mut patch: Value) -> Result<(), String> {
    let target = id(&patch);
    let matches: Vec<usize> = (0..objects.len())
        .filter(|i| id(&objects[*i]) == target)
        .collect();
    let [index] = matches[..] else {
        return Err(format!(
            "matches {} objects, not one: {target}",
            matches.len()
        ));
    };
    let Some(patch_map) = patch.as_object_mut() else {
        return Err("not a map".into());
    };
    if let Some(directive) = patch_map.remove("$patch") {
        if directive != "delete" {
            return Err(format!("$patch: {directive} is not supported"));
        }
        objects.remove(index);
        return Ok(());
    }
    merge(&mut objects[index], &patch, "")
}

/// A JSON patch (RFC 6902) of `add` and `replace` operations on the one object
/// `target` names.
fn apply_json_patch(objects: &mut [Value], target: &Value, ops: &Value) -> Result<(), String> {
    let Value::Object(target) = target else {
        return Err("target: not a map".into());
    };
    if let Some(key) = target.keys().find(|k| !TARGET_FIELDS.contains(&k.as_str())) {
        return Err(format!(
            "target.{key}: not supported (supported: {TARGET_FIELDS:?})"
        ));
    }
    let matching = |o: &Value| {
        target.iter().all(|(key, want)| match key.as_str() {
            "kind" => o["kind"] == *want,
            field => o["metadata"][field] == *want,
        })
    };
    let matches: Vec<usize> = (0..objects.len())
        .filter(|i| matching(&objects[*i]))
        .collect();
    let [index] = matches[..] else {
        return Err(format!(
            "target {} matches {} objects, not one",
            Value::Object(target.clone()),
            matches.len()
        ));
    };
    let Value::Array(ops) = ops else {
        return Err("a JSON patch is a list of operations".into());
    };
    for op in ops {
        let (Some(name), Some(path), Some(value)) =
            (op["op"].as_str(), op["path"].as_str(), op.get("value"))
        else {
            return Err(format!("{op}: an operation needs op, path and value"));
        };
        let Some((parent, last)) = path.rsplit_once('/') else {
            return Err(format!("{path}: not a JSON pointer"));
        };
        let container = objects[index]
            .pointer_mut(parent)
            .ok_or(format!("{path}: {parent} does not exist"))?;
        match (name, container) {
            ("add", Value::Array(list)) if last == "-" => list.push(value.clone()),
            ("add", Value::Array(list)) => {
                let at: usize = last.parse().map_err(|_| format!("{path}: not an index"))?;
                if at > list.len() {
                    return Err(format!("{path}: past the end"));
                }
                list.insert(at, value.clone());
            }
            ("add", Value::Object(map)) => {
                map.insert(last.replace("~1", "/").replace("~0", "~"), value.clone());
            }
            ("replace", container) => {
                let slot = container
                    .pointer_mut(&format!("/{last}"))
                    .ok_or(format!("{path}: nothing to replace"))?;
                *slot = value.clone();
            }
            (op, _) => return Err(format!("{path}: `{op}` is not supported here")),
        }
    }
    Ok(())
}

/// Strategic merge restricted to maps: keys are merged recursively, scalars
/// replaced. Lists and directives are refused (their merge keys are not modelled).
fn merge(target: &mut Value, patch: &Value, at: &str) -> Result<(), String> {
    let (Value::Object(target), Value::Object(patch)) = (target, patch) else {
        return Err(format!("{at}: only maps can be merged"));
    };
    for (key, value) in patch {
        let here = format!("{at}.{key}");
        if key.starts_with('$') {
            return Err(format!("{here}: directives are not supported"));
        }
        match value {
            Value::Array(_) => return Err(format!("{here}: lists are not supported")),
            Value::Null => return Err(format!("{here}: null (deletion) is not supported")),
            Value::Object(_) => match target.get_mut(key) {
                Some(existing @ Value::Object(_)) => merge(existing, value, &here)?,
                Some(_) => return Err(format!("{here}: a map patches a non-map")),
                None => {
                    target.insert(key.clone(), value.clone());
                }
            },
            _ => {
                target.insert(key.clone(), value.clone());
            }
        }
    }
    Ok(())
}
