//! Container-level trouble: ContainerCreating, image pulls, crash loops and
//! config errors, judged from waiting states and the kubelet's events.

use crate::common;

use common::*;
use kube_lifecycle_exporter::diagnosis::{Detail, ImagePullDetail};
use serde_json::{Value, json};

fn waiting(name: &str, reason: &str, message: &str, image: &str) -> Value {
    let mut pod = running_pod("shop", name, "n1", None);
    pod["status"]["phase"] = json!("Pending");
    pod["spec"]["containers"][0]["image"] = json!(image);
    let mut state = json!({"reason": reason});
    if !message.is_empty() {
        state["message"] = json!(message);
    }
    pod["status"]["containerStatuses"][0] = json!({
        "name": "app", "image": image, "ready": false, "restartCount": 0, "started": false,
        "state": {"waiting": state}});
    pod
}

fn image_pull_finding(objects: &[Value], pod: &str) -> (String, String, String, String) {
    let findings = diagnose(objects);
    let f = only(&findings, pod);
    assert_eq!(f.anomaly().as_str(), "image_pull");
    assert_eq!(f.container.as_deref(), Some("app"));
    match &f.detail {
        Detail::ImagePull(d) => {
            let ImagePullDetail {
                registry,
                waiting_reason,
                ..
            } = &**d;
            (
                f.cause.to_string(),
                registry.to_string(),
                waiting_reason.to_string(),
                f.message.to_string(),
            )
        }
        other => panic!("{other:?}"),
    }
}

/// seed 001: ImagePullBackOff's own message says nothing; the kubelet's Failed
/// event says `pull QPS exceeded`.
#[test]
fn image_pull_back_off_takes_its_cause_from_the_failed_event() {
    let image = "172.27.129.211:35000/filebeat-with-module:6.0.0";
    let pod = waiting(
        "alert-engine",
        "ImagePullBackOff",
        &format!("Back-off pulling image \"{image}\""),
        image,
    );
    let failed = warning(
        &pod,
        "Failed",
        &format!("Failed to pull image \"{image}\": pull QPS exceeded."),
        Some("app"),
        "2024-06-01T11:10:00Z",
    );
    let useless = warning(
        &pod,
        "Failed",
        "Error: ImagePullBackOff",
        Some("app"),
        "2024-06-01T11:20:00Z",
    );
    let (cause, registry, reason, message) =
        image_pull_finding(&[ready_node("n1"), pod, failed, useless], "alert-engine");
    assert_eq!(cause, "qps_exceeded");
    assert_eq!(registry, "172.27.129.211:35000");
    assert_eq!(reason, "ImagePullBackOff");
    assert!(message.starts_with("Failed to pull image"), "{message}");
}

/// A storm: the kubelet says the same ~2 KB pull failure about every pod of a
/// workload. The findings quote it without copying it: the model holds it
/// once, and so do the findings.
#[test]
fn findings_quoting_one_event_message_share_it() {
    let image = "registry.example.com/shop/web:1.4.2";
    let said = format!(
        "Failed to pull image \"{image}\": rpc error: code = NotFound desc = failed to pull \
         and unpack image \"{image}\": failed to resolve reference \"{image}\": \
         {image}: not found"
    );
    let mut objects = vec![ready_node("n1")];
    for name in ["web-1", "web-2"] {
        let pod = waiting(name, "ImagePullBackOff", "Back-off pulling image", image);
        objects.push(warning(
            &pod,
            "Failed",
            &said,
            Some("app"),
            "2024-06-01T11:10:00Z",
        ));
        objects.push(pod);
    }
    let findings = diagnose(&objects);
    let (a, b) = (only(&findings, "web-1"), only(&findings, "web-2"));
    assert_eq!((&*a.message, &*b.message), (said.as_str(), said.as_str()));
    assert!(
        std::ptr::eq(a.message.as_ptr(), b.message.as_ptr()),
        "both findings hold the event store's one copy"
    );
}

#[test]
fn image_pull_back_off_without_events_is_unknown_with_the_back_off_message() {
    let pod = waiting(
        "web",
        "ImagePullBackOff",
        "Back-off pulling image \"nginx:nope\"",
        "nginx:nope",
    );
    let (cause, registry, _, message) = image_pull_finding(&[pod], "web");
    assert_eq!(cause, "unknown");
    assert_eq!(registry, "docker.io");
    assert_eq!(message, "Back-off pulling image \"nginx:nope\"");
}

