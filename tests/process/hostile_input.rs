//! Hostile input and secrets (issue 20): what anyone who can create a pod or
//! an event writes must not drive the reader's terminal; a web config error
//! must not print the file; TLS settings are never served as plain HTTP; logs
//! carry colours on a terminal only; a broken dump says what and where.
//!
//! The pod is the ImagePullBackOff pod of examples/incidents.yaml (a real
//! kubelet message, from the write-up the example cites) with hostile text
//! put into its names and messages.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common;

use common::cli::{BIN, run};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/incidents.yaml");

/// What a terminal acts on: ESC (CSI, OSC 8 links, titles), the 8-bit CSI
/// and OSC, BEL, CR, backspace, DEL, and the bidi controls.
const HOSTILE: &[char] = &[
    '\u{1b}', '\u{9b}', '\u{9d}', '\u{7}', '\r', '\u{8}', '\u{7f}', '\u{202a}', '\u{202b}',
    '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{200e}',
    '\u{200f}', '\u{61c}',
];

fn hostile_dump() -> String {
    let name = "alert-engine\u{1b}]0;pwned\u{7}-\u{202e}7d4f\u{2066}x\u{2069}";
    let message = "Back-off pulling image \"172.27.129.211:35000/filebeat:6.0.0\"\u{1b}[2J\u{1b}[H\u{1b}]8;;http://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\ \u{9b}31m\u{9d}0;title\u{7}\rOK\u{8}\u{8}\u{7f}\u{200f}\u{61c}";
    json!({
        "apiVersion": "v1",
        "kind": "List",
        "items": [{
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": "env30\u{202d}",
                "uid": "2f3e4d5c-6b7a-4899-8a1b-2c3d4e5f6a01",
                "creationTimestamp": "2018-08-13T01:10:00Z"
            },
            "spec": {
                "nodeName": "m7-power-k8s03",
                "containers": [{"name": "filebeat\u{1b}[8m", "image": "172.27.129.211:35000/filebeat:6.0.0\u{202e}"}]
            },
            "status": {
                "phase": "Pending",
                "startTime": "2018-08-13T01:10:00Z",
                "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2018-08-13T01:10:00Z"}],
                "containerStatuses": [{
                    "name": "filebeat\u{1b}[8m",
                    "image": "172.27.129.211:35000/filebeat:6.0.0\u{202e}",
                    "ready": false,
                    "restartCount": 0,
                    "state": {"waiting": {"reason": "ImagePullBackOff", "message": message}}
                }]
            }
        }],
        "metadata": {"resourceVersion": ""}
    })
    .to_string()
}

#[test]
fn the_table_shows_control_and_bidi_characters_instead_of_obeying_them() {
    let out = run(
        &["diagnose", "-", "--now", "2018-08-13T02:00:00Z"],
        hostile_dump().as_bytes(),
    );
    assert!(out.status.success(), "{out:?}");
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("image_pull"), "{table}");
    for c in HOSTILE {
        assert!(
            !table.contains(*c),
            "U+{:04X} reached the terminal:\n{table}",
            *c as u32
        );
    }
    for shown in ["<U+001B>", "<U+202E>", "<U+0007>", "<U+2066>", "<U+202D>"] {
        assert!(table.contains(shown), "{shown} not shown:\n{table}");
    }
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains(HOSTILE), "{err}");
}

#[test]
fn json_output_escapes_them_and_keeps_the_values() {
    let out = run(
        &[
            "diagnose",
            "-",
            "-o",
            "json",
            "--now",
            "2018-08-13T02:00:00Z",
        ],
        hostile_dump().as_bytes(),
    );
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains(HOSTILE), "{text}");
    let findings: Value = serde_json::from_str(&text).unwrap();
    let name = findings[0]["name"].as_str().unwrap();
    assert!(
        name.contains('\u{202e}') && name.contains('\u{1b}'),
        "{name}"
    );

    let out = run(
        &[
            "diagnose",
            "-",
            "-o",
            "metrics",
            "--now",
            "2018-08-13T02:00:00Z",
        ],
        hostile_dump().as_bytes(),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("kube_lifecycle_"), "{text}");
    assert!(!text.contains(HOSTILE), "{text}");
}

