//! What Codex's model saw at the end of a rollout.
//!
//! Codex rebuilds its model history from `response_item` lines: a `compacted` line with a
//! replacement history replaces everything before it with that history; an older one without
//! keeps the user messages so far (and the summary); `thread_rolled_back` drops the last user
//! turns. A user prompt recorded only as an `event_msg` `user_message` (newer rollouts can hold
//! no `response_item` copy of it) was still sent, so it counts; when both exist they are one
//! prompt. Harness context sent as user messages (`<environment_context>`, AGENTS.md, skills)
//! is not a prompt.

use serde_json::Value;

use super::SourceView;
use crate::codex::{is_contextual, user_text};
use crate::lines::ParsedLine;

#[derive(Clone)]
enum Piece {
    Prompt(usize, String),
    Text(usize, String),
    Reasoning(usize, Vec<String>, String),
    Call(usize, String),
    Result(String),
    Image(usize, String),
}

#[derive(Default)]
struct History {
    pieces: Vec<Piece>,
    /// Prompt texts of the current turn (an event and its response item are one prompt).
    turn_prompts: Vec<String>,
}

impl History {
    fn prompt(&mut self, line: usize, text: String) {
        if self.turn_prompts.iter().any(|p| p.trim() == text.trim()) {
            return;
        }
        self.turn_prompts.push(text.clone());
        self.pieces.push(Piece::Prompt(line, text));
    }

    fn item(&mut self, line: usize, item: &Value) {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        if kind != "message" || item.get("role").and_then(Value::as_str) != Some("user") {
            self.turn_prompts.clear();
        }
        let s = |k: &str| item.get(k).and_then(Value::as_str);
        match kind {
            "message" => match s("role").unwrap_or("") {
                "user" => {
                    let text = user_text(item);
                    if !is_contextual(&text) {
                        self.prompt(line, text);
                    }
                    self.images(line, item.get("content"));
                }
                "assistant" => {
                    let text: String = parts(item.get("content")).filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
                    self.pieces.push(Piece::Text(line, text));
                }
                _ => {}
            },
            "reasoning" => {
                let summary: Vec<&str> =
                    parts(item.get("summary")).filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
                let ids = [s("id"), s("encrypted_content")].into_iter().flatten().map(str::to_owned).collect();
                self.pieces.push(Piece::Reasoning(line, ids, summary.join("\n\n")));
            }
            "function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call" => {
                if let Some(id) = s("call_id").or_else(|| s("id")) {
                    self.pieces.push(Piece::Call(line, id.to_owned()));
                }
            }
            // A hosted search: the call and what it found are one item.
            "web_search_call" => {
                if let Some(id) = s("id") {
                    self.pieces.push(Piece::Call(line, id.to_owned()));
                    self.pieces.push(Piece::Result(id.to_owned()));
                }
            }
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" | "tool_search_output" => {
                if let Some(id) = s("call_id") {
                    self.pieces.push(Piece::Result(id.to_owned()));
                }
                self.images(line, item.get("output"));
            }
            _ => {}
        }
    }

    fn images(&mut self, line: usize, content: Option<&Value>) {
        for part in parts(content) {
            if part.get("type").and_then(Value::as_str) == Some("input_image") {
                if let Some(data) = part.get("image_url").and_then(Value::as_str).and_then(|u| u.strip_prefix("data:")).and_then(|u| u.split_once(";base64,")) {
                    self.pieces.push(Piece::Image(line, data.1.to_owned()));
                }
            }
        }
    }

    /// Drops the last `turns` user turns (from their prompt on).
    fn roll_back(&mut self, turns: usize) {
        let prompts: Vec<usize> = self.pieces.iter().enumerate().filter(|(_, p)| matches!(p, Piece::Prompt(..))).map(|(i, _)| i).collect();
        if turns > 0 {
            let cut = prompts.len().checked_sub(turns).map_or(0, |k| prompts[k]);
            self.pieces.truncate(cut);
        }
        self.turn_prompts.clear();
    }
}

fn parts(content: Option<&Value>) -> impl Iterator<Item = &Value> {
    content.and_then(Value::as_array).into_iter().flatten()
}

pub fn source_view(lines: &[ParsedLine]) -> SourceView {
    let mut history = History::default();
    for (line, value) in lines.iter().filter_map(|(l, v)| v.as_ref().ok().map(|v| (*l, v))) {
        let (kind, payload) = match (value.get("type").and_then(Value::as_str), value.get("payload")) {
            (Some(kind), Some(payload)) => (kind, payload),
            // An early rollout: bare response items.
            (Some(_), None) => ("response_item", value),
            (None, _) => continue,
        };
        match kind {
            "response_item" => history.item(line, payload),
            "compacted" => match payload.get("replacement_history").and_then(Value::as_array) {
                Some(items) => {
                    history = History::default();
                    for item in items {
                        history.item(line, item);
                    }
                    history.turn_prompts.clear();
                }
                None => {
                    history.pieces.retain(|p| matches!(p, Piece::Prompt(..)));
                    history.turn_prompts.clear();
                }
            },
            "event_msg" => match payload.get("type").and_then(Value::as_str).unwrap_or("") {
                "user_message" if payload.get("kind").and_then(Value::as_str).is_none_or(|k| k == "plain") => {
                    let message = payload.get("message").and_then(Value::as_str).unwrap_or("");
                    history.prompt(line, message.to_owned());
                    for url in payload.get("images").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                        if let Some((_, data)) = url.strip_prefix("data:").and_then(|u| u.split_once(";base64,")) {
                            history.pieces.push(Piece::Image(line, data.to_owned()));
                        }
                    }
                }
                "thread_rolled_back" => history.roll_back(payload.get("num_turns").and_then(Value::as_u64).unwrap_or(0) as usize),
                _ => {}
            },
            _ => {}
        }
    }
    let mut view = SourceView::default();
    for piece in history.pieces {
        match piece {
            Piece::Prompt(line, text) => view.prompt(line, None, &text),
            Piece::Text(line, text) => view.assistant_text(line, None, &text),
            Piece::Reasoning(line, ids, text) => {
                let ids: Vec<Option<&str>> = ids.iter().map(|s| Some(s.as_str())).collect();
                view.reasoning(line, &ids, &text)
            }
            Piece::Call(line, id) => view.call(line, &id),
            Piece::Result(id) => view.result(&id),
            Piece::Image(line, data) => view.image(line, &data),
        }
    }
    view
}
