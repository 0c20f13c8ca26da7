//! The input as text: a reader that refuses what is not text (invalid UTF-8,
//! a NUL byte) and says where, the line count serde_json does not keep, and
//! the skipping of what comes before the first document.

use std::cell::Cell;
use std::io::{BufRead, Read};
use std::rc::Rc;

use super::LoadError;

/// Where the input stopped being text: byte offset, line, and what was there.
pub(super) type NotText = (u64, u64, &'static str);

/// Passes the input through, refusing what is not text: invalid UTF-8 or a
/// NUL byte, with the byte offset and line where it is.
pub(super) struct TextCheck<R> {
    inner: R,
    offset: u64,
    line: u64,
    /// The start of a UTF-8 sequence that the last read cut.
    pending: Vec<u8>,
    problem: Rc<Cell<Option<NotText>>>,
    end: Rc<Cell<LastLine>>,
}

/// The last line read so far: its first byte, whether a line break ended it,
/// and its number.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct LastLine {
    pub(super) first: Option<u8>,
    pub(super) ended: bool,
    pub(super) line: u64,
}

impl<R: Read> TextCheck<R> {
    /// Reads `inner` from its start; where it stops being text goes to
    /// `problem`, and the last line read to `end`.
    pub(super) fn new(
        inner: R,
        problem: Rc<Cell<Option<NotText>>>,
        end: Rc<Cell<LastLine>>,
    ) -> Self {
        TextCheck {
            inner,
            offset: 0,
            line: 1,
            pending: Vec::new(),
            problem,
            end,
        }
    }

    fn refuse(&mut self, at: usize, buf: &[u8], what: &'static str) -> std::io::Error {
        // `at` counts from the start of `pending` followed by `buf`.
        let before = at.saturating_sub(self.pending.len());
        let lines = memchr::memchr_iter(b'\n', &buf[..before.min(buf.len())]).count() as u64;
        let offset = (self.offset + at as u64).saturating_sub(self.pending.len() as u64);
        self.problem.set(Some((offset, self.line + lines, what)));
        std::io::Error::new(std::io::ErrorKind::InvalidData, what)
    }
}

impl<R: Read> Read for TextCheck<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.problem.get().is_some() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "not text",
            ));
        }
        let n = self.inner.read(buf)?;
        let data = &buf[..n];
        if n == 0 {
            if !self.pending.is_empty() {
                return Err(self.refuse(0, data, "a UTF-8 sequence cut off at the end"));
            }
            return Ok(0);
        }
        if let Some(at) = memchr::memchr(0, data) {
            let at = at + self.pending.len();
            return Err(self.refuse(at, data, "a NUL byte"));
        }
        let joined;
        let text: &[u8] = if self.pending.is_empty() {
            data
        } else {
            joined = [self.pending.as_slice(), data].concat();
            &joined
        };
        let pending = match std::str::from_utf8(text) {
            Ok(_) => Vec::new(),
            Err(e) if e.error_len().is_none() => text[e.valid_up_to()..].to_vec(),
            Err(e) => return Err(self.refuse(e.valid_up_to(), data, "a byte that is not UTF-8")),
        };
        self.offset += n as u64;
        self.line += memchr::memchr_iter(b'\n', data).count() as u64;
        self.pending = pending;
        let mut end = self.end.get();
        match memchr::memrchr(b'\n', data) {
            Some(p) if p + 1 == n => end.first = None,
            Some(p) => end.first = Some(data[p + 1]),
            None if end.ended || end.first.is_none() => end.first = Some(data[0]),
            None => {}
        }
        end.ended = data[n - 1] == b'\n';
        end.line = self.line;
        self.end.set(end);
        Ok(n)
    }
}

/// The line serde_json is at, counted as it reads (it reads byte by byte).
pub(super) struct LineCount<R> {
    pub(super) inner: R,
    pub(super) line: Rc<Cell<u64>>,
}

impl<R: Read> Read for LineCount<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let lines = memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        if lines > 0 {
            self.line.set(self.line.get() + lines);
        }
        Ok(n)
    }
}

fn read_error(e: std::io::Error) -> LoadError {
    LoadError::Read {
        message: e.to_string(),
    }
}

/// Skips a byte-order mark and whitespace; returns the next byte, unread.
/// Whole lines only are skipped before YAML, whose indentation matters.
pub(super) fn skip_leading_space(input: &mut impl BufRead) -> Result<Option<u8>, LoadError> {
    let mut at_start = true;
    loop {
        let buf = input.fill_buf().map_err(read_error)?;
        if buf.is_empty() {
            return Ok(None);
        }
        if at_start && buf.starts_with(b"\xEF\xBB\xBF") {
            input.consume(3);
            at_start = false;
            continue;
        }
        at_start = false;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(p) => {
                let first = buf[p];
                let skip = if matches!(first, b'{' | b'[') {
                    p
                } else {
                    buf[..p]
                        .iter()
                        .rposition(|b| *b == b'\n')
                        .map_or(0, |n| n + 1)
                };
                input.consume(skip);
                return Ok(Some(first));
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}
