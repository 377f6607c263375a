//! The core: a pure, UI-free library of what jp-inspect knows about JP
//! conversations. No terminal, no printing; I/O only in `load`, `save`,
//! `lock` and `workspace`.

pub mod auto;
pub mod compact;
pub mod compaction;
pub mod config;
pub mod conversation;
pub mod encoding;
pub mod error;
pub mod estimate;
pub mod event;
pub mod load;
pub mod lock;
pub mod preview;
pub mod projection;
pub mod range;
pub mod reset;
pub mod resolve;
pub mod rule;
pub mod save;
pub mod split;
pub mod summarize;
pub mod timestamp;
pub mod turns;
pub mod window;
pub mod workspace;

pub use compaction::{Compaction, Source, ToolCalls};
pub use conversation::{Conversation, Format};
pub use error::{Error, Result, Warning};
pub use event::{Event, Kind, ResponseKind};
