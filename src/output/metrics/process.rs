//! The standard `process_*` families every Prometheus exporter serves (the names
//! and meanings of client_golang's process collector), read from `/proc/self` at
//! scrape time. Not prefixed `kube_lifecycle_`: dashboards and alerts written for
//! any exporter select these names. Elsewhere than Linux nothing is exposed.

use std::fmt;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

use super::telemetry::MetricDoc;

pub(super) const CPU: MetricDoc = MetricDoc {
    name: "process_cpu_seconds",
    kind: "counter",
    labels: &[],
    help: "Total user and system CPU time spent in seconds.",
    example: "rate(process_cpu_seconds_total{job=\"kube-lifecycle-exporter\"}[5m])",
};
pub(super) const RESIDENT: MetricDoc = MetricDoc {
    name: "process_resident_memory_bytes",
    kind: "gauge",
    labels: &[],
    help: "Resident memory size in bytes.",
    example: "process_resident_memory_bytes{job=\"kube-lifecycle-exporter\"}",
};
pub(super) const VIRTUAL: MetricDoc = MetricDoc {
    name: "process_virtual_memory_bytes",
    kind: "gauge",
    labels: &[],
    help: "Virtual memory size in bytes.",
    example: "process_virtual_memory_bytes{job=\"kube-lifecycle-exporter\"}",
};
pub(super) const OPEN_FDS: MetricDoc = MetricDoc {
    name: "process_open_fds",
    kind: "gauge",
    labels: &[],
    help: "Number of open file descriptors.",
    example: "process_open_fds / process_max_fds > 0.8",
};
pub(super) const MAX_FDS: MetricDoc = MetricDoc {
    name: "process_max_fds",
    kind: "gauge",
    labels: &[],
    help: "Maximum number of open file descriptors.",
    example: "process_max_fds{job=\"kube-lifecycle-exporter\"}",
};
pub(super) const START_TIME: MetricDoc = MetricDoc {
    name: "process_start_time_seconds",
    kind: "gauge",
    labels: &[],
    help: "Start time of the process since unix epoch in seconds.",
    example: "changes(process_start_time_seconds{job=\"kube-lifecycle-exporter\"}[1h]) > 2",
};

/// In the order they are exposed and documented.
pub(super) const CATALOGUE: &[MetricDoc] = &[CPU, RESIDENT, VIRTUAL, OPEN_FDS, MAX_FDS, START_TIME];

/// Clock ticks per second of the times in `/proc/<pid>/stat`: USER_HZ, which
/// the kernel fixes at 100 for user space on every architecture Rust's Linux
/// targets build for (sysconf(_SC_CLK_TCK) reports the same constant).
const USER_HZ: f64 = 100.0;

/// What `/proc/self` says, read anew at each scrape; `None` where it cannot be read.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Sample {
    pub cpu_seconds: Option<f64>,
    pub resident_bytes: Option<f64>,
    pub virtual_bytes: Option<f64>,
    pub open_fds: Option<f64>,
    pub max_fds: Option<f64>,
    pub start_time_seconds: Option<f64>,
}

impl Sample {
    pub(super) fn read() -> Sample {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let stat = read("/proc/self/stat");
        let fields = stat.as_deref().and_then(stat_fields);
        let status = read("/proc/self/status");
        let kib = |key: &str| {
            status
                .as_deref()
                .and_then(|s| status_kib(s, key))
                .map(|k| k * 1024.0)
        };
        let boot_time = read("/proc/stat").as_deref().and_then(boot_time);
        Sample {
            cpu_seconds: fields.as_ref().and_then(|f| {
                let ticks = f.get(13)?.parse::<f64>().ok()? + f.get(14)?.parse::<f64>().ok()?;
                Some(ticks / USER_HZ)
            }),
            resident_bytes: kib("VmRSS:"),
            virtual_bytes: kib("VmSize:"),
            open_fds: std::fs::read_dir("/proc/self/fd")
                .ok()
                .map(|entries| entries.count() as f64),
            max_fds: read("/proc/self/limits")
                .as_deref()
                .and_then(max_open_files),
            start_time_seconds: fields.as_ref().and_then(|f| {
                let ticks: f64 = f.get(21)?.parse().ok()?;
                Some(boot_time? + ticks / USER_HZ)
            }),
        }
    }
}

/// The fields of `/proc/<pid>/stat`, numbered from 0 as proc(5) numbers them
/// from 1; the command name (field 2, in parentheses, which may hold spaces and
/// parentheses itself) is skipped up to its last `)`.
fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    let (head, rest) = stat.rsplit_once(')')?;
    let pid = head.split_whitespace().next()?;
    let mut fields = vec![pid, "(comm)"];
    fields.extend(rest.split_whitespace());
    Some(fields)
}

