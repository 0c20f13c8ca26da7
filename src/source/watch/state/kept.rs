//! The findings kept current: judged again when the model has changed or the
//! moment they hold until has come, and read as they are otherwise. Every
//! change to the model goes through [`ModelWrite`], which counts it, so a
//! read knows whether the findings it holds still describe the model.
//!
//! A read of an unchanged model at a moment the findings still hold takes
//! them as they are. A read that finds the model changed judges it, when
//! that is quick; for a model too large for that (`Freshness`), it takes
//! findings judged a short while ago, and `keep_current` judges again in the
//! background as soon as that while is over, one judgement at a time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard, RwLock, RwLockWriteGuard};

use crate::diagnosis::{Finding, RootCauses, same_findings};
use crate::model::{Cluster, Kind, Time};

/// Findings judged at one moment of one state of the model.
pub(crate) struct Judged {
    /// The count of model changes they saw.
    generation: u64,
    /// The moment they were judged at.
    at: Time,
    /// When, with the model unchanged, they could read differently.
    pub(super) until: Option<Time>,
    /// When the judgement began, and how long it took.
    started: Instant,
    took: Duration,
    pub(crate) findings: Arc<Vec<Arc<Finding>>>,
    /// What explains them, found with them.
    pub(crate) roots: Arc<RootCauses>,
    /// The model's objects (warning events aside) the root causes were
    /// found of: [`Cluster::objects_version`].
    pub(super) roots_of: Option<u64>,
}

/// One judgement of the model, as the judge hands it over.
pub(crate) struct Judgement {
    /// The count of model changes it saw.
    pub(crate) generation: u64,
    pub(crate) findings: Vec<Arc<Finding>>,
    pub(crate) roots: Arc<RootCauses>,
    /// [`Cluster::objects_version`] of the model the root causes were found of.
    pub(crate) roots_of: u64,
    /// When, with the model unchanged, the findings could read differently.
    pub(crate) until: Option<Time>,
}

impl Judged {
    fn none() -> Self {
        Judged {
            generation: u64::MAX,
            at: Time::MAX,
            until: None,
            started: Instant::now(),
            took: Duration::ZERO,
            findings: Arc::default(),
            roots: Arc::default(),
            roots_of: None,
        }
    }

    /// Whether these are the findings of `generation` at `now`.
    fn hold(&self, generation: u64, now: Time) -> bool {
        self.generation == generation && self.at <= now && self.until.is_none_or(|u| now < u)
    }
}

/// How stale a read may find the findings while the model changes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Freshness {
    /// The least time between two judgements of a changing model; a
    /// judgement that took longer waits as long as it took, so judging takes
    /// at most half a core.
    pub(crate) at_least: Duration,
    /// A model judged faster than this is judged by the read that finds it
    /// changed: every read then sees every change made before it, at a cost
    /// below this. Only a larger model's reads take findings judged a
    /// while ago.
    pub(crate) exact_below: Duration,
}

impl Freshness {
    /// How long after `judged` began the next judgement is due.
    fn next_after(self, judged: &Judged) -> Duration {
        judged.took + self.at_least.max(judged.took)
    }

    /// How long after `judged` began a read still takes it: until the next
    /// judgement, begun when due, is done, and a while more for a busy
    /// machine; only then does the read judge for itself.
    fn readable_for(self, judged: &Judged) -> Duration {
        self.next_after(judged) + judged.took + self.at_least
    }

    /// Whether reads of the model `judged` saw take findings a while old.
    fn applies_to(self, judged: &Judged) -> bool {
        judged.took >= self.exact_below
    }
}

/// When the findings are to be judged again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// When the model changes: they hold until then.
    OnChange,
    /// When the model changes, or after this long, when their time comes.
    OnChangeOr(Duration),
    /// After this long, the model having changed already.
    In(Duration),
}

/// The findings kept, and the count of changes they are measured against.
pub(crate) struct Kept {
    generation: AtomicU64,
    latest: RwLock<Arc<Judged>>,
    /// Held while judging: one judgement at a time, the others wait for it.
    judging: Mutex<()>,
    changed: tokio::sync::Notify,
    /// `None`: every read sees every change made before it.
    freshness: Option<Freshness>,
    /// Objects held per kind (in `Kind::ALL`'s order) as of the last change:
    /// read without the model's lock, which a judgement holds for its length.
    counts: [AtomicUsize; Kind::ALL.len()],
}

impl Default for Kept {
    fn default() -> Self {
        Kept {
            counts: Default::default(),
            generation: AtomicU64::new(0),
            latest: RwLock::new(Arc::new(Judged::none())),
            judging: Mutex::new(()),
            changed: tokio::sync::Notify::new(),
            freshness: None,
        }
    }
}

/// The model, borrowed to change it: the change is counted when it is
/// returned, before anyone can read the model again.
pub(crate) struct ModelWrite<'a> {
    guard: RwLockWriteGuard<'a, Cluster>,
    kept: &'a Kept,
}

impl std::ops::Deref for ModelWrite<'_> {
    type Target = Cluster;
    fn deref(&self) -> &Cluster {
        &self.guard
    }
}

