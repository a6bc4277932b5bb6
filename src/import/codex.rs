//! Codex rollout JSONL → our log.
//!
//! `response_item` lines are already model items (Responses API shapes): messages, reasoning
//! with encrypted content, function and custom tool calls and their outputs. `session_meta`
//! gives the session id, cwd and base instructions (kept as a prompt-head snapshot);
//! `turn_context` the model (a model switch when it changes); `event_msg` `token_count` the
//! usage anchors and `turn_aborted` the interruption notice Codex shows the model. A
//! `compacted` line becomes a checkpoint, and its replacement history, when present, the new
//! verbatim history. Other `event_msg`s mirror response items for the UI and are counted.

use serde_json::Value;

use super::{image_block, json_lines, Imported, LogBuilder, Stream};
use crate::conversation::SyntheticReason;
use crate::update::acp::{ContentBlock, ProviderMeta, ToolCallContent, ToolCallStatus, ToolKind};
use crate::update::record::{
    CompactionCheckpoint, Event, Header, ModelSwitch, PromptHeadSnapshot, ReminderInjected, UsageAnchor,
};

struct State {
    model: Option<String>,
    provider: String,
    messages: u64,
}

impl State {
    fn meta(&self) -> ProviderMeta {
        ProviderMeta { provider: Some(self.provider.clone()), model: self.model.clone(), ..ProviderMeta::default() }
    }

    fn next_message_id(&mut self, prefix: &str) -> String {
        self.messages += 1;
        format!("{prefix}-{}", self.messages)
    }
}

pub fn import(text: &str) -> Imported {
    let mut out = LogBuilder::new();
    let mut header = Header::new("");
    let mut state = State { model: None, provider: "openai".to_owned(), messages: 0 };

    for (line, parsed) in json_lines(text) {
        let Some(value) = out.object(line, parsed) else { continue };
        let payload = value.get("payload").cloned().unwrap_or(Value::Null);
        match value.get("type").and_then(Value::as_str).unwrap_or("") {
            "session_meta" => session_meta(&mut out, &mut header, &mut state, &payload),
            "turn_context" => {
                if let Some(model) = payload.get("model").and_then(Value::as_str) {
                    if state.model.as_deref() != Some(model) {
                        state.model = Some(model.to_owned());
                        out.event(Event::ModelSwitch(ModelSwitch {
                            provider: state.provider.clone(),
                            model: model.to_owned(),
                            context_window: None,
                        }));
                    }
                }
            }
            "response_item" => response_item(&mut out, &mut state, line, &payload),
            "event_msg" => event_msg(&mut out, &state, &payload),
            "compacted" => {
                let summary = payload.get("message").and_then(Value::as_str).unwrap_or("").to_owned();
                let seq = out.next_seq();
                out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary, first_kept_seq: seq + 1, tokens_before: None, summary_tokens: None }));
                if let Some(Value::Array(history)) = payload.get("replacement_history") {
                    for item in history {
                        response_item(&mut out, &mut state, line, item);
                    }
                }
            }
            other => out.unmapped(if other.is_empty() { "untyped" } else { other }),
        }
    }
    out.finish(header)
}

fn session_meta(out: &mut LogBuilder, header: &mut Header, state: &mut State, payload: &Value) {
    if header.session_id.is_empty() {
        header.session_id = payload.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
        header.cwd = payload.get("cwd").and_then(Value::as_str).map(str::to_owned);
        header.created_at = payload.get("timestamp").and_then(Value::as_str).map(str::to_owned);
    }
    if let Some(provider) = payload.get("model_provider").and_then(Value::as_str) {
        state.provider = provider.to_owned();
    }
    let instructions = payload
        .pointer("/base_instructions/text")
        .or_else(|| payload.get("instructions"))
        .and_then(Value::as_str);
    if let Some(system) = instructions {
        out.event(Event::PromptHeadSnapshot(PromptHeadSnapshot { system: system.to_owned(), first_user_prefix: String::new() }));
    }
}

