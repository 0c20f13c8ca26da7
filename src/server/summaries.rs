//! The landing page's summaries, written once per set of findings and
//! filter: viewers reloading the page during an incident read them rather
//! than each recounting every finding.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::diagnosis::{Finding, RootCauses};
use crate::output::{FindingFilter, html};

/// How many filters' summaries of one set of findings are kept.
const FILTERS_KEPT: usize = 16;

/// The summaries of the latest findings a page showed.
#[derive(Default)]
pub(crate) struct Summaries(Mutex<Held>);

/// Findings and the root causes found of them.
type Explained = (Arc<Vec<Arc<Finding>>>, Arc<RootCauses>);

#[derive(Default)]
struct Held {
    /// The findings summarised and their root causes (held, so that another
    /// set is told apart by address).
    of: Option<Explained>,
    /// Oldest first.
    by_filter: Vec<(FindingFilter, Arc<str>)>,
}

impl Summaries {
    /// The summary of `chosen`, the findings of `all` that `filter` chooses:
    /// kept from an earlier view of the same findings, or written now (one
    /// writer at a time: viewers arriving together wait for the first).
    pub(crate) fn of(
        &self,
        all: &Arc<Vec<Arc<Finding>>>,
        roots: &Arc<RootCauses>,
        filter: &FindingFilter,
        chosen: &[Arc<Finding>],
    ) -> Arc<str> {
        let mut held = self.0.lock();
        if !held
            .of
            .as_ref()
            .is_some_and(|(of, by)| Arc::ptr_eq(of, all) && Arc::ptr_eq(by, roots))
        {
            held.of = Some((all.clone(), roots.clone()));
            held.by_filter.clear();
        }
        if let Some((_, summary)) = held.by_filter.iter().find(|(f, _)| f == filter) {
            return summary.clone();
        }
        let summary: Arc<str> = html::summary(chosen, filter, roots).into();
        if held.by_filter.len() == FILTERS_KEPT {
            held.by_filter.remove(0);
        }
        held.by_filter.push((filter.clone(), summary.clone()));
        summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::tests::finding;

    /// Terminating pods `names` (the output tests' finding).
    fn findings(names: &[&str]) -> Arc<Vec<Arc<Finding>>> {
        Arc::new(names.iter().map(|n| Arc::new(finding(n, "m"))).collect())
    }

    /// One set of findings and filter is summarised once; another set, or
    /// another filter, is summarised again, as if summarised the first time.
    #[test]
    fn a_summary_is_written_once_per_findings_and_filter() {
        let summaries = Summaries::default();
        let all = findings(&["a", "b"]);
        let roots = Arc::new(RootCauses::default());
        let none = FindingFilter::default();
        let first = summaries.of(&all, &roots, &none, &all);
        assert_eq!(*first, *html::summary(&all, &none, &roots));
        assert!(Arc::ptr_eq(
            &first,
            &summaries.of(&all, &roots, &none, &all)
        ));

        let filter = FindingFilter {
            namespace: Some("elsewhere".into()),
            ..Default::default()
        };
        let filtered = summaries.of(&all, &roots, &filter, &[]);
        assert!(!Arc::ptr_eq(&first, &filtered));
        assert_eq!(
            *filtered,
            *html::summary::<Arc<Finding>>(&[], &filter, &roots)
        );

        let other = findings(&["a", "b", "c"]);
        let again = summaries.of(&other, &roots, &none, &other);
        assert!(!Arc::ptr_eq(&first, &again));
        assert_eq!(*again, *html::summary(&other, &none, &roots));
    }
}
