//! What holds in every render: read-only RBAC, a hardened pod, flags the exporter
//! takes, names and namespace, the scrape, the web config secret.

use super::*;

#[test]
fn rbac_is_the_base_s_read_only_cluster_role_in_every_render() {
    let base = kustomized("deploy");
    // deploy/base/rbac.yaml's rules, which tests/artifacts/deploy/cluster_role.rs
    // derives from the exporter's watched kinds: the one source of what the
    // exporter may read.
    let expected = &one_of(&base, "ClusterRole")["rules"];
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        assert!(rendered.find("Role").is_empty() && rendered.find("RoleBinding").is_empty());
        let pod = &rendered.workload()["spec"]["template"]["spec"];
        let account = pod["serviceAccountName"].as_str().expect("an account");
        if what == "an existing service account" {
            assert!(rendered.find("ClusterRole").is_empty(), "{what}");
            assert!(rendered.find("ServiceAccount").is_empty(), "{what}");
            assert_eq!(account, "lifecycle-reader");
            continue;
        }
        let role = rendered.one("ClusterRole");
        let mut rules = role["rules"].as_array().unwrap().clone();
        if what == "--auth kubernetes" {
            // The two reviews, and nothing else besides the base's rules.
            let reviews = rules.split_off(rules.len() - 2);
            assert_eq!(
                serde_json::Value::Array(reviews),
                serde_json::json!([
                    {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
                    {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]}
                ])
            );
            let args =
                strings(&rendered.workload()["spec"]["template"]["spec"]["containers"][0]["args"]);
            assert!(args.contains(&"--auth=kubernetes".to_string()), "{args:?}");
            assert!(args.contains(&"--auth-token-audience=kube-lifecycle-exporter".to_string()));
            let monitor = rendered.one("ServiceMonitor");
            assert_eq!(
                monitor["spec"]["endpoints"][0]["bearerTokenFile"],
                "/var/run/secrets/kubernetes.io/serviceaccount/token"
            );
        }
        assert_eq!(serde_json::Value::Array(rules.clone()), *expected, "{what}");
        for rule in &rules {
            assert_eq!(
                keys(rule),
                BTreeSet::from(["apiGroups", "resources", "verbs"]),
                "{what}: no resourceNames, no nonResourceURLs"
            );
            assert!(
                strings(&rule["verbs"])
                    .iter()
                    .all(|v| v == "list" || v == "watch"),
                "{what}: read-only"
            );
            for resource in strings(&rule["resources"]) {
                assert!(
                    !["secrets", "configmaps", "*"].contains(&resource.as_str())
                        && !resource.contains('/'),
                    "{what}: {resource}"
                );
            }
        }
        let binding = rendered.one("ClusterRoleBinding");
        let service_account = rendered.one("ServiceAccount");
        assert_eq!(service_account["metadata"]["name"], account);
        assert_eq!(service_account["automountServiceAccountToken"], false);
        assert_eq!(
            binding["roleRef"],
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role["metadata"]["name"]})
        );
        assert_eq!(
            binding["subjects"],
            json!([{"kind": "ServiceAccount", "name": account, "namespace": rendered.variant.namespace}]),
            "{what}"
        );
    }
}

#[test]
fn every_render_s_pod_is_as_hardened_as_the_base_s() {
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        let pod = &rendered.workload()["spec"]["template"]["spec"];
        let container = rendered.container();
        for key in ["hostNetwork", "hostPID", "hostIPC"] {
            assert!(pod.get(key).is_none(), "{what}: {key}");
        }
        assert_eq!(pod["automountServiceAccountToken"], false, "{what}");
        let security = &pod["securityContext"];
        assert_eq!(security["runAsNonRoot"], true, "{what}");
        assert_eq!(security["runAsUser"], 65532, "{what}");
        assert_eq!(
            security["seccompProfile"]["type"], "RuntimeDefault",
            "{what}"
        );
        assert_eq!(
            container["securityContext"],
            json!({"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsNonRoot": true, "capabilities": {"drop": ["ALL"]}}),
            "{what}"
        );
        // The short-lived token at the standard path; other volumes only from
        // Secrets (the web configuration), read-only.
        let volumes = pod["volumes"].as_array().unwrap();
        assert_eq!(volumes[0]["name"], "api-token");
        assert!(volumes[0]["projected"]["sources"][0]["serviceAccountToken"].is_object());
        for volume in &volumes[1..] {
            assert_eq!(keys(volume), BTreeSet::from(["name", "secret"]), "{what}");
        }
        for mount in container["volumeMounts"].as_array().unwrap() {
            assert_eq!(mount["readOnly"], true, "{what}: {mount}");
        }
        assert_eq!(
            container["volumeMounts"][0],
            json!({"name": "api-token", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true})
        );
    }
}

