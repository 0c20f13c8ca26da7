//! The watch tasks: one list-watch ([`list_watch`]) per resource (and per
//! namespace when the exporter is limited to some), feeding the live model. A relist
//! (`Init … InitDone`) replaces what the model holds for that watch, so objects
//! deleted while the watch was down disappear.

pub mod list_watch;
pub mod pages;
pub(crate) mod shard;
mod state;
mod transitions;

pub(crate) use state::{Connection, Freshness, LiveState};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use futures::StreamExt;
use kube::runtime::WatchStreamExt;
// `{self}` imports the module alone: this file has a function `watcher`.
use kube::runtime::watcher::{self};
use kube::{Api, Client};
use tokio::task::JoinHandle;

use crate::model::{Kind, KindVisitor, Slim};

use super::api::{PAGE_SIZE, Watched, api};
use list_watch::Event;
use shard::Shard;
use state::{Failure, Listing, Said, Scope};

/// What to watch.
#[derive(Debug, Clone, Default)]
pub(crate) struct WatchOptions {
    /// Only these namespaces (empty: all).
    pub(crate) namespaces: Vec<String>,
    /// Never these namespaces.
    pub(crate) exclude_namespaces: Vec<String>,
    /// The part of the cluster this exporter covers (all of it unless sharded).
    pub(crate) shard: Shard,
    /// Kinds the API server does not serve (see [`unserved_kinds`]): not watched.
    pub(crate) unserved: Vec<Kind>,
    /// How long the API server keeps each watch request open (`timeoutSeconds`);
    /// `None` keeps the default, 290 s.
    pub(crate) watch_timeout: Option<std::time::Duration>,
    /// List again this often even when nothing went wrong (`None`: only when
    /// the watch cannot be resumed).
    pub(crate) relist_interval: Option<std::time::Duration>,
}

/// What a list-watch does with a resource: one list, then watches.
/// Nothing is read by name, so RBAC needs no `get`.
pub const VERBS: [&str; 2] = ["list", "watch"];

/// The (API group, resource) pairs the exporter reads, as RBAC rules spell them
/// (`""` is the core group). The ClusterRole in `deploy/` grants [`VERBS`] on
/// exactly these; tests/artifacts/deploy/cluster_role.rs checks it.
pub fn watched_resources() -> Vec<(&'static str, &'static str)> {
    Kind::watch_order()
        .map(|kind| (kind.group(), kind.plural()))
        .collect()
}

/// The optional kinds (served only by newer clusters) the API server does not
/// serve: their group version is unknown to it (404), or lists no such
/// resource. Any other answer leaves the kind watched, so that a real
/// problem shows as that watch's errors rather than as silence.
pub(crate) async fn unserved_kinds(client: &Client) -> Vec<Kind> {
    let mut unserved = Vec::new();
    for kind in Kind::ALL.into_iter().filter(|k| k.is_optional()) {
        let group_version = format!("{}/{}", kind.group(), kind.version());
        match client.list_api_group_resources(&group_version).await {
            Ok(list) if list.resources.iter().any(|r| r.name == kind.plural()) => {}
            Err(kube::Error::Api(status)) if status.code != 404 => {
                tracing::warn!(
                    group_version,
                    code = status.code,
                    "discovery refused; watching anyway"
                );
            }
            Ok(_) | Err(kube::Error::Api(_)) => {
                tracing::info!(
                    group_version,
                    resource = kind.plural(),
                    "not served by this API server: not watched"
                );
                unserved.push(kind);
            }
            Err(err) => {
                tracing::warn!(group_version, error = %err, "discovery failed; watching anyway");
            }
        }
    }
    unserved
}

/// The watches to run: cluster-scoped kinds once; namespaced kinds once for all
/// namespaces, or once per namespace given with `--namespace`.
///
/// Sharded, namespaced kinds are watched per namespace the shard owns: the
/// `--namespace` ones it owns, or, without that list, whichever exist (started as
/// they appear; see [`spawn_all`]), so no shard decodes another shard's objects.
pub(crate) fn plan(options: &WatchOptions) -> Vec<(Kind, Scope)> {
    Kind::watch_order()
        .filter(|kind| !options.unserved.contains(kind))
        .flat_map(|kind| {
            if !kind.is_namespaced() {
                vec![(kind, None)]
            } else if options.namespaces.is_empty() {
                if options.shard.is_sharded() {
                    vec![]
                } else {
                    vec![(kind, None)]
                }
            } else {
                options
                    .namespaces
                    .iter()
                    .filter(|ns| options.shard.owns(ns))
                    .map(|ns| (kind, Some(ns.clone())))
                    .collect()
            }
        })
        .collect()
}

