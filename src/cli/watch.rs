//! `watch`: automatic compaction running by itself beside jp. jp holds a
//! conversation's lock for a whole `jp query`, so jp releasing it after new
//! events is a turn boundary: the policy is evaluated there, once per new
//! turn, with the conversation's effective configuration, and what it fires
//! is appended (planned unlocked, written under the lock only if the file
//! still holds what the plan saw). Conversations are followed by id, so jp
//! renaming a folder loses nothing; new ones are picked up. File
//! notifications only: idle, it does nothing.

use super::Context;
use super::args::WatchArgs;
use super::watch_scope;
use crate::core::error::Error;
use crate::core::fmt::thousands;
use crate::core::model::conversation::Conversation;
use crate::core::model::id::ConversationId;
use crate::core::ops;
use crate::core::ops::AutoConfig;
use crate::core::ops::Reloaded;
use crate::core::ops::boundary::{self, Attempt, Look, Tracker};
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Changes closer together than this are one: jp writes a temp file, renames
/// it, then deletes its lock file.
const SETTLE: Duration = Duration::from_millis(40);

enum Msg {
    Fs(notify::Event),
    Stop,
}

struct Watch<'a> {
    args: &'a WatchArgs,
    /// What jp handed over, under `jp inspect`.
    jp: Option<&'a crate::core::model::config::JpResolved>,
    /// `conversations` folders searched for a conversation by id.
    conversations: Vec<PathBuf>,
    /// Watching every conversation (new ones too), or these ids.
    all: bool,
    tracked: Tracker,
    withheld: boundary::Withheld,
    /// Evaluations that failed, for `--once`'s exit code.
    failures: usize,
    /// Each conversation as last read, so that the next read after jp's
    /// release parses only what jp appended. Only those jp wrote to since
    /// watch started are held.
    held: HashMap<u64, Conversation>,
}

pub fn run(ctx: &Context, args: WatchArgs) -> anyhow::Result<()> {
    // A broken --config would fail every evaluation; say so once, now.
    if let Some(file) = &args.policy.configured.config {
        AutoConfig::default().apply_file(file)?;
    }
    let ws = ctx.workspace()?;
    if !args.dry_run {
        if args.convs.is_empty() {
            ctx.check_reach(None)?;
        }
        for c in &args.convs {
            ctx.check_reach(Some(c))?;
        }
    }
    let named = ctx.named(&args.convs);
    let (conversations, tracked, unreadable) = followed(ctx, ws.as_ref(), &named)?;
    let mut w = Watch {
        args: &args,
        jp: ctx.jp.as_ref(),
        all: named.is_empty(),
        conversations,
        tracked,
        withheld: boundary::Withheld::default(),
        failures: 0,
        held: HashMap::new(),
    };
    for (id, err) in unreadable {
        w.fail(id, &format!("cannot read it: {err}"));
    }
    if args.once {
        let dirs = boundary::where_now(&w.conversations);
        for id in w.tracked.ids() {
            if let Some(dir) = dirs.get(&id) {
                w.evaluate(id, dir, true);
            }
        }
        if w.failures > 0 {
            anyhow::bail!("{} evaluation(s) failed; see above", w.failures);
        }
        return Ok(());
    }
    let (tx, rx) = channel::<Msg>();
    let fs_tx = tx.clone();
    let watcher = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
        if let Ok(ev) = ev {
            let _ = fs_tx.send(Msg::Fs(ev));
        }
    })?;
    let scope = {
        let (all, tracked) = (w.all, &w.tracked);
        watch_scope::Scope::new(watcher, &w.conversations, |id| all || tracked.follows(id))?
    };
    let mut signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ])?;
    let handle = signals.handle();
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let _ = tx.send(Msg::Stop);
        }
    });
    w.say(
        WatchEvent::Watching {
            conversations: w.tracked.len(),
            folders: scope.len(),
        },
        || {
            format!(
                "watching {} conversation(s){} ({} folders, none through a link); Ctrl-C stops",
                w.tracked.len(),
                if w.all { " and any new one" } else { "" },
                scope.len()
            )
        },
    );
    let result = w.serve(&rx, scope);
    handle.close();
    result
}

