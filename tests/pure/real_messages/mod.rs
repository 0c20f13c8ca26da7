//! The classifiers against messages people actually posted.
//!
//! Every message below is quoted from a public issue, pull request or page
//! (the URL is next to it). Long image names, digests and UIDs are kept; where a
//! message was cut, it is cut where its poster cut it. The only edits: markdown
//! markup (`**`, backticks) the poster wrapped around a message is dropped, a
//! message that a terminal or YAML folded over lines is joined back with one
//! space (said next to it), and newlines that are in the message itself are
//! written as `\n`.

use crate::common;

use std::collections::BTreeMap;

use kube_lifecycle_exporter::diagnosis::PendingCause;
use kube_lifecycle_exporter::diagnosis::classify::{
    TerminationEvent, container_config, creating_event, image_pull, last_termination,
    remaining_finalizers, remaining_resources, scheduler_reasons, termination_event,
};

mod containers;
mod scheduler;
mod terminating;

/// Runs `classify` over `(source, message, expected)` rows and reports every
/// row that disagrees at once, so one run shows the whole table's state.
fn check<T: PartialEq + std::fmt::Debug + Copy>(
    family: &str,
    rows: &[(&str, &str, T)],
    classify: impl Fn(&str) -> T,
) {
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(source, message, expected)| {
            let got = classify(message);
            (got != *expected).then(|| {
                format!("  {source}\n    expected {expected:?}, got {got:?}\n    {message}")
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{family}: {} of {} real messages misclassified:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}
