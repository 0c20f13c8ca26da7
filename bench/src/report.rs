//! What a run measured, the figures derived from it, and the Markdown table
//! that prints a row per measure and a column per run.

use crate::cluster::Profile;

/// Filled in by the phases of a run, each with what it measured.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub pods: usize,
    pub profile: Profile,
    pub nodes: usize,
    pub objects: usize,
    pub bytes: usize,
    pub pod_bytes_mean: usize,
    pub sync_seconds: f64,
    /// CPU the exporter spent from its start to its first complete sync.
    pub sync_cpu_seconds: f64,
    /// CPU the benchmark process (the fake API server serving the lists, and
    /// the wait for readiness) spent meanwhile, on the same cores.
    pub server_sync_cpu_seconds: f64,
    pub parse_only_mb_per_second: f64,
    /// The pods' pages decoded by the exporter's own list decoder, in the
    /// benchmark process: no network, no model.
    pub decode_only_mb_per_second: f64,
    /// The same pod pages parsed with `IgnoredAny`, in the same rounds.
    pub pod_parse_only_mb_per_second: f64,
    pub peak_rss: u64,
    pub steady_rss: u64,
    pub empty_rss: u64,
    pub findings: u64,
    pub metrics_bytes: usize,
    pub render_median_ms: f64,
    pub render_p99_ms: f64,
    pub scrape_median_ms: f64,
    pub scrape_p99_ms: f64,
    /// `/metrics` as Prometheus asks for it (gzip): bytes sent, whether it
    /// came compressed, and the scrape times.
    pub metrics_gzip_bytes: usize,
    pub metrics_gzipped: bool,
    pub scrape_gzip_median_ms: f64,
    pub scrape_gzip_p99_ms: f64,
    /// The landing page: bytes, and the times to fetch it (as many as the
    /// scrapes).
    pub page_bytes: usize,
    pub page_median_ms: f64,
    pub page_p99_ms: f64,
    /// The exporter's CPU per gzip scrape of an unchanged model, and of it
    /// the time spent diagnosing (its own `kube_lifecycle_judgement_seconds`).
    pub scrape_cpu_ms: f64,
    pub scrape_judge_ms: f64,
    /// Share of a core the diagnosis took during the churn (the same counter).
    pub churn_judge_seconds: f64,
    /// Gzip scrapes every half second during a further churn, without and
    /// then with `viewers` reloading the landing page every second: their
    /// p99s, and the viewers' page p99.
    pub viewers: usize,
    pub churn_scrape_p99_ms: f64,
    pub viewers_scrape_p99_ms: f64,
    pub viewers_page_p99_ms: f64,
    /// `/findings` whole, and `/findings?anomaly=image_pull&limit=100`.
    pub findings_bytes: usize,
    pub findings_filtered_bytes: usize,
    pub churn_events_sent: usize,
    pub churn_events_applied: f64,
    pub churn_cpu_seconds: f64,
    pub churn_seconds: f64,
    /// From the server's history being lost and every watch cut to the
    /// exporter's pod watch having listed again (410 Gone, then a relist).
    pub relist_seconds: f64,
    /// The peak resident set during that relist, while the model still held
    /// the old objects.
    pub relist_peak_rss: u64,
    /// The resident set when the relist began, after the churn and the
    /// viewers: what of the peak the relist found already held.
    pub relist_start_rss: u64,
    /// How long each crash-looping pod created during the churn took to show
    /// on `/findings`, sorted; `None` for one not seen within a minute.
    pub newcomer_seconds: Vec<Option<f64>>,
}

