//! JSON dumps: concatenated documents, each a List whose items are streamed
//! one at a time, a bare array of objects, or one object.

use std::cell::Cell;
use std::io::BufRead;
use std::rc::Rc;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::object::{Place, Source, json_type, load_object};
use super::text::{LineCount, skip_leading_space};
use super::{ItemIndex, LineOf, LoadError, Loaded, list_now};

/// Concatenated JSON documents, each a list (streamed item by item), a bare
/// array of objects, or one object.
pub(super) fn load_json(input: &mut impl BufRead, loaded: &mut Loaded) -> Result<(), LoadError> {
    let mut document = 0;
    while let Some(first) = skip_leading_space(input)? {
        document += 1;
        if !matches!(first, b'{' | b'[') {
            return Err(LoadError::NotAnObject {
                document,
                line: LineOf(None),
                item: ItemIndex(None),
                found: json_type(first),
            });
        }
        let mut failure = None;
        let line = Rc::new(Cell::new(1));
        let seed = DocumentSeed(Reading {
            document,
            line: line.clone(),
            loaded: &mut *loaded,
            failure: &mut failure,
        });
        let mut de = serde_json::Deserializer::from_reader(LineCount {
            inner: &mut *input,
            line,
        });
        if let Err(e) = seed.deserialize(&mut de) {
            return Err(match failure {
                Some(failure) => failure,
                None if e.is_io() => LoadError::Read {
                    message: e.to_string(),
                },
                None if e.is_eof() => LoadError::Json {
                    document,
                    message: format!(
                        "the input ends (EOF) inside a value at line {} column {}: it looks cut short",
                        e.line(),
                        e.column()
                    ),
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

/// What a JSON document is read into the model with: its number, the line
/// serde_json is at, and where a load error is kept when one stops the parse
/// (serde's errors carry text only).
struct Reading<'a> {
    document: usize,
    line: Rc<Cell<u64>>,
    loaded: &'a mut Loaded,
    failure: &'a mut Option<LoadError>,
}

impl Reading<'_> {
    /// The same reading, lent to a part of the document.
    fn part(&mut self) -> Reading<'_> {
        Reading {
            document: self.document,
            line: self.line.clone(),
            loaded: &mut *self.loaded,
            failure: &mut *self.failure,
        }
    }

    /// Keeps `error` and stops the parse with its text.
    fn fail<E: serde::de::Error>(&mut self, error: LoadError) -> E {
        let message = error.to_string();
        *self.failure = Some(error);
        E::custom(message)
    }
}

/// One top-level JSON document.
struct DocumentSeed<'a>(Reading<'a>);

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
        Items(self.0).visit_seq(seq).map(drop)
    }

    /// A list (`items` streamed) or one object (kept whole, then decoded).
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut reading = self.0;
        let mut fields = serde_json::Map::new();
        let mut listed = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" {
                listed = map.next_value_seed(Items(reading.part()))?;
            } else {
                let value: serde_json::Value = map.next_value()?;
                fields.insert(key, value);
            }
        }
        if listed {
            return match list_now(fields.get("metadata"), reading.document) {
                Ok(now) => {
                    reading.loaded.now = now.or(reading.loaded.now);
                    Ok(())
                }
                Err(e) => Err(reading.fail(e)),
            };
        }
        let object = serde_json::Value::Object(fields);
        load_object(
            Source::Value(&object),
            reading.document,
            Place::default(),
            reading.loaded,
        )
        .map_err(|e| reading.fail(e))
    }
}

/// A list's `items`: each is read, decoded into the model and dropped. `true`
/// when there was an array (`null` is an empty list).
struct Items<'a>(Reading<'a>);

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
        let mut reading = self.0;
        let mut index = 0;
        while let Some(item) = seq.next_element::<Box<RawValue>>()? {
            let text = item.get().trim_start();
            // serde_json is at the item's end: back to its first line.
            let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
            let place = Place {
                item: Some(index),
                line: Some(reading.line.get().saturating_sub(lines)),
            };
            load_object(Source::Json(text), reading.document, place, reading.loaded)
                .map_err(|e| reading.fail(e))?;
            index += 1;
        }
        Ok(true)
    }
}
