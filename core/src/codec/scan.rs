//! Finding where a JSON value ends without parsing it.
//!
//! An object or array is walked 64 bytes at a time: each block is turned into
//! bit masks of its quotes, backslashes, opening and closing brackets; the
//! escaped bytes, then the bytes inside strings, are worked out from those
//! masks, and only the brackets outside strings are counted. A block whose
//! closing brackets cannot bring the depth to zero is passed over whole, so
//! the cost is a few dozen instructions per 64 bytes rather than a branch per
//! byte. On x86_64 the masks come from AVX2 where the CPU has it (asked at
//! run time), else from SSE2 (part of every x86_64 CPU, so no build flag is
//! needed); elsewhere from a plain loop, which the tests hold both to.
//!
//! Only the extent is checked: a closing quote for every string, as many
//! closing as opening brackets outside strings. What lies inside is not
//! validated, as nothing reads it.

/// Masks of one 64-byte block: bit `i` is byte `i`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Masks {
    quote: u64,
    backslash: u64,
    /// `{` and `[`.
    open: u64,
    /// `}` and `]`.
    close: u64,
}

#[cfg(target_arch = "x86_64")]
fn classify(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let mut masks = Masks::default();
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of the x86_64 baseline, so these instructions
        // exist on every CPU this code runs on; `chunk` is 16 readable bytes
        // and `loadu` has no alignment requirement.
        let [quote, backslash, open, close] = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            // `[` and `{`, `]` and `}` differ only in bit 0x20.
            let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
            [
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))),
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))),
                _mm_movemask_epi8(_mm_cmpeq_epi8(folded, _mm_set1_epi8(b'{' as i8))),
                _mm_movemask_epi8(_mm_cmpeq_epi8(folded, _mm_set1_epi8(b'}' as i8))),
            ]
        };
        let bits = |m: i32| u64::from(m as u16) << (16 * k);
        masks.quote |= bits(quote);
        masks.backslash |= bits(backslash);
        masks.open |= bits(open);
        masks.close |= bits(close);
    }
    masks
}

#[cfg(not(target_arch = "x86_64"))]
fn classify(block: &[u8; 64]) -> Masks {
    classify_bytewise(block)
}

/// The same masks, one byte at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn classify_bytewise(block: &[u8; 64]) -> Masks {
    let mut masks = Masks::default();
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => masks.quote |= bit,
            b'\\' => masks.backslash |= bit,
            b'{' | b'[' => masks.open |= bit,
            b'}' | b']' => masks.close |= bit,
            _ => {}
        }
    }
    masks
}

/// Bit `i` set when byte `i` is escaped (follows an unescaped backslash).
/// `carry` says whether the first byte of this block is escaped, and is set
/// for the next block. Backslashes are rare outside managedFields keys, so
/// they are walked one by one.
fn escaped(backslash: u64, carry: &mut bool) -> u64 {
    let mut escaped = u64::from(*carry);
    *carry = false;
    let mut rest = backslash;
    while rest != 0 {
        let i = rest.trailing_zeros();
        let bit = 1u64 << i;
        if escaped & bit == 0 {
            if i == 63 {
                *carry = true;
            } else {
                escaped |= bit << 1;
            }
        }
        rest &= rest - 1;
    }
    escaped
}

/// Bit `i` is the parity of the set bits at or below `i`: with the quotes as
/// input, the bytes from an opening quote up to (not including) its closing one.
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// The 64 bytes from `at`, padded with spaces past the end.
fn padded_block(bytes: &[u8], at: usize) -> [u8; 64] {
    let mut block = [b' '; 64];
    let rest = bytes.get(at..).unwrap_or_default();
    let len = rest.len().min(64);
    block[..len].copy_from_slice(&rest[..len]);
    block
}

