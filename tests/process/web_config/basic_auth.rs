//! Basic auth everywhere but the probes, with or without TLS, and plain HTTP
//! without the file.

use super::*;

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
