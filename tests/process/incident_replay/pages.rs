//! The incidents replayed together: each pages once, as often as the bar says,
//! and never flaps across a missed scrape or a restart.

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn incidents_page_once_and_never_flap() {
    let dir = tempfile::tempdir().unwrap();
    let (receiver, received) = start_receiver().await;

    // Each incident alone, and those the kubernetes-mixin also alerts on a
    // second time beside its alerts: (cluster, incident, with the mixin).
    let mut runs: Vec<(String, &Incident, bool)> = Vec::new();
    for incident in INCIDENTS {
        runs.push((incident.name.to_string(), incident, false));
        if !mixin_of(incident).is_empty() {
            runs.push((format!("{}-with-mixin", incident.name), incident, true));
        }
    }
    let mut running: BTreeMap<&str, Running> = BTreeMap::new();
    for (cluster, incident, _) in &runs {
        let dump = dir.path().join(format!("{cluster}.json"));
        let list = json!({"apiVersion": "v1", "kind": "List", "items": (incident.objects)()});
        std::fs::write(&dump, serde_json::to_vec_pretty(&list).unwrap()).unwrap();
        let exporter = start_exporter(&dump);
        let (proxy, address) = Proxy::start().await;
        proxy.point_at(Some(&exporter.base));
        running.insert(
            cluster.as_str(),
            Running {
                dump,
                proxy,
                address,
                exporter: Some(exporter),
            },
        );
    }

    let mixin_inhibitions =
        std::fs::read_to_string(root().join("alerts/kubernetes-mixin-inhibitions.yaml")).unwrap();
    let (_alertmanager, am_port) = alertmanager(
        dir.path(),
        &alertmanager_config(&receiver, Some(&mixin_inhibitions)),
    );
    std::fs::write(dir.path().join("rules.yaml"), shortened_rules()).unwrap();
    std::fs::write(dir.path().join("mixin.yaml"), mixin_rules(&runs)).unwrap();
    let targets: String = running
        .iter()
        .map(|(name, r)| {
            format!(
                "      - targets: ['{}']\n        labels: {{cluster: {name}}}\n",
                r.address
            )
        })
        .collect();
    let config = format!(
        "global: {{scrape_interval: 1s, evaluation_interval: 1s}}\n\
         rule_files: [{rules}, {mixin}]\n\
         alerting:\n  alertmanagers: [{{static_configs: [{{targets: ['127.0.0.1:{am_port}']}}]}}]\n\
         scrape_configs:\n  - job_name: kube-lifecycle-exporter\n    honor_labels: true\n    static_configs:\n{targets}",
        rules = dir.path().join("rules.yaml").display(),
        mixin = dir.path().join("mixin.yaml").display(),
    );
    let (prometheus, prom) = common::daemons::prometheus(dir.path(), &config);

    let of = |cluster: &str, severity: &str| -> Vec<Notification> {
        received
            .lock()
            .unwrap()
            .iter()
            .filter(|n| n.cluster() == Some(cluster) && n.severity == severity)
            .cloned()
            .collect()
    };
    let report = || {
        format!(
            "{}\nreceived: {:#?}",
            prometheus.log(),
            received.lock().unwrap()
        )
    };

    // 1. Every expected page and ticket arrives.
    wait_until(
        "every incident's first notifications",
        Duration::from_secs(120),
        report,
        || {
            runs.iter()
                .all(|(cluster, i, _)| {
                    of(cluster, "critical").len() >= i.pages
                        && of(cluster, "warning").len() >= i.tickets.0
                })
                .then_some(())
        },
    )
    .await;

    // 2. Mid-incident: a failed scrape, then an exporter restart, for the disturbed ones.
    let disturbed: Vec<&str> = runs
        .iter()
        .filter(|(_, i, _)| i.disturbed)
        .map(|(cluster, _, _)| cluster.as_str())
        .collect();
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let up_is = async |up: f64, what: &str| {
        wait_until_async(what, Duration::from_secs(30), report, async || {
            scraped(&http, &prom, &disturbed, up).await.then_some(())
        })
        .await
    };
    for cluster in &disturbed {
        running[cluster].proxy.point_at(None);
    }
    up_is(0.0, "a failed scrape of each disturbed exporter").await;
    for cluster in &disturbed {
        let r = running.get_mut(cluster).unwrap();
        r.proxy
            .point_at(r.exporter.as_ref().map(|e| e.base.as_str()));
    }
    up_is(1.0, "each disturbed exporter scraped again").await;
    // The two gaps stay apart: the rules see the exporters back in between.
    wait_until_async(
        "the rules to see the disturbed exporters again (nothing only kept firing)",
        Duration::from_secs(30),
        report,
        async || (!kept_firing(&http, &prom, &disturbed).await).then_some(()),
    )
    .await;
    for cluster in &disturbed {
        let r = running.get_mut(cluster).unwrap();
        r.proxy.point_at(None);
        r.exporter.take().unwrap().terminate();
    }
    up_is(0.0, "a failed scrape of each stopped exporter").await;
    for cluster in &disturbed {
        let r = running.get_mut(cluster).unwrap();
        let exporter = start_exporter(&r.dump);
        r.proxy.point_at(Some(&exporter.base));
        r.exporter = Some(exporter);
    }
    up_is(1.0, "each restarted exporter scraped").await;

    // 3. Count once nothing more is on its way: every `for` run out (no
    // alert pending), no alert only kept firing through the gap, and
    // everything that fires notified or suppressed. A flap would show as a
    // resolved notification or a pending alert that fires again.
    common::alerting::wait_settled(
        &http,
        Some(&prom),
        &format!("http://127.0.0.1:{am_port}"),
        &received,
        Duration::from_secs(120),
        report,
    )
    .await;
    let mut problems = Vec::new();
    for (cluster, incident, _) in &runs {
        let cluster = cluster.as_str();
        let pages = of(cluster, "critical");
        let tickets = of(cluster, "warning");
        if pages.len() != incident.pages {
            problems.push(format!(
                "{}: {} page(s), want {}: {pages:#?}",
                cluster,
                pages.len(),
                incident.pages
            ));
        }
        if let Some(alert) = incident.page {
            for page in &pages {
                if page.names() != [alert] {
                    problems.push(format!(
                        "{cluster}: paged for {:?}, want {alert}",
                        page.names()
                    ));
                }
            }
        }
        if let Some(alert) = incident.ticket {
            for ticket in &tickets {
                if ticket.names().iter().any(|n| n != alert) {
                    problems.push(format!(
                        "{cluster}: ticket for {:?}, want {alert}",
                        ticket.names()
                    ));
                }
                // The one notification names the cause.
                if ticket
                    .alerts
                    .iter()
                    .any(|a| a["labels"]["cause"].as_str().is_none_or(str::is_empty))
                {
                    problems.push(format!("{cluster}: a ticket without a cause: {ticket:#?}"));
                }
            }
        }
        if tickets.len() < incident.tickets.0 || tickets.len() > incident.tickets.1 {
            problems.push(format!(
                "{}: {} ticket(s), want {:?}: {tickets:#?}",
                cluster,
                tickets.len(),
                incident.tickets
            ));
        }
        for n in pages.iter().chain(&tickets) {
            if n.status != "firing" || n.alerts.iter().any(|a| a["status"] != "firing") {
                problems.push(format!("{cluster}: resolved mid-incident (a flap): {n:#?}"));
            }
        }
        let info = of(cluster, "info");
        if !info.is_empty() {
            problems.push(format!("{cluster}: info notifications {info:#?}"));
        }
    }
    // Every notification about a root cause says the incident, rendered by the
    // shipped templates as Alertmanager renders them.
    let rooted: Vec<Notification> = received
        .lock()
        .unwrap()
        .iter()
        .filter(|n| {
            n.alerts
                .iter()
                .any(|a| a["labels"]["root_kind"].is_string())
        })
        .cloned()
        .collect();
    if !rooted.iter().any(|n| n.cluster() == Some("node-lost")) {
        problems.push("the lost node's page carries no root cause".into());
    }
    for n in &rooted {
        problems.extend(incident_said(dir.path(), n));
    }
    // An alert with no cluster (KubeSchedulerDown's absent()) belongs to no
    // incident: none may notify.
    let unattributed: Vec<Notification> = received
        .lock()
        .unwrap()
        .iter()
        .filter(|n| n.cluster().is_none())
        .cloned()
        .collect();
    if !unattributed.is_empty() {
        problems.push(format!("notifications of no cluster: {unattributed:#?}"));
    }
    assert!(
        problems.is_empty(),
        "{}\n{}",
        problems.join("\n"),
        prometheus.log()
    );
}

