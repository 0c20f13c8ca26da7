//! The dashboards' files and layout: stable uids, schema and settings, tags,
//! template variables, descriptions and units, panel ids, grid positions, rows,
//! panel types.

use super::*;

#[test]
fn every_dashboard_file_is_valid_json_with_the_expected_stable_uid() {
    let found: BTreeMap<String, String> = dashboards()
        .into_iter()
        .map(|(file, d)| (file, d["uid"].as_str().unwrap_or("").to_string()))
        .collect();
    let expected: BTreeMap<String, String> = EXPECTED
        .iter()
        .map(|(f, u)| (f.to_string(), u.to_string()))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn dashboards_use_the_current_schema_and_standard_settings() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        let mut bad = |what: &str, ok: bool| {
            if !ok {
                problems.push(format!("{file}: {what}"));
            }
        };
        bad(
            "schemaVersion >= 39",
            d["schemaVersion"].as_u64().unwrap_or(0) >= 39,
        );
        bad("editable true", d["editable"] == true);
        // The mixin's _config.dashboardRefresh and dashboardTimezone.
        bad("refresh 1m", d["refresh"] == "1m");
        bad("timezone browser", d["timezone"] == "browser");
        bad(
            "the refresh interval offered in the time picker",
            d["timepicker"]["refresh_intervals"]
                .as_array()
                .is_some_and(|l| l.contains(&d["refresh"])),
        );
        bad(
            "time from now-6h to now",
            d["time"] == json!({"from": "now-6h", "to": "now"}),
        );
        bad(
            "a title",
            d["title"].as_str().is_some_and(|t| !t.is_empty()),
        );
        bad(
            "a description",
            d["description"].as_str().is_some_and(|t| !t.is_empty()),
        );
        bad("no fixed numeric id", d["id"].is_null());
    }
    check("dashboard settings", problems);
}

#[test]
fn every_dashboard_is_tagged_kube_lifecycle() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        let tags: Vec<&str> = d["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !tags.contains(&TAG) {
            problems.push(format!("{file}: tags {tags:?}"));
        }
    }
    check("dashboards without the kube-lifecycle tag", problems);
}

#[test]
fn datasource_and_cluster_template_variables_are_defined() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        match variable(&d, "datasource") {
            Some(v) if v["type"] == "datasource" && v["query"] == "prometheus" => {}
            other => problems.push(format!(
                "{file}: datasource variable must be type datasource, query prometheus: {other:?}"
            )),
        }
        match variable(&d, "cluster") {
            Some(v) => {
                let query = variable_query_text(v).unwrap_or("").replace(' ', "");
                if v["type"] != "query"
                    || query != "label_values(kube_lifecycle_build_info,cluster)"
                    || v["includeAll"] != true
                    || v["allValue"] != ".*"
                    || v["datasource"] != datasource()
                {
                    problems.push(format!(
                        "{file}: cluster must be a query variable on label_values(kube_lifecycle_build_info, cluster) \
                         with includeAll and allValue .* from ${{datasource}}: {v}"
                    ));
                }
            }
            None => problems.push(format!("{file}: no cluster variable")),
        }
        for v in dashboards::variables(&d) {
            if v["type"] == "query" && v["datasource"] != datasource() {
                problems.push(format!(
                    "{file}: variable {} does not query ${{datasource}}",
                    v["name"]
                ));
            }
        }
    }
    check("template variables", problems);
}

#[test]
fn namespace_dashboard_has_a_multi_value_namespace_variable_listing_namespaces_with_findings() {
    let (_, d) = dashboards()
        .into_iter()
        .find(|(f, _)| f == "kube-lifecycle-namespace.json")
        .expect("the namespace dashboard");
    let v = variable(&d, "namespace").expect("a namespace variable");
    assert_eq!(v["type"], "query");
    assert_eq!(v["multi"], true);
    assert_eq!(v["includeAll"], true);
    assert_eq!(v["allValue"], ".*");
    let query = variable_query_text(v).expect("a query");
    assert!(query.starts_with("label_values("), "{query}");
    assert!(query.contains(r#"cluster=~"$cluster""#), "{query}");
    assert!(query.replace(' ', "").ends_with(",namespace)"), "{query}");
    // Every panel query of the namespace dashboard is restricted to the selection.
    let mut problems = Vec::new();
    for q in panel_queries()
        .iter()
        .filter(|q| q.dashboard == "kube-lifecycle-namespace.json")
    {
        for s in selectors(&tokens(&q.expr)) {
            if !s
                .matchers
                .iter()
                .any(|(l, o, v)| l == "namespace" && o == "=~" && v == "$namespace")
            {
                problems.push(format!(
                    "{}: {} has no namespace=~\"$namespace\"",
                    q.panel,
                    s.metric.unwrap_or_default()
                ));
            }
        }
    }
    check("namespace dashboard selectors", problems);
}

#[test]
fn every_panel_has_a_description_and_a_unit() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        for p in panels(&d).into_iter().filter(|p| !is_row(p)) {
            if p["description"]
                .as_str()
                .is_none_or(|s| s.trim().is_empty())
            {
                problems.push(format!("{file}: {}: no description", p["title"]));
            }
            if p["fieldConfig"]["defaults"]["unit"]
                .as_str()
                .is_none_or(str::is_empty)
            {
                problems.push(format!(
                    "{file}: {}: no fieldConfig.defaults.unit",
                    p["title"]
                ));
            }
        }
    }
    check("panels without description or unit", problems);
}

