//! The refusal classifier against messages people actually posted: a
//! controller's `FailedCreate` event, a ReplicaSet's `ReplicaFailure`
//! condition, or the same API server error as kubectl printed it.
//!
//! Quoting rules as in `tests/pure/real_messages/mod.rs`: every message is quoted from
//! the public issue, pull request or page next to it; where it was cut, it is
//! cut where its poster cut it; markdown markup around it is dropped, a message
//! a terminal or YAML folded over lines is joined back with one space (said
//! next to it), and newlines in the message itself are written as `\n`.

use kube_lifecycle_exporter::diagnosis::RefusalCause;
use kube_lifecycle_exporter::diagnosis::classify::refusal;

use RefusalCause::*;

/// Every row that disagrees, at once.
fn check(rows: &[(&str, &str, RefusalCause)]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(source, message, expected)| {
            let got = refusal(message).cause;
            (got != *expected).then(|| {
                format!("  {source}\n    expected {expected:?}, got {got:?}\n    {message}")
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} real refusals misclassified:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}

#[test]
fn quota_messages() {
    check(&[
        // --- quota_exceeded ---
        // 1.10-era replicaset-controller, folded by the event recorder
        (
            "https://github.com/ministryofjustice/cloud-platform/issues/590",
            r#"(combined from similar events): Error creating: pods "allocation-manager-6597bc46dc-2wm8j" is forbidden: exceeded quota: namespace-quota, requested: limits.cpu=1,limits.memory=2Gi, used: limits.cpu=6,limits.memory=12Gi, limited: limits.cpu=6,limits.memory=12Gi"#,
            QuotaExceeded,
        ),
        // 1.3 (OpenShift 1.3): "Exceeded quota", capitalised
        (
            "https://github.com/openshift/origin/issues/10407",
            r#"Error creating: pods "test-1-" is forbidden: Exceeded quota: compute-resources, requested: limits.cpu=384m,limits.memory=512Mi, used: limits.cpu=384m,limits.memory=512Mi, limited: limits.cpu=384m,limits.memory=512Mi"#,
            QuotaExceeded,
        ),
        // 1.1's wording
        (
            "https://github.com/kubernetes/kubernetes/pull/16941",
            r#"Error creating: Pod "nginx-" is forbidden: cpu quota is 200m, current usage is 200m, requesting 100m."#,
            QuotaExceeded,
        ),
        // --- quota_requires_limits ---
        (
            "https://github.com/hmcts/cnp-flux-config/pull/13765",
            r#"create Pod fpl-case-service-pr-3308-es-master-0 in StatefulSet fpl-case-service-pr-3308-es-master failed error: pods "fpl-case-service-pr-3308-es-master-0" is forbidden: failed quota: fpl-quota: must specify requests.cpu,requests.memory"#,
            QuotaRequiresLimits,
        ),
        // 1.2 and 1.3 ("Failed quota")
        (
            "https://github.com/kubernetes/website/pull/641",
            r#"Error creating: pods "nginx-2040093540-" is forbidden: Failed quota: quota: must specify cpu,memory"#,
            QuotaRequiresLimits,
        ),
        (
            "https://github.com/kubernetes/website/pull/641",
            r#"Error creating: pods "nginx-3137573019-" is forbidden: Failed quota: compute-resources: must specify limits.cpu,limits.memory,requests.cpu,requests.memory"#,
            QuotaRequiresLimits,
        ),
        // 1.1's wording
        (
            "https://github.com/kubernetes/kubernetes/pull/16941",
            r#"Error creating: Pod "nginx-" is forbidden: cpu is limited by quota, must make explicit request."#,
            QuotaRequiresLimits,
        ),
    ]);
}

#[test]
fn limit_range_messages() {
    check(&[
        (
            "https://github.com/werf/kubedog/issues/216",
            r#"Error creating: pods "amazing-app-5b4c58fbb9-8gsvl" is forbidden: [cpu max limit to request ratio per Container is 5, but no request is specified or request is 0, memory max limit to request ratio per Container is 5, but no request is specified or request is 0]"#,
            LimitRange,
        ),
        // 1.5
        (
            "https://github.com/zalando-incubator/kubernetes-on-aws/issues/278",
            r#"Error creating: pods "hjacobs-test-1668339668-" is forbidden: maximum cpu usage per Container is 16, but request is 17."#,
            LimitRange,
        ),
        (
            "https://github.com/harn3ss/open-infra/issues/9",
            r#"pods "demo-chat-..." is forbidden: maximum memory usage per Container is 4Gi, but limit is 8Gi"#,
            LimitRange,
        ),
    ]);
}

#[test]
fn pod_security_messages() {
    check(&[
        // --- pod_security (Pod Security admission, 1.22+) ---
        (
            "https://github.com/redhat-developer/odo/issues/6847",
            r#"Error creating: pods "nodejs-app-8665bd77fb-2dd4n" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "runtime" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "runtime" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "runtime" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "runtime" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"#,
            PodSecurity,
        ),
        // a Job's, folded by the event recorder
        (
            "https://github.com/tektoncd/operator/issues/1223",
            r#"(combined from similar events): Error creating: pods "tekton-resource-pruner-mnf9n-27829440-4w6rm" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "pruner-tkn-tekton-pipelines-g2v7z" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "pruner-tkn-tekton-pipelines-g2v7z" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "pruner-tkn-tekton-pipelines-g2v7z" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "pruner-tkn-tekton-pipelines-g2v7z" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"#,
            PodSecurity,
        ),
        // a StatefulSet's
        (
            "https://github.com/rancher/k3k/issues/578",
            r#"create Pod k3k-3-test-server-0 in StatefulSet k3k-3-test-server failed error: pods "k3k-3-test-server-0" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "k3k-3-test-server" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "k3k-3-test-server" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "k3k-3-test-server" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "k3k-3-test-server" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"#,
            PodSecurity,
        ),
        // baseline (cut in the issue's title)
        (
            "https://github.com/cilium/pwru/issues/583",
            r#"pods "pwru" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true, hostPID=true), hostPath volumes (volume "sys-kernel-debug"), privileged (container "pwru" must not"#,
            PodSecurity,
        ),
        // --- pod_security_policy (PodSecurityPolicy, before 1.25) ---
        // 1.19+ wording
        (
            "https://github.com/alphagov/govuk-helm-charts/pull/394",
            r#"Error creating: pods "nginx-hostnetwork-deployment-76c46fdb6-" is forbidden: PodSecurityPolicy: unable to admit pod: [spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used]"#,
            PodSecurityPolicy,
        ),
        // a Job's
        (
            "https://github.com/rook/rook/issues/11093",
            r#"Error creating: pods "rook-ceph-detect-version-" is forbidden: PodSecurityPolicy: unable to admit pod: []"#,
            PodSecurityPolicy,
        ),
        // no policy usable at all
        (
            "https://github.com/kubernetes/minikube/issues/7314",
            r#"Error creating: pods "coredns-66bff467f8-" is forbidden: no providers available to validate pod request"#,
            PodSecurityPolicy,
        ),
        // before 1.19
        (
            "https://github.com/fission/fission/issues/1139",
            r#"Error creating: pods "nats-streaming-576964bb64-" is forbidden: unable to validate against any pod security policy: [spec.containers[0].hostPort: Invalid value: 4222: Host port 4222 is not allowed to be used. Allowed ports: []]"#,
            PodSecurityPolicy,
        ),
    ]);
}

#[test]
fn webhook_messages() {
    check(&[
        // --- webhook_unreachable ---
        // 1.10-1.12: "failed calling admission webhook"
        (
            "https://github.com/istio/istio/issues/13840",
            r#"Error creating: Internal error occurred: failed calling admission webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject?timeout=30s: context deadline exceeded"#,
            WebhookUnreachable,
        ),
        (
            "https://github.com/istio/istio/issues/13840",
            r#"Error creating: Internal error occurred: failed calling admission webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject?timeout=30s: net/http: request canceled (Client.Timeout exceeded while awaiting headers)"#,
            WebhookUnreachable,
        ),
        // OpenShift's deployer pods
        (
            "https://github.com/debianmaster/openshift-examples/issues/77",
            r#"Error creating deployer pod: Internal error occurred: failed calling admission webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject?timeout=30s: dial tcp 172.30.44.20:443: connect: connection refused"#,
            WebhookUnreachable,
        ),
        // 1.13+: "failed calling webhook"
        (
            "https://github.com/istio/istio/issues/12456",
            r#"Error creating: Internal error occurred: failed calling webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject?timeout=30s: dial tcp 10.243.225.152:443: i/o timeout"#,
            WebhookUnreachable,
        ),
        // a ReplicaSet's ReplicaFailure condition (YAML folded over three lines)
        (
            "https://github.com/aws-samples/amazon-eks-gmsa/issues/6",
            r#"Internal error occurred: failed calling webhook "admission-webhook.windows-gmsa.sigs.k8s.io": Post https://webhook-svc.gmsa.svc:443/mutate?timeout=30s: no endpoints available for service "webhook-svc""#,
            WebhookUnreachable,
        ),
        // 1.23+: "failed to call webhook", and the webhook's own 500
        (
            "https://github.com/istio/istio/issues/48098",
            r#"Internal error occurred: failed calling webhook "namespace.sidecar-injector.istio.io": failed to call webhook: Post "https://istiod.istio-system.svc:443/inject?timeout=10s": Internal Server Error"#,
            WebhookUnreachable,
        ),
        // certificates, before and after Go's "tls: failed to verify certificate"
        (
            "https://github.com/openkruise/kruise/issues/453",
            r#"Internal error occurred: failed calling webhook \"mcloneset.kb.io\": Post https://kruise-webhook-service.kruise-system.svc:443/mutate-apps-kruise-io-v1alpha1-cloneset?timeout=30s: x509: certificate signed by unknown authority (possibly because of \"crypto/rsa: verification error\" while trying to verify candidate authority certificate \"webhook-cert-ca\")"#,
            WebhookUnreachable,
        ),
        // an answer the API server cannot read
        (
            "https://github.com/stackrox/admission-controller-webhook-demo/pull/17",
            r#"Error creating: Internal error occurred: failed calling webhook "webhook-server.webhook-demo.svc": received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind="#,
            WebhookUnreachable,
        ),
        (
            "https://github.com/kubernetes-sigs/controller-runtime/issues/943",
            r#"Error from server (InternalError): error when creating "example.yml": Internal error occurred: failed calling webhook "mutating-mycrd.domain.com": Post https://mycrd-webhook-server-service.namespace.svc:443/mutate-v1-mycrd?timeout=30s: no service port 'ⓣ' found for service "mycrd-webhook-server-service""#,
            WebhookUnreachable,
        ),
        // --- webhook_denied ---
        (
            "https://github.com/kelseyhightower/grafeas-tutorial/issues/8",
            r#"Error from server: error when creating "pods/echod.yaml": admission webhook "image-signature.hightowerlabs.com" denied the request without explanation"#,
            WebhookDenied,
        ),
        // a policy engine's denial, its own text after
        (
            "https://github.com/kyverno/policies/issues/979",
            "Error from server: error when creating \"allowed_container.yaml\": admission webhook \"validate.kyverno.svc-fail\" denied the request: \n\nresource Pod/default/allowed was blocked due to the following policies \n\nallowed-image-repos:\n  good-repos: 'All images in this Pod must come from an authorized repository.",
            WebhookDenied,
        ),
        // Gatekeeper says "limit": still the webhook's refusal
        (
            "https://github.com/uoe-eidf-cluster-users/eidf-epcc-cluster/issues/26",
            "Error from server (Forbidden): error when creating \"test_NBody.yml\": admission webhook \"validation.gatekeeper.sh\" denied the request: [userpodlimits] container <cudasample> has no cpu limit, please see https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/\n[userpodlimits] container <cudasample> has no memory limit, please see https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
            WebhookDenied,
        ),
        // a ValidatingAdmissionPolicy (1.26+), in-process but the same kind of no
        (
            "https://github.com/ayushhhhyqxv/Kubernetes-scripts/blob/HEAD/k8s-architecture/validationPolicy.sh",
            r#"error: failed to create deployment: deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5"#,
            WebhookDenied,
        ),
    ]);
}

#[test]
fn service_account_namespace_and_validation_messages() {
    check(&[
        // --- service_account_missing ---
        (
            "https://github.com/apecloud/kubeblocks/issues/4599",
            r#"create Pod mytest-mysql-0 in StatefulSet mytest-mysql failed error: pods "mytest-mysql-0" is forbidden: error looking up service account default/kb-release-name-apecloud-mysql-cluster: serviceaccount "kb-release-name-apecloud-mysql-cluster" not found"#,
            ServiceAccountMissing,
        ),
        // before 1.11
        (
            "https://github.com/fabric8io/fabric8/issues/5972",
            r#"Error creating: pods "fluentd-" is forbidden: service account default/fluentd was not found, retry after the service account is created"#,
            ServiceAccountMissing,
        ),
        (
            "https://github.com/CiscoCloud/kubernetes-ansible/issues/104",
            r#"Error from server: error when creating "./busybox.yaml": Pod "busybox" is forbidden: service account default/default was not found, retry after the service account is created"#,
            ServiceAccountMissing,
        ),
        // --- namespace_terminating ---
        (
            "https://github.com/antrea-io/antrea/issues/488",
            r#"pods "test-pod-0-hq7ym9ch" is forbidden: unable to create new content in namespace antrea-test because it is being terminated"#,
            NamespaceTerminating,
        ),
        // --- invalid_spec ---
        // the event as JSON (quotes escaped), folded by the event recorder
        (
            "https://github.com/eclipse-che/che/issues/11411",
            r#"(combined from similar events): Error creating: Pod \"workspaceigk8aeez1c30liz2.dockerimage-648775dcbd-t7vst\" is invalid: spec.containers[1].resources.requests: Invalid value: \"150Mi\": must be less than or equal to memory limit"#,
            InvalidSpec,
        ),
    ]);
}

#[test]
fn other_refusals_keep_their_message() {
    check(&[
        // a slow webhook ran out the API server's own timeout: no webhook named
        (
            "https://github.com/kubernetes/kubernetes/issues/112765",
            "Error creating: Timeout: request did not complete within requested timeout context deadline exceeded",
            Other,
        ),
        // 1.8 lost the webhook's reason
        (
            "https://github.com/kubernetes/kubernetes/issues/55924",
            "Error creating: ",
            Other,
        ),
        // an initializer (1.7-1.13) that never finished
        (
            "https://github.com/kubernetes/kubernetes/issues/77290",
            "create Pod ztslenvoylb-0 in StatefulSet ztslenvoylb failed error: The POST operation against Pod could not be completed at this time, please try again.",
            Other,
        ),
    ]);
}

/// What the refusals name, as the labels will carry it.
#[test]
fn refusals_name_their_quota_resources_webhook_and_level() {
    let r = refusal(
        r#"(combined from similar events): Error creating: pods "allocation-manager-6597bc46dc-2wm8j" is forbidden: exceeded quota: namespace-quota, requested: limits.cpu=1,limits.memory=2Gi, used: limits.cpu=6,limits.memory=12Gi, limited: limits.cpu=6,limits.memory=12Gi"#,
    );
    assert_eq!(r.quota.as_deref(), Some("namespace-quota"));
    assert_eq!(r.resource.as_deref(), Some("limits.cpu,limits.memory"));
    let r = refusal(
        r#"create Pod fpl-case-service-pr-3308-es-master-0 in StatefulSet fpl-case-service-pr-3308-es-master failed error: pods "fpl-case-service-pr-3308-es-master-0" is forbidden: failed quota: fpl-quota: must specify requests.cpu,requests.memory"#,
    );
    assert_eq!(r.quota.as_deref(), Some("fpl-quota"));
    assert_eq!(r.resource.as_deref(), Some("requests.cpu,requests.memory"));
    let r = refusal(
        r#"Error creating: pods "hjacobs-test-1668339668-" is forbidden: maximum cpu usage per Container is 16, but request is 17."#,
    );
    assert_eq!(r.resource.as_deref(), Some("cpu"));
    let r = refusal(
        r#"Error creating: Internal error occurred: failed calling admission webhook "sidecar-injector.istio.io": Post https://istio-sidecar-injector.istio-system.svc:443/inject?timeout=30s: context deadline exceeded"#,
    );
    assert_eq!(r.webhook.as_deref(), Some("sidecar-injector.istio.io"));
    let r = refusal(
        r#"Error from server: error when creating "pods/echod.yaml": admission webhook "image-signature.hightowerlabs.com" denied the request without explanation"#,
    );
    assert_eq!(
        r.webhook.as_deref(),
        Some("image-signature.hightowerlabs.com")
    );
    let r = refusal(
        r#"error: failed to create deployment: deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5"#,
    );
    assert_eq!(r.webhook.as_deref(), Some("demo-policy.example.com"));
    let r = refusal(
        r#"pods "pwru" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true, hostPID=true), hostPath volumes (volume "sys-kernel-debug"), privileged (container "pwru" must not"#,
    );
    assert_eq!(r.level, Some("baseline"));
}
