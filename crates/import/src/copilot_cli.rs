//! GitHub Copilot CLI session events (`~/.copilot/session-state/<session>/events.jsonl`) → our log.
//!
//! One event a line: `{type, data, id, timestamp, parentId}`, in the order the CLI emitted
//! them. `parentId` is only the event before in memory, often one never written (streaming
//! deltas are not persisted), so the file's order is the conversation's. Read as the CLI itself
//! rebuilds its model's history (npm `@github/copilot` 1.0.10, its event schema and replay):
//! - `session.start`: the session, its start and folder, and its model when it names one;
//!   `session.model_change`: the model from then on (its provider told by the model's name);
//! - `user.message`: the prompt as the model got it (`transformedContent`, the CLI's date and
//!   reminders around what was typed; else `content`), with the images attached as blobs; one
//!   typed by no one (`content` empty: autopilot's nudge to go on) is an auto-continue;
//! - `assistant.message`: its reasoning (`reasoningText`; the opaque signature that comes with
//!   it belongs to the CLI's own endpoint and is not kept), its text, its tool calls
//!   (`toolRequests`);
//! - `tool.execution_complete`: a call's result — `result.content` as the model got it, or the
//!   error's message when it failed; the first for a call wins;
//! - `system.notification`: a notice the model got as a user message;
//! - `session.compaction_start` / `session.compaction_complete`: a compaction, keeping what came
//!   after its start, with the summary the CLI puts in place of the rest.
//!
//! Newer versions (read from npm `@github/copilot` 1.0.64–1.0.102 and their event schema):
//! - `session.binary_asset`: an image's bytes, once a session, before the first event naming it
//!   (`assetId`): a user's attachment (a `blob`, or a `file` kept with the session) and a tool's
//!   `result.binaryResultsForLlm` name it instead of holding `data`; one too large to keep says
//!   why (`omittedReason`) and is counted;
//! - `assistant.message` written in chunks (`apiCallId`, `chunkIndex`, `chunkCount`): the chunks
//!   of one call follow each other and are one model turn in the view;
//! - `skill.context_delivered`: a skill's body the model got during a tool's run, not a prompt;
//! - `session.context_cleared`: the conversation cleared, a rewind to before its first prompt.
//!
//! Older ones: `session.import_legacy`, a session brought in from the format before events
//! ([`legacy`]).
//!
//! A subagent (`subagent.started` for a `task` call) is linked to the call as a session of its
//! own, `<session>/agent-<call>`: its events (`parentToolCallId`), which the parent's model never
//! saw (it got the task's result), are left out of the parent's log (counted) and make that
//! session ([`subagent_transcripts`], imported by `import_tree`).
//!
//! Not kept, counted: the user's own shell runs, hooks, turns' bounds, and
//! the CLI's notices, errors and modes. The file holds no usage the ledger can anchor on (only
//! each answer's output count), nor the system prompt or tool definitions of 1.0.10.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use contextview::update::acp::Stream;
use crate::emit::{image_block, LogBuilder, Written};
use crate::lines::ParsedLine;
use crate::report::Imported;
use contextview::conversation::SyntheticReason;
use contextview::update::acp::{ContentBlock, ProviderMeta, ToolCallContent};
use contextview::update::record::{CompactionCheckpoint, Event, ModelSwitch, Rewind, SubagentEnded, SubagentStarted, SubagentStatus};

/// Whether `value` is an event of this format (a dotted `type` with a `data` object).
pub fn is_event(value: &Value) -> bool {
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
    value.get("data").is_some_and(Value::is_object)
        && ["session.", "user.", "assistant.", "tool.", "hook.", "subagent.", "system."].iter().any(|p| kind.starts_with(p))
}

/// Reads a session's events a line at a time: what it writes for a line never depends on a later one.
#[derive(Default)]
pub struct Reader {
    /// Each `session.binary_asset`'s bytes (base64) and type, by its `assetId`: written once a
    /// session, before the first event that names it.
    assets: Assets,
    model: Option<String>,
    /// The `task` calls made, with the prompt each gave its subagent.
    tasks: HashMap<String, String>,
    /// The subagents started and not yet answered for, by their call.
    running: HashMap<String, SubagentStarted>,
    answered: HashSet<String>,
    compaction_from: Option<u64>,
    /// Whether a prompt was written since the conversation began or was cleared: a clear, or a
    /// session brought in from the older format, takes it back.
    conversed: bool,
}

