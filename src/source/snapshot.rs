//! One list of everything the diagnosis reads, page by page, into a fresh model:
//! what `kubectl lifecycle diagnose` runs instead of watching.

use futures::future::LocalBoxFuture;
use kube::Client;
use kube::api::{Api, ListParams};

use super::api::{PAGE_SIZE, Watched, api};
use crate::model::{Cluster, Kind, KindVisitor, Slim};

/// How far a listing has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Progress {
    pub resource: &'static str,
    /// Objects of this resource listed so far.
    pub listed: usize,
    /// Whether this resource is complete.
    pub done: bool,
}

/// A failed list, naming the resource.
#[derive(Debug, thiserror::Error)]
#[error("listing {resource}: {source}")]
pub(crate) struct ListError {
    pub resource: &'static str,
    #[source]
    pub source: kube::Error,
}

/// Lists every watched kind (namespaced kinds in `namespace` only, when given;
/// warning events only) into a model, reporting progress after every page.
pub(crate) async fn list_cluster(
    client: &Client,
    namespace: Option<&str>,
    mut progress: impl FnMut(Progress),
) -> Result<Cluster, ListError> {
    let mut cluster = Cluster::new();
    let unserved = super::watch::unserved_kinds(client).await;
    for kind in Kind::watch_order().filter(|k| !unserved.contains(k)) {
        let selector = match kind {
            Kind::Event => Some("type=Warning".to_string()),
            // With -n, only that namespace's own object matters.
            Kind::Namespace => namespace.map(|n| format!("metadata.name={n}")),
            _ => None,
        };
        kind.visit(ListInto {
            client,
            namespace,
            selector: selector.as_deref(),
            cluster: &mut cluster,
            progress: &mut progress,
        })
        .await?;
        cluster.mark_listed(kind);
    }
    Ok(cluster)
}

/// Lists one kind, with its type, into the model.
struct ListInto<'a, P> {
    client: &'a Client,
    namespace: Option<&'a str>,
    selector: Option<&'a str>,
    cluster: &'a mut Cluster,
    progress: &'a mut P,
}

impl<'a, P: FnMut(Progress)> KindVisitor for ListInto<'a, P> {
    type Output = LocalBoxFuture<'a, Result<(), ListError>>;

    fn visit<T: Slim>(self) -> Self::Output {
        let api = api::<T>(self.client.clone(), self.namespace);
        Box::pin(async move { list_into(&api, self.selector, self.cluster, self.progress).await })
    }
}

async fn list_into<T: Slim>(
    api: &Api<Watched<T>>,
    field_selector: Option<&str>,
    cluster: &mut Cluster,
    progress: &mut impl FnMut(Progress),
) -> Result<(), ListError> {
    let resource = T::KIND.plural();
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
