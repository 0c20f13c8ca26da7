//! CronJob schedules as the Kubernetes CronJob controller reads them: when a
//! schedule says a Job should have started, and why a schedule starts nothing.
//!
//! A CronJob "should have started at T and did not" only where the controller
//! itself would have started a Job at T, so everything here follows the
//! controller (`pkg/controller/cronjob`: `formatSchedule`, `syncCronJob`,
//! `mostRecentScheduleTime`, `nextScheduleTimeDuration`) and the parser it
//! calls, robfig/cron v3's `ParseStandard` and `SpecSchedule.Next`, rather than
//! any other cron dialect.
//!
//! The calendar search (the next wall clock time a pattern matches: month
//! lengths, leap years, weekdays) is [croner]'s, on jiff's civil datetimes.
//! croner reads a richer dialect than robfig does, so a small layer here keeps
//! robfig's meaning around it:
//! - grammar: each field is read here as robfig's `getRange` reads it (names
//!   only in the month and weekday fields, `?` as `*` in any field, `N/step` as
//!   `N-max/step`, weekdays 0-6 only, no `L`, `W`, `#` or `+`), and croner gets
//!   it as a plain list of numbers;
//! - day of month and day of week: robfig ANDs them when either carries the
//!   "star bit" (a `*` or `?` range, unless stepped by more than 1, so `*/1`
//!   and `*,5` keep it and `*/2` does not), else ORs them (Vixie). croner ANDs
//!   only when a field is exactly `*`, so a starred field is handed over as `*`
//!   (its values are all values anyway) and any other as its list;
//! - descriptors (`@yearly` … `@hourly`) become robfig's fields; `@every <d>`
//!   (Go's `time.ParseDuration`) is a constant delay, kept here;
//! - time zones: `TZ=`/`CRON_TZ=` prefixes and `spec.timeZone` as
//!   `formatSchedule` combines them, names looked up like Go's
//!   `time.LoadLocation` (exact case) in jiff's database;
//! - daylight saving time: robfig fires at the instants whose wall clock
//!   matches, so a time in a gap never fires and one in a fold fires twice.
//!   croner is asked on the wall clock of one offset at a time (between two
//!   transitions of the zone), which gives that;
//! - robfig gives up five years after the time asked about; so does this.
//!
//! Without a zone in the schedule or `spec.timeZone`, robfig reads the
//! schedule in the controller's local zone (`time.Local`). That is taken to be
//! UTC: kube-controller-manager runs in UTC in practically every distribution
//! (distroless images without /etc/localtime, kubeadm static pods, managed
//! control planes). A control plane run with another local zone shifts such
//! schedules.
//!
//! Known differences from the controller:
//! - robfig steps months and days from midnight with Go's `time.Date`, which
//!   moves a midnight that a daylight-saving gap skips to 23:00 the day
//!   before, and steps hours from the hour. In zones whose clocks change at
//!   midnight (America/Havana, America/Asuncion, America/Santiago,
//!   Africa/Cairo, Asia/Beirut, Asia/Tehran until 2022) or not on the hour
//!   (Australia/Lord_Howe, Pacific/Chatham) it can skip matching times near a
//!   change (`@yearly` in Havana skips 2013-01-01) or give one twice; here
//!   every wall clock match counts. Run against robfig v3.0.1 on 200,000
//!   random schedules and times in 20 zones, the two agreed everywhere else;
//! - a schedule that fires only on February 29 from 2096 on: robfig, finding
//!   no time within five years, goes on from Go's zero time (and can loop);
//!   here the schedule is `Invalid`;
//! - `TZ=Zone` with nothing after it makes robfig panic; here it is
//!   `Unparseable` (the API server refuses such a schedule anyway);
//! - the time zone database is the one jiff finds (the system's
//!   /usr/share/zoneinfo), not the controller's, so a zone added or changed by
//!   a newer tzdata release can differ until both agree.

use std::fmt;

use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use jiff::SignedDuration;
use jiff::tz::TimeZone;

use crate::model::Time;

/// The controller wakes this long after a schedule time (`nextScheduleDelta`,
/// against clock skew). Only [`next_sync`] reads it.
#[cfg(test)]
pub(super) const NEXT_SCHEDULE_DELTA: SignedDuration = SignedDuration::from_millis(100);

/// More missed schedule times than this are "many": the controller's
/// `TooManyMissedTimes` event.
const MANY_MISSED: i64 = 100;

/// robfig's `Next` looks this many years past the time it is given, no more.
const SEARCH_YEARS: i16 = 5;

const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// A CronJob's `spec.schedule`, read with its `spec.timeZone`.
#[derive(Debug, Clone)]
pub(super) struct Schedule {
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    /// Fields matched against the wall clock of `zone`.
    Calendar { pattern: Box<Cron>, zone: TimeZone },
    /// `@every`: whole seconds after the (truncated) previous time.
    Every { seconds: i64 },
    /// Fields that no day or time satisfies (`0 0 31 2 *`, or an empty
    /// field such as `,`): robfig's `Next` finds nothing.
    Never,
}

/// Why the controller starts no Job for a schedule, as its events say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ScheduleError {
    /// `spec.timeZone` names no zone: the controller records `UnknownTimeZone`
    /// and starts nothing (before it reads the schedule).
    UnknownTimeZone { zone: String },
    /// robfig/cron refuses the schedule: `UnparseableSchedule`.
    Unparseable { reason: String },
    /// The schedule parses, but the controller finds its next two times less
    /// than a second apart (it never fires, as `59 23 31 2 *`):
    /// `InvalidSchedule`.
    Invalid { reason: String },
}

impl ScheduleError {
    /// The reason of the Warning event the controller records.
    pub(super) fn event_reason(&self) -> &'static str {
        match self {
            ScheduleError::UnknownTimeZone { .. } => "UnknownTimeZone",
            ScheduleError::Unparseable { .. } => "UnparseableSchedule",
            ScheduleError::Invalid { .. } => "InvalidSchedule",
        }
    }
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleError::UnknownTimeZone { zone } => write!(f, "unknown time zone {zone:?}"),
            ScheduleError::Unparseable { reason } => write!(f, "unparseable schedule: {reason}"),
            ScheduleError::Invalid { reason } => write!(f, "invalid schedule: {reason}"),
        }
    }
}

impl std::error::Error for ScheduleError {}

/// How many schedule times passed unstarted, as the controller approximates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Missed {
    None,
    /// 1 to 100.
    Few,
    /// More than 100: the controller records `TooManyMissedTimes`.
    Many,
}

/// Where a CronJob stands at `now`, as `mostRecentScheduleTime` computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Due {
    /// The time the controller counts from: `status.lastScheduleTime`, else
    /// the creation time, moved up to `now - startingDeadlineSeconds` when that
    /// is later (and the deadline was passed in).
    pub(super) earliest: Time,
    /// The latest schedule time after `earliest` and no later than `now`: the
    /// Job the controller would start on a sync now. None when no time is due,
    /// or when the controller's estimate (after many missed times of an
    /// irregular schedule) skipped past it.
    pub(super) most_recent: Option<Time>,
    /// How many times passed since `earliest`, as the controller counts them;
    /// `Many` with a `most_recent` is its `TooManyMissedTimes` event.
    pub(super) missed: Missed,
}

impl Schedule {
    /// Reads `spec.schedule` with `spec.timeZone` as the controller does:
    /// an unknown `time_zone` first, then a schedule that mentions `TZ` keeps
    /// its own zone (the controller ignores `spec.timeZone` and warns
    /// `UnsupportedSchedule`), else `time_zone`, else UTC (see the module).
    pub(super) fn parse(
        schedule: &str,
        time_zone: Option<&str>,
    ) -> Result<Schedule, ScheduleError> {
        if let Some(zone) = time_zone {
            load_location(zone).map_err(|_| ScheduleError::UnknownTimeZone {
                zone: zone.to_owned(),
            })?;
        }
        let formatted;
        let spec = match time_zone {
            Some(zone) if !schedule.contains("TZ") => {
                formatted = format!("TZ={zone} {schedule}");
                formatted.as_str()
            }
            _ => schedule,
        };
        parse_standard(spec)
            .map(|kind| Schedule { kind })
            .map_err(|reason| ScheduleError::Unparseable { reason })
    }

    /// The first schedule time strictly after `t` (robfig's `Next`), or None
    /// when there is none within five years.
    pub(super) fn next_after(&self, t: Time) -> Option<Time> {
        match &self.kind {
            Kind::Calendar { pattern, zone } => next_on_wall_clock(pattern, zone, t),
            Kind::Every { seconds } => floor_second(t)
                .checked_add(SignedDuration::from_secs(*seconds))
                .ok(),
            Kind::Never => None,
        }
    }
}

