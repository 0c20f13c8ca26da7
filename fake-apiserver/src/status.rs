//! Kubernetes `Status` objects: the body of every error response and of a
//! watch's ERROR event.
//!
//! Clients branch on `code` and `reason` (kube-rs relists on 410, reports 403
//! as forbidden), so each constructor mirrors what the real API server sends
//! in that situation.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::resources::ResourceType;

/// The message the API server gives for a continue token whose snapshot was
/// compacted.
pub(crate) const CONTINUE_EXPIRED_MESSAGE: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// The user every Forbidden message names: the exporter's service account.
const DENIED_USER: &str = "system:serviceaccount:monitoring:kube-lifecycle-exporter";

/// An error answer, rendered as a `Status` object.
#[derive(Debug, Clone)]
pub(crate) struct ApiError {
    pub code: StatusCode,
    pub reason: &'static str,
    pub message: String,
    pub details: Option<Value>,
}

impl ApiError {
    fn new(code: StatusCode, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
        }
    }

    fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "BadRequest", message)
    }

    /// An unknown path.
    pub fn no_route() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "NotFound",
            "the server could not find the requested resource",
        )
        .with_details(json!({}))
    }

    /// A GET of an object that does not exist.
    pub fn object_not_found(resource: &ResourceType, name: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "NotFound",
            format!("{} \"{name}\" not found", qualified(resource)),
        )
        .with_details(group_details(
            resource,
            json!({"name": name, "kind": resource.plural}),
        ))
    }

    pub fn method_not_allowed(method: &str) -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            format!(
                "the server does not allow this method on the requested resource: {method} is not served by the fake API server"
            ),
        )
    }

    /// RBAC's denial of `verb` on `resource`, at cluster scope or in `namespace`.
    pub fn forbidden(resource: &ResourceType, verb: &str, namespace: Option<&str>) -> Self {
        let scope = match namespace {
            Some(ns) => format!("in the namespace \"{ns}\""),
            None => "at the cluster scope".to_string(),
        };
        Self::new(
            StatusCode::FORBIDDEN,
            "Forbidden",
            format!(
                "{} is forbidden: User \"{DENIED_USER}\" cannot {verb} resource \"{}\" in API group \"{}\" {scope}",
                qualified(resource),
                resource.plural,
                resource.group
            ),
        )
        .with_details(group_details(resource, json!({"kind": resource.plural})))
    }

    /// RBAC's denial of `verb` on `plural` of `group`, at cluster scope, to `user`.
    pub fn forbidden_to(user: &str, verb: &str, group: &str, plural: &str) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "Forbidden",
            format!(
                "{plural}.{group} is forbidden: User \"{user}\" cannot {verb} resource \"{plural}\" in API group \"{group}\" at the cluster scope"
            ),
        )
        .with_details(json!({"group": group, "kind": plural}))
    }

    /// A request without valid credentials.
    pub fn unauthorized() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "Unauthorized", "Unauthorized")
    }

    /// A review that fails validation (422), as the real server words it.
    pub fn invalid(kind: &str, message: &str) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Invalid",
            format!("{kind}.authorization.k8s.io \"\" is invalid: {message}"),
        )
        .with_details(json!({"kind": kind, "group": "authorization.k8s.io"}))
    }

    pub fn internal_error() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            "Internal error occurred: injected fault",
        )
        .with_details(json!({"causes": [{"message": "injected fault"}]}))
    }

    /// A resume from a compacted resourceVersion.
    pub fn too_old(requested: u64, oldest: u64) -> Self {
        Self::new(
            StatusCode::GONE,
            "Expired",
            format!("too old resource version: {requested} ({oldest})"),
        )
    }

    pub fn continue_expired() -> Self {
        Self::new(StatusCode::GONE, "Expired", CONTINUE_EXPIRED_MESSAGE)
    }

    /// A list at a resourceVersion the server has not reached.
    pub fn too_large(requested: u64, current: u64) -> Self {
        Self::new(
            StatusCode::GATEWAY_TIMEOUT,
            "Timeout",
            format!("Too large resource version: {requested}, current: {current}"),
        )
        .with_details(json!({"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}], "retryAfterSeconds": 1}))
    }

    /// The `Status` object.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code.as_u16(),
        });
        if let Some(details) = &self.details {
            status["details"] = details.clone();
        }
        status
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.to_status().to_string();
        (
            self.code,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response()
    }
}

/// `pods`, or `deployments.apps` outside the core group, as messages name them.
fn qualified(resource: &ResourceType) -> String {
    if resource.group.is_empty() {
        resource.plural.to_string()
    } else {
        format!("{}.{}", resource.plural, resource.group)
    }
}

fn group_details(resource: &ResourceType, mut details: Value) -> Value {
    if !resource.group.is_empty() {
        details["group"] = Value::String(resource.group.to_string());
    }
    details
}
