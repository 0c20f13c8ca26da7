//! `runbook [ALERT]`: prints an alert's runbook, embedded in the binary, so the
//! table's runbook column names something that works wherever the binary runs.

use anyhow::{Result, bail};

use super::report::write_stdout;
use crate::diagnosis::Runbook;

#[derive(Debug, clap::Args)]
pub struct RunbookArgs {
    /// The alert, e.g. KubeLifecyclePodTerminatingStuck (any case; a runbook URL or
    /// path ending in it works too). Without it, the alerts that have one are listed.
    pub(crate) alert: Option<String>,
}

/// The runbook `name` means: an alert name in any case, or an address ending in
/// one (`…/runbooks/kubelifecyclenodelost`, `docs/runbooks/….md`).
fn find(name: &str) -> Option<Runbook> {
    let last = name.trim().trim_end_matches('/').rsplit('/').next()?;
    Runbook::from_slug(last.trim_end_matches(".md"))
}

fn text(args: &RunbookArgs) -> Result<String> {
    match &args.alert {
        None => {
            let mut out = String::from("Runbooks, by alert (show one with `runbook <ALERT>`):\n");
            for runbook in Runbook::ALL {
                out.push_str(runbook.alert());
                out.push('\n');
            }
            Ok(out)
        }
        Some(name) => match find(name) {
            Some(runbook) => Ok(runbook.markdown().to_string()),
            // The name is the user's own input: shown as Rust's debug string, so
            // nothing in it reaches the terminal raw.
            None => bail!(
                "no runbook for an alert named {name:?}; `runbook` without an alert lists them"
            ),
        },
    }
}

pub fn run(args: &RunbookArgs) -> Result<()> {
    write_stdout(&text(args)?, "writing the runbook")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alert_is_found_by_name_in_any_case_or_by_an_address_ending_in_it() {
        for name in [
            "KubeLifecycleNodeLost",
            "kubelifecyclenodelost",
            "http://localhost:9096/runbooks/kubelifecyclenodelost",
            "docs/runbooks/KubeLifecycleNodeLost.md",
        ] {
            assert_eq!(find(name), Some(Runbook::NodeLost), "{name}");
        }
        assert_eq!(find("NodeLost"), None);
        assert_eq!(find(""), None);
    }

    #[test]
    fn prints_the_runbook_and_lists_every_alert_without_one() {
        let one = text(&RunbookArgs {
            alert: Some("KubeLifecycleNodeLost".into()),
        })
        .unwrap();
        assert_eq!(one, Runbook::NodeLost.markdown());
        let all = text(&RunbookArgs { alert: None }).unwrap();
        for runbook in Runbook::ALL {
            assert!(
                all.lines().any(|l| l == runbook.alert()),
                "{}",
                runbook.alert()
            );
        }
        let err = text(&RunbookArgs {
            alert: Some("Nope\x1b[2J".into()),
        })
        .unwrap_err();
        assert!(err.to_string().contains(r#""Nope\u{1b}[2J""#), "{err}");
    }
}
