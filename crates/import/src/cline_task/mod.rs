//! Cline, Roo Code and Kilo Code tasks (`tasks/<task id>/api_conversation_history.json`) → our log.
//!
//! The three VS Code agents (Roo Code forked Cline, Kilo Code forked Roo) keep what their model
//! is sent in one JSON array per task: Anthropic messages (`{role, content}`, content a string or
//! blocks), with fields of their own beside them. Read as each agent's source writes and sends it
//! (Cline 3.89, Roo Code 3.52, Kilo Code 5.10):
//! - user messages: text blocks (the `<task>` or `<user_message>` wrapper, the
//!   `<environment_details>` the agent appends to every request, a tool's result written as text
//!   when the task calls tools in XML), images (base64), `tool_result` blocks;
//! - assistant messages: `thinking` (with its signature) and `redacted_thinking`, Roo's
//!   `reasoning` (its text, or OpenAI's encrypted content), text — a tool call written in XML is
//!   text, as the model wrote and will read it — and `tool_use` blocks;
//! - Cline's `modelInfo` (the model of each answer) and `metrics` (its usage: `prompt` counts the
//!   cached tokens, `cached` the cache's reads and writes together, kept as reads);
//! - Roo's and Kilo's context management, which hides messages instead of deleting them: a
//!   summary (`isSummary`) hides what its `condenseId` tags, and a sliding-window marker
//!   (`isTruncationMarker`, sent to the model) what its `truncationId` tags. Each becomes a
//!   compaction checkpoint where it stands. A summary the agent writes as an assistant message
//!   (Roo 3.36–3.42, Kilo) is sent after the task's first message, which it keeps, as a marker
//!   keeps the first message it did not hide: that message is kept again after the checkpoint.
//! - Roo's and Kilo's subtasks: a `new_task` call whose result names the subtask
//!   (`Subtask <id> completed`) links that task as the subagent that answered it.
//!
//! With the task's chat (`ui_messages.json`, read by [`ui`]): each request's usage where the
//! history has none (Roo's and Kilo's always; Cline's before `metrics`), and Cline's truncations —
//! it hides a range of messages from each request after the first exchange, never deleting
//! them: a compaction checkpoint where the chat says the truncation took effect, keeping the
//! messages after the range, with the first exchange's text as its summary.
//!
//! Not kept: the system prompt and tool definitions (never saved), the edits Cline's
//! `context_history.json` makes to what it keeps. Counted: Gemini thought signatures and
//! OpenRouter's `reasoning_details`, which belong to one provider's endpoint, and documents.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

pub mod ui;

use contextview::update::acp::Stream;
use crate::emit::{image_block, LogBuilder};
use crate::report::Imported;
use crate::claude_code::{image_source, tool_result};
use crate::codes;
use crate::format::Format;
use contextview::diagnostic::Diagnostic;
use contextview::update::acp::{ContentBlock, ProviderMeta};
use contextview::update::record::{CompactionCheckpoint, Event, Header, ModelSwitch, SubagentEnded, SubagentStarted, SubagentStatus, UsageAnchor};

/// Whether `text` is a task's API history: a JSON array whose first element is a message.
pub fn is_history(text: &str) -> bool {
    let rest = text.trim_start();
    let Some(rest) = rest.strip_prefix('[') else { return false };
    let rest = rest.trim_start();
    if !rest.starts_with('{') {
        return false;
    }
    let head = &rest[..rest.len().min(4096)];
    head.contains("\"role\"") && head.contains("\"content\"") && !head.contains("\"parts\"")
}

/// Which agent wrote a history: Cline's messages carry `modelInfo` or `metrics`, its blocks
/// `call_id`; Roo's and Kilo's carry `ts` without those, or their context-management tags. Kilo
/// Code writes Roo's format unchanged, so its file reads as Roo Code's unless it is named.
pub fn agent_of(text: &str) -> Format {
    let cline = ["\"modelInfo\"", "\"metrics\"", "\"call_id\""].iter().any(|k| text.contains(k));
    let roo = ["\"isSummary\"", "\"condenseParent\"", "\"truncationParent\"", "\"isTruncationMarker\"", "\"ts\""].iter().any(|k| text.contains(k));
    if roo && !cline {
        Format::RooCode
    } else {
        Format::Cline
    }
}

