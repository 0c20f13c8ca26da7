//! A pod's container statuses as the API prints them, decoded before it is
//! known whether the pod keeps them.
//!
//! Most pods of a large cluster are settled and drop their container
//! statuses (see [`Pod`](super::Pod)); decoded straight into the model's
//! types, each status cost its strings' allocations and its timestamps'
//! parsing only to be thrown away, about a quarter of the decoding of a pod.
//! Here the strings stay borrowed from the input and the timestamps unparsed
//! until a status is known to be kept. (The list decoder does better still: it
//! hands the statuses over as text, and a settled pod's are not decoded at all
//! unless they name a `waiting` state; see `deferred.rs`.)

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use super::meta::{Condition, ConditionStatus, List, Time, nullable};
use super::pod::{ContainerState, ContainerStatus, Running, Terminated, Waiting};

/// A string borrowed from the input where it has no escapes; `null` and a
/// missing field read as empty.
#[derive(Debug, Default)]
pub(super) struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text::default())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_str(self)
            }
        }
        deserializer.deserialize_option(TextVisitor)
    }
}

impl Text<'_> {
    fn owned(self) -> String {
        self.0.into_owned()
    }

    /// A timestamp as the API prints it, parsed as `Time` decodes it.
    fn time(&self) -> Result<Time, String> {
        super::time::parse_time(&self.0).map_err(|e| format!("invalid timestamp {:?}: {e}", self.0))
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ContainerStatusWire<'a> {
    #[serde(default, borrow)]
    name: Text<'a>,
    #[serde(default, borrow)]
    image: Text<'a>,
    #[serde(default, deserialize_with = "nullable")]
    ready: bool,
    #[serde(default, deserialize_with = "nullable")]
    restart_count: i32,
    #[serde(default, borrow)]
    state: Option<StateWire<'a>>,
    #[serde(default, borrow)]
    last_state: Option<StateWire<'a>>,
}

#[derive(Debug, Deserialize)]
struct StateWire<'a> {
    #[serde(default, borrow)]
    waiting: Option<WaitingWire<'a>>,
    #[serde(default, borrow)]
    running: Option<RunningWire<'a>>,
    #[serde(default, borrow)]
    terminated: Option<TerminatedWire<'a>>,
}

#[derive(Debug, Deserialize)]
struct WaitingWire<'a> {
    #[serde(default, borrow)]
    reason: Text<'a>,
    #[serde(default, borrow)]
    message: Text<'a>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunningWire<'a> {
    #[serde(default, borrow)]
    started_at: Option<Text<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TerminatedWire<'a> {
    #[serde(default, deserialize_with = "nullable")]
    exit_code: i32,
    #[serde(default)]
    signal: Option<i32>,
    #[serde(default, borrow)]
    reason: Text<'a>,
    #[serde(default, borrow)]
    message: Text<'a>,
    #[serde(default, borrow)]
    started_at: Option<Text<'a>>,
    #[serde(default, borrow)]
    finished_at: Option<Text<'a>>,
}

impl ContainerStatusWire<'_> {
    /// Whether the container waits (not created, pulling, backing off).
    pub(super) fn is_waiting(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.waiting.is_some())
    }

    fn into_status(self) -> Result<ContainerStatus, String> {
        Ok(ContainerStatus {
            name: self.name.owned(),
            image: self.image.owned(),
            ready: self.ready,
            restart_count: self.restart_count,
            state: state(self.state)?,
            last_state: state(self.last_state)?,
        })
    }
}

fn state(wire: Option<StateWire<'_>>) -> Result<ContainerState, String> {
    let Some(wire) = wire else {
        return Ok(ContainerState::default());
    };
    Ok(ContainerState {
        waiting: wire.waiting.map(|w| {
            Box::new(Waiting {
                reason: w.reason.owned(),
                message: w.message.owned(),
            })
        }),
        running: match wire.running {
            Some(r) => Some(Running {
                started_at: time(r.started_at)?,
            }),
            None => None,
        },
        terminated: match wire.terminated {
            Some(t) => Some(Box::new(Terminated {
                exit_code: t.exit_code,
                signal: t.signal,
                started_at: time(t.started_at)?,
                finished_at: time(t.finished_at)?,
                reason: t.reason.owned(),
                message: t.message.owned(),
            })),
            None => None,
        },
    })
}

fn time(text: Option<Text<'_>>) -> Result<Option<Time>, String> {
    text.map(|t| t.time()).transpose()
}

/// The statuses as the model holds them.
pub(super) fn statuses(
    wire: Vec<ContainerStatusWire<'_>>,
) -> Result<List<ContainerStatus>, String> {
    wire.into_iter()
        .map(ContainerStatusWire::into_status)
        .collect::<Result<Vec<_>, _>>()
        .map(Vec::into_boxed_slice)
}

/// A pod condition as the API prints it: a pod carries four or more, of which
/// the diagnosis keeps two or three, so the others' type names are not
/// allocated nor their timestamps parsed.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ConditionWire<'a> {
    #[serde(rename = "type", default, borrow)]
    type_: Text<'a>,
    #[serde(default)]
    status: ConditionStatus,
    #[serde(default, borrow)]
    reason: Text<'a>,
    #[serde(default, borrow)]
    message: Text<'a>,
    #[serde(default, borrow)]
    last_transition_time: Option<Text<'a>>,
}

impl ConditionWire<'_> {
    pub(super) fn kind(&self) -> &str {
        &self.type_.0
    }

    pub(super) fn into_condition(self) -> Result<Condition, String> {
        Ok(Condition {
            last_transition_time: time(self.last_transition_time)?,
            type_: self.type_.owned(),
            status: self.status,
            reason: self.reason.owned(),
            message: self.message.owned(),
        })
    }
}
