//! Gemini CLI chat recordings → our log.
//!
//! [`crate::gemini_recording`] reads either form (the whole-file `session-*.json`, the appended
//! `session-*.jsonl` with its `$set` and `$rewindTo` lines) into the messages the recording
//! holds at its end — what the CLI resumes from. Each message then becomes records:
//! - `user`: its text and images. One made only of tool responses (recorded beside the calls
//!   since v0.44) is their echo: the results come from the calls' own `result`. A `/` or `?`
//!   command never reaches the model (counted as unmapped); the environment turn
//!   (`<session_context>`) and hook context (`<hook_context>`) reach it as the CLI's own words
//!   (synthetic); the CLI's `Please continue.` turns are auto-continues.
//! - `gemini`: its model (a model switch when it changes), its thoughts (`**subject**
//!   description`, as the CLI rebuilds them), its text, its tool calls (`toolCalls`, or
//!   `functionCall` parts in a checkpoint's form, with their thought signatures), its usage
//!   (`tokens`: Gemini's prompt count, less what the cache served), then each call's result
//!   (`functionResponse` parts: `output`, `error`; images beside or inside them).
//! - `info`, `warning`, `error`: the CLI's notices to its user, never sent (unmapped).
//!
//! Subagents (v0.39 on): a call that ran one names it (`agentId`), and the subagent's own
//! recording (`chats/<parent session>/<agentId>.jsonl`, `kind: "subagent"`) has that id as its
//! session: the log records which session answered the call (`subagent_started`,
//! `subagent_ended`), so `import_tree` links the two. Earlier versions recorded no such link.

use serde_json::Value;

use contextview::update::acp::Stream;
use crate::emit::{image_block, LogBuilder};
use crate::report::Imported;
use crate::codes;
use contextview::conversation::SyntheticReason;
use contextview::diagnostic::Diagnostic;
use contextview::update::acp::{ContentBlock, ProviderMeta, ToolCallContent};
use contextview::update::record::{Event, Header, ModelSwitch, SubagentEnded, SubagentStarted, SubagentStatus, UsageAnchor};
use crate::gemini_recording::{self as recording, is_command_or_echo, parts, Message, Recording};

const PROVIDER: &str = "gemini";

/// Imports a recording read by [`recording::read`].
pub fn import(recording: &Recording) -> Imported {
    let mut out = LogBuilder::new();
    for (line, why) in &recording.skipped {
        out.bad_line(*line, &codes::IMPORT_MALFORMED_LINE, why.clone());
    }
    for _ in 0..recording.superseded {
        out.unmapped("message:superseded");
    }
    let mut header = Header::new(recording.session_id());
    header.created_at = recording.meta.get("startTime").and_then(Value::as_str).map(str::to_owned);
    if let Some(title) = recording.meta.get("summary").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        out.other_update(serde_json::json!({"sessionUpdate": "session_info_update", "title": title}));
    }
    let mut model: Option<String> = None;
    let mut answered: std::collections::HashSet<String> = std::collections::HashSet::new();
    for message in &recording.messages {
        out.at(message.value.get("timestamp").and_then(Value::as_str));
        match message.kind() {
            "user" => user(&mut out, message, &answered),
            "gemini" => gemini(&mut out, message, &mut model, &mut answered),
            kind @ ("info" | "warning" | "error") => out.unmapped(kind),
            other => out.unmapped(&format!("message:{}", if other.is_empty() { "untyped" } else { other })),
        }
    }
    let mut imported = out.finish(header);
    imported.report.lines = recording.lines;
    let subagent = recording.meta.get("kind").and_then(Value::as_str) == Some("subagent");
    imported.report.audience = Some(if subagent { "subagent" } else { "primary" }.to_owned());
    imported
}

