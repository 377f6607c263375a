//! The text of the detail view: what an event is and its full content,
//! decoded for reading.

use super::inspection::{Cell, CompactionRow, Inspection};
use super::state::{Focus, State};
use crate::core::model::encoding::{self, StoredAs};
use crate::core::model::event::{Kind, ResponseKind};
use crate::core::model::timestamp;
use crate::core::ops::Alteration;
use crate::core::ops::{Fate, Projected, SummaryPart};
use serde_json::Value;

pub struct DetailText {
    pub title: String,
    pub header: Vec<String>,
    pub body: String,
    /// A syntect language token for the body (`json`, `md`, `rs`, …).
    pub language: Option<String>,
    /// The event as stored (with its encoding), or as sent.
    pub raw: String,
}

fn fate_line(m: &Inspection, fate: Fate, by: Option<usize>) -> String {
    let by = by.map(|i| {
        let o = m.overlay(i);
        format!(
            " by #{} ({}{}: {}, turns {}..{})",
            o.position + 1,
            o.compaction.source.as_str(),
            if o.preview { ", preview" } else { "" },
            o.compaction.policy_label(),
            o.compaction.from_turn + 1,
            o.compaction.to_turn.saturating_add(1)
        )
    });
    format!("fate: {}{}", fate.describe(), by.unwrap_or_default())
}

/// `text` pretty-printed when it is a JSON object or array on its own.
fn pretty_json(text: &str) -> Option<String> {
    let t = text.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    let v: Value = serde_json::from_str(t).ok()?;
    serde_json::to_string_pretty(&v).ok()
}

/// The language of a fenced block at the start of `text` (```rs).
fn fence_language(text: &str) -> Option<String> {
    let first = text.lines().next()?.trim();
    let lang = first.strip_prefix("```")?.trim();
    (!lang.is_empty()).then(|| lang.to_string())
}

/// The detail of one part of what every request carries (`O`, `L`): a
/// prompt part as markdown, a tool as its description and schema.
pub fn of_overhead(
    part: &crate::core::model::overhead::Part,
    tokens: u64,
    context: u64,
) -> DetailText {
    use crate::core::model::overhead::PartKind;
    let header = vec![
        format!(
            "{} · ≈{} tok ({:.1}% of the {} context) · {} chars",
            part.kind.label(),
            crate::core::fmt::thousands(tokens),
            tokens as f64 / context.max(1) as f64 * 100.0,
            crate::core::fmt::thousands(context),
            crate::core::fmt::thousands(part.chars)
        ),
        "sent with every request, before the events; compaction never touches it".into(),
    ];
    DetailText {
        title: format!("{}: {}", part.kind.label(), part.name),
        header,
        body: part.text.clone(),
        language: (part.kind != PartKind::Tool).then(|| "md".to_string()),
        raw: part.text.clone(),
    }
    .visible()
}

