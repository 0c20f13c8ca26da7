//! `--web.config.file`: the web configuration file of the Prometheus
//! exporter-toolkit (`tls_server_config`, `http_server_config`,
//! `basic_auth_users`), read, checked and kept current.
//!
//! What is supported and what is refused is decided here, so every refusal
//! names the field. Relative file names are resolved against the directory of
//! the configuration file, as the exporter-toolkit does.
//!
//! Reloading: the exporter-toolkit re-reads the file on every request and the
//! certificates on every handshake. Here the file and the files it names are
//! checked (modification time and size) when a connection is accepted, at most
//! once a second, and everything is read again when one of them changed; a
//! new configuration that does not load is logged and the last good one stays
//! in force. Turning TLS on or off needs a restart.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::http::{HeaderName, HeaderValue};
use parking_lot::{Mutex, RwLock};
use serde::Deserialize;

use super::auth::AuthMode;
use super::tls::{self, ClientAuth, TlsVersion};

/// A web configuration that loaded and passed every check.
#[derive(Debug)]
pub(crate) struct WebConfig {
    /// `None`: plain HTTP (the file may still ask for basic auth or headers).
    pub tls: Option<TlsSettings>,
    /// User name → bcrypt hash; empty: no authentication.
    pub users: BTreeMap<String, String>,
    /// Headers added to every response.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub http2: bool,
    /// `auth:` (this exporter's own key, as `--auth`); changing it needs a restart.
    pub auth: Option<AuthMode>,
    /// The configuration file and the files it names, watched for changes.
    pub files: Vec<PathBuf>,
}

/// What TLS was configured with, for the logs, and the rustls configuration.
#[derive(Debug)]
pub(crate) struct TlsSettings {
    pub server_config: Arc<rustls::ServerConfig>,
    pub client_auth: ClientAuth,
    pub min_version: TlsVersion,
    pub max_version: TlsVersion,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum WebConfigError {
    // The io::Error is shown in the message and not offered as a source:
    // `{err:#}` would print it twice.
    #[error("web config {path}: {error}")]
    Read { path: PathBuf, error: io::Error },
    /// Never the file's text: it holds bcrypt hashes and perhaps keys.
    #[error("web config {path}: line {line} column {column}: {field}{message}")]
    Syntax {
        path: PathBuf,
        line: u64,
        column: u64,
        /// `field: `, or empty when the problem is not inside a field.
        field: String,
        message: String,
    },
    #[error("web config {path}: {field}: {message}")]
    Invalid {
        path: PathBuf,
        field: String,
        message: String,
    },
}

/// A problem with one field, before the file's path is attached.
#[derive(Debug)]
pub(crate) struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

// The file as written. Every field of the exporter-toolkit format is listed,
// so a field it knows but this exporter does not support gets a precise
// refusal, and anything else is an unknown field.

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    tls_server_config: Option<RawTls>,
    #[serde(default)]
    http_server_config: Option<RawHttp>,
    #[serde(default)]
    basic_auth_users: Option<BTreeMap<String, String>>,
    #[serde(default)]
    rate_limit: Option<serde::de::IgnoredAny>,
    /// Not of the exporter-toolkit: `none` or `kubernetes`, as `--auth`.
    #[serde(default)]
    auth: Option<String>,
}

