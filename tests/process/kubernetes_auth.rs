//! `--auth kubernetes` with the real binary serving examples/incidents.yaml,
//! its tokens reviewed by the fake API server (TokenReview and
//! SubjectAccessReview, answered from a table of tokens and rules): two teams
//! each see exactly their namespace's findings on every endpoint and in every
//! count, a scraper scrapes, missing, rejected and denied requests get 401
//! and 403 without a byte of findings, an outage of the reviews fails closed,
//! a burst with one token makes a bounded number of reviews, and an exporter
//! that may not create the reviews refuses to start.

use crate::common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::exporter::{BIN, Exporter, samples};
use fake_apiserver::{FakeApiServer, Fault, Rule, Subject, TokenUser};
use serde_json::Value;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");

/// The tokens the fake accepts, and who they are.
pub(crate) const PAYMENTS: &str = "token-of-pat";
const WEB: &str = "token-of-wendy";
const PROMETHEUS: &str = "token-of-prometheus";
const ADMIN: &str = "token-of-the-admin";
/// Accepted by the fake only for another audience.
const VAULT: &str = "token-for-vault";

/// The fake with two teams (payments and web, each allowed to list pods in
/// its namespace), Prometheus (get /metrics) and an admin (pods everywhere
/// and nodes), and the exporter serving the example with their tokens reviewed.
pub(crate) struct Cluster {
    pub(crate) api: FakeApiServer,
    pub(crate) exporter: Exporter,
    _dir: tempfile::TempDir,
    http: reqwest::Client,
}

pub(crate) async fn cluster() -> Cluster {
    let api = FakeApiServer::start().await.unwrap();
    api.add_token(PAYMENTS, TokenUser::new("pat", &["team-payments"]));
    api.add_token(WEB, TokenUser::new("wendy", &["team-web"]));
    api.add_token(
        PROMETHEUS,
        TokenUser::new("system:serviceaccount:monitoring:prometheus", &[]),
    );
    api.add_token(ADMIN, TokenUser::new("admin", &["platform"]));
    api.add_token(
        VAULT,
        TokenUser::new("vault-job", &[]).for_audiences(&["vault"]),
    );
    api.grant(
        Subject::Group("team-payments".into()),
        Rule::resource(&["get", "list", "watch"], "", "pods", Some("payments")),
    );
    api.grant(
        Subject::Group("team-web".into()),
        Rule::resource(&["list"], "", "pods", Some("web")),
    );
    api.grant(
        Subject::User("system:serviceaccount:monitoring:prometheus".into()),
        Rule::non_resource(&["get"], "/metrics"),
    );
    api.grant(
        Subject::Group("platform".into()),
        Rule::resource(&["list"], "", "*", None),
    );
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    api.write_kubeconfig(&kubeconfig).unwrap();
    let exporter = Exporter::start(&[
        "--from-file",
        EXAMPLE,
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "--auth",
        "kubernetes",
    ]);
    Cluster {
        api,
        exporter,
        _dir: dir,
        http: reqwest::Client::new(),
    }
}

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    fn findings(&self) -> Vec<Value> {
        assert_eq!(self.status, 200, "{}", self.body);
        serde_json::from_str(&self.body).unwrap()
    }
}

impl Cluster {
    async fn get(&self, path: &str, token: Option<&str>) -> Answer {
        let mut request = self
            .http
            .get(format!("{}{path}", self.exporter.base))
            .header("accept", "text/html");
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        Answer {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body: response.text().await.unwrap(),
        }
    }
}

/// `namespace/kind/name` of each finding.
fn objects(findings: &[Value]) -> BTreeSet<String> {
    findings
        .iter()
        .map(|f| {
            format!(
                "{}/{}/{}",
                f["namespace"].as_str().unwrap_or("-"),
                f["kind"].as_str().unwrap(),
                f["name"].as_str().unwrap()
            )
        })
        .collect()
}