#[test]
fn panel_ids_and_titles_are_unique_within_each_dashboard() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        let mut ids = BTreeSet::new();
        let mut titles = BTreeSet::new();
        for p in panels(&d) {
            match p["id"].as_u64() {
                Some(id) if ids.insert(id) => {}
                Some(id) => problems.push(format!("{file}: id {id} twice")),
                None => problems.push(format!("{file}: {} has no id", p["title"])),
            }
            match p["title"].as_str() {
                Some(t) if t.trim().is_empty() => {
                    problems.push(format!("{file}: empty title (id {})", p["id"]))
                }
                Some(t) if !titles.insert(t.to_string()) => {
                    problems.push(format!("{file}: title {t:?} twice"))
                }
                Some(_) => {}
                None => problems.push(format!("{file}: no title (id {})", p["id"])),
            }
        }
    }
    check("duplicate panel ids or titles", problems);
}

#[test]
fn every_panel_has_a_grid_position_inside_the_grid_without_overlaps() {
    type Rect = (u64, u64, u64, u64);
    fn rect(p: &Value) -> Option<Rect> {
        let g = &p["gridPos"];
        Some((
            g["x"].as_u64()?,
            g["y"].as_u64()?,
            g["w"].as_u64()?,
            g["h"].as_u64()?,
        ))
    }
    fn overlaps(a: Rect, b: Rect) -> bool {
        a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
    }
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        // The top level, and separately the panels each collapsed row holds.
        let mut groups: Vec<Vec<&Value>> = vec![d["panels"].as_array().unwrap().iter().collect()];
        for p in panels(&d) {
            if let Some(inner) = p["panels"].as_array().filter(|a| !a.is_empty()) {
                groups.push(inner.iter().collect());
            }
        }
        for group in groups {
            let mut placed: Vec<(Rect, &Value)> = Vec::new();
            for p in group {
                let Some(r) = rect(p) else {
                    problems.push(format!("{file}: {} has no complete gridPos", p["title"]));
                    continue;
                };
                if r.2 == 0 || r.3 == 0 || r.0 + r.2 > 24 {
                    problems.push(format!(
                        "{file}: {} gridPos {r:?} outside the 24-column grid",
                        p["title"]
                    ));
                }
                for (other, q) in &placed {
                    if overlaps(r, *other) {
                        problems.push(format!("{file}: {} overlaps {}", p["title"], q["title"]));
                    }
                }
                placed.push((r, p));
            }
        }
    }
    check("grid positions", problems);
}

#[test]
fn panels_are_grouped_in_rows() {
    for (file, d) in dashboards() {
        let top = d["panels"].as_array().expect("panels");
        assert!(is_row(&top[0]), "{file}: the first panel is not a row");
        assert!(
            top.iter().filter(|p| is_row(p)).count() >= 3,
            "{file}: fewer than 3 rows"
        );
    }
}

#[test]
fn no_deprecated_or_unexpected_panel_types() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        for p in panels(&d) {
            let ty = p["type"].as_str().unwrap_or("");
            if DEPRECATED_PANELS.contains(&ty) {
                problems.push(format!(
                    "{file}: {}: deprecated panel type {ty}",
                    p["title"]
                ));
            } else if !ALLOWED_PANELS.contains(&ty) {
                problems.push(format!(
                    "{file}: {}: panel type {ty:?} not in {ALLOWED_PANELS:?}",
                    p["title"]
                ));
            }
        }
    }
    check("panel types", problems);
}
