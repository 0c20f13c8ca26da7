//! The exporter's own families: how each watch is doing, the model's size,
//! build information, render time, the diagnosis's own cost, and the
//! lifecycle duration histograms.
//! Each is documented once here, as a constant: registration takes its name
//! and help text from it, and `docs/metrics.md` is generated from them all. Call sites say
//! what happened (`listed`, `applied`, `watch_failed` ...); the labels
//! (`resource` from the kind, first of all) are added here.

use std::fmt;
use std::sync::atomic::AtomicU64;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::diagnosis::{EvictionCause, TerminatingCause};
use crate::model::unix_seconds;
use crate::model::{Kind, Time};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResourceLabel {
    resource: &'static str,
}

impl ResourceLabel {
    /// The label every watch family opens with: the kind's resource.
    fn of(kind: Kind) -> Self {
        ResourceLabel {
            resource: kind.plural(),
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EventLabels {
    resource: &'static str,
    /// `listed`, `applied` or `deleted`. (Not `type`: exporters leave that
    /// name to Prometheus' own use.)
    event: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    resource: &'static str,
    /// One of the reasons [`WATCH_ERRORS`] names.
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CauseLabel {
    cause: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EvictionLabels {
    namespace: String,
    owner_kind: String,
    owner_name: String,
    cause: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DecisionLabels {
    /// `metrics`, `findings`, `page`, `runbooks` or `other`.
    endpoint: &'static str,
    /// `allowed`, `denied`, `unauthenticated` or `error`.
    decision: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheLabels {
    /// `token` (TokenReview) or `access` (SubjectAccessReview).
    review: &'static str,
    /// `hit` or `miss`.
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReviewLabel {
    review: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabels {
    version: &'static str,
}

/// Histogram buckets, in seconds, chosen for each duration's usual range.
const TERMINATING_BUCKETS: &[f64] = &[
    1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, 21600.0, 86400.0,
];
const SCHEDULING_BUCKETS: &[f64] = &[
    0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0, 3600.0,
];
const STARTUP_BUCKETS: &[f64] = &[
    1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0,
];
const NAMESPACE_BUCKETS: &[f64] = &[
    1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 21600.0, 86400.0,
];

/// How one of the exporter's own families is documented.
pub(super) struct MetricDoc {
    /// As registered (a counter is exposed with `_total` after it).
    pub name: &'static str,
    pub help: &'static str,
    // What `docs/metrics.md` says besides (read by its generator,
    // `crate::doc_blocks`).
    pub kind: &'static str,
    pub labels: &'static [&'static str],
    pub example: &'static str,
}

const WATCH_SYNCED: MetricDoc = MetricDoc {
    name: "kube_lifecycle_watch_synced",
    kind: "gauge",
    labels: &["resource"],
    help: "Whether the watch of a resource has completed its first list (1) or not (0).",
    example: "min by (resource) (kube_lifecycle_watch_synced) == 0",
};

const WATCH_OBJECTS: MetricDoc = MetricDoc {
    name: "kube_lifecycle_watch_objects",
    kind: "gauge",
    labels: &["resource"],
    help: "Objects of a resource held in the exporter's model.",
    example: "kube_lifecycle_watch_objects{resource=\"pods\"}",
};

const WATCH_EVENTS: MetricDoc = MetricDoc {
    name: "kube_lifecycle_watch_events",
    kind: "counter",
    labels: &["resource", "event"],
    help: "Objects applied to the model, by resource and event: listed (from a list), applied and deleted (from watch events).",
    example: "sum by (resource) (rate(kube_lifecycle_watch_events_total[5m]))",
};

const WATCH_RESTARTS: MetricDoc = MetricDoc {
    name: "kube_lifecycle_watch_restarts",
    kind: "counter",
    labels: &["resource"],
    help: "Times a watch had to list again after its first sync: its resume point expired (410 Gone), the API server was behind it (too large resource version) or the API server had been unreachable.",
    example: "increase(kube_lifecycle_watch_restarts_total[1h]) > 3",
};

const WATCH_ERRORS: MetricDoc = MetricDoc {
    name: "kube_lifecycle_watch_errors",
    kind: "counter",
    labels: &["resource", "reason"],
    help: "Errors from the API server while listing or watching, by resource and reason (forbidden, unauthorized, not_found, expired, too_large, server_error, connection, decode, other).",
    example: "sum by (resource, reason) (rate(kube_lifecycle_watch_errors_total[5m])) > 0",
};

const WATCH_LAST_EVENT: MetricDoc = MetricDoc {
    name: "kube_lifecycle_watch_last_event_timestamp_seconds",
    kind: "gauge",
    labels: &["resource"],
    help: "Unix time the last list or watch event of a resource was applied.",
    example: "time() - kube_lifecycle_watch_last_event_timestamp_seconds{resource=\"pods\"}",
};

const WATCH_LAST_CONTACT: MetricDoc = MetricDoc {
    name: "kube_lifecycle_watch_last_contact_timestamp_seconds",
    kind: "gauge",
    labels: &["resource"],
    help: "Unix time the API server last answered the watch of a resource (a list page, a watch opened, an event or a bookmark); with one watch per namespace, the stalest. The findings of that resource are as old as this during an outage.",
    example: "time() - min by (resource) (kube_lifecycle_watch_last_contact_timestamp_seconds) > 300",
};

const BUILD_INFO: MetricDoc = MetricDoc {
    name: "kube_lifecycle_build_info",
    kind: "gauge",
    labels: &["version"],
    help: "Build information; always 1.",
    example: "count by (version) (kube_lifecycle_build_info)",
};

const RENDER_DURATION: MetricDoc = MetricDoc {
    name: "kube_lifecycle_scrape_render_duration_seconds",
    kind: "gauge",
    labels: &[],
    help: "Time the previous /metrics response took to render.",
    example: "max_over_time(kube_lifecycle_scrape_render_duration_seconds[1h])",
};

const JUDGEMENTS: MetricDoc = MetricDoc {
    name: "kube_lifecycle_judgements",
    kind: "counter",
    labels: &[],
    help: "Times the model was diagnosed again: after it changed, or when a finding's time came (a threshold waited out, a deadline passed, an age in a message ticking over). Reads between two take the findings as they are.",
    example: "rate(kube_lifecycle_judgements_total[5m])",
};

const JUDGEMENT_SECONDS: MetricDoc = MetricDoc {
    name: "kube_lifecycle_judgement_seconds",
    kind: "counter",
    labels: &[],
    help: "Time spent diagnosing the model; its rate is the share of a core the diagnosis takes.",
    example: "rate(kube_lifecycle_judgement_seconds_total[5m])",
};

const POD_TERMINATING: MetricDoc = MetricDoc {
    name: "kube_lifecycle_pod_terminating_duration_seconds",
    kind: "histogram",
    labels: &["cause"],
    help: "Time from a pod's deletion request to the object being gone, by the Terminating cause at removal (a removal first seen in a relist after a disconnect counts as of the relist).",
    example: "histogram_quantile(0.99, sum by (le) (rate(kube_lifecycle_pod_terminating_duration_seconds_bucket[1h])))",
};

const POD_SCHEDULING: MetricDoc = MetricDoc {
    name: "kube_lifecycle_pod_scheduling_latency_seconds",
    kind: "histogram",
    labels: &[],
    help: "Time from a pod's creation to PodScheduled=True.",
    example: "histogram_quantile(0.9, sum by (le) (rate(kube_lifecycle_pod_scheduling_latency_seconds_bucket[1h])))",
};

const POD_STARTUP: MetricDoc = MetricDoc {
    name: "kube_lifecycle_pod_startup_duration_seconds",
    kind: "histogram",
    labels: &[],
    help: "Time from a pod's creation to its first Ready=True.",
    example: "histogram_quantile(0.5, sum by (le) (rate(kube_lifecycle_pod_startup_duration_seconds_bucket[1h])))",
};

const NAMESPACE_TERMINATING: MetricDoc = MetricDoc {
    name: "kube_lifecycle_namespace_terminating_duration_seconds",
    kind: "histogram",
    labels: &[],
    help: "Time from a namespace's deletion request to the namespace being gone.",
    example: "histogram_quantile(0.9, sum by (le) (rate(kube_lifecycle_namespace_terminating_duration_seconds_bucket[1d])))",
};

const POD_EVICTIONS: MetricDoc = MetricDoc {
    name: "kube_lifecycle_pod_evictions",
    kind: "counter",
    labels: &["namespace", "owner_kind", "owner_name", "cause"],
    help: "Evictions the watch saw happen: a pod that turned Failed with an eviction or admission reason, or gained a DisruptionTarget condition (preemption, taint eviction, node shutdown, the Eviction API), by namespace, the pod's owner and cause (the pod_evicted vocabulary). Pods already evicted when the exporter started are not counted.",
    example: "sum by (namespace, cause) (increase(kube_lifecycle_pod_evictions_total[15m])) > 5",
};

const AUTHORIZATION_DECISIONS: MetricDoc = MetricDoc {
    name: "kube_lifecycle_authorization_decisions",
    kind: "counter",
    labels: &["endpoint", "decision"],
    help: "Requests decided by --auth kubernetes, by endpoint (metrics, findings, page, runbooks, other) and decision: allowed (answered; the findings cut to what the viewer may see), denied (403), unauthenticated (401: no token, or one the API server did not accept) or error (503: a review got no answer).",
    example: "sum by (decision) (rate(kube_lifecycle_authorization_decisions_total{decision=\"error\"}[5m])) > 0",
};

const AUTHORIZATION_CACHE: MetricDoc = MetricDoc {
    name: "kube_lifecycle_authorization_cache_requests",
    kind: "counter",
    labels: &["review", "result"],
    help: "Answers --auth kubernetes needed, by review (token: TokenReview, access: SubjectAccessReview) and result: hit (kept, or shared with a request that asked at the same time) or miss (a review asked of the API server).",
    example: "sum by (review) (rate(kube_lifecycle_authorization_cache_requests_total{result=\"miss\"}[5m]))",
};

const AUTHORIZATION_CACHE_ENTRIES: MetricDoc = MetricDoc {
    name: "kube_lifecycle_authorization_cache_entries",
    kind: "gauge",
    labels: &["review"],
    help: "Review answers --auth kubernetes keeps (or awaits), by review; bounded (4,096 tokens, 65,536 access answers).",
    example: "kube_lifecycle_authorization_cache_entries",
};

/// The exporter's own families, in the order `docs/metrics.md` lists them.
pub(super) const CATALOGUE: &[MetricDoc] = &[
    WATCH_SYNCED,
    WATCH_OBJECTS,
    WATCH_EVENTS,
    WATCH_RESTARTS,
    WATCH_ERRORS,
    WATCH_LAST_EVENT,
    WATCH_LAST_CONTACT,
    BUILD_INFO,
    RENDER_DURATION,
    JUDGEMENTS,
    JUDGEMENT_SECONDS,
    POD_TERMINATING,
    POD_SCHEDULING,
    POD_STARTUP,
    NAMESPACE_TERMINATING,
    POD_EVICTIONS,
    AUTHORIZATION_DECISIONS,
    AUTHORIZATION_CACHE,
    AUTHORIZATION_CACHE_ENTRIES,
];

/// The catalogue as markdown (kept in `docs/metrics.md`).
pub(super) fn markdown_catalogue() -> String {
    markdown_of(CATALOGUE)
}

/// Families documented as markdown, one section each.
pub(super) fn markdown_of(catalogue: &[MetricDoc]) -> String {
    let mut out = String::new();
    for doc in catalogue {
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

/// The exporter's own metrics, recorded as things happen.
#[derive(Debug)]
pub(crate) struct Telemetry {
    watch_synced: Family<ResourceLabel, Gauge>,
    watch_events: Family<EventLabels, Counter>,
    watch_restarts: Family<ResourceLabel, Counter>,
    watch_errors: Family<ErrorLabels, Counter>,
    watch_last_event: Family<ResourceLabel, Gauge<f64, AtomicU64>>,
    watch_last_contact: Family<ResourceLabel, Gauge<f64, AtomicU64>>,
    build_info: Family<BuildLabels, Gauge>,
    render_seconds: Gauge<f64, AtomicU64>,
    judgements: Counter,
    judgement_seconds: Counter<f64, AtomicU64>,
    pod_terminating: Family<CauseLabel, Histogram>,
    pod_scheduling: Histogram,
    pod_startup: Histogram,
    namespace_terminating: Histogram,
    pod_evictions: Family<EvictionLabels, Counter>,
    authorization_decisions: Family<DecisionLabels, Counter>,
    authorization_cache: Family<CacheLabels, Counter>,
    authorization_cache_entries: Family<ReviewLabel, Gauge>,
}

impl Default for Telemetry {
    fn default() -> Self {
        Telemetry {
            watch_synced: Family::default(),
            watch_events: Family::default(),
            watch_restarts: Family::default(),
            watch_errors: Family::default(),
            watch_last_event: Family::default(),
            watch_last_contact: Family::default(),
            build_info: Family::default(),
            render_seconds: Gauge::default(),
            judgements: Counter::default(),
            judgement_seconds: Counter::default(),
            pod_terminating: Family::new_with_constructor(|| {
                Histogram::new(TERMINATING_BUCKETS.iter().copied())
            }),
            pod_scheduling: Histogram::new(SCHEDULING_BUCKETS.iter().copied()),
            pod_startup: Histogram::new(STARTUP_BUCKETS.iter().copied()),
            namespace_terminating: Histogram::new(NAMESPACE_BUCKETS.iter().copied()),
            pod_evictions: Family::default(),
            authorization_decisions: Family::default(),
            authorization_cache: Family::default(),
            authorization_cache_entries: Family::default(),
        }
    }
}

impl Telemetry {
    /// Registers every family under its full `kube_lifecycle_` name, with the
    /// help text of its constant.
    pub(crate) fn register(&self, registry: &mut Registry) {
        fn add(
            registry: &mut Registry,
            doc: &MetricDoc,
            metric: impl prometheus_client::registry::Metric,
        ) {
            // The registry appends a period; the catalogue's texts end with one.
            registry.register(doc.name, doc.help.trim_end_matches('.'), metric);
        }
        add(registry, &WATCH_SYNCED, self.watch_synced.clone());
        add(registry, &WATCH_EVENTS, self.watch_events.clone());
        add(registry, &WATCH_RESTARTS, self.watch_restarts.clone());
        add(registry, &WATCH_ERRORS, self.watch_errors.clone());
        add(registry, &WATCH_LAST_EVENT, self.watch_last_event.clone());
        add(
            registry,
            &WATCH_LAST_CONTACT,
            self.watch_last_contact.clone(),
        );
        add(registry, &BUILD_INFO, self.build_info.clone());
        add(registry, &RENDER_DURATION, self.render_seconds.clone());
        add(registry, &JUDGEMENTS, self.judgements.clone());
        add(registry, &JUDGEMENT_SECONDS, self.judgement_seconds.clone());
        add(registry, &POD_TERMINATING, self.pod_terminating.clone());
        add(registry, &POD_SCHEDULING, self.pod_scheduling.clone());
        add(registry, &POD_STARTUP, self.pod_startup.clone());
        add(
            registry,
            &NAMESPACE_TERMINATING,
            self.namespace_terminating.clone(),
        );
        add(registry, &POD_EVICTIONS, self.pod_evictions.clone());
        add(
            registry,
            &AUTHORIZATION_DECISIONS,
            self.authorization_decisions.clone(),
        );
        add(
            registry,
            &AUTHORIZATION_CACHE,
            self.authorization_cache.clone(),
        );
        add(
            registry,
            &AUTHORIZATION_CACHE_ENTRIES,
            self.authorization_cache_entries.clone(),
        );
        self.build_info
            .get_or_create(&BuildLabels {
                version: env!("CARGO_PKG_VERSION"),
            })
            .set(1);
    }

    /// `--auth kubernetes` decided a request to `endpoint`.
    pub(crate) fn authorization_decided(&self, endpoint: &'static str, decision: &'static str) {
        self.authorization_decisions
            .get_or_create(&DecisionLabels { endpoint, decision })
            .inc();
    }

    /// `--auth kubernetes` needed an answer of `review` (`hit` or `miss`);
    /// its cache now holds `entries`.
    pub(crate) fn authorization_looked_up(
        &self,
        review: &'static str,
        result: &'static str,
        entries: usize,
    ) {
        self.authorization_cache
            .get_or_create(&CacheLabels { review, result })
            .inc();
        self.authorization_cache_entries
            .get_or_create(&ReviewLabel { review })
            .set(i64::try_from(entries).unwrap_or(i64::MAX));
    }

    /// A watch of `kind` has yet to complete its first list.
    pub(crate) fn watch_unsynced(&self, kind: Kind) {
        self.watch_synced
            .get_or_create(&ResourceLabel::of(kind))
            .set(0);
    }

    /// Every watch of `kind` has completed its first list.
    pub(crate) fn watch_synced(&self, kind: Kind) {
        self.watch_synced
            .get_or_create(&ResourceLabel::of(kind))
            .set(1);
    }

    /// A watch of `kind` had to list again after its first sync.
    pub(crate) fn watch_restarted(&self, kind: Kind) {
        self.watch_restarts
            .get_or_create(&ResourceLabel::of(kind))
            .inc();
    }

    /// A (re)list of `kind` brought `objects` into the model.
    pub(crate) fn listed(&self, kind: Kind, objects: usize) {
        self.watch_events
            .get_or_create(&EventLabels {
                resource: kind.plural(),
                event: "listed",
            })
            .inc_by(objects as u64);
        self.event_seen(kind);
    }

    /// A watch event added or changed an object of `kind`.
    pub(crate) fn applied(&self, kind: Kind) {
        self.watch_event(kind, "applied");
    }

    /// A watch event deleted an object of `kind`.
    pub(crate) fn deleted(&self, kind: Kind) {
        self.watch_event(kind, "deleted");
    }

    fn watch_event(&self, kind: Kind, event: &'static str) {
        self.watch_events
            .get_or_create(&EventLabels {
                resource: kind.plural(),
                event,
            })
            .inc();
        self.event_seen(kind);
    }

    fn event_seen(&self, kind: Kind) {
        self.watch_last_event
            .get_or_create(&ResourceLabel::of(kind))
            .set(unix_seconds(Time::now()));
    }

    /// The API server answered a watch of `kind`; `at` is the stalest of its
    /// watches' last answers, in Unix seconds.
    pub(crate) fn watch_contact(&self, kind: Kind, at: f64) {
        self.watch_last_contact
            .get_or_create(&ResourceLabel::of(kind))
            .set(at);
    }

    /// Listing or watching `kind` failed, for a bounded `reason`.
    pub(crate) fn watch_failed(&self, kind: Kind, reason: &'static str) {
        self.watch_errors
            .get_or_create(&ErrorLabels {
                resource: kind.plural(),
                reason,
            })
            .inc();
    }

    /// The model was diagnosed in `seconds`.
    pub(crate) fn judged(&self, seconds: f64) {
        self.judgements.inc();
        self.judgement_seconds.inc_by(seconds);
    }

    /// A `/metrics` response took `seconds` to render.
    pub(crate) fn rendered(&self, seconds: f64) {
        self.render_seconds.set(seconds);
    }

    /// A Terminating pod is gone, `seconds` after its deletion was requested.
    pub(crate) fn pod_terminated(&self, cause: TerminatingCause, seconds: f64) {
        self.pod_terminating
            .get_or_create(&CauseLabel {
                cause: cause.as_str(),
            })
            .observe(seconds);
    }

    /// A pod was scheduled `seconds` after its creation.
    pub(crate) fn pod_scheduled(&self, seconds: f64) {
        self.pod_scheduling.observe(seconds);
    }

    /// A pod became Ready for the first time, `seconds` after its creation.
    pub(crate) fn pod_started(&self, seconds: f64) {
        self.pod_startup.observe(seconds);
    }

    /// A pod of `namespace`, owned by `owner` (kind, name), was evicted for `cause`.
    pub(crate) fn pod_evicted(&self, namespace: &str, owner: (&str, &str), cause: EvictionCause) {
        self.pod_evictions
            .get_or_create(&EvictionLabels {
                namespace: namespace.to_string(),
                owner_kind: owner.0.to_string(),
                owner_name: owner.1.to_string(),
                cause: cause.as_str(),
            })
            .inc();
    }

    /// A Terminating namespace is gone, `seconds` after its deletion was requested.
    pub(crate) fn namespace_terminated(&self, seconds: f64) {
        self.namespace_terminating.observe(seconds);
    }
}

/// What the model holds, per kind: read at scrape time.
pub(crate) trait HeldObjects: Send + Sync + 'static {
    fn counts(&self) -> Vec<(Kind, usize)>;
}

impl<S: HeldObjects> HeldObjects for std::sync::Arc<S> {
    fn counts(&self) -> Vec<(Kind, usize)> {
        S::counts(self)
    }
}

/// Objects held per resource ([`WATCH_OBJECTS`]), read at scrape time.
pub(crate) struct ModelSize<S>(pub S);

impl<S> fmt::Debug for ModelSize<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ModelSize")
    }
}

impl<S: HeldObjects> Collector for ModelSize<S> {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let doc = &WATCH_OBJECTS;
        let mut metric = encoder.encode_descriptor(doc.name, doc.help, None, MetricType::Gauge)?;
        for (kind, count) in self.0.counts() {
            let labels = [("resource", kind.plural())];
            ConstGauge::new(count as i64).encode(metric.encode_family(&labels)?)?;
        }
        Ok(())
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
        t.watch_synced(Kind::Pod);
        t.watch_restarted(Kind::Pod);
        t.applied(Kind::Pod);
        t.watch_failed(Kind::Pod, "forbidden");
        t.watch_contact(Kind::Pod, 1.0);
        t.pod_terminated(TerminatingCause::Graceful, 1.0);
        t.pod_evicted(
            "ns",
            ("ReplicaSet", "web-7d9f8"),
            EvictionCause::MemoryPressure,
        );
        t.authorization_decided("findings", "allowed");
        t.authorization_looked_up("token", "miss", 1);
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
