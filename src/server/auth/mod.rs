//! `--auth kubernetes`: every request but the probes carries a bearer token,
//! which the API server reviews (TokenReview) and authorizes
//! (SubjectAccessReviews), as controller-runtime's
//! `WithAuthenticationAndAuthorization` and kube-rbac-proxy do.
//!
//! `/metrics` needs `get` on the non-resource URL `/metrics`. The findings
//! (`/findings`, the landing page, the runbooks) are shown to anyone
//! authenticated, each viewer seeing only what their RBAC allows
//! ([`scope`]). Answers are kept briefly ([`cache`]); a review that gets no
//! answer refuses the request (503), never answers it.

pub(crate) mod cache;
pub(crate) mod reviews;
pub(crate) mod scope;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use parking_lot::Mutex;

use crate::diagnosis::Finding;
use crate::source::watch::LiveState;

use cache::{Cache, Lookup};
use reviews::{Allowed, Attributes, Identity, ReviewError, Reviewer, User};
use scope::Scope;

/// How requests are authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum AuthMode {
    /// Not at all (or by the web config's basic auth and client certificates).
    #[default]
    None,
    /// Bearer tokens reviewed by the Kubernetes API server.
    Kubernetes,
}

impl AuthMode {
    pub(crate) fn parse(text: &str) -> Result<AuthMode, String> {
        match text.trim() {
            "none" => Ok(AuthMode::None),
            "kubernetes" => Ok(AuthMode::Kubernetes),
            other => Err(format!("{other:?} is not one of none, kubernetes")),
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AuthMode::None => "none",
            AuthMode::Kubernetes => "kubernetes",
        }
    }
}

/// Open without a token: the kubelet's probes send none, and they say only
/// whether the process runs and whether the watches have synced.
pub(crate) const OPEN_PATHS: [&str; 2] = ["/healthz", "/readyz"];

/// Token answers kept at most (by a SHA-256 of the token).
const TOKENS_KEPT: usize = 4096;
/// Access answers kept at most (per user and question): room for a few
/// hundred viewers each asking about a few hundred namespaces.
const ACCESS_KEPT: usize = 65_536;
/// Namespace reviews one request has in flight at once.
const REVIEWS_AT_ONCE: usize = 16;
/// Above this many namespaces to ask about, asking first whether the viewer
/// may list pods everywhere saves the others when they may.
const ASK_CLUSTER_WIDE_ABOVE: usize = 2;
/// At most one log line per this long while reviews fail.
const LOG_EVERY: Duration = Duration::from_secs(30);

/// How long answers are kept, and the audiences tokens must be for.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// Empty: the API server's own audiences.
    pub audiences: Vec<String>,
    /// For an authenticated token or an allowed request.
    pub allowed_ttl: Duration,
    /// For a refused token or a denied request.
    pub denied_ttl: Duration,
}

/// The reviews, their cached answers and what they are counted in.
pub(crate) struct Auth {
    reviewer: Box<dyn Reviewer>,
    audiences: Vec<String>,
    tokens: Cache<[u8; 32], Identity>,
    access: Cache<([u8; 32], Attributes), Allowed>,
    live: Arc<LiveState>,
    /// When a failed review was last logged, and how many since.
    failures: Mutex<(Option<Instant>, u64)>,
}

impl Auth {
    pub(crate) fn new(
        reviewer: Box<dyn Reviewer>,
        settings: Settings,
        live: Arc<LiveState>,
    ) -> Auth {
        Auth {
            reviewer,
            audiences: settings.audiences,
            tokens: Cache::new(TOKENS_KEPT, settings.allowed_ttl, settings.denied_ttl),
            access: Cache::new(ACCESS_KEPT, settings.allowed_ttl, settings.denied_ttl),
            live,
            failures: Mutex::new((None, 0)),
        }
    }

    async fn identify(&self, token: &str) -> Result<Identity, ReviewError> {
        let key = sha256(token.as_bytes());
        let (token, audiences) = (token.to_string(), self.audiences.clone());
        let (answer, lookup) = self
            .tokens
            .get(key, || self.reviewer.review_token(token, audiences))
            .await;
        self.looked_up("token", lookup, self.tokens.len());
        answer
    }