/// A conversation that could not be read at the start, and why.
type Unreadable = (u64, Error);

/// What `watch` follows: the `conversations` folders it searches by id
/// (the workspace's, and each named one's), the conversations named (or
/// every one of the workspace) with their turns now, and those that could
/// not be read.
fn followed(
    ctx: &Context,
    ws: Option<&crate::core::ops::Workspace>,
    named: &[Option<&str>],
) -> anyhow::Result<(Vec<PathBuf>, Tracker, Vec<Unreadable>)> {
    let mut tracked = Tracker::default();
    let mut conversations: Vec<PathBuf> = ws
        .map(|w| w.conversation_dirs().into_iter().map(|(d, _)| d).collect())
        .unwrap_or_default();
    for c in named {
        let dir = ctx.resolve(*c)?;
        let id = ConversationId::of_dir(&dir).map(u64::from).ok_or_else(|| {
            Error::invalid(
                &dir,
                "not named like a jp conversation, so it can't be followed",
            )
        })?;
        if let Some(parent) = dir.parent().map(Path::to_path_buf)
            && !conversations.contains(&parent)
        {
            conversations.push(parent);
        }
        let conv = crate::core::ops::read::whole(&dir)?;
        tracked.follow(id, conv.turn_count);
    }
    // A conversation that can't be read is said, not passed over.
    let mut unreadable = Vec::new();
    if named.is_empty() {
        let ws = ws.ok_or(Error::NoWorkspace { given: None })?;
        for e in ws.entries() {
            let Some(id) = e.id else { continue };
            match crate::core::ops::read::whole(&e.dir) {
                Ok(conv) => tracked.follow(id, conv.turn_count),
                Err(err) => unreadable.push((id, err)),
            }
        }
    }
    Ok((conversations, tracked, unreadable))
}

