//! The review APIs a webhook-style authenticator and authorizer call:
//! `TokenReview` (authentication.k8s.io/v1) and `SubjectAccessReview` and
//! `SelfSubjectAccessReview` (authorization.k8s.io/v1), answered from the
//! tokens and rules of [`crate::access`] in the shapes the real API server
//! writes (k8s.io/api/authentication/v1 and authorization/v1 types.go).
//!
//! The caller is authenticated by its own bearer token and, for the first
//! two, must be allowed `create` on the review resource, as RBAC requires of
//! the real server's callers. A fault set on `tokenreviews`,
//! `subjectaccessreviews` or `selfsubjectaccessreviews` applies to every
//! review of that kind: an outage of the reviews alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::access::{API_AUDIENCE, Asked, Subject, TokenUser};
use crate::faults::Fault;
use crate::shared::Shared;
use crate::status::ApiError;

const AUTHENTICATION: &str = "authentication.k8s.io";
const AUTHORIZATION: &str = "authorization.k8s.io";

/// `POST /apis/authentication.k8s.io/v1/tokenreviews`.
pub(crate) async fn token_review(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let review = match admit(
        &shared,
        &headers,
        &body,
        AUTHENTICATION,
        "tokenreviews",
        &shared.access.token_reviews,
    )
    .await
    {
        Ok((_, review)) => review,
        Err(error) => return error.into_response(),
    };
    let spec = &review["spec"];
    let token = spec["token"].as_str().unwrap_or_default();
    let wanted: Vec<String> = strings(&spec["audiences"]);
    let status = match shared.access.user(token) {
        Some(user) => match audiences(&user, &wanted) {
            Ok(matched) => json!({
                "authenticated": true,
                "user": user_info(&user),
                "audiences": matched,
            }),
            Err(message) => json!({"user": {}, "error": message}),
        },
        // What the real server says of a token no authenticator accepts.
        None => {
            json!({"user": {}, "error": "[invalid bearer token, service account token has been invalidated]"})
        }
    };
    created("TokenReview", AUTHENTICATION, spec.clone(), status)
}

/// The audiences of `user`'s token among those `wanted` (the API server's own
/// when none is), or the error the real authenticator gives.
fn audiences(user: &TokenUser, wanted: &[String]) -> Result<Vec<String>, String> {
    let wanted = if wanted.is_empty() {
        vec![API_AUDIENCE.to_string()]
    } else {
        wanted.to_vec()
    };
    let matched: Vec<String> = wanted
        .iter()
        .filter(|a| user.audiences.contains(a))
        .cloned()
        .collect();
    if matched.is_empty() {
        Err(format!(
            "[invalid bearer token, token audiences {:?} is invalid for the target audiences {:?}]",
            user.audiences, wanted
        ))
    } else {
        Ok(matched)
    }
}

/// `POST /apis/authorization.k8s.io/v1/subjectaccessreviews`.
pub(crate) async fn subject_access_review(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let review = match admit(
        &shared,
        &headers,
        &body,
        AUTHORIZATION,
        "subjectaccessreviews",
        &shared.access.subject_access_reviews,
    )
    .await
    {
        Ok((_, review)) => review,
        Err(error) => return error.into_response(),
    };
    let spec = &review["spec"];
    let user = spec["user"].as_str().unwrap_or_default();
    let groups = strings(&spec["groups"]);
    if user.is_empty() && groups.is_empty() {
        return ApiError::invalid(
            "SubjectAccessReview",
            "spec.user: Invalid value: \"\": at least one of user or group must be specified",
        )
        .into_response();
    }
    let asked = match asked(spec) {
        Ok(asked) => asked,
        Err(error) => return error.into_response(),
    };
    let status = decide(&shared, user, &groups, &asked);
    created("SubjectAccessReview", AUTHORIZATION, spec.clone(), status)
}

