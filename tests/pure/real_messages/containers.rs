//! Messages about containers: image pulls, ContainerCreating, containers that
//! cannot be created or started, and last terminations, with more wordings across
//! runtimes (issue 18).

use super::*;

// ---------------------------------------------------------------------------
// Image pulls: the kubelet's `Failed to pull image "...": ...` event or the
// ErrImagePull waiting message (same text without the prefix).
// ---------------------------------------------------------------------------

#[test]
fn image_pull_messages() {
    let rows = common::real_rows::image_pull::ROWS;
    check("image_pull", rows, image_pull);
}

// ---------------------------------------------------------------------------
// ContainerCreating: FailedCreatePodSandBox, FailedMount, FailedAttachVolume.
// ---------------------------------------------------------------------------

#[test]
fn creating_event_messages() {
    let rows = common::real_rows::creating::ROWS;
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(source, reason, message, expected)| {
            let got = creating_event(reason, message);
            (got != *expected).then(|| {
                format!(
                    "  {source}\n    {reason}: expected {expected:?}, got {got:?}\n    {message}"
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "creating: {} of {} real messages misclassified:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Containers that cannot be created or started: the kubelet's `Failed` event
// (`Error: <message>`) or the waiting message itself.
// ---------------------------------------------------------------------------

#[test]
fn container_config_messages() {
    let rows = common::real_rows::config::ROWS;
    check("container_config", rows, container_config);
}

// ---------------------------------------------------------------------------
// More wordings of the same causes, collected for issue 18 (classify by the
// structure of the message, not by sample phrases): other runtimes, other
// versions, other registries. Same rules as above.
// ---------------------------------------------------------------------------

#[test]
fn image_pull_wordings_across_runtimes() {
    let rows = common::real_rows::image_pull_wordings::ROWS;
    check("image_pull (more wordings)", rows, image_pull);
}

#[test]
fn container_config_wordings_across_runtimes() {
    let rows = common::real_rows::config_wordings::ROWS;
    check("container_config (more wordings)", rows, container_config);
}

#[test]
fn crash_loop_terminations_across_kubelets() {
    let rows = common::real_rows::terminations::ROWS;
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(source, reason, exit_code, message, expected)| {
            let got = last_termination(reason, *exit_code, message);
            (got != *expected).then(|| {
                format!("  {source}\n    {reason} ({exit_code}): expected {expected:?}, got {got:?}\n    {message}")
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "crash_loop: {} of {} real terminations misclassified:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}
