//! The pages of a list, read from the server and decoded as a pipeline.
//!
//! kube-client collects a page's body, copies it twice into fresh buffers
//! (whose pages the kernel must zero first), checks it as UTF-8 and decodes it
//! with serde_json, and asks for the next page only when the caller has taken
//! the objects of this one. The lists of a large cluster run to gigabytes, so
//! how they are read decides how long the exporter takes to be ready.
//!
//! Here three stages run at once, each at most one page ahead of the next:
//!
//! 1. a task reads page bodies into buffers that are used again, and asks for
//!    the next page as soon as a body names its continue token (the API server
//!    writes a list's `metadata` before its items, so that is the first few
//!    bytes);
//! 2. the bodies are checked as UTF-8 once and decoded in place by
//!    the [`codec`], which passes over what the slim types do not keep without parsing
//!    it, on the one thread that decodes the pages of every list ([`decode_thread`]);
//! 3. the caller takes the decoded pages and hands their objects to the model.
//!
//! So the model takes in one page while the next is decoded and the one after
//! is on the wire, on two cores. What it costs in memory is three bodies and
//! two pages of slim objects at most. Decoding on one thread that lives as long
//! as the process keeps the objects of every list, and of every relist, in one
//! allocator arena: a relist's objects reuse the memory of those they replace
//! instead of growing a new thread's arena beside it.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::OnceLock;
use std::sync::mpsc as std_mpsc;

use http_body_util::BodyExt;
use kube::Client;
use kube::api::ListParams;
use kube::core::Status;
use serde::Deserialize;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::codec;
use crate::model::Slim;
use crate::source::api::Watched;

/// One page of a list: its objects and where the list goes on.
#[derive(Debug, Deserialize)]
#[serde(bound(deserialize = "T: Slim"))]
pub struct Page<T: Slim> {
    #[serde(default)]
    pub metadata: PageMeta,
    #[serde(default, deserialize_with = "crate::model::nullable")]
    pub items: Vec<Watched<T>>,
}

/// A list's `metadata` (ListMeta), of the fields the list-watch reads.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageMeta {
    #[serde(default)]
    pub resource_version: Option<String>,
    #[serde(rename = "continue", default)]
    pub continue_: Option<String>,
    /// How many objects are left after this page, when the server says.
    #[serde(default)]
    pub remaining_item_count: Option<u64>,
}

/// Decodes one list page (a `List` of `T`) the way the list-watch does, with
/// the [`codec`]. Public for the benchmark, which times it on its own.
pub fn decode_page<T: Slim>(text: &str) -> Result<Page<T>, codec::Error> {
    codec::from_str(text)
}

/// The pages of one list, as the pipeline hands them over. Dropping it stops
/// the reading and the decoding.
pub(crate) struct Pages<T: Slim> {
    receiver: mpsc::Receiver<kube::Result<Page<T>>>,
    reader: JoinHandle<()>,
    decoder: JoinHandle<()>,
}

/// A page's body, or why it could not be read.
type Body = kube::Result<Vec<u8>>;

impl<T: Slim> Pages<T> {
    /// Starts reading the list at `url` from its first page, asking each page
    /// with `params` (its selector and page size).
    pub(crate) fn start(client: Client, url: String, params: ListParams) -> Self {
        let (bodies, to_decode) = mpsc::channel(1);
        let (pages, receiver) = mpsc::channel(1);
        let (spent, free) = std_mpsc::channel();
        let reader = tokio::spawn(read_bodies(client, url, params, bodies, free));
        let decoder = tokio::spawn(decode_bodies(to_decode, pages, spent));
        Self {
            receiver,
            reader,
            decoder,
        }
    }

    /// The next page. After the last page, or an error, there is none to ask for.
    pub(crate) async fn next(&mut self) -> kube::Result<Page<T>> {
        if let Some(page) = self.receiver.recv().await {
            return page;
        }
        // A stage ended without a last page or an error: it panicked.
        for stage in [&mut self.decoder, &mut self.reader] {
            if let Err(err) = stage.await
                && err.is_panic()
            {
                resume_unwind(err.into_panic());
            }
        }
        Err(kube::Error::Service("the list's pages ended early".into()))
    }
}

impl<T: Slim> Drop for Pages<T> {
    fn drop(&mut self) {
        self.reader.abort();
        self.decoder.abort();
    }
}

/// Reads a list body by body until its last page, an error, or nobody waits
/// for them. The next page is asked for as soon as a body names its continue
/// token, while the one before it is still being decoded. Buffers come back
/// through `free` once decoded.
async fn read_bodies(
    client: Client,
    url: String,
    params: ListParams,
    bodies: mpsc::Sender<Body>,
    free: std_mpsc::Receiver<Vec<u8>>,
) {
    let mut continue_token = None;
    loop {
        let mut body = free.try_recv().unwrap_or_default();
        let read = read_body(&client, &url, &params, continue_token.take(), &mut body).await;
        continue_token = match &read {
            Ok(()) => continue_of(&body),
            Err(_) => None,
        };
        let last = continue_token.is_none();
        if bodies.send(read.map(|()| body)).await.is_err() || last {
            return;
        }
    }
}

