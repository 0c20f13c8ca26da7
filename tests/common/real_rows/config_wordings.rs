//! More wordings of container config failures across runtimes (issue 18), with
//! the cause each must get.

use super::*;
use ConfigCause::*;

pub const ROWS: &[(&str, &str, Option<ConfigCause>)] = &[
    // --- mount_failed: the runtime or the kubelet cannot stat a mount path ---
    (
        "https://github.com/kubernetes/minikube/issues/4634",
        "stat /opt/my-path/: no such file or directory",
        Some(MountFailed),
    ),
    (
        "https://github.com/kubevirt/hostpath-provisioner/issues/51",
        "stat /var/hpvolumes/pvc-bdfb2e0e-ee5e-4f45-a98a-8404b225a4a2: no such file or directory",
        Some(MountFailed),
    ),
    (
        "https://github.com/kubernetes-sigs/kind/issues/403",
        "Error: stat /tmp/hostpath_pv/3fd8ed04-4f9a-11e9-8a5b-0242d7acb934: no such file or directory",
        Some(MountFailed),
    ),
    // docker, a subPath of a ConfigMap gone after an upgrade
    (
        "https://github.com/kubernetes/kubernetes/issues/96240",
        r#"Error: failed to start container "ks-question-service": Error response from daemon: OCI runtime create failed: container_linux.go:349: starting container process caused "process_linux.go:449: container init caused \"rootfs_linux.go:58: mounting \\\"/var/lib/kubelet/pods/fb00e769-b1f3-489c-802b-d611f7037d01/volume-subpaths/skywalking-conf/ks-question-service/5\\\" to rootfs \\\"/data/docker/overlay2/0d5c61704dff3e3c42e3a5605d6b6aec0903d67eda8cc54c388ba4eccef0166f/merged\\\" at \\\"/data/docker/overlay2/0d5c61704dff3e3c42e3a5605d6b6aec0903d67eda8cc54c388ba4eccef0166f/merged/opt/skywalking-agent/config/apm-trace-ignore-plugin.config\\\" caused \\\"no such file or directory\\\"\"": unknown"#,
        Some(MountFailed),
    ),
    // --- run_as_non_root: every wording ---
    (
        "https://github.com/goharbor/harbor-operator/issues/82",
        "Error: container has runAsNonRoot and image has non-numeric user (nonroot), cannot verify user is non-root",
        Some(RunAsNonRoot),
    ),
    // joined: YAML folded the message over lines
    (
        "https://github.com/civicrm/civicrm-docker/issues/8",
        r#"container has runAsNonRoot and image has non-numeric user (admin), cannot verify user is non-root (pod: "xxx", container: container)"#,
        Some(RunAsNonRoot),
    ),
    (
        "https://github.com/cloudfoundry/eirini/issues/120",
        "Error: container has runAsNonRoot and image will run as root",
        Some(RunAsNonRoot),
    ),
    // runAsUser: 0 with runAsNonRoot: no "runAsNonRoot" in the words
    (
        "https://github.com/openshift/oc/issues/879",
        "Error: container's runAsUser breaks non-root policy",
        Some(RunAsNonRoot),
    ),
    // Windows nodes (the kubelet's e2e test expects this text)
    (
        "https://github.com/kubernetes/kubernetes/blob/master/test/e2e/windows/security_context.go",
        "container's runAsUserName (ContainerAdministrator) which will be regarded as root identity and will break non-root policy",
        Some(RunAsNonRoot),
    ),
];
