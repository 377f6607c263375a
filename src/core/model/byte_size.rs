//! Byte sizes as jp writes them for a compaction's `over` threshold: a
//! bare byte count, or digits and a binary unit (`"512B"`, `"16KB"`,
//! `"1MB"`; `KiB`/`k` spell the same). jp reads either and writes the
//! string, in the largest unit that divides the size evenly, so a value
//! read and written again is the text jp would have written.

use serde_json::Value;

const KB: u64 = 1024;
const MB: u64 = KB * 1024;
const GB: u64 = MB * 1024;

/// Largest first: the order `format` picks a unit in.
const UNITS: [(u64, &str); 3] = [(GB, "GB"), (MB, "MB"), (KB, "KB")];

/// Reads `"1KB"`, `"512 kb"`, `"4KiB"`, `"2048"`: leading digits, optional
/// spaces, an optional unit in any case. No fractions or signs: jp refuses
/// them, and so a threshold jp can't read is never written.
pub fn parse(s: &str) -> Result<u64, String> {
    let text = s.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    if digits == 0 {
        return Err(format!(
            "`{s}` is not a size: expected a byte count, optionally with a unit (512B, 16KB, 1MB)"
        ));
    }
    let value: u64 = text[..digits]
        .parse()
        .map_err(|_| format!("`{s}` is too large a size"))?;
    let unit = text[digits..].trim().to_ascii_lowercase();
    let multiplier = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => KB,
        "m" | "mb" | "mib" => MB,
        "g" | "gb" | "gib" => GB,
        other => {
            return Err(format!(
                "`{s}`: unknown size unit `{other}` (expected B, KB, MB or GB, binary: 1KB = 1024)"
            ));
        }
    };
    value
        .checked_mul(multiplier)
        .ok_or_else(|| format!("`{s}` is too large a size"))
}

/// The exact text jp writes for `bytes`: `"1KB"`, `"1536"`, `"3MB"`.
pub fn format(bytes: u64) -> String {
    for (size, unit) in UNITS {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{}{unit}", bytes / size);
        }
    }
    bytes.to_string()
}

/// `format` for a label, where a bare number needs its unit: `16KB`,
/// `1500B`.
pub fn label(bytes: u64) -> String {
    let text = format(bytes);
    if text.ends_with('B') {
        text
    } else {
        text + "B"
    }
}

/// A size as stored: a non-negative integer or a size string. Anything else
/// (`null`, a fraction, a negative number) jp refuses.
pub fn from_json(v: &Value) -> Result<u64, String> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .ok_or_else(|| format!("{n} is not a byte count (a whole number of bytes, 0 or more)")),
        Value::String(s) => parse(s),
        Value::Null => Err("null is not a size".into()),
        Value::Bool(b) => Err(format!("{b} is not a size")),
        _ => Err("a size is a byte count or a string like \"16KB\"".into()),
    }
}

/// A size for reading: `12.4 KiB`, `3 MiB`, `100 B`.
pub fn human(n: u64) -> String {
    let unit = |v: f64, u: &str| {
        let s = format!("{v:.1}");
        format!("{} {u}", s.strip_suffix(".0").unwrap_or(&s))
    };
    if n >= MB {
        unit(n as f64 / MB as f64, "MiB")
    } else if n >= KB {
        unit(n as f64 / KB as f64, "KiB")
    } else {
        format!("{n} B")
    }
}

/// `n` bytes for a column of sizes: one decimal always, so that sizes
/// of one unit line up and read alike ("540.0 KiB" above "814.4 KiB").
pub fn column(n: u64) -> String {
    if n >= MB {
        format!("{:.1} MiB", n as f64 / MB as f64)
    } else if n >= KB {
        format!("{:.1} KiB", n as f64 / KB as f64)
    } else {
        format!("{n} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_column_of_sizes_has_one_style() {
        assert_eq!(column(540 * 1024), "540.0 KiB");
        assert_eq!(column(834_458), "814.9 KiB");
        assert_eq!(column(3 << 20), "3.0 MiB");
        assert_eq!(column(12), "12 B");
    }

    #[test]
    fn units_are_binary_and_any_case() {
        assert_eq!(parse("1KB"), Ok(1024));
        assert_eq!(parse("1kb"), Ok(1024));
        assert_eq!(parse("4KiB"), Ok(4096));
        assert_eq!(parse("16k"), Ok(16 * 1024));
        assert_eq!(parse("1MB"), Ok(1 << 20));
        assert_eq!(parse("1mb"), Ok(1 << 20));
        assert_eq!(parse("2GiB"), Ok(2 << 30));
        assert_eq!(parse("512B"), Ok(512));
        assert_eq!(parse("512 KB"), Ok(512 * 1024));
        assert_eq!(parse(" 2048 "), Ok(2048));
        assert_eq!(parse("0"), Ok(0));
    }

    #[test]
    fn what_jp_refuses_is_refused_with_the_reason() {
        for (bad, says) in [
            ("", "not a size"),
            ("KB", "not a size"),
            ("-1KB", "not a size"),
            ("+1", "not a size"),
            ("1.5MB", "unknown size unit `.5mb`"),
            ("1TB", "unknown size unit `tb`"),
            ("lots", "not a size"),
            ("99999999999999999999", "too large"),
            ("17179869184GB", "too large"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn written_as_jp_writes_it_and_read_back_the_same() {
        for (n, text) in [
            (0, "0"),
            (512, "512"),
            (1024, "1KB"),
            (1536, "1536"),
            (16 * 1024, "16KB"),
            (1 << 20, "1MB"),
            (3 << 30, "3GB"),
            (1025, "1025"),
        ] {
            assert_eq!(format(n), text);
            assert_eq!(parse(&format(n)), Ok(n));
        }
    }

    #[test]
    fn stored_sizes_are_integers_or_strings() {
        assert_eq!(from_json(&json!(2048)), Ok(2048));
        assert_eq!(from_json(&json!("2KB")), Ok(2048));
        assert!(from_json(&json!(-1)).is_err());
        assert!(from_json(&json!(1.5)).is_err());
        assert!(from_json(&json!(null)).is_err());
        assert!(from_json(&json!(true)).is_err());
        assert!(from_json(&json!({"bytes": 1})).is_err());
    }

    #[test]
    fn human_sizes_keep_one_decimal() {
        assert_eq!(human(100), "100 B");
        assert_eq!(human(1024), "1 KiB");
        assert_eq!(human(12_700), "12.4 KiB");
        assert_eq!(human(5 << 20), "5 MiB");
    }
}
