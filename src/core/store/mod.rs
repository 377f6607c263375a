//! The files on disk: loading both of JP's generations losslessly, saving
//! atomically under jp's lock, JP's base64 rule, workspaces and resolving
//! what a person types to a conversation directory.

pub mod bounded;
pub mod config_file;
pub mod copies;
pub mod edit;
pub mod extends_glob;
pub mod hint_file;
pub mod host;
pub mod jp_config;
pub mod load;
pub mod lock;
mod os_files;
pub mod parse_cache;
pub mod provenance;
pub mod reload;
pub mod resolve;
pub mod safe_fs;
pub mod save;
pub mod split;
mod stream_check;
pub mod workspace;

/// Files at least this big are loaded on every core: checked as UTF-8 in
/// halves, their array split in halves, their events parsed in chunks
/// (each a tenth to a fifth of loading 100 MB on one core). Below it,
/// starting the threads costs more than they save.
pub(crate) const PARALLEL_FROM: usize = 8 << 20;
