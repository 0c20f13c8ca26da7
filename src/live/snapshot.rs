//! One list of everything the diagnosis reads, page by page, into a fresh model:
//! what `kubectl lifecycle diagnose` runs instead of watching.

use k8s_openapi::NamespaceResourceScope;
use kube::Client;
use kube::api::{Api, ListParams};

use super::resources::{Slim, Watched, plural};
use super::watch::WATCHED_KINDS;
use crate::model::{
    Cluster, CoreEvent, DaemonSet, Deployment, Kind, Namespace, Node, Pod, ReplicaSet, StatefulSet,
};

/// Objects per list request; the API server answers with `continue` tokens.
pub const PAGE_SIZE: u32 = 500;

/// How far a listing has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub resource: &'static str,
    /// Objects of this resource listed so far.
    pub listed: usize,
    /// Whether this resource is complete.
    pub done: bool,
}

/// A failed list, naming the resource.
#[derive(Debug, thiserror::Error)]
#[error("listing {resource}: {source}")]
pub struct ListError {
    pub resource: &'static str,
    #[source]
    pub source: kube::Error,
}

/// Lists every watched kind (namespaced kinds in `namespace` only, when given;
/// warning events only) into a model, reporting progress after every page.
pub async fn list_cluster(
    client: &Client,
    namespace: Option<&str>,
    mut progress: impl FnMut(Progress),
) -> Result<Cluster, ListError> {
    let mut cluster = Cluster::new();
    for kind in WATCHED_KINDS {
        let selector = (kind == Kind::Event).then_some("type=Warning");
        let report = &mut progress;
        match kind {
            Kind::Node => {
                let api: Api<Watched<Node>> = Api::all(client.clone());
                list_into(&api, None, &mut cluster, report).await?
            }
            Kind::Namespace => {
                let api: Api<Watched<Namespace>> = Api::all(client.clone());
                // With -n, only that namespace's own object matters.
                let by_name = namespace.map(|n| format!("metadata.name={n}"));
                list_into(&api, by_name.as_deref(), &mut cluster, report).await?
            }
            Kind::Pod => {
                list_into(
                    &scoped::<Pod>(client, namespace),
                    selector,
                    &mut cluster,
                    report,
                )
                .await?
            }
            Kind::Deployment => {
                list_into(
                    &scoped::<Deployment>(client, namespace),
                    selector,
                    &mut cluster,
                    report,
                )
                .await?
            }
            Kind::ReplicaSet => {
                list_into(
                    &scoped::<ReplicaSet>(client, namespace),
                    selector,
                    &mut cluster,
                    report,
                )
                .await?
            }
            Kind::StatefulSet => {
                list_into(
                    &scoped::<StatefulSet>(client, namespace),
                    selector,
                    &mut cluster,
                    report,
                )
                .await?
            }
            Kind::DaemonSet => {
                list_into(
                    &scoped::<DaemonSet>(client, namespace),
                    selector,
                    &mut cluster,
                    report,
                )
                .await?
            }
            Kind::Event => {
                list_into(
                    &scoped::<CoreEvent>(client, namespace),
                    selector,
                    &mut cluster,
                    report,
                )
                .await?
            }
        }
        cluster.mark_listed(kind);
    }
    Ok(cluster)
}

fn scoped<T: Slim<Scope = NamespaceResourceScope>>(
    client: &Client,
    namespace: Option<&str>,
) -> Api<Watched<T>> {
    match namespace {
        Some(namespace) => Api::namespaced(client.clone(), namespace),
        None => Api::all(client.clone()),
    }
}

async fn list_into<T: Slim>(
    api: &Api<Watched<T>>,
    field_selector: Option<&str>,
    cluster: &mut Cluster,
    progress: &mut impl FnMut(Progress),
) -> Result<(), ListError>
where
    Watched<T>: kube::Resource<DynamicType = ()>,
{
    let resource = plural(T::KIND);
    let mut params = ListParams::default().limit(PAGE_SIZE);
    if let Some(selector) = field_selector {
        params = params.fields(selector);
    }
    let mut listed = 0;
    loop {
        let page = api
            .list(&params)
            .await
            .map_err(|source| ListError { resource, source })?;
        listed += page.items.len();
        for item in page.items {
            cluster.apply(item.into_object());
        }
        let next = page.metadata.continue_.filter(|c| !c.is_empty());
        progress(Progress {
            resource,
            listed,
            done: next.is_none(),
        });
        match next {
            Some(token) => params = params.continue_token(&token),
            None => return Ok(()),
        }
    }
}
