//! Exposition formats: OpenMetrics text (what prometheus-client writes) and the
//! classic Prometheus text format 0.0.4, chosen by the request's `Accept`.
//!
//! A scrape is written in the parts it was encoded in: the findings' families,
//! most of a large scrape's bytes, are kept between scrapes (and their classic
//! form with them), so a scrape writes them without copying them into one text.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};
use parking_lot::Mutex;

use crate::output::metrics::Scrape;

pub(crate) const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
pub(crate) const CLASSIC: &str = "text/plain; version=0.0.4; charset=utf-8";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    OpenMetrics,
    Classic,
}

impl Format {
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => OPENMETRICS,
            Format::Classic => CLASSIC,
        }
    }

    /// OpenMetrics when the client ranks it at least as high as plain text
    /// (Prometheus does); the classic format otherwise (curl, browsers).
    pub(crate) fn negotiate(accept: Option<&str>) -> Format {
        let Some(accept) = accept else {
            return Format::Classic;
        };
        let (mut openmetrics, mut text) = (0.0f32, 0.0f32);
        for range in accept.split(',') {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("").to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.strip_prefix("q="))
                .find_map(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            match media.as_str() {
                "application/openmetrics-text" => openmetrics = openmetrics.max(q),
                "text/plain" | "text/*" | "*/*" => text = text.max(q),
                _ => {}
            }
        }
        if openmetrics > 0.0 && openmetrics >= text {
            Format::OpenMetrics
        } else {
            Format::Classic
        }
    }
}

/// The classic form of the findings' parts last written, each beside the
/// OpenMetrics part it was made from: a part kept since (the same `Arc`) is
/// not converted again. The classic form is held as slices of the part
/// itself where the two read alike (every sample line, most headers), and
/// only the lines that differ as text of their own: a storm's findings'
/// text (tens of MB) is held once, not once per format.
#[derive(Default)]
pub(crate) struct ClassicParts(Mutex<Vec<(Arc<str>, Vec<Bytes>)>>);

impl ClassicParts {
    /// The classic form of each of `parts`, in order.
    fn of(&self, parts: &[Arc<str>]) -> Vec<Vec<Bytes>> {
        let mut known = self.0.lock();
        let classic: Vec<(Arc<str>, Vec<Bytes>)> = parts
            .iter()
            .map(|part| {
                let converted = known
                    .iter()
                    .find(|(from, _)| Arc::ptr_eq(from, part))
                    .map_or_else(|| classic_slices(part), |(_, to)| to.clone());
                (part.clone(), converted)
            })
            .collect();
        let written = classic.iter().map(|(_, to)| to.clone()).collect();
        *known = classic;
        written
    }
}

/// The classic form of a kept part: slices of it where the line is the
/// same, text of its own where the line is rewritten.
fn classic_slices(part: &Arc<str>) -> Vec<Bytes> {
    let whole = Bytes::from_owner(Text(part.clone()));
    let mut out: Vec<Bytes> = Vec::new();
    let mut same: Option<std::ops::Range<usize>> = None;
    let flush = |same: &mut Option<std::ops::Range<usize>>, out: &mut Vec<Bytes>| {
        if let Some(range) = same.take() {
            out.push(whole.slice(range));
        }
    };
    classic_pieces(part, |piece| match piece {
        Piece::Same(range) => match &mut same {
            Some(open) if open.end == range.start => open.end = range.end,
            _ => {
                flush(&mut same, &mut out);
                same = Some(range);
            }
        },
        Piece::New(text) => {
            flush(&mut same, &mut out);
            out.push(Bytes::from(text));
        }
    });
    flush(&mut same, &mut out);
    out
}

/// A stretch of a scrape's text as it is written: the form of one kept
/// findings part, or text of this scrape alone.
pub(crate) struct Section {
    /// The kept part this is the form of: what is made of it (its compressed
    /// form) may be kept for as long as the part is.
    pub(crate) kept: Option<Arc<str>>,
    pub(crate) text: Vec<Bytes>,
}

