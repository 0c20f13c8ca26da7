//! The scoring every held-back set shares (real messages collected after the
//! classifiers were written): right and wrong answers per group, a report with
//! each miss, and the bar a set holds, so a change that loses ground fails
//! with the misses in front of it.

use std::collections::BTreeMap;
use std::fmt::Debug;

/// Right answers and described misses, per group (a family, or a family's cause).
#[derive(Default)]
pub(crate) struct Scores {
    groups: BTreeMap<String, Group>,
}

#[derive(Default)]
struct Group {
    right: usize,
    wrong: Vec<String>,
}

impl Scores {
    /// One answer: `source` names where the message was quoted from.
    pub(crate) fn record<T: PartialEq + Debug>(
        &mut self,
        group: impl Into<String>,
        source: &str,
        expected: T,
        got: T,
    ) {
        let entry = self.groups.entry(group.into()).or_default();
        if expected == got {
            entry.right += 1;
        } else {
            entry
                .wrong
                .push(format!("  {source}: expected {expected:?}, got {got:?}"));
        }
    }

    pub(crate) fn right(&self) -> usize {
        self.groups.values().map(|g| g.right).sum()
    }

    pub(crate) fn total(&self) -> usize {
        self.groups.values().map(|g| g.right + g.wrong.len()).sum()
    }

    /// How many groups had at least one answer.
    pub(crate) fn groups(&self) -> usize {
        self.groups.len()
    }

    /// The total, then each group's score with its misses.
    pub(crate) fn report(&self) -> String {
        let mut report = format!("held back: {}/{}\n", self.right(), self.total());
        for (name, group) in &self.groups {
            let total = group.right + group.wrong.len();
            report.push_str(&format!("{name}: {}/{total}\n", group.right));
            for line in &group.wrong {
                report.push_str(line);
                report.push('\n');
            }
        }
        report
    }

    /// Prints the report (visible with `--nocapture`) and fails, with it, when
    /// fewer than `right` answers are right.
    pub(crate) fn hold_at_least(&self, right: usize) {
        let report = self.report();
        println!("{report}");
        assert!(self.right() >= right, "{report}");
    }

    /// Prints the report and fails when under `total_percent` of all answers,
    /// or under `group_percent` of any group's, are right.
    pub(crate) fn hold_shares(&self, total_percent: usize, group_percent: usize) {
        let report = self.report();
        println!("{report}");
        let low: Vec<&str> = self
            .groups
            .iter()
            .filter(|(_, g)| g.right * 100 < (g.right + g.wrong.len()) * group_percent)
            .map(|(name, _)| name.as_str())
            .collect();
        assert!(
            self.right() * 100 >= self.total() * total_percent && low.is_empty(),
            "under {total_percent}% in all, or under {group_percent}% in {low:?}\n{report}"
        );
    }
}

#[test]
fn a_set_that_loses_ground_fails_with_its_misses() {
    let mut scores = Scores::default();
    scores.record("pull", "issue 1", 1, 1);
    scores.record("pull", "issue 2", 1, 2);
    assert_eq!((scores.right(), scores.total(), scores.groups()), (1, 2, 1));
    assert!(scores.report().contains("  issue 2: expected 1, got 2"));
    let lost = std::panic::catch_unwind(|| scores.hold_shares(97, 90));
    assert!(lost.is_err());
    scores.hold_at_least(1);
}
