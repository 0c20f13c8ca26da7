//! kube-lifecycle-exporter: why Kubernetes pods, workloads and namespaces are stuck.
//!
//! The [`model`] holds a slim copy of the cluster, [`diagnosis`] turns it into
//! findings with a bounded cause, [`output`] formats findings, and [`dump`] reads
//! what `kubectl get -o json|yaml` prints into the model.

pub mod cli;
pub mod codec;
pub mod diagnosis;
#[cfg(test)]
mod doc_blocks;
pub mod dump;
pub mod live;
pub mod model;
pub mod output;
pub mod server;
