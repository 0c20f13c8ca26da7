//! What a dump that does not load is refused with: the error, and where in
//! the input it is (the document, the item, the line).

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