/// Decodes the bodies in order on the [`decode_thread`], handing each buffer
/// back to the reader.
async fn decode_bodies<T: Slim>(
    mut bodies: mpsc::Receiver<Body>,
    pages: mpsc::Sender<kube::Result<Page<T>>>,
    spent: std_mpsc::Sender<Vec<u8>>,
) {
    while let Some(body) = bodies.recv().await {
        let page = match body {
            Ok(body) => {
                let (body, page) = on_decode_thread(move || {
                    let page = decode_body::<T>(&body);
                    (body, page)
                })
                .await;
                // The reader may be gone already; the buffer is then dropped.
                let _ = spent.send(body);
                page
            }
            Err(err) => Err(err),
        };
        if pages.send(page).await.is_err() {
            return;
        }
    }
}

/// One page's body, read into `body`; an error response becomes an API error.
async fn read_body(
    client: &Client,
    url: &str,
    params: &ListParams,
    continue_token: Option<String>,
    body: &mut Vec<u8>,
) -> kube::Result<()> {
    let list = ListParams {
        continue_token,
        ..params.clone()
    };
    let request = kube::core::Request::new(url)
        .list(&list)
        .map_err(kube::Error::BuildRequest)?;
    let response = client.send(request.map(kube::client::Body::from)).await?;
    let status = response.status();
    let length = response
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    body.clear();
    if let Some(length) = length {
        body.reserve(length);
    }
    let mut incoming = response.into_body();
    while let Some(frame) = incoming.frame().await {
        if let Ok(data) = frame?.into_data() {
            body.extend_from_slice(&data);
        }
    }
    if status.is_client_error() || status.is_server_error() {
        return Err(api_error(status, body));
    }
    Ok(())
}

/// How many bytes of a body are looked at first for the list's `metadata`.
const HEAD: usize = 4096;

/// Where a list goes on after this page, read from the page's `metadata`
/// alone: from its first [`HEAD`] bytes, or when they do not hold it (a server
/// that writes the items first), from the whole body. A body the decoder will
/// reject may give `None`; the decoder's error then ends the list.
fn continue_of(body: &[u8]) -> Option<String> {
    let meta = if body.len() > HEAD {
        list_meta(&body[..HEAD]).or_else(|| list_meta(body))
    } else {
        list_meta(body)
    };
    meta?.continue_.filter(|c| !c.is_empty())
}

/// The `metadata` of a list page from `bytes`, which may stop anywhere after
/// it, even inside a character.
fn list_meta(bytes: &[u8]) -> Option<PageMeta> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?,
        Err(_) => return None,
    };
    codec::field(text, "metadata").ok()?
}

/// A page decoded from its body.
fn decode_body<T: Slim>(body: &[u8]) -> kube::Result<Page<T>> {
    // One check of the whole page as UTF-8 is cheaper than serde_json
    // checking every key and kept string of a page decoded from bytes.
    let text = std::str::from_utf8(body).map_err(|e| {
        kube::Error::SerdeError(serde::de::Error::custom(format!(
            "a list page that is not UTF-8: {e}"
        )))
    })?;
    decode_page(text).map_err(|e| kube::Error::SerdeError(serde::de::Error::custom(e.to_string())))
}

/// An error response as kube-client reports it: the server's `Status` when the
/// body is one, otherwise a `Status` built from the HTTP code and the body text.
fn api_error(code: http::StatusCode, body: &[u8]) -> kube::Error {
    let status = serde_json::from_slice::<Status>(body).unwrap_or_else(|_| {
        let text = String::from_utf8_lossy(body);
        Status::failure(text.trim(), "Failed to parse error data").with_code(code.as_u16())
    });
    kube::Error::Api(Box::new(status))
}

type Job = Box<dyn FnOnce() + Send>;

/// The thread that decodes the pages of every list, started at the first list
/// and kept for the life of the process.
fn decode_thread() -> &'static std_mpsc::Sender<Job> {
    static JOBS: OnceLock<std_mpsc::Sender<Job>> = OnceLock::new();
    JOBS.get_or_init(|| {
        let (jobs, queue) = std_mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("list-decoder".into())
            .spawn(move || {
                for job in queue {
                    job();
                }
            })
            .expect("cannot start the thread that decodes list pages");
        jobs
    })
}

