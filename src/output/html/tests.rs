//! The pages' own tests: escaping, the summary, paging, the runbook pages.

use std::sync::Arc;

use super::runbooks::markdown;
use super::*;
use crate::diagnosis::{Cause, Detail, ImagePullCause, ImagePullDetail, Runbook, TerminatingCause};
use crate::model::{Cluster, Node, Object, Time};

#[test]
fn markup_in_messages_is_escaped() {
    assert_eq!(
        escape("<script>\"x\" & 'y'</script>"),
        "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;"
    );
}

#[test]
fn markdown_renders_and_raw_html_is_shown_as_text() {
    let html = markdown("# Title\n\n`kubectl get pods`\n\n<script>alert(1)</script>\n");
    assert!(html.contains("<h1>Title</h1>"));
    assert!(html.contains("<code>kubectl get pods</code>"));
    assert!(!html.contains("<script>"));
    // A generated block's markers are not shown; what a comment hides is not run.
    let html = markdown(
        "<!-- BEGIN GENERATED: x -->\n`a`\n<!-- END GENERATED: x -->\n<!-- --><script>alert(1)</script>\n",
    );
    assert!(html.contains("<code>a</code>"), "{html}");
    assert!(
        !html.contains("GENERATED") && !html.contains("script>"),
        "{html}"
    );
}

fn pod(ns: &str, name: &str, node: &str, cause: Cause, message: &str) -> Arc<Finding> {
    Arc::new(Finding {
        kind: Kind::Pod,
        namespace: Some(ns.into()),
        name: name.into(),
        container: None,
        container_kind: None,
        owner: None,
        node: Some(node.into()),
        cause,
        since: Some("2026-11-27T05:00:00Z".parse().unwrap()),
        message: message.into(),
        detail: Detail::None,
    })
}

/// A model of `lost` nodes (NotReady since an hour) and `ready` ones, listed.
fn nodes(lost: &[&str], ready: &[&str]) -> Cluster {
    let mut cluster = Cluster::new();
    cluster.mark_listed(Kind::Node);
    for (names, status) in [(lost, "Unknown"), (ready, "True")] {
        for name in names {
            let node: Node = serde_json::from_str(&format!(
                r#"{{"metadata":{{"name":"{name}"}},"status":{{"conditions":[
                    {{"type":"Ready","status":"{status}","lastTransitionTime":"2026-11-27T05:00:00Z"}}]}}}}"#
            ))
            .unwrap();
            cluster.apply(Object::Node(node));
        }
    }
    cluster
}

fn now() -> Time {
    "2026-11-27T06:00:00Z".parse().unwrap()
}

fn snapshot_page(findings: &[Arc<Finding>], filter: &FindingFilter, paging: Paging) -> String {
    explained_page(findings, filter, paging, &RootCauses::default())
}

fn explained_page(
    findings: &[Arc<Finding>],
    filter: &FindingFilter,
    paging: Paging,
    roots: &RootCauses,
) -> String {
    let chosen: Vec<Arc<Finding>> = findings
        .iter()
        .filter(|f| filter.matches(f, roots))
        .cloned()
        .collect();
    landing(&Page {
        findings: &chosen,
        now: now(),
        links: &RunbookLinks::BaseUrl("/runbooks".into()),
        showing: Showing::Snapshot {
            file: "examples/incidents.yaml",
            taken: Some("2026-11-26T12:00:00Z".parse().unwrap()),
            objects: 42,
        },
        filter,
        paging,
        roots,
        viewer: None,
    })
}

const LOST: Cause = Cause::PodTerminating(TerminatingCause::NodeNotReady);

#[test]
fn names_and_messages_are_isolated_and_escaped() {
    // A pod name with a right-to-left override and markup: it must read as
    // text and reorder nothing outside its own cell.
    let evil = "web-\u{202E}<img src=x onerror=alert(1)>gnp";
    let page = snapshot_page(
        &[pod(
            "shop",
            evil,
            "worker-1",
            LOST,
            "<b>node</b>\u{202E} lost",
        )],
        &FindingFilter::default(),
        Paging::default(),
    );
    assert!(page.contains("<bdi>pod/shop/web-\u{202E}&lt;img src=x onerror=alert(1)&gt;gnp</bdi>"));
    assert!(page.contains("<bdi>&lt;b&gt;node&lt;/b&gt;\u{202E} lost</bdi>"));
    assert!(!page.contains("<img"));
    assert!(!page.contains("<b>"));
}

#[test]
fn a_snapshot_says_what_it_shows_and_has_no_watches() {
    let page = snapshot_page(&[], &FindingFilter::default(), Paging::default());
    assert!(page.contains("examples/incidents.yaml"), "{page}");
    assert!(page.contains("written 2026-11-26 12:00:00 UTC"), "{page}");
    assert!(page.contains("judged at 2026-11-27 06:00:00 UTC"), "{page}");
    assert!(!page.contains("Watches"), "{page}");
    assert!(page.contains("Nothing is stuck."));
}

