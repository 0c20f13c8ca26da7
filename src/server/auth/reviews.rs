//! The questions asked of the API server: who a bearer token is (a
//! TokenReview, authentication.k8s.io/v1), whether that user may do
//! something (a SubjectAccessReview, authorization.k8s.io/v1), and at
//! startup, whether the exporter itself may ask those two (a
//! SelfSubjectAccessReview).
//!
//! The token goes into the TokenReview's spec and nowhere else: it is never
//! logged, and no error here quotes a request.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, ResourceAttributes, SelfSubjectAccessReview,
    SelfSubjectAccessReviewSpec, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::PostParams;
use kube::{Api, Client};

use super::cache::Answer;

/// A review that got no answer: the request cannot be authorized, so it is
/// refused (503), never answered.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum ReviewError {
    /// No connection, a timeout or a 5xx: the API server is unreachable or unwell.
    #[error("the API server is unreachable: {0}")]
    Unreachable(String),
    /// The exporter's own RBAC does not let it ask (403 on the review).
    #[error("the exporter may not create {0}: {1}")]
    Forbidden(&'static str, String),
    #[error("{0}")]
    Other(String),
}

impl ReviewError {
    fn of(resource: &'static str, error: kube::Error) -> ReviewError {
        match error {
            kube::Error::Api(status) if status.code == 403 => {
                ReviewError::Forbidden(resource, status.message)
            }
            kube::Error::Api(status) if status.code >= 500 || status.code == 429 => {
                ReviewError::Unreachable(format!("{} {}", status.code, status.message))
            }
            kube::Error::Api(status) => {
                ReviewError::Other(format!("{} {}", status.code, status.message))
            }
            kube::Error::HyperError(e) => ReviewError::Unreachable(e.to_string()),
            kube::Error::Service(e) => ReviewError::Unreachable(e.to_string()),
            other => ReviewError::Other(other.to_string()),
        }
    }
}

/// A user as the API server authenticated them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct User {
    pub username: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
    /// A SHA-256 of everything above: what access answers are kept by.
    pub key: [u8; 32],
}

impl User {
    pub(crate) fn new(
        username: String,
        uid: String,
        groups: Vec<String>,
        extra: BTreeMap<String, Vec<String>>,
    ) -> User {
        let mut context = ring::digest::Context::new(&ring::digest::SHA256);
        let mut part = |bytes: &[u8]| {
            // Lengths too, so moving bytes between parts changes the key.
            context.update(&(bytes.len() as u64).to_be_bytes());
            context.update(bytes);
        };
        part(username.as_bytes());
        part(uid.as_bytes());
        part(&(groups.len() as u64).to_be_bytes());
        for group in &groups {
            part(group.as_bytes());
        }
        for (name, values) in &extra {
            part(name.as_bytes());
            part(&(values.len() as u64).to_be_bytes());
            for value in values {
                part(value.as_bytes());
            }
        }
        let mut key = [0; 32];
        key.copy_from_slice(context.finish().as_ref());
        User {
            username,
            uid,
            groups,
            extra,
            key,
        }
    }
}

/// What a TokenReview said of a token.
#[derive(Debug, Clone)]
pub(crate) enum Identity {
    Authenticated(Arc<User>),
    /// Not accepted; why, in the API server's words (never the token).
    Rejected(String),
}

impl Answer for Identity {
    fn is_positive(&self) -> bool {
        matches!(self, Identity::Authenticated(_))
    }
}

/// What a user asks to do, as a SubjectAccessReview names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Attributes {
    Resource {
        verb: &'static str,
        /// The API group ("" for the core group).
        group: &'static str,
        resource: &'static str,
        /// Empty: every namespace (the cluster scope).
        namespace: String,
    },
    NonResource {
        verb: &'static str,
        path: &'static str,
    },
}

impl Attributes {
    /// `list pods` in `namespace` (every namespace when empty).
    pub(crate) fn list_pods(namespace: &str) -> Attributes {
        Attributes::Resource {
            verb: "list",
            group: "",
            resource: "pods",
            namespace: namespace.to_string(),
        }
    }

