//! The Prometheus operator's resources: the ServiceMonitor scrapes the exporter's
//! port as the alerts' job, and custom resources use only fields the operator
//! defines.

use super::*;

#[test]
fn the_service_monitor_scrapes_the_exporter_s_port_as_the_alerts_job() {
    let objects = operator();
    let service = one(&objects, "Service");
    let monitor = one(&objects, "ServiceMonitor");
    let deployment = one(&objects, "Deployment");
    let pod = &deployment["spec"]["template"]["spec"];
    let container = the_container(pod);

    // Workload → Service → ServiceMonitor: selectors and the port name line up.
    let pod_labels = &deployment["spec"]["template"]["metadata"]["labels"];
    for (key, value) in service["spec"]["selector"].as_object().unwrap() {
        assert_eq!(&pod_labels[key], value, "Service selector {key}");
    }
    for (key, value) in deployment["spec"]["selector"]["matchLabels"]
        .as_object()
        .unwrap()
    {
        assert_eq!(&pod_labels[key], value, "Deployment selector {key}");
    }
    let selector = &monitor["spec"]["selector"];
    assert_eq!(selector.as_object().unwrap().len(), 1, "{selector}");
    for (key, value) in selector["matchLabels"].as_object().unwrap() {
        assert_eq!(
            &service["metadata"]["labels"][key], value,
            "ServiceMonitor selector {key}"
        );
    }
    assert_eq!(
        monitor["metadata"]["namespace"],
        service["metadata"]["namespace"]
    );
    let endpoints = monitor["spec"]["endpoints"].as_array().unwrap();
    assert_eq!(endpoints.len(), 1);
    let endpoint = &endpoints[0];
    assert_eq!(endpoint["honorLabels"], true);
    assert_eq!(endpoint["path"], "/metrics");
    let port = &service["spec"]["ports"][0];
    assert_eq!(endpoint["port"], port["name"]);
    assert_eq!(port["targetPort"], "metrics");
    let container_port = &container["ports"][0];
    assert_eq!(container_port["name"], "metrics");
    let listen = args(container)
        .iter()
        .find_map(|a| a.strip_prefix("--listen=").map(String::from))
        .expect("--listen");
    assert_eq!(
        listen,
        format!("0.0.0.0:{}", container_port["containerPort"]),
        "--listen and the container port"
    );

    // Without `jobLabel` the operator names the job after the Service: the alerts
    // must expect that name.
    assert!(monitor["spec"].get("jobLabel").is_none());
    let job = format!("job=\"{}\"", service["metadata"]["name"].as_str().unwrap());
    assert!(read(RULES).contains(&job), "{RULES} never says {job}");
}

#[test]
fn custom_resources_use_only_fields_the_operator_defines() {
    // kubernetes-validate has no schema for them: their fields are checked here
    // against the Prometheus Operator's monitoring.coreos.com/v1 API.
    fn keys(v: &Value) -> BTreeSet<&str> {
        v.as_object()
            .unwrap_or_else(|| panic!("not a map: {v}"))
            .keys()
            .map(String::as_str)
            .collect()
    }
    fn within(v: &Value, allowed: &[&str], what: &str) {
        let unknown: Vec<&str> = keys(v)
            .into_iter()
            .filter(|k| !allowed.contains(k))
            .collect();
        assert!(unknown.is_empty(), "{what}: unknown fields {unknown:?}");
    }
    for dir in std::iter::once("deploy").chain(OVERLAYS.iter().copied()) {
        let objects = render(dir);
        if find(&objects, "ServiceMonitor").is_empty() {
            continue; // the overlay without the operator
        }
        for kind in CUSTOM_KINDS {
            let object = one(&objects, kind);
            within(object, &["apiVersion", "kind", "metadata", "spec"], kind);
            assert_eq!(object["apiVersion"], "monitoring.coreos.com/v1");
            within(
                &object["metadata"],
                &["name", "namespace", "labels", "annotations"],
                kind,
            );
        }
        let monitor = &one(&objects, "ServiceMonitor")["spec"];
        within(
            monitor,
            &["selector", "endpoints", "namespaceSelector", "jobLabel"],
            "ServiceMonitor spec",
        );
        for endpoint in monitor["endpoints"].as_array().unwrap() {
            within(
                endpoint,
                &[
                    "port",
                    "path",
                    "interval",
                    "scrapeTimeout",
                    "honorLabels",
                    "bearerTokenFile",
                ],
                "ServiceMonitor endpoint",
            );
            assert!(
                endpoint["interval"]
                    .as_str()
                    .is_some_and(|i| i.ends_with('s'))
            );
        }
        let rule = &one(&objects, "PrometheusRule")["spec"];
        within(rule, &["groups"], "PrometheusRule spec");
        for group in rule["groups"].as_array().unwrap() {
            within(group, &["name", "interval", "rules"], "rule group");
            for r in group["rules"].as_array().unwrap() {
                // keep_firing_for: in the operator's Rule since v0.64.
                within(
                    r,
                    &[
                        "alert",
                        "record",
                        "expr",
                        "for",
                        "keep_firing_for",
                        "labels",
                        "annotations",
                    ],
                    "rule",
                );
                assert!(
                    r["expr"].is_string() && (r["alert"].is_string() || r["record"].is_string())
                );
                for map in ["labels", "annotations"] {
                    if let Some(m) = r.get(map) {
                        assert!(m.as_object().unwrap().values().all(Value::is_string), "{r}");
                    }
                }
            }
        }
    }
}
