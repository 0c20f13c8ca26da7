//! `basic_auth_users` and `http_server_config.headers` of the web config, as
//! one middleware in front of every route.
//!
//! bcrypt at cost 10 takes tens of milliseconds per check, so a successful
//! check is remembered (by a SHA-256 of user, hash and password; no password
//! is kept) and a browser loading the landing page and its runbooks pays once.
//! Failed checks are not remembered; at most two run at a time, so guessing
//! cannot take every core. An unknown user is checked against a dummy hash, so
//! the answer takes as long as for a known one.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use parking_lot::Mutex;
use tokio::sync::Semaphore;

use super::web_config::{WebConfig, WebSecurity};

/// Open without credentials: the kubelet's probes send none, and they say
/// only whether the process runs and whether the watches have synced.
pub(crate) const OPEN_PATHS: [&str; 2] = ["/healthz", "/readyz"];

/// Remembered successes at most; past it the memory starts afresh.
const REMEMBERED: usize = 1024;

/// bcrypt checks running at once, at most.
const BCRYPT_AT_ONCE: usize = 2;

struct Gate {
    security: Arc<WebSecurity>,
    verified: Mutex<HashSet<[u8; 32]>>,
    bcrypt_slots: Semaphore,
}

/// Puts the web config's basic auth and headers in front of `router`.
pub(crate) fn protect(router: Router, security: Arc<WebSecurity>) -> Router {
    let gate = Arc::new(Gate {
        security,
        verified: Mutex::new(HashSet::new()),
        bcrypt_slots: Semaphore::new(BCRYPT_AT_ONCE),
    });
    router.layer(axum::middleware::from_fn_with_state(gate, guard))
}

async fn guard(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let config = gate.security.current();
    let open = config.users.is_empty() || OPEN_PATHS.contains(&request.uri().path());
    let mut response = if open || gate.allows(&config, request.headers()).await {
        next.run(request).await
    } else {
        unauthorized()
    };
    for (name, value) in &config.headers {
        response.headers_mut().insert(name.clone(), value.clone());
    }
    response
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"kube-lifecycle-exporter\", charset=\"UTF-8\""),
        )],
        "Unauthorized\n",
    )
        .into_response()
}

/// User and password of an `Authorization: Basic …` header.
fn credentials(headers: &HeaderMap) -> Option<(String, Vec<u8>)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let colon = decoded.iter().position(|&b| b == b':')?;
    let user = String::from_utf8(decoded[..colon].to_vec()).ok()?;
    Some((user, decoded[colon + 1..].to_vec()))
}

fn remembered_key(user: &str, hash: &str, password: &[u8]) -> [u8; 32] {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in [user.as_bytes(), hash.as_bytes(), password] {
        context.update(&(part.len() as u64).to_be_bytes());
        context.update(part);
    }
    let mut key = [0; 32];
    key.copy_from_slice(context.finish().as_ref());
    key
}

/// A hash no password is expected to match, for unknown users.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| bcrypt::hash("kube-lifecycle-exporter dummy", 10).unwrap_or_default())
}

impl Gate {
    async fn allows(&self, config: &WebConfig, headers: &HeaderMap) -> bool {
        let Some((user, password)) = credentials(headers) else {
            return false;
        };
        let known = config.users.get(&user).cloned();
        let key = known
            .as_deref()
            .map(|hash| remembered_key(&user, hash, &password));
        if let Some(key) = key
            && self.verified.lock().contains(&key)
        {
            return true;
        }
        let Ok(_slot) = self.bcrypt_slots.acquire().await else {
            return false;
        };
        let matched = tokio::task::spawn_blocking(move || {
            let hash = known.as_deref().unwrap_or_else(|| dummy_hash());
            bcrypt::verify(&password, hash).unwrap_or(false)
        })
        .await
        .unwrap_or(false);
        match key {
            Some(key) if matched => {
                let mut verified = self.verified.lock();
                if verified.len() >= REMEMBERED {
                    verified.clear();
                }
                verified.insert(key);
                true
            }
            _ => {
                tracing::debug!(%user, "basic auth failed");
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(raw: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(raw)
            ))
            .unwrap(),
        );
        headers
    }

    #[test]
    fn credentials_split_at_the_first_colon() {
        assert_eq!(
            credentials(&basic("alice:pa:ss")),
            Some(("alice".to_string(), b"pa:ss".to_vec()))
        );
        assert_eq!(credentials(&basic("no-colon")), None);
        let mut bearer = HeaderMap::new();
        bearer.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer abc"),
        );
        assert_eq!(credentials(&bearer), None);
    }

    #[test]
    fn remembered_keys_depend_on_every_part() {
        let key = remembered_key("alice", "h", b"p");
        assert_ne!(key, remembered_key("alice", "h", b"q"));
        assert_ne!(key, remembered_key("alice", "g", b"p"));
        assert_ne!(key, remembered_key("alicE", "h", b"p"));
        // Lengths are hashed too: moving bytes between parts changes the key.
        assert_ne!(
            remembered_key("ab", "c", b""),
            remembered_key("a", "bc", b"")
        );
    }
}
