//! The blocks and items only their API reads — a server or hosted tool's call and its result,
//! and the other output items a model's turn can hold — and which of them a request takes back,
//! in which shape. The kinds are the ones each official SDK's request types list (Anthropic's
//! `ContentBlockParam`, OpenAI Responses' `ResponseInputItem`): the payload types name exactly
//! these, so a built payload is what the SDK's create params take. A block of a kind this
//! version does not know — newer than it, or a beta's — is left out of the request, with the
//! call or result it pairs with, and said (`natives.unknown_kind`); the log keeps it.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::conversation::Item;

/// Anthropic's blocks of a model turn besides text, thinking and tool use.
pub const ANTHROPIC_KINDS: [&str; 8] = [
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "container_upload",
];

/// The server tools a `server_tool_use` block may name.
pub const ANTHROPIC_SERVER_TOOLS: [&str; 7] = [
    "web_search",
    "web_fetch",
    "code_execution",
    "bash_code_execution",
    "text_editor_code_execution",
    "tool_search_tool_regex",
    "tool_search_tool_bm25",
];

/// OpenAI Responses' output items besides messages, reasoning and function and custom tool
/// calls, each of which a request's input takes back.
pub const RESPONSES_KINDS: [&str; 24] = [
    "web_search_call",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "code_interpreter_call",
    "image_generation_call",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "function_call_output",
    "custom_tool_call_output",
    "program",
    "program_output",
    "tool_search_call",
    "tool_search_output",
    "additional_tools",
    "compaction",
];

fn kind(value: &Map<String, Value>) -> &str {
    value.get("type").and_then(Value::as_str).unwrap_or("")
}

/// An Anthropic block a request can take: a kind it lists, and a server tool it has.
fn anthropic_known(value: &Map<String, Value>) -> bool {
    match kind(value) {
        "server_tool_use" => value.get("name").and_then(Value::as_str).is_some_and(|n| ANTHROPIC_SERVER_TOOLS.contains(&n)),
        k => ANTHROPIC_KINDS.contains(&k),
    }
}

/// The ids (`id`, `tool_use_id`) of the Anthropic blocks among `items` that cannot go back:
/// every block that names one of them stays out with it, so no call goes without its result.
pub fn anthropic_unsendable(items: &[&Item]) -> HashSet<String> {
    let mut out = HashSet::new();
    for item in items {
        if let Item::Native(native) = item {
            if !anthropic_known(&native.value) {
                for key in ["id", "tool_use_id"] {
                    if let Some(id) = native.value.get(key).and_then(Value::as_str) {
                        out.insert(id.to_owned());
                    }
                }
            }
        }
    }
    out
}

/// Whether an Anthropic block goes back: a known kind that pairs with nothing left out.
pub fn anthropic_sends(value: &Map<String, Value>, unsendable: &HashSet<String>) -> bool {
    anthropic_known(value)
        && ["id", "tool_use_id"].iter().all(|key| value.get(*key).and_then(Value::as_str).is_none_or(|id| !unsendable.contains(id)))
}

/// A Responses item as a request takes it back, or `None` when it cannot go. What only an
/// answer says is taken off: `created_by` (on the item and on a shell call's outputs), a custom
/// tool output's `status`, a computer call output's `failed` status (a request's is one of
/// `in_progress`, `completed`, `incomplete`); the tools a model was given by another role than
/// the developer's are not the request's to give.
pub fn responses_item(value: &Map<String, Value>) -> Option<Map<String, Value>> {
    let k = kind(value);
    if !RESPONSES_KINDS.contains(&k) {
        return None;
    }
    if k == "additional_tools" && value.get("role").and_then(Value::as_str) != Some("developer") {
        return None;
    }
    let mut out = value.clone();
    out.remove("created_by");
    match k {
        "custom_tool_call_output" => {
            out.remove("status");
        }
        "computer_call_output" if out.get("status").and_then(Value::as_str) == Some("failed") => {
            out.remove("status");
        }
        "shell_call_output" => {
            if let Some(Value::Array(outputs)) = out.get_mut("output") {
                for entry in outputs.iter_mut().filter_map(Value::as_object_mut) {
                    entry.remove("created_by");
                }
            }
        }
        _ => {}
    }
    Some(out)
}