/// `kube-lifecycle-exporter serve --help`.
fn serve_help() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_kube-lifecycle-exporter"))
        .args(["serve", "--help"])
        .output()
        .expect("the binary runs");
    assert!(output.status.success());
    String::from_utf8(output.stdout).expect("UTF-8 help")
}

#[test]
fn every_flag_the_chart_passes_is_one_the_exporter_takes() {
    let help = serve_help();
    let mut flags = BTreeSet::new();
    for rendered in &renders().renders {
        let args = rendered.args();
        assert_eq!(args[0], "serve", "{}", rendered.variant.name);
        for arg in &args[1..] {
            let flag = arg
                .strip_prefix("--")
                .unwrap_or_else(|| panic!("{}: {arg} is not a --flag=value", rendered.variant.name))
                .split('=')
                .next()
                .unwrap();
            assert!(
                help.contains(&format!("--{flag} ")) || help.contains(&format!("--{flag}=")),
                "{}: --{flag} is not in `serve --help`",
                rendered.variant.name
            );
            flags.insert(flag.to_string());
        }
    }
    // Every first-class value reached the exporter in some variant.
    for flag in [
        "listen",
        "log-format",
        "log-level",
        "namespace",
        "exclude-namespace",
        "unscheduled-after",
        "creating-after",
        "watch-timeout",
        "event-max-age",
        "runbook-base-url",
        "web.config.file",
        "total-shards",
        "shard-from-pod-name",
    ] {
        assert!(
            flags.contains(flag),
            "no variant passes --{flag}: {flags:?}"
        );
    }
}

