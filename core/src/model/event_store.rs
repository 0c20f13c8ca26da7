//! The warning events the model keeps, indexed by the object they are about.

use std::sync::{Arc, LazyLock};

// foldhash rather than SipHash: the keys are the API server's own names,
// and hashing them weighs on every list.
use foldhash::HashMap;
use hashbrown::Equivalent;
use parking_lot::Mutex;

use super::event::Event;
use super::kind::Kind;
use super::meta::{ObjectKey, Time};
use super::name::SharedSet;

/// Events kept per object: enough to see the latest of each reason.
pub(super) const MAX_EVENTS_PER_OBJECT: usize = 16;

/// The object events are about: namespace, kind, name.
pub(super) type Subject = (String, String, String);

/// A subject named by borrowed names: looked up without copying them
/// (a storm looks events up for every pod it judges again). Hashes as the
/// [`Subject`] of the same names does.
#[derive(Hash)]
struct SubjectOf<'a>(&'a str, &'a str, &'a str);

impl Equivalent<Subject> for SubjectOf<'_> {
    fn equivalent(&self, subject: &Subject) -> bool {
        self.0 == subject.0 && self.1 == subject.1 && self.2 == subject.2
    }
}

/// Warning events, indexed by the object they are about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct EventStore {
    by_subject: hashbrown::HashMap<Subject, Vec<Event>, foldhash::fast::RandomState>,
    subject_of: HashMap<ObjectKey, Subject>,
}

/// The messages of the events held, one copy each: in a storm the kubelet
/// says the same ~2 KB pull failure about every pod of a workload.
static MESSAGES: LazyLock<Mutex<SharedSet<str>>> =
    LazyLock::new(|| Mutex::new(SharedSet::default()));

/// The one copy of `message` held for every event saying it.
fn shared(message: &Arc<str>) -> Arc<str> {
    MESSAGES.lock().share(&**message, || Arc::clone(message))
}

/// A Normal `Killing` event that names a failed probe.
fn is_probe_kill(event: &Event) -> bool {
    event.reason == "Killing" && event.message.contains(" probe")
}

impl EventStore {
    fn subject(event: &Event) -> Subject {
        let r = &event.regarding;
        // A node's events are written in some namespace (`default`, mostly):
        // what they are about is not in it.
        let cluster_scoped = Kind::ALL
            .iter()
            .any(|k| !k.is_namespaced() && k.as_str() == r.kind.as_str());
        let namespace = if cluster_scoped {
            String::new()
        } else if r.namespace.is_empty() {
            event.key.namespace.to_string()
        } else {
            r.namespace.clone()
        };
        (namespace, r.kind.clone(), r.name.clone())
    }

    /// Keeps `event` (replacing the one of its name); `touched` hears of each
    /// object whose events changed.
    pub(super) fn apply(&mut self, mut event: Event, touched: &mut impl FnMut(&Subject)) {
        self.delete(&event.key, touched);
        // The diagnosis reads warnings, and of Normal events only the kubelet's
        // probe kills (`Killing`: "Container x failed liveness probe, will be
        // restarted"), which a dump carries; the live watcher asks for
        // `type=Warning` and judges probe kills by the `Unhealthy` warnings alone.
        if !event.warning && !is_probe_kill(&event) {
            return;
        }
        let subject = Self::subject(&event);
        touched(&subject);
        event.message = shared(&event.message);
        self.subject_of.insert(event.key.clone(), subject.clone());
        let list = self.by_subject.entry(subject).or_default();
        list.push(event);
        if list.len() > MAX_EVENTS_PER_OBJECT {
            // Drop the one seen least recently.
            if let Some(oldest) = list
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.last_seen)
                .map(|(i, _)| i)
            {
                let dropped = list.remove(oldest);
                self.subject_of.remove(&dropped.key);
            }
        }
    }

    pub(super) fn delete(&mut self, key: &ObjectKey, touched: &mut impl FnMut(&Subject)) {
        let Some(subject) = self.subject_of.remove(key) else {
            return;
        };
        touched(&subject);
        if let Some(list) = self.by_subject.get_mut(&subject) {
            list.retain(|e| &e.key != key);
            if list.is_empty() {
                self.by_subject.remove(&subject);
            }
        }
    }

    /// Every event held, by subject.
    #[cfg(any(test, feature = "testing"))]
    pub(super) fn all(&self) -> impl Iterator<Item = &Event> {
        let mut subjects: Vec<_> = self.by_subject.iter().collect();
        subjects.sort_unstable_by(|a, b| a.0.cmp(b.0));
        subjects.into_iter().flat_map(|(_, events)| events)
    }

    /// Forget events last seen before `cutoff`.
    pub(super) fn prune(&mut self, cutoff: Time, touched: &mut impl FnMut(&Subject)) {
        let subject_of = &mut self.subject_of;
        self.by_subject.retain(|subject, list| {
            let before = list.len();
            list.retain(|e| {
                let keep = e.last_seen.is_none_or(|t| t >= cutoff);
                if !keep {
                    subject_of.remove(&e.key);
                }
                keep
            });
            if list.len() != before {
                touched(subject);
            }
            !list.is_empty()
        });
    }

    pub(super) fn len(&self) -> usize {
        self.subject_of.len()
    }

    /// The keys of every event held.
    pub(super) fn keys(&self) -> impl Iterator<Item = &ObjectKey> {
        self.subject_of.keys()
    }

    /// The events held about one object, in no particular order.
    pub(super) fn about(&self, namespace: &str, kind: &str, name: &str) -> &[Event] {
        self.by_subject
            .get(&SubjectOf(namespace, kind, name))
            .map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::EventSubject;

    fn pull_failure(pod: &str, message: &str) -> Event {
        Event {
            key: ObjectKey {
                namespace: "shop".into(),
                name: format!("{pod}.1").into(),
            },
            regarding: EventSubject {
                kind: "Pod".into(),
                namespace: "shop".into(),
                name: pod.into(),
                ..EventSubject::default()
            },
            warning: true,
            reason: "Failed".into(),
            // A new allocation for each event, as each decoded one is.
            message: Arc::from(message.to_string()),
            count: 1,
            first_seen: None,
            last_seen: None,
        }
    }

    #[test]
    fn events_saying_the_same_message_hold_one_copy() {
        let (pull, quota) = (
            "Failed to pull image \"shop:1\": not found (event_store test)",
            "exceeded quota (event_store test)",
        );
        let mut store = EventStore::default();
        let touched = &mut |_: &Subject| {};
        store.apply(pull_failure("a", pull), touched);
        store.apply(pull_failure("b", pull), touched);
        store.apply(pull_failure("c", quota), touched);
        let message =
            |store: &EventStore, pod: &str| store.about("shop", "Pod", pod)[0].message.clone();
        let (a, b, c) = (
            message(&store, "a"),
            message(&store, "b"),
            message(&store, "c"),
        );
        assert!(Arc::ptr_eq(&a, &b), "one copy for both pods");
        assert_eq!((&*a, &*c), (pull, quota));
        assert!(!Arc::ptr_eq(&a, &c));

        // An event replaced by one of the same name saying what another says
        // holds that one's copy.
        store.apply(pull_failure("b", quota), touched);
        assert_eq!(store.about("shop", "Pod", "b").len(), 1);
        assert!(Arc::ptr_eq(&message(&store, "b"), &c));
    }
}
