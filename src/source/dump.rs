//! Reads what `kubectl get ... -o json` or `-o yaml` prints (a `List` of mixed
//! kinds, a single object, several JSON documents, multi-document YAML) into the
//! model. Kinds the diagnosis does not read are skipped and counted. Bad input is
//! an error that says where: the document, the item and the field path. Input is
//! read from a stream and never held whole: a JSON list item by item, YAML
//! document by document.

use std::collections::BTreeMap;

use std::io::{BufRead, BufReader, Read};

use serde::Deserialize;
use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;

use crate::model::plural::count;
use crate::model::{Cluster, Event, EventsApiEvent, Kind, KindVisitor, Object, Slim};

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the input is empty: expected the JSON or YAML that `kubectl get -o json|yaml` prints")]
    Empty,
    #[error("reading the input: {message}")]
    Read { message: String },
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
    /// The moment the dump describes, when its List says so in the annotation
    /// [`NOW_ANNOTATION`] (the embedded example does): judged as of then unless
    /// `--now` says otherwise, so its ages read as a live incident's.
    pub now: Option<jiff::Timestamp>,
}

/// A List's annotation giving the moment the dump was taken (RFC 3339).
pub const NOW_ANNOTATION: &str = "kube-lifecycle-exporter/now";

/// The `now` a List's metadata declares, if any.
fn list_now(
    metadata: Option<&serde_json::Value>,
    document: usize,
) -> Result<Option<jiff::Timestamp>, LoadError> {
    let Some(value) = metadata
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(NOW_ANNOTATION))
    else {
        return Ok(None);
    };
    let bad = |message: String| LoadError::BadObject {
        document,
        item: ItemIndex(None),
        what: "List".to_string(),
        path: format!("metadata.annotations.{NOW_ANNOTATION}"),
        message,
    };
    let text = value.as_str().ok_or_else(|| {
        bad(format!(
            "expected an RFC 3339 time, found {}",
            value_type(value)
        ))
    })?;
    text.parse()
        .map(Some)
        .map_err(|_| bad("expected an RFC 3339 time, e.g. 2024-05-01T10:00:00Z".to_string()))
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
            "read {} ({})",
            count(total, "object", "objects"),
            list(&mut self.read.iter().map(|(k, n)| (k.to_string(), *n)))
        );
        if !self.skipped.is_empty() {
            let skipped: usize = self.skipped.values().sum();
            line.push_str(&format!(
                "; skipped {} of kinds not diagnosed ({})",
                count(skipped, "object", "objects"),
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
    load_reader(input.as_bytes())
}

/// Reads kubectl output from a reader without holding it whole: JSON is read
/// one list item at a time (each item is decoded into the model and its text
/// dropped), YAML one document at a time.
pub fn load_reader(reader: impl Read) -> Result<Loaded, LoadError> {
    let mut input = BufReader::with_capacity(256 * 1024, reader);
    let mut loaded = Loaded::default();
    let first = skip_leading_space(&mut input)?;
    match first {
        None => return Err(LoadError::Empty),
        Some(b'{' | b'[') => load_json(&mut input, &mut loaded)?,
        Some(_) => load_yaml(&mut input, &mut loaded)?,
    }
    Ok(loaded)
}

fn read_error(e: std::io::Error) -> LoadError {
    LoadError::Read {
        message: e.to_string(),
    }
}

/// Skips a byte-order mark and whitespace; returns the next byte, unread.
/// Whole lines only are skipped before YAML, whose indentation matters.
fn skip_leading_space(input: &mut impl BufRead) -> Result<Option<u8>, LoadError> {
    let mut at_start = true;
    loop {
        let buf = input.fill_buf().map_err(read_error)?;
        if buf.is_empty() {
            return Ok(None);
        }
        if at_start && buf.starts_with(b"\xEF\xBB\xBF") {
            input.consume(3);
            at_start = false;
            continue;
        }
        at_start = false;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(p) => {
                let first = buf[p];
                let skip = if matches!(first, b'{' | b'[') {
                    p
                } else {
                    buf[..p]
                        .iter()
                        .rposition(|b| *b == b'\n')
                        .map_or(0, |n| n + 1)
                };
                input.consume(skip);
                return Ok(Some(first));
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

/// Concatenated JSON documents, each a list (streamed item by item), a bare
/// array of objects, or one object.
fn load_json(input: &mut impl BufRead, loaded: &mut Loaded) -> Result<(), LoadError> {
    let mut document = 0;
    while let Some(first) = skip_leading_space(input)? {
        document += 1;
        if !matches!(first, b'{' | b'[') {
            return Err(LoadError::NotAnObject {
                document,
                item: ItemIndex(None),
                found: json_type(first),
            });
        }
        let mut failure = None;
        let seed = DocumentSeed {
            document,
            loaded: &mut *loaded,
            failure: &mut failure,
        };
        let mut de = serde_json::Deserializer::from_reader(&mut *input);
        if let Err(e) = seed.deserialize(&mut de) {
            return Err(match failure {
                Some(failure) => failure,
                None if e.is_io() => LoadError::Read {
                    message: e.to_string(),
                },
                None => LoadError::Json {
                    document,
                    message: e.to_string(),
                },
            });
        }
    }
    Ok(())
}

/// One top-level JSON document. A load error inside it is kept in `failure`
/// (serde errors carry text only) and the parse stopped.
struct DocumentSeed<'a> {
    document: usize,
    loaded: &'a mut Loaded,
    failure: &'a mut Option<LoadError>,
}

impl<'de> DeserializeSeed<'de> for DocumentSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DocumentSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a Kubernetes object, a List, or an array of objects")
    }

    /// A bare array of objects.
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Items {
            document: self.document,
            loaded: self.loaded,
            failure: self.failure,
        }
        .visit_seq(seq)
        .map(drop)
    }

    /// A list (`items` streamed) or one object (kept whole, then decoded).
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut fields = serde_json::Map::new();
        let mut listed = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" {
                listed = map.next_value_seed(Items {
                    document: self.document,
                    loaded: &mut *self.loaded,
                    failure: &mut *self.failure,
                })?;
            } else {
                let value: serde_json::Value = map.next_value()?;
                fields.insert(key, value);
            }
        }
        if listed {
            return match list_now(fields.get("metadata"), self.document) {
                Ok(now) => {
                    self.loaded.now = now.or(self.loaded.now);
                    Ok(())
                }
                Err(e) => {
                    let message = e.to_string();
                    *self.failure = Some(e);
                    Err(A::Error::custom(message))
                }
            };
        }
        let object = serde_json::Value::Object(fields);
        load_object(Source::Value(&object), self.document, None, self.loaded).map_err(|e| {
            let message = e.to_string();
            *self.failure = Some(e);
            A::Error::custom(message)
        })
    }
}