/// The detail of raw event `i`.
pub fn raw_event(m: &Inspection, i: usize) -> DetailText {
    let conv = &m.conv;
    let e = &conv.events[i];
    let plain = conv.plain(i);
    let mut header = vec![format!(
        "type: {}   time: {}   turn {}   event {} of {} (index {i} in show --json)",
        e.kind.tag(),
        e.timestamp
            .map(|t| timestamp::format(&t))
            .unwrap_or_else(|| "no timestamp".into()),
        e.turn + 1,
        i + 1,
        conv.events.len()
    )];
    let fate = m.projection.fates.get(i).copied().unwrap_or_default();
    if e.kind.is_conversation_event() {
        header.push(fate_line(m, fate.fate, fate.by));
    }
    if e.kind.is_model_visible() {
        header.push(format!(
            "size: {}, about {}",
            crate::core::fmt::count(e.chars, "character"),
            crate::core::fmt::count(crate::core::ops::Estimate::of_chars(e.chars), "token")
        ));
    }
    let (body, language) = match &e.kind {
        Kind::ChatRequest => (conv.text(i), Some("md".to_string())),
        Kind::ChatResponse(ResponseKind::Message | ResponseKind::Reasoning) => {
            (conv.text(i), Some("md".to_string()))
        }
        Kind::ChatResponse(ResponseKind::Data) => (
            serde_json::to_string_pretty(plain.get("data").unwrap_or(&Value::Null))
                .unwrap_or_default(),
            Some("json".to_string()),
        ),
        Kind::ToolCallRequest { id, name } => {
            header.push(format!("tool: {name}   call id: {id}"));
            (
                serde_json::to_string_pretty(plain.get("arguments").unwrap_or(&Value::Null))
                    .unwrap_or_default(),
                Some("json".to_string()),
            )
        }
        Kind::ToolCallResponse { id, is_error } => {
            let stored: Value = serde_json::from_str(conv.raw(i)).unwrap_or(Value::Null);
            let content = stored.get("content").and_then(Value::as_str).unwrap_or("");
            let (text, how) = encoding::decode_for_display(content);
            header.push(format!(
                "call id: {id}   tool: {}   {}",
                m.projection.tool_name(&conv.events, i),
                if *is_error { "ERROR" } else { "success" }
            ));
            header.push(
                match how {
                    StoredAs::Base64 => "stored as base64 (decoded here)",
                    StoredAs::Plain => "stored as plain text",
                    StoredAs::UrlSafeBase64 => {
                        "stored as URL-safe base64, which jp cannot decode: the model is sent \
                         the encoded text; decoded here for reading"
                    }
                }
                .to_string(),
            );
            // JSON output (an MCP tool's, an API's) reads better laid out.
            match pretty_json(&text) {
                Some(pretty) => (pretty, Some("json".to_string())),
                None => {
                    let language = fence_language(&text);
                    (text.into_owned(), language)
                }
            }
        }
        _ => (
            serde_json::to_string_pretty(&plain).unwrap_or_default(),
            Some("json".to_string()),
        ),
    };
    DetailText {
        title: format!("{} · turn {}", e.kind.label(), e.turn + 1),
        header,
        body,
        language,
        raw: conv.raw(i).to_string(),
    }
}

/// The detail of projected event `p`: what the model is sent.
pub fn projected_event(m: &Inspection, p: &Projected) -> DetailText {
    let sent = serde_json::to_string_pretty(&m.projection.plain(&m.conv, p)).unwrap_or_default();
    match *p {
        Projected::Raw { index, change } => {
            let mut d = raw_event(m, index);
            d.title = format!("{} (projected)", d.title);
            d.raw = format!("{sent}\n\n── stored as ──\n{}", m.conv.raw(index));
            match change {
                Alteration::None => {}
                Alteration::EmptyArguments => {
                    d.body = "{}".into();
                    d.header.push("the model is sent empty arguments".into());
                }
                Alteration::StatusLine => {
                    if let Kind::ToolCallResponse { .. } = &m.conv.events[index].kind {
                        d.body = m.projection.status_line(&m.conv.events, index);
                        d.language = None;
                        d.header.push(
                            "the model is sent this status line instead of the content".into(),
                        );
                    }
                }
            }
            d
        }
        Projected::Summary {
            overlay,
            part,
            turn,
            ..
        } => {
            let o = m.overlay(overlay);
            let c = &o.compaction;
            let header = vec![
                format!(
                    "injected by summary #{} ({}{}) of turns {}..{}",
                    o.position + 1,
                    c.source.as_str(),
                    if o.preview { ", preview" } else { "" },
                    c.from_turn + 1,
                    c.to_turn.saturating_add(1)
                ),
                format!("shown at turn {}", turn + 1),
            ];
            let body = match part {
                SummaryPart::TurnStart => "(turn start)".to_string(),
                SummaryPart::Request => crate::core::ops::SUMMARY_REQUEST.to_string(),
                SummaryPart::Response => c.summary.clone().unwrap_or_default(),
            };
            DetailText {
                title: "summary".into(),
                header,
                body,
                language: Some("md".into()),
                raw: sent,
            }
        }
    }
}

