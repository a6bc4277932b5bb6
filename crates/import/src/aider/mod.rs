//! Aider's `.aider.chat.history.md` → our log: what a Markdown transcript can give back.
//!
//! [`crate::aider_transcript`] reads the file into its records. Each run of Aider starts a new conversation
//! (its model sees nothing of the runs before), so every run after one that held a prompt
//! starts with a rewind to the beginning: the view is the last run's. In a run:
//! - what the user typed is a prompt, but for a command (`/add`, `!ls`: Aider's, never sent —
//!   `/ask`, `/code`, `/architect` with text are followed by that text, typed again) and for
//!   Aider's echo of an answer to a group of questions (`…: all`, `…: skip`);
//! - a reply is the model's text, with its streamed reasoning;
//! - Aider's own lines name the model (`Model:`, `Main model:`; a model switch) and each reply's
//!   usage (`Tokens: N sent, …, M received.`, rounded as Aider writes them: `3.2k`, `12k`);
//!   the rest is its output to its user (counted).
//!
//! What the file cannot give back, and the report says so: Aider's system prompt, the files and
//! repository map it sends, the messages it sends on its own (a reply that follows no prompt
//! answered one: counted as `reply:without_prompt`), and tool calls, which Aider does not make
//! (its edits are text in the replies).

use contextview::update::acp::{ContentBlock, ProviderMeta};
use contextview::update::record::{Event, Header, ModelSwitch, Rewind, UsageAnchor};

use contextview::update::acp::Stream;
use crate::emit::LogBuilder;
use crate::report::Imported;
use crate::aider_transcript::{self as transcript, is_answer_echo, Record};

/// The main model an announcement line names (`Model: x with diff edit format`, `Main model: …`,
/// older `Models: x with …, weak model y`, `Model: x using diff edit format`).
fn announced_model(line: &str) -> Option<&str> {
    let rest = ["Main model: ", "Model: ", "Models: "].iter().find_map(|p| line.strip_prefix(p))?;
    let name = rest.split([' ', ',']).next()?;
    (!name.is_empty()).then_some(name)
}

/// A token count as Aider writes it: `812`, `1,234`, `3.2k`, `12k`.
fn count(text: &str) -> Option<u64> {
    let t = text.replace(',', "");
    match t.strip_suffix('k') {
        Some(k) => k.parse::<f64>().ok().map(|v| (v * 1000.0).round() as u64),
        None => t.parse().ok(),
    }
}

/// `Tokens: <sent> sent[, <w> cache write][, <h> cache hit], <received> received.…`: the
/// prompt's size and the reply's.
fn usage(line: &str) -> Option<(u64, u64)> {
    let rest = line.strip_prefix("Tokens: ")?;
    let sent = count(rest.split(" sent").next()?)?;
    let before_received = rest.split(" received").next()?;
    let received = count(before_received.rsplit(", ").next()?)?;
    Some((sent, received))
}

pub fn import(text: &str) -> Imported {
    let records = transcript::read(text);
    let mut out = LogBuilder::new();
    // Text with no run in it is no history (what it holds would be read as one reply).
    if !records.iter().any(|r| matches!(r, Record::Started { .. })) {
        out.diagnostic(contextview::diagnostic::Diagnostic::new(&crate::codes::IMPORT_BAD_ENTRY, "no Aider chat history: no `# aider chat started at` line"));
        let mut imported = out.finish(Header::new(""));
        imported.report.lines = text.lines().filter(|l| !l.trim().is_empty()).count();
        return imported;
    }
    let mut header = Header::new("");
    let mut model: Option<String> = None;
    let mut prompts = 0usize;
    let mut prompted = false;
    let mut runs = 0;
    for record in &records {
        match record {
            Record::Started { at, .. } => {
                runs += 1;
                if runs == 1 {
                    header.session_id = format!("aider-{at}");
                    header.created_at = Some(at.clone());
                }
                if prompts > 0 {
                    out.event(Event::Rewind(Rewind { prompt_index: 0 }));
                    prompts = 0;
                }
                out.at(Some(at));
                model = None;
                prompted = false;
            }
            Record::Typed { line, text } => {
                let first = text.trim_start();
                if first.starts_with('/') || first.starts_with('!') {
                    out.unmapped("typed:command");
                } else if is_answer_echo(first) {
                    out.unmapped("typed:answer_echo");
                } else {
                    // (An architect's reply, typed by Aider to its editor model, is that
                    // model's prompt: it stays one.)
                    out.chunk(Stream::User, &format!("typed-{line}"), ContentBlock::text(text.clone()), &ProviderMeta::default());
                    prompts += 1;
                    prompted = true;
                }
            }
            Record::Reply { line, reasoning, text } => {
                if !prompted {
                    out.unmapped("reply:without_prompt");
                }
                prompted = false;
                let id = format!("reply-{line}");
                let meta = ProviderMeta { provider: model.as_deref().map(|m| crate::emit::provider_of_model(m).to_owned()), model: model.clone(), ..ProviderMeta::default() };
                if let Some(reasoning) = reasoning {
                    out.chunk(Stream::Thought, &id, ContentBlock::text(reasoning.clone()), &meta);
                }
                if !text.is_empty() {
                    out.chunk(Stream::Agent, &id, ContentBlock::text(text.clone()), &meta);
                }
            }
            Record::Said { text, .. } => {
                if let Some(name) = text.lines().next().and_then(announced_model) {
                    if model.as_deref() != Some(name) {
                        out.event(Event::ModelSwitch(ModelSwitch { provider: crate::emit::provider_of_model(name).to_owned(), model: name.to_owned(), context_window: None }));
                        model = Some(name.to_owned());
                    }
                    out.unmapped("said:announcement");
                } else if let Some((sent, received)) = usage(text) {
                    out.event(Event::UsageAnchor(UsageAnchor {
                        provider: model.as_deref().map(|m| crate::emit::provider_of_model(m).to_owned()),
                        model: model.clone(),
                        input_tokens: sent,
                        output_tokens: received,
                        cache_read_tokens: 0,
                        cache_write_tokens: 0,
                        reasoning_tokens: None,
                        omitted_tokens: Some(0),
                        head_tokens: None,
                        counted: None,
                    }));
                } else {
                    out.unmapped("said");
                }
            }
        }
    }
    let mut imported = out.finish(header);
    imported.report.lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    imported.report.audience = Some("primary".to_owned());
    imported
}


#[cfg(test)]
mod tests;