fn user(out: &mut LogBuilder, message: &Message, answered: &std::collections::HashSet<String>) {
    let line = message.line;
    let id = message.id();
    let parts = parts(message.value.get("content"));
    match is_command_or_echo(&parts) {
        // Tool responses recorded apart from their calls: a call the recording left without
        // its own `result` is answered from here.
        Some("user:function_responses") => {
            for part in &parts {
                let response = &part["functionResponse"];
                let call = response.get("id").and_then(Value::as_str).unwrap_or("");
                if call.is_empty() || answered.contains(call) {
                    out.unmapped("user:function_response");
                    continue;
                }
                let (content, failed) = response_content(out, line, std::slice::from_ref(part));
                out.tool_result(call, content, failed, None);
            }
            return;
        }
        Some(kind) => {
            out.unmapped(kind);
            return;
        }
        None => {}
    }
    let text = recording::user_text(&parts);
    let synthetic = match text.trim_start() {
        t if t.starts_with("<session_context>") => Some(SyntheticReason::Prefix),
        t if t.starts_with("<hook_context>") => Some(SyntheticReason::SystemReminder),
        "System: Please continue." | "Please continue." => Some(SyntheticReason::AutoContinue),
        _ => None,
    };
    let meta = ProviderMeta { synthetic, ..ProviderMeta::default() };
    for part in &parts {
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            if part.get("thought").and_then(Value::as_bool) != Some(true) {
                out.chunk(Stream::User, id, ContentBlock::text(text), &meta);
            }
        } else if let Some(image) = inline_image(out, line, part) {
            out.chunk(Stream::User, id, image, &meta);
        } else {
            out.unmapped(&format!("user_part:{}", part_kind(part)));
        }
    }
}

