//! Reads what `kubectl get ... -o json` or `-o yaml` prints (a `List` of mixed
//! kinds, a single object, several JSON documents, multi-document YAML) into the
//! model. Kinds the diagnosis does not read are skipped and counted. Bad input is
//! an error that says where: the document, the item and the field path. Input is
//! read from a stream and never held whole: a JSON list item by item, YAML
//! document by document.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

use std::io::{BufRead, BufReader, Read};

use serde::Deserialize;
use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;
use serde_saphyr::Spanned;

use crate::model::plural::count;
use crate::model::{Cluster, Event, EventsApiEvent, Kind, KindVisitor, Object, Slim};

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the input is empty: expected the JSON or YAML that `kubectl get -o json|yaml` prints")]
    Empty,
    #[error("reading the input: {message}")]
    Read { message: String },
    #[error(
        "byte offset {offset} (line {line}): {what}: the input is not text; expected the JSON or YAML that `kubectl get -o json|yaml` prints"
    )]
    NotText {
        offset: u64,
        line: u64,
        what: &'static str,
    },
    #[error("document {document}: not valid JSON: {message}")]
    Json { document: usize, message: String },
    #[error(
        "document {document}: the input ends inside a JSON value at line {line} column {column}: it looks cut short"
    )]
    JsonCut {
        document: usize,
        line: usize,
        column: usize,
    },
    #[error("document {document}, line {line} column {column}: not valid YAML: {message}")]
    Yaml {
        document: usize,
        line: u64,
        column: u64,
        message: String,
    },
    #[error(
        "line {line}: the input ends in the middle of an indented line: it looks cut short (`kubectl get -o yaml` ends its output with a line break)"
    )]
    YamlCut { line: u64 },
    #[error(
        "document {document}, line {line}: a List without `{missing}`: the input looks cut short (`kubectl get -o yaml` prints a List's `apiVersion`, `items`, `kind: List` and `metadata`)"
    )]
    ListCut {
        document: usize,
        line: u64,
        missing: &'static str,
    },
    #[error(
        "document {document}, {item}{line}: expected a Kubernetes object (a mapping with `kind`), found {found}"
    )]
    NotAnObject {
        document: usize,
        line: LineOf,
        item: ItemIndex,
        found: &'static str,
    },
    #[error("document {document}, {}{path} ({what}{line}): {message}", .item.prefix())]
    BadObject {
        document: usize,
        /// `, line N` where the object starts, when known.
        line: LineOf,
        item: ItemIndex,
        /// `Pod ns/name`, or the kind alone when the name cannot be read.
        what: String,
        path: String,
        message: String,
    },
}

/// Which object of a document: `items[3]` when it came from a List or an
/// array, the document itself otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemIndex(pub Option<usize>);

impl ItemIndex {
    /// The start of a field path: `items[3].`, or nothing.
    fn prefix(&self) -> String {
        self.0.map_or_else(String::new, |i| format!("items[{i}]."))
    }
}

impl std::fmt::Display for ItemIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(i) => write!(f, "items[{i}]"),
            None => f.write_str("the document"),
        }
    }
}

/// `, line N`: the line an object starts on, when the reader knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineOf(pub Option<u64>);

impl std::fmt::Display for LineOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(line) => write!(f, ", line {line}"),
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
    let problem = Rc::new(Cell::new(None));
    let end = Rc::new(Cell::new(LastLine::default()));
    let checked = TextCheck {
        inner: reader,
        offset: 0,
        line: 1,
        pending: Vec::new(),
        problem: problem.clone(),
        end: end.clone(),
    };
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

