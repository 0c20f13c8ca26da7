//! Lists a pod carries that the diagnosis reads only now and then, which a
//! decoder may hand over unparsed to be decoded when (and if) they are needed.
//!
//! A pod's container specs are needed only when they can claim a host port,
//! and its container statuses only when the pod is not settled or a container
//! may be waiting: rarely, in a large cluster, while the two lists are most
//! of a pod's bytes. The list decoder ([`codec`](crate::codec))
//! answers the newtype name [`UNPARSED`] with the value's text, having checked
//! only its extent; any other decoder (serde_json, for watch events) decodes
//! the value as usual.

use std::fmt;
use std::marker::PhantomData;
use std::sync::OnceLock;

use memchr::memmem::Finder;

use serde::de::{self, Deserialize, Deserializer};

use super::meta::nullable;
use crate::codec::UNPARSED;

/// A list (`null` reads as empty), as text to decode later or decoded.
pub(super) enum Deferred<'a, T> {
    Text(&'a str),
    Decoded(T),
}

impl<T: Default> Default for Deferred<'_, T> {
    fn default() -> Self {
        Deferred::Decoded(T::default())
    }
}

impl<'de: 'a, 'a, T: Deserialize<'de> + Default> Deserialize<'de> for Deferred<'a, T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DeferredVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Default> de::Visitor<'de> for DeferredVisitor<T> {
            type Value = Deferred<'de, T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Deferred::Text(text))
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Self::Value, D::Error> {
                nullable(deserializer).map(Deferred::Decoded)
            }
        }
        deserializer.deserialize_newtype_struct(UNPARSED, DeferredVisitor(PhantomData))
    }
}

/// An object key, in quotes (`"\"hostPort\""`), to look for in a list's text,
/// with its searcher built once: building one costs more than a search.
pub(super) struct Key {
    quoted: &'static str,
    finder: OnceLock<Finder<'static>>,
}

impl Key {
    pub(super) const fn new(quoted: &'static str) -> Self {
        Key {
            quoted,
            finder: OnceLock::new(),
        }
    }

    fn is_in(&self, text: &str) -> bool {
        let finder = self.finder.get_or_init(|| Finder::new(self.quoted));
        finder.find(text.as_bytes()).is_some()
    }
}

impl<'a, T: Deserialize<'a> + Default> Deferred<'a, T> {
    /// Whether the list may name an object key, given in quotes (`"\"hostPort\""`):
    /// on text, whether it appears at all (the API server never escapes the
    /// letters of a key, so a list without it has no such key, while a string
    /// value equal to it answers yes and costs only a decode); decoded, what
    /// `decoded` says.
    pub(super) fn may_name(&self, key: &Key, decoded: impl FnOnce(&T) -> bool) -> bool {
        match self {
            Deferred::Text(text) => key.is_in(text),
            Deferred::Decoded(value) => decoded(value),
        }
    }

    /// The list, decoded now if it came as text.
    pub(super) fn decode<E: de::Error>(self) -> Result<T, E> {
        match self {
            Deferred::Decoded(value) => Ok(value),
            Deferred::Text(text) => {
                let value: Option<T> = serde_json::from_str(text).map_err(E::custom)?;
                Ok(value.unwrap_or_default())
            }
        }
    }

    /// Left undecoded: text is checked for being a list or `null`, which is
    /// what decoding it would first check (its extent was checked already).
    pub(super) fn skip<E: de::Error>(self) -> Result<(), E> {
        match self {
            Deferred::Text(text) if !text.starts_with('[') && text != "null" => Err(E::custom(
                format_args!("invalid type: {text:.40}, expected a list"),
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Names<'a> = Deferred<'a, Vec<String>>;
    type Error = serde_json::Error;

    #[test]
    fn serde_json_decodes_at_once_and_text_is_decoded_on_demand() {
        let decoded: Names = serde_json::from_str(r#"["a","b"]"#).unwrap();
        assert!(matches!(&decoded, Deferred::Decoded(v) if v == &["a", "b"]));
        let null: Names = serde_json::from_str("null").unwrap();
        assert!(matches!(&null, Deferred::Decoded(v) if v.is_empty()));

        let text = Names::Text(r#"[ "a", "b" ]"#);
        assert_eq!(text.decode::<Error>().unwrap(), ["a", "b"]);
        assert!(Names::Text("null").decode::<Error>().unwrap().is_empty());
        assert!(Names::Text("[1]").decode::<Error>().is_err());
    }

    #[test]
    fn a_key_is_looked_for_in_text_and_asked_of_a_decoded_list() {
        static KEY: Key = Key::new("\"hostPort\"");
        assert!(Names::Text(r#"[{"hostPort":80}]"#).may_name(&KEY, |_| false));
        assert!(!Names::Text(r#"[{"containerPort":80}]"#).may_name(&KEY, |_| true));
        // Escaped quotes inside a string are not a key.
        assert!(!Names::Text(r#"["say \"hostPort\" once"]"#).may_name(&KEY, |_| true));
        // The searcher, built at the first search, finds the key again.
        assert!(Names::Text(r#"[{"a":1},{"hostPort":80}]"#).may_name(&KEY, |_| false));
        let decoded = Names::Decoded(vec!["x".into()]);
        assert!(decoded.may_name(&KEY, |v| v.len() == 1));
        assert!(!decoded.may_name(&KEY, |v| v.is_empty()));
    }

    #[test]
    fn text_left_undecoded_must_still_be_a_list() {
        assert!(Names::Text("[]").skip::<Error>().is_ok());
        assert!(Names::Text("null").skip::<Error>().is_ok());
        let err = Names::Text(r#"{"a":1}"#).skip::<Error>().unwrap_err();
        assert!(err.to_string().contains("expected a list"), "{err}");
        assert!(Names::Decoded(vec![]).skip::<Error>().is_ok());
    }
}
