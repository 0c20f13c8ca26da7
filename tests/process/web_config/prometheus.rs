//! A real Prometheus scraping over mutual TLS with basic auth, and the README's
//! example web config.

use super::*;

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
