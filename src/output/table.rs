//! `--output table`: one aligned row per finding, for a terminal.

use std::borrow::Borrow;

use crate::diagnosis::Finding;
use crate::diagnosis::wording::short_age;
use crate::model::{ContainerKind, Time};

use super::RunbookLinks;
use super::terminal::visible;

const DETAIL_WIDTH: usize = 72;

pub fn render<F: Borrow<Finding>>(findings: &[F], now: Time, links: &RunbookLinks) -> String {
    if findings.is_empty() {
        return "No findings: nothing is stuck.\n".to_string();
    }
    let header = [
        "NAMESPACE",
        "OBJECT",
        "ANOMALY",
        "CAUSE",
        "AGE",
        "DETAIL",
        "RUNBOOK",
    ]
    .map(String::from);
    let rows: Vec<[String; 7]> = findings
        .iter()
        .map(F::borrow)
        .map(|f| {
            let mut object = format!("{}/{}", f.kind.as_str().to_lowercase(), f.name);
            if let Some(c) = &f.container {
                match f.container_kind {
                    Some(kind @ (ContainerKind::Init | ContainerKind::Sidecar)) => {
                        object.push_str(&format!(" [{} {c}]", kind.as_str()))
                    }
                    _ => object.push_str(&format!(" [{c}]")),
                }
            }
            // Every cell goes through `visible`: names, messages and images
            // are written by whoever can create a pod or an event.
            [
                f.namespace.as_deref().unwrap_or("-").to_string(),
                object,
                f.anomaly().to_string(),
                f.cause.to_string(),
                f.since
                    .map_or("-".into(), |s| short_age(now.duration_since(s))),
                detail(f),
                links.link(f.runbook()),
            ]
            .map(|cell| visible(&cell).into_owned())
        })
        .collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                if i + 1 == row.len() {
                    cell.clone()
                } else {
                    format!("{cell:<w$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// A one-line summary: the facts first, then the message, shortened.
fn detail(f: &Finding) -> String {
    shorten(&f.detail.reading(&f.message), DETAIL_WIDTH)
}

fn shorten(text: &str, width: usize) -> String {
    let one_line: String = visible(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if one_line.chars().count() <= width {
        one_line
    } else {
        let cut: String = one_line.chars().take(width - 1).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn long_messages_become_one_short_line() {
        assert_eq!(shorten("a\n  b", 10), "a b");
        assert_eq!(shorten("abcdefghijkl", 5), "abcd…");
    }
}
