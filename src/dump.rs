//! Reads what `kubectl get ... -o json` or `-o yaml` prints (a `List` of mixed
//! kinds, a single object, several JSON documents, multi-document YAML) into the
//! model. Kinds the diagnosis does not read are skipped and counted. Bad input is
//! an error that says where: the document, the item and the field path.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::model::{Cluster, CoreEvent, Event, EventsApiEvent, Kind, Object};

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the input is empty: expected the JSON or YAML that `kubectl get -o json|yaml` prints")]
    Empty,
    #[error("document {document}: not valid JSON: {message}")]
    Json { document: usize, message: String },
    #[error("not valid YAML: {message}")]
    Yaml { message: String },
    #[error(
        "document {document}{item}: expected a Kubernetes object (a mapping with `kind`), found {found}"
    )]
    NotAnObject {
        document: usize,
        item: ItemIndex,
        found: &'static str,
    },
    #[error("document {document}{item}: {what}: field `{path}`: {message}")]
    BadObject {
        document: usize,
        item: ItemIndex,
        /// `Pod ns/name`, or the kind alone when the name cannot be read.
        what: String,
        path: String,
        message: String,
    },
}

/// `, items[3]` when the object came from a List; empty otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemIndex(pub Option<usize>);

impl std::fmt::Display for ItemIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(i) => write!(f, ", items[{i}]"),
            None => Ok(()),
        }
    }
}

/// The model built from a dump, and what was read.
#[derive(Debug, Default)]
pub struct Loaded {
    pub cluster: Cluster,
    /// Objects read per kind the model holds.
    pub read: BTreeMap<Kind, usize>,
    /// Objects skipped, per `apiVersion/kind`.
    pub skipped: BTreeMap<String, usize>,
}

impl Loaded {
    fn add(&mut self, object: Option<Object>, type_name: String) {
        match object {
            Some(object) => {
                *self.read.entry(object.kind()).or_default() += 1;
                self.cluster.apply(object);
            }
            None => *self.skipped.entry(type_name).or_default() += 1,
        }
    }

    /// One line saying what was read and skipped.
    pub fn summary(&self) -> String {
        let list = |m: &mut dyn Iterator<Item = (String, usize)>| {
            m.map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let total: usize = self.read.values().sum();
        let mut line = format!(
            "read {total} objects ({})",
            list(&mut self.read.iter().map(|(k, n)| (k.to_string(), *n)))
        );
        if !self.skipped.is_empty() {
            let skipped: usize = self.skipped.values().sum();
            line.push_str(&format!(
                "; skipped {skipped} of kinds not diagnosed ({})",
                list(&mut self.skipped.iter().map(|(k, n)| (k.clone(), *n)))
            ));
        }
        line
    }
}

/// `apiVersion` and `kind`, read before the object itself.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TypeMeta {
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
}

/// What a top-level document is: a list or one object.
#[derive(Deserialize)]
struct ListPeek<'a> {
    #[serde(default)]
    kind: Option<String>,
    #[serde(borrow, default)]
    items: Option<Vec<&'a RawValue>>,
}

/// The name of an object, for error messages; unreadable names are left out.
#[derive(Deserialize, Default)]
struct NamePeek {
    #[serde(default)]
    metadata: Option<NamePeekMeta>,
}

#[derive(Deserialize, Default)]
struct NamePeekMeta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
}

/// Reads kubectl output from a string.
pub fn load_str(input: &str) -> Result<Loaded, LoadError> {
    let trimmed = input.trim_start_matches('\u{feff}').trim_start();
    if trimmed.is_empty() {
        return Err(LoadError::Empty);
    }
    let mut loaded = Loaded::default();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        load_json(trimmed, &mut loaded)?;
    } else {
        load_yaml(trimmed, &mut loaded)?;
    }
    Ok(loaded)
}