/// Every field is `Some` when its key is written, even blank or null, so a
/// section that says anything at all turns TLS on and then needs a
/// certificate: TLS settings are never silently plain HTTP.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTls {
    #[serde(default, deserialize_with = "written")]
    pub cert: Option<String>,
    #[serde(default, deserialize_with = "written")]
    pub key: Option<String>,
    #[serde(default, deserialize_with = "written")]
    pub client_ca: Option<String>,
    #[serde(default, deserialize_with = "written")]
    pub cert_file: Option<String>,
    #[serde(default, deserialize_with = "written")]
    pub key_file: Option<String>,
    #[serde(default, deserialize_with = "written")]
    pub client_auth_type: Option<String>,
    #[serde(default, deserialize_with = "written")]
    pub client_ca_file: Option<String>,
    #[serde(default, deserialize_with = "written")]
    pub client_allowed_sans: Option<Vec<String>>,
    #[serde(default, deserialize_with = "written")]
    pub min_version: Option<String>,
    #[serde(default, deserialize_with = "written")]
    pub max_version: Option<String>,
    #[serde(default, deserialize_with = "written")]
    pub cipher_suites: Option<Vec<String>>,
    #[serde(default, deserialize_with = "written")]
    pub curve_preferences: Option<Vec<String>>,
    /// rustls's `ignore_client_order`; true by default, as in the exporter-toolkit.
    #[serde(default, deserialize_with = "written")]
    pub prefer_server_cipher_suites: Option<bool>,
}

/// A key that is written: its value, or the type's default for `null`.
fn written<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Some(
        Option::<T>::deserialize(deserializer)?.unwrap_or_default(),
    ))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHttp {
    http2: Option<bool>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

/// The headers the exporter-toolkit allows, with the values it accepts
/// (`None`: any value).
const ALLOWED_HEADERS: [(&str, Option<&[&str]>); 5] = [
    ("Content-Security-Policy", None),
    ("X-Frame-Options", Some(&["deny", "sameorigin"])),
    ("X-Content-Type-Options", Some(&["nosniff"])),
    ("X-XSS-Protection", None),
    ("Strict-Transport-Security", None),
];

/// An unset string: absent or blank, as the exporter-toolkit treats it.
pub(super) fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

impl WebConfig {
    /// Reads and checks `path` and every file it names.
    pub(crate) fn load(path: &Path) -> Result<WebConfig, WebConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| WebConfigError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        let raw: RawConfig = if is_blank_yaml(&text) {
            RawConfig::default()
        } else {
            parse(&text).map_err(|(line, column, field, message)| WebConfigError::Syntax {
                path: path.to_path_buf(),
                line,
                column,
                field,
                message,
            })?
        };
        let base = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Self::check(raw, &base, path).map_err(|e| WebConfigError::Invalid {
            path: path.to_path_buf(),
            field: e.field,
            message: e.message,
        })
    }

    fn check(raw: RawConfig, base: &Path, path: &Path) -> Result<WebConfig, FieldError> {
        if raw.rate_limit.is_some() {
            return Err(FieldError::new(
                "rate_limit",
                "not supported by this exporter; remove it (rate-limit in front of it, e.g. in an ingress)",
            ));
        }
        let http = raw.http_server_config.unwrap_or_default();
        let http2 = http.http2.unwrap_or(true);
        let headers = check_headers(&http.headers)?;
        let users = check_users(raw.basic_auth_users.unwrap_or_default())?;
        let auth = raw
            .auth
            .as_deref()
            .map(AuthMode::parse)
            .transpose()
            .map_err(|message| FieldError::new("auth", message))?;
        let mut files = vec![path.to_path_buf()];
        let tls = match raw.tls_server_config {
            Some(raw_tls) if tls::is_enabled(&raw_tls) => {
                Some(tls::settings(&raw_tls, base, http2, &mut files)?)
            }
            _ => None,
        };
        Ok(WebConfig {
            tls,
            users,
            headers,
            http2,
            auth,
            files,
        })
    }
}