#[test]
fn the_page_is_for_phones_and_keyboards() {
    let page = snapshot_page(
        &[pod("shop", "web-1", "worker-1", LOST, "m")],
        &FindingFilter::default(),
        Paging::default(),
    );
    assert!(
        page.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
    );
    assert!(page.contains("<a class=\"skip\" href=\"#main\">Skip to content</a>"));
    assert!(page.contains("<main id=\"main\""));
    assert!(page.contains(":focus-visible{outline:3px"));
    // Every table scrolls in its own box rather than widening the page.
    assert_eq!(
        page.matches("<table>").count(),
        page.matches("<div class=\"scroll\"").count()
    );
    assert!(!page.contains("onclick"));
}

#[test]
fn many_findings_are_summarised_then_paged() {
    let mut findings: Vec<Arc<Finding>> = (0..450)
        .map(|i| {
            pod(
                &format!("ns-{}", i % 12),
                &format!("web-{i:04}"),
                &format!("node-{}", i % 3),
                LOST,
                "NodeNotReady",
            )
        })
        .collect();
    findings.extend((0..30).map(|i| {
        let mut f = (*pod(
            "shop",
            &format!("api-{i:02}"),
            "node-9",
            Cause::ImagePull(ImagePullCause::ConnectionRefused),
            "dial tcp: connection refused",
        ))
        .clone();
        f.detail = Detail::ImagePull(Box::new(ImagePullDetail {
            image: "registry.example:5000/api:2".into(),
            registry: "registry.example:5000".into(),
            waiting_reason: "ImagePullBackOff".into(),
        }));
        Arc::new(f)
    }));
    findings.sort_by(|a, b| {
        (a.anomaly(), &a.namespace, &a.name).cmp(&(b.anomaly(), &b.namespace, &b.name))
    });
    let cluster = nodes(&["node-0", "node-1", "node-2"], &["node-9"]);
    let roots = RootCauses::of(&cluster, &findings);
    let page = explained_page(
        &findings,
        &FindingFilter::default(),
        Paging::default(),
        &roots,
    );
    assert_eq!(page.matches("<tr><td><code><bdi>pod/").count(), 200);
    assert!(page.contains("Findings 1–200 of 480."), "{page}");
    assert!(page.contains("<a href=\"/?page=2#findings\">next</a>"));
    assert!(page.contains("<a href=\"/?page=3#findings\">last</a>"));
    // What explains them: the three lost nodes, the registry, top namespaces.
    assert!(
        page.contains("<h3 id=\"roots\">Root causes (4)</h3>"),
        "{page}"
    );
    assert!(page.contains(
        "<a href=\"/?root=node%2Fnode-0#findings\"><code><bdi>node/node-0</bdi></code></a>: <code>node_lost</code> since 2026-11-27 05:00 UTC; 150 findings of 150 pods (<code><bdi>ns-0/web-0000</bdi></code>, <code><bdi>ns-0/web-0012</bdi></code>, <code><bdi>ns-0/web-0024</bdi></code>, …). <a href=\"/runbooks/kubelifecyclenodelost\">KubeLifecycleNodeLost</a>"
    ), "{page}");
    assert!(page.contains("<a href=\"/?root=registry%2Fregistry.example%3A5000#findings\"><code><bdi>registry/registry.example:5000</bdi></code></a>: <code>registry_unreachable</code> since 2026-11-27 05:00 UTC; 30 findings of 30 pods"), "{page}");
    // A finding's row names its root cause.
    assert!(page.contains(
        "<td><a href=\"/?root=node%2Fnode-0#findings\"><code><bdi>node/node-0</bdi></code></a></td>"
    ));
    // The root filter shows the findings a root explains, and only its root.
    let one = explained_page(
        &findings,
        &FindingFilter {
            root: Some("node/node-1".into()),
            ..Default::default()
        },
        Paging::default(),
        &roots,
    );
    assert!(
        one.contains("<h3 id=\"roots\">Root causes (1)</h3>"),
        "{one}"
    );
    assert!(one.contains("Findings 1–150 of 150."), "{one}");
    assert!(page.contains("<h3>Namespaces (13)</h3>"));
    assert!(page.contains("<li>and 8 more</li>"));
    assert!(page.contains("<code>connection_refused</code></a></td><td class=\"n\">30</td>"));
    assert!(page.contains("<code>node_not_ready</code></a></td><td class=\"n\">450</td>"));

    let last = snapshot_page(
        &findings,
        &FindingFilter::default(),
        Paging {
            page: Some(3),
            limit: None,
        },
    );
    assert_eq!(last.matches("<tr><td><code><bdi>pod/").count(), 80);
    assert!(last.contains("Findings 401–480 of 480."));
    let filtered = FindingFilter {
        node: Some("node-1".into()),
        ..Default::default()
    };
    let small = snapshot_page(
        &findings,
        &filtered,
        Paging {
            page: Some(2),
            limit: Some(50),
        },
    );
    assert!(
        small.contains("<a href=\"/?node=node-1&amp;page=1&amp;limit=50#findings\">first</a>"),
        "{small}"
    );
}