/// Server-side filtering: excluded namespaces, and only warning events.
fn field_selector(kind: Kind, options: &WatchOptions) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if kind == Kind::Event {
        parts.push("type=Warning".into());
    }
    let field = match kind {
        Kind::Namespace => Some("metadata.name"),
        Kind::Node => None,
        _ => Some("metadata.namespace"),
    };
    if let Some(field) = field {
        parts.extend(
            options
                .exclude_namespaces
                .iter()
                .map(|ns| format!("{field}!={ns}")),
        );
    }
    (!parts.is_empty()).then(|| parts.join(","))
}

/// Starts every planned watch, and, when sharded across all namespaces, the task
/// that starts and stops the per-namespace watches of the namespaces this shard owns.
pub(crate) fn spawn_all(
    client: Client,
    state: Arc<LiveState>,
    options: &WatchOptions,
) -> Vec<JoinHandle<()>> {
    let mut tasks: Vec<JoinHandle<()>> = plan(options)
        .into_iter()
        .map(|(kind, scope)| spawn_one(&client, &state, options, kind, scope))
        .collect();
    if follows_namespaces(options) {
        tasks.push(tokio::spawn(follow_namespaces(
            client,
            state,
            options.clone(),
        )));
    }
    tasks
}

/// Sharded with no `--namespace` list: the namespaced watches follow the
/// namespaces as they come and go.
pub(crate) fn follows_namespaces(options: &WatchOptions) -> bool {
    options.shard.is_sharded() && options.namespaces.is_empty()
}

/// Starts one watch of `kind` in `scope`.
fn spawn_one(
    client: &Client,
    state: &Arc<LiveState>,
    options: &WatchOptions,
    kind: Kind,
    scope: Scope,
) -> JoinHandle<()> {
    let config = list_watch::Params {
        field_selector: field_selector(kind, options),
        timeout: options
            .watch_timeout
            .map(|t| t.as_secs().clamp(1, u64::from(u32::MAX)) as u32),
        page_size: PAGE_SIZE,
        relist_every: options.relist_interval,
    };
    kind.visit(Spawn {
        client: client.clone(),
        state: state.clone(),
        config,
        keep: keep_namespace(kind, options),
        scope,
    })
}

/// Starts the watch task of one kind, with its type.
struct Spawn {
    client: Client,
    state: Arc<LiveState>,
    config: list_watch::Params,
    keep: Option<Vec<String>>,
    scope: Scope,
}

impl KindVisitor for Spawn {
    type Output = JoinHandle<()>;

    fn visit<T: Slim>(self) -> JoinHandle<()> {
        let api = api::<T>(self.client, self.scope.as_deref());
        tokio::spawn(run(api, self.config, self.state, self.scope, self.keep))
    }
}

/// How often the namespaces this shard owns are compared with its watches.
const FOLLOW_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Keeps one watch per namespaced kind for every namespace this shard owns: starts
/// them when a namespace appears, stops them and forgets its objects when it is gone.
async fn follow_namespaces(client: Client, state: Arc<LiveState>, options: WatchOptions) {
    let mut running: BTreeMap<String, Vec<JoinHandle<()>>> = BTreeMap::new();
    let mut every = tokio::time::interval(FOLLOW_EVERY);
    loop {
        every.tick().await;
        let Some(namespaces) = state.namespace_names() else {
            continue; // namespaces not listed yet
        };
        let owned: BTreeSet<String> = namespaces
            .into_iter()
            .filter(|n| options.shard.owns(n) && !options.exclude_namespaces.contains(n))
            .collect();
        let gone: Vec<String> = running
            .keys()
            .filter(|n| !owned.contains(*n))
            .cloned()
            .collect();
        for namespace in gone {
            for task in running.remove(&namespace).unwrap_or_default() {
                task.abort();
            }
            state.forget_namespace(&namespace);
            tracing::info!(namespace, shard = %options.shard, "namespace gone; its watches stopped");
        }
        for namespace in owned {
            if running.contains_key(&namespace) {
                continue;
            }
            let scope = Some(namespace.clone());
            let kinds =
                Kind::watch_order().filter(|k| k.is_namespaced() && !options.unserved.contains(k));
            state.add_watches(kinds.clone().map(|k| (k, scope.clone())));
            let tasks = kinds
                .map(|kind| spawn_one(&client, &state, &options, kind, scope.clone()))
                .collect();
            tracing::debug!(namespace, shard = %options.shard, "watching namespace");
            running.insert(namespace, tasks);
        }
        state.namespaces_followed();
    }
}