#[test]
fn input_errors_quoting_the_input_do_not_reach_the_terminal_raw() {
    // A Pod whose name carries escapes and whose restartCount is a string.
    let dump = json!({"apiVersion": "v1", "kind": "List", "items": [{
        "apiVersion": "v1", "kind": "Pod\u{1b}[31m",
        "metadata": {"name": "p\u{1b}]0;x\u{7}\u{202e}", "namespace": "ns"},
    }, {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p\u{1b}]0;x\u{7}\u{202e}", "namespace": "ns"},
        "status": {"containerStatuses": [{"name": "c", "restartCount": "many\u{9b}2J"}]}
    }]});
    let out = run(&["diagnose", "-"], dump.to_string().as_bytes());
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("items[1].status.containerStatuses[0].restartCount"),
        "{err}"
    );
    assert!(!err.contains(HOSTILE), "{err:?}");
}

// ---------------------------------------------------------------------------
// Web config: no values in errors, once; TLS settings never plain HTTP.
// ---------------------------------------------------------------------------

const SECRET: &str = "$2y$10$Ncn1yhDBsu/YE7u/XC7TJeDNkb8OvOjEq8qmsEW3SWvRjBm9HxF5q";

/// Runs `serve` with `config` as the web config; it must stop by itself
/// (refusing the config) within a few seconds. Returns its standard error.
fn refused(config: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("web.yml");
    std::fs::write(&path, config).unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--from-file", EXAMPLE])
        .arg("--web.config.file")
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            assert!(!status.success(), "{config}\n{err}");
            return err;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the exporter started with\n{config}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_typo_in_the_web_config_names_line_and_field_and_never_prints_the_file() {
    for (config, expected) in [
        // A list where a hash belongs, after a good user.
        (
            format!("basic_auth_users:\n  alice: '{SECRET}'\n  bob: [1]\n"),
            vec!["line 3", "basic_auth_users.bob"],
        ),
        // An unclosed quote: the parser would show the lines around it.
        (
            format!("basic_auth_users:\n  alice: \"{SECRET}\n  bob: x\n"),
            vec!["line 2"],
        ),
        // A misspelt section below the users.
        (
            format!("basic_auth_users:\n  alice: '{SECRET}'\ntls_server_confg:\n  cert_file: a\n"),
            vec!["line 3", "tls_server_confg"],
        ),
        // A hash where a mapping belongs.
        (
            format!("basic_auth_users: '{SECRET}'\n"),
            vec!["line 1", "basic_auth_users"],
        ),
        (
            format!("basic_auth_users:\n  alice: '{SECRET}'\n  alice: '{SECRET}'\n"),
            vec!["line 3", "duplicate"],
        ),
    ] {
        let err = refused(&config);
        assert!(!err.contains("$2y$"), "the hash was printed:\n{err}");
        assert!(!err.contains("Ncn1yhDBsu"), "the hash was printed:\n{err}");
        for word in expected {
            assert!(err.contains(word), "{word:?} missing:\n{config}\n{err}");
        }
        assert_eq!(err.trim_end().lines().count(), 1, "one line:\n{err}");
    }
}

#[test]
fn errors_are_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["serve", "--from-file", EXAMPLE, "--web.config.file"])
        .arg(dir.path().join("absent.yml"))
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
    let err = refused("basic_auth_users:\n  alice: [1]\n");
    assert_eq!(err.matches("expected").count(), 1, "{err}");
}

#[test]
fn tls_settings_without_a_certificate_are_refused_not_served_as_http() {
    for config in [
        "tls_server_config:\n  min_version: TLS13\n",
        "tls_server_config:\n  max_version: TLS12\n",
        "tls_server_config:\n  client_ca_file: ca.crt\n",
        "tls_server_config:\n  key_file: tls.key\n",
        "tls_server_config:\n  cert_file: ''\n  key_file: ''\n",
        "tls_server_config:\n  cert_file:\n",
        "tls_server_config:\n  prefer_server_cipher_suites: true\n",
        "tls_server_config:\n  cipher_suites: []\n",
        "tls_server_config:\n  curve_preferences: []\n",
        "tls_server_config:\n  client_auth_type: RequireAndVerifyClientCert\n",
        "tls_server_config:\n  min_version: TLS99\n",
    ] {
        let err = refused(config);
        assert!(err.contains("tls_server_config."), "{config}\n{err}");
    }
    // A certificate without its key.
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tls.crt"), cert.cert.pem()).unwrap();
    let config = format!(
        "tls_server_config:\n  cert_file: {}\n",
        dir.path().join("tls.crt").display()
    );
    let err = refused(&config);
    assert!(err.contains("tls_server_config.key_file"), "{err}");
}

// ---------------------------------------------------------------------------
// Logs: colours only on a terminal.
// ---------------------------------------------------------------------------

/// The first log lines of `serve --from-file` with standard error a pipe.
fn first_log_lines(extra: &[&str]) -> String {
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--from-file", EXAMPLE])
        .args(extra)
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stderr.take().unwrap());
    let mut text = String::new();
    while !text.contains("serving /metrics") {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        text.push_str(&line);
    }
    let _ = child.kill();
    let _ = child.wait();
    text
}

