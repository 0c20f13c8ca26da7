//! The closed vocabularies: the macros that declare them, and what every
//! cause has. Each anomaly family declares its causes beside its diagnosis;
//! the anomalies themselves are listed once, in `families/mod.rs`. Every
//! value is a Prometheus label value and is documented in `docs/causes.md` (a
//! test keeps the two in step). Nothing outside these lists ever becomes a
//! `cause` or `reason` label.

use std::fmt;

use super::families::{Anomaly, Cause};

/// `Some(Runbook::X)` for a value declared `=> X`, else `None`.
macro_rules! own_runbook {
    () => {
        None
    };
    ($runbook:ident) => {
        Some($crate::diagnosis::runbook::Runbook::$runbook)
    };
}
pub(crate) use own_runbook;

/// Declares a closed vocabulary: an enum whose `as_str()` is its label value,
/// whose `description()` is the line `docs/causes.md` carries for it, and, for
/// a vocabulary of causes, whose `runbook()` is the alert a value raises when
/// it is not its anomaly's (`=> Runbook`) and whose `tags()` say what else is
/// known of it (`[quiet]`: never alerted on; other tags name the groups an
/// alert counts, such as a registry's own failures).
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $variant:ident = $label:literal $( => $runbook:ident )? $( [ $( $tag:ident ),+ ] )? : $description:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $variant, )+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$( $name::$variant, )+];

            /// The label value.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $label, )+
                }
            }

            /// One line saying what the value means.
            pub fn description(self) -> &'static str {
                match self {
                    $( $name::$variant => $description, )+
                }
            }

            /// The alert this value raises when it is not its anomaly's.
            #[allow(dead_code)]
            pub(crate) fn runbook(self) -> Option<$crate::diagnosis::runbook::Runbook> {
                match self {
                    $( $name::$variant => $crate::diagnosis::vocabulary::own_runbook!($($runbook)?), )+
                }
            }

            /// What is known of the value beyond its meaning.
            #[allow(dead_code)]
            pub(crate) fn tags(self) -> &'static [&'static str] {
                match self {
                    $( $name::$variant => &[$( $( stringify!($tag) ),+ )?], )+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}
pub(crate) use vocabulary;

/// Declares the anomalies, once each: its label, the vocabulary of its causes,
/// the alert its findings raise unless a cause names another, and what it
/// means. [`Anomaly`], [`Cause`] and every lookup between them and their
/// labels are derived from this list.
macro_rules! anomalies {
    (
        $( $variant:ident = $label:literal ($causes:ident) => $runbook:ident : $description:literal, )+
    ) => {
        $crate::diagnosis::vocabulary::vocabulary! {
            /// The kinds of trouble the diagnosis recognises.
            pub enum Anomaly {
                $( $variant = $label : $description, )+
            }
        }

        impl Anomaly {
            /// The alert its findings raise, unless their cause names another.
            fn default_runbook(self) -> $crate::diagnosis::runbook::Runbook {
                match self {
                    $( Anomaly::$variant => $crate::diagnosis::runbook::Runbook::$runbook, )+
                }
            }

            /// Every cause label it can carry, with its description.
            pub fn causes(self) -> Vec<Cause> {
                match self {
                    $( Anomaly::$variant => $causes::ALL.iter().map(|c| Cause::$variant(*c)).collect(), )+
                }
            }
        }

        /// A finding's cause, tied to its anomaly by construction.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Cause {
            $( $variant($causes), )+
        }

        impl Cause {
            pub fn anomaly(self) -> Anomaly {
                match self {
                    $( Cause::$variant(_) => Anomaly::$variant, )+
                }
            }

            pub fn as_str(self) -> &'static str {
                match self {
                    $( Cause::$variant(c) => c.as_str(), )+
                }
            }

            pub fn description(self) -> &'static str {
                match self {
                    $( Cause::$variant(c) => c.description(), )+
                }
            }

            /// The alert whose runbook explains a finding with this cause,
            /// which is also the alert it raises (after its `for:`) unless
            /// the cause is [`quiet`](Cause::alerted).
            pub fn runbook(self) -> $crate::diagnosis::runbook::Runbook {
                let own = match self {
                    $( Cause::$variant(c) => c.runbook(), )+
                };
                own.unwrap_or(self.anomaly().default_runbook())
            }

            /// What is known of the cause beyond its meaning (see `vocabulary!`).
            pub fn tags(self) -> &'static [&'static str] {
                match self {
                    $( Cause::$variant(c) => c.tags(), )+
                }
            }

            /// What a workload's verdict says of pods with this cause (each
            /// cause type's `PodsVerdict`).
            pub(crate) fn pods_verdict(self) -> $crate::diagnosis::VerdictCause {
                match self {
                    $( Cause::$variant(c) => $crate::diagnosis::family::PodsVerdict::pods_verdict(c), )+
                }
            }
        }
    };
}
pub(crate) use anomalies;

