//! Reads what `kubectl get ... -o json` or `-o yaml` prints (a `List` of mixed
//! kinds, a single object, several JSON documents, multi-document YAML) into the
//! model. Kinds the diagnosis does not read are skipped and counted. Bad input is
//! an error that says where: the document, the item and the field path. Input is
//! read from a stream and never held whole: a JSON list item by item, YAML
//! document by document.
//!
//! - `text.rs`: the input as text, refused where it is not;
//! - `json.rs` and `yaml.rs`: the documents of each format, item by item;
//! - `object.rs`: one object, decoded into the model or counted as skipped;
//! - `error.rs`: what bad input is refused with, and where it is.

mod error;
mod json;
mod object;
mod text;
mod yaml;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::{BufReader, Read};
use std::rc::Rc;

use crate::diagnosis::wording::count;
use crate::model::{Cluster, Kind, Object, Time};

pub use error::{ItemIndex, LineOf, LoadError};
use json::load_json;
use object::value_type;
use text::{LastLine, TextCheck, skip_leading_space};
use yaml::load_yaml;

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
    pub now: Option<Time>,
}

/// A List's annotation giving the moment the dump was taken (RFC 3339).
pub const NOW_ANNOTATION: &str = "kube-lifecycle-exporter/now";

/// The `now` a List's metadata declares, if any.
fn list_now(
    metadata: Option<&serde_json::Value>,
    document: usize,
) -> Result<Option<Time>, LoadError> {
    let Some(value) = metadata
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(NOW_ANNOTATION))
    else {
        return Ok(None);
    };
    let bad = |message: String| LoadError::BadObject {
        document,
        line: LineOf(None),
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

/// Reads kubectl output from a string.
pub fn load_str(input: &str) -> Result<Loaded, LoadError> {
    load_reader(input.as_bytes())
}

/// Reads kubectl output from a reader without holding it whole: JSON is read
/// one list item at a time (each item is decoded into the model and its text
/// dropped), YAML one document at a time.
pub fn load_reader(reader: impl Read) -> Result<Loaded, LoadError> {
    let problem = Rc::new(Cell::new(None));
    let end = Rc::new(Cell::new(LastLine::default()));
    let checked = TextCheck::new(reader, problem.clone(), end.clone());
    let mut input = BufReader::with_capacity(256 * 1024, checked);
    let mut loaded = Loaded::default();
    let result = match skip_leading_space(&mut input) {
        Ok(None) => Err(LoadError::Empty),
        Ok(Some(b'{' | b'[')) => load_json(&mut input, &mut loaded),
        Ok(Some(_)) => load_yaml(&mut input, &mut loaded).and_then(|()| {
            // A YAML dump cut mid-line inside a nested value often still
            // parses; kubectl ends every line, so such an end is a cut.
            let last = end.get();
            match last.first {
                Some(b' ' | b'\t' | b'-') if !last.ended => {
                    Err(LoadError::YamlCut { line: last.line })
                }
                _ => Ok(()),
            }
        }),
        Err(e) => Err(e),
    };
    // Whatever a parser made of the reader's refusal, binary input is said
    // to be binary, with where.
    if let Some((offset, line, what)) = problem.get() {
        return Err(LoadError::NotText { offset, line, what });
    }
    result.map(|()| loaded)
}
