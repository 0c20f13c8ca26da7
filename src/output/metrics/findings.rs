//! The families generated from findings, encoded. Each anomaly family declares
//! its metric families (name, help, identity, label keys, generator) beside its
//! diagnosis ([`crate::diagnosis::metric`]); this encodes them all, folds them
//! above the series ceiling, and adds the totals. The same
//! [`FindingsText`] serves the live `/metrics` and `diagnose --output metrics`.
//!
//! Series describe the current state and are produced at scrape time, so a
//! series disappears with its anomaly. Values are Unix timestamps ("since"),
//! counts or exit codes; never time-since, never raw messages as labels.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::text::encode_registry;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

use crate::diagnosis::metric::{
    FINDINGS_HELP, FINDINGS_METRIC, FOLDED_HELP, FOLDED_METRIC, Fold, MetricFamily, Sample,
    metric_families,
};
use crate::diagnosis::{Anomaly, Cause, Finding, RootCauses, same_findings};

/// The label keys a folded series keeps: `namespace` and the family's own.
fn folded_label_names(family: &MetricFamily) -> impl Iterator<Item = &'static str> {
    std::iter::once("namespace").chain(family.labels.iter().copied())
}

/// Where the exposition gets the findings of the moment, and their root causes.
pub(crate) trait FindingsSource: Send + Sync + 'static {
    fn current(&self) -> (Arc<Vec<Arc<Finding>>>, Arc<RootCauses>);
}

/// The findings' families as text, each family's kept for as long as its
/// findings are the very same ones: a judgement that changes a few findings
/// costs the encoding of their families, not of all of them.
pub(crate) struct FindingsText {
    /// Per-pod series a family may have before they are folded (`None`: no limit).
    ceiling: Option<usize>,
    /// The families folded at the last encoding, so that going over and
    /// coming back under are each logged once.
    folded: Mutex<BTreeSet<&'static str>>,
    /// Each metric family's last text, in [`metric_families`]'s order.
    families: Mutex<Vec<Option<FamilyText>>>,
    /// The root causes' families' last text, and what they were encoded of.
    roots: Mutex<Option<RootsText>>,
    /// The parts last handed out, in order.
    last: Mutex<Vec<Arc<str>>>,
}

/// The root causes' families as text.
struct RootsText {
    of: Arc<RootCauses>,
    parts: Vec<Arc<str>>,
    folds: super::roots::Folds,
}

/// One family's text and what it was encoded from.
struct FamilyText {
    /// Its findings, held so that their addresses name them until the text goes.
    findings: Vec<Arc<Finding>>,
    text: Arc<str>,
    /// Per-pod series folded (0 when none); `None` for a family that never folds.
    folded: Option<usize>,
}

impl FindingsText {
    /// Folds a family's per-pod series above `ceiling` (0: never).
    pub(crate) fn new(ceiling: usize) -> Self {
        FindingsText {
            ceiling: (ceiling > 0).then_some(ceiling),
            folded: Default::default(),
            families: Mutex::new(metric_families().map(|_| None).collect()),
            roots: Mutex::new(None),
            last: Mutex::default(),
        }
    }

    /// The families' text for `findings` and their root causes, in parts to
    /// be written in order (the totals, each family, the root causes', the
    /// folded counts), without `# EOF`.
    pub(crate) fn encode(
        &self,
        findings: &[Arc<Finding>],
        roots: &Arc<RootCauses>,
    ) -> Result<Vec<Arc<str>>, fmt::Error> {
        let mut parts = vec![encode_totals(findings)?];
        let by_anomaly = by_anomaly(findings);
        let mut folds = Vec::new();
        let mut kept = self.families.lock();
        for (family, kept) in metric_families().zip(kept.iter_mut()) {
            let of_family = of_family(family, findings, &by_anomaly);
            let unchanged = kept
                .as_ref()
                .is_some_and(|k| same_findings(k.findings.iter(), of_family.iter().copied()));
            if !unchanged {
                let findings: Vec<Arc<Finding>> = of_family.into_iter().cloned().collect();
                let (text, folded) = encode_family(family, &findings, self.ceiling)?;
                *kept = Some(FamilyText {
                    findings,
                    text,
                    folded,
                });
            }
            if let Some(kept) = kept {
                parts.push(kept.text.clone());
                folds.extend(kept.folded.map(|series| (family.name, series)));
            }
        }
        drop(kept);
        let mut kept_roots = self.roots.lock();
        if !kept_roots
            .as_ref()
            .is_some_and(|k| Arc::ptr_eq(&k.of, roots))
        {
            let (parts, folds) = super::roots::encode(roots, self.ceiling)?;
            *kept_roots = Some(RootsText {
                of: roots.clone(),
                parts,
                folds,
            });
        }
        if let Some(kept) = &*kept_roots {
            parts.extend(kept.parts.iter().cloned());
            folds.extend(kept.folds.iter().copied());
        }
        drop(kept_roots);
        parts.push(encode_folded(&folds)?);
        self.note_folds(&folds);
        Ok(self.same_as_last(parts))
    }

