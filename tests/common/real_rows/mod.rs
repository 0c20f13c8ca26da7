//! Real messages of the container families, quoted from public issues, pull
//! requests and pages (the URL is next to each): the tables both the
//! classifier tests (`tests/pure/real_messages/`) and the pod-shape replays
//! (`tests/pure/pod_shapes.rs`) read. Quoting rules as in `tests/pure/real_messages/mod.rs`.

#![allow(dead_code)]

use kube_lifecycle_exporter::diagnosis::{
    ConfigCause, CrashLoopCause, CreatingCause, ImagePullCause,
};

/// `(source, reason, exit code, message, cause)` of a container's last termination.
pub type TerminationRow = (
    &'static str,
    &'static str,
    i32,
    &'static str,
    CrashLoopCause,
);

pub mod config;
pub mod config_wordings;
pub mod creating;
pub mod image_pull;
pub mod image_pull_wordings;
pub mod terminations;
