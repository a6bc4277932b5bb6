//! OpenCode sessions (`opencode export <session id>`: `{info, messages: [{info, parts}]}`) → our log.
//!
//! OpenCode keeps a session as its info, its messages and each message's parts (JSON files
//! under `~/.local/share/opencode/storage/` up to 1.1, rows of `opencode.db` since 1.2); its
//! `export` command writes one session's whole as one JSON document, in message order — the form
//! read here. Read as OpenCode turns its messages into its model's (`MessageV2.toModelMessages`
//! and `filterCompacted`, opencode 1.1–1.2):
//! - a user message's text parts (an `ignored` one is never sent; a `synthetic` one — a file it
//!   read for the prompt, its nudge to go on — is), its images (a `data:` URL), a subtask it ran
//!   (`The following tool was executed by the user`); a text file or folder it named is already
//!   in a synthetic text part, so the part itself is not sent (counted);
//! - an assistant message's reasoning (Anthropic's signature, OpenAI's encrypted content and item
//!   id, Gemini's thought signature, from the part's provider metadata), text and tool calls: a
//!   completed call's output (`[Old tool result content cleared]` once OpenCode pruned it) with its
//!   images, a failed call's error, an unfinished call `[Tool execution was interrupted]`; its
//!   model (a switch when it changes) and each step's usage (`step-finish`: input without the
//!   cache, the cache's reads and writes, output). A message that failed is not sent again, unless
//!   it was aborted after it wrote something;
//! - a compaction: the summary an assistant wrote (`summary`, finished) for the user message
//!   holding the `compaction` part becomes a checkpoint; the request that asked for it is
//!   OpenCode's own (counted);
//! - a revert (`info.revert`): the messages and parts after its point are hidden (counted);
//! - a subagent: a `task` call whose metadata names the session that ran it (`sessionId`) is
//!   linked to that session, exported on its own (`importTree`).
//!
//! Not in an export, and so not kept: the system prompt and tool definitions (rebuilt on every
//! turn, never stored since 1.0.30), the reminders OpenCode adds in memory. Counted: snapshots,
//! patches, retries, the `@agent` part.

pub mod storage;

use std::collections::HashMap;

use serde_json::Value;

use contextview::update::acp::Stream;
use crate::emit::{image_block, LogBuilder};
use crate::report::Imported;
use crate::codes;
use contextview::diagnostic::Diagnostic;
use contextview::update::acp::{ContentBlock, ProviderMeta, ToolCallContent};
use contextview::update::record::{CompactionCheckpoint, Event, Header, ModelSwitch, SubagentEnded, SubagentStarted, SubagentStatus, UsageAnchor};

/// Whether `text` is an OpenCode export: a JSON object whose session id (`ses_…`) comes first.
pub fn is_export(text: &str) -> bool {
    let start = text.trim_start();
    let head = &start[..start.len().min(4096)];
    start.starts_with('{') && head.contains("\"info\"") && (head.contains("\"id\": \"ses_") || head.contains("\"id\":\"ses_"))
}

/// The provider OpenCode's provider id and model stand for.
pub fn provider_of(provider_id: &str, model: &str) -> &'static str {
    match provider_id {
        "anthropic" => "anthropic",
        "openai" => "openai-responses",
        "google" | "google-vertex" => "gemini",
        _ => crate::emit::provider_of_model(model),
    }
}

