//! Text for a terminal: what anyone who can create a pod or an event wrote
//! (names, messages, images) must not drive the reader's terminal. Control
//! characters (C0 with ESC, BEL, CR and backspace; DEL; C1 with the 8-bit CSI
//! U+009B and OSC U+009D) and the characters that reorder or hide text (bidi
//! embeddings, overrides, isolates and marks; line and paragraph separators;
//! the byte-order mark) are shown as `<U+XXXX>`, so the reader sees that they
//! were there. Tab and line feed become a space: a cell stays on its line.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is shown as `<U+XXXX>` on a terminal.
fn is_hostile(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        // Arabic letter mark, left-to-right and right-to-left marks.
        | '\u{61c}' | '\u{200e}' | '\u{200f}'
        // Embeddings and overrides (LRE, RLE, PDF, LRO, RLO).
        | '\u{202a}'..='\u{202e}'
        // Isolates (LRI, RLI, FSI, PDI).
        | '\u{2066}'..='\u{2069}'
        // Line and paragraph separators: a line break to some terminals.
        | '\u{2028}' | '\u{2029}'
        // Byte-order mark / zero-width no-break space, and interlinear
        // annotations: invisible.
        | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

/// `text` made safe to print on a terminal, on one line.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| is_hostile(c) || c == '\t' || c == '\n')
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\t' | '\n' => out.push(' '),
            c if is_hostile(c) => {
                let _ = write!(out, "<U+{:04X}>", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Like [`visible`], but line feeds are kept: for text of several lines
/// (the OpenMetrics exposition), each line made safe.
pub fn visible_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hostile(c) || c == '\t') {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(visible).collect();
    Cow::Owned(lines.join("\n"))
}

/// JSON with every character [`visible`] would show written as a `\uXXXX`
/// escape: the same JSON value, and nothing a terminal acts on. serde_json
/// escapes C0 already, not DEL, C1 or the bidi controls.
pub fn json_escaped(json: &str) -> Cow<'_, str> {
    if !json.chars().any(is_hostile) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_hostile(c) {
            // Outside strings JSON has only ASCII punctuation and
            // whitespace, so every such character is inside a string.
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_become_visible() {
        // The 7-bit and 8-bit CSI, an OSC 8 link, a title change, BEL, CR, backspace.
        let hostile = "a\x1b[31mred\u{9b}2J\u{9d}8;;http://x\x07b\rc\x08d\x7fe";
        let shown = visible(hostile);
        assert_eq!(
            shown,
            "a<U+001B>[31mred<U+009B>2J<U+009D>8;;http://x<U+0007>b<U+000D>c<U+0008>d<U+007F>e"
        );
        for bidi in [
            '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}',
            '\u{2068}', '\u{2069}', '\u{200e}', '\u{200f}', '\u{61c}',
        ] {
            let text = format!("pod{bidi}name");
            let shown = visible(&text);
            assert!(!shown.contains(bidi), "{shown}");
            assert_eq!(shown, format!("pod<U+{:04X}>name", bidi as u32));
        }
        assert_eq!(visible("a\tb\nc"), "a b c");
        assert!(matches!(visible("plain – 中文 ✓"), Cow::Borrowed(_)));
    }

    #[test]
    fn escaped_json_is_the_same_value() {
        let value = serde_json::json!({"m": "x\u{9b}y\u{202e}z\u{1b}", "n": 1});
        let text = serde_json::to_string(&value).unwrap();
        let escaped = json_escaped(&text);
        assert!(!escaped.chars().any(is_hostile), "{escaped}");
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn exposition_lines_stay_lines() {
        assert_eq!(visible_lines("a\x1bb\nc\n"), "a<U+001B>b\nc\n");
    }
}
