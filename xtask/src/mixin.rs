//! The jsonnet mixin (`mixin/`) rendered: the rule pack, the Alertmanager
//! inhibitions, the kube-prometheus-stack values and the dashboards.
//!
//! jsonnet reads the catalogue from `mixin/catalogue.json`, which the stage
//! before writes; so that `--check` writes nothing, the mixin is rendered from a
//! copy of `mixin/` holding the catalogue just generated.

use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Each file rendered as text by a file of `mixin/render/`, and where it is shipped.
pub const RENDERED: &[(&str, &str)] = &[
    (
        "mixin/render/rules.jsonnet",
        "alerts/kube-lifecycle.rules.yaml",
    ),
    (
        "mixin/render/alertmanager.jsonnet",
        "alerts/alertmanager.yaml",
    ),
    (
        "mixin/render/kubernetes-mixin-inhibitions.jsonnet",
        "alerts/kubernetes-mixin-inhibitions.yaml",
    ),
    (
        "mixin/render/templates.jsonnet",
        "alerts/templates/kube-lifecycle.tmpl",
    ),
    (
        "mixin/render/kube-prometheus-stack-values.jsonnet",
        "deploy/overlays/kube-prometheus-stack/alertmanager-values.yaml",
    ),
];

/// The blocks of documents rendered by a file of `mixin/render/`: (the
/// renderer, the document, the block's name).
pub const BLOCKS: &[(&str, &str, &str)] = &[(
    "mixin/render/alert-table.jsonnet",
    "alerts/README.md",
    "alerts",
)];

/// What the mixin renders.
pub struct Rendered {
    /// Each file of [`RENDERED`] where it is shipped, with its text.
    pub files: Vec<(String, String)>,
    /// Each dashboard (`dashboards/<name>`) by name, with its text, sorted.
    pub dashboards: Vec<(String, String)>,
    /// Each block of [`BLOCKS`]: its document, name and text.
    pub blocks: Vec<(&'static str, &'static str, String)>,
}

/// Renders the mixin of `root` with `catalogue` as its `mixin/catalogue.json`.
pub fn render(root: &Path, catalogue: &str) -> Result<Rendered> {
    let copy = tempfile::tempdir().context("creating a temporary directory")?;
    copy_dir(&root.join("mixin"), &copy.path().join("mixin"))?;
    std::fs::write(copy.path().join("mixin/catalogue.json"), catalogue)
        .context("writing the catalogue into the mixin's copy")?;

    // The dashboards: one file each from a multi-file render. Every render is a
    // jsonnet process of its own, all at once: the dashboards take the longest.
    let out = tempfile::tempdir().context("creating a temporary directory")?;
    let out_arg = out.path().to_str().context("a temporary path in UTF-8")?;
    let dir = copy.path();
    let (files, blocks, listed) = std::thread::scope(|scope| {
        let dashboards = scope.spawn(move || {
            jsonnet(
                dir,
                &["-S", "-m", out_arg, "mixin/render/dashboards.jsonnet"],
            )
        });
        let files: Vec<_> = RENDERED
            .iter()
            .map(|&(source, shipped)| {
                let render = scope.spawn(move || jsonnet(dir, &["-S", source]));
                (shipped.to_string(), render)
            })
            .collect();
        let blocks: Vec<_> = BLOCKS
            .iter()
            .map(|&(source, document, name)| {
                let render = scope.spawn(move || jsonnet(dir, &["-S", source]));
                (document, name, render)
            })
            .collect();
        let files: Result<Vec<(String, String)>> = files
            .into_iter()
            .map(|(shipped, render)| Ok((shipped, joined(render)?)))
            .collect();
        let blocks: Result<Vec<_>> = blocks
            .into_iter()
            .map(|(document, name, render)| Ok((document, name, joined(render)?)))
            .collect();
        (files, blocks, joined(dashboards))
    });
    let files = files?;
    let blocks = blocks?;
    listed?;
    let mut dashboards = Vec::new();
    for entry in std::fs::read_dir(out.path()).context("reading the rendered dashboards")? {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .context("a dashboard's file name in UTF-8")?
            .to_string();
        let text =
            std::fs::read_to_string(&path).with_context(|| format!("reading {name} rendered"))?;
        dashboards.push((name, text));
    }
    dashboards.sort();
    if dashboards.is_empty() {
        bail!("mixin/render/dashboards.jsonnet rendered no dashboard");
    }
    Ok(Rendered {
        files,
        dashboards,
        blocks,
    })
}

/// What a thread returned, its panic passed on.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, Result<T>>) -> Result<T> {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Runs jsonnet (`$JSONNET`, else `jsonnet` from PATH) with `args` in `dir`; its
/// standard output.
fn jsonnet(dir: &Path, args: &[&str]) -> Result<String> {
    let program = std::env::var_os("JSONNET").unwrap_or_else(|| OsString::from("jsonnet"));
    let output = match Command::new(&program).args(args).current_dir(dir).output() {
        Ok(output) => output,
        Err(e) if e.kind() == ErrorKind::NotFound => bail!(
            "jsonnet is needed to render mixin/ and was not found ({}: {e}); install it \
             (Debian: `apt-get install jsonnet`; scripts/test installs it) or set JSONNET \
             to its path",
            program.to_string_lossy()
        ),
        Err(e) => bail!("running {}: {e}", program.to_string_lossy()),
    };
    if !output.status.success() {
        bail!(
            "jsonnet {}: {}\n{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        );
    }
    String::from_utf8(output.stdout).context("jsonnet printed something not UTF-8")
}

/// Copies the files of `from` into `to`, subdirectories included.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}
