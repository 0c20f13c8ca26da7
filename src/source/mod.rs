//! The ways in: everything that fills the model. Each speaks only the model's
//! `apply`, `delete` and `reset`, and reads the kinds from the model's table
//! through one dispatch (`Kind::visit`).
//!
//! - [`watch`]: list, then watch, every kind for as long as the exporter runs,
//!   into a model shared with the HTTP side (`LiveState`);
//! - `snapshot`: one list of every kind into a fresh model (the kubectl plugin);
//! - [`dump`]: what `kubectl get -o json|yaml` printed, from a file or a pipe;
//! - [`api`]: a kind as kube's `Api` reads it, shared by the first two.

pub mod api;
pub mod dump;
pub(crate) mod snapshot;
pub mod watch;
