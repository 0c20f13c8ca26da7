//! One object of a dump, from JSON text or a value parsed from YAML: its
//! `apiVersion` and `kind` read first, then the object decoded into the
//! model's type for its kind, or counted as skipped.

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::model::{Event, EventsApiEvent, Kind, KindVisitor, Object, Slim};

use super::{ItemIndex, LineOf, LoadError, Loaded};

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

/// What a JSON value is, by its first byte.
pub(super) fn json_type(first: u8) -> &'static str {
    match first {
        b'"' => "a string",
        b'[' => "an array",
        b'{' => "an object",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "a number",
    }
}

/// What a value parsed from YAML is.
pub(super) fn value_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "a mapping",
    }
}

/// Which object of a document, and the line it starts on when known.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Place {
    pub(super) item: Option<usize>,
    pub(super) line: Option<u64>,
}

/// Reads one object's `apiVersion` and `kind`, then the object itself.
pub(super) fn load_object(
    source: Source,
    document: usize,
    place: Place,
    loaded: &mut Loaded,
) -> Result<(), LoadError> {
    if let Some(found) = source.not_an_object() {
        return Err(LoadError::NotAnObject {
            document,
            line: LineOf(place.line),
            item: ItemIndex(place.item),
            found,
        });
    }
    let type_meta: TypeMeta = source.read().map_err(|(_, message)| LoadError::BadObject {
        document,
        line: LineOf(place.line),
        item: ItemIndex(place.item),
        what: "object".into(),
        path: "apiVersion/kind".into(),
        message,
    })?;
    let name: NamePeek = source.read().unwrap_or_default();
    decode(type_meta, name, document, place, loaded, source)
}

/// Where an object's text is: JSON text, or a value parsed from YAML.
#[derive(Clone, Copy)]
pub(super) enum Source<'a> {
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
    place: Place,
    loaded: &mut Loaded,
    source: Source,
) -> Result<(), LoadError> {
    let item = place.item;
    let api_version = type_meta.api_version.unwrap_or_default();
    let Some(kind) = type_meta.kind.filter(|k| !k.is_empty()) else {
        return Err(LoadError::BadObject {
            document,
            line: LineOf(place.line),
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
        line: LineOf(place.line),
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
