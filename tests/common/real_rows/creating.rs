//! Real ContainerCreating messages (FailedCreatePodSandBox, FailedMount,
//! FailedAttachVolume events) with their reason and the cause each must get.

use super::*;
use CreatingCause::*;

pub const ROWS: &[(&str, &str, &str, Option<CreatingCause>)] = &[
    // --- sandbox_image_pull ---
    // containerd
    (
        "https://github.com/rootless-containers/usernetes/issues/240",
        "FailedCreatePodSandBox",
        r#"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox image "k8s.gcr.io/pause:3.5": failed to pull image "k8s.gcr.io/pause:3.5": failed to pull and unpack image "k8s.gcr.io/pause:3.5": failed to resolve reference "k8s.gcr.io/pause:3.5": failed to do request: Head "https://k8s.gcr.io/v2/pause/manifests/3.5""#,
        Some(SandboxImagePull),
    ),
    // docker (dockershim)
    (
        "https://github.com/kubernetes/kubelet/issues/7",
        "FailedCreatePodSandBox",
        r#"Failed to create pod sandbox: rpc error: code = Unknown desc = failed pulling image "k8s.gcr.io/pause:3.1": Error response from daemon: Get https://k8s.gcr.io/v2/: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)"#,
        Some(SandboxImagePull),
    ),
    (
        "https://github.com/opsnull/follow-me-install-kubernetes-cluster/issues/639",
        "FailedCreatePodSandBox",
        r#"Failed create pod sandbox: rpc error: code = Unknown desc = failed pulling image "registry.cn-beijing.aliyuncs.com/images_k8s/pause-amd64:3.1": Error response from daemon: pull access denied for registry.cn-beijing.aliyuncs.com/images_k8s/pause-amd64, repository does not exist or may require 'docker login'"#,
        Some(SandboxImagePull),
    ),
    // docker: the configured sandbox image cannot even be inspected
    (
        "https://github.com/kubernetes/kubernetes/issues/72295",
        "FailedCreatePodSandBox",
        r#"Failed create pod sandbox: rpc error: code = Unknown desc = failed to inspect sandbox image "registry.cn-hangzhou.aliyuncs.com/google-containers/pause-amd64:3.0\"": Error response from daemon: no such image: registry.cn-hangzhou.aliyuncs.com/google-containers/pause-amd64:3.0": invalid reference format"#,
        Some(SandboxImagePull),
    ),
    // k3s (containerd) with --pause-image pointing at a missing image
    (
        "https://github.com/k3s-io/k3s/issues/4673",
        "FailedCreatePodSandBox",
        r#"Failed to create pod sandbox: rpc error: code = NotFound desc = failed to get image from containerd "sha256:da86e6ba6ca197bf6bc5e9d900febd906b133eaa4750e6bed647b0fbe50ed43e": image "docker.io/rancher/mirrored-pause:3.1": not found"#,
        Some(SandboxImagePull),
    ),
    // --- cni ---
    // docker (dockershim), flannel not running yet
    (
        "https://github.com/aws/amazon-vpc-cni-k8s/issues/859",
        "FailedCreatePodSandBox",
        r#"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container "26cdaf3170806455a4731218d20c482bb2a41ded6ef85c90b560058e332df684" network for pod "label-demo": networkPlugin cni failed to set up pod "label-demo_default" network: open /run/flannel/subnet.env: no such file or directory"#,
        Some(Cni),
    ),
    // containerd, flannel
    (
        "https://github.com/flannel-io/flannel/issues/2253",
        "FailedCreatePodSandBox",
        r#"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "3c05350cf5717b9bcf92a63ffafb7a3d27bd5ad1880de39272e72aa1661e637e": plugin type="flannel" failed (add): loadFlannelSubnetEnv failed: open /run/flannel/subnet.env: no such file or directory"#,
        Some(Cni),
    ),
    // containerd, calico
    (
        "https://github.com/projectcalico/calico/issues/9215",
        "FailedCreatePodSandBox",
        r#"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "b6385006e8b3eedeaa1fd60e3e69afc9fb758a27666c93708a9211b3c988ab34": plugin type="calico" failed (add): error getting ClusterInformation: connection is unauthorized: Unauthorized"#,
        Some(Cni),
    ),
    (
        "https://github.com/easzlab/kubeasz/issues/1332",
        "FailedCreatePodSandBox",
        r#"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "20d3feb0e9ed29a754fb921b8ae728d4b2d6035d2add28d7e1d4b1f7ce08be10": plugin type="calico" failed (add): Unauthorized"#,
        Some(Cni),
    ),
    // docker (dockershim), calico
    (
        "https://github.com/projectcalico/calico/issues/5712",
        "FailedCreatePodSandBox",
        r#"Failed to create pod sandbox: rpc error: code = Unknown desc = [failed to set up sandbox container "3dcfdb21462e255a8f4059ca8540c8df05863bd6444cb22290133f894840845e" network for pod "pod-with-cm": networkPlugin cni failed to set up pod "pod-with-cm_default" network: error getting ClusterInformation: connection is unauthorized: Unauthorized, failed to clean up sandbox container "3dcfdb21462e255a8f4059ca8540c8df05863bd6444cb22290133f894840845e" network for pod "pod-with-cm": networkPlugin cni failed to teardown pod "pod-with-cm_default" network: error getting ClusterInformation: connection is unauthorized: Unauthorized]"#,
        Some(Cni),
    ),
    // containerd, host-local IPAM exhausted
    (
        "https://github.com/kubernetes/test-infra/issues/13039",
        "FailedCreatePodSandBox",
        r#"Failed create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "b44007428cd156be1435328e60724d53bda421d19861469d1619c84963e2310c": failed to allocate for range 0: no IP addresses available in range set: 10.60.28.1-10.60.28.254"#,
        Some(Cni),
    ),
    // docker (dockershim), AWS VPC CNI out of addresses
    (
        "https://github.com/aws/amazon-vpc-cni-k8s/issues/668",
        "FailedCreatePodSandBox",
        r#"Failed create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container "9234234234de67e8234cdc5c23423dce7e20842b8334208a6bff3a8" network for pod "custom-test-endpoint-5659dd6f47-92rj7": NetworkPlugin cni failed to set up pod "custom-test-endpoint-523422f47-92rj7_default" network: add cmd: failed to assign an IP address to container"#,
        Some(Cni),
    ),
    // containerd, multus cannot reach the API server: the i/o timeout is the
    // CNI's, not a pull's
    (
        "https://github.com/k8snetworkplumbingwg/multus-cni/issues/943",
        "FailedCreatePodSandBox",
        r#"Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "bc59dc1e752fde7284d4852bfe9956044721095150a0d36de2d2bb7e632e2a9b": plugin type="multus" name="multus-cni-network" failed (add): Multus: [default/nginx-macvlan/19241d18-e0f9-4ae3-9db6-dba1cf7c256d]: error getting pod: Get "https://[10.96.0.1]:443/api/v1/namespaces/default/pods/nginx-macvlan?timeout=1m0s": dial tcp 10.96.0.1:443: i/o timeout"#,
        Some(Cni),
    ),
    (
        "https://github.com/k8snetworkplumbingwg/multus-cni/issues/702",
        "FailedCreatePodSandBox",
        r#"(combined from similar events): Failed to create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container "7ded3b27bd9688c4072fda78692f166bf0d356ccf8d914dc0bfbe3a58532946e" network for pod "samplepod": networkPlugin cni failed to set up pod "samplepod_default" network: netplugin failed with no error message"#,
        Some(Cni),
    ),
    // --- mount_configmap_missing ---
    (
        "https://github.com/MoJo2600/pihole-kubernetes/issues/300",
        "FailedMount",
        r#"MountVolume.SetUp failed for volume "custom-dnsmasq" : configmap "pihole-release-custom-dnsmasq" not found"#,
        Some(MountConfigmapMissing),
    ),
    // projected service-account volume
    (
        "https://github.com/MoJo2600/pihole-kubernetes/issues/300",
        "FailedMount",
        r#"MountVolume.SetUp failed for volume "kube-api-access-z7dbb" : configmap "kube-root-ca.crt" not found"#,
        Some(MountConfigmapMissing),
    ),
    // 2016 kubelet wording
    (
        "https://github.com/kubernetes/kubernetes/issues/25096",
        "FailedMount",
        r#"Unable to mount volumes for pod "nginx-ingress-controller-1626740531-88561_default(d125e230-1151-11e6-a2d1-0adbaa6061ff)": configmaps "nginx-template" not found"#,
        Some(MountConfigmapMissing),
    ),
    // --- mount_secret_missing ---
    (
        "https://github.com/jaconi-io/helm-charts/issues/50",
        "FailedMount",
        r#"MountVolume.SetUp failed for volume "certs" : secret "coturn" not found"#,
        Some(MountSecretMissing),
    ),
    (
        "https://github.com/matt-deboer/kuill/issues/83",
        "FailedMount",
        r#"MountVolume.SetUp failed for volume "auth-proxy-certs" : secrets "auth-proxy-certs" not found"#,
        Some(MountSecretMissing),
    ),
    // --- mount_timeout ---
    (
        "https://github.com/ctrox/csi-s3/issues/68",
        "FailedMount",
        "Unable to attach or mount volumes: unmounted volumes=[webroot], unattached volumes=[webroot kube-api-access-ctdgx]: timed out waiting for the condition",
        Some(MountTimeout),
    ),
    // volume names that read like "secret"/"config" must not decide it
    (
        "https://github.com/tmforum-oda/oda-canvas/issues/24",
        "FailedMount",
        "Unable to attach or mount volumes: unmounted volumes=[secret-volume], unattached volumes=[secret-volume kube-api-access-pfqc5]: timed out waiting for the condition",
        Some(MountTimeout),
    ),
    (
        "https://github.com/myysophia/OpsAgent/issues/22",
        "FailedMount",
        "Unable to attach or mount volumes: unmounted volumes=[kubeconfig-volume], unattached volumes=[kubeconfig-volume logs-volume kube-api-access-9k4zm config-volume]: timed out waiting for the condition",
        Some(MountTimeout),
    ),
    // older kubelet wording
    (
        "https://github.com/kubernetes/kubernetes/issues/64653",
        "FailedMount",
        r#"Unable to mount volumes for pod "prometheus-global-1_monitoring(c0b0b43e-c728-11e8-bc24-0a1601da344c)": timeout expired waiting for volumes to attach or mount for pod "monitoring"/"prometheus-global-1". list of unmounted volumes=[prometheus-global-data]. list of unattached volumes=[prometheus-global-data prometheus-token-tzmqj]"#,
        Some(MountTimeout),
    ),
    // the ConfigMap exists; the kubelet's cache did not sync in time
    (
        "https://github.com/ceph/ceph-csi/issues/1109",
        "FailedMount",
        r#"MountVolume.SetUp failed for volume "installer-info" : failed to sync configmap cache: timed out waiting for the condition"#,
        Some(MountTimeout),
    ),
    // --- mount_failed ---
    // NFS; "Connection timed out" is the NFS server's, the mount failed
    (
        "https://github.com/huggingface/dataset-viewer/issues/270",
        "FailedMount",
        "MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t nfs svm-0adb40782285e2ec6.fs-0220b222fb471f3b9.fsx.us-east-1.amazonaws.com:/fsx /var/lib/kubelet/pods/5088f644-f128-4b8c-b7e3-a9058904ac8e/volumes/kubernetes.io~nfs/nfs\nOutput: mount.nfs: Connection timed out",
        Some(MountFailed),
    ),
    (
        "https://github.com/alibaba/nacos/issues/5203",
        "FailedMount",
        r#"(combined from similar events): MountVolume.SetUp failed for volume "pvc-e4b3c5e9-ab2b-4b6f-aa9a-4ae74d19bef5" : mount failed: exit status 32 Mounting command: systemd-run Mounting arguments: --description=Kubernetes transient mount for /var/lib/kubelet/pods/aa323aa5-5ee9-47d3-b69f-72353b5bf74c/volumes/kubernetes.io~nfs/pvc-e4b3c5e9-ab2b-4b6f-aa9a-4ae74d19bef5 --scope -- mount -t nfs 192.168.137.121:/nfs/nfs-data/nacos-nacos-datadir-nacos-0-pvc-e4b3c5e9-ab2b-4b6f-aa9a-4ae74d19bef5 /var/lib/kubelet/pods/aa323aa5-5ee9-47d3-b69f-72353b5bf74c/volumes/kubernetes.io~nfs/pvc-e4b3c5e9-ab2b-4b6f-aa9a-4ae74d19bef5 Output: Running scope as unit run-124486.scope. mount.nfs: mounting 192.168.137.121:/nfs/nfs-data/nacos-nacos-datadir-nacos-0-pvc-e4b3c5e9-ab2b-4b6f-aa9a-4ae74d19bef5 failed, reason given by server: No such file or directory"#,
        Some(MountFailed),
    ),
    (
        "https://github.com/nacos-group/nacos-k8s/issues/30",
        "FailedMount",
        r#"MountVolume.SetUp failed for volume "nfs-client-root" : mount failed: exit status 32 Mounting command: systemd-run Mounting arguments: --description=Kubernetes transient mount for /var/lib/kubelet/pods/495f9f4f-695a-11e9-a037-52540036d517/volumes/kubernetes.io~nfs/nfs-client-root --scope -- mount -t nfs 172.17.79.3:/data/nfs-share /var/lib/kubelet/pods/495f9f4f-695a-11e9-a037-52540036d517/volumes/kubernetes.io~nfs/nfs-client-root Output: Running scope as unit run-10287.scope. mount: wrong fs type, bad option, bad superblock on 172.17.79.3:/data/nfs-share, missing codepage or helper program, or other error (for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program) In some cases useful info is found in syslog - try dmesg | tail or so."#,
        Some(MountFailed),
    ),
    // CSI
    (
        "https://github.com/NetApp/trident/issues/741",
        "FailedMount",
        r#"MountVolume.SetUp failed for volume "pvc-5fac2bac-b21f-4d7d-ab7a-d5a56381ac77" : rpc error: code = Internal desc = error mounting NFS volume <myip>:/my:storagePrefix_pvc_5fac2bac_b21f_4d7d_ab7a_d5a56381ac77 on mountpoint /var/lib/kubelet/pods/0cef26a5-8966-472e-b7c1-7cd4d568ff66/volumes/kubernetes.io~csi/pvc-5fac2bac-b21f-4d7d-ab7a-d5a56381ac77/mount: exit status 32"#,
        Some(MountFailed),
    ),
    (
        "https://github.com/ceph/ceph-csi/issues/1479",
        "FailedMount",
        r#"MountVolume.MountDevice failed for volume "pvc-27b9fd2a-a9e8-413f-9e7e-b3add6f7afcf" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name rbd.csi.ceph.com not found in the list of registered CSI drivers"#,
        Some(MountFailed),
    ),
    // in-tree AWS EBS
    (
        "https://github.com/kubernetes/kubernetes/issues/64653",
        "FailedMount",
        r#"MountVolume.WaitForAttach failed for volume "pvc-af51f553-bc4b-11e8-bc24-0a1601da344c" : WaitForAttach failed for AWS Volume "aws://sa-east-1c/vol-0e55e05bcb20b4926": devicePath is empty."#,
        Some(MountFailed),
    ),
    // --- attach_failed ---
    (
        "https://github.com/longhorn/longhorn/issues/1565",
        "FailedAttachVolume",
        r#"AttachVolume.Attach failed for volume "pvc-01c32834-8a89-46d3-a8b6-a60671e57a09" : rpc error: code = Internal desc = Bad response statusCode [500]. Status [500 Internal Server Error]. Body: [detail=, message=unable to attach volume pvc-01c32834-8a89-46d3-a8b6-a60671e57a09 to k8s-worker-node1: volume pvc-01c32834-8a89-46d3-a8b6-a60671e57a09 not scheduled, code=Server Error] from [http://longhorn-backend:9500/v1/volumes/pvc-01c32834-8a89-46d3-a8b6-a60671e57a09?action=attach]"#,
        Some(AttachFailed),
    ),
    (
        "https://github.com/hetznercloud/csi-driver/issues/41",
        "FailedAttachVolume",
        r#"AttachVolume.Attach failed for volume "pvc-7ff22820-9333-11e9-b435-96000019d538" : rpc error: code = Internal desc = failed to publish volume: volume is already attached to a server, please detach it first (service_error)"#,
        Some(AttachFailed),
    ),
    (
        "https://github.com/kubernetes-sigs/aws-ebs-csi-driver/issues/292",
        "FailedAttachVolume",
        r#"AttachVolume.Attach failed for volume "pvc-5dea601a-f076-40d5-8d0a-fe1ea4e04e74" : attachment timeout for volume vol-0ddf92e13636fa667"#,
        Some(AttachFailed),
    ),
    (
        "https://github.com/ctrox/csi-s3/issues/68",
        "FailedAttachVolume",
        r#"AttachVolume.Attach failed for volume "pvc-31957412-93b7-4f17-8ed7-0ae547c3e9b1" : Attach timeout for volume pvc-31957412-93b7-4f17-8ed7-0ae547c3e9b1"#,
        Some(AttachFailed),
    ),
    // --- multi_attach ---
    (
        "https://github.com/kubernetes/kubernetes/issues/96142",
        "FailedAttachVolume",
        r#"Multi-Attach error for volume "pvc-7a81d56f-1cf9-11eb-8295-b6961e0a47ed" Volume is already exclusively attached to one node and can't be attached to another"#,
        Some(MultiAttach),
    ),
    (
        "https://github.com/jaroslawhartman/withings-sync/issues/248",
        "FailedAttachVolume",
        r#"Multi-Attach error for volume "pvc-......" Volume is already used by pod(s) bootstrap-withings-sync"#,
        Some(MultiAttach),
    ),
    // --- not a ContainerCreating event ---
    (
        "https://github.com/kubernetes/minikube/issues/14907",
        "Failed",
        r#"Failed to pull image "nginx:alpine": rpc error: code = Unknown desc = error pulling image configuration: download failed after attempts=6: x509: certificate signed by unknown authority"#,
        None,
    ),
];