/// The detail of what is selected: a compaction of the list, or the event
/// under the cursor in the focused pane.
pub fn of_selection(state: &State) -> Option<DetailText> {
    selected(state).map(DetailText::visible)
}

impl DetailText {
    /// The text as it leaves the inspector: readable, as stored, and the
    /// file ending of its language.
    pub fn outside(&self) -> crate::tui::panels::Outside {
        let extension = match self.language.as_deref() {
            Some("md") => "md",
            Some("json") => "json",
            Some("rs") => "rs",
            Some("py") => "py",
            Some("toml") => "toml",
            Some("sh" | "bash") => "sh",
            Some("diff") => "diff",
            _ => "txt",
        };
        crate::tui::panels::Outside {
            readable: self.body.clone(),
            stored: self.raw.clone(),
            extension,
        }
    }

    /// The text with the conversation's control characters drawn, not
    /// obeyed (ratatui would drop them silently, hiding what is there).
    fn visible(self) -> DetailText {
        use crate::core::visible::{visible, visible_line};
        DetailText {
            title: visible_line(&self.title).into_owned(),
            header: self
                .header
                .iter()
                .map(|h| visible_line(h).into_owned())
                .collect(),
            body: visible(&self.body).replace('\t', "    "),
            language: self.language,
            raw: visible(&self.raw).into_owned(),
        }
    }
}

fn selected(state: &State) -> Option<DetailText> {
    let m = state.inspection.as_ref()?;
    match state.nav.focus {
        Focus::Compactions => {
            let row = m.compactions.get(state.nav.list_cursor)?;
            Some(compaction(state, m, row))
        }
        focus => {
            let (_, raw_cell, proj_cell) = m.layout.cells(state.nav.cursor);
            match (focus, raw_cell, proj_cell) {
                (Focus::Raw, Cell::Event(i), _) => Some(raw_event(m, i)),
                (Focus::Projected, _, Cell::Event(k)) => {
                    Some(projected_event(m, &m.projection.events[k]))
                }
                _ => None,
            }
        }
    }
}

/// A compaction of the list: what it is, what it costs and keeps, and
/// its event (a summary rendered as the model reads it).
/// Whether the detail of the selection waits for facts not found yet: a
/// compaction of the list whose range was not judged for this inspection.
pub fn wants_facts(state: &State) -> Option<crate::tui::job::Job> {
    let m = state.inspection.as_ref()?;
    if state.nav.focus != Focus::Compactions {
        return None;
    }
    let row = m.compactions.get(state.nav.list_cursor)?;
    let found = state
        .compaction_facts
        .as_ref()
        .is_some_and(|(g, p, _)| *g == state.generation && *p == row.position);
    (!found).then(|| crate::tui::job::Job::RangeFacts {
        conv: m.conv.clone(),
        projection: Box::new(m.projection.clone()),
        position: row.position,
        range: row.range.filter(|_| row.invalid.is_none()),
        want: crate::tui::job::FactsWant::Detail,
    })
}

