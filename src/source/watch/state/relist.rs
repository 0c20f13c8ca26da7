//! A (re)list applied to the live model page by page, and what it did not
//! name removed when it ends: objects deleted while the watch was down.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use foldhash::HashSet;

use crate::model::{Cluster, Kind, Object, ObjectKey, Time, Uid};
use crate::source::watch::transitions::{Observation, Transitions};

use super::{LiveState, Scope};

/// How many objects a list's own count (`remainingItemCount`) is believed
/// up to when the model makes room for them: a count past this is not a
/// cluster Kubernetes supports, and room for it would only waste memory.
const MOST_EXPECTED: usize = 1 << 20;

/// A (re)list under way for one watch: the keys it has named so far, so that
/// what it did not name can be removed when it ends. `None` when the model
/// held nothing the list could replace (the first list of a kind across all
/// namespaces): there is nothing to compare against.
#[derive(Debug)]
pub(crate) struct Listing {
    seen: Option<HashSet<ObjectKey>>,
    objects: usize,
    _under_way: UnderWay,
}

/// Counts a list as under way from its start until it is ended or dropped
/// (a list cut off by an error is abandoned, not ended).
#[derive(Debug)]
struct UnderWay(Arc<AtomicUsize>);

impl UnderWay {
    fn begin(count: &Arc<AtomicUsize>) -> Self {
        if count.fetch_add(1, Ordering::Relaxed) == 0 {
            release_freed_memory();
        }
        UnderWay(count.clone())
    }
}

impl Drop for UnderWay {
    fn drop(&mut self) {
        if self.0.fetch_sub(1, Ordering::Relaxed) == 1 {
            release_freed_memory();
        }
    }
}

/// Hands the pages the allocator holds free back to the system, as the
/// first of a set of lists begins (what the churn since the last one freed)
/// and as the last ends (the pages' bodies and what decoding them freed):
/// jemalloc would hold them for ten seconds and more, and a list of a large
/// cluster frees tens of megabytes at once.
fn release_freed_memory() {
    #[cfg(not(target_env = "msvc"))]
    #[allow(unsafe_code)] // the allocator's control interface is C
    // SAFETY: `arena.4096.purge` (4096 is MALLCTL_ARENAS_ALL) takes and
    // returns nothing: null pointers and a zero length are what it expects,
    // and the name is a NUL-terminated string that outlives the call.
    unsafe {
        tikv_jemalloc_sys::mallctl(
            c"arena.4096.purge".as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        );
    }
}

/// The uid of the pod or namespace the model holds at `key` (the kinds whose
/// deletion is recorded).
fn held_uid<'c>(cluster: &'c Cluster, kind: Kind, key: &ObjectKey) -> Option<&'c Uid> {
    match kind {
        Kind::Pod => cluster.pod(key).map(|p| &p.metadata.uid),
        Kind::Namespace => cluster.namespace(&key.name).map(|n| &n.metadata.uid),
        _ => None,
    }
}

impl LiveState {
    /// A (re)list of `kind` in `scope` begins.
    pub(crate) fn listing(&self, kind: Kind, scope: &Scope) -> Listing {
        let nothing_held = scope.is_none() && self.cluster.read().len(kind) == 0;
        Listing {
            seen: (!nothing_held).then(HashSet::default),
            objects: 0,
            _under_way: UnderWay::begin(&self.lists_under_way),
        }
    }

    /// A page of a (re)list, applied at once: a relist never holds a second
    /// copy of what it lists beside the model. A pod or namespace that comes
    /// back under the same name with a new uid replaces one whose deletion
    /// completed while the watch was down: that is recorded as observed now,
    /// an upper bound. `remaining` is how many objects the server said follow
    /// this page: the model makes room for the whole list at once rather than
    /// growing as it comes.
    pub(crate) fn list(
        &self,
        listing: &mut Listing,
        objects: impl IntoIterator<Item = Object>,
        remaining: Option<usize>,
    ) {
        let mut objects = objects.into_iter().peekable();
        let Some(kind) = objects.peek().map(Object::kind) else {
            return;
        };
        let (at_least, at_most) = objects.size_hint();
        let expected = (listing.objects + at_most.unwrap_or(at_least))
            .saturating_add(remaining.unwrap_or(0))
            .min(MOST_EXPECTED);
        let mut observations = Vec::new();
        {
            let mut cluster = self.kept.write(&self.cluster);
            let mut transitions = self.transitions.lock();
            cluster.reserve(kind, expected);
            if kind == Kind::Pod {
                transitions.reserve_pods(expected);
            }
            if let Some(seen) = &mut listing.seen {
                seen.reserve(expected.saturating_sub(seen.len()));
            }
            for object in objects {
                // Only a list that found objects held can replace one, and
                // only it keeps the keys it named (a first list needs none).
                if let Some(seen) = &mut listing.seen {
                    let key = object.key();
                    let replaced =
                        held_uid(&cluster, kind, &key).is_some_and(|old| Some(old) != object.uid());
                    if replaced {
                        let now = Time::now();
                        observations.extend(vanished(&mut transitions, &cluster, kind, &key, now));
                    }
                    seen.insert(key);
                }
                if let Object::Pod(new) = &object {
                    // Pods listed Ready are not new starts.
                    transitions.pods_listed([new]);
                }
                cluster.apply(object);
                listing.objects += 1;
            }
        }
        self.record(&observations);
    }

