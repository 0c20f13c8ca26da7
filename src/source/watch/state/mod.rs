//! The live model shared by the watch tasks (writers) and the HTTP handlers
//! (readers), with what the exporter reports about itself.
//!
//! - this file: the model, an object applied or deleted, and the findings;
//! - `kept.rs`: the findings kept current, judged again when the model
//!   changes or their time comes, not on every read;
//! - `relist.rs`: a (re)list applied page by page, and what it did not name
//!   removed when it ends;
//! - `health.rs`: how each watch stands with the API server (its connection,
//!   its last error, whether it has listed), for /readyz, the page and the logs.

mod health;
mod kept;
mod relist;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use jiff::SignedDuration;
use parking_lot::{Mutex, RwLock, RwLockWriteGuard};

use crate::diagnosis::{Finding, Incremental, RootCauses, Settings, same_findings};
use crate::model::{Cluster, Kind, Object, Time};

use super::shard::Shard;
use super::transitions::{Observation, Transitions};
use crate::output::metrics::{FindingsSource, HeldObjects, Telemetry};
use health::Health;
use kept::{Judgement, Kept, Next};

pub(crate) use health::{Connection, Failure, Said};
pub(crate) use kept::Freshness;
pub(crate) use relist::Listing;

/// Which part of a kind one watch covers: every namespace, or one.
pub(super) type Scope = Option<String>;

pub(crate) struct LiveState {
    cluster: RwLock<Cluster>,
    /// The findings of the model, kept current.
    kept: Kept,
    /// What the last judgement found of each pod, judged again as it changes.
    incremental: Mutex<Incremental>,
    /// (Re)lists begun and not yet ended or abandoned.
    lists_under_way: Arc<std::sync::atomic::AtomicUsize>,
    pub telemetry: Telemetry,
    transitions: Mutex<Transitions>,
    /// Each watch and whether it has completed its first list.
    synced: Mutex<BTreeMap<(Kind, Scope), bool>>,
    /// The last error per watch that has not recovered since.
    last_error: Mutex<BTreeMap<(Kind, Scope), String>>,
    /// Each watch's connection and last contact with the server.
    health: Mutex<BTreeMap<(Kind, Scope), Health>>,
    /// The part of the cluster whose findings this exporter reports.
    shard: Shard,
    /// Sharded watches follow the namespaces: not ready until they have been
    /// started once for the namespaces listed.
    awaiting_namespaces: std::sync::atomic::AtomicBool,
    /// Added to the wall clock: a snapshot that carries its own `now` (the
    /// embedded example) is judged as of that moment, moving on from there.
    clock_offset: jiff::SignedDuration,
}

impl LiveState {
    /// State for watches that have yet to list.
    pub(crate) fn new(
        settings: Settings,
        watches: impl IntoIterator<Item = (Kind, Scope)>,
    ) -> Self {
        let state = LiveState {
            cluster: RwLock::new(Cluster::new()),
            kept: Kept::default(),
            incremental: Mutex::new(Incremental::new(settings)),
            lists_under_way: Arc::default(),
            telemetry: Telemetry::default(),
            transitions: Mutex::new(Transitions::default()),
            synced: Mutex::new(watches.into_iter().map(|w| (w, false)).collect()),
            last_error: Mutex::new(BTreeMap::new()),
            health: Mutex::new(BTreeMap::new()),
            shard: Shard::default(),
            awaiting_namespaces: std::sync::atomic::AtomicBool::new(false),
            clock_offset: jiff::SignedDuration::ZERO,
        };
        for (kind, _) in state.synced.lock().keys() {
            state.telemetry.watch_unsynced(*kind);
        }
        state
    }

    /// State for a fixed snapshot (`serve --from-file`): complete from the start.
    /// With `as_of` (the snapshot's own `now`), it is judged as if served from
    /// that moment on.
    pub(crate) fn from_cluster(cluster: Cluster, settings: Settings, as_of: Option<Time>) -> Self {
        let mut state = LiveState::new(settings, []);
        if let Some(as_of) = as_of {
            state.clock_offset = as_of.duration_since(Time::now());
        }
        for kind in Kind::ALL {
            state.telemetry.watch_synced(kind);
        }
        *state.kept.write(&state.cluster) = cluster;
        state
    }