#[test]
fn the_runbook_index_has_each_alerts_severity_and_summary() {
    let index = runbook_index();
    assert!(index.contains("<tr><td><a href=\"/runbooks/kubelifecyclenodelost\">KubeLifecycleNodeLost</a></td><td class=\"sev-critical\">critical</td><td>Pods on a lost node cannot finish Terminating, and workloads wait on them.</td></tr>"), "{index}");
    assert_eq!(
        index.matches("<tr><td><a href=\"/runbooks/").count(),
        Runbook::ALL.len()
    );
}

#[test]
fn a_runbook_opens_on_the_objects_its_alert_covers() {
    let findings: Vec<Arc<Finding>> = (0..60)
        .map(|i| {
            pod(
                "shop",
                &format!("web-{i:02}"),
                "worker-1",
                LOST,
                "node worker-1 is NotReady",
            )
        })
        .collect();
    let roots = RootCauses::of(&nodes(&["worker-1"], &[]), &findings);
    let page = runbook(
        Runbook::NodeLost,
        &Evidence::Findings {
            findings: &findings,
            now: now(),
            links: &RunbookLinks::default(),
            roots: &roots,
        },
    );
    // It opens on the root cause it speaks for and its victims.
    assert!(
        page.contains("<p>1 root cause this alert speaks for, oldest first:</p>"),
        "{page}"
    );
    assert!(page.contains("<a href=\"/?root=node%2Fworker-1#findings\"><code><bdi>node/worker-1</bdi></code></a>: <code>node_lost</code> since 2026-11-27 05:00 UTC of 60 pods"), "{page}");
    let now_at = page.find("Right now").unwrap();
    assert!(
        now_at < page.find("Meaning").unwrap(),
        "evidence comes first"
    );
    assert!(page.contains("<p>60 objects this alert covers:</p>"));
    assert!(page.contains("<a href=\"/?anomaly=pod_terminating&amp;cause=node_not_ready#findings\"><code>pod_terminating</code> <code>node_not_ready</code></a>: 60"));
    assert!(page.contains("<p>The first 50 (the links above list every one):</p>"));
    assert_eq!(page.matches("<tr><td><code><bdi>pod/shop/web-").count(), 50);
    assert!(page.contains("<td class=\"n\">1h</td>"), "{page}");
    let quiet = runbook(
        Runbook::NodeLost,
        &Evidence::Findings {
            findings: &[],
            now: now(),
            links: &RunbookLinks::default(),
            roots: &RootCauses::default(),
        },
    );
    assert!(quiet.contains("Nothing this alert covers is happening now."));
    let exporter = runbook(
        Runbook::WatchNotSynced,
        &Evidence::Exporter {
            not_synced: &[Kind::Pod],
            errors: &[],
        },
    );
    assert!(exporter.contains("Not synced: pods."));
}

#[test]
fn an_unknown_address_lists_what_exists() {
    let page = not_found("/runbooks/<x>");
    assert!(page.contains("<code><bdi>/runbooks/&lt;x&gt;</bdi></code>"));
    for link in ["/metrics", "/findings", "/runbooks", "/readyz"] {
        assert!(page.contains(&format!("<a href=\"{link}\">")), "{link}");
    }
}

/// A restricted viewer is told what they see and why, in the same words
/// whether or not anything was hidden from them.
#[test]
fn a_restricted_viewer_is_told_what_they_see() {
    let namespaces: std::collections::BTreeSet<String> = ["ns-a".to_string()].into();
    let filter = FindingFilter::default();
    let links = RunbookLinks::BaseUrl("/runbooks".into());
    let roots = RootCauses::default();
    let page = |findings: &[Arc<Finding>]| {
        landing(&Page {
            findings,
            now: now(),
            roots: &roots,
            links: &links,
            showing: Showing::Snapshot {
                file: "f",
                taken: None,
                objects: 1,
            },
            filter: &filter,
            paging: Paging::default(),
            viewer: Some(Viewer {
                user: "alice<b>",
                all_namespaces: false,
                namespaces: &namespaces,
                nodes: false,
            }),
        })
    };
    let empty = page(&[]);
    assert!(
        empty.contains("Signed in as <code><bdi>alice&lt;b&gt;</bdi></code>"),
        "{empty}"
    );
    assert!(empty.contains("the namespaces <bdi>ns-a</bdi>"), "{empty}");
    assert!(empty.contains("need <code>list nodes</code>"), "{empty}");
    assert!(
        empty.contains("Nothing to show in what you may see."),
        "{empty}"
    );
    assert!(!empty.contains("Nothing is stuck"), "{empty}");
}
