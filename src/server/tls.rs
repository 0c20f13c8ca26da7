//! TLS for `--web.config.file`: the rustls server configuration built from
//! `tls_server_config`, and a listener that completes handshakes before axum
//! sees a connection.
//!
//! rustls with the ring provider (the one kube uses) is chosen explicitly, so
//! no process-wide default provider is needed. rustls speaks TLS 1.2 and 1.3
//! only: `TLS10` and `TLS11` are refused at startup rather than raised silently.

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
use rustls::server::WebPkiClientVerifier;
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{
    DigitallySignedStruct, DistinguishedName, RootCertStore, ServerConfig, SignatureScheme,
};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use super::web_config::{FieldError, RawTls, TlsSettings, WebSecurity, given};

/// `tls_server_config.client_auth_type`, Go's `tls.ClientAuthType` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientAuth {
    NoClientCert,
    /// Asks for a certificate, accepts any or none (not verified).
    RequestClientCert,
    /// Requires a certificate, any (not verified).
    RequireAnyClientCert,
    /// Verifies a certificate against the client CA when one is sent.
    VerifyClientCertIfGiven,
    /// Requires a certificate signed by the client CA: mutual TLS.
    RequireAndVerifyClientCert,
}

impl ClientAuth {
    fn parse(value: Option<&str>) -> Result<Self, FieldError> {
        Ok(match value {
            None | Some("NoClientCert") => ClientAuth::NoClientCert,
            Some("RequestClientCert") => ClientAuth::RequestClientCert,
            // "RequireClientCert": the exporter-toolkit's older name.
            Some("RequireAnyClientCert" | "RequireClientCert") => ClientAuth::RequireAnyClientCert,
            Some("VerifyClientCertIfGiven") => ClientAuth::VerifyClientCertIfGiven,
            Some("RequireAndVerifyClientCert") => ClientAuth::RequireAndVerifyClientCert,
            Some(other) => {
                return Err(FieldError::new(
                    "tls_server_config.client_auth_type",
                    format!(
                        "{other:?} is not one of NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert"
                    ),
                ));
            }
        })
    }
}

impl fmt::Display for ClientAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum TlsVersion {
    Tls12,
    Tls13,
}

impl TlsVersion {
    fn parse(field: &str, value: Option<&str>, default: TlsVersion) -> Result<Self, FieldError> {
        match value {
            None => Ok(default),
            Some("TLS12") => Ok(TlsVersion::Tls12),
            Some("TLS13") => Ok(TlsVersion::Tls13),
            Some(old @ ("TLS10" | "TLS11")) => Err(FieldError::new(
                field,
                format!(
                    "{old} is not supported: this exporter (rustls) speaks TLS12 and TLS13 only"
                ),
            )),
            Some(other) => Err(FieldError::new(
                field,
                format!("{other:?} is not one of TLS10, TLS11, TLS12, TLS13"),
            )),
        }
    }

    fn rustls(self) -> &'static rustls::SupportedProtocolVersion {
        match self {
            TlsVersion::Tls12 => &rustls::version::TLS12,
            TlsVersion::Tls13 => &rustls::version::TLS13,
        }
    }
}

impl fmt::Display for TlsVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TlsVersion::Tls12 => "TLS12",
            TlsVersion::Tls13 => "TLS13",
        })
    }
}

/// Whether `tls_server_config` turns TLS on: any key written in it, even
/// blank. Only an empty section (`{}`) means plain HTTP, as in the
/// exporter-toolkit; a section with settings but no certificate is refused
/// by [`settings`] rather than served as plain HTTP.
pub(super) fn is_enabled(raw: &RawTls) -> bool {
    [
        &raw.cert,
        &raw.key,
        &raw.client_ca,
        &raw.cert_file,
        &raw.key_file,
        &raw.client_auth_type,
        &raw.client_ca_file,
        &raw.min_version,
        &raw.max_version,
    ]
    .into_iter()
    .any(Option::is_some)
        || raw.client_allowed_sans.is_some()
        || raw.cipher_suites.is_some()
        || raw.curve_preferences.is_some()
        || raw.prefer_server_cipher_suites.is_some()
}