    /// A watch's (re)list ended: what the model holds in its scope that the
    /// list did not name is gone. Pods and namespaces among them completed
    /// their deletion while the watch was down, recorded as observed now.
    pub(crate) fn relist(&self, kind: Kind, scope: &Scope, listing: Listing) {
        let count = listing.objects;
        let observations = {
            let mut cluster = self.kept.write(&self.cluster);
            let gone: Vec<ObjectKey> = match &listing.seen {
                // Nothing was held when the list began: all there is, it listed.
                None => Vec::new(),
                Some(seen) => cluster
                    .keys(kind)
                    .into_iter()
                    .filter(|k| scope.as_deref().is_none_or(|ns| k.namespace == ns))
                    .filter(|k| !seen.contains(k))
                    .collect(),
            };
            let now = Time::now();
            let mut observations = Vec::new();
            let mut transitions = self.transitions.lock();
            for key in gone {
                observations.extend(vanished(&mut transitions, &cluster, kind, &key, now));
                cluster.delete(kind, &key);
            }
            cluster.mark_listed(kind);
            observations
        };
        self.record(&observations);
        self.listed(kind, scope, count);
    }
}

/// The deletion of the pod or namespace the model holds at `key`, gone
/// without a watch event: it completed while the watch was down, and is
/// recorded as observed `now`, an upper bound.
fn vanished(
    transitions: &mut Transitions,
    cluster: &Cluster,
    kind: Kind,
    key: &ObjectKey,
    now: Time,
) -> Vec<Observation> {
    match kind {
        Kind::Pod => cluster
            .pod(key)
            .map(|pod| transitions.pod_deleted(cluster, pod, now))
            .unwrap_or_default(),
        Kind::Namespace => cluster
            .namespace(&key.name)
            .and_then(|ns| transitions.namespace_deleted(ns, now))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use prometheus_client::registry::Registry;

    use super::*;
    use crate::diagnosis::Settings;

    fn pod(name: &str, uid: &str, terminating: bool) -> Object {
        let deletion = if terminating {
            r#","deletionTimestamp":"2024-06-01T09:00:30Z","deletionGracePeriodSeconds":30"#
        } else {
            ""
        };
        let json = format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"shop","uid":"{uid}"{deletion}}},
                "spec":{{"nodeName":"n1"}},"status":{{"phase":"Running"}}}}"#
        );
        Object::Pod(serde_json::from_str(&json).unwrap())
    }

    /// The pods held, as (name, uid).
    fn held(state: &LiveState) -> Vec<(String, String)> {
        let cluster = state.cluster.read();
        let mut pods: Vec<_> = cluster
            .pods()
            .map(|p| (p.metadata.name.to_string(), format!("{:?}", p.metadata.uid)))
            .collect();
        pods.sort();
        pods
    }

    /// Removals of Terminating pods counted by the termination histogram.
    fn terminations(state: &LiveState) -> usize {
        let mut registry = Registry::default();
        state.telemetry.register(&mut registry);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        text.lines()
            .filter(|l| l.starts_with("kube_lifecycle_pod_terminating_duration_seconds_count"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as usize
    }

    /// A list in pages of two, each saying how many pods follow it.
    fn list(state: &LiveState, pods: Vec<Object>) {
        let mut listing = state.listing(Kind::Pod, &None);
        let mut remaining = pods.len();
        for page in pods.chunks(2) {
            remaining -= page.len();
            state.list(&mut listing, page.to_vec(), Some(remaining));
        }
        state.relist(Kind::Pod, &None, listing);
    }

    #[test]
    fn a_relist_replaces_what_it_lists_and_removes_what_it_does_not() {
        let state = LiveState::new(Settings::default(), [(Kind::Pod, None)]);
        list(
            &state,
            vec![
                pod("a", "u-a", true),
                pod("b", "u-b1", true),
                pod("c", "u-c", false),
            ],
        );
        assert_eq!(held(&state).len(), 3);
        assert!(state.is_ready());
        assert_eq!(terminations(&state), 0);

        // a is gone, b came back as a new pod under the same name, d is new:
        // the deletions of a and of the first b completed while the watch was
        // down, and are counted.
        list(
            &state,
            vec![
                pod("b", "u-b2", false),
                pod("c", "u-c", false),
                pod("d", "u-d", false),
            ],
        );
        let names: Vec<String> = held(&state).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["b", "c", "d"]);
        assert!(held(&state)[0].1.contains("u-b2"));
        assert_eq!(terminations(&state), 2);
    }

    #[test]
    fn a_list_cut_short_is_compared_against_when_it_starts_again() {
        let state = LiveState::new(Settings::default(), [(Kind::Pod, None)]);
        // The first list applies one page, then fails; the model held nothing,
        // so it kept no keys.
        let mut first = state.listing(Kind::Pod, &None);
        state.list(
            &mut first,
            vec![
                pod("gone-meanwhile", "u-g", false),
                pod("stays", "u-s", false),
            ],
            // A count no cluster has is not believed: no room is made for it.
            Some(usize::MAX),
        );
        drop(first);
        // The list starts again and no longer names the first pod.
        list(&state, vec![pod("stays", "u-s", false)]);
        let names: Vec<String> = held(&state).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["stays"]);
    }

    #[test]
    fn a_namespace_relist_leaves_other_namespaces_alone() {
        let state = LiveState::new(Settings::default(), [(Kind::Pod, None)]);
        list(&state, vec![pod("a", "u-a", false)]);
        let scope = Some("elsewhere".to_string());
        let listing = state.listing(Kind::Pod, &scope);
        state.relist(Kind::Pod, &scope, listing);
        assert_eq!(held(&state).len(), 1);
    }
}