/// A list's `items`: each is read, decoded into the model and dropped. `true`
/// when there was an array (`null` is an empty list).
struct Items<'a> {
    document: usize,
    loaded: &'a mut Loaded,
    failure: &'a mut Option<LoadError>,
}

impl<'de> DeserializeSeed<'de> for Items<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Items<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("`items`: an array of Kubernetes objects")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<bool, E> {
        Ok(true)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut index = 0;
        while let Some(item) = seq.next_element::<Box<RawValue>>()? {
            let text = item.get().trim_start();
            load_object(Source::Json(text), self.document, Some(index), self.loaded).map_err(
                |e| {
                    let message = e.to_string();
                    *self.failure = Some(e);
                    A::Error::custom(message)
                },
            )?;
            index += 1;
        }
        Ok(true)
    }
}

/// YAML documents, read one at a time. The parser's budget is widened from its
/// defaults (sized for configuration files) to whole-cluster dumps; alias and
/// depth limits stay.
fn load_yaml(input: &mut impl Read, loaded: &mut Loaded) -> Result<(), LoadError> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_reader_input_bytes: None,
            max_events: usize::MAX,
            max_nodes: usize::MAX,
            max_documents: usize::MAX,
            max_total_scalar_bytes: usize::MAX,
        },
    };
    let documents = serde_saphyr::read_with_options::<_, serde_json::Value>(input, options);
    for (index, document) in documents.enumerate() {
        let document_number = index + 1;
        let document = document.map_err(|e| LoadError::Yaml {
            message: e.to_string(),
        })?;
        load_yaml_document(document, document_number, loaded)?;
    }
    Ok(())
}

fn load_yaml_document(
    document: serde_json::Value,
    document_number: usize,
    loaded: &mut Loaded,
) -> Result<(), LoadError> {
    match document {
        serde_json::Value::Object(mut map)
            if map
                .get("kind")
                .and_then(|k| k.as_str())
                .is_some_and(|k| k.ends_with("List"))
                && map
                    .get("items")
                    .is_some_and(|i| i.is_array() || i.is_null()) =>
        {
            if let Some(now) = list_now(map.get("metadata"), document_number)? {
                loaded.now = Some(now);
            }
            let items = match map.remove("items") {
                Some(serde_json::Value::Array(items)) => items,
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
    Ok(())
}

fn json_type(first: u8) -> &'static str {
    match first {
        b'"' => "a string",
        b'[' => "an array",
        b'{' => "an object",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "a number",
    }
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
            Source::Json(text) => Some(json_type(text.bytes().next().unwrap_or(b'0'))),
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

/// Decodes an object into the type of its kind.
struct Decode<'a>(Source<'a>);

impl KindVisitor for Decode<'_> {
    type Output = Result<Object, (String, String)>;

    fn visit<T: Slim>(self) -> Self::Output {
        self.0.read::<T>().map(T::into_object)
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
    let object = match Kind::of(group, &kind) {
        Some(kind) => Some(kind.visit(Decode(source)).map_err(fail)?),
        // The events.k8s.io/v1 Event is the same kind in another shape.
        None if (group, kind.as_str()) == ("events.k8s.io", "Event") => Some(Object::Event(
            Event::from(source.read::<EventsApiEvent>().map_err(fail)?),
        )),
        None => None,
    };
    loaded.add(object, type_name);
    Ok(())
}
