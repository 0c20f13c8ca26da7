//! Who the fake API server knows and what they may do: a table of bearer
//! tokens (what a TokenReview answers) and an RBAC-like table of rules (what a
//! SubjectAccessReview answers), set by the test.
//!
//! The evaluation is RBAC's in miniature: a rule grants verbs on a resource of
//! an API group, cluster-wide (a ClusterRoleBinding) or in one namespace (a
//! RoleBinding), or verbs on a non-resource URL, to a user or a group; `*`
//! matches any verb, group or resource, and a non-resource path ending in `*`
//! any path with that prefix. Nothing is ever denied explicitly: a request no
//! rule allows gets `allowed: false` with an empty reason, as RBAC says "no
//! opinion".

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::RwLock;

/// The token of the fake's own kubeconfig ([`crate::FakeApiServer::kubeconfig_yaml`]).
pub(crate) const KUBECONFIG_TOKEN: &str = "fake-token";

/// Who the kubeconfig's token authenticates as: the exporter's service account.
pub(crate) const EXPORTER_USER: &str = "system:serviceaccount:monitoring:kube-lifecycle-exporter";

/// What the API server's own audience is (kube-apiserver's default
/// `--api-audiences`, the issuer): a token review without audiences is checked
/// against it.
pub const API_AUDIENCE: &str = "https://kubernetes.default.svc.cluster.local";

/// The user a token authenticates as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenUser {
    pub username: String,
    pub uid: String,
    /// Besides `system:authenticated`, which every authenticated user gets.
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
    /// The audiences the token was issued for; a review naming none is
    /// checked against [`API_AUDIENCE`].
    pub audiences: Vec<String>,
}

impl TokenUser {
    /// `username` in `groups`, its uid derived from the name, for the API
    /// server's own audience.
    pub fn new(username: &str, groups: &[&str]) -> TokenUser {
        TokenUser {
            username: username.to_string(),
            uid: format!("uid-{username}"),
            groups: groups.iter().map(|g| g.to_string()).collect(),
            extra: BTreeMap::new(),
            audiences: vec![API_AUDIENCE.to_string()],
        }
    }

    /// The same user, for these audiences instead.
    pub fn for_audiences(mut self, audiences: &[&str]) -> TokenUser {
        self.audiences = audiences.iter().map(|a| a.to_string()).collect();
        self
    }

    /// Every group the API server reports: the token's and `system:authenticated`.
    pub(crate) fn all_groups(&self) -> Vec<String> {
        let mut groups = self.groups.clone();
        if !groups.iter().any(|g| g == "system:authenticated") {
            groups.push("system:authenticated".to_string());
        }
        groups
    }
}

/// Whom a rule is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    User(String),
    Group(String),
}

/// What a rule grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// `verbs` on `resource` of API `group` ("" for the core group);
    /// `namespace: None` everywhere (a ClusterRoleBinding), `Some` in that
    /// namespace only (a RoleBinding).
    Resource {
        verbs: Vec<String>,
        group: String,
        resource: String,
        namespace: Option<String>,
    },
    /// `verbs` on a non-resource URL such as `/metrics`.
    NonResource { verbs: Vec<String>, path: String },
}

impl Rule {
    /// `verbs` on `resource` of `group` in `namespace`, or everywhere.
    pub fn resource(verbs: &[&str], group: &str, resource: &str, namespace: Option<&str>) -> Rule {
        Rule::Resource {
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
            group: group.to_string(),
            resource: resource.to_string(),
            namespace: namespace.map(str::to_string),
        }
    }

    pub fn non_resource(verbs: &[&str], path: &str) -> Rule {
        Rule::NonResource {
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
            path: path.to_string(),
        }
    }

    fn allows(&self, asked: &Asked) -> bool {
        let any = |list: &[String], want: &str| list.iter().any(|v| v == "*" || v == want);
        match (self, asked) {
            (
                Rule::Resource {
                    verbs,
                    group,
                    resource,
                    namespace,
                },
                Asked::Resource {
                    verb,
                    group: g,
                    resource: r,
                    namespace: n,
                },
            ) => {
                any(verbs, verb)
                    && (group == "*" || group == g)
                    && (resource == "*" || resource == r)
                    // A RoleBinding never grants at the cluster scope (namespace "").
                    && namespace.as_deref().is_none_or(|ns| ns == n)
            }
            (Rule::NonResource { verbs, path }, Asked::NonResource { verb, path: p }) => {
                any(verbs, verb)
                    && match path.strip_suffix('*') {
                        Some(prefix) => p.starts_with(prefix),
                        None => path == p,
                    }
            }
            _ => false,
        }
    }
}

/// What an access review asks about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Asked {
    Resource {
        verb: String,
        group: String,
        resource: String,
        /// Empty: at the cluster scope (every namespace).
        namespace: String,
    },
    NonResource {
        verb: String,
        path: String,
    },
}

/// How many reviews the server answered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reviews {
    pub token_reviews: u64,
    pub subject_access_reviews: u64,
    pub self_subject_access_reviews: u64,
}

