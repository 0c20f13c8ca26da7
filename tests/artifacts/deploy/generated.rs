//! What `cargo xtask generate` writes means what it is made from: the all-in-one
//! file, the PrometheusRule, the dashboard ConfigMaps; and every object fits
//! kubectl apply's annotation.

use super::*;

#[test]
fn the_all_in_one_file_is_the_rendered_base_namespace_first() {
    let all_in_one = kustomize::documents(&read(ALL_IN_ONE), ALL_IN_ONE).unwrap();
    let ids = |objects: &[Value]| objects.iter().map(kustomize::id).collect::<Vec<_>>();
    let base = base();
    assert_eq!(
        ids(&all_in_one),
        ids(&base),
        "{ALL_IN_ONE}: objects and order"
    );
    for (shipped, rendered) in all_in_one.iter().zip(&base) {
        assert!(
            shipped == rendered,
            "{ALL_IN_ONE}: {} differs from the base",
            kustomize::id(shipped)
        );
    }
    // `kubectl apply -f` creates in file order: the namespace must exist first.
    assert_eq!(all_in_one[0]["kind"], "Namespace");
    for object in &all_in_one[1..] {
        let namespace = &object["metadata"]["namespace"];
        assert!(
            namespace.is_null() || *namespace == NAMESPACE,
            "{} is in {namespace}",
            kustomize::id(object)
        );
    }
}

#[test]
fn the_prometheus_rule_is_the_rule_file_with_runbook_links_substituted() {
    let mut expected = yaml(&read(RULES), RULES)["groups"].clone();
    let mut substituted = 0;
    for group in expected.as_array_mut().expect("groups") {
        for rule in group["rules"].as_array_mut().expect("rules") {
            if let Some(url) = rule["annotations"]["runbook_url"].as_str() {
                let alert = rule["alert"].as_str().expect("an alert name");
                assert_eq!(
                    url,
                    format!("{}/{}", generate::RUNBOOK_PLACEHOLDER, alert.to_lowercase())
                );
                rule["annotations"]["runbook_url"] = json!(format!(
                    "{}/{}",
                    generate::RUNBOOK_BASE,
                    alert.to_lowercase()
                ));
                substituted += 1;
            }
        }
    }
    assert!(substituted > 20, "only {substituted} runbook links");
    let objects = operator();
    let rule = one(&objects, "PrometheusRule");
    assert_eq!(rule["spec"]["groups"], expected);
    assert_eq!(
        rule["spec"].as_object().unwrap().len(),
        1,
        "spec: only groups"
    );
    assert!(!read(PROMETHEUS_RULE).contains(generate::RUNBOOK_PLACEHOLDER));
}

#[test]
fn dashboards_are_config_maps_for_the_grafana_sidecar() {
    let objects = base();
    let maps = find(&objects, "ConfigMap");
    let files = dashboard_files();
    assert_eq!(maps.len(), files.len());
    for (file, text) in &files {
        let original: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let map = maps
            .iter()
            .find(|m| m["data"].get(file).is_some())
            .unwrap_or_else(|| panic!("no ConfigMap holds {file}"));
        assert_eq!(map["metadata"]["labels"]["grafana_dashboard"], "1");
        assert_eq!(map["data"].as_object().unwrap().len(), 1);
        let shipped: Value = serde_json::from_str(map["data"][file].as_str().expect("a string"))
            .unwrap_or_else(|e| panic!("{file} in its ConfigMap: {e}"));
        assert_eq!(shipped, original, "{file}");
    }
}

#[test]
fn minify_drops_only_whitespace_between_tokens() {
    let json = "{ \"a\" : [1, 2],\n  \"b\": \"x \\\" y\\\\\" , \"c\": \" \" }";
    assert_eq!(
        generate::minify(json),
        r#"{"a":[1,2],"b":"x \" y\\","c":" "}"#
    );
}

#[test]
fn every_object_fits_kubectl_apply_s_annotation() {
    for object in base() {
        let size = serde_json::to_string(&object).unwrap().len();
        // A quarter of the limit stays for the object's other annotations
        // (the ConfigMaps carry none but the Grafana sidecar's label).
        assert!(
            size < ANNOTATIONS_LIMIT * 3 / 4,
            "{} is {size} bytes: client-side `kubectl apply` copies it into an annotation (256 KiB for all)",
            kustomize::id(&object)
        );
    }
}
