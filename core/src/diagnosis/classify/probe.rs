//! Probe failures: the kubelet's `Unhealthy` and `Killing` events about a
//! container, read by their structure.
//!
//! The kubelet (pkg/kubelet/prober/prober.go) writes every probe result the
//! same way since 1.0: `<Liveness|Readiness|Startup> probe failed: <output>`,
//! or `... probe errored: <error>` when the probe could not be run at all, as
//! a Warning event with reason `Unhealthy`. When a liveness or startup probe
//! gives up it kills the container with a Normal `Killing` event:
//! `Container app failed liveness probe, will be restarted` (1.16+; before,
//! `Killing container with id docker://app:Container failed liveness probe..
//! Container will be killed and recreated.`).
//!
//! The output is the prober's own:
//!
//! | probe | output |
//! |---|---|
//! | HTTP (pkg/probe/http) | `HTTP probe failed with statuscode: 503`, or the Go client's error: `Get "http://10.0.0.1:8080/healthz": dial tcp 10.0.0.1:8080: connect: connection refused`, `... context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, `... EOF` |
//! | TCP (pkg/probe/tcp) | `dial tcp 10.0.0.1:5432: connect: connection refused`, `dial tcp ...: i/o timeout` |
//! | gRPC (pkg/probe/grpc, 1.24+) | `timeout: failed to connect service ":9090" within 1s: ...`, `timeout: health rpc did not complete within 1s`, `service unhealthy (responded with "NOT_SERVING")`, `error: this server does not implement the grpc health protocol ...` |
//! | exec (pkg/probe/exec) | whatever the command printed (often empty), `command "sh -c ..." timed out`, or the runtime's error: `OCI runtime exec failed: ...`, `rpc error: code = Unknown desc = failed to exec in container: ...` |
//!
//! The transport's error kind decides first, wherever it sits in the chain
//! (a curl run by an exec probe that says `Connection refused` was refused
//! too), then the HTTP status, then the runtime's exec errors, then gRPC
//! health answers; what is left is an HTTP or TCP error of another kind
//! (`other`) or, having none of those shapes, an exec command's output.

use crate::diagnosis::ProbeFailure;

/// Which probe a message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProbeKind {
    Liveness,
    Readiness,
    Startup,
}

/// What an `Unhealthy` event says: which probe, and how it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeResult {
    pub probe: ProbeKind,
    pub failure: ProbeFailure,
    /// The probe's own output, after `probe failed: `.
    pub output: String,
}

/// The probe an `Unhealthy` event's message is about, and how it failed;
/// `None` for any other message.
pub fn probe_event(reason: &str, message: &str) -> Option<ProbeResult> {
    if reason != "Unhealthy" {
        return None;
    }
    // "(combined from similar events): Readiness probe failed: ..."
    let text = message
        .strip_prefix("(combined from similar events): ")
        .unwrap_or(message)
        .trim_start();
    let lower = text.to_ascii_lowercase();
    let (probe, rest) = [
        ("liveness probe ", ProbeKind::Liveness),
        ("readiness probe ", ProbeKind::Readiness),
        ("startup probe ", ProbeKind::Startup),
    ]
    .into_iter()
    .find_map(|(prefix, kind)| lower.strip_prefix(prefix).map(|rest| (kind, rest)))?;
    let head = ["failed:", "errored:", "failed", "errored"]
        .into_iter()
        .find(|h| rest.starts_with(h))?;
    let start = text.len() - rest.len() + head.len();
    let output = text[start..].trim().to_string();
    Some(ProbeResult {
        probe,
        failure: probe_failure(&output),
        output,
    })
}

/// Whether a `Killing` event says the kubelet killed the container for a
/// failed liveness or startup probe, and which.
pub fn probe_kill(reason: &str, message: &str) -> Option<ProbeKind> {
    if reason != "Killing" {
        return None;
    }
    let lower = message.to_ascii_lowercase();
    if lower.contains("failed liveness probe") {
        Some(ProbeKind::Liveness)
    } else if lower.contains("failed startup probe") {
        Some(ProbeKind::Startup)
    } else {
        None
    }
}

/// The transport's error kinds: the connection was refused or dropped.
const REFUSED: &[&str] = &[
    "connection refused",
    "connection reset",
    "no route to host",
    "network is unreachable",
    "host is unreachable",
    "broken pipe",
    "server closed the connection",
    "connection closed",
    "failed to connect to",
    "couldn't connect to server",
];

/// The transport's error kinds: nothing answered in time.
const TIMEOUT: &[&str] = &[
    "timeout",
    "timed out",
    "deadline exceeded",
    "did not complete within",
    "request canceled",
];

