//! Every manifest validates against the Kubernetes schemas, `kubectl kustomize`
//! renders what the test renderer renders, and the renderer refuses what it does
//! not know.

use super::*;

/// kubernetes-validate, from `$KUBERNETES_VALIDATE` or PATH (`scripts/test`
/// installs it into a virtual environment and puts it on PATH).
fn kubernetes_validate() -> PathBuf {
    std::env::var_os("KUBERNETES_VALIDATE")
        .map(PathBuf::from)
        .unwrap_or_else(|| "kubernetes-validate".into())
}

#[test]
fn every_manifest_validates_against_the_kubernetes_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(PathBuf, Vec<Value>)> = Vec::new();
    for kustomization in std::iter::once("deploy").chain(OVERLAYS.iter().copied()) {
        let objects = render(kustomization);
        let path = dir
            .path()
            .join(format!("{}.yaml", kustomization.replace('/', "_")));
        // JSON documents are YAML.
        let text: Vec<String> = objects.iter().map(Value::to_string).collect();
        std::fs::write(&path, text.join("\n---\n")).unwrap();
        files.push((path, objects));
    }
    // The committed all-in-one file as users apply it, comments and all.
    files.push((
        root().join(ALL_IN_ONE),
        kustomize::documents(&read(ALL_IN_ONE), ALL_IN_ONE).unwrap(),
    ));

    let mut command = Command::new(kubernetes_validate());
    command.arg("--strict");
    for version in KUBERNETES_VERSIONS {
        command.args(["-k", version]);
    }
    command.args(files.iter().map(|(path, _)| path));
    let output = command.output().unwrap_or_else(|e| {
        panic!(
            "kubernetes-validate is needed ({e}); scripts/test installs it \
             (pip install kubernetes-validate), or set KUBERNETES_VALIDATE"
        )
    });
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // Every object of a kind with a schema passed against each version; only the
    // operator's kinds are skipped (checked by the test above instead).
    let lines: Vec<&str> = report.lines().collect();
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("INFO ") || l.starts_with("WARN ")),
        "{report}"
    );
    for (path, objects) in &files {
        let file = path.to_string_lossy();
        for object in objects {
            let kind = object["kind"].as_str().unwrap();
            let name = object["metadata"]["name"].as_str().unwrap();
            if CUSTOM_KINDS.contains(&kind) {
                assert!(
                    lines.iter().any(|l| l.starts_with(&format!("WARN {file} "))
                        && l.contains(&format!("kind {kind} "))),
                    "{report}"
                );
                continue;
            }
            for version in KUBERNETES_VERSIONS {
                let minor = version.trim_end_matches(".0");
                let passed = format!(
                    "INFO {file} passed for resource {}/{name} against version {minor}",
                    kind.to_lowercase()
                );
                assert!(
                    lines.contains(&passed.as_str()),
                    "missing `{passed}` in\n{report}"
                );
            }
        }
    }
}

#[test]
fn kubectl_kustomize_renders_what_the_test_renderer_renders() {
    let Ok(version) = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
    else {
        eprintln!(
            "SKIPPED: kubectl is not installed; tests/deploy/kustomize.rs rendered the kustomizations alone"
        );
        return;
    };
    let version = String::from_utf8_lossy(&version.stdout).into_owned();
    // `patches` needs kustomize 3.1; kubectl embeds kustomize 4 or later since 1.21
    // (and says so); an older kubectl cannot render the overlays.
    let kustomize_major = version
        .lines()
        .find_map(|l| l.strip_prefix("Kustomize Version: v"))
        .and_then(|v| v.split('.').next()?.parse::<u32>().ok());
    if kustomize_major.is_none_or(|major| major < 4) {
        eprintln!("SKIPPED: this kubectl embeds no kustomize 4 or later:\n{version}");
        return;
    }
    eprintln!("{}", version.trim());
    for dir in std::iter::once("deploy").chain(OVERLAYS.iter().copied()) {
        let output = Command::new("kubectl")
            .args(["kustomize", dir])
            .current_dir(root())
            .output()
            .expect("kubectl runs");
        assert!(
            output.status.success(),
            "kubectl kustomize {dir}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let rendered = kustomize::documents(&String::from_utf8_lossy(&output.stdout), dir).unwrap();
        assert_eq!(rendered, render(dir), "kubectl kustomize {dir}");
    }
}

#[test]
fn the_test_renderer_refuses_what_it_does_not_know() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\ndata:\n  k: v\n",
    );
    let head =
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n";
    let cases = [
        ("namePrefix: x-\n", "not supported"),
        (
            "patches:\n  - path: a.yaml\n    patch: 'x'\n",
            "one of `path` and `patch`",
        ),
        (
            "patches:\n  - target: {kind: ConfigMap, group: x}\n    patch: '[]'\n",
            "not supported",
        ),
        (
            "patches:\n  - target: {kind: ConfigMap}\n    patch: '[{op: move, path: /data/k, value: 1}]'\n",
            "not supported here",
        ),
        (
            "patches:\n  - target: {kind: ConfigMap}\n    patch: '[{op: add, path: /spec/k, value: 1}]'\n",
            "does not exist",
        ),
        (
            "patches:\n  - patch: |-\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: {name: a, namespace: ns}\n      data: [1]\n",
            "lists are not supported",
        ),
        (
            "patches:\n  - patch: |-\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: {name: b, namespace: ns}\n",
            "matches 0 objects",
        ),
    ];
    for (extra, error) in cases {
        write("kustomization.yaml", &format!("{head}{extra}"));
        let err = kustomize::render(dir.path()).expect_err(extra);
        assert!(err.contains(error), "{extra}: {err}");
    }
    write(
        "kustomization.yaml",
        &format!(
            "{head}patches:\n  - patch: |-\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: {{name: a, namespace: ns, labels: {{x: z}}}}\n      data: {{k: w}}\n"
        ),
    );
    assert_eq!(
        kustomize::render(dir.path()).unwrap(),
        vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "ns", "labels": {"x": "z"}}, "data": {"k": "w"}})
        ]
    );
}