#[test]
fn err_image_pull_carries_its_cause_in_its_own_message() {
    let pod = waiting(
        "web",
        "ErrImagePull",
        "rpc error: code = Unknown desc = Error response from daemon: pull access denied for privateorg/app, repository does not exist or may require 'docker login'",
        "privateorg/app:1",
    );
    let (cause, ..) = image_pull_finding(&[pod], "web");
    assert_eq!(cause, "not_found");
}

/// seed 001: ImageInspectError from a damaged overlay2 store.
#[test]
fn image_inspect_error() {
    let image = "docker02:35000/env/develop/prophet/app/pms.tar:develop-175";
    let pod = waiting(
        "pms",
        "ImageInspectError",
        &format!(
            "Failed to inspect image \"{image}\": rpc error: code = Unknown desc = Error response from daemon: readlink /mnt/disk0/docker/data/overlay2: invalid argument"
        ),
        image,
    );
    let (cause, registry, ..) = image_pull_finding(&[pod], "pms");
    assert_eq!(cause, "inspect_error");
    assert_eq!(registry, "docker02:35000");
}

#[test]
fn invalid_names_and_never_pull_are_their_own_causes() {
    let bad = waiting(
        "bad",
        "InvalidImageName",
        "Failed to apply default image tag \"Nginx:latest\": couldn't parse image reference \"Nginx:latest\": invalid reference format: repository name must be lowercase",
        "Nginx:latest",
    );
    let never = waiting(
        "never",
        "ErrImageNeverPull",
        "Container image \"local/app:dev\" is not present with pull policy of Never",
        "local/app:dev",
    );
    assert_eq!(image_pull_finding(&[bad], "bad").0, "invalid_name");
    assert_eq!(image_pull_finding(&[never], "never").0, "never_pull");
}

#[test]
fn events_about_another_container_or_an_earlier_pod_do_not_count() {
    let image = "registry.example.com/app:1";
    let pod = waiting(
        "web",
        "ImagePullBackOff",
        "Back-off pulling image \"registry.example.com/app:1\"",
        image,
    );
    let other_container = warning(
        &pod,
        "Failed",
        "Failed to pull image \"x\": pull QPS exceeded",
        Some("sidecar"),
        "2024-06-01T11:10:00Z",
    );
    let mut earlier_pod = warning(
        &pod,
        "Failed",
        "Failed to pull image \"x\": pull QPS exceeded",
        Some("app"),
        "2024-06-01T11:10:00Z",
    );
    earlier_pod["involvedObject"]["uid"] = json!("uid-of-a-deleted-namesake");
    earlier_pod["metadata"]["name"] = json!("web.older");
    let (cause, ..) = image_pull_finding(&[pod, other_container, earlier_pod], "web");
    assert_eq!(cause, "unknown");
}

/// seed 001: CrashLoopBackOff whose last state is OOMKilled.
#[test]
fn crash_loop_oom_killed_with_exit_code_and_restarts() {
    let mut pod = waiting(
        "mypod",
        "CrashLoopBackOff",
        "back-off 40s restarting failed container=app pod=mypod_shop(uid-mypod)",
        "alpine",
    );
    pod["status"]["phase"] = json!("Running");
    pod["status"]["containerStatuses"][0]["restartCount"] = json!(3);
    pod["status"]["containerStatuses"][0]["lastState"] = json!({"terminated": {
        "exitCode": 137, "reason": "OOMKilled", "startedAt": "2024-06-01T11:50:00Z", "finishedAt": "2024-06-01T11:50:31Z"}});
    let back_off = warning(
        &pod,
        "BackOff",
        "Back-off restarting failed container",
        Some("app"),
        "2024-06-01T11:40:00Z",
    );
    let findings = diagnose(&[pod, back_off]);
    let f = only(&findings, "mypod");
    assert_eq!(f.cause.to_string(), "oom_killed");
    assert_eq!(
        f.runbook().alert(),
        "KubeLifecycleContainerOOMKilledLooping"
    );
    assert_eq!(
        f.detail,
        Detail::CrashLoop {
            exit_code: Some(137),
            restarts: 3,
            probe_failure: None,
        }
    );
    assert_eq!(f.since.unwrap().to_string(), "2024-06-01T11:40:00Z");
}

