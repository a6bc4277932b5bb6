//! Codex rollout JSONL → our log.
//!
//! `response_item` lines are already model items (Responses API shapes): messages, reasoning
//! with encrypted content, function and custom tool calls and their outputs. Early rollouts
//! hold the same items bare, one per line, after a bare session line. `session_meta` gives the
//! session id, cwd and base instructions (kept as a prompt-head snapshot); `turn_context` the
//! model (a model switch when it changes); `event_msg` `token_count` the usage anchors and
//! `turn_aborted` the interruption notice Codex shows the model.
//!
//! Prompts: newer rollouts can record a prompt only as an `event_msg` `user_message` (or, in
//! paginated history, an `item_completed` user message), with no `response_item` copy; such a
//! prompt is written from the event. When both exist, in either order, they are one prompt.
//! User messages that are harness context (`<environment_context>`, AGENTS.md, skills, …) are
//! marked synthetic, as Codex itself does not count them as prompts.
//!
//! A `compacted` line becomes a checkpoint: with a replacement history, that history (which
//! holds the summary as Codex placed it) is the new verbatim history; without one, the summary
//! and the prompts so far, as Codex rebuilds it. `thread_rolled_back` becomes a rewind. Usage:
//! Codex's `input_tokens` includes the cached tokens, so the anchor's fresh input is the
//! difference. Other `event_msg`s mirror response items for the UI and are counted.

use serde_json::Value;
use crate::codes;

use contextview::update::acp::Stream;
use crate::emit::{image_block, LogBuilder, Written};
use crate::lines::ParsedLine;
use crate::report::Imported;
use contextview::conversation::SyntheticReason;
use contextview::update::acp::{ContentBlock, ProviderMeta, ToolCallContent, ToolCallStatus, ToolKind};
use contextview::update::record::{
    CompactionCheckpoint, Event, Header, ModelSwitch, PromptHeadSnapshot, ReminderInjected, Rewind, UsageAnchor,
};