fn load_json(input: &str, loaded: &mut Loaded) -> Result<(), LoadError> {
    let stream = serde_json::Deserializer::from_str(input).into_iter::<&RawValue>();
    for (index, document) in stream.enumerate() {
        let document_number = index + 1;
        let raw = document.map_err(|e| LoadError::Json {
            document: document_number,
            message: e.to_string(),
        })?;
        let text = raw.get().trim_start();
        if text.starts_with('[') {
            // A bare array of objects.
            let items: Vec<&RawValue> =
                serde_json::from_str(text).map_err(|e| LoadError::Json {
                    document: document_number,
                    message: e.to_string(),
                })?;
            for (i, item) in items.into_iter().enumerate() {
                load_json_object(item, document_number, Some(i), loaded)?;
            }
            continue;
        }
        if !text.starts_with('{') {
            return Err(LoadError::NotAnObject {
                document: document_number,
                item: ItemIndex(None),
                found: json_type(text),
            });
        }
        let peek: ListPeek = serde_json::from_str(text).map_err(|e| LoadError::Json {
            document: document_number,
            message: format!("reading `kind` and `items`: {e}"),
        })?;
        match (peek.kind.as_deref(), peek.items) {
            (Some(kind), Some(items)) if kind.ends_with("List") => {
                for (i, item) in items.into_iter().enumerate() {
                    load_json_object(item, document_number, Some(i), loaded)?;
                }
            }
            _ => load_json_object(raw, document_number, None, loaded)?,
        }
    }
    Ok(())
}

fn json_type(text: &str) -> &'static str {
    match text.chars().next() {
        Some('"') => "a string",
        Some('[') => "an array",
        Some('t' | 'f') => "a boolean",
        Some('n') => "null",
        _ => "a number",
    }
}

fn load_json_object(
    raw: &RawValue,
    document: usize,
    item: Option<usize>,
    loaded: &mut Loaded,
) -> Result<(), LoadError> {
    load_object(Source::Json(raw.get().trim_start()), document, item, loaded)
}

fn load_yaml(input: &str, loaded: &mut Loaded) -> Result<(), LoadError> {
    let documents: Vec<serde_json::Value> =
        serde_saphyr::from_multiple(input).map_err(|e| LoadError::Yaml {
            message: e.to_string(),
        })?;
    for (index, document) in documents.into_iter().enumerate() {
        let document_number = index + 1;
        match document {
            serde_json::Value::Object(ref map)
                if map
                    .get("kind")
                    .and_then(|k| k.as_str())
                    .is_some_and(|k| k.ends_with("List"))
                    && map
                        .get("items")
                        .is_some_and(|i| i.is_array() || i.is_null()) =>
            {
                let items = match document {
                    serde_json::Value::Object(mut map) => match map.remove("items") {
                        Some(serde_json::Value::Array(items)) => items,
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                for (i, item) in items.into_iter().enumerate() {
                    load_value_object(item, document_number, Some(i), loaded)?;
                }
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.into_iter().enumerate() {
                    load_value_object(item, document_number, Some(i), loaded)?;
                }
            }
            other => load_value_object(other, document_number, None, loaded)?,
        }
    }
    Ok(())
}

fn value_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "a mapping",
    }
}

fn load_value_object(
    value: serde_json::Value,
    document: usize,
    item: Option<usize>,
    loaded: &mut Loaded,
) -> Result<(), LoadError> {
    load_object(Source::Value(&value), document, item, loaded)
}

/// Reads one object's `apiVersion` and `kind`, then the object itself.
fn load_object(
    source: Source,
    document: usize,
    item: Option<usize>,
    loaded: &mut Loaded,
) -> Result<(), LoadError> {
    if let Some(found) = source.not_an_object() {
        return Err(LoadError::NotAnObject {
            document,
            item: ItemIndex(item),
            found,
        });
    }
    let type_meta: TypeMeta = source.read().map_err(|(_, message)| LoadError::BadObject {
        document,
        item: ItemIndex(item),
        what: "object".into(),
        path: "apiVersion/kind".into(),
        message,
    })?;
    let name: NamePeek = source.read().unwrap_or_default();
    decode(type_meta, name, document, item, loaded, source)
}

