//! `--web.config.file` with real clients: the exporter binary serving
//! examples/incidents.yaml over TLS, mutual TLS and basic auth, reached with
//! curl (`/usr/bin/curl`, installed by scripts/test) and scraped by a real
//! Prometheus (Debian package `prometheus`) with `tls_config` and `basic_auth`.
//! Certificates are made at test time with rcgen: a CA, a server certificate
//! for 127.0.0.1, a client certificate of the same CA and one of another CA.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::exporter::{BIN, Exporter};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use serde_json::Value;

mod basic_auth;
mod prometheus;
mod reload_and_refusals;
mod tls;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");

/// A certificate authority that signs server and client certificates.
struct Authority {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

impl Authority {
    fn new(name: &str) -> Authority {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let pem = params.self_signed(&key).unwrap().pem();
        Authority {
            issuer: Issuer::new(params, key),
            pem,
        }
    }

    /// (certificate PEM, key PEM).
    fn sign(&self, names: &[&str], usage: ExtendedKeyUsagePurpose) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, "kube-lifecycle-exporter test");
        params.extended_key_usages = vec![usage];
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// Certificates and keys written to a temporary directory, with the web
/// config beside them (so it names them relatively).
struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn new() -> Pki {
        let dir = tempfile::tempdir().unwrap();
        let ca = Authority::new("test CA");
        let rogue = Authority::new("rogue CA");
        let (server, server_key) = ca.sign(
            &["127.0.0.1", "localhost"],
            ExtendedKeyUsagePurpose::ServerAuth,
        );
        let (client, client_key) = ca.sign(&["prometheus"], ExtendedKeyUsagePurpose::ClientAuth);
        let (stranger, stranger_key) =
            rogue.sign(&["stranger"], ExtendedKeyUsagePurpose::ClientAuth);
        for (name, pem) in [
            ("ca.crt", &ca.pem),
            ("rogue-ca.crt", &rogue.pem),
            ("server.crt", &server),
            ("server.key", &server_key),
            ("client.crt", &client),
            ("client.key", &client_key),
            ("stranger.crt", &stranger),
            ("stranger.key", &stranger_key),
        ] {
            std::fs::write(dir.path().join(name), pem).unwrap();
        }
        Pki { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn file(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    fn write_config(&self, text: &str) -> PathBuf {
        let path = self.path("web-config.yml");
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The exporter serving the example with `config` as its web config.
    fn serve(&self, config: &str) -> Served {
        let path = self.write_config(config);
        let exporter = Exporter::start(&[
            "--from-file",
            EXAMPLE,
            "--web.config.file",
            path.to_str().unwrap(),
        ]);
        let address = exporter.base.trim_start_matches("http://").to_string();
        Served { exporter, address }
    }
}

struct Served {
    exporter: Exporter,
    /// 127.0.0.1:port
    address: String,
}

impl Served {
    fn https(&self, path: &str) -> String {
        format!("https://{}{path}", self.address)
    }

    fn http(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }
}

/// What curl said: its exit code, the HTTP status (0 when none), the
/// response headers and body, and the HTTP version.
#[derive(Debug)]
struct Curl {
    exit: i32,
    status: u16,
    headers: String,
    body: String,
    http_version: String,
    stderr: String,
}

impl Curl {
    fn ok(&self) -> bool {
        self.exit == 0 && self.status == 200
    }
}

fn curl(url: &str, options: &[&str]) -> Curl {
    let out = tempfile::tempdir().unwrap();
    let headers = out.path().join("headers");
    let body = out.path().join("body");
    let output = Command::new("curl")
        .args(["-sS", "--max-time", "15", "-D"])
        .arg(&headers)
        .arg("-o")
        .arg(&body)
        .args(["-w", "%{http_code} %{http_version}"])
        .args(options)
        .arg(url)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!("curl is needed ({e}); scripts/test installs it (apt-get install curl)")
        });
    let written = String::from_utf8_lossy(&output.stdout).to_string();
    let mut fields = written.split_whitespace();
    let status = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let http_version = fields.next().unwrap_or_default().to_string();
    Curl {
        exit: output.status.code().unwrap_or(-1),
        status,
        headers: std::fs::read_to_string(&headers).unwrap_or_default(),
        body: std::fs::read_to_string(&body).unwrap_or_default(),
        http_version,
        stderr: String::from_utf8_lossy(&output.stderr).to_string(),
    }
}

/// TLS with the server certificate, named relative to the config file.
const TLS: &str = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";
