//! A conversation's id as jp names it: the number its folder starts with,
//! written `jp-c<ID>` wherever people read or type it and in its lock
//! file's name.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConversationId(pub u64);

impl ConversationId {
    /// The id of a folder named `<ID>` or `<ID>-<slug>`.
    pub fn of_dir(dir: &Path) -> Option<ConversationId> {
        let name = dir.file_name()?.to_str()?;
        let digits = name.split('-').next()?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok().map(ConversationId)
    }

    /// The name of the lock file jp takes for it: `jp-c<ID>.lock`.
    pub fn lock_name(self) -> String {
        format!("{self}.lock")
    }

    /// The id a lock file's name is for.
    pub fn of_lock_name(name: &str) -> Option<ConversationId> {
        // jp's spelling only: a bare `<ID>.lock` is not one of its locks.
        name.strip_prefix("jp-c")?
            .strip_suffix(".lock")?
            .parse::<u64>()
            .ok()
            .filter(|_| name[4..name.len() - 5].bytes().all(|b| b.is_ascii_digit()))
            .map(ConversationId)
    }
}

impl fmt::Display for ConversationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "jp-c{}", self.0)
    }
}

impl From<ConversationId> for u64 {
    fn from(id: ConversationId) -> u64 {
        id.0
    }
}

/// Not `jp-c<ID>` nor a bare number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a conversation id (jp-c<ID> or <ID>)")]
pub struct NotAnId;

impl FromStr for ConversationId {
    type Err = NotAnId;

    /// `jp-c17758406187` as jp prints it, or the bare number.
    fn from_str(s: &str) -> Result<Self, NotAnId> {
        let digits = s.strip_prefix("jp-c").unwrap_or(s);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NotAnId);
        }
        digits.parse().map(ConversationId).map_err(|_| NotAnId)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_jp_s_spelling() {
        let id: ConversationId = "jp-c17758406187".parse().unwrap();
        assert_eq!(id, ConversationId(17758406187));
        assert_eq!(id.to_string(), "jp-c17758406187");
        assert_eq!("42".parse(), Ok(ConversationId(42)));
        assert_eq!("jp-c".parse::<ConversationId>(), Err(NotAnId));
        assert_eq!("jp-c+1".parse::<ConversationId>(), Err(NotAnId));
        assert_eq!(id.lock_name(), "jp-c17758406187.lock");
        assert_eq!(
            ConversationId::of_lock_name("jp-c7.lock"),
            Some(ConversationId(7))
        );
        assert_eq!(ConversationId::of_lock_name("jp-c7.lck"), None);
        assert_eq!(ConversationId::of_lock_name("7.lock"), None);
        assert_eq!(ConversationId::of_lock_name("jp-c+7.lock"), None);
    }

    #[test]
    fn a_folder_s_id_is_its_leading_number() {
        let of = |p: &str| ConversationId::of_dir(Path::new(p)).map(u64::from);
        assert_eq!(of("/a/17758406187-missing-date"), Some(17758406187));
        assert_eq!(of("/a/17758406187"), Some(17758406187));
        assert_eq!(of("/a/notes"), None);
    }
}
