//! The wire protocol as a plain HTTP client sees it: lists, pagination,
//! selectors, watches, bookmarks, expiry and injected faults.

#[path = "../common/mod.rs"]
mod common;
mod faults;
mod lists;
mod watches;

use std::time::{Duration, Instant};

use common::{Lines, Read, labelled_pod, names, pod, summary};
use fake_apiserver::{FakeApiServer, Fault};
use serde_json::{Value, json};

const CONTINUE_EXPIRED: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

async fn server_with(objects: Vec<Value>) -> FakeApiServer {
    let server = FakeApiServer::start().await.expect("server starts");
    for object in objects {
        server.apply(object);
    }
    server
}

async fn get(server: &FakeApiServer, path_and_query: &str) -> (u16, Value) {
    let response = reqwest::get(format!("{}{path_and_query}", server.url()))
        .await
        .expect("request");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn watch(server: &FakeApiServer, path_and_query: &str) -> Lines {
    let response = reqwest::get(format!("{}{path_and_query}", server.url()))
        .await
        .expect("watch request");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    assert!(
        response.content_length().is_none(),
        "watch bodies are chunked"
    );
    Lines::new(response)
}

fn assert_status(body: &Value, code: u16, reason: &str) {
    assert_eq!(body["kind"], "Status", "{body}");
    assert_eq!(body["apiVersion"], "v1", "{body}");
    assert_eq!(body["status"], "Failure", "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["reason"], reason, "{body}");
}
