//! The live exporter: watch tasks feeding a shared model, the exporter's own
//! telemetry, and duration histograms observed on transitions.

pub mod list_watch;
pub mod pages;
pub mod resources;
pub mod shard;
pub mod snapshot;
pub mod state;
pub mod telemetry;
pub mod transitions;
pub mod watch;

pub use state::LiveState;
