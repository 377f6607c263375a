//! Arbitrary text as an inline rule: parsing never panics, errors point
//! inside the text, and a parsed rule resolves against any stream.
#![no_main]

use jp_inspect::core::fuzzing::range;
use jp_inspect::core::fuzzing::rule;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    match rule::parse(spec) {
        Ok(r) => {
            for turns in [0usize, 1, 2, 7, 40] {
                if let Some(rs) = r.range {
                    if let Some(t) = range::resolve(turns, &[], rs.from, rs.to) {
                        assert!(t.from <= t.to && t.to < turns);
                    }
                }
            }
            let _ = r.describe();
        }
        Err(e) => {
            assert!(e.at <= spec.trim().chars().count(), "{e}");
            let _ = e.to_string();
        }
    }
});