    async fn allows(&self, user: &Arc<User>, attributes: Attributes) -> Result<bool, ReviewError> {
        let key = (user.key, attributes.clone());
        let (answer, lookup) = self
            .access
            .get(key, || {
                self.reviewer.review_access(user.clone(), attributes)
            })
            .await;
        self.looked_up("access", lookup, self.access.len());
        answer.map(|Allowed(yes)| yes)
    }

    fn looked_up(&self, review: &'static str, lookup: Lookup, entries: usize) {
        self.live
            .telemetry
            .authorization_looked_up(review, lookup.as_str(), entries);
    }

    /// What `user` may see of `findings`: the namespaces among theirs where
    /// they may list pods, and whether they may list nodes when a finding
    /// needs it (or `everything` is asked, for what the page says of the
    /// cluster as a whole).
    async fn scope(
        &self,
        user: &Arc<User>,
        findings: &[Arc<Finding>],
        everything: bool,
    ) -> Result<Scope, ReviewError> {
        let namespaces = scope::namespaces_of(findings);
        let cluster = findings
            .iter()
            .any(|f| scope::place(f) == scope::Place::Cluster);
        let ask_all = everything || namespaces.len() > ASK_CLUSTER_WIDE_ABOVE;
        let (all_namespaces, nodes) = futures::join!(
            async {
                match ask_all {
                    true => self.allows(user, Attributes::list_pods("")).await,
                    false => Ok(false),
                }
            },
            async {
                match everything || cluster {
                    true => self.allows(user, Attributes::list_nodes()).await,
                    false => Ok(false),
                }
            }
        );
        let (all_namespaces, nodes) = (all_namespaces?, nodes?);
        let mut allowed = BTreeSet::new();
        if !all_namespaces {
            // Owned names: a stream of futures borrowing them would not be Send.
            let namespaces: Vec<String> = namespaces.into_iter().map(String::from).collect();
            let mut answers = futures::stream::iter(namespaces)
                .map(|namespace: String| async move {
                    let answer = self.allows(user, Attributes::list_pods(&namespace)).await;
                    (namespace, answer)
                })
                .buffer_unordered(REVIEWS_AT_ONCE);
            while let Some((namespace, answer)) = answers.next().await {
                if answer? {
                    allowed.insert(namespace);
                }
            }
        }
        Ok(Scope {
            all_namespaces,
            namespaces: allowed,
            nodes,
        })
    }

    /// A review failed: logged at most once per [`LOG_EVERY`], with how many
    /// failed meanwhile.
    fn review_failed(&self, error: &ReviewError) {
        let mut failures = self.failures.lock();
        failures.1 += 1;
        if failures.0.is_some_and(|at| at.elapsed() < LOG_EVERY) {
            return;
        }
        let failed = std::mem::take(&mut failures.1);
        failures.0 = Some(Instant::now());
        match error {
            ReviewError::Forbidden(resource, message) => tracing::error!(
                %message,
                failed,
                "--auth kubernetes: the exporter may not create {resource}; refusing requests (503) until its RBAC allows it"
            ),
            error => tracing::warn!(
                %error,
                failed,
                "--auth kubernetes: a review got no answer; refusing requests (503) until one does"
            ),
        }
    }
}

/// The authenticated viewer of one request, for the handlers that show
/// findings.
#[derive(Clone)]
pub(crate) struct Viewer {
    pub user: Arc<User>,
    auth: Arc<Auth>,
}

impl Viewer {
    /// What this viewer may see of `findings` (see [`Auth::scope`]).
    pub(crate) async fn scope(
        &self,
        findings: &[Arc<Finding>],
        everything: bool,
    ) -> Result<Scope, Unavailable> {
        self.auth
            .scope(&self.user, findings, everything)
            .await
            .map_err(|error| {
                self.auth.review_failed(&error);
                Unavailable
            })
    }
}

/// A review that got no answer: the request is refused with 503.
#[derive(Debug)]
pub(crate) struct Unavailable;