impl Report {
    pub fn ingest_mb_per_second(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.sync_seconds
    }
    pub fn objects_per_second(&self) -> f64 {
        self.objects as f64 / self.sync_seconds
    }
    pub fn ingest_ratio(&self) -> f64 {
        self.ingest_mb_per_second() / self.parse_only_mb_per_second
    }
    /// Bytes listed per CPU second of the exporter: the rate one core of it
    /// would reach were the server and the network free.
    pub fn ingest_mb_per_cpu_second(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.sync_cpu_seconds
    }
    pub fn ingest_cpu_ratio(&self) -> f64 {
        self.ingest_mb_per_cpu_second() / self.parse_only_mb_per_second
    }
    /// The decoder's rate against parsing the same bytes: the most the whole
    /// ingest could reach with this decoder, were everything else free.
    pub fn decode_ratio(&self) -> f64 {
        self.decode_only_mb_per_second / self.pod_parse_only_mb_per_second
    }
    pub fn retained_bytes_per_pod(&self) -> f64 {
        self.steady_rss.saturating_sub(self.empty_rss) as f64 / self.pods as f64
    }
    pub fn relist_peak_ratio(&self) -> f64 {
        self.relist_peak_rss as f64 / self.steady_rss as f64
    }
    /// CPU seconds per 1,000 watch events applied.
    pub fn cpu_per_thousand_events(&self) -> f64 {
        self.churn_cpu_seconds / (self.churn_events_applied / 1000.0)
    }
    /// Share of one core used during the churn.
    pub fn churn_judge_share(&self) -> f64 {
        self.churn_judge_seconds / self.churn_seconds
    }

    pub fn churn_core_share(&self) -> f64 {
        self.churn_cpu_seconds / self.churn_seconds
    }
}

