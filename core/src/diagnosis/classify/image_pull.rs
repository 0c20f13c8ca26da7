//! Image pulls: the ErrImagePull message or the kubelet's
//! `Failed to pull image "...": ...` event, read as an error chain
//! ([`super::chain`]): the layer of the chain that names a cause decides,
//! whichever runtime wrote the wrappers around it.

use std::cell::RefCell;

use foldhash::HashMap;

use super::chain::{Chain, GrpcCode, Signal, Signals, Weight};
use crate::diagnosis::ImagePullCause;

use ImagePullCause::*;
use Weight::*;

/// The signals, by layer of the chain. Within a layer the innermost wins
/// (see [`Chain::decide`]); rows only break ties at one position.
static SIGNALS: Signals<ImagePullCause> = Signals::new(&[
    // --- The runtime itself, not the registry: no cause of the pull. ---
    Signal {
        cause: None,
        weight: Owns,
        words: &["dial unix", "is the docker daemon running"],
    },
    // --- Transport: the name, the certificate, the connection. ---
    // A lookup owns its detail: "lookup r on 10.0.0.10:53: ...: i/o timeout"
    // is a name that does not resolve, whatever went wrong asking.
    Signal {
        cause: Some(Dns),
        weight: Owns,
        words: &[
            "dial tcp: lookup ",
            "dial udp: lookup ",
            ": lookup ",
            "no such host",
            "server misbehaving",
            "temporary failure in name resolution",
            "name or service not known",
        ],
    },
    // "TLS handshake timeout" is a timeout; every other TLS and x509 error
    // owns its detail (the verifier's reasons, the certificate's names).
    Signal {
        cause: Some(Timeout),
        weight: Plain,
        words: &["tls handshake timeout"],
    },
    Signal {
        cause: Some(Tls),
        weight: Owns,
        words: &[
            "x509:",
            "tls:",
            "certificate signed by unknown authority",
            "certificate has expired",
            "certificate is not valid",
            "certificate is valid for",
            "handshake failure",
            "does not look like a tls handshake",
        ],
    },
    Signal {
        cause: Some(HttpToHttps),
        weight: Plain,
        words: &["server gave http response to https client"],
    },
    Signal {
        cause: Some(ConnectionRefused),
        weight: Plain,
        words: &[
            "connection refused",
            "no route to host",
            "network is unreachable",
            "host is unreachable",
            "connection reset",
            "broken pipe",
            "bad gateway",
            "service unavailable",
        ],
    },
    // Cancelled pulls are timeouts: the kubelet's image-pull-progress-deadline,
    // containerd's image_pull_progress_timeout ("cancel pulling image ...
    // because of no progress in 1m0s"), a request given up on.
    Signal {
        cause: Some(Timeout),
        weight: Plain,
        words: &[
            "i/o timeout",
            "timed out",
            "deadline exceeded",
            "timeout exceeded",
            "timeout awaiting",
            "gateway timeout",
            "context canceled",
            "request canceled",
            "operation was canceled",
            "no progress in",
            "no progress for",
        ],
    },
    // --- The node: its disk, its platform. ---
    Signal {
        cause: Some(NoSpace),
        weight: Plain,
        words: &["no space left on device", "disk quota exceeded"],
    },
    Signal {
        cause: Some(PlatformMismatch),
        weight: Plain,
        words: &[
            "no match for platform",
            "no matching manifest for",
            "no supported platform found",
            "no image found in manifest list for architecture",
            "no image found in image index for architecture",
            "does not match the specified platform",
            "image operating system",
        ],
    },
    // --- The registry's answer: its status and its error codes. ---
    Signal {
        cause: Some(RateLimited),
        weight: Plain,
        words: &[
            "toomanyrequests",
            "too many requests",
            "rate limit",
            "status 429",
            "status: 429",
            "status code 429",
            "http 429",
        ],
    },
    // Docker Hub answers a missing repository and a private one pulled without
    // credentials alike ("pull access denied, repository does not exist or may
    // require ..."): a mistyped name is the common case, so not_found, whatever
    // the registry's message quoted after it.
    Signal {
        cause: Some(NotFound),
        weight: Owns,
        words: &["pull access denied", "repository does not exist"],
    },
    Signal {
        cause: Some(NotFound),
        weight: Plain,
        words: &[
            "manifest unknown",
            "name unknown",
            "404 not found",
            "status: 404",
            "status 404",
            "status code 404",
            "http 404",
        ],
    },
    Signal {
        cause: Some(Unauthorized),
        weight: Plain,
        words: &[
            "unauthorized",
            "authentication required",
            "authorization failed",
            "not authorized",
            "access to the resource is denied",
            "insufficient_scope",
            "denied:",
            "forbidden",
            "status: 401",
            "status 401",
            "status code 401",
            "status: 403",
            "status 403",
            "status code 403",
            "http 401",
            "http 403",
        ],
    },
    // --- The content store: what arrived is not what was promised. ---
    // docker's "error pulling image configuration: ..." wraps any failure of
    // that download (timeouts, resets) and is no cause by itself.
    Signal {
        cause: Some(Corrupt),
        weight: Plain,
        words: &[
            "unknown blob",
            "blob unknown",
            "failed size validation",
            "digest mismatch",
            "unexpected commit digest",
            "commit failed",
            "failed commit on ref",
            "content digest",
            "verification failed",
            "invalid checksum digest",
            "unexpected eof",
            "archive/tar",
            "invalid tar header",
            "error processing tar file",
            "failed to register layer",
            "failed to extract layer",
            "layer does not exist",
        ],
    },
    // containerd ends its errors with their kind: "...: not found" after a
    // reference is a missing image, after anything more precise it is detail.
    Signal {
        cause: Some(NotFound),
        weight: Weak,
        words: &["not found"],
    },
]);

