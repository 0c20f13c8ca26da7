//! What changed in the model since the diagnosis last asked: the pods whose
//! own findings may read differently, or everything. The model records it
//! as it changes (once asked to: a model nobody judges piece by piece keeps
//! no log), so the diagnosis judges again only those pods.
//!
//! A pod's own findings read the pod, the warning events about it, the Job
//! that controls it, and, rarely, every node, every claim and which kinds
//! were listed: a change to any of those last three is "everything". A
//! controller's verdict reads the controller, the ReplicaSets it controls,
//! their pods and those pods' findings: a change to a pod or a ReplicaSet
//! names its controller, before and after the change.

use std::collections::HashSet;

use super::meta::ObjectKey;

/// The changes since they were last taken.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Every pod's findings may have changed.
    pub everything: bool,
    /// The pods (by namespace and name) whose findings may have changed.
    pub pods: HashSet<ObjectKey>,
    /// The controllers (by kind, namespace and name) changed, or whose
    /// pods or ReplicaSets changed.
    pub controllers: HashSet<(String, ObjectKey)>,
}

/// The log the model keeps of its changes, once something takes them.
#[derive(Default)]
pub(super) struct ChangeLog {
    tracking: bool,
    changes: Changes,
    /// Changes to objects other than warning events, ever: what reads the
    /// objects but not the events (the root causes) is as it was while
    /// this stays the same.
    objects: u64,
}

impl ChangeLog {
    /// A change to an object other than a warning event (or to which kinds
    /// were listed).
    pub(super) fn object(&mut self) {
        self.objects += 1;
    }

    pub(super) fn objects(&self) -> u64 {
        self.objects
    }

    /// A change to the pod `key`, or to what its findings read of it.
    pub(super) fn pod(&mut self, key: &ObjectKey, pods_held: usize) {
        if !self.tracking || self.changes.everything {
            return;
        }
        // Past half the pods, judging them all costs no more than finding
        // them, and the log stops growing.
        if self.changes.pods.len() > pods_held / 2 + 1_024 {
            self.everything();
        } else if !self.changes.pods.contains(key) {
            self.changes.pods.insert(key.clone());
        }
    }

    /// Whether changes to controllers are logged now: when they are not (no
    /// judgement has asked yet, as through a first list, or everything
    /// changed already), what would name them need not be built.
    pub(super) fn logs_controllers(&self) -> bool {
        self.tracking && !self.changes.everything
    }

    /// A change to the controller `kind` `key`, or to its pods or ReplicaSets.
    pub(super) fn controller(&mut self, kind: &str, key: ObjectKey) {
        if self.logs_controllers() {
            self.changes.controllers.insert((kind.to_string(), key));
        }
    }

    pub(super) fn everything(&mut self) {
        if self.tracking {
            self.changes = Changes {
                everything: true,
                ..Changes::default()
            };
        }
    }

    /// The changes since the last call; the first call, having no log to
    /// go by, says everything, and starts the log.
    pub(super) fn take(&mut self) -> Changes {
        if !self.tracking {
            self.tracking = true;
            return Changes {
                everything: true,
                ..Changes::default()
            };
        }
        std::mem::take(&mut self.changes)
    }
}

/// A copy of the model has been judged by no one: it keeps no log.
impl Clone for ChangeLog {
    fn clone(&self) -> Self {
        ChangeLog::default()
    }
}

/// Two models holding the same objects are equal, whatever was judged of
/// them.
impl PartialEq for ChangeLog {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ChangeLog {}

impl std::fmt::Debug for ChangeLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeLog")
            .field("tracking", &self.tracking)
            .finish_non_exhaustive()
    }
}