/// Client-side filter for what a server-side selector cannot say: Namespace
/// objects outside the `--namespace` list.
fn keep_namespace(kind: Kind, options: &WatchOptions) -> Option<Vec<String>> {
    (kind == Kind::Namespace && !options.namespaces.is_empty()).then(|| options.namespaces.clone())
}

async fn run<T: Slim>(
    api: Api<Watched<T>>,
    config: list_watch::Params,
    state: Arc<LiveState>,
    scope: Scope,
    only_names: Option<Vec<String>>,
) where
    Watched<T>: kube::Resource<DynamicType = ()>,
{
    let resource = T::KIND.plural();
    tracing::debug!(
        resource,
        namespace = scope.as_deref(),
        selector = config.field_selector.as_deref(),
        "watch starting"
    );
    let keep = |w: &Watched<T>| {
        only_names
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == w.name()))
    };
    let mut stream = watcher(api, config).default_backoff().boxed();
    let mut listing: Option<Listing> = None;
    while let Some(item) = stream.next().await {
        match item {
            Ok(Event::Init) => {
                state.listing_again(T::KIND, &scope);
                listing = Some(state.listing(T::KIND, &scope));
            }
            Ok(Event::Contact) => state.contact(T::KIND, &scope, false),
            Ok(Event::Scheduled) => state.scheduled_relist(T::KIND, &scope),
            Ok(Event::InitPage { objects, remaining }) => {
                state.contact(T::KIND, &scope, true);
                let listing = listing.get_or_insert_with(|| state.listing(T::KIND, &scope));
                let objects = objects.into_iter().filter(keep).map(Watched::into_object);
                state.list(listing, objects, remaining);
            }
            Ok(Event::InitDone) => {
                let listing = listing
                    .take()
                    .unwrap_or_else(|| state.listing(T::KIND, &scope));
                state.relist(T::KIND, &scope, listing)
            }
            Ok(Event::Apply(w) | Event::Delete(w)) if !keep(&w) => {
                state.contact(T::KIND, &scope, false)
            }
            Ok(Event::Apply(w)) => {
                state.contact(T::KIND, &scope, false);
                state.apply(w.into_object())
            }
            Ok(Event::Delete(w)) => {
                state.contact(T::KIND, &scope, false);
                state.delete(w.into_object())
            }
            Err(err) => {
                // A list cut off starts again from its first page after the
                // backoff: it is not under way meanwhile, so the findings are
                // kept current through the outage (a threshold crossed shows).
                if matches!(
                    err,
                    watcher::Error::InitialListFailed(_) | watcher::Error::NoResourceVersion
                ) {
                    listing = None;
                }
                report(&state, T::KIND, &scope, &err)
            }
        }
    }
}

fn watcher<T: Slim>(
    api: Api<Watched<T>>,
    config: list_watch::Params,
) -> impl futures::Stream<Item = watcher::Result<Event<Watched<T>>>>
where
    Watched<T>: kube::Resource<DynamicType = ()>,
{
    let client = api.clone().into_client();
    list_watch::list_watch(api, client, config)
}

/// What an error does to the watch: see [`list_watch`]'s rules for a relist.
fn failure(err: &watcher::Error) -> Failure {
    match err {
        watcher::Error::WatchError(status)
            if status.code == 410 || list_watch::too_large(status) =>
        {
            Failure::Relist
        }
        watcher::Error::WatchStartFailed(kube::Error::Api(status))
            if list_watch::too_large(status) =>
        {
            Failure::Relist
        }
        watcher::Error::WatchFailed(kube::Error::SerdeError(_)) => Failure::Passing,
        // An ERROR event the watch goes on after.
        watcher::Error::WatchError(_) => Failure::Passing,
        _ => Failure::Lost,
    }
}

