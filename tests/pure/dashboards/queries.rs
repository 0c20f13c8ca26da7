//! The PromQL of every panel: the datasource and cluster variables,
//! label matchers, `$__rate_interval`, documented metrics, aggregations that keep
//! the object labels, findings summed across exporter shards.

use super::*;

#[test]
fn every_panel_and_target_uses_the_datasource_variable() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        for p in panels(&d).into_iter().filter(|p| !is_row(p)) {
            if p["datasource"] != datasource() {
                problems.push(format!(
                    "{file}: {}: panel datasource {}",
                    p["title"], p["datasource"]
                ));
            }
            let targets = p["targets"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            if targets.is_empty() {
                problems.push(format!("{file}: {}: no targets", p["title"]));
            }
            for t in targets {
                if t["datasource"] != datasource() {
                    problems.push(format!(
                        "{file}: {} {}: target datasource {}",
                        p["title"], t["refId"], t["datasource"]
                    ));
                }
                if t["expr"].as_str().is_none_or(str::is_empty) {
                    problems.push(format!("{file}: {} {}: no expr", p["title"], t["refId"]));
                }
            }
        }
    }
    check("panels not on ${datasource}", problems);
}

#[test]
fn every_selector_filters_on_the_cluster_variable() {
    let mut problems = Vec::new();
    for q in panel_queries() {
        let toks = tokens(&q.expr);
        for s in selectors(&toks) {
            let has = s
                .matchers
                .iter()
                .any(|(l, o, v)| (l.as_str(), o.as_str(), v.as_str()) == CLUSTER_MATCHER);
            if !has {
                problems.push(format!(
                    "{} / {}: {} has no cluster=~\"$cluster\"",
                    q.dashboard,
                    q.panel,
                    s.metric.as_deref().unwrap_or("{…}")
                ));
            }
        }
        // The same check over the raw text, the way a regex linter would see it.
        let text = &q.expr;
        let mut rest = text.as_str();
        while let Some(at) = rest.find("kube_lifecycle_") {
            let after = &rest[at..];
            let name_len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let tail = &after[name_len..];
            match tail
                .strip_prefix('{')
                .and_then(|t| t.find('}').map(|e| &t[..e]))
            {
                Some(block) if block.contains(r#"cluster=~"$cluster""#) => {}
                _ => problems.push(format!(
                    "{} / {}: {} is not followed by {{…cluster=~\"$cluster\"…}}",
                    q.dashboard,
                    q.panel,
                    &after[..name_len]
                )),
            }
            rest = &after[name_len..];
        }
    }
    check("selectors without the cluster filter", problems);
}

#[test]
fn no_kube_lifecycle_metric_is_used_without_a_label_matcher() {
    let mut problems = Vec::new();
    for q in panel_queries() {
        for (name, braced) in metric_references(&tokens(&q.expr)) {
            if !braced {
                problems.push(format!(
                    "{} / {}: {name} without {{…}}",
                    q.dashboard, q.panel
                ));
            }
        }
    }
    check("bare metric names", problems);
}

#[test]
fn every_rate_and_increase_uses_rate_interval() {
    let mut problems = Vec::new();
    let mut seen = 0;
    for q in panel_queries() {
        let toks = tokens(&q.expr);
        for (i, t) in toks.iter().enumerate() {
            let Tok::Ident(f) = t else { continue };
            if !["rate", "irate", "increase"].contains(&f.as_str()) || !is_op(toks.get(i + 1), "(")
            {
                continue;
            }
            seen += 1;
            let end = closing(&toks, i + 1);
            let arg = &toks[i + 2..end];
            let ranges: Vec<&[Tok]> = arg
                .iter()
                .enumerate()
                .filter(|(_, t)| is_op(Some(t), "["))
                .map(|(j, _)| &arg[j + 1..closing(arg, j)])
                .collect();
            let ok = !ranges.is_empty()
                && ranges
                    .iter()
                    .all(|r| *r == [Tok::Var("__rate_interval".into())]);
            if !ok {
                problems.push(format!(
                    "{} / {}: {f}(…) range {ranges:?}",
                    q.dashboard, q.panel
                ));
            }
        }
    }
    assert!(seen > 0, "no rate() at all: the check checks nothing");
    check("rates not over [$__rate_interval]", problems);
}

#[test]
fn template_variables_appear_only_in_regex_matchers() {
    // Multi-value and "All" selections expand to regexes: `=` would break them.
    let mut problems = Vec::new();
    for q in panel_queries() {
        let toks = tokens(&q.expr);
        for (i, t) in toks.iter().enumerate() {
            match t {
                Tok::Var(v) if !v.starts_with("__") => {
                    problems.push(format!(
                        "{} / {}: ${v} outside a matcher",
                        q.dashboard, q.panel
                    ));
                }
                Tok::Str(s) if s.contains('$') => {
                    let regex = matches!(toks.get(i.wrapping_sub(1)), Some(Tok::Op(o)) if o == "=~" || o == "!~");
                    if !regex {
                        problems.push(format!(
                            "{} / {}: \"{s}\" is not a regex matcher",
                            q.dashboard, q.panel
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    check("variables outside regex matchers", problems);
}

#[test]
fn every_referenced_metric_is_documented_in_docs_metrics_md() {
    let documented = documented_metrics();
    assert!(
        documented.len() > 20,
        "docs/metrics.md headings: {documented:?}"
    );
    let mut problems = Vec::new();
    for q in raw_queries() {
        let toks = tokens(&q.expr);
        let mut names: Vec<String> = toks
            .iter()
            .filter_map(|t| match t {
                Tok::Ident(n) if the_exporters(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        for s in selectors(&toks) {
            if let Some(metric) = &s.metric
                && !the_exporters(metric)
                && !PROMETHEUS_SERIES.contains(&metric.as_str())
            {
                problems.push(format!(
                    "{} / {}: {metric} is neither the exporter's nor one of Prometheus' own {PROMETHEUS_SERIES:?}",
                    q.dashboard, q.panel
                ));
            }
            for (l, o, v) in &s.matchers {
                if l != "__name__" {
                    continue;
                }
                match o.as_str() {
                    "=" => names.push(v.clone()),
                    "=~" if !documented.iter().any(|m| simple_regex_matches(v, m)) => {
                        problems.push(format!(
                            "{} / {}: __name__=~{v:?} matches no documented metric",
                            q.dashboard, q.panel
                        ));
                    }
                    _ => {}
                }
            }
        }
        for name in names {
            if documented_family(&name, &documented).is_none() {
                problems.push(format!(
                    "{} / {}: {name} is not in docs/metrics.md",
                    q.dashboard, q.panel
                ));
            }
        }
    }
    check("undocumented metrics", problems);
}

#[test]
fn aggregations_over_per_object_series_keep_cluster_and_the_object_labels() {
    let mut problems = Vec::new();
    for q in panel_queries() {
        for (op, by, arg) in aggregations(&tokens(&q.expr)) {
            // Only the innermost aggregation sees the raw per-object series.
            if !aggregations(&arg).is_empty() {
                continue;
            }
            for (metric, _) in metric_references(&arg) {
                let Some(needed) = identifying_labels(&metric) else {
                    continue;
                };
                let by = by.clone().unwrap_or_default();
                let missing: Vec<&str> = std::iter::once("cluster")
                    .chain(needed.iter().copied())
                    .filter(|l| !by.iter().any(|b| b == l))
                    .collect();
                if !missing.is_empty() {
                    problems.push(format!(
                        "{} / {}: {op} by ({}) over {metric} drops {missing:?}",
                        q.dashboard,
                        q.panel,
                        by.join(", ")
                    ));
                }
            }
        }
    }
    check("aggregations that merge objects", problems);
}

#[test]
fn findings_are_counted_with_sums_across_exporter_shards() {
    // The rule the lint applies, on an expression it must reject and one it must
    // accept.
    assert_eq!(
        findings_aggregations_that_are_not_sums(
            r#"sum(max by (cluster, anomaly, cause) (kube_lifecycle_findings{cluster=~"$cluster"}))"#
        ),
        vec!["max by (cluster, anomaly, cause)".to_string()]
    );
    assert!(
        findings_aggregations_that_are_not_sums(
            r#"sum(sum by (cluster, anomaly, cause) (kube_lifecycle_findings{cluster=~"$cluster"}))"#
        )
        .is_empty()
    );
    let mut problems = Vec::new();
    let mut seen = 0;
    for q in panel_queries() {
        if q.expr.contains("kube_lifecycle_findings") {
            seen += 1;
        }
        for agg in findings_aggregations_that_are_not_sums(&q.expr) {
            problems.push(format!(
                "{} / {}: {agg} over kube_lifecycle_findings (shards' counts add up: sum)",
                q.dashboard, q.panel
            ));
        }
    }
    assert!(
        seen > 0,
        "no query of kube_lifecycle_findings: the check checks nothing"
    );
    check("findings not summed across shards", problems);
}

#[test]
fn the_dashboards_cover_every_documented_metric_family() {
    let documented = documented_metrics();
    let used: BTreeSet<String> = panel_queries()
        .iter()
        .flat_map(|q| metric_references(&tokens(&q.expr)))
        .filter_map(|(n, _)| documented_family(&n, &documented).map(str::to_string))
        .collect();
    let missing: Vec<&String> = documented.iter().filter(|m| !used.contains(*m)).collect();
    assert!(missing.is_empty(), "on no dashboard: {missing:?}");
}
