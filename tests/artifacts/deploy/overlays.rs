//! The overlays: the operator's CRDs added or dropped, the kube-prometheus-stack
//! release label, the sharded StatefulSet.

use super::*;

/// `kubectl apply -k deploy` works on a bare cluster: nothing of a CRD, and a
/// Service that annotation-based discovery scrapes; the operator's objects are
/// the opt-in overlay, which adds exactly them.
#[test]
fn the_default_applies_without_the_operator_s_crds_and_the_overlay_adds_them() {
    let default = base();
    let kinds: BTreeSet<&str> = default
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        BTreeSet::from([
            "ClusterRole",
            "ClusterRoleBinding",
            "ConfigMap",
            "Deployment",
            "Namespace",
            "Service",
            "ServiceAccount"
        ]),
        "built-in kinds only"
    );
    let service = one(&default, "Service");
    let port = service["spec"]["ports"][0]["port"].to_string();
    assert_eq!(
        service["metadata"]["annotations"],
        json!({"prometheus.io/scrape": "true", "prometheus.io/port": port,
               "prometheus.io/path": "/metrics", "prometheus.io/scheme": "http"})
    );
    let mut with_operator = operator();
    with_operator.retain(|o| !CUSTOM_KINDS.contains(&o["kind"].as_str().unwrap()));
    assert_eq!(with_operator, default);
    for kind in CUSTOM_KINDS {
        assert_eq!(find(&operator(), kind).len(), 1, "{kind}");
    }
    // The README and deploy/README.md say which is for whom, in one table each.
    for doc in ["README.md", "deploy/README.md"] {
        let text = read(doc);
        for command in [
            "| `kubectl apply -k deploy` |",
            "| `kubectl apply -k deploy/overlays/prometheus-operator` |",
            "| `kubectl apply -k deploy/overlays/kube-prometheus-stack` |",
            "| `kubectl apply -k deploy/overlays/sharded` |",
            "| `kubectl apply -k deploy/overlays/auth-kubernetes` |",
        ] {
            assert!(text.contains(command), "{doc}: no row {command}");
        }
    }
}

#[test]
fn the_overlay_without_the_operator_drops_only_its_custom_resources() {
    let mut expected = operator();
    expected.retain(|o| !CUSTOM_KINDS.contains(&o["kind"].as_str().unwrap()));
    assert_eq!(
        render("deploy/overlays/without-prometheus-operator"),
        expected
    );
}

#[test]
fn the_kube_prometheus_stack_overlay_adds_only_the_release_label() {
    let base = operator();
    let overlay = render("deploy/overlays/kube-prometheus-stack");
    assert_eq!(overlay.len(), base.len());
    for (before, after) in base.iter().zip(&overlay) {
        let mut expected = before.clone();
        if CUSTOM_KINDS.contains(&before["kind"].as_str().unwrap()) {
            expected["metadata"]["labels"]["release"] = json!("kube-prometheus-stack");
        }
        assert_eq!(after, &expected);
    }
}

/// `--auth kubernetes` with the operator: the flag, the two reviews the exporter
/// must be allowed to create (for its own service account), and the
/// ServiceMonitor scraping with Prometheus's token; nothing else changes.
#[test]
fn the_auth_overlay_adds_the_flag_the_reviews_and_the_scraper_s_token() {
    let operator = operator();
    let mut overlay = render("deploy/overlays/auth-kubernetes");
    let reviews: Vec<Value> = overlay
        .iter()
        .filter(|o| o["metadata"]["name"] == "kube-lifecycle-exporter-reviews")
        .cloned()
        .collect();
    overlay.retain(|o| o["metadata"]["name"] != "kube-lifecycle-exporter-reviews");
    assert_eq!(overlay.len(), operator.len());
    for (before, after) in operator.iter().zip(&overlay) {
        let mut expected = before.clone();
        match before["kind"].as_str().unwrap() {
            "Deployment" => expected["spec"]["template"]["spec"]["containers"][0]["args"]
                .as_array_mut()
                .unwrap()
                .push(json!("--auth=kubernetes")),
            "ServiceMonitor" => {
                expected["spec"]["endpoints"][0]["bearerTokenFile"] =
                    json!("/var/run/secrets/kubernetes.io/serviceaccount/token")
            }
            _ => {}
        }
        assert_eq!(after, &expected);
    }

    let role = one(&reviews, "ClusterRole");
    assert_eq!(
        role["rules"],
        json!([
            {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
            {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]},
        ])
    );
    let binding = one(&reviews, "ClusterRoleBinding");
    assert_eq!(binding["roleRef"]["name"], role["metadata"]["name"]);
    let account = one(&operator, "ServiceAccount");
    assert_eq!(
        binding["subjects"],
        json!([{"kind": "ServiceAccount", "name": account["metadata"]["name"],
                "namespace": account["metadata"]["namespace"]}])
    );
}

#[test]
fn the_sharded_overlay_runs_the_deployment_s_pod_as_shards_of_a_stateful_set() {
    let base = base();
    let sharded = render("deploy/overlays/sharded");
    assert!(find(&sharded, "Deployment").is_empty());
    let set = one(&sharded, "StatefulSet");
    let replicas = set["spec"]["replicas"].as_u64().expect("replicas");
    assert!(replicas > 1);
    let deployment = one(&base, "Deployment");
    assert_eq!(set["spec"]["selector"], deployment["spec"]["selector"]);
    assert_eq!(
        set["spec"]["serviceName"],
        one(&base, "Service")["metadata"]["name"]
    );

    // The same pod but for the sharding flags and the pod name they read.
    let mut pod = set["spec"]["template"].clone();
    let container = &mut pod["spec"]["containers"][0];
    let shard_args = vec![
        format!("--total-shards={replicas}"),
        "--shard-from-pod-name=$(POD_NAME)".to_string(),
    ];
    let mut own_args = args(container);
    own_args.retain(|a| !shard_args.contains(a));
    assert_eq!(args(container).len(), own_args.len() + 2, "{shard_args:?}");
    container["args"] = json!(own_args);
    assert_eq!(
        container
            .as_object_mut()
            .unwrap()
            .remove("env")
            .expect("env"),
        json!([{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}])
    );
    assert_eq!(pod, deployment["spec"]["template"]);

    let others = |objects: &[Value]| -> Vec<Value> {
        objects
            .iter()
            .filter(|o| o["kind"] != "Deployment" && o["kind"] != "StatefulSet")
            .cloned()
            .collect()
    };
    assert_eq!(others(&sharded), others(&base));
}