vocabulary! {
    /// What a failing probe's own message says (label `probe_failure` of
    /// `crash_loop` findings caused by a probe and of `pod_not_ready`).
    pub enum ProbeFailure {
        HttpStatus = "http_status": "An HTTP probe got an answer outside 200-399 (\"HTTP probe failed with statuscode: 503\").",
        ConnectionRefused = "connection_refused": "Nothing accepted, or the peer dropped, the probe's connection: connection refused, reset by peer, no route to host, EOF.",
        Timeout = "timeout": "The probe timed out: an HTTP client timeout, a dial i/o timeout, an exec command that timed out, a gRPC health check that did not complete in time.",
        ExecFailed = "exec_failed": "An exec probe's command failed: it exited non-zero (its output is the message) or could not be run in the container.",
        Grpc = "grpc": "A gRPC health check answered NOT_SERVING, or failed with a gRPC status code (Unimplemented, Unavailable, ...).",
        Other = "other": "A probe error not in this list (DNS, TLS, redirects, ...; the message is kept).",
    }
}

impl Cause {
    /// Whether a finding with this cause raises its alert: not a `[quiet]`
    /// one (a pod within its grace period, a pod gated on purpose).
    pub fn alerted(self) -> bool {
        !self.tags().contains(&"quiet")
    }

    /// The cause with these label values (`anomaly`, `cause`), if the vocabulary has it.
    pub fn from_labels(anomaly: &str, cause: &str) -> Option<Cause> {
        let anomaly = Anomaly::ALL.iter().find(|a| a.as_str() == anomaly)?;
        anomaly.causes().into_iter().find(|c| c.as_str() == cause)
    }

    /// Every cause label an anomaly can carry, with its description.
    pub fn vocabulary(anomaly: Anomaly) -> Vec<(&'static str, &'static str)> {
        anomaly
            .causes()
            .into_iter()
            .map(|c| (c.as_str(), c.description()))
            .collect()
    }

    /// Every cause of every anomaly.
    pub fn all() -> impl Iterator<Item = Cause> {
        Anomaly::ALL.iter().flat_map(|a| a.causes())
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Cause {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Label values must be valid, stable, snake_case and unique per anomaly.
    #[test]
    fn every_vocabulary_is_snake_case_and_unique() {
        for anomaly in Anomaly::ALL {
            let values = Cause::vocabulary(*anomaly);
            let mut seen = std::collections::BTreeSet::new();
            for (value, description) in &values {
                assert!(
                    value.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                    "{value}"
                );
                assert!(!description.is_empty());
                assert!(seen.insert(*value), "duplicate {value} in {anomaly}");
            }
        }
    }

    /// Every cause is found again from its label values, and nothing else is.
    #[test]
    fn causes_are_found_from_their_labels() {
        for anomaly in Anomaly::ALL {
            for (value, _) in Cause::vocabulary(*anomaly) {
                let cause = Cause::from_labels(anomaly.as_str(), value).unwrap();
                assert_eq!((cause.anomaly(), cause.as_str()), (*anomaly, value));
            }
        }
        assert_eq!(Cause::from_labels("pod_terminating", "oom_killed"), None);
        assert_eq!(Cause::from_labels("nope", "unknown"), None);
    }
}
