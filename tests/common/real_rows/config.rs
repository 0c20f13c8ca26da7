//! Real messages of containers that cannot be created or started, with the cause
//! each must get.

use super::*;
use ConfigCause::*;

pub const ROWS: &[(&str, &str, Option<ConfigCause>)] = &[
    // --- configmap_missing ---
    (
        "https://github.com/kruize/autotune/issues/35",
        r#"Error: configmap "autotune-config-key" not found"#,
        Some(ConfigmapMissing),
    ),
    (
        "https://github.com/rustyrazorblade/easy-db-lab/issues/733",
        r#"Error: configmap "cluster-config" not found"#,
        Some(ConfigmapMissing),
    ),
    // --- secret_missing ---
    (
        "https://github.com/sentry-kubernetes/charts/issues/1433",
        r#"Error: secret "sentry-snuba-env" not found"#,
        Some(SecretMissing),
    ),
    (
        "https://github.com/cloudfoundry/eirini-release/issues/111",
        r#"Error: secrets "secrets-2.16.4-1" not found"#,
        Some(SecretMissing),
    ),
    // --- key_missing ---
    (
        "https://github.com/shieldworks/aegis/issues/293",
        "Error: couldn't find key VALUE in Secret default/aegis-secret-aegis-workload-demo",
        Some(KeyMissing),
    ),
    (
        "https://github.com/sentry-kubernetes/charts/issues/1433",
        "Error: couldn't find key postgresql-password in Secret test/my-postgresql",
        Some(KeyMissing),
    ),
    (
        "https://github.com/contiv/install/issues/324",
        "Error: Couldn't find key contiv_etcd in ConfigMap kube-system/contiv-config",
        Some(KeyMissing),
    ),
    (
        "https://github.com/nacos-group/nacos-k8s/issues/420",
        "couldn't find key mysql.host in ConfigMap nacos/nacos-cm",
        Some(KeyMissing),
    ),
    // --- run_as_non_root ---
    (
        "https://github.com/cloudnativedevops/demo/issues/31",
        "Error: container has runAsNonRoot and image will run as root",
        Some(RunAsNonRoot),
    ),
    // waiting message, cut by its poster
    (
        "https://github.com/kubernetes-sigs/external-dns/issues/4003",
        "container has runAsNonRoot and image will run as root (pod: \"external-dns-5bf5f97c4-bw7mg_kube-system(d7ec6cb8-d04d-4c40-b333-1b51c5b69219)\",\n      container: external-dns",
        Some(RunAsNonRoot),
    ),
    (
        "https://github.com/goharbor/harbor-operator/issues/82",
        "container has runAsNonRoot and image will run as root",
        Some(RunAsNonRoot),
    ),
    (
        "https://github.com/kubernetes-up-and-running/kuard/issues/43",
        r#"Error: container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: "kuard-798585497b-4lpqf_default(6e554b4c-4f39-4fae-97c6-b147436639f4)", container: kuard)"#,
        Some(RunAsNonRoot),
    ),
    // --- exec_not_found ---
    // docker
    (
        "https://github.com/storageos/cluster-operator/issues/141",
        r#"Error: failed to start container "storageos": Error response from daemon: OCI runtime create failed: container_linux.go:345: starting container process caused "exec: \"storageos\": executable file not found in $PATH": unknown"#,
        Some(ExecNotFound),
    ),
    (
        "https://github.com/ubc/barman-docker/issues/5",
        r#"RunContainerError: failed to start container "c944dc805bc1b2c908ae069f70074eebf5b975c1574a4c012ea5973f8f9d6971": Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: exec: "/tini": stat /tini: no such file or directory: unknown"#,
        Some(ExecNotFound),
    ),
    // Ambiguous, kept as exec_not_found: the runtime could not stat the
    // entrypoint ("not a directory": a component of its path is a file);
    // docker appends its generic mount hint to every ENOTDIR.
    (
        "https://github.com/mittwald/kube-av/issues/15",
        r#"Error: failed to start container "kubeav": Error response from daemon: OCI runtime create failed: container_linux.go:370: starting container process caused: exec: "/usr/local/bin/kubeav": stat /usr/local/bin/kubeav: not a directory: unknown: Are you trying to mount a directory onto a file (or vice-versa)? Check if the specified host path exists and is the expected type"#,
        Some(ExecNotFound),
    ),
    // containerd
    (
        "https://github.com/pl4nty/cloudflare-kubernetes-gateway/issues/123",
        r#"Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/manager": stat /manager: no such file or directory: unknown"#,
        Some(ExecNotFound),
    ),
    (
        "https://github.com/CyCoreSystems/asterisk-k8s-demo/pull/25",
        r#"Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/app": stat /app: no such file or directory: unknown"#,
        Some(ExecNotFound),
    ),
    // containerd, the StartError termination message
    (
        "https://github.com/vdesabou/kafka-docker-playground/issues/8515",
        r#"failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "": executable file not found in $PATH"#,
        Some(ExecNotFound),
    ),
    // CRI-O (crio log of the CreateContainer error)
    (
        "https://github.com/cri-o/cri-o/issues/8887",
        "Container creation error: executable file `/bin/alloy` not found in $PATH: No such file or directory\n",
        Some(ExecNotFound),
    ),
    (
        "https://github.com/opencontainers/runc/issues/4713",
        r#"Container creation error: runc create failed: unable to start container process: exec: \"/cluster/kube-apiserver-operator\": executable file not found in $PATH"#,
        Some(ExecNotFound),
    ),
    // --- read_only_fs ---
    // containerd
    (
        "https://github.com/apecloud/kubeblocks/issues/7215",
        r#"Error: failed to generate container "6ed13e4ae34749b117f8ddd25923ff47f09139f56ec68306976651d8014b3b5d" spec: failed to generate spec: failed to mkdir "/root/.kube/config": mkdir /root/.kube: read-only file system"#,
        Some(ReadOnlyFs),
    ),
    // CRI-O (a mount into a read-only path: the read-only file system is the cause)
    (
        "https://github.com/cri-o/cri-o/issues/2564",
        r#"Error: container create failed: container_linux.go:345: starting container process caused "process_linux.go:430: container init caused \"rootfs_linux.go:58: mounting \\\"/host/lib/modules\\\" to rootfs \\\"/var/lib/containers/storage/overlay/14f8e164b34d417bfc9cc4818d78cb2ae97ea044a55429c58d8b229180b8bc57/merged\\\" at \\\"/var/lib/containers/storage/overlay/14f8e164b34d417bfc9cc4818d78cb2ae97ea044a55429c58d8b229180b8bc57/merged/host/usr/lib64/modules\\\" caused \\\"mkdir /var/lib/containers/storage/overlay/14f8e164b34d417bfc9cc4818d78cb2ae97ea044a55429c58d8b229180b8bc57/merged/host/usr/lib64: read-only file system\\\"\"""#,
        Some(ReadOnlyFs),
    ),
    // docker, hostPath source on a read-only root
    (
        "https://github.com/testdrivenio/flask-vue-kubernetes/issues/3",
        "Error: failed to start container \"postgres\": Error response from daemon: error while creating mount source path\n '/data/postgres-pv': mkdir /data: read-only file system",
        Some(ReadOnlyFs),
    ),
    // --- mount_failed ---
    (
        "https://github.com/kubernetes/kubernetes/issues/61178",
        r#"Error: failed to prepare subPath for volumeMount "flannel-net-conf" of container "kube-flannel""#,
        Some(MountFailed),
    ),
    // the ConfigMap volume path inside must not make it configmap_missing
    (
        "https://github.com/Azure/aks-engine/issues/3066",
        "container start failed: CreateContainerConfigError: failed to prepare subPath for volumeMount 'ce-api-tempappsettings' of container '-ce-api-temp': error mounting /var/lib/kubelet/pods/fe596f4a-7b47-11ea-9157-000d3a93dbe3/volumes/kubernetes.io~configmap/ce-api-tempappsettings' of container 'ce-api-temp'",
        Some(MountFailed),
    ),
    // docker, "not a directory" mounting a ConfigMap onto a file
    (
        "https://github.com/rootsongjc/kubernetes-handbook/issues/218",
        r#"Error: failed to start container "influxdb": Error response from daemon: oci runtime error: container_linux.go:247: starting container process caused "process_linux.go:364: container init caused \"rootfs_linux.go:54: mounting \\\"/var/lib/kubelet/pods/e76b2d64-5a5e-11e8-b179-080027c9c16c/volumes/kubernetes.io~configmap/influxdb-config\\\" to rootfs \\\"/var/lib/docker/overlay2/e50b7f32607a04096a36d2d4852a7d6fdf4d73324ab447a2f780d8b1c7f8efb2/merged\\\" at \\\"/var/lib/docker/overlay2/e50b7f32607a04096a36d2d4852a7d6fdf4d73324ab447a2f780d8b1c7f8efb2/merged/etc/config.toml\\\" caused \\\"not a directory\\\"\"" : Are you trying to mount a directory onto a file (or vice-versa)? Check if the specified host path exists and is the expected type"#,
        Some(MountFailed),
    ),
    // docker with runc >= 1.1 wording (cut by its poster)
    (
        "https://github.com/kubernetes/minikube/issues/20931",
        r#"Error: failed to start container "cis": Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error mounting "/var/lib/kubelet/pods/238fc24f-176b-4143-9b15-672ad06c27b4/volume-subpaths/pvc-135d5675-1e29-4db2-9b89-814acc27c63a/cis/18" to rootfs at "/opt/test/test2022/rootInfo": mount src=/var/lib/kubelet/pods/238fc24f-176b-4143-9b15-672ad06c27b4/volume-subpaths/pvc-135d5675-1e29-4db2-9b89-81"#,
        Some(MountFailed),
    ),
    // a subPath whose hostPath directory is missing: the kubelet's bare
    // stat error on the volume's path (not under runc's `exec:`)
    (
        "https://github.com/k3d-io/k3d/issues/765",
        "Error: stat /data/app: no such file or directory",
        Some(MountFailed),
    ),
    // --- name_conflict ---
    // docker (kubelet log)
    (
        "https://github.com/kubernetes/kubernetes/issues/94557",
        r#"rpc error: code = Unknown desc = Error response from daemon: Conflict. The container name "/k8s_harbor-redis_harbor-master3-bg4tz_kube-system_1b086090-d37b-40f4-99b3-57046033770e_2" is already in use by container "94ffec110c0342db864efad67c8ca47661266677b921a98131e4b0b09434cc05". You have to remove (or rename) that container to be able to reuse that name"#,
        Some(NameConflict),
    ),
    // containerd
    (
        "https://github.com/k3s-io/k3s/issues/7690",
        r#"Error: failed to reserve container name "homeassistant_homeassistant-58488865d6-sqfg9_default_bc1cc92e-0fce-43bf-91e9-91682563c3bf_0": name "homeassistant_homeassistant-58488865d6-sqfg9_default_bc1cc92e-0fce-43bf-91e9-91682563c3bf_0" is reserved for "6a37ff9b916561e21557c3f39e5b7b2c4f1a21c91c93cb8d86884ed9751f2f5b""#,
        Some(NameConflict),
    ),
    // CRI-O
    (
        "https://github.com/lxc/lxcri/issues/43",
        "Response error: error reserving ctr name k8s_sgg-alpine-exim_nginx-sandbox_default_hdishd83djaidwnduwk28bcsb_0 for id baca3e0064284658e211ecc61a56f1b350a222aad364e4e11cfb8aecec93d51a: name is reserved",
        Some(NameConflict),
    ),
    (
        "https://github.com/estesp/bucketbench/issues/56",
        "rpc error: code = Unknown desc = Kubelet may be retrying requests that are timing out in CRI-O due to system load: error reserving pod name k8s_podbb-ctr-1-0_bucketbench.test.cri_bucketbench-test-cri_1 for id b421a43db43086a3c98e5ecdc556aa1638359ec2c817a7d742832cf7954242fd: name is reserved",
        Some(NameConflict),
    ),
];
