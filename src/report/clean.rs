//! Every text of a conversation on its way into a report: characters a
//! page can't show made visible, likely secrets redacted (counted), the
//! user's home shortened to `~`. Escaping for HTML or Markdown comes after,
//! in the writer of each format.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// What a report does to the conversation's texts.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Replace likely secrets by `[redacted: KIND]` (the default).
    pub redact: bool,
    /// The user's home folder, shortened to `~` wherever a text names it.
    pub home: Option<String>,
}

impl Options {
    /// Redacting, with the home of `$HOME` shortened.
    pub fn safe() -> Options {
        Options {
            redact: true,
            home: std::env::var("HOME")
                .ok()
                .filter(|h| h.len() > 1 && h.starts_with('/')),
        }
    }
}

/// The cleaner of one report: it counts what it redacted.
pub struct Cleaner {
    options: Options,
    redacted: RefCell<BTreeMap<&'static str, usize>>,
    shortened: std::cell::Cell<usize>,
}

impl Cleaner {
    pub fn new(options: Options) -> Cleaner {
        Cleaner {
            options,
            redacted: RefCell::default(),
            shortened: std::cell::Cell::default(),
        }
    }

    /// One line of text (a title, a tool's name, a path): line breaks and
    /// controls shown as visible characters.
    pub fn line(&self, text: &str) -> String {
        self.clean(&crate::core::visible::visible_line(text))
    }

    /// A block of text (a summary), its lines kept.
    pub fn block(&self, text: &str) -> String {
        self.clean(&crate::core::visible::visible(&text.replace("\r\n", "\n")))
    }

    fn clean(&self, text: &str) -> String {
        let mut out = text.to_string();
        if self.options.redact {
            let (r, counts) = crate::core::ops::redact(&out);
            if !counts.is_empty() {
                out = r.into_owned();
                let mut all = self.redacted.borrow_mut();
                for (k, n) in counts {
                    *all.entry(k).or_insert(0) += n;
                }
            }
        }
        if let Some(home) = &self.options.home {
            let (short, n) = shorten_home(&out, home);
            out = short;
            self.shortened.set(self.shortened.get() + n);
        }
        out
    }

    pub fn redacting(&self) -> bool {
        self.options.redact
    }

    /// How many places named the home folder and now say `~`.
    pub fn shortened(&self) -> usize {
        self.shortened.get()
    }

    /// How many likely secrets were replaced, by kind.
    pub fn redacted(&self) -> BTreeMap<&'static str, usize> {
        self.redacted.borrow().clone()
    }
}

/// `text` with `home` (`/home/ana`) as `~` where it names that folder or
/// something in it, not where it is the start of another name
/// (`/home/anabel`).
fn shorten_home(text: &str, home: &str) -> (String, usize) {
    let home = home.trim_end_matches('/');
    if home.is_empty() || !text.contains(home) {
        return (text.to_string(), 0);
    }
    let mut n = 0;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(home) {
        let after = &rest[i + home.len()..];
        let ends = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'));
        out.push_str(&rest[..i]);
        out.push_str(if ends { "~" } else { home });
        n += usize::from(ends);
        rest = after;
    }
    out.push_str(rest);
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_is_shortened_only_where_it_is_the_home() {
        assert_eq!(
            shorten_home(
                "/home/ana/src and /home/anabel/x and /home/ana",
                "/home/ana/"
            ),
            ("~/src and /home/anabel/x and ~".to_string(), 2)
        );
    }

    #[test]
    fn secrets_are_counted_across_texts_and_controls_shown() {
        let c = Cleaner::new(Options {
            redact: true,
            home: None,
        });
        assert_eq!(c.line("a\u{1b}[31mb"), "a␛[31mb");
        c.block("key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAA");
        c.line("password: correct-horse");
        assert_eq!(c.redacted().values().sum::<usize>(), 2);
        let kept = Cleaner::new(Options::default());
        assert!(
            kept.line("password: correct-horse")
                .contains("correct-horse")
        );
    }
}