/// Openings (and closings) of the user messages Codex injects as context, not typed by a person.
const CONTEXT_MARKERS: [(&str, &str); 9] = [
    ("<environment_context>", "</environment_context>"),
    ("<user_instructions>", "</user_instructions>"),
    ("# agents.md instructions for", "</instructions>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
    ("<hook_prompt", "</hook_prompt>"),
    ("<user_instructions", "</user_instructions>"),
];

/// How Codex's compaction summary message begins (its `summary_prefix.md`).
const SUMMARY_PREFIX: &str = "Another language model started to solve this problem";

/// A user message Codex injected as context: every text part opens and closes one of its markers.
pub fn is_contextual(text: &str) -> bool {
    let t = text.trim().to_ascii_lowercase();
    t.starts_with(&SUMMARY_PREFIX.to_ascii_lowercase())
        || CONTEXT_MARKERS.iter().any(|(open, close)| t.starts_with(open) && t.ends_with(close))
}

/// The text a person typed in a user message item: its text parts, without the `<image>`
/// wrappers Codex puts around pasted images.
pub fn user_text(item: &Value) -> String {
    let mut text = String::new();
    for part in item.get("content").and_then(Value::as_array).into_iter().flatten() {
        if let Some(t) = part.get("text").and_then(Value::as_str) {
            let trimmed = t.trim();
            if (trimmed.starts_with("<image") && trimmed.ends_with('>') && !trimmed[1..].contains('<')) || trimmed == "</image>" {
                continue;
            }
            text.push_str(t);
        }
    }
    text
}

struct State {
    model: Option<String>,
    provider: String,
    messages: u64,
    /// Real prompts written so far (what a rewind's index counts).
    prompts: u64,
    /// Prompt texts of the current turn: an event and its response item are one prompt.
    turn_prompts: Vec<String>,
    /// Real prompts in the live history, for a compaction without a replacement history.
    history_prompts: Vec<String>,
    /// The last `total_token_usage` seen (repeated token counts are not new usage).
    last_total: Option<Value>,
}

impl State {
    fn meta(&self) -> ProviderMeta {
        ProviderMeta { provider: Some(self.provider.clone()), model: self.model.clone(), ..ProviderMeta::default() }
    }

    fn next_message_id(&mut self, prefix: &str) -> String {
        self.messages += 1;
        format!("{prefix}-{}", self.messages)
    }

    /// Whether `text` is already this turn's prompt; otherwise it becomes it.
    fn new_prompt(&mut self, text: &str) -> bool {
        if self.turn_prompts.iter().any(|p| p.trim() == text.trim()) {
            return false;
        }
        self.turn_prompts.push(text.to_owned());
        true
    }
}

/// Reads a rollout a line at a time: what it writes for a line never depends on a later one.
pub struct Reader {
    state: State,
}

impl Default for Reader {
    fn default() -> Self {
        Reader {
            state: State {
                model: None,
                provider: "openai".to_owned(),
                messages: 0,
                prompts: 0,
                turn_prompts: Vec::new(),
                history_prompts: Vec::new(),
                last_total: None,
            },
        }
    }
}

impl crate::emit::LineReader for Reader {
    fn line(&mut self, written: &mut Written, line: usize, parsed: Result<Value, String>) {
        let Some(value) = written.out.object(line, parsed) else { return };
        let (kind, payload) = match (value.get("type").and_then(Value::as_str), value.get("payload")) {
            (Some(kind), Some(payload)) => (kind.to_owned(), payload.clone()),
            // Early rollouts: a bare session line, then bare response items and state lines.
            (_, None) if value.get("record_type").is_some() => {
                written.out.unmapped("record_type:state");
                return;
            }
            (None, None) if line_is_session(&value) => ("session_meta".to_owned(), value.clone()),
            (Some(_), None) => ("response_item".to_owned(), value.clone()),
            (None, _) => {
                written.out.unmapped("untyped");
                return;
            }
        };
        match kind.as_str() {
            "session_meta" => session_meta(&mut written.out, &mut written.header, &mut self.state, &payload),
            "turn_context" => {
                if let Some(model) = payload.get("model").and_then(Value::as_str) {
                    if self.state.model.as_deref() != Some(model) {
                        self.state.model = Some(model.to_owned());
                        written.out.event(Event::ModelSwitch(ModelSwitch {
                            provider: self.state.provider.clone(),
                            model: model.to_owned(),
                            context_window: None,
                        }));
                    }
                }
            }
            "response_item" => response_item(&mut written.out, &mut self.state, line, &payload, false),
            "event_msg" => event_msg(&mut written.out, &mut self.state, line, &payload),
            "compacted" => compacted(&mut written.out, &mut self.state, line, &payload),
            other => written.out.unmapped(if other.is_empty() { "untyped" } else { other }),
        }
    }
}

/// Imports a rollout's lines, each parsed once ([`crate::lines::json_lines`]).
pub fn import(lines: Vec<ParsedLine>) -> Imported {
    crate::emit::read_lines(&mut Reader::default(), Written::new(Some("primary")), lines)
}

/// A first line of an early rollout: the session itself (`id` and `timestamp`, no item type).
fn line_is_session(value: &Value) -> bool {
    value.get("id").is_some() && value.get("timestamp").is_some()
}

fn session_meta(out: &mut LogBuilder, header: &mut Header, state: &mut State, payload: &Value) {
    // A fork copies its parent's lines after its own: the first session line is the session.
    if !header.session_id.is_empty() {
        out.unmapped("session_meta:repeated");
        return;
    }
    header.session_id = payload.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
    header.cwd = payload.get("cwd").and_then(Value::as_str).map(str::to_owned);
    header.created_at = payload.get("timestamp").and_then(Value::as_str).map(str::to_owned);
    header.parent_session_id = payload
        .get("parent_thread_id")
        .or_else(|| payload.pointer("/source/subagent/thread_spawn/parent_thread_id"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(provider) = payload.get("model_provider").and_then(Value::as_str) {
        state.provider = provider.to_owned();
    }
    let instructions = payload
        .pointer("/base_instructions/text")
        .or_else(|| payload.get("instructions"))
        .and_then(Value::as_str);
    if let Some(system) = instructions {
        out.event(Event::PromptHeadSnapshot(PromptHeadSnapshot { system: system.to_owned(), first_user_prefix: String::new(), cuts: Vec::new() }));
    }
}

/// Writes one response item. `summary_context` is set inside a replacement history, where the
/// summary message Codex wrote is the compaction's summary.
fn response_item(out: &mut LogBuilder, state: &mut State, line: usize, item: &Value, summary_context: bool) {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
    if kind != "message" || item.get("role").and_then(Value::as_str) != Some("user") {
        state.turn_prompts.clear();
    }
    match kind {
        "message" => {
            let role = item.get("role").and_then(Value::as_str).unwrap_or("");
            let (stream, synthetic) = match role {
                "user" => {
                    let text = user_text(item);
                    if is_contextual(&text) {
                        let reason = if summary_context && text.trim_start().starts_with(SUMMARY_PREFIX) {
                            SyntheticReason::Compaction
                        } else {
                            SyntheticReason::SystemReminder
                        };
                        (Stream::User, Some(reason))
                    } else if !state.new_prompt(&text) {
                        // The same prompt as its `user_message` event, written already.
                        out.unmapped("message:user_copy_of_event");
                        return;
                    } else {
                        (Stream::User, None)
                    }
                }
                // Developer and system messages are instructions the harness injected.
                "developer" | "system" => (Stream::User, Some(SyntheticReason::SystemReminder)),
                "assistant" => (Stream::Agent, None),
                _ => {
                    out.unmapped(&format!("message:{role}"));
                    return;
                }
            };
            if stream == Stream::User && synthetic.is_none() {
                state.prompts += 1;
                state.history_prompts.push(user_text(item));
            }
            let id = item.get("id").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| state.next_message_id(role));
            let meta = match stream {
                Stream::Agent => state.meta(),
                Stream::User | Stream::Thought => ProviderMeta { synthetic, ..ProviderMeta::default() },
            };
            for part in content_parts(item.get("content")) {
                match part.get("type").and_then(Value::as_str).unwrap_or("") {
                    "input_text" | "output_text" | "text" => {
                        let text = part.get("text").and_then(Value::as_str).unwrap_or("");
                        out.chunk(stream, &id, ContentBlock::text(text), &meta);
                    }
                    "input_image" => match image_of(&part, line, out) {
                        Some(block) if stream == Stream::User => {
                            out.chunk(stream, &id, block, &meta);
                        }
                        _ => out.unmapped("input_image:unusable"),
                    },
                    other => out.unmapped(&format!("message_part:{other}")),
                }
            }
        }
        "reasoning" => {
            let summary: Vec<&str> = item
                .get("summary")
                .and_then(Value::as_array)
                .map(|s| s.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect())
                .unwrap_or_default();
            let meta = ProviderMeta {
                encrypted: item.get("encrypted_content").and_then(Value::as_str).map(str::to_owned),
                reasoning_id: item.get("id").and_then(Value::as_str).map(str::to_owned),
                ..state.meta()
            };
            let id = state.next_message_id("reasoning");
            out.chunk(Stream::Thought, &id, ContentBlock::text(summary.join("\n\n")), &meta);
        }
        "function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call" => {
            let call_id = item.get("call_id").or_else(|| item.get("id")).and_then(Value::as_str).unwrap_or("").to_owned();
            let default_name = if kind == "tool_search_call" { "tool_search" } else { "local_shell" };
            let name = item.get("name").and_then(Value::as_str).unwrap_or(default_name).to_owned();
            let input = match (item.get("arguments"), item.get("input"), item.get("action")) {
                // Function arguments are a JSON string; keep the parsed object when it parses.
                (Some(Value::String(args)), _, _) => serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.clone())),
                (Some(Value::Null) | None, Some(input), _) => input.clone(),
                (Some(Value::Null) | None, None, Some(action)) => action.clone(),
                (Some(Value::Null) | None, None, None) => Value::Object(Default::default()),
                (Some(args), _, _) => args.clone(),
            };
            if call_id.is_empty() {
                out.bad_line(line, &codes::IMPORT_BAD_TOOL_CALL, "tool call has no call_id");
                return;
            }
            out.tool_call(call_id, &name, Some(input), ProviderMeta { tool_name: Some(name.clone()), ..state.meta() });
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" | "tool_search_output" => {
            let Some(call_id) = item.get("call_id").and_then(Value::as_str) else {
                out.bad_line(line, &codes::IMPORT_BAD_TOOL_OUTPUT, "tool output has no call_id");
                return;
            };
            let output = if kind == "tool_search_output" { item.get("tools") } else { item.get("output") };
            let content = output_content(output, line, out);
            out.tool_result(call_id, content, false, None);
        }
        "web_search_call" => {
            // A hosted tool: the model saw that it searched; keep it as a call with its query.
            let id = item.get("id").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| state.next_message_id("web_search"));
            let action = item.get("action").cloned().unwrap_or(Value::Null);
            let query = action.get("query").and_then(Value::as_str).unwrap_or("").to_owned();
            let content = vec![ToolCallContent::Content { content: ContentBlock::text(format!("Searched the web for: {query}")), meta: None }];
            let meta = ProviderMeta { tool_name: Some("web_search".to_owned()), ..state.meta() };
            out.tool_call_with(id, format!("Web search: {query}"), ToolKind::Fetch, ToolCallStatus::Completed, Some(content), Some(action), meta);
        }
        "agent_message" => {
            // A message from another agent of the thread, delivered to this one.
            let id = item.get("id").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| state.next_message_id("agent"));
            let meta = ProviderMeta { synthetic: Some(SyntheticReason::SubagentCompletion), ..ProviderMeta::default() };
            let parts = content_parts(item.get("content"));
            let texts: Vec<&str> = parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
            if texts.is_empty() {
                out.unmapped("response_item:agent_message_without_text");
            }
            for text in texts {
                out.chunk(Stream::User, &id, ContentBlock::text(text), &meta);
            }
        }
        other => out.unmapped(&format!("response_item:{}", if other.is_empty() { "untyped" } else { other })),
    }
}