/// The controller's `mostRecentScheduleTime`, with its approximation of the
/// number of missed times. Pass `starting_deadline_seconds` where the
/// controller includes it (`nextScheduleTime`, what a sync starts) and None
/// where it does not (`nextScheduleTimeDuration`, when it wakes next).
pub(super) fn most_recent_schedule_time(
    schedule: &Schedule,
    created: Time,
    last_scheduled: Option<Time>,
    starting_deadline_seconds: Option<i64>,
    now: Time,
) -> Result<Due, ScheduleError> {
    let mut earliest = last_scheduled.unwrap_or(created);
    if let Some(seconds) = starting_deadline_seconds {
        // `now.Add(-time.Second * time.Duration(seconds))`, Go's int64 arithmetic.
        let deadline = go_add(now, (-NANOS_PER_SECOND).wrapping_mul(seconds));
        if deadline > earliest {
            earliest = deadline;
        }
    }
    let nothing_due = Due {
        earliest,
        most_recent: None,
        missed: Missed::None,
    };
    let invalid = || ScheduleError::Invalid {
        reason: "time difference between two schedules is less than 1 second".to_owned(),
    };
    // robfig answers "none" with Go's zero time, which comes out as a
    // difference of less than a second below.
    let t1 = schedule.next_after(earliest).ok_or_else(invalid)?;
    if now < t1 {
        return Ok(nothing_due);
    }
    let t2 = schedule.next_after(t1).ok_or_else(invalid)?;
    if now < t2 {
        return Ok(Due {
            most_recent: Some(t1),
            ..nothing_due
        });
    }
    // `int64(t2.Sub(t1).Round(time.Second).Seconds())`
    let between = go_round_to_seconds(go_sub(t2, t1));
    if between < 1 {
        return Err(invalid());
    }
    // `int64(now.Sub(t1).Seconds())`: through a float64, as Go does.
    let elapsed = go_seconds(go_sub(now, t1)) as i64;
    let missed_count = elapsed / between + 1;
    // The controller steps back one interval more than it counted, then lets
    // the schedule find the times up to now (irregular schedules and @every).
    let back = missed_count.wrapping_sub(2).wrapping_mul(between);
    let potential_earliest = go_add(t1, back.wrapping_mul(NANOS_PER_SECOND));
    let mut most_recent = None;
    let mut next = schedule.next_after(potential_earliest);
    while let Some(t) = next.filter(|&t| t <= now) {
        most_recent = Some(t);
        next = schedule.next_after(t);
    }
    let missed = if missed_count > MANY_MISSED {
        Missed::Many
    } else if missed_count > 0 {
        Missed::Few
    } else {
        Missed::None
    };
    Ok(Due {
        earliest,
        most_recent,
        missed,
    })
}

/// Whether a sync at `now` skips the due time `scheduled` as too late: its
/// `startingDeadlineSeconds` window has closed (the controller's
/// `MissSchedule` event). Without a deadline a due time is never too late.
pub(super) fn missed_starting_window(
    scheduled: Time,
    starting_deadline_seconds: Option<i64>,
    now: Time,
) -> bool {
    starting_deadline_seconds
        .is_some_and(|seconds| go_add(scheduled, NANOS_PER_SECOND.wrapping_mul(seconds)) < now)
}

/// When the controller, after a sync at `now` that started nothing new, syncs
/// the CronJob again on its own (`nextScheduleTimeDuration`, as a time): the
/// schedule time after the last one due (or after now, when it has lost
/// count), plus [`NEXT_SCHEDULE_DELTA`]. None when the schedule never fires.
/// Kept with its tests (the controller's own table): the diagnosis judges a
/// CronJob at the times it missed, which the moment remembers, not at the
/// controller's wake-ups.
#[cfg(test)]
pub(super) fn next_sync(
    schedule: &Schedule,
    created: Time,
    last_scheduled: Option<Time>,
    now: Time,
) -> Option<Time> {
    let from = match most_recent_schedule_time(schedule, created, last_scheduled, None, now) {
        Err(_) => now,
        Ok(Due {
            most_recent: Some(t),
            ..
        }) => t,
        Ok(Due {
            earliest,
            missed: Missed::None,
            ..
        }) => earliest,
        Ok(_) => now,
    };
    schedule
        .next_after(from)?
        .checked_add(NEXT_SCHEDULE_DELTA)
        .ok()
}

/// The controller's local zone (robfig's `time.Local`): UTC, see the module.
fn controller_local_zone() -> TimeZone {
    TimeZone::UTC
}

/// Go's `time.LoadLocation`, on jiff's time zone database.
fn load_location(name: &str) -> Result<TimeZone, String> {
    match name {
        "" | "UTC" => return Ok(TimeZone::UTC),
        "Local" => return Ok(controller_local_zone()),
        _ => {}
    }
    if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
        return Err(format!("invalid location name {name:?}"));
    }
    let unknown = || format!("unknown time zone {name}");
    let zone = TimeZone::get(name).map_err(|_| unknown())?;
    // jiff finds a name in any case; Go opens the file of exactly that name.
    if zone.is_unknown() || zone.iana_name() != Some(name) {
        return Err(unknown());
    }
    Ok(zone)
}

/// robfig/cron's `ParseStandard`: an optional `TZ=`/`CRON_TZ=` prefix, then a
/// descriptor or five fields (minute, hour, day of month, month, day of week).
fn parse_standard(spec: &str) -> Result<Kind, String> {
    if spec.is_empty() {
        return Err("empty spec string".to_owned());
    }
    let mut zone = controller_local_zone();
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        // The zone runs from the first `=` to the first space (a space only).
        let Some(space) = spec.find(' ') else {
            return Err(format!("nothing after the time zone in {spec:?}"));
        };
        let name = &spec[spec.find('=').map_or(0, |eq| eq + 1)..space];
        zone = load_location(name).map_err(|e| format!("provided bad location {name}: {e}"))?;
        spec = spec[space..].trim();
    }
    if spec.starts_with('@') {
        return descriptor(spec, zone);
    }
    // Go's strings.Fields and Rust's split_whitespace split on the same
    // characters (Unicode White_Space).
    let fields: Vec<&str> = spec.split_whitespace().collect();
    let [minute, hour, day, month, weekday] = fields[..] else {
        return Err(format!(
            "expected exactly 5 fields, found {}: {fields:?}",
            fields.len()
        ));
    };
    calendar(
        [
            field(minute, &MINUTES)?,
            field(hour, &HOURS)?,
            field(day, &DAYS)?,
            field(month, &MONTHS)?,
            field(weekday, &WEEKDAYS)?,
        ],
        zone,
    )
}

/// robfig's `parseDescriptor`, exact strings only.
fn descriptor(spec: &str, zone: TimeZone) -> Result<Kind, String> {
    let one = |value: u32| Field {
        bits: 1 << value,
        star: false,
    };
    let all = |bounds: &Bounds| Field {
        bits: bits(bounds.min, bounds.max, 1),
        star: true,
    };
    let fields = match spec {
        "@yearly" | "@annually" => [one(0), one(0), one(1), one(1), all(&WEEKDAYS)],
        "@monthly" => [one(0), one(0), one(1), all(&MONTHS), all(&WEEKDAYS)],
        "@weekly" => [one(0), one(0), all(&DAYS), all(&MONTHS), one(0)],
        "@daily" | "@midnight" => [one(0), one(0), all(&DAYS), all(&MONTHS), all(&WEEKDAYS)],
        "@hourly" => [
            one(0),
            all(&HOURS),
            all(&DAYS),
            all(&MONTHS),
            all(&WEEKDAYS),
        ],
        _ => {
            let Some(duration) = spec.strip_prefix("@every ") else {
                return Err(format!("unrecognized descriptor: {spec}"));
            };
            let nanos = go_parse_duration(duration)
                .map_err(|e| format!("failed to parse duration {spec}: {e}"))?;
            // robfig's `Every`: at least a second, in whole seconds.
            let seconds = (nanos / NANOS_PER_SECOND).max(1);
            return Ok(Kind::Every { seconds });
        }
    };
    calendar(fields, zone)
}

/// The values one field allows, as robfig keeps them: bit `v` for value `v`,
/// and whether a `*` or `?` range set its "star bit".
#[derive(Debug, Clone, Copy)]
struct Field {
    bits: u64,
    star: bool,
}