#[test]
fn logs_to_a_pipe_carry_no_colours() {
    let text = first_log_lines(&[]);
    assert!(text.contains("serving /metrics"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    let json = first_log_lines(&["--log-format", "json"]);
    assert!(json.contains("serving /metrics"), "{json}");
    assert!(!json.contains('\u{1b}'), "{json:?}");
    for line in json.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
}

// ---------------------------------------------------------------------------
// Broken dumps: what and where.
// ---------------------------------------------------------------------------

fn diagnose_fails(input: &[u8]) -> String {
    let out = run(&["diagnose", "-"], input);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success(), "accepted:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// examples/incidents.yaml as `kubectl get -o yaml` prints it: keys sorted,
/// so `kind: List` comes after the items.
fn kubectl_yaml() -> String {
    let text = std::fs::read_to_string(EXAMPLE).unwrap();
    let body: String = text
        .lines()
        .skip_while(|l| !l.starts_with("items:"))
        .map(|l| format!("{l}\n"))
        .collect();
    format!("apiVersion: v1\n{body}kind: List\nmetadata:\n  resourceVersion: \"\"\n")
}

#[test]
fn binary_input_says_it_is_not_text_and_where() {
    let mut binary = b"apiVersion: v1\nkind: List\nitems:\n".to_vec();
    binary.extend_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0xff, 0xfe]);
    let err = diagnose_fails(&binary);
    assert!(err.contains("not text"), "{err}");
    assert!(
        err.contains("byte offset 40") && err.contains("line 4"),
        "{err}"
    );
    let err = diagnose_fails(b"kind: Pod\nmetadata: {name: \xff\xfe}\n");
    assert!(
        err.contains("not UTF-8") && err.contains("byte offset 27"),
        "{err}"
    );
    let err = diagnose_fails(b"{\"kind\": \"Pod\", \"x\": \"\xc3\"}");
    assert!(
        err.contains("not UTF-8") && err.contains("byte offset 22"),
        "{err}"
    );
}

#[test]
fn a_truncated_dump_is_refused() {
    let whole = kubectl_yaml();
    let out = run(&["diagnose", "-"], whole.as_bytes());
    assert!(out.status.success(), "{out:?}");
    // Cut anywhere inside the items: at a line's end and mid-line.
    let items_end = whole.rfind("kind: List").unwrap();
    for cut in [items_end / 3, items_end / 2, items_end - 1] {
        for cut in [cut, whole[..cut].rfind('\n').unwrap() + 1] {
            let err = diagnose_fails(&whole.as_bytes()[..cut]);
            assert!(
                err.contains("cut short") || err.contains("not valid YAML"),
                "{err}"
            );
            assert!(err.contains("document 1"), "{err}");
        }
    }
    // A List written with `kind` before its items (as examples/incidents.yaml
    // is) cut in the middle of an indented line.
    let example = std::fs::read_to_string(EXAMPLE).unwrap();
    let at = example.find("message: Back-off pulling image").unwrap() + 20;
    let err = diagnose_fails(&example.as_bytes()[..at]);
    assert!(err.contains("cut short") && err.contains("line "), "{err}");
    // JSON cut mid-array.
    let value: Value = serde_json::from_str(
        &serde_json::to_string(&serde_json::from_str::<Value>(&hostile_dump()).unwrap()).unwrap(),
    )
    .unwrap();
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    let err = diagnose_fails(&pretty.as_bytes()[..pretty.len() / 2]);
    assert!(err.contains("cut short") && err.contains("line"), "{err}");
}

#[test]
fn a_time_out_of_range_is_named_by_document_path_and_line() {
    let whole = kubectl_yaml();
    // The first object's creationTimestamp, whatever the example's date.
    let at = whole.find("creationTimestamp: \"").unwrap() + "creationTimestamp: \"".len();
    let late = format!("{}9999-12-31T23:59:59Z{}", &whole[..at], &whole[at + 20..]);
    assert_ne!(late, whole);
    let err = diagnose_fails(late.as_bytes());
    assert!(err.contains("document 1"), "{err}");
    assert!(err.contains(".metadata.creationTimestamp"), "{err}");
    assert!(err.contains("items["), "{err}");
    assert!(err.contains("line "), "{err}");
    assert!(err.contains("9999-12-31T23:59:59Z"), "{err}");
    assert!(
        !err.contains("Unix timestamp") && !err.contains("civil"),
        "{err}"
    );
}
