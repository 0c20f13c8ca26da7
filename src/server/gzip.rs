//! gzip for `/metrics`, made of compressed parts kept between scrapes: the
//! findings' families, most of a large scrape's bytes, are compressed when
//! they are encoded anew rather than on every scrape, so Prometheus' scrapes
//! (two of them, for a pair of replicas) cost the compression of the
//! exporter's own families and of what changed.
//!
//! Each section is a raw deflate stream ended by a sync flush (byte-aligned,
//! not final), so the sections join into one stream; an empty final block
//! ends it, and the gzip trailer's CRC is the sections' CRCs combined.

use std::sync::Arc;

use axum::body::Bytes;
use flate2::{Compress, CompressError, Compression, FlushCompress, Status};
use parking_lot::Mutex;

use super::exposition::{Format, Section};

/// A gzip member's header: deflate, no name or time, flags clear, OS unknown.
const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

/// An empty block with fixed codes, marked final: what ends the joined
/// stream (BFINAL 1, BTYPE 01, the end-of-block code, padding).
const LAST_BLOCK: [u8; 2] = [0x03, 0x00];

/// Whether a request's `Accept-Encoding` takes gzip: named (or `x-gzip`), or
/// `*` without gzip named, with a quality above 0.
pub(crate) fn accepted(accept_encoding: Option<&str>) -> bool {
    let Some(accept) = accept_encoding else {
        return false;
    };
    let (mut named, mut any) = (None, None);
    for coding in accept.split(',') {
        let mut params = coding.split(';').map(str::trim);
        let name = params.next().unwrap_or("").to_ascii_lowercase();
        let quality = params
            .filter_map(|p| p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        match name.as_str() {
            "gzip" | "x-gzip" => named = Some(named.unwrap_or(0.0f32).max(quality)),
            "*" => any = Some(quality),
            _ => {}
        }
    }
    named.or(any).is_some_and(|q| q > 0.0)
}

/// A section's text deflated, with what the trailer needs of it.
#[derive(Clone)]
struct Deflated {
    data: Bytes,
    crc: crc32fast::Hasher,
}

/// Raw deflate of `text` ended by a sync flush, and its CRC.
fn deflate(text: &[Bytes]) -> Result<Deflated, CompressError> {
    let mut compress = Compress::new(Compression::default(), false);
    let length: usize = text.iter().map(Bytes::len).sum();
    // Metrics text deflates to a few per cent; room grows as needed.
    let mut out = Vec::with_capacity(length / 16 + 64);
    let mut crc = crc32fast::Hasher::new();
    for piece in text {
        crc.update(piece);
        let mut input = &piece[..];
        while !input.is_empty() {
            make_room(&mut out);
            let before = compress.total_in();
            compress.compress_vec(input, &mut out, FlushCompress::None)?;
            let read = usize::try_from(compress.total_in() - before).unwrap_or(input.len());
            input = &input[read..];
        }
    }
    // Flushed when a call leaves room to spare: all it had is written.
    loop {
        make_room(&mut out);
        let status = compress.compress_vec(&[], &mut out, FlushCompress::Sync)?;
        if out.len() < out.capacity() || status == Status::BufError {
            break;
        }
    }
    Ok(Deflated {
        data: Bytes::from(out),
        crc,
    })
}

fn make_room(out: &mut Vec<u8>) {
    if out.capacity() - out.len() < 4096 {
        out.reserve(out.capacity().max(4096));
    }
}

/// The compressed form of the kept parts last written, in each format: a
/// part kept since (the same `Arc`) is not compressed again.
#[derive(Default)]
pub(crate) struct GzipParts(Mutex<Vec<(Arc<str>, Format, Deflated)>>);

impl GzipParts {
    /// `sections`, written in `format`, as one gzip member in pieces.
    pub(crate) fn gzip(
        &self,
        sections: &[Section],
        format: Format,
    ) -> Result<Vec<Bytes>, CompressError> {
        let known: Vec<Option<Deflated>> = {
            let known = self.0.lock();
            sections
                .iter()
                .map(|section| {
                    let kept = section.kept.as_ref()?;
                    known
                        .iter()
                        .find(|(part, f, _)| *f == format && Arc::ptr_eq(part, kept))
                        .map(|(_, _, deflated)| deflated.clone())
                })
                .collect()
        };
        // Compressed without the lock: a scrape in the other format, or one
        // that finds every part kept, does not wait for this one.
        let deflated = sections
            .iter()
            .zip(known)
            .filter(|(section, _)| section.text.iter().any(|t| !t.is_empty()))
            .map(|(section, known)| {
                let deflated = match known {
                    Some(deflated) => deflated,
                    None => deflate(&section.text)?,
                };
                Ok((section.kept.clone(), deflated))
            })
            .collect::<Result<Vec<_>, CompressError>>()?;
        {
            let mut known = self.0.lock();
            known.retain(|(_, f, _)| *f != format);
            known.extend(
                deflated
                    .iter()
                    .filter_map(|(kept, d)| Some((kept.clone()?, format, d.clone()))),
            );
        }
        let mut crc = crc32fast::Hasher::new();
        let mut pieces = vec![Bytes::from_static(&HEADER)];
        for (_, section) in deflated {
            crc.combine(&section.crc);
            pieces.push(section.data);
        }
        pieces.push(Bytes::from_static(&LAST_BLOCK));
        let length: usize = sections.iter().flat_map(|s| &s.text).map(Bytes::len).sum();
        // ISIZE is the length modulo 2^32.
        let mut trailer = crc.finalize().to_le_bytes().to_vec();
        trailer.extend_from_slice(&(length as u32).to_le_bytes());
        pieces.push(Bytes::from(trailer));
        Ok(pieces)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use proptest::prelude::*;

    use super::*;

    fn gunzip(pieces: &[Bytes]) -> String {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&pieces.concat()[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    }

    fn section(kept: Option<&Arc<str>>, text: &[&str]) -> Section {
        Section {
            kept: kept.cloned(),
            text: text.iter().map(|t| Bytes::from(t.to_string())).collect(),
        }
    }

    #[test]
    fn prometheus_and_curl_asking_for_gzip_get_it() {
        for yes in [
            "gzip",
            "gzip, deflate, br",
            "identity;q=0.5, GZIP;q=0.2",
            "*",
            "br, *;q=0.1",
            "x-gzip",
        ] {
            assert!(accepted(Some(yes)), "{yes}");
        }
        for no in [
            "",
            "identity",
            "deflate, br",
            "gzip;q=0",
            "gzip;q=0.0, *",
            "*;q=0",
        ] {
            assert!(!accepted(Some(no)), "{no}");
        }
        assert!(!accepted(None));
    }

    #[test]
    fn a_kept_part_is_compressed_once_and_the_whole_reads_back() {
        let gzip = GzipParts::default();
        let family: Arc<str> = "# TYPE b gauge\nb{pod=\"p\"} 1.5\n".repeat(500).into();
        let other: Arc<str> = "# TYPE d gauge\nd 2\n".into();
        let scrape = |own: &str, kept: &[&Arc<str>]| {
            let mut sections = vec![section(None, &[own])];
            sections.extend(kept.iter().map(|k| section(Some(k), &[&***k])));
            sections.push(section(None, &["", "# EOF\n"]));
            sections
        };
        let first = gzip
            .gzip(&scrape("a 1\n", &[&family, &other]), Format::OpenMetrics)
            .unwrap();
        assert_eq!(gunzip(&first), format!("a 1\n{family}{other}# EOF\n"));
        // The next scrape, its own families changed: the kept parts'
        // compressed form is the very one written before.
        let other_again: Arc<str> = Arc::from(&*other);
        let second = gzip
            .gzip(
                &scrape("a 2\n", &[&family, &other_again]),
                Format::OpenMetrics,
            )
            .unwrap();
        assert_eq!(gunzip(&second), format!("a 2\n{family}{other}# EOF\n"));
        assert_eq!(first[2].as_ptr(), second[2].as_ptr());
        assert_ne!(first[3].as_ptr(), second[3].as_ptr());
        // Another format's form of the same part is its own.
        let classic = gzip
            .gzip(&scrape("a 3\n", &[&family]), Format::Classic)
            .unwrap();
        assert_ne!(classic[2].as_ptr(), first[2].as_ptr());
        let third = gzip
            .gzip(&scrape("a 4\n", &[&family]), Format::OpenMetrics)
            .unwrap();
        assert_eq!(third[2].as_ptr(), first[2].as_ptr());
    }

    #[test]
    fn nothing_to_write_is_an_empty_gzip() {
        let pieces = GzipParts::default()
            .gzip(&[section(None, &[""])], Format::Classic)
            .unwrap();
        assert_eq!(gunzip(&pieces), "");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// However the text is cut into sections and pieces, kept or not,
        /// the gzip reads back as the text, its CRC and length checked.
        #[test]
        fn sections_join_into_the_text(
            sections in prop::collection::vec(
                (any::<bool>(), prop::collection::vec("[a-z_{}=\" 0-9\\n]{0,300}", 0..4)),
                0..6,
            ),
            repeat in 1usize..200,
        ) {
            let gzip = GzipParts::default();
            let sections: Vec<Section> = sections
                .iter()
                .map(|(kept, pieces)| {
                    let pieces: Vec<String> = pieces.iter().map(|p| p.repeat(repeat)).collect();
                    let joined: Arc<str> = pieces.concat().into();
                    Section {
                        kept: kept.then_some(joined),
                        text: pieces.into_iter().map(Bytes::from).collect(),
                    }
                })
                .collect();
            let whole: String = sections
                .iter()
                .flat_map(|s| &s.text)
                .map(|t| std::str::from_utf8(t).unwrap())
                .collect();
            for _ in 0..2 {
                let pieces = gzip.gzip(&sections, Format::OpenMetrics).unwrap();
                prop_assert_eq!(gunzip(&pieces), whole.clone());
            }
        }
    }
}
