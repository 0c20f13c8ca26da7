//! An object's `metadata.uid`, held in 16 bytes when it is a UUID.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use super::name::Name;

/// `metadata.uid`. The API server makes UUIDs and prints them as 36 lower-case
/// characters; such a uid is held as its 16 bytes rather than as a string
/// several times that size. Anything else (hand-written dumps, upper case) is
/// held as written, so two spellings of one UUID stay different, as they are
/// to the API.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Uid {
    Uuid([u8; 16]),
    Text(Name),
}

impl Uid {
    pub fn new(text: &str) -> Uid {
        match uuid_bytes(text) {
            Some(bytes) => Uid::Uuid(bytes),
            None => Uid::Text(Name::from(text)),
        }
    }

    pub fn is_empty(&self) -> bool {
        matches!(self, Uid::Text(text) if text.is_empty())
    }

    /// The UUID as one number, when it is one.
    pub fn as_u128(&self) -> Option<u128> {
        match self {
            Uid::Uuid(bytes) => Some(u128::from_be_bytes(*bytes)),
            Uid::Text(_) => None,
        }
    }
}

/// `8-4-4-4-12` lower-case hexadecimal digits, as the API server prints a UID.
fn uuid_bytes(text: &str) -> Option<[u8; 16]> {
    const DASHES_AT: [usize; 4] = [8, 13, 18, 23];
    if text.len() != 36 {
        return None;
    }
    let mut value: u128 = 0;
    for (at, b) in text.bytes().enumerate() {
        let digit = match b {
            b'-' if DASHES_AT.contains(&at) => continue,
            _ if DASHES_AT.contains(&at) => return None,
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return None,
        };
        value = value << 4 | u128::from(digit);
    }
    Some(value.to_be_bytes())
}

impl Default for Uid {
    fn default() -> Self {
        Uid::Text(Name::default())
    }
}

impl fmt::Display for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Uid::Uuid(bytes) => {
                for (i, b) in bytes.iter().enumerate() {
                    if matches!(i, 4 | 6 | 8 | 10) {
                        f.write_str("-")?;
                    }
                    write!(f, "{b:02x}")?;
                }
                Ok(())
            }
            Uid::Text(text) => f.write_str(text),
        }
    }
}

impl fmt::Debug for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string(), f)
    }
}

impl PartialEq<str> for Uid {
    fn eq(&self, other: &str) -> bool {
        match self {
            Uid::Uuid(bytes) => uuid_bytes(other).as_ref() == Some(bytes),
            Uid::Text(text) => text == other,
        }
    }
}

impl PartialEq<&str> for Uid {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl PartialEq<String> for Uid {
    fn eq(&self, other: &String) -> bool {
        self == other.as_str()
    }
}

struct UidVisitor;

impl Visitor<'_> for UidVisitor {
    type Value = Uid;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a uid string")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Uid, E> {
        Ok(Uid::new(value))
    }
}

impl<'de> Deserialize<'de> for Uid {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(UidVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UUID: &str = "8d2c5e7a-0000-4000-8000-00000000002a";

    #[test]
    fn api_server_uids_are_held_as_bytes_and_print_as_they_came() {
        let uid = Uid::new(UUID);
        assert!(matches!(uid, Uid::Uuid(_)));
        assert_eq!(uid.to_string(), UUID);
        assert_eq!(uid, UUID);
        assert_eq!(uid.as_u128(), Some(0x8d2c5e7a_0000_4000_8000_00000000002a));
        assert!(!uid.is_empty());
        assert_ne!(uid, "8d2c5e7a-0000-4000-8000-00000000002b");
    }

    #[test]
    fn other_spellings_are_held_as_text_and_never_meet_the_uuid() {
        let upper = UUID.to_uppercase();
        for text in [
            upper.as_str(),
            "u1",
            "8d2c5e7a00004000800000000000002a0000",
            "8d2c5e7a-0000-4000-8000_00000000002a",
            "8d2c5e7a-0000-4000-8000-00000000002g",
            "",
        ] {
            let uid = Uid::new(text);
            assert!(matches!(uid, Uid::Text(_)), "{text}");
            assert_eq!(uid.to_string(), text);
            assert_eq!(uid, text);
            assert_eq!(uid.as_u128(), None);
        }
        assert_ne!(Uid::new(&upper), Uid::new(UUID));
        assert_ne!(Uid::new(UUID), upper);
        assert!(Uid::new("").is_empty() && Uid::default().is_empty());
    }

    #[test]
    fn uids_read_from_json() {
        let uid: Uid = serde_json::from_str(&format!("\"{UUID}\"")).unwrap();
        assert_eq!(uid, Uid::new(UUID));
        assert!(serde_json::from_str::<Uid>("7").is_err());
    }
}
