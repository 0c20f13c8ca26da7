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

/// How one of the exporter's own families is documented.
pub struct MetricDoc {
    /// As exposed (counters with `_total`).
    pub name: &'static str,
    pub kind: &'static str,
    pub labels: &'static [&'static str],
    pub help: &'static str,
    pub example: &'static str,
}

/// The exporter's own families, documented once: registration takes its help
/// text from here and `docs/metrics.md` is generated from it.
pub const CATALOGUE: &[MetricDoc] = &[
    MetricDoc {
        name: "kube_lifecycle_watch_synced",
        kind: "gauge",
        labels: &["resource"],
        help: "Whether the watch of a resource has completed its first list (1) or not (0).",
        example: "min by (resource) (kube_lifecycle_watch_synced) == 0",
    },
    MetricDoc {
        name: "kube_lifecycle_watch_objects",
        kind: "gauge",
        labels: &["resource"],
        help: "Objects of a resource held in the exporter's model.",
        example: "kube_lifecycle_watch_objects{resource=\"pods\"}",
    },
    MetricDoc {
        name: "kube_lifecycle_watch_events",
        kind: "counter",
        labels: &["resource", "type"],
        help: "Objects applied to the model, by resource and type: listed (from a list), applied and deleted (from watch events).",
        example: "sum by (resource) (rate(kube_lifecycle_watch_events_total[5m]))",
    },
    MetricDoc {
        name: "kube_lifecycle_watch_restarts",
        kind: "counter",
        labels: &["resource"],
        help: "Times a watch had to list again after its first sync (its resume point expired: 410 Gone).",
        example: "increase(kube_lifecycle_watch_restarts_total[1h]) > 3",
    },
    MetricDoc {
        name: "kube_lifecycle_watch_errors",
        kind: "counter",
        labels: &["resource", "reason"],
        help: "Errors from the API server while listing or watching, by resource and reason (forbidden, unauthorized, not_found, expired, server_error, connection, decode, other).",
        example: "sum by (resource, reason) (rate(kube_lifecycle_watch_errors_total[5m])) > 0",
    },
    MetricDoc {
        name: "kube_lifecycle_watch_last_event_timestamp_seconds",
        kind: "gauge",
        labels: &["resource"],
        help: "Unix time the last list or watch event of a resource was applied.",
        example: "time() - kube_lifecycle_watch_last_event_timestamp_seconds{resource=\"pods\"}",
    },
    MetricDoc {
        name: "kube_lifecycle_build_info",
        kind: "gauge",
        labels: &["version"],
        help: "Build information; always 1.",
        example: "count by (version) (kube_lifecycle_build_info)",
    },
    MetricDoc {
        name: "kube_lifecycle_scrape_render_duration_seconds",
        kind: "gauge",
        labels: &[],
        help: "Time the previous /metrics response took to render.",
        example: "max_over_time(kube_lifecycle_scrape_render_duration_seconds[1h])",
    },
    MetricDoc {
        name: "kube_lifecycle_pod_terminating_duration_seconds",
        kind: "histogram",
        labels: &["cause"],
        help: "Time from a pod's deletion request to the object being gone, by the Terminating cause at removal (a removal first seen in a relist after a disconnect counts as of the relist).",
        example: "histogram_quantile(0.99, sum by (le) (rate(kube_lifecycle_pod_terminating_duration_seconds_bucket[1h])))",
    },
    MetricDoc {
        name: "kube_lifecycle_pod_scheduling_latency_seconds",
        kind: "histogram",
        labels: &[],
        help: "Time from a pod's creation to PodScheduled=True.",
        example: "histogram_quantile(0.9, sum by (le) (rate(kube_lifecycle_pod_scheduling_latency_seconds_bucket[1h])))",
    },
    MetricDoc {
        name: "kube_lifecycle_pod_startup_duration_seconds",
        kind: "histogram",
        labels: &[],
        help: "Time from a pod's creation to its first Ready=True.",
        example: "histogram_quantile(0.5, sum by (le) (rate(kube_lifecycle_pod_startup_duration_seconds_bucket[1h])))",
    },
    MetricDoc {
        name: "kube_lifecycle_namespace_terminating_duration_seconds",
        kind: "histogram",
        labels: &[],
        help: "Time from a namespace's deletion request to the namespace being gone.",
        example: "histogram_quantile(0.9, sum by (le) (rate(kube_lifecycle_namespace_terminating_duration_seconds_bucket[1d])))",
    },
];

