//! Durations printed the way `kubectl get` prints ages: `45s`, `12m`, `3h5m`, `2d4h`.

use jiff::{SignedDuration, Timestamp};

/// Unix time in seconds, with the sub-second part, as Prometheus samples carry it.
pub(crate) fn unix_seconds(t: Timestamp) -> f64 {
    t.as_second() as f64 + f64::from(t.subsec_nanosecond()) / 1e9
}

pub fn short(duration: SignedDuration) -> String {
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
            assert_eq!(short(SignedDuration::from_secs(secs)), want, "{secs}s");
        }
    }
}
