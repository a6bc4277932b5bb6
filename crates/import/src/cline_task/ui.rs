//! A task's `ui_messages.json` (Cline, Roo Code, Kilo Code: the chat as its user saw it), for what
//! the API history lacks: each request the agent made (`say: "api_req_started"`, its text a JSON
//! object of `tokensIn`, `tokensOut`, `cacheWrites`, `cacheReads`), where it stands in the history
//! (Cline's `conversationHistoryIndex`: the message before the request's own), when it started,
//! and — Cline's truncation — the range of messages it did not send (`conversationHistoryDeletedRange`,
//! as the first message after the request's start holds it: the start's own is the range before
//! the request truncated).

use serde_json::Value;

/// One request the agent made, as its chat recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub ts: Option<i64>,
    /// The index of the last history message before the request's own message (Cline).
    pub history_index: Option<i64>,
    pub usage: Option<Usage>,
    /// The history messages (inclusive range) the request did not send (Cline).
    pub deleted: Option<(usize, usize)>,
}

/// A request's usage as the chat recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens not read from or written to the cache.
    pub input: u64,
    pub output: u64,
    pub cache_writes: u64,
    pub cache_reads: u64,
}

/// Whether `text` is a task's chat (`ui_messages.json`): a JSON array of `{ts, type: "say" | "ask"}`.
pub fn is_ui_messages(text: &str) -> bool {
    let start = text.trim_start();
    let head = &start[..start.len().min(2048)];
    start.starts_with('[') && head.contains("\"ts\"") && (head.contains("\"say\"") || head.contains("\"ask\"")) && !head.contains("\"role\"")
}

/// The requests a task's chat recorded, in order (none when it is not one).
pub fn requests(text: &str) -> Vec<Request> {
    let Ok(Value::Array(messages)) = serde_json::from_str::<Value>(text) else { return Vec::new() };
    let mut requests: Vec<Request> = Vec::new();
    // Whether the last request still waits for the first message after its start.
    let mut open = false;
    for message in &messages {
        let deleted = message.get("conversationHistoryDeletedRange").and_then(Value::as_array).and_then(|r| match r.as_slice() {
            [a, b] => Some((usize::try_from(a.as_u64()?).ok()?, usize::try_from(b.as_u64()?).ok()?)),
            _ => None,
        });
        if message.get("say").and_then(Value::as_str) == Some("api_req_started") {
            let info: Value = message.get("text").and_then(Value::as_str).and_then(|t| serde_json::from_str(t).ok()).unwrap_or(Value::Null);
            let n = |k: &str| info.get(k).and_then(Value::as_u64);
            let usage = match (n("tokensIn"), n("tokensOut")) {
                (Some(input), Some(output)) => Some(Usage { input, output, cache_writes: n("cacheWrites").unwrap_or(0), cache_reads: n("cacheReads").unwrap_or(0) }),
                _ => None,
            };
            // (A request nothing followed yet keeps the range the one before it had.)
            let deleted = requests.last().and_then(|r| r.deleted);
            requests.push(Request { ts: message.get("ts").and_then(Value::as_i64), history_index: message.get("conversationHistoryIndex").and_then(Value::as_i64), usage, deleted });
            open = true;
        } else if open {
            if let Some(last) = requests.last_mut() {
                last.deleted = deleted;
            }
            open = false;
        }
    }
    requests
}
