//! kube-lifecycle-exporter: why Kubernetes pods, workloads and namespaces are stuck.
//!
//! The [`model`] holds a slim copy of the cluster, [`diagnosis`] turns it into
//! findings with a bounded cause, [`output`] formats findings, and the
//! [`source`]s fill the model: a live watch, one listing, or a dump.

#![warn(unreachable_pub)]

// The pure core, its own crate so that the compiler keeps it pure; here under
// the names the rest of the exporter has always used.
pub use kube_lifecycle_core::{codec, diagnosis, model};

pub mod cli;
pub mod doc_blocks;
pub mod output;
mod server;
pub mod source;
