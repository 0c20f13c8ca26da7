//! `serve`: watch the cluster (or load a file) and serve HTTP until a signal.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use axum::Router;
use axum::serve::ListenerExt;
use jiff::SignedDuration;
use kube::Client;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::diagnosis::Settings;
use crate::output::RunbookLinks;
use crate::server::auth::reviews::KubeReviewer;
use crate::server::auth::{self, Auth, AuthMode};
use crate::server::web_config::WebSecurity;
use crate::server::{self, App, Source, basic_auth, tls};
use crate::source::watch::shard::Shard;
use crate::source::watch::{self, Freshness, LiveState, WatchOptions};

use super::{Thresholds, parse_duration};

/// Port 9096: the Prometheus exporter range 9100–9999 is fully allocated, and 9096
/// appears in neither the core-component block (9090–9094) nor the list of
/// exporters outside that range (see the README).
pub(crate) const DEFAULT_LISTEN: &str = "0.0.0.0:9096";

#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Address to serve /metrics, /findings, /healthz, /readyz and the landing page on.
    #[arg(long, default_value = DEFAULT_LISTEN, env = "KUBE_LIFECYCLE_LISTEN")]
    pub(crate) listen: SocketAddr,

    /// Serve the findings of a kubectl dump (JSON or YAML) instead of watching a cluster.
    #[arg(long, value_name = "FILE", env = "KUBE_LIFECYCLE_FROM_FILE")]
    pub(crate) from_file: Option<PathBuf>,

    /// Kubeconfig file. Without it: in-cluster service account when running in a pod,
    /// else $KUBECONFIG or ~/.kube/config, as kubectl does.
    #[arg(long, value_name = "FILE")]
    pub(crate) kubeconfig: Option<PathBuf>,

    /// Kubeconfig context to use instead of the current one.
    #[arg(long)]
    pub(crate) context: Option<String>,

    /// Watch only this namespace (repeatable; default: all namespaces).
    #[arg(
        long = "namespace",
        short = 'n',
        value_name = "NAMESPACE",
        env = "KUBE_LIFECYCLE_NAMESPACES",
        value_delimiter = ','
    )]
    pub(crate) namespaces: Vec<String>,

    /// Never watch this namespace (repeatable).
    #[arg(
        long = "exclude-namespace",
        value_name = "NAMESPACE",
        env = "KUBE_LIFECYCLE_EXCLUDE_NAMESPACES",
        value_delimiter = ','
    )]
    pub(crate) exclude_namespaces: Vec<String>,

    /// Warning events older than this are forgotten (the API server's own event TTL is 1h).
    #[arg(long, value_parser = parse_duration, default_value = "1h", env = "KUBE_LIFECYCLE_EVENT_MAX_AGE")]
    pub(crate) event_max_age: SignedDuration,

    /// Base URL of a published copy of the runbooks; links become <base>/<alert name in lower case>.
    /// By default the landing page links to the copies this exporter serves under /runbooks.
    #[arg(
        long,
        env = "KUBE_LIFECYCLE_RUNBOOK_BASE_URL",
        default_value = "/runbooks"
    )]
    pub(crate) runbook_base_url: String,

    /// Per-pod series one findings family may expose. Above it, that family's
    /// series are folded by namespace and its other labels (node, cause,
    /// registry…), so the rules keep firing per node and per registry;
    /// `kube_lifecycle_series_folded` and a log line say so, and /findings and
    /// the landing page still list every object. 0: no ceiling.
    #[arg(
        long,
        default_value_t = 10_000,
        env = "KUBE_LIFECYCLE_MAX_SERIES_PER_FAMILY"
    )]
    pub(crate) max_series_per_family: usize,

    /// How long each watch request stays open before the API server ends it and it is
    /// renewed. A connection silent for this long plus 5s is considered dead and
    /// reopened (a watch that hangs without sending a byte, a half-open TCP connection).
    #[arg(long, value_parser = parse_std_duration, default_value = "290s", env = "KUBE_LIFECYCLE_WATCH_TIMEOUT")]
    pub(crate) watch_timeout: std::time::Duration,

    /// List every resource again this often even when nothing went wrong: a safety
    /// net for API servers that lose events without saying so. Off by default: the
    /// watches list again on their own when the server's history cannot be trusted
    /// (410 Gone, too large a resourceVersion, after the server was unreachable).
    #[arg(long, value_parser = parse_std_duration, env = "KUBE_LIFECYCLE_RELIST_INTERVAL")]
    pub(crate) relist_interval: Option<std::time::Duration>,

    /// This exporter's shard (0-based) when the cluster is split across
    /// --total-shards exporters by namespace.
    #[arg(
        long,
        default_value_t = 0,
        env = "KUBE_LIFECYCLE_SHARD",
        conflicts_with = "shard_from_pod_name"
    )]
    pub(crate) shard: u32,

    /// Number of exporters sharing the cluster by namespace (1: no sharding).
    #[arg(long, default_value_t = 1, env = "KUBE_LIFECYCLE_TOTAL_SHARDS")]
    pub(crate) total_shards: u32,

    /// Take the shard from a StatefulSet pod's name (`…-2` is shard 2); give it the
    /// pod's own name, e.g. from the downward API.
    #[arg(long, env = "KUBE_LIFECYCLE_SHARD_FROM_POD_NAME")]
    pub(crate) shard_from_pod_name: Option<String>,

    /// Web configuration file in the Prometheus exporter-toolkit format: TLS
    /// (`tls_server_config`: cert_file, key_file, client_auth_type and
    /// client_ca_file for mutual TLS, min_version/max_version TLS12 or TLS13),
    /// `basic_auth_users` (user: bcrypt hash) and `http_server_config`
    /// (http2, headers). Relative paths are read from the file's directory; a
    /// change to the file or the certificates is picked up on new connections.
    /// Basic auth covers every path but /healthz and /readyz. Without it: plain
    /// HTTP, no authentication.
    #[arg(
        long = "web.config.file",
        value_name = "FILE",
        env = "KUBE_LIFECYCLE_WEB_CONFIG_FILE"
    )]
    pub(crate) web_config_file: Option<PathBuf>,

    /// Who may see what: `none` (the default; anyone who reaches the port, or
    /// the web config's basic auth and client certificates) or `kubernetes`
    /// (recommended): every request but /healthz and /readyz carries a bearer
    /// token, reviewed by the API server (TokenReview) and authorized
    /// (SubjectAccessReview): /metrics needs `get` on the non-resource URL
    /// /metrics; /findings, the landing page and the runbooks show each viewer
    /// the findings of the namespaces where they may `list pods`, and those
    /// about nodes and the cluster if they may `list nodes`. The web config
    /// may say the same with `auth: kubernetes`.
    #[arg(long, value_name = "MODE", value_parser = AuthMode::parse, env = "KUBE_LIFECYCLE_AUTH")]
    pub(crate) auth: Option<AuthMode>,

    /// With --auth kubernetes: the audiences a token must be for (repeatable);
    /// by default the API server's own.
    #[arg(
        long = "auth-token-audience",
        value_name = "AUDIENCE",
        env = "KUBE_LIFECYCLE_AUTH_TOKEN_AUDIENCES",
        value_delimiter = ','
    )]
    pub(crate) auth_token_audiences: Vec<String>,

    /// With --auth kubernetes: how long an accepted token and an allowed
    /// request are remembered.
    #[arg(long, value_parser = parse_std_duration, default_value = "2m", env = "KUBE_LIFECYCLE_AUTH_CACHE_TTL")]
    pub(crate) auth_cache_ttl: std::time::Duration,

    /// With --auth kubernetes: how long a refused token and a denied request
    /// are remembered (shorter, so a new grant is seen soon).
    #[arg(long, value_parser = parse_std_duration, default_value = "30s", env = "KUBE_LIFECYCLE_AUTH_DENIED_CACHE_TTL")]
    pub(crate) auth_denied_cache_ttl: std::time::Duration,

    #[command(flatten)]
    pub(crate) thresholds: Thresholds,
}

