//! Version, discovery and health endpoints.
//!
//! Just enough for kubectl-style clients to find the served resources and for
//! `Client::apiserver_version` to succeed; everything is derived from the
//! resource table.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use crate::resources::{self, RESOURCES};
use crate::shared::Shared;

pub(crate) async fn version() -> Json<Value> {
    Json(json!({
        "major": "1",
        "minor": "33",
        "gitVersion": "v1.33.0",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-04-23T00:00:00Z",
        "goVersion": "go1.24.2",
        "compiler": "gc",
        "platform": "linux/amd64"
    }))
}

pub(crate) async fn healthz() -> &'static str {
    "ok"
}

/// `/api`: the core group's versions.
pub(crate) async fn core_versions(State(shared): State<Arc<Shared>>) -> Json<Value> {
    Json(json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": shared.address.to_string()}]
    }))
}

/// `/apis`: every named group.
pub(crate) async fn groups() -> Json<Value> {
    let groups: Vec<Value> = resources::group_versions()
        .into_iter()
        .filter(|(group, _)| !group.is_empty())
        .map(|(group, version)| {
            let gv = json!({"groupVersion": format!("{group}/{version}"), "version": version});
            json!({"name": group, "versions": [gv.clone()], "preferredVersion": gv})
        })
        .collect();
    Json(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
}

/// `/api/v1` or `/apis/{group}/{version}`: the resources served there.
pub(crate) fn resource_list(group: &str, version: &str) -> Value {
    let resources: Vec<Value> = RESOURCES
        .iter()
        .filter(|r| r.group == group && r.version == version)
        .map(|r| {
            json!({
                "name": r.plural,
                "singularName": r.singular,
                "namespaced": r.namespaced,
                "kind": r.kind,
                "shortNames": r.short_names,
                "verbs": ["get", "list", "watch"]
            })
        })
        .collect();
    let group_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources})
}