impl IntoResponse for Unavailable {
    fn into_response(self) -> Response {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, HeaderValue::from_static("5"))],
            "Service Unavailable: the Kubernetes API server could not review this request; nothing is shown without it. Try again shortly.\n",
        )
            .into_response()
    }
}

/// Which endpoint a decision was about, as `kube_lifecycle_authorization_decisions_total` says it.
fn endpoint(path: &str) -> &'static str {
    match path {
        "/metrics" => "metrics",
        "/findings" => "findings",
        "/" => "page",
        p if p == "/runbooks" || p.starts_with("/runbooks/") => "runbooks",
        _ => "other",
    }
}

/// The token of an `Authorization: Bearer …` header.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty() && !token.contains(' '))
        .then_some(token)
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    let mut key = [0; 32];
    key.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, bytes).as_ref());
    key
}

/// 401: no token, or one the API server did not accept.
fn unauthorized(rejected: bool) -> Response {
    let (challenge, body) = if rejected {
        (
            "Bearer realm=\"kube-lifecycle-exporter\", error=\"invalid_token\"",
            "Unauthorized: the Kubernetes API server did not accept this bearer token.\n",
        )
    } else {
        (
            "Bearer realm=\"kube-lifecycle-exporter\"",
            "Unauthorized: send a Kubernetes bearer token (Authorization: Bearer …); `kubectl lifecycle open` does it for you.\n",
        )
    };
    (
        StatusCode::UNAUTHORIZED,
        [(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        )],
        body,
    )
        .into_response()
}

/// 403, naming what was needed.
fn forbidden(user: &User, needed: &Attributes) -> Response {
    (
        StatusCode::FORBIDDEN,
        format!(
            "Forbidden: user {:?} may not {}; that is what this address needs.\n",
            user.username,
            needed.describe()
        ),
    )
        .into_response()
}

/// Puts authentication and authorization in front of every route but the probes.
pub(crate) async fn guard(
    State(auth): State<Arc<Auth>>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_string();
    if OPEN_PATHS.contains(&path.as_str()) {
        return next.run(request).await;
    }
    let endpoint = endpoint(&path);
    let decided = |decision: &'static str| {
        auth.live
            .telemetry
            .authorization_decided(endpoint, decision);
    };
    let Some(token) = bearer(request.headers()).map(str::to_string) else {
        decided("unauthenticated");
        return unauthorized(false);
    };
    // The header is not needed past here; no handler should see the token.
    request.headers_mut().remove(header::AUTHORIZATION);
    let user = match auth.identify(&token).await {
        Ok(Identity::Authenticated(user)) => user,
        Ok(Identity::Rejected(why)) => {
            tracing::debug!(%why, "a bearer token was not accepted");
            decided("unauthenticated");
            return unauthorized(true);
        }
        Err(error) => {
            auth.review_failed(&error);
            decided("error");
            return Unavailable.into_response();
        }
    };
    if endpoint == "metrics" {
        let needed = Attributes::get_metrics();
        match auth.allows(&user, needed.clone()).await {
            Ok(true) => {}
            Ok(false) => {
                decided("denied");
                return forbidden(&user, &needed);
            }
            Err(error) => {
                auth.review_failed(&error);
                decided("error");
                return Unavailable.into_response();
            }
        }
    }
    request.extensions_mut().insert(Viewer {
        user,
        auth: auth.clone(),
    });
    let mut response = next.run(request).await;
    decided(match response.status() {
        StatusCode::SERVICE_UNAVAILABLE => "error",
        _ => "allowed",
    });
    // What one viewer may see is theirs: no shared cache keeps it.
    let headers = response.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Authorization"));
    response
}

/// The headers every answer carries, so another site can neither frame the
/// pages nor run script in them, nor read the addresses they link from: no
/// script at all, the one inline style sheet by its hash, forms to this
/// exporter only. The web config's `http_server_config.headers` override them.
pub(crate) async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        content_security_policy().clone(),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

