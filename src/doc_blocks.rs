//! Generated blocks inside hand-written documents, kept in step by tests.
//!
//! A block sits between `<!-- BEGIN GENERATED: name -->` and
//! `<!-- END GENERATED: name -->`. A test fails when the block differs from what
//! the code generates; `UPDATE_DOCS=1 cargo test` rewrites it.

use std::path::Path;

pub(crate) fn check(relative_path: &str, name: &str, generated: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative_path);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {relative_path}: {e}"));
    let begin = format!("<!-- BEGIN GENERATED: {name} -->\n");
    let end = format!("<!-- END GENERATED: {name} -->");
    let (Some(start), Some(stop)) = (text.find(&begin), text.find(&end)) else {
        panic!("{relative_path} has no block `{name}` (add the BEGIN/END GENERATED markers)");
    };
    let current = &text[start + begin.len()..stop];
    if current == generated {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let updated = format!(
            "{}{generated}{}",
            &text[..start + begin.len()],
            &text[stop..]
        );
        std::fs::write(&path, updated).unwrap_or_else(|e| panic!("writing {relative_path}: {e}"));
        return;
    }
    panic!(
        "{relative_path}: block `{name}` is out of date with the code; run `UPDATE_DOCS=1 cargo test` and review the diff"
    );
}
