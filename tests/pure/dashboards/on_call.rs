//! What an on-call engineer needs (issue 19): links to the runbook of each cause
//! and to the landing page, the exporter URL variable, the pages firing now at the
//! top of the overview, ages as durations, links between the dashboards.

use super::*;

#[test]
fn every_finding_panel_links_the_runbook_of_its_cause_and_the_landing_page() {
    let documented = documented_anomalies();
    assert!(
        documented.len() > 15
            && documented
                .values()
                .any(|a| a.iter().any(|a| a == "pod_terminating")),
        "anomalies of docs/metrics.md: {documented:?}"
    );
    let mut problems = Vec::new();
    let mut checked = 0;
    for (file, d) in dashboards() {
        for p in panels(&d).into_iter().filter(|p| !is_row(p)) {
            let anomalies = panel_anomalies(p, &documented);
            if anomalies.is_empty() {
                continue;
            }
            checked += 1;
            let mut bad = |what: String| problems.push(format!("{file}: {}: {what}", p["title"]));
            let links = value_links(p);
            let exporter: Vec<&str> = links
                .iter()
                .filter_map(|l| l["url"].as_str())
                .filter(|u| u.starts_with(EXPORTER))
                .collect();
            for l in &links {
                let url = l["url"].as_str().unwrap_or("");
                if url.starts_with(EXPORTER)
                    && (l["targetBlank"] != true || l["title"].as_str().is_none_or(str::is_empty))
                {
                    bad(format!("link {url} needs a title and targetBlank"));
                }
            }
            let is_table = p["type"] == "table";
            let columns = table_columns(p);
            let by_cause = if is_table {
                columns.contains("cause")
            } else {
                p["targets"].as_array().into_iter().flatten().any(|t| {
                    t["legendFormat"]
                        .as_str()
                        .is_some_and(|l| l.contains("{{cause}}"))
                })
            };
            let cause_variable = if is_table {
                "${__data.fields.cause}"
            } else {
                "${__field.labels.cause}"
            };

            // The runbook: of the cause when the panel shows causes, else the index.
            let runbooks: Vec<&str> = exporter
                .iter()
                .copied()
                .filter(|u| u.starts_with(&format!("{EXPORTER}/runbooks")))
                .collect();
            if runbooks.is_empty() {
                bad(format!("no link to {EXPORTER}/runbooks"));
            }
            let mut cause_runbook = false;
            for url in &runbooks {
                let Some(rest) = url.strip_prefix(&format!("{EXPORTER}/runbooks/for/")) else {
                    continue;
                };
                let (anomaly, cause) = rest.split_once('/').unwrap_or((rest, ""));
                if !anomalies.contains(anomaly) {
                    bad(format!(
                        "runbook link {url}: {anomaly} is not the panel's anomaly {anomalies:?}"
                    ));
                }
                let literal = p["targets"].as_array().into_iter().flatten().any(|t| {
                    selectors(&tokens(t["expr"].as_str().unwrap_or("")))
                        .iter()
                        .flat_map(|s| &s.matchers)
                        .any(|(l, o, v)| l == "cause" && o == "=" && v == cause)
                });
                if cause == cause_variable {
                    cause_runbook = true;
                } else if !literal {
                    bad(format!(
                        "runbook link {url}: the cause is neither {cause_variable} nor the panel's cause=\"…\""
                    ));
                }
            }
            if by_cause && !cause_runbook {
                bad(format!(
                    "shows causes but links no {EXPORTER}/runbooks/for/<anomaly>/{cause_variable}"
                ));
            }

            // The landing page, filtered on each anomaly the panel shows (on the
            // row's namespace in tables that have one).
            let landing: Vec<BTreeMap<String, String>> = exporter
                .iter()
                .filter(|u| {
                    u.starts_with(&format!("{EXPORTER}/?")) || **u == format!("{EXPORTER}/")
                })
                .map(|u| link_parameters(u))
                .collect();
            for anomaly in &anomalies {
                let found = landing.iter().any(|params| match params.get("anomaly") {
                    Some(a) if anomaly == "*" => a.starts_with("${"),
                    Some(a) => a == anomaly,
                    None => false,
                });
                if !found {
                    bad(format!("no link to {EXPORTER}/?anomaly={anomaly}"));
                }
            }
            if is_table && columns.contains("namespace") {
                let filtered = landing.iter().any(|params| {
                    params.get("namespace").map(String::as_str)
                        == Some("${__data.fields.namespace}")
                });
                if !filtered {
                    bad("a table with namespaces links no landing page &namespace=${__data.fields.namespace}".into());
                }
            }
        }
    }
    assert!(
        checked > 30,
        "only {checked} finding panels: the check checks little"
    );
    check("finding panels without their links", problems);
}

