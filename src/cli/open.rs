//! `kubectl lifecycle open`: the exporter's pages as the current kubeconfig
//! user. A port-forward to a Ready pod behind the exporter's Service, and a
//! local proxy in front of it that adds that user's bearer token (from the
//! kubeconfig: a token, a token file, or an exec credential plugin such as
//! EKS's and GKE's, refreshed as kube does), so an exporter run with
//! `--auth kubernetes` shows the user what their RBAC allows.
//!
//! The proxy listens on loopback only, answers only GET and HEAD, and only
//! for a Host of loopback (so a web page cannot reach it through a DNS name
//! it controls): what it adds is the user's credential.

use std::net::SocketAddr;

use anyhow::{Context, Result, bail};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::{Pod, Service};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::api::{ListParams, PostParams};
use kube::{Api, Client};
use tokio::net::TcpListener;

#[derive(Debug, clap::Args)]
pub struct OpenArgs {
    /// The exporter's namespace.
    #[arg(long, short = 'n', default_value = "kube-lifecycle")]
    pub(crate) namespace: String,

    /// The exporter's Service.
    #[arg(long, default_value = "kube-lifecycle-exporter")]
    pub(crate) service: String,

    /// The Service's port.
    #[arg(long, default_value_t = 9096)]
    pub(crate) port: u16,

    /// Where the local proxy listens (loopback; port 0: any free one).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub(crate) listen: SocketAddr,

    /// Proxy to this address (http://host:port) instead of port-forwarding
    /// to the Service: an exporter already reachable, e.g. through your own
    /// `kubectl port-forward`.
    #[arg(long, value_name = "URL")]
    pub(crate) upstream: Option<String>,

    /// Print the address without opening a browser.
    #[arg(long)]
    pub(crate) no_browser: bool,

    /// Kubeconfig file (default: $KUBECONFIG or ~/.kube/config, as kubectl).
    #[arg(long)]
    pub(crate) kubeconfig: Option<std::path::PathBuf>,

    /// Kubeconfig context (default: the current one).
    #[arg(long)]
    pub(crate) context: Option<String>,
}

pub async fn run(args: OpenArgs) -> Result<()> {
    let config =
        super::cluster::config(args.kubeconfig.as_deref(), args.context.as_deref()).await?;
    let auth = &config.auth_info;
    if auth.token.is_none()
        && auth.token_file.is_none()
        && auth.exec.is_none()
        && auth.auth_provider.is_none()
    {
        bail!(
            "the kubeconfig user has no bearer token (a client certificate or a password cannot be \
             reviewed by the exporter's TokenReview); use a context with a token or an exec plugin, \
             or run the exporter without --auth kubernetes"
        );
    }
    let upstream = match &args.upstream {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => {
            let client =
                Client::try_from(config.clone()).context("building the Kubernetes client")?;
            port_forward(client, &args).await?
        }
    };
    // The viewer's client: the kubeconfig user's credentials, sent to the
    // exporter instead of the API server.
    let mut viewer = config;
    viewer.cluster_url = upstream
        .parse()
        .with_context(|| format!("{upstream:?} is not a URL"))?;
    viewer.proxy_url = None;
    viewer.read_timeout = Some(std::time::Duration::from_secs(60));
    let viewer = Client::try_from(viewer).context("building the client that adds your token")?;

    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("listening on {}", args.listen))?;
    let address = listener.local_addr()?;
    if !address.ip().is_loopback() {
        bail!(
            "--listen must be a loopback address: the proxy adds your credentials to what it forwards"
        );
    }
    let url = format!("http://{address}/");
    println!("kube-lifecycle-exporter at {url} as the kubeconfig user (Ctrl-C to stop)");
    if !args.no_browser {
        open_browser(&url);
    }
    let app = axum::Router::new()
        .fallback(forward)
        .with_state((viewer, address));
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("serving the local proxy")
}

/// One request, forwarded with the user's credentials.
async fn forward(
    State((client, address)): State<(Client, SocketAddr)>,
    request: Request,
) -> Response {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET and HEAD are forwarded\n",
        )
            .into_response();
    }
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let port = address.port();
    if ![
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ]
    .iter()
    .any(|allowed| allowed == host)
    {
        return (
            StatusCode::MISDIRECTED_REQUEST,
            "this proxy answers only for its loopback address\n",
        )
            .into_response();
    }
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let mut outgoing = http::Request::builder()
        .method(request.method().clone())
        .uri(path);
    for name in [
        header::ACCEPT,
        header::ACCEPT_ENCODING,
        header::ACCEPT_LANGUAGE,
    ] {
        if let Some(value) = request.headers().get(&name) {
            outgoing = outgoing.header(name, value);
        }
    }
    let Ok(outgoing) = outgoing.body(kube::client::Body::empty()) else {
        return (StatusCode::BAD_REQUEST, "bad request\n").into_response();
    };
    match client.send(outgoing).await {
        Ok(response) => {
            let (parts, body) = response.into_parts();
            Response::from_parts(parts, Body::new(body))
        }
        Err(error) => {
            tracing::warn!(%error, "forwarding to the exporter failed");
            (
                StatusCode::BAD_GATEWAY,
                format!("the exporter could not be reached: {error}\n"),
            )
                .into_response()
        }
    }
}