/// Where the object or array opening at `start` ends: the index after its
/// closing bracket, or `None` if the input ends first.
pub(super) fn container_end(bytes: &[u8], start: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        // SAFETY: the CPU has AVX2 and POPCNT, as just checked.
        return unsafe { avx2::container_end(bytes, start) };
    }
    walk(bytes, start, classify)
}

/// The walk of [`container_end`], with the masks of each block from
/// `classify`. Always inlined, so that a caller compiled for more of the CPU
/// (see [`avx2`]) gets a walk compiled for it too: counting a block's brackets
/// is then one instruction (`popcnt`) rather than a dozen.
#[inline(always)]
fn walk(bytes: &[u8], start: usize, classify: impl Fn(&[u8; 64]) -> Masks) -> Option<usize> {
    debug_assert!(matches!(bytes.get(start), Some(b'{' | b'[')));
    let mut depth: u64 = 0;
    let mut escape_carry = false;
    let mut in_string_carry: u64 = 0;
    let mut at = start;
    while at < bytes.len() {
        let masks = match bytes.get(at..at + 64) {
            Some(block) => classify(block.try_into().expect("a 64-byte slice")),
            None => classify(&padded_block(bytes, at)),
        };
        let escaped = escaped(masks.backslash, &mut escape_carry);
        let quotes = masks.quote & !escaped;
        let in_string = prefix_xor(quotes) ^ in_string_carry;
        in_string_carry = ((in_string as i64) >> 63) as u64;
        let opens = masks.open & !(in_string | escaped);
        let closes = masks.close & !(in_string | escaped);
        let (n_open, n_close) = (
            u64::from(opens.count_ones()),
            u64::from(closes.count_ones()),
        );
        if n_close < depth {
            // The depth stays above zero through this block.
            depth = depth + n_open - n_close;
        } else {
            let mut brackets = opens | closes;
            while brackets != 0 {
                let i = brackets.trailing_zeros();
                if opens & (1u64 << i) != 0 {
                    depth += 1;
                } else {
                    depth -= 1;
                    if depth == 0 {
                        let end = at + i as usize + 1;
                        // Padding is spaces: a bracket found is a real byte.
                        return Some(end);
                    }
                }
                brackets &= brackets - 1;
            }
        }
        at += 64;
    }
    None
}

/// The scan compiled for CPUs with AVX2 (x86_64 since 2013): a block's masks
/// from two 32-byte compares instead of four 16-byte ones, and the brackets
/// counted with `popcnt`. Chosen at run time, so the binary still runs on
/// any x86_64.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Masks;
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };

    /// Whether this CPU has what [`container_end`] is compiled for (the
    /// answer is cached by the standard library).
    pub(super) fn available() -> bool {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) fn container_end(bytes: &[u8], start: usize) -> Option<usize> {
        super::walk(bytes, start, |block| classify(block))
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn classify(block: &[u8; 64]) -> Masks {
        // SAFETY: `block` is 64 readable bytes, two unaligned 32-byte loads.
        let (low, high) = unsafe {
            (
                _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()),
                _mm256_loadu_si256(block.as_ptr().add(32).cast::<__m256i>()),
            )
        };
        let mask = |v: __m256i, byte: u8| -> u64 {
            u64::from(
                _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(byte as i8))) as u32,
            )
        };
        let both = |byte: u8, low: __m256i, high: __m256i| mask(low, byte) | mask(high, byte) << 32;
        // `[` and `{`, `]` and `}` differ only in bit 0x20.
        let fold = |v: __m256i| _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        let (low_folded, high_folded) = (fold(low), fold(high));
        Masks {
            quote: both(b'"', low, high),
            backslash: both(b'\\', low, high),
            open: both(b'{', low_folded, high_folded),
            close: both(b'}', low_folded, high_folded),
        }
    }
}