    /// Reports only what `shard` owns; with `follows_namespaces`, is not ready
    /// until the per-namespace watches have been started once.
    pub(crate) fn sharded(mut self, shard: Shard, follows_namespaces: bool) -> Self {
        self.shard = shard;
        *self.awaiting_namespaces.get_mut() = follows_namespaces;
        if follows_namespaces {
            for kind in Kind::ALL.into_iter().filter(|k| k.is_namespaced()) {
                self.telemetry.watch_unsynced(kind);
            }
        }
        self
    }

    /// The moment findings are judged at: the wall clock, or the snapshot's
    /// own time moving on with it.
    pub(crate) fn now(&self) -> Time {
        Time::now()
            .checked_add(self.clock_offset)
            .unwrap_or_else(|_| Time::now())
    }

    /// How many lists are under way now.
    pub(crate) fn lists_under_way(&self) -> usize {
        self.lists_under_way
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Every watch has listed, and no list is under way.
    fn settled(&self) -> bool {
        self.lists_under_way() == 0 && self.readiness().iter().all(|(_, ready)| *ready)
    }

    /// Reads take findings judged a while ago, at most as stale as
    /// `freshness` allows, while the model changes; [`LiveState::keep_current`]
    /// judges them again in the background.
    pub(crate) fn fresh(mut self, freshness: Freshness) -> Self {
        self.kept = Kept::with_freshness(freshness);
        self
    }

    /// The findings of the moment: those kept when they still describe the
    /// model (or, with a freshness, were judged recently enough), else judged
    /// now; and the root causes that explain them, found together.
    pub(crate) fn explained(&self, now: Time) -> (Arc<Vec<Arc<Finding>>>, Arc<RootCauses>) {
        let judged = self
            .kept
            .read(now, self.lists_under_way() > 0, || self.judge(now));
        (judged.findings.clone(), judged.roots.clone())
    }

    /// The model judged at `now`, with the count of changes it had seen and
    /// until when its findings hold. Sharded, a Terminating namespace is
    /// reported by the shard that owns it (every shard lists all namespaces).
    fn judge(&self, now: Time) -> Judgement {
        let started = std::time::Instant::now();
        let mut incremental = self.incremental.lock();
        // The changes are taken under the write lock, so none is made
        // between them and the count of changes read here; the judgement
        // itself holds only the read lock.
        let mut model = self.cluster.write();
        let changes = model.take_changes();
        let generation = self.kept.generation();
        let cluster = RwLockWriteGuard::downgrade(model);
        let lasting = incremental.diagnose(&cluster, changes, now);
        drop(incremental);
        let mut findings = lasting.findings;
        if self.shard.is_sharded() {
            findings.retain(|f| match (&f.namespace, f.kind) {
                (Some(namespace), _) => self.shard.owns(namespace),
                (None, Kind::Namespace) => self.shard.owns(&f.name),
                (None, _) => true,
            });
        }
        // The root causes read the findings and the objects, not the
        // events: while the findings are the very ones kept (a storm's
        // churn of pull-failure events judges pods again alike) and no
        // object changed, they are the ones found last time.
        let roots_of = cluster.objects_version();
        let last = self.kept.latest();
        let roots = if last.roots_of == Some(roots_of)
            && same_findings(last.findings.iter(), findings.iter())
        {
            last.roots.clone()
        } else {
            // Found again alike (an object changed that explains nothing, as
            // a storm's newly crash-looping pod does): the kept ones, so that
            // what was made of them (their text, compressed) is kept too.
            let found = RootCauses::of(&cluster, &findings);
            if *last.roots == found {
                last.roots.clone()
            } else {
                Arc::new(found)
            }
        };
        drop(cluster);
        self.telemetry.judged(started.elapsed().as_secs_f64());
        Judgement {
            generation,
            findings,
            roots,
            roots_of,
            until: lasting.until,
        }
    }

    /// Judges the model again whenever it has changed (no sooner than the
    /// freshness allows) or its findings' time has come, so that reads find
    /// them judged; on a thread of its own until the process ends, so that
    /// each judgement's findings are allocated where the last one's were
    /// freed (a pool thread at a time would spread them over the allocator's
    /// arenas).
    pub(crate) fn keep_current(self: Arc<Self>) -> std::io::Result<()> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()?;
        std::thread::Builder::new()
            .name("judge".into())
            .spawn(move || runtime.block_on(self.judge_when_due()))?;
        Ok(())
    }