/// A local port forwarded to a Ready pod of the Service: its address.
async fn port_forward(client: Client, args: &OpenArgs) -> Result<String> {
    let missing = missing_permissions(&client, &args.namespace).await?;
    if !missing.is_empty() {
        bail!(
            "your kubeconfig user may not reach the exporter in the namespace {}: it needs {} \
             (a Role with these rules, bound to you in that namespace); or pass --upstream",
            args.namespace,
            missing.join(", ")
        );
    }
    let services: Api<Service> = Api::namespaced(client.clone(), &args.namespace);
    let service = services
        .get(&args.service)
        .await
        .with_context(|| format!("getting the Service {}/{}", args.namespace, args.service))?;
    let spec = service.spec.unwrap_or_default();
    let selector = spec.selector.unwrap_or_default();
    if selector.is_empty() {
        bail!("the Service {} selects no pods", args.service);
    }
    let target = spec
        .ports
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.port == i32::from(args.port))
        .map(|p| p.target_port.unwrap_or(IntOrString::Int(p.port)))
        .with_context(|| format!("the Service {} has no port {}", args.service, args.port))?;
    let labels: Vec<String> = selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let pods: Api<Pod> = Api::namespaced(client, &args.namespace);
    let listed = pods
        .list(&ListParams::default().labels(&labels.join(",")))
        .await
        .context("listing the exporter's pods")?;
    let ready = listed
        .items
        .into_iter()
        .find(|pod| {
            pod.status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        })
        .context("no Ready pod behind the Service")?;
    let name = ready.metadata.name.clone().unwrap_or_default();
    let port = match target {
        IntOrString::Int(port) => port,
        IntOrString::String(named) => ready
            .spec
            .iter()
            .flat_map(|s| &s.containers)
            .flat_map(|c| c.ports.iter().flatten())
            .find(|p| p.name.as_deref() == Some(named.as_str()))
            .map(|p| p.container_port)
            .with_context(|| format!("the pod {name} has no port named {named}"))?,
    };
    let port = u16::try_from(port).context("the target port is out of range")?;
    let local = TcpListener::bind("127.0.0.1:0").await?;
    let address = local.local_addr()?;
    eprintln!("forwarding to pod {}/{name} port {port}", args.namespace);
    tokio::spawn(async move {
        while let Ok((mut connection, _)) = local.accept().await {
            let (pods, name) = (pods.clone(), name.clone());
            tokio::spawn(async move {
                let forwarded = async {
                    let mut forwarder = pods.portforward(&name, &[port]).await?;
                    let mut stream = forwarder
                        .take_stream(port)
                        .context("the port-forward has no stream")?;
                    tokio::io::copy_bidirectional(&mut connection, &mut stream).await?;
                    anyhow::Ok(())
                };
                if let Err(error) = forwarded.await {
                    tracing::warn!(%error, "port-forward failed");
                }
            });
        }
    });
    Ok(format!("http://{address}"))
}

/// What the port-forward needs that the user may not do, asked of the API
/// server about the user.
async fn missing_permissions(client: &Client, namespace: &str) -> Result<Vec<String>> {
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    let mut missing = Vec::new();
    for (verb, resource, subresource) in [
        ("get", "services", None),
        ("list", "pods", None),
        ("create", "pods", Some("portforward")),
    ] {
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    namespace: Some(namespace.into()),
                    verb: Some(verb.into()),
                    resource: Some(resource.into()),
                    subresource: subresource.map(String::from),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let answer = api
            .create(&PostParams::default(), &review)
            .await
            .context("asking the API server what you may do")?;
        if !answer.status.is_some_and(|s| s.allowed) {
            let resource = match subresource {
                Some(sub) => format!("{resource}/{sub}"),
                None => resource.to_string(),
            };
            missing.push(format!("{verb} {resource}"));
        }
    }
    Ok(missing)
}

/// The system's browser, if one can be started; the address is printed anyway.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(error) = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("could not open a browser ({opener}: {error}); open {url}");
    }
}
