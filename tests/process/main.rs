//! The tests that run the real binary, in one binary: against the fake API
//! server, with real Prometheus and Alertmanager, in a headless browser,
//! behind TLS, on hostile input, and the benchmark's smoke run.
//! (tests/huge_dump.rs keeps a binary of its own: it reads the peak memory of
//! its children, which must be the exporter alone.)

#[path = "../common/mod.rs"]
mod common;

// One module per file and folder here (`cargo xtask generate`).
// BEGIN GENERATED: modules
mod benchmark_smoke;
mod browser;
mod diagnose_cli;
mod end_to_end;
mod faults;
mod hostile_input;
mod incident_replay;
mod kubectl_plugin;
mod kubernetes_auth;
mod label_escaping;
mod list_pages;
mod live_exporter;
mod page;
mod sharding;
mod web_config;
// END GENERATED: modules