fn compacted(out: &mut LogBuilder, state: &mut State, line: usize, payload: &Value) {
    let message = payload.get("message").and_then(Value::as_str).unwrap_or("").to_owned();
    let seq = out.next_seq();
    match payload.get("replacement_history").and_then(Value::as_array) {
        // The replacement history is what Codex sends from now on, its summary included.
        Some(history) => {
            let summary_in_history = history.iter().any(|i| is_contextual(&user_text(i)) && user_text(i).trim_start().starts_with(SUMMARY_PREFIX));
            let summary = if summary_in_history { String::new() } else { message };
            out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary, first_kept_seq: seq + 1, tokens_before: None, summary_tokens: None, trim_kept_over: None }));
            state.history_prompts.clear();
            state.turn_prompts.clear();
            for item in history {
                response_item(out, state, line, item, true);
            }
            state.turn_prompts.clear();
        }
        // An older compaction: the summary, and the prompts so far, which Codex keeps.
        None => {
            out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary: message, first_kept_seq: seq + 1, tokens_before: None, summary_tokens: None, trim_kept_over: None }));
            let prompts = std::mem::take(&mut state.history_prompts);
            for prompt in &prompts {
                let id = state.next_message_id("user");
                out.chunk(Stream::User, &id, ContentBlock::text(prompt.clone()), &ProviderMeta::default());
                state.prompts += 1;
            }
            state.history_prompts = prompts;
            state.turn_prompts.clear();
        }
    }
}