    /// `parts`, each one that reads as the part last handed out at its place
    /// being that very part: the root causes found again alike, the totals
    /// and folds of other findings that count alike. What is kept beside a
    /// part (its classic form, its compressed form) is then kept too.
    fn same_as_last(&self, mut parts: Vec<Arc<str>>) -> Vec<Arc<str>> {
        let mut last = self.last.lock();
        for (part, before) in parts.iter_mut().zip(last.iter()) {
            if !Arc::ptr_eq(part, before) && **part == **before {
                *part = before.clone();
            }
        }
        last.clone_from(&parts);
        parts
    }

    fn note_folds(&self, folds: &[(&'static str, usize)]) {
        let mut held = self.folded.lock();
        for &(family, series) in folds {
            let over = series > 0;
            if over && held.insert(family) {
                tracing::warn!(
                    family,
                    series,
                    ceiling = self.ceiling.unwrap_or_default(),
                    "too many series: folding this family's per-pod series into aggregates (by namespace, node and cause, or by node and cause); /findings and the page still list every object"
                );
            } else if !over && held.remove(family) {
                tracing::info!(
                    family,
                    "back under the series ceiling: per-pod series again"
                );
            }
        }
    }
}

impl fmt::Debug for FindingsText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FindingsText")
    }
}

/// What `encode` writes through prometheus-client's encoder, as text: a
/// registry of one collector that encodes once.
pub(super) fn text_of(
    encode: impl FnOnce(&mut DescriptorEncoder) -> fmt::Result + Send + 'static,
) -> Result<Arc<str>, fmt::Error> {
    struct Once<F>(Mutex<Option<F>>);
    impl<F> fmt::Debug for Once<F> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("Once")
        }
    }
    impl<F> Collector for Once<F>
    where
        F: FnOnce(&mut DescriptorEncoder) -> fmt::Result + Send + 'static,
    {
        fn encode(&self, mut encoder: DescriptorEncoder) -> fmt::Result {
            match self.0.lock().take() {
                Some(encode) => encode(&mut encoder),
                None => Ok(()),
            }
        }
    }
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Once(Mutex::new(Some(encode)))));
    let mut text = String::new();
    encode_registry(&mut text, &registry)?;
    Ok(text.into())
}

