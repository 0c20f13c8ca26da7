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

#[test]
fn tls_serves_the_same_endpoints_and_curl_verifies_the_server() {
    let pki = Pki::new();
    let served = pki.serve(TLS);
    let ca = pki.file("ca.crt");

    let metrics = curl(&served.https("/metrics"), &["--cacert", &ca]);
    assert!(metrics.ok(), "{metrics:?}");
    assert!(
        metrics.body.contains("kube_lifecycle_findings{"),
        "{metrics:?}"
    );
    // HTTP/2 is offered by ALPN (http2 defaults to true, as in the exporter-toolkit).
    assert_eq!(metrics.http_version, "2", "{metrics:?}");
    let findings = curl(&served.https("/findings"), &["--cacert", &ca]);
    assert!(findings.ok(), "{findings:?}");
    let list: Vec<Value> = serde_json::from_str(&findings.body).unwrap();
    assert!(!list.is_empty());
    assert!(curl(&served.https("/"), &["--cacert", &ca, "--http1.1"]).ok());
    // No authentication was asked for: no client certificate needed.
    assert!(curl(&served.https("/healthz"), &["--cacert", &ca]).ok());

    // A TLS 1.2 client is welcome by default (min_version TLS12).
    let tls12 = curl(
        &served.https("/metrics"),
        &["--cacert", &ca, "--tls-max", "1.2"],
    );
    assert!(tls12.ok(), "{tls12:?}");

    // curl without the CA refuses the server (exit 60: peer certificate
    // cannot be authenticated); plain HTTP to the TLS port gets nothing.
    let untrusted = curl(&served.https("/metrics"), &[]);
    assert_eq!(untrusted.exit, 60, "{untrusted:?}");
    assert!(untrusted.stderr.contains("certificate"), "{untrusted:?}");
    let plain = curl(&served.http("/metrics"), &[]);
    assert_ne!(plain.exit, 0, "{plain:?}");
    assert_ne!(plain.status, 200, "{plain:?}");

    // Neither a kept-alive TLS connection nor one that never starts its
    // handshake holds up SIGTERM.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = reqwest::Client::builder()
        .add_root_certificate(
            reqwest::Certificate::from_pem(&std::fs::read(pki.path("ca.crt")).unwrap()).unwrap(),
        )
        .pool_idle_timeout(Duration::from_secs(600))
        .build()
        .unwrap();
    let kept_alive = runtime.block_on(async {
        client
            .get(served.https("/healthz"))
            .send()
            .await
            .map(|r| r.status().as_u16())
    });
    assert_eq!(kept_alive.ok(), Some(200));
    let _silent = std::net::TcpStream::connect(&served.address).unwrap();
    let status = served.exporter.terminate();
    assert!(status.success(), "{status:?}");
}

#[test]
fn mutual_tls_accepts_only_client_certificates_of_the_client_ca() {
    let pki = Pki::new();
    let served = pki.serve(&format!(
        "{}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n",
        TLS
    ));
    let ca = pki.file("ca.crt");
    let with = |cert: &str, key: &str| {
        curl(
            &served.https("/metrics"),
            &[
                "--cacert",
                &ca,
                "--cert",
                &pki.file(cert),
                "--key",
                &pki.file(key),
            ],
        )
    };

    let client = with("client.crt", "client.key");
    assert!(client.ok(), "{client:?}");
    assert!(client.body.contains("kube_lifecycle_"));

    let none = curl(&served.https("/metrics"), &["--cacert", &ca]);
    assert!(!none.ok() && none.exit != 0, "{none:?}");
    let stranger = with("stranger.crt", "stranger.key");
    assert!(!stranger.ok() && stranger.exit != 0, "{stranger:?}");
    // Over TLS 1.2 too, where the refusal comes inside the handshake.
    let none12 = curl(
        &served.https("/metrics"),
        &["--cacert", &ca, "--tls-max", "1.2"],
    );
    assert_eq!(none12.status, 0, "{none12:?}");
    assert_ne!(none12.exit, 0, "{none12:?}");
}

