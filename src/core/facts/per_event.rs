//! What each event says on its own, found on every core.
//!
//! Reading a long conversation's messages and results is most of what
//! finding its facts costs, and each event is read alone: a message's
//! instructions and decisions, a call's files and command, what a result
//! says failed. Only a little needs the stream in order (a result's call,
//! the errors a later success fixes, the question a "yes" answers);
//! [`super::extract::occurrences`] does that part, serially, from what
//! is found here.

use super::call_args::{command_of, files_of, operation, paths_of, pinpointed, written_prose};
use super::calls::{self, ToolClass};
use super::links::{Prose, attachments, looked_up};
use super::scan::figures;
use super::{Fact, FactKind, asks, prose};
use crate::core::model::conversation::Conversation;
use crate::core::model::event::{Kind, ResponseKind};
use serde_json::Value;

/// What one event says without the others.
pub(super) enum Found {
    /// A tool call.
    Call(CallFound),
    /// A tool call's result, read once its call is known.
    Result(ResultFound),
    /// The user's message: its facts, and its whole text when it says yes
    /// (to whatever the message before asked).
    Request {
        said: Said,
        approves: Option<String>,
    },
    /// The assistant's message: its facts; a later "yes" may answer it.
    Message(Said),
    /// Facts that need no other event (an attachment's).
    Said(Said),
    Nothing,
}

/// Facts an event names, and the links it lists in passing: those are
/// facts only where the conversation discusses them.
#[derive(Default)]
pub(super) struct Said {
    pub facts: Vec<Fact>,
    pub listed: Vec<Fact>,
}

pub(super) struct CallFound {
    pub id: String,
    pub tool: String,
    pub class: ToolClass,
    pub target: Option<String>,
    /// Its command fact, by index among `said.facts`.
    pub command: Option<usize>,
    pub said: Said,
}

/// What a result says, given its call.
pub(super) struct ResultFound {
    /// Its call's id, and whether the tool said it failed.
    pub id: String,
    pub is_error: bool,
    /// The telling lines of what failed; none when it succeeded.
    pub failed: Vec<String>,
    /// The places a search pinned down.
    pub pinned: Vec<(String, String)>,
    /// Of a command, how it ended, and the figures that says.
    pub how: Option<String>,
    pub counted: Vec<String>,
}

/// What event `i` of `conv` says on its own; a result is [`Found::Nothing`]
/// here and read by [`result`] once its call is known.
pub(super) fn found(conv: &Conversation, i: usize) -> Found {
    let e = &conv.events[i];
    let turn = e.turn + 1;
    match &e.kind {
        Kind::ToolCallRequest { id, name } => Found::Call(call(conv, i, id, name)),
        Kind::ChatRequest => {
            let text = conv.text(i);
            let mut said = Said::default();
            for s in asks::instructions(&text) {
                said.facts
                    .push(sentence_fact(FactKind::Instruction, &s, turn, i));
            }
            Prose { figures: true }.facts(&text, turn, i, &mut said.facts, &mut said.listed);
            let approves = asks::approves(&text).then(|| text.trim().to_string());
            Found::Request { said, approves }
        }
        Kind::ChatResponse(ResponseKind::Message) => {
            let text = conv.text(i);
            let mut said = Said::default();
            for s in prose::decisions(&text) {
                said.facts
                    .push(sentence_fact(FactKind::Decision, &s, turn, i));
            }
            Prose { figures: true }.facts(&text, turn, i, &mut said.facts, &mut said.listed);
            Found::Message(said)
        }
        Kind::ConfigDelta => {
            // What jp attaches to every query (`file:///…`, `https://…`)
            // is where the model was told to look.
            let facts = attachments(&conv.plain(i))
                .into_iter()
                .map(|url| Fact::new(FactKind::Url, format!("attached: {url}"), url, turn, i))
                .collect();
            Found::Said(Said {
                facts,
                listed: Vec::new(),
            })
        }
        _ => Found::Nothing,
    }
}

fn call(conv: &Conversation, i: usize, id: &str, name: &str) -> CallFound {
    let turn = conv.events[i].turn + 1;
    let plain = conv.plain(i);
    let args = plain.get("arguments").cloned().unwrap_or(Value::Null);
    let class = calls::class(name, &args);
    let target = paths_of(&args).into_iter().next();
    let mut said = Said::default();
    let mut command = None;
    match class {
        ToolClass::File => {
            for (path, lines) in files_of(&args) {
                let op = operation(name);
                let text = match &lines {
                    Some(l) => format!("{path} ({op}, lines {l})"),
                    None => format!("{path} ({op})"),
                };
                said.facts
                    .push(Fact::new(FactKind::File, text, path, turn, i));
            }
            // A document the model writes (an RFD, a README) names the
            // links it rests on, as a message does; its figures are the
            // document's, too many to list.
            if let Some(written) = written_prose(name, &args) {
                let links = Prose { figures: false };
                links.facts(&written, turn, i, &mut said.facts, &mut said.listed);
            }
        }
        ToolClass::Remote => {
            let (text, key) = (calls::as_made(name, &args), looked_up(&args));
            said.facts
                .push(Fact::new(FactKind::Url, text, key, turn, i));
        }
        ToolClass::Acts => {
            let (text, key) = command_of(name, &args);
            command = Some(said.facts.len());
            said.facts.push(Fact {
                failed: Some(false),
                ..Fact::new(FactKind::Command, text, key, turn, i)
            });
        }
    }
    CallFound {
        id: id.to_string(),
        tool: name.to_string(),
        class,
        target,
        command,
        said,
    }
}

/// What result `i` says, its call being of `tool` and `class`.
pub(super) fn result(conv: &Conversation, i: usize, tool: &str, class: ToolClass) -> ResultFound {
    let (id, is_error) = match &conv.events[i].kind {
        Kind::ToolCallResponse { id, is_error } => (id.to_string(), *is_error),
        _ => (String::new(), false),
    };
    let text = calls::decoded(&conv.text(i));
    let failed = calls::failures(&text, class, is_error);
    let pinned = match class == ToolClass::File && operation(tool) == "searched" {
        true => pinpointed(&text),
        false => Vec::new(),
    };
    // Only a command's outcome is told; only a command has one.
    let how = match class {
        ToolClass::Acts => calls::outcome(&text, class),
        _ => None,
    };
    let counted = how
        .as_deref()
        .map(|h| figures(h).into_iter().map(|(n, _)| n).collect())
        .unwrap_or_default();
    ResultFound {
        id,
        is_error,
        failed,
        pinned,
        how,
        counted,
    }
}

pub(super) fn sentence_fact(kind: FactKind, sentence: &str, turn: usize, event: usize) -> Fact {
    let text: String = sentence.chars().take(300).collect();
    Fact::new(kind, text, calls::clip(sentence, 1000), turn, event)
}