/// Where the string whose opening quote is at `start` ends: the index after
/// its closing quote, or `None` if the input ends first.
pub(super) fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        let found = memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        let i = at + found;
        if bytes[i] == b'"' {
            return Some(i + 1);
        }
        at = i + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: one byte at a time, the obvious way. A backslash
    /// escapes the next byte wherever it stands (outside a string it is not
    /// JSON, and either reading would do).
    fn container_end_bytewise(bytes: &[u8], start: usize) -> Option<usize> {
        let (mut depth, mut in_string, mut escaped) = (0u64, false, false);
        for (i, &b) in bytes.iter().enumerate().skip(start) {
            if escaped {
                escaped = false;
                continue;
            }
            if b == b'\\' {
                escaped = true;
                continue;
            }
            if in_string {
                in_string = b != b'"';
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    #[test]
    fn containers_end_at_their_own_closing_bracket() {
        for (json, end) in [
            (r#"{}"#, 2),
            (r#"[1,2,[3]],"x""#, 9),
            (r#"{"a":"}]"}"#, 10),
            (r#"{"k:{\"name\":\"app\"}":{}} tail"#, 27),
            (r#"{"a":"\\"}"#, 10),
            (r#"{"a":"\\\"}"}"#, 13),
        ] {
            assert_eq!(container_end(json.as_bytes(), 0), Some(end), "{json}");
        }
        assert_eq!(container_end(br#"{"a":[1,2}"#, 0), None);
        assert_eq!(container_end(br#"{"a":"}"#, 0), None);
    }

    #[test]
    fn escapes_and_strings_that_cross_a_block_boundary() {
        // A backslash as the 64th byte of a block escapes the next block's first.
        for pad in 0..70 {
            let json = format!(r#"{{"{}\"}}","b":[{{}}]}}"#, "x".repeat(pad));
            assert_eq!(
                container_end(json.as_bytes(), 0),
                Some(json.len()),
                "{json}"
            );
            let json = format!(r#"["{}\\",{{}}]"#, "y".repeat(pad));
            assert_eq!(
                container_end(json.as_bytes(), 0),
                Some(json.len()),
                "{json}"
            );
        }
    }

    #[test]
    fn strings_end_at_the_first_unescaped_quote() {
        assert_eq!(string_end(br#""abc" x"#, 0), Some(5));
        assert_eq!(string_end(br#""a\"b\\" x"#, 0), Some(8));
        assert_eq!(string_end(br#""abc"#, 0), None);
        assert_eq!(string_end(br#""abc\"#, 0), None);
    }

    proptest! {
        #[test]
        fn the_block_scan_agrees_with_the_bytewise_one(
            body in proptest::collection::vec(
                prop_oneof![
                    Just(b'"'), Just(b'\\'), Just(b'{'), Just(b'}'), Just(b'['), Just(b']'),
                    Just(b'a'), Just(b','), Just(b':'), Just(b' '), Just(0xE2),
                ],
                0..400,
            )
        ) {
            let mut bytes = vec![b'{'];
            bytes.extend(body);
            let expected = container_end_bytewise(&bytes, 0);
            // As this CPU runs it (with AVX2 where it has it), and with the
            // masks every x86_64 has.
            prop_assert_eq!(container_end(&bytes, 0), expected);
            prop_assert_eq!(walk(&bytes, 0, classify), expected);
            prop_assert_eq!(walk(&bytes, 0, classify_bytewise), expected);
        }

        #[test]
        fn simd_and_bytewise_masks_agree(block in proptest::array::uniform32(any::<u8>())) {
            let mut full = [0u8; 64];
            full[..32].copy_from_slice(&block);
            full[32..].copy_from_slice(&block);
            full[63] = b'"';
            prop_assert_eq!(classify(&full), classify_bytewise(&full));
            #[cfg(target_arch = "x86_64")]
            if avx2::available() {
                // SAFETY: the CPU has AVX2, as just checked.
                prop_assert_eq!(unsafe { avx2::classify(&full) }, classify_bytewise(&full));
            }
        }
    }
}
