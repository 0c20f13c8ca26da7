//! The exporter's own metrics: how each watch is doing, build information,
//! render time, and the lifecycle duration histograms.

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::transitions::Observation;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResourceLabel {
    pub resource: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct EventLabels {
    pub resource: &'static str,
    /// `applied` or `deleted`.
    pub r#type: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub resource: &'static str,
    /// One of [`ERROR_REASONS`].
    pub reason: &'static str,
}

/// The bounded set of watch error reasons.
pub const ERROR_REASONS: &[&str] = &[
    "forbidden",
    "unauthorized",
    "not_found",
    "expired",
    "server_error",
    "connection",
    "decode",
    "other",
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CauseLabel {
    pub cause: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BuildLabels {
    pub version: &'static str,
}

/// Histogram buckets, in seconds, chosen for each duration's usual range.
pub const TERMINATING_BUCKETS: &[f64] = &[
    1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, 21600.0, 86400.0,
];
pub const SCHEDULING_BUCKETS: &[f64] = &[
    0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0, 3600.0,
];
pub const STARTUP_BUCKETS: &[f64] = &[
    1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0,
];
pub const NAMESPACE_BUCKETS: &[f64] = &[
    1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 21600.0, 86400.0,
];

#[derive(Debug)]
pub struct Telemetry {
    pub watch_synced: Family<ResourceLabel, Gauge>,
    pub watch_events: Family<EventLabels, Counter>,
    pub watch_restarts: Family<ResourceLabel, Counter>,
    pub watch_errors: Family<ErrorLabels, Counter>,
    pub watch_last_event: Family<ResourceLabel, Gauge<f64, AtomicU64>>,
    pub build_info: Family<BuildLabels, Gauge>,
    pub render_seconds: Gauge<f64, AtomicU64>,
    pub pod_terminating: Family<CauseLabel, Histogram>,
    pub pod_scheduling: Histogram,
    pub pod_startup: Histogram,
    pub namespace_terminating: Histogram,
}

impl Default for Telemetry {
    fn default() -> Self {
        Telemetry {
            watch_synced: Family::default(),
            watch_events: Family::default(),
            watch_restarts: Family::default(),
            watch_errors: Family::default(),
            watch_last_event: Family::default(),
            build_info: Family::default(),
            render_seconds: Gauge::default(),
            pod_terminating: Family::new_with_constructor(|| {
                Histogram::new(TERMINATING_BUCKETS.iter().copied())
            }),
            pod_scheduling: Histogram::new(SCHEDULING_BUCKETS.iter().copied()),
            pod_startup: Histogram::new(STARTUP_BUCKETS.iter().copied()),
            namespace_terminating: Histogram::new(NAMESPACE_BUCKETS.iter().copied()),
        }
    }
}

impl Telemetry {
    /// Registers every family under its full `kube_lifecycle_` name (help texts
    /// carry no final period: the registry adds one).
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "kube_lifecycle_watch_synced",
            "Whether the watch of a resource has completed its first list (1) or not (0)",
            self.watch_synced.clone(),
        );
        registry.register(
            "kube_lifecycle_watch_events",
            "Objects applied to the model, by resource and type: listed (from a list), applied and deleted (from watch events)",
            self.watch_events.clone(),
        );
        registry.register(
            "kube_lifecycle_watch_restarts",
            "Times a watch had to list again after its first sync (disconnect beyond resume, 410 Gone)",
            self.watch_restarts.clone(),
        );
        registry.register(
            "kube_lifecycle_watch_errors",
            "Errors from the API server while listing or watching, by resource and reason",
            self.watch_errors.clone(),
        );
        registry.register(
            "kube_lifecycle_watch_last_event_timestamp_seconds",
            "Unix time the last watch event of a resource was applied",
            self.watch_last_event.clone(),
        );
        registry.register(
            "kube_lifecycle_build_info",
            "Build information; always 1",
            self.build_info.clone(),
        );
        registry.register(
            "kube_lifecycle_scrape_render_duration_seconds",
            "Time the previous /metrics response took to render",
            self.render_seconds.clone(),
        );
        registry.register(
            "kube_lifecycle_pod_terminating_duration_seconds",
            "Time from a pod's deletion request to the object being gone, by the Terminating cause at removal",
            self.pod_terminating.clone(),
        );
        registry.register(
            "kube_lifecycle_pod_scheduling_latency_seconds",
            "Time from a pod's creation to PodScheduled=True",
            self.pod_scheduling.clone(),
        );
        registry.register(
            "kube_lifecycle_pod_startup_duration_seconds",
            "Time from a pod's creation to its first Ready=True",
            self.pod_startup.clone(),
        );
        registry.register(
            "kube_lifecycle_namespace_terminating_duration_seconds",
            "Time from a namespace's deletion request to the namespace being gone",
            self.namespace_terminating.clone(),
        );
        self.build_info
            .get_or_create(&BuildLabels {
                version: env!("CARGO_PKG_VERSION"),
            })
            .set(1);
    }

    pub fn observe(&self, observation: &Observation) {
        match observation {
            Observation::PodTerminated { cause, seconds } => self
                .pod_terminating
                .get_or_create(&CauseLabel {
                    cause: cause.as_str(),
                })
                .observe(*seconds),
            Observation::PodScheduled { seconds } => self.pod_scheduling.observe(*seconds),
            Observation::PodStarted { seconds } => self.pod_startup.observe(*seconds),
            Observation::NamespaceTerminated { seconds } => {
                self.namespace_terminating.observe(*seconds)
            }
        }
    }

    pub fn error(&self, resource: &'static str, reason: &'static str) {
        self.watch_errors
            .get_or_create(&ErrorLabels { resource, reason })
            .inc();
    }
}