fn content_security_policy() -> &'static HeaderValue {
    static POLICY: std::sync::OnceLock<HeaderValue> = std::sync::OnceLock::new();
    POLICY.get_or_init(|| {
        use base64::Engine;
        let hash = base64::engine::general_purpose::STANDARD
            .encode(sha256(crate::output::html::STYLE.as_bytes()));
        HeaderValue::from_str(&format!(
            "default-src 'none'; style-src 'sha256-{hash}'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        ))
        .unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use futures::future::BoxFuture;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn bearer_tokens_are_read_from_the_authorization_header() {
        let headers = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            headers
        };
        assert_eq!(bearer(&headers("Bearer abc.def")), Some("abc.def"));
        assert_eq!(bearer(&headers("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(&headers("Basic YTpi")), None);
        assert_eq!(bearer(&headers("Bearer ")), None);
        assert_eq!(bearer(&headers("Bearer a b")), None);
        assert_eq!(bearer(&HeaderMap::new()), None);
    }

    #[test]
    fn endpoints_are_a_closed_set() {
        assert_eq!(endpoint("/metrics"), "metrics");
        assert_eq!(endpoint("/"), "page");
        assert_eq!(endpoint("/findings"), "findings");
        assert_eq!(endpoint("/runbooks/kubelifecyclenodelost"), "runbooks");
        assert_eq!(endpoint("/anything/else"), "other");
    }

    /// Allows `list pods` in `ns-a` only, and counts what it is asked.
    struct TeamA(Arc<AtomicUsize>);

    impl Reviewer for TeamA {
        fn review_token(
            &self,
            _: String,
            _: Vec<String>,
        ) -> BoxFuture<'static, Result<Identity, ReviewError>> {
            async { Ok(Identity::Rejected("unused".into())) }.boxed()
        }

        fn review_access(
            &self,
            _: Arc<User>,
            attributes: Attributes,
        ) -> BoxFuture<'static, Result<Allowed, ReviewError>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            let yes = attributes == Attributes::list_pods("ns-a");
            async move { Ok(Allowed(yes)) }.boxed()
        }
    }

    /// A viewer's scope asks about the namespaces of the findings, the
    /// cluster-wide question only when it saves asking about many, and
    /// nodes only when a finding is about the cluster.
    #[tokio::test]
    async fn a_scope_asks_only_what_the_findings_need() {
        use crate::model::Kind;
        use crate::output::tests::finding;
        let asked = Arc::new(AtomicUsize::new(0));
        let auth = Auth::new(
            Box::new(TeamA(asked.clone())),
            Settings {
                audiences: Vec::new(),
                allowed_ttl: Duration::from_secs(60),
                denied_ttl: Duration::from_secs(60),
            },
            Arc::new(LiveState::from_cluster(
                Default::default(),
                Default::default(),
                None,
            )),
        );
        let user = Arc::new(User::new(
            "alice".into(),
            String::new(),
            Vec::new(),
            Default::default(),
        ));
        let at = |namespace: Option<&str>, kind: Kind| {
            let mut f = finding("x", "m");
            f.namespace = namespace.map(crate::model::Name::from);
            f.kind = kind;
            Arc::new(f)
        };
        let two = [at(Some("ns-a"), Kind::Pod), at(Some("ns-b"), Kind::Pod)];
        let scope = auth.scope(&user, &two, false).await.unwrap();
        assert_eq!(asked.load(Ordering::SeqCst), 2);
        assert!(!scope.all_namespaces && !scope.nodes);
        assert_eq!(scope.namespaces, BTreeSet::from(["ns-a".to_string()]));
        // Asked again: every answer is kept.
        auth.scope(&user, &two, false).await.unwrap();
        assert_eq!(asked.load(Ordering::SeqCst), 2);

        let many = [
            at(Some("ns-a"), Kind::Pod),
            at(Some("ns-c"), Kind::Pod),
            at(Some("ns-d"), Kind::Pod),
            at(None, Kind::Node),
        ];
        let scope = auth.scope(&user, &many, false).await.unwrap();
        // pods everywhere, nodes, ns-c and ns-d (ns-a is kept).
        assert_eq!(asked.load(Ordering::SeqCst), 6);
        assert_eq!(scope.namespaces, BTreeSet::from(["ns-a".to_string()]));
        assert!(!scope.nodes);
    }
}
