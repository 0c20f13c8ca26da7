//! Generated blocks inside hand-written documents.
//!
//! A block sits between `<!-- BEGIN GENERATED: name -->` and
//! `<!-- END GENERATED: name -->`. [`blocks`] is every block and what the code
//! makes of it: `cargo xtask generate` writes them, and the tests beside the code
//! fail when a document's block differs from it.

use crate::diagnosis::catalogue::Catalogue;
use crate::model::Kind;

/// One generated block: the document holding it, its name and its text.
#[derive(Debug)]
pub struct Block {
    /// Relative to the repository's root.
    pub path: &'static str,
    pub name: &'static str,
    pub text: String,
}

/// Every generated block of the documentation, from the code.
pub fn blocks() -> Vec<Block> {
    let catalogue = Catalogue::new();
    vec![
        Block {
            path: "docs/causes.md",
            name: "vocabulary",
            text: catalogue.causes_markdown(),
        },
        Block {
            path: "docs/causes.md",
            name: "roots",
            text: catalogue.roots_markdown(),
        },
        Block {
            path: "deploy/base/rbac.yaml",
            name: "rules",
            text: watched_rules("  "),
        },
        Block {
            path: "deploy/helm/kube-lifecycle-exporter/templates/rbac.yaml",
            name: "rules",
            text: watched_rules("  "),
        },
        Block {
            path: "deploy/README.md",
            name: "rbac",
            text: watched_table(),
        },
        Block {
            path: "README.md",
            name: "kubectl-get",
            text: kubectl_get(),
        },
        Block {
            path: "README.md",
            name: "thresholds",
            text: crate::diagnosis::thresholds_markdown(),
        },
        Block {
            path: "README.md",
            name: "kubectl-get-dump",
            text: kubectl_get(),
        },
        Block {
            path: "docs/runbooks/KubeLifecycleExporterDown.md",
            name: "kubectl-get",
            text: kubectl_get(),
        },
        Block {
            path: "docs/metrics.md",
            name: "catalogue",
            text: catalogue.metrics_markdown(),
        },
        Block {
            path: "docs/metrics.md",
            name: "telemetry",
            text: crate::output::metrics::telemetry_markdown(),
        },
        Block {
            path: "docs/metrics.md",
            name: "process",
            text: crate::output::metrics::process_markdown(),
        },
    ]
}

/// The block `name` of `document`: where its text starts and ends. Markdown
/// marks it with HTML comments; YAML (and Helm templates) with `#` comment
/// lines, the end marker's line kept whole.
fn find(document: &str, name: &str) -> Option<(usize, usize)> {
    let markers = [
        (
            format!("<!-- BEGIN GENERATED: {name} -->\n"),
            format!("<!-- END GENERATED: {name} -->"),
        ),
        (
            format!("# BEGIN GENERATED: {name}\n"),
            format!("# END GENERATED: {name}"),
        ),
        (
            format!("// BEGIN GENERATED: {name}\n"),
            format!("// END GENERATED: {name}"),
        ),
    ];
    markers.iter().find_map(|(begin, end)| {
        let start = document.find(begin.as_str())? + begin.len();
        let marker = start + document[start..].find(end.as_str())?;
        let stop = document[..marker].rfind('\n').map_or(marker, |n| n + 1);
        Some((start, stop.max(start)))
    })
}