/// A scrape's sections in `format`, in order. Each kept part holds whole
/// families, so the classic form of the parts is the classic form of the
/// whole.
pub(crate) fn scrape_sections(
    scrape: Scrape,
    format: Format,
    classic: &ClassicParts,
) -> Vec<Section> {
    let alone = |text: String| Section {
        kept: None,
        text: vec![Bytes::from(text)],
    };
    let (own, findings, rest) = match format {
        Format::OpenMetrics => (
            scrape.own,
            scrape
                .findings
                .iter()
                .map(|part| vec![Bytes::from_owner(Text(part.clone()))])
                .collect(),
            scrape.rest,
        ),
        Format::Classic => (
            to_classic(&scrape.own),
            classic.of(&scrape.findings),
            to_classic(&scrape.rest),
        ),
    };
    let kept = scrape
        .findings
        .iter()
        .zip(findings)
        .map(|(part, text)| Section {
            kept: Some(part.clone()),
            text,
        });
    std::iter::once(alone(own))
        .chain(kept)
        .chain(std::iter::once(alone(rest)))
        .collect()
}

/// The sections' text as a body writes it, in order.
pub(crate) fn plain(sections: Vec<Section>) -> Vec<Bytes> {
    sections
        .into_iter()
        .flat_map(|section| section.text)
        .filter(|piece| !piece.is_empty())
        .collect()
}

/// Kept text, lent to a response body without a copy.
struct Text(Arc<str>);

impl AsRef<[u8]> for Text {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// A response body of parts already in memory, written as they are; its
/// length is known, so the response says it (`Content-Length`).
pub(crate) struct Parts {
    parts: VecDeque<Bytes>,
    left: u64,
}

impl Parts {
    pub(crate) fn new(parts: Vec<Bytes>) -> Self {
        let left = parts.iter().map(|p| p.len() as u64).sum();
        Parts {
            parts: parts.into(),
            left,
        }
    }
}

impl Body for Parts {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let part = self.parts.pop_front();
        if let Some(part) = &part {
            self.left -= part.len() as u64;
        }
        Poll::Ready(part.map(|part| Ok(Frame::data(part))))
    }

    fn is_end_stream(&self) -> bool {
        self.parts.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.left)
    }
}

/// A piece of the classic form of an OpenMetrics text: a byte range of it
/// that reads the same (whole lines with their newline), or a rewritten line.
enum Piece {
    Same(std::ops::Range<usize>),
    New(String),
}

/// Rewrites OpenMetrics text as the classic text format: counters are typed
/// under their `_total` name, info metrics become gauges, `# UNIT` and `# EOF`
/// go, and `_created` samples are dropped.
pub(crate) fn to_classic(openmetrics: &str) -> String {
    let mut out = String::with_capacity(openmetrics.len());
    classic_pieces(openmetrics, |piece| match piece {
        Piece::Same(range) => out.push_str(&openmetrics[range]),
        Piece::New(text) => out.push_str(&text),
    });
    out
}

