//! What changed between two reads of a conversation, as a person is told
//! after an outside write: events appended (and the turns they make),
//! compactions appended or taken out, history rewritten, or only the file's
//! form (jp's save filling in its defaults) with every event the same.

use crate::core::model::conversation::Conversation;
use crate::core::model::event::Kind;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Events the new read has past the old one's common start.
    pub added: usize,
    /// Events of the old read missing from the new one, past the common
    /// start: an earlier event was changed or removed.
    pub removed: usize,
    pub turns_added: isize,
    pub compactions_added: usize,
    pub compactions_removed: usize,
    /// The same events, the file written again in another form.
    pub rewritten: bool,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        *self == Changes::default()
    }
}

/// The changes from `old` to `new`, event by event: the same stored text,
/// or (written in another form) the same decoded event.
pub fn between(old: &Conversation, new: &Conversation) -> Changes {
    let held = old.events.last().map_or(0, |e| e.span.end);
    // A reload that found what jp appended holds the old text itself, so
    // the old events are all there as they were: nothing to compare.
    let same = if new.events.len() >= old.events.len() && new.source.extends(&old.source, held) {
        old.events.len()
    } else {
        same_start(old, new)
    };
    let compactions = |c: &Conversation, from: usize| {
        c.events[from..]
            .iter()
            .filter(|e| matches!(e.kind, Kind::Compaction(_)))
            .count()
    };
    let added = new.events.len() - same;
    let removed = old.events.len() - same;
    Changes {
        added,
        removed,
        turns_added: new.turn_count as isize - old.turn_count as isize,
        compactions_added: compactions(new, same),
        compactions_removed: compactions(old, same),
        rewritten: added == 0 && removed == 0 && old.source != new.source,
    }
}

/// How many events from the start both reads hold: the same stored text,
/// or (written in another form) the same decoded event.
fn same_start(old: &Conversation, new: &Conversation) -> usize {
    old.events
        .iter()
        .zip(&new.events)
        .enumerate()
        .take_while(|(k, (a, b))| {
            a.kind.label() == b.kind.label()
                && (same_text(old.raw(*k), new.raw(*k)) || old.plain(*k) == new.plain(*k))
        })
        .count()
}

/// Whether two raw texts are equal; a reload shares the text it had, so
/// most are the same bytes in memory and need no compare.
fn same_text(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl std::fmt::Display for Changes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if self.removed > 0 {
            parts.push(format!(
                "{} changed or removed (history rewritten)",
                plural(self.removed, "earlier event", "earlier events")
            ));
        }
        let other = self.added.saturating_sub(self.compactions_added);
        if other > 0 {
            let turns = if self.turns_added > 0 {
                format!(
                    " ({})",
                    plural(self.turns_added as usize, "new turn", "new turns")
                )
            } else {
                String::new()
            };
            parts.push(format!("{} added{turns}", plural(other, "event", "events")));
        }
        if self.compactions_added > 0 {
            parts.push(format!(
                "{} appended",
                plural(self.compactions_added, "compaction", "compactions")
            ));
        }
        if self.compactions_removed > 0 && self.removed > 0 {
            parts.push(format!(
                "{} gone",
                plural(self.compactions_removed, "compaction", "compactions")
            ));
        }
        if self.rewritten {
            parts.push("the file was saved again in another form, every event the same".into());
        }
        if parts.is_empty() {
            parts.push("nothing changed".into());
        }
        f.write_str(&parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::store::load;

    fn conv(events: &serde_json::Value) -> (tempfile::TempDir, Conversation) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("17000000000-t");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("base_config.json"), "{}\n").unwrap();
        let text = match events {
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        std::fs::write(dir.join("events.json"), text).unwrap();
        let c = load::load(&dir).unwrap();
        (tmp, c)
    }

    fn turn(t: u32) -> Vec<serde_json::Value> {
        vec![
            serde_json::json!({"type": "turn_start", "timestamp": format!("2026-01-01T00:0{t}:00Z")}),
            serde_json::json!({"type": "chat_request", "timestamp": format!("2026-01-01T00:0{t}:01Z"), "content": "hi"}),
        ]
    }

    #[test]
    fn says_what_was_appended_and_what_was_rewritten() {
        let one: Vec<_> = turn(0);
        let two: Vec<_> = turn(0).into_iter().chain(turn(1)).collect();
        let mut compacted = two.clone();
        compacted.push(
            serde_json::json!({"type": "compaction", "timestamp": "2026-01-01T00:09:00Z",
            "from_turn": 0, "to_turn": 0, "source": "manual", "reasoning": {"type": "strip"}}),
        );
        let (_a, a) = conv(&serde_json::json!(one));
        let (_b, b) = conv(&serde_json::json!(two));
        let (_c, c) = conv(&serde_json::json!(compacted));
        let grew = between(&a, &b);
        assert_eq!((grew.added, grew.removed, grew.turns_added), (2, 0, 1));
        assert_eq!(grew.to_string(), "2 events added (1 new turn)");
        assert_eq!(between(&b, &c).to_string(), "1 compaction appended");
        let back = between(&c, &b);
        assert_eq!(back.removed, 1);
        assert!(back.to_string().contains("history rewritten"), "{back}");
        // The same events in another form.
        let pretty = serde_json::to_string_pretty(&serde_json::json!(two)).unwrap();
        let (_e, e) = conv(&serde_json::Value::String(pretty));
        let same = between(&b, &e);
        assert!(same.rewritten, "{same:?}");
        assert_eq!(
            same.to_string(),
            "the file was saved again in another form, every event the same"
        );
        assert_eq!(between(&b, &b).to_string(), "nothing changed");
    }
}
