//! Session logs written by hand: one helper per record kind a test needs.

use serde_json::{json, Value};

pub const HEADER: &str = r#"{"format":"contextview.session-log","version":1,"sessionId":"s"}"#;

pub fn update(seq: u64, update: Value) -> String {
    json!({"seq": seq, "ts": "2026-01-01T00:00:00Z", "update": update}).to_string()
}

pub fn event(seq: u64, event: Value) -> String {
    json!({"seq": seq, "ts": "2026-01-01T00:00:00Z", "event": event}).to_string()
}

pub fn user(seq: u64, id: &str, text: &str) -> String {
    update(seq, json!({"sessionUpdate": "user_message_chunk", "messageId": id, "content": {"type": "text", "text": text}}))
}

pub fn agent(seq: u64, id: &str, text: &str) -> String {
    update(seq, json!({"sessionUpdate": "agent_message_chunk", "messageId": id, "content": {"type": "text", "text": text}}))
}

/// A tool call and its completed result, as two records.
pub fn tool(seq: u64, id: &str, name: &str, input: Value, output: &str) -> [String; 2] {
    [
        update(seq, json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": name, "kind": "execute", "status": "pending", "rawInput": input, "_meta": {"contextview": {"toolName": name}}})),
        update(seq + 1, json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": output}}]})),
    ]
}

pub fn usage(seq: u64, input: u64, output: u64, cache_read: u64) -> String {
    event(seq, json!({"kind": "usage_anchor", "provider": "anthropic", "model": "claude-sonnet-4-5", "inputTokens": input, "outputTokens": output, "cacheReadTokens": cache_read}))
}

pub fn log_of(lines: &[String]) -> String {
    let mut text = String::from(HEADER);
    text.push('\n');
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    text
}

/// Stores what the session asks to be stored: takes its persist effects, acknowledges each as
/// committed and returns their lines (a host with perfect storage).
pub fn store(session: &mut contextview::session::Session) -> Vec<String> {
    let mut lines = Vec::new();
    for effect in session.take_effects() {
        if let contextview::session::Effect::Persist { ticket, lines: batch } = effect {
            session.ack(ticket, contextview::session::PersistOutcome::Committed).unwrap();
            lines.extend(batch);
        }
    }
    lines
}