const NO_CERTIFICATE: &str = "missing (or cert): tls_server_config has settings but no certificate, and TLS settings are never served as plain HTTP; give cert_file and key_file, or remove tls_server_config for plain HTTP";
const NO_KEY: &str =
    "missing (or key): a certificate needs its private key; give key_file (or key)";

fn refuse_non_empty(field: &str, value: &Option<Vec<String>>, why: &str) -> Result<(), FieldError> {
    match value {
        Some(list) if !list.is_empty() => Err(FieldError::new(field, why)),
        _ => Ok(()),
    }
}

/// Reads the PEM `tls_server_config` gives as `{name}` (inline) or
/// `{name}_file` (a file relative to `base`); records the file in `files` so
/// a change to it reloads the configuration.
fn pem_source(
    name: &str,
    inline: &Option<String>,
    file: &Option<String>,
    base: &Path,
    files: &mut Vec<PathBuf>,
) -> Result<Option<(String, Vec<u8>)>, FieldError> {
    let inline_field = format!("tls_server_config.{name}");
    let file_field = format!("tls_server_config.{name}_file");
    match (given(inline), given(file)) {
        (Some(_), Some(_)) => Err(FieldError::new(
            &file_field,
            format!("give either {inline_field} or {file_field}, not both"),
        )),
        (Some(text), None) => Ok(Some((inline_field, text.as_bytes().to_vec()))),
        (None, Some(name)) => {
            let path = base.join(name);
            let bytes = std::fs::read(&path).map_err(|e| {
                FieldError::new(&file_field, format!("reading {}: {e}", path.display()))
            })?;
            files.push(path.clone());
            Ok(Some((format!("{file_field} ({})", path.display()), bytes)))
        }
        (None, None) => Ok(None),
    }
}

fn certificates(source: &str, pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{source}: not PEM certificates: {e}"))?;
    if certs.is_empty() {
        return Err(format!("{source}: no PEM certificate in it"));
    }
    Ok(certs)
}

fn ring_provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Checks `tls_server_config` and builds the rustls configuration. Every
/// file is read before any is parsed, so the first problem reported is the
/// first in that order.
pub(super) fn settings(
    raw: &RawTls,
    base: &Path,
    http2: bool,
    files: &mut Vec<PathBuf>,
) -> Result<TlsSettings, FieldError> {
    refuse_unsupported(raw)?;
    let (min_version, max_version) = versions(raw)?;
    let client_auth = ClientAuth::parse(given(&raw.client_auth_type))?;
    let pems = Pems::read(raw, base, files)?;
    let (chain, key) = pems.identity()?;
    let provider = ring_provider();
    let verifier = client_verifier(pems.client_ca.as_ref(), client_auth, &provider)?;

    let versions: Vec<&'static rustls::SupportedProtocolVersion> =
        [TlsVersion::Tls12, TlsVersion::Tls13]
            .into_iter()
            .filter(|v| (min_version..=max_version).contains(v))
            .map(TlsVersion::rustls)
            .collect();
    let (cert_source, key_source) = (&pems.cert.0, &pems.key.0);
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&versions)
        .map_err(|e| FieldError::new("tls_server_config.min_version", e.to_string()))?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)
        .map_err(|e| {
            FieldError::new(
                "tls_server_config.key_file",
                format!("{key_source} does not fit {cert_source}: {e}"),
            )
        })?;
    config.ignore_client_order = raw.prefer_server_cipher_suites.unwrap_or(true);
    config.alpn_protocols = if http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    Ok(TlsSettings {
        server_config: Arc::new(config),
        client_auth,
        min_version,
        max_version,
    })
}

