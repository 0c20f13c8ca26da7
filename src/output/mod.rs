//! Outputs format findings; they never decide anything: the metrics, the JSON,
//! the terminal table and the HTML pages.

pub(crate) mod alerts;
pub(crate) mod html;
pub mod json;
pub mod metrics;
pub mod table;
pub mod terminal;

use crate::diagnosis::{Finding, RootCauses, Runbook};

/// Where runbook links point.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RunbookLinks {
    /// `docs/runbooks/<Alert>.md`, the copy in this repository.
    #[default]
    RepositoryPaths,
    /// `<base>/<alert in lower case>`, a published copy.
    BaseUrl(String),
    /// `<command> <Alert>`: the command that prints the runbook embedded in the
    /// binary, which works wherever the binary does (a path of this repository
    /// exists only in a checkout).
    Command(&'static str),
}

impl RunbookLinks {
    pub(crate) fn from_base_url(base: Option<&str>) -> Self {
        match base {
            Some(base) if !base.trim().is_empty() => RunbookLinks::BaseUrl(base.trim().to_string()),
            _ => RunbookLinks::RepositoryPaths,
        }
    }

    /// A published copy when `base` is given, else `command` (e.g.
    /// `kube-lifecycle-exporter runbook`), which prints the embedded runbook.
    pub(crate) fn base_url_or_command(base: Option<&str>, command: &'static str) -> Self {
        match Self::from_base_url(base) {
            RunbookLinks::RepositoryPaths => RunbookLinks::Command(command),
            links => links,
        }
    }

    pub(crate) fn link(&self, runbook: Runbook) -> String {
        match self {
            RunbookLinks::RepositoryPaths => runbook.path(),
            RunbookLinks::BaseUrl(base) => runbook.url(base),
            RunbookLinks::Command(command) => format!("{command} {}", runbook.alert()),
        }
    }
}

/// Which findings a page or `/findings` shows: the query
/// `?anomaly=&cause=&namespace=&node=&registry=&root=`, each matched exactly
/// when given (and not empty, as a form sends a field left blank), as the
/// dashboards' and the alerts' links set them. `root` is a root cause as
/// `kind/name` (`node/worker-3`), or a kind alone (`scheduler`): the findings
/// it explains.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct FindingFilter {
    #[serde(default, deserialize_with = "blank_is_none")]
    pub anomaly: Option<String>,
    #[serde(default, deserialize_with = "blank_is_none")]
    pub cause: Option<String>,
    #[serde(default, deserialize_with = "blank_is_none")]
    pub namespace: Option<String>,
    #[serde(default, deserialize_with = "blank_is_none")]
    pub node: Option<String>,
    /// The registry of an image pull finding.
    #[serde(default, deserialize_with = "blank_is_none")]
    pub registry: Option<String>,
    /// The root cause that explains it.
    #[serde(default, deserialize_with = "blank_is_none")]
    pub root: Option<String>,
}

fn blank_is_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let value: Option<String> = serde::Deserialize::deserialize(d)?;
    Ok(value.filter(|v| !v.is_empty()))
}

/// `?page=&limit=`: which slice of the chosen findings a page shows (pages count
/// from 1), or how many `/findings` returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
pub struct Paging {
    pub page: Option<usize>,
    pub limit: Option<usize>,
}

impl Paging {
    /// The landing page's default: enough to read, small at 70,000 findings.
    pub(crate) const PAGE_SIZE: usize = 200;

    /// The page's range of `total` findings (an empty range past the end).
    pub(crate) fn range(&self, total: usize) -> std::ops::Range<usize> {
        let limit = self.limit.unwrap_or(Self::PAGE_SIZE).max(1);
        let page = self.page.unwrap_or(1).max(1);
        let start = (page - 1).saturating_mul(limit).min(total);
        start..start.saturating_add(limit).min(total)
    }
}

impl FindingFilter {
    /// Whether it chooses `f`, one of the findings `roots` explain.
    pub fn matches(&self, f: &Finding, roots: &RootCauses) -> bool {
        let is = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        is(&self.anomaly, f.anomaly().as_str())
            && is(&self.cause, f.cause.as_str())
            && is(&self.namespace, f.namespace.as_deref().unwrap_or_default())
            && is(&self.node, f.node.as_deref().unwrap_or_default())
            && is(&self.registry, registry(f).unwrap_or_default())
            && self
                .root
                .as_deref()
                .is_none_or(|id| roots.of_finding(f).is_some_and(|root| root.key.is(id)))
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
            ("registry", &self.registry),
            ("root", &self.root),
        ]
        .iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// The registry an image pull finding names.
pub(crate) fn registry(f: &Finding) -> Option<&str> {
    f.detail.registry()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::diagnosis::{Cause, Detail, TerminatingCause};
    use crate::model::Kind;

    /// A Terminating pod `name` in `shop` on `worker-3`, as the output tests
    /// need one.
    pub(crate) fn finding(name: &str, message: &str) -> Finding {
        Finding {
            kind: Kind::Pod,
            namespace: Some("shop".into()),
            name: name.into(),
            container: None,
            container_kind: None,
            owner: None,
            node: Some("worker-3".into()),
            cause: Cause::PodTerminating(TerminatingCause::Finalizers),
            since: None,
            message: message.into(),
            detail: Detail::None,
        }
    }

    #[test]
    fn a_filter_matches_every_given_field_exactly() {
        let finding = finding("web-1", "");
        let filter =
            |a: Option<&str>, c: Option<&str>, n: Option<&str>, node: Option<&str>| FindingFilter {
                anomaly: a.map(String::from),
                cause: c.map(String::from),
                namespace: n.map(String::from),
                node: node.map(String::from),
                registry: None,
                root: None,
            };
        let roots = RootCauses::default();
        assert!(FindingFilter::default().matches(&finding, &roots));
        assert!(
            filter(
                Some("pod_terminating"),
                Some("finalizers"),
                Some("shop"),
                Some("worker-3")
            )
            .matches(&finding, &roots)
        );
        assert!(!filter(Some("pod_pending"), None, None, None).matches(&finding, &roots));
        assert!(!filter(None, Some("graceful"), None, None).matches(&finding, &roots));
        assert!(!filter(None, None, Some("sho"), None).matches(&finding, &roots));
        assert!(!filter(None, None, None, Some("worker-1")).matches(&finding, &roots));
        // A root filter chooses only the findings a root cause explains.
        let rooted = FindingFilter {
            root: Some("node/worker-3".into()),
            ..Default::default()
        };
        assert!(!rooted.matches(&finding, &roots));
        assert_eq!(
            filter(Some("image_pull"), None, Some("a"), None).describe(),
            "anomaly=image_pull, namespace=a"
        );
    }

    #[test]
    fn a_blank_form_field_filters_nothing() {
        let filter: FindingFilter =
            serde_json::from_value(serde_json::json!({"anomaly": "", "node": "n1"})).unwrap();
        assert_eq!(filter.anomaly, None);
        assert_eq!(filter.node.as_deref(), Some("n1"));
    }

    #[test]
    fn paging_slices_from_page_one_and_clamps() {
        let p = |page, limit| Paging { page, limit };
        assert_eq!(p(None, None).range(1000), 0..200);
        assert_eq!(p(Some(2), Some(100)).range(250), 100..200);
        assert_eq!(p(Some(3), Some(100)).range(250), 200..250);
        assert_eq!(p(Some(9), Some(100)).range(250), 250..250);
        assert_eq!(p(Some(0), Some(0)).range(5), 0..1);
        assert_eq!(p(Some(usize::MAX), Some(usize::MAX)).range(5), 5..5);
    }
}
