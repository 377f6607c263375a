//! Follow mode: watch the conversation directory and report changes once
//! they settle (jp writes a temp file, then renames it).

use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use std::path::Path;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// Changes closer together than this are one change.
const SETTLE: Duration = Duration::from_millis(120);

pub struct Watcher {
    _inner: RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
    pending: Option<Instant>,
}

impl Watcher {
    pub fn new(dir: &Path) -> notify::Result<Watcher> {
        let (tx, events) = channel();
        let mut inner = notify::recommended_watcher(tx)?;
        inner.watch(dir, RecursiveMode::NonRecursive)?;
        Ok(Watcher {
            _inner: inner,
            events,
            pending: None,
        })
    }

    /// Whether the files changed and have been quiet since.
    pub fn changed(&mut self) -> bool {
        while let Ok(ev) = self.events.try_recv() {
            if let Ok(ev) = ev
                && ev.paths.iter().any(|p| is_conversation_file(p))
                && !matches!(ev.kind, notify::EventKind::Access(_))
            {
                self.pending = Some(Instant::now());
            }
        }
        match self.pending {
            Some(t) if t.elapsed() >= SETTLE => {
                self.pending = None;
                true
            }
            _ => false,
        }
    }
}

fn is_conversation_file(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        n.starts_with("events.json") || n == "base_config.json" || n == "metadata.json"
    })
}
