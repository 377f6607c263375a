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
    for fmt in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(naive.and_utc());
        }
    }
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
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