impl crate::emit::LineReader for Reader {
    fn line(&mut self, written: &mut Written, line: usize, parsed: Result<Value, String>) {
        let Some(value) = written.out.object(line, parsed) else { return };
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        let data = value.get("data").cloned().unwrap_or(Value::Null);
        let id = value.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
        // An asset is the session's, whichever agent's event names it.
        if kind == "session.binary_asset" {
            if !keep_asset(&mut self.assets, &data) {
                written.out.unmapped("session.binary_asset:without_data");
            }
            return;
        }
        if data.get("parentToolCallId").is_some_and(|p| !p.is_null()) || value.get("agentId").is_some_and(Value::is_string) {
            written.out.unmapped(&format!("subagent:{kind}"));
            return;
        }
        let str_of = |k: &str| data.get(k).and_then(Value::as_str).map(str::to_owned);
        match kind.as_str() {
            "session.start" | "session.resume" => {
                if kind == "session.start" {
                    written.header.session_id = str_of("sessionId").unwrap_or_default();
                    written.header.created_at = str_of("startTime");
                    written.header.cwd = data.pointer("/context/cwd").and_then(Value::as_str).map(str::to_owned);
                }
                if let Some(m) = str_of("selectedModel") {
                    switch(&mut written.out, &mut self.model, &m);
                }
            }
            "session.model_change" => match str_of("newModel") {
                Some(m) => switch(&mut written.out, &mut self.model, &m),
                None => written.out.unmapped("session.model_change:without_model"),
            },
            "user.message" => {
                self.conversed |= str_of("content").is_some_and(|c| !c.is_empty());
                user(&mut written.out, line, &id, &data, &self.assets)
            }
            // A session brought in from the older format (1.0.10 to 1.0.40): its messages are
            // the model's history from here on, in place of any before them.
            "session.import_legacy" => match data.get("legacySession").filter(|l| l.is_object()) {
                Some(legacy) => {
                    if std::mem::take(&mut self.conversed) {
                        written.out.event(Event::Rewind(Rewind { prompt_index: 0 }));
                    }
                    if let Some(m) = legacy.get("selectedModel").and_then(Value::as_str) {
                        switch(&mut written.out, &mut self.model, m);
                    }
                    self.conversed = legacy::import(&mut written.out, line, &id, legacy, &answer_meta(self.model.as_deref()));
                }
                None => written.out.unmapped("session.import_legacy:without_session"),
            },
            // The conversation cleared (`/clear`): the model sees nothing of what came before.
            "session.context_cleared" => {
                // (Nothing to take back before a prompt.)
                if std::mem::take(&mut self.conversed) {
                    written.out.event(Event::Rewind(Rewind { prompt_index: 0 }));
                }
                if data.get("initialMessage").is_some_and(|m| !m.is_null()) {
                    written.out.unmapped("session.context_cleared:initial_message");
                }
            }
            // A skill's body as the model got it, during a tool's run: not a prompt of the user's.
            "skill.context_delivered" => {
                let meta = ProviderMeta { synthetic: Some(SyntheticReason::SystemReminder), ..ProviderMeta::default() };
                written.out.chunk(Stream::User, &id, ContentBlock::text(str_of("content").unwrap_or_default()), &meta);
            }
            "assistant.message" => {
                for request in data.get("toolRequests").and_then(Value::as_array).into_iter().flatten() {
                    if let (Some(call), Some(prompt)) = (request.get("toolCallId").and_then(Value::as_str), request.pointer("/arguments/prompt").and_then(Value::as_str)) {
                        self.tasks.insert(call.to_owned(), prompt.to_owned());
                    }
                }
                assistant(&mut written.out, &id, &data, self.model.as_deref())
            }
            // A subagent runs for a call: its events, in this file, make a session of its own.
            "subagent.started" => match str_of("toolCallId") {
                Some(call) => {
                    let started = SubagentStarted {
                        session_id: subagent_session(&written.header.session_id, &call),
                        task: self.tasks.get(&call).cloned().unwrap_or_default(),
                        call_id: call.clone(),
                        provider: None,
                        model: None,
                        report_tokens: 0,
                    };
                    written.out.linked_subagent(&started.session_id);
                    written.out.event(Event::SubagentStarted(started.clone()));
                    self.running.insert(call, started);
                }
                None => written.out.unmapped("subagent.started:without_call"),
            },
            "tool.execution_complete" if data.get("isUserRequested").and_then(Value::as_bool) == Some(true) => written.out.unmapped("tool:user_requested"),
            "tool.execution_complete" => {
                let Some(call) = str_of("toolCallId") else {
                    written.out.bad_line(line, &crate::codes::IMPORT_BAD_TOOL_RESULT, "tool.execution_complete names no toolCallId");
                    return;
                };
                if !self.answered.insert(call.clone()) {
                    written.out.unmapped("tool.execution_complete:repeated");
                    return;
                }
                let success = data.get("success").and_then(Value::as_bool).unwrap_or(false);
                let text = match success {
                    true => data.pointer("/result/content").and_then(Value::as_str).unwrap_or("").to_owned(),
                    false => data.pointer("/error/message").and_then(Value::as_str).filter(|m| !m.is_empty()).unwrap_or("Tool execution failed").to_owned(),
                };
                let mut content = vec![ToolCallContent::Content { content: ContentBlock::text(text), meta: None }];
                // Images a tool gave the model (a screenshot, an image file viewed), inline or as
                // a session asset.
                for binary in data.pointer("/result/binaryResultsForLlm").and_then(Value::as_array).into_iter().flatten() {
                    match binary_image(binary, &self.assets) {
                        Ok((bytes, mime)) => content.push(ToolCallContent::Content { content: image_block(bytes, mime, line, &mut written.out), meta: None }),
                        Err(kind) => written.out.unmapped(&format!("tool_result:{kind}")),
                    }
                }
                written.out.tool_result(&call, content, !success, None);
                if let Some(started) = self.running.remove(&call) {
                    written.out.event(Event::SubagentEnded(SubagentEnded {
                        call_id: call,
                        session_id: started.session_id,
                        status: if success { SubagentStatus::Completed } else { SubagentStatus::Failed },
                        error: (!success).then(|| "the task call failed".to_owned()),
                        report_tokens: 0,
                        trimmed: false,
                        usage: None,
                    }));
                }
            }
            "system.notification" => {
                let meta = ProviderMeta { synthetic: Some(SyntheticReason::SystemReminder), ..ProviderMeta::default() };
                written.out.chunk(Stream::User, &id, ContentBlock::text(str_of("content").unwrap_or_default()), &meta);
            }
            "session.compaction_start" => self.compaction_from = Some(written.out.next_seq()),
            "session.compaction_complete" => match (data.get("success").and_then(Value::as_bool), str_of("summaryContent")) {
                (Some(true), Some(summary)) => {
                    let first_kept_seq = self.compaction_from.take().unwrap_or_else(|| written.out.next_seq() + 1);
                    let tokens_before = data.get("preCompactionTokens").and_then(Value::as_u64);
                    written.out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary, first_kept_seq, tokens_before, summary_tokens: None, trim_kept_over: None }));
                }
                _ => written.out.unmapped("session.compaction_complete:failed"),
            },
            other => written.out.unmapped(if other.is_empty() { "untyped" } else { other }),
        }
    }
}