fn gemini(out: &mut LogBuilder, message: &Message, model: &mut Option<String>, answered: &mut std::collections::HashSet<String>) {
    let line = message.line;
    let id = message.id();
    let value = &message.value;
    let this_model = value.get("model").and_then(Value::as_str).filter(|m| !m.is_empty()).map(str::to_owned);
    if let Some(m) = this_model.as_ref().filter(|m| Some(*m) != model.as_ref()) {
        out.event(Event::ModelSwitch(ModelSwitch { provider: PROVIDER.to_owned(), model: m.clone(), context_window: None }));
        *model = Some(m.clone());
    }
    let base = ProviderMeta { provider: Some(PROVIDER.to_owned()), model: this_model.clone().or_else(|| model.clone()), ..ProviderMeta::default() };
    for thought in value.get("thoughts").and_then(Value::as_array).into_iter().flatten() {
        let subject = thought.get("subject").and_then(Value::as_str).unwrap_or("").trim();
        let description = thought.get("description").and_then(Value::as_str).unwrap_or("");
        let text = if subject.is_empty() { description.to_owned() } else { format!("**{subject}** {description}") };
        if !text.trim().is_empty() {
            out.chunk(Stream::Thought, id, ContentBlock::text(text), &base);
        }
    }
    let calls: Vec<&Value> = value.get("toolCalls").and_then(Value::as_array).into_iter().flatten().collect();
    let listed = |call: &str| calls.iter().any(|c| c.get("id").and_then(Value::as_str) == Some(call));
    // A checkpoint's form holds the model's parts, `functionCall`s and signatures among them.
    let mut signatures: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let mut part_calls: Vec<Value> = Vec::new();
    for part in parts(value.get("content")) {
        let signature = part.get("thoughtSignature").and_then(Value::as_str).map(str::to_owned);
        if let Some(call) = part.get("functionCall") {
            let call_id = call.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
            if let Some(sig) = signature {
                signatures.insert(call_id.clone(), sig);
            }
            if !listed(&call_id) {
                part_calls.push(call.clone());
            }
        } else if let Some(text) = part.get("text").and_then(Value::as_str) {
            let meta = ProviderMeta { signature, ..base.clone() };
            match part.get("thought").and_then(Value::as_bool) == Some(true) {
                true => out.chunk(Stream::Thought, id, ContentBlock::text(text), &meta),
                false if text.trim().is_empty() && meta.signature.is_none() => continue,
                false => out.chunk(Stream::Agent, id, ContentBlock::text(text), &meta),
            };
        } else if let Some(image) = inline_image(out, line, &part) {
            out.chunk(Stream::Agent, id, image, &base);
        } else {
            out.unmapped(&format!("gemini_part:{}", part_kind(&part)));
        }
    }
    let mut written: Vec<(&Value, String, Option<&Value>, &str)> = Vec::new();
    for call in calls.iter().copied() {
        let Some(call_id) = call.get("id").and_then(Value::as_str).filter(|c| !c.is_empty()) else {
            out.bad_line(line, &codes::IMPORT_BAD_TOOL_CALL, "a tool call with no id");
            continue;
        };
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        let meta = ProviderMeta { tool_name: Some(name.to_owned()), signature: signatures.get(call_id).cloned(), ..base.clone() };
        out.tool_call(call_id.to_owned(), name, call.get("args").cloned(), meta);
        written.push((call, call_id.to_owned(), call.get("result"), call.get("status").and_then(Value::as_str).unwrap_or("")));
    }
    for call in &part_calls {
        let call_id = call.get("id").and_then(Value::as_str).unwrap_or("");
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        if call_id.is_empty() {
            out.bad_line(line, &codes::IMPORT_BAD_TOOL_CALL, "a functionCall part with no id");
            continue;
        }
        let meta = ProviderMeta { tool_name: Some(name.to_owned()), signature: signatures.get(call_id).cloned(), ..base.clone() };
        out.tool_call(call_id.to_owned(), name, call.get("args").cloned(), meta);
    }
    usage(out, value.get("tokens"), base.model.clone());
    for (call, call_id, result, status) in written {
        let result_parts = parts(result);
        if result_parts.is_empty() {
            // The CLI sends no response for a call without a result: the call stays open.
            out.unmapped("tool_call:without_result");
            continue;
        }
        let (content, failed) = response_content(out, line, &result_parts);
        let failed = failed || matches!(status, "error" | "cancelled");
        let agent = call.get("agentId").and_then(Value::as_str).filter(|a| !a.is_empty());
        if let Some(agent) = agent {
            out.event(Event::SubagentStarted(SubagentStarted {
                call_id: call_id.clone(),
                session_id: agent.to_owned(),
                task: ["prompt", "objective", "task"].iter().find_map(|k| call["args"].get(*k).and_then(Value::as_str)).unwrap_or("").to_owned(),
                provider: None,
                model: None,
                report_tokens: 0,
            }));
        }
        out.tool_result(&call_id, content, failed, None);
        if let Some(agent) = agent {
            out.linked_subagent(agent);
            out.event(Event::SubagentEnded(SubagentEnded {
                call_id: call_id.clone(),
                session_id: agent.to_owned(),
                status: if failed { SubagentStatus::Failed } else { SubagentStatus::Completed },
                error: failed.then(|| format!("the subagent's call ended {status}")),
                report_tokens: 0,
                trimmed: false,
                usage: None,
            }));
        }
        answered.insert(call_id);
    }
}

/// The usage of the request this message answered: Gemini's prompt count holds what the cache
/// served, and its output count leaves the thoughts out (as the answer decoder reads them).
fn usage(out: &mut LogBuilder, tokens: Option<&Value>, model: Option<String>) {
    let Some(tokens) = tokens.filter(|t| t.is_object()) else { return };
    let n = |k: &str| tokens.get(k).and_then(Value::as_u64).unwrap_or(0);
    if n("input") + n("output") + n("cached") + n("thoughts") == 0 {
        return;
    }
    let thoughts = n("thoughts");
    out.event(Event::UsageAnchor(UsageAnchor {
        provider: Some(PROVIDER.to_owned()),
        model,
        input_tokens: n("input").saturating_sub(n("cached")) + n("tool"),
        output_tokens: n("output") + thoughts,
        cache_read_tokens: n("cached"),
        cache_write_tokens: 0,
        reasoning_tokens: Some(thoughts),
        omitted_tokens: Some(0),
        head_tokens: None,
        counted: None,
    }));
}