/// Parses the file; an error is its line, column, field path and message,
/// without the snippet of the file the parser would show, and with any value
/// written in the file hidden from the message.
fn parse(text: &str) -> Result<RawConfig, (u64, u64, String, String)> {
    let mut path = String::new();
    let parsed = serde_saphyr::with_deserializer_from_str(text, |de| {
        serde_path_to_error::deserialize::<_, RawConfig>(de).map_err(|e| {
            path = e.path().to_string();
            e.into_inner()
        })
    });
    let error = match parsed {
        Ok(raw) => return Ok(raw),
        Err(e) => e,
    };
    let error = error.without_snippet();
    let (line, column) = error.location().map_or((0, 0), |l| (l.line(), l.column()));
    let mut message = error.to_string();
    if let Some(rest) = message.strip_prefix("error: ") {
        message = rest.to_string();
    }
    let prefix = format!("line {line} column {column}: ");
    if let Some(rest) = message.strip_prefix(&prefix) {
        message = rest.to_string();
    }
    // Only the first line: the rest would be a rendering of the input.
    message = message
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    message = message.replace(", set DuplicateKeyPolicy in Options if acceptable", "");
    let suffix = format!(" at line {line}, column {column}");
    if let Some(rest) = message.strip_suffix(&suffix) {
        message = rest.to_string();
    }
    let field = match path.as_str() {
        "" | "." => String::new(),
        path => format!("{path}: "),
    };
    Err((line, column, field, hide_values(text, &message)))
}

/// `message` with every value written in `text` (what follows a `key:` or a
/// `- `) replaced by `<value>`: a parser quotes what it did not expect, and
/// that may be a bcrypt hash or a private key.
fn hide_values(text: &str, message: &str) -> String {
    let mut values: Vec<&str> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let value = if let Some((_, value)) = line.split_once(": ") {
            value
        } else if let Some(value) = line.strip_prefix("- ") {
            value
        } else if line.ends_with(':') {
            continue; // a key alone
        } else {
            line // a line of a block scalar: an inline key or certificate
        };
        values.push(value.trim());
        // The pieces of a flow collection: `{a: x, b: y}`, `[x, y]`.
        for piece in value.split([',', '{', '}', '[', ']']) {
            let piece = piece.split_once(": ").map_or(piece, |(_, v)| v);
            values.push(piece.trim().trim_matches(['"', '\'']));
        }
    }
    values.retain(|v| v.chars().count() >= 3);
    // Longest first, so a value is not left half hidden by a piece of it.
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    let mut message = message.to_string();
    for value in values {
        if message.contains(value) {
            message = message.replace(value, "<value>");
        }
    }
    message
}

fn is_blank_yaml(text: &str) -> bool {
    text.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#') || line == "---"
    })
}

fn check_headers(
    headers: &BTreeMap<String, String>,
) -> Result<Vec<(HeaderName, HeaderValue)>, FieldError> {
    let mut checked = Vec::new();
    for (name, value) in headers {
        let field = format!("http_server_config.headers.{name}");
        let Some((canonical, allowed)) = ALLOWED_HEADERS
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(name))
        else {
            let known: Vec<&str> = ALLOWED_HEADERS.iter().map(|(n, _)| *n).collect();
            return Err(FieldError::new(
                field,
                format!("header not allowed; allowed: {}", known.join(", ")),
            ));
        };
        let value = value.trim();
        if value.is_empty() {
            continue; // "unset if blank"
        }
        if let Some(allowed) = allowed
            && !allowed.iter().any(|a| a.eq_ignore_ascii_case(value))
        {
            return Err(FieldError::new(
                field,
                format!("{value:?} is not one of {}", allowed.join(", ")),
            ));
        }
        let value = HeaderValue::from_str(value)
            .map_err(|_| FieldError::new(&field, "not a valid header value"))?;
        let name = HeaderName::from_static(lowercase(canonical));
        checked.push((name, value));
    }
    Ok(checked)
}

/// `HeaderName::from_static` takes lower-case names only.
fn lowercase(name: &str) -> &'static str {
    match name {
        "Content-Security-Policy" => "content-security-policy",
        "X-Frame-Options" => "x-frame-options",
        "X-Content-Type-Options" => "x-content-type-options",
        "X-XSS-Protection" => "x-xss-protection",
        _ => "strict-transport-security",
    }
}

