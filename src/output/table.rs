//! `--output table`: one aligned row per finding, for a terminal.

use jiff::Timestamp;

use crate::diagnosis::{Detail, Finding};
use crate::model::ContainerKind;
use crate::model::age;
use crate::model::plural::count;

use super::RunbookLinks;
use super::terminal::visible;

const DETAIL_WIDTH: usize = 72;

pub fn render(findings: &[Finding], now: Timestamp, links: &RunbookLinks) -> String {
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
                f.namespace.clone().unwrap_or_else(|| "-".into()),
                object,
                f.anomaly().to_string(),
                f.cause.to_string(),
                f.since
                    .map_or("-".into(), |s| age::short(now.duration_since(s))),
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
    let facts = match &f.detail {
        Detail::Pending {
            reasons,
            nodes_total,
            pressured_nodes,
        } if !reasons.is_empty() => {
            let mut parts: Vec<_> = reasons.iter().collect();
            parts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let list: Vec<String> = parts.iter().map(|(r, n)| format!("{n} {r}")).collect();
            let reasons = match nodes_total {
                Some(total) => format!("0/{total} nodes: {}", list.join(", ")),
                None => list.join(", "),
            };
            match pressured_nodes.as_slice() {
                [] => reasons,
                nodes => format!("{reasons}; under pressure: {}", nodes.join(", ")),
            }
        }
        Detail::ImagePull { image, .. } => format!("{image}: {}", f.message),
        Detail::CrashLoop {
            exit_code,
            restarts,
            ..
        } => match exit_code {
            Some(code) => format!(
                "exit {code}, {}: {}",
                count(*restarts, "restart", "restarts"),
                f.message
            ),
            None => format!("{}: {}", count(*restarts, "restart", "restarts"), f.message),
        },
        Detail::NamespaceContent {
            terminating_pods, ..
        } if !terminating_pods.is_empty() => f.message.clone(),
        Detail::NamespaceContent {
            remaining_resources,
            remaining_finalizers,
            ..
        } if !remaining_resources.is_empty() || !remaining_finalizers.is_empty() => {
            let r: Vec<String> = remaining_resources
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            let fz: Vec<String> = remaining_finalizers
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            match (r.is_empty(), fz.is_empty()) {
                (false, false) => {
                    format!("remaining {}; finalizers {}", r.join(", "), fz.join(", "))
                }
                (false, true) => format!("remaining {}", r.join(", ")),
                _ => format!("finalizers {}", fz.join(", ")),
            }
        }
        Detail::Refused {
            deployment,
            quota,
            resource,
            webhook,
            pod_security_level,
            desired,
            current,
        } => {
            let mut facts = vec![format!("{current}/{desired} pods")];
            facts.extend(deployment.iter().map(|d| format!("deployment {d}")));
            facts.extend(quota.iter().map(|q| format!("quota {q}")));
            facts.extend(resource.iter().cloned());
            facts.extend(webhook.iter().map(|w| format!("webhook {w}")));
            facts.extend(pod_security_level.iter().map(|l| format!("level {l}")));
            format!("{}: {}", facts.join(", "), f.message)
        }
        Detail::Evicted {
            owner_kind: Some(kind),
            owner_name: Some(name),
            ..
        } => format!("{kind} {name}: {}", f.message),
        _ => f.message.clone(),
    };
    shorten(&facts, DETAIL_WIDTH)
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