/// Imports a task's history as `format`'s (one of Cline's, Roo Code's, Kilo Code's), with the
/// requests its chat (`ui_messages.json`, [`ui`]) recorded when given: their usage, and Cline's
/// truncations. Each message counts as a line of the report; a diagnostic names a message by its
/// 1-based position.
pub fn import(format: Format, text: &str, requests: &[ui::Request]) -> Imported {
    let mut out = LogBuilder::new();
    let messages = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(messages)) => messages,
        Ok(_) => {
            out.diagnostic(Diagnostic::new(&codes::IMPORT_BAD_ENTRY, "not a task history: expected a JSON array of messages"));
            return out.finish(Header::new(""));
        }
        Err(e) => {
            out.bad_line(e.line(), &codes::IMPORT_MALFORMED_LINE, format!("the file is not JSON: {e}"));
            return out.finish(Header::new(""));
        }
    };
    let first_ts = messages.iter().find_map(|m| m.get("ts").and_then(Value::as_i64));
    let mut header = Header::new(first_ts.map(|ts| format!("{}-{ts}", format.as_str())).unwrap_or_default());
    header.created_at = first_ts.and_then(contextview::time::rfc3339_of_millis);
    let mut writer = Writer { format, provider: None, session: header.session_id.clone(), model: None, subtasks: HashMap::new(), first: None };
    let summaries: HashSet<&str> = messages.iter().filter(|m| is_true(m, "isSummary")).filter_map(|m| m.get("condenseId").and_then(Value::as_str)).collect();
    let markers: HashSet<&str> = messages.iter().filter(|m| is_true(m, "isTruncationMarker")).filter_map(|m| m.get("truncationId").and_then(Value::as_str)).collect();
    let chat = Chat::of(format, &messages, requests);
    // Where each message's records start (a truncation counts the prompts before message 2).
    let mut starts: Vec<u64> = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        let line = i + 1;
        starts.push(out.next_seq());
        if let Some(&(_, end)) = chat.truncations.get(&i) {
            writer.truncate(&mut out, &messages, &starts, end);
        }
        out.count_line();
        if !message.is_object() {
            out.bad_line(line, &codes::IMPORT_NOT_AN_OBJECT, "message is JSON but not an object");
            continue;
        }
        out.at(message.get("ts").and_then(Value::as_i64).and_then(contextview::time::rfc3339_of_millis).as_deref());
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let Some(content) = message.get("content").filter(|c| c.is_string() || c.is_array()) else {
            out.bad_line(line, &codes::IMPORT_BAD_MESSAGE, "message has no content");
            continue;
        };
        let id = message.get("id").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| format!("message-{line}"));
        // The first message that stays visible is the one a later summary or marker keeps.
        let hidden = message.get("condenseParent").and_then(Value::as_str).is_some_and(|c| summaries.contains(c))
            || message.get("truncationParent").and_then(Value::as_str).is_some_and(|t| markers.contains(t));
        if is_true(message, "isSummary") || is_true(message, "isTruncationMarker") {
            writer.checkpoint(&mut out, line, role, content, is_true(message, "isTruncationMarker"));
        } else {
            match role {
                "user" => writer.user(&mut out, line, &id, content, &ProviderMeta::default()),
                "assistant" => writer.assistant(&mut out, line, &id, message, content),
                other => {
                    out.bad_line(line, &codes::IMPORT_BAD_MESSAGE, format!("message role `{other}` is neither user nor assistant"));
                    continue;
                }
            }
        }
        if writer.first.is_none() && !hidden && !is_true(message, "isSummary") {
            writer.first = Some((line, role.to_owned(), content.clone()));
        }
        for key in ["reasoning_details", "reasoning_content"] {
            if message.get(key).is_some_and(|v| !v.is_null()) {
                out.unmapped(&format!("message:{key}"));
            }
        }
        if let Some(usage) = chat.usage.get(&i) {
            writer.usage(&mut out, usage);
        }
    }
    let mut imported = out.finish(header);
    imported.report.audience = Some("primary".to_owned());
    imported
}

fn is_true(message: &Value, key: &str) -> bool {
    message.get(key).and_then(Value::as_bool) == Some(true)
}

/// The text of a message's content (its text blocks, in order), for a summary or a marker.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

struct Writer {
    format: Format,
    /// The model and provider of the last answer.
    provider: Option<&'static str>,
    session: String,
    model: Option<String>,
    /// `new_task` calls by id, with the subtask's message.
    subtasks: HashMap<String, String>,
    /// The first message no summary or marker hid: (line, role, content).
    first: Option<(usize, String, Value)>,
}

