//! Names as the model holds them, and the process-wide sets that let objects
//! share one copy of what many of them say alike.
//!
//! A pod of a large cluster names its namespace, its node and its controller
//! in the same words as a hundred other pods. Held as separate strings, those
//! copies were a large part of what the model kept per pod; shared, they cost
//! one pointer each.

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::ops::Deref;
use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;
use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A name (of an object, a namespace, a node): an immutable string that clones
/// by reference count. A pod's key shares its name with its metadata, and the
/// namespaces and nodes pods name are [interned](Name::interned).
#[derive(Clone, Eq)]
pub struct Name(Arc<str>);

// Compared as text, but the same copy is equal without reading it: the model's
// keys and indexes hold shared copies, so most comparisons end there.
impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

// As the text hashes, so `Borrow<str>` lookups find a name.
impl Hash for Name {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        if Arc::ptr_eq(&self.0, &other.0) {
            return std::cmp::Ordering::Equal;
        }
        self.0.cmp(&other.0)
    }
}

static EMPTY: LazyLock<Name> = LazyLock::new(|| Name(Arc::from("")));

static NAMES: LazyLock<Mutex<SharedSet<str>>> = LazyLock::new(|| Mutex::new(SharedSet::default()));

impl Name {
    /// The one shared copy of `name`: for the names many objects repeat
    /// (namespaces, nodes).
    pub(crate) fn interned(name: &str) -> Name {
        if name.is_empty() {
            return Name::default();
        }
        Name(NAMES.lock().share(name, || Arc::from(name)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Name {
    /// The empty name, one shared copy (an empty `Arc<str>` still allocates).
    fn default() -> Self {
        EMPTY.clone()
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for Name {
    fn from(name: &str) -> Self {
        if name.is_empty() {
            return Name::default();
        }
        Name(Arc::from(name))
    }
}

impl From<String> for Name {
    fn from(name: String) -> Self {
        Name::from(name.as_str())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        &*self.0 == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == &*other.0
    }
}

/// Reads a string straight into a [`Name`], without an intermediate `String`;
/// interned or not.
struct NameVisitor {
    interned: bool,
}

impl<'de> Visitor<'de> for NameVisitor {
    type Value = Name;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Name, E> {
        Ok(if self.interned {
            Name::interned(value)
        } else {
            Name::from(value)
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Name, E> {
        Ok(Name::default())
    }

    fn visit_none<E: de::Error>(self) -> Result<Name, E> {
        Ok(Name::default())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Name, D::Error>
    where
        Self: Sized,
    {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(NameVisitor { interned: false })
    }
}

/// Reads a name many objects repeat into its one shared copy; `null` reads as
/// the empty name.
pub(crate) fn interned<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
    deserializer.deserialize_option(NameVisitor { interned: true })
}

/// One shared copy of each value held: a value no object holds any more is
/// dropped when the set has doubled since it was last swept, so the set
/// follows the cluster rather than its history.
pub(crate) struct SharedSet<T: ?Sized> {
    held: foldhash::HashSet<Arc<T>>,
    sweep_at: usize,
}

impl<T: ?Sized> Default for SharedSet<T> {
    fn default() -> Self {
        SharedSet {
            held: foldhash::HashSet::default(),
            sweep_at: 0,
        }
    }
}

impl<T: ?Sized + Hash + Eq> SharedSet<T> {
    pub(crate) const FIRST_SWEEP: usize = 1024;

    /// The held copy equal to `value`, or a new one made by `make` (and held).
    pub(crate) fn share<Q>(&mut self, value: &Q, make: impl FnOnce() -> Arc<T>) -> Arc<T>
    where
        Q: ?Sized + Hash + Eq,
        Arc<T>: Borrow<Q>,
    {
        if let Some(held) = self.held.get(value) {
            return Arc::clone(held);
        }
        if self.held.len() >= self.sweep_at.max(Self::FIRST_SWEEP) {
            self.held.retain(|r| Arc::strong_count(r) > 1);
            self.sweep_at = self.held.len() * 2;
        }
        let shared = make();
        self.held.insert(Arc::clone(&shared));
        shared
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.held.len()
    }

    #[cfg(test)]
    pub(crate) fn sweep_at(&self) -> usize {
        self.sweep_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_names_share_one_copy_and_plain_ones_do_not() {
        let a = Name::interned("team-payments");
        let b = Name::interned(&String::from("team-payments"));
        assert!(Arc::ptr_eq(&a.0, &b.0));
        let c = Name::from("team-payments");
        assert!(!Arc::ptr_eq(&a.0, &c.0));
        assert_eq!(a, c);
        assert!(Arc::ptr_eq(&Name::interned("").0, &Name::default().0));
    }

    #[test]
    fn names_read_from_json_strings_and_null() {
        #[derive(serde::Deserialize)]
        struct Both {
            plain: Name,
            #[serde(deserialize_with = "interned")]
            shared: Name,
            #[serde(default, deserialize_with = "interned")]
            missing: Name,
            #[serde(deserialize_with = "interned")]
            null: Name,
        }
        let both: Both =
            serde_json::from_str(r#"{"plain":"web-1","shared":"node-\u0031","null":null}"#)
                .unwrap();
        assert_eq!(both.plain, "web-1");
        assert_eq!(both.shared, "node-1");
        assert!(Arc::ptr_eq(&both.shared.0, &Name::interned("node-1").0));
        assert!(both.missing.is_empty() && both.null.is_empty());
        assert!(serde_json::from_str::<Name>("42").is_err());
    }

    #[test]
    fn names_compare_and_hash_as_their_text() {
        use std::collections::HashSet;
        let name = Name::from("web-1");
        let (text, owned): (&str, String) = ("web-1", "web-1".into());
        assert_eq!(name, text);
        assert_eq!(text, name);
        assert_eq!(name, *text);
        assert_eq!(name, owned);
        assert_eq!(owned, name);
        let set: HashSet<Name> = [name.clone()].into();
        assert!(set.contains("web-1"));
        let (a, b) = (Name::from("a"), Name::from("b"));
        assert_eq!(a.cmp(&b), std::cmp::Ordering::Less);
        assert_eq!(format!("{name} {name:?}"), r#"web-1 "web-1""#);
    }

    #[test]
    fn values_no_object_holds_are_swept_as_the_set_grows() {
        let mut shared: SharedSet<str> = SharedSet::default();
        let kept: Vec<_> = (0..10)
            .map(|i| {
                let name = format!("n-{i}");
                shared.share(name.as_str(), || Arc::from(name.as_str()))
            })
            .collect();
        // Dropped at once: only the set holds these.
        for i in 10..SharedSet::<str>::FIRST_SWEEP {
            let name = format!("n-{i}");
            shared.share(name.as_str(), || Arc::from(name.as_str()));
        }
        assert_eq!(shared.len(), SharedSet::<str>::FIRST_SWEEP);
        // The next new one sweeps first: the ten still held stay, shared.
        shared.share("new", || Arc::from("new"));
        assert_eq!(shared.len(), 11);
        assert_eq!(shared.sweep_at(), 20);
        assert!(Arc::ptr_eq(
            &shared.share("n-3", || Arc::from("n-3")),
            &kept[3]
        ));
    }
}
