//! A model as judge (`--judge openai|anthropic|command`): the facts of a
//! range and what the model is still sent of its turns go to the user's
//! own model or command, which answers for each fact whether that text
//! conveys it, with the sentence that does.
//!
//! Asked only when a person asks, never by a dry run on its own, and only
//! of an endpoint the user's own config defines (or Anthropic's defaults):
//! a workspace's config cannot point the judge anywhere, as it cannot a
//! summarizer.

use super::config::{SummarizerConfig, SummarizerKind};
use super::{Backed, SummarizeError, by_name};
use crate::core::compact::fate::Projected;
use crate::core::compact::projection::Projection;
use crate::core::facts::{Judged, Where};
use crate::core::model::TurnRange;
use crate::core::model::conversation::Conversation;
use serde_json::Value;

/// The most of a range's sent text a judge is given, in bytes: past it
/// the text is cut and the judge told so.
const SENT_MAX: usize = 200_000;

/// What a judge is asked to answer: a fact a line, then the text.
const INSTRUCTIONS: &str = "\
You judge whether what an AI pair programmer is still sent of part of a coding session \
conveys each fact of that part. The text after the facts is everything it is still sent \
of those turns (a summary that stands for them, and the messages and tool calls kept). \
For each numbered fact, answer `conveyed` when a reader of the text alone knows it, in \
any words; `partly` when the text tells some of it but not all; `missing` otherwise. \
Answer with JSON only, of this shape: {\"verdicts\": [{\"id\": 1, \"verdict\": \
\"conveyed\", \"quote\": \"the sentence of the text that conveys it\"}]}, one entry per \
fact, the quote empty when the verdict is `missing`.";

/// The user's own model or command, asked to judge.
pub struct ModelJudge {
    config: SummarizerConfig,
}

/// One question to a judge.
#[derive(Debug, Clone)]
pub struct Question {
    pub system: String,
    pub user: String,
}

impl Question {
    /// What it sends, in tokens (D50's estimate: characters / 4).
    pub fn tokens(&self) -> u64 {
        crate::core::model::event::count_chars(&self.system).div_ceil(4)
            + crate::core::model::event::count_chars(&self.user).div_ceil(4)
    }
}

impl ModelJudge {
    /// The judge of `kind`, with the settings the user's own config
    /// (`user`) defines for that summarizer; `digest` is no model.
    pub fn new(kind: SummarizerKind, user: &SummarizerConfig) -> Result<Self, SummarizeError> {
        if kind == SummarizerKind::Digest {
            return Err(SummarizeError {
                summarizer: "digest".into(),
                message: "the digest is no model: judge with openai, anthropic or command".into(),
            });
        }
        // Resolved as `--summarizer` is, so both take the same settings.
        by_name(kind, user)?;
        let config = if user.kind() == kind {
            user.clone()
        } else {
            SummarizerConfig::anthropic_defaults()
        };
        Ok(ModelJudge { config })
    }

    /// Who gives the verdicts, as they are labelled (`openai gpt-4o-mini`).
    pub fn who(&self) -> String {
        match &self.config {
            SummarizerConfig::OpenAi { model, .. } => format!("openai {model}"),
            SummarizerConfig::Anthropic { model, .. } => format!("anthropic {model}"),
            SummarizerConfig::Command { command, .. } => format!("command `{command}`"),
            SummarizerConfig::Digest => "digest".into(),
        }
    }

    /// The model it asks, as the price list names it; `None` for a
    /// command.
    pub fn model(&self) -> Option<String> {
        match &self.config {
            SummarizerConfig::OpenAi { model, .. } => Some(format!("openai/{model}")),
            SummarizerConfig::Anthropic { model, .. } => Some(format!("anthropic/{model}")),
            _ => None,
        }
    }

    /// What one call costs when the user's config says (a command's
    /// `cost_per_call`).
    pub fn per_call(&self) -> Option<f64> {
        match &self.config {
            SummarizerConfig::Command { cost_per_call, .. } => *cost_per_call,
            _ => None,
        }
    }

    /// Asks `q`; the answer as the judge gave it.
    pub fn ask(&self, q: &Question) -> Result<String, SummarizeError> {
        match super::backed(&self.config) {
            Some(Backed::OpenAi(o)) => o.complete(&q.system, &q.user),
            Some(Backed::Anthropic(mut a)) => {
                // A verdict a fact: more room than a summary needs.
                a.max_tokens = a.max_tokens.max(4096);
                a.complete(&q.system, &q.user)
            }
            Some(Backed::Command(c)) => c.complete(&format!("{}\n\n{}", q.system, q.user)),
            None => Ok(String::new()),
        }
    }

