//! Event timestamps as `jp` writes and reads them.
//!
//! Written as `YYYY-MM-DD HH:MM:SS.fffffffff` in UTC with the fraction's
//! trailing zeros trimmed (`.0` when zero). Read in that form, without the
//! fraction, or as RFC 3339.

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};

pub type Timestamp = DateTime<Utc>;

/// Parses a timestamp the way `jp` accepts it.
pub fn parse(s: &str) -> Option<Timestamp> {
    let s = s.trim();
    if let Some(t) = parse_jp(s) {
        return Some(t);
    }
    for fmt in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(naive.and_utc());
        }
    }
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// `YYYY-MM-DD HH:MM:SS[.fffffffff]`, read without a format string: every
/// event has one, so this is on the load's hot path.
fn parse_jp(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b' '
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
        })
    };
    let date = chrono::NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    let nanos = match &b[19..] {
        [] => 0,
        [b'.', frac @ ..] if (1..=9).contains(&frac.len()) => {
            let digits = num(20..b.len())?;
            digits * 10u32.pow(9 - frac.len() as u32)
        }
        _ => return None,
    };
    let time =
        chrono::NaiveTime::from_hms_nano_opt(num(11..13)?, num(14..16)?, num(17..19)?, nanos)?;
    Some(NaiveDateTime::new(date, time).and_utc())
}

/// Formats a timestamp exactly as `jp` writes it.
pub fn format(t: &Timestamp) -> String {
    let base = t.format("%Y-%m-%d %H:%M:%S").to_string();
    let nanos = t.timestamp_subsec_nanos() % 1_000_000_000;
    let mut frac = format!("{nanos:09}");
    while frac.len() > 1 && frac.ends_with('0') {
        frac.pop();
    }
    format!("{base}.{frac}")
}

/// A short local-free rendering for people: `2026-03-01 10:40:00`.
pub fn short(t: &Timestamp) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// RFC 3339 with seconds, used in lock diagnostics.
pub fn rfc3339(t: &Timestamp) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_jp_format() {
        for s in [
            "2026-04-10 17:03:38.711874",
            "2026-03-01 10:00:00.0",
            "2026-03-01 10:40:00.5",
            "2026-03-01 10:40:00.123456789",
        ] {
            assert_eq!(format(&parse(s).unwrap()), s);
        }
    }

    #[test]
    fn accepts_missing_fraction_and_rfc3339() {
        let a = parse("2026-03-01 10:00:00").unwrap();
        let b = parse("2026-03-01T12:00:00+02:00").unwrap();
        assert_eq!(a, b);
        assert_eq!(format(&a), "2026-03-01 10:00:00.0");
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse("yesterday").is_none());
        assert!(parse("2026-13-01 10:00:00").is_none());
        assert!(parse("").is_none());
    }
}