fn check_users(users: BTreeMap<String, String>) -> Result<BTreeMap<String, String>, FieldError> {
    for (user, hash) in &users {
        let field = format!("basic_auth_users.{user}");
        if user.contains(':') {
            return Err(FieldError::new(
                field,
                "a user name cannot contain ':' (basic auth separates user and password with it)",
            ));
        }
        let parts: bcrypt::HashParts = hash.parse().map_err(|e| {
            FieldError::new(
                &field,
                format!(
                    "not a bcrypt hash ({e}); make one with `htpasswd -nBC 10 \"\" | tr -d ':\\n'`"
                ),
            )
        })?;
        // The bcrypt crate parses any two digits; it hashes with 4 to 31 only.
        if !(4..=31).contains(&parts.get_cost()) {
            return Err(FieldError::new(
                field,
                format!("bcrypt cost {} is outside 4..31", parts.get_cost()),
            ));
        }
    }
    Ok(users)
}

/// Modification time and size of a file, or `None` when it cannot be read.
type Stamp = Option<(SystemTime, u64)>;

fn stamps(files: &[PathBuf]) -> Vec<Stamp> {
    files
        .iter()
        .map(|f| {
            std::fs::metadata(f)
                .ok()
                .and_then(|m| Some((m.modified().ok()?, m.len())))
        })
        .collect()
}

/// The web configuration in force, reloaded when its files change.
#[derive(Debug)]
pub(crate) struct WebSecurity {
    path: PathBuf,
    current: RwLock<Arc<WebConfig>>,
    watch: Mutex<Watch>,
}

#[derive(Debug)]
struct Watch {
    checked: Instant,
    /// The files and their stamps at the last load attempt, good or not, so
    /// a broken file is reported once and not on every connection.
    files: Vec<PathBuf>,
    seen: Vec<Stamp>,
}

/// How often the files are looked at, at most.
const CHECK_EVERY: Duration = Duration::from_secs(1);

impl WebSecurity {
    pub(crate) fn load(path: &Path) -> Result<WebSecurity, WebConfigError> {
        let config = WebConfig::load(path)?;
        let seen = stamps(&config.files);
        Ok(WebSecurity {
            path: path.to_path_buf(),
            watch: Mutex::new(Watch {
                checked: Instant::now(),
                files: config.files.clone(),
                seen,
            }),
            current: RwLock::new(Arc::new(config)),
        })
    }

    pub(crate) fn current(&self) -> Arc<WebConfig> {
        self.current.read().clone()
    }