/// The exporter-toolkit settings rustls has no equivalent for, refused when
/// given rather than ignored.
fn refuse_unsupported(raw: &RawTls) -> Result<(), FieldError> {
    refuse_non_empty(
        "tls_server_config.cipher_suites",
        &raw.cipher_suites,
        "not supported by this exporter: rustls's default suites are used (all AEAD with forward secrecy); remove it",
    )?;
    refuse_non_empty(
        "tls_server_config.curve_preferences",
        &raw.curve_preferences,
        "not supported by this exporter: rustls's default groups are used (X25519, P-256, P-384); remove it",
    )?;
    refuse_non_empty(
        "tls_server_config.client_allowed_sans",
        &raw.client_allowed_sans,
        "not supported by this exporter; issue client certificates from a CA of their own and use it as client_ca_file",
    )
}

/// `min_version` and `max_version`, TLS12 and TLS13 when not given.
fn versions(raw: &RawTls) -> Result<(TlsVersion, TlsVersion), FieldError> {
    let min_version = TlsVersion::parse(
        "tls_server_config.min_version",
        given(&raw.min_version),
        TlsVersion::Tls12,
    )?;
    let max_version = TlsVersion::parse(
        "tls_server_config.max_version",
        given(&raw.max_version),
        TlsVersion::Tls13,
    )?;
    if min_version > max_version {
        return Err(FieldError::new(
            "tls_server_config.min_version",
            format!("{min_version} is above max_version {max_version}"),
        ));
    }
    Ok((min_version, max_version))
}

/// The PEM text of the certificate, its key and the client CA, each with
/// where it came from (the field, or the file) for messages.
struct Pems {
    cert: (String, Vec<u8>),
    key: (String, Vec<u8>),
    client_ca: Option<(String, Vec<u8>)>,
}

impl Pems {
    /// Reads each, inline or from its file; the certificate and key are required.
    fn read(raw: &RawTls, base: &Path, files: &mut Vec<PathBuf>) -> Result<Pems, FieldError> {
        let cert = pem_source("cert", &raw.cert, &raw.cert_file, base, files)?
            .ok_or_else(|| FieldError::new("tls_server_config.cert_file", NO_CERTIFICATE))?;
        let key = pem_source("key", &raw.key, &raw.key_file, base, files)?
            .ok_or_else(|| FieldError::new("tls_server_config.key_file", NO_KEY))?;
        let client_ca = pem_source(
            "client_ca",
            &raw.client_ca,
            &raw.client_ca_file,
            base,
            files,
        )?;
        Ok(Pems {
            cert,
            key,
            client_ca,
        })
    }

    /// The server's certificate chain and private key, parsed.
    fn identity(
        &self,
    ) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), FieldError> {
        let (cert_source, cert_pem) = &self.cert;
        let (key_source, key_pem) = &self.key;
        let chain = certificates(cert_source, cert_pem)
            .map_err(|m| FieldError::new("tls_server_config.cert_file", m))?;
        let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| {
            FieldError::new(
                "tls_server_config.key_file",
                format!("{key_source}: no PEM private key in it ({e})"),
            )
        })?;
        Ok((chain, key))
    }
}

