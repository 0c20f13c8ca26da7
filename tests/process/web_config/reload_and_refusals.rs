//! Changed certificates and users picked up (a broken change not), and bad web
//! configs that stop the exporter with the problem named.

use super::*;

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
