//! Real last terminations of crash-looping containers (reason, exit code, message)
//! with the cause each must get.

use super::*;
use CrashLoopCause::*;

pub const ROWS: &[super::TerminationRow] = &[
    // exit 0 under restartPolicy Always: completed, whatever the reason says
    (
        "https://github.com/kubernetes/kubernetes/issues/53125",
        "Completed",
        0,
        "",
        Completed,
    ),
    // the 2015 kubelet wrote "Error" for a clean exit
    (
        "https://github.com/kubernetes/kubernetes/issues/14307",
        "Error",
        0,
        "",
        Completed,
    ),
    // OOM kills, every wording
    (
        "https://github.com/IBM/cloud-operators/issues/260",
        "OOMKilled",
        137,
        "",
        OomKilled,
    ),
    // the 2014 kubelet's reason
    (
        "https://github.com/kubernetes/kubernetes/pull/3044",
        "OOM Killed",
        137,
        "",
        OomKilled,
    ),
    // exit code 137 alone is a SIGKILL, not necessarily an OOM kill
    (
        "https://github.com/kubernetes/kubernetes/issues/19825",
        "Error",
        137,
        "",
        Error,
    ),
    (
        "https://github.com/kubernetes/kubernetes/issues/122256",
        "Error",
        137,
        "",
        Error,
    ),
];