    /// Judges `judged` (the facts of `range`, judged offline) again by
    /// asking; each fact the answer gives a verdict for takes it, with
    /// its quote and this judge's name. How many took one.
    pub fn judge(
        &self,
        conv: &Conversation,
        p: &Projection,
        range: TurnRange,
        judged: &mut [Judged],
    ) -> Result<usize, SummarizeError> {
        if judged.is_empty() {
            return Ok(0);
        }
        let answer = self.ask(&question(conv, p, range, judged))?;
        let verdicts = parse(&answer).map_err(|m| SummarizeError {
            summarizer: self.who(),
            message: m,
        })?;
        let who = self.who();
        let mut took = 0;
        for (id, verdict, quote) in verdicts {
            let Some(j) = id.checked_sub(1).and_then(|i| judged.get_mut(i)) else {
                continue;
            };
            j.kept = verdict == "conveyed";
            j.at = match verdict.as_str() {
                "conveyed" => Some(Where::Summary),
                "partly" => Some(Where::Partly),
                _ => None,
            };
            j.quote = (!quote.is_empty()).then_some(quote);
            j.by = Some(who.clone());
            took += 1;
        }
        Ok(took)
    }
}

/// The question about `judged`, the facts of `range` in projection `p`.
pub fn question(
    conv: &Conversation,
    p: &Projection,
    range: TurnRange,
    judged: &[Judged],
) -> Question {
    let mut user = String::from("Facts:\n");
    for (i, j) in judged.iter().enumerate() {
        let text = j.fact.text.replace('\n', " ");
        user.push_str(&format!(
            "{}. [{}] {}\n",
            i + 1,
            j.fact.kind.as_str(),
            crate::core::cut::clip_words(&text, 600)
        ));
    }
    user.push_str("\nWhat is still sent of these turns:\n---\n");
    let sent = sent_text(conv, p, range);
    if sent.len() > SENT_MAX {
        user.push_str(crate::core::cut::head(&sent, SENT_MAX));
        user.push_str("\n(the rest is cut: judge by what is above)\n");
    } else {
        user.push_str(&sent);
    }
    Question {
        system: INSTRUCTIONS.into(),
        user,
    }
}

/// What the model is still sent of the turns of `range`: each kept
/// event as sent, and each summary that stands for a turn of it.
fn sent_text(conv: &Conversation, p: &Projection, range: TurnRange) -> String {
    let mut out = String::new();
    for e in &p.events {
        match *e {
            Projected::Raw { index, .. } => {
                let turn = conv.events[index].turn;
                if turn < range.from || turn > range.to {
                    continue;
                }
                let text = crate::core::search::value_text(&p.plain(conv, e));
                out.push_str(&format!("[{}] {}\n", conv.events[index].kind.label(), text));
            }
            Projected::Summary { .. } => {
                if let Some((_, s)) = crate::core::facts::summary_over(p, e, range) {
                    out.push_str(&format!("[summary] {s}\n"));
                }
            }
        }
    }
    out
}

/// The verdicts of a judge's answer: `(id, verdict, quote)`, the verdict
/// one of `conveyed`, `partly`, `missing`. The JSON may stand in a code
/// fence or after words; an answer without it is an error.
pub fn parse(answer: &str) -> Result<Vec<(usize, String, String)>, String> {
    let (Some(from), Some(to)) = (answer.find('{'), answer.rfind('}')) else {
        return Err("the answer holds no JSON object of verdicts".into());
    };
    let v: Value = serde_json::from_str(&answer[from..=to])
        .map_err(|e| format!("the answer's verdicts are not JSON: {e}"))?;
    let list = v
        .get("verdicts")
        .and_then(Value::as_array)
        .ok_or("the answer has no `verdicts` list")?;
    Ok(list
        .iter()
        .filter_map(|e| {
            let id = e.get("id").and_then(Value::as_u64)? as usize;
            let verdict = e
                .get("verdict")
                .and_then(Value::as_str)?
                .to_ascii_lowercase();
            if !matches!(verdict.as_str(), "conveyed" | "partly" | "missing") {
                return None;
            }
            let quote = e.get("quote").and_then(Value::as_str).unwrap_or_default();
            Some((id, verdict, crate::core::cut::clip_words(quote, 400)))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_read_from_a_fenced_answer_and_odd_ones_dropped() {
        let answer = "Here you are:\n```json\n{\"verdicts\": [\
            {\"id\": 1, \"verdict\": \"Conveyed\", \"quote\": \"All 49 tests pass.\"},\
            {\"id\": 2, \"verdict\": \"partly\"},\
            {\"id\": 3, \"verdict\": \"maybe\"}]}\n```";
        let v = parse(answer).unwrap();
        assert_eq!(
            v,
            vec![
                (1, "conveyed".into(), "All 49 tests pass.".into()),
                (2, "partly".into(), String::new()),
            ]
        );
        assert!(parse("I think they are all kept.").is_err());
        assert!(parse("{\"answer\": 1}").is_err());
    }

    #[test]
    fn the_digest_is_no_judge() {
        assert!(ModelJudge::new(SummarizerKind::Digest, &SummarizerConfig::Digest).is_err());
        assert!(ModelJudge::new(SummarizerKind::OpenAi, &SummarizerConfig::Digest).is_err());
        let j = ModelJudge::new(SummarizerKind::Anthropic, &SummarizerConfig::Digest).unwrap();
        assert!(j.who().starts_with("anthropic "));
    }
}
