//! Timestamps as the API server prints them, read quickly.
//!
//! The API server prints `metav1.Time` as `2024-05-01T12:00:00Z`: RFC 3339 in
//! UTC, to the second. A pod carries several, and reading each with jiff's
//! full RFC 3339 parser showed in the first sync's CPU (`docs/performance.md`
//! has the figures). That one form is read here by hand; anything else (fractions of
//! a second as `MicroTime` has, offsets, lower-case letters, values out of
//! range) goes to jiff, so every input reads as jiff reads it; errors are said in
//! the reader's terms (`time_error`).

use std::fmt;

use serde::Deserializer;
use serde::de::{self, Visitor};

use super::meta::Time;

/// Parses a timestamp as `Time` (`jiff::Timestamp`) parses it.
/// Unix time in seconds, with the sub-second part, as Prometheus samples carry it.
pub fn unix_seconds(t: Time) -> f64 {
    t.as_second() as f64 + f64::from(t.subsec_nanosecond()) / 1e9
}

pub(super) fn parse_time(text: &str) -> Result<Time, jiff::Error> {
    match utc_seconds(text.as_bytes()).and_then(|s| Time::from_second(s).ok()) {
        Some(time) => Ok(time),
        None => text.parse(),
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
        let jiff = text.parse::<Time>().map_err(|e| e.to_string());
        assert_eq!(ours, jiff, "{text:?}");
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
            set: Option<Time>,
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
    }
}
