//! The escape sequences that give a terminal back as the inspector found
//! it: out of the alternate screen, mouse reports off, the cursor shown.
//! Here, below both, because the inspector restores its own screen and
//! the plugin restores jp's terminal after a foreground inspector
//! (neither calls into the other for it).

use crossterm::event::DisableMouseCapture;
use crossterm::execute;
use crossterm::terminal::LeaveAlternateScreen;
use std::io::{self, Write};

/// Writes the sequences to `out`.
pub fn restore_to<W: Write>(out: &mut W) -> io::Result<()> {
    execute!(
        out,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    )
}