/// Runs `work` on the [`decode_thread`] and waits for it; a panic there is
/// resumed here.
async fn on_decode_thread<R: Send + 'static>(work: impl FnOnce() -> R + Send + 'static) -> R {
    let (done, result) = oneshot::channel();
    let job: Job = Box::new(move || {
        // Nobody waits when the list was dropped meanwhile.
        let _ = done.send(catch_unwind(AssertUnwindSafe(work)));
    });
    decode_thread()
        .send(job)
        .expect("the thread that decodes list pages lives as long as the process");
    match result
        .await
        .expect("the thread that decodes list pages answers every job")
    {
        Ok(value) => value,
        Err(panic) => resume_unwind(panic),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Pod;

    #[test]
    fn a_page_decodes_into_slim_objects_with_where_the_list_goes_on() {
        let page = decode_page::<Pod>(
            r#"{"kind":"PodList","apiVersion":"v1",
                "metadata":{"resourceVersion":"7","continue":"abc","remainingItemCount":1},
                "items":[{"metadata":{"name":"p","namespace":"ns","resourceVersion":"5",
                  "managedFields":[{"manager":"kubectl"}]},"spec":{"nodeName":"n1"}}]}"#,
        )
        .unwrap();
        assert_eq!(page.metadata.resource_version.as_deref(), Some("7"));
        assert_eq!(page.metadata.continue_.as_deref(), Some("abc"));
        assert_eq!(page.metadata.remaining_item_count, Some(1));
        assert_eq!(page.items.len(), 1);
        assert_eq!(page.items[0].object.spec.node_name, "n1");
    }

    /// A page of `n` pods about a kilobyte each, with its metadata first or last.
    fn page(n: usize, continue_token: &str, metadata_first: bool) -> String {
        let meta = format!(r#""metadata":{{"resourceVersion":"9","continue":"{continue_token}"}}"#);
        let pod = format!(
            r#"{{"metadata":{{"name":"p","namespace":"ns","annotations":{{"a":"{}"}}}}}}"#,
            "x".repeat(1000)
        );
        let items = format!(r#""items":[{}]"#, vec![pod; n].join(","));
        if metadata_first {
            format!(r#"{{"kind":"PodList","apiVersion":"v1",{meta},{items}}}"#)
        } else {
            format!(r#"{{"kind":"PodList","apiVersion":"v1",{items},{meta}}}"#)
        }
    }

    #[test]
    fn the_continue_token_is_read_from_the_head_of_a_page_or_from_all_of_it() {
        let first = page(20, "next-page", true);
        assert!(first.len() > 4 * HEAD);
        assert_eq!(continue_of(first.as_bytes()).as_deref(), Some("next-page"));
        let last = page(20, "", true);
        assert_eq!(continue_of(last.as_bytes()), None);
        // A server that writes the items first: the whole body is looked through.
        let items_first = page(20, "after-items", false);
        assert_eq!(
            continue_of(items_first.as_bytes()).as_deref(),
            Some("after-items")
        );
        // A small page, read whole at once.
        let small = page(1, "small", true);
        assert!(small.len() < HEAD);
        assert_eq!(continue_of(small.as_bytes()).as_deref(), Some("small"));
    }

    #[test]
    fn a_head_cut_inside_a_character_still_gives_the_token() {
        // "é" is two bytes; put one across the HEAD boundary.
        let meta = r#"{"metadata":{"continue":"tok"},"items":[{"metadata":{"name":""#;
        let mut body = meta.to_string();
        body.push_str(&"a".repeat(HEAD - 1 - meta.len()));
        body.push_str("é\"}}]}");
        assert!(!body.is_char_boundary(HEAD));
        assert_eq!(continue_of(body.as_bytes()).as_deref(), Some("tok"));
    }

    #[test]
    fn a_body_that_is_not_a_list_gives_no_token() {
        assert_eq!(continue_of(b"<html>502 Bad Gateway</html>"), None);
        assert_eq!(
            continue_of(b"{\"metadata\":{\"continue\":\"x\xff\"}}"),
            None
        );
        assert_eq!(continue_of(b""), None);
    }

    #[tokio::test]
    async fn the_decode_thread_runs_jobs_in_order_and_hands_back_their_panics() {
        let a = on_decode_thread(|| std::thread::current().name().map(String::from)).await;
        assert_eq!(a.as_deref(), Some("list-decoder"));
        let panicked = tokio::spawn(on_decode_thread(|| -> u8 { panic!("a decoder bug") })).await;
        let panic = panicked.unwrap_err().into_panic();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"a decoder bug"));
        // The thread survives a panicking job.
        assert_eq!(on_decode_thread(|| 2 + 2).await, 4);
    }

    #[test]
    fn error_responses_become_api_errors_with_the_server_status_or_the_http_code() {
        let json = br#"{"kind":"Status","apiVersion":"v1","status":"Failure",
            "message":"pods is forbidden: User \"x\" cannot list resource \"pods\"",
            "reason":"Forbidden","code":403}"#;
        match api_error(http::StatusCode::FORBIDDEN, json) {
            kube::Error::Api(status) => {
                assert_eq!(status.code, 403);
                assert!(status.is_forbidden());
                assert!(status.message.contains("cannot list"));
            }
            other => panic!("{other:?}"),
        }
        match api_error(
            http::StatusCode::BAD_GATEWAY,
            b"<html>502 Bad Gateway</html>\n",
        ) {
            kube::Error::Api(status) => {
                assert_eq!(status.code, 502);
                assert_eq!(status.message, "<html>502 Bad Gateway</html>");
            }
            other => panic!("{other:?}"),
        }
    }
}
