//! Real image pull messages (the kubelet's `Failed to pull image` event or the
//! ErrImagePull waiting message) with the cause each must get.

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