struct Bounds {
    min: u32,
    max: u32,
    names: &'static [&'static str],
}

const MINUTES: Bounds = Bounds {
    min: 0,
    max: 59,
    names: &[],
};
const HOURS: Bounds = Bounds {
    min: 0,
    max: 23,
    names: &[],
};
const DAYS: Bounds = Bounds {
    min: 1,
    max: 31,
    names: &[],
};
/// Month names count from 1 (`jan`), weekday names from 0 (`sun`).
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ],
};
const WEEKDAYS: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
};

/// robfig's `getField`: comma-separated ranges (empty ones skipped).
fn field(text: &str, bounds: &Bounds) -> Result<Field, String> {
    let mut field = Field {
        bits: 0,
        star: false,
    };
    for expr in text.split(',').filter(|expr| !expr.is_empty()) {
        let range = range(expr, bounds)?;
        field.bits |= range.bits;
        field.star |= range.star;
    }
    Ok(field)
}

/// robfig's `getRange`: `*`, `?`, `N`, `N-M`, each optionally `/step`; `N/step`
/// runs to the maximum; a step above 1 clears the star bit. Whatever follows a
/// `*` before the slash is ignored, as robfig ignores it.
fn range(expr: &str, bounds: &Bounds) -> Result<Field, String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let (start, mut end, mut star) = if matches!(low_and_high[0], "*" | "?") {
        (bounds.min.into(), bounds.max.into(), true)
    } else {
        let start = int_or_name(low_and_high[0], bounds)?;
        let end = match low_and_high[..] {
            [_] => start,
            [_, high] => int_or_name(high, bounds)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
        (start, end, false)
    };
    let step = match range_and_step[..] {
        [_] => 1,
        [_, step] => {
            let step = non_negative_int(step)?;
            if low_and_high.len() == 1 {
                end = bounds.max.into();
            }
            if step > 1 {
                star = false;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    let (min, max) = (u64::from(bounds.min), u64::from(bounds.max));
    if start < min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({min}): {expr}"
        ));
    }
    if end > max {
        return Err(format!(
            "end of range ({end}) above maximum ({max}): {expr}"
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    // Within bounds now: at most 59.
    let (start, end) = (start as u32, end as u32);
    Ok(Field {
        bits: bits(start, end, step),
        star,
    })
}

/// robfig's `parseIntOrName`: a name (any case) where the field has names.
fn int_or_name(expr: &str, bounds: &Bounds) -> Result<u64, String> {
    let lower = expr.to_lowercase();
    if let Some(index) = bounds.names.iter().position(|name| *name == lower) {
        return Ok(u64::from(bounds.min) + index as u64);
    }
    non_negative_int(expr)
}

/// robfig's `mustParseInt`: Go's `strconv.Atoi` (a sign allowed), not negative.
fn non_negative_int(expr: &str) -> Result<u64, String> {
    let number: i64 = expr
        .parse()
        .map_err(|e| format!("failed to parse int from {expr}: {e}"))?;
    u64::try_from(number).map_err(|_| format!("negative number ({number}) not allowed: {expr}"))
}

/// The values `start..=end` by `step` as bits.
fn bits(start: u32, end: u32, step: u64) -> u64 {
    let mut bits = 0;
    let mut value = u64::from(start);
    while value <= u64::from(end) {
        bits |= 1 << value;
        value += step;
    }
    bits
}

/// The schedule for robfig's fields, handed to croner as plain numbers.
fn calendar(fields: [Field; 5], zone: TimeZone) -> Result<Kind, String> {
    let [minute, hour, mut day, month, mut weekday] = fields;
    if minute.bits == 0 || hour.bits == 0 || month.bits == 0 {
        return Ok(Kind::Never);
    }
    if day.star || weekday.star {
        // robfig's dayMatches: both must match.
        if day.bits == 0 || weekday.bits == 0 {
            return Ok(Kind::Never);
        }
    } else {
        // Either matches; an empty one never does, so the other decides
        // alone, which croner reads from a `*` beside it.
        match (day.bits == 0, weekday.bits == 0) {
            (true, true) => return Ok(Kind::Never),
            (true, false) => day = Field { star: true, ..day },
            (false, true) => {
                weekday = Field {
                    star: true,
                    ..weekday
                }
            }
            (false, false) => {}
        }
    }
    // Days of month that no month allowed has (`31 2`): croner would search
    // to its year 5000 for them, robfig five years; neither finds one.
    let some_day_exists = (1..=12)
        .filter(|m| month.bits & (1 << m) != 0)
        .any(|m| day.star || day.bits & (bits(1, longest_month(m), 1)) != 0);
    if weekday.star && !some_day_exists {
        return Ok(Kind::Never);
    }
    let text = [minute, hour, day, month, weekday]
        .map(croner_field)
        .join(" ");
    let pattern = CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
        .parse(&text)
        .map_err(|e| format!("croner refused {text:?}: {e}"))?;
    Ok(Kind::Calendar {
        pattern: Box::new(pattern),
        zone,
    })
}

/// A field as croner reads it the same way: `*` when robfig's star bit is
/// set (croner ANDs the day fields exactly then), else the values.
fn croner_field(field: Field) -> String {
    if field.star {
        return "*".to_owned();
    }
    (0..64)
        .filter(|value| field.bits & (1 << value) != 0)
        .map(|value| value.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The most days month `m` has (29 for February).
fn longest_month(m: u32) -> u32 {
    match m {
        2 => 29,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// robfig's `SpecSchedule.Next`: the first instant after `t` whose wall clock
/// in `zone` matches, within five years. croner searches the wall clock of one
/// UTC offset, from `t` up to the zone's next transition; a match it finds
/// beyond the transition is retried under the next offset. So a wall clock
/// time that a gap skips is never found, and one that a fold repeats is found
/// under each offset.
fn next_on_wall_clock(pattern: &Cron, zone: &TimeZone, t: Time) -> Option<Time> {
    // jiff's zone arithmetic reads its own Timestamp; the model's Time is the
    // same instant to the microsecond.
    let mut from = floor_second(t)
        .checked_add(SignedDuration::from_secs(1))
        .ok()?
        .to_timestamp();
    let last_year = zone.to_datetime(from).year().checked_add(SEARCH_YEARS)?;
    loop {
        let offset = zone.to_offset(from);
        let found = pattern
            .find_next_occurrence(&offset.to_datetime(from), true)
            .ok()?;
        if found.year() > last_year {
            return None;
        }
        let at = offset.to_timestamp(found).ok()?;
        match zone
            .following(from)
            .find(|change| change.timestamp() > from)
        {
            Some(change) if at >= change.timestamp() => from = change.timestamp(),
            _ => return Some(Time::from(at)),
        }
    }
}

/// `t` without its fraction of a second (toward the past).
fn floor_second(t: Time) -> Time {
    let micros = t.as_microsecond();
    Time::from_microsecond(micros - micros.rem_euclid(1_000_000)).unwrap_or(t)
}

/// Go's `t.Add(d)`, `d` in nanoseconds (to the microsecond the model holds).
fn go_add(t: Time, nanos: i64) -> Time {
    t.checked_add(SignedDuration::from_nanos(nanos))
        .unwrap_or(if nanos < 0 { Time::MIN } else { Time::MAX })
}

/// Go's `a.Sub(b)` in nanoseconds: saturated at ±292 years.
fn go_sub(a: Time, b: Time) -> i64 {
    let nanos = (i128::from(a.as_microsecond()) - i128::from(b.as_microsecond())) * 1_000;
    i64::try_from(nanos).unwrap_or(if nanos < 0 { i64::MIN } else { i64::MAX })
}

/// Go's `Duration.Seconds()`.
fn go_seconds(nanos: i64) -> f64 {
    (nanos / NANOS_PER_SECOND) as f64 + (nanos % NANOS_PER_SECOND) as f64 / 1e9
}

/// Go's `d.Round(time.Second)` in whole seconds (halves away from zero).
fn go_round_to_seconds(nanos: i64) -> i64 {
    let (seconds, rest) = (nanos / NANOS_PER_SECOND, nanos % NANOS_PER_SECOND);
    if rest.abs() * 2 < NANOS_PER_SECOND {
        seconds
    } else {
        seconds + rest.signum()
    }
}

/// Go's `time.ParseDuration` in nanoseconds: `[-+]?([0-9]*(\.[0-9]*)?unit)+`
/// with units ns, us, µs, μs, ms, s, m, h, or a lone `0`.
fn go_parse_duration(text: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {text:?}");
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let limit: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
        if !rest.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(invalid());
        }
        // The whole part; past 2^63 the duration is invalid.
        let whole_len = digits(rest);
        let mut whole: u64 = 0;
        for digit in rest[..whole_len].bytes() {
            whole = whole
                .checked_mul(10)
                .and_then(|w| w.checked_add(u64::from(digit - b'0')))
                .filter(|&w| w <= limit)
                .ok_or_else(invalid)?;
        }
        rest = &rest[whole_len..];
        // The fraction; digits that would overflow are read and dropped.
        let (mut fraction, mut scale, mut fraction_len) = (0u64, 1f64, None);
        if let Some(after_dot) = rest.strip_prefix('.') {
            let len = digits(after_dot);
            for digit in after_dot[..len].bytes() {
                match fraction
                    .checked_mul(10)
                    .and_then(|f| f.checked_add(u64::from(digit - b'0')))
                {
                    Some(f) if fraction <= (limit - 1) / 10 && f <= limit => {
                        fraction = f;
                        scale *= 10.0;
                    }
                    _ => break,
                }
            }
            fraction_len = Some(len);
            rest = &after_dot[len..];
        }
        if whole_len == 0 && fraction_len.unwrap_or(0) == 0 {
            return Err(invalid());
        }
        let unit_len = rest
            .bytes()
            .take_while(|&b| b != b'.' && !b.is_ascii_digit())
            .count();
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {text:?}"));
        }
        let unit_name = &rest[..unit_len];
        rest = &rest[unit_len..];
        let unit: u64 = match unit_name {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {unit_name:?} in duration {text:?}"
                ));
            }
        };
        if whole > limit / unit {
            return Err(invalid());
        }
        let mut value = whole * unit;
        if fraction > 0 {
            // As Go: through a float64, nanosecond-exact for fractions of hours.
            value += (fraction as f64 * (unit as f64 / scale)) as u64;
            if value > limit {
                return Err(invalid());
            }
        }
        total = total
            .checked_add(value)
            .filter(|&t| t <= limit)
            .ok_or_else(invalid)?;
    }
    if negative {
        return Ok((total as i64).wrapping_neg());
    }
    i64::try_from(total).map_err(|_| invalid())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Time {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn parse(schedule: &str) -> Schedule {
        Schedule::parse(schedule, None).unwrap_or_else(|e| panic!("{schedule}: {e}"))
    }

    fn hours(n: i64) -> SignedDuration {
        SignedDuration::from_hours(n)
    }

    fn minutes(n: i64) -> SignedDuration {
        SignedDuration::from_mins(n)
    }

    fn seconds(n: i64) -> SignedDuration {
        SignedDuration::from_secs(n)
    }

    /// utils_test.go's `topOfTheHour()`: a Thursday.
    fn top() -> Time {
        at("2016-05-19T10:00:00Z")
    }

    /// utils_test.go's `deltaTimeAfterTopOfTheHour(d)`.
    fn after_top(d: SignedDuration) -> Time {
        top() + d
    }

    fn sole_error(schedule: &str, time_zone: Option<&str>) -> ScheduleError {
        match Schedule::parse(schedule, time_zone) {
            Ok(parsed) => panic!("{schedule:?} / {time_zone:?} parsed: {parsed:?}"),
            Err(e) => e,
        }
    }

    /// kubernetes pkg/controller/cronjob/utils_test.go, TestMostRecentScheduleTime:
    /// every case, `includeSDS` as the deadline passed in or not.
    #[test]
    fn most_recent_schedule_time_as_the_controller_tests_it() {
        struct Case {
            name: &'static str,
            schedule: &'static str,
            created: Time,
            last_scheduled: Option<Time>,
            /// Only where the Go case sets includeSDS.
            deadline: Option<i64>,
            now: Time,
            earliest: Time,
            most_recent: Option<Time>,
            missed: Missed,
            invalid: bool,
        }
        let case = |name, schedule, created, now, earliest| Case {
            name,
            schedule,
            created,
            last_scheduled: None,
            deadline: None,
            now,
            earliest,
            most_recent: None,
            missed: Missed::None,
            invalid: false,
        };
        let cases = [
            case(
                "now before next schedule",
                "0 * * * *",
                top(),
                top() + seconds(30),
                top(),
            ),
            Case {
                most_recent: Some(after_top(minutes(60))),
                ..case(
                    "now just after next schedule",
                    "0 * * * *",
                    top(),
                    top() + minutes(61),
                    top(),
                )
            },
            Case {
                most_recent: Some(after_top(minutes(300))),
                missed: Missed::Few,
                ..case(
                    "missed 5 schedules",
                    "0 * * * *",
                    after_top(seconds(10)),
                    after_top(minutes(301)),
                    after_top(seconds(10)),
                )
            },
            Case {
                last_scheduled: Some(after_top(minutes(30))),
                most_recent: Some(after_top(hours(24) + minutes(30))),
                missed: Missed::Few,
                ..case(
                    "complex schedule",
                    "30 6-16/4 * * 1-5",
                    top(),
                    after_top(hours(24) + minutes(31)),
                    after_top(minutes(30)),
                )
            },
            Case {
                last_scheduled: Some(after_top(minutes(30))),
                most_recent: None,
                missed: Missed::Few,
                ..case(
                    "another complex schedule",
                    "30 10,11,12 * * 1-5",
                    top(),
                    after_top(hours(30) + minutes(30)),
                    after_top(minutes(30)),
                )
            },
            Case {
                last_scheduled: Some(after_top(minutes(30))),
                most_recent: Some(after_top(hours(96) + minutes(30))),
                missed: Missed::Few,
                ..case(
                    "complex schedule with longer diff between executions",
                    "30 6-16/4 * * 1-5",
                    top(),
                    after_top(hours(96) + minutes(31)),
                    after_top(minutes(30)),
                )
            },
            Case {
                most_recent: Some(after_top(hours(24) + minutes(30))),
                missed: Missed::Few,
                ..case(
                    "complex schedule with shorter diff between executions",
                    "30 6-16/4 * * 1-5",
                    top(),
                    after_top(hours(24) + minutes(31)),
                    top(),
                )
            },
            Case {
                // startingDeadlineSeconds is 10 but includeSDS is false.
                last_scheduled: Some(after_top(minutes(1))),
                most_recent: Some(after_top(hours(6 * 24 + 23) + minutes(1))),
                missed: Missed::Many,
                ..case(
                    "@every schedule",
                    "@every 1h",
                    after_top(minutes(-59)),
                    after_top(hours(7 * 24)),
                    after_top(minutes(1)),
                )
            },
            Case {
                invalid: true,
                ..case(
                    "rogue cronjob",
                    "59 23 31 2 *",
                    after_top(seconds(10)),
                    after_top(hours(1)),
                    after_top(seconds(10)),
                )
            },
            Case {
                last_scheduled: Some(top()),
                ..case(
                    "earliestTime being CreationTimestamp and LastScheduleTime",
                    "0 * * * *",
                    top(),
                    after_top(seconds(30)),
                    top(),
                )
            },
            Case {
                last_scheduled: Some(after_top(minutes(30))),
                ..case(
                    "earliestTime being LastScheduleTime",
                    "*/5 * * * *",
                    top(),
                    after_top(minutes(31)),
                    after_top(minutes(30)),
                )
            },
            Case {
                // startingDeadlineSeconds is 60 but includeSDS is false.
                last_scheduled: Some(after_top(minutes(30))),
                ..case(
                    "earliestTime being LastScheduleTime (within StartingDeadlineSeconds)",
                    "*/5 * * * *",
                    top(),
                    after_top(minutes(31)),
                    after_top(minutes(30)),
                )
            },
            Case {
                last_scheduled: Some(after_top(minutes(30))),
                deadline: Some(60),
                ..case(
                    "earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)",
                    "*/5 * * * *",
                    top(),
                    after_top(minutes(32)),
                    after_top(minutes(31)),
                )
            },
        ];
        for c in cases {
            let got = most_recent_schedule_time(
                &parse(c.schedule),
                c.created,
                c.last_scheduled,
                c.deadline,
                c.now,
            );
            if c.invalid {
                let err = got.expect_err(c.name);
                assert_eq!(err.event_reason(), "InvalidSchedule", "{}", c.name);
                continue;
            }
            let want = Due {
                earliest: c.earliest,
                most_recent: c.most_recent,
                missed: c.missed,
            };
            assert_eq!(got, Ok(want), "{}", c.name);
        }
    }

    /// utils_test.go, TestNextScheduleTime: the Job a sync starts (the
    /// deadline included); the Go test mutates one CronJob from case to case,
    /// so each case here carries what it inherits.
    #[test]
    fn next_schedule_time_as_the_controller_tests_it() {
        let hourly = "0 * * * ?";
        let t1 = top();
        let t2 = after_top(hours(1));
        /// The CronJob as the case leaves it, and what a sync at `now` starts.
        struct Case {
            name: &'static str,
            schedule: &'static str,
            created: Time,
            last: Option<Time>,
            deadline: Option<i64>,
            now: Time,
            want: Result<Option<Time>, &'static str>,
        }
        let cases = [
            Case {
                name: "1: no known start times, and none needed yet",
                schedule: hourly,
                created: t1 - minutes(10),
                last: None,
                deadline: None,
                now: t1 - minutes(7),
                want: Ok(None),
            },
            Case {
                name: "2: no known start times, and one needed",
                schedule: hourly,
                created: t1 - minutes(10),
                last: None,
                deadline: None,
                now: t1 + seconds(2),
                want: Ok(Some(t1)),
            },
            Case {
                name: "3: known LastScheduleTime, no start needed",
                schedule: hourly,
                created: t1 - minutes(10),
                last: Some(t1),
                deadline: None,
                now: t1 + minutes(2),
                want: Ok(None),
            },
            Case {
                name: "4: known LastScheduleTime, a start needed",
                schedule: hourly,
                created: t1 - minutes(10),
                last: Some(t1),
                deadline: None,
                now: t2 + minutes(5),
                want: Ok(Some(t2)),
            },
            Case {
                name: "5: known LastScheduleTime, two starts needed",
                schedule: hourly,
                created: t1 - hours(2),
                last: Some(t1 - hours(1)),
                deadline: None,
                now: t2 + minutes(5),
                want: Ok(Some(t2)),
            },
            Case {
                name: "6: now is way way ahead of last start time, and there is no deadline",
                schedule: hourly,
                created: t1 - hours(2),
                last: Some(t1 - hours(1)),
                deadline: None,
                now: t2 + hours(10 * 24),
                want: Ok(Some(t2 + hours(10 * 24))),
            },
            Case {
                name: "7: now is way way ahead of last start time, but there is a short deadline",
                schedule: hourly,
                created: t1 - hours(2),
                last: Some(t1 - hours(1)),
                deadline: Some(2 * 60 * 60),
                now: t2 + hours(10 * 24),
                want: Ok(Some(t2 + hours(10 * 24))),
            },
            Case {
                name: "8: ensure the error from mostRecentScheduleTime gets populated up",
                schedule: "59 23 31 2 *",
                created: t1 + seconds(10),
                last: None,
                deadline: Some(2 * 60 * 60),
                now: after_top(hours(1)),
                want: Err("InvalidSchedule"),
            },
        ];
        for c in cases {
            let schedule = parse(c.schedule);
            let got = most_recent_schedule_time(&schedule, c.created, c.last, c.deadline, c.now)
                .map(|due| due.most_recent)
                .map_err(|e| e.event_reason());
            assert_eq!(got, c.want, "{}", c.name);
        }
    }

    /// utils_test.go, TestNextScheduleTimeDuration: when the controller
    /// wakes next, `nextScheduleDelta` included.
    #[test]
    fn next_sync_as_the_controller_tests_it() {
        let cases = [
            (
                "complex schedule skipping weekend",
                "30 6-16/4 * * 1-5",
                Some(after_top(minutes(30))),
                after_top(hours(24) + minutes(31)),
                hours(3) + minutes(59),
            ),
            (
                "another complex schedule skipping weekend",
                "30 10,11,12 * * 1-5",
                Some(after_top(minutes(30))),
                after_top(hours(30) + minutes(30)),
                hours(66),
            ),
            (
                "once a week cronjob, missed two runs",
                "0 12 * * 4",
                Some(after_top(hours(2))),
                after_top(hours(19 * 24 + 1) + minutes(30)),
                hours(48) + minutes(30),
            ),
            (
                "no previous run of a cronjob",
                "0 12 * * 5",
                None,
                after_top(hours(6)),
                hours(20),
            ),
        ];
        for (name, schedule, last, now, wait) in cases {
            let got = next_sync(&parse(schedule), top(), last, now);
            assert_eq!(got, Some(now + wait + NEXT_SCHEDULE_DELTA), "{name}");
        }
    }

    /// robfig/cron spec_test.go, TestActivation: whether the schedule fires at
    /// a time (`Next(t - 1s) == t`). Its times are local and so are its
    /// schedules, so UTC stands for both.
    #[test]
    fn activation_as_robfig_tests_it() {
        let cases = [
            // Every fifteen minutes.
            ("2012-07-09T15:00:00Z", "0/15 * * * *", true),
            ("2012-07-09T15:45:00Z", "0/15 * * * *", true),
            ("2012-07-09T15:40:00Z", "0/15 * * * *", false),
            // Every fifteen minutes, starting at 5 minutes.
            ("2012-07-09T15:05:00Z", "5/15 * * * *", true),
            ("2012-07-09T15:20:00Z", "5/15 * * * *", true),
            ("2012-07-09T15:50:00Z", "5/15 * * * *", true),
            // Named months.
            ("2012-07-15T15:00:00Z", "0/15 * * Jul *", true),
            ("2012-07-15T15:00:00Z", "0/15 * * Jun *", false),
            // Everything set.
            ("2012-07-15T08:30:00Z", "30 08 ? Jul Sun", true),
            ("2012-07-15T08:30:00Z", "30 08 15 Jul ?", true),
            ("2012-07-16T08:30:00Z", "30 08 ? Jul Sun", false),
            ("2012-07-16T08:30:00Z", "30 08 15 Jul ?", false),
            // Predefined schedules.
            ("2012-07-09T15:00:00Z", "@hourly", true),
            ("2012-07-09T15:04:00Z", "@hourly", false),
            ("2012-07-09T15:00:00Z", "@daily", false),
            ("2012-07-09T00:00:00Z", "@daily", true),
            ("2012-07-09T00:00:00Z", "@weekly", false),
            ("2012-07-08T00:00:00Z", "@weekly", true),
            ("2012-07-08T01:00:00Z", "@weekly", false),
            ("2012-07-08T00:00:00Z", "@monthly", false),
            ("2012-07-01T00:00:00Z", "@monthly", true),
            // Both day fields restricted: either matches.
            ("2012-07-15T00:00:00Z", "* * 1,15 * Sun", true),
            ("2012-06-15T00:00:00Z", "* * 1,15 * Sun", true),
            ("2012-08-01T00:00:00Z", "* * 1,15 * Sun", true),
            ("2012-07-15T00:00:00Z", "* * */10 * Sun", true), // robfig #70
            // One of them a star: both must match.
            ("2012-07-15T00:00:00Z", "* * * * Mon", false),
            ("2012-07-09T00:00:00Z", "* * 1,15 * *", false),
            ("2012-07-15T00:00:00Z", "* * 1,15 * *", true),
            ("2012-07-15T00:00:00Z", "* * */2 * Sun", true),
        ];
        for (time, schedule, fires) in cases {
            let t = at(time);
            let next = parse(schedule).next_after(t - seconds(1));
            assert_eq!(
                next == Some(t),
                fires,
                "{schedule} at {time}: next {next:?}"
            );
        }
    }

    /// robfig/cron spec_test.go, TestNext: the cases of its seconds parser
    /// whose seconds are 0, as five fields. Where the Go case gives the time
    /// in New York and the schedule no zone, the schedule takes the time's
    /// zone (robfig's `time.Local` rule), written here as `TZ=`.
    #[test]
    fn next_as_robfig_tests_it() {
        let cases = [
            // Simple cases.
            (
                "2012-07-09T14:45:00Z",
                "0/15 * * * *",
                Some("2012-07-09T15:00:00Z"),
            ),
            (
                "2012-07-09T14:59:00Z",
                "0/15 * * * *",
                Some("2012-07-09T15:00:00Z"),
            ),
            (
                "2012-07-09T14:59:59Z",
                "0/15 * * * *",
                Some("2012-07-09T15:00:00Z"),
            ),
            // Wrap around hours.
            (
                "2012-07-09T15:45:00Z",
                "20-35/15 * * * *",
                Some("2012-07-09T16:20:00Z"),
            ),
            // Wrap around days.
            (
                "2012-07-09T23:46:00Z",
                "*/15 * * * *",
                Some("2012-07-10T00:00:00Z"),
            ),
            (
                "2012-07-09T23:45:00Z",
                "20-35/15 * * * *",
                Some("2012-07-10T00:20:00Z"),
            ),
            // Wrap around months.
            (
                "2012-07-09T23:35:00Z",
                "0 0 9 Apr-Oct ?",
                Some("2012-08-09T00:00:00Z"),
            ),
            (
                "2012-07-09T23:35:00Z",
                "0 0 */5 Apr,Aug,Oct Mon",
                Some("2012-08-01T00:00:00Z"),
            ),
            (
                "2012-07-09T23:35:00Z",
                "0 0 */5 Oct Mon",
                Some("2012-10-01T00:00:00Z"),
            ),
            // Wrap around years.
            (
                "2012-07-09T23:35:00Z",
                "0 0 * Feb Mon",
                Some("2013-02-04T00:00:00Z"),
            ),
            (
                "2012-07-09T23:35:00Z",
                "0 0 * Feb Mon/2",
                Some("2013-02-01T00:00:00Z"),
            ),
            // Wrap around minute, hour, day, month, and year.
            (
                "2012-12-31T23:59:45Z",
                "* * * * *",
                Some("2013-01-01T00:00:00Z"),
            ),
            // Leap year.
            (
                "2012-07-09T23:35:00Z",
                "0 0 29 Feb ?",
                Some("2016-02-29T00:00:00Z"),
            ),
            // Daylight saving time 2am EST (-5) -> 3am EDT (-4).
            (
                "2012-03-11T00:00:00-05:00",
                "TZ=America/New_York 30 2 11 Mar ?",
                Some("2013-03-11T02:30:00-04:00"),
            ),
            // Hourly job.
            (
                "2012-03-11T00:00:00-05:00",
                "TZ=America/New_York 0 * * * ?",
                Some("2012-03-11T01:00:00-05:00"),
            ),
            (
                "2012-03-11T01:00:00-05:00",
                "TZ=America/New_York 0 * * * ?",
                Some("2012-03-11T03:00:00-04:00"),
            ),
            (
                "2012-03-11T03:00:00-04:00",
                "TZ=America/New_York 0 * * * ?",
                Some("2012-03-11T04:00:00-04:00"),
            ),
            (
                "2012-03-11T04:00:00-04:00",
                "TZ=America/New_York 0 * * * ?",
                Some("2012-03-11T05:00:00-04:00"),
            ),
            // Hourly job using CRON_TZ.
            (
                "2012-03-11T00:00:00-05:00",
                "CRON_TZ=America/New_York 0 * * * ?",
                Some("2012-03-11T01:00:00-05:00"),
            ),
            (
                "2012-03-11T01:00:00-05:00",
                "CRON_TZ=America/New_York 0 * * * ?",
                Some("2012-03-11T03:00:00-04:00"),
            ),
            (
                "2012-03-11T03:00:00-04:00",
                "CRON_TZ=America/New_York 0 * * * ?",
                Some("2012-03-11T04:00:00-04:00"),
            ),
            (
                "2012-03-11T04:00:00-04:00",
                "CRON_TZ=America/New_York 0 * * * ?",
                Some("2012-03-11T05:00:00-04:00"),
            ),
            // 1am nightly job.
            (
                "2012-03-11T00:00:00-05:00",
                "TZ=America/New_York 0 1 * * ?",
                Some("2012-03-11T01:00:00-05:00"),
            ),
            (
                "2012-03-11T01:00:00-05:00",
                "TZ=America/New_York 0 1 * * ?",
                Some("2012-03-12T01:00:00-04:00"),
            ),
            // 2am nightly job (skipped).
            (
                "2012-03-11T00:00:00-05:00",
                "TZ=America/New_York 0 2 * * ?",
                Some("2012-03-12T02:00:00-04:00"),
            ),
            // Daylight saving time 2am EDT (-4) => 1am EST (-5).
            (
                "2012-11-04T00:00:00-04:00",
                "TZ=America/New_York 30 2 04 Nov ?",
                Some("2012-11-04T02:30:00-05:00"),
            ),
            (
                "2012-11-04T01:45:00-04:00",
                "TZ=America/New_York 30 1 04 Nov ?",
                Some("2012-11-04T01:30:00-05:00"),
            ),
            // Hourly job.
            (
                "2012-11-04T00:00:00-04:00",
                "TZ=America/New_York 0 * * * ?",
                Some("2012-11-04T01:00:00-04:00"),
            ),
            (
                "2012-11-04T01:00:00-04:00",
                "TZ=America/New_York 0 * * * ?",
                Some("2012-11-04T01:00:00-05:00"),
            ),
            (
                "2012-11-04T01:00:00-05:00",
                "TZ=America/New_York 0 * * * ?",
                Some("2012-11-04T02:00:00-05:00"),
            ),
            // 1am nightly job (runs twice).
            (
                "2012-11-04T00:00:00-04:00",
                "TZ=America/New_York 0 1 * * ?",
                Some("2012-11-04T01:00:00-04:00"),
            ),
            (
                "2012-11-04T01:00:00-04:00",
                "TZ=America/New_York 0 1 * * ?",
                Some("2012-11-04T01:00:00-05:00"),
            ),
            (
                "2012-11-04T01:00:00-05:00",
                "TZ=America/New_York 0 1 * * ?",
                Some("2012-11-05T01:00:00-05:00"),
            ),
            // 2am nightly job.
            (
                "2012-11-04T00:00:00-04:00",
                "TZ=America/New_York 0 2 * * ?",
                Some("2012-11-04T02:00:00-05:00"),
            ),
            (
                "2012-11-04T02:00:00-05:00",
                "TZ=America/New_York 0 2 * * ?",
                Some("2012-11-05T02:00:00-05:00"),
            ),
            // 3am nightly job.
            (
                "2012-11-04T00:00:00-04:00",
                "TZ=America/New_York 0 3 * * ?",
                Some("2012-11-04T03:00:00-05:00"),
            ),
            (
                "2012-11-04T03:00:00-05:00",
                "TZ=America/New_York 0 3 * * ?",
                Some("2012-11-05T03:00:00-05:00"),
            ),
            // Unsatisfiable.
            ("2012-07-09T23:35:00Z", "0 0 30 Feb ?", None),
            ("2012-07-09T23:35:00Z", "0 0 31 Apr ?", None),
            // Monthly job.
            (
                "2012-11-04T00:00:00-04:00",
                "TZ=America/New_York 0 3 3 * ?",
                Some("2012-12-03T03:00:00-05:00"),
            ),
            // DST making midnight not a valid time (robfig #157).
            (
                "2018-10-17T05:00:00-04:00",
                "TZ=America/Sao_Paulo 0 9 10 * ?",
                Some("2018-11-10T06:00:00-05:00"),
            ),
            (
                "2018-02-14T05:00:00-05:00",
                "TZ=America/Sao_Paulo 0 9 22 * ?",
                Some("2018-02-22T07:00:00-05:00"),
            ),
        ];
        for (from, schedule, want) in cases {
            let got = parse(schedule).next_after(at(from));
            assert_eq!(got, want.map(at), "{schedule} after {from}");
        }
    }

    /// robfig/cron spec_test.go, TestNextWithTz: a schedule without a zone
    /// follows the time's zone in robfig (+05:30 there); here it says so.
    #[test]
    fn next_in_a_zone_as_robfig_tests_it() {
        let cases = [
            (
                "2016-01-03T13:09:03+05:30",
                "14 14 * * *",
                "2016-01-03T14:14:00+05:30",
            ),
            (
                "2016-01-03T04:09:03+05:30",
                "14 14 * * ?",
                "2016-01-03T14:14:00+05:30",
            ),
            (
                "2016-01-03T14:09:03+05:30",
                "14 14 * * *",
                "2016-01-03T14:14:00+05:30",
            ),
            (
                "2016-01-03T14:00:00+05:30",
                "14 14 * * ?",
                "2016-01-03T14:14:00+05:30",
            ),
        ];
        for (from, schedule, want) in cases {
            let zoned = Schedule::parse(schedule, Some("Asia/Kolkata")).expect(schedule);
            assert_eq!(zoned.next_after(at(from)), Some(at(want)), "{schedule}");
        }
    }

    /// robfig/cron spec_test.go TestErrors and TestSlash0NoHang, parser_test.go
    /// TestRange (its error cases, in a field), TestParseScheduleErrors and
    /// TestStandardSpecSchedule: what robfig refuses is `UnparseableSchedule`.
    #[test]
    fn robfig_refusals_are_unparseable() {
        let refused = [
            // TestErrors.
            ("xyz", "expected exactly 5 fields"),
            ("60 0 * * *", "above maximum"),
            ("0 60 * * *", "above maximum"),
            ("0 0 * * XYZ", "failed to parse int"),
            // TestSlash0NoHang.
            (
                "TZ=America/New_York 15/0 * * * *",
                "should be a positive number",
            ),
            // TestRange's errors.
            ("5--5 * * * *", "too many hyphens"),
            ("* * * jan-x *", "failed to parse int"),
            ("* * 2-x * *", "failed to parse int"),
            ("*/-12 * * * *", "negative number"),
            ("*//2 * * * *", "too many slashes"),
            ("* * 0 * *", "below minimum"),
            ("* * * 13 *", "above maximum"),
            ("* * * * 5-3", "beyond end of range"),
            ("*/0 * * * *", "should be a positive number"),
            // TestParseScheduleErrors and TestStandardSpecSchedule.
            ("* 5 j * *", "failed to parse int"),
            ("@every Xm", "failed to parse duration"),
            ("@unrecognized", "unrecognized descriptor"),
            ("* * * *", "expected exactly 5 fields"),
            ("", "empty spec string"),
            // What croner would read but robfig does not.
            ("0 0 * * 7", "above maximum"),
            ("0 0 L * *", "failed to parse int"),
            ("0 0 15W * *", "failed to parse int"),
            ("0 0 * * 5#2", "failed to parse int"),
            ("0 0 1 * +MON", "failed to parse int"),
            ("JAN * * * *", "failed to parse int"),
            ("0 0 * * Monday", "failed to parse int"),
            ("0 0 * * * *", "expected exactly 5 fields"),
            ("@HOURLY", "unrecognized descriptor"),
            ("@hourly ", "unrecognized descriptor"),
            ("TZ=Mars/Olympus 0 * * * *", "provided bad location"),
            ("TZ=UTC", "nothing after the time zone"),
            ("0 * * * * TZ=UTC", "expected exactly 5 fields"),
        ];
        for (schedule, reason) in refused {
            let err = sole_error(schedule, None);
            assert_eq!(err.event_reason(), "UnparseableSchedule", "{schedule:?}");
            assert!(err.to_string().contains(reason), "{schedule:?}: {err}");
        }
    }

    /// robfig/cron parser_test.go, TestParseSchedule and
    /// TestStandardSpecSchedule: prefixes (with two spaces), descriptors.
    #[test]
    fn prefixes_and_descriptors_as_robfig_tests_them() {
        let from = at("2012-07-09T14:45:00Z");
        let cases = [
            ("5 * * * *", "2012-07-09T15:05:00Z"),
            ("CRON_TZ=UTC  5 * * * *", "2012-07-09T15:05:00Z"),
            ("CRON_TZ=Asia/Tokyo 5 * * * *", "2012-07-09T15:05:00Z"),
            ("@midnight", "2012-07-10T00:00:00Z"),
            ("TZ=UTC  @midnight", "2012-07-10T00:00:00Z"),
            ("TZ=Asia/Tokyo @midnight", "2012-07-09T15:00:00Z"),
            ("@yearly", "2013-01-01T00:00:00Z"),
            ("@annually", "2013-01-01T00:00:00Z"),
            ("@every 5m", "2012-07-09T14:50:00Z"),
        ];
        for (schedule, want) in cases {
            assert_eq!(
                parse(schedule).next_after(from),
                Some(at(want)),
                "{schedule}"
            );
        }
    }

    /// robfig parser.go getRange and spec.go dayMatches: the star bit decides
    /// whether the day fields AND or OR; `?` is `*` in any field; `N/step`
    /// runs to the maximum; whatever follows `*` before a slash is ignored.
    #[test]
    fn day_fields_and_or_as_robfig_reads_them() {
        // 2012-07-09 is a Monday; 2012-07-10 a Tuesday.
        let monday = at("2012-07-09T00:00:00Z");
        let cases = [
            // Both restricted: either matches (Vixie's OR), the next day counts.
            ("0 0 10 * Mon", "2012-07-10T00:00:00Z"),
            ("0 0 1-31 * Mon", "2012-07-10T00:00:00Z"),
            // A `*` weekday: both (so only the 10th).
            ("0 0 10 * *", "2012-07-10T00:00:00Z"),
            ("0 0 11 * *", "2012-07-11T00:00:00Z"),
            ("0 0 11 * ?", "2012-07-11T00:00:00Z"),
            // `*/1` and `*,5` keep the star bit: both must match.
            ("0 0 */1 * Mon", "2012-07-16T00:00:00Z"),
            ("0 0 *,5 * Mon", "2012-07-16T00:00:00Z"),
            ("0 0 11 * */1", "2012-07-11T00:00:00Z"),
            // `*/2` clears it: either (the 11th is odd, so Wednesday 11th).
            ("0 0 */2 * Mon", "2012-07-11T00:00:00Z"),
            // `?` in any field; `N/step`; names in any case; `*-5` is `*`.
            ("? ? * * *", "2012-07-09T00:01:00Z"),
            ("30/15 2 * * *", "2012-07-09T02:30:00Z"),
            ("0 0 * jul-AUG fri", "2012-07-13T00:00:00Z"),
            ("0 *-5 11 * *", "2012-07-11T00:00:00Z"),
            // Go's Atoi takes a sign; empty list items are skipped.
            ("+5 0 11 * *", "2012-07-11T00:05:00Z"),
            (",5, 0 11 * *", "2012-07-11T00:05:00Z"),
            // An empty day field: the other one alone.
            ("0 0 , * Wed", "2012-07-11T00:00:00Z"),
            ("0 0 12 * ,", "2012-07-12T00:00:00Z"),
            // Descriptors: @weekly is Sundays, @monthly the 1st.
            ("@weekly", "2012-07-15T00:00:00Z"),
            ("@monthly", "2012-08-01T00:00:00Z"),
            ("@hourly", "2012-07-09T01:00:00Z"),
            ("*/15 * * * *", "2012-07-09T00:15:00Z"),
        ];
        for (schedule, want) in cases {
            assert_eq!(
                parse(schedule).next_after(monday),
                Some(at(want)),
                "{schedule}"
            );
        }
    }

    /// Schedules robfig parses but that never fire are the controller's
    /// `InvalidSchedule` (utils.go mostRecentScheduleTime, "59 23 31 2 *").
    #[test]
    fn schedules_that_never_fire_are_invalid() {
        let created = at("2024-01-01T00:00:00Z");
        let now = at("2024-06-01T00:00:00Z");
        for schedule in [
            "0 0 31 2 *",
            "59 23 31 2 *",
            "0 0 30 2 ?",
            ", * * * *",
            "0 0 , * ,",
        ] {
            let parsed = parse(schedule);
            assert_eq!(parsed.next_after(created), None, "{schedule}");
            let err =
                most_recent_schedule_time(&parsed, created, None, None, now).expect_err(schedule);
            assert_eq!(err.event_reason(), "InvalidSchedule", "{schedule}");
        }
        // February 29 is no such schedule: it fires within robfig's five years.
        let leap = parse("0 0 29 2 *");
        assert_eq!(leap.next_after(created), Some(at("2024-02-29T00:00:00Z")));
        assert_eq!(leap.next_after(now), Some(at("2028-02-29T00:00:00Z")));
    }

    /// cronjob_controllerv2.go syncCronJob and formatSchedule, validation.go
    /// validateTimeZone: an unknown `spec.timeZone` stops everything; a
    /// schedule with `TZ` keeps its own zone; names as Go's LoadLocation reads
    /// them.
    #[test]
    fn time_zones_as_the_controller_reads_them() {
        let from = at("2024-01-15T12:00:00Z");
        let next = |schedule: &str, zone: Option<&str>| {
            Schedule::parse(schedule, zone)
                .unwrap_or_else(|e| panic!("{schedule} / {zone:?}: {e}"))
                .next_after(from)
        };
        // spec.timeZone: 09:00 in New York is 14:00 UTC in January.
        assert_eq!(
            next("0 9 * * *", Some("America/New_York")),
            Some(at("2024-01-15T14:00:00Z"))
        );
        assert_eq!(
            next("0 9 * * *", Some("UTC")),
            Some(at("2024-01-16T09:00:00Z"))
        );
        // A link name opens as itself.
        assert_eq!(
            next("0 9 * * *", Some("US/Eastern")),
            Some(at("2024-01-15T14:00:00Z"))
        );
        // A schedule with TZ keeps its zone, whatever spec.timeZone says.
        assert_eq!(
            next("TZ=Asia/Tokyo 0 9 * * *", Some("America/New_York")),
            Some(at("2024-01-16T00:00:00Z"))
        );
        // Without either: UTC, the controller's local zone (see the module).
        assert_eq!(next("0 9 * * *", None), Some(at("2024-01-16T09:00:00Z")));
        // `spec.timeZone` adds `TZ=zone ` in front, and robfig then trims
        // what follows, so a trailing space passes there and only there.
        assert_eq!(
            next("@hourly ", Some("UTC")),
            Some(at("2024-01-15T13:00:00Z"))
        );
        // Go's LoadLocation: "" is UTC, "Local" the controller's zone.
        assert_eq!(
            next("TZ= 0 9 * * *", None),
            Some(at("2024-01-16T09:00:00Z"))
        );
        assert_eq!(
            next("0 9 * * *", Some("Local")),
            Some(at("2024-01-16T09:00:00Z"))
        );

        for zone in [
            "Mars/Olympus",
            "america/new_york",
            "utc",
            "Etc/Unknown",
            "../etc/passwd",
        ] {
            let err = sole_error("0 9 * * *", Some(zone));
            assert_eq!(
                err,
                ScheduleError::UnknownTimeZone {
                    zone: zone.to_owned()
                }
            );
            assert_eq!(err.event_reason(), "UnknownTimeZone");
            // Checked before the schedule, even one with its own zone.
            let err = sole_error("TZ=UTC 0 9 * * *", Some(zone));
            assert_eq!(err.event_reason(), "UnknownTimeZone");
        }
        // A bad zone in the schedule is robfig's error, not the controller's.
        let err = sole_error("CRON_TZ=america/new_york 0 9 * * *", None);
        assert_eq!(err.event_reason(), "UnparseableSchedule");
        assert_eq!(
            sole_error("garbage", None).event_reason(),
            "UnparseableSchedule"
        );
    }

    /// `@every` as robfig's ConstantDelaySchedule (at least a second, whole
    /// seconds, from the previous time truncated to the second) and Go's
    /// time.ParseDuration.
    #[test]
    fn every_as_robfig_runs_it() {
        let from = at("2024-01-15T12:00:00.75Z");
        let cases = [
            ("@every 1h30m", Some(5400)),
            ("@every 1.5h", Some(5400)),
            ("@every 90s", Some(90)),
            ("@every 1m30.9s", Some(90)),
            ("@every 500ms", Some(1)),
            ("@every 0", Some(1)),
            ("@every -1h", Some(1)),
            ("@every +2m", Some(120)),
            ("@every 1h0m0s", Some(3600)),
            ("@every 1000000us", Some(1)),
            ("@every 2000000\u{b5}s", Some(2)),
            ("@every .5m", Some(30)),
            ("@every 1", None),
            ("@every 1d", None),
            ("@every 1h 30m", None),
            ("@every  1h", None),
            ("@every .", None),
            ("@every", None),
            ("@every 3000000h", None),
        ];
        for (schedule, seconds) in cases {
            match (Schedule::parse(schedule, None), seconds) {
                (Ok(parsed), Some(seconds)) => assert_eq!(
                    parsed.next_after(from),
                    Some(at("2024-01-15T12:00:00Z") + SignedDuration::from_secs(seconds)),
                    "{schedule}"
                ),
                (Err(e), None) => assert_eq!(e.event_reason(), "UnparseableSchedule"),
                (got, _) => panic!("{schedule}: {got:?}"),
            }
        }
    }

    /// The controller's counting for a CronJob that never ran: created two
    /// days ago with an hourly schedule, 47 missed times (few); five days ago,
    /// 119 (many). A deadline moves the earliest time up and with it the
    /// count.
    #[test]
    fn missed_times_of_a_cronjob_that_never_ran() {
        let hourly = parse("@hourly");
        let now = at("2026-01-12T09:30:00Z");
        let two_days = most_recent_schedule_time(&hourly, now - hours(48), None, None, now);
        assert_eq!(
            two_days,
            Ok(Due {
                earliest: now - hours(48),
                most_recent: Some(at("2026-01-12T09:00:00Z")),
                missed: Missed::Few,
            })
        );
        let five_days = most_recent_schedule_time(&hourly, now - hours(120), None, None, now);
        assert_eq!(
            five_days,
            Ok(Due {
                earliest: now - hours(120),
                most_recent: Some(at("2026-01-12T09:00:00Z")),
                missed: Missed::Many,
            })
        );
        // startingDeadlineSeconds 200: the controller looks back 200 s only.
        let deadline = most_recent_schedule_time(&hourly, now - hours(120), None, Some(200), now);
        assert_eq!(
            deadline,
            Ok(Due {
                earliest: now - seconds(200),
                most_recent: None,
                missed: Missed::None,
            })
        );
        // startingDeadlineSeconds 3600: 08:30 on, so 09:00 is due, alone.
        let hour = most_recent_schedule_time(&hourly, now - hours(120), None, Some(3600), now);
        assert_eq!(
            hour,
            Ok(Due {
                earliest: now - hours(1),
                most_recent: Some(at("2026-01-12T09:00:00Z")),
                missed: Missed::None,
            })
        );
        // A later deadline does not move a later lastScheduleTime back.
        let last = at("2026-01-12T09:00:00Z");
        let kept =
            most_recent_schedule_time(&hourly, now - hours(120), Some(last), Some(7200), now);
        assert_eq!(kept.map(|due| due.earliest), Ok(last));
        // MissSchedule: 09:00 with a 200 s window is too late at 09:30,
        // within an hour's window it is not; no deadline never is.
        assert!(missed_starting_window(last, Some(200), now));
        assert!(!missed_starting_window(last, Some(3600), now));
        assert!(!missed_starting_window(last, None, now));
        // The next time after now, for how long the finding lasts at most.
        assert_eq!(hourly.next_after(now), Some(at("2026-01-12T10:00:00Z")));
    }

    /// Where robfig departs from its own rule (its answers found by running
    /// robfig/cron v3.0.1): America/Havana jumped from 00:00 to 01:00 on
    /// 2012-04-01, robfig's month step lands on 23:00 the day before and stays
    /// an hour off. Every wall clock match counts here (see the module).
    #[test]
    fn where_robfig_skips_a_time_this_does_not() {
        // robfig: 2014-01-01T05:00:00Z.
        assert_eq!(
            parse("TZ=America/Havana @yearly").next_after(at("2012-01-01T05:00:00Z")),
            Some(at("2013-01-01T00:00:00-05:00"))
        );
        // robfig: 2012-05-02T02:15:00-04:00.
        assert_eq!(
            parse("TZ=America/Havana 15,45 2 * 5 *").next_after(at("2011-10-24T00:11:43Z")),
            Some(at("2012-05-01T02:15:00-04:00"))
        );
    }

    /// Daylight saving time in a `spec.timeZone`, over a whole schedule: the
    /// 02:30 of the spring-forward night never comes, the 01:30 of the
    /// fall-back night comes twice (robfig spec_test.go TestNext's rules).
    #[test]
    fn daylight_saving_time_in_a_time_zone() {
        let zone = Some("America/New_York");
        let nightly = Schedule::parse("30 2 * * *", zone).expect("nightly");
        assert_eq!(
            nightly.next_after(at("2024-03-10T01:00:00-05:00")),
            Some(at("2024-03-11T02:30:00-04:00"))
        );
        let early = Schedule::parse("30 1 * * *", zone).expect("early");
        let first = early.next_after(at("2024-11-03T00:00:00-04:00"));
        assert_eq!(first, Some(at("2024-11-03T01:30:00-04:00")));
        let second = early.next_after(first.expect("first"));
        assert_eq!(second, Some(at("2024-11-03T01:30:00-05:00")));
        assert_eq!(
            early.next_after(second.expect("second")),
            Some(at("2024-11-04T01:30:00-05:00"))
        );
        // Due times across the fold: both 01:30s passed by 03:00.
        let due = most_recent_schedule_time(
            &early,
            at("2024-11-02T12:00:00-04:00"),
            Some(at("2024-11-03T01:30:00-04:00")),
            None,
            at("2024-11-03T03:00:00-05:00"),
        );
        assert_eq!(
            due.map(|due| due.most_recent),
            Ok(Some(at("2024-11-03T01:30:00-05:00")))
        );
    }
}