/// `VmRSS:     1234 kB` → 1234.
fn status_kib(status: &str, key: &str) -> Option<f64> {
    let line = status.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

/// `btime 1700000000` of `/proc/stat`: boot time, Unix seconds.
fn boot_time(stat: &str) -> Option<f64> {
    let line = stat.lines().find(|l| l.starts_with("btime "))?;
    line["btime ".len()..].trim().parse().ok()
}

/// The soft limit of `Max open files` in `/proc/<pid>/limits`.
fn max_open_files(limits: &str) -> Option<f64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line["Max open files".len()..].split_whitespace().next()?;
    match soft {
        "unlimited" => Some(f64::INFINITY),
        n => n.parse().ok(),
    }
}

/// The `process_*` families, read at scrape time.
#[derive(Debug, Default)]
pub(crate) struct ProcessCollector;

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let sample = Sample::read();
        if let Some(seconds) = sample.cpu_seconds {
            let metric =
                encoder.encode_descriptor(CPU.name, CPU.help, None, MetricType::Counter)?;
            ConstCounter::new(seconds).encode(metric)?;
        }
        for (doc, value) in [
            (&RESIDENT, sample.resident_bytes),
            (&VIRTUAL, sample.virtual_bytes),
            (&OPEN_FDS, sample.open_fds),
            (&MAX_FDS, sample.max_fds),
            (&START_TIME, sample.start_time_seconds),
        ] {
            if let Some(value) = value {
                let metric =
                    encoder.encode_descriptor(doc.name, doc.help, None, MetricType::Gauge)?;
                ConstGauge::new(value).encode(metric)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_parsed_as_proc5_lays_them_out() {
        // A command name with a space and a parenthesis, as the kernel prints it.
        let stat = "4242 (kube (lifecycle) S 1 4242 4242 0 -1 4194560 2211 0 0 0 250 130 0 0 20 0 9 0 123456 98304000 5000 18446744073709551615";
        let fields = stat_fields(stat).unwrap();
        assert_eq!(fields[0], "4242");
        assert_eq!(fields[2], "S");
        assert_eq!((fields[13], fields[14]), ("250", "130"));
        assert_eq!(fields[21], "123456");
        assert_eq!(
            status_kib(
                "Name:\tx\nVmSize:\t  95984 kB\nVmRSS:\t   4884 kB\n",
                "VmRSS:"
            ),
            Some(4884.0)
        );
        assert_eq!(
            boot_time("cpu  1 2 3\nbtime 1700000000\nprocesses 9\n"),
            Some(1_700_000_000.0)
        );
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1048576              1048576              files     \n";
        assert_eq!(max_open_files(limits), Some(1_048_576.0));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_is_measured() {
        let before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let s = Sample::read();
        assert!(s.cpu_seconds.unwrap() >= 0.0);
        assert!(s.resident_bytes.unwrap() > 1024.0 * 1024.0);
        assert!(s.virtual_bytes.unwrap() >= s.resident_bytes.unwrap());
        assert!(s.open_fds.unwrap() >= 3.0);
        assert!(s.max_fds.unwrap() >= s.open_fds.unwrap());
        let started = s.start_time_seconds.unwrap();
        // Started before now, and not before the test binary could have (1 tick slack).
        assert!(
            started <= before + 0.01 && started > before - 3600.0,
            "{started} vs {before}"
        );
    }

    /// The exposition has every documented family under its documented name and
    /// help text, and the document lists exactly these.
    #[cfg(target_os = "linux")]
    #[test]
    fn exposed_names_and_help_are_the_documented_ones() {
        let mut registry = prometheus_client::registry::Registry::default();
        registry.register_collector(Box::new(ProcessCollector));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for doc in CATALOGUE {
            let exposed = if doc.kind == "counter" {
                format!("{}_total", doc.name)
            } else {
                doc.name.to_string()
            };
            assert!(
                text.contains(&format!("# HELP {} {}\n", doc.name, doc.help)),
                "{text}"
            );
            assert!(
                text.contains(&format!("# TYPE {} {}\n", doc.name, doc.kind)),
                "{text}"
            );
            assert!(
                text.lines().any(|l| l.starts_with(&format!("{exposed} "))),
                "{exposed}: {text}"
            );
        }
        assert_eq!(text.matches("# TYPE ").count(), CATALOGUE.len());
        crate::doc_blocks::check(
            "docs/metrics.md",
            "process",
            &super::super::telemetry::markdown_of(CATALOGUE),
        );
    }
}
