//! Number formatting shared by the command line and the inspector.

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

/// The metric columns of a simulation run (auto.md's table), as the CLI's
/// table and the inspector's simulation view both print them.
pub const RUN_METRICS_HEADER: &str =
    "  peak  over  reqs     input tok  elid  summ   summ in  summ out          cost";

pub fn run_metrics(r: &crate::core::auto::simulate::Run) -> String {
    format!(
        "{:>5.0}% {:>5} {:>5} {:>13} {:>5} {:>5} {:>9} {:>9} {:>13}",
        r.peak_ratio * 100.0,
        r.overflows,
        r.requests,
        thousands(r.input_tokens),
        r.elisions,
        r.summaries,
        thousands(r.summarizer_input_tokens),
        thousands(r.summarizer_output_tokens),
        thousands(r.cost())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