#[test]
fn crash_loop_causes_follow_the_last_termination_reason() {
    for (reason, exit, cause) in [
        ("Error", 1, "error"),
        ("ContainerCannotRun", 128, "container_cannot_run"),
        ("StartError", 128, "start_error"),
        ("Completed", 0, "completed"),
        ("Unheard", 3, "unknown"),
    ] {
        let mut pod = waiting(
            "p",
            "CrashLoopBackOff",
            "back-off 5m0s restarting failed container",
            "busybox",
        );
        pod["status"]["containerStatuses"][0]["lastState"] = json!({"terminated": {"exitCode": exit, "reason": reason, "finishedAt": "2024-06-01T11:50:31Z"}});
        let findings = diagnose(&[pod]);
        assert_eq!(only(&findings, "p").cause.to_string(), cause, "{reason}");
    }
}

/// seed 001: RunContainerError, `mkdir …: read-only file system` while docker
/// mounted an emptyDir into a damaged image's rootfs.
#[test]
fn run_container_error_read_only_file_system() {
    let message = r#"failed to start container "d41d314a85af6eb8c7e5e": Error response from daemon: OCI runtime create failed: container_linux.go:348: starting container process caused "process_linux.go:402: container init caused \"rootfs_linux.go:58: mounting \\\"/mnt/disk0/k8s/kubelet/pods/ea9035f3/volumes/kubernetes.io~empty-dir/log-entry--predictor--1\\\" to rootfs \\\"/mnt/disk0/docker/data/overlay2/962a78785442dc45bdf95e/merged\\\" at \\\"/mnt/disk0/docker/data/overlay2/962a78785442dc45b0f5/merged/collect/predictor/root/predictor/logs/predictor\\\" caused \\\"mkdir /mnt/disk0/docker/data/overlay2/962a78785442dc495e/merged/collect/predictor/root/predictor/logs/predictor: read-only file system\\\"\"": unknown"#;
    let pod = waiting(
        "predictor",
        "RunContainerError",
        message,
        "docker02:35000/predictor:3.2.0",
    );
    let findings = diagnose(&[pod]);
    let f = only(&findings, "predictor");
    assert_eq!(f.anomaly().as_str(), "container_config");
    assert_eq!(f.cause.to_string(), "read_only_fs");
    assert_eq!(
        f.detail,
        Detail::ContainerConfig {
            waiting_reason: "RunContainerError".into()
        }
    );
}

/// seed 001 (case two): docker mounting a subPath into a container that is gone.
#[test]
fn run_container_error_mount_failure() {
    let message = r#"failed to start container "metricbeat": Error response from daemon: OCI runtime create failed: container_linux.go:348: starting container process caused "process_linux.go:402: container init caused \"rootfs_linux.go:58: mounting \\\"/mnt/disk2/k8s/kubelet/pods/54d426d3-cacd-11e8-971a-5e384b278319/volume-subpaths/config/metricbeat/0\\\" to rootfs \\\"/mnt/disk1/docker/data/overlay2/5753fb64/merged\\\" at \\\"/mnt/disk1/docker/data/overlay2/5753fb64/merged/etc/metricbeat.yml\\\" caused \\\"no such file or directory\\\"\"": unknown"#;
    let pod = waiting(
        "metricbeat",
        "RunContainerError",
        message,
        "docker.elastic.co/beats/metricbeat:6.4.1",
    );
    assert_eq!(
        only(&diagnose(&[pod]), "metricbeat").cause.to_string(),
        "mount_failed"
    );
}

#[test]
fn create_container_config_error_missing_configmap_secret_and_key() {
    for (message, cause) in [
        ("configmap \"app-config\" not found", "configmap_missing"),
        ("secret \"db-credentials\" not found", "secret_missing"),
        (
            "couldn't find key DB_PASSWORD in Secret shop/db-credentials",
            "key_missing",
        ),
        (
            "container has runAsNonRoot and image will run as root (pod: \"web_shop(uid)\", container: app)",
            "run_as_non_root",
        ),
    ] {
        let pod = waiting("cfg", "CreateContainerConfigError", message, "nginx");
        assert_eq!(
            only(&diagnose(&[pod]), "cfg").cause.to_string(),
            cause,
            "{message}"
        );
    }
}