impl Writer {
    /// A summary or a sliding-window marker: what came before it is hidden from the model.
    fn checkpoint(&mut self, out: &mut LogBuilder, line: usize, role: &str, content: &Value, marker: bool) {
        let summary = text_of(content);
        let first_kept_seq = out.next_seq() + 1;
        out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary, first_kept_seq, tokens_before: None, summary_tokens: None, trim_kept_over: None }));
        // Roo 3.36–3.42 and Kilo send an assistant summary after the task's first message, and a
        // marker after the first message it left visible: that message, kept again.
        if role == "assistant" || marker {
            match self.first.clone() {
                Some((first_line, first_role, first_content)) if first_role == "user" => {
                    self.user(out, first_line, &format!("message-{first_line}#kept"), &first_content, &ProviderMeta::default());
                }
                Some(_) => out.unmapped("kept_first_message:not_a_prompt"),
                None => {}
            }
        }
        // A summary may keep the calls whose results follow it.
        if let Value::Array(blocks) = content {
            for block in blocks.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use")) {
                self.call(out, line, block, &ProviderMeta::default());
            }
        }
    }

    fn user(&mut self, out: &mut LogBuilder, line: usize, id: &str, content: &Value, meta: &ProviderMeta) {
        let blocks = match content {
            Value::String(text) => {
                out.chunk(Stream::User, id, ContentBlock::text(text.clone()), meta);
                return;
            }
            Value::Array(blocks) => blocks,
            _ => return,
        };
        for block in blocks {
            match block.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => out.chunk(Stream::User, id, ContentBlock::text(block.get("text").and_then(Value::as_str).unwrap_or("")), meta),
                "image" => match image_source(block) {
                    Some((data, media_type)) => {
                        let image = image_block(data, media_type, line, out);
                        out.chunk(Stream::User, id, image, meta)
                    }
                    None => {
                        out.unmapped("image:non_base64_source");
                        continue;
                    }
                },
                "tool_result" => {
                    let call = block.get("tool_use_id").and_then(Value::as_str).unwrap_or("").to_owned();
                    let task = self.subtasks.remove(&call);
                    let link = task.map(|task| self.subtask_link(&call, task, &block.get("content").map(text_of).unwrap_or_default()));
                    if let Some((started, _)) = &link {
                        out.event(Event::SubagentStarted(started.clone()));
                    }
                    tool_result(out, line, block, None);
                    if let Some((_, ended)) = link {
                        out.linked_subagent(&ended.session_id);
                        out.event(Event::SubagentEnded(ended));
                    }
                    continue;
                }
                other => {
                    out.unmapped(&format!("user_block:{}", if other.is_empty() { "untyped" } else { other }));
                    continue;
                }
            };
        }
    }

    fn assistant(&mut self, out: &mut LogBuilder, line: usize, id: &str, message: &Value, content: &Value) {
        // Cline names the model of each answer, and its usage.
        let model = message.pointer("/modelInfo/modelId").and_then(Value::as_str).filter(|m| !m.is_empty());
        let provider = model.map(|m| match message.pointer("/modelInfo/providerId").and_then(Value::as_str) {
            Some("anthropic") => "anthropic",
            Some("gemini") => "gemini",
            _ => crate::emit::provider_of_model(m),
        });
        if let (Some(model), Some(provider)) = (model, provider) {
            if self.model.as_deref() != Some(model) {
                out.event(Event::ModelSwitch(ModelSwitch { provider: provider.to_owned(), model: model.to_owned(), context_window: None }));
                self.model = Some(model.to_owned());
            }
        }
        let base = ProviderMeta { provider: provider.map(str::to_owned), model: model.map(str::to_owned), ..ProviderMeta::default() };
        let blocks: Vec<Value> = match content {
            Value::String(text) => vec![serde_json::json!({ "type": "text", "text": text })],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        };
        let mut thoughts = 0;
        let mut thought_id = || {
            thoughts += 1;
            if thoughts == 1 {
                id.to_owned()
            } else {
                format!("{id}#thinking-{thoughts}")
            }
        };
        for block in &blocks {
            let str_of = |k: &str| block.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
            match block.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => {
                    out.chunk(Stream::Agent, id, ContentBlock::text(str_of("text").unwrap_or_default()), &base);
                }
                "thinking" => {
                    let meta = ProviderMeta { signature: str_of("signature"), ..base.clone() };
                    out.chunk(Stream::Thought, &thought_id(), ContentBlock::text(str_of("thinking").unwrap_or_default()), &meta);
                }
                "redacted_thinking" => {
                    let meta = ProviderMeta { encrypted: str_of("data"), ..base.clone() };
                    out.chunk(Stream::Thought, &thought_id(), ContentBlock::text(""), &meta);
                }
                // Roo's reasoning: its text, or its summary's; OpenAI's encrypted content with
                // its item id when the answer came by the Responses API.
                "reasoning" => {
                    let summary: Vec<String> = block
                        .get("summary")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|s| s.get("text").and_then(Value::as_str).map(str::to_owned))
                        .collect();
                    let text = str_of("text").unwrap_or_else(|| summary.join("\n\n"));
                    let encrypted = str_of("encrypted_content");
                    let meta = match encrypted {
                        Some(encrypted) => ProviderMeta {
                            provider: Some("openai-responses".to_owned()),
                            encrypted: Some(encrypted),
                            reasoning_id: str_of("id"),
                            summary: (!summary.is_empty()).then_some(summary),
                            ..base.clone()
                        },
                        None => base.clone(),
                    };
                    out.chunk(Stream::Thought, &thought_id(), ContentBlock::text(text), &meta);
                }
                "tool_use" => self.call(out, line, block, &base),
                other => out.unmapped(&format!("assistant_block:{}", if other.is_empty() { "untyped" } else { other })),
            }
        }
        self.provider = provider;
        if let Some(tokens) = message.pointer("/metrics/tokens") {
            let n = |k: &str| tokens.get(k).and_then(Value::as_u64).unwrap_or(0);
            let cached = n("cached");
            out.event(Event::UsageAnchor(UsageAnchor {
                provider: provider.map(str::to_owned),
                model: model.map(str::to_owned),
                input_tokens: n("prompt").saturating_sub(cached),
                output_tokens: n("completion"),
                cache_read_tokens: cached,
                cache_write_tokens: 0,
                reasoning_tokens: None,
                omitted_tokens: Some(0),
                head_tokens: None,
                counted: None,
            }));
        }
    }

    /// A request's usage as the chat recorded it, anchored after its answer.
    fn usage(&self, out: &mut LogBuilder, usage: &ui::Usage) {
        out.event(Event::UsageAnchor(UsageAnchor {
            provider: self.provider.map(str::to_owned),
            model: self.model.clone(),
            input_tokens: usage.input,
            output_tokens: usage.output,
            cache_read_tokens: usage.cache_reads,
            cache_write_tokens: usage.cache_writes,
            reasoning_tokens: None,
            omitted_tokens: Some(0),
            head_tokens: None,
            counted: None,
        }));
    }

    /// Cline's truncation before message `at`: from then on the model gets the task's first
    /// exchange, then the messages after the range (`end + 1` on; results of calls the range took
    /// away, which Cline drops, are left for the view's repair). A checkpoint keeps those messages
    /// as they were written, with the first exchange's text as its summary.
    fn truncate(&mut self, out: &mut LogBuilder, messages: &[Value], starts: &[u64], end: usize) {
        let Some(&first_kept_seq) = starts.get(end + 1) else { return };
        let summary = messages.iter().take(2).filter_map(|m| m.get("content")).map(text_of).filter(|t| !t.trim().is_empty()).collect::<Vec<_>>().join("\n\n");
        out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary, first_kept_seq, tokens_before: None, summary_tokens: None, trim_kept_over: None }));
    }

    fn call(&mut self, out: &mut LogBuilder, line: usize, block: &Value, base: &ProviderMeta) {
        let Some(call) = block.get("id").and_then(Value::as_str).filter(|c| !c.is_empty()) else {
            out.bad_line(line, &codes::IMPORT_BAD_TOOL_USE, "tool_use has no id");
            return;
        };
        let name = block.get("name").and_then(Value::as_str).unwrap_or("");
        if name == "new_task" && self.format != Format::Cline {
            let task = block.pointer("/input/message").and_then(Value::as_str).unwrap_or("");
            self.subtasks.insert(call.to_owned(), task.to_owned());
        }
        let meta = ProviderMeta { tool_name: Some(name.to_owned()), ..base.clone() };
        out.tool_call(call.to_owned(), name, block.get("input").cloned(), meta);
    }

    /// The subtask a `new_task` call's result names (`Subtask <id> completed`), or one of this
    /// session's own for the call.
    fn subtask_link(&self, call: &str, task: String, result: &str) -> (SubagentStarted, SubagentEnded) {
        let named = result.split_once("Subtask ").map(|(_, rest)| rest.split_whitespace().next().unwrap_or("")).filter(|id| !id.is_empty() && id.len() <= 128);
        let session_id = match named {
            Some(id) => id.to_owned(),
            None => format!("{}/subtask-{call}", self.session),
        };
        let completed = result.contains(" completed");
        let started = SubagentStarted { call_id: call.to_owned(), session_id: session_id.clone(), task, provider: None, model: None, report_tokens: 0 };
        let ended = SubagentEnded {
            call_id: call.to_owned(),
            session_id,
            status: if completed { SubagentStatus::Completed } else { SubagentStatus::Failed },
            error: (!completed).then(|| "the subtask's result does not say it completed".to_owned()),
            report_tokens: 0,
            trimmed: false,
            usage: None,
        };
        (started, ended)
    }
}

