//! What a whole stream has to say that no single event does: compactions
//! that are invalid, tool calls that do not pair up. A read says it once.

use crate::core::error::{Place, Warning};
use crate::core::model::event::{Event, Kind};
// Seeded per process (a crafted stream can't make it slow), and faster
// than std's SipHash on short call ids.
use foldhash::{HashMap, HashMapExt as _, HashSet, HashSetExt as _};
use std::path::Path;

/// Warnings about the stream as a whole: invalid compactions, tool calls
/// that do not pair up.
pub(super) fn check_stream(
    path: &Path,
    place_of: &dyn Fn(usize) -> Place,
    events: &[Event],
    warnings: &mut Vec<Warning>,
) {
    let warn = |warnings: &mut Vec<Warning>, i: usize, message: String| {
        warnings.push(Warning {
            path: path.to_path_buf(),
            place: Some(place_of(events[i].span.start)),
            event: Some(i),
            message,
        })
    };
    // Some providers reuse call ids once a call is answered (`fs_read_0`),
    // so only ambiguous pairings are worth a warning.
    let mut pending: HashMap<&str, usize> = HashMap::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut position = 0;
    for (i, e) in events.iter().enumerate() {
        match &e.kind {
            Kind::Compaction(parsed) => {
                position += 1;
                if let Err(why) = parsed {
                    warn(
                        warnings,
                        i,
                        format!(
                            "compaction #{position} is invalid and left out of the projection: {why}"
                        ),
                    );
                }
            }
            Kind::ToolCallRequest { id, .. } => {
                if let Some(first) = pending.insert(id, i) {
                    warn(
                        warnings,
                        i,
                        format!(
                            "tool call id `{id}` reused while the call of event {first} is unanswered"
                        ),
                    );
                }
                seen.insert(id);
            }
            Kind::ToolCallResponse { id, .. } if pending.remove(&**id).is_none() => {
                let message = if seen.contains(&**id) {
                    format!("tool call `{id}` is answered twice")
                } else {
                    format!("tool response `{id}` has no request before it")
                };
                warn(warnings, i, message);
            }
            _ => {}
        }
    }
}