impl std::ops::DerefMut for ModelWrite<'_> {
    fn deref_mut(&mut self) -> &mut Cluster {
        &mut self.guard
    }
}

impl Drop for ModelWrite<'_> {
    fn drop(&mut self) {
        // Counted while the write lock is still held (the guard is dropped
        // after this body): a judgement reads the count under the read lock.
        self.kept.generation.fetch_add(1, Ordering::Release);
        for (count, kind) in self.kept.counts.iter().zip(Kind::ALL) {
            count.store(self.guard.len(kind), Ordering::Relaxed);
        }
        self.kept.changed.notify_one();
    }
}

impl Kept {
    pub(crate) fn with_freshness(freshness: Freshness) -> Self {
        Kept {
            freshness: Some(freshness),
            ..Kept::default()
        }
    }

    pub(crate) fn write<'a>(&'a self, model: &'a RwLock<Cluster>) -> ModelWrite<'a> {
        ModelWrite {
            guard: model.write(),
            kept: self,
        }
    }

    pub(super) fn latest(&self) -> Arc<Judged> {
        self.latest.read().clone()
    }

    /// Whether `judged` may be read at `now`: it is exact, or, with a
    /// freshness and unless `exact`, judged recently enough while the model
    /// changes.
    fn readable(&self, judged: &Judged, now: Time, exact: bool) -> bool {
        judged.hold(self.generation(), now)
            || !exact
                && self.freshness.is_some_and(|f| {
                    f.applies_to(judged) && judged.started.elapsed() < f.readable_for(judged)
                })
    }

    /// The findings at `now`: those kept when they may be read, else judged
    /// by `judge` (the model read under its lock). While `listing`, a model
    /// too large to judge per read is not judged: its last findings are read.
    pub(crate) fn read(
        &self,
        now: Time,
        listing: bool,
        judge: impl FnOnce() -> Judgement,
    ) -> Arc<Judged> {
        let judged = self.latest();
        let large = self.freshness.is_some_and(|f| f.applies_to(&judged));
        if self.readable(&judged, now, false) || large && listing {
            return judged;
        }
        let turn = match self.freshness {
            // A judgement under way brings newer findings soon; a read does
            // not wait for it, these are one judgement older.
            Some(_) if large => match self.judging.try_lock() {
                Some(turn) => turn,
                None => return judged,
            },
            _ => self.judging.lock(),
        };
        self.judge(turn, now, false, judge)
    }

    /// Judges the model again at `now` unless the findings kept are exactly
    /// its findings (what keeps them current calls).
    pub(crate) fn refresh(&self, now: Time, judge: impl FnOnce() -> Judgement) {
        self.judge(self.judging.lock(), now, true, judge);
    }

    /// Judges now, holding the turn, unless another judgement, made while
    /// this one waited for it, may be read.
    fn judge(
        &self,
        _turn: MutexGuard<'_, ()>,
        now: Time,
        exact: bool,
        judge: impl FnOnce() -> Judgement,
    ) -> Arc<Judged> {
        let judged = self.latest();
        if self.readable(&judged, now, exact) {
            return judged;
        }
        let started = Instant::now();
        let Judgement {
            generation,
            findings,
            roots,
            roots_of,
            until,
        } = judge();
        // The same findings as before (the judgement hands out the ones it
        // kept when they read alike) stay the same set, so that what was
        // made of them (the encoded metrics, the page's summary) holds; so do
        // the same root causes of them.
        let (findings, roots) = if same_findings(judged.findings.iter(), findings.iter()) {
            let roots = if Arc::ptr_eq(&judged.roots, &roots) || *judged.roots == *roots {
                judged.roots.clone()
            } else {
                roots
            };
            (judged.findings.clone(), roots)
        } else {
            (Arc::new(findings), roots)
        };
        let judged = Arc::new(Judged {
            generation,
            at: now,
            until,
            started,
            took: started.elapsed(),
            findings,
            roots,
            roots_of: Some(roots_of),
        });
        *self.latest.write() = judged.clone();
        judged
    }

    /// Objects held per kind.
    pub(crate) fn counts(&self) -> Vec<(Kind, usize)> {
        Kind::ALL
            .into_iter()
            .zip(&self.counts)
            .map(|(kind, count)| (kind, count.load(Ordering::Relaxed)))
            .collect()
    }

    /// The count of model changes so far.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// When to judge again, seen at `now`. With a freshness, judgements are
    /// spaced by it whatever made them due (a message whose age ticks every
    /// second does not make one a second).
    pub(crate) fn next(&self, now: Time) -> Next {
        let judged = self.latest();
        let spacing = self
            .freshness
            .map_or(Duration::ZERO, |f| f.next_after(&judged))
            .saturating_sub(judged.started.elapsed());
        if !judged.hold(self.generation(), now) {
            return Next::In(spacing);
        }
        match judged.until {
            None => Next::OnChange,
            Some(until) => {
                let due = Duration::try_from(until.duration_since(now)).unwrap_or_default();
                Next::OnChangeOr(due.max(spacing))
            }
        }
    }

    /// Resolves at the next change to the model (or at once, if one was
    /// made since the last call).
    pub(crate) async fn changed(&self) {
        self.changed.notified().await;
    }
}