impl ServeArgs {
    fn shard(&self) -> Result<Shard> {
        Ok(match &self.shard_from_pod_name {
            Some(name) => Shard::from_pod_name(name, self.total_shards)?,
            None => Shard::new(self.shard, self.total_shards)?,
        })
    }
}

fn parse_std_duration(s: &str) -> Result<std::time::Duration, String> {
    let d = humantime::parse_duration(s).map_err(|e| format!("{e} (expected e.g. 90s, 5m)"))?;
    if d < std::time::Duration::from_secs(1) {
        return Err("must be at least 1s".into());
    }
    Ok(d)
}

async fn kube_client(args: &ServeArgs) -> Result<(Client, String)> {
    let config =
        super::cluster::config(args.kubeconfig.as_deref(), args.context.as_deref()).await?;
    let mut config = config;
    // Longer than a watch request lasts, so only a silent (dead) connection trips it.
    config.read_timeout = Some(args.watch_timeout + std::time::Duration::from_secs(5));
    let url = config.cluster_url.to_string();
    Ok((
        Client::try_from(config).context("building the Kubernetes client")?,
        url,
    ))
}

pub async fn run(args: ServeArgs) -> Result<()> {
    // Everything here builds its TLS configurations with ring explicitly; a
    // process default too keeps any other rustls user from panicking for want
    // of one (an error only means one is already installed).
    let _ = rustls::crypto::ring::default_provider().install_default();
    // Checked before anything else, so a bad file fails at once.
    let security = match &args.web_config_file {
        Some(path) => Some(Arc::new(WebSecurity::load(path)?)),
        None => None,
    };
    let mode = auth_mode(&args, security.as_deref())?;
    // Checked before the watches start: an exporter that cannot review
    // tokens refuses to start rather than serve everyone or no one.
    let reviewer = match mode {
        AuthMode::Kubernetes => Some(reviewer(&args).await?),
        AuthMode::None => None,
    };
    let settings = args.thresholds.settings();
    let (live, source, watchers) = match &args.from_file {
        Some(path) => {
            let (live, source) = load_file(path, settings)?;
            (live, source, Vec::new())
        }
        None => watch_cluster(&args, settings).await?,
    };
    live.clone()
        .keep_current()
        .context("starting the thread that keeps the findings current")?;

    let links = RunbookLinks::from_base_url(Some(&args.runbook_base_url));
    let mut app = App::new(live.clone(), links, source, args.max_series_per_family);
    if let Some(reviewer) = reviewer {
        let settings = auth::Settings {
            audiences: args.auth_token_audiences.clone(),
            allowed_ttl: args.auth_cache_ttl,
            denied_ttl: args.auth_denied_cache_ttl,
        };
        tracing::info!(
            audiences = ?settings.audiences,
            "--auth kubernetes: every request but /healthz and /readyz needs a bearer token the API server accepts"
        );
        app = app.with_auth(Auth::new(Box::new(reviewer), settings, live));
    }
    let app = Arc::new(app);
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("listening on {}", args.listen))?;
    serve_http(listener, app.router(), security).await?;
    for watcher in watchers {
        watcher.abort();
    }
    tracing::info!("stopped");
    Ok(())
}

