//! Outputs format findings; they never decide anything: the metrics, the JSON,
//! the terminal table and the HTML pages.

pub(crate) mod html;
pub mod json;
pub mod metrics;
pub mod table;

use crate::diagnosis::Runbook;

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