#[test]
fn the_exporter_url_is_a_described_textbox_variable_and_every_link_uses_it() {
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        match variable(&d, "exporter") {
            Some(v) => {
                let url = v["query"].as_str().unwrap_or("");
                if v["type"] != "textbox"
                    || v["label"] != "Exporter URL"
                    || v["description"]
                        .as_str()
                        .is_none_or(|s| s.trim().is_empty())
                    || !(url.starts_with("http://") || url.starts_with("https://"))
                    || url.ends_with('/')
                    || v["current"]["value"] != url
                {
                    problems.push(format!(
                        "{file}: exporter must be a textbox labelled \"Exporter URL\" with a description and \
                         an http(s) address without a trailing / as its default and current value: {v}"
                    ));
                }
            }
            None => problems.push(format!("{file}: no exporter variable")),
        }
        // Every data link opens the exporter or a dashboard of the pack: no host
        // written into a link.
        for p in panels(&d) {
            for l in panel_links(p) {
                let url = l["url"].as_str().unwrap_or("");
                if !(url.starts_with(&format!("{EXPORTER}/")) || url.starts_with("/d/")) {
                    problems.push(format!("{file}: {}: link {url}", p["title"]));
                }
            }
        }
    }
    check("exporter variable and links", problems);
}

#[test]
fn the_overview_shows_the_pages_firing_now_at_its_top() {
    // The page severity is one the rule file uses.
    let rules = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("alerts/kube-lifecycle.rules.yaml"),
    )
    .expect("alerts/kube-lifecycle.rules.yaml");
    let severities: BTreeSet<&str> = rules
        .lines()
        .filter_map(|l| l.trim().strip_prefix("severity:"))
        .map(|v| v.trim().trim_matches('"'))
        .collect();
    assert!(
        severities.contains(PAGE_SEVERITY) && severities.contains(TICKET_SEVERITY),
        "the rules' severities {severities:?}"
    );

    let (file, d) = dashboards()
        .into_iter()
        .find(|(f, _)| f == "kube-lifecycle-overview.json")
        .expect("the overview");
    let all = panels(&d);
    let p = *all
        .iter()
        .find(|p| p["title"] == "What pages right now")
        .unwrap_or_else(|| panic!("{file}: no \"What pages right now\" panel"));
    let mut problems = Vec::new();
    let mut bad = |what: String| problems.push(format!("{file}: What pages right now: {what}"));
    if p["type"] != "table" {
        bad(format!("a {} rather than a table", p["type"]));
    }
    let top = all
        .iter()
        .filter(|q| !is_row(q))
        .filter_map(|q| q["gridPos"]["y"].as_u64())
        .min();
    if p["gridPos"]["y"].as_u64() != top {
        bad(format!(
            "at y {} rather than at the top ({top:?})",
            p["gridPos"]["y"]
        ));
    }
    let targets = p["targets"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if targets.len() != 1 || targets[0]["instant"] != true || targets[0]["format"] != "table" {
        bad("not one instant table query".into());
    }
    let expr = targets
        .first()
        .and_then(|t| t["expr"].as_str())
        .unwrap_or("");
    let toks = tokens(expr);
    // One row per alert: the series as they are, not aggregated.
    if !aggregations(&toks).is_empty() {
        bad(format!("aggregates the alerts: {expr}"));
    }
    let sels = selectors(&toks);
    let alerts = sels.iter().find(|s| s.metric.as_deref() == Some("ALERTS"));
    match alerts {
        Some(s) => {
            let has = |l: &str, o: &str, v: &str| {
                s.matchers
                    .iter()
                    .any(|m| (m.0.as_str(), m.1.as_str(), m.2.as_str()) == (l, o, v))
            };
            for (l, o, v) in [
                ("alertstate", "=", "firing"),
                ("severity", "=", PAGE_SEVERITY),
                ("alertname", "=~", "KubeLifecycle.+"),
                CLUSTER_MATCHER,
            ] {
                if !has(l, o, v) {
                    bad(format!("ALERTS without {l}{o}\"{v}\": {expr}"));
                }
            }
        }
        None => bad(format!("does not query ALERTS: {expr}")),
    }
    // Every label that identifies the alert stays a column.
    for t in p["transformations"].as_array().into_iter().flatten() {
        for (name, excluded) in t["options"]["excludeByName"]
            .as_object()
            .into_iter()
            .flatten()
        {
            let shared = [
                "Time",
                "Value",
                "Value #A",
                "__name__",
                "alertstate",
                "severity",
            ];
            if *excluded == true && !shared.contains(&name.as_str()) {
                bad(format!("hides the {name} column"));
            }
        }
    }
    let runbook = format!("{EXPORTER}/runbooks/${{__data.fields.alertname}}");
    if !panel_links(p)
        .iter()
        .any(|l| l["url"] == runbook.as_str() && l["targetBlank"] == true)
    {
        bad(format!("no data link to {runbook}"));
    }
    // The tickets firing are counted beside it.
    let tickets = all.iter().any(|q| {
        q["targets"].as_array().into_iter().flatten().any(|t| {
            selectors(&tokens(t["expr"].as_str().unwrap_or("")))
                .iter()
                .any(|s| {
                    s.metric.as_deref() == Some("ALERTS")
                        && s.matchers
                            .iter()
                            .any(|(l, o, v)| l == "severity" && o == "=" && v == TICKET_SEVERITY)
                })
        })
    });
    if !tickets {
        bad(format!(
            "no panel of the alerts firing at {TICKET_SEVERITY}"
        ));
    }
    check("the paging panel", problems);
}

