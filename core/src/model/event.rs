//! Events, from either API (`v1` and `events.k8s.io/v1`), reduced to one shape.

use std::sync::Arc;

use serde::Deserialize;

use super::meta::{Meta, ObjectKey, Time, nullable};

/// What the diagnosis keeps of an event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Event {
    /// The event object's own namespace and name.
    pub key: ObjectKey,
    pub regarding: EventSubject,
    pub warning: bool,
    pub reason: String,
    /// Shared: the kubelet says the same ~2 KB pull failure of every pod of a
    /// workload, and the event store holds each message once.
    pub message: Arc<str>,
    pub count: i32,
    pub first_seen: Option<Time>,
    pub last_seen: Option<Time>,
}

/// The object an event is about.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventSubject {
    #[serde(default, deserialize_with = "nullable")]
    pub kind: String,
    #[serde(default, deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub uid: String,
    /// `spec.containers{name}` when the event is about one container.
    #[serde(default, deserialize_with = "nullable")]
    pub field_path: String,
}

/// `v1/Event`, what `kubectl get events -o json` prints.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CoreEvent {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub involved_object: EventSubject,
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: String,
    #[serde(default, deserialize_with = "nullable")]
    pub reason: String,
    #[serde(default, deserialize_with = "nullable")]
    pub message: String,
    #[serde(default, deserialize_with = "nullable")]
    pub count: i32,
    #[serde(default)]
    pub first_timestamp: Option<Time>,
    #[serde(default)]
    pub last_timestamp: Option<Time>,
    #[serde(default)]
    pub event_time: Option<Time>,
    #[serde(default, deserialize_with = "nullable")]
    pub series: EventSeries,
}

/// `events.k8s.io/v1/Event` (and `v1beta1`, same fields).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventsApiEvent {
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub regarding: EventSubject,
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: String,
    #[serde(default, deserialize_with = "nullable")]
    pub reason: String,
    #[serde(default, deserialize_with = "nullable")]
    pub note: String,
    #[serde(default, deserialize_with = "nullable")]
    pub deprecated_count: i32,
    #[serde(default)]
    pub deprecated_first_timestamp: Option<Time>,
    #[serde(default)]
    pub deprecated_last_timestamp: Option<Time>,
    #[serde(default)]
    pub event_time: Option<Time>,
    #[serde(default, deserialize_with = "nullable")]
    pub series: EventSeries,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventSeries {
    #[serde(default, deserialize_with = "nullable")]
    pub count: i32,
    #[serde(default)]
    pub last_observed_time: Option<Time>,
}

impl From<CoreEvent> for Event {
    fn from(e: CoreEvent) -> Self {
        let first_seen = e
            .first_timestamp
            .or(e.event_time)
            .or(e.metadata.creation_timestamp);
        let last_seen = e
            .last_timestamp
            .or(e.series.last_observed_time)
            .or(e.event_time)
            .or(first_seen);
        Event {
            key: ObjectKey::from(&e.metadata),
            regarding: e.involved_object,
            warning: e.type_ == "Warning",
            reason: e.reason,
            message: Arc::from(e.message),
            count: e.count.max(e.series.count).max(1),
            first_seen,
            last_seen,
        }
    }
}

/// The events.k8s.io shape under the core one's names. Of the times it last
/// happened, the series' (the newer API's own field) comes before the
/// deprecated last timestamp, where the core shape has them the other way.
impl From<EventsApiEvent> for CoreEvent {
    fn from(e: EventsApiEvent) -> Self {
        CoreEvent {
            metadata: e.metadata,
            involved_object: e.regarding,
            type_: e.type_,
            reason: e.reason,
            message: e.note,
            count: e.deprecated_count,
            first_timestamp: e.deprecated_first_timestamp,
            last_timestamp: e.series.last_observed_time.or(e.deprecated_last_timestamp),
            event_time: e.event_time,
            series: e.series,
        }
    }
}

impl From<EventsApiEvent> for Event {
    fn from(e: EventsApiEvent) -> Self {
        Event::from(CoreEvent::from(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_event_apis_read_into_one_shape() {
        let core: CoreEvent = serde_json::from_str(
            r#"{"metadata":{"name":"p.1","namespace":"ns"},"type":"Warning","reason":"Failed",
                "message":"Error: ImagePullBackOff","count":4,
                "involvedObject":{"kind":"Pod","namespace":"ns","name":"p","uid":"u1",
                                  "fieldPath":"spec.containers{app}"},
                "firstTimestamp":"2024-05-01T10:00:00Z","lastTimestamp":"2024-05-01T10:05:00Z",
                "eventTime":null}"#,
        )
        .unwrap();
        let events: EventsApiEvent = serde_json::from_str(
            r#"{"metadata":{"name":"p.1","namespace":"ns"},"type":"Warning","reason":"Failed",
                "note":"Error: ImagePullBackOff","deprecatedCount":4,
                "regarding":{"kind":"Pod","namespace":"ns","name":"p","uid":"u1",
                             "fieldPath":"spec.containers{app}"},
                "deprecatedFirstTimestamp":"2024-05-01T10:00:00Z",
                "deprecatedLastTimestamp":"2024-05-01T10:05:00Z"}"#,
        )
        .unwrap();
        let (a, b) = (Event::from(core), Event::from(events));
        assert_eq!(a, b);
        assert!(a.warning);
        assert_eq!(a.count, 4);
        assert_eq!(a.last_seen.unwrap().to_string(), "2024-05-01T10:05:00Z");
    }

    #[test]
    fn each_api_prefers_its_own_last_time() {
        let times = r#""lastTimestamp":"2024-05-01T10:05:00Z","deprecatedLastTimestamp":"2024-05-01T10:05:00Z",
            "series":{"count":2,"lastObservedTime":"2024-05-01T10:09:00Z"}"#;
        let core: CoreEvent = serde_json::from_str(&format!("{{{times}}}")).unwrap();
        let events: EventsApiEvent = serde_json::from_str(&format!("{{{times}}}")).unwrap();
        let last = |e: Event| e.last_seen.unwrap().to_string();
        assert_eq!(last(Event::from(core)), "2024-05-01T10:05:00Z");
        assert_eq!(last(Event::from(events)), "2024-05-01T10:09:00Z");
    }
}
