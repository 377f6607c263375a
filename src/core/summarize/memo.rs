//! One summary per range for a whole simulation: the grid replays the same
//! conversation under every policy and window, and many of those runs
//! summarise the very same turns. A summary is a function of the raw
//! range and the instructions (summarizers never read a projection), so
//! the first run's summary serves the rest, and a paid summarizer is
//! asked once.

use super::{Request, SummarizeError, Summarizer, Summary};
use std::collections::HashMap;
use std::sync::Mutex;

type Key = (usize, usize, usize, String);

pub struct Memo<'a> {
    inner: &'a dyn Summarizer,
    seen: Mutex<HashMap<Key, Summary>>,
}

impl<'a> Memo<'a> {
    pub fn new(inner: &'a dyn Summarizer) -> Memo<'a> {
        Memo {
            inner,
            seen: Mutex::new(HashMap::new()),
        }
    }
}

impl Summarizer for Memo<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn summarize(&self, request: &Request<'_>) -> Result<Summary, SummarizeError> {
        // The conversation by address: the grid's conversations outlive it.
        let key = (
            std::ptr::from_ref(request.conversation) as usize,
            request.range.from,
            request.range.to,
            request.instructions.to_string(),
        );
        if let Some(s) = self
            .seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok(s.clone());
        }
        // Not under the lock: another thread may summarise the same range
        // meanwhile, and the two agree.
        let s = self.inner.summarize(request)?;
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, s.clone());
        Ok(s)
    }

    fn destination(&self) -> Option<String> {
        self.inner.destination()
    }

    fn withheld(&self) -> Option<String> {
        self.inner.withheld()
    }
}
