//! The Dockerfile, as far as it can be checked without a container engine: the
//! runtime stage's user, entrypoint and flags against the Deployment and the
//! binary, and the build stage's command run on exactly the files it copies
//! (a release build of its own, a few minutes on two cores). Not checked: that
//! the base images exist and that the image runs (nothing here can pull or run
//! one); the binary's shared libraries are compared with what distroless/cc holds.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kube-lifecycle-exporter");
/// The shared libraries gcr.io/distroless/cc-debian12 provides (glibc, libgcc_s).
const DISTROLESS_CC_LIBRARIES: &[&str] = &[
    "libc.so.6",
    "libm.so.6",
    "libgcc_s.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "ld-linux-x86-64.so.2",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One Dockerfile instruction: its keyword in upper case and the rest of the line.
#[derive(Debug, Clone)]
struct Instruction {
    keyword: String,
    arguments: String,
}

/// The stages of the Dockerfile, each a list of instructions starting with FROM.
fn stages() -> Vec<Vec<Instruction>> {
    let text = std::fs::read_to_string(root().join("Dockerfile")).expect("Dockerfile");
    let mut lines: Vec<String> = Vec::new();
    let mut continued = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if !continued && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        let (body, continues) = match trimmed.strip_suffix('\\') {
            Some(body) => (body.trim(), true),
            None => (trimmed, false),
        };
        if continued {
            let last = lines.last_mut().expect("a continued line");
            last.push(' ');
            last.push_str(body);
        } else {
            lines.push(body.to_string());
        }
        continued = continues;
    }
    let mut stages: Vec<Vec<Instruction>> = Vec::new();
    for line in lines {
        let (keyword, arguments) = line.split_once(' ').unwrap_or((&line, ""));
        let instruction = Instruction {
            keyword: keyword.to_uppercase(),
            arguments: arguments.trim().to_string(),
        };
        if instruction.keyword == "FROM" {
            stages.push(Vec::new());
        }
        stages
            .last_mut()
            .expect("the Dockerfile starts with FROM")
            .push(instruction);
    }
    assert_eq!(stages.len(), 2, "a build stage and a runtime stage");
    stages
}

fn the(stage: &[Instruction], keyword: &str) -> String {
    let found: Vec<&Instruction> = stage.iter().filter(|i| i.keyword == keyword).collect();
    assert_eq!(found.len(), 1, "one {keyword} in {stage:?}");
    found[0].arguments.clone()
}

/// An exec-form (JSON array) ENTRYPOINT or CMD.
fn exec_form(arguments: &str) -> Vec<String> {
    serde_json::from_str(arguments)
        .unwrap_or_else(|e| panic!("`{arguments}` is not the exec (JSON) form: {e}"))
}

