//! What the prompt cache needs of each request, kept the same way by the
//! real context curve and the simulation: how much of the request before it
//! is still sent as it was, and how long the model's answer to it was.

use crate::core::compact::budget::Budget;
use crate::core::compact::estimate;
use crate::core::model::event::Kind;

#[derive(Debug, Default)]
pub(super) struct Sends {
    /// Projected characters at the start a change since the last request
    /// left as they were (the least of them).
    unchanged: Option<u64>,
    /// A change since the last request that shares nothing (a new system
    /// prompt, tools or model: they come first in a request).
    everything: bool,
    answer_chars: u64,
    answering: bool,
}

impl Sends {
    /// A compaction left the first `chars` projected characters as sent.
    pub(super) fn cut(&mut self, chars: u64) {
        self.unchanged = Some(self.unchanged.map_or(chars, |u| u.min(chars)));
    }

    /// Nothing of the request before is sent as it was.
    pub(super) fn cut_everything(&mut self) {
        self.everything = true;
    }

    /// A request is made after one of `previous` context tokens (none for
    /// the first): (the tokens the model answered the one before with, the
    /// tokens at the start of this one sent as in the one before).
    pub(super) fn request(&mut self, previous: Option<u64>, budget: &Budget) -> (u64, u64) {
        let output = estimate::tokens(std::mem::take(&mut self.answer_chars));
        let unchanged = self.unchanged.take();
        let everything = std::mem::take(&mut self.everything);
        let kept = match (previous, unchanged) {
            (None, _) => 0,
            _ if everything => 0,
            (Some(p), None) => p,
            (Some(p), Some(c)) => p.min(budget.context_tokens(c)),
        };
        self.answering = true;
        (output, kept)
    }

    /// Every event, in order: the model's own until the next input are
    /// its answer.
    pub(super) fn see(&mut self, kind: &Kind, chars: u64) {
        match kind {
            Kind::ChatRequest | Kind::ToolCallResponse { .. } => self.answering = false,
            Kind::ChatResponse(_) | Kind::ToolCallRequest { .. } if self.answering => {
                self.answer_chars += chars;
            }
            _ => {}
        }
    }

    /// The last request's answer, once the stream has ended.
    pub(super) fn last_answer(&self) -> u64 {
        estimate::tokens(self.answer_chars)
    }
}