/// Imports a session's lines, each parsed once ([`crate::lines::json_lines`]).
pub fn import(lines: Vec<ParsedLine>) -> Imported {
    crate::emit::read_lines(&mut Reader::default(), Written::new(Some("primary")), lines)
}

/// The session of the subagent that ran for `call` in `session`.
fn subagent_session(session: &str, call: &str) -> String {
    format!("{session}/agent-{call}")
}

/// The subagents a session's events ran, each as a file of its own would hold it: its task as
/// its prompt, then its own events (those naming the call as their `parentToolCallId`), by call.
pub fn subagent_transcripts(text: &str) -> Vec<(String, String)> {
    let events: Vec<Value> = crate::lines::json_lines(text).filter_map(|(_, v)| v.ok()).collect();
    let session = events.iter().find(|e| e.get("type").and_then(Value::as_str) == Some("session.start")).and_then(|e| e.pointer("/data/sessionId")).and_then(Value::as_str).unwrap_or("");
    let mut transcripts = Vec::new();
    for started in events.iter().filter(|e| e.get("type").and_then(Value::as_str) == Some("subagent.started")) {
        let Some(call) = started.pointer("/data/toolCallId").and_then(Value::as_str) else { continue };
        let prompt = events
            .iter()
            .filter_map(|e| e.pointer("/data/toolRequests").and_then(Value::as_array))
            .flatten()
            .find(|r| r.get("toolCallId").and_then(Value::as_str) == Some(call))
            .and_then(|r| r.pointer("/arguments/prompt"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let child = subagent_session(session, call);
        let mut lines = vec![
            serde_json::json!({"type": "session.start", "data": {"sessionId": child}}).to_string(),
            serde_json::json!({"type": "user.message", "data": {"content": prompt}, "id": format!("{child}/task")}).to_string(),
        ];
        // Its own events, and the session's assets (which any of them may name).
        let own = |e: &&Value| e.pointer("/data/parentToolCallId").and_then(Value::as_str) == Some(call) || e.get("type").and_then(Value::as_str) == Some("session.binary_asset");
        for event in events.iter().filter(own) {
            let mut event = event.clone();
            if let Some(data) = event.get_mut("data").and_then(Value::as_object_mut) {
                data.remove("parentToolCallId");
            }
            lines.push(event.to_string());
        }
        transcripts.push((call.to_owned(), lines.join("\n") + "\n"));
    }
    transcripts
}

fn switch(out: &mut LogBuilder, model: &mut Option<String>, new: &str) {
    if model.as_deref() != Some(new) {
        out.event(Event::ModelSwitch(ModelSwitch { provider: crate::emit::provider_of_model(new).to_owned(), model: new.to_owned(), context_window: None }));
        *model = Some(new.to_owned());
    }
}

/// Session assets by id: their type and their bytes in base64.
pub(crate) type Assets = HashMap<String, (String, String)>;

/// Keeps a `session.binary_asset`'s bytes and type by its id; false when it lacks one of them.
pub(crate) fn keep_asset(assets: &mut Assets, data: &Value) -> bool {
    let field = |k: &str| data.get(k).and_then(Value::as_str).map(str::to_owned);
    match (field("assetId"), field("mimeType"), field("data")) {
        (Some(asset), Some(mime), Some(bytes)) => {
            assets.insert(asset, (mime, bytes));
            true
        }
        _ => false,
    }
}

/// An image a user attached or a tool returned — its bytes inline (`data`) or a session asset
/// (`assetId`) — with its type; else the kind of what it is, to count.
pub(crate) fn binary_image<'a>(binary: &'a Value, assets: &'a Assets) -> Result<(&'a str, &'a str), &'static str> {
    let inline_mime = binary.get("mimeType").and_then(Value::as_str);
    let (bytes, mime) = match (binary.get("data").and_then(Value::as_str), binary.get("assetId").and_then(Value::as_str)) {
        (Some(bytes), _) => (bytes, inline_mime.unwrap_or("")),
        (None, Some(asset)) => match assets.get(asset) {
            Some((mime, bytes)) => (bytes.as_str(), inline_mime.unwrap_or(mime)),
            None => return Err("asset_missing"),
        },
        // Not stored (`omittedReason`: too large, or unavailable): the model got a note.
        (None, None) => return Err("binary_omitted"),
    };
    if mime.starts_with("image/") {
        Ok((bytes, mime))
    } else {
        Err("binary_not_image")
    }
}

fn user(out: &mut LogBuilder, line: usize, id: &str, data: &Value, assets: &Assets) {
    let content = data.get("content").and_then(Value::as_str).unwrap_or("");
    let sent = data.get("transformedContent").and_then(Value::as_str).unwrap_or(content);
    let synthetic = content.is_empty().then_some(SyntheticReason::AutoContinue);
    let meta = ProviderMeta { synthetic, ..ProviderMeta::default() };
    out.chunk(Stream::User, id, ContentBlock::text(sent), &meta);
    for attachment in data.get("attachments").and_then(Value::as_array).into_iter().flatten() {
        let kind = attachment.get("type").and_then(Value::as_str).unwrap_or("");
        match binary_image(attachment, assets) {
            // An image as a blob, or (since the assets) an image file kept with the session.
            Ok((bytes, mime)) if kind == "blob" || kind == "file" => {
                let image = image_block(bytes, mime, line, out);
                out.chunk(Stream::User, id, image, &meta);
            }
            Err(why @ ("asset_missing" | "binary_omitted")) if kind == "blob" => out.unmapped(&format!("attachment:{why}")),
            // A file or folder is named to the model with its line count, read from disk when
            // the CLI sends it: not in the file.
            _ => out.unmapped(&format!("attachment:{}", if kind.is_empty() { "untyped" } else { kind })),
        }
    }
}

/// What an answer of `model` carries: its provider (told by the model's name) and model.
fn answer_meta(model: Option<&str>) -> ProviderMeta {
    ProviderMeta { provider: model.map(|m| crate::emit::provider_of_model(m).to_owned()), model: model.map(str::to_owned), ..ProviderMeta::default() }
}

fn assistant(out: &mut LogBuilder, id: &str, data: &Value, model: Option<&str>) {
    let message_id = data.get("messageId").and_then(Value::as_str).unwrap_or(id);
    let base = answer_meta(model);
    if let Some(reasoning) = data.get("reasoningText").and_then(Value::as_str).filter(|r| !r.trim().is_empty()) {
        out.chunk(Stream::Thought, message_id, ContentBlock::text(reasoning), &base);
    }
    if let Some(text) = data.get("content").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) {
        out.chunk(Stream::Agent, message_id, ContentBlock::text(text), &base);
    }
    for request in data.get("toolRequests").and_then(Value::as_array).into_iter().flatten() {
        let Some(call) = request.get("toolCallId").and_then(Value::as_str).filter(|c| !c.is_empty()) else {
            out.unmapped("tool_request:without_id");
            continue;
        };
        let name = request.get("name").and_then(Value::as_str).unwrap_or("");
        let meta = ProviderMeta { tool_name: Some(name.to_owned()), ..base.clone() };
        out.tool_call(call.to_owned(), name, request.get("arguments").cloned(), meta);
    }
}

pub(crate) mod legacy;
#[cfg(test)]
mod tests;