/// The gRPC code of the CRI error, when no layer of the chain says more.
fn by_code(code: GrpcCode) -> Option<ImagePullCause> {
    match code {
        GrpcCode::Canceled | GrpcCode::DeadlineExceeded => Some(Timeout),
        GrpcCode::NotFound => Some(NotFound),
        GrpcCode::Unauthenticated | GrpcCode::PermissionDenied => Some(Unauthorized),
        GrpcCode::ResourceExhausted => Some(RateLimited),
        _ => None,
    }
}

/// The cause an image-pull failure message names, if it names one.
pub fn image_pull(message: &str) -> Option<ImagePullCause> {
    // In a storm the kubelet repeats a few messages across thousands of
    // pods, each judged again at each new event: each message is read once
    // per thread (the judge's), until the memo holds too many.
    thread_local! {
        static READ: RefCell<HashMap<Box<str>, Option<ImagePullCause>>> = RefCell::default();
    }
    READ.with_borrow_mut(|read| {
        if let Some(cause) = read.get(message) {
            return *cause;
        }
        if read.len() >= MESSAGES_REMEMBERED {
            read.clear();
        }
        let cause = read_image_pull(message);
        read.insert(message.into(), cause);
        cause
    })
}

/// How many messages [`image_pull`] remembers per thread.
const MESSAGES_REMEMBERED: usize = 4096;

/// [`image_pull`], read from the message itself.
fn read_image_pull(message: &str) -> Option<ImagePullCause> {
    let chain = Chain::parse(message);
    // The kubelet's own pull limit: the whole message.
    if chain.contains("pull qps exceeded") {
        return Some(QpsExceeded);
    }
    // The registry says the node sent no credentials at all: unauthorized,
    // even inside Docker Hub's "repository does not exist or may require ...".
    if chain.contains("no basic auth credentials") {
        return Some(Unauthorized);
    }
    chain.decide(&SIGNALS, by_code)
}

