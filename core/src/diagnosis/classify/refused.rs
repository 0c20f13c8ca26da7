//! Pods the API server refuses to create: the message of a controller's
//! `FailedCreate` event or of a ReplicaSet's `ReplicaFailure` condition, read
//! by its structure.
//!
//! The message is the API server's error, as the controller wrapped it:
//!
//! | who | the message |
//! |---|---|
//! | ReplicaSet, ReplicationController, DaemonSet, Job (pkg/controller/controller_utils.go) | `Error creating: <error>` |
//! | StatefulSet (stateful_pod_control.go) | `create Pod web-0 in StatefulSet web failed error: <error>` (or `create Claim ...` for its claims) |
//! | `ReplicaFailure` condition (replica_set_utils.go) | `<error>` |
//! | the event recorder, when it folds similar events | `(combined from similar events): ...` |
//!
//! and the error is a Status whose message has one of three shapes:
//! `pods "web-7d9f8-" is forbidden: <admission error>` (an admission plugin or
//! webhook said no), `Pod "web-7d9f8-x2k9p" is invalid: <field errors>`
//! (validation), or `Internal error occurred: <error>` (a webhook could not be
//! called). Each admission plugin writes its own first words, and they have
//! kept them across versions:
//!
//! | cause | since | words |
//! |---|---|---|
//! | `quota_exceeded` | 1.1 | `cpu quota is 200m, current usage is 200m, requesting 100m` |
//! | | 1.2 | `Exceeded quota: q, requested: limits.cpu=2, used: ..., limited: ...` (lower-case `exceeded` since 1.4) |
//! | | 1.3 | `status unknown for quota: q` (`, resource: ...` later); 1.12 `insufficient quota to match these scopes: [...]` |
//! | `quota_requires_limits` | 1.1 | `cpu is limited by quota, must make explicit request` |
//! | | 1.2 | `Failed quota: q: must specify cpu,memory`; 1.27 `failed quota: q: must specify limits.cpu for: app; requests.memory for: app` |
//! | `limit_range` | 1.0 | `maximum cpu usage per Container is 1, but limit is 2`, `minimum memory usage per Pod is ...`, `cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000` (a list in `[...]` when several) |
//! | `pod_security` | 1.22 | `violates PodSecurity "restricted:latest": ...` |
//! | `pod_security_policy` | 1.8 | `unable to validate against any pod security policy: [...]`, `no providers available to validate pod request`; 1.19 `PodSecurityPolicy: unable to admit pod: [...]`; OpenShift's `unable to validate against any security context constraint` |
//! | `webhook_denied` | 1.9 | `admission webhook "name" denied the request[ without explanation]: ...`; 1.26 `ValidatingAdmissionPolicy 'name' with binding 'b' denied request: ...` |
//! | `webhook_unreachable` | 1.9 | `failed calling admission webhook "name": Post https://...: <transport error>`; 1.13 `failed calling webhook "name": ...`; 1.23 `... failed to call webhook: Post "https://...": ...` |
//! | `service_account_missing` | 1.0 | `service account ns/sa was not found, retry after the service account is created`, `No API token found for service account "sa", retry ...`; 1.11 `error looking up service account ns/sa: serviceaccount "sa" not found` |
//! | `namespace_terminating` | 1.2 | `unable to create new content in namespace x because it is being terminated` |
//! | `invalid_spec` | 1.0 | `Pod "x" is invalid: spec.containers[0].image: Required value` |
//!
//! Errors nest, outermost first: a webhook's denial can quote anything (a
//! policy engine's "must specify limits", a PodSecurity level), and a
//! PodSecurityPolicy's list of violations is written as field errors
//! (`Invalid value: true`). So the earliest words of any row decide; what
//! follows them is their detail. Messages are only read here, never turned
//! into label values: what a [`Refusal`] names (quota, resources, webhook,
//! level) is cut to the characters of a Kubernetes name.

use crate::diagnosis::RefusalCause;

use RefusalCause::*;

