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
//! 2. the bodies, checked as UTF-8 by the reader as their bytes come in, are
//!    decoded in place by the [`codec`], which passes over what the slim types
//!    do not keep without parsing it, on the one thread that decodes the pages
//!    of every list ([`decode_thread`]);
//! 3. the caller takes the decoded pages and hands their objects to the model.
//!
//! So the model takes in one page while the next is decoded and the one after
//! is on the wire, on two cores. The decoding thread is the one that bounds a
//! sync: what it does besides decoding (checking the text, growing a page's
//! list of items) is done elsewhere or not at all. What it costs in memory is three bodies and
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
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::codec;
use crate::model::Slim;
use crate::source::api::{PAGE_SIZE, Watched};

/// One page of a list: its objects and where the list goes on (decoded by
/// [`PageSeed`]).
#[derive(Debug)]
pub struct Page<T: Slim> {
    pub metadata: PageMeta,
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
/// the [`codec`], making room for a page of the exporter's size. Public for
/// the benchmark, which times it on its own.
pub fn decode_page<T: Slim>(text: &str) -> Result<Page<T>, codec::Error> {
    decode_page_sized(text, PAGE_SIZE as usize)
}

/// Decodes a list page with room made at once for `items` objects (the
/// page size asked for): grown as it is read, a page's list of objects is
/// copied into fresh memory at every doubling, on the decoding thread.
fn decode_page_sized<T: Slim>(text: &str, items: usize) -> Result<Page<T>, codec::Error> {
    codec::from_str_seed(text, PageSeed::<T>::new(items))
}

/// The most objects room is made for before a page is read: a larger
/// `limit` is let grow as it comes.
const MOST_ROOM: usize = 4096;

/// Decodes a [`Page`]: its `metadata` and `items`, anything else skipped,
/// with room made for the items at once.
struct PageSeed<T> {
    items: usize,
    _of: std::marker::PhantomData<fn() -> T>,
}

impl<T> PageSeed<T> {
    fn new(items: usize) -> Self {
        PageSeed {
            items: items.min(MOST_ROOM),
            _of: std::marker::PhantomData,
        }
    }
}

impl<'de, T: Slim> DeserializeSeed<'de> for PageSeed<T> {
    type Value = Page<T>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Page<T>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

/// The keys of a list page the list-watch reads.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum PageField {
    Metadata,
    Items,
    #[serde(other)]
    Other,
}

impl<'de, T: Slim> Visitor<'de> for PageSeed<T> {
    type Value = Page<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list page")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Page<T>, A::Error> {
        let (mut metadata, mut items) = (None, None);
        while let Some(field) = map.next_key::<PageField>()? {
            match field {
                PageField::Metadata if metadata.is_none() => metadata = Some(map.next_value()?),
                PageField::Items if items.is_none() => {
                    items = Some(map.next_value_seed(ItemsSeed::<T> {
                        room: self.items,
                        _of: std::marker::PhantomData,
                    })?);
                }
                PageField::Metadata => return Err(serde::de::Error::duplicate_field("metadata")),
                PageField::Items => return Err(serde::de::Error::duplicate_field("items")),
                PageField::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Page {
            metadata: metadata.unwrap_or_default(),
            items: items.unwrap_or_default(),
        })
    }
}

/// A page's `items`, `null` read as none (as [`crate::model::nullable`]
/// reads it), into a list with room for `room` objects.
struct ItemsSeed<T> {
    room: usize,
    _of: std::marker::PhantomData<fn() -> T>,
}

impl<'de, T: Slim> DeserializeSeed<'de> for ItemsSeed<T> {
    type Value = Vec<Watched<T>>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Vec<Watched<T>>, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: Slim> Visitor<'de> for ItemsSeed<T> {
    type Value = Vec<Watched<T>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Vec<Watched<T>>, E> {
        Ok(Vec::new())
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<Watched<T>>, E> {
        Ok(Vec::new())
    }

    fn visit_some<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Vec<Watched<T>>, D::Error> {
        deserializer.deserialize_seq(self)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Vec<Watched<T>>, S::Error> {
        let mut items = Vec::with_capacity(self.room);
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(items)
    }
}

/// The pages of one list, as the pipeline hands them over. Dropping it stops
/// the reading and the decoding.
pub(crate) struct Pages<T: Slim> {
    receiver: mpsc::Receiver<kube::Result<Page<T>>>,
    reader: JoinHandle<()>,
    decoder: JoinHandle<()>,
}

/// A page's body, checked as UTF-8 as it was read, or why it could not be read.
type Body = kube::Result<String>;

impl<T: Slim> Pages<T> {
    /// Starts reading the list at `url` from its first page, asking each page
    /// with `params` (its selector and page size).
    pub(crate) fn start(client: Client, url: String, params: ListParams) -> Self {
        let (bodies, to_decode) = mpsc::channel(1);
        let (pages, receiver) = mpsc::channel(1);
        let (spent, free) = std_mpsc::channel();
        let items = params.limit.unwrap_or(PAGE_SIZE) as usize;
        let reader = tokio::spawn(read_bodies(client, url, params, bodies, free));
        let decoder = tokio::spawn(decode_bodies(to_decode, pages, spent, items));
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
    free: std_mpsc::Receiver<String>,
) {
    let mut continue_token = None;
    loop {
        let mut body = free.try_recv().unwrap_or_default();
        let read = read_body(&client, &url, &params, continue_token.take(), &mut body).await;
        continue_token = match &read {
            Ok(()) => continue_of(body.as_bytes()),
            Err(_) => None,
        };
        let last = continue_token.is_none();
        if bodies.send(read.map(|()| body)).await.is_err() || last {
            return;
        }
    }
}

/// Decodes the bodies in order on the [`decode_thread`], each with room for
/// `items` objects (the page size asked for), handing each buffer back to
/// the reader.
async fn decode_bodies<T: Slim>(
    mut bodies: mpsc::Receiver<Body>,
    pages: mpsc::Sender<kube::Result<Page<T>>>,
    spent: std_mpsc::Sender<String>,
    items: usize,
) {
    while let Some(body) = bodies.recv().await {
        let page = match body {
            Ok(body) => {
                let (body, page) = on_decode_thread(move || {
                    let page = decode_body::<T>(&body, items);
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

/// One page's body, read into `body` and checked as UTF-8 as it comes; an
/// error response becomes an API error.
async fn read_body(
    client: &Client,
    url: &str,
    params: &ListParams,
    continue_token: Option<String>,
    body: &mut String,
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
    let mut text = Utf8Text::new(body);
    while let Some(frame) = incoming.frame().await {
        if let Ok(data) = frame?.into_data() {
            text.push(&data);
        }
    }
    let not_utf8 = text.finish();
    if status.is_client_error() || status.is_server_error() {
        return Err(api_error(status, body.as_bytes()));
    }
    match not_utf8 {
        Some(at) => Err(kube::Error::SerdeError(serde::de::Error::custom(format!(
            "a list page that is not UTF-8 (at byte {at})"
        )))),
        None => Ok(()),
    }
}

/// A body's bytes appended to its text as they come, checked as UTF-8 while
/// the cache still holds them: checked by the decoding thread, a page was
/// read from memory once more on the thread that bounds a sync. A character
/// two frames cut is held until the next completes it. What is not UTF-8 is
/// replaced (U+FFFD), as an error response's message may be, and its offset
/// kept: a list page that has any is refused.
struct Utf8Text<'a> {
    text: &'a mut String,
    /// The start of a character the last frame cut.
    cut: Vec<u8>,
    /// Bytes taken in so far.
    read: usize,
    not_utf8: Option<usize>,
}

impl<'a> Utf8Text<'a> {
    fn new(text: &'a mut String) -> Self {
        Utf8Text {
            text,
            cut: Vec::new(),
            read: 0,
            not_utf8: None,
        }
    }

    fn push(&mut self, mut data: &[u8]) {
        let start = self.read;
        self.read += data.len();
        // The character the last frame cut, completed a byte at a time.
        while !self.cut.is_empty() {
            let Some((&byte, rest)) = data.split_first() else {
                return;
            };
            self.cut.push(byte);
            data = rest;
            match std::str::from_utf8(&self.cut) {
                Ok(character) => {
                    self.text.push_str(character);
                    self.cut.clear();
                }
                Err(e) if e.error_len().is_none() => {}
                Err(_) => {
                    self.cut.clear();
                    self.text.push(char::REPLACEMENT_CHARACTER);
                    self.refuse(start);
                }
            }
        }
        let whole = cut_at(data);
        match std::str::from_utf8(&data[..whole]) {
            Ok(text) => self.text.push_str(text),
            Err(e) => {
                self.text.push_str(&String::from_utf8_lossy(&data[..whole]));
                self.refuse(self.read - data.len() + e.valid_up_to());
            }
        }
        self.cut.extend_from_slice(&data[whole..]);
    }

    /// The body stopped being UTF-8 at byte `at` (the first place is kept).
    fn refuse(&mut self, at: usize) {
        self.not_utf8.get_or_insert(at);
    }

    /// Where the body first stopped being UTF-8, if it did.
    fn finish(mut self) -> Option<usize> {
        if !self.cut.is_empty() {
            // Cut off at the end.
            self.text.push(char::REPLACEMENT_CHARACTER);
            self.refuse(self.read - self.cut.len());
        }
        self.not_utf8
    }
}

/// Where the character `data` ends in starts when `data` cut it short (its
/// lead byte names more bytes than follow), else `data.len()`.
fn cut_at(data: &[u8]) -> usize {
    let len = data.len();
    for back in 1..=len.min(4) {
        let byte = data[len - back];
        // Continuation bytes (0b10xx_xxxx) lead to the character's start.
        if byte & 0xC0 == 0x80 {
            continue;
        }
        let width = match byte {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            // Not a lead byte: not UTF-8, which the check then says.
            _ => return len,
        };
        return if back < width { len - back } else { len };
    }
    len
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

/// A page decoded from its body (checked as UTF-8 as it was read), with
/// room for `items` objects.
fn decode_body<T: Slim>(body: &str, items: usize) -> kube::Result<Page<T>> {
    decode_page_sized(body, items)
        .map_err(|e| kube::Error::SerdeError(serde::de::Error::custom(e.to_string())))
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
    fn a_page_reads_null_missing_and_unknown_fields_as_the_list_watch_expects() {
        let page =
            decode_page::<Pod>(r#"{"kind":"PodList","items":null,"extra":[1,{"a":2}]}"#).unwrap();
        assert!(page.items.is_empty());
        assert_eq!(page.metadata.resource_version, None);
        let page = decode_page::<Pod>(r#"{"metadata":{"resourceVersion":"3"}}"#).unwrap();
        assert!(page.items.is_empty());
        assert_eq!(page.metadata.resource_version.as_deref(), Some("3"));
        // More items than room was made for, and room made for none.
        let items = [r#"{"metadata":{"name":"p","namespace":"ns"}}"#; 5].join(",");
        let text = format!(r#"{{"items":[{items}]}}"#);
        assert_eq!(decode_page_sized::<Pod>(&text, 2).unwrap().items.len(), 5);
        assert_eq!(decode_page_sized::<Pod>(&text, 0).unwrap().items.len(), 5);
        assert!(decode_page::<Pod>(r#"{"items":[],"items":[]}"#).is_err());
        assert!(decode_page::<Pod>(r#"{"items":{}}"#).is_err());
        assert!(decode_page::<Pod>("[]").is_err());
    }

    /// `bytes` read in frames cut at each of `cuts`: the text and where it
    /// stopped being UTF-8.
    fn read_in_frames(bytes: &[u8], cuts: &[usize]) -> (String, Option<usize>) {
        let mut body = String::from("left from the last page");
        body.clear();
        let mut text = Utf8Text::new(&mut body);
        let mut from = 0;
        for &cut in cuts.iter().chain([&bytes.len()]) {
            text.push(&bytes[from..cut]);
            from = cut;
        }
        let not_utf8 = text.finish();
        (body, not_utf8)
    }

    #[test]
    fn a_body_is_checked_as_utf8_whatever_frames_cut_its_characters() {
        let json = r#"{"message":"Größe: 5 € — 🚀 ok"}"#;
        let bytes = json.as_bytes();
        for a in 0..=bytes.len() {
            for b in a..=bytes.len() {
                assert_eq!(read_in_frames(bytes, &[a, b]), (json.to_string(), None));
            }
        }
        // One byte at a time.
        let every: Vec<usize> = (1..bytes.len()).collect();
        assert_eq!(read_in_frames(bytes, &every), (json.to_string(), None));
    }

    #[test]
    fn a_body_that_is_not_utf8_is_refused_with_where() {
        // A byte that is never UTF-8, alone or in a frame of its own.
        assert_eq!(read_in_frames(b"ab\xffcd", &[]).1, Some(2));
        assert_eq!(read_in_frames(b"ab\xffcd", &[2, 3]).1, Some(2));
        // A character cut off at the end of the body.
        let euro = "x€".as_bytes();
        assert_eq!(read_in_frames(&euro[..3], &[]).1, Some(1));
        assert_eq!(read_in_frames(&euro[..3], &[2]).1, Some(1));
        // A lead byte followed by one that does not continue it, across frames.
        assert!(read_in_frames(b"a\xe2(b", &[2]).1.is_some());
        assert!(read_in_frames(b"a\xe2\x82(", &[2, 3]).1.is_some());
        // Continuation bytes with no lead.
        assert!(read_in_frames(b"a\x82\x82", &[]).1.is_some());
        // What is not UTF-8 reads as U+FFFD, for an error response's message.
        assert_eq!(
            read_in_frames(b"bad \xff gateway", &[]).0,
            "bad \u{FFFD} gateway"
        );
        for bad in [
            &b"\xc0\xaf"[..],
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xf8",
        ] {
            let bytes = [b"ok ".as_slice(), bad, b" ok"].concat();
            for cut in 0..=bytes.len() {
                assert!(
                    read_in_frames(&bytes, &[cut]).1.is_some(),
                    "{bad:?} cut at {cut}"
                );
            }
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