/// The rules of the exporter's ClusterRole: list and watch on every kind the
/// model holds, by API group, each resource with why it is watched, at
/// `indent` (the base's YAML and the chart's template share them).
pub fn watched_rules(indent: &str) -> String {
    let mut groups: Vec<(&str, Vec<Kind>)> = Vec::new();
    for kind in Kind::ALL {
        match groups.iter_mut().find(|(g, _)| *g == kind.group()) {
            Some((_, kinds)) => kinds.push(kind),
            None => groups.push((kind.group(), vec![kind])),
        }
    }
    let mut out = String::new();
    for (group, kinds) in groups {
        for kind in &kinds {
            let served = if kind.is_optional() {
                " (watched only where the API server serves them)"
            } else {
                ""
            };
            out.push_str(&format!(
                "{indent}# {}: {}{served}.\n",
                kind.plural(),
                kind.purpose()
            ));
        }
        let group = if group.is_empty() { "\"\"" } else { group };
        let resources: Vec<&str> = kinds.iter().map(|k| k.plural()).collect();
        out.push_str(&format!(
            "{indent}- apiGroups: [{group}]\n{indent}  resources: [{}]\n{indent}  verbs: [list, watch]\n",
            resources.join(", ")
        ));
    }
    out
}

/// The same as a markdown table (deploy/README.md).
fn watched_table() -> String {
    let mut out = String::from("| API group | resources | verbs | why |\n|---|---|---|---|\n");
    for kind in Kind::ALL {
        let group = if kind.group().is_empty() {
            "`\"\"` (core)".to_string()
        } else {
            format!("`{}`", kind.group())
        };
        let served = if kind.is_optional() {
            " (watched where served)"
        } else {
            ""
        };
        out.push_str(&format!(
            "| {group} | `{}` | list, watch | {}{served} |\n",
            kind.plural(),
            kind.purpose()
        ));
    }
    out
}

/// The `kubectl get` that dumps what `diagnose` reads: every kind every
/// API server serves, then those some serve.
fn kubectl_get() -> String {
    let list = |optional: bool| -> Vec<&str> {
        Kind::watch_order()
            .filter(|k| k.is_optional() == optional)
            .map(Kind::plural)
            .collect()
    };
    format!(
        "```sh\nkubectl get {} -A -o json > cluster.json\n# where the API server serves them, add {} to that list\n```\n",
        list(false).join(","),
        list(true).join(", ")
    )
}

/// `document` with its block `name` holding `text`; `None` when it has no such
/// block (no BEGIN/END GENERATED markers).
pub fn replace(document: &str, name: &str, text: &str) -> Option<String> {
    let (start, stop) = find(document, name)?;
    Some(format!("{}{text}{}", &document[..start], &document[stop..]))
}

/// Fails unless the block `name` of `relative_path` holds `generated`, and
/// [`blocks`] has it (so that `cargo xtask generate` writes it).
#[cfg(test)]
pub(crate) fn check(relative_path: &str, name: &str, generated: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative_path);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {relative_path}: {e}"));
    let Some((start, stop)) = find(&text, name) else {
        panic!("{relative_path} has no block `{name}` (add the BEGIN/END GENERATED markers)");
    };
    assert!(
        blocks()
            .iter()
            .any(|b| b.path == relative_path && b.name == name && b.text == generated),
        "doc_blocks::blocks() lacks {relative_path}'s block `{name}` as this test generates it: add it there"
    );
    assert!(
        &text[start..stop] == generated,
        "{relative_path}: block `{name}` is out of date with the code; run `cargo xtask generate` and review the diff"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/causes.md carries the vocabulary tables exactly as the catalogue has them.
    #[test]
    fn docs_list_the_whole_vocabulary() {
        check(
            "docs/causes.md",
            "vocabulary",
            &Catalogue::new().causes_markdown(),
        );
    }

    /// docs/causes.md carries the root causes' vocabularies.
    #[test]
    fn docs_list_the_root_causes() {
        check(
            "docs/causes.md",
            "roots",
            &Catalogue::new().roots_markdown(),
        );
    }

    /// README's table of thresholds is the diagnosis's list of them.
    #[test]
    fn readme_lists_every_threshold() {
        check(
            "README.md",
            "thresholds",
            &crate::diagnosis::thresholds_markdown(),
        );
    }

    /// docs/metrics.md carries every family generated from findings.
    #[test]
    fn docs_list_every_family() {
        check(
            "docs/metrics.md",
            "catalogue",
            &Catalogue::new().metrics_markdown(),
        );
    }
}