/// What a refusal message says: its cause and what it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub cause: RefusalCause,
    /// The ResourceQuota (`quota_exceeded`, `quota_requires_limits`).
    pub quota: Option<String>,
    /// The resources over quota, missing from the pod template, or out of a
    /// LimitRange's bounds, sorted and joined with `,`.
    pub resource: Option<String>,
    /// The admission webhook (`webhook_denied`, `webhook_unreachable`).
    pub webhook: Option<String>,
    /// The Pod Security level enforced (`privileged`, `baseline`, `restricted`).
    pub level: Option<&'static str>,
}

impl Refusal {
    fn new(cause: RefusalCause) -> Refusal {
        Refusal {
            cause,
            quota: None,
            resource: None,
            webhook: None,
            level: None,
        }
    }
}

/// The message with escaped and typographic quotes made plain, and an
/// ASCII-lower-cased copy with the same byte offsets: words are found in the
/// copy, names read from the original.
struct Text {
    original: String,
    lower: String,
}

impl Text {
    fn new(message: &str) -> Text {
        let original = message
            .replace("\\\"", "\"")
            .replace(['\u{201c}', '\u{201d}'], "\"");
        let lower = original.to_ascii_lowercase();
        Text { original, lower }
    }

    /// Every position where `words` start.
    fn positions<'a>(&'a self, words: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.lower.match_indices(words).map(|(at, _)| at)
    }

    /// The original text from `at` on.
    fn from(&self, at: usize) -> &str {
        &self.original[at..]
    }

    fn lower_from(&self, at: usize) -> &str {
        &self.lower[at..]
    }
}

/// A shape: the words it starts with, and how it is read where they are
/// (`None` when the words are there but the shape is not).
struct Shape {
    words: &'static [&'static str],
    read: fn(&Text, usize, &str) -> Option<Refusal>,
}