/// Where an object's text is: JSON text, or a value parsed from YAML.
#[derive(Clone, Copy)]
enum Source<'a> {
    Json(&'a str),
    Value(&'a serde_json::Value),
}

impl Source<'_> {
    /// What the source is, when it is not a mapping.
    fn not_an_object(self) -> Option<&'static str> {
        match self {
            Source::Json(text) if text.starts_with('{') => None,
            Source::Json(text) => Some(json_type(text)),
            Source::Value(value) if value.is_object() => None,
            Source::Value(value) => Some(value_type(value)),
        }
    }

    /// Decodes into `T`, or says at which field path it failed and why.
    fn read<T: DeserializeOwned>(self) -> Result<T, (String, String)> {
        match self {
            Source::Json(text) => {
                let mut de = serde_json::Deserializer::from_str(text);
                serde_path_to_error::deserialize(&mut de)
                    .map_err(|e| (e.path().to_string(), e.inner().to_string()))
            }
            Source::Value(value) => serde_path_to_error::deserialize(value)
                .map_err(|e| (e.path().to_string(), e.inner().to_string())),
        }
    }
}

/// Decodes one object of a kind the model holds; others are counted as skipped.
fn decode(
    type_meta: TypeMeta,
    name: NamePeek,
    document: usize,
    item: Option<usize>,
    loaded: &mut Loaded,
    source: Source,
) -> Result<(), LoadError> {
    let api_version = type_meta.api_version.unwrap_or_default();
    let Some(kind) = type_meta.kind.filter(|k| !k.is_empty()) else {
        return Err(LoadError::BadObject {
            document,
            item: ItemIndex(item),
            what: "object".into(),
            path: "kind".into(),
            message: "missing: every object needs `apiVersion` and `kind`".into(),
        });
    };
    let group = api_version.split_once('/').map_or("", |(g, _)| g);
    let type_name = if api_version.is_empty() {
        kind.clone()
    } else {
        format!("{api_version}/{kind}")
    };
    let what = {
        let meta = name.metadata.unwrap_or_default();
        match (meta.namespace.filter(|n| !n.is_empty()), meta.name) {
            (Some(ns), Some(n)) => format!("{kind} {ns}/{n}"),
            (None, Some(n)) => format!("{kind} {n}"),
            _ => kind.clone(),
        }
    };
    let fail = |(path, message): (String, String)| LoadError::BadObject {
        document,
        item: ItemIndex(item),
        what: what.clone(),
        path,
        message,
    };
    let object = match (group, kind.as_str()) {
        ("", "Pod") => Some(Object::Pod(source.read().map_err(fail)?)),
        ("", "Node") => Some(Object::Node(source.read().map_err(fail)?)),
        ("", "Namespace") => Some(Object::Namespace(source.read().map_err(fail)?)),
        ("", "Event") => Some(Object::Event(Event::from(
            source.read::<CoreEvent>().map_err(fail)?,
        ))),
        ("events.k8s.io", "Event") => Some(Object::Event(Event::from(
            source.read::<EventsApiEvent>().map_err(fail)?,
        ))),
        ("apps" | "extensions", "Deployment") => {
            Some(Object::Deployment(source.read().map_err(fail)?))
        }
        ("apps" | "extensions", "ReplicaSet") => {
            Some(Object::ReplicaSet(source.read().map_err(fail)?))
        }
        ("apps", "StatefulSet") => Some(Object::StatefulSet(source.read().map_err(fail)?)),
        ("apps" | "extensions", "DaemonSet") => {
            Some(Object::DaemonSet(source.read().map_err(fail)?))
        }
        _ => None,
    };
    loaded.add(object, type_name);
    Ok(())
}
