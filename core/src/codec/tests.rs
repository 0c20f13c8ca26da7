use std::collections::BTreeMap;

use serde::Deserialize;

use super::*;

/// Both decoders on the same text: the same value, or both an error.
pub(crate) fn agree<T>(json: &str) -> Option<T>
where
    T: for<'de> Deserialize<'de> + fmt::Debug,
{
    let expected = serde_json::from_str::<T>(json);
    let got = from_str::<T>(json);
    match (&expected, &got) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{json}"),
        (Err(_), Err(_)) => {}
        _ => panic!("serde_json: {expected:?}\nskim: {got:?}\nfor {json}"),
    }
    got.ok()
}

#[test]
fn strings_decode_with_their_escapes() {
    let s: String = agree(r#""plain""#).unwrap();
    assert_eq!(s, "plain");
    let s: String = agree(r#""a\"b\\c\/d\n\t\u00e9\ud83d\ude42 end""#).unwrap();
    assert_eq!(s, "a\"b\\c/d\n\té🙂 end");
    for bad in [
        r#""unterminated"#,
        r#""bad \x escape""#,
        r#""lone \ud83d surrogate""#,
        r#""lone \ude42 trailing""#,
        "\"raw\ncontrol\"",
        r#""short \u12""#,
    ] {
        agree::<String>(bad);
        assert!(from_str::<String>(bad).is_err(), "{bad}");
    }
}

#[test]
fn numbers_reach_the_visitor_as_serde_json_hands_them() {
    assert_eq!(agree::<u64>("18446744073709551615"), Some(u64::MAX));
    assert_eq!(agree::<i64>("-9223372036854775808"), Some(i64::MIN));
    assert_eq!(agree::<f64>("1.5e3"), Some(1500.0));
    assert_eq!(agree::<f64>("-0.25"), Some(-0.25));
    assert_eq!(
        agree::<f64>("18446744073709551616"),
        Some(1.8446744073709552e19)
    );
    assert_eq!(agree::<i32>("-7"), Some(-7));
    for wrong in ["2147483648", "1.0", "1e2", "\"3\"", "true", "null"] {
        assert_eq!(agree::<i32>(wrong), None, "{wrong}");
    }
    for bad in ["01", "-", "1.", "1e", ".5", "+1", "1e999"] {
        assert!(from_str::<f64>(bad).is_err(), "{bad}");
    }
}

#[test]
fn plain_runs_stop_at_the_first_byte_that_needs_attention() {
    for (text, end) in [
        ("abcdefghij\"", 8),
        ("abc\"efghijklmnop", 3),
        ("abcdefg\\hijk", 7),
        ("abcdefgh\u{1}jklmnopq", 8),
        ("ééééé\"", 8),
        ("\u{7f}\u{80}ÿ~ !#$%&'()*+,-./\"", 16),
        ("short", 0),
    ] {
        let got = plain_run_end(text.as_bytes(), 0);
        let first = text
            .bytes()
            .position(|b| b == b'"' || b == b'\\' || b < 0x20)
            .unwrap_or(text.len());
        // Whole words only: the byte loop finishes what is left.
        assert!(
            got <= first && first - got < 8,
            "{text:?}: {got} vs {first}"
        );
        assert_eq!(got, end, "{text:?}");
    }
}

#[test]
fn one_field_is_read_without_the_rest_of_the_object() {
    let text = r#"{"kind":"PodList","items":[{"a":"]"}],"metadata":{"continue":"c"},"rest":"#;
    let meta: Option<BTreeMap<String, String>> = field(text, "metadata").unwrap();
    assert_eq!(meta.unwrap()["continue"], "c");
    // What follows the field is never read, even when it is cut short.
    let head = r#"{"metadata":{"continue":"c"},"items":[{"name":"#;
    let meta: Option<BTreeMap<String, String>> = field(head, "metadata").unwrap();
    assert_eq!(meta.unwrap()["continue"], "c");
    let none: Option<String> = field(r#"{"kind":"PodList","items":[]}"#, "metadata").unwrap();
    assert_eq!(none, None);
    // An input cut before the field, or not an object, is an error.
    assert!(field::<String>(r#"{"items":[{"name":"#, "metadata").is_err());
    assert!(field::<String>(r#"["metadata"]"#, "metadata").is_err());
}
