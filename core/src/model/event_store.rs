//! The warning events the model keeps, indexed by the object they are about.

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
}

/// A Normal `Killing` event that names a failed probe.
fn is_probe_kill(event: &Event) -> bool {
    event.reason == "Killing" && event.message.contains(" probe")
}

impl EventStore {
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
    pub(super) fn apply(&mut self, event: Event, touched: &mut impl FnMut(&Subject)) {
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
