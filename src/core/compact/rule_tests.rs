//! Unit tests of `rule`.

use super::*;

fn strip(request: bool, response: bool) -> Option<ToolCalls> {
    Some(ToolCalls::Strip {
        request,
        response,
        over: None,
    })
}

#[test]
fn examples_from_the_spec() {
    let r = parse("s:..-3").unwrap();
    assert!(r.summarize && !r.reasoning && r.tools.is_none());
    assert_eq!(
        r.range,
        Some(RangeSpec {
            from: None,
            to: Some(Bound::FromEnd(3))
        })
    );

    let r = parse("r+t:2..").unwrap();
    assert!(r.reasoning);
    assert_eq!(r.tools, strip(true, true));
    assert_eq!(
        r.range,
        Some(RangeSpec {
            from: Some(Bound::Absolute(1)),
            to: None
        })
    );

    let r = parse("t=sreq:2..6").unwrap();
    assert_eq!(r.tools, strip(true, false));
    assert_eq!(
        r.range,
        Some(RangeSpec {
            from: Some(Bound::Absolute(1)),
            to: Some(Bound::Absolute(5))
        })
    );

    let r = parse("reasoning+tools=omit:..").unwrap();
    assert_eq!(r.tools, Some(ToolCalls::Omit { over: None }));
    assert_eq!(
        r.range,
        Some(RangeSpec {
            from: None,
            to: None
        })
    );
}

#[test]
fn single_bounds() {
    assert_eq!(
        parse("r:-3").unwrap().range,
        Some(RangeSpec {
            from: None,
            to: Some(Bound::FromEnd(3))
        })
    );
    assert_eq!(
        parse("r:5").unwrap().range,
        Some(RangeSpec {
            from: Some(Bound::Absolute(4)),
            to: None
        })
    );
    assert_eq!(
        parse("r:-0").unwrap().range,
        Some(RangeSpec {
            from: None,
            to: Some(Bound::FromEnd(0))
        })
    );
}

#[test]
fn no_range_means_configured_keeps() {
    assert_eq!(parse("t=sres").unwrap().range, None);
    assert_eq!(parse("t=sres").unwrap().tools, strip(false, true));
}

#[test]
fn over_extension() {
    assert_eq!(
        parse("t=strip,over=4k:..").unwrap().tools,
        Some(ToolCalls::Strip {
            request: true,
            response: true,
            over: Some(4096)
        })
    );
    assert_eq!(
        parse("t=o,over=100").unwrap().tools,
        Some(ToolCalls::Omit { over: Some(100) })
    );
}

#[test]
fn errors_say_what_was_expected_and_where() {
    // Ranges that are fine however the ends compare.
    for spec in ["s:2..2", "s:-5..-2", "s:5..-2", "s:-2..5"] {
        assert!(parse(spec).is_ok(), "{spec}");
    }
    let cases = [
        ("", 0, "at least one policy"),
        ("x", 0, "unknown policy `x`"),
        ("r=strip", 1, "takes no value"),
        ("t=zap", 2, "unknown tools mode `zap`"),
        ("s:0..3", 2, "start at 1"),
        ("s:..x", 4, "expected a turn number or -N"),
        ("s:", 2, "expected a range"),
        ("s:1..2..3", 6, "unexpected"),
        ("r+", 2, "expected a policy"),
        ("r+r", 2, "given twice"),
        ("t,over=lots", 7, "byte count"),
        ("s:-", 3, "number after `-`"),
        ("r s", 0, "unknown policy `r s`"),
        ("s:5..2", 2, "`5..2` runs backwards; did you mean `2..5`?"),
        (
            "r+t:-2..-5",
            4,
            "`-2..-5` runs backwards; did you mean `-5..-2`?",
        ),
    ];
    for (spec, at, want) in cases {
        let e = parse(spec).unwrap_err();
        assert!(e.message.contains(want), "{spec}: {e}");
        assert_eq!(e.at, at, "{spec}: {e}");
    }
}

#[test]
fn last_is_after_last_compaction() {
    assert_eq!(
        parse("r:last..").unwrap().range,
        Some(RangeSpec {
            from: Some(Bound::AfterLastCompaction),
            to: None
        })
    );
}
