//! What the model still knows of a compaction's range, in lines: `lost`,
//! and the dry runs of `compact` and `auto`, say it the same way.

use crate::core::ops::{Judged, Survival};
use serde_json::{Value, json};

pub use crate::core::facts::lines;

/// `facts` and `survival` for a compaction's JSON; `null` for a summary
/// not made yet.
pub fn json(judged: Option<&[Judged]>) -> (Value, Value) {
    match judged {
        Some(j) => (json!(j), json!(Survival::of(j))),
        None => (Value::Null, Value::Null),
    }
}
