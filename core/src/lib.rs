//! The pure core of kube-lifecycle-exporter: the slim cluster [`model`], the
//! [`codec`] it is decoded with, and the [`diagnosis`] that turns it into
//! findings with a bounded cause. No I/O, no clock, no async: the exporter's
//! sources fill the model and its outputs print the findings.

#![warn(unreachable_pub)]

pub mod codec;
pub mod diagnosis;
pub mod model;