fn compaction(state: &State, m: &Inspection, row: &CompactionRow) -> DetailText {
    let conv = &m.conv;
    let (text, raw) = match row.event {
        Some(i) => {
            let plain = serde_json::to_string_pretty(&conv.plain(i)).unwrap_or_default();
            (plain, conv.raw(i).to_string())
        }
        None => {
            let preview = state.preview.as_ref();
            let c = preview.and_then(|p| {
                p.plan
                    .additions
                    .get(row.position.saturating_sub(conv.compactions().count()))
                    .map(|a| &a.compaction)
            });
            let text = c
                .map(|c| serde_json::to_string_pretty(&c.to_json()).unwrap_or_default())
                .unwrap_or_default();
            (text.clone(), text)
        }
    };
    let mut header = compaction_header(row);
    // What the model no longer knows of its range, and what it hid: found
    // off the UI thread (`Job::RangeFacts`), said to be coming until then.
    let found = state
        .compaction_facts
        .as_ref()
        .filter(|(g, p, _)| *g == state.generation && *p == row.position)
        .map(|(_, _, d)| d.clone());
    if found.is_none() {
        header.push("judging what the model still knows of its range…".to_string());
    }
    let crate::core::ops::knows::Detail { knows, hid: ledger } = found.unwrap_or_default();
    if let Some(k) = &knows {
        let grave = k.iter().filter(|j| j.is_grave()).count();
        // Verdicts a model gave say whose they are, where they are read.
        let by = k
            .iter()
            .find_map(|j| j.by.as_deref())
            .map(|who| format!(" (judged by {who})"))
            .unwrap_or_default();
        header.push(format!(
            "keeps {}{by}{}",
            crate::core::ops::Survival::of(k).describe(),
            match grave {
                0 => String::new(),
                n => format!(
                    " · ! loses {} (an instruction or an unfixed error)",
                    crate::core::fmt::count(n as u64, "fact")
                ),
            }
        ));
        if k.iter().any(|j| !j.kept) {
            header.push("F goes to the event of each fact it lost".to_string());
        }
    }
    let stored_as = format!(
        "the event (turns stored 0-based: from_turn {} is turn {})",
        row.range.map_or(0, |r| r.from),
        row.range.map_or(1, |r| r.from + 1)
    );
    let summary = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.pointer("/summary/summary")?.as_str().map(str::to_owned));
    let (body, language) = match (summary, ledger) {
        // A summary is Markdown, as the model reads it, rendered as the
        // event view renders a message; the event beside it.
        (Some(summary), ledger) => {
            let mut event: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            if let Some(s) = event.pointer_mut("/summary/summary") {
                *s = Value::from("(the summary above)");
            }
            // The ledger keeps its columns: as it is, not reflowed.
            let hid = ledger
                .map(|l| format!("```text\n{}\n```\n\n", l.join("\n")))
                .unwrap_or_default();
            (
                format!(
                    "{hid}**The summary, as the model is sent it**\n\n{summary}\n\n**{stored_as}**\n\n```json\n{}\n```\n",
                    serde_json::to_string_pretty(&event).unwrap_or_default()
                ),
                Some("md".to_string()),
            )
        }
        (None, Some(l)) => (format!("{}\n\n{stored_as}:\n{text}", l.join("\n")), None),
        (None, None) => (text, None),
    };
    DetailText {
        title: format!("compaction #{}", row.position + 1),
        header,
        body,
        language,
        raw,
    }
}

/// What a compaction is: stored or a preview, and what is wrong with it.
fn compaction_header(row: &CompactionRow) -> Vec<String> {
    let mut header = vec![format!(
        "compaction #{} · {}",
        row.position + 1,
        if row.preview {
            "preview, not written"
        } else {
            "stored"
        }
    )];
    if let Some(why) = &row.invalid {
        header.push(format!("INVALID, left out of the projection: {why}"));
    }
    if let Some((_, text)) = &row.payback {
        header.push(format!("cost: {text}"));
    }
    if let Some(d) = &row.jp_differs {
        header.push(format!("today's jp ignores its over bound: {d}"));
    }
    if let Some(w) = row.warning {
        header.push(format!("warning: {w}"));
    }
    header
}

#[cfg(test)]
mod tests {
    use super::pretty_json;

    #[test]
    fn json_output_is_laid_out_and_other_text_left_alone() {
        assert_eq!(
            pretty_json(" {\"a\":[1,2]} ").unwrap(),
            "{\n  \"a\": [\n    1,\n    2\n  ]\n}"
        );
        assert_eq!(pretty_json("[not json"), None);
        assert_eq!(pretty_json("plain words"), None);
    }
}
