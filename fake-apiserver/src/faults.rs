//! Injected faults, per resource plural.
//!
//! A fault stands for what a real cluster does to a client on a bad day: RBAC
//! that denies a resource, an API server that errors, one that is slow, or a
//! watch that never says anything. Keyed by plural so that "events" covers
//! both event APIs, as an RBAC rule on `events` would.

use std::collections::HashMap;
use std::time::Duration;

use parking_lot::RwLock;

/// A fault to apply to every list, get and watch of one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// 403 with a Status like RBAC's (reason `Forbidden`).
    Forbidden,
    /// 500 with a Status of reason `InternalError`.
    ServerError,
    /// Sleep this long before answering each list page and before each watch
    /// line. Applies to watches already open too.
    Slow(Duration),
    /// Watches answer 200 and then send nothing, not even at `timeoutSeconds`;
    /// only a cut, a pause or the client going away ends them. Lists work.
    HangWatch,
    /// A server that keeps no history and checks no version: a watch from a
    /// resourceVersion it has not reached starts from now, without the
    /// upstream "Too large resource version" (504). Lists work.
    NoHistory,
    /// No fault; setting it clears the resource's fault.
    None,
}

/// The faults currently set.
#[derive(Debug, Default)]
pub(crate) struct Faults {
    by_plural: RwLock<HashMap<String, Fault>>,
}

impl Faults {
    pub fn set(&self, plural: &str, fault: Fault) {
        let mut faults = self.by_plural.write();
        if fault == Fault::None {
            faults.remove(plural);
        } else {
            faults.insert(plural.to_string(), fault);
        }
    }

    pub fn clear(&self) {
        self.by_plural.write().clear();
    }

    /// The fault for `plural`, [`Fault::None`] if there is none.
    pub fn get(&self, plural: &str) -> Fault {
        self.by_plural
            .read()
            .get(plural)
            .cloned()
            .unwrap_or(Fault::None)
    }

    /// The delay of a [`Fault::Slow`] on `plural`, if one is set.
    pub fn delay(&self, plural: &str) -> Option<Duration> {
        match self.by_plural.read().get(plural) {
            Some(Fault::Slow(d)) => Some(*d),
            _ => None,
        }
    }
}