#[test]
fn the_other_client_auth_types_behave_as_in_go() {
    let pki = Pki::new();
    let ca = pki.file("ca.crt");
    // (client_auth_type, with a CA?, expected for: no certificate, the CA's
    // client, another CA's client).
    for (auth_type, with_ca, expected) in [
        ("NoClientCert", false, [true, true, true]),
        ("RequestClientCert", false, [true, true, true]),
        ("RequireAnyClientCert", false, [false, true, true]),
        ("VerifyClientCertIfGiven", true, [true, true, false]),
        ("RequireAndVerifyClientCert", true, [false, true, false]),
    ] {
        let ca_line = if with_ca {
            "  client_ca_file: ca.crt\n"
        } else {
            ""
        };
        let served = pki.serve(&format!("{TLS}  client_auth_type: {auth_type}\n{ca_line}"));
        let url = served.https("/metrics");
        let answers = [
            curl(&url, &["--cacert", &ca]),
            curl(
                &url,
                &[
                    "--cacert",
                    &ca,
                    "--cert",
                    &pki.file("client.crt"),
                    "--key",
                    &pki.file("client.key"),
                ],
            ),
            curl(
                &url,
                &[
                    "--cacert",
                    &ca,
                    "--cert",
                    &pki.file("stranger.crt"),
                    "--key",
                    &pki.file("stranger.key"),
                ],
            ),
        ];
        for ((answer, expected), who) in answers.iter().zip(expected).zip([
            "no certificate",
            "the CA's client",
            "another CA's client",
        ]) {
            assert_eq!(answer.ok(), expected, "{auth_type}, {who}: {answer:?}");
        }
    }
}

#[test]
fn min_and_max_version_turn_away_other_tls_versions() {
    let pki = Pki::new();
    let ca = pki.file("ca.crt");

    let tls13_only = pki.serve(&format!("{}  min_version: TLS13\n", TLS));
    let old = curl(
        &tls13_only.https("/metrics"),
        &["--cacert", &ca, "--tls-max", "1.2"],
    );
    assert_ne!(old.exit, 0, "{old:?}");
    assert_eq!(old.status, 0, "{old:?}");
    let new = curl(
        &tls13_only.https("/metrics"),
        &["--cacert", &ca, "--tlsv1.3"],
    );
    assert!(new.ok(), "{new:?}");
    drop(tls13_only);

    let tls12_only = pki.serve(&format!("{}  max_version: TLS12\n", TLS));
    let newer = curl(
        &tls12_only.https("/metrics"),
        &["--cacert", &ca, "--tlsv1.3"],
    );
    assert_ne!(newer.exit, 0, "{newer:?}");
    let older = curl(
        &tls12_only.https("/metrics"),
        &["--cacert", &ca, "--tls-max", "1.2"],
    );
    assert!(older.ok(), "{older:?}");
}

#[test]
fn basic_auth_asks_for_the_password_everywhere_but_the_probes() {
    let pki = Pki::new();
    let hash = bcrypt::hash("s3cret pass", 10).unwrap();
    let served = pki.serve(&format!(
        "{}basic_auth_users:\n  alice: '{hash}'\n\
         http_server_config:\n  headers:\n    X-Content-Type-Options: nosniff\n    X-Frame-Options: deny\n",
        TLS
    ));
    let ca = pki.file("ca.crt");
    let get = |path: &str, user: Option<&str>| {
        let mut options = vec!["--cacert", ca.as_str()];
        if let Some(user) = user {
            options.extend(["-u", user]);
        }
        curl(&served.https(path), &options)
    };

    for (user, what) in [
        (None, "no credentials"),
        (Some("alice:wrong"), "a wrong password"),
        (Some("bob:s3cret pass"), "an unknown user"),
        (Some("alice:"), "an empty password"),
    ] {
        for path in ["/metrics", "/findings", "/", "/runbooks", "/no-such-page"] {
            let answer = get(path, user);
            assert_eq!(answer.status, 401, "{path} with {what}: {answer:?}");
            assert!(
                answer
                    .headers
                    .to_ascii_lowercase()
                    .contains("www-authenticate: basic"),
                "{answer:?}"
            );
            assert!(!answer.body.contains("kube_lifecycle"), "{answer:?}");
        }
    }

    let right = get("/metrics", Some("alice:s3cret pass"));
    assert!(right.ok(), "{right:?}");
    assert!(right.body.contains("kube_lifecycle_findings{"));
    // Again, answered from the remembered verification.
    for _ in 0..3 {
        assert!(get("/findings", Some("alice:s3cret pass")).ok());
    }
    let headers = right.headers.to_ascii_lowercase();
    assert!(
        headers.contains("x-content-type-options: nosniff"),
        "{headers}"
    );
    assert!(headers.contains("x-frame-options: deny"), "{headers}");

    // The kubelet's probes carry no credentials.
    for probe in ["/healthz", "/readyz"] {
        let answer = get(probe, None);
        assert!(answer.ok(), "{probe}: {answer:?}");
    }
}

