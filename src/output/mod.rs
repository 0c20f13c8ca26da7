//! Outputs format findings; they never decide anything: the metrics, the JSON,
//! the terminal table and the HTML pages.

pub(crate) mod html;
pub mod json;
pub mod metrics;
pub mod table;
pub mod terminal;

use crate::diagnosis::{Finding, Runbook};

/// Where runbook links point.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RunbookLinks {
    /// `docs/runbooks/<Alert>.md`, the copy in this repository.
    #[default]
    RepositoryPaths,
    /// `<base>/<alert in lower case>`, a published copy.
    BaseUrl(String),
}

impl RunbookLinks {
    pub(crate) fn from_base_url(base: Option<&str>) -> Self {
        match base {
            Some(base) if !base.trim().is_empty() => RunbookLinks::BaseUrl(base.trim().to_string()),
            _ => RunbookLinks::RepositoryPaths,
        }
    }

    pub(crate) fn link(&self, runbook: Runbook) -> String {
        match self {
            RunbookLinks::RepositoryPaths => runbook.path(),
            RunbookLinks::BaseUrl(base) => runbook.url(base),
        }
    }
}

/// Which findings a page or `/findings` shows: the query
/// `?anomaly=&cause=&namespace=&node=`, each matched exactly when given, as the
/// dashboards' links set them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct FindingFilter {
    pub anomaly: Option<String>,
    pub cause: Option<String>,
    pub namespace: Option<String>,
    pub node: Option<String>,
}

impl FindingFilter {
    pub fn matches(&self, f: &Finding) -> bool {
        let is = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        is(&self.anomaly, f.anomaly().as_str())
            && is(&self.cause, f.cause.as_str())
            && is(&self.namespace, f.namespace.as_deref().unwrap_or_default())
            && is(&self.node, f.node.as_deref().unwrap_or_default())
    }

    /// Nothing filtered.
    pub fn is_empty(&self) -> bool {
        self == &FindingFilter::default()
    }

    /// `anomaly=x, namespace=y`: what is filtered, in the query's own words.
    pub fn describe(&self) -> String {
        [
            ("anomaly", &self.anomaly),
            ("cause", &self.cause),
            ("namespace", &self.namespace),
            ("node", &self.node),
        ]
        .iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::{Cause, Detail, TerminatingCause};
    use crate::model::Kind;

    #[test]
    fn a_filter_matches_every_given_field_exactly() {
        let finding = Finding {
            kind: Kind::Pod,
            namespace: Some("shop".into()),
            name: "web-1".into(),
            container: None,
            node: Some("worker-3".into()),
            cause: Cause::PodTerminating(TerminatingCause::Finalizers),
            since: None,
            message: String::new(),
            detail: Detail::None,
        };
        let filter =
            |a: Option<&str>, c: Option<&str>, n: Option<&str>, node: Option<&str>| FindingFilter {
                anomaly: a.map(String::from),
                cause: c.map(String::from),
                namespace: n.map(String::from),
                node: node.map(String::from),
            };
        assert!(FindingFilter::default().matches(&finding));
        assert!(
            filter(
                Some("pod_terminating"),
                Some("finalizers"),
                Some("shop"),
                Some("worker-3")
            )
            .matches(&finding)
        );
        assert!(!filter(Some("pod_pending"), None, None, None).matches(&finding));
        assert!(!filter(None, Some("graceful"), None, None).matches(&finding));
        assert!(!filter(None, None, Some("sho"), None).matches(&finding));
        assert!(!filter(None, None, None, Some("worker-1")).matches(&finding));
        assert_eq!(
            filter(Some("image_pull"), None, Some("a"), None).describe(),
            "anomaly=image_pull, namespace=a"
        );
    }
}
