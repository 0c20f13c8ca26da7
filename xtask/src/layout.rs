//! The README's list of every source file: each folder of the exporter and of
//! its core, and each file with the first sentence of the `//!` that opens it,
//! so the list cannot miss a file or describe one that is gone.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The source trees the list covers, relative to the repository's root.
const TREES: &[&str] = &["core/src", "src"];

/// The Markdown of the list: one item per folder, the files in it below.
pub(crate) fn source_files(root: &Path) -> Result<String> {
    let mut text = String::from(
        "<details><summary>Every source file, by folder, with the first line of what it holds</summary>\n\n",
    );
    for tree in TREES {
        let mut folders = Vec::new();
        folders_of(&root.join(tree), &mut folders)?;
        folders.sort();
        for (folder, mut files) in folders {
            let shown = crate::relative(root, &folder)?;
            text.push_str(&format!("- `{shown}/`\n"));
            files.sort();
            for file in files {
                let source = std::fs::read_to_string(&file)
                    .with_context(|| format!("reading {}", file.display()))?;
                let name = file
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                match first_sentence(&source) {
                    Some(sentence) => text.push_str(&format!("  - `{name}`: {sentence}\n")),
                    None => text.push_str(&format!("  - `{name}`\n")),
                }
            }
        }
    }
    text.push_str("\n</details>\n");
    Ok(text)
}

/// The test binaries whose module lists are generated: each is a `main.rs`
/// with one `mod` per file and folder beside it.
pub(crate) const TEST_BINARIES: &[&str] = &["tests/pure", "tests/process", "tests/artifacts"];

/// `mod` lines for every Rust file (but `main.rs`) and every folder with a
/// `mod.rs` in `dir`, sorted: a test file added is compiled without a line
/// written by hand.
pub(crate) fn test_modules(dir: &Path) -> Result<String> {
    let mut modules = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if path.is_dir() && path.join("mod.rs").is_file() {
            modules.push(name);
        } else if let Some(stem) = name.strip_suffix(".rs").filter(|s| *s != "main") {
            modules.push(stem.to_string());
        }
    }
    modules.sort();
    Ok(modules.iter().map(|m| format!("mod {m};\n")).collect())
}

/// `dir` and every folder below it that holds Rust source, each with its
/// Rust files.
fn folders_of(dir: &Path, out: &mut Vec<(PathBuf, Vec<PathBuf>)>) -> Result<()> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            folders_of(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    if !files.is_empty() {
        out.push((dir.to_path_buf(), files));
    }
    Ok(())
}

/// The first sentence of the file's opening `//!` paragraph, on one line.
fn first_sentence(source: &str) -> Option<String> {
    let paragraph: Vec<&str> = source
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(str::trim)
        .take_while(|line| !line.is_empty())
        .collect();
    if paragraph.is_empty() {
        return None;
    }
    let joined = paragraph.join(" ");
    let end = joined
        .match_indices(". ")
        .map(|(i, _)| i + 1)
        .find(|&i| !joined[..i].ends_with("e.g.") && !joined[..i].ends_with("i.e."))
        .unwrap_or(joined.len());
    Some(joined[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::first_sentence;

    #[test]
    fn the_first_sentence_of_the_opening_paragraph_on_one_line() {
        let source =
            "//! The model: what the\n//! diagnosis reads. And more.\n//!\n//! Later.\nuse x;";
        assert_eq!(
            first_sentence(source).as_deref(),
            Some("The model: what the diagnosis reads.")
        );
        assert_eq!(first_sentence("use x;\n"), None);
    }
}