/// The kind of a block or item, to name it in a diagnostic.
pub fn kind_of(value: &Map<String, Value>) -> String {
    match kind(value) {
        "" => "(untyped)".to_owned(),
        "server_tool_use" => format!("server_tool_use `{}`", value.get("name").and_then(Value::as_str).unwrap_or("")),
        k => k.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{Native, Origin};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn native(value: Value) -> Item {
        let Value::Object(value) = value else { unreachable!() };
        Item::Native(Native { id: String::new(), origin: Origin { provider: "anthropic".into(), model: None }, value })
    }

    fn map(value: Value) -> Map<String, Value> {
        let Value::Object(m) = value else { unreachable!() };
        m
    }

    #[test]
    fn an_anthropic_block_of_a_kind_no_request_takes_stays_out_with_its_pair() {
        let items = [
            native(json!({"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}})),
            native(json!({"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []})),
            native(json!({"type": "mcp_tool_use", "id": "mcp_1", "name": "x", "server_name": "s", "input": {}})),
            native(json!({"type": "mcp_tool_result", "tool_use_id": "mcp_1", "content": []})),
            native(json!({"type": "server_tool_use", "id": "srv_2", "name": "a_future_tool", "input": {}})),
            native(json!({"type": "web_search_tool_result", "tool_use_id": "srv_2", "content": []})),
            native(json!({"type": "server_tool_use", "id": "srv_3", "name": "web_fetch", "input": {}})),
            native(json!({"type": "a_future_result", "tool_use_id": "srv_3"})),
        ];
        let refs: Vec<&Item> = items.iter().collect();
        let unsendable = anthropic_unsendable(&refs);
        let sent: Vec<bool> = items.iter().map(|i| match i {
            Item::Native(n) => anthropic_sends(&n.value, &unsendable),
            _ => unreachable!(),
        }).collect();
        assert_eq!(sent, [true, true, false, false, false, false, false, false]);
    }

    #[test]
    fn a_responses_item_goes_back_in_the_requests_shape_or_not_at_all() {
        assert_eq!(
            responses_item(&map(json!({"type": "shell_call_output", "call_id": "c", "created_by": "x", "output": [{"stdout": "a", "created_by": "y"}]}))),
            Some(map(json!({"type": "shell_call_output", "call_id": "c", "output": [{"stdout": "a"}]})))
        );
        assert_eq!(
            responses_item(&map(json!({"type": "custom_tool_call_output", "call_id": "c", "output": "ok", "status": "completed"}))),
            Some(map(json!({"type": "custom_tool_call_output", "call_id": "c", "output": "ok"})))
        );
        assert_eq!(
            responses_item(&map(json!({"type": "computer_call_output", "call_id": "c", "output": {}, "status": "failed"}))),
            Some(map(json!({"type": "computer_call_output", "call_id": "c", "output": {}})))
        );
        let completed = map(json!({"type": "computer_call_output", "call_id": "c", "output": {}, "status": "completed"}));
        assert_eq!(responses_item(&completed), Some(completed.clone()));
        assert_eq!(responses_item(&map(json!({"type": "additional_tools", "role": "developer", "tools": []}))).is_some(), true);
        assert_eq!(responses_item(&map(json!({"type": "additional_tools", "role": "system", "tools": []}))), None);
        assert_eq!(responses_item(&map(json!({"type": "a_future_call", "id": "x"}))), None);
        let search = map(json!({"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}}));
        assert_eq!(responses_item(&search), Some(search.clone()));
    }
}
