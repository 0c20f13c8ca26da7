//! Containers that cannot be created or started (the waiting message of
//! CreateContainerConfigError, CreateContainerError, RunContainerError,
//! StartError), and how a crash-looping container last ended.

use super::{Rule, first_match};
use crate::diagnosis::{ConfigCause, CrashLoopCause};

use ConfigCause::*;

/// Who refused, most specific first: the kubelet before it asks the runtime
/// (missing objects and keys, the non-root policy), then the runtime.
const CONTAINER_CONFIG: &[Rule<ConfigCause>] = &[
    (KeyMissing, &["couldn't find key"]),
    (ConfigmapMissing, &["configmap \"", "configmaps \""]),
    (SecretMissing, &["secret \"", "secrets \""]),
    // The kubelet's non-root check, every wording: "container has runAsNonRoot
    // and image will run as root", "... has non-numeric user (x), cannot verify
    // user is non-root", "container's runAsUser breaks non-root policy",
    // Windows' "runAsUserName (ContainerAdministrator) ... will break non-root policy".
    (
        RunAsNonRoot,
        &[
            "runasnonroot",
            "non-root",
            "will run as root",
            "regarded as root",
        ],
    ),
    (
        NameConflict,
        &[
            "is already in use by container",
            "is reserved for",
            "name is reserved",
        ],
    ),
    (ReadOnlyFs, &["read-only file system"]),
    // The process's own executable: runc's `exec: "x": stat x: ...` and its
    // "executable file not found"; a stat error anywhere else is a mount path.
    (
        ExecNotFound,
        &[
            "executable file not found",
            "not found in $path",
            "exec format error",
            "exec: \"",
        ],
    ),
    (
        MountFailed,
        &[
            "error mounting",
            "rootfs_linux.go",
            "failed to prepare subpath",
            "subpath",
            "mount",
            "volume-subpaths",
            "/var/lib/kubelet/pods/",
            "stat /",
        ],
    ),
];

/// The cause a container create/start error message names, if it names one.
pub fn container_config(message: &str) -> Option<ConfigCause> {
    first_match(CONTAINER_CONFIG, message)
}

/// Words of an OOM kill other than the reason `OOMKilled`: the kernel's
/// ("Memory cgroup out of memory", "oom-kill"), runc's ("container init was
/// OOM-killed"), older kubelets' ("OOM Killed").
const OOM_WORDS: &[&str] = &[
    "oomkill",
    "oom kill",
    "oom-kill",
    "out of memory",
    "out-of-memory",
];

/// What a crash-looping container's last termination says. The exit code
/// decides before the reason string: a container that exits 0 and is
/// restarted (restartPolicy Always) is `completed` whatever reason the kubelet
/// of the day wrote ("Completed", "Error", none). An OOM kill is read from the
/// reason or the message; exit code 137 alone is any SIGKILL, not an OOM.
pub fn last_termination(reason: &str, exit_code: i32, message: &str) -> CrashLoopCause {
    let reason_lower = reason.to_lowercase();
    let message_lower = message.to_lowercase();
    let oom = reason_lower.starts_with("oom")
        || OOM_WORDS
            .iter()
            .any(|w| reason_lower.contains(w) || message_lower.contains(w));
    if oom {
        return CrashLoopCause::OomKilled;
    }
    match reason {
        "ContainerCannotRun" => CrashLoopCause::ContainerCannotRun,
        "StartError" => CrashLoopCause::StartError,
        _ if exit_code == 0 => CrashLoopCause::Completed,
        "Error" | "" => CrashLoopCause::Error,
        "Completed" => CrashLoopCause::Error,
        _ => CrashLoopCause::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_error_is_the_executable_only_under_exec() {
        assert_eq!(
            container_config(r#"exec: "/app": stat /app: no such file or directory: unknown"#),
            Some(ExecNotFound)
        );
        assert_eq!(
            container_config("Error: stat /data/app: no such file or directory"),
            Some(MountFailed)
        );
        assert_eq!(
            container_config("lstat /tmp/prom-db: no such file or directory"),
            Some(MountFailed)
        );
    }

    #[test]
    fn exit_zero_is_completed_whatever_the_reason() {
        for reason in ["Completed", "Error", ""] {
            assert_eq!(
                last_termination(reason, 0, ""),
                CrashLoopCause::Completed,
                "{reason}"
            );
        }
    }

    /// Each `(reason, exit code, message)` judged as `want`.
    fn judged(cases: &[(&str, i32, &str, CrashLoopCause)]) {
        for &(reason, exit_code, message, want) in cases {
            assert_eq!(
                last_termination(reason, exit_code, message),
                want,
                "{reason:?} {exit_code} {message:?}"
            );
        }
    }

    #[test]
    fn oom_by_reason_or_message_but_not_by_exit_code() {
        let oom = "Memory cgroup out of memory: Killed process 1234 (java)";
        judged(&[
            ("OOMKilled", 137, "", CrashLoopCause::OomKilled),
            ("OOMKilling", 137, "", CrashLoopCause::OomKilled),
            ("Error", 137, oom, CrashLoopCause::OomKilled),
            ("Error", 137, "OOMKilled", CrashLoopCause::OomKilled),
            ("Error", 137, "", CrashLoopCause::Error),
            ("", 137, "", CrashLoopCause::Error),
        ]);
    }

    #[test]
    fn runtime_reasons_and_the_unheard_of() {
        judged(&[
            (
                "ContainerCannotRun",
                128,
                "",
                CrashLoopCause::ContainerCannotRun,
            ),
            ("StartError", 128, "", CrashLoopCause::StartError),
            ("Unheard", 3, "", CrashLoopCause::Unknown),
        ]);
    }
}
