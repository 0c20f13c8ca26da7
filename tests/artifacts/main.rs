//! The checks of what the project ships, in one binary: the rule pack with
//! promtool, the mixin with jsonnet, deploy/ against the Kubernetes schemas,
//! the Helm chart with Helm's own SDK, the container image's build context,
//! and the README's commands.

#[path = "../common/mod.rs"]
mod common;
// The generator's names and constants (it runs in `cargo xtask generate`).
#[allow(dead_code)]
#[path = "../../xtask/src/deploy.rs"]
mod generate;
#[allow(dead_code)]
#[path = "../deploy/kustomize.rs"]
mod kustomize;

// One module per file and folder here (`cargo xtask generate`).
// BEGIN GENERATED: modules
mod alert_rules;
mod deploy;
mod dockerfile;
mod helm;
mod mixin;
mod readme;
// END GENERATED: modules