    async fn judge_when_due(self: Arc<Self>) {
        loop {
            match self.kept.next(self.now()) {
                Next::OnChange => self.kept.changed().await,
                Next::OnChangeOr(wait) => {
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = self.kept.changed() => {}
                    }
                }
                // A change does not bring the next judgement sooner.
                Next::In(wait) if !wait.is_zero() => tokio::time::sleep(wait).await,
                // Judging a model being listed would hold the list back
                // (the judgement holds the model's read lock) for findings
                // of half a model; reads judge it if they need it sooner.
                Next::In(_) if !self.settled() => {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
                Next::In(_) => {
                    let now = self.now();
                    self.kept.refresh(now, || self.judge(now));
                }
            }
        }
    }

    /// The namespaces in the model, once the namespace watch has listed.
    pub(crate) fn namespace_names(&self) -> Option<Vec<String>> {
        if !self.kind_synced(Kind::Namespace) {
            return None;
        }
        let cluster = self.cluster.read();
        Some(
            cluster
                .namespaces()
                .map(|n| n.metadata.name.to_string())
                .collect(),
        )
    }

    /// A followed namespace is gone: its watches, errors and objects are forgotten.
    pub(crate) fn forget_namespace(&self, namespace: &str) {
        let scope: Scope = Some(namespace.to_string());
        self.synced.lock().retain(|(_, s), _| *s != scope);
        self.last_error.lock().retain(|(_, s), _| *s != scope);
        self.health.lock().retain(|(_, s), _| *s != scope);
        let mut cluster = self.kept.write(&self.cluster);
        for kind in Kind::ALL.into_iter().filter(|k| k.is_namespaced()) {
            cluster.reset_namespace(kind, namespace, Vec::new());
        }
    }

    /// Objects held per kind (without waiting for a judgement under way).
    pub(crate) fn counts(&self) -> Vec<(Kind, usize)> {
        self.kept.counts()
    }

    /// An object was added or changed.
    pub(crate) fn apply(&self, object: Object) {
        let kind = object.kind();
        let observations = {
            let mut cluster = self.kept.write(&self.cluster);
            let observations = match &object {
                Object::Pod(new) => {
                    let old = cluster.pod(&object.key());
                    self.transitions.lock().pod_applied(old, new)
                }
                _ => Vec::new(),
            };
            cluster.apply(object);
            observations
        };
        self.record(&observations);
        self.telemetry.applied(kind);
    }

    /// An object is gone; `object` is its last state.
    pub(crate) fn delete(&self, object: Object) {
        let kind = object.kind();
        let now = Time::now();
        let observations = {
            let mut cluster = self.kept.write(&self.cluster);
            let observations = match &object {
                Object::Pod(pod) => self.transitions.lock().pod_deleted(&cluster, pod, now),
                Object::Namespace(ns) => self
                    .transitions
                    .lock()
                    .namespace_deleted(ns, now)
                    .into_iter()
                    .collect(),
                _ => Vec::new(),
            };
            cluster.delete(kind, &object.key());
            observations
        };
        self.record(&observations);
        self.telemetry.deleted(kind);
    }

    fn record(&self, observations: &[Observation]) {
        for observation in observations {
            observation.record(&self.telemetry);
        }
    }

    /// Forgets warning events older than `max_age`.
    pub(crate) fn prune_events(&self, max_age: SignedDuration) {
        if let Ok(cutoff) = Time::now().checked_sub(max_age) {
            self.kept.write(&self.cluster).prune_events(cutoff);
        }
    }
}

/// What a scrape reads: the findings of the moment.
impl FindingsSource for LiveState {
    fn current(&self) -> (Arc<Vec<Arc<Finding>>>, Arc<RootCauses>) {
        self.explained(self.now())
    }
}

/// What a scrape reads: the objects held per kind.
impl HeldObjects for LiveState {
    fn counts(&self) -> Vec<(Kind, usize)> {
        LiveState::counts(self)
    }
}
