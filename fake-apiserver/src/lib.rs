//! A fake Kubernetes API server for tests and benchmarks.
//!
//! It speaks the real list/watch HTTP protocol over TCP — paginated lists
//! with consistent continue tokens, chunked watches resumable by
//! resourceVersion, bookmarks, 410 Expired after compaction, "Too large
//! resource version" (504) for a watch from a version not reached, streaming
//! lists — so that unmodified clients (kube-rs's `watcher`, kubectl-style
//! clients, the exporter binary through a kubeconfig) can run against it.
//! Tests drive the cluster through the scenario API on [`FakeApiServer`]:
//! apply and delete objects, break watches, compact history, inject faults,
//! take the server down and up again, restart it on an empty store, lose an
//! event.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let server = fake_apiserver::FakeApiServer::start().await?;
//! server.apply(serde_json::json!({
//!     "apiVersion": "v1", "kind": "Pod",
//!     "metadata": {"name": "web-1", "namespace": "shop"}
//! }));
//! server.write_kubeconfig(std::path::Path::new("/tmp/kubeconfig"))?;
//! # Ok(()) }
//! ```
//!
//! The server is read-only over HTTP (GET only); objects change only through
//! the scenario API. It stops when the last handle is dropped. The one
//! exception is the review APIs (TokenReview, SubjectAccessReview,
//! SelfSubjectAccessReview), POSTed and answered from a table of tokens and
//! rules the test sets ([`FakeApiServer::add_token`], [`FakeApiServer::grant`]).

mod access;
mod faults;
mod http;
mod object;
mod resources;
mod selectors;
mod server;
mod shared;
mod status;
mod store;
mod time;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub use access::{API_AUDIENCE, Reviews, Rule, Subject, TokenUser};
pub use faults::Fault;
pub use http::RequestRecord;

use server::HttpServer;
use shared::Shared;

/// How far [`FakeApiServer::restart_with_new_epoch`] moves the
/// resourceVersion counter.
const EPOCH_JUMP: u64 = 1_000_000;

// Tests move handles into spawned tasks and threads.
const _: fn() = || {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<FakeApiServer>();
};

/// A running fake API server. Cheap to clone; every clone controls the same
/// server, which stops when the last clone is dropped.
#[derive(Clone)]
pub struct FakeApiServer {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Arc<Shared>,
    http: HttpServer,
}

impl FakeApiServer {
    /// Listens on a free port of 127.0.0.1 and serves from a spawned task on
    /// the current tokio runtime.
    pub async fn start() -> std::io::Result<FakeApiServer> {
        let listener = server::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
        let shared = Arc::new(Shared::new(listener.local_addr()?));
        let http = HttpServer::start(listener, http::router(shared.clone()))?;
        Ok(FakeApiServer {
            inner: Arc::new(Inner { shared, http }),
        })
    }

