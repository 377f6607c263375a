//! The files on disk: loading both of JP's generations losslessly, saving
//! atomically under jp's lock, JP's base64 rule, workspaces and resolving
//! what a person types to a conversation directory.

pub mod extends_glob;
pub mod jp_config;
pub mod load;
pub mod lock;
pub mod parse_cache;
pub mod provenance;
pub mod resolve;
pub mod safe_fs;
pub mod save;
pub mod split;
pub mod workspace;