#[test]
fn values_become_the_flags_they_name() {
    let every = variant("every option");
    assert_eq!(
        every.args(),
        [
            "serve",
            "--listen=0.0.0.0:9096",
            "--log-format=text",
            "--log-level=debug",
            "--namespace=shop",
            "--namespace=payments",
            "--exclude-namespace=kube-system",
            "--exclude-namespace=kube-public",
            "--unscheduled-after=10m",
            "--creating-after=15m",
            "--watch-timeout=120s",
            "--runbook-base-url=https://runbooks.example.com/kube-lifecycle",
            "--event-max-age=2h",
        ]
    );
    let container = every.container();
    assert_eq!(
        container["image"],
        "registry.example.com/infra/kube-lifecycle-exporter:0.1.0-rc1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    );
    assert_eq!(container["imagePullPolicy"], "Always");
    assert_eq!(
        container["env"],
        json!([{"name": "RUST_BACKTRACE", "value": "1"}])
    );
    let pod = &every.workload()["spec"]["template"]["spec"];
    assert_eq!(
        pod["imagePullSecrets"],
        json!([{"name": "global-pull"}, {"name": "pull"}, {"name": "other-pull"}])
    );
    assert_eq!(pod["priorityClassName"], "system-cluster-critical");
    for key in ["tolerations", "affinity", "topologySpreadConstraints"] {
        assert!(pod.get(key).is_some(), "{key}");
    }
    let service = every.one("Service");
    assert_eq!(service["spec"]["type"], "NodePort");
    assert_eq!(
        service["spec"]["ports"],
        json!([{"name": "metrics", "port": 80, "targetPort": "metrics", "protocol": "TCP", "nodePort": 30096}])
    );
    assert_eq!(
        every.one("PodDisruptionBudget")["spec"],
        json!({"maxUnavailable": 1, "selector": every.workload()["spec"]["selector"]})
    );
    let policy = every.one("NetworkPolicy");
    assert_eq!(
        policy["spec"]["podSelector"],
        every.workload()["spec"]["selector"]
    );
    assert_eq!(policy["spec"]["policyTypes"], json!(["Ingress", "Egress"]));

    let named = variant("custom namespace");
    assert!(
        named.args().contains(&"--namespace=monitoring".to_string()),
        "releaseNamespace"
    );
    let sharded = variant("sharded");
    assert_eq!(sharded.workload()["spec"]["replicas"], 3);
    assert!(sharded.args().contains(&"--total-shards=3".to_string()));
}

#[test]
fn every_object_is_in_the_release_s_namespace_and_named_after_it() {
    for rendered in &renders().renders {
        let fullname = if rendered.variant.release.contains("kube-lifecycle-exporter") {
            rendered.variant.release.to_string()
        } else {
            format!("{}-kube-lifecycle-exporter", rendered.variant.release)
        };
        for object in &rendered.objects {
            let kind = object["kind"].as_str().unwrap();
            let name = object["metadata"]["name"].as_str().unwrap();
            let namespace = &object["metadata"]["namespace"];
            match kind {
                "ClusterRole" | "ClusterRoleBinding" => assert!(namespace.is_null()),
                // dashboards.namespace moves them.
                "ConfigMap" if rendered.variant.name == "custom namespace" => {
                    assert_eq!(namespace, "grafana")
                }
                _ => assert_eq!(namespace, rendered.variant.namespace, "{kind} {name}"),
            }
            if kind != "ServiceAccount" {
                assert!(
                    name.starts_with(&fullname),
                    "{}: {kind} {name}",
                    rendered.variant.name
                );
            }
            let labels = &object["metadata"]["labels"];
            assert_eq!(
                labels["app.kubernetes.io/instance"],
                rendered.variant.release
            );
            if rendered.variant.name == "custom labels" {
                assert_eq!(labels["team"], "platform", "{kind} {name}");
            }
        }
    }
    let labelled = variant("custom labels");
    let template = &labelled.workload()["spec"]["template"];
    assert_eq!(
        template["metadata"]["labels"]["sidecar.istio.io/inject"],
        "false"
    );
    assert_eq!(
        template["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/safe-to-evict"],
        "true"
    );
    for kind in ["ServiceMonitor", "PrometheusRule"] {
        assert_eq!(
            labelled.one(kind)["metadata"]["labels"]["release"],
            "kube-prometheus-stack"
        );
    }
    for map in labelled.find("ConfigMap") {
        assert_eq!(
            map["metadata"]["labels"]["grafana_dashboard_lifecycle"],
            "yes"
        );
        assert!(map["metadata"]["labels"].get("grafana_dashboard").is_none());
        assert_eq!(
            map["metadata"]["annotations"]["grafana_folder"],
            "Kubernetes"
        );
    }
}

#[test]
fn the_scrape_reaches_the_exporter_s_port_as_the_job_the_alerts_select() {
    for rendered in &renders().renders {
        let what = rendered.variant.name;
        let workload = rendered.workload();
        let service = rendered.one("Service");
        let pod_labels = &workload["spec"]["template"]["metadata"]["labels"];
        for (key, value) in service["spec"]["selector"].as_object().unwrap() {
            assert_eq!(&pod_labels[key], value, "{what}: Service selector {key}");
        }
        assert_eq!(
            rendered.container()["ports"],
            json!([{"name": "metrics", "containerPort": 9096, "protocol": "TCP"}])
        );
        assert!(
            rendered
                .args()
                .contains(&"--listen=0.0.0.0:9096".to_string())
        );
        assert_eq!(service["spec"]["ports"][0]["targetPort"], "metrics");
        let https = what == "web config";

        if rendered.variant.values.contains("prometheusScrape: true") {
            let annotations = &service["metadata"]["annotations"];
            assert_eq!(annotations["prometheus.io/scrape"], "true");
            assert_eq!(
                annotations["prometheus.io/port"],
                service["spec"]["ports"][0]["port"].to_string()
            );
            assert_eq!(
                annotations["prometheus.io/scheme"],
                if https { "https" } else { "http" }
            );
        }
        let monitors = rendered.find("ServiceMonitor");
        let Some(monitor) = monitors.first() else {
            continue;
        };
        for (key, value) in monitor["spec"]["selector"]["matchLabels"]
            .as_object()
            .unwrap()
        {
            assert_eq!(
                &service["metadata"]["labels"][key], value,
                "{what}: ServiceMonitor selector {key}"
            );
        }
        let endpoint = &monitor["spec"]["endpoints"][0];
        assert_eq!(endpoint["port"], service["spec"]["ports"][0]["name"]);
        assert_eq!(endpoint["path"], "/metrics");
        assert_eq!(endpoint["honorLabels"], true, "{what}");
        assert_eq!(
            endpoint.get("scheme").and_then(Value::as_str),
            https.then_some("https"),
            "{what}"
        );

        // The job: the value of the Service's jobLabel label (without one, the
        // operator names it after the Service); KubeLifecycleExporterDown selects
        // it, unless told another selector.
        let job = match monitor["spec"].get("jobLabel") {
            Some(label) => service["metadata"]["labels"][label.as_str().unwrap()]
                .as_str()
                .unwrap_or_else(|| panic!("{what}: the Service has no {label} label")),
            None => service["metadata"]["name"].as_str().unwrap(),
        };
        let rules = rendered.find("PrometheusRule");
        let Some(rule) = rules.first() else { continue };
        let down = rule["spec"]["groups"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["rules"].as_array().unwrap())
            .find(|r| r["alert"] == "KubeLifecycleExporterDown")
            .expect("KubeLifecycleExporterDown");
        let expr = down["expr"].as_str().unwrap();
        if what == "severity and for overridden" {
            assert!(
                expr.contains("up{job=\"lifecycle\", namespace=\"monitoring\"}"),
                "{expr}"
            );
        } else {
            assert!(
                expr.contains(&format!("up{{job=\"{job}\"}}")),
                "{what}: {expr}"
            );
        }
    }
}

#[test]
fn the_web_config_secret_is_mounted_where_the_flag_points() {
    let rendered = variant("web config");
    let pod = &rendered.workload()["spec"]["template"]["spec"];
    let container = rendered.container();
    assert!(
        rendered
            .args()
            .contains(&"--web.config.file=/etc/kube-lifecycle-exporter/web/web-config.yml".into())
    );
    assert_eq!(
        pod["volumes"][1],
        json!({"name": "web-config", "secret": {"secretName": "exporter-web-config"}})
    );
    assert_eq!(
        pod["volumes"][2],
        json!({"name": "web-tls", "secret": {"secretName": "exporter-tls"}})
    );
    assert_eq!(
        container["volumeMounts"][1],
        json!({"name": "web-config", "mountPath": "/etc/kube-lifecycle-exporter/web", "readOnly": true})
    );
    assert_eq!(
        container["volumeMounts"][2],
        json!({"name": "web-tls", "mountPath": "/etc/kube-lifecycle-exporter/tls", "readOnly": true})
    );
    // The kubelet probes over TLS (it does not verify the certificate); basic auth
    // leaves /healthz and /readyz open.
    for probe in ["livenessProbe", "readinessProbe"] {
        assert_eq!(container[probe]["httpGet"]["scheme"], "HTTPS", "{probe}");
    }
    let endpoint = &rendered.one("ServiceMonitor")["spec"]["endpoints"][0];
    assert_eq!(endpoint["tlsConfig"], json!({"insecureSkipVerify": true}));
    assert_eq!(endpoint["basicAuth"]["username"]["name"], "exporter-scrape");
    // Without it, the probes are the base's.
    let container = default_render().container();
    assert!(
        container["livenessProbe"]["httpGet"]
            .get("scheme")
            .is_none()
    );
}