/// Imports an export; each message counts as a line of the report, and a diagnostic names a
/// message by its 1-based position.
pub fn import(text: &str) -> Imported {
    let mut out = LogBuilder::new();
    let export = match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) if v.get("messages").is_some_and(Value::is_array) => v,
        Ok(_) => {
            out.diagnostic(Diagnostic::new(&codes::IMPORT_BAD_ENTRY, "not an OpenCode export: expected an object with `info` and `messages`"));
            return out.finish(Header::new(""));
        }
        Err(e) => {
            out.bad_line(e.line(), &codes::IMPORT_MALFORMED_LINE, format!("the file is not JSON: {e}"));
            return out.finish(Header::new(""));
        }
    };
    let info = &export["info"];
    let str_at = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_owned);
    let mut header = Header::new(str_at(info, "/id").unwrap_or_default());
    header.created_at = info.pointer("/time/created").and_then(Value::as_i64).and_then(contextview::time::rfc3339_of_millis);
    header.cwd = str_at(info, "/directory");
    header.parent_session_id = str_at(info, "/parentID");
    let messages = export["messages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let revert = Revert::of(info, messages);
    // The summaries OpenCode finished, by the user message that asked for each.
    let summaries: HashMap<&str, usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.pointer("/info/summary").and_then(Value::as_bool) == Some(true) && m.pointer("/info/finish").is_some_and(|f| !f.is_null()))
        .filter_map(|(i, m)| Some((m.pointer("/info/parentID")?.as_str()?, i)))
        .collect();
    let summary_messages: std::collections::HashSet<usize> = summaries.values().copied().collect();
    let mut writer = Writer { model: None };
    for (i, message) in messages.iter().enumerate() {
        let line = i + 1;
        out.count_line();
        let (Some(info), Some(parts)) = (message.get("info").filter(|i| i.is_object()), message.get("parts").and_then(Value::as_array)) else {
            out.bad_line(line, &codes::IMPORT_BAD_MESSAGE, "message has no info or no parts");
            continue;
        };
        out.at(info.pointer("/time/created").and_then(Value::as_i64).and_then(contextview::time::rfc3339_of_millis).as_deref());
        let id = info.get("id").and_then(Value::as_str).unwrap_or("");
        let parts: Vec<&Value> = parts.iter().filter(|p| !revert.hides(i, p)).collect();
        if revert.hides_message(i) {
            out.unmapped("reverted:message");
            continue;
        }
        let asked_summary = parts.iter().any(|p| kind(p) == "compaction");
        match info.get("role").and_then(Value::as_str).unwrap_or("") {
            // The request that asked for a summary, and the summary: a checkpoint.
            "user" if asked_summary && summaries.contains_key(id) => out.unmapped("compaction:request"),
            "assistant" if info.get("summary").and_then(Value::as_bool) == Some(true) && summary_messages.contains(&i) => {
                let summary = parts.iter().filter(|p| kind(p) == "text").filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n\n");
                let first_kept_seq = out.next_seq() + 1;
                // What its request held: its input, cached or not.
                let tokens_before = ["/tokens/input", "/tokens/cache/read", "/tokens/cache/write"].iter().map(|p| info.pointer(p).and_then(Value::as_u64)).sum();
                out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary, first_kept_seq, tokens_before, summary_tokens: None, trim_kept_over: None }));
            }
            "user" => writer.user(&mut out, line, id, &parts),
            "assistant" => writer.assistant(&mut out, line, id, info, &parts),
            other => out.bad_line(line, &codes::IMPORT_BAD_MESSAGE, format!("message role `{other}` is neither user nor assistant")),
        }
    }
    let mut imported = out.finish(header);
    imported.report.audience = Some(if imported.header.parent_session_id.is_some() { "subagent" } else { "primary" }.to_owned());
    imported
}

fn kind(part: &Value) -> &str {
    part.get("type").and_then(Value::as_str).unwrap_or("")
}

/// A session's revert: the messages after its point (and that message, when it names no part),
/// and a named part's message from that part on.
struct Revert {
    message: Option<usize>,
    part: Option<String>,
}

impl Revert {
    fn of(info: &Value, messages: &[Value]) -> Revert {
        let point = info.pointer("/revert/messageID").and_then(Value::as_str);
        let message = point.and_then(|id| messages.iter().position(|m| m.pointer("/info/id").and_then(Value::as_str) == Some(id)));
        Revert { message, part: info.pointer("/revert/partID").and_then(Value::as_str).map(str::to_owned) }
    }

    fn hides_message(&self, i: usize) -> bool {
        self.message.is_some_and(|at| i > at || (i == at && self.part.is_none()))
    }

    /// Whether part `p` of message `i` is at or after the named part (ids sort by time).
    fn hides(&self, i: usize, p: &Value) -> bool {
        match (&self.message, &self.part) {
            (Some(at), Some(part)) if *at == i => p.get("id").and_then(Value::as_str).is_some_and(|id| id >= part.as_str()),
            _ => false,
        }
    }
}

