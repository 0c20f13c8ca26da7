//! More wordings of image pull failures across runtimes, versions and registries
//! (issue 18), with the cause each must get.

use super::*;
use ImagePullCause::*;

pub const ROWS: &[(&str, &str, Option<ImagePullCause>)] = &[
    // --- timeout: pulls the runtime or the kubelet cancelled ---
    // containerd's own log when its progress deadline
    // (image_pull_progress_timeout) cancels the pull, then the CRI error
    // (the containerd log's error= field, its quotes unescaped once)
    (
        "https://github.com/kubernetes/kubernetes/issues/131521",
        "cancel pulling image private_registery.mydomain/csg/idrac_to_kafka:20250429T0012 because of no progress in 1m0s",
        Some(Timeout),
    ),
    (
        "https://github.com/kubernetes/kubernetes/issues/131521",
        r#"rpc error: code = Canceled desc = failed to pull and unpack image "private_registery.mydomain/csg/idrac_to_kafka:20250429T0012": context canceled"#,
        Some(Timeout),
    ),
    // containerd, the kubelet's event
    (
        "https://github.com/spegel-org/spegel/issues/413",
        r#"Failed to pull image "xxx:1.0": rpc error: code = Canceled desc = failed to pull and unpack image "artifact.swf.i.mercedes-benz.com/adasdai-docker/drivesim-ov/nvidia_drivesim:dtp-v1.1.0": context canceled"#,
        Some(Timeout),
    ),
    (
        "https://github.com/LevelUpEducation/kubernetes-demo/issues/3",
        r#"Failed to pull image "tomcat:9.0": rpc error: code = Canceled desc = context canceled"#,
        Some(Timeout),
    ),
    // docker (dockershim): the kubelet's image-pull-progress-deadline
    (
        "https://github.com/amazon-archives/k8s-cloudwatch-adapter/issues/34",
        r#"Failed to pull image "chankh/k8s-cloudwatch-adapter:v0.8.0": rpc error: code = Unknown desc = context canceled"#,
        Some(Timeout),
    ),
    // gRPC code 2 (Unknown) of an old kubelet, docker's request cancelled
    (
        "https://github.com/kubernetes/kubernetes/issues/58526",
        r#"Failed to pull image "xyz:5500/my/kibana-openshift:5.6.3": rpc error: code = 2 desc = net/http: request canceled"#,
        Some(Timeout),
    ),
    // the 2016 kubelet's ErrImagePull message (in its FailedSync event)
    (
        "https://github.com/kubernetes/kubernetes/issues/25408",
        "net/http: request canceled",
        Some(Timeout),
    ),
    // CRI-O via crictl
    (
        "https://github.com/cri-o/cri-o/issues/8760",
        "pulling image: rpc error: code = Canceled desc = copying system image from manifest list: copying config: context canceled",
        Some(Timeout),
    ),
    // containerd, TLS handshake timeout while resolving: a timeout, not TLS
    (
        "https://github.com/inclavare-containers/inclavare-containers/issues/1293",
        r#"running container: creating container failed: rpc error: code = Unknown desc = failed to pull and unpack image \"docker.io/inclavarecontainers/occlum-hello-world:scratch\": failed to resolve reference \"docker.io/inclavarecontainers/occlum-hello-world:scratch\": failed to do request: Head \"https://registry-1.docker.io/v2/inclavarecontainers/occlum-hello-world/manifests/scratch\": net/http: TLS handshake timeout"#,
        Some(Timeout),
    ),
    // --- platform_mismatch ---
    // CRI-O (containers/image) wordings, old and new
    (
        "https://github.com/cri-o/cri-o/issues/3626",
        "pulling image failed: rpc error: code = Unknown desc = Error choosing image instance: no image found in manifest list for architecture arm, variant v8, OS linux",
        Some(PlatformMismatch),
    ),
    (
        "https://github.com/cri-o/cri-o/issues/6457",
        r#"rpc error: code = Unknown desc = choosing image instance: no image found in manifest list for architecture amd64, variant "", OS linux"#,
        Some(PlatformMismatch),
    ),
    // docker, without the containerd image store
    (
        "https://github.com/moby/moby/issues/39600",
        "no matching manifest for linux/amd64 in the manifest list entries",
        Some(PlatformMismatch),
    ),
    (
        "https://github.com/docker-library/official-images/issues/3835",
        "no supported platform found in manifest list",
        Some(PlatformMismatch),
    ),
    // --- corrupt: content-store commits and digests ---
    (
        "https://github.com/containerd/containerd/issues/1893",
        r#"pulling image failed: rpc error: code = Unknown desc = failed to pull and unpack image "xxxxxx": failed commit on ref "layer-sha256:55ae122ef77dfe5b336bcf9d55af5e3ddc515c91e4f5efe51509cb13f983da3b": unexpected commit digest sha256:a8f2c3f33adf8b40a3f21558f2a7e48fa1fefa482729e4e9f8db1dbb5f654e9a, expected sha256:55ae122ef77dfe5b336bcf9d55af5e3ddc515c91e4f5efe51509cb13f983da3b: failed precondition"#,
        Some(Corrupt),
    ),
    // nerdctl (containerd)
    (
        "https://github.com/DaoCloud/public-image-mirror/issues/1441",
        r#"failed commit on ref "layer-sha256:b4e744f5f131fb2db0dd7649806f286ecaa3fcda18dc9a4245d83e902100ccb3": commit failed: unexpected commit digest sha256:5dc2908c530dc73acc888ac402047c4978155775ac28fe041cbcac81080cab26, expected sha256:b4e744f5f131fb2db0dd7649806f286ecaa3fcda18dc9a4245d83e902100ccb3: failed precondition"#,
        Some(Corrupt),
    ),
    (
        "https://github.com/containerd/containerd/issues/3974",
        r#"pulling image: rpc error: code = FailedPrecondition desc = failed to pull and unpack image "registry.internal.net/i3-mirror/docker.elastic.co_elasticsearch_elasticsearch-oss:7.3.0": failed commit on ref "layer-sha256:f2fdc4b5a1b48806c1c19ee8afded1708894d461dd4348dfb41836a637a2fb00": "layer-sha256:f2fdc4b5a1b48806c1c19ee8afded1708894d461dd4348dfb41836a637a2fb00" failed size validation: 131237591 != 214923389: failed precondition"#,
        Some(Corrupt),
    ),
    // joined: the poster wrapped the event over lines
    (
        "https://github.com/Trow-Registry/trow/issues/210",
        r#"Failed to pull image "registry.quantumops.rocks/ae-dir/config-initializer:v0.0.1": rpc error: code = FailedPrecondition desc = failed to pull and unpack image "registry.quantumops.rocks/ae-dir/config-initializer:v0.0.1": failed commit on ref "config-sha256:7e439e0045de9f59242e7ee961518169c2209556ce7245d74329926930be3a9a": unexpected commit digest sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855, expected sha256:7e439e0045de9f59242e7ee961518169c2209556ce7245d74329926930be3a9a: failed precondition"#,
        Some(Corrupt),
    ),
    // "content digest ...: not found" is the content store, not the registry
    (
        "https://github.com/containerd/containerd/issues/3604",
        r#"Failed to pull image "prom/mysqld-exporter:v0.12.1": rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/prom/mysqld-exporter:v0.12.1": failed to unpack image on snapshotter overlayfs: content digest sha256:0c18b88b8db3c193eefeede31a80d5d0c850306076b7166910ed239685dd20b0: not found"#,
        Some(Corrupt),
    ),
    // docker with the containerd image store
    (
        "https://github.com/moby/moby/issues/52411",
        r#"failed to unpack image on snapshotter overlayfs: apply layer error for "docker.io/library/haskell:7": failed to extract layer sha256:4dcab49015d47e8f300ec33400a02cebc7b54cadd09c37e49eccbc655279da90: NotFound: failed to get reader from content store: content digest sha256:51f5c6a04d83efd2d45c5fd59537218924bc46705e3de6ffc8bc07b51481610b: not found"#,
        Some(Corrupt),
    ),
    // a blob cut short by a caching registry
    (
        "https://github.com/mcronce/oci-registry/issues/13",
        r#"Failed to pull image "goharbor/redis-photon:v2.8.3": rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/goharbor/redis-photon:v2.8.3": failed to read expected number of bytes: unexpected EOF"#,
        Some(Corrupt),
    ),
    // CRI-O
    (
        "https://github.com/mcronce/oci-registry/issues/19",
        r#"Failed to pull image "docker.io/foo/bar@sha256:f05918ce7a92b84415e1abaa1c6ba0d7212b05adca41360673873bc85be88b91": rpc error: code = Unknown desc = writing blob: storing blob to file "/var/tmp/storage2866776745/3": happened during read: unexpected EOF"#,
        Some(Corrupt),
    ),
    // --- tls: while resolving the reference ---
    (
        "https://github.com/STRRL/cloudflare-tunnel-ingress-controller/issues/202",
        r#"Failed to pull image "cr.strrl.dev/strrl/cloudflare-tunnel-ingress-controller:0.0.18": failed to pull and unpack image "cr.strrl.dev/strrl/cloudflare-tunnel-ingress-controller:0.0.18": failed to resolve reference "cr.strrl.dev/strrl/cloudflare-tunnel-ingress-controller:0.0.18": failed to do request: Head "https://cr.strrl.dev/v2/strrl/cloudflare-tunnel-ingress-controller/manifests/0.0.18": tls: failed to verify certificate: x509: certificate is valid for 3c2fcaccec4b1289b9a0450b1432f3ab.86a03424cf5abd4235921bc09e1244f2.traefik.default, not cr.strrl.dev"#,
        Some(Tls),
    ),
    (
        "https://github.com/k3s-io/k3s/issues/2149",
        r#"Failed to pull image "my-registry.in.net:443/my_image": rpc error: code = Unknown desc = failed to pull and unpack image "my-registry.in.net:443/my_image:latest": failed to resolve reference "my-registry.in.net:443/my_image:latest": failed to do request: Head "https://my-registry.in.net/v2/my_image/manifests/latest": x509: certificate relies on legacy Common Name field, use SANs or temporarily enable Common Name matching with GODEBUG=x509ignoreCN=0"#,
        Some(Tls),
    ),
    (
        "https://github.com/k3s-io/k3s/issues/987",
        r#"pulling image failed: rpc error: code = Unknown desc = failed to pull and unpack image "docker.xxx.cn:5000/maxfaith/miop_ui:development": failed to resolve reference "docker.xxx.cn:5000/maxfaith/miop_ui:development": failed to do request: Head https://docker.xxx.cn:5000/v2/maxfaith/miop_ui/manifests/development: x509: certificate has expired or is not yet valid"#,
        Some(Tls),
    ),
    // docker with the containerd image store
    (
        "https://github.com/konstpic/SharX/issues/108",
        r#"Error response from daemon: failed to resolve reference "registry.konstpic.ru/sharx/postgres:16-alpine": failed to do request: Head "https://registry.konstpic.ru/v2/sharx/postgres/manifests/16-alpine": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-08-13T05:50:29Z is after 2026-08-13T04:59:29Z"#,
        Some(Tls),
    ),
    // the handshake itself refused: TLS, not a network failure
    (
        "https://github.com/docker/for-linux/issues/894",
        "Error response from daemon: Get https://registry-1.docker.io/v2/: remote error: tls: handshake failure",
        Some(Tls),
    ),
    (
        "https://github.com/kubernetes/registry.k8s.io/issues/154",
        "error pulling image configuration: download failed after attempts=6: remote error: tls: handshake failure",
        Some(Tls),
    ),
    (
        "https://github.com/docker/for-mac/issues/5863",
        "Error response from daemon: Get https://registry.tools.XXXX.XXX/v2/: tls: first record does not look like a TLS handshake",
        Some(Tls),
    ),
    // --- unauthorized ---
    // CRI-O against quay.io (which answers so for a private repository)
    (
        "https://github.com/stolostron/deploy/issues/2",
        r#"Failed to pull image "quay.io/open-cluster-management/multicloudhub-operator-bundle@sha256:ba919b34aa7c7c7135f4474791defb6240ff1af2491b876c25ba960af81c5267": rpc error: code = Unknown desc = Error reading manifest sha256:ba919b34aa7c7c7135f4474791defb6240ff1af2491b876c25ba960af81c5267 in quay.io/open-cluster-management/multicloudhub-operator-bundle: unauthorized: access to the requested resource is not authorized"#,
        Some(Unauthorized),
    ),
    (
        "https://github.com/wazuh/wazuh-kubernetes/issues/237",
        r#"Failed to pull image "wazuh/wazuh-kibana-odfe:4.2.6": rpc error: code = Unknown desc = reading manifest 4.2.6 in quay.io/wazuh/wazuh-kibana-odfe: unauthorized: access to the requested resource is not authorized"#,
        Some(Unauthorized),
    ),
    (
        "https://github.com/thoth-station/thoth-application/issues/2053",
        r#"Failed to pull image "solver-rhel-8-py38": rpc error: code = Unknown desc = Error reading manifest latest in docker.io/library/solver-rhel-8-py38: errors: denied: requested access to the resource is denied unauthorized: authentication required"#,
        Some(Unauthorized),
    ),
    // containerd, the token endpoint refused the credentials
    (
        "https://github.com/gitpod-io/gitpod/issues/14837",
        r#""proxy.replicated.com/proxy/gitpod/busybox:1": failed to resolve reference "proxy.replicated.com/proxy/gitpod/busybox:1": failed to authorize: failed to fetch oauth token: unexpected status: 401 Unauthorized"#,
        Some(Unauthorized),
    ),
    (
        "https://github.com/juju/juju/issues/22050",
        "ctr: rpc error: code = Unknown desc = failed to resolve image: failed to authorize: failed to fetch oauth token: unexpected status from GET request to https://api.charmhub.io/v1/tokens/docker-registry?scope=repository%3Acharm%2Fb370bfzj7fqgsh1qaywdz04w5n6z835nu8kzg%2Fdashboard-image%3Apull&service=https%3A%2F%2Fregistry.jujucharms.com%2F: 401 UNAUTHORIZED",
        Some(Unauthorized),
    ),
    // --- dns ---
    // CRI-O, "pinging container registry" of newer containers/image
    (
        "https://github.com/wazuh/wazuh-kubernetes/issues/237",
        r#"Failed to pull image "wazuh/wazuh-kibana-odfe:4.2.6": rpc error: code = Unknown desc = pinging container registry quay.io: Get "https://quay.io/v2/": dial tcp: lookup quay.io: Temporary failure in name resolution"#,
        Some(Dns),
    ),
    // the lookup failed for a reason of the node's own: still the name
    (
        "https://github.com/cri-o/cri-o/issues/3612",
        r#"pulling image failed: rpc error: code = Unknown desc = error pinging docker registry k8s.gcr.io: Get "https://k8s.gcr.io/v2/": dial tcp: lookup k8s.gcr.io: device or resource busy"#,
        Some(Dns),
    ),
    // docker (Docker Desktop's DNS)
    (
        "https://github.com/docker/for-win/issues/6241",
        "Error response from daemon: Get https://registry-1.docker.io/v2/: dial tcp: lookup registry-1.docker.io on 192.168.65.1:53: no such host",
        Some(Dns),
    ),
    (
        "https://github.com/docker-archive-public/docker.kitematic/issues/4347",
        "Error response from daemon: Get https://registry-1.docker.io/v2/: dial tcp: lookup registry-1.docker.io on 10.0.2.3:53: read udp 10.0.2.15:54567->10.0.2.3:53: i/o timeout",
        Some(Dns),
    ),
    // containerd (k3s): musl's EAGAIN from the resolver
    (
        "https://github.com/containerd/containerd/issues/10709",
        r#"failed to resolve reference "ghcr.io/open-webui/open-webui:main": failed to do request: Head "https://ghcr.io/v2/open-webui/open-webui/manifests/main": dial tcp: lookup ghcr.io: Try again"#,
        Some(Dns),
    ),
    // nerdctl (containerd)
    (
        "https://github.com/containerd/nerdctl/issues/352",
        r#"failed to resolve reference "registry.private.com/hello-world:release-2df9312d": failed to do request: Head "https://registry.private.com/hello-world:release-2df9312d": dial tcp: lookup registry.trendyol.com on 10.0.0.5:53: no such host"#,
        Some(Dns),
    ),
    // --- no_space ---
    // CRI-O: its temporary directory is full (joined: the poster's
    // terminal wrapped the line)
    (
        "https://github.com/cri-o/cri-o/issues/5187",
        r#"pulling image: rpc error: code = Unknown desc = Error writing blob: error storing blob to file "/var/tmp/storage178245615/2": write /var/tmp/storage178245615/2: no space left on device"#,
        Some(NoSpace),
    ),
    // podman (containers/image and storage, as CRI-O)
    (
        "https://github.com/podman-container-tools/podman/issues/19377",
        r#"Error: writing blob: adding layer with blob "sha256:[hash]": processing tar file(write /usr/local/lib/python3.8/site-packages/azure/mgmt/web/v2018_02_01/models/__pycache__/_models_py3.cpython-38.pyc: no space left on device): exit status 1"#,
        Some(NoSpace),
    ),
    // docker
    (
        "https://github.com/docker-archive-public/docker.kitematic/issues/1855",
        "write /mnt/sda1/var/lib/docker/tmp/GetImageBlob365327721: no space left on device",
        Some(NoSpace),
    ),
    // --- not_found and the registry's other answers ---
    // containerd against Harbor
    (
        "https://github.com/vmware-tanzu-labs/reference-platform-for-kubernetes/issues/19",
        r#"Failed to pull image "projects.registry.vmware.com/rpk/notary-server-photon:v2.0.2": rpc error: code = NotFound desc = failed to pull and unpack image "projects.registry.vmware.com/rpk/notary-server-photon:v2.0.2": failed to resolve reference "projects.registry.vmware.com/rpk/notary-server-photon:v2.0.2": projects.registry.vmware.com/rpk/notary-server-photon:v2.0.2: not found"#,
        Some(NotFound),
    ),
    // docker's v1 registry protocol (2016)
    (
        "https://github.com/goharbor/harbor/issues/848",
        "Tag 0.4.0 not found in repository docker.io/vmware/harbor-ui",
        Some(NotFound),
    ),
    (
        "https://github.com/bitnami/containers/issues/77527",
        "docker: Error response from daemon: pull access denied for bitnami/harbor, repository does not exist or may require 'docker login': denied: requested access to the resource is denied.",
        Some(NotFound),
    ),
    // docker with the containerd image store: a private ghcr.io package
    (
        "https://github.com/LeoMartinDev/voy/issues/3",
        r#"Error response from daemon: unknown: failed to resolve reference "ghcr.io/leomartindev/voy:latest": unexpected status from HEAD request to https://ghcr.io/v2/leomartindev/voy/manifests/latest: 403 Forbidden"#,
        Some(Unauthorized),
    ),
];