/// The shapes, with the rows of the module's table. The earliest match wins,
/// wherever it is in this list.
const SHAPES: &[Shape] = &[
    // --- Admission webhooks and policies. ---
    Shape {
        words: &["admission webhook \""],
        read: |text, at, words| {
            let (name, rest) = quoted(text, at + words.len() - 1)?;
            rest.trim_start()
                .to_ascii_lowercase()
                .starts_with("denied")
                .then(|| webhook(WebhookDenied, name))
        },
    },
    Shape {
        words: &["validatingadmissionpolicy '"],
        read: |text, at, words| {
            let start = at + words.len();
            let end = start + text.from(start).find('\'')?;
            text.lower_from(end)
                .contains("denied request")
                .then(|| webhook(WebhookDenied, &text.original[start..end]))
        },
    },
    // The ImagePolicyWebhook admission plugin names no webhook.
    Shape {
        words: &["image policy webhook backend denied"],
        read: |_, _, _| Some(Refusal::new(WebhookDenied)),
    },
    Shape {
        words: &[
            "failed calling webhook \"",
            "failed calling admission webhook \"",
        ],
        read: |text, at, words| {
            let (name, _) = quoted(text, at + words.len() - 1)?;
            Some(webhook(WebhookUnreachable, name))
        },
    },
    // The inner words of 1.23+, when a message was cut before the name.
    Shape {
        words: &["failed to call webhook"],
        read: |_, _, _| Some(Refusal::new(WebhookUnreachable)),
    },
    // --- ResourceQuota. ---
    Shape {
        words: &["exceeded quota:"],
        read: |text, at, words| {
            let rest = text.from(at + words.len());
            let quota = rest.split(',').next().unwrap_or_default();
            let requested = rest
                .split_once("requested:")
                .map(|(_, r)| r.split(", used:").next().unwrap_or(r))
                .unwrap_or_default();
            let resources = requested
                .split(',')
                .filter_map(|item| item.split_once('=').map(|(k, _)| k));
            Some(quota_refusal(QuotaExceeded, quota, resources))
        },
    },
    Shape {
        words: &["status unknown for quota:"],
        read: |text, at, words| {
            let rest = text.from(at + words.len());
            let quota = rest.split(',').next().unwrap_or_default();
            let resources = rest
                .split_once("resource:")
                .map(|(_, r)| r.split(',').collect::<Vec<_>>())
                .unwrap_or_default();
            Some(quota_refusal(QuotaExceeded, quota, resources.into_iter()))
        },
    },
    Shape {
        words: &["insufficient quota to match these scopes"],
        read: |_, _, _| Some(Refusal::new(QuotaExceeded)),
    },
    // 1.1: `cpu quota is 200m, current usage is 200m, requesting 100m`.
    Shape {
        words: &[" quota is "],
        read: |text, at, _| {
            text.lower_from(at)
                .contains(", current usage is")
                .then(|| quota_refusal(QuotaExceeded, "", word_before(text, at).into_iter()))
        },
    },
    Shape {
        words: &["failed quota:"],
        read: |text, at, words| {
            let rest = text.from(at + words.len());
            let (quota, rest) = rest.split_once(':').unwrap_or((rest, ""));
            // "must specify limits.cpu,limits.memory" (1.2-1.26), or
            // "must specify limits.cpu for: app; limits.memory for: app,db".
            let list = rest.split_once("must specify").map_or("", |(_, l)| l);
            let resources = list
                .split(';')
                .flat_map(|item| item.split(" for:").next().unwrap_or_default().split(','));
            Some(quota_refusal(QuotaRequiresLimits, quota, resources))
        },
    },
    // 1.1: `cpu is limited by quota, must make explicit request`.
    Shape {
        words: &[" is limited by quota"],
        read: |text, at, _| {
            Some(quota_refusal(
                QuotaRequiresLimits,
                "",
                word_before(text, at).into_iter(),
            ))
        },
    },
    // --- LimitRange: every violation names its resource; all are kept. ---
    Shape {
        words: &["maximum ", "minimum "],
        read: |text, at, _| usage_per(text, at).map(|_| limit_range(text)),
    },
    Shape {
        words: &[" max limit to request ratio per "],
        read: |text, _, _| Some(limit_range(text)),
    },
    // --- Pod security. ---
    Shape {
        words: &["violates podsecurity \""],
        read: |text, at, words| {
            let rest = text.lower_from(at + words.len());
            let level = rest.split([':', '"']).next().unwrap_or_default();
            let mut refusal = Refusal::new(PodSecurity);
            refusal.level = ["privileged", "baseline", "restricted"]
                .into_iter()
                .find(|l| *l == level);
            Some(refusal)
        },
    },
    Shape {
        words: &[
            "unable to validate against any pod security policy",
            "no providers available to validate pod request",
            "podsecuritypolicy: unable to",
            "unable to validate against any security context constraint",
        ],
        read: |_, _, _| Some(Refusal::new(PodSecurityPolicy)),
    },
    // --- The pod's ServiceAccount. ---
    Shape {
        words: &[
            "error looking up service account",
            "no api token found for service account",
        ],
        read: |_, _, _| Some(Refusal::new(ServiceAccountMissing)),
    },
    Shape {
        words: &["service account "],
        read: |text, at, _| {
            let rest = text.lower_from(at);
            let sentence = rest.split([',', ':']).next().unwrap_or_default();
            sentence
                .contains("was not found")
                .then(|| Refusal::new(ServiceAccountMissing))
        },
    },
    Shape {
        words: &["serviceaccount \"", "serviceaccounts \""],
        read: |text, at, words| {
            let (_, rest) = quoted(text, at + words.len() - 1)?;
            rest.trim_start()
                .starts_with("not found")
                .then(|| Refusal::new(ServiceAccountMissing))
        },
    },
    // --- The namespace. ---
    Shape {
        words: &[
            "because it is being terminated",
            "unable to create new content in namespace",
        ],
        read: |_, _, _| Some(Refusal::new(NamespaceTerminating)),
    },
    // --- Validation. ---
    Shape {
        words: &[" is invalid:"],
        read: |_, _, _| Some(Refusal::new(InvalidSpec)),
    },
];

/// Field errors without the `Kind "name" is invalid:` in front, when nothing
/// else is said.
const FIELD_ERRORS: &[&str] = &["invalid value:", ": required value", ": unsupported value:"];

