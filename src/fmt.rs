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
    }
}
