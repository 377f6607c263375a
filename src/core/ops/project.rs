//! The projection on its own: what the model receives of a conversation
//! as a version of jp reads it, and its size by the spec's estimate. The
//! shells present it through `show` and `inspect`; a script or a test that
//! checks those against jp's own code asks for it here.

use super::{Projection, View};
use crate::core::compact::{estimate, projection};
use crate::core::model::conversation::Conversation;

/// What `conv` sends as `view`'s version of jp projects it.
pub fn project(conv: &Conversation, view: View) -> Projection {
    projection::of_view(conv, view)
}

/// The characters of the events `p` sends (`p` projected from `conv`), as
/// the estimate counts them.
pub fn chars_sent(conv: &Conversation, p: &Projection) -> u64 {
    estimate::of_projection(&conv.events, p).total_chars()
}

/// The estimate's tokens of `chars` characters (characters / 4).
pub fn tokens(chars: u64) -> u64 {
    estimate::tokens(chars)
}
