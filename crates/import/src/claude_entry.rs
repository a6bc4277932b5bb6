//! One line of a Claude Code session file, as both the importer ([`super::claude_code`]) and
//! the finder of the subagents a main file carries ([`super::claude_subagents`]) read it.

use serde_json::Value;

/// One line that parsed as a JSON object.
pub(super) struct Entry {
    pub(super) line: usize,
    pub(super) value: Value,
}

impl Entry {
    pub(super) fn kind(&self) -> &str {
        self.value.get("type").and_then(Value::as_str).unwrap_or("")
    }

    pub(super) fn uuid(&self) -> Option<&str> {
        self.value.get("uuid").and_then(Value::as_str)
    }

    pub(super) fn sidechain(&self) -> bool {
        self.value.get("isSidechain").and_then(Value::as_bool) == Some(true)
    }

    /// A user or assistant line: what the conversation is made of.
    pub(super) fn is_message(&self) -> bool {
        matches!(self.kind(), "user" | "assistant") && self.uuid().is_some()
    }

    pub(super) fn message_id(&self) -> Option<&str> {
        (self.kind() == "assistant").then(|| self.value.pointer("/message/id").and_then(Value::as_str)).flatten()
    }

    pub(super) fn api_error(&self) -> bool {
        self.value.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true)
    }

    /// The tool_use ids a user line answers, when it holds nothing but tool results.
    pub(super) fn results_only(&self) -> Option<Vec<&str>> {
        if self.kind() != "user" {
            return None;
        }
        let blocks = self.value.pointer("/message/content")?.as_array()?;
        let ids: Vec<&str> = blocks
            .iter()
            .map(|b| (b.get("type").and_then(Value::as_str) == Some("tool_result")).then(|| b.get("tool_use_id").and_then(Value::as_str)).flatten())
            .collect::<Option<_>>()?;
        (!ids.is_empty()).then_some(ids)
    }

    /// The call a harness line was injected for (a skill's body, written after the call).
    pub(super) fn source_tool_use(&self) -> Option<&str> {
        (self.kind() == "user" && self.value.get("isMeta").and_then(Value::as_bool) == Some(true))
            .then(|| self.value.get("sourceToolUseID").and_then(Value::as_str))
            .flatten()
    }
}

/// The text of a message's `content`: the string, or its text blocks joined by newlines.
pub(super) fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}