/// The catalogue as markdown (kept in `docs/metrics.md`).
pub fn markdown_catalogue() -> String {
    let mut out = String::new();
    for doc in CATALOGUE {
        let name = if doc.kind == "counter" {
            format!("{}_total", doc.name)
        } else {
            doc.name.to_string()
        };
        let labels = if doc.labels.is_empty() {
            "no labels".to_string()
        } else {
            format!(
                "labels: {}",
                doc.labels
                    .iter()
                    .map(|l| format!("`{l}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        out.push_str(&format!(
            "### `{name}`\n\n{} · {labels}\n\n{}\n\n```promql\n{}\n```\n\n",
            doc.kind, doc.help, doc.example
        ));
    }
    out
}

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
    /// Registers every family under its full `kube_lifecycle_` name, with the
    /// help text of [`CATALOGUE`].
    pub fn register(&self, registry: &mut Registry) {
        fn help(name: &str) -> &'static str {
            CATALOGUE
                .iter()
                .find(|d| d.name == name)
                .map_or("", |d| d.help)
        }
        fn add(
            registry: &mut Registry,
            name: &'static str,
            metric: impl prometheus_client::registry::Metric,
        ) {
            // The registry appends a period; the catalogue's texts end with one.
            registry.register(name, help(name).trim_end_matches('.'), metric);
        }
        add(
            registry,
            "kube_lifecycle_watch_synced",
            self.watch_synced.clone(),
        );
        add(
            registry,
            "kube_lifecycle_watch_events",
            self.watch_events.clone(),
        );
        add(
            registry,
            "kube_lifecycle_watch_restarts",
            self.watch_restarts.clone(),
        );
        add(
            registry,
            "kube_lifecycle_watch_errors",
            self.watch_errors.clone(),
        );
        add(
            registry,
            "kube_lifecycle_watch_last_event_timestamp_seconds",
            self.watch_last_event.clone(),
        );
        add(
            registry,
            "kube_lifecycle_build_info",
            self.build_info.clone(),
        );
        add(
            registry,
            "kube_lifecycle_scrape_render_duration_seconds",
            self.render_seconds.clone(),
        );
        add(
            registry,
            "kube_lifecycle_pod_terminating_duration_seconds",
            self.pod_terminating.clone(),
        );
        add(
            registry,
            "kube_lifecycle_pod_scheduling_latency_seconds",
            self.pod_scheduling.clone(),
        );
        add(
            registry,
            "kube_lifecycle_pod_startup_duration_seconds",
            self.pod_startup.clone(),
        );
        add(
            registry,
            "kube_lifecycle_namespace_terminating_duration_seconds",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every family the exporter registers is documented, and nothing else is.
    #[test]
    fn the_catalogue_matches_what_is_registered() {
        let mut registry = Registry::default();
        let t = Telemetry::default();
        t.register(&mut registry);
        // Families without samples are not printed: give each one.
        let resource = ResourceLabel { resource: "pods" };
        t.watch_synced.get_or_create(&resource).set(1);
        t.watch_restarts.get_or_create(&resource).inc();
        t.watch_last_event.get_or_create(&resource).set(1.0);
        t.watch_events
            .get_or_create(&EventLabels {
                resource: "pods",
                r#type: "applied",
            })
            .inc();
        t.error("pods", "forbidden");
        t.observe(&Observation::PodTerminated {
            cause: crate::diagnosis::TerminatingCause::Graceful,
            seconds: 1.0,
        });
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        let mut registered: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# TYPE "))
            .map(|t| {
                let (name, kind) = t.split_once(' ').unwrap();
                if kind == "counter" {
                    format!("{name}_total")
                } else {
                    name.to_string()
                }
            })
            .collect();
        registered.push("kube_lifecycle_watch_objects".into()); // a scrape-time collector
        registered.sort();
        let mut documented: Vec<String> = CATALOGUE
            .iter()
            .map(|d| {
                if d.kind == "counter" {
                    format!("{}_total", d.name)
                } else {
                    d.name.to_string()
                }
            })
            .collect();
        documented.sort();
        assert_eq!(registered, documented);
        for line in text.lines().filter(|l| l.starts_with("# HELP ")) {
            assert!(!line.ends_with(".."), "{line}");
        }
    }

    #[test]
    fn docs_list_the_exporters_own_metrics() {
        crate::doc_blocks::check("docs/metrics.md", "telemetry", &markdown_catalogue());
    }
}