/// How client certificates are checked, for `client_auth_type` and the
/// client CA; a CA without a verifying mode, or such a mode without a CA, is
/// refused.
fn client_verifier(
    client_ca: Option<&(String, Vec<u8>)>,
    client_auth: ClientAuth,
    provider: &Arc<rustls::crypto::CryptoProvider>,
) -> Result<Arc<dyn ClientCertVerifier>, FieldError> {
    Ok(match (client_ca, client_auth) {
        (Some(_), ClientAuth::NoClientCert) => {
            return Err(FieldError::new(
                "tls_server_config.client_ca_file",
                "a client CA is given but client_auth_type is NoClientCert; set client_auth_type: RequireAndVerifyClientCert",
            ));
        }
        (
            None,
            auth @ (ClientAuth::VerifyClientCertIfGiven | ClientAuth::RequireAndVerifyClientCert),
        ) => {
            return Err(FieldError::new(
                "tls_server_config.client_ca_file",
                format!("client_auth_type {auth} needs the CA that signs client certificates"),
            ));
        }
        (_, ClientAuth::NoClientCert) => WebPkiClientVerifier::no_client_auth(),
        (_, ClientAuth::RequestClientCert) => Arc::new(AnyClientCert {
            mandatory: false,
            provider: provider.clone(),
        }),
        (_, ClientAuth::RequireAnyClientCert) => Arc::new(AnyClientCert {
            mandatory: true,
            provider: provider.clone(),
        }),
        (Some((ca_source, ca_pem)), auth) => {
            let mut roots = RootCertStore::empty();
            for cert in certificates(ca_source, ca_pem)
                .map_err(|m| FieldError::new("tls_server_config.client_ca_file", m))?
            {
                roots.add(cert).map_err(|e| {
                    FieldError::new(
                        "tls_server_config.client_ca_file",
                        format!("{ca_source}: not a usable CA certificate: {e}"),
                    )
                })?;
            }
            let builder =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone());
            let builder = if auth == ClientAuth::VerifyClientCertIfGiven {
                builder.allow_unauthenticated()
            } else {
                builder
            };
            builder.build().map_err(|e| {
                FieldError::new(
                    "tls_server_config.client_ca_file",
                    format!("{ca_source}: {e}"),
                )
            })?
        }
    })
}

/// `RequestClientCert` and `RequireAnyClientCert`: a client certificate is
/// taken without checking who signed it (the client still proves it holds the
/// key). As in Go, this authenticates nobody; the README says so.
#[derive(Debug)]
struct AnyClientCert {
    mandatory: bool,
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl ClientCertVerifier for AnyClientCert {
    fn client_auth_mandatory(&self) -> bool {
        self.mandatory
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// A client that opens a connection and sends nothing is dropped after this.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Accepts TCP connections and hands axum only those whose TLS handshake
/// completed. Handshakes run in their own tasks, so a slow client delays
/// nobody; each uses the configuration in force when it was accepted.
pub(crate) struct TlsListener {
    handshaken: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local_addr: SocketAddr,
    acceptor: JoinHandle<()>,
}

impl TlsListener {
    pub(crate) fn new(
        tcp: TcpListener,
        security: Arc<WebSecurity>,
    ) -> std::io::Result<TlsListener> {
        let local_addr = tcp.local_addr()?;
        let (sender, handshaken) = mpsc::channel(64);
        let acceptor = tokio::spawn(accept_loop(tcp, security, sender));
        Ok(TlsListener {
            handshaken,
            local_addr,
            acceptor,
        })
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        // Graceful shutdown drops the listener: stop accepting at once.
        self.acceptor.abort();
    }
}

async fn accept_loop(
    tcp: TcpListener,
    security: Arc<WebSecurity>,
    handshaken: mpsc::Sender<(TlsStream<TcpStream>, SocketAddr)>,
) {
    loop {
        let (stream, peer) = match tcp.accept().await {
            Ok((stream, peer)) => {
                super::no_delay(&stream);
                (stream, peer)
            }
            Err(error) => {
                // Out of file descriptors and the like: wait rather than spin.
                tracing::error!(%error, "accepting a connection");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        security.refresh();
        let Some(tls) = security
            .current()
            .tls
            .as_ref()
            .map(|t| t.server_config.clone())
        else {
            // TLS cannot be turned off by a reload; nothing to serve this with.
            continue;
        };
        let handshaken = handshaken.clone();
        tokio::spawn(async move {
            match tokio::time::timeout(HANDSHAKE_TIMEOUT, TlsAcceptor::from(tls).accept(stream))
                .await
            {
                Ok(Ok(stream)) => {
                    let _ = handshaken.send((stream, peer)).await;
                }
                Ok(Err(error)) => tracing::debug!(%peer, %error, "TLS handshake failed"),
                Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
            }
        });
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.handshaken.recv().await {
            Some(connection) => connection,
            // The accept loop only ends when aborted, i.e. with the listener.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local_addr)
    }
}
