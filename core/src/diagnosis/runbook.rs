//! Which alert, and so which runbook, a finding belongs to.
//!
//! Every alert of `alerts/kube-lifecycle.rules.yaml` is one [`Runbook`]; its runbook
//! lives in `docs/runbooks/<Alert>.md`, and a published copy is addressed as
//! `<base>/<alert in lower case>`, as kube-prometheus addresses its runbooks. A test
//! checks that the rule file and the list of alerts (`runbooks!` in
//! `families/mod.rs`) name the same alerts.

use super::Cause;
pub use super::families::Runbook;

/// The alerts, declared in `families/mod.rs` beside the anomalies whose
/// default alerts they are: each variant's alert name and [`Scope`].
macro_rules! runbooks {
    ($($variant:ident => $alert:literal: $scope:ident,)+) => {
        /// Alert names; each has exactly one runbook.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Runbook {
            $($variant,)+
        }

        impl Runbook {
            pub const ALL: &'static [Runbook] = &[$(Runbook::$variant,)+];

            /// The alert name, which is also the runbook's file name.
            pub fn alert(self) -> &'static str {
                match self {
                    $(Runbook::$variant => $alert,)+
                }
            }

            /// What one of its alerts is about, and so what stands for what:
            /// an alert about a node or the cluster speaks for the pods it
            /// counts, a workload's for its pods.
            pub fn scope(self) -> $crate::diagnosis::Scope {
                match self {
                    $(Runbook::$variant => $crate::diagnosis::Scope::$scope,)+
                }
            }

            /// The runbook's Markdown, embedded so the exporter serves it under
            /// `/runbooks/<alert in lower case>`.
            pub fn markdown(self) -> &'static str {
                match self {
                    $(Runbook::$variant => include_str!(concat!(
                        env!("CARGO_MANIFEST_DIR"), "/../docs/runbooks/", $alert, ".md"
                    )),)+
                }
            }
        }
    };
}

pub(crate) use runbooks;

/// What one alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// One pod or one of its containers (`pod`, `owner_kind`, `owner_name`).
    Pod,
    /// One controller and its pods.
    Workload,
    /// One namespace.
    Namespace,
    /// One node and the pods on it.
    Node,
    /// One image registry and the pulls from it.
    Registry,
    /// One PersistentVolumeClaim (`persistentvolumeclaim`).
    Claim,
    /// The whole cluster (a scheduler, an admission webhook, the network plugin everywhere).
    Cluster,
    /// The exporter itself.
    Exporter,
    /// The objects a root cause explains, each on its own: the alert that
    /// never notifies and folds other alerts about them.
    Victims,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Pod => "pod",
            Scope::Workload => "workload",
            Scope::Namespace => "namespace",
            Scope::Node => "node",
            Scope::Registry => "registry",
            Scope::Claim => "claim",
            Scope::Cluster => "cluster",
            Scope::Exporter => "exporter",
            Scope::Victims => "victims",
        }
    }
}

impl Runbook {
    /// The runbook's path in this repository.
    pub fn path(self) -> String {
        format!("docs/runbooks/{}.md", self.alert())
    }

    /// The alert name in lower case: the last segment of the runbook's address.
    pub fn slug(self) -> String {
        self.alert().to_lowercase()
    }

    /// The runbook's address under a published base URL.
    pub fn url(self, base: &str) -> String {
        format!("{}/{}", base.trim_end_matches('/'), self.slug())
    }

    /// The runbook whose address ends in `slug` (case-insensitive).
    pub fn from_slug(slug: &str) -> Option<Runbook> {
        Runbook::ALL
            .iter()
            .copied()
            .find(|r| r.alert().eq_ignore_ascii_case(slug))
    }

    /// The alert a finding with this cause raises (after its `for:`), which is also
    /// where its runbook is: declared with the cause's vocabulary.
    pub fn for_cause(cause: Cause) -> Runbook {
        cause.runbook()
    }
}

impl Runbook {
    /// The causes an alert that counts objects counts, by their tags: a lost
    /// node's pods, a registry's own failures, a sandbox's.
    fn counted_tags(self) -> &'static [&'static str] {
        match self {
            Runbook::NodeLost => &["node_lost"],
            Runbook::RegistryPullFailing => &["registry_transport", "registry_content"],
            Runbook::PodSandboxFailing => &["sandbox"],
            // A webhook's refusals page once, and each workload it refuses
            // keeps its own (inhibited) ticket, which silences the
            // kubernetes-mixin's alerts for that workload.
            Runbook::PodCreateRefused => &["webhook"],
            _ => &[],
        }
    }

    /// Every cause whose findings this alert speaks for: the causes whose
    /// runbook it is, and for the alerts that count objects (a lost node, a
    /// failing registry) the causes their rule counts. The one map from an
    /// alert to its evidence; empty for the exporter's own.
    pub fn covers(self) -> Vec<Cause> {
        let counted = self.counted_tags();
        Cause::all()
            .filter(|c| c.runbook() == self || c.tags().iter().any(|t| counted.contains(t)))
            .collect()
    }

    /// The causes the alert fires on: those it covers but the quiet ones
    /// (a pod within its grace period, a pod gated on purpose).
    pub fn fires_on(self) -> Vec<Cause> {
        self.covers().into_iter().filter(|c| c.alerted()).collect()
    }
}

impl std::fmt::Display for Runbook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.alert())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::{ImagePullCause, TerminatingCause};

    #[test]
    fn slugs_round_trip_and_are_unique() {
        for &r in Runbook::ALL {
            assert_eq!(Runbook::from_slug(&r.slug()), Some(r));
            assert_eq!(Runbook::from_slug(r.alert()), Some(r));
        }
        assert_eq!(Runbook::from_slug("nope"), None);
    }

    #[test]
    fn every_cause_is_covered_by_the_alert_it_raises_and_aggregates_add_theirs() {
        for cause in Cause::all() {
            assert!(cause.runbook().covers().contains(&cause), "{cause:?}");
        }
        let lost = Runbook::NodeLost.covers();
        assert!(lost.contains(&Cause::PodTerminating(TerminatingCause::NodeMissing)));
        assert!(!lost.contains(&Cause::PodTerminating(TerminatingCause::Finalizers)));
        assert!(
            Runbook::RegistryPullFailing
                .covers()
                .contains(&Cause::ImagePull(ImagePullCause::Dns))
        );
        assert!(
            !Runbook::RegistryPullFailing
                .covers()
                .contains(&Cause::ImagePull(ImagePullCause::NoSpace))
        );
        assert!(Runbook::ExporterDown.covers().is_empty());
    }
}
