//! The ClusterRole grants list and watch on exactly what the exporter watches.

use super::*;

#[test]
fn the_cluster_role_grants_list_and_watch_on_exactly_what_the_exporter_watches() {
    let expected: BTreeSet<(String, String, String)> = watched_resources()
        .into_iter()
        .flat_map(|(group, resource)| {
            VERBS
                .iter()
                .map(move |verb| (group.to_string(), resource.to_string(), verb.to_string()))
        })
        .collect();
    assert!(
        expected.iter().any(|(_, r, _)| r == "events") && expected.len() >= 16,
        "{expected:?}"
    );
    let objects = base();
    assert!(find(&objects, "Role").is_empty() && find(&objects, "RoleBinding").is_empty());
    let role = one(&objects, "ClusterRole");
    let mut granted = BTreeSet::new();
    for rule in role["rules"].as_array().expect("rules") {
        let keys: BTreeSet<&str> = rule
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            BTreeSet::from(["apiGroups", "resources", "verbs"]),
            "no resourceNames, no nonResourceURLs: {rule}"
        );
        let list = |key: &str| -> Vec<String> {
            rule[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        for group in list("apiGroups") {
            for resource in list("resources") {
                for verb in list("verbs") {
                    assert!(
                        granted.insert((group.clone(), resource.clone(), verb)),
                        "granted twice: {group}/{resource}"
                    );
                }
            }
        }
    }
    let extra: Vec<_> = granted.difference(&expected).collect();
    let missing: Vec<_> = expected.difference(&granted).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "ClusterRole grants more than the code watches: {extra:?}; less: {missing:?}"
    );

    let account = one(&objects, "ServiceAccount");
    let binding = one(&objects, "ClusterRoleBinding");
    assert_eq!(binding["roleRef"]["kind"], "ClusterRole");
    assert_eq!(binding["roleRef"]["name"], role["metadata"]["name"]);
    assert_eq!(
        binding["subjects"],
        json!([{"kind": "ServiceAccount", "name": account["metadata"]["name"], "namespace": NAMESPACE}])
    );
    assert_eq!(account["automountServiceAccountToken"], false);
}
