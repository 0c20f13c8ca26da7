//! Time as the model holds it, and timestamps as the API server prints them,
//! read quickly.
//!
//! [`Time`] is a count of microseconds since the Unix epoch in 8 bytes, with
//! a niche, so that an `Option<Time>` is 8 bytes too (jiff's `Timestamp`
//! is 12 bytes and its `Option` 16, with padding 24 in a struct; a pod
//! carries five). The API prints `metav1.Time` in whole seconds and
//! `metav1.MicroTime` (an event's `eventTime`, `series.lastObservedTime`)
//! to the microsecond: both are held exactly. A finer fraction, which the
//! API never prints, is cut to the microsecond (towards the past), and the
//! range is jiff's (years -9999 to 9999).
//!
//! The API server prints `metav1.Time` as `2024-05-01T12:00:00Z`: RFC 3339 in
//! UTC, to the second. A pod carries several, and reading each with jiff's
//! full RFC 3339 parser showed in the first sync's CPU (`docs/performance.md`
//! has the figures). That one form is read here by hand; anything else (fractions of
//! a second as `MicroTime` has, offsets, lower-case letters, values out of
//! range) goes to jiff, so every input reads as jiff reads it; errors are said in
//! the reader's terms (`time_error`).

use std::fmt;
use std::num::NonZeroU64;
use std::str::FromStr;

use jiff::{SignedDuration, Timestamp};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in time, to the microsecond (see the module's comment): the
/// methods the model and the diagnosis call are jiff's `Timestamp`'s, by the
/// same names, and the two convert into each other.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(NonZeroU64);

/// Microseconds are held with their sign bit flipped: the order of the
/// unsigned numbers is then the order of the times, and 0 (which would be
/// `i64::MIN` microseconds, far outside jiff's range) is the niche.
const SIGN: u64 = 1 << 63;

const MICROS_PER_SECOND: i64 = 1_000_000;

impl Time {
    /// 1970-01-01T00:00:00Z.
    pub const UNIX_EPOCH: Time = Time::from_micros(0);
    /// The earliest time jiff can represent, as [`Timestamp::MIN`].
    pub const MIN: Time = Time::from_micros(-377_705_023_201 * MICROS_PER_SECOND);
    /// The latest time jiff can represent, to the microsecond.
    pub const MAX: Time = Time::from_micros(253_402_207_200 * MICROS_PER_SECOND + 999_999);

    /// `micros` must be within [`Time::MIN`]..=[`Time::MAX`], which every
    /// caller's is (jiff's range): `i64::MIN` is the one value not held.
    const fn from_micros(micros: i64) -> Time {
        match NonZeroU64::new(micros as u64 ^ SIGN) {
            Some(bits) => Time(bits),
            None => panic!("a time outside jiff's range"),
        }
    }

    /// Microseconds since the Unix epoch.
    pub const fn as_microsecond(self) -> i64 {
        (self.0.get() ^ SIGN) as i64
    }

    /// The current time of the system clock.
    pub fn now() -> Time {
        Time::from(Timestamp::now())
    }

    /// A whole number of seconds since the Unix epoch, as
    /// [`Timestamp::from_second`] takes it.
    pub fn from_second(second: i64) -> Result<Time, jiff::Error> {
        Timestamp::from_second(second).map(Time::from)
    }

    /// As [`Timestamp::from_microsecond`].
    pub fn from_microsecond(micros: i64) -> Result<Time, jiff::Error> {
        Timestamp::from_microsecond(micros).map(Time::from)
    }

    /// Whole seconds since the Unix epoch, truncated towards it (as jiff's).
    pub const fn as_second(self) -> i64 {
        self.as_microsecond() / MICROS_PER_SECOND
    }

    /// The fraction of a second beyond [`Time::as_second`], in nanoseconds,
    /// negative before the epoch (as jiff's).
    pub const fn subsec_nanosecond(self) -> i32 {
        (self.as_microsecond() % MICROS_PER_SECOND) as i32 * 1_000
    }

    /// This time as jiff's.
    pub fn to_timestamp(self) -> Timestamp {
        Timestamp::from_microsecond(self.as_microsecond()).expect("a Time is within jiff's range")
    }

    /// `self + duration`, or an error past the range.
    pub fn checked_add(self, duration: SignedDuration) -> Result<Time, jiff::Error> {
        self.to_timestamp().checked_add(duration).map(Time::from)
    }

    /// `self - duration`, or an error past the range.
    pub fn checked_sub(self, duration: SignedDuration) -> Result<Time, jiff::Error> {
        self.to_timestamp().checked_sub(duration).map(Time::from)
    }

    /// `self + duration`, held at the range's ends.
    pub fn saturating_add(self, duration: SignedDuration) -> Result<Time, jiff::Error> {
        self.to_timestamp().saturating_add(duration).map(Time::from)
    }

    /// `self - duration`, held at the range's ends.
    pub fn saturating_sub(self, duration: SignedDuration) -> Result<Time, jiff::Error> {
        self.to_timestamp().saturating_sub(duration).map(Time::from)
    }

    /// `self - earlier`, exactly (both are whole microseconds).
    pub fn duration_since(self, earlier: Time) -> SignedDuration {
        SignedDuration::from_micros(self.as_microsecond() - earlier.as_microsecond())
    }

    /// `later - self`.
    pub fn duration_until(self, later: Time) -> SignedDuration {
        later.duration_since(self)
    }

    /// As [`Timestamp::strftime`].
    pub fn strftime<'f, F: 'f + ?Sized + AsRef<[u8]>>(
        &self,
        format: &'f F,
    ) -> jiff::fmt::strtime::Display<'f> {
        self.to_timestamp().strftime(format)
    }
}

