//! Connecting to a cluster the way kubectl does.

use std::path::Path;

use anyhow::{Context, Result};
use kube::Config;
use kube::config::{KubeConfigOptions, Kubeconfig};

/// The client configuration for `--kubeconfig` / `--context`; without either, the
/// in-cluster service account, else `$KUBECONFIG` or `~/.kube/config`.
pub(super) async fn config(kubeconfig: Option<&Path>, context: Option<&str>) -> Result<Config> {
    let options = KubeConfigOptions {
        context: context.map(String::from),
        ..KubeConfigOptions::default()
    };
    Ok(match (kubeconfig, context) {
        (Some(path), _) => {
            let file = Kubeconfig::read_from(path)
                .with_context(|| format!("reading kubeconfig {}", path.display()))?;
            Config::from_custom_kubeconfig(file, &options)
                .await
                .context("using the kubeconfig")?
        }
        (None, Some(_)) => Config::from_kubeconfig(&options)
            .await
            .context("using the kubeconfig context")?,
        (None, None) => Config::infer().await.context(
            "finding cluster credentials (in-cluster service account, $KUBECONFIG or ~/.kube/config)",
        )?,
    })
}
