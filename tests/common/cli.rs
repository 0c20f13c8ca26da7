//! The exporter's binary run as a command, as a user runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_kube-lifecycle-exporter");

/// Runs the binary with `args`, writes `stdin` to its standard input and
/// closes it, and waits for it to exit.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin)
        .expect("the binary reads its standard input");
    child.wait_with_output().expect("the binary exits")
}