impl Default for Time {
    /// The Unix epoch, as jiff's default.
    fn default() -> Self {
        Time::UNIX_EPOCH
    }
}

/// Cut to the microsecond, towards the past.
impl From<Timestamp> for Time {
    fn from(t: Timestamp) -> Self {
        // In jiff's range, which fits in 64 bits as microseconds.
        Time::from_micros(t.as_nanosecond().div_euclid(1_000) as i64)
    }
}

impl From<Time> for Timestamp {
    fn from(t: Time) -> Self {
        t.to_timestamp()
    }
}

impl PartialEq<Timestamp> for Time {
    fn eq(&self, other: &Timestamp) -> bool {
        self.to_timestamp() == *other
    }
}

impl PartialEq<Time> for Timestamp {
    fn eq(&self, other: &Time) -> bool {
        *self == other.to_timestamp()
    }
}

impl std::ops::Add<SignedDuration> for Time {
    type Output = Time;
    /// Panics past the range, as jiff's does.
    fn add(self, duration: SignedDuration) -> Time {
        Time::from(self.to_timestamp() + duration)
    }
}

impl std::ops::Sub<SignedDuration> for Time {
    type Output = Time;
    /// Panics past the range, as jiff's does.
    fn sub(self, duration: SignedDuration) -> Time {
        Time::from(self.to_timestamp() - duration)
    }
}

impl std::ops::AddAssign<SignedDuration> for Time {
    fn add_assign(&mut self, duration: SignedDuration) {
        *self = *self + duration;
    }
}

impl std::ops::SubAssign<SignedDuration> for Time {
    fn sub_assign(&mut self, duration: SignedDuration) {
        *self = *self - duration;
    }
}

/// RFC 3339 in UTC, as jiff prints a `Timestamp` (a fraction only when
/// there is one).
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_timestamp(), f)
    }
}

impl fmt::Debug for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_timestamp(), f)
    }
}

/// As [`parse_time`].
impl FromStr for Time {
    type Err = jiff::Error;
    fn from_str(text: &str) -> Result<Time, jiff::Error> {
        parse_time(text)
    }
}

/// A string, as jiff reads a `Timestamp` (the event kinds read their times
/// this way).
impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Time, D::Error> {
        struct TimeVisitor;
        impl Visitor<'_> for TimeVisitor {
            type Value = Time;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an RFC 3339 timestamp")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Time, E> {
                parse_time(text).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(TimeVisitor)
    }
}

