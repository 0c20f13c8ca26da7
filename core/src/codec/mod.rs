//! The codec: JSON into the slim types, skimming over what they do not keep
//! (hence its name in messages and docs: skim).
//!
//! A serde `Deserializer` for the API server's list pages. It knows nothing
//! of Kubernetes or the model: any `Deserialize` type reads through it. What a
//! slim type reads is decoded exactly as serde_json would (strings with their
//! escapes, numbers, literals, the same errors for the wrong type); a value it
//! does not read (managedFields, labels of pods, container specs past their
//! ports, most of a status) is skipped by finding where it ends ([`scan`])
//! without parsing it. Those values are most of a pod's bytes, and skipping
//! them this way costs far less than parsing them, which is what serde_json
//! must do (the figures are in `docs/performance.md`).
//!
//! A type may also ask for a value's text unparsed (`UNPARSED`), the one
//! word of protocol between this decoder and the types it fills: the model
//! takes a pod's container specs and container statuses that way and decodes
//! them only when they are needed (see `model/deferred.rs`).
//!
//! The price is validation: a skipped value is checked for its extent only
//! (balanced brackets outside strings, a closing quote, a literal spelled
//! right). Its inside is never read, so nothing the exporter holds depends on
//! it. The input is `&str`, checked as UTF-8 once by the caller.

// The workspace denies unsafe code; the scanner's SIMD needs it, each block
// with the SAFETY comment that says why it is sound.
#[allow(unsafe_code)]
mod scan;

use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

/// The name of a newtype this decoder answers with the value's JSON text,
/// unparsed, through `visit_borrowed_str` (as serde_json does for its
/// `RawValue`), rather than decode it. Any other decoder decodes the value as
/// usual.
pub(crate) const UNPARSED: &str = "$kube_lifecycle_exporter::Unparsed";

/// How deep kept values may nest (serde_json's limit too): the decode of a
/// kept value recurses, and hostile input must not overflow the stack.
const MAX_DEPTH: u16 = 128;

/// A decoding error and the byte offset it was found at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
    offset: Option<usize>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(offset) => write!(f, "{} at byte {offset}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error {
            message: msg.to_string(),
            offset: None,
        }
    }
}

/// Decodes `text` as one JSON value into `T`.
pub fn from_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Result<T, Error> {
    from_str_seed(text, std::marker::PhantomData::<T>)
}

/// Decodes `text` as one JSON value with `seed`: a decoding that carries
/// what the caller knows (how many items to make room for).
pub fn from_str_seed<'de, S: DeserializeSeed<'de>>(
    text: &'de str,
    seed: S,
) -> Result<S::Value, Error> {
    let mut de = Deserializer::new(text);
    let value = seed.deserialize(&mut de).map_err(|e| de.located(e))?;
    if de.skip_ws().is_some() {
        return Err(de.error("trailing characters"));
    }
    Ok(value)
}

/// Decodes the value of one key of the object `text` holds, passing over the
/// entries before it and reading nothing after it: the rest of `text` is not
/// checked. `None` when the object has no such key.
pub fn field<'de, T: de::Deserialize<'de>>(text: &'de str, key: &str) -> Result<Option<T>, Error> {
    let mut de = Deserializer::new(text);
    if de.peek_value()? != b'{' {
        return Err(de.error("expected an object"));
    }
    de.enter()?;
    let mut entries = Entries {
        de: &mut de,
        first: true,
    };
    while let Some(name) = entries.next_key::<std::borrow::Cow<'de, str>>()? {
        if name == key {
            let value = T::deserialize(&mut *entries.de).map_err(|e| entries.de.located(e))?;
            return Ok(Some(value));
        }
        entries.next_value::<de::IgnoredAny>()?;
    }
    Ok(None)
}

pub(crate) struct Deserializer<'de> {
    text: &'de str,
    bytes: &'de [u8],
    pos: usize,
    depth: u16,
    /// A string with escapes, unescaped.
    scratch: String,
}

/// A string as decoded: borrowed from the input, or unescaped into scratch.
enum Str<'de, 's> {
    Borrowed(&'de str),
    Copied(&'s str),
}

impl<'de> Deserializer<'de> {
    fn new(text: &'de str) -> Self {
        Deserializer {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
            scratch: String::new(),
        }
    }

    fn error(&self, message: &str) -> Error {
        Error {
            message: message.to_string(),
            offset: Some(self.pos),
        }
    }

    /// A visitor's error (wrong type, unknown variant) gets the offset too.
    fn located(&self, mut error: Error) -> Error {
        error.offset.get_or_insert(self.pos);
        error
    }

    /// The next byte that is not whitespace, not consumed.
    fn skip_ws(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b' ' | b'\n' | b'\r' | b'\t' => self.pos += 1,
                _ => return Some(b),
            }
        }
        None
    }

    fn peek_value(&mut self) -> Result<u8, Error> {
        self.skip_ws()
            .ok_or_else(|| self.error("EOF while parsing a value"))
    }

    fn expect_literal(&mut self, literal: &[u8]) -> Result<(), Error> {
        if self.bytes[self.pos..].starts_with(literal) {
            self.pos += literal.len();
            Ok(())
        } else {
            Err(self.error("expected value"))
        }
    }