/// The runtime could not run the exec probe's command.
const EXEC: &[&str] = &[
    "oci runtime exec failed",
    "exec failed",
    "failed to exec",
    "cannot exec",
    "executable file not found",
    "exec format error",
    "container not running",
    "container is not running",
    "no running task",
];

/// A gRPC health check's answer (the kubelet's gRPC prober, or grpc_health_probe run by exec).
const GRPC: &[&str] = &[
    "service unhealthy",
    "not_serving",
    "service_unknown",
    "health rpc",
    "grpc health",
    "grpc.health",
    "health protocol",
    "failed to connect service",
    "rpc error: code =",
];

/// The shapes of an HTTP or TCP prober's own errors.
const HTTP_OR_TCP: &[&str] = &[
    "get \"",
    "get http",
    "head \"",
    "dial tcp",
    "dial udp",
    "net/http",
    "x509:",
    "tls:",
    "http: ",
    "stopped after",
    "lookup ",
    "probe failed with",
];

/// How a probe failed, from its output (see the module's table).
pub fn probe_failure(output: &str) -> ProbeFailure {
    let lower = output.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    // An exec command printing nothing is the only probe with no output.
    if lower.trim().is_empty() {
        return ProbeFailure::ExecFailed;
    }
    // Before 1.2 the HTTP prober gave the failing answer's body, not its
    // status code: an HTML page is an HTTP answer.
    let html = ["<html", "<!doctype", "<head"]
        .iter()
        .any(|tag| lower.trim_start().starts_with(tag));
    if lower.contains("probe failed with statuscode") || lower.contains("statuscode:") || html {
        return ProbeFailure::HttpStatus;
    }
    if has(REFUSED) || ends_with_eof(&lower) {
        return ProbeFailure::ConnectionRefused;
    }
    if has(TIMEOUT) {
        return ProbeFailure::Timeout;
    }
    if has(EXEC) {
        return ProbeFailure::ExecFailed;
    }
    if has(GRPC) {
        return ProbeFailure::Grpc;
    }
    if has(HTTP_OR_TCP) {
        return ProbeFailure::Other;
    }
    ProbeFailure::ExecFailed
}

/// `Get "http://...": EOF`, `read tcp ...: EOF`: the peer closed the connection.
fn ends_with_eof(lower: &str) -> bool {
    let t = lower.trim_end();
    t.ends_with(": eof") || t.ends_with(": unexpected eof")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProbeFailure::*;

    #[test]
    fn the_prefix_names_the_probe_and_the_rest_is_its_output() {
        let r = probe_event(
            "Unhealthy",
            "Readiness probe failed: HTTP probe failed with statuscode: 503",
        )
        .unwrap();
        assert_eq!(r.probe, ProbeKind::Readiness);
        assert_eq!(r.failure, HttpStatus);
        assert_eq!(r.output, "HTTP probe failed with statuscode: 503");
        let r = probe_event("Unhealthy", "Liveness probe failed: ").unwrap();
        assert_eq!((r.probe, r.failure), (ProbeKind::Liveness, ExecFailed));
        let r = probe_event(
            "Unhealthy",
            "Startup probe errored: rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state",
        )
        .unwrap();
        assert_eq!((r.probe, r.failure), (ProbeKind::Startup, ExecFailed));
        assert_eq!(probe_event("BackOff", "Liveness probe failed: x"), None);
        assert_eq!(probe_event("Unhealthy", "Node is unhealthy"), None);
    }

    #[test]
    fn kills_name_their_probe() {
        assert_eq!(
            probe_kill(
                "Killing",
                "Container app failed liveness probe, will be restarted"
            ),
            Some(ProbeKind::Liveness)
        );
        assert_eq!(
            probe_kill(
                "Killing",
                "Container app failed startup probe, will be restarted"
            ),
            Some(ProbeKind::Startup)
        );
        assert_eq!(probe_kill("Killing", "Stopping container app"), None);
    }

    #[test]
    fn the_transport_error_decides_before_the_protocol() {
        assert_eq!(
            probe_failure(
                "error: health rpc failed: rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing dial tcp 127.0.0.1:50051: connect: connection refused\""
            ),
            ConnectionRefused
        );
        assert_eq!(
            probe_failure("timeout: failed to connect service \":50051\" within 1s"),
            Timeout
        );
        assert_eq!(
            probe_failure("service unhealthy (responded with \"NOT_SERVING\")"),
            Grpc
        );
        assert_eq!(
            probe_failure(
                "Get \"https://10.0.0.1:8443/healthz\": x509: certificate signed by unknown authority"
            ),
            Other
        );
        assert_eq!(
            probe_failure("Get \"http://10.0.0.1:8080/\": EOF"),
            ConnectionRefused
        );
        assert_eq!(probe_failure("pg_isready: no response"), ExecFailed);
    }
}