/// The mode of `--auth`, or of the web config's `auth` when the flag is not
/// given; refused when they disagree, or when basic auth would read the same
/// `Authorization` header.
fn auth_mode(args: &ServeArgs, security: Option<&WebSecurity>) -> Result<AuthMode> {
    let file = security.and_then(|s| s.current().auth);
    let mode = match (args.auth, file) {
        (Some(flag), Some(file)) if flag != file => anyhow::bail!(
            "--auth {} and the web config's `auth: {}` disagree; say it once",
            flag.as_str(),
            file.as_str()
        ),
        (flag, file) => flag.or(file).unwrap_or_default(),
    };
    if mode == AuthMode::Kubernetes && security.is_some_and(|s| !s.current().users.is_empty()) {
        anyhow::bail!(
            "--auth kubernetes and the web config's basic_auth_users both read the Authorization header; keep one"
        );
    }
    Ok(mode)
}

/// The reviews' client, once the exporter has checked that it may create
/// them. Its requests time out quickly: a viewer waits on them.
async fn reviewer(args: &ServeArgs) -> Result<KubeReviewer> {
    let mut config = super::cluster::config(args.kubeconfig.as_deref(), args.context.as_deref())
        .await
        .context(
            "--auth kubernetes reviews tokens with the Kubernetes API server (serve --from-file too): \
             run in a pod, or give --kubeconfig or --context",
        )?;
    config.connect_timeout = Some(std::time::Duration::from_secs(5));
    config.read_timeout = Some(std::time::Duration::from_secs(10));
    config.write_timeout = Some(std::time::Duration::from_secs(10));
    let url = config.cluster_url.to_string();
    let client =
        Client::try_from(config).context("building the Kubernetes client for the reviews")?;
    let reviewer = KubeReviewer::new(client);
    let missing = reviewer.missing_rules().await.with_context(|| {
        format!("--auth kubernetes: asking the API server at {url} whether the exporter may create tokenreviews and subjectaccessreviews")
    })?;
    if !missing.is_empty() {
        anyhow::bail!(
            "--auth kubernetes: the exporter's service account may not create the reviews it needs; \
             add to its ClusterRole: {} (deploy/README.md, \"Authentication\")",
            missing.join(", ")
        );
    }
    Ok(reviewer)
}