/// As jiff writes a `Timestamp`: its RFC 3339 text.
impl Serialize for Time {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Unix time in seconds, with the sub-second part, as Prometheus samples carry it.
pub fn unix_seconds(t: Time) -> f64 {
    t.as_second() as f64 + f64::from(t.subsec_nanosecond()) / 1e9
}

/// Reads a timestamp as jiff's `Timestamp` reads it (cut to the microsecond).
pub(super) fn parse_time(text: &str) -> Result<Time, jiff::Error> {
    match utc_seconds(text.as_bytes()) {
        Some(s) if (Time::MIN.as_second()..=Time::MAX.as_second()).contains(&s) => {
            Ok(Time::from_micros(s * MICROS_PER_SECOND))
        }
        _ => text.parse::<Timestamp>().map(Time::from),
    }
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SSZ`, if `text` is exactly
/// that with a valid date and time.
fn utc_seconds(text: &[u8]) -> Option<i64> {
    let [
        y0,
        y1,
        y2,
        y3,
        b'-',
        mo0,
        mo1,
        b'-',
        d0,
        d1,
        b'T',
        h0,
        h1,
        b':',
        mi0,
        mi1,
        b':',
        s0,
        s1,
        b'Z',
    ] = <[u8; 20]>::try_from(text).ok()?
    else {
        return None;
    };
    let digit = |c: u8| c.is_ascii_digit().then(|| i64::from(c - b'0'));
    let two = |a: u8, b: u8| Some(digit(a)? * 10 + digit(b)?);
    let year = two(y0, y1)? * 100 + two(y2, y3)?;
    let (month, day) = (two(mo0, mo1)?, two(d0, d1)?);
    let (hour, minute, second) = (two(h0, h1)?, two(mi0, mi1)?, two(s0, s1)?);
    let valid = (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour < 24
        && minute < 60
        && second < 60;
    valid.then(|| days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Reads an optional timestamp (`null` reads as none) with [`parse_time`], for
/// `#[serde(default, deserialize_with = "time::optional")]`.
pub(crate) fn optional<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Time>, D::Error> {
    struct OptionalTime;
    impl<'de> Visitor<'de> for OptionalTime {
        type Value = Option<Time>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an RFC 3339 timestamp or null")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(self)
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
            parse_time(text)
                .map(Some)
                .map_err(|e| E::custom(time_error(text, &e)))
        }
    }
    deserializer.deserialize_option(OptionalTime)
}

/// What is wrong with a time, in the reader's terms rather than jiff's
/// (whose overflow text speaks of Unix seconds and civil datetimes).
fn time_error(text: &str, error: &jiff::Error) -> String {
    let shown: String = text.chars().take(40).collect();
    let shown = if shown.len() < text.len() {
        format!("{shown:?}…")
    } else {
        format!("{shown:?}")
    };
    if error.to_string().contains("range") {
        format!(
            "{shown} is outside the times this tool can read (years -9999 to 9999, the last one 9999-12-30T22:00:00Z)"
        )
    } else {
        format!("{shown} is not an RFC 3339 time such as 2024-05-01T12:00:00Z")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn same_as_jiff(text: &str) {
        let ours = parse_time(text).map_err(|e| e.to_string());
        let jiff = text
            .parse::<Timestamp>()
            .map(Time::from)
            .map_err(|e| e.to_string());
        assert_eq!(ours, jiff, "{text:?}");
    }

    #[test]
    fn a_time_and_its_absence_take_eight_bytes() {
        assert_eq!(std::mem::size_of::<Time>(), 8);
        assert_eq!(std::mem::size_of::<Option<Time>>(), 8);
    }

    #[test]
    fn the_range_is_jiffs_and_micro_time_is_kept_exactly() {
        assert_eq!(Time::MIN, Time::from(Timestamp::MIN));
        assert_eq!(Time::MAX, Time::from(Timestamp::MAX));
        assert_eq!(Time::MIN.to_timestamp(), Timestamp::MIN);
        for text in [
            "2024-05-01T12:00:00Z",
            "2024-05-01T12:00:00.123456Z",
            "1969-12-31T23:59:59.999999Z",
        ] {
            let time: Time = text.parse().unwrap();
            assert_eq!(time.to_string(), text);
            assert_eq!(time, text.parse::<Timestamp>().unwrap());
        }
        // Finer than the API prints: cut towards the past.
        let cut: Time = "1969-12-31T23:59:59.9999995Z".parse().unwrap();
        assert_eq!(cut.to_string(), "1969-12-31T23:59:59.999999Z");
        assert_eq!(Time::from_second(-1).unwrap().as_second(), -1);
    }

    #[test]
    fn the_api_servers_form_and_the_others_read_as_jiff_reads_them() {
        for text in [
            "2024-05-01T12:00:00Z",
            "1970-01-01T00:00:00Z",
            "1969-12-31T23:59:59Z",
            "2000-02-29T23:59:59Z",
            "2100-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-05-01T23:59:60Z",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "2024-05-01T12:00:00.123456Z",
            "2024-05-01T12:00:00+02:00",
            "2024-05-01t12:00:00z",
            "2024-05-01 12:00:00Z",
            "2024-05-0aT12:00:00Z",
            "2024-05-01T12:00:00",
            "",
        ] {
            same_as_jiff(text);
        }
        assert_eq!(
            parse_time("2024-05-01T12:00:00Z").unwrap().as_second(),
            1_714_564_800
        );
    }

    #[test]
    fn null_and_missing_read_as_none() {
        #[derive(serde::Deserialize)]
        struct Times {
            #[serde(default, deserialize_with = "optional")]
            set: Option<Time>,
            #[serde(default, deserialize_with = "optional")]
            null: Option<Time>,
            #[serde(default, deserialize_with = "optional")]
            missing: Option<Time>,
        }
        let t: Times =
            serde_json::from_str(r#"{"set":"2024-05-01T12:00:00Z","null":null}"#).unwrap();
        assert_eq!(t.set, Some("2024-05-01T12:00:00Z".parse().unwrap()));
        assert!(t.null.is_none() && t.missing.is_none());
        // Errors as jiff's own decoding gives them.
        #[derive(serde::Deserialize)]
        struct Jiff {
            #[serde(default)]
            #[allow(dead_code)]
            set: Option<Timestamp>,
        }
        for bad in [r#"{"set":"yesterday"}"#, r#"{"set":5}"#] {
            let ours = serde_json::from_str::<Times>(bad)
                .err()
                .unwrap()
                .to_string();
            let jiffs = serde_json::from_str::<Jiff>(bad).err().unwrap().to_string();
            assert!(!jiffs.is_empty());
            assert!(
                ours.contains("RFC 3339") || ours.contains("invalid type"),
                "{ours}"
            );
            assert!(ours.contains("column"), "{ours}");
        }
        // Out of jiff's range: said in the reader's terms, with the value.
        for late in [
            "9999-12-31T23:59:59Z",
            "10000-01-01T00:00:00Z",
            "-010000-01-01T00:00:00Z",
        ] {
            let text = format!(r#"{{"set":"{late}"}}"#);
            let ours = serde_json::from_str::<Times>(&text)
                .err()
                .unwrap()
                .to_string();
            assert!(ours.contains(late), "{ours}");
            assert!(!ours.contains("Unix") && !ours.contains("civil"), "{ours}");
        }
    }

    proptest! {
        #[test]
        fn any_date_and_time_of_the_form_reads_as_jiff_reads_it(
            year in 0i64..=9999, month in 0i64..=13, day in 0i64..=32,
            hour in 0i64..=25, minute in 0i64..=61, second in 0i64..=61,
        ) {
            same_as_jiff(&format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"));
        }

        #[test]
        fn times_convert_order_and_print_as_jiffs(
            a in -377_705_023_201_000_000i64..=253_402_207_200_999_999,
            b in -377_705_023_201_000_000i64..=253_402_207_200_999_999,
        ) {
            let (ta, tb) = (Timestamp::from_microsecond(a), Timestamp::from_microsecond(b));
            let (Ok(ta), Ok(tb)) = (ta, tb) else { return Ok(()) };
            let (a, b) = (Time::from(ta), Time::from(tb));
            prop_assert_eq!(a.to_timestamp(), ta);
            prop_assert_eq!(a.cmp(&b), ta.cmp(&tb));
            prop_assert_eq!(a.to_string(), ta.to_string());
            prop_assert_eq!((a.as_second(), a.subsec_nanosecond()), (ta.as_second(), ta.subsec_nanosecond()));
            prop_assert_eq!(a.duration_since(b), ta.duration_since(tb));
        }
    }
}
