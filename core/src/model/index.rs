//! The keys an index holds under one node or owner, and how the cluster's
//! indexes add and take them.

use std::borrow::Borrow;
use std::hash::Hash;

use foldhash::HashMap;

use super::meta::ObjectKey;

/// The keys an index holds under one owner or node.
pub(super) trait IndexEntry<K>: Default {
    fn add(&mut self, key: &K);
    fn take(&mut self, key: &ObjectKey);
    fn is_empty(&self) -> bool;
}

/// A sorted list. A list names objects in key order, so a key mostly comes
/// after every key held: adding it is one comparison and a push, where a B-tree
/// set compared it with up to eleven keys of each node on its way down, each
/// comparison reading a key no cache held. Adding a key out of order, or
/// taking one, moves the keys after it: microseconds for the thousands of pods
/// of a large DaemonSet.
/// The first few slots are allocated one by one: most Deployments have one or
/// two ReplicaSets.
impl<K: Ord + Clone + Borrow<ObjectKey>> IndexEntry<K> for Vec<K> {
    fn add(&mut self, key: &K) {
        let at = match self.last() {
            None => 0,
            Some(last) if last.borrow() < key.borrow() => self.len(),
            Some(_) => match self.binary_search_by(|k| k.borrow().cmp(key.borrow())) {
                Ok(_) => return,
                Err(at) => at,
            },
        };
        if self.len() < 4 {
            self.reserve_exact(1);
        }
        self.insert(at, key.clone());
    }

    fn take(&mut self, key: &ObjectKey) {
        if let Ok(at) = self.binary_search_by(|k| k.borrow().cmp(key)) {
            self.remove(at);
        }
    }

    fn is_empty(&self) -> bool {
        Vec::is_empty(self)
    }
}

/// Adds `key` to the index under `under` (a node or an owner), if any.
pub(super) fn index_insert<U: Hash + Eq, K, E: IndexEntry<K>>(
    index: &mut HashMap<U, E>,
    under: Option<U>,
    key: &K,
) {
    if let Some(under) = under {
        index.entry(under).or_default().add(key);
    }
}

/// Takes `key` out of the index under `under`, and the entry with it once empty.
pub(super) fn index_remove<U: Hash + Eq, K, E: IndexEntry<K>>(
    index: &mut HashMap<U, E>,
    under: Option<U>,
    key: &ObjectKey,
) {
    if let Some(under) = under
        && let Some(entry) = index.get_mut(&under)
    {
        entry.take(key);
        if entry.is_empty() {
            index.remove(&under);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn an_index_entry_keeps_its_keys_sorted_and_once() {
        let key = |name: &str| Arc::new(ObjectKey::new("ns", name));
        let mut entry: Vec<Arc<ObjectKey>> = Vec::new();
        // In order (as a list names them), then out of order, and again.
        for name in ["b", "d", "f", "a", "e", "c", "d", "a"] {
            entry.add(&key(name));
        }
        let names = |e: &Vec<Arc<ObjectKey>>| -> Vec<String> {
            e.iter().map(|k| k.name.to_string()).collect()
        };
        assert_eq!(names(&entry), ["a", "b", "c", "d", "e", "f"]);
        entry.take(&ObjectKey::new("ns", "c"));
        entry.take(&ObjectKey::new("ns", "zz"));
        entry.take(&ObjectKey::new("other", "a"));
        assert_eq!(names(&entry), ["a", "b", "d", "e", "f"]);
        for name in ["a", "b", "d", "e", "f"] {
            entry.take(&ObjectKey::new("ns", name));
        }
        assert!(IndexEntry::<Arc<ObjectKey>>::is_empty(&entry));
    }
}
