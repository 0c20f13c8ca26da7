//! `--output json` and `/findings`: an array of findings with a fixed set of keys.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diagnosis::{Detail, Finding, ProbeFailure};

use super::RunbookLinks;

/// One finding as JSON: exactly these keys, always present.
#[derive(Debug, Serialize)]
struct JsonFinding<'a> {
    kind: &'static str,
    namespace: Option<&'a str>,
    name: &'a str,
    container: Option<&'a str>,
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

fn probe_failure(f: &Finding) -> Option<ProbeFailure> {
    match f.detail {
        Detail::CrashLoop { probe_failure, .. } | Detail::NotReady { probe_failure } => {
            probe_failure
        }
        _ => None,
    }
}

pub fn render(findings: &[Finding], links: &RunbookLinks) -> String {
    let rows: Vec<JsonFinding> = findings
        .iter()
        .map(|f| JsonFinding {
            kind: f.kind.as_str(),
            namespace: f.namespace.as_deref(),
            name: &f.name,
            container: f.container.as_deref(),
            anomaly: f.anomaly().as_str(),
            cause: f.cause.as_str(),
            since: f.since.map(|t| t.to_string()),
            message: &f.message,
            reasons: match &f.detail {
                Detail::Pending { reasons, .. } => {
                    reasons.iter().map(|(r, n)| (r.as_str(), *n)).collect()
                }
                _ => BTreeMap::new(),
            },
            probe_failure: probe_failure(f).map(|p| p.as_str()),
            runbook: links.link(f.runbook()),
        })
        .collect();
    // Serializing plain strings, numbers and maps with string keys cannot fail.
    let mut text = serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".to_string());
    text.push('\n');
    text
}