/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: any
/// authenticated caller may ask about itself.
pub(crate) async fn self_subject_access_review(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (caller, review) = match admit(
        &shared,
        &headers,
        &body,
        AUTHORIZATION,
        "selfsubjectaccessreviews",
        &shared.access.self_subject_access_reviews,
    )
    .await
    {
        Ok(admitted) => admitted,
        Err(error) => return error.into_response(),
    };
    let spec = &review["spec"];
    let asked = match asked(spec) {
        Ok(asked) => asked,
        Err(error) => return error.into_response(),
    };
    let status = decide(&shared, &caller.username, &caller.all_groups(), &asked);
    created(
        "SelfSubjectAccessReview",
        AUTHORIZATION,
        spec.clone(),
        status,
    )
}

/// Counts the review, applies its fault, authenticates the caller, checks
/// that it may create reviews of `plural` (every caller may create a
/// self-review) and parses the body.
async fn admit(
    shared: &Shared,
    headers: &HeaderMap,
    body: &[u8],
    group: &str,
    plural: &str,
    counter: &AtomicU64,
) -> Result<(TokenUser, Value), ApiError> {
    counter.fetch_add(1, Ordering::Relaxed);
    match shared.faults.get(plural) {
        Fault::Forbidden => {
            return Err(ApiError::forbidden_to(EXPORTER, "create", group, plural));
        }
        Fault::ServerError => return Err(ApiError::internal_error()),
        Fault::Slow(delay) => tokio::time::sleep(delay).await,
        _ => {}
    }
    let caller = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .and_then(|token| shared.access.user(token.trim()))
        .ok_or_else(ApiError::unauthorized)?;
    let is_self = plural == "selfsubjectaccessreviews";
    let create = Asked::Resource {
        verb: "create".into(),
        group: group.into(),
        resource: plural.into(),
        namespace: String::new(),
    };
    if !is_self
        && shared
            .access
            .allowing(&caller.username, &caller.all_groups(), &create)
            .is_none()
    {
        return Err(ApiError::forbidden_to(
            &caller.username,
            "create",
            group,
            plural,
        ));
    }
    let review: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the body is not JSON: {e}")))?;
    if !review["spec"].is_object() {
        return Err(ApiError::bad_request("the review has no spec"));
    }
    Ok((caller, review))
}

/// Whom a fault's Forbidden names: the exporter, the reviews' usual caller.
const EXPORTER: &str = crate::access::EXPORTER_USER;

/// The attributes a (self) subject access review asks about: exactly one of
/// `resourceAttributes` and `nonResourceAttributes`.
fn asked(spec: &Value) -> Result<Asked, ApiError> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    match (
        spec.get("resourceAttributes"),
        spec.get("nonResourceAttributes"),
    ) {
        (Some(r), None) if r.is_object() => Ok(Asked::Resource {
            verb: text(&r["verb"]),
            group: text(&r["group"]),
            resource: text(&r["resource"]),
            namespace: text(&r["namespace"]),
        }),
        (None, Some(n)) if n.is_object() => Ok(Asked::NonResource {
            verb: text(&n["verb"]),
            path: text(&n["path"]),
        }),
        _ => Err(ApiError::invalid(
            "SubjectAccessReview",
            "spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )),
    }
}

/// The review's status: allowed with the rule that allows it (worded as
/// RBAC's reason), or not allowed with no reason (RBAC has no opinion).
fn decide(shared: &Shared, user: &str, groups: &[String], asked: &Asked) -> Value {
    match shared.access.allowing(user, groups, asked) {
        Some((subject, _)) => {
            let whom = match subject {
                Subject::User(name) => format!("User {name:?}"),
                Subject::Group(name) => format!("Group {name:?}"),
            };
            json!({"allowed": true, "reason": format!("RBAC: allowed by the fake API server's rule for {whom}")})
        }
        None => json!({"allowed": false}),
    }
}

fn user_info(user: &TokenUser) -> Value {
    let mut info = json!({
        "username": user.username,
        "uid": user.uid,
        "groups": user.all_groups(),
    });
    if !user.extra.is_empty() {
        info["extra"] = json!(user.extra);
    }
    info
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A review created: 201 with the review as sent and its status.
fn created(kind: &str, group: &str, spec: Value, status: Value) -> Response {
    let body = json!({
        "kind": kind,
        "apiVersion": format!("{group}/v1"),
        "metadata": {"creationTimestamp": null},
        "spec": spec,
        "status": status,
    });
    (
        StatusCode::CREATED,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}