fn deployment() -> Value {
    let text = std::fs::read_to_string(root().join("deploy/base/deployment.yaml")).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

fn serve_help() -> String {
    let output = Command::new(BIN)
        .args(["serve", "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_runtime_stage_runs_only_the_binary_as_the_deployment_s_non_root_user() {
    let stages = stages();
    let runtime = &stages[1];
    let keywords: BTreeSet<&str> = runtime.iter().map(|i| i.keyword.as_str()).collect();
    assert_eq!(
        keywords,
        BTreeSet::from(["FROM", "COPY", "USER", "EXPOSE", "ENTRYPOINT", "CMD"]),
        "nothing else in the runtime stage (no RUN: distroless has no shell; no ENV: \
         the benchmark measures the binary in glibc's default environment)"
    );
    assert!(the(runtime, "FROM").starts_with("gcr.io/distroless/cc-debian12:nonroot"));

    // USER uid:gid, numeric (so the kubelet can check runAsNonRoot) and not root,
    // the same as the Deployment runs it with.
    let user = the(runtime, "USER");
    let (uid, gid) = user.split_once(':').expect("USER uid:gid");
    let (uid, gid): (u64, u64) = (
        uid.parse().expect("numeric uid"),
        gid.parse().expect("numeric gid"),
    );
    assert!(uid > 0 && gid > 0);
    let pod = &deployment()["spec"]["template"]["spec"];
    assert_eq!(pod["securityContext"]["runAsUser"], uid);
    assert_eq!(pod["securityContext"]["runAsGroup"], gid);

    // Only the binary is copied, to where ENTRYPOINT runs it from.
    let copy = the(runtime, "COPY");
    let parts: Vec<&str> = copy.split_whitespace().collect();
    assert_eq!(parts.len(), 3, "COPY --from=build <binary> <path>: {copy}");
    assert_eq!(parts[0], "--from=build");
    assert!(parts[1].ends_with("/target/release/kube-lifecycle-exporter"));
    let entrypoint = exec_form(&the(runtime, "ENTRYPOINT"));
    assert_eq!(entrypoint, vec![parts[2].to_string()]);

    // CMD is `serve` with flags the binary takes; the port is the Deployment's.
    let cmd = exec_form(&the(runtime, "CMD"));
    assert_eq!(cmd[0], "serve");
    let help = serve_help();
    for flag in cmd[1..].iter() {
        let name = flag.split('=').next().unwrap();
        assert!(
            name.starts_with("--") && help.contains(&format!("{name} ")),
            "{flag}"
        );
    }
    let port = &pod["containers"][0]["ports"][0]["containerPort"];
    assert_eq!(the(runtime, "EXPOSE"), port.to_string());
    assert!(cmd.contains(&format!("--listen=0.0.0.0:{port}")), "{cmd:?}");
    let output = Command::new(BIN).args(&cmd).arg("--help").output().unwrap();
    assert!(output.status.success(), "{cmd:?} --help");
}

/// Copies `from` into `to`, rewriting only files whose content differs so that
/// cargo's fingerprints (modification times) stay valid between runs.
fn sync(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        let mut names = BTreeSet::new();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            names.insert(entry.file_name());
            sync(&entry.path(), &to.join(entry.file_name()));
        }
        for entry in std::fs::read_dir(to).unwrap() {
            let entry = entry.unwrap();
            if !names.contains(&entry.file_name()) {
                let path = entry.path();
                if path.is_dir() {
                    std::fs::remove_dir_all(path).unwrap();
                } else {
                    std::fs::remove_file(path).unwrap();
                }
            }
        }
    } else {
        let content = std::fs::read(from).unwrap();
        if std::fs::read(to).ok().as_ref() != Some(&content) {
            std::fs::write(to, content).unwrap();
        }
    }
}

#[test]
fn the_build_stage_s_command_builds_the_binary_from_only_what_it_copies() {
    let stages = stages();
    let build = &stages[0];
    let from = the(build, "FROM");
    let (image, stage_name) = from.split_once(" AS ").expect("FROM <image> AS build");
    assert_eq!(stage_name, "build");
    let rust_version = image
        .strip_prefix("docker.io/library/rust:")
        .and_then(|tag| tag.strip_suffix("-bookworm"))
        .expect("a Debian 12 (bookworm) Rust image, the release distroless/cc-debian12 matches");
    let manifest: String = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let minimum = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("rust-version")
        .trim_matches('"');
    let minor = |v: &str| -> u32 { v.split('.').nth(1).unwrap().parse().unwrap() };
    assert!(
        minor(rust_version) >= minor(minimum),
        "{rust_version} < {minimum}"
    );

    // The build context as the Dockerfile makes it: only the COPY sources.
    let workdir = the(build, "WORKDIR");
    let context = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dockerfile-context");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dockerfile-target");
    std::fs::create_dir_all(&context).unwrap();
    let mut copied = BTreeSet::new();
    for copy in build.iter().filter(|i| i.keyword == "COPY") {
        let mut parts: Vec<&str> = copy.arguments.split_whitespace().collect();
        let destination = parts.pop().expect("a destination");
        for source in parts {
            assert!(!source.starts_with("--"), "{copy:?}");
            let source = source.trim_end_matches('/');
            let into = if destination.ends_with('/') && destination != "./" {
                let destination = destination.trim_end_matches('/');
                assert_eq!(destination, source, "copied to the same relative path");
                destination.to_string()
            } else {
                source.to_string()
            };
            copied.insert(into.split('/').next().unwrap().to_string());
            let into = context.join(into);
            std::fs::create_dir_all(into.parent().unwrap()).unwrap();
            sync(&root().join(source), &into);
        }
    }
    // What an earlier version of the Dockerfile copied must not linger.
    for entry in std::fs::read_dir(&context).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !copied.contains(&name) {
            let path = context.join(&name);
            if path.is_dir() {
                std::fs::remove_dir_all(path).unwrap();
            } else {
                std::fs::remove_file(path).unwrap();
            }
        }
    }

    let run = the(build, "RUN");
    assert_eq!(
        run, "cargo build --release --locked --bin kube-lifecycle-exporter",
        "the test runs this command as the Dockerfile does"
    );
    let status = Command::new("sh")
        .args(["-c", &run])
        .current_dir(&context)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "`{run}` failed in the Dockerfile's context"
    );

    // The binary the runtime stage copies, at the path it copies it from.
    let runtime_copy = the(&stages[1], "COPY");
    let in_image = runtime_copy.split_whitespace().nth(1).unwrap();
    let relative = in_image
        .strip_prefix(&format!("{workdir}/target/"))
        .expect("copied from the build's target directory");
    let binary: PathBuf = target.join(relative);
    let help = Command::new(&binary)
        .args(["serve", "--help"])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", binary.display()));
    assert!(help.status.success());

    // It needs no shared library distroless/cc lacks.
    let Ok(dynamic) = Command::new("readelf").arg("-d").arg(&binary).output() else {
        eprintln!("SKIPPED the shared-library check: readelf (binutils) is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&dynamic.stdout);
    let needed: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split('[').nth(1)?.split(']').next())
        .collect();
    assert!(!needed.is_empty(), "{text}");
    for library in needed {
        assert!(
            DISTROLESS_CC_LIBRARIES.contains(&library),
            "{library} is not in distroless/cc"
        );
    }
}
