//! A held-back set: real messages collected after the classifiers were
//! written and labelled before they were first run. The first run named the
//! right cause for 22 of 24 (the misses: `NodeUnderMemoryPressure`, a 1.7-1.9
//! predicate failure name the table lacked, and containerd's own snapshot
//! mount read as a volume mount). The failure names were then added from the
//! scheduler's list of them, so the set is no longer blind to that one row;
//! nothing else was tuned on it. The test prints the accuracy per family with
//! the misses and holds the total at what it is now, so a change that loses
//! ground shows here. Quoting rules as in `tests/pure/real_messages/mod.rs`.

use crate::held_back::Scores;
use kube_lifecycle_exporter::diagnosis::classify::{
    container_config, creating_event, image_pull, last_termination, scheduler_reasons,
};
use kube_lifecycle_exporter::diagnosis::{
    ConfigCause, CrashLoopCause, CreatingCause, ImagePullCause, PendingCause,
};

#[test]
fn held_back_messages() {
    let mut scores = Scores::default();

    {
        use ImagePullCause::*;
        let images: &[(&str, &str, Option<ImagePullCause>)] = &[
            (
                "https://github.com/kubernetes/kube-state-metrics/issues/1588",
                r#"Failed to pull image "k8s.gcr.io/kube-state-metrics/kube-state-metrics:v2.2.0": rpc error: code = Unknown desc = failed to pull and unpack image "k8s.gcr.io/kube-state-metrics/kube-state-metrics:v2.2.0": failed to resolve reference "k8s.gcr.io/kube-state-metrics/kube-state-metrics:v2.2.0": failed to do request: Head https://k8s.gcr.io/v2/kube-state-metrics/kube-state-metrics/manifests/v2.2.0: dial tcp 172.217.192.82:443: connect: no route to host"#,
                Some(ConnectionRefused),
            ),
            (
                "https://github.com/kubernetes/kubernetes/issues/66237",
                "rpc error: code = Unknown desc = failed to register layer: symlink ../b92c56e4b383fd8d014c0879cd029974e542dcf136c4addb37ce84d217bad2e8/diff /docker/overlay2/l/FNSBEMYABM6ONGMULYCJSYA6T7: no such file or directory",
                Some(Corrupt),
            ),
            (
                "https://github.com/mattmattox/drain-node-on-crash/issues/7",
                "rpc error: code = Unknown desc = Error response from daemon: manifest for drainnode/leader:v1.0-rc9 not found: manifest unknown: manifest unknown",
                Some(NotFound),
            ),
            (
                "https://github.com/podman-container-tools/podman/issues/6595",
                "Error initializing source docker://registry.gitlab.com/lightmeter/controlcenter:latest: Error reading manifest latest in registry.gitlab.com/lightmeter/controlcenter: manifest unknown: manifest unknown",
                Some(NotFound),
            ),
            (
                "https://github.com/distribution/distribution/issues/2394",
                "Error response from daemon: manifest for <imagename>:<tagname> not found",
                Some(NotFound),
            ),
            (
                "https://github.com/podman-container-tools/podman/issues/14858",
                "unable to retrieve auth token: invalid username/password: unauthorized: The login credentials are not valid, or your IBM Cloud account is not active.",
                Some(Unauthorized),
            ),
            (
                "https://github.com/jenkinsci/helm-charts/issues/1586",
                "Failed to pull image \"docker.io/bats/bats:1.13.0\": failed to pull and unpack image \"docker.io/bats/bats:1.13.0\": failed to copy: httpReadSeeker: failed open: unexpected status from GET request to https://registry-1.docker.io/v2/bats/bats/manifests/sha256:ba5704b9c118b7e9f358700b8973800aaaa5bce36800ee8db375fe59fb5f4e09: 429 Too Many Requests\ntoomanyrequests: You have reached your unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit",
                Some(RateLimited),
            ),
            (
                "https://github.com/linz/topo-workflows/pull/129",
                r#"ImagePull: rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/debian:latest": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/debian/manifests/sha256:63d62ae233b588d6b426b7b072d79d1306bfd02a72bff1fc045b8511cc89ee09: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit"#,
                Some(RateLimited),
            ),
        ];
        let family = "image_pull";
        for (source, message, expected) in images {
            scores.record(family, source, *expected, image_pull(message));
        }
    }

    {
        use PendingCause::*;
        // (source, message, the finding's cause: the reason with most nodes)
        let pending: &[(&str, &str, PendingCause)] = &[
            (
                "https://github.com/kubernetes/kubernetes/issues/81020",
                "0/5 nodes are available: 1 node(s) had volume node affinity conflict, 4 node(s) didn't match node selector",
                NodeAffinity,
            ),
            (
                "https://github.com/minio/directpv/issues/100",
                "0/4 nodes are available: 4 pod has unbound immediate PersistentVolumeClaims.",
                VolumeBinding,
            ),
            (
                "https://github.com/yugabyte/yugabyte-db/pull/20349",
                "0/55 nodes are available: 19 Insufficient cpu, 36 node(s) didn't match Pod's node affinity/selector",
                NodeAffinity,
            ),
            (
                "https://github.com/kubernetes/kubernetes/issues/108096",
                "0/1 nodes are available: 1 node(s) had volume node affinity conflict",
                VolumeZone,
            ),
            (
                "https://github.com/kubernetes/kubernetes/issues/52166",
                "No nodes are available that match all of the following predicates:: NodeUnderMemoryPressure (1).",
                NodeMemoryPressure,
            ),
        ];
        let family = "pending";
        for (source, message, expected) in pending {
            let parsed = scheduler_reasons(message);
            let got = parsed
                .reasons
                .iter()
                .max_by(|(ra, na), (rb, nb)| na.cmp(nb).then(rb.cmp(ra)))
                .map_or(Other, |(reason, _)| *reason);
            scores.record(family, source, *expected, got);
        }
    }

    {
        use CreatingCause::*;
        let creating: &[(&str, &str, &str, Option<CreatingCause>)] = &[
            (
                "https://github.com/containerd/containerd/issues/7689",
                "FailedCreatePodSandBox",
                r#"run pod sandbox: rpc error: code = Unknown desc = failed to create pod network sandbox k8s_nginx_default_hdishd83djaidwnduwk28bcsb_1(4338cd100cc17c254a6f89daa92c357555d7cabb5cedced52b7df9ce29c0b4b5): error adding pod default_nginx to CNI network "k8s-pod-network": pods "nginx" not found"#,
                Some(Cni),
            ),
            (
                "https://github.com/cri-o/cri-o/issues/7008",
                "FailedCreatePodSandBox",
                r#"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get network status for pod sandbox k8s_argocd-server-67b55cf99f-pg4tn_argo-cd_2b09c73b-ae84-4d96-8e9c-a49e64a83f0a_0(d283503be0626b67e15d3ec8939f8056c6b5a1f7431932826334ba1429407d17): error checking pod argo-cd_argocd-server-67b55cf99f-pg4tn for CNI network "crio": Interface veth53193e1d Mac doesn't match: 7e:10:77:0b:8b:d5 not found"#,
                Some(Cni),
            ),
            (
                "https://github.com/cri-o/cri-o/issues/7008",
                "FailedMount",
                r#"MountVolume.SetUp failed for volume "kube-api-access-dzfgk" : failed to sync configmap cache: timed out waiting for the condition"#,
                Some(MountTimeout),
            ),
            (
                "https://github.com/containernetworking/cni/issues/777",
                "FailedCreatePodSandBox",
                r#"Failed to create pod sandbox: rpc error: code = Unknown desc = [failed to set up sandbox container "3fe33199939736653d0eb5ffb41ffd4a94630cbf0ee1d9ffa39e1fef7cb40a83" network for pod "kafka-0": networkPlugin cni failed to set up pod "kafka-0_default" network: netplugin failed with no error message, failed to clean up sandbox container "3fe33199939736653d0eb5ffb41ffd4a94630cbf0ee1d9ffa39e1fef7cb40a83" network for pod "kafka-0": networkPlugin cni failed to teardown pod "kafka-0_default" network: netplugin failed with no error message]"#,
                Some(Cni),
            ),
            (
                "https://github.com/cri-o/cri-o/issues/1523",
                "FailedCreatePodSandBox",
                "RunPodSandbox from runtime service failed: rpc error: code = Unknown desc = failed to create pod network sandbox k8s_kube-controller-manager-kata_kube-system_94ed0fa540fbf10c0225d82de5e61561_0(35e354e982ccd726a45da51ac613ff9c27e90e75cb97edc04d843788aa614d82): cni config uninitialized",
                Some(Cni),
            ),
        ];
        let family = "container_creating";
        for (source, reason, message, expected) in creating {
            scores.record(family, source, *expected, creating_event(reason, message));
        }
    }

    {
        use ConfigCause::*;
        let config: &[(&str, &str, Option<ConfigCause>)] = &[
            (
                "https://github.com/kubernetes/kubernetes/issues/71476",
                r#"Error: failed to create containerd task: OCI runtime create failed: container_linux.go:336: starting container process caused "process_linux.go:402: container init caused \"rootfs_linux.go:58: mounting \\\"cgroup\\\" to rootfs \\\"/run/containerd/io.containerd.runtime.v1.linux/k8s.io/volume-injector/rootfs\\\" at \\\"/sys/fs/cgroup\\\" caused \\\"stat /run/containerd/io.containerd.runtime.v1.linux/k8s.io/6cfb2144321818493ad276acafb2d082b3233afd19b5f6c0558f268a8a7215cb/rootfs/sys/fs/pod8534b75c-d8de-11e8-b7cf-42010a800002/volume-injector: no such file or directory\\\"\"": unknown"#,
                Some(MountFailed),
            ),
            (
                "https://github.com/rancher/rke2/issues/6101",
                r#"Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error mounting "/var/lib/kubelet/pods/c99d4ec1-2772-4770-9d0a-250c50d3c456/volumes/kubernetes.io~empty-dir/healthstatus" to rootfs at "/var/log/mongodb-mms-automation/healthstatus": mkdir /run/k3s/containerd/io.containerd.runtime.v2.task/k8s.io/mongodb-agent/rootfs/var/log/mongodb-mms-automation/healthstatus: permission denied: unknown"#,
                Some(MountFailed),
            ),
            // containerd's own snapshot mount, not a volume
            (
                "https://github.com/containerd/containerd/issues/5249",
                "Error: failed to create containerd container: failed to mount /var/lib/containerd/tmpmounts/containerd-mountxxxxx: no such file or directory",
                Some(Other),
            ),
        ];
        let family = "container_config";
        for (source, message, expected) in config {
            scores.record(
                family,
                source,
                *expected,
                Some(container_config(message).unwrap_or(Other)),
            );
        }
    }

    {
        use CrashLoopCause::*;
        let terminations: &[(&str, &str, i32, &str, CrashLoopCause)] = &[
            (
                "https://github.com/Azure/azure-databricks-operator/issues/62",
                "OOMKilled",
                137,
                "",
                OomKilled,
            ),
            (
                "https://github.com/openshift/origin/issues/7064",
                "OOMKilled",
                137,
                "",
                OomKilled,
            ),
            // the Kubernetes 1.1 docs' reason, as the issue quotes it
            (
                "https://github.com/kubernetes/kubernetes/issues/19825",
                "OOM",
                137,
                "",
                OomKilled,
            ),
        ];
        let family = "crash_loop";
        for (source, reason, exit_code, message, expected) in terminations {
            scores.record(
                family,
                source,
                *expected,
                last_termination(reason, *exit_code, message),
            );
        }
    }

    scores.hold_at_least(23);
}
