//! Real messages of the container families, quoted from public issues, pull
//! requests and pages (the URL is next to each): the tables both the
//! classifier tests (`tests/pure/real_messages.rs`) and the pod-shape replays
//! (`tests/pure/pod_shapes.rs`) read. Quoting rules as in `tests/pure/real_messages.rs`.

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

pub mod image_pull {
    use super::*;
    use ImagePullCause::*;

    pub const ROWS: &[(&str, &str, Option<ImagePullCause>)] = &[
        // --- not_found ---
        // docker
        (
            "https://github.com/lachie83/k8s-kubectl/issues/157",
            r#"Failed to pull image "lachlanevenson/k8s-kubectl:v1.18.20": rpc error: code = Unknown desc = Error response from daemon: manifest for lachlanevenson/k8s-kubectl:v1.18.20 not found: manifest unknown: manifest unknown"#,
            Some(NotFound),
        ),
        // CRI-O (containers/image wording)
        (
            "https://github.com/raffaelespazzoli/credscontroller/issues/10",
            r#"Failed to pull image "registry.svc.ci.openshift.org/origin/4.3-2019-10-29-062458@sha256:8184092486c345c2b757f366f146218a115e5d7a92b481cb76257358653ec852": rpc error: code = Unknown desc = Error reading manifest sha256:8184092486c345c2b757f366f146218a115e5d7a92b481cb76257358653ec852 in registry.svc.ci.openshift.org/origin/4.3-2019-10-29-062458: manifest unknown: manifest unknown"#,
            Some(NotFound),
        ),
        // CRI-O, newer wording (kubelet log of an OKD node)
        (
            "https://github.com/okd-project/okd/issues/2194",
            r#"rpc error: code = Unknown desc = initializing source docker://quay.io/okd/scos-content@sha256:637140d5811ea5f3ebbf1f0185ef4e98085236684337f2aabc4fa6bbffe1b305: reading manifest sha256:637140d5811ea5f3ebbf1f0185ef4e98085236684337f2aabc4fa6bbffe1b305 in quay.io/okd/scos-content: manifest unknown"#,
            Some(NotFound),
        ),
        // containerd (its own log of the CRI PullImage call)
        (
            "https://github.com/kubernetes-sigs/provider-aws-test-infra/pull/281",
            r#"rpc error: code = NotFound desc = failed to pull and unpack image \"registry.k8s.io/kube-apiserver-amd64:v1.30.0-alpha.1.107_052bce26f4f48b\": failed to resolve reference \"registry.k8s.io/kube-apiserver-amd64:v1.30.0-alpha.1.107_052bce26f4f48b\": registry.k8s.io/kube-apiserver-amd64:v1.30.0-alpha.1.107_052bce26f4f48b: not found"#,
            Some(NotFound),
        ),
        // Decision: Docker Hub answers "pull access denied, repository does not
        // exist or may require ..." (docker) and "insufficient_scope:
        // authorization failed" (containerd) both for a repository that does
        // not exist and for a private one pulled without credentials; the
        // message cannot tell them apart, and a mistyped name is the common
        // case, so these are `not_found` (the cause's documentation says "or the
        // repository is private and says so"). Only when the registry says no
        // credentials were sent at all is it `unauthorized` (see below).
        (
            "https://github.com/kubernetes/website/issues/14257",
            r#"Failed to pull image "rmeuser-auth:latest": rpc error: code = Unknown desc = Error response from daemon: pull access denied for rmeuser-auth, repository does not exist or may require 'docker login'"#,
            Some(NotFound),
        ),
        (
            "https://github.com/kubernetes/minikube/issues/20613",
            r#"Failed to pull image "suedostcargo-web": Error response from daemon: pull access denied for suedostcargo-web, repository does not exist or may require 'docker login': denied: requested access to the resource is denied"#,
            Some(NotFound),
        ),
        // containerd, through crictl (the same error the kubelet receives)
        (
            "https://github.com/kubesphere/kubekey/issues/1165",
            r#"pulling image: rpc error: code = Unknown desc = failed to pull and unpack image "yhub.ssl.ysten.com/kube/pause:3.5": failed to resolve reference "yhub.ssl.ysten.com/kube/pause:3.5": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed"#,
            Some(NotFound),
        ),
        // --- unauthorized ---
        // containerd, registry answered 401 on the manifest
        (
            "https://github.com/kubernetes/kubernetes/issues/110675",
            r#"Failed to pull image "registry.app.xxx.net/XXXXX/partsgo42:GitActionsNew-2e7e78f7bb157128f1853b0dc06bf7ccd13156d7": rpc error: code = Unknown desc = failed to pull and unpack image "registry.app.xxx.net/spm2fog/partsgo42:GitActionsNew-2e7e78f7bb157128f1853b0dc06bf7ccd13156d7": failed to resolve reference "registry.app.xxx.net/spm2fog/partsgo42:GitActionsNew-2e7e78f7bb157128f1853b0dc06bf7ccd13156d7": pulling from host registry.app.xxx.net failed with status code [manifests GitActionsNew-2e7e78f7bb157128f1853b0dc06bf7ccd13156d7]: 401 Unauthorized"#,
            Some(Unauthorized),
        ),
        // containerd, the token endpoint answered 401 (no "Unauthorized" word)
        (
            "https://github.com/pegasystems/pega-helm-charts/issues/559",
            r#"Failed to pull image "wfcertifiedvirtual.wfcr.wellsfargo.net/prmilm-aksilmpoc:1.3.2-11": rpc error: code = Unknown desc = failed to pull and unpack image "wfcertifiedvirtual.wfcr.wellsfargo.net/prmilm-aksilmpoc:1.3.2-11": failed to resolve reference "wfcertifiedvirtual.wfcr.wellsfargo.net/prmilm-aksilmpoc:1.3.2-11": failed to authorize: failed to fetch anonymous token: unexpected status: 401"#,
            Some(Unauthorized),
        ),
        (
            "https://github.com/open-edge-platform/geti_v2/issues/1668",
            r#"Failed to pull image "ghcr.io/open-edge-platform/geti/notifier:2.13.1": failed to pull and unpack image "ghcr.io/open-edge-platform/geti/notifier:2.13.1": failed to resolve reference "ghcr.io/open-edge-platform/geti/notifier:2.13.1": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://ghcr.io/token?scope=repository%3Aopen-edge-platform%2Fgeti%2Fnotifier%3Apull&service=ghcr.io: 401 Unauthorized"#,
            Some(Unauthorized),
        ),
        (
            "https://github.com/nloui/paperless-mcp/issues/10",
            r#"Failed to pull image "ghcr.io/nloui/paperless-mcp:latest": failed to pull and unpack image "ghcr.io/nloui/paperless-mcp:latest": failed to resolve reference "ghcr.io/nloui/paperless-mcp:latest": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://ghcr.io/token?scope=repository%3Anloui%2Fpaperless-mcp%3Apull&service=ghcr.io: 403 Forbidden"#,
            Some(Unauthorized),
        ),
        // docker, ECR without credentials
        (
            "https://github.com/aws-samples/eks-workshop/issues/451",
            r#"Failed to pull image "XXXXXXXX.dkr.ecr.ap-XXXXXX.amazonaws.com/isam:9.0.7.0": rpc error: code = Unknown desc = Error response from daemon: Get https://XXXXXXX.dkr.ecr.ap-XXXXX.amazonaws.com/v2/ndi-spcp-isam/manifests/9.0.7.0: no basic auth credentials"#,
            Some(Unauthorized),
        ),
        (
            "https://github.com/docker/for-mac/issues/3381",
            r#"Failed to pull image "nexus3.abcde.org:10004/abcde-qwerty-fe:2.2.22": rpc error: code = Unknown desc = Error response from daemon: Get https://nexus3.abcde.org:10004/v2/abcde-qwerty-fe/manifests/2.2.22: no basic auth credentials"#,
            Some(Unauthorized),
        ),
        // containerd, ECR without credentials: "pull access denied ..." but the
        // registry says plainly that no credentials were sent (kubelet log of a
        // sandbox-image pull; the pull part is the same text).
        (
            "https://github.com/kubernetes/kops/issues/16762",
            r#"failed to pull and unpack image \"123456789101.dkr.ecr.ap-southeast-2.amazonaws.com/k8s-example/pause@sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097\": failed to resolve reference \"123456789101.dkr.ecr.ap-southeast-2.amazonaws.com/k8s-example/pause@sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097\": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials"#,
            Some(Unauthorized),
        ),
        // CRI-O via crictl. The repository (docker.io/crio/busybox) did not
        // exist; Docker Hub answered "denied"/"unauthorized" and nothing else,
        // so the message can only say unauthorized.
        (
            "https://github.com/cri-o/cri-o/issues/2331",
            "pulling image failed: rpc error: code = Unknown desc = Error reading manifest latest in docker.io/crio/busybox: errors:\ndenied: requested access to the resource is denied\nunauthorized: authentication required",
            Some(Unauthorized),
        ),
        // --- tls ---
        // docker
        (
            "https://github.com/kubernetes/kubernetes/issues/43924",
            r#"Failed to pull image "10.78.0.228:5000/monitorms": Error response from daemon: {"message":"Get https://10.78.0.228:5000/v1/_ping: x509: certificate signed by unknown authority"}"#,
            Some(Tls),
        ),
        (
            "https://github.com/kubernetes/minikube/issues/12944",
            r#"Failed to pull image "selenium/hub": rpc error: code = Unknown desc = Error response from daemon: Get "https://registry-1.docker.io/v2/": x509: certificate signed by unknown authority"#,
            Some(Tls),
        ),
        // TLS failure while fetching the image configuration
        (
            "https://github.com/kubernetes/minikube/issues/14907",
            r#"Failed to pull image "nginx:alpine": rpc error: code = Unknown desc = error pulling image configuration: download failed after attempts=6: x509: certificate signed by unknown authority"#,
            Some(Tls),
        ),
        // containerd
        (
            "https://github.com/cnoe-io/idpbuilder/issues/520",
            r#"Failed to pull image "registry.k8s.io/coredns/coredns:v1.11.1": failed to pull and unpack image "registry.k8s.io/coredns/coredns:v1.11.1": failed to resolve reference "registry.k8s.io/coredns/coredns:v1.11.1": failed to do request: Head "https://registry.k8s.io/v2/coredns/coredns/manifests/v1.11.1": tls: failed to verify certificate: x509: certificate signed by unknown authority"#,
            Some(Tls),
        ),
        // containerd-based docker (tls: failed to verify certificate)
        (
            "https://github.com/goharbor/harbor/issues/19496",
            r#"Error response from daemon: Get "https://reg.f-wi.com/v2/": tls: failed to verify certificate: x509: certificate signed by unknown authority"#,
            Some(Tls),
        ),
        // --- http_to_https ---
        // containerd
        (
            "https://github.com/enix/kube-image-keeper/issues/60",
            r#"Failed to pull image "localhost:7439/docker.io/xxxsoftware/xxx-redis:2023.1.2": rpc error: code = Unknown desc = failed to pull and unpack image "localhost:7439/docker.io/xxxsoftware/xxx-redis:2023.1.2": failed to resolve reference "localhost:7439/docker.io/xxxsoftware/xxx-redis:2023.1.2": failed to do request: Head "https://localhost:7439/v2/docker.io/xxxsoftware/xxx-redis/manifests/2023.1.2": http: server gave HTTP response to HTTPS client"#,
            Some(HttpToHttps),
        ),
        // CRI-O via crictl
        (
            "https://github.com/cri-o/cri-o/issues/5415",
            r#"pulling image failed: rpc error: code  = Unknown déc = error pinging local-repo:4000: Get "https://local-repo:4000/v2/": http: server gave HTTP response to HTTPS client"#,
            Some(HttpToHttps),
        ),
        // docker
        (
            "https://github.com/docker-archive-public/docker.community/issues/97",
            r#"Error response from daemon: Get https://my_domain:5000/v1/_ping: http: server gave HTTP response to HTTPS client"#,
            Some(HttpToHttps),
        ),
        // --- qps_exceeded --- (the ErrImagePull message is exactly this)
        (
            "https://github.com/zalando-incubator/kubernetes-on-aws/pull/8045",
            "pull QPS exceeded",
            Some(QpsExceeded),
        ),
        // --- rate_limited ---
        // docker
        (
            "https://github.com/ceph/ceph-csi/issues/2029",
            r#"Failed to pull image "docker.io/library/busybox:1.29": rpc error: code = Unknown desc = Error response from daemon: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit"#,
            Some(RateLimited),
        ),
        // containerd
        (
            "https://github.com/dell/csi-baremetal/issues/391",
            r#"Failed to pull image "centos": rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/centos:latest": failed to copy: httpReaderSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/centos/manifests/sha256:dbbacecc49b088458781c16f3775f2a2ec7521079034a7ba499c8b0bb7f86875: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit"#,
            Some(RateLimited),
        ),
        // CRI-O
        (
            "https://github.com/red-hat-storage/ocs-ci/issues/4494",
            r#"Failed to pull image "obsidiandynamics/kafdrop:latest": rpc error: code = Unknown desc = Error reading manifest latest in docker.io/obsidiandynamics/kafdrop: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit"#,
            Some(RateLimited),
        ),
        // old dockershim against GCR (HTML body of the 429 cut by the poster)
        (
            "https://github.com/kubernetes/kubernetes/issues/9534",
            r#"Failed to pull image "gcr.io/google_containers/kube-ui:v2" from pod "kube-ui-v2-ojp6m_kube-system" and container "kube-ui": Error: Status 429 trying to pull repository google_containers/kube-ui: "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>"#,
            Some(RateLimited),
        ),
        // --- corrupt ---
        // containerd, layer digest mismatch
        (
            "https://github.com/rancher/rancher/issues/31180",
            "Failed to pull image “rancher/kiwigrid-k8s-sidecar:0.1.151”: rpc error: code = FailedPrecondition desc = failed to pull and unpack image “docker.io/rancher/kiwigrid-k8s-sidecar:0.1.151”: failed commit on ref “layer-sha256:038cfaa9de84da577b2d98f03ae51c51dcc92fce84d08a9db1df08bc5917e845”: unexpected commit digest sha256:bd0c974236c81b7d06800183c4d9791575d17f9df5bd7144012fddfb95c17e72, expected sha256:038cfaa9de84da577b2d98f03ae51c51dcc92fce84d08a9db1df08bc5917e845: failed precondition",
            Some(Corrupt),
        ),
        // containerd, gRPC code NotFound and a trailing "not found" that must not
        // make it `not_found`
        (
            "https://codestudyblog.com/8ten84/80416123550.html",
            r#"Failed to pull image "ccr.ccs.tencentyun.com/tkeimages/tke-hpc-controller:v1.0.0": rpc error: code = NotFound desc = failed to pull and unpack image "ccr.ccs.tencentyun.com/tkeimages/tke-hpc-controller:v1.0.0": failed to unpack image on snapshotter overlayfs: failed to extract layer sha256:d72a74c56330b347f7d18b64d2effd93edd695fde25dc301d52c37efbcf4844e: failed to get reader from content store: content digest sha256:2bf487c4beaa6fa7ea6e46ec1ff50029024ebf59f628c065432a16a940792b58: not found"#,
            Some(Corrupt),
        ),
        // docker
        (
            "https://github.com/cloudfoundry/eirini-release/issues/18",
            r#"Failed to pull image "<value_of:kube/external_ips>:5800/cloudfoundry/app-name:<guid>": rpc error: code = Unknown desc = filesystem layer verification failed for digest sha256:<other_guid>"#,
            Some(Corrupt),
        ),
        // docker, ErrImagePull message of an old kubelet
        (
            "https://github.com/kubernetes/kubernetes/issues/41244",
            "filesystem layer verification failed for digest sha256:a3ed95caeb02ffe68cdd9fd84406680ae93d633cb16422d00e8a7c22955b46d4",
            Some(Corrupt),
        ),
        // docker CLI, the daemon's words
        (
            "https://github.com/dask/dask-docker/issues/117",
            "error pulling image configuration: unknown blob",
            Some(Corrupt),
        ),
        // --- timeout ---
        // docker
        (
            "https://github.com/kubernetes/minikube/issues/15626",
            r#"Failed to pull image "noyandocker/authservice": rpc error: code = Unknown desc = context deadline exceeded"#,
            Some(Timeout),
        ),
        // early CRI-O
        (
            "https://github.com/cri-o/cri-o/pull/189",
            r#"Failed to pull image "nginx": rpc error: code = 4 desc = context deadline exceeded"#,
            Some(Timeout),
        ),
        // docker, the registry's token endpoint did not answer
        (
            "https://github.com/alibaba/kt-connect/issues/174",
            r#"Failed to pull image "registry.cn-hangzhou.aliyuncs.com/rdc-incubator/kt-connect-shadow:0.0.13-rc11": rpc error: code = Unknown desc = Error response from daemon: Get https://registry.cn-hangzhou.aliyuncs.com/v2/rdc-incubator/kt-connect-shadow/manifests/0.0.13-rc11: Get https://dockerauth.cn-hangzhou.aliyuncs.com/auth?scope=repository%3Ardc-incubator%2Fkt-connect-shadow%3Apull&service=registry.aliyuncs.com%3Acn-hangzhou%3A26842: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)"#,
            Some(Timeout),
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/56493",
            r#"Failed to pull image "testgitlab.lendingkart.com:5005/mihir-lkart/actuator-sample": rpc error: code = Unknown desc = Error response from daemon: Get https://testgitlab.lendingkart.com:5005/v1/_ping: dial tcp 172.31.17.179:5005: i/o timeout"#,
            Some(Timeout),
        ),
        (
            "https://github.com/kubernetes/kubernetes/issues/107340",
            r#"Failed to pull image "busybox": rpc error: code = Unknown desc = Error response from daemon: Get https://registry-1.docker.io/v2/: net/http: TLS handshake timeout"#,
            Some(Timeout),
        ),
        // docker API error of a 2015 kubelet, several lines
        (
            "https://github.com/UKHomeOffice/kb8or/issues/48",
            "Failed to pull image \"10.101.100.100:30000/nfidd_mysql_management:0.1.0.3-999\": API error (500): invalid registry endpoint \"http://10.101.100.100:30000/v0/\". HTTPS attempt: unable to ping registry endpoint https://10.101.100.100:30000/v0/\nv2 ping attempt failed with error: Get https://10.101.100.100:30000/v2/: dial tcp 10.101.100.100:30000: i/o timeout\n v1 ping attempt failed with error: Get https://10.101.100.100:30000/v1/_ping: dial tcp 10.101.100.100:30000: i/o timeout. HTTP attempt: unable to ping registry endpoint http://10.101.100.100:30000/v0/\nv2 ping attempt failed with error: Get http://10.101.100.100:30000/v2/: dial tcp 10.101.100.100:30000: i/o timeout\n v1 ping attempt failed with error: Get http://10.101.100.100:30000/v1/_ping: dial tcp 10.101.100.100:30000: i/o timeout",
            Some(Timeout),
        ),
        // docker wraps a failed download of the image configuration; the
        // wrapper says nothing about the image being damaged
        (
            "https://github.com/infiniflow/ragflow/issues/1549",
            "error pulling image configuration: download failed after attempts=6: net/http: TLS handshake timeout",
            Some(Timeout),
        ),
        (
            "https://github.com/docker-archive-public/docker.kitematic/issues/5530",
            "error pulling image configuration: Get https://registry-1.docker.io/v2/library/redis/blobs/sha256:9b188f5fb1e6e1c7b10045585cb386892b2b4e1d31d62e3688c6fa8bf9fd32b5: net/http: TLS handshake timeout",
            Some(Timeout),
        ),
        // containerd (kubeadm's crictl pull): "failed to resolve reference" wraps
        // every containerd failure and must not decide the cause
        (
            "https://github.com/kubernetes/kubeadm/issues/2936",
            r#"rpc error: code = Unknown desc = failed to pull and unpack image \"registry.k8s.io/kube-proxy:v1.28.2\": failed to resolve reference \"registry.k8s.io/kube-proxy:v1.28.2\": failed to do request: Head \"https://registry.k8s.io/v2/kube-proxy/manifests/v1.28.2\": dial tcp 34.96.108.209:443: connect: connection timed out"#,
            Some(Timeout),
        ),
        // containerd (ctr), a timeout while fetching the anonymous token is a
        // timeout, not an authorization failure
        (
            "https://github.com/ketches/registry-proxy/issues/3",
            r#"ctr: failed to resolve reference "docker.ketches.cn/library/nginx:latest": failed to authorize: failed to fetch anonymous token: Get "https://auth.docker.io/token?scope=repository%3Alibrary%2Fnginx%3Apull&service=registry.docker.io": dial tcp 199.59.148.222:443: i/o timeout"#,
            Some(Timeout),
        ),
        // CRI-O via crictl
        (
            "https://github.com/cri-o/cri-o/issues/2723",
            "pulling image failed: rpc error: code = Unknown desc = pinging docker registry returned: Get http://registry-1.docker.io/v2/: dial tcp 34.199.40.84:80: i/o timeout",
            Some(Timeout),
        ),
        // A pull cancelled, by the kubelet's image-pull-progress-deadline or the
        // runtime's own, is a timeout: nothing arrived in time.
        (
            "https://github.com/kubernetes/test-infra/issues/15102",
            r#"Failed to pull image "gcr.io/istio-testing/prowbazel:0.5.14": rpc error: code = Unknown desc = context canceled"#,
            Some(Timeout),
        ),
        // --- dns ---
        // docker
        (
            "https://github.com/hjacobs/kube-ops-view/issues/176",
            r#"Failed to pull image "hjacobs/kube-ops-view:0.8.1": rpc error: code = Unknown desc = Error response from daemon: Get https://registry-1.docker.io/v2/: dial tcp: lookup registry-1.docker.io on 127.0.0.53:53: server misbehaving"#,
            Some(Dns),
        ),
        // docker, 2016 wording that also says "no credentials"
        (
            "https://github.com/kubernetes/kubernetes/issues/6888",
            "Failed to pull image \"gcr.io/google_containers/spark:1.5.2_v1\": image pull failed for gcr.io/google_containers/spark:1.5.2_v1, this may be because there are no credentials on this request.  details: (API error (500): unable to ping registry endpoint https://gcr.io/v0/\nv2 ping attempt failed with error: Get https://gcr.io/v2/: dial tcp: lookup gcr.io: Temporary failure in name resolution\n v1 ping attempt failed with error: Get https://gcr.io/v1/_ping: dial tcp: lookup gcr.io: Temporary failure in name resolution\n)",
            Some(Dns),
        ),
        // The DNS server does not answer: the lookup timed out. The host name
        // does not resolve, so `dns` rather than `timeout`.
        (
            "https://github.com/kubernetes/minikube/issues/15626",
            r#"Failed to pull image "noyandocker/productservice": rpc error: code = Unknown desc = Error response from daemon: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io on 192.168.65.2:53: read udp 192.168.49.2:59506->192.168.65.2:53: i/o timeout"#,
            Some(Dns),
        ),
        (
            "https://github.com/kubernetes/minikube/issues/9580",
            "rpc error: code = Unknown desc = Error response from daemon: Get https://k8s.gcr.io/v2/: dial tcp: lookup k8s.gcr.io on 192.168.49.1:53: read udp 192.168.49.2:48049->192.168.49.1:53: i/o timeout",
            Some(Dns),
        ),
        // CRI-O via crictl
        (
            "https://github.com/cri-o/cri-o/issues/2331",
            r#"pulling image failed: rpc error: code = Unknown desc = error pinging docker registry registry-1.docker.io: Get "https://registry-1.docker.io/v2/": proxyconnect tcp: dial tcp: lookup http: Temporary failure in name resolution"#,
            Some(Dns),
        ),
        // containerd, sandbox image (kubelet log)
        (
            "https://github.com/kubernetes/kubernetes/issues/90326",
            r#"rpc error: code = Unknown desc = failed to get sandbox image "k8s.gcr.io/pause:3.1": failed to pull image "k8s.gcr.io/pause:3.1": failed to pull and unpack image "k8s.gcr.io/pause:3.1": failed to resolve reference "k8s.gcr.io/pause:3.1": failed to do request: Head "https://k8s.gcr.io/v2/pause/manifests/3.1": dial tcp: lookup k8s.gcr.io on [::1]:53: dial udp [::1]:53: connect: cannot assign requested address"#,
            Some(Dns),
        ),
        // --- connection_refused ---
        // docker
        (
            "https://github.com/kubernetes/kubernetes/issues/90858",
            r#"Failed to pull image "localhost:5000/my-ubuntu": rpc error: code = Unknown desc = Error response from daemon: Get http://localhost:5000/v2/: dial tcp [::1]:5000: connect: connection refused"#,
            Some(ConnectionRefused),
        ),
        // containerd
        (
            "https://github.com/tilt-dev/tilt/issues/5431",
            r#"Failed to pull image "localhost:5000/brokerage-api:tilt-b655dbb021099edd": rpc error: code = Unknown desc = failed to pull and unpack image "localhost:5000/brokerage-api:tilt-b655dbb021099edd": failed to resolve reference "localhost:5000/brokerage-api:tilt-b655dbb021099edd": failed to do request: Head "http://localhost:5000/v2/brokerage-api/manifests/tilt-b655dbb021099edd": dial tcp 127.0.0.1:5000: connect: connection refused"#,
            Some(ConnectionRefused),
        ),
        // CRI-O
        (
            "https://github.com/kubernetes/minikube/issues/10171",
            r#"Failed to pull image "registry.minikube/rhdevelopers/tekton-tutorial-greeter": rpc error: code = Unknown desc = error pinging docker registry registry.minikube: Get https://registry.minikube/v2/: dial tcp 10.101.166.84:443: connect: connection refused"#,
            Some(ConnectionRefused),
        ),
        (
            "https://github.com/nforgeio/neonKUBE/issues/1747",
            r#"rpc error: code = Unknown desc = pinging container registry registry.neon.local: Get \"http://registry.neon.local/v2/\": dial tcp 100.64.0.254:80: connect: connection refused"#,
            Some(ConnectionRefused),
        ),
        // joined: the poster put each part on its own line
        (
            "https://github.com/FREEZONEX/Tier0-Edge/issues/12",
            "error pulling image configuration: download failed after attempts=6: read tcp 192.168.1.100:43216->118.178.60.161:443: read: connection reset by peer",
            Some(ConnectionRefused),
        ),
        // --- no_space ---
        // docker
        (
            "https://github.com/tableau/tableau-server-in-kubernetes/issues/14",
            r#"Failed to pull image "CENSORED": rpc error: code = Unknown desc = failed to register layer: Error processing tar file(exit status 1): write /tableau-server-CENSORED.rpm: no space left on device"#,
            Some(NoSpace),
        ),
        // docker, ErrImagePull message of an old kubelet
        (
            "https://github.com/kubernetes/kubernetes/issues/32542",
            "failed to register layer: Untar re-exec error: exit status 1: output: open /srv/node_modules/grpc/third_party/boringssl/fuzz/client_corpus/4c8d920b2b9c2c43b50561b90e9c6a03689e7171: no space left on device",
            Some(NoSpace),
        ),
        // containerd (k3s containerd log)
        (
            "https://github.com/rancher/k3os/issues/55",
            "failed to extract layer sha256:5dacd731af1b0386ead06c8b1feff9f65d9e0bdfec032d2cd0bc03690698feda: mount callback failed on /var/lib/rancher/k3s/agent/containerd/tmpmounts/containerd-mount252943319: write /var/lib/rancher/k3s/agent/containerd/tmpmounts/containerd-mount252943319/lib/x86_64-linux-gnu/libc-2.24.so: no space left on device: unknown",
            Some(NoSpace),
        ),
        // --- platform_mismatch ---
        // docker
        (
            "https://github.com/kube-rbac-proxy/kube-rbac-proxy/issues/79",
            r#"Failed to pull image "quay.io/brancz/kube-rbac-proxy:v0.10.0": rpc error: code = Unknown desc = no matching manifest for linux/arm64/v8 in the manifest list entries"#,
            Some(PlatformMismatch),
        ),
        (
            "https://github.com/cilium/image-tools/issues/61",
            r#"Failed to pull image "docker.io/cilium/startup-script:af2a99046eca96c0138551393b21a5c044c7fe79": rpc error: code = Unknown desc = no matching manifest for linux/arm/v7 in the manifest list entries"#,
            Some(PlatformMismatch),
        ),
        // containerd: gRPC NotFound and "not found" at the end
        (
            "https://github.com/kubewarden/adm-controller/issues/1378",
            r#"Failed to pull image "ghcr.io/kubewarden/kubewarden-controller:latest": rpc error: code = NotFound desc = failed to pull and unpack image "ghcr.io/kubewarden/kubewarden-controller:latest": no match for platform in manifest: not found"#,
            Some(PlatformMismatch),
        ),
        (
            "https://github.com/k3s-io/k3s/issues/5445",
            r#"Failed to pull image "quay.io/cilium/operator-generic:v1.11.3@sha256:5b81db7a32cb7e2d00bb3cf332277ec2b3be239d9e94a8d979915f4e6648c787": rpc error: code = NotFound desc = failed to pull and unpack image "quay.io/cilium/operator-generic@sha256:5b81db7a32cb7e2d00bb3cf332277ec2b3be239d9e94a8d979915f4e6648c787": no match for platform in manifest: not found"#,
            Some(PlatformMismatch),
        ),
        // docker with the containerd image store
        (
            "https://github.com/link-assistant/hive-mind/issues/962",
            "Error response from daemon: no matching manifest for linux/arm64/v8 in the manifest list entries: no match for platform in manifest: not found",
            Some(PlatformMismatch),
        ),
    ];
}

pub mod creating {
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
}

pub mod config {
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
}

pub mod image_pull_wordings {
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
}

pub mod config_wordings {
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
}

pub mod terminations {
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
}