/// Bytes in MiB, as the tables print them.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// A measure's name and how to print it for one report.
type Row = (&'static str, fn(&Report) -> String);

/// The table's rows, in order.
const ROWS: [Row; 33] = [
    ("nodes / objects", |r| {
        format!("{} / {}", r.nodes, r.objects)
    }),
    ("mean pod JSON", |r| {
        format!("{:.1} KB", r.pod_bytes_mean as f64 / 1000.0)
    }),
    ("initial sync", |r| format!("{:.2} s", r.sync_seconds)),
    ("ingest", |r| {
        format!(
            "{:.0} MB/s, {:.0} objects/s",
            r.ingest_mb_per_second(),
            r.objects_per_second()
        )
    }),
    ("parse only (IgnoredAny)", |r| {
        format!("{:.0} MB/s", r.parse_only_mb_per_second)
    }),
    ("ingest / parse only", |r| {
        format!("{:.2}×", r.ingest_ratio())
    }),
    ("exporter CPU for the sync", |r| {
        format!("{:.2} s", r.sync_cpu_seconds)
    }),
    ("API server CPU meanwhile (same cores)", |r| {
        format!("{:.2} s", r.server_sync_cpu_seconds)
    }),
    ("ingest per exporter CPU second", |r| {
        format!(
            "{:.0} MB/s ({:.2}× parse only)",
            r.ingest_mb_per_cpu_second(),
            r.ingest_cpu_ratio()
        )
    }),
    ("decode only: pods, the exporter's decoder", |r| {
        format!(
            "{:.0} MB/s ({:.2}× parse only of the same pages)",
            r.decode_only_mb_per_second,
            r.decode_ratio()
        )
    }),
    ("peak RSS", |r| format!("{:.0} MiB", mib(r.peak_rss))),
    ("steady RSS", |r| format!("{:.0} MiB", mib(r.steady_rss))),
    ("retained per pod", |r| {
        format!("{:.0} B", r.retained_bytes_per_pod())
    }),
    ("findings", |r| r.findings.to_string()),
    ("/metrics size", |r| {
        format!("{:.1} MB", r.metrics_bytes as f64 / 1e6)
    }),
    ("/metrics render (median / p99)", |r| {
        format!("{:.1} / {:.1} ms", r.render_median_ms, r.render_p99_ms)
    }),
    ("/metrics scrape (median / p99)", |r| {
        format!("{:.1} / {:.1} ms", r.scrape_median_ms, r.scrape_p99_ms)
    }),
    ("/metrics with gzip: size, scrape (median / p99)", |r| {
        format!(
            "{:.2} MB{}, {:.1} / {:.1} ms",
            r.metrics_gzip_bytes as f64 / 1e6,
            if r.metrics_gzipped {
                ""
            } else {
                " (not compressed)"
            },
            r.scrape_gzip_median_ms,
            r.scrape_gzip_p99_ms
        )
    }),
    ("landing page: size, time (median / p99)", |r| {
        format!(
            "{:.2} MB, {:.1} / {:.1} ms",
            r.page_bytes as f64 / 1e6,
            r.page_median_ms,
            r.page_p99_ms
        )
    }),
    ("CPU per gzip scrape, of it diagnosing", |r| {
        format!("{:.1} ms, {:.1} ms", r.scrape_cpu_ms, r.scrape_judge_ms)
    }),
    ("/findings whole", |r| {
        format!("{:.2} MB", r.findings_bytes as f64 / 1e6)
    }),
    ("/findings?anomaly=image_pull&limit=100", |r| {
        format!("{:.3} MB", r.findings_filtered_bytes as f64 / 1e6)
    }),
    ("churn", |r| {
        format!(
            "{:.0} {}/s for {:.0} s",
            r.churn_events_sent as f64 / r.churn_seconds,
            match r.profile {
                Profile::Healthy => "pod changes",
                Profile::Storm => "events",
            },
            r.churn_seconds
        )
    }),
    ("churn events applied", |r| {
        format!("{:.0}", r.churn_events_applied)
    }),
    ("CPU per 1,000 events", |r| {
        format!("{:.3} s", r.cpu_per_thousand_events())
    }),
    ("CPU at that churn", |r| {
        format!("{:.1}% of a core", 100.0 * r.churn_core_share())
    }),
    ("of it diagnosing", |r| {
        format!("{:.1}% of a core", 100.0 * r.churn_judge_share())
    }),
    (
        "gzip scrape p99 during churn: alone / with page viewers",
        |r| {
            format!(
                "{:.1} / {:.1} ms ({:+.0}%, {} viewers)",
                r.churn_scrape_p99_ms,
                r.viewers_scrape_p99_ms,
                100.0 * (r.viewers_scrape_p99_ms / r.churn_scrape_p99_ms - 1.0),
                r.viewers
            )
        },
    ),
    ("landing page p99 with those viewers", |r| {
        format!("{:.1} ms", r.viewers_page_p99_ms)
    }),
    (
        "a new crash-looping pod on /findings during the churn (median / slowest)",
        |r| {
            let seen: Vec<f64> = r.newcomer_seconds.iter().flatten().copied().collect();
            let missed = r.newcomer_seconds.len() - seen.len();
            let mut cell = match (seen.get(seen.len() / 2), seen.last()) {
                (Some(median), Some(slowest)) => {
                    format!("{median:.2} / {slowest:.2} s of {}", seen.len())
                }
                _ => "none created".to_string(),
            };
            if missed > 0 {
                cell.push_str(&format!(", {missed} not seen within 60 s"));
            }
            cell
        },
    ),
    ("relist after 410 Gone (time / peak RSS)", |r| {
        format!(
            "{:.2} s / {:.0} MiB",
            r.relist_seconds,
            mib(r.relist_peak_rss)
        )
    }),
    ("relist peak / steady RSS", |r| {
        format!("{:.2}×", r.relist_peak_ratio())
    }),
    (
        "RSS when the relist began / steady, relist peak / that",
        |r| {
            format!(
                "{:.2}×, {:.2}×",
                r.relist_start_rss as f64 / r.steady_rss as f64,
                r.relist_peak_rss as f64 / r.relist_start_rss as f64
            )
        },
    ),
];

/// One row per measure, one column per size, as Markdown.
pub fn table(reports: &[Report]) -> String {
    let mut out = String::from("| measure |");
    for r in reports {
        out.push_str(&format!(" {} pods, {} |", r.pods, r.profile.name()));
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(reports.len()));
    out.push('\n');
    for (name, cell) in ROWS {
        out.push_str(&format!("| {name} |"));
        for r in reports {
            out.push_str(&format!(" {} |", cell(r)));
        }
        out.push('\n');
    }
    out
}
