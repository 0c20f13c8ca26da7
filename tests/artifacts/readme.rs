//! The README's first screen works as written: the install line is at the top,
//! every command of the quick start is one the binaries accept (and the ones that
//! need no cluster run), and the flags table lists every flag `serve --help` has.

use std::path::Path;
use std::process::Command;

const EXPORTER: &str = env!("CARGO_BIN_EXE_kube-lifecycle-exporter");
const PLUGIN: &str = env!("CARGO_BIN_EXE_kubectl-lifecycle");

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The README between `from` and the next `## ` heading.
fn section(readme: &str, from: &str) -> String {
    let start = readme
        .find(from)
        .unwrap_or_else(|| panic!("README has no {from:?}"));
    let rest = &readme[start + from.len()..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_string()
}

/// Lines of the ```sh blocks of `text`, comments cut.
fn shell_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("```") {
            inside = line == "```sh";
            continue;
        }
        if inside {
            let command = line.split(" #").next().unwrap().trim();
            if !command.is_empty() {
                lines.push(command.to_string());
            }
        }
    }
    lines
}

#[test]
fn the_install_line_is_near_the_top() {
    let readme = readme();
    let top: String = readme.lines().take(20).collect::<Vec<_>>().join("\n");
    assert!(
        top.contains("cargo install --locked --path ."),
        "no install line in the README's first 20 lines:\n{top}"
    );
}

#[test]
fn the_quick_start_covers_the_three_ways_in_and_its_commands_work() {
    let readme = readme();
    let quick = section(&readme, "## Quick start");
    let lines = shell_lines(&quick);
    for needle in [
        "diagnose examples/incidents.yaml",
        "kubectl lifecycle diagnose",
        "kubectl apply -k deploy",
    ] {
        assert!(
            lines.iter().any(|l| l.contains(needle)),
            "{needle:?} in {lines:?}"
        );
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for line in &lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (bin, args) = match words.as_slice() {
            ["kube-lifecycle-exporter", args @ ..] => (EXPORTER, args),
            ["kubectl", "lifecycle", args @ ..] => (PLUGIN, args),
            _ => continue,
        };
        checked += 1;
        // Every flag and subcommand is accepted (help stops before anything runs).
        let help = Command::new(bin).args(args).arg("--help").output().unwrap();
        assert!(
            help.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&help.stderr)
        );
        // What needs neither a cluster nor a file made by an earlier line runs.
        let offline = matches!(args.first(), Some(&"runbook"))
            || (args.first() == Some(&"diagnose")
                && args.get(1).is_some_and(|f| root.join(f).exists()));
        if offline {
            let out = Command::new(bin)
                .args(args)
                .current_dir(root)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{line}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!out.stdout.is_empty(), "{line}");
        }
    }
    assert!(checked >= 5, "{lines:?}");
}

/// The flags tables under "Run the exporter" name every flag of `serve --help`.
#[test]
fn every_serve_flag_is_in_the_readme_s_flags_table() {
    let readme = readme();
    let table = section(&readme, "Every flag has an environment variable");
    // The flags' table and the thresholds' (generated) below it.
    let table: String = table
        .lines()
        .filter(|l| l.starts_with('|'))
        .collect::<Vec<_>>()
        .join("\n");
    let help = Command::new(EXPORTER)
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let mut missing = Vec::new();
    // Option lines start with the flag; descriptions are indented further.
    for line in help.lines().filter(|l| l.trim_start().starts_with('-')) {
        let Some(flag) = line
            .trim_start()
            .split([' ', ','])
            .find(|w| w.starts_with("--"))
        else {
            continue;
        };
        if flag == "--help" {
            continue;
        }
        if !table.contains(&format!("`{flag}")) && !table.contains(&format!(", `{flag}")) {
            missing.push(flag.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "not in the README's flags table: {missing:?}"
    );
}
