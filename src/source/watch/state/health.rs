//! How each watch stands with the API server: its connection (an outage and
//! its end), its last error, and whether it has listed once. /readyz, the
//! landing page and the logs say what is read here.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::model::Kind;

use super::{LiveState, Scope};

/// How one watch stands with the API server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Connection {
    /// Its first list is under way.
    Starting,
    /// Listed and watching.
    Connected,
    /// It lost the server (or the server keeps refusing it) at `since`, and
    /// retries with backoff. The model keeps the last known state meanwhile.
    Retrying { since: Timestamp },
    /// Listing again, because the watch could not be resumed; `outage` is when
    /// it lost the server, if that is why.
    Relisting { outage: Option<Timestamp> },
}

impl Connection {
    /// When the outage this state is part of began, if it is part of one.
    fn outage(self) -> Option<Timestamp> {
        match self {
            Connection::Retrying { since } => Some(since),
            Connection::Relisting { outage } => outage,
            Connection::Starting | Connection::Connected => None,
        }
    }
}

/// What a watch's error means for its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The watch goes on (a line it could not decode).
    Passing,
    /// The watch cannot be resumed and lists again (410 Gone, too large a
    /// resourceVersion).
    Relist,
    /// The server is unreachable or refuses: retried with backoff.
    Lost,
}

/// What a watch's error is to be logged as, decided by its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Said {
    /// First of its kind: say it.
    New,
    /// Part of something already said: debug only.
    Again,
}

/// One watch's bookkeeping.
#[derive(Debug)]
pub(super) struct Health {
    connection: Connection,
    last_contact: Option<Timestamp>,
    /// The list under way is the scheduled one (`--relist-interval`): not a
    /// restart.
    scheduled: bool,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            connection: Connection::Starting,
            last_contact: None,
            scheduled: false,
        }
    }
}

impl LiveState {
    /// Registers watches started after the exporter began (sharded namespaces).
    pub(crate) fn add_watches(&self, watches: impl IntoIterator<Item = (Kind, Scope)>) {
        let mut synced = self.synced.lock();
        for watch in watches {
            synced.entry(watch).or_insert(false);
        }
    }

    /// The per-namespace watches have been started for the namespaces listed.
    pub(crate) fn namespaces_followed(&self) {
        self.awaiting_namespaces
            .store(false, std::sync::atomic::Ordering::Relaxed);
    }

    /// A watch's (re)list of `count` objects is whole: it is synced and
    /// connected, and says so (the end of an outage, a relist, the first sync).
    pub(super) fn listed(&self, kind: Kind, scope: &Scope, count: usize) {
        let resource = kind.plural();
        let was_synced = self
            .synced
            .lock()
            .insert((kind, scope.clone()), true)
            .unwrap_or(false);
        let (outage, scheduled) = self.reconnected(kind, scope);
        if let Some(since) = outage {
            self.telemetry.watch_restarted(kind);
            tracing::info!(
                resource,
                namespace = scope.as_deref(),
                objects = count,
                outage_seconds = outage_seconds(since),
                "the API server is back after {}; relisted",
                outage_length(since)
            );
        } else if scheduled {
            tracing::debug!(
                resource,
                namespace = scope.as_deref(),
                objects = count,
                "relisted on schedule"
            );
        } else if was_synced {
            self.telemetry.watch_restarted(kind);
            tracing::info!(
                resource,
                namespace = scope.as_deref(),
                objects = count,
                "relisted"
            );
        } else {
            tracing::info!(
                resource,
                namespace = scope.as_deref(),
                objects = count,
                "synced"
            );
        }
        if self.kind_synced(kind) {
            self.telemetry.watch_synced(kind);
        }
        self.telemetry.listed(kind, count);
        self.last_error.lock().remove(&(kind, scope.clone()));
    }

    /// Records a watch error and what it does to the watch's connection;
    /// returns whether it is news (so an outage is logged once, not per retry).
    pub(crate) fn record_error(
        &self,
        kind: Kind,
        scope: &Scope,
        reason: &'static str,
        message: &str,
        failure: Failure,
    ) -> Said {
        self.telemetry.watch_failed(kind, reason);
        let key = (kind, scope.clone());
        let new_message = {
            let mut last = self.last_error.lock();
            let new = last.get(&key).is_none_or(|m| m != message);
            if new && failure != Failure::Relist {
                last.insert(key.clone(), message.to_string());
            }
            new
        };
        let mut health = self.health.lock();
        let health = health.entry(key).or_default();
        let before = health.connection;
        match failure {
            Failure::Passing => {
                if new_message {
                    Said::New
                } else {
                    Said::Again
                }
            }
            Failure::Relist => {
                health.connection = Connection::Relisting {
                    outage: before.outage(),
                };
                Said::New
            }
            Failure::Lost => match before {
                Connection::Retrying { .. } => Said::Again,
                // A list that fails while recovering is the same outage.
                Connection::Relisting {
                    outage: Some(since),
                } => {
                    health.connection = Connection::Retrying { since };
                    Said::Again
                }
                Connection::Starting
                | Connection::Connected
                | Connection::Relisting { outage: None } => {
                    health.connection = Connection::Retrying {
                        since: Timestamp::now(),
                    };
                    Said::New
                }
            },
        }
    }