/// How a subtask's first message carries the task it was given (`<task>` or `<user_message>`
/// around it, with the environment after): the task's text, for a parent to link it by.
pub fn first_prompt(text: &str) -> Option<String> {
    let messages: Value = serde_json::from_str(text).ok()?;
    let first = messages.as_array()?.iter().find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
    let text = text_of(first.get("content")?);
    let inner = ["<task>", "<user_message>"]
        .iter()
        .find_map(|open| {
            let close = format!("</{}", &open[1..]);
            let start = text.find(open)? + open.len();
            let end = text[start..].find(&close)? + start;
            Some(text[start..end].trim().to_owned())
        })
        .unwrap_or_else(|| text.trim().to_owned());
    Some(inner)
}

/// What a task's chat adds to its history: the usage to anchor after each answer (by the answer's
/// index), and where Cline's truncations took effect (before the request's own message: the range
/// hidden from then on).
struct Chat {
    usage: HashMap<usize, ui::Usage>,
    truncations: BTreeMap<usize, (usize, usize)>,
}

impl Chat {
    fn of(format: Format, messages: &[Value], requests: &[ui::Request]) -> Chat {
        let mut chat = Chat { usage: HashMap::new(), truncations: BTreeMap::new() };
        let answers: Vec<usize> = (0..messages.len()).filter(|&i| messages[i].get("role").and_then(Value::as_str) == Some("assistant") && !is_true(&messages[i], "isSummary")).collect();
        let answer_ts: Vec<Option<i64>> = answers.iter().map(|&a| messages[a].get("ts").and_then(Value::as_i64)).collect();
        let answers_in_time_order = answer_ts.iter().all(Option::is_some) && answer_ts.windows(2).all(|w| w[0] <= w[1]);
        let mut range = None;
        for request in requests {
            match format {
                // Cline: the request's message follows the index it names; its answer the message after.
                Format::Cline => {
                    let Some(own) = request.history_index.and_then(|h| usize::try_from(h + 1).ok()) else { continue };
                    if let Some(usage) = request.usage.filter(|_| messages.get(own + 1).is_some_and(|m| m.get("metrics").is_none())) {
                        if answers.binary_search(&(own + 1)).is_ok() {
                            chat.usage.insert(own + 1, usage);
                        }
                    }
                    if request.deleted != range {
                        range = request.deleted;
                        if let Some((start, end)) = range.filter(|&(start, end)| start == 2 && end < own && own < messages.len()) {
                            chat.truncations.insert(own, (start, end));
                        }
                    }
                }
                // Roo Code and Kilo Code: the answer is the first after the request started.
                Format::RooCode | Format::KiloCode => {
                    let (Some(ts), Some(usage)) = (request.ts, request.usage) else { continue };
                    // Answers in time order (as the agent appends them): the first after the
                    // request is found by halving, then the first not taken after it.
                    let from = if answers_in_time_order { answer_ts.partition_point(|t| t.is_none_or(|t| t <= ts)) } else { 0 };
                    let answer = (from..answers.len()).find(|&k| answer_ts[k].is_some_and(|t| t > ts) && !chat.usage.contains_key(&answers[k]));
                    if let Some(k) = answer {
                        chat.usage.insert(answers[k], usage);
                    }
                }
                _ => {}
            }
        }
        chat
    }
}

/// The messages Cline's truncation hides from the request after the last its chat recorded.
pub fn hidden_at_end(format: Format, requests: &[ui::Request]) -> Option<(usize, usize)> {
    (format == Format::Cline).then(|| requests.last().and_then(|r| r.deleted)).flatten().filter(|&(start, _)| start == 2)
}

#[cfg(test)]
mod tests;