struct Writer {
    model: Option<String>,
}

impl Writer {
    fn user(&mut self, out: &mut LogBuilder, line: usize, id: &str, parts: &[&Value]) {
        let meta = ProviderMeta::default();
        for part in parts {
            match kind(part) {
                "text" if part.get("ignored").and_then(Value::as_bool) == Some(true) => out.unmapped("text:ignored"),
                "text" => {
                    out.chunk(Stream::User, id, ContentBlock::text(part.get("text").and_then(Value::as_str).unwrap_or("")), &meta);
                }
                "file" => match file_image(part) {
                    Some((data, mime)) => {
                        let image = image_block(data, mime, line, out);
                        out.chunk(Stream::User, id, image, &meta);
                    }
                    None => {
                        let mime = part.get("mime").and_then(Value::as_str).unwrap_or("");
                        out.unmapped(&format!("file:{}", if matches!(mime, "text/plain" | "application/x-directory") { "expanded" } else { "not_an_inline_image" }))
                    }
                },
                "subtask" => {
                    out.chunk(Stream::User, id, ContentBlock::text("The following tool was executed by the user"), &meta);
                }
                "compaction" => out.unmapped("compaction:unfinished"),
                other => out.unmapped(&format!("part:{}", if other.is_empty() { "untyped" } else { other })),
            }
        }
    }

    fn assistant(&mut self, out: &mut LogBuilder, line: usize, id: &str, info: &Value, parts: &[&Value]) {
        // A failed answer is not sent again, unless it was aborted after writing something.
        let error = info.get("error").filter(|e| !e.is_null());
        let wrote = parts.iter().any(|p| !matches!(kind(p), "step-start" | "reasoning" | "step-finish"));
        if let Some(error) = error {
            let aborted = error.get("name").and_then(Value::as_str) == Some("MessageAbortedError");
            if !(aborted && wrote) {
                out.unmapped("assistant:failed");
                return;
            }
        }
        let model = info.get("modelID").and_then(Value::as_str).filter(|m| !m.is_empty());
        let provider = model.map(|m| provider_of(info.get("providerID").and_then(Value::as_str).unwrap_or(""), m));
        if let (Some(model), Some(provider)) = (model, provider) {
            if self.model.as_deref() != Some(model) {
                out.event(Event::ModelSwitch(ModelSwitch { provider: provider.to_owned(), model: model.to_owned(), context_window: None }));
                self.model = Some(model.to_owned());
            }
        }
        let base = ProviderMeta { provider: provider.map(str::to_owned), model: model.map(str::to_owned), ..ProviderMeta::default() };
        let mut thoughts = 0;
        for part in parts {
            let str_of = |k: &str| part.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            match kind(part) {
                "text" => {
                    out.chunk(Stream::Agent, id, ContentBlock::text(str_of("text")), &base);
                }
                "reasoning" => {
                    thoughts += 1;
                    let thought_id = if thoughts == 1 { id.to_owned() } else { format!("{id}#thinking-{thoughts}") };
                    let meta = reasoning_meta(part.get("metadata"), &base);
                    out.chunk(Stream::Thought, &thought_id, ContentBlock::text(str_of("text")), &meta);
                }
                "tool" => self.tool(out, line, part, &base),
                "step-finish" => {
                    let tokens = part.get("tokens").unwrap_or(&Value::Null);
                    let n = |p: &str| tokens.pointer(p).and_then(Value::as_u64).unwrap_or(0);
                    out.event(Event::UsageAnchor(UsageAnchor {
                        provider: provider.map(str::to_owned),
                        model: model.map(str::to_owned),
                        input_tokens: n("/input"),
                        output_tokens: n("/output"),
                        cache_read_tokens: n("/cache/read"),
                        cache_write_tokens: n("/cache/write"),
                        reasoning_tokens: tokens.get("reasoning").and_then(Value::as_u64).filter(|r| *r > 0),
                        omitted_tokens: Some(0),
                        head_tokens: None,
                        counted: None,
                    }));
                }
                "step-start" => {}
                other => out.unmapped(&format!("part:{}", if other.is_empty() { "untyped" } else { other })),
            }
        }
    }

