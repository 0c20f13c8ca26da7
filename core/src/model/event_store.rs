//! The warning events the model keeps, indexed by the object they are about.

use std::sync::Arc;

// foldhash rather than SipHash: the keys are the API server's own names,
// and hashing them weighs on every list.
use foldhash::HashMap;
use hashbrown::Equivalent;

use super::event::Event;
use super::meta::{ObjectKey, Time};

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
    /// Each message held once, with the number of events saying it: in a
    /// storm the kubelet repeats one pull failure for every pod of a
    /// workload. Counted rather than read from `Arc::strong_count`, so that a
    /// clone of the model (or a finding built from it) cannot keep a message
    /// here after its last event is gone.
    messages: Messages,
}

/// Messages held, with the number of events saying each.
type Messages = hashbrown::HashMap<Arc<str>, usize, foldhash::fast::RandomState>;

/// A Normal `Killing` event that names a failed probe.
fn is_probe_kill(event: &Event) -> bool {
    event.reason == "Killing" && event.message.contains(" probe")
}

impl EventStore {
    /// The copy of `message` held for every event saying it, counting one more.
    fn share(&mut self, message: &Arc<str>) -> Arc<str> {
        if let Some((held, count)) = self.messages.get_key_value_mut(&**message) {
            *count += 1;
            return Arc::clone(held);
        }
        self.messages.insert(Arc::clone(message), 1);
        Arc::clone(message)
    }

    /// One event fewer says `message`; the last one lets it go.
    fn forget(messages: &mut Messages, message: &str) {
        if let Some(count) = messages.get_mut(message) {
            *count -= 1;
            if *count == 0 {
                messages.remove(message);
            }
        }
    }

    fn subject(event: &Event) -> Subject {
        let r = &event.regarding;
        let namespace = if r.namespace.is_empty() {
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
        event.message = self.share(&event.message);
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
                Self::forget(&mut self.messages, &dropped.message);
            }
        }
    }

    pub(super) fn delete(&mut self, key: &ObjectKey, touched: &mut impl FnMut(&Subject)) {
        let Some(subject) = self.subject_of.remove(key) else {
            return;
        };
        touched(&subject);
        if let Some(list) = self.by_subject.get_mut(&subject) {
            let messages = &mut self.messages;
            list.retain(|e| {
                let keep = &e.key != key;
                if !keep {
                    Self::forget(messages, &e.message);
                }
                keep
            });
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
        let messages = &mut self.messages;
        self.by_subject.retain(|subject, list| {
            let before = list.len();
            list.retain(|e| {
                let keep = e.last_seen.is_none_or(|t| t >= cutoff);
                if !keep {
                    subject_of.remove(&e.key);
                    Self::forget(messages, &e.message);
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

    fn pull_failure(pod: &str, message: &str, minute: u32) -> Event {
        Event {
            key: ObjectKey {
                namespace: "shop".into(),
                name: format!("{pod}.{minute}").into(),
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
            last_seen: Some(format!("2024-05-01T10:{minute:02}:00Z").parse().unwrap()),
        }
    }

    fn held(store: &EventStore, message: &str) -> Option<usize> {
        store.messages.get(message).copied()
    }

    #[test]
    fn a_message_is_held_once_for_as_long_as_an_event_says_it() {
        let (pull, quota) = (
            "Failed to pull image \"shop:1\": not found",
            "exceeded quota",
        );
        let mut store = EventStore::default();
        let touched = &mut |_: &Subject| {};
        store.apply(pull_failure("a", pull, 1), touched);
        store.apply(pull_failure("b", pull, 1), touched);
        store.apply(pull_failure("c", quota, 1), touched);
        let (a, b) = (
            store.about("shop", "Pod", "a"),
            store.about("shop", "Pod", "b"),
        );
        assert!(
            Arc::ptr_eq(&a[0].message, &b[0].message),
            "one copy for both pods"
        );
        assert_eq!(held(&store, pull), Some(2));

        // Replaced by an event of the same name saying something else.
        store.apply(
            Event {
                message: Arc::from(quota),
                ..pull_failure("b", pull, 1)
            },
            touched,
        );
        assert_eq!(
            (held(&store, pull), held(&store, quota)),
            (Some(1), Some(2))
        );

        store.delete(&pull_failure("a", pull, 1).key, touched);
        assert_eq!(held(&store, pull), None, "the last event saying it is gone");

        // Pruned: events last seen before the cutoff let their message go.
        store.prune("2024-05-01T10:30:00Z".parse().unwrap(), touched);
        assert_eq!((store.len(), held(&store, quota)), (0, None));

        // Dropped as the oldest of too many about one object.
        for minute in 0..=MAX_EVENTS_PER_OBJECT as u32 {
            let message = if minute == 0 { quota } else { pull };
            store.apply(pull_failure("a", message, minute), touched);
        }
        assert_eq!(store.len(), MAX_EVENTS_PER_OBJECT);
        assert_eq!(held(&store, quota), None, "the oldest event was dropped");
        assert_eq!(held(&store, pull), Some(MAX_EVENTS_PER_OBJECT));
    }
}
