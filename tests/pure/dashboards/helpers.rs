//! The helpers the lints rely on: the queries tests/common/dashboards.rs extracts
//! and the PromQL scanner.

use super::*;

#[test]
fn queries_include_collapsed_rows_and_variables_with_no_grafana_variable_left() {
    let all = queries();
    let raw = raw_queries();
    assert_eq!(all.len(), raw.len(), "every raw query becomes PromQL");
    for (file, d) in dashboards() {
        let nested: usize = panels(&d)
            .iter()
            .filter(|p| is_row(p))
            .flat_map(|r| r["panels"].as_array().into_iter().flatten())
            .map(|p| p["targets"].as_array().map_or(0, Vec::len))
            .sum();
        let top: usize = panels(&d)
            .iter()
            .map(|p| p["targets"].as_array().map_or(0, Vec::len))
            .sum();
        let vars = dashboards::variables(&d)
            .iter()
            .filter(|v| v["type"] == "query")
            .count();
        assert_eq!(
            all.iter().filter(|q| q.dashboard == file).count(),
            top + vars,
            "{file}"
        );
        if file == "kube-lifecycle-exporter.json" {
            assert!(
                nested > 0,
                "the exporter dashboard's collapsed process row holds queries"
            );
        }
    }
    for q in &all {
        assert!(
            !q.expr.contains('$'),
            "{} / {}: {}",
            q.dashboard,
            q.panel,
            q.expr
        );
        assert!(
            !q.expr.contains("[["),
            "{} / {}: {}",
            q.dashboard,
            q.panel,
            q.expr
        );
        assert!(!q.expr.trim().is_empty());
    }
    assert!(
        all.iter().any(|q| q.panel == "variable cluster"
            && q.expr.replace(' ', "") == "groupby(cluster)(kube_lifecycle_build_info)"),
        "{all:#?}"
    );
}

#[test]
fn substitute_replaces_grafana_variables_for_plain_prometheus() {
    assert_eq!(
        substitute(
            r#"sum(rate(m{cluster=~"$cluster", namespace=~"${namespace}"}[$__rate_interval]))"#
        ),
        r#"sum(rate(m{cluster=~".*", namespace=~".*"}[1m]))"#
    );
    assert_eq!(
        substitute("x[$__interval] offset $__range"),
        "x[30s] offset 1h"
    );
    assert_eq!(
        substitute(r#"m{job=~"${job:regex}", a=~"[[a]]"}"#),
        r#"m{job=~".*", a=~".*"}"#
    );
    assert_eq!(substitute("${__rate_interval}"), "1m");
    assert_eq!(substitute("a $ b"), "a $ b");
}

#[test]
fn variable_queries_become_instant_promql() {
    assert_eq!(
        variable_promql("label_values(kube_lifecycle_build_info, cluster)").as_deref(),
        Some("group by (cluster) (kube_lifecycle_build_info)")
    );
    assert_eq!(
        variable_promql(r#"label_values({__name__=~"a.+", cluster=~"$cluster"}, namespace)"#)
            .as_deref(),
        Some(r#"group by (namespace) ({__name__=~"a.+", cluster=~"$cluster"})"#)
    );
    assert_eq!(
        variable_promql("label_values(job)").as_deref(),
        Some(r#"group by (job) ({job!=""})"#)
    );
    assert_eq!(variable_promql("query_result(up)").as_deref(), Some("up"));
    assert_eq!(variable_promql("label_names()"), None);
}

#[test]
fn the_promql_scanner_finds_what_the_lints_rely_on() {
    let toks = tokens(
        r#"max by (cluster, pod) (time() - kube_lifecycle_x{cluster=~"$cluster", a!="b"}) or kube_lifecycle_y"#,
    );
    assert_eq!(
        metric_references(&toks),
        vec![
            ("kube_lifecycle_x".to_string(), true),
            ("kube_lifecycle_y".to_string(), false)
        ]
    );
    let s = selectors(&toks);
    assert_eq!(s.len(), 1);
    assert_eq!(
        s[0].matchers[0],
        ("cluster".into(), "=~".into(), "$cluster".into())
    );
    let aggs = aggregations(&toks);
    assert_eq!(aggs.len(), 1);
    assert_eq!(
        aggs[0].1,
        Some(vec!["cluster".to_string(), "pod".to_string()])
    );
    assert!(simple_regex_matches(
        "kube_lifecycle_.+_since_timestamp_seconds",
        "kube_lifecycle_pod_pending_since_timestamp_seconds"
    ));
    assert!(!simple_regex_matches(
        "kube_lifecycle_.+_since_timestamp_seconds",
        "kube_lifecycle_findings"
    ));
}