/// The classic form of `openmetrics`, piece by piece, in order.
fn classic_pieces(openmetrics: &str, mut emit: impl FnMut(Piece)) {
    // Each line with its start and whether it ends in a newline.
    let mut lines: Vec<(usize, &str, bool)> = Vec::new();
    let mut start = 0;
    for raw in openmetrics.split_inclusive('\n') {
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        lines.push((start, line, raw.len() > line.len()));
        start += raw.len();
    }
    // A line kept as it is: with its newline, or given one.
    fn keep(emit: &mut impl FnMut(Piece), (start, line, newline): (usize, &str, bool)) {
        emit(Piece::Same(
            start..start + line.len() + usize::from(newline),
        ));
        if !newline {
            emit(Piece::New("\n".to_string()));
        }
    }
    let renamed = |name: &str, kind: &str| -> (String, String) {
        match kind {
            "counter" => (format!("{name}_total"), "counter".to_string()),
            "info" => (format!("{name}_info"), "gauge".to_string()),
            "unknown" => (name.to_string(), "untyped".to_string()),
            other => (name.to_string(), other.to_string()),
        }
    };
    let mut i = 0;
    while i < lines.len() {
        let (_, line, _) = lines[i];
        if line == "# EOF" || line.starts_with("# UNIT ") {
            i += 1;
            continue;
        }
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
            // The TYPE line follows HELP in prometheus-client's output.
            let typed = lines
                .get(i + 1)
                .and_then(|(_, l, _)| l.strip_prefix("# TYPE "))
                .and_then(|t| t.split_once(' '))
                .filter(|(n, _)| *n == name);
            let kind = typed.map_or("unknown", |(_, k)| k);
            let (classic_name, classic_kind) = renamed(name, kind);
            let header =
                format!("# HELP {classic_name} {help}\n# TYPE {classic_name} {classic_kind}\n");
            let next = if lines
                .get(i + 1)
                .is_some_and(|(_, l, _)| l.starts_with("# TYPE "))
            {
                2
            } else {
                1
            };
            // A gauge's header, HELP and TYPE as written, is kept as it is.
            let written: String = lines[i..i + next]
                .iter()
                .map(|(_, l, _)| format!("{l}\n"))
                .collect();
            if header == written {
                for line in &lines[i..i + next] {
                    keep(&mut emit, *line);
                }
            } else {
                emit(Piece::New(header));
            }
            i += next;
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            // A TYPE without HELP.
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, "unknown"));
            let (n, k) = renamed(name, kind);
            let header = format!("# TYPE {n} {k}\n");
            if header == format!("{line}\n") {
                keep(&mut emit, lines[i]);
            } else {
                emit(Piece::New(header));
            }
            i += 1;
            continue;
        }
        let metric_name = line.split(['{', ' ']).next().unwrap_or("");
        if !metric_name.ends_with("_created") {
            keep(&mut emit, lines[i]);
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prometheus_gets_openmetrics_and_curl_gets_text() {
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert_eq!(Format::negotiate(Some(prometheus)), Format::OpenMetrics);
        let prometheus3 = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1";
        assert_eq!(Format::negotiate(Some(prometheus3)), Format::OpenMetrics);
        assert_eq!(Format::negotiate(Some("*/*")), Format::Classic);
        assert_eq!(Format::negotiate(None), Format::Classic);
        assert_eq!(
            Format::negotiate(Some("text/plain;version=0.0.4")),
            Format::Classic
        );
        assert_eq!(
            Format::negotiate(Some("application/openmetrics-text;q=0, text/plain")),
            Format::Classic
        );
    }

    #[test]
    fn counters_and_info_are_renamed_and_openmetrics_markers_go() {
        let om = "# HELP a_events Events.\n# TYPE a_events counter\na_events_total{r=\"x\"} 3\na_events_created{r=\"x\"} 1.7e9\n# HELP b Gauge.\n# TYPE b gauge\n# UNIT b seconds\nb 1.5\n# HELP c Info.\n# TYPE c info\nc_info{v=\"1\"} 1\n# EOF\n";
        assert_eq!(
            to_classic(om),
            "# HELP a_events_total Events.\n# TYPE a_events_total counter\na_events_total{r=\"x\"} 3\n# HELP b Gauge.\n# TYPE b gauge\nb 1.5\n# HELP c_info Info.\n# TYPE c_info gauge\nc_info{v=\"1\"} 1\n"
        );
    }

    /// A scrape's text split into parts at its families, as the exporter
    /// writes it: its own, two findings' families, the rest and `# EOF`.
    fn scrape(findings: Vec<Arc<str>>) -> Scrape {
        Scrape {
            own: "# HELP a_events Events.\n# TYPE a_events counter\na_events_total{r=\"x\"} 3\na_events_created{r=\"x\"} 1.7e9\n".into(),
            findings: findings.into(),
            rest: "# HELP c Info.\n# TYPE c info\nc_info{v=\"1\"} 1\n# EOF\n".into(),
        }
    }

    fn findings() -> Vec<Arc<str>> {
        vec![
            "# HELP b Gauge.\n# TYPE b gauge\n# UNIT b seconds\nb{pod=\"p\"} 1.5\n".into(),
            "# HELP d Pods.\n# TYPE d counter\nd_total 2\n".into(),
        ]
    }

    fn joined(parts: &[Bytes]) -> String {
        String::from_utf8(parts.concat()).unwrap()
    }

    #[test]
    fn a_scrape_written_in_parts_reads_as_its_whole_text() {
        let whole = format!(
            "{}{}{}",
            scrape(vec![]).own,
            findings().concat(),
            scrape(vec![]).rest
        );
        let classic = ClassicParts::default();
        let kept = findings();
        let sections = scrape_sections(scrape(kept.clone()), Format::OpenMetrics, &classic);
        assert!(Arc::ptr_eq(sections[1].kept.as_ref().unwrap(), &kept[0]));
        assert!(sections[0].kept.is_none() && sections[3].kept.is_none());
        let parts = plain(sections);
        assert_eq!(joined(&parts), whole);
        // The findings' families are lent to the body, not copied.
        assert_eq!(parts[1].as_ptr(), kept[0].as_ptr());
        let parts = plain(scrape_sections(
            scrape(findings()),
            Format::Classic,
            &classic,
        ));
        assert_eq!(joined(&parts), to_classic(&whole));
    }

    #[test]
    fn a_kept_part_is_converted_once_and_its_lines_are_not_copied() {
        let classic = ClassicParts::default();
        let kept = findings();
        let first = classic.of(&kept).concat();
        assert_eq!(joined(&first), to_classic(&kept.concat()));
        // The gauge's HELP and TYPE, then its sample (its UNIT line cut
        // out): slices of the kept text itself.
        let within = |b: &Bytes, part: &str| {
            let range = part.as_ptr() as usize..part.as_ptr() as usize + part.len();
            range.contains(&(b.as_ptr() as usize))
        };
        assert_eq!(first.len(), 3 + 1, "{first:?}");
        assert!(first[..2].iter().all(|b| within(b, &kept[0])));
        assert_eq!(&first[1][..], b"b{pod=\"p\"} 1.5\n");
        // The counter's header is rewritten; its sample is a slice.
        assert!(!within(&first[2], &kept[1]) && within(&first[3], &kept[1]));
        let again = classic.of(&kept).concat();
        assert!(
            first
                .iter()
                .zip(&again)
                .all(|(a, b)| a.as_ptr() == b.as_ptr())
        );
        // A family encoded again is converted again, the other is still kept.
        let changed = vec![kept[0].clone(), Arc::from(&*kept[1])];
        let after = classic.of(&changed).concat();
        assert_eq!(after[0].as_ptr(), first[0].as_ptr());
        assert_ne!(after[3].as_ptr(), first[3].as_ptr());
        assert_eq!(joined(&after), joined(&first));
    }

    #[test]
    fn text_without_a_last_newline_reads_as_it_did() {
        assert_eq!(
            to_classic("# HELP b G.\n# TYPE b gauge\nb 1"),
            "# HELP b G.\n# TYPE b gauge\nb 1\n"
        );
        let part: Arc<str> = "# TYPE b gauge\nb 1".into();
        assert_eq!(joined(&classic_slices(&part)), "# TYPE b gauge\nb 1\n");
    }

    #[tokio::test]
    async fn parts_are_written_in_order_with_their_length_known() {
        use http_body_util::BodyExt;
        let parts = vec![Bytes::from("ab"), Bytes::from("cde")];
        let body = Parts::new(parts);
        assert_eq!(body.size_hint().exact(), Some(5));
        assert!(!body.is_end_stream());
        let written = body.collect().await.unwrap().to_bytes();
        assert_eq!(&written[..], b"abcde");
    }
}
