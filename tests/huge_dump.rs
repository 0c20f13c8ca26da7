//! `diagnose` on a dump far larger than what it keeps: the input is streamed,
//! never held whole. The only test in this binary, so the children's peak
//! memory that `getrusage(RUSAGE_CHILDREN)` reports is this test's children's.

mod common;

use std::io::{BufWriter, Write};
use std::process::{Command, Stdio};

use common::{deleted, running_pod};

const BIN: &str = env!("CARGO_BIN_EXE_kube-lifecycle-exporter");
const PODS: usize = 2_000;
/// What `kubectl apply` leaves in every object it touched: the whole manifest again.
const ANNOTATION_BYTES: usize = 32 * 1024;

/// Peak resident set of the largest child waited for so far, in bytes.
#[allow(unsafe_code)] // getrusage, through libc
fn children_peak_rss() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole rusage into the pointer it is given.
    let usage = unsafe {
        assert_eq!(
            libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()),
            0
        );
        usage.assume_init()
    };
    // Linux reports ru_maxrss in KiB.
    usage.ru_maxrss as u64 * 1024
}

/// A JSON List of `PODS` pods with a large annotation each; every tenth is
/// stuck Terminating on a node that is gone. Written item by item.
fn write_dump(path: &std::path::Path) -> u64 {
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    let padding = "x".repeat(ANNOTATION_BYTES);
    write!(out, r#"{{"apiVersion":"v1","items":["#).unwrap();
    for i in 0..PODS {
        let mut pod = running_pod("bulk", &format!("pod-{i}"), "node-a", None);
        pod["metadata"]["annotations"] =
            serde_json::json!({"kubectl.kubernetes.io/last-applied-configuration": padding});
        if i % 10 == 0 {
            pod = deleted(pod, "2024-06-01T09:00:00Z", 30);
        }
        if i > 0 {
            out.write_all(b",").unwrap();
        }
        serde_json::to_writer(&mut out, &pod).unwrap();
    }
    write!(
        out,
        r#"],"kind":"List","metadata":{{"resourceVersion":""}}}}"#
    )
    .unwrap();
    out.flush().unwrap();
    std::fs::metadata(path).unwrap().len()
}

#[test]
fn a_dump_much_larger_than_the_model_is_streamed_from_a_file_and_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dump.json");
    let size = write_dump(&path);
    assert!(size > 60 * 1024 * 1024, "dump of {size} bytes");

    let from_file = Command::new(BIN)
        .args([
            "diagnose",
            path.to_str().unwrap(),
            "--now",
            "2024-06-01T12:00:00Z",
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        from_file.status.success(),
        "{}",
        String::from_utf8_lossy(&from_file.stderr)
    );
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&from_file.stdout).unwrap();
    assert_eq!(findings.len(), PODS / 10, "one finding per stuck pod");
    assert!(
        String::from_utf8_lossy(&from_file.stderr).contains(&format!("read {PODS} objects")),
        "{}",
        String::from_utf8_lossy(&from_file.stderr)
    );

    let from_stdin = Command::new(BIN)
        .args([
            "diagnose",
            "-",
            "--now",
            "2024-06-01T12:00:00Z",
            "-o",
            "json",
        ])
        .stdin(std::fs::File::open(&path).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        from_stdin.status.success(),
        "{}",
        String::from_utf8_lossy(&from_stdin.stderr)
    );
    assert_eq!(from_stdin.stdout, from_file.stdout);

    // Holding the input whole would take at least its size; streaming keeps one
    // item's text at a time next to the slim model.
    let peak = children_peak_rss();
    println!(
        "dump {} MiB, peak RSS of diagnose {} MiB",
        size >> 20,
        peak >> 20
    );
    assert!(
        peak < size / 2,
        "peak RSS {peak} bytes for a dump of {size} bytes"
    );
}
