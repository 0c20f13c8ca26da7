//! Generated blocks inside hand-written documents.
//!
//! A block sits between `<!-- BEGIN GENERATED: name -->` and
//! `<!-- END GENERATED: name -->`. [`blocks`] is every block and what the code
//! makes of it: `cargo xtask generate` writes them, and the tests beside the code
//! fail when a document's block differs from it.

use crate::diagnosis::catalogue::Catalogue;

/// One generated block: the document holding it, its name and its text.
#[derive(Debug)]
pub struct Block {
    /// Relative to the repository's root.
    pub path: &'static str,
    pub name: &'static str,
    pub text: String,
}

/// Every generated block of the documentation, from the code.
pub fn blocks() -> Vec<Block> {
    let catalogue = Catalogue::new();
    vec![
        Block {
            path: "docs/causes.md",
            name: "vocabulary",
            text: catalogue.causes_markdown(),
        },
        Block {
            path: "docs/causes.md",
            name: "roots",
            text: catalogue.roots_markdown(),
        },
        Block {
            path: "docs/metrics.md",
            name: "catalogue",
            text: catalogue.metrics_markdown(),
        },
        Block {
            path: "docs/metrics.md",
            name: "telemetry",
            text: crate::output::metrics::telemetry_markdown(),
        },
        Block {
            path: "docs/metrics.md",
            name: "process",
            text: crate::output::metrics::process_markdown(),
        },
    ]
}

/// The block `name` of `document`: where its text starts and ends.
fn find(document: &str, name: &str) -> Option<(usize, usize)> {
    let begin = format!("<!-- BEGIN GENERATED: {name} -->\n");
    let end = format!("<!-- END GENERATED: {name} -->");
    let start = document.find(&begin)? + begin.len();
    let stop = start + document[start..].find(&end)?;
    Some((start, stop))
}

/// `document` with its block `name` holding `text`; `None` when it has no such
/// block (no BEGIN/END GENERATED markers).
pub fn replace(document: &str, name: &str, text: &str) -> Option<String> {
    let (start, stop) = find(document, name)?;
    Some(format!("{}{text}{}", &document[..start], &document[stop..]))
}

/// Fails unless the block `name` of `relative_path` holds `generated`, and
/// [`blocks`] has it (so that `cargo xtask generate` writes it).
#[cfg(test)]
pub(crate) fn check(relative_path: &str, name: &str, generated: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative_path);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {relative_path}: {e}"));
    let Some((start, stop)) = find(&text, name) else {
        panic!("{relative_path} has no block `{name}` (add the BEGIN/END GENERATED markers)");
    };
    assert!(
        blocks()
            .iter()
            .any(|b| b.path == relative_path && b.name == name && b.text == generated),
        "doc_blocks::blocks() lacks {relative_path}'s block `{name}` as this test generates it: add it there"
    );
    assert!(
        &text[start..stop] == generated,
        "{relative_path}: block `{name}` is out of date with the code; run `cargo xtask generate` and review the diff"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/causes.md carries the vocabulary tables exactly as the catalogue has them.
    #[test]
    fn docs_list_the_whole_vocabulary() {
        check(
            "docs/causes.md",
            "vocabulary",
            &Catalogue::new().causes_markdown(),
        );
    }

    /// docs/causes.md carries the root causes' vocabularies.
    #[test]
    fn docs_list_the_root_causes() {
        check(
            "docs/causes.md",
            "roots",
            &Catalogue::new().roots_markdown(),
        );
    }

    /// docs/metrics.md carries every family generated from findings.
    #[test]
    fn docs_list_every_family() {
        check(
            "docs/metrics.md",
            "catalogue",
            &Catalogue::new().metrics_markdown(),
        );
    }
}