/// A bounded reason for a watch error, and the verb that failed.
pub(crate) fn classify(err: &watcher::Error) -> (&'static str, &'static str) {
    fn client(err: &kube::Error) -> &'static str {
        match err {
            kube::Error::Api(status) => match status.code {
                401 => "unauthorized",
                403 => "forbidden",
                404 => "not_found",
                410 => "expired",
                504 if list_watch::too_large(status) => "too_large",
                500..=599 => "server_error",
                _ => "other",
            },
            kube::Error::SerdeError(_) => "decode",
            kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => {
                "connection"
            }
            _ => "other",
        }
    }
    match err {
        watcher::Error::InitialListFailed(e) => (client(e), "list"),
        watcher::Error::WatchStartFailed(e) => (client(e), "watch"),
        watcher::Error::WatchFailed(e) => (client(e), "watch"),
        watcher::Error::WatchError(status) => (
            match status.code {
                403 => "forbidden",
                410 => "expired",
                504 if list_watch::too_large(status) => "too_large",
                500..=599 => "server_error",
                _ => "other",
            },
            "watch",
        ),
        watcher::Error::NoResourceVersion => ("other", "watch"),
    }
}

/// Logs an error the way the operator needs it: an outage once per resource
/// when it begins (the end is logged with its length when the server answers
/// again), a relist once, a bad line once per message; retries only at debug.
fn report(state: &LiveState, kind: Kind, scope: &Scope, err: &watcher::Error) {
    let (reason, verb) = classify(err);
    let resource = kind.plural();
    let message = err.to_string();
    let failure = failure(err);
    let said = state.record_error(kind, scope, reason, &message, failure);
    let namespace = scope.as_deref();
    match (failure, reason, said) {
        (_, _, Said::Again) => {
            tracing::debug!(resource, namespace, verb, reason, error = %message, "watch error persists; retrying")
        }
        (Failure::Relist, "expired", Said::New) => tracing::info!(
            resource,
            namespace,
            "watch expired (410 Gone); listing again"
        ),
        (Failure::Relist, _, Said::New) => tracing::info!(
            resource,
            namespace,
            error = %message,
            "the API server is behind this watch's resourceVersion (its history started over); listing again"
        ),
        (Failure::Lost, "forbidden", Said::New) => {
            let api_group = if kind.group().is_empty() {
                "\"\" (core)"
            } else {
                kind.group()
            };
            tracing::error!(
                resource,
                namespace,
                verb,
                api_group,
                error = %message,
                "permission denied: the exporter's ServiceAccount needs {} on {resource}; \
                 findings that depend on it are missing until RBAC allows it (other resources keep working)",
                VERBS.join(" and ")
            );
        }
        (Failure::Lost, _, Said::New) => tracing::warn!(
            resource,
            namespace,
            verb,
            reason,
            error = %message,
            "lost the API server; serving the last known state and retrying with backoff \
             (logged again when it is back)"
        ),
        (Failure::Passing, _, Said::New) => {
            tracing::warn!(resource, namespace, verb, reason, error = %message, "watch error; watching on")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_limit_namespaced_watches_and_exclusions_become_field_selectors() {
        let all = plan(&WatchOptions::default());
        assert_eq!(all.len(), Kind::ALL.len());
        let some = plan(&WatchOptions {
            namespaces: vec!["a".into(), "b".into()],
            ..Default::default()
        });
        assert_eq!(some.iter().filter(|(k, _)| *k == Kind::Pod).count(), 2);
        assert_eq!(some.iter().filter(|(k, _)| *k == Kind::Node).count(), 1);
        let options = WatchOptions {
            exclude_namespaces: vec!["kube-system".into()],
            ..Default::default()
        };
        assert_eq!(
            field_selector(Kind::Event, &options).as_deref(),
            Some("type=Warning,metadata.namespace!=kube-system")
        );
        assert_eq!(
            field_selector(Kind::Namespace, &options).as_deref(),
            Some("metadata.name!=kube-system")
        );
        assert_eq!(field_selector(Kind::Node, &options), None);
    }

    #[test]
    fn kinds_the_server_does_not_serve_are_not_watched() {
        let options = WatchOptions {
            unserved: vec![Kind::ResourceClaim],
            ..Default::default()
        };
        let planned = plan(&options);
        assert_eq!(planned.len(), Kind::ALL.len() - 1);
        assert!(planned.iter().all(|(k, _)| *k != Kind::ResourceClaim));
    }

    /// An API server before 1.34 answers 404 for resource.k8s.io/v1 (or
    /// serves the group without the resource): the kind is not watched; one
    /// that lists it, or fails otherwise, leaves it watched.
    #[tokio::test]
    async fn discovery_decides_what_is_served() {
        async fn serve(body: Option<serde_json::Value>) -> Client {
            let app = axum::Router::new().fallback(move || {
                let body = body.clone();
                async move {
                    match body {
                        Some(body) => axum::Json(body).into_response(),
                        None => (
                            axum::http::StatusCode::NOT_FOUND,
                            axum::Json(serde_json::json!({"kind": "Status", "apiVersion": "v1",
                                "status": "Failure", "reason": "NotFound", "code": 404,
                                "message": "the server could not find the requested resource"})),
                        )
                            .into_response(),
                    }
                }
            });
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            tokio::spawn(async move { axum::serve(listener, app).await });
            let config = kube::Config::new(format!("http://{address}").parse().unwrap());
            Client::try_from(config).unwrap()
        }
        use axum::response::IntoResponse;
        let list = |resources: serde_json::Value| {
            serde_json::json!({"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": "resource.k8s.io/v1", "resources": resources})
        };
        assert_eq!(
            unserved_kinds(&serve(None).await).await,
            [Kind::ResourceClaim]
        );
        let without = serve(Some(list(serde_json::json!([{"name": "deviceclasses",
            "singularName": "deviceclass", "namespaced": false, "kind": "DeviceClass",
            "verbs": ["list"]}]))))
        .await;
        assert_eq!(unserved_kinds(&without).await, [Kind::ResourceClaim]);
        let with = serve(Some(list(serde_json::json!([{"name": "resourceclaims",
            "singularName": "resourceclaim", "namespaced": true, "kind": "ResourceClaim",
            "verbs": ["list", "watch"]}]))))
        .await;
        assert!(unserved_kinds(&with).await.is_empty());
    }

    /// A list cut off by an error is not under way while the watch backs off
    /// before listing again: the kept findings go on being judged meanwhile.
    #[tokio::test]
    async fn a_list_cut_off_is_not_under_way_during_the_backoff() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let second_pages = Arc::new(AtomicUsize::new(0));
        let counted = second_pages.clone();
        // Every list's first page names one pod and asks for more; every
        // second page fails.
        let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
            let counted = counted.clone();
            async move {
                use axum::response::IntoResponse;
                if uri.query().unwrap_or_default().contains("continue=") {
                    counted.fetch_add(1, Ordering::SeqCst);
                    return axum::http::StatusCode::INTERNAL_SERVER_ERROR.into_response();
                }
                axum::Json(serde_json::json!({"kind": "PodList", "apiVersion": "v1",
                    "metadata": {"resourceVersion": "7", "continue": "next"},
                    "items": [{"metadata": {"name": "p", "namespace": "a", "uid": "u"}}]}))
                .into_response()
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let client = Client::try_from(kube::Config::new(
            format!("http://{address}").parse().unwrap(),
        ))
        .unwrap();
        let state = Arc::new(LiveState::new(
            crate::diagnosis::Settings::default(),
            [(Kind::Pod, None)],
        ));
        let params = list_watch::Params {
            field_selector: None,
            timeout: None,
            page_size: 1,
            relist_every: None,
        };
        let watch = tokio::spawn(run(
            api::<crate::model::Pod>(client, None),
            params,
            state.clone(),
            None,
            None,
        ));
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        while second_pages.load(Ordering::SeqCst) == 0 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no second page asked for"
            );
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        // The backoff before the next list is at least several hundred
        // milliseconds: the list must be seen as over within it.
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(
            state.lists_under_way(),
            0,
            "a list cut off still counts as under way"
        );
        watch.abort();
    }
}
