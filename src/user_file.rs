//! The user's own file, `$XDG_CONFIG_HOME/jp-inspect/config.toml` (or the
//! file `JP_INSPECT_CONFIG` names): the inspector's keys and colours, and
//! the `[[price]]` entries every shell costs requests with.

use crate::core::ops::Prices;
use std::path::PathBuf;

/// The most of the user's file read: a few keys and prices.
const LIMIT: u64 = 1 << 20;

/// The variable naming another file than the default.
pub const ENV: &str = "JP_INSPECT_CONFIG";

/// Where the user's file is: `$JP_INSPECT_CONFIG`, else
/// `$XDG_CONFIG_HOME/jp-inspect/config.toml`, else `~/.config/…`.
pub fn path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("jp-inspect/config.toml"))
}

/// The user's file, if there is one; none at the default place is no
/// error, but a file named by `JP_INSPECT_CONFIG` must exist.
pub fn read() -> anyhow::Result<Option<(PathBuf, String)>> {
    let Some(path) = path() else {
        return Ok(None);
    };
    let named = std::env::var_os(ENV).is_some_and(|v| !v.is_empty());
    match crate::core::ops::read::bounded_text(&path, LIMIT, true) {
        Ok(text) => Ok(Some((path, text))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !named => Ok(None),
        Err(e) => Err(anyhow::anyhow!("{}: {e}", path.display())),
    }
}

/// The prices to cost requests with: the user's entries over the table.
pub fn prices() -> anyhow::Result<Prices> {
    match read()? {
        None => Ok(Prices::default()),
        Some((path, text)) => {
            Prices::with_user_file(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
        }
    }
}

/// [`prices`] read once per process, for the inspector's models (its
/// start has said any mistake in the file already; one is read as none).
pub fn known_prices() -> &'static Prices {
    static P: std::sync::OnceLock<Prices> = std::sync::OnceLock::new();
    P.get_or_init(|| prices().unwrap_or_default())
}