/// Totals: every (anomaly, cause) pair, so dashboards see zeros rather than gaps.
fn encode_totals(findings: &[Arc<Finding>]) -> Result<Arc<str>, fmt::Error> {
    let mut counts: BTreeMap<(Anomaly, &'static str), usize> = BTreeMap::new();
    for f in findings {
        *counts.entry((f.anomaly(), f.cause.as_str())).or_default() += 1;
    }
    text_of(move |encoder| {
        let mut metric =
            encoder.encode_descriptor(FINDINGS_METRIC, FINDINGS_HELP, None, MetricType::Gauge)?;
        for anomaly in Anomaly::ALL {
            for (cause, _) in Cause::vocabulary(*anomaly) {
                let count = counts.get(&(*anomaly, cause)).copied().unwrap_or_default();
                let labels = [("anomaly", anomaly.as_str()), ("cause", cause)];
                ConstGauge::new(count as i64).encode(metric.encode_family(&labels)?)?;
            }
        }
        Ok(())
    })
}

/// How many per-pod series each foldable family folded (0: none).
fn encode_folded(folds: &[(&'static str, usize)]) -> Result<Arc<str>, fmt::Error> {
    let folds = folds.to_vec();
    text_of(move |encoder| {
        let mut metric =
            encoder.encode_descriptor(FOLDED_METRIC, FOLDED_HELP, None, MetricType::Gauge)?;
        for (family, series) in &folds {
            ConstGauge::new(*series as i64)
                .encode(metric.encode_family(&[("family", *family)])?)?;
        }
        Ok(())
    })
}

/// The positions in `findings` of each anomaly's findings, in order: a
/// family reads its anomalies' and no other (a pass per family over every
/// finding was most of a storm's encoding).
fn by_anomaly(findings: &[Arc<Finding>]) -> Vec<Vec<usize>> {
    let mut positions = vec![Vec::new(); Anomaly::ALL.len()];
    for (i, f) in findings.iter().enumerate() {
        positions[f.anomaly() as usize].push(i);
    }
    positions
}

/// The findings of `family`'s anomalies, in the order given.
fn of_family<'a>(
    family: &MetricFamily,
    findings: &'a [Arc<Finding>],
    by_anomaly: &[Vec<usize>],
) -> Vec<&'a Arc<Finding>> {
    let mut positions: Vec<usize> = family
        .anomalies
        .iter()
        .flat_map(|a| &by_anomaly[*a as usize])
        .copied()
        .collect();
    if family.anomalies.len() > 1 {
        positions.sort_unstable();
    }
    positions.into_iter().map(|i| &findings[i]).collect()
}

/// One family's text from its findings, and how many per-pod series it
/// folded (`None` for a family that never folds).
fn encode_family(
    family: &'static MetricFamily,
    findings: &[Arc<Finding>],
    ceiling: Option<usize>,
) -> Result<(Arc<str>, Option<usize>), fmt::Error> {
    // Each finding's samples, generated once for counting, folding or
    // encoding them.
    let samples: Vec<(Arc<Finding>, Vec<Sample>)> = findings
        .iter()
        .map(|f| (f.clone(), (family.samples)(f)))
        .collect();
    let mut folded = None;
    if family.fold != Fold::Never {
        let series: usize = match ceiling {
            Some(_) => samples.iter().map(|(_, s)| s.len()).sum(),
            None => 0,
        };
        let over = ceiling.is_some_and(|ceiling| series > ceiling);
        folded = Some(if over { series } else { 0 });
    }
    let text = text_of(move |encoder| {
        let mut metric =
            encoder.encode_descriptor(family.name, family.help, None, MetricType::Gauge)?;
        if let (Some(ceiling), Some(1..)) = (ceiling, folded) {
            let mut folded = fold(family, &samples, true);
            // Pods of a namespace spread over many nodes: when folding by
            // namespace still leaves more series than the ceiling, the
            // namespace goes too (series by node, registry, cause).
            if folded.len() > ceiling {
                folded = fold(family, &samples, false);
            }
            for (labels, value) in folded {
                let labels: Vec<(&str, &str)> = folded_label_names(family).zip(labels).collect();
                ConstGauge::new(value).encode(metric.encode_family(&labels)?)?;
            }
            return Ok(());
        }
        // Label pairs to the summed value, for an aggregate family.
        let mut sums: BTreeMap<Vec<(&'static str, String)>, f64> = BTreeMap::new();
        for (finding, samples) in &samples {
            let identity = family.identity.values(finding);
            for sample in samples {
                let values = identity.iter().chain(&sample.labels);
                if family.aggregate {
                    let key = family.label_names(finding).zip(values.cloned()).collect();
                    *sums.entry(key).or_default() += sample.value;
                    continue;
                }
                let labels: Vec<(&str, &str)> = family
                    .label_names(finding)
                    .zip(values.map(String::as_str))
                    .collect();
                ConstGauge::new(sample.value).encode(metric.encode_family(&labels)?)?;
            }
        }
        for (labels, value) in &sums {
            let labels: Vec<(&str, &str)> = labels.iter().map(|(k, v)| (*k, v.as_str())).collect();
            ConstGauge::new(*value).encode(metric.encode_family(&labels)?)?;
        }
        Ok(())
    })?;
    Ok((text, folded))
}

/// A family's samples folded by the family's own labels, and by namespace
/// when `by_namespace` (else the namespace is empty: the label is absent).
fn fold<'a>(
    family: &MetricFamily,
    samples: &'a [(Arc<Finding>, Vec<Sample>)],
    by_namespace: bool,
) -> BTreeMap<Vec<&'a str>, f64> {
    // Counted in a hash table, ordered once: a storm folds 80,000 findings;
    // the keys borrow the samples' labels.
    let mut folded: foldhash::HashMap<Vec<&str>, f64> = Default::default();
    for (finding, samples) in samples {
        let namespace = match (by_namespace, &finding.namespace) {
            (true, Some(namespace)) => namespace.as_str(),
            _ => "",
        };
        for sample in samples {
            let key: Vec<&str> = std::iter::once(namespace)
                .chain(sample.labels.iter().map(String::as_str))
                .collect();
            folded
                .entry(key)
                .and_modify(|held| *held = family.fold.combine(*held, sample.value))
                .or_insert(sample.value);
        }
    }
    folded.into_iter().collect()
}