/// A tool's response parts as a result's content, and whether it failed: a `functionResponse`'s
/// `output` and `error` (any other response as its JSON), its nested parts and the parts beside
/// it (images, text).
fn response_content(out: &mut LogBuilder, line: usize, parts: &[Value]) -> (Vec<ToolCallContent>, bool) {
    let mut content = Vec::new();
    let mut failed = false;
    let text = |t: String| ToolCallContent::Content { content: ContentBlock::text(t), meta: None };
    for part in parts {
        if let Some(response) = part.get("functionResponse") {
            match response.get("response") {
                Some(Value::Object(fields)) => {
                    if let Some(output) = fields.get("output") {
                        content.push(text(output.as_str().map_or_else(|| output.to_string(), str::to_owned)));
                    }
                    if let Some(error) = fields.get("error") {
                        failed = true;
                        content.push(text(error.as_str().map_or_else(|| error.to_string(), str::to_owned)));
                    }
                    if !fields.contains_key("output") && !fields.contains_key("error") && !fields.is_empty() {
                        let rest: serde_json::Map<String, Value> = fields.iter().filter(|(k, _)| *k != "__binary_injection__").map(|(k, v)| (k.clone(), v.clone())).collect();
                        if !rest.is_empty() {
                            content.push(text(Value::Object(rest).to_string()));
                        }
                    }
                    for injected in fields.get("__binary_injection__").and_then(Value::as_array).into_iter().flatten() {
                        if let Some(image) = inline_image(out, line, injected) {
                            content.push(ToolCallContent::Content { content: image, meta: None });
                        }
                    }
                }
                Some(other) => content.push(text(other.to_string())),
                None => {}
            }
            for nested in response.get("parts").and_then(Value::as_array).into_iter().flatten() {
                side_part(out, line, nested, &mut content);
            }
        } else {
            side_part(out, line, part, &mut content);
        }
    }
    (content, failed)
}

fn side_part(out: &mut LogBuilder, line: usize, part: &Value, content: &mut Vec<ToolCallContent>) {
    if let Some(text) = part.get("text").and_then(Value::as_str) {
        content.push(ToolCallContent::Content { content: ContentBlock::text(text), meta: None });
    } else if let Some(image) = inline_image(out, line, part) {
        content.push(ToolCallContent::Content { content: image, meta: None });
    } else {
        out.unmapped(&format!("tool_result_part:{}", part_kind(part)));
    }
}

/// An `inlineData` image part as an image block; `None` for any other part (or another kind of
/// inline data: audio, video, a PDF).
fn inline_image(out: &mut LogBuilder, line: usize, part: &Value) -> Option<ContentBlock> {
    let data = part.get("inlineData")?;
    let mime = data.get("mimeType").and_then(Value::as_str).unwrap_or("");
    if !mime.starts_with("image/") {
        return None;
    }
    Some(image_block(data.get("data").and_then(Value::as_str).unwrap_or(""), mime, line, out))
}

/// What a part is, by its one key (`fileData`, `executableCode`, …).
fn part_kind(part: &Value) -> String {
    match part {
        Value::Object(map) => match map.get("inlineData") {
            Some(data) => format!("inlineData:{}", data.get("mimeType").and_then(Value::as_str).unwrap_or("unknown")),
            None => map.keys().find(|k| !matches!(k.as_str(), "thoughtSignature" | "thought" | "callIndex")).cloned().unwrap_or_else(|| "empty".to_owned()),
        },
        _ => "not_an_object".to_owned(),
    }
}

/// A note for the report when the text is no recording at all.
pub fn not_a_recording(recording: &Recording) -> Option<Diagnostic> {
    (recording.meta.is_empty() && recording.messages.is_empty())
        .then(|| Diagnostic::new(&codes::IMPORT_BAD_ENTRY, "no Gemini CLI recording: no `sessionId` and no messages"))
}

#[cfg(test)]
mod tests;