#[test]
fn time_tables_show_ages_as_durations() {
    // A table over `time() - …since_timestamp_seconds` must render a duration, not a
    // number of seconds or a date.
    let mut problems = Vec::new();
    for (file, d) in dashboards() {
        for p in panels(&d).into_iter().filter(|p| p["type"] == "table") {
            for t in p["targets"].as_array().into_iter().flatten() {
                let expr = t["expr"].as_str().unwrap_or("");
                if !expr.contains("time() -") {
                    continue;
                }
                let units: Vec<&str> = std::iter::once(&p["fieldConfig"]["defaults"]["unit"])
                    .chain(
                        p["fieldConfig"]["overrides"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .flat_map(|o| o["properties"].as_array().into_iter().flatten())
                            .filter(|prop| prop["id"] == "unit")
                            .map(|prop| &prop["value"]),
                    )
                    .filter_map(Value::as_str)
                    .collect();
                if !units
                    .iter()
                    .any(|u| ["dtdurations", "dtdurationms", "s"].contains(u))
                {
                    problems.push(format!(
                        "{file}: {}: ages without a duration unit ({units:?})",
                        p["title"]
                    ));
                }
                if t["instant"] != true || t["format"] != "table" {
                    problems.push(format!(
                        "{file}: {} {}: not an instant table query",
                        p["title"], t["refId"]
                    ));
                }
            }
        }
    }
    check("age tables", problems);
}

#[test]
fn every_dashboard_links_to_the_others() {
    for (file, d) in dashboards() {
        let by_tag = d["links"].as_array().into_iter().flatten().any(|l| {
            l["type"] == "dashboards"
                && l["tags"]
                    .as_array()
                    .is_some_and(|t| t.contains(&json!(TAG)))
        });
        for (_, other) in EXPECTED.iter().filter(|(f, _)| *f != file) {
            let by_url = d.to_string().contains(&format!("/d/{other}"));
            assert!(by_tag || by_url, "{file}: no link to {other}");
        }
    }
}