fn event_msg(out: &mut LogBuilder, state: &mut State, line: usize, payload: &Value) {
    match payload.get("type").and_then(Value::as_str).unwrap_or("") {
        "token_count" => {
            let (Some(usage), total) = (payload.pointer("/info/last_token_usage"), payload.pointer("/info/total_token_usage")) else { return };
            // Codex repeats a count (rate-limit updates, after compaction): not a new response.
            if total.is_some() && total == state.last_total.as_ref() {
                return;
            }
            state.last_total = total.cloned();
            let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            let cached = n("cached_input_tokens");
            // Codex's input count includes the cached tokens (as the Responses API reports it).
            out.event(Event::UsageAnchor(UsageAnchor {
                provider: Some(state.provider.clone()),
                model: state.model.clone(),
                input_tokens: n("input_tokens").saturating_sub(cached),
                output_tokens: n("output_tokens"),
                cache_read_tokens: cached,
                cache_write_tokens: n("cache_write_input_tokens"),
                reasoning_tokens: usage.get("reasoning_output_tokens").and_then(Value::as_u64),
                omitted_tokens: Some(0),
                head_tokens: None,
                counted: None,
            }));
        }
        "turn_aborted" => {
            let reason = payload.get("reason").and_then(Value::as_str).unwrap_or("interrupted");
            state.turn_prompts.clear();
            out.event(Event::ReminderInjected(ReminderInjected {
                reminder: "turn_aborted".to_owned(),
                text: format!("<turn_aborted>\nThe user stopped the previous turn ({reason}) before it finished.\n</turn_aborted>"),
            }));
        }
        "user_message" => match payload.get("kind").and_then(Value::as_str) {
            None | Some("plain") => {
                let text = payload.get("message").and_then(Value::as_str).unwrap_or("");
                let images: Vec<&str> = payload.get("images").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
                event_prompt(out, state, line, text, &images);
            }
            // Early rollouts also mirrored injected context as events: never a prompt.
            Some(_) => out.unmapped("event_msg:user_message_context"),
        },
        "item_completed" if payload.pointer("/item/type").and_then(Value::as_str) == Some("UserMessage") => {
            let content = payload.pointer("/item/content").and_then(Value::as_array).cloned().unwrap_or_default();
            let text: String = content.iter().filter(|c| c.get("type").and_then(Value::as_str) == Some("text")).filter_map(|c| c.get("text").and_then(Value::as_str)).collect();
            let images: Vec<&str> = content.iter().filter(|c| c.get("type").and_then(Value::as_str) == Some("image")).filter_map(|c| c.get("image_url").and_then(Value::as_str)).collect();
            event_prompt(out, state, line, &text, &images);
        }
        "thread_rolled_back" => {
            let turns = payload.get("num_turns").and_then(Value::as_u64).unwrap_or(0);
            if turns > 0 {
                let index = state.prompts.saturating_sub(turns);
                out.event(Event::Rewind(Rewind { prompt_index: index }));
                state.prompts = index;
                let keep = state.history_prompts.len().saturating_sub(turns as usize);
                state.history_prompts.truncate(keep);
            }
            state.turn_prompts.clear();
        }
        other => out.unmapped(&format!("event_msg:{}", if other.is_empty() { "untyped" } else { other })),
    }
}