/// The OpenMetrics text a set of findings and their root causes produce.
pub fn render(findings: &[Arc<Finding>], roots: RootCauses) -> String {
    // Writing into a String cannot fail.
    let parts = FindingsText::new(0)
        .encode(findings, &Arc::new(roots))
        .unwrap_or_default();
    let mut out: String = parts.iter().map(|part| &**part).collect();
    out.push_str("# EOF\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::Detail;
    use crate::diagnosis::metric::Identity;
    use crate::model::{Kind, Time};

    fn terminating(namespace: &str, pod: &str, node: &str, since: i64) -> Finding {
        use crate::diagnosis::TerminatingCause;
        let at = Time::from_second(since).unwrap();
        Finding {
            kind: Kind::Pod,
            namespace: Some(namespace.into()),
            name: pod.into(),
            container: None,
            container_kind: None,
            owner: None,
            node: Some(node.into()),
            cause: Cause::PodTerminating(TerminatingCause::NodeNotReady),
            since: Some(at),
            message: Default::default(),
            detail: Detail::Terminating {
                requested: at,
                deadline: at,
            },
        }
    }

    fn scrape(findings: Vec<Finding>, ceiling: usize) -> String {
        let findings: Vec<Arc<Finding>> = findings.into_iter().map(Arc::new).collect();
        let parts = FindingsText::new(ceiling)
            .encode(&findings, &Arc::default())
            .unwrap();
        parts.iter().map(|part| &**part).collect()
    }

    fn lines<'a>(text: &'a str, family: &str) -> Vec<&'a str> {
        text.lines()
            .filter(|l| l.starts_with(&format!("{family}{{")))
            .collect()
    }

    #[test]
    fn above_the_ceiling_pod_series_fold_by_namespace_and_keep_node_and_cause() {
        let findings = vec![
            terminating("shop", "web-1", "worker-1", 2_000),
            terminating("shop", "web-2", "worker-1", 1_000),
            terminating("shop", "web-3", "worker-2", 3_000),
            terminating("blog", "app-1", "worker-1", 4_000),
        ];
        let since = "kube_lifecycle_pod_terminating_since_timestamp_seconds";

        let whole = scrape(findings.clone(), 4);
        assert_eq!(lines(&whole, since).len(), 4, "{whole}");
        assert!(whole.contains(&format!("{FOLDED_METRIC}{{family=\"{since}\"}} 0")));

        let folded = scrape(findings.clone(), 3);
        let mut got = lines(&folded, since);
        got.sort();
        assert_eq!(
            got,
            [
                format!(
                    "{since}{{namespace=\"blog\",node=\"worker-1\",cause=\"node_not_ready\"}} 4000.0"
                ),
                format!(
                    "{since}{{namespace=\"shop\",node=\"worker-1\",cause=\"node_not_ready\"}} 1000.0"
                ),
                format!(
                    "{since}{{namespace=\"shop\",node=\"worker-2\",cause=\"node_not_ready\"}} 3000.0"
                ),
            ],
            "the earliest since per namespace, node and cause; no pod label"
        );
        assert!(folded.contains(&format!("{FOLDED_METRIC}{{family=\"{since}\"}} 4")));
        // The totals never fold.
        assert!(folded.contains(
            "kube_lifecycle_findings{anomaly=\"pod_terminating\",cause=\"node_not_ready\"} 4"
        ));
        // 0 is no ceiling.
        assert_eq!(lines(&scrape(findings, 0), since).len(), 4);
    }

    #[test]
    fn when_namespaces_do_not_fold_enough_the_namespace_goes_too() {
        // A lost node's pods come from many namespaces: by namespace and node
        // there are as many series as pods.
        let findings: Vec<Finding> = (0..6)
            .map(|i| {
                terminating(
                    &format!("ns-{i}"),
                    "web",
                    &format!("worker-{}", i % 2),
                    1_000 + i,
                )
            })
            .collect();
        let since = "kube_lifecycle_pod_terminating_since_timestamp_seconds";
        let folded = scrape(findings, 3);
        let mut got = lines(&folded, since);
        got.sort();
        assert_eq!(
            got,
            [
                format!(
                    "{since}{{namespace=\"\",node=\"worker-0\",cause=\"node_not_ready\"}} 1000.0"
                ),
                format!(
                    "{since}{{namespace=\"\",node=\"worker-1\",cause=\"node_not_ready\"}} 1001.0"
                ),
            ],
            "{folded}"
        );
        assert!(folded.contains(&format!("{FOLDED_METRIC}{{family=\"{since}\"}} 6")));
    }

    #[test]
    fn every_per_pod_family_can_fold() {
        for family in metric_families() {
            let per_pod = matches!(family.identity, Identity::Pod | Identity::Container);
            assert_eq!(
                per_pod,
                family.fold != Fold::Never,
                "{}: per-pod families fold above the ceiling, others never",
                family.name
            );
        }
    }

    #[test]
    fn names_follow_prometheus_conventions() {
        let mut names: Vec<&str> = metric_families().map(|f| f.name).collect();
        names.push(FINDINGS_METRIC);
        for name in &names {
            assert!(name.starts_with("kube_lifecycle_"), "{name}");
            assert!(
                !name.ends_with("_total"),
                "{name}: gauges never end in _total"
            );
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{name}"
            );
        }
        let unique: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        for f in metric_families() {
            if f.name.contains("timestamp") {
                assert!(f.name.ends_with("_timestamp_seconds"), "{}", f.name);
            }
            for kind in [Kind::Pod, Kind::Deployment, Kind::StatefulSet] {
                assert!(
                    !f.identity
                        .labels(kind)
                        .iter()
                        .chain(f.labels)
                        .any(|l| *l == "message"),
                    "{}: no raw messages as labels",
                    f.name
                );
            }
        }
    }

    /// A family whose findings are the very same ones keeps its text; one
    /// whose findings changed is encoded again; and the whole reads as a
    /// fresh encoding of the new findings.
    #[test]
    fn only_families_whose_findings_changed_are_encoded_again() {
        let crash = |name: &str| {
            let mut f = terminating("shop", name, "worker-1", 1_000);
            f.cause = Cause::CrashLoop(crate::diagnosis::CrashLoopCause::OomKilled);
            f.detail = Detail::CrashLoop {
                exit_code: Some(137),
                restarts: 4,
                probe_failure: None,
            };
            f.container = Some("app".into());
            Arc::new(f)
        };
        let stuck = Arc::new(terminating("shop", "web-1", "worker-1", 2_000));
        let encoder = FindingsText::new(0);
        let roots = Arc::default();
        let before = encoder
            .encode(&[stuck.clone(), crash("api-1")], &roots)
            .unwrap();
        let after_findings = [stuck.clone(), crash("api-2")];
        let after = encoder.encode(&after_findings, &roots).unwrap();
        let fresh = FindingsText::new(0)
            .encode(&after_findings, &roots)
            .unwrap();
        let text = |parts: &[Arc<str>]| parts.iter().map(|p| &**p).collect::<String>();
        assert_eq!(text(&after), text(&fresh));
        assert_ne!(text(&before), text(&after));
        let part = |parts: &[Arc<str>], name: &str| {
            parts
                .iter()
                .find(|p| p.contains(&format!("# TYPE {name} ")))
                .cloned()
                .unwrap()
        };
        let since = "kube_lifecycle_pod_terminating_since_timestamp_seconds";
        assert!(Arc::ptr_eq(&part(&before, since), &part(&after, since)));
        let restarts = metric_families()
            .find(|f| f.anomalies.contains(&Anomaly::CrashLoop))
            .unwrap()
            .name;
        assert!(!Arc::ptr_eq(
            &part(&before, restarts),
            &part(&after, restarts)
        ));
        assert!(part(&after, restarts).contains("api-2"));
        // Root causes found again alike, and totals that count alike, hand
        // out the parts they did: every part that reads as before is the
        // part it was.
        let again = encoder
            .encode(&[stuck.clone(), crash("api-3")], &Arc::default())
            .unwrap();
        let mut alike = 0;
        for (a, b) in after.iter().zip(&again) {
            if a == b {
                assert!(Arc::ptr_eq(a, b), "{a}");
                alike += 1;
            }
        }
        assert!(alike >= 3, "the totals, the root causes' and the folds'");
        assert!(Arc::ptr_eq(&after[0], &again[0]));
        assert!(!Arc::ptr_eq(
            &part(&after, restarts),
            &part(&again, restarts)
        ));
    }
}