    /// Reloads when a watched file changed since the last look (at most once
    /// a second); keeps the configuration in force when the new one fails.
    pub(crate) fn refresh(&self) {
        let mut watch = self.watch.lock();
        if watch.checked.elapsed() < CHECK_EVERY {
            return;
        }
        watch.checked = Instant::now();
        let now = stamps(&watch.files);
        if now == watch.seen {
            return;
        }
        let in_force = self.current();
        // The stamps taken before reading stay the reference, so a file
        // rewritten while it was being read is seen at the next look.
        watch.seen = now;
        match WebConfig::load(&self.path) {
            Ok(config) if config.tls.is_some() != in_force.tls.is_some() => {
                tracing::error!(
                    file = %self.path.display(),
                    "web config changed: turning TLS on or off needs a restart; keeping the previous configuration"
                );
            }
            Ok(config) if config.auth != in_force.auth => {
                tracing::error!(
                    file = %self.path.display(),
                    "web config changed: changing `auth` needs a restart; keeping the previous configuration"
                );
            }
            Ok(config) => {
                tracing::info!(file = %self.path.display(), users = config.users.len(), "web config reloaded");
                if config.files != watch.files {
                    watch.files = config.files.clone();
                    watch.seen = stamps(&watch.files);
                }
                *self.current.write() = Arc::new(config);
            }
            Err(error) => {
                tracing::error!(%error, "web config changed but does not load; keeping the previous configuration");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<WebConfig, WebConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("web.yml");
        std::fs::write(&path, text).unwrap();
        WebConfig::load(&path)
    }

    fn error(text: &str) -> String {
        load_text(text).unwrap_err().to_string()
    }

    // A well-formed bcrypt hash of cost 4.
    const HASH: &str = "$2y$04$Ncn1yhDBsu/YE7u/XC7TJeDNkb8OvOjEq8qmsEW3SWvRjBm9HxF5q";

    #[test]
    fn an_empty_file_is_plain_http_without_auth() {
        let config = load_text("# nothing yet\n").unwrap();
        assert!(config.tls.is_none() && config.users.is_empty() && config.headers.is_empty());
        assert!(config.http2);
    }

    #[test]
    fn basic_auth_alone_keeps_plain_http() {
        let config = load_text(&format!("basic_auth_users:\n  alice: '{HASH}'\n")).unwrap();
        assert!(config.tls.is_none());
        assert_eq!(config.users.len(), 1);
    }

    #[test]
    fn refusals_name_the_field() {
        for (text, field) in [
            ("tls_server_confg: {}\n", "tls_server_confg"),
            ("tls_server_config: {certfile: a}\n", "certfile"),
            (
                "tls_server_config: {cipher_suites: [TLS_AES_128_GCM_SHA256], cert_file: a, key_file: b}\n",
                "tls_server_config.cipher_suites",
            ),
            (
                "tls_server_config: {curve_preferences: [X25519], cert_file: a, key_file: b}\n",
                "tls_server_config.curve_preferences",
            ),
            (
                "tls_server_config: {client_allowed_sans: [a], cert_file: a, key_file: b}\n",
                "tls_server_config.client_allowed_sans",
            ),
            ("rate_limit: {interval: 1s, burst: 2}\n", "rate_limit"),
            (
                "basic_auth_users: {bob: plaintext}\n",
                "basic_auth_users.bob",
            ),
            (
                "http_server_config: {headers: {X-Powered-By: me}}\n",
                "http_server_config.headers.X-Powered-By",
            ),
            (
                "http_server_config: {headers: {X-Frame-Options: allow}}\n",
                "http_server_config.headers.X-Frame-Options",
            ),
            (
                "tls_server_config: {cert_file: missing.crt, key_file: missing.key}\n",
                "tls_server_config.cert_file",
            ),
            (
                "tls_server_config: {key_file: missing.key}\n",
                "tls_server_config.cert_file",
            ),
        ] {
            let message = error(text);
            assert!(message.contains(field), "{text} → {message}");
        }
    }

    #[test]
    fn blank_header_values_are_unset_and_names_are_case_insensitive() {
        let config = load_text(
            "http_server_config:\n  headers:\n    x-frame-options: DENY\n    Content-Security-Policy: ''\n",
        )
        .unwrap();
        assert_eq!(config.headers.len(), 1);
        assert_eq!(config.headers[0].0, "x-frame-options");
    }

    #[test]
    fn auth_is_none_or_kubernetes() {
        assert_eq!(
            load_text("auth: kubernetes\n").unwrap().auth,
            Some(AuthMode::Kubernetes)
        );
        assert_eq!(
            load_text("auth: none\n").unwrap().auth,
            Some(AuthMode::None)
        );
        assert_eq!(load_text("{}\n").unwrap().auth, None);
        let message = error("auth: oidc\n");
        assert!(
            message.contains("auth: \"oidc\" is not one of none, kubernetes"),
            "{message}"
        );
    }

    #[test]
    fn bcrypt_cost_out_of_range_is_refused() {
        let bad = HASH.replace("$04$", "$99$");
        let message = error(&format!("basic_auth_users: {{bob: '{bad}'}}\n"));
        assert!(message.contains("basic_auth_users.bob"), "{message}");
        assert!(message.contains("cost 99"), "{message}");
    }
}