/// A prompt recorded as an event: written unless its response item was (or will be: the
/// response item, when it comes second, is then the copy).
fn event_prompt(out: &mut LogBuilder, state: &mut State, line: usize, text: &str, images: &[&str]) {
    if !state.new_prompt(text) {
        out.unmapped("event_msg:user_message");
        return;
    }
    let id = state.next_message_id("user");
    let meta = ProviderMeta::default();
    out.chunk(Stream::User, &id, ContentBlock::text(text), &meta);
    for url in images {
        if let Some(block) = image_of(&serde_json::json!({"image_url": url}), line, out) {
            out.chunk(Stream::User, &id, block, &meta);
        }
    }
    state.prompts += 1;
    state.history_prompts.push(text.to_owned());
}

fn content_parts(content: Option<&Value>) -> Vec<Value> {
    match content {
        Some(Value::Array(parts)) => parts.clone(),
        Some(Value::String(text)) => vec![serde_json::json!({"type": "input_text", "text": text})],
        _ => Vec::new(),
    }
}

fn image_of(part: &Value, line: usize, out: &mut LogBuilder) -> Option<ContentBlock> {
    let url = part.get("image_url").and_then(Value::as_str)?;
    if let Some(rest) = url.strip_prefix("data:") {
        let (mime, data) = rest.split_once(";base64,")?;
        Some(image_block(data, mime, line, out))
    } else {
        Some(ContentBlock::Image { data: String::new(), mime_type: "image/*".to_owned(), uri: Some(url.to_owned()), annotations: None, meta: None })
    }
}

/// A tool output as ACP content: a string, one content item, or a list of them (text and
/// images); anything else is kept as its JSON text and counted.
fn output_content(output: Option<&Value>, line: usize, out: &mut LogBuilder) -> Vec<ToolCallContent> {
    let text = |t: &str| ToolCallContent::Content { content: ContentBlock::text(t), meta: None };
    let part = |p: &Value, out: &mut LogBuilder| -> Option<ToolCallContent> {
        match p.get("type").and_then(Value::as_str).unwrap_or("") {
            "input_text" | "output_text" | "text" => Some(text(p.get("text").and_then(Value::as_str).unwrap_or(""))),
            "input_image" => match image_of(p, line, out) {
                Some(content) => Some(ToolCallContent::Content { content, meta: None }),
                None => {
                    out.unmapped("tool_output_part:input_image_unusable");
                    None
                }
            },
            other => {
                out.unmapped(&format!("tool_output_part:{}", if other.is_empty() { "untyped" } else { other }));
                None
            }
        }
    };
    match output {
        Some(Value::String(s)) => vec![text(s)],
        Some(Value::Array(parts)) if parts.iter().all(|p| p.get("type").is_some()) => parts.iter().filter_map(|p| part(p, out)).collect(),
        Some(Value::Object(map)) if map.get("type").and_then(Value::as_str).is_some() => part(output.unwrap_or(&Value::Null), out).into_iter().collect(),
        Some(Value::Object(map)) => match map.get("content").or_else(|| map.get("output")) {
            Some(Value::String(s)) => vec![text(s)],
            _ => vec![text(&Value::Object(map.clone()).to_string())],
        },
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![text(&other.to_string())],
    }
}