/// seed 001: the pod sandbox image lives in a registry that wants credentials.
#[test]
fn container_creating_because_the_sandbox_image_cannot_be_pulled() {
    let pod = waiting("dnsutils", "ContainerCreating", "", "dnsutils:1.3");
    let event = warning(
        &pod,
        "FailedCreatePodSandBox",
        r#"Failed create pod sandbox: rpc error: code = Unknown desc = failed pulling image "docker02:35000/rhel7/pod-infrastructure:latest": Error response from daemon: Get https://docker02:35000/v2/rhel7/pod-infrastructure/manifests/latest: no basic auth credentials"#,
        None,
        "2024-06-01T11:01:00Z",
    );
    let findings = diagnose(&[pod, event]);
    let f = only(&findings, "dnsutils");
    assert_eq!(f.anomaly().as_str(), "container_creating");
    assert_eq!(f.cause.to_string(), "sandbox_image_pull");
    assert_eq!(f.container, None);
}

#[test]
fn container_creating_causes_from_mount_and_attach_events() {
    for (reason, message, cause) in [
        (
            "FailedMount",
            r#"MountVolume.SetUp failed for volume "config" : configmap "nginx-conf" not found"#,
            "mount_configmap_missing",
        ),
        (
            "FailedMount",
            r#"MountVolume.SetUp failed for volume "tls" : secret "web-tls" not found"#,
            "mount_secret_missing",
        ),
        (
            "FailedMount",
            "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data kube-api-access-7xk2p]: timed out waiting for the condition",
            "mount_timeout",
        ),
        (
            "FailedAttachVolume",
            r#"Multi-Attach error for volume "pvc-4c1d8a7e" Volume is already exclusively attached to one node and can't be attached to another"#,
            "multi_attach",
        ),
        (
            "FailedAttachVolume",
            r#"AttachVolume.Attach failed for volume "pvc-4c1d8a7e" : rpc error: code = Internal desc = Could not attach volume"#,
            "attach_failed",
        ),
        (
            "FailedCreatePodSandBox",
            r#"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "0f9c": plugin type="calico" failed (add): stat /var/lib/calico/nodename: no such file or directory"#,
            "cni",
        ),
    ] {
        let pod = waiting("c", "ContainerCreating", "", "nginx");
        let event = warning(&pod, reason, message, None, "2024-06-01T11:01:00Z");
        assert_eq!(
            only(&diagnose(&[pod, event]), "c").cause.to_string(),
            cause,
            "{message}"
        );
    }
}

#[test]
fn container_creating_without_events_counts_only_after_a_while() {
    let mut pod = waiting("slow", "ContainerCreating", "", "nginx");
    pod["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-06-01T11:58:00Z"}]);
    assert!(
        diagnose(&[pod.clone()]).is_empty(),
        "two minutes in is normal"
    );
    let findings = diagnose_at(&[pod], "2024-06-01T12:30:00Z");
    assert_eq!(only(&findings, "slow").cause.to_string(), "unknown");
}

/// istio/istio#42792 and #21030: a node's cron ran `docker system prune`, which
/// removed the exited istio-init; the kubelet ran it again beside the running
/// app and proxy, and the second run fails on "iptables: Chain already exists."
#[test]
fn an_init_container_rerun_beside_a_running_app_is_named_so() {
    let mut pod = running_pod("shop", "productpage", "n1", None);
    pod["spec"]["initContainers"] =
        json!([{"name": "istio-init", "image": "docker.io/istio/proxyv2:1.5.0"}]);
    pod["status"]["initContainerStatuses"] = json!([{
        "name": "istio-init", "image": "docker.io/istio/proxyv2:1.5.0", "ready": false, "restartCount": 398,
        "state": {"waiting": {"reason": "CrashLoopBackOff",
            "message": "back-off 5m0s restarting failed container=istio-init pod=productpage"}},
        "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
            "message": "+ iptables -t nat -N ISTIO_REDIRECT\niptables: Chain already exists.\n",
            "startedAt": "2024-06-01T11:50:00Z", "finishedAt": "2024-06-01T11:50:01Z"}}}]);
    let findings = diagnose(&[ready_node("n1"), pod]);
    let f = only(&findings, "productpage");
    assert_eq!(f.cause.to_string(), "init_rerun");
    assert_eq!(f.container.as_deref(), Some("istio-init"));
    assert_eq!(
        f.container_kind,
        Some(kube_lifecycle_exporter::model::ContainerKind::Init)
    );
    assert!(f.message.contains("Chain already exists"), "{}", f.message);
}
