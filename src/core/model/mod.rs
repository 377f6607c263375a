//! What a conversation is, as data: its events, its compaction events, its
//! turns and its merged config.

pub mod byte_size;
pub mod compaction;
pub mod config;
pub mod conversation;
pub mod encoding;
pub mod event;
pub mod event_read;
mod excerpt;
pub mod id;
pub mod overhead;
pub mod system_parts;
pub mod text;
pub mod timestamp;
mod turn_range;
pub use turn_range::TurnRange;
pub mod turns;