#[test]
fn basic_auth_without_tls_keeps_plain_http() {
    let pki = Pki::new();
    let hash = bcrypt::hash("pw", 4).unwrap();
    let served = pki.serve(&format!(
        "tls_server_config: {{}}\nbasic_auth_users:\n  alice: '{hash}'\n"
    ));
    let denied = curl(&served.http("/metrics"), &[]);
    assert_eq!(denied.status, 401, "{denied:?}");
    let allowed = curl(&served.http("/metrics"), &["-u", "alice:pw"]);
    assert!(allowed.ok(), "{allowed:?}");
    assert!(curl(&served.http("/readyz"), &[]).ok());
    let status = served.exporter.terminate();
    assert!(status.success(), "{status:?}");
}

#[test]
fn without_the_file_plain_http_is_served_as_before() {
    let exporter = Exporter::start(&["--from-file", EXAMPLE]);
    let address = exporter.base.trim_start_matches("http://").to_string();
    let plain = curl(&format!("http://{address}/metrics"), &[]);
    assert!(plain.ok(), "{plain:?}");
    assert!(plain.body.contains("kube_lifecycle_findings{"));
    let tls = curl(&format!("https://{address}/metrics"), &["-k"]);
    assert_ne!(tls.exit, 0, "{tls:?}");
}

#[test]
fn changed_certificates_and_users_are_picked_up_and_a_broken_change_is_not() {
    let pki = Pki::new();
    let hash = |password: &str| bcrypt::hash(password, 4).unwrap();
    let config = |user: &str, password: &str| {
        format!("{}basic_auth_users:\n  {user}: '{}'\n", TLS, hash(password))
    };
    let served = pki.serve(&config("alice", "one"));
    let ca = pki.file("ca.crt");
    let get = |ca: &str, user: &str| curl(&served.https("/metrics"), &["--cacert", ca, "-u", user]);
    assert!(get(&ca, "alice:one").ok());

    // New users, and a server certificate from another CA (as when
    // cert-manager renews into the mounted secret).
    let other = Authority::new("renewed CA");
    let (cert, key) = other.sign(&["127.0.0.1"], ExtendedKeyUsagePurpose::ServerAuth);
    std::fs::write(pki.path("renewed-ca.crt"), &other.pem).unwrap();
    std::fs::write(pki.path("server.key"), key).unwrap();
    std::fs::write(pki.path("server.crt"), cert).unwrap();
    pki.write_config(&config("bob", "two"));
    let renewed_ca = pki.file("renewed-ca.crt");
    let picked_up = wait_for("the new certificate and users", || {
        get(&renewed_ca, "bob:two").ok()
    });
    assert!(picked_up, "{:#?}", served.exporter.logs());
    assert_eq!(get(&renewed_ca, "alice:one").status, 401);
    assert_eq!(get(&ca, "bob:two").exit, 60, "the old CA no longer fits");

    // A broken file is logged and the configuration in force stays.
    std::fs::write(pki.path("server.key"), "not a key").unwrap();
    let logged = wait_for("the broken key to be reported", || {
        let _ = get(&renewed_ca, "bob:two");
        served
            .exporter
            .logs()
            .iter()
            .any(|l| l.contains("does not load") && l.contains("tls_server_config.key_file"))
    });
    assert!(logged, "{:#?}", served.exporter.logs());
    assert!(get(&renewed_ca, "bob:two").ok());
}