impl Watch<'_> {
    /// Waits for changes, then evaluates the conversations they touched.
    fn serve(&mut self, rx: &Receiver<Msg>, mut scope: watch_scope::Scope) -> anyhow::Result<()> {
        loop {
            let mut touched = BTreeSet::new();
            match rx.recv() {
                Ok(Msg::Fs(ev)) => {
                    scope.grow(&ev, |id| self.all || self.tracked.follows(id));
                    touched.extend(ids_of(&ev));
                }
                Ok(Msg::Stop) | Err(_) => return Ok(()),
            }
            if touched.is_empty() {
                continue;
            }
            // Let jp's write settle: its rename and its lock's removal come
            // as a burst. Reads (jp's, the inspector's) don't count.
            let mut quiet_at = Instant::now() + SETTLE;
            loop {
                let wait = quiet_at.saturating_duration_since(Instant::now());
                match rx.recv_timeout(wait) {
                    Ok(Msg::Fs(ev)) => {
                        scope.grow(&ev, |id| self.all || self.tracked.follows(id));
                        let ids = ids_of(&ev);
                        if !ids.is_empty() {
                            touched.extend(ids);
                            quiet_at = Instant::now() + SETTLE;
                        }
                    }
                    Ok(Msg::Stop) => return Ok(()),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => return Ok(()),
                }
            }
            // Listed once for the whole burst, not once per conversation.
            let dirs = boundary::where_now(&self.conversations);
            for id in touched {
                if (self.all || self.tracked.follows(id))
                    && let Some(dir) = dirs.get(&id)
                {
                    self.evaluate(id, dir, false);
                }
            }
        }
    }

    /// Evaluates conversation `id` if a turn completed since the last time
    /// (or always, for `--once`).
    fn evaluate(&mut self, id: u64, dir: &Path, always: bool) {
        // jp mid-query: its release is the boundary; don't read the file
        // at every event of the query.
        if boundary::jp_mid_query(dir) {
            return;
        }
        let conv = match self.read(id, dir) {
            Ok(c) => c,
            Err(e) => return self.fail(id, &format!("cannot read it: {e}")),
        };
        if self.tracked.look(id, dir, &conv, always) != Look::Boundary {
            // No new turn, or jp is mid-query: its release is the boundary.
            self.held.insert(id, conv);
            return;
        }
        let dry = self.args.dry_run;
        let at = boundary::AtBoundary {
            window_override: self.args.policy.window.window,
            now: chrono::Utc::now(),
            force: self.args.enable || dry,
            dry_run: dry,
            summarizer: self.args.policy.configured.summarizer,
            summarize: self.args.summarize,
        };
        let attempt = boundary::step(dir, conv, |conv| self.config(conv), &at);
        match attempt {
            Attempt::Fired(conv, plan) => {
                self.fired(&conv, &plan, "fired");
                self.withheld(id, &conv, &plan);
                self.held.insert(id, *conv);
            }
            Attempt::WouldFire(conv, plan) => {
                self.fired(&conv, &plan, "would_fire");
                self.withheld(id, &conv, &plan);
                self.held.insert(id, *conv);
            }
            Attempt::Skipped(conv, why) => {
                // Held whatever was decided: the next turn reads only what
                // jp appends.
                self.held.insert(id, *conv);
                self.skip(id, &why)
            }
            Attempt::Unreadable(e) => self.fail(id, &format!("cannot read it: {e}")),
            Attempt::Failed(e) => self.fail(id, &format!("nothing written: {e:#}")),
            Attempt::KeptChanging => self.skip(
                id,
                "the conversation kept changing; trying again at the next turn",
            ),
        }
    }

    /// Conversation `id` as it is now: only what jp appended parsed, when
    /// it was read before; said with `--verbose`.
    fn read(&mut self, id: u64, dir: &Path) -> crate::core::error::Result<Conversation> {
        let held = self.held.remove(&id);
        let read = ops::read::read(ops::read::ReadRequest {
            dir,
            since: held.as_ref(),
            changes: false,
            config: None,
            jp: self.jp,
        })?;
        let conv = read.conversation;
        let how = read
            .how
            .unwrap_or(Reloaded::Whole("first read since watch started"));
        if self.args.verbose {
            self.say(
                WatchEvent::Read {
                    conversation: conv.display_id(),
                    events: conv.events.len(),
                    appended: match how {
                        Reloaded::Appended(n) => Some(n),
                        Reloaded::Whole(_) => None,
                    },
                    how: how.to_string(),
                },
                || format!("{}  read: {how}", conv.display_id()),
            );
        }
        Ok(conv)
    }

    /// `conv`'s configuration, its notices said; in a dry run, that one
    /// the configuration leaves disabled is evaluated all the same, and
    /// said to be.
    fn config(&self, conv: &Conversation) -> crate::core::error::Result<AutoConfig> {
        let config = self.args.policy.config(conv, self.jp)?;
        for n in &config.notices {
            super::output::say_err(&format!("note: {n}"));
        }
        if self.args.dry_run && !self.args.enable && !config.enabled {
            self.say(
                WatchEvent::Note {
                    conversation: conv.display_id(),
                    note: "not enabled in the configuration: evaluated as a dry run; a watch \
                           that writes needs --enable or enabled = true",
                },
                || format!(
                    "{}  not enabled in the configuration: evaluated as a dry run (a watch that writes needs --enable or enabled = true)",
                    conv.display_id()
                ),
            );
        }
        Ok(config)
    }

    /// A firing (`event` "fired"), or with `--dry-run` what would be
    /// written ("would_fire", said as "would fire").
    fn fired(&self, conv: &Conversation, plan: &ops::Plan, event: &str) {
        let (before, after) = (plan.tokens.before, plan.tokens.after);
        for a in &plan.additions {
            let kind = match a.why {
                ops::Why::Auto(k) => k.as_str(),
                ops::Why::Rule { .. } => "rule",
            };
            self.say(
                WatchEvent::fired(
                    event,
                    Firing {
                        conversation: conv.display_id(),
                        kind,
                        from_turn: a.compaction.from_turn,
                        to_turn: a.compaction.to_turn,
                        tokens_before: before,
                        tokens_after: after,
                    },
                ),
                || {
                    format!(
                        "{}  {}{kind:<8} turns {:<9} {} -> {} tok",
                        conv.display_id(),
                        if event == "fired" { "" } else { "would fire " },
                        a.range().human(),
                        thousands(before),
                        thousands(after)
                    )
                },
            );
        }
    }

    /// A failure is always said (on stderr, or as an `error` line with
    /// `--json`), never only with `-v`: a watcher that fails silently
    /// looks like one with nothing to do.
    fn fail(&mut self, id: u64, why: &str) {
        self.failures += 1;
        if self.args.json {
            self.say(
                WatchEvent::Error {
                    conversation: ConversationId(id).to_string(),
                    reason: why,
                },
                String::new,
            );
        } else {
            super::output::say_err(&format!("jp-inspect: {}: {why}", ConversationId(id)));
        }
    }

    /// The summary the staged policy did not buy, once per episode.
    fn withheld(&mut self, id: u64, conv: &Conversation, plan: &ops::Plan) {
        if let Some(why) = self.withheld.say(id, plan) {
            self.say(
                WatchEvent::SummaryWithheld {
                    conversation: conv.display_id(),
                    reason: &why,
                },
                || format!("{}  {why}", conv.display_id()),
            );
        }
    }

    fn skip(&self, id: u64, why: &str) {
        if self.args.verbose {
            self.say(
                WatchEvent::Skipped {
                    conversation: ConversationId(id).to_string(),
                    reason: why,
                },
                || format!("{}  skipped: {why}", ConversationId(id)),
            );
        }
    }

    /// One line: JSON with `--json`, else the time and `text`.
    fn say(&self, event: WatchEvent<'_>, text: impl FnOnce() -> String) {
        let now = chrono::Utc::now();
        let line = if self.args.json {
            let mut v = serde_json::to_value(event).unwrap_or_default();
            v["time"] = crate::core::model::timestamp::format(&now).into();
            v.to_string()
        } else {
            let text = text();
            format!(
                "{}  {}",
                now.format("%H:%M:%S"),
                crate::core::visible::visible(&text)
            )
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

/// The conversation ids a file event is about: a conversation folder's
/// files, or a lock file `jp-c<ID>.lock`.
fn ids_of(ev: &notify::Event) -> Vec<u64> {
    if matches!(ev.kind, notify::EventKind::Access(_)) {
        return Vec::new();
    }
    boundary::ids_of_paths(ev.paths.iter().map(PathBuf::as_path))
}

/// One line of `watch --json`, named by its `event`; each line also says
/// its `time`.
#[derive(serde::Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum WatchEvent<'a> {
    Watching {
        conversations: usize,
        folders: usize,
    },
    Read {
        conversation: String,
        events: usize,
        appended: Option<usize>,
        how: String,
    },
    Note {
        conversation: String,
        note: &'a str,
    },
    Fired(Firing<'a>),
    WouldFire(Firing<'a>),
    Error {
        conversation: String,
        reason: &'a str,
    },
    SummaryWithheld {
        conversation: String,
        reason: &'a str,
    },
    Skipped {
        conversation: String,
        reason: &'a str,
    },
}

impl<'a> WatchEvent<'a> {
    /// A compaction written (`fired`), or what a dry run would write
    /// (`would_fire`).
    fn fired(event: &str, firing: Firing<'a>) -> WatchEvent<'a> {
        if event == "would_fire" {
            WatchEvent::WouldFire(firing)
        } else {
            WatchEvent::Fired(firing)
        }
    }
}

/// A compaction automatic compaction appended, or would.
#[derive(serde::Serialize)]
struct Firing<'a> {
    conversation: String,
    kind: &'a str,
    from_turn: usize,
    to_turn: usize,
    tokens_before: u64,
    tokens_after: u64,
}