/// The findings of `namespace` among `all` (a Namespace's own belong to it).
fn of_namespace(all: &[Value], namespace: &str) -> Vec<Value> {
    all.iter()
        .filter(|f| {
            f["namespace"] == namespace || (f["kind"] == "Namespace" && f["name"] == namespace)
        })
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_team_sees_exactly_its_namespace_on_every_endpoint() {
    let c = cluster().await;
    let all = c.get("/findings", Some(ADMIN)).await.findings();
    assert!(
        all.len() > 30,
        "the admin sees every finding: {}",
        all.len()
    );

    for (token, namespace, other) in [(PAYMENTS, "payments", "web"), (WEB, "web", "payments")] {
        let mine = of_namespace(&all, namespace);
        let theirs = of_namespace(&all, other);
        assert!(!mine.is_empty() && !theirs.is_empty());
        let names = |findings: &[Value]| -> Vec<String> {
            findings
                .iter()
                .map(|f| f["name"].as_str().unwrap().to_string())
                .collect()
        };
        // Every finding not of this team's namespace, by name.
        let hidden: Vec<String> = names(&all)
            .into_iter()
            .filter(|n| !names(&mine).contains(n))
            .collect();

        let seen = c.get("/findings", Some(token)).await;
        assert_eq!(objects(&seen.findings()), objects(&mine), "{namespace}");
        assert_eq!(seen.header("cache-control"), "private, no-store");
        // A filter naming another namespace: empty, as if it had none.
        let filtered = c
            .get(&format!("/findings?namespace={other}"), Some(token))
            .await;
        assert!(filtered.findings().is_empty(), "{}", filtered.body);
        let own = c
            .get(&format!("/findings?namespace={namespace}"), Some(token))
            .await;
        assert_eq!(objects(&own.findings()), objects(&mine));

        let page = c.get("/", Some(token)).await;
        assert_eq!(page.status, 200);
        assert!(
            page.body.contains(&format!("Findings ({})", mine.len())),
            "{namespace}: {}",
            page.body
        );
        for name in names(&mine) {
            assert!(page.body.contains(&name), "{namespace} misses {name}");
        }
        for name in &hidden {
            assert!(
                !page.body.contains(name.as_str()),
                "{namespace} sees {name}"
            );
        }
        // A root cause shared with another team (the webhook refuses a
        // StatefulSet of `orders` too) shows only this team's victims.
        if namespace == "payments" {
            assert!(
                page.body.contains(
                    "<code><bdi>webhook/namespace.sidecar-injector.istio.io</bdi></code>"
                ),
                "{}",
                page.body
            );
            assert!(page.body.contains("<code><bdi>payments/api</bdi></code>"));
            assert!(!page.body.contains("orders/queue"), "{}", page.body);
        }
        assert!(
            page.body.contains("Signed in as <code><bdi>"),
            "{}",
            page.body
        );
        let csp = page.header("content-security-policy");
        assert!(
            csp.contains("frame-ancestors 'none'") && !csp.contains("script-src"),
            "{csp}"
        );
        assert!(!page.body.contains("<script"));
        assert_eq!(page.header("x-content-type-options"), "nosniff");
        assert_eq!(page.header("referrer-policy"), "no-referrer");

        let elsewhere = c.get(&format!("/?namespace={other}"), Some(token)).await;
        assert!(
            elsewhere.body.contains("Findings (0)"),
            "{}",
            elsewhere.body
        );
        assert!(
            elsewhere
                .body
                .contains("Nothing to show in what you may see.")
        );

        // The other team's runbooks open on this team's findings only.
        for finding in &theirs {
            let alert = finding["runbook"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string();
            let runbook = c.get(&format!("/runbooks/{alert}"), Some(token)).await;
            assert_eq!(runbook.status, 200, "{alert}");
            for name in &hidden {
                assert!(
                    !runbook.body.contains(name.as_str()),
                    "{alert} shows {name}"
                );
            }
            let admin = c.get(&format!("/runbooks/{alert}"), Some(ADMIN)).await;
            assert!(admin.body.contains(finding["name"].as_str().unwrap()));
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_scraper_scrapes_and_a_team_may_not() {
    let c = cluster().await;
    let scrape = c.get("/metrics", Some(PROMETHEUS)).await;
    assert_eq!(scrape.status, 200, "{}", scrape.body);
    assert!(scrape.body.contains("kube_lifecycle_findings{"));

    let team = c.get("/metrics", Some(PAYMENTS)).await;
    assert_eq!(team.status, 403);
    assert!(
        team.body.contains("get on the non-resource URL /metrics"),
        "{}",
        team.body
    );
    assert!(!team.body.contains("kube_lifecycle"));

    // Prometheus may list no pods: an empty answer that says why, never an error.
    assert!(
        c.get("/findings", Some(PROMETHEUS))
            .await
            .findings()
            .is_empty()
    );
    let page = c.get("/", Some(PROMETHEUS)).await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Nothing to show in what you may see."));
    assert!(page.body.contains("no namespace with findings"));

    let metrics = c.get("/metrics", Some(PROMETHEUS)).await.body;
    let decided = |endpoint: &str, decision: &str| {
        samples(
            &metrics,
            "kube_lifecycle_authorization_decisions_total",
            &[("endpoint", endpoint), ("decision", decision)],
        )
        .first()
        .copied()
        .unwrap_or(0.0)
    };
    assert_eq!(decided("metrics", "denied"), 1.0, "{metrics}");
    assert!(decided("metrics", "allowed") >= 1.0);
    assert_eq!(decided("findings", "allowed"), 1.0);
    assert!(
        samples(
            &metrics,
            "kube_lifecycle_authorization_cache_requests_total",
            &[("review", "token"), ("result", "hit")]
        )
        .first()
        .is_some_and(|&n| n >= 1.0),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_and_rejected_tokens_get_401_without_a_finding() {
    let c = cluster().await;
    c.api
        .add_token("soon-expired", TokenUser::new("pat", &["team-payments"]));
    c.api.remove_token("soon-expired");
    let all = c.get("/findings", Some(ADMIN)).await.findings();
    for path in [
        "/",
        "/findings",
        "/metrics",
        "/runbooks",
        "/runbooks/kubelifecyclepodsandboxfailingonnode",
        "/no-such-page",
    ] {
        for (token, challenge) in [
            (None, "Bearer realm=\"kube-lifecycle-exporter\""),
            (Some("not-a-token"), "error=\"invalid_token\""),
            (Some("soon-expired"), "error=\"invalid_token\""),
            (Some(VAULT), "error=\"invalid_token\""),
        ] {
            let answer = c.get(path, token).await;
            assert_eq!(answer.status, 401, "{path} {token:?}: {}", answer.body);
            let www = answer.header("www-authenticate");
            assert!(
                www.starts_with("Bearer ") && www.contains(challenge),
                "{www}"
            );
            for f in &all {
                assert!(!answer.body.contains(f["name"].as_str().unwrap()), "{path}");
            }
        }
    }
    for probe in ["/healthz", "/readyz"] {
        assert_eq!(c.get(probe, None).await.status, 200, "{probe}");
    }
    // No token reaches a log line.
    let logs = c.exporter.logs().join("\n");
    for token in ["not-a-token", "soon-expired", VAULT, ADMIN] {
        assert!(!logs.contains(token), "{token} logged");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_outage_of_the_reviews_fails_closed() {
    let c = cluster().await;
    // Prometheus's answers are kept from before the outage.
    assert_eq!(c.get("/metrics", Some(PROMETHEUS)).await.status, 200);
    let names: Vec<String> = c
        .get("/findings", Some(ADMIN))
        .await
        .findings()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    let closed = |answer: &Answer, what: &str| {
        assert_eq!(answer.status, 503, "{what}: {}", answer.body);
        for name in &names {
            assert!(!answer.body.contains(name.as_str()), "{what}: {name}");
        }
    };

    c.api.set_fault("tokenreviews", Fault::ServerError);
    for _ in 0..20 {
        closed(
            &c.get("/findings", Some(PAYMENTS)).await,
            "token reviews failing",
        );
    }
    c.api.set_fault("tokenreviews", Fault::None);
    c.api.set_fault("subjectaccessreviews", Fault::ServerError);
    closed(&c.get("/", Some(WEB)).await, "access reviews failing");
    closed(
        &c.get("/findings", Some(WEB)).await,
        "access reviews failing",
    );
    c.api.clear_faults();

    // The API server gone altogether: connections refused.
    c.api.pause().await;
    closed(&c.get("/", Some(PAYMENTS)).await, "API server down");
    c.api.resume().await;

    // Back: answered again, nothing failed kept.
    let back = c.get("/findings", Some(PAYMENTS)).await;
    assert!(!back.findings().is_empty());
    let metrics = c.get("/metrics", Some(PROMETHEUS)).await.body;
    let errors: f64 = samples(
        &metrics,
        "kube_lifecycle_authorization_decisions_total",
        &[("decision", "error")],
    )
    .iter()
    .sum();
    assert_eq!(errors, 23.0, "{metrics}");
    // Logged once, not per request.
    let lines = c
        .exporter
        .logs()
        .iter()
        .filter(|l| l.contains("a review got no answer"))
        .count();
    assert!((1..=2).contains(&lines), "{}", c.exporter.logs().join("\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_burst_with_one_token_makes_a_bounded_number_of_reviews() {
    let c = cluster().await;
    let namespaces: BTreeSet<String> = c
        .get("/findings", Some(ADMIN))
        .await
        .findings()
        .iter()
        .map(|f| {
            f["namespace"]
                .as_str()
                .or(f["name"].as_str())
                .unwrap()
                .to_string()
        })
        .collect();
    let before = c.api.reviews();
    let requests = futures::stream::iter(0..1000)
        .map(|i| {
            let path = if i % 2 == 0 { "/findings" } else { "/" };
            let c = &c;
            async move { c.get(path, Some(PAYMENTS)).await.status }
        })
        .buffer_unordered(32)
        .collect::<Vec<u16>>()
        .await;
    assert!(requests.iter().all(|&s| s == 200), "{requests:?}");
    let after = c.api.reviews();
    let tokens = after.token_reviews - before.token_reviews;
    let access = after.subject_access_reviews - before.subject_access_reviews;
    assert_eq!(tokens, 1);
    // One per namespace with findings, pods everywhere and nodes at most:
    // what the findings need, not what the requests number.
    assert!(
        access <= namespaces.len() as u64 + 2,
        "{access} for {namespaces:?}"
    );
    // Again: every answer is kept.
    for _ in 0..50 {
        assert_eq!(c.get("/", Some(PAYMENTS)).await.status, 200);
    }
    assert_eq!(c.api.reviews(), after);
}

use futures::StreamExt;

#[tokio::test(flavor = "multi_thread")]
async fn an_exporter_that_may_not_review_refuses_to_start() {
    let api = FakeApiServer::start().await.unwrap();
    api.set_rules(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    api.write_kubeconfig(&kubeconfig).unwrap();
    let output = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--from-file", EXAMPLE])
        .args([
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--auth",
            "kubernetes",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "{apiGroups: [authentication.k8s.io], resources: [tokenreviews], verbs: [create]}"
        ) && stderr.contains(
            "{apiGroups: [authorization.k8s.io], resources: [subjectaccessreviews], verbs: [create]}"
        ),
        "{stderr}"
    );

    // Without a cluster at all, --from-file says the reviews need one.
    let output = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--from-file", EXAMPLE])
        .args([
            "--kubeconfig",
            "/nonexistent/kubeconfig",
            "--auth",
            "kubernetes",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("reviews tokens with the Kubernetes API server"),
        "{stderr}"
    );
}

pub(crate) const PLUGIN: &str = env!("CARGO_BIN_EXE_kubectl-lifecycle");

/// A kubeconfig for the fake whose user authenticates with `token` (none:
/// no credentials at all).
pub(crate) fn kubeconfig_for(api: &FakeApiServer, token: Option<&str>, dir: &Path) -> String {
    let text = match token {
        Some(token) => api
            .kubeconfig_yaml()
            .replace("token: fake-token", &format!("token: {token}")),
        None => api
            .kubeconfig_yaml()
            .replace("  user:\n    token: fake-token\n", "  user: {}\n"),
    };
    let path = dir.join(format!("kubeconfig-{}", token.unwrap_or("none")));
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// `kubectl lifecycle open --upstream … --no-browser` running as the user of
/// `kubeconfig`, and the address it printed.
pub(crate) struct Proxy {
    child: Child,
    pub(crate) url: String,
}

impl Proxy {
    pub(crate) fn open(kubeconfig: &str, upstream: &str) -> Proxy {
        let mut child = Command::new(PLUGIN)
            .args(["open", "--no-browser", "--upstream", upstream])
            .args(["--kubeconfig", kubeconfig])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim_end_matches('/')
            .to_string();
        Proxy { child, url }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The plugin's local proxy adds the kubeconfig user's token: the team sees
/// its own findings through it with no token of its own; it forwards only
/// GET and HEAD, only for its loopback address. Without a token in the
/// kubeconfig, or without the right to port-forward, the plugin says what
/// is missing.
#[tokio::test(flavor = "multi_thread")]
async fn the_plugin_opens_the_pages_as_the_kubeconfig_user() {
    let c = cluster().await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = kubeconfig_for(&c.api, Some(PAYMENTS), dir.path());
    let proxy = Proxy::open(&kubeconfig, &c.exporter.base);
    let http = reqwest::Client::new();
    let findings: Vec<Value> = http
        .get(format!("{}/findings", proxy.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let all = c.get("/findings", Some(ADMIN)).await.findings();
    assert_eq!(objects(&findings), objects(&of_namespace(&all, "payments")));
    let page = http.get(format!("{}/", proxy.url)).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("Signed in as <code><bdi>pat</bdi>")
    );

    let port = proxy.url.rsplit(':').next().unwrap();
    let rebound = http
        .get(format!("{}/findings", proxy.url))
        .header("host", format!("attacker.example:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 421);
    let post = http
        .post(format!("{}/findings", proxy.url))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 405);

    // Without --upstream: the user may not port-forward in the exporter's namespace.
    let refused = Command::new(PLUGIN)
        .args(["open", "--no-browser", "--kubeconfig", &kubeconfig])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("in the namespace kube-lifecycle")
            && stderr.contains("create pods/portforward"),
        "{stderr}"
    );
    let anonymous = kubeconfig_for(&c.api, None, dir.path());
    let refused = Command::new(PLUGIN)
        .args(["open", "--no-browser", "--upstream", &c.exporter.base])
        .args(["--kubeconfig", &anonymous])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("has no bearer token"), "{stderr}");
}