/// Polls `check` (at least 1 s apart is the reload's own pace) for 20 s.
fn wait_for(what: &str, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    eprintln!("gave up waiting for {what}");
    false
}

/// Runs the exporter with `config` and expects it to stop at once, non-zero,
/// with every one of `expected` in its message.
fn refused(pki: &Pki, config: &str, expected: &[&str]) {
    let path = pki.write_config(config);
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--from-file", EXAMPLE])
        .arg("--web.config.file")
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the exporter kept running with\n{config}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(!status.success(), "{config}");
    for word in expected {
        assert!(
            stderr.contains(word),
            "{word:?} missing for\n{config}\n{stderr}"
        );
    }
}

#[test]
fn bad_web_configs_stop_the_exporter_with_the_problem_named() {
    let pki = Pki::new();
    let tls = TLS.to_string();
    let hash = bcrypt::hash("x", 4).unwrap();
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            format!("{tls}  chiper_suites: []\n"),
            vec!["unknown field", "chiper_suites"],
        ),
        (
            "basic_auth: {}\n".into(),
            vec!["unknown field", "basic_auth"],
        ),
        (
            tls.replace("server.crt", "missing.crt"),
            vec!["tls_server_config.cert_file", "missing.crt"],
        ),
        (
            format!("{tls}  min_version: TLS10\n"),
            vec!["tls_server_config.min_version", "TLS10", "not supported"],
        ),
        (
            format!("{tls}  max_version: TLS11\n"),
            vec!["tls_server_config.max_version", "TLS11"],
        ),
        (
            format!("{tls}  min_version: TLS13\n  max_version: TLS12\n"),
            vec!["tls_server_config.min_version"],
        ),
        (
            "basic_auth_users:\n  alice: password\n".into(),
            vec!["basic_auth_users.alice", "bcrypt"],
        ),
        (
            format!("basic_auth_users:\n  alice: '{}'\n", &hash[..50]),
            vec!["basic_auth_users.alice", "bcrypt"],
        ),
        (
            format!("{tls}  client_auth_type: RequireAndVerifyClientCert\n"),
            vec!["tls_server_config.client_ca_file"],
        ),
        (
            format!("{tls}  client_ca_file: ca.crt\n"),
            vec!["tls_server_config.client_ca_file", "client_auth_type"],
        ),
        (
            format!("{tls}  client_auth_type: Sometimes\n"),
            vec!["tls_server_config.client_auth_type", "Sometimes"],
        ),
        (
            tls.replace("server.key", "client.key"),
            vec!["tls_server_config.key_file", "does not fit"],
        ),
        (
            tls.replace("server.key", "ca.crt"),
            vec!["tls_server_config.key_file", "no PEM private key"],
        ),
        (
            format!("{tls}  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n"),
            vec!["tls_server_config.cipher_suites", "not supported"],
        ),
        (
            "rate_limit: {interval: 1s, burst: 10}\n".into(),
            vec!["rate_limit", "not supported"],
        ),
        ("tls_server_config: [\n".into(), vec!["web config"]),
    ];
    for (config, expected) in &cases {
        refused(&pki, config, expected);
    }
    // A file that is not there at all.
    let path = pki.path("absent.yml");
    let output = Command::new(BIN)
        .args(["serve", "--from-file", EXAMPLE, "--web.config.file"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("absent.yml"));
}

/// A child process killed when the test ends.
struct Daemon(std::process::Child, PathBuf);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn prometheus_query(base: &str, query: &str) -> Option<Value> {
    let answer = curl(
        &format!("{base}/api/v1/query"),
        &["-G", "--data-urlencode", &format!("query={query}")],
    );
    serde_json::from_str(&answer.body).ok()
}

fn scalar(answer: &Option<Value>) -> Option<f64> {
    answer.as_ref()?["data"]["result"][0]["value"][1]
        .as_str()?
        .parse()
        .ok()
}

