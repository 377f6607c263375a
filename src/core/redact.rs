//! Likely secrets in a text a person is about to share: API keys and
//! tokens of the common providers, bearer and basic credentials, JSON web
//! tokens, private key blocks, a URL's password, `--password VALUE` and
//! assignments to a name that ends in a secret's (`DB_PASSWORD=`), each replaced by `[redacted: KIND]`. A pattern rather than
//! a proof: a secret of an unknown shape passes, and the report says how
//! many it replaced so a reader knows it looked.

use regex::{Captures, Regex};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// One shape of secret: its kind as the report names it, and its pattern.
/// A pattern with a group `value` replaces that group only (the name of a
/// setting stays readable); else the whole match.
struct Shape {
    kind: &'static str,
    pattern: Regex,
}

fn shape(kind: &'static str, pattern: &str) -> Shape {
    Shape {
        kind,
        pattern: Regex::new(pattern).expect("a secret's pattern"),
    }
}

/// Most specific first: an Anthropic key also looks like OpenAI's `sk-`.
static SHAPES: LazyLock<Vec<Shape>> = LazyLock::new(|| {
    vec![
        shape(
            "private key",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
        ),
        shape(
            "JSON web token",
            r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        ),
        shape("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
        shape(
            "OpenAI API key",
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        ),
        shape(
            "GitHub token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        ),
        shape("AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
        shape("Google API key", r"\bAIza[0-9A-Za-z_\-]{35}"),
        shape("Slack token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
        shape("Stripe key", r"\b[rs]k_live_[A-Za-z0-9]{20,}"),
        shape("GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
        shape("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}"),
        shape("xAI API key", r"\bxai-[A-Za-z0-9]{30,}"),
        shape("Groq API key", r"\bgsk_[A-Za-z0-9]{30,}"),
        shape(
            "password in a URL",
            r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s/:@]+:(?P<value>[^\s/@]{3,})@",
        ),
        shape(
            "basic credentials",
            r"(?i)\bbasic\s+(?P<value>[A-Za-z0-9+/]{12,}=*)",
        ),
        shape(
            "password",
            r"(?i)--(?:password|passwd|token|api-key|secret)(?:=|\s+)(?P<value>[^\s\-][^\s]{3,})",
        ),
        shape(
            "bearer token",
            r"(?i)\bbearer\s+(?P<value>[A-Za-z0-9._~+/\-]{16,}=*)",
        ),
        shape(
            "password",
            // A name ending in one (`DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`)
            // is one too.
            r#"(?i)\b[A-Za-z0-9_]*(?:password|passwd|pwd|passphrase|secret|api[_-]?key|access[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)\b["']?\s*[=:]\s*["']?(?P<value>[^\s"'`,;&)}\]]{4,})"#,
        ),
    ]
});

/// Values that stand for a secret rather than being one: a variable, a
/// template, a placeholder a document shows.
fn placeholder(value: &str) -> bool {
    value.starts_with(['$', '<', '{', '%', '*', '['])
        || value.chars().all(|c| c == 'x' || c == 'X' || c == '*')
        || matches!(
            value.to_ascii_lowercase().as_str(),
            "none" | "null" | "true" | "false" | "redacted" | "changeme" | "example" | "your_key"
        )
}

/// `text` with its likely secrets replaced, and how many of each kind.
pub fn redact(text: &str) -> (Cow<'_, str>, BTreeMap<&'static str, usize>) {
    let mut counts = BTreeMap::new();
    let mut out = Cow::Borrowed(text);
    for s in SHAPES.iter() {
        if !s.pattern.is_match(&out) {
            continue;
        }
        let mut n = 0;
        let replaced = s.pattern.replace_all(&out, |c: &Captures| {
            let whole = c.get(0).expect("a match");
            match c.name("value") {
                Some(v) if placeholder(v.as_str()) => whole.as_str().to_string(),
                Some(v) => {
                    n += 1;
                    let start = v.start() - whole.start();
                    format!("{}[redacted: {}]", &whole.as_str()[..start], s.kind)
                }
                None => {
                    n += 1;
                    format!("[redacted: {}]", s.kind)
                }
            }
        });
        if n > 0 {
            out = Cow::Owned(replaced.into_owned());
            *counts.entry(s.kind).or_insert(0) += n;
        }
    }
    (out, counts)
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn each_kind_is_replaced_and_counted() {
        let text = "ANTHROPIC_API_KEY=sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAA\n\
                    export OPENAI_API_KEY=sk-proj-BBBBBBBBBBBBBBBBBBBBBBBBBB\n\
                    token ghp_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC and AKIAABCDEFGHIJKLMNOP\n\
                    curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload'\n\
                    db password=hunter2hunter\n\
                    -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\n";
        let (out, counts) = redact(text);
        for secret in [
            "sk-ant-api03",
            "sk-proj-BBB",
            "ghp_CCC",
            "AKIAABCD",
            "eyJhbGci",
            "hunter2",
            "b3BlbnNzaC1rZXk",
        ] {
            assert!(!out.contains(secret), "{secret} left in:\n{out}");
        }
        assert!(
            out.contains("Authorization: Bearer [redacted: bearer token]"),
            "{out}"
        );
        assert!(out.contains("password=[redacted: password]"), "{out}");
        assert_eq!(counts.values().sum::<usize>(), 7, "{counts:?}");
        assert_eq!(counts["Anthropic API key"], 1);
        assert!(!counts.contains_key("OpenAI API key") || counts["OpenAI API key"] == 1);
    }

    /// Each shape the docs promise, as it is met: in an env file, a URL, a
    /// header, a command line.
    #[test]
    fn the_shapes_a_user_expects_are_redacted_and_counted() {
        let cases = [
            ("DB_PASSWORD=hunter2hunter", "hunter2"),
            ("POSTGRES_PASSWORD: s3cr3tpw", "s3cr3t"),
            ("PAYMENTS_API_KEY=pk_abcdef123456", "pk_abcdef"),
            ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENG", "wJalr"),
            ("postgres://admin:pw1234@db.example.com/app", "pw1234"),
            ("Authorization: Basic YWRtaW46aHVudGVyMg==", "YWRtaW46"),
            ("glpat-abcdefghijklmnopqrstu", "glpat-abc"),
            ("hf_abcdefghijklmnopqrstuvwxyzABCDEF", "hf_abc"),
            ("xai-abcdefghijklmnopqrstuvwxyzABCDEF", "xai-abc"),
            ("gsk_abcdefghijklmnopqrstuvwxyzABCDEF", "gsk_abc"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlX2hlcmU",
                "eyJzdWIi",
            ),
            ("mysql --password hunter2hunter -u root", "hunter2"),
            (
                "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGX\n-----END PGP PRIVATE KEY BLOCK-----",
                "lQOYBGX",
            ),
        ];
        for (text, secret) in cases {
            let (out, counts) = redact(text);
            assert!(!out.contains(secret), "{secret} left in: {out}");
            assert_eq!(counts.values().sum::<usize>(), 1, "{text}: {counts:?}");
        }
    }

    #[test]
    fn ordinary_text_and_placeholders_are_left_alone() {
        for text in [
            "max_tokens = 4096 and the token count",
            "password = $DB_PASSWORD",
            "api_key: <your key>",
            "the task-ant-colony skill",
            "see src/secret.rs",
            "https://example.com/a:b@c",
            "mysql --password --user root",
            "DB_PASSWORD=${DB_PASSWORD}",
        ] {
            let (out, counts) = redact(text);
            assert_eq!(out, text);
            assert!(counts.is_empty(), "{text}: {counts:?}");
        }
    }
}