/// Whether a warning event reports a failed pull or inspect of an image (not
/// the bare `Error: ErrImagePull` / `Error: ImagePullBackOff` follow-ups).
pub fn is_pull_failure_event(reason: &str, message: &str) -> bool {
    // The prefixes are ASCII with no letter a non-ASCII one lowercases to.
    let starts = |prefix: &str| {
        message
            .as_bytes()
            .get(..prefix.len())
            .is_some_and(|m| m.eq_ignore_ascii_case(prefix.as_bytes()))
    };
    match reason {
        "Failed" => starts("failed to pull image") || starts("failed to inspect image"),
        "InspectFailed" | "ErrImageNeverPull" => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message read again, or after the memo was emptied, reads as the
    /// message itself does.
    #[test]
    fn a_remembered_message_reads_as_it_did() {
        let qps = "Failed to pull image \"nginx\": pull QPS exceeded";
        let unknown = "Failed to pull image \"nginx\": something new";
        assert_eq!(image_pull(qps), Some(QpsExceeded));
        for i in 0..MESSAGES_REMEMBERED + 10 {
            let other = format!("Failed to pull image \"app:{i}\": no basic auth credentials");
            assert_eq!(image_pull(&other), Some(Unauthorized));
        }
        for _ in 0..2 {
            assert_eq!(image_pull(qps), read_image_pull(qps));
            assert_eq!(image_pull(unknown), read_image_pull(unknown));
            assert_eq!(image_pull(unknown), None);
        }
    }

    /// The kubelet's failed pull or inspect, in any case; not its follow-ups.
    #[test]
    fn pull_failure_events_are_told_by_their_first_words() {
        assert!(is_pull_failure_event(
            "Failed",
            "Failed to pull image \"x\": denied"
        ));
        assert!(is_pull_failure_event(
            "Failed",
            "FAILED TO INSPECT IMAGE \"x\""
        ));
        assert!(!is_pull_failure_event("Failed", "Error: ErrImagePull"));
        assert!(!is_pull_failure_event("Failed", "Failed to pull"));
        assert!(!is_pull_failure_event(
            "BackOff",
            "Failed to pull image \"x\""
        ));
        assert!(is_pull_failure_event("InspectFailed", ""));
    }

    #[test]
    fn the_transport_error_beats_the_wrapper_text() {
        // "failed to resolve reference" and "failed to authorize" wrap it
        assert_eq!(
            image_pull(
                r#"failed to resolve reference "r/x:1": failed to authorize: failed to fetch anonymous token: Get "https://r/token": dial tcp 10.0.0.1:443: i/o timeout"#
            ),
            Some(Timeout)
        );
        assert_eq!(
            image_pull(
                "error pulling image configuration: download failed after attempts=6: x509: certificate signed by unknown authority"
            ),
            Some(Tls)
        );
    }

    #[test]
    fn a_lookup_owns_its_detail() {
        assert_eq!(
            image_pull(
                "Get https://r/v2/: dial tcp: lookup r on 10.0.0.10:53: read udp 10.0.0.2:5000->10.0.0.10:53: i/o timeout"
            ),
            Some(Dns)
        );
    }

    #[test]
    fn containerd_trailing_kinds_are_detail() {
        assert_eq!(
            image_pull(
                "failed to pull and unpack image \"x\": no match for platform in manifest: not found"
            ),
            Some(PlatformMismatch)
        );
        assert_eq!(
            image_pull(
                "failed to unpack image on snapshotter overlayfs: content digest sha256:00: not found"
            ),
            Some(Corrupt)
        );
        assert_eq!(
            image_pull("failed to resolve reference \"r/x:1\": r/x:1: not found"),
            Some(NotFound)
        );
    }

    #[test]
    fn the_grpc_code_when_the_chain_says_nothing_more() {
        assert_eq!(
            image_pull("rpc error: code = Canceled desc = something new"),
            Some(Timeout)
        );
        assert_eq!(
            image_pull("rpc error: code = Unauthenticated desc = something new"),
            Some(Unauthorized)
        );
        assert_eq!(
            image_pull("rpc error: code = Unknown desc = something new"),
            None
        );
    }

    #[test]
    fn the_runtime_socket_is_no_registry() {
        assert_eq!(
            image_pull(
                r#"rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial unix /run/containerd/containerd.sock: connect: connection refused""#
            ),
            None
        );
    }

    #[test]
    fn http_statuses_however_written() {
        assert_eq!(
            image_pull(
                "Error response from daemon: error parsing HTTP 403 response body: unexpected end of JSON input"
            ),
            Some(Unauthorized)
        );
        assert_eq!(
            image_pull("Get https://r/v2/: Service Unavailable"),
            Some(ConnectionRefused)
        );
        assert_eq!(
            image_pull(
                "unexpected status from HEAD request to https://r/v2/x/manifests/1: 504 Gateway Timeout"
            ),
            Some(Timeout)
        );
    }

    #[test]
    fn nothing_from_nothing() {
        assert_eq!(image_pull(""), None);
        assert_eq!(image_pull("Back-off pulling image \"nginx\""), None);
    }
}