/// Where the input stopped being text: byte offset, line, and what was there.
type NotText = (u64, u64, &'static str);

/// Passes the input through, refusing what is not text: invalid UTF-8 or a
/// NUL byte, with the byte offset and line where it is.
struct TextCheck<R> {
    inner: R,
    offset: u64,
    line: u64,
    /// The start of a UTF-8 sequence that the last read cut.
    pending: Vec<u8>,
    problem: Rc<Cell<Option<NotText>>>,
    end: Rc<Cell<LastLine>>,
}

/// The last line read so far: its first byte, whether a line break ended it,
/// and its number.
#[derive(Debug, Clone, Copy, Default)]
struct LastLine {
    first: Option<u8>,
    ended: bool,
    line: u64,
}

impl<R: Read> TextCheck<R> {
    fn refuse(&mut self, at: usize, buf: &[u8], what: &'static str) -> std::io::Error {
        // `at` counts from the start of `pending` followed by `buf`.
        let before = at.saturating_sub(self.pending.len());
        let lines = memchr::memchr_iter(b'\n', &buf[..before.min(buf.len())]).count() as u64;
        let offset = (self.offset + at as u64).saturating_sub(self.pending.len() as u64);
        self.problem.set(Some((offset, self.line + lines, what)));
        std::io::Error::new(std::io::ErrorKind::InvalidData, what)
    }
}

impl<R: Read> Read for TextCheck<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.problem.get().is_some() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "not text",
            ));
        }
        let n = self.inner.read(buf)?;
        let data = &buf[..n];
        if n == 0 {
            if !self.pending.is_empty() {
                return Err(self.refuse(0, data, "a UTF-8 sequence cut off at the end"));
            }
            return Ok(0);
        }
        if let Some(at) = memchr::memchr(0, data) {
            let at = at + self.pending.len();
            return Err(self.refuse(at, data, "a NUL byte"));
        }
        let joined;
        let text: &[u8] = if self.pending.is_empty() {
            data
        } else {
            joined = [self.pending.as_slice(), data].concat();
            &joined
        };
        let pending = match std::str::from_utf8(text) {
            Ok(_) => Vec::new(),
            Err(e) if e.error_len().is_none() => text[e.valid_up_to()..].to_vec(),
            Err(e) => return Err(self.refuse(e.valid_up_to(), data, "a byte that is not UTF-8")),
        };
        self.offset += n as u64;
        self.line += memchr::memchr_iter(b'\n', data).count() as u64;
        self.pending = pending;
        let mut end = self.end.get();
        match memchr::memrchr(b'\n', data) {
            Some(p) if p + 1 == n => end.first = None,
            Some(p) => end.first = Some(data[p + 1]),
            None if end.ended || end.first.is_none() => end.first = Some(data[0]),
            None => {}
        }
        end.ended = data[n - 1] == b'\n';
        end.line = self.line;
        self.end.set(end);
        Ok(n)
    }
}

/// The line serde_json is at, counted as it reads (it reads byte by byte).
struct LineCount<R> {
    inner: R,
    line: Rc<Cell<u64>>,
}

impl<R: Read> Read for LineCount<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let lines = memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        if lines > 0 {
            self.line.set(self.line.get() + lines);
        }
        Ok(n)
    }
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
                line: LineOf(None),
                item: ItemIndex(None),
                found: json_type(first),
            });
        }
        let mut failure = None;
        let line = Rc::new(Cell::new(1));
        let seed = DocumentSeed {
            document,
            line: line.clone(),
            loaded: &mut *loaded,
            failure: &mut failure,
        };
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

/// One top-level JSON document. A load error inside it is kept in `failure`
/// (serde errors carry text only) and the parse stopped.
struct DocumentSeed<'a> {
    document: usize,
    line: Rc<Cell<u64>>,
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
            line: self.line,
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
                    line: self.line.clone(),
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
        load_object(
            Source::Value(&object),
            self.document,
            Place::default(),
            self.loaded,
        )
        .map_err(|e| {
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
    line: Rc<Cell<u64>>,
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
            // serde_json is at the item's end: back to its first line.
            let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
            let place = Place {
                item: Some(index),
                line: Some(self.line.get().saturating_sub(lines)),
            };
            load_object(Source::Json(text), self.document, place, self.loaded).map_err(|e| {
                let message = e.to_string();
                *self.failure = Some(e);
                A::Error::custom(message)
            })?;
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

/// Which object of a document, and the line it starts on when known.
#[derive(Debug, Clone, Copy, Default)]
struct Place {
    item: Option<usize>,
    line: Option<u64>,
}

/// Reads one object's `apiVersion` and `kind`, then the object itself.
fn load_object(
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
