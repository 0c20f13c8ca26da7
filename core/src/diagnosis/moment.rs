//! The moment a diagnosis judges at, and the first later moment at which its
//! judgements could read differently with the model unchanged.
//!
//! Every use of the time by a family goes through [`Moment`]: a threshold
//! waited out, a deadline reached, an age written into a message. Each one
//! not yet true, and each age's next change of text, is remembered, so the
//! findings can be kept until the soonest of them instead of judged again on
//! every read.

use std::cell::Cell;

use jiff::SignedDuration;

use super::wording::short_age;
use crate::model::Time;

/// When the judgement is made, and when it stops holding.
pub(crate) struct Moment {
    now: Time,
    /// The soonest moment after `now` a judgement asked about.
    next_change: Cell<Option<Time>>,
}

impl Moment {
    pub(crate) fn at(now: Time) -> Self {
        Moment {
            now,
            next_change: Cell::new(None),
        }
    }

    /// The time judged at, for what does not depend on it (a deadline named
    /// in a message, a pod's default deadline when it has none).
    pub(crate) fn time(&self) -> Time {
        self.now
    }

    /// Whether `t` has come; if not, the findings change when it does.
    pub(crate) fn reached(&self, t: Time) -> bool {
        if t <= self.now {
            return true;
        }
        self.remember(t);
        false
    }

    /// Whether `long` has passed since `since`.
    pub(crate) fn waited(&self, since: Time, long: SignedDuration) -> bool {
        match since.checked_add(long) {
            Ok(t) => self.reached(t),
            Err(_) => false,
        }
    }

    /// How long since `since`, as a message prints it (`5m30s`, `2h`); the
    /// findings change when that text does.
    pub(crate) fn age_of(&self, since: Time) -> String {
        let elapsed = self.now.duration_since(since);
        if let Some(next) = next_text_change(since, elapsed) {
            self.remember(next);
        }
        short_age(elapsed)
    }

    /// The soonest moment after `now` at which a judgement made here may
    /// differ; `None` when none depends on time.
    pub(crate) fn next_change(&self) -> Option<Time> {
        self.next_change.get()
    }

    /// Runs `judge` with a reckoning of its own: returns what it returns and
    /// the first moment at which it could read differently (which counts
    /// for the whole judgement too).
    pub(crate) fn apart<R>(&self, judge: impl FnOnce() -> R) -> (R, Option<Time>) {
        let before = self.next_change.take();
        let result = judge();
        let own = self.next_change.replace(before);
        if let Some(t) = own {
            self.remember(t);
        }
        (result, own)
    }

    fn remember(&self, t: Time) {
        if self.next_change.get().is_none_or(|n| t < n) {
            self.next_change.set(Some(t));
        }
    }
}

/// When `short_age` of the time since `since` next prints something else:
/// it reads whole seconds under ten minutes, minutes under a day, hours under
/// a week and days beyond, and each of those steps divides the next.
fn next_text_change(since: Time, elapsed: SignedDuration) -> Option<Time> {
    let secs = elapsed.as_secs();
    if secs < 0 || elapsed.is_negative() {
        // "0s" until a whole second has passed.
        return since.checked_add(SignedDuration::from_secs(1)).ok();
    }
    let step = match secs {
        ..600 => 1,
        600..86_400 => 60,
        86_400..604_800 => 3_600,
        _ => 86_400,
    };
    since
        .checked_add(SignedDuration::from_secs((secs / step + 1) * step))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Time {
        Time::from_second(1_700_000_000 + s).unwrap()
    }

    #[test]
    fn a_deadline_not_reached_is_remembered_and_the_soonest_wins() {
        let moment = Moment::at(t(100));
        assert!(moment.reached(t(50)));
        assert_eq!(moment.next_change(), None);
        assert!(!moment.reached(t(400)));
        assert!(!moment.waited(t(0), SignedDuration::from_secs(300)));
        assert_eq!(moment.next_change(), Some(t(300)));
        assert!(moment.waited(t(0), SignedDuration::from_secs(100)));
        assert_eq!(moment.next_change(), Some(t(300)));
    }

    /// Every moment at which the printed age changes is at or after the one
    /// remembered, and the text stays the same until then.
    #[test]
    fn an_age_is_kept_exactly_until_its_text_changes() {
        let since = t(0);
        for offset in [
            -5i64, 0, 1, 59, 60, 61, 599, 600, 601, 3_599, 3_600, 86_399, 86_400, 90_000, 604_800,
            700_000,
        ] {
            for nanos in [0i64, 400_000_000] {
                let now = t(offset)
                    .checked_add(SignedDuration::from_nanos(nanos))
                    .unwrap();
                let moment = Moment::at(now);
                let text = moment.age_of(since);
                let next = moment.next_change().unwrap();
                assert!(next > now, "{offset}s: {next} not after {now}");
                let before = next.checked_sub(SignedDuration::from_nanos(1)).unwrap();
                assert_eq!(short_age(before.duration_since(since)), text, "{offset}s");
                assert_ne!(
                    short_age(next.duration_since(since)),
                    text,
                    "{offset}s: the text at {next} should have changed"
                );
            }
        }
    }
}