/// What is wrong with how the shipped notification templates say a root
/// cause's notification: its title names the alert and the root, its text and
/// Slack text its victims by kind, examples, since when, and its links.
fn incident_said(dir: &Path, n: &Notification) -> Vec<String> {
    use common::alerting::render_template;
    let mut problems = Vec::new();
    let alert = &n.alerts[0];
    let name = alert["labels"]["alertname"].as_str().unwrap_or_default();
    let root_kind = alert["labels"]["root_kind"].as_str().unwrap_or_default();
    let title = render_template(dir, "kube_lifecycle.title", &n.body);
    if !title.contains(name) || !title.contains(root_kind) {
        problems.push(format!("{name}: title {title:?}"));
    }
    let text = render_template(dir, "kube_lifecycle.text", &n.body);
    let slack = render_template(dir, "kube_lifecycle.slack.text", &n.body);
    let explains = |s: &str, prefix: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .map(str::trim)
            .unwrap_or_default()
            .to_string()
    };
    for (what, rendered, victims, examples) in [
        (
            "text",
            &text,
            explains(&text, "Explains: "),
            explains(&text, "For example: "),
        ),
        (
            "slack",
            &slack,
            explains(&slack, "*Explains:* "),
            explains(&slack, "*For example:* "),
        ),
    ] {
        // `2 pods, 1 deployment`: a count and a kind of victim.
        let counted = victims.split(", ").all(|v| {
            v.split_once(' ')
                .is_some_and(|(n, _)| n.parse::<u64>().is_ok())
        });
        if victims.is_empty() || !counted {
            problems.push(format!(
                "{name} ({what}): no victims by kind in {rendered:?}"
            ));
        }
        if examples.is_empty() || !examples.contains('/') {
            problems.push(format!("{name} ({what}): no examples in {rendered:?}"));
        }
        let findings = alert["annotations"]["findings_url"].as_str().unwrap_or("-");
        if !rendered.contains(findings) || !findings.contains("/?root=") {
            problems.push(format!(
                "{name} ({what}): no link to its findings in {rendered:?}"
            ));
        }
        let runbook = alert["annotations"]["runbook_url"].as_str().unwrap_or("-");
        if !rendered.contains(runbook) {
            problems.push(format!("{name} ({what}): no runbook in {rendered:?}"));
        }
    }
    if !text.contains("\nSince: ") {
        problems.push(format!("{name}: no since in {text:?}"));
    }
    problems
}