fn response_item(out: &mut LogBuilder, state: &mut State, line: usize, item: &Value) {
    match item.get("type").and_then(Value::as_str).unwrap_or("") {
        "message" => {
            let role = item.get("role").and_then(Value::as_str).unwrap_or("");
            let (stream, synthetic) = match role {
                "user" => (Stream::User, None),
                // Developer and system messages are instructions the harness injected.
                "developer" | "system" => (Stream::User, Some(SyntheticReason::SystemReminder)),
                "assistant" => (Stream::Agent, None),
                _ => {
                    out.unmapped(&format!("message:{role}"));
                    return;
                }
            };
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
        "function_call" | "custom_tool_call" | "local_shell_call" => {
            let call_id = item.get("call_id").or_else(|| item.get("id")).and_then(Value::as_str).unwrap_or("").to_owned();
            let name = item.get("name").and_then(Value::as_str).unwrap_or("local_shell").to_owned();
            let input = match (item.get("arguments"), item.get("input"), item.get("action")) {
                // Function arguments are a JSON string; keep the parsed object when it parses.
                (Some(Value::String(args)), _, _) => serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.clone())),
                (Some(args), _, _) => args.clone(),
                (None, Some(input), _) => input.clone(),
                (None, None, Some(action)) => action.clone(),
                (None, None, None) => Value::Object(Default::default()),
            };
            if call_id.is_empty() {
                out.bad_line(line, "import.bad_tool_call", "tool call has no call_id");
                return;
            }
            out.tool_call(call_id, &name, Some(input), ProviderMeta { tool_name: Some(name.clone()), ..state.meta() });
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            let Some(call_id) = item.get("call_id").and_then(Value::as_str) else {
                out.bad_line(line, "import.bad_tool_output", "tool output has no call_id");
                return;
            };
            let content = output_content(item.get("output"), line, out);
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
        other => out.unmapped(&format!("response_item:{}", if other.is_empty() { "untyped" } else { other })),
    }
}

fn event_msg(out: &mut LogBuilder, state: &State, payload: &Value) {
    match payload.get("type").and_then(Value::as_str).unwrap_or("") {
        "token_count" => {
            let Some(usage) = payload.pointer("/info/last_token_usage") else { return };
            let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            out.event(Event::UsageAnchor(UsageAnchor {
                provider: Some(state.provider.clone()),
                model: state.model.clone(),
                input_tokens: n("input_tokens"),
                output_tokens: n("output_tokens"),
                cache_read_tokens: n("cached_input_tokens"),
                cache_write_tokens: 0,
            }));
        }
        "turn_aborted" => {
            let reason = payload.get("reason").and_then(Value::as_str).unwrap_or("interrupted");
            out.event(Event::ReminderInjected(ReminderInjected {
                reminder: "turn_aborted".to_owned(),
                text: format!("<turn_aborted>\nThe user stopped the previous turn ({reason}) before it finished.\n</turn_aborted>"),
            }));
        }
        other => out.unmapped(&format!("event_msg:{}", if other.is_empty() { "untyped" } else { other })),
    }
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

/// A tool output as ACP content: a string, or Responses-style parts.
fn output_content(output: Option<&Value>, line: usize, out: &mut LogBuilder) -> Vec<ToolCallContent> {
    let text = |t: &str| ToolCallContent::Content { content: ContentBlock::text(t), meta: None };
    match output {
        Some(Value::String(s)) => vec![text(s)],
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match p.get("type").and_then(Value::as_str).unwrap_or("") {
                "input_text" | "output_text" | "text" => Some(text(p.get("text").and_then(Value::as_str).unwrap_or(""))),
                "input_image" => image_of(p, line, out).map(|content| ToolCallContent::Content { content, meta: None }),
                _ => None,
            })
            .collect(),
        Some(Value::Object(map)) => match map.get("content").or_else(|| map.get("output")) {
            Some(Value::String(s)) => vec![text(s)],
            _ => vec![text(&Value::Object(map.clone()).to_string())],
        },
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![text(&other.to_string())],
    }
}
