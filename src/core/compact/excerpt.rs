//! One-line previews of events, shared by the listings of the CLI and the
//! inspector.

use crate::core::compact::fate::Alteration;
use crate::core::compact::fate::Projected;
use crate::core::compact::fate::SummaryPart;
use crate::core::compact::projection::{Projection, SUMMARY_REQUEST};
use crate::core::model::config::ModelId;
use crate::core::model::config::delta_of;
use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;
use serde_json::Value;

/// The text of raw event `index` on one line, at most `max` characters.
pub fn raw(conv: &Conversation, index: usize, max: usize) -> String {
    let e = &conv.events[index];
    let text = match &e.kind {
        Kind::TurnStart => String::new(),
        Kind::ChatRequest | Kind::ChatResponse(_) => conv.text(index),
        Kind::ToolCallRequest { name, .. } => format!("{name} {}", conv.text(index)),
        Kind::ToolCallResponse { .. } => conv.text(index),
        Kind::InquiryRequest => {
            let v = conv.plain(index);
            v.pointer("/question/text")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| compact(&v, &["type", "timestamp"]))
        }
        Kind::InquiryResponse => {
            let v = conv.plain(index);
            v.get("answer").map(Value::to_string).unwrap_or_default()
        }
        Kind::ConfigDelta => {
            let v = conv.plain(index);
            config_delta(&delta_of(&v))
        }
        Kind::Compaction(Ok(c)) => {
            format!(
                "turns {}..{} {} ({})",
                c.from_turn + 1,
                c.to_turn.saturating_add(1),
                c.policy_label(),
                c.source.as_str()
            )
        }
        Kind::Compaction(Err(why)) => format!("INVALID: {why}"),
        Kind::Unknown(_) => compact(&conv.plain(index), &["type", "timestamp"]),
    };
    one_line(&text, max)
}

/// The text of projected event `p` on one line.
pub fn projected(conv: &Conversation, proj: &Projection, p: &Projected, max: usize) -> String {
    match *p {
        Projected::Raw { index, change } => match (change, &conv.events[index].kind) {
            (Alteration::EmptyArguments, Kind::ToolCallRequest { name, .. }) => {
                one_line(&format!("{name} {{}}"), max)
            }
            (Alteration::StatusLine, Kind::ToolCallResponse { .. }) => {
                one_line(&proj.status_line(&conv.events, index), max)
            }
            _ => raw(conv, index, max),
        },
        Projected::Summary { overlay, part, .. } => match part {
            SummaryPart::TurnStart => String::new(),
            SummaryPart::Request => one_line(SUMMARY_REQUEST, max),
            SummaryPart::Response => one_line(
                proj.overlays[overlay]
                    .compaction
                    .summary
                    .as_deref()
                    .unwrap_or_default(),
                max,
            ),
        },
    }
}

fn config_delta(delta: &Value) -> String {
    if let Some(id) = delta
        .pointer("/assistant/model/id")
        .and_then(ModelId::from_json)
    {
        return format!("model -> {id}");
    }
    match delta.as_object() {
        Some(obj) if !obj.is_empty() => {
            let keys: Vec<String> = obj
                .iter()
                .map(|(k, v)| match v.as_object() {
                    Some(inner) if inner.len() == 1 => {
                        format!("{k}.{}", inner.keys().next().unwrap_or(&String::new()))
                    }
                    _ => k.clone(),
                })
                .collect();
            format!("changes {}", keys.join(", "))
        }
        _ => "no changes".into(),
    }
}

fn compact(v: &Value, skip: &[&str]) -> String {
    match v.as_object() {
        Some(obj) => {
            let rest: serde_json::Map<String, Value> = obj
                .iter()
                .filter(|(k, _)| !skip.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Value::Object(rest).to_string()
        }
        None => v.to_string(),
    }
}

/// Whitespace folded to single spaces, cut to `max` characters with `…`.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(max.min(text.len()) + 3);
    let mut count = 0;
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = count > 0;
            continue;
        }
        if pending_space {
            if count + 1 >= max {
                out.push('…');
                return out;
            }
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        if count + 1 >= max && count > 0 {
            out.push('…');
            return out;
        }
        // A control character from the conversation is drawn, not obeyed.
        match crate::core::visible::char_stand_in(c) {
            Some(s) => out.push_str(&s),
            None => out.push(c),
        }
        count += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_folds_and_cuts() {
        assert_eq!(one_line("a\n\n b  c", 80), "a b c");
        assert_eq!(one_line("abcdefgh", 5), "abcd…");
        assert_eq!(one_line("ab cd", 5), "ab c…");
        assert_eq!(one_line("  lead", 10), "lead");
        assert_eq!(one_line("abcde", 5), "abcd…");
        assert_eq!(one_line("abcd", 5), "abcd");
        assert_eq!(one_line("a\u{1b}]0;x\u{7}", 80), "a␛]0;x␇");
    }
}
