//! The list side of the store: pages of a list, and the snapshots that
//! continue tokens page through, so every page comes from one state.

use std::sync::Arc;

use crate::object::StoredObject;
use crate::resources::ResourceId;
use crate::selectors::Filter;

use super::{State, Store, StoreError};

/// Pagination snapshots kept at once; the oldest is dropped first and its
/// continue token then answers 410 Expired.
const MAX_SNAPSHOTS: usize = 64;

/// One page of a list.
#[derive(Debug)]
pub(crate) struct ListPage {
    pub resource_version: u64,
    pub items: Vec<Arc<StoredObject>>,
    pub continue_token: Option<String>,
    pub remaining_item_count: Option<usize>,
}

/// A consistent view that continue tokens page through.
pub(super) struct Snapshot {
    resource: ResourceId,
    namespace: Option<String>,
    pub(super) resource_version: u64,
    items: Arc<Vec<Arc<StoredObject>>>,
}

impl Store {
    /// One page of the objects of `resource` that `filter` selects, starting a
    /// new snapshot or continuing one.
    pub fn list(
        &self,
        resource: ResourceId,
        filter: &Filter,
        limit: Option<usize>,
        continue_token: Option<&str>,
    ) -> Result<ListPage, StoreError> {
        let namespace = filter.namespace.as_deref();
        let (snapshot_id, resource_version, items, offset) = match continue_token {
            Some(token) => {
                let (id, rv, offset) = parse_continue(token)?;
                let state = self.state.lock();
                let snapshot = state
                    .snapshots
                    .get(&id)
                    .ok_or(StoreError::ContinueExpired)?;
                if snapshot.resource != resource
                    || snapshot.namespace.as_deref() != namespace
                    || snapshot.resource_version != rv
                    || offset > snapshot.items.len()
                {
                    return Err(StoreError::InvalidContinue(format!(
                        "continue token {token:?} does not belong to this list"
                    )));
                }
                (Some(id), rv, snapshot.items.clone(), offset)
            }
            None => {
                let mut state = self.state.lock();
                let items = Arc::new(state.scope(resource, namespace));
                let rv = state.resource_version;
                let id = limit.filter(|&l| items.len() > l).map(|_| {
                    state.add_snapshot(Snapshot {
                        resource,
                        namespace: namespace.map(str::to_string),
                        resource_version: rv,
                        items: items.clone(),
                    })
                });
                (id, rv, items, 0)
            }
        };

        let limit = limit.unwrap_or(usize::MAX);
        let mut page = Vec::new();
        let mut next = None;
        for (position, object) in items.iter().enumerate().skip(offset) {
            if filter.matches(object) {
                if page.len() == limit {
                    next = Some(position);
                    break;
                }
                page.push(object.clone());
            }
        }
        let continue_token = match (next, snapshot_id) {
            (Some(position), Some(id)) => Some(format!("{id}.{resource_version}.{position}")),
            _ => None,
        };
        if continue_token.is_none()
            && let Some(id) = snapshot_id
        {
            // The last page was served: nobody needs the snapshot any more.
            self.state.lock().snapshots.remove(&id);
        }
        let remaining_item_count = match next {
            Some(position) if continue_token.is_some() && !filter.has_selectors() => {
                Some(items.len() - position)
            }
            _ => None,
        };
        Ok(ListPage {
            resource_version,
            items: page,
            continue_token,
            remaining_item_count,
        })
    }
}

impl State {
    fn add_snapshot(&mut self, snapshot: Snapshot) -> u64 {
        let id = self.next_snapshot;
        self.next_snapshot += 1;
        self.snapshots.insert(id, snapshot);
        while self.snapshots.len() > MAX_SNAPSHOTS {
            self.snapshots.pop_first();
        }
        id
    }
}

/// Parses `{snapshot}.{resourceVersion}.{offset}`.
fn parse_continue(token: &str) -> Result<(u64, u64, usize), StoreError> {
    let invalid = || StoreError::InvalidContinue(format!("continue key is not valid: {token:?}"));
    let mut parts = token.split('.');
    let id = parts
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(invalid)?;
    let rv = parts
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(invalid)?;
    let offset = parts
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(invalid)?;
    if parts.next().is_some() {
        return Err(invalid());
    }
    Ok((id, rv, offset))
}