    /// The string whose opening quote is at `pos`.
    fn parse_str<'s>(&'s mut self) -> Result<Str<'de, 's>, Error> {
        self.pos += 1;
        let start = self.pos;
        self.pos = plain_run_end(self.bytes, self.pos);
        loop {
            match self.bytes.get(self.pos) {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'"') => {
                    let s = &self.text[start..self.pos];
                    self.pos += 1;
                    return Ok(Str::Borrowed(s));
                }
                Some(b'\\') => break,
                Some(&b) if b < 0x20 => {
                    return Err(self.error("control character found while parsing a string"));
                }
                Some(_) => self.pos += 1,
            }
        }
        self.scratch.clear();
        self.scratch.push_str(&self.text[start..self.pos]);
        loop {
            let run = self.pos;
            self.pos = plain_run_end(self.bytes, self.pos);
            while let Some(&b) = self.bytes.get(self.pos) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            self.scratch.push_str(&self.text[run..self.pos]);
            match self.bytes.get(self.pos) {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Str::Copied(&self.scratch));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = self.parse_escape()?;
                    self.scratch.push(c);
                }
                Some(_) => {
                    return Err(self.error("control character found while parsing a string"));
                }
            }
        }
    }

    /// The character of the escape after a backslash.
    fn parse_escape(&mut self) -> Result<char, Error> {
        let Some(&b) = self.bytes.get(self.pos) else {
            return Err(self.error("EOF while parsing a string"));
        };
        self.pos += 1;
        Ok(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.parse_hex4()?;
                match first {
                    0xD800..=0xDBFF => {
                        if !self.bytes[self.pos..].starts_with(b"\\u") {
                            return Err(self.error("lone leading surrogate in hex escape"));
                        }
                        self.pos += 2;
                        let second = self.parse_hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(self.error("lone leading surrogate in hex escape"));
                        }
                        let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                        char::from_u32(code)
                            .ok_or_else(|| self.error("invalid unicode code point"))?
                    }
                    0xDC00..=0xDFFF => {
                        return Err(self.error("lone trailing surrogate in hex escape"));
                    }
                    code => char::from_u32(code)
                        .ok_or_else(|| self.error("invalid unicode code point"))?,
                }
            }
            _ => return Err(self.error("invalid escape")),
        })
    }

    fn parse_hex4(&mut self) -> Result<u32, Error> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.error("invalid escape"))?;
        self.pos += 4;
        u32::from_str_radix(digits, 16).map_err(|_| self.error("invalid escape"))
    }

    /// A number, handed to the visitor as serde_json does: `u64` when it is a
    /// non-negative integer that fits, `i64` for a negative one, else `f64`.
    fn parse_number<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        let start = self.pos;
        let negative = self.bytes[self.pos] == b'-';
        if negative {
            self.pos += 1;
        }
        let digits = self.pos;
        let mut value: u64 = 0;
        let mut overflow = false;
        while let Some(&b) = self.bytes.get(self.pos) {
            if !b.is_ascii_digit() {
                break;
            }
            match value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(b - b'0')))
            {
                Some(v) => value = v,
                None => overflow = true,
            }
            self.pos += 1;
        }
        let int_len = self.pos - digits;
        if int_len == 0 || (int_len > 1 && self.bytes[digits] == b'0') {
            return Err(self.error("invalid number"));
        }
        let mut float = overflow;
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            self.digits()?;
            float = true;
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits()?;
            float = true;
        }
        if !float {
            if !negative {
                return visitor.visit_u64(value);
            }
            if let Some(v) = 0i64.checked_sub_unsigned(value) {
                return visitor.visit_i64(v);
            }
        }
        let f: f64 = self.text[start..self.pos]
            .parse()
            .map_err(|_| self.error("invalid number"))?;
        if !f.is_finite() {
            return Err(self.error("number out of range"));
        }
        visitor.visit_f64(f)
    }

    fn digits(&mut self) -> Result<(), Error> {
        let start = self.pos;
        while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error("invalid number"));
        }
        Ok(())
    }

    /// Passes over the value at `pos`, checking only where it ends.
    fn skip_value(&mut self) -> Result<(), Error> {
        let end = match self.peek_value()? {
            b'"' => scan::string_end(self.bytes, self.pos),
            b'{' | b'[' => scan::container_end(self.bytes, self.pos),
            b't' => return self.expect_literal(b"true"),
            b'f' => return self.expect_literal(b"false"),
            b'n' => return self.expect_literal(b"null"),
            b'-' | b'0'..=b'9' => {
                let rest = &self.bytes[self.pos..];
                let len = rest
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .unwrap_or(rest.len());
                Some(self.pos + len)
            }
            _ => return Err(self.error("expected value")),
        };
        match end {
            Some(end) => {
                self.pos = end;
                Ok(())
            }
            None => {
                self.pos = self.bytes.len();
                Err(self.error("EOF while parsing a value"))
            }
        }
    }

    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("recursion limit exceeded"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Before the next element of a list (`close` is `]`) or entry of an
    /// object (`}`): past the comma, or false at the closing bracket.
    fn has_next(&mut self, first: &mut bool, close: u8) -> Result<bool, Error> {
        match self.skip_ws() {
            Some(b) if b == close => return Ok(false),
            Some(b',') if !*first => self.pos += 1,
            Some(_) if *first => {}
            Some(_) if close == b']' => return Err(self.error("expected `,` or `]`")),
            Some(_) => return Err(self.error("expected `,` or `}`")),
            None => return Err(self.error("EOF while parsing a value")),
        }
        *first = false;
        Ok(true)
    }

    /// An object's key and the colon after it; the key goes to `seed`.
    fn key<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<K::Value, Error> {
        if self.skip_ws() != Some(b'"') {
            return Err(self.error("key must be a string"));
        }
        let key = match self.parse_str()? {
            Str::Borrowed(s) => seed.deserialize(de::value::BorrowedStrDeserializer::new(s))?,
            Str::Copied(s) => seed.deserialize(s.to_string().into_deserializer())?,
        };
        if self.skip_ws() != Some(b':') {
            return Err(self.error("expected `:`"));
        }
        self.pos += 1;
        Ok(key)
    }

    /// The closing bracket after a visitor has taken what it wanted.
    fn leave(&mut self, close: u8) -> Result<(), Error> {
        self.depth -= 1;
        match self.skip_ws() {
            Some(b) if b == close => {
                self.pos += 1;
                Ok(())
            }
            Some(b',') => Err(self.error("trailing characters")),
            Some(_) => Err(self.error(if close == b']' {
                "expected `,` or `]`"
            } else {
                "expected `,` or `}`"
            })),
            None => Err(self.error("EOF while parsing a value")),
        }
    }
}