    fn tool(&mut self, out: &mut LogBuilder, line: usize, part: &Value, base: &ProviderMeta) {
        let Some(call) = part.get("callID").and_then(Value::as_str).filter(|c| !c.is_empty()) else {
            out.bad_line(line, &codes::IMPORT_BAD_TOOL_CALL, "tool part has no callID");
            return;
        };
        let name = part.get("tool").and_then(Value::as_str).unwrap_or("");
        let state = part.get("state").unwrap_or(&Value::Null);
        let meta = ProviderMeta { tool_name: Some(name.to_owned()), ..base.clone() };
        out.tool_call(call.to_owned(), name, state.get("input").cloned(), meta);
        let text = |t: &str| ToolCallContent::Content { content: ContentBlock::text(t), meta: None };
        let (content, failed) = match state.get("status").and_then(Value::as_str).unwrap_or("") {
            "completed" => {
                let compacted = state.pointer("/time/compacted").is_some_and(|c| !c.is_null());
                let output = if compacted { "[Old tool result content cleared]" } else { state.get("output").and_then(Value::as_str).unwrap_or("") };
                let mut content = vec![text(output)];
                for attachment in state.get("attachments").and_then(Value::as_array).into_iter().flatten().filter(|_| !compacted) {
                    match file_image(attachment) {
                        Some((data, mime)) => content.push(ToolCallContent::Content { content: image_block(data, mime, line, out), meta: None }),
                        None => out.unmapped("attachment:not_an_inline_image"),
                    }
                }
                (content, false)
            }
            "error" => (vec![text(state.get("error").and_then(Value::as_str).unwrap_or(""))], true),
            _ => (vec![text("[Tool execution was interrupted]")], true),
        };
        // A subagent's session: the one the call's metadata names.
        let link = (name == "task").then(|| state.pointer("/metadata/sessionId").and_then(Value::as_str)).flatten().map(|session| {
            let started = SubagentStarted {
                call_id: call.to_owned(),
                session_id: session.to_owned(),
                task: state.pointer("/input/prompt").and_then(Value::as_str).unwrap_or("").to_owned(),
                provider: None,
                model: None,
                report_tokens: 0,
            };
            let ended = SubagentEnded {
                call_id: call.to_owned(),
                session_id: session.to_owned(),
                status: if failed { SubagentStatus::Failed } else { SubagentStatus::Completed },
                error: failed.then(|| "the task call failed".to_owned()),
                report_tokens: 0,
                trimmed: false,
                usage: None,
            };
            (started, ended)
        });
        if let Some((started, _)) = &link {
            out.event(Event::SubagentStarted(started.clone()));
        }
        out.tool_result(call, content, failed, None);
        if let Some((_, ended)) = link {
            out.linked_subagent(&ended.session_id);
            out.event(Event::SubagentEnded(ended));
        }
    }
}

/// `(base64 data, mime)` of a file part or attachment sent inline as an image.
pub(crate) fn file_image(part: &Value) -> Option<(&str, &str)> {
    let mime = part.get("mime").and_then(Value::as_str)?;
    let url = part.get("url").and_then(Value::as_str)?;
    let data = url.strip_prefix("data:")?.split_once(";base64,")?.1;
    mime.starts_with("image/").then_some((data, mime))
}

/// A reasoning part's provider facts (its metadata, as the AI SDK gave them).
fn reasoning_meta(metadata: Option<&Value>, base: &ProviderMeta) -> ProviderMeta {
    let at = |p: &str| metadata.and_then(|m| m.pointer(p)).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    ProviderMeta {
        signature: at("/anthropic/signature").or_else(|| at("/google/thoughtSignature")),
        encrypted: at("/anthropic/redactedData").or_else(|| at("/openai/reasoningEncryptedContent")),
        reasoning_id: at("/openai/itemId"),
        ..base.clone()
    }
}

#[cfg(test)]
mod tests;
