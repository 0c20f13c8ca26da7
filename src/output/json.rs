//! `--output json` and `/findings`: an array of findings with a fixed set of keys.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::diagnosis::{Detail, Finding};

use super::RunbookLinks;

/// One finding as JSON: exactly these keys, always present.
#[derive(Debug, Serialize)]
struct JsonFinding<'a> {
    kind: &'static str,
    namespace: Option<&'a str>,
    name: &'a str,
    container: Option<&'a str>,
    /// `init`, `sidecar` or `app` when a container is named.
    container_type: Option<&'static str>,
    anomaly: &'static str,
    cause: &'static str,
    /// RFC 3339, or null when the API shows no time.
    since: Option<String>,
    message: &'a str,
    /// Scheduler reason → node count for `pod_pending`, else empty.
    reasons: BTreeMap<&'static str, u32>,
    /// What a failing probe's output says, for probe kills and `pod_not_ready`, else null.
    probe_failure: Option<&'static str>,
    runbook: String,
}

fn row<'a>(f: &'a Finding, links: &RunbookLinks) -> JsonFinding<'a> {
    JsonFinding {
        kind: f.kind.as_str(),
        namespace: f.namespace.as_deref(),
        name: &f.name,
        container: f.container.as_deref(),
        container_type: f.container_kind.map(|k| k.as_str()),
        anomaly: f.anomaly().as_str(),
        cause: f.cause.as_str(),
        since: f.since.map(|t| t.to_string()),
        message: &f.message,
        reasons: match &f.detail {
            Detail::Pending(p) => p.reasons.iter().map(|(r, n)| (r.as_str(), *n)).collect(),
            _ => BTreeMap::new(),
        },
        probe_failure: f.detail.probe_failure().map(|p| p.as_str()),
        runbook: links.link(f.runbook()),
    }
}

pub fn render<F: Borrow<Finding>>(findings: &[F], links: &RunbookLinks) -> String {
    chunk_of(findings, links, 0..findings.len())
}

/// The part of [`render`]'s text that holds `findings[range]` (findings held
/// or shared, the live exporter's): the ranges of a partition of the
/// findings, in order, join to the whole array's text, so a server can send a
/// large array without ever holding all of its text.
///
/// `[\n`, the findings pretty-printed as serde_json prints an array's elements,
/// then `\n]\n` (`[]\n` when there are none).
pub(crate) fn chunk_of<F: Borrow<Finding>>(
    findings: &[F],
    links: &RunbookLinks,
    range: std::ops::Range<usize>,
) -> String {
    if findings.is_empty() {
        return "[]\n".to_string();
    }
    let mut out = String::new();
    if range.start == 0 {
        out.push('[');
    }
    for (i, f) in findings[range.clone()].iter().enumerate() {
        out.push_str(if range.start + i == 0 { "\n" } else { ",\n" });
        // Serializing plain strings, numbers and maps with string keys cannot
        // fail. Strings escape their newlines, so indenting by line is safe.
        let element = serde_json::to_string_pretty(&row(f.borrow(), links)).unwrap_or_default();
        for (j, line) in element.lines().enumerate() {
            if j > 0 {
                out.push('\n');
            }
            out.push_str("  ");
            out.push_str(line);
        }
    }
    if range.end == findings.len() {
        out.push_str("\n]\n");
    }
    out
}

/// `0..len` cut into ranges of at most `size`; one empty range when `len` is 0,
/// so an empty array is still sent.
pub(crate) fn ranges(len: usize, size: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let size = size.max(1);
    (0..len.div_ceil(size).max(1)).map(move |i| i * size..((i + 1) * size).min(len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::tests::finding;

    #[test]
    fn chunks_join_to_what_serde_json_prints_for_the_whole_array() {
        let links = RunbookLinks::default();
        let findings: Vec<Finding> = (0..7)
            .map(|i| finding(&format!("web-{i}"), "line one\nline \"two\""))
            .collect();
        let rows: Vec<JsonFinding> = findings.iter().map(|f| row(f, &links)).collect();
        let whole = serde_json::to_string_pretty(&rows).unwrap() + "\n";
        for per_chunk in [1, 2, 3, 7, 100] {
            let chunks: Vec<String> = ranges(findings.len(), per_chunk)
                .map(|r| chunk_of(&findings, &links, r))
                .collect();
            assert_eq!(chunks.len(), 7usize.div_ceil(per_chunk), "{per_chunk}");
            assert_eq!(chunks.concat(), whole, "{per_chunk} per chunk");
        }
        assert_eq!(render(&findings, &links), whole);
        assert_eq!(render::<Finding>(&[], &links), "[]\n");
        let empty: Vec<String> = ranges(0, 10)
            .map(|r| chunk_of::<Finding>(&[], &links, r))
            .collect();
        assert_eq!(empty, ["[]\n"]);
        let parsed: serde_json::Value =
            serde_json::from_str(&render(&findings[..1], &links)).unwrap();
        assert_eq!(parsed[0]["message"], "line one\nline \"two\"");
    }
}