    /// The next list is the scheduled one.
    pub(crate) fn scheduled_relist(&self, kind: Kind, scope: &Scope) {
        self.health
            .lock()
            .entry((kind, scope.clone()))
            .or_default()
            .scheduled = true;
    }

    /// A list begins: the watch could not be resumed (or it is the first).
    pub(crate) fn listing_again(&self, kind: Kind, scope: &Scope) {
        let mut health = self.health.lock();
        let health = health.entry((kind, scope.clone())).or_default();
        if health.connection == Connection::Connected {
            health.connection = Connection::Relisting { outage: None };
        }
    }

    /// The server answered this watch (a page, a watch opened, an event, a
    /// bookmark). `listing`: inside a list, which ends the outage when done.
    pub(crate) fn contact(&self, kind: Kind, scope: &Scope, listing: bool) {
        let now = Timestamp::now();
        let back = {
            let mut health = self.health.lock();
            let entry = health.entry((kind, scope.clone())).or_default();
            entry.last_contact = Some(now);
            let back = match entry.connection {
                Connection::Retrying { since } if listing => {
                    entry.connection = Connection::Relisting {
                        outage: Some(since),
                    };
                    None
                }
                Connection::Retrying { since } => {
                    entry.connection = Connection::Connected;
                    Some(since)
                }
                _ => None,
            };
            // With one watch per namespace, the resource's contact is its
            // stalest watch's.
            let oldest = health
                .iter()
                .filter(|((k, _), _)| *k == kind)
                .filter_map(|(_, h)| h.last_contact)
                .min();
            if let Some(oldest) = oldest {
                self.telemetry
                    .watch_contact(kind, oldest.as_millisecond() as f64 / 1000.0);
            }
            back
        };
        if let Some(since) = back {
            self.last_error.lock().remove(&(kind, scope.clone()));
            tracing::info!(
                resource = kind.plural(),
                namespace = scope.as_deref(),
                outage_seconds = outage_seconds(since),
                "the API server is back after {}; watching again",
                outage_length(since)
            );
        }
    }

    /// A list is whole: the watch is connected; returns when the outage it
    /// ends began, if it ends one, and whether it was the scheduled list.
    fn reconnected(&self, kind: Kind, scope: &Scope) -> (Option<Timestamp>, bool) {
        let mut health = self.health.lock();
        let health = health.entry((kind, scope.clone())).or_default();
        let outage = health.connection.outage();
        health.connection = Connection::Connected;
        (outage, std::mem::take(&mut health.scheduled))
    }

    /// Each watched resource's connection: the worst of its watches' (one per
    /// namespace when limited to some).
    pub(crate) fn connections(&self) -> Vec<(Kind, Connection)> {
        let health = self.health.lock();
        let mut by_kind: BTreeMap<Kind, Connection> = BTreeMap::new();
        let synced = self.synced.lock();
        for (kind, _) in synced.keys() {
            by_kind.entry(*kind).or_insert(Connection::Starting);
        }
        drop(synced);
        let rank = |c: &Connection| match c {
            Connection::Connected => 0,
            Connection::Relisting { .. } => 1,
            Connection::Starting => 2,
            Connection::Retrying { .. } => 3,
        };
        let mut seen: BTreeMap<Kind, Connection> = BTreeMap::new();
        for ((kind, _), h) in health.iter() {
            let entry = seen.entry(*kind).or_insert(h.connection);
            if rank(&h.connection) > rank(entry) {
                *entry = h.connection;
            }
        }
        for (kind, connection) in seen {
            by_kind.insert(kind, connection);
        }
        by_kind.into_iter().collect()
    }

    pub(super) fn kind_synced(&self, kind: Kind) -> bool {
        self.synced
            .lock()
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .all(|(_, s)| *s)
    }

    /// Each watched resource and whether all its watches have listed once.
    pub(crate) fn readiness(&self) -> Vec<(Kind, bool)> {
        let synced = self.synced.lock();
        let mut by_kind: BTreeMap<Kind, bool> = BTreeMap::new();
        for ((kind, _), done) in synced.iter() {
            let entry = by_kind.entry(*kind).or_insert(true);
            *entry &= *done;
        }
        if self
            .awaiting_namespaces
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            for kind in Kind::ALL.into_iter().filter(|k| k.is_namespaced()) {
                by_kind.insert(kind, false);
            }
        }
        by_kind.into_iter().collect()
    }

    /// The last error of each watch that has not recovered since.
    pub(crate) fn current_errors(&self) -> Vec<(Kind, Scope, String)> {
        self.last_error
            .lock()
            .iter()
            .map(|((k, s), m)| (*k, s.clone(), m.clone()))
            .collect()
    }

    #[cfg(test)]
    pub(crate) fn is_ready(&self) -> bool {
        self.readiness().iter().all(|(_, ready)| *ready)
    }
}

/// Seconds from `since` to now, whole.
fn outage_seconds(since: Timestamp) -> i64 {
    Timestamp::now().duration_since(since).as_secs().max(0)
}

/// From `since` to now, as a person reads it (`1m 12s`).
fn outage_length(since: Timestamp) -> String {
    let seconds = outage_seconds(since);
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m {}s", seconds / 60, seconds % 60),
        _ => format!("{}h {}m", seconds / 3600, seconds % 3600 / 60),
    }
}