#[test]
fn prometheus_scrapes_over_mutual_tls_with_basic_auth() {
    let pki = Pki::new();
    let hash = bcrypt::hash("scrape-pass", 10).unwrap();
    let served = pki.serve(&format!(
        "{}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n\
         basic_auth_users:\n  prometheus: '{hash}'\n",
        TLS
    ));

    let port = free_port();
    let config = format!(
        "global: {{scrape_interval: 1s}}\n\
         scrape_configs:\n\
         \x20 - job_name: secure\n\
         \x20   scheme: https\n\
         \x20   tls_config: {{ca_file: {ca}, cert_file: {cert}, key_file: {key}}}\n\
         \x20   basic_auth: {{username: prometheus, password: scrape-pass}}\n\
         \x20   static_configs: [{{targets: ['{target}']}}]\n\
         \x20 - job_name: no-client-cert\n\
         \x20   scheme: https\n\
         \x20   tls_config: {{ca_file: {ca}}}\n\
         \x20   basic_auth: {{username: prometheus, password: scrape-pass}}\n\
         \x20   static_configs: [{{targets: ['{target}']}}]\n",
        ca = pki.file("ca.crt"),
        cert = pki.file("client.crt"),
        key = pki.file("client.key"),
        target = served.address,
    );
    std::fs::write(pki.path("prometheus.yml"), config).unwrap();
    let log = pki.path("prometheus.log");
    let log_file = std::fs::File::create(&log).unwrap();
    let child = Command::new("prometheus")
        .arg(format!("--config.file={}", pki.file("prometheus.yml")))
        .arg(format!("--storage.tsdb.path={}", pki.file("prom-data")))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdin(Stdio::null())
        .stdout(log_file.try_clone().unwrap())
        .stderr(log_file)
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "prometheus is needed ({e}); scripts/test installs it (apt-get install prometheus)"
            )
        });
    let prometheus = Daemon(child, log);
    let base = format!("http://127.0.0.1:{port}");
    let diagnostics = || {
        format!(
            "{}\n{}",
            std::fs::read_to_string(&prometheus.1).unwrap_or_default(),
            served.exporter.logs().join("\n")
        )
    };

    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let up = scalar(&prometheus_query(&base, "up{job=\"secure\"}"));
        let series = scalar(&prometheus_query(
            &base,
            "count({__name__=~\"kube_lifecycle_.+\", job=\"secure\"})",
        ));
        let refused = scalar(&prometheus_query(&base, "up{job=\"no-client-cert\"}"));
        if up == Some(1.0) && series.is_some_and(|n| n > 0.0) && refused == Some(0.0) {
            break;
        }
        if Instant::now() > deadline {
            panic!(
                "no scrape over mutual TLS: up={up:?} series={series:?} no-client-cert up={refused:?}\n{}",
                diagnostics()
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    // The findings themselves arrived, with their labels.
    let zookeeper = scalar(&prometheus_query(
        &base,
        "count(kube_lifecycle_pod_terminating_since_timestamp_seconds{job=\"secure\", pod=\"zookeeper-0\"})",
    ));
    assert!(zookeeper.is_some_and(|n| n > 0.0), "{}", diagnostics());
}

#[test]
fn the_readme_example_web_config_serves_as_described() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let example = readme
        .split("```yaml\n")
        .find(|block| block.starts_with("tls_server_config:"))
        .and_then(|block| block.split("```").next())
        .expect("the README shows a web config");
    let pki = Pki::new();
    // The names the example uses.
    for (from, to) in [
        ("server.crt", "tls.crt"),
        ("server.key", "tls.key"),
        ("ca.crt", "client-ca.crt"),
    ] {
        std::fs::copy(pki.path(from), pki.path(to)).unwrap();
    }
    let served = pki.serve(example);
    let (ca, cert, key) = (
        pki.file("ca.crt"),
        pki.file("client.crt"),
        pki.file("client.key"),
    );
    let client = ["--cacert", &ca, "--cert", &cert, "--key", &key];
    let without_password = curl(&served.https("/metrics"), &client);
    assert_eq!(without_password.status, 401, "{without_password:?}");
    let with_password = [&client[..], &["-u", "prometheus:change-me"]].concat();
    let answer = curl(&served.https("/metrics"), &with_password);
    assert!(answer.ok(), "{answer:?}");
    assert!(
        answer
            .headers
            .to_ascii_lowercase()
            .contains("x-frame-options: deny")
    );
}
