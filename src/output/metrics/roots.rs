//! The root causes' families, encoded: each root cause with when it began,
//! its victims counted by kind, and a series per victim named as
//! kube-state-metrics names the object (declared with the root causes,
//! [`crate::diagnosis::roots`]). Above the series ceiling a root's pods are
//! folded into one series per namespace: an inhibition that matches on the
//! namespace still holds for them.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use prometheus_client::encoding::EncodeMetric;
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;

use crate::diagnosis::roots::{ROOT_FAMILIES, RootFamily};
use crate::diagnosis::{RootCauses, VictimKind};

use super::findings::text_of;

/// The root families' texts, and the per-victim series folded by family.
type Encoded = (Vec<Arc<str>>, Vec<(&'static str, usize)>);

/// Each root family's text, and how many per-victim series were folded
/// (those of the families that fold, by name).
pub(super) fn encode(
    roots: &Arc<RootCauses>,
    ceiling: Option<usize>,
) -> Result<Encoded, fmt::Error> {
    let mut parts = Vec::new();
    let mut folds = Vec::new();
    for family in ROOT_FAMILIES {
        let series: usize = roots.roots.iter().map(|r| (family.samples)(r).len()).sum();
        let fold = family.folds && ceiling.is_some_and(|c| series > c);
        if family.folds {
            folds.push((family.name, if fold { series } else { 0 }));
        }
        parts.push(encode_family(family, roots.clone(), fold)?);
    }
    Ok((parts, folds))
}

fn encode_family(
    family: &'static RootFamily,
    roots: Arc<RootCauses>,
    fold: bool,
) -> Result<Arc<str>, fmt::Error> {
    text_of(move |encoder| {
        let mut metric =
            encoder.encode_descriptor(family.name, family.help, None, MetricType::Gauge)?;
        for root in &roots.roots {
            let mut folded: BTreeSet<Vec<String>> = BTreeSet::new();
            for sample in (family.samples)(root) {
                let mut values = sample.labels;
                if fold && values[0] == VictimKind::Pod.as_str() {
                    // The pod's own label goes; its namespace stays.
                    values[2].clear();
                    folded.insert(values);
                    continue;
                }
                write(&mut metric, family, &values, sample.value)?;
            }
            for values in &folded {
                write(&mut metric, family, values, 1.0)?;
            }
        }
        Ok(())
    })
}

/// One series, without the labels it does not carry (empty values).
fn write(
    metric: &mut prometheus_client::encoding::MetricEncoder<'_>,
    family: &RootFamily,
    values: &[String],
    value: f64,
) -> fmt::Result {
    let labels: Vec<(&str, &str)> = family
        .labels
        .iter()
        .zip(values)
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| (*k, v.as_str()))
        .collect();
    ConstGauge::new(value).encode(metric.encode_family(&labels)?)
}

#[cfg(test)]
mod tests {
    use crate::diagnosis::roots::VICTIM_LABELS;

    #[test]
    fn the_victim_labels_begin_with_its_kind_namespace_and_pod() {
        // What `encode_family` folds by.
        assert_eq!(&VICTIM_LABELS[..3], ["victim_kind", "namespace", "pod"]);
    }
}