    pub(crate) fn list_nodes() -> Attributes {
        Attributes::Resource {
            verb: "list",
            group: "",
            resource: "nodes",
            namespace: String::new(),
        }
    }

    /// `get` on the non-resource URL `/metrics`, as controller-runtime and
    /// kube-rbac-proxy authorize a scrape.
    pub(crate) fn get_metrics() -> Attributes {
        Attributes::NonResource {
            verb: "get",
            path: "/metrics",
        }
    }

    /// `get /metrics`, `list pods in ns-a`, `list nodes`: what a refusal says was needed.
    pub(crate) fn describe(&self) -> String {
        match self {
            Attributes::NonResource { verb, path } => {
                format!("{verb} on the non-resource URL {path}")
            }
            Attributes::Resource {
                verb,
                group,
                resource,
                namespace,
            } => {
                let resource = if group.is_empty() {
                    resource.to_string()
                } else {
                    format!("{resource}.{group}")
                };
                if namespace.is_empty() {
                    format!("{verb} {resource} (cluster-wide)")
                } else {
                    format!("{verb} {resource} in the namespace {namespace}")
                }
            }
        }
    }

    fn resource_attributes(&self) -> (Option<ResourceAttributes>, Option<NonResourceAttributes>) {
        match self {
            Attributes::Resource {
                verb,
                group,
                resource,
                namespace,
            } => (
                Some(ResourceAttributes {
                    verb: Some(verb.to_string()),
                    group: Some(group.to_string()),
                    resource: Some(resource.to_string()),
                    namespace: (!namespace.is_empty()).then(|| namespace.clone()),
                    ..Default::default()
                }),
                None,
            ),
            Attributes::NonResource { verb, path } => (
                None,
                Some(NonResourceAttributes {
                    verb: Some(verb.to_string()),
                    path: Some(path.to_string()),
                }),
            ),
        }
    }
}

/// A yes or no from a SubjectAccessReview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Allowed(pub bool);

impl Answer for Allowed {
    fn is_positive(&self) -> bool {
        self.0
    }
}

/// Asks the reviews; a trait so the cache and the scope can be tested
/// without an API server.
pub(crate) trait Reviewer: Send + Sync + 'static {
    fn review_token(
        &self,
        token: String,
        audiences: Vec<String>,
    ) -> BoxFuture<'static, Result<Identity, ReviewError>>;

    fn review_access(
        &self,
        user: Arc<User>,
        attributes: Attributes,
    ) -> BoxFuture<'static, Result<Allowed, ReviewError>>;
}

/// The reviews asked of the API server through a kube client.
pub(crate) struct KubeReviewer {
    client: Client,
}

impl KubeReviewer {
    /// `client` should time out quickly: a request waits on its reviews.
    pub(crate) fn new(client: Client) -> Self {
        KubeReviewer { client }
    }

    /// Which of the two reviews the exporter may not create, asked of the
    /// API server about itself: the rules it lacks, in RBAC's words.
    pub(crate) async fn missing_rules(&self) -> Result<Vec<String>, ReviewError> {
        let api: Api<SelfSubjectAccessReview> = Api::all(self.client.clone());
        let mut missing = Vec::new();
        for (group, resource) in [
            ("authentication.k8s.io", "tokenreviews"),
            ("authorization.k8s.io", "subjectaccessreviews"),
        ] {
            let review = SelfSubjectAccessReview {
                spec: SelfSubjectAccessReviewSpec {
                    resource_attributes: Some(ResourceAttributes {
                        verb: Some("create".into()),
                        group: Some(group.into()),
                        resource: Some(resource.into()),
                        ..Default::default()
                    }),
                    ..Default::default()
                },
                ..Default::default()
            };
            let answer = api
                .create(&PostParams::default(), &review)
                .await
                .map_err(|e| ReviewError::of("selfsubjectaccessreviews", e))?;
            if !answer.status.is_some_and(|s| s.allowed) {
                missing.push(format!(
                    "{{apiGroups: [{group}], resources: [{resource}], verbs: [create]}}"
                ));
            }
        }
        Ok(missing)
    }
}

