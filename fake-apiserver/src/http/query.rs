//! Query parameters of list and watch requests.
//!
//! Parsed strictly: a malformed value gets 400 rather than a silent default,
//! so a client sending nonsense is caught by its tests.

use std::time::Duration;

use crate::selectors::{FieldSelector, LabelSelector};
use crate::status::ApiError;

/// `resourceVersionMatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VersionMatch {
    NotOlderThan,
    Exact,
}

/// The parameters a list, get or watch request may carry.
#[derive(Debug, Default)]
pub(crate) struct Params {
    pub watch: bool,
    /// `None` when absent or not positive (no limit).
    pub limit: Option<usize>,
    pub continue_token: Option<String>,
    /// `None` when absent or empty ("most recent").
    pub resource_version: Option<u64>,
    pub resource_version_match: Option<VersionMatch>,
    pub label_selector: LabelSelector,
    pub field_selector: FieldSelector,
    /// `None` when absent or not positive.
    pub timeout: Option<Duration>,
    pub allow_bookmarks: bool,
    pub send_initial_events: Option<bool>,
}

impl Params {
    pub fn parse(query: Option<&str>) -> Result<Params, ApiError> {
        let mut params = Params::default();
        let Some(query) = query else {
            return Ok(params);
        };
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            let value = value.as_ref();
            match key.as_ref() {
                "watch" => params.watch = boolean("watch", value)?,
                "limit" => {
                    params.limit = positive("limit", value)?.and_then(|n| usize::try_from(n).ok())
                }
                "continue" => {
                    params.continue_token = Some(value.to_string()).filter(|v| !v.is_empty())
                }
                "resourceVersion" => {
                    params.resource_version = match value {
                        "" => None,
                        v => Some(v.parse().map_err(|_| {
                            ApiError::bad_request(format!("invalid resource version: {v:?}"))
                        })?),
                    }
                }
                "resourceVersionMatch" => {
                    params.resource_version_match = match value {
                        "" => None,
                        "NotOlderThan" => Some(VersionMatch::NotOlderThan),
                        "Exact" => Some(VersionMatch::Exact),
                        other => {
                            return Err(ApiError::bad_request(format!(
                                "resourceVersionMatch: Unsupported value: {other:?}: supported values: \"Exact\", \"NotOlderThan\""
                            )));
                        }
                    }
                }
                "labelSelector" => {
                    params.label_selector = LabelSelector::parse(value).map_err(|e| {
                        ApiError::bad_request(format!("unable to parse requirement: {e}"))
                    })?;
                }
                "fieldSelector" => {
                    params.field_selector = FieldSelector::parse(value).map_err(|e| {
                        ApiError::bad_request(format!("invalid field selector: {e}"))
                    })?;
                }
                "timeoutSeconds" => {
                    params.timeout = positive("timeoutSeconds", value)?.map(Duration::from_secs)
                }
                "allowWatchBookmarks" => {
                    params.allow_bookmarks = boolean("allowWatchBookmarks", value)?
                }
                "sendInitialEvents" => {
                    params.send_initial_events = Some(boolean("sendInitialEvents", value)?)
                }
                // pretty, timeout, fieldManager...: irrelevant to a read-only server.
                _ => {}
            }
        }
        Ok(params)
    }
}

/// Whether a raw query string asks for a watch; used to label request
/// records without a full parse.
pub(crate) fn asks_for_watch(query: Option<&str>) -> bool {
    query.is_some_and(|q| {
        form_urlencoded::parse(q.as_bytes())
            .any(|(k, v)| k == "watch" && matches!(v.as_ref(), "true" | "1"))
    })
}

fn boolean(name: &str, value: &str) -> Result<bool, ApiError> {
    match value {
        "true" | "1" => Ok(true),
        "false" | "0" | "" => Ok(false),
        other => Err(ApiError::bad_request(format!(
            "{name}: invalid boolean {other:?}"
        ))),
    }
}

/// An integer parameter where zero or less means "not set".
fn positive(name: &str, value: &str) -> Result<Option<u64>, ApiError> {
    if value.is_empty() {
        return Ok(None);
    }
    let n: i64 = value
        .parse()
        .map_err(|_| ApiError::bad_request(format!("{name}: invalid integer {value:?}")))?;
    Ok(u64::try_from(n).ok().filter(|&n| n > 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_kube_rs_watch() {
        let p = Params::parse(Some(
            "watch=true&timeoutSeconds=290&allowWatchBookmarks=true&resourceVersion=42&labelSelector=app%3Dweb",
        ))
        .unwrap();
        assert!(p.watch && p.allow_bookmarks);
        assert_eq!(p.timeout, Some(Duration::from_secs(290)));
        assert_eq!(p.resource_version, Some(42));
        assert!(!p.label_selector.is_empty());
    }

    #[test]
    fn rejects_malformed_values() {
        for q in [
            "limit=ten",
            "watch=yes",
            "resourceVersion=abc",
            "resourceVersionMatch=Newest",
            "labelSelector=a%20in%20(",
            "fieldSelector=nope",
            "timeoutSeconds=1.5",
        ] {
            assert!(Params::parse(Some(q)).is_err(), "{q}");
        }
        assert_eq!(Params::parse(Some("limit=0")).unwrap().limit, None);
        assert!(asks_for_watch(Some("a=b&watch=1")));
        assert!(!asks_for_watch(Some("watch=false")));
    }
}
