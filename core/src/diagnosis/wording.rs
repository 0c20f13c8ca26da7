//! The words a finding's message is written in, shared with the outputs:
//! durations as `kubectl get` prints ages (`45s`, `12m`, `3h5m`, `2d4h`) and
//! counts in English ("1 object", "2 objects", never "1 object(s)").

use jiff::SignedDuration;

/// A duration as `kubectl get` prints an age.
pub fn short_age(duration: SignedDuration) -> String {
    let secs = duration.as_secs().max(0);
    let (d, h, m, s) = (secs / 86_400, secs / 3_600 % 24, secs / 60 % 60, secs % 60);
    match () {
        _ if d >= 7 => format!("{d}d"),
        _ if d > 0 && h > 0 => format!("{d}d{h}h"),
        _ if d > 0 => format!("{d}d"),
        _ if h > 0 && m > 0 => format!("{h}h{m}m"),
        _ if h > 0 => format!("{h}h"),
        _ if m >= 10 || (m > 0 && s == 0) => format!("{m}m"),
        _ if m > 0 => format!("{m}m{s}s"),
        _ => format!("{s}s"),
    }
}

/// `n` followed by `one` or `many` as English wants it.
pub fn count(n: impl TryInto<u64> + Copy + std::fmt::Display, one: &str, many: &str) -> String {
    let singular = matches!(n.try_into(), Ok(1));
    format!("{n} {}", if singular { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        let cases = [
            (5, "5s"),
            (95, "1m35s"),
            (600, "10m"),
            (725, "12m"),
            (3_600, "1h"),
            (3_900, "1h5m"),
            (90_000, "1d1h"),
            (86_400 * 9, "9d"),
            (-3, "0s"),
        ];
        for (secs, want) in cases {
            assert_eq!(short_age(SignedDuration::from_secs(secs)), want, "{secs}s");
        }
    }

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(1usize, "object", "objects"), "1 object");
        assert_eq!(count(0usize, "object", "objects"), "0 objects");
        assert_eq!(count(2i32, "pod", "pods"), "2 pods");
        assert_eq!(count(-1i32, "pod", "pods"), "-1 pods");
    }
}
