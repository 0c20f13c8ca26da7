//! TLS and mutual TLS: the same endpoints served and verified by curl, client
//! certificates and the other client auth types as in Go, min and max versions.

use super::*;

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