impl Reviewer for KubeReviewer {
    fn review_token(
        &self,
        token: String,
        audiences: Vec<String>,
    ) -> BoxFuture<'static, Result<Identity, ReviewError>> {
        let api: Api<TokenReview> = Api::all(self.client.clone());
        async move {
            let wanted = audiences.clone();
            let review = TokenReview {
                spec: TokenReviewSpec {
                    token: Some(token),
                    // None: the API server checks its own audiences.
                    audiences: (!audiences.is_empty()).then_some(audiences),
                },
                ..Default::default()
            };
            let answer = api
                .create(&PostParams::default(), &review)
                .await
                .map_err(|e| ReviewError::of("tokenreviews", e))?;
            let status = answer.status.unwrap_or_default();
            if status.authenticated != Some(true) {
                return Ok(Identity::Rejected(
                    status
                        .error
                        .unwrap_or_else(|| "the token was not accepted".into()),
                ));
            }
            // The API server says which of the audiences asked for the token
            // is good for; none of them is a refusal (kube-rbac-proxy checks
            // the same).
            if !wanted.is_empty() {
                let granted = status.audiences.unwrap_or_default();
                if !granted.iter().any(|a| wanted.contains(a)) {
                    return Ok(Identity::Rejected(
                        "the token is not for this exporter's audiences".into(),
                    ));
                }
            }
            let user = status.user.unwrap_or_default();
            let Some(username) = user.username.filter(|u| !u.is_empty()) else {
                return Ok(Identity::Rejected("the token names no user".into()));
            };
            Ok(Identity::Authenticated(Arc::new(User::new(
                username,
                user.uid.unwrap_or_default(),
                user.groups.unwrap_or_default(),
                user.extra.unwrap_or_default(),
            ))))
        }
        .boxed()
    }

    fn review_access(
        &self,
        user: Arc<User>,
        attributes: Attributes,
    ) -> BoxFuture<'static, Result<Allowed, ReviewError>> {
        let api: Api<SubjectAccessReview> = Api::all(self.client.clone());
        async move {
            let (resource_attributes, non_resource_attributes) = attributes.resource_attributes();
            let review = SubjectAccessReview {
                spec: SubjectAccessReviewSpec {
                    user: Some(user.username.clone()),
                    uid: (!user.uid.is_empty()).then(|| user.uid.clone()),
                    groups: Some(user.groups.clone()),
                    extra: (!user.extra.is_empty()).then(|| user.extra.clone()),
                    resource_attributes,
                    non_resource_attributes,
                },
                ..Default::default()
            };
            let answer = api
                .create(&PostParams::default(), &review)
                .await
                .map_err(|e| ReviewError::of("subjectaccessreviews", e))?;
            // `denied` only matters when `allowed` is false: either way, no.
            Ok(Allowed(answer.status.is_some_and(|s| s.allowed)))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_keys_depend_on_every_part() {
        let user = |name: &str, uid: &str, groups: &[&str], extra: &[(&str, &[&str])]| {
            User::new(
                name.into(),
                uid.into(),
                groups.iter().map(|g| g.to_string()).collect(),
                extra
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
                    .collect(),
            )
            .key
        };
        let base = user("alice", "1", &["a", "b"], &[("scope", &["x"])]);
        assert_eq!(base, user("alice", "1", &["a", "b"], &[("scope", &["x"])]));
        assert_ne!(base, user("alicE", "1", &["a", "b"], &[("scope", &["x"])]));
        assert_ne!(base, user("alice", "2", &["a", "b"], &[("scope", &["x"])]));
        assert_ne!(base, user("alice", "1", &["a"], &[("scope", &["x"])]));
        assert_ne!(base, user("alice", "1", &["ab"], &[("scope", &["x"])]));
        assert_ne!(base, user("alice", "1", &["a", "b"], &[("scope", &["y"])]));
        assert_ne!(base, user("alice", "1", &["a", "b"], &[]));
    }

    #[test]
    fn refusals_name_what_was_needed() {
        assert_eq!(
            Attributes::get_metrics().describe(),
            "get on the non-resource URL /metrics"
        );
        assert_eq!(
            Attributes::list_pods("ns-a").describe(),
            "list pods in the namespace ns-a"
        );
        assert_eq!(
            Attributes::list_nodes().describe(),
            "list nodes (cluster-wide)"
        );
    }
}
