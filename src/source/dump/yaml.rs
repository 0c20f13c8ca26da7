//! YAML dumps: documents read one at a time, each a List, a sequence of
//! objects, or one object, every object with the line it starts on.

use std::io::Read;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::object::{Place, Source, load_object};
use super::{ItemIndex, LineOf, LoadError, Loaded, list_now};

/// YAML documents, read one at a time. The parser's budget is widened from its
/// defaults (sized for configuration files) to whole-cluster dumps; alias and
/// depth limits stay.
pub(super) fn load_yaml(input: &mut impl Read, loaded: &mut Loaded) -> Result<(), LoadError> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_reader_input_bytes: None,
            max_events: usize::MAX,
            max_nodes: usize::MAX,
            max_documents: usize::MAX,
            max_total_scalar_bytes: usize::MAX,
        },
    };
    let documents = serde_saphyr::read_with_options::<_, Spanned<YamlDocument>>(input, options);
    for (index, document) in documents.enumerate() {
        let document_number = index + 1;
        let document = document.map_err(|e| yaml_error(document_number, &e))?;
        load_yaml_document(document, document_number, loaded)?;
    }
    Ok(())
}

/// A parser's error as the document, line, column and its first line of text.
fn yaml_error(document: usize, error: &serde_saphyr::Error) -> LoadError {
    let error = error.without_snippet();
    let (line, column) = error.location().map_or((0, 0), |l| (l.line(), l.column()));
    let mut message = error.to_string();
    for prefix in [
        "error: ".to_string(),
        format!("line {line} column {column}: "),
    ] {
        if let Some(rest) = message.strip_prefix(&prefix) {
            message = rest.to_string();
        }
    }
    let mut message = message
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    if let Some(rest) = message.strip_suffix(&format!(" at line {line}, column {column}")) {
        message = rest.to_string();
    }
    LoadError::Yaml {
        document,
        line,
        column,
        message,
    }
}

/// A YAML document as the loader needs it: a mapping's `items` (a List's)
/// and the items of a bare sequence keep the line each starts on.
enum YamlDocument {
    Mapping {
        fields: serde_json::Map<String, serde_json::Value>,
        /// `None`: no `items` key; `Some(empty)` also for `items: null`.
        items: Option<Vec<Spanned<serde_json::Value>>>,
    },
    Sequence(Vec<Spanned<serde_json::Value>>),
    Scalar(&'static str),
}

impl<'de> Deserialize<'de> for YamlDocument {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(YamlDocumentVisitor)
    }
}

struct YamlDocumentVisitor;

impl<'de> Visitor<'de> for YamlDocumentVisitor {
    type Value = YamlDocument;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a Kubernetes object, a List, or a sequence of objects")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<YamlDocument, A::Error> {
        let mut fields = serde_json::Map::new();
        let mut items = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" {
                let list: Option<Vec<Spanned<serde_json::Value>>> = map.next_value()?;
                items = Some(list.unwrap_or_default());
            } else {
                fields.insert(key, map.next_value()?);
            }
        }
        Ok(YamlDocument::Mapping { fields, items })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<YamlDocument, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(YamlDocument::Sequence(items))
    }

    fn visit_bool<E>(self, _: bool) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("a boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("a number"))
    }
    fn visit_i128<E>(self, _: i128) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("a number"))
    }
    fn visit_u128<E>(self, _: u128) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("a number"))
    }
    fn visit_str<E>(self, _: &str) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("a string"))
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("a string"))
    }
    fn visit_unit<E>(self) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("null"))
    }
    fn visit_none<E>(self) -> Result<YamlDocument, E> {
        Ok(YamlDocument::Scalar("null"))
    }
}

fn load_yaml_document(
    document: Spanned<YamlDocument>,
    document_number: usize,
    loaded: &mut Loaded,
) -> Result<(), LoadError> {
    let line = document.referenced.line();
    let items = match document.value {
        YamlDocument::Mapping {
            fields,
            items: Some(items),
        } => {
            // kubectl prints `apiVersion`, `items`, `kind`, `metadata` in this
            // order: a dump cut inside the items has no `kind` after them,
            // and is refused rather than read as if whole.
            for missing in ["kind", "apiVersion"] {
                if !fields.get(missing).is_some_and(|v| v.is_string()) {
                    return Err(LoadError::ListCut {
                        document: document_number,
                        line,
                        missing,
                    });
                }
            }
            if let Some(now) = list_now(fields.get("metadata"), document_number)? {
                loaded.now = Some(now);
            }
            items
        }
        YamlDocument::Mapping {
            fields,
            items: None,
        } => {
            let object = serde_json::Value::Object(fields);
            let place = Place {
                item: None,
                line: Some(line),
            };
            return load_object(Source::Value(&object), document_number, place, loaded);
        }
        YamlDocument::Sequence(items) => items,
        YamlDocument::Scalar(found) => {
            return Err(LoadError::NotAnObject {
                document: document_number,
                line: LineOf(Some(line)),
                item: ItemIndex(None),
                found,
            });
        }
    };
    for (i, item) in items.into_iter().enumerate() {
        let place = Place {
            item: Some(i),
            line: Some(item.referenced.line()),
        };
        load_object(Source::Value(&item.value), document_number, place, loaded)?;
    }
    Ok(())
}
