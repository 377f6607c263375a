//! Numbers in words, as the core's messages and both shells say them.

/// `ratio` as a percent with `decimals` places that agrees with the
/// thresholds `marks` beside it: a context just under a threshold never
/// reads as the threshold (156,332 of 184,000 under 85 % is "84.9", not
/// "85.0"), nor one at or over it as less.
pub fn percent_beside(ratio: f64, marks: &[f64], decimals: usize) -> String {
    let scale = 10f64.powi(decimals as i32);
    let mut shown = (ratio * 100.0 * scale).round() / scale;
    for &m in marks {
        let at = m * 100.0;
        if ratio < m && shown >= at {
            shown = ((ratio * 100.0 * scale).floor() / scale).min(at - 1.0 / scale);
        } else if ratio >= m && shown < at {
            shown = at;
        }
    }
    format!("{shown:.decimals$}")
}

/// `12,345`
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 token`, `12,345 tokens`: a count with its unit, singular for one.
pub fn count(n: u64, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{} {unit}s", thousands(n))
    }
}

/// `12,345` or `-678`: a saving that can be negative.
pub fn signed_thousands(n: i64) -> String {
    let digits = thousands(n.unsigned_abs());
    if n < 0 { format!("-{digits}") } else { digits }
}

/// `-73.2%` change from `before` to `after`.
pub fn change(before: u64, after: u64) -> String {
    if before == 0 {
        return "±0%".into();
    }
    let pct = (after as f64 - before as f64) / before as f64 * 100.0;
    if pct.abs() < 0.05 {
        "±0%".into()
    } else {
        format!("{pct:+.1}%")
    }
}

/// `200k`, `1m`, `128000` -> tokens.
pub fn parse_tokens(s: &str) -> Option<u64> {
    let lower = s.trim().to_ascii_lowercase().replace(['_', ','], "");
    let (num, mult) = if let Some(n) = lower.strip_suffix('k') {
        (n, 1_000.0)
    } else if let Some(n) = lower.strip_suffix('m') {
        (n, 1_000_000.0)
    } else {
        (lower.as_str(), 1.0)
    };
    let v: f64 = num.parse().ok()?;
    let tokens = v * mult;
    (1.0..1e15)
        .contains(&tokens)
        .then_some(tokens.round() as u64)
}

/// `200k`, `1.05m`, `950`.
pub fn human_tokens(n: u64) -> String {
    if n >= 1_000_000 {
        let m = n as f64 / 1_000_000.0;
        if (m - m.round()).abs() < 0.005 {
            format!("{}m", m.round())
        } else {
            format!("{m:.2}m")
        }
    } else if n >= 10_000 {
        format!("{}k", (n as f64 / 1000.0).round())
    } else if n >= 1_000 && n.is_multiple_of(1_000) {
        format!("{}k", n / 1_000)
    } else if n >= 1_000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// Of `candidates`, the one `word` most likely meant: a prefix of it, or
/// within two edits (one for a short word); `None` when none is close.
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let word = word.to_ascii_lowercase();
    if word.len() < 2 {
        return None;
    }
    let allowed = if word.len() <= 4 { 1 } else { 2 };
    candidates
        .iter()
        .map(|c| {
            let d = if c.starts_with(&word) && word.len() >= 3 {
                0
            } else {
                strsim::damerau_levenshtein(&word, c)
            };
            (d, *c)
        })
        .filter(|(d, _)| *d <= allowed)
        .min()
        .map(|(_, c)| c)
}

/// "unknown key", with the key meant when one of `known` is close.
pub fn unknown_key(key: &str, known: &[&str]) -> String {
    match nearest(key, known) {
        Some(k) => format!("unknown key; did you mean `{k}`?"),
        None => format!("unknown key; expected one of {}", known.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_human_token_counts() {
        assert_eq!(parse_tokens("200k"), Some(200_000));
        assert_eq!(parse_tokens("1m"), Some(1_000_000));
        assert_eq!(parse_tokens("1.5M"), Some(1_500_000));
        assert_eq!(parse_tokens("128000"), Some(128_000));
        assert_eq!(parse_tokens("zero"), None);
        assert_eq!(parse_tokens("0"), None);
        assert_eq!(parse_tokens("-5k"), None);
    }

    #[test]
    fn a_percent_never_crosses_the_threshold_beside_it() {
        let r = 156_332.0 / 184_000.0;
        assert_eq!(percent_beside(r, &[0.6, 0.85], 1), "84.9");
        assert_eq!(percent_beside(r, &[0.6, 0.85], 0), "84");
        assert_eq!(percent_beside(0.85, &[0.85], 1), "85.0");
        assert_eq!(percent_beside(0.8501, &[0.85], 0), "85");
        assert_eq!(percent_beside(0.5, &[0.85], 1), "50.0");
    }

    #[test]
    fn formats_numbers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(change(100, 27), "-73.0%");
        assert_eq!(change(0, 5), "±0%");
        assert_eq!(count(1, "token"), "1 token");
        assert_eq!(count(0, "token"), "0 tokens");
        assert_eq!(count(12_345, "token"), "12,345 tokens");
        assert_eq!(signed_thousands(-1234), "-1,234");
    }
}
