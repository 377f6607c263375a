//! Every message the status line showed this session: one cut off at the
//! screen's edge, or gone after a few seconds, can be read in full (`M`).

use crate::core::model::timestamp::Timestamp;
use std::collections::VecDeque;

/// The oldest go first past this many: a session is read back, not kept.
const KEPT: usize = 500;

/// How a message is shown: information fades, an error stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    pub at: Timestamp,
    pub text: String,
    pub level: Level,
}

#[derive(Debug, Clone, Default)]
pub struct Log {
    pub said: VecDeque<Said>,
}

impl Log {
    /// Keeps `text`, once: the same message said again in a row (a search
    /// step, a spinner's note) is not a new line.
    pub fn push(&mut self, at: Timestamp, text: &str, level: Level) {
        if self
            .said
            .back()
            .is_some_and(|s| s.text == text && s.level == level)
        {
            return;
        }
        if self.said.len() == KEPT {
            self.said.pop_front();
        }
        self.said.push_back(Said {
            at,
            text: text.to_string(),
            level,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_said_again_in_a_row_is_kept_once_and_the_oldest_go() {
        let at = chrono::Utc::now();
        let mut log = Log::default();
        log.push(at, "a", Level::Info);
        log.push(at, "a", Level::Info);
        log.push(at, "a", Level::Error);
        assert_eq!(log.said.len(), 2);
        for k in 0..KEPT {
            log.push(at, &k.to_string(), Level::Info);
        }
        assert_eq!(log.said.len(), KEPT);
        assert_eq!(log.said.front().unwrap().text, "0");
    }
}
