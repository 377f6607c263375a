//! What the model still knows of a compaction's range, as JSON: `lost`,
//! and the dry runs of `compact` and `auto`, give it the same way (their
//! lines are `ops::knows::lines`).

use crate::core::ops::{Judged, Survival};
use serde_json::Value;

/// `facts` and `survival` for a compaction's JSON; `null` for a summary
/// not made yet.
pub fn json(judged: Option<&[Judged]>) -> (Value, Value) {
    match judged {
        Some(j) => (
            serde_json::to_value(j).unwrap_or_default(),
            serde_json::to_value(Survival::of(j)).unwrap_or_default(),
        ),
        None => (Value::Null, Value::Null),
    }
}