/// The cause a refusal message names, with the quota, resources, webhook or
/// level it names.
pub fn refusal(message: &str) -> Refusal {
    let text = Text::new(message);
    let mut best: Option<(usize, Refusal)> = None;
    for shape in SHAPES {
        for words in shape.words {
            for at in text.positions(words) {
                if best.as_ref().is_some_and(|(b, _)| *b <= at) {
                    break;
                }
                if let Some(found) = (shape.read)(&text, at, words) {
                    best = Some((at, found));
                    break;
                }
            }
        }
    }
    match best {
        Some((_, found)) => found,
        None if FIELD_ERRORS.iter().any(|w| text.lower.contains(w)) => Refusal::new(InvalidSpec),
        None => Refusal::new(Other),
    }
}

/// Whether a warning event is a controller's report of a refused creation:
/// `FailedCreate`, which the ReplicaSet, ReplicationController, DaemonSet,
/// Job and StatefulSet controllers all use. Not `FailedCreatePodSandBox` nor
/// `FailedCreatePodContainer`: those are the kubelet's, about a pod that exists.
pub fn is_refusal_event(reason: &str) -> bool {
    reason == "FailedCreate"
}

/// `"name" rest` at `at` (the opening quote) → (name, rest).
fn quoted(text: &Text, at: usize) -> Option<(&str, &str)> {
    let rest = text.from(at).strip_prefix('"')?;
    let end = rest.find('"')?;
    Some((&rest[..end], &rest[end + 1..]))
}

/// The word just before `at` (`cpu` in `cpu quota is ...`).
fn word_before(text: &Text, at: usize) -> Option<&str> {
    text.original[..at]
        .rsplit(|c: char| c.is_whitespace() || c == ':' || c == '[' || c == ',')
        .next()
        .filter(|w| !w.is_empty())
}

/// `cpu` of `maximum cpu usage per Container is ...` at `at`.
fn usage_per(text: &Text, at: usize) -> Option<&str> {
    let rest = text.from(at);
    let (_, rest) = rest.split_once(' ')?;
    let (resource, tail) = rest.split_once(' ')?;
    tail.to_ascii_lowercase()
        .starts_with("usage per ")
        .then_some(resource)
}

/// A LimitRange refusal, with the resource of every violation it lists:
/// `maximum cpu usage per ...`, `minimum memory usage per ...`, `cpu max
/// limit to request ratio per ...`.
fn limit_range(text: &Text) -> Refusal {
    let mut resources = Vec::new();
    for words in ["maximum ", "minimum "] {
        resources.extend(text.positions(words).filter_map(|at| usage_per(text, at)));
    }
    resources.extend(
        text.positions(" max limit to request ratio per ")
            .filter_map(|at| word_before(text, at)),
    );
    resource_refusal(LimitRange, resources)
}

fn webhook(cause: RefusalCause, name: &str) -> Refusal {
    let mut refusal = Refusal::new(cause);
    refusal.webhook = bounded(name);
    refusal
}

fn quota_refusal<'a>(
    cause: RefusalCause,
    quota: &str,
    resources: impl Iterator<Item = &'a str>,
) -> Refusal {
    let mut refusal = resource_refusal(cause, resources.collect());
    refusal.quota = bounded(quota);
    refusal
}

fn resource_refusal(cause: RefusalCause, resources: Vec<&str>) -> Refusal {
    let mut names: Vec<String> = resources.into_iter().filter_map(bounded).collect();
    names.sort();
    names.dedup();
    let mut refusal = Refusal::new(cause);
    refusal.resource = (!names.is_empty()).then(|| names.join(","));
    refusal
}