/// The tokens and rules in force, and the review counters.
pub(crate) struct Access {
    tokens: RwLock<HashMap<String, TokenUser>>,
    rules: RwLock<Vec<(Subject, Rule)>>,
    pub token_reviews: AtomicU64,
    pub subject_access_reviews: AtomicU64,
    pub self_subject_access_reviews: AtomicU64,
}

impl Default for Access {
    /// The kubeconfig's token is the exporter's service account, granted
    /// what the exporter's deploy grants it for `--auth kubernetes`.
    fn default() -> Self {
        let access = Access {
            tokens: RwLock::new(HashMap::new()),
            rules: RwLock::new(Vec::new()),
            token_reviews: AtomicU64::new(0),
            subject_access_reviews: AtomicU64::new(0),
            self_subject_access_reviews: AtomicU64::new(0),
        };
        access.add_token(
            KUBECONFIG_TOKEN,
            TokenUser::new(EXPORTER_USER, &["system:serviceaccounts"]),
        );
        access.rules.write().extend(Self::exporter_rules());
        access
    }
}

impl Access {
    /// What the deploy grants the exporter when its authentication is on.
    pub fn exporter_rules() -> Vec<(Subject, Rule)> {
        let exporter = Subject::User(EXPORTER_USER.to_string());
        vec![
            (
                exporter.clone(),
                Rule::resource(&["create"], "authentication.k8s.io", "tokenreviews", None),
            ),
            (
                exporter,
                Rule::resource(
                    &["create"],
                    "authorization.k8s.io",
                    "subjectaccessreviews",
                    None,
                ),
            ),
        ]
    }

    pub fn add_token(&self, token: &str, user: TokenUser) {
        self.tokens.write().insert(token.to_string(), user);
    }

    pub fn remove_token(&self, token: &str) {
        self.tokens.write().remove(token);
    }

    pub fn user(&self, token: &str) -> Option<TokenUser> {
        self.tokens.read().get(token).cloned()
    }

    pub fn grant(&self, subject: Subject, rule: Rule) {
        self.rules.write().push((subject, rule));
    }

    pub fn set_rules(&self, rules: Vec<(Subject, Rule)>) {
        *self.rules.write() = rules;
    }

    /// The rule that allows `asked` to `user` in `groups`, if any.
    pub fn allowing(
        &self,
        user: &str,
        groups: &[String],
        asked: &Asked,
    ) -> Option<(Subject, Rule)> {
        self.rules
            .read()
            .iter()
            .find(|(subject, rule)| {
                let bound = match subject {
                    Subject::User(name) => name == user,
                    Subject::Group(group) => groups.contains(group),
                };
                bound && rule.allows(asked)
            })
            .cloned()
    }

    pub fn reviews(&self) -> Reviews {
        Reviews {
            token_reviews: self.token_reviews.load(Ordering::Relaxed),
            subject_access_reviews: self.subject_access_reviews.load(Ordering::Relaxed),
            self_subject_access_reviews: self.self_subject_access_reviews.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pods_in(namespace: &str) -> Asked {
        Asked::Resource {
            verb: "list".into(),
            group: String::new(),
            resource: "pods".into(),
            namespace: namespace.into(),
        }
    }

    #[test]
    fn a_role_binding_grants_in_its_namespace_only() {
        let access = Access::default();
        access.grant(
            Subject::Group("team-a".into()),
            Rule::resource(&["list", "watch"], "", "pods", Some("ns-a")),
        );
        let groups = vec!["team-a".to_string()];
        assert!(
            access
                .allowing("alice", &groups, &pods_in("ns-a"))
                .is_some()
        );
        assert!(
            access
                .allowing("alice", &groups, &pods_in("ns-b"))
                .is_none()
        );
        assert!(access.allowing("alice", &groups, &pods_in("")).is_none());
        assert!(access.allowing("bob", &[], &pods_in("ns-a")).is_none());
    }

    #[test]
    fn wildcards_and_non_resource_paths() {
        let access = Access::default();
        access.set_rules(vec![
            (
                Subject::User("admin".into()),
                Rule::resource(&["*"], "*", "*", None),
            ),
            (
                Subject::User("prom".into()),
                Rule::non_resource(&["get"], "/metrics"),
            ),
            (
                Subject::User("ops".into()),
                Rule::non_resource(&["get"], "/debug/*"),
            ),
        ]);
        assert!(access.allowing("admin", &[], &pods_in("")).is_some());
        let get = |path: &str| Asked::NonResource {
            verb: "get".into(),
            path: path.into(),
        };
        assert!(access.allowing("prom", &[], &get("/metrics")).is_some());
        assert!(access.allowing("prom", &[], &get("/metrics/x")).is_none());
        assert!(access.allowing("admin", &[], &get("/metrics")).is_none());
        assert!(access.allowing("ops", &[], &get("/debug/pprof")).is_some());
        // The exporter's own grants are gone with set_rules.
        let create = Asked::Resource {
            verb: "create".into(),
            group: "authentication.k8s.io".into(),
            resource: "tokenreviews".into(),
            namespace: String::new(),
        };
        assert!(access.allowing(EXPORTER_USER, &[], &create).is_none());
    }
}
