//! Helpers shared by the integration tests: object builders and a line
//! reader for watch bodies that tells a clean end from a broken body.

#![allow(dead_code)]

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde_json::{Value, json};

pub fn pod(namespace: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": namespace, "labels": {"app": "web"}},
           "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "nginx"}]},
           "status": {"phase": "Running"}})
}

pub fn labelled_pod(namespace: &str, name: &str, app: &str, node: &str) -> Value {
    let mut p = pod(namespace, name);
    p["metadata"]["labels"]["app"] = json!(app);
    p["spec"]["nodeName"] = json!(node);
    p
}

/// What reading the next line of a watch body gave.
#[derive(Debug)]
pub enum Read {
    Line(String),
    /// The body ended cleanly (terminating chunk received).
    End,
    /// The body failed: connection closed mid-chunk or reset.
    Broken(String),
    /// Nothing arrived in time.
    Silent,
}

/// Reads a streaming response body line by line.
pub struct Lines {
    body: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
    buffer: Vec<u8>,
    ended: bool,
}

impl Lines {
    pub fn new(response: reqwest::Response) -> Lines {
        Lines {
            body: Box::pin(response.bytes_stream()),
            buffer: Vec::new(),
            ended: false,
        }
    }

    pub async fn read(&mut self, within: Duration) -> Read {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(newline) = self.buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=newline).collect();
                return Read::Line(String::from_utf8_lossy(&line[..line.len() - 1]).into_owned());
            }
            if self.ended {
                return Read::End;
            }
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Err(_) => return Read::Silent,
                Ok(None) => self.ended = true,
                Ok(Some(Ok(chunk))) => self.buffer.extend_from_slice(&chunk),
                Ok(Some(Err(error))) => return Read::Broken(format!("{error:?}")),
            }
        }
    }

    /// The next line as a JSON event; panics on anything else.
    pub async fn event(&mut self) -> Value {
        match self.read(Duration::from_secs(10)).await {
            Read::Line(line) => {
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
            }
            other => panic!("expected an event, got {other:?}"),
        }
    }

    /// The next event that is not a bookmark.
    pub async fn change(&mut self) -> Value {
        loop {
            let event = self.event().await;
            if event["type"] != "BOOKMARK" {
                return event;
            }
        }
    }
}

/// `(type, namespace/name)` of an event, for compact assertions.
pub fn summary(event: &Value) -> (String, String) {
    let meta = &event["object"]["metadata"];
    let name = match meta["namespace"].as_str() {
        Some(ns) => format!("{ns}/{}", meta["name"].as_str().unwrap_or("")),
        None => meta["name"].as_str().unwrap_or("").to_string(),
    };
    (event["type"].as_str().unwrap_or("").to_string(), name)
}

pub fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            format!(
                "{}/{}",
                i["metadata"]["namespace"].as_str().unwrap_or(""),
                i["metadata"]["name"].as_str().unwrap_or("")
            )
        })
        .collect()
}