/// Where the run of string bytes from `at` that need no attention (no quote,
/// backslash or control character) ends, eight bytes at a time; the last
/// few bytes are left to the caller's byte loop.
fn plain_run_end(bytes: &[u8], mut at: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(word) = bytes.get(at..at + 8) {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        // A byte's high bit is set in `zero(x)` when that byte of `x` is zero
        // (exactly so for the lowest such byte, which is the one used).
        let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
        let quote = zero(w ^ (ONES * u64::from(b'"')));
        let backslash = zero(w ^ (ONES * u64::from(b'\\')));
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        let special = quote | backslash | control;
        if special != 0 {
            return at + (special.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek_value()? {
            b'n' => {
                self.expect_literal(b"null")?;
                visitor.visit_unit()
            }
            b't' => {
                self.expect_literal(b"true")?;
                visitor.visit_bool(true)
            }
            b'f' => {
                self.expect_literal(b"false")?;
                visitor.visit_bool(false)
            }
            b'"' => match self.parse_str()? {
                Str::Borrowed(s) => visitor.visit_borrowed_str(s),
                Str::Copied(s) => visitor.visit_str(s),
            },
            b'[' => {
                self.enter()?;
                let value = visitor.visit_seq(Elements {
                    de: &mut *self,
                    first: true,
                })?;
                self.leave(b']')?;
                Ok(value)
            }
            b'{' => {
                self.enter()?;
                let value = visitor.visit_map(Entries {
                    de: &mut *self,
                    first: true,
                })?;
                self.leave(b'}')?;
                Ok(value)
            }
            b'-' | b'0'..=b'9' => self.parse_number(visitor),
            _ => Err(self.error("expected value")),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.peek_value()? == b'n' {
            self.expect_literal(b"null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.skip_value()?;
        visitor.visit_unit()
    }

    /// Unit variants, which is all the slim types use: a JSON string.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.peek_value()? {
            b'"' => {}
            // `{"Variant": value}`, as serde_json reads it too.
            b'{' => {
                self.enter()?;
                let value = visitor.visit_enum(VariantEntry { de: &mut *self })?;
                self.leave(b'}')?;
                return Ok(value);
            }
            _ => return Err(self.error("expected a string naming a variant")),
        }
        match self.parse_str()? {
            Str::Borrowed(s) => visitor.visit_enum(de::value::BorrowedStrDeserializer::new(s)),
            Str::Copied(s) => visitor.visit_enum(s.to_string().into_deserializer()),
        }
    }

    /// A value the type asks for unparsed ([`UNPARSED`]) is skipped and
    /// handed over as its text.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == UNPARSED {
            self.peek_value()?;
            let start = self.pos;
            self.skip_value()?;
            return visitor.visit_borrowed_str(&self.text[start..self.pos]);
        }
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

struct Elements<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: bool,
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if !self.de.has_next(&mut self.first, b']')? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}

struct Entries<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: bool,
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if !self.de.has_next(&mut self.first, b'}')? {
            return Ok(None);
        }
        self.de.key(seed).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(&mut *self.de)
    }
}

/// An enum written as an object of one entry, `{"Variant": value}`.
struct VariantEntry<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'de> de::EnumAccess<'de> for VariantEntry<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let variant = self.de.key(seed)?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for VariantEntry<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        de::Deserialize::deserialize(&mut *self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(&mut *self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
    }
}

#[cfg(test)]
pub(crate) mod tests;