/// While a watched model that takes more than 10 ms to judge changes, reads
/// take findings judged up to half a second ago (or as long as the last
/// judgement took, when longer) rather than judge the whole model on every
/// request; a smaller one is judged by the read that finds it changed.
const FRESHNESS: Freshness = Freshness {
    at_least: std::time::Duration::from_millis(500),
    exact_below: std::time::Duration::from_millis(10),
};

/// `--from-file`: the dump's model, served as it is.
fn load_file(path: &Path, settings: Settings) -> Result<(Arc<LiveState>, Source)> {
    let (label, loaded) = super::diagnose::load_input(path)?;
    tracing::info!(file = %label, "{}", loaded.summary());
    // When the file was written says when it was taken, unless it carries
    // its own `now` (then the page's "judged at" says it).
    let written = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| jiff::Timestamp::try_from(t).ok())
        .filter(|_| loaded.now.is_none());
    Ok((
        Arc::new(LiveState::from_cluster(
            loaded.cluster,
            settings,
            loaded.now,
        )),
        Source::File {
            name: label,
            written,
        },
    ))
}

/// The watches of the cluster (or of this exporter's shard of it) started,
/// with the task that forgets old warning events.
async fn watch_cluster(
    args: &ServeArgs,
    settings: Settings,
) -> Result<(Arc<LiveState>, Source, Vec<JoinHandle<()>>)> {
    let shard = args.shard()?;
    let (client, url) = kube_client(args).await?;
    let options = WatchOptions {
        namespaces: args.namespaces.clone(),
        exclude_namespaces: args.exclude_namespaces.clone(),
        shard,
        watch_timeout: Some(args.watch_timeout),
        relist_interval: args.relist_interval,
        unserved: watch::unserved_kinds(&client).await,
    };
    let live = Arc::new(
        LiveState::new(settings, watch::plan(&options))
            .sharded(shard, watch::follows_namespaces(&options))
            .fresh(FRESHNESS),
    );
    tracing::info!(cluster = %url, namespaces = ?options.namespaces, excluded = ?options.exclude_namespaces, shard = %shard, "watching");
    let mut watchers = watch::spawn_all(client, live.clone(), &options);
    watchers.push(prune_events_every_minute(live.clone(), args.event_max_age));
    Ok((live, Source::Cluster(url), watchers))
}

/// Forgets warning events older than `max_age`, once a minute.
fn prune_events_every_minute(live: Arc<LiveState>, max_age: SignedDuration) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            every.tick().await;
            live.prune_events(max_age);
        }
    })
}

/// Serves `router` on `listener` until a signal: plain HTTP, or as the web
/// configuration says (basic auth, TLS).
async fn serve_http(
    listener: TcpListener,
    router: Router,
    security: Option<Arc<WebSecurity>>,
) -> Result<()> {
    let address = listener.local_addr()?;
    let Some(security) = security else {
        tracing::info!(%address, scheme = "http", "serving /metrics");
        let listener = listener.tap_io(|tcp| server::no_delay(tcp));
        return axum::serve(listener, router)
            .with_graceful_shutdown(shutdown_signal())
            .await
            .context("serving HTTP");
    };
    let config = security.current();
    let router = basic_auth::protect(router, security.clone());
    let users = config.users.len();
    match &config.tls {
        Some(tls) => {
            tracing::info!(
                %address,
                scheme = "https",
                client_auth = %tls.client_auth,
                min_version = %tls.min_version,
                max_version = %tls.max_version,
                http2 = config.http2,
                basic_auth_users = users,
                "serving /metrics"
            );
            let listener = tls::TlsListener::new(listener, security)?;
            axum::serve(listener, router)
                .with_graceful_shutdown(shutdown_signal())
                .await
                .context("serving HTTP")
        }
        None => {
            tracing::info!(%address, scheme = "http", basic_auth_users = users, "serving /metrics");
            // Plain HTTP: the file's changes are looked for on each connection.
            let listener = listener.tap_io(move |tcp| {
                server::no_delay(tcp);
                security.refresh();
            });
            axum::serve(listener, router)
                .with_graceful_shutdown(shutdown_signal())
                .await
                .context("serving HTTP")
        }
    }
}

/// SIGTERM or SIGINT: stop accepting, let in-flight requests finish.
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("SIGINT: shutting down"),
        () = terminate => tracing::info!("SIGTERM: shutting down"),
    }
}
