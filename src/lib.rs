//! kube-lifecycle-exporter: why Kubernetes pods, workloads and namespaces are stuck.
//!
//! The [`model`] holds a slim copy of the cluster, [`diagnosis`] turns it into
//! findings with a bounded cause, [`output`] formats findings, and the
//! [`source`]s fill the model: a live watch, one listing, or a dump.

#![warn(unreachable_pub)]

pub mod cli;
pub mod codec;
pub mod diagnosis;
pub mod doc_blocks;
pub mod model;
pub mod output;
mod server;
pub mod source;