    fn shared(&self) -> &Shared {
        &self.inner.shared
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.shared().address)
    }

    /// A kubeconfig whose current context `fake` points at this server with
    /// the bearer token `fake-token`.
    pub fn kubeconfig_yaml(&self) -> String {
        format!(
            "apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: {url}
users:
- name: fake
  user:
    token: fake-token
contexts:
- name: fake
  context:
    cluster: fake
    user: fake
current-context: fake
",
            url = self.url()
        )
    }

    pub fn write_kubeconfig(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.kubeconfig_yaml())
    }

    /// Creates the object, or replaces the one with the same resource,
    /// namespace and name, and returns it as stored.
    ///
    /// Assigns `metadata.resourceVersion` from the global counter, and
    /// `metadata.uid` and `metadata.creationTimestamp` when missing (an
    /// update keeps the existing ones). Namespaced objects without a
    /// namespace go to `default`. Open watches get ADDED or MODIFIED.
    ///
    /// # Panics
    /// If the object has no known `apiVersion`/`kind` or no `metadata.name`.
    pub fn apply(&self, object: Value) -> Value {
        self.shared().store.apply(object)
    }

    /// Deletes an object, returning its last state (with the deletion's new
    /// resourceVersion), or `None` if it did not exist. Open watches get
    /// DELETED. `namespace` is ignored for cluster-scoped kinds and defaults
    /// to `default` for namespaced ones.
    ///
    /// # Panics
    /// If `api_version`/`kind` is not a served resource type.
    pub fn delete(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Value> {
        let (id, namespace) = locate(api_version, kind, namespace);
        self.shared().store.delete(id, namespace, name)
    }

    /// The stored object, with apiVersion and kind.
    ///
    /// # Panics
    /// If `api_version`/`kind` is not a served resource type.
    pub fn get(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Value> {
        let (id, namespace) = locate(api_version, kind, namespace);
        let object = self.shared().store.get(id, namespace, name)?;
        Some(object.to_value(resources::resource(id)))
    }

    /// The current global resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.shared().store.resource_version()
    }

    /// Breaks every open watch mid-stream: the client sees the chunked body
    /// fail, not end.
    pub fn cut_watches(&self) {
        self.shared().store.cut_watches(None);
    }

    /// Breaks the open watches of resources named `plural` (e.g. "pods").
    pub fn cut_watches_for(&self, plural: &str) {
        self.shared().store.cut_watches(Some(plural));
    }

    /// Forgets all history: a watch resuming from any resourceVersion older
    /// than the current one gets a 410 Expired ERROR event, and every
    /// outstanding continue token gets 410 Expired.
    pub fn compact(&self) {
        self.shared().store.compact();
    }

    /// What a restored or replaced etcd looks like to clients: every watch is
    /// cut, history is gone and resourceVersions jump by 1,000,000, so every
    /// client must relist.
    pub fn restart_with_new_epoch(&self) {
        self.shared().store.new_epoch(EPOCH_JUMP);
    }

    /// What an API server that keeps no history looks like when it restarts
    /// on an empty store (an etcd restored empty, a rebuilt control plane, a
    /// server that keeps its objects in memory): every object and all history
    /// are gone and resourceVersions start over from 1, with no 410 for
    /// anyone. Open watches end cleanly, as at a graceful shutdown; a watch
    /// resumed from a version the server has not reached gets the upstream
    /// "Too large resource version" error. Call it between
    /// [`pause`](Self::pause) and [`resume`](Self::resume) for a restart the
    /// clients see as an outage, or alone for one they do not.
    pub fn reset_store(&self) {
        self.shared().store.reset();
    }

    /// Drops an object without a DELETED event or a new resourceVersion, as a
    /// server that loses events does (a compaction that dropped the
    /// deletion): only a new list shows it gone. Returns whether it existed.
    ///
    /// # Panics
    /// If `api_version`/`kind` is not a served resource type.
    pub fn lose_object(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> bool {
        let (id, namespace) = locate(api_version, kind, namespace);
        self.shared().store.lose(id, namespace, name)
    }

    /// Sets the fault for every list, get and watch of resources named
    /// `plural`; [`Fault::None`] clears it.
    pub fn set_fault(&self, plural: &str, fault: Fault) {
        self.shared().faults.set(plural, fault);
    }

    pub fn clear_faults(&self) {
        self.shared().faults.clear();
    }

    /// Writes `line` and a newline, verbatim, into every open watch of
    /// resources named `plural`, in order with the real events.
    pub fn inject_watch_line(&self, plural: &str, line: &str) {
        self.shared().store.inject_line(plural, line);
    }

    /// How often watches that allow bookmarks get one (default 2 s). Takes
    /// effect from each watch's next bookmark.
    pub fn set_bookmark_interval(&self, every: Duration) {
        self.shared().set_bookmark_interval(every);
    }

    /// How many changes the history keeps for watches to resume from
    /// (default 100,000); older ones are compacted away.
    pub fn set_history_limit(&self, changes: usize) {
        self.shared().store.set_history_limit(changes);
    }

    /// Takes the server down: stops listening (connections are refused) and
    /// drops every open connection, breaking watches mid-stream. Objects and
    /// history are kept.
    pub async fn pause(&self) {
        self.shared().store.cut_watches(None);
        self.inner.http.pause().await;
    }

    /// Listens again on the same port.
    ///
    /// # Panics
    /// If the port cannot be bound again within a few seconds.
    pub async fn resume(&self) {
        self.inner.http.resume().await;
    }

    /// Makes `token` authenticate as `user` in TokenReviews.
    pub fn add_token(&self, token: &str, user: TokenUser) {
        self.shared().access.add_token(token, user);
    }

    /// Makes `token` unknown again (revoked, or expired).
    pub fn remove_token(&self, token: &str) {
        self.shared().access.remove_token(token);
    }

    /// Adds a rule that SubjectAccessReviews allow. The server starts with
    /// the kubeconfig token's user (the exporter's service account) allowed
    /// `create` on tokenreviews and subjectaccessreviews.
    pub fn grant(&self, subject: Subject, rule: Rule) {
        self.shared().access.grant(subject, rule);
    }

    /// Replaces every rule, the exporter's own grants included.
    pub fn set_rules(&self, rules: Vec<(Subject, Rule)>) {
        self.shared().access.set_rules(rules);
    }

    /// How many reviews of each kind were asked for so far (faulted ones too).
    pub fn reviews(&self) -> Reviews {
        self.shared().access.reviews()
    }

    /// Every request answered so far, oldest first.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared().requests.lock().clone()
    }

    pub fn clear_requests(&self) {
        self.shared().requests.lock().clear();
    }

    /// Watches currently open (including hanging ones).
    pub fn open_watches(&self) -> usize {
        self.shared().store.open_watches()
    }

    /// Waits until a watch of resources named `plural` is open, so that
    /// [`inject_watch_line`](Self::inject_watch_line) has one to reach: a
    /// client is ready once it has listed, a moment before its watch opens.
    /// Panics after `timeout`.
    pub async fn wait_for_watch(&self, plural: &str, timeout: Duration) {
        let start = std::time::Instant::now();
        while self.shared().store.open_watches_of(plural) == 0 {
            assert!(
                start.elapsed() < timeout,
                "no watch of {plural} opened within {timeout:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The resource type and the store namespace of an object named by the
/// scenario API.
fn locate<'a>(
    api_version: &str,
    kind: &str,
    namespace: Option<&'a str>,
) -> (resources::ResourceId, &'a str) {
    let Some(id) = resources::by_type(api_version, kind) else {
        panic!("unknown resource type apiVersion={api_version:?} kind={kind:?}");
    };
    let namespace = if resources::resource(id).namespaced {
        namespace.unwrap_or("default")
    } else {
        ""
    };
    (id, namespace)
}