/// A name as a label value: trimmed, only the characters of a Kubernetes
/// object, resource or webhook name, at most 253 of them; else none.
fn bounded(name: &str) -> Option<String> {
    let name = name.trim().trim_matches(['.', '[', ']']);
    let fits = !name.is_empty()
        && name.len() <= 253
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '/'));
    fits.then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cause(message: &str) -> RefusalCause {
        refusal(message).cause
    }

    #[test]
    fn the_outermost_refusal_decides() {
        // A policy engine's denial quotes what it checked.
        assert_eq!(
            cause(
                r#"admission webhook "validate.kyverno.svc" denied the request: must specify limits.cpu; violates PodSecurity "restricted:latest""#
            ),
            WebhookDenied
        );
        // A PodSecurityPolicy writes its violations as field errors.
        assert_eq!(
            cause(
                "pods \"x-\" is forbidden: unable to validate against any pod security policy: [spec.containers[0].hostPort: Invalid value: 4222: Host port 4222 is not allowed to be used. Allowed ports: []]"
            ),
            PodSecurityPolicy
        );
        // A denial that says the webhook it asked could not be called.
        assert_eq!(
            cause(
                r#"admission webhook "gate.example.io" denied the request: failed calling webhook "other.example.io""#
            ),
            WebhookDenied
        );
    }

    #[test]
    fn names_are_read_and_bounded() {
        let r = refusal(
            r#"Error creating: pods "web-7d9f8-" is forbidden: exceeded quota: compute, requested: limits.memory=2Gi,requests.hugepages-2Mi=1Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi"#,
        );
        assert_eq!(r.cause, QuotaExceeded);
        assert_eq!(r.quota.as_deref(), Some("compute"));
        assert_eq!(
            r.resource.as_deref(),
            Some("limits.memory,requests.hugepages-2Mi")
        );
        let r = refusal(
            r#"Internal error occurred: failed calling webhook \"mpod.kb.io\": Post \"https://svc.ns.svc:443/mutate?timeout=10s\": no endpoints available for service \"svc\""#,
        );
        assert_eq!(r.cause, WebhookUnreachable);
        assert_eq!(r.webhook.as_deref(), Some("mpod.kb.io"));
        let r = refusal(r#"violates PodSecurity "baseline:v1.29": host namespaces"#);
        assert_eq!((r.cause, r.level), (PodSecurity, Some("baseline")));
        let r = refusal(r#"violates PodSecurity "nonsense:latest": x"#);
        assert_eq!((r.cause, r.level), (PodSecurity, None));
        // Cut before the webhook's name: still the webhook that cannot be called.
        let r =
            refusal(r#"failed to call webhook: Post "https://svc.ns.svc:443/x?timeout=10s": EOF"#);
        assert_eq!((r.cause, r.webhook), (WebhookUnreachable, None));
        // Not a name: no label.
        let r = refusal(r#"admission webhook "a b{c}" denied the request"#);
        assert_eq!((r.cause, r.webhook), (WebhookDenied, None));
    }

    #[test]
    fn quota_wordings_of_every_version() {
        let r =
            refusal("failed quota: q: must specify limits.cpu for: app; limits.memory for: app,db");
        assert_eq!(r.cause, QuotaRequiresLimits);
        assert_eq!(r.quota.as_deref(), Some("q"));
        assert_eq!(r.resource.as_deref(), Some("limits.cpu,limits.memory"));
        let r = refusal(
            r#"Pod "nginx-" is forbidden: cpu quota is 200m, current usage is 200m, requesting 100m."#,
        );
        assert_eq!(
            (r.cause, r.resource.as_deref()),
            (QuotaExceeded, Some("cpu"))
        );
        let r = refusal(
            r#"Pod "nginx-" is forbidden: cpu is limited by quota, must make explicit request."#,
        );
        assert_eq!(
            (r.cause, r.resource.as_deref()),
            (QuotaRequiresLimits, Some("cpu"))
        );
        let r = refusal("status unknown for quota: q, resource: pods");
        assert_eq!(
            (r.cause, r.quota.as_deref(), r.resource.as_deref()),
            (QuotaExceeded, Some("q"), Some("pods"))
        );
    }

    #[test]
    fn every_limit_range_violation_names_its_resource() {
        let r = refusal(
            "pods \"x\" is forbidden: [cpu max limit to request ratio per Container is 5, but no request is specified or request is 0, maximum memory usage per Container is 1Gi, but limit is 2Gi]",
        );
        assert_eq!(r.cause, LimitRange);
        assert_eq!(r.resource.as_deref(), Some("cpu,memory"));
        // "maximum" alone is no LimitRange.
        assert_eq!(cause("maximum number of retries reached"), Other);
    }

    #[test]
    fn nothing_from_nothing() {
        assert_eq!(cause(""), Other);
        assert_eq!(cause("Error creating: "), Other);
        assert_eq!(
            cause("Error creating: Timeout: request did not complete within requested timeout 30s"),
            Other
        );
        assert!(is_refusal_event("FailedCreate"));
        assert!(!is_refusal_event("FailedCreatePodSandBox"));
    }
}
