//! The default and sharded renders are the kustomize base's and sharded overlay's
//! objects but for Helm's labels.

use super::*;

#[test]
fn the_default_render_is_the_kustomize_base_but_for_helm_s_labels() {
    let base = kustomized("deploy");
    let chart = default_render();
    // The same objects but for the Namespace, which `helm install
    // --create-namespace` makes (the base's also enforces the restricted Pod
    // Security Standard: label it yourself, deploy/README.md).
    for kind in [
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Service",
        "Deployment",
    ] {
        assert_eq!(
            without_helm_labels(chart.one(kind)),
            *one_of(&base, kind),
            "{kind}: the chart's and deploy/base's differ"
        );
    }
    // Helm's standard labels are all it adds: every object carries them.
    for object in &chart.objects {
        let labels = &object["metadata"]["labels"];
        for label in HELM_LABELS {
            assert!(labels.get(*label).is_some(), "{label} on {object}");
        }
        assert_eq!(labels["app.kubernetes.io/instance"], RELEASE);
        assert_eq!(
            labels["app.kubernetes.io/version"],
            env!("CARGO_PKG_VERSION")
        );
    }

    // The Prometheus Operator's objects are opt-in, as in deploy/: with them on,
    // the ServiceMonitor is the overlay's endpoint, the job named by a label (the
    // release's name could differ from the job the alerts expect).
    let operator = kustomized("deploy/overlays/prometheus-operator");
    let with_operator = variant("with the Prometheus Operator");
    let mut monitor = without_helm_labels(with_operator.one("ServiceMonitor"));
    assert_eq!(
        monitor["spec"]
            .as_object_mut()
            .unwrap()
            .remove("jobLabel")
            .expect("jobLabel"),
        "app.kubernetes.io/name"
    );
    assert_eq!(monitor, *one_of(&operator, "ServiceMonitor"));

    // The PrometheusRule: the base's groups, whose runbook links point at the
    // exporter's own /runbooks through a port-forward, as deploy/ does.
    assert_eq!(
        with_operator.one("PrometheusRule")["spec"],
        one_of(&operator, "PrometheusRule")["spec"]
    );

    // The dashboards: the files of dashboards/, as they are.
    let files = json_files(&root().join(DASHBOARDS));
    let maps = chart.find("ConfigMap");
    assert_eq!(maps.len(), files.len());
    for (name, text) in &files {
        let map = maps
            .iter()
            .find(|m| m["data"].get(name).is_some())
            .unwrap_or_else(|| panic!("no ConfigMap holds {name}"));
        assert_eq!(map["data"][name].as_str(), Some(text.as_str()), "{name}");
        assert_eq!(map["data"].as_object().unwrap().len(), 1);
        assert_eq!(map["metadata"]["labels"]["grafana_dashboard"], "1");
        assert_eq!(map["metadata"]["namespace"], NAMESPACE);
    }
    let kinds: BTreeSet<&str> = chart
        .objects
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
            "Service",
            "ServiceAccount"
        ]),
        "by default: built-in kinds only (it installs without the Prometheus Operator's CRDs); no NetworkPolicy, PodDisruptionBudget or VerticalPodAutoscaler"
    );
}

#[test]
fn the_sharded_render_is_the_sharded_overlay_but_for_helm_s_labels() {
    let overlay = kustomized("deploy/overlays/sharded");
    let sharded = variant("sharded");
    assert!(sharded.find("Deployment").is_empty());
    assert_eq!(
        without_helm_labels(sharded.one("StatefulSet")),
        *one_of(&overlay, "StatefulSet")
    );
    assert_eq!(
        without_helm_labels(sharded.one("Service")),
        *one_of(&overlay, "Service")
    );
}
