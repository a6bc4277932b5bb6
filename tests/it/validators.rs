//! Each provider validator names every rule a payload breaks. Each test feeds one broken payload
//! and checks the exact rule ids (and, where the provider's error text is known, that text).

use contextview::provider::{Limits, Payload, Provider};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn rules(provider: Provider, payload: Value) -> Vec<String> {
    rules_with(provider, payload, &Limits::default())
}

fn rules_with(provider: Provider, payload: Value, limits: &Limits) -> Vec<String> {
    let payload = Payload::from_json(provider, payload).expect("payload has the provider's shape");
    let mut rules: Vec<String> = payload.validate(limits).into_iter().map(|v| v.rule).collect();
    rules.sort();
    rules.dedup();
    rules
}

fn messages(provider: Provider, payload: Value) -> Vec<String> {
    Payload::from_json(provider, payload).unwrap().validate(&Limits::default()).into_iter().map(|v| v.message).collect()
}

fn anthropic(messages: Value) -> Value {
    json!({"model": "m", "max_tokens": 10, "messages": messages})
}

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC";

#[test]
fn anthropic_valid_conversation_passes() {
    let ok = anthropic(json!([
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "tool_use", "id": "toolu_1", "name": "x", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "r"}]}, {"type": "text", "text": "and"}]}
    ]));
    assert_eq!(rules(Provider::Anthropic, ok), Vec::<String>::new());
}

#[test]
fn anthropic_missing_tool_result_quotes_the_api_error() {
    let payload = anthropic(json!([
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "x", "input": {}}]},
        {"role": "user", "content": [{"type": "text", "text": "next"}]}
    ]));
    assert_eq!(rules(Provider::Anthropic, payload.clone()), vec!["anthropic.tool_use_has_tool_result"]);
    assert_eq!(
        messages(Provider::Anthropic, payload),
        vec!["messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message."]
    );
}

#[test]
fn anthropic_orphan_result_and_result_not_first() {
    let payload = anthropic(json!([
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "tool_result", "tool_use_id": "toolu_9", "content": []}]}
    ]));
    assert_eq!(rules(Provider::Anthropic, payload.clone()), vec!["anthropic.tool_result_first", "anthropic.tool_result_matches_tool_use"]);
    assert!(messages(Provider::Anthropic, payload).iter().any(|m| m.contains("unexpected `tool_use_id` found in `tool_result` blocks: toolu_9")));
}

#[test]
fn anthropic_empty_content_text_and_roles() {
    let payload = anthropic(json!([
        {"role": "user", "content": []},
        {"role": "user", "content": [{"type": "text", "text": ""}]},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    ]));
    assert_eq!(
        rules(Provider::Anthropic, payload),
        vec!["anthropic.content_non_empty", "anthropic.ends_with_user", "anthropic.roles_alternate", "anthropic.text_non_empty"]
    );
}

#[test]
fn anthropic_whitespace_only_text_quotes_the_api_error() {
    // A lone "\n\n" beside thinking and a tool call, as real turns hold: refused.
    let payload = anthropic(json!([
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "\n\n"}, {"type": "tool_use", "id": "toolu_1", "name": "x", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": " \n"}]}]}
    ]));
    assert_eq!(rules(Provider::Anthropic, payload.clone()), vec!["anthropic.text_non_whitespace"]);
    assert_eq!(messages(Provider::Anthropic, payload), vec!["messages: text content blocks must contain non-whitespace text"; 2]);
    // Beside real text a whitespace block is accepted.
    let payload = anthropic(json!([
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "\n"}]}
    ]));
    assert_eq!(rules(Provider::Anthropic, payload), Vec::<String>::new());
}

#[test]
fn anthropic_prefill_is_decided_by_the_model_and_by_thinking() {
    use contextview::provider::anthropic::claude_version;
    assert_eq!(claude_version("claude-opus-4-6"), Some((4, 6)));
    assert_eq!(claude_version("claude-sonnet-4-20250514"), Some((4, 0)));
    assert_eq!(claude_version("claude-sonnet-4-5-20250929"), Some((4, 5)));
    assert_eq!(claude_version("claude-3-5-sonnet-latest"), Some((3, 5)));
    assert_eq!(claude_version("gpt-5"), None);
    let ending = |model: &str, assistant: Value| {
        json!({"model": model, "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}, {"role": "assistant", "content": assistant}]})
    };
    let text = json!([{"type": "text", "text": "Sure"}]);
    // Before 4.6 Claude accepts a prefill; from 4.6 on it does not.
    for model in ["claude-sonnet-4-5", "claude-opus-4-5-20251101", "claude-3-7-sonnet-latest"] {
        assert_eq!(rules(Provider::Anthropic, ending(model, text.clone())), Vec::<String>::new(), "{model}");
    }
    for model in ["claude-opus-4-6", "claude-sonnet-4-6", "claude-sonnet-5", "some-proxy-model"] {
        assert_eq!(rules(Provider::Anthropic, ending(model, text.clone())), vec!["anthropic.ends_with_user"], "{model}");
    }
    // A request that replays extended thinking takes no prefill, whatever the model.
    let thinking = json!([{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "Sure"}]);
    assert_eq!(rules(Provider::Anthropic, ending("claude-sonnet-4-5", thinking)), vec!["anthropic.ends_with_user"]);
    // The builder says which reason applies.
    use contextview::conversation::{AssistantText, Item, Part, UserMessage};
    let items = [
        Item::User(UserMessage { id: "u".into(), content: vec![Part::text("hi")], synthetic: None }),
        Item::Assistant(AssistantText { id: "a".into(), text: String::from("Sure").into(), origin: None, signature: None , annotations: None }),
    ];
    let built = |model: &str| contextview::build(&items, &contextview::BuildOptions::new(Provider::Anthropic, model));
    assert!(built("claude-sonnet-4-5").is_ok());
    let err = built("claude-opus-4-6").unwrap_err();
    assert_eq!(err.code(), "ends_with_assistant");
    assert!(err.message().contains("`claude-opus-4-6` does not accept prefill (Claude 4.6 and later do not)"), "{}", err.message());
}

#[test]
fn anthropic_prefill_is_allowed_when_configured() {
    let payload = anthropic(json!([
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Sure"}]}
    ]));
    let limits = Limits { allow_prefill: Some(true), ..Limits::default() };
    assert_eq!(rules_with(Provider::Anthropic, payload.clone(), &limits), Vec::<String>::new());
    let limits = Limits { allow_prefill: Some(false), ..Limits::default() };
    assert_eq!(rules_with(Provider::Anthropic, payload, &limits), vec!["anthropic.ends_with_user"]);
}

#[test]
fn anthropic_ids_cache_breakpoints_and_images() {
    let cc = json!({"type": "ephemeral"});
    let payload = json!({"model": "m", "max_tokens": 1,
        "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral", "ttl": "5m"}}],
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "a", "cache_control": cc},
                {"type": "text", "text": "b", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
                {"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": "%%%"}, "cache_control": cc},
                {"type": "image", "source": {"type": "url", "url": "ftp://x"}, "cache_control": cc}
            ]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "bad id!", "name": "x", "input": {}}, {"type": "tool_use", "id": "bad id!", "name": "x", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "bad id!", "content": []}]}
        ]});
    assert_eq!(
        rules(Provider::Anthropic, payload),
        vec![
            "anthropic.cache_breakpoints_max",
            "anthropic.cache_ttl_order",
            "anthropic.image_base64",
            "anthropic.image_media_type",
            "anthropic.image_url",
            "anthropic.tool_use_id_format",
            "anthropic.tool_use_id_unique",
        ]
    );
}

#[test]
fn anthropic_size_and_count_limits() {
    let images: Vec<Value> = (0..3).map(|_| json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}})).collect();
    let payload = anthropic(json!([{"role": "user", "content": images}]));
    let limits = Limits { anthropic_max_images: 2, anthropic_max_image_bytes: 10, anthropic_max_body_bytes: 100, ..Limits::default() };
    assert_eq!(
        rules_with(Provider::Anthropic, payload, &limits),
        vec!["anthropic.image_size", "anthropic.max_images", "anthropic.request_too_large"]
    );
}

#[test]
fn openai_chat_tool_ordering_quotes_the_api_errors() {
    let payload = json!({"model": "m", "messages": [
        {"role": "tool", "tool_call_id": "call_0", "content": "early"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
            {"id": "call_2", "type": "function", "function": {"name": "b", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "r"},
        {"role": "user", "content": "next"}
    ]});
    let got = messages(Provider::OpenAiChat, payload);
    assert!(got.contains(&"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.".to_owned()));
    assert!(got.contains(&"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2".to_owned()));
}

#[test]
fn openai_chat_ids_arguments_contents() {
    let long = "c".repeat(41);
    let payload = json!({"model": "m", "messages": [
        {"role": "system", "content": ""},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "file:///x.png"}}]},
        {"role": "user", "content": ""},
        {"role": "assistant", "content": null},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": long, "type": "function", "function": {"name": "a", "arguments": "{not json"}},
            {"id": long, "type": "custom", "function": {"name": "b", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": long, "content": [{"type": "image_url", "image_url": {"url": "https://x"}}]}
    ]});
    assert_eq!(
        rules(Provider::OpenAiChat, payload),
        vec![
            "openai_chat.arguments_json",
            "openai_chat.assistant_content",
            "openai_chat.image_url",
            "openai_chat.system_content",
            "openai_chat.tool_call_id_length",
            "openai_chat.tool_call_id_unique",
            "openai_chat.tool_call_type",
            "openai_chat.tool_content_text",
            "openai_chat.user_content",
        ]
    );
}

#[test]
fn openai_responses_pairs_and_reasoning_quote_the_api_errors() {
    let payload = json!({"model": "m", "input": [
        {"type": "function_call_output", "call_id": "call_0", "output": "early"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "call_1", "name": "a", "arguments": "{}"},
        {"type": "reasoning", "id": "rs_2", "summary": []},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "next"}]}
    ]});
    let got = messages(Provider::OpenAiResponses, payload);
    assert_eq!(
        got,
        vec![
            "No tool call found for function call output with call_id call_0.",
            "No tool output found for function call call_1.",
            "Item 'rs_2' of type 'reasoning' was provided without its required following item.",
        ]
    );
}

#[test]
fn openai_responses_parts_and_ids() {
    let payload = json!({"model": "m", "input": [
        {"type": "message", "role": "user", "content": [{"type": "output_text", "text": "x"}, {"type": "input_image", "detail": "auto"}, {"type": "input_text", "text": ""}]},
        {"type": "message", "role": "assistant", "content": []},
        {"type": "function_call", "call_id": "", "name": "a", "arguments": "nope"},
        {"type": "function_call_output", "call_id": "", "output": "r"},
        {"type": "custom_tool_call", "call_id": "c", "name": "p", "input": "raw"},
        {"type": "custom_tool_call", "call_id": "c", "name": "p", "input": "raw"},
        {"type": "custom_tool_call_output", "call_id": "c", "output": "done"}
    ]});
    assert_eq!(
        rules(Provider::OpenAiResponses, payload),
        vec![
            "openai_responses.arguments_json",
            "openai_responses.call_id_non_empty",
            "openai_responses.call_id_unique",
            "openai_responses.image_source",
            "openai_responses.message_content",
            "openai_responses.part_role",
            "openai_responses.text_non_empty",
        ]
    );
}

#[test]
fn gemini_turn_order_quotes_the_api_errors() {
    let call = json!({"functionCall": {"name": "a", "args": {}}});
    let response = json!({"functionResponse": {"name": "a", "response": {"output": "r"}}});
    let payload = json!({"contents": [
        {"role": "model", "parts": [call]},
        {"role": "user", "parts": [response, response]},
        {"role": "user", "parts": [response]}
    ]});
    assert_eq!(
        messages(Provider::Gemini, payload),
        vec![
            "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
            "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
            "Please ensure that function response turn comes immediately after a function call turn.",
        ]
    );
}

#[test]
fn gemini_roles_parts_and_unanswered_calls() {
    let payload = json!({"contents": [
        {"role": "assistant", "parts": []},
        {"role": "user", "parts": [{"text": "a", "inlineData": {"mimeType": "image/png", "data": PNG}}, {}]},
        {"role": "user", "parts": [{"functionCall": {"name": "a", "args": {}}}]},
        {"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}}]}
    ]});
    assert_eq!(
        rules(Provider::Gemini, payload),
        vec!["gemini.function_call_answered", "gemini.function_call_role", "gemini.part_one_field", "gemini.parts_non_empty", "gemini.role"]
    );
}

#[test]
fn payloads_of_the_wrong_shape_are_refused() {
    assert!(Payload::from_json(Provider::Anthropic, json!({"messages": "nope"})).is_err());
    assert!(Payload::from_json(Provider::Gemini, json!({"contents": [{"role": "user", "parts": [{"text": 3}]}]})).is_err());
    // A tool's input is an object in both APIs that carry it as JSON.
    let call = |input: Value| json!({"model": "m", "max_tokens": 10, "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "x", "input": input}]}]});
    // Anthropic reads a block it does not know the shape of as a block of its own (kept as it
    // is): one whose input is not an object is not read as a tool call.
    let tool_uses = |payload: Payload| match payload {
        Payload::Anthropic(r) => r.messages.iter().flat_map(|m| &m.content).filter(|b| matches!(b, contextview::provider::anthropic::Block::ToolUse { .. })).count(),
        _ => unreachable!(),
    };
    assert_eq!(tool_uses(Payload::from_json(Provider::Anthropic, call(json!({"a": 1}))).unwrap()), 1);
    assert_eq!(tool_uses(Payload::from_json(Provider::Anthropic, call(json!("ls"))).unwrap()), 0);
    let call = |args: Value| json!({"model": "m", "contents": [{"role": "model", "parts": [{"functionCall": {"name": "a", "args": args}}]}]});
    assert!(Payload::from_json(Provider::Gemini, call(json!({}))).is_ok());
    assert!(Payload::from_json(Provider::Gemini, call(json!([1]))).is_err());
}

/// One payload that breaks each rule, per provider. (Several rules have fuller tests above; every
/// rule has one here, and the test below checks the list against the declared rules.)
fn breaking_cases() -> Vec<(&'static str, Provider, Value)> {
    let user = json!({"role": "user", "content": [{"type": "text", "text": "hi"}]});
    let tool_use = json!({"type": "tool_use", "id": "toolu_1", "name": "x", "input": {}});
    let result = json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "r"}]});
    let png = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}});
    let chat_call = json!({"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{}"}});
    let call = json!({"functionCall": {"name": "a", "args": {}}});
    let response = json!({"functionResponse": {"name": "a", "response": {"output": "r"}}});
    let a = Provider::Anthropic;
    let c = Provider::OpenAiChat;
    let r = Provider::OpenAiResponses;
    let g = Provider::Gemini;
    vec![
        ("anthropic.messages_non_empty", a, anthropic(json!([]))),
        ("anthropic.content_non_empty", a, anthropic(json!([{"role": "user", "content": []}, {"role": "assistant", "content": [{"type": "text", "text": "x"}]}, user]))),
        ("anthropic.roles_alternate", a, anthropic(json!([user, user]))),
        ("anthropic.text_non_empty", a, anthropic(json!([{"role": "user", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "x"}]}]))),
        ("anthropic.text_non_whitespace", a, anthropic(json!([{"role": "user", "content": [{"type": "text", "text": " \n"}]}]))),
        ("anthropic.image_in_user", a, anthropic(json!([user, {"role": "assistant", "content": [png]}, user]))),
        ("anthropic.image_media_type", a, anthropic(json!([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": PNG}}]}]))),
        ("anthropic.image_base64", a, anthropic(json!([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "%%"}}]}]))),
        ("anthropic.image_url", a, anthropic(json!([{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "ftp://x"}}]}]))),
        ("anthropic.image_size", a, anthropic(json!([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A".repeat(16_000_000)}}]}]))),
        ("anthropic.max_images", a, anthropic(json!([{"role": "user", "content": vec![png.clone(); 101]}]))),
        ("anthropic.request_too_large", a, anthropic(json!([{"role": "user", "content": [{"type": "text", "text": "x".repeat(33_000_000)}]}]))),
        ("anthropic.tool_use_in_assistant", a, anthropic(json!([{"role": "user", "content": [tool_use]}]))),
        ("anthropic.tool_use_id_format", a, anthropic(json!([user, {"role": "assistant", "content": [{"type": "tool_use", "id": "a b", "name": "x", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a b", "content": []}]}]))),
        ("anthropic.tool_use_id_unique", a, anthropic(json!([user, {"role": "assistant", "content": [tool_use, tool_use]}, {"role": "user", "content": [result]}]))),
        ("anthropic.tool_use_has_tool_result", a, anthropic(json!([user, {"role": "assistant", "content": [tool_use]}, user]))),
        ("anthropic.tool_result_in_user", a, anthropic(json!([user, {"role": "assistant", "content": [tool_use, result]}, user]))),
        ("anthropic.tool_result_first", a, anthropic(json!([user, {"role": "assistant", "content": [tool_use]}, {"role": "user", "content": [{"type": "text", "text": "x"}, result]}]))),
        ("anthropic.tool_result_matches_tool_use", a, anthropic(json!([{"role": "user", "content": [result]}]))),
        ("anthropic.native_in_assistant", a, anthropic(json!([{"role": "user", "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}, {"type": "text", "text": "x"}]}]))),
        ("anthropic.thinking_in_assistant", a, anthropic(json!([{"role": "user", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "x"}]}]))),
        ("anthropic.thinking_signature", a, anthropic(json!([user, {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": ""}, {"type": "text", "text": "x"}]}, user]))),
        ("anthropic.ends_with_user", a, anthropic(json!([user, {"role": "assistant", "content": [{"type": "text", "text": "x"}]}]))),
        ("anthropic.cache_breakpoints_max", a, anthropic(json!([{"role": "user", "content": (0..5).map(|i| json!({"type": "text", "text": format!("b{i}"), "cache_control": {"type": "ephemeral"}})).collect::<Vec<_>>()}]))),
        ("anthropic.cache_ttl_order", a, anthropic(json!([{"role": "user", "content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral", "ttl": "5m"}}, {"type": "text", "text": "b", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]}]))),
        ("anthropic.cache_ttl_value", a, anthropic(json!([{"role": "user", "content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral", "ttl": "2h"}}]}]))),
        ("openai_chat.messages_non_empty", c, json!({"model": "m", "messages": []})),
        ("openai_chat.system_content", c, json!({"model": "m", "messages": [{"role": "system", "content": ""}, {"role": "user", "content": "x"}]})),
        ("openai_chat.user_content", c, json!({"model": "m", "messages": [{"role": "user", "content": ""}]})),
        ("openai_chat.assistant_content", c, json!({"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": null}, {"role": "user", "content": "y"}]})),
        ("openai_chat.image_url", c, json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "file:///x"}}]}]})),
        ("openai_chat.tool_calls_non_empty", c, json!({"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y", "tool_calls": []}, {"role": "user", "content": "z"}]})),
        ("openai_chat.tool_call_type", c, json!({"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "custom", "function": {"name": "a", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "call_1", "content": "r"}]})),
        ("openai_chat.tool_call_id_length", c, json!({"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c".repeat(41), "type": "function", "function": {"name": "a", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c".repeat(41), "content": "r"}]})),
        ("openai_chat.tool_call_id_unique", c, json!({"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": null, "tool_calls": [chat_call, chat_call]}, {"role": "tool", "tool_call_id": "call_1", "content": "r"}]})),
        ("openai_chat.arguments_json", c, json!({"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{no"}}]}, {"role": "tool", "tool_call_id": "call_1", "content": "r"}]})),
        ("openai_chat.tool_calls_answered", c, json!({"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": null, "tool_calls": [chat_call]}, {"role": "user", "content": "y"}]})),
        ("openai_chat.tool_follows_tool_calls", c, json!({"model": "m", "messages": [{"role": "tool", "tool_call_id": "call_1", "content": "r"}, {"role": "user", "content": "y"}]})),
        ("openai_chat.tool_content_text", c, json!({"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": null, "tool_calls": [chat_call]}, {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "image_url", "image_url": {"url": "https://x"}}]}]})),
        ("openai_responses.message_content", r, json!({"model": "m", "input": [{"type": "message", "role": "user", "content": ""}]})),
        ("openai_responses.text_non_empty", r, json!({"model": "m", "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": ""}]}]})),
        ("openai_responses.part_role", r, json!({"model": "m", "input": [{"type": "message", "role": "user", "content": [{"type": "output_text", "text": "x"}]}]})),
        ("openai_responses.image_source", r, json!({"model": "m", "input": [{"type": "message", "role": "user", "content": [{"type": "input_image", "detail": "auto"}]}]})),
        ("openai_responses.call_id_non_empty", r, json!({"model": "m", "input": [{"type": "function_call", "call_id": "", "name": "a", "arguments": "{}"}, {"type": "function_call_output", "call_id": "", "output": "r"}]})),
        ("openai_responses.call_id_unique", r, json!({"model": "m", "input": [{"type": "function_call", "call_id": "c", "name": "a", "arguments": "{}"}, {"type": "function_call", "call_id": "c", "name": "a", "arguments": "{}"}, {"type": "function_call_output", "call_id": "c", "output": "r"}]})),
        ("openai_responses.arguments_json", r, json!({"model": "m", "input": [{"type": "function_call", "call_id": "c", "name": "a", "arguments": "{no"}, {"type": "function_call_output", "call_id": "c", "output": "r"}]})),
        ("openai_responses.call_has_output", r, json!({"model": "m", "input": [{"type": "function_call", "call_id": "c", "name": "a", "arguments": "{}"}]})),
        ("openai_responses.output_has_call", r, json!({"model": "m", "input": [{"type": "function_call_output", "call_id": "c", "output": "r"}]})),
        ("openai_responses.reasoning_followed", r, json!({"model": "m", "input": [{"type": "reasoning", "id": "rs_1", "summary": []}]})),
        ("openai_responses.item_type", r, json!({"model": "m", "input": [{"role": "user", "content": "hi"}, {"action": {"type": "search"}}]})),
        ("openai_responses.reasoning_id", r, json!({"model": "m", "input": [{"type": "reasoning", "summary": []}, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}]}]})),
        ("openai_responses.reasoning_id", r, json!({"model": "m", "input": [{"type": "reasoning", "id": "", "summary": []}, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}]}]})),
        ("openai_responses.unstored_item_id", r, json!({"model": "m", "store": false, "input": [{"type": "message", "role": "user", "content": "x"}, {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}}]})),
        ("gemini.contents_non_empty", g, json!({"contents": []})),
        ("gemini.role", g, json!({"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]})),
        ("gemini.parts_non_empty", g, json!({"contents": [{"role": "user", "parts": []}]})),
        ("gemini.part_one_field", g, json!({"contents": [{"role": "user", "parts": [{"text": "a", "inlineData": {"mimeType": "image/png", "data": PNG}}]}]})),
        ("gemini.function_call_role", g, json!({"contents": [{"role": "user", "parts": [call]}]})),
        ("gemini.function_call_turn_order", g, json!({"contents": [{"role": "model", "parts": [call]}, {"role": "user", "parts": [response]}]})),
        ("gemini.function_call_answered", g, json!({"contents": [{"role": "user", "parts": [{"text": "x"}]}, {"role": "model", "parts": [call]}]})),
        ("gemini.function_response_count", g, json!({"contents": [{"role": "user", "parts": [{"text": "x"}]}, {"role": "model", "parts": [call]}, {"role": "user", "parts": [response, response]}]})),
        ("gemini.function_response_turn_order", g, json!({"contents": [{"role": "user", "parts": [response]}]})),
        // The request settings, each API's rules for them.
        ("anthropic.thinking_budget", a, with(anthropic(json!([user])), json!({"thinking": {"type": "enabled", "budget_tokens": 512}}))),
        ("anthropic.temperature", a, with(anthropic(json!([user])), json!({"temperature": 1.5}))),
        ("anthropic.top_p", a, with(anthropic(json!([user])), json!({"top_p": 2}))),
        ("anthropic.thinking_sampling", a, with(anthropic(json!([user])), json!({"thinking": {"type": "adaptive"}, "top_k": 5}))),
        ("anthropic.thinking_tool_choice", a, with(anthropic(json!([user])), json!({"thinking": {"type": "adaptive"}, "tool_choice": {"type": "any"}}))),
        ("anthropic.tool_choice_tool", a, with(anthropic(json!([user])), json!({"tool_choice": {"type": "tool", "name": "x"}}))),
        ("anthropic.thinking_starts_turn", a, with(
            anthropic(json!([user, {"role": "assistant", "content": [{"type": "text", "text": "t"}, tool_use]}, {"role": "user", "content": [result]}])),
            json!({"thinking": {"type": "adaptive"}}),
        )),
        ("openai_chat.settings", c, json!({"model": "m", "temperature": 3, "messages": [{"role": "user", "content": "x"}]})),
        ("openai_responses.settings", r, json!({"model": "m", "include": ["bogus"], "input": [{"type": "message", "role": "user", "content": "x"}]})),
        ("gemini.settings", g, json!({"generationConfig": {"topP": 2}, "contents": [{"role": "user", "parts": [{"text": "x"}]}]})),
    ]
}

/// `payload` with `fields` added at its top level.
fn with(mut payload: Value, fields: Value) -> Value {
    payload.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    payload
}

#[test]
fn every_rule_has_a_payload_that_breaks_it() {
    for (rule, provider, payload) in breaking_cases() {
        let broken = rules(provider, payload);
        assert!(broken.iter().any(|r| r == rule), "{rule}: broken were {broken:?}");
    }
}

/// Every rule is declared once (`contextview::provider::rules`), named where it is reported —
/// no validator spells an id, and no declared id goes unreported — and has a case above.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_rule_is_declared_once_reported_by_name_and_broken_by_a_case() {
    use contextview::provider::rules::RULES;
    let declared: std::collections::BTreeSet<&str> = RULES.iter().copied().collect();
    assert_eq!(declared.len(), RULES.len(), "a rule declared twice");
    assert!(declared.len() >= 70, "{} rules", declared.len());
    let registry = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/provider/rules.rs")).unwrap();
    let mut sources = String::new();
    for path in crate::common::core_sources().into_iter().filter(|p| !p.ends_with("provider/rules.rs")) {
        let text = std::fs::read_to_string(&path).unwrap();
        sources.push_str(text.split("#[cfg(test)]").next().unwrap_or(""));
        sources.push('\n');
    }
    let mut spelled = Vec::new();
    for prefix in ["\"anthropic.", "\"openai_chat.", "\"openai_responses.", "\"gemini."] {
        for (at, _) in sources.match_indices(prefix) {
            let rest = &sources[at + 1..];
            let id = &rest[..rest.find('"').unwrap()];
            if id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.') {
                spelled.push(id.to_owned());
            }
        }
    }
    assert_eq!(spelled, Vec::<String>::new(), "rule ids spelled where they are reported: name the constant in provider::rules");
    let unreported: Vec<&str> = registry
        .lines()
        .filter_map(|l| l.trim().split_once(" = \"").map(|(name, _)| name))
        .filter(|name| !sources.contains(&format!("rules::{name}")))
        .collect();
    assert_eq!(unreported, Vec::<&str>::new(), "rules declared and never reported");
    // A build refuses the conversation itself for this one (a server-side compaction block it
    // cannot send back), before any payload exists: tests/it/recovery.rs breaks it.
    let by_builds = ["anthropic.compaction_block_passed_back"];
    let covered: std::collections::BTreeSet<&str> = breaking_cases().iter().map(|c| c.0).chain(by_builds).collect();
    let missing: Vec<&&str> = declared.iter().filter(|r| !covered.contains(**r)).collect();
    assert_eq!(missing, Vec::<&&str>::new(), "rules without a breaking case");
    let unknown: Vec<&&str> = covered.iter().filter(|r| !declared.contains(**r)).collect();
    assert_eq!(unknown, Vec::<&&str>::new(), "cases for rules nobody declares");
}

/// A payload that grew by messages after a user message is checked on the new messages alone
/// (the session's fast path); what that finds must be exactly what checking it whole finds.
fn appended_equals_whole(prefix: &Value, grown: &Value) {
    let limits = Limits::default();
    let before = Payload::from_json(Provider::Anthropic, prefix.clone()).unwrap();
    let (violations, mut checked) = before.validate_keeping(&limits, serde_json::to_vec(&before).unwrap().len());
    assert_eq!(violations, Vec::new(), "the prefix itself is valid: {prefix}");
    let after = Payload::from_json(Provider::Anthropic, grown.clone()).unwrap();
    let whole = after.validate(&limits);
    let appended = after.validate_appended(&limits, serde_json::to_vec(&after).unwrap().len(), &mut checked);
    assert_eq!(appended, whole, "{grown}");
}

#[test]
fn anthropic_appended_messages_are_checked_as_the_whole_payload_is() {
    // Every breaking case, grown from each of its valid prefixes that end on a user message.
    let mut splits = 0;
    for (_, provider, payload) in breaking_cases() {
        if provider != Provider::Anthropic {
            continue;
        }
        let messages = payload["messages"].as_array().unwrap().clone();
        for k in 1..messages.len() {
            let mut prefix = payload.clone();
            prefix["messages"] = Value::Array(messages[..k].to_vec());
            let valid = Payload::from_json(Provider::Anthropic, prefix.clone()).unwrap().validate(&Limits::default()).is_empty();
            if valid && messages[k - 1]["role"] == "user" {
                appended_equals_whole(&prefix, &payload);
                splits += 1;
            }
        }
    }
    assert!(splits >= 8, "{splits} splits");

    // Rules that span the old and the new messages.
    let user = |text: &str| json!({"role": "user", "content": [{"type": "text", "text": text}]});
    let call = |id: &str| json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "x", "input": {}}]});
    let answer = |id: &str| json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": [{"type": "text", "text": "r"}]}]});
    let cached = |text: &str, ttl: &str| json!({"role": "user", "content": [{"type": "text", "text": text, "cache_control": {"type": "ephemeral", "ttl": ttl}}]});
    let reply = json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]});
    let png = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}});
    let old = vec![user("a"), call("toolu_1"), answer("toolu_1")];
    let cases: Vec<(Vec<Value>, Vec<Value>)> = vec![
        // Valid growth.
        (old.clone(), vec![call("toolu_2"), answer("toolu_2")]),
        // An id already used before the new messages.
        (old.clone(), vec![call("toolu_1"), answer("toolu_1")]),
        // Two user messages in a row across the boundary.
        (old.clone(), vec![user("b")]),
        // A new result that answers an old call.
        (old.clone(), vec![reply.clone(), answer("toolu_1")]),
        // Cache breakpoints: three before, two after (five in all), and a 1h after a 5m.
        (vec![cached("a", "5m"), reply.clone(), cached("b", "5m"), reply.clone(), cached("c", "5m")], vec![reply.clone(), cached("d", "5m"), reply.clone(), cached("e", "5m")]),
        (vec![cached("a", "5m")], vec![reply.clone(), cached("b", "1h")]),
        // Images: 60 before, 60 after.
        (vec![json!({"role": "user", "content": vec![png.clone(); 60]})], vec![reply.clone(), json!({"role": "user", "content": vec![png.clone(); 60]})]),
        // A growth that ends on the model's turn (prefill refused for this model).
        (old.clone(), vec![reply.clone()]),
    ];
    for (before, added) in cases {
        let grown: Vec<Value> = before.iter().chain(&added).cloned().collect();
        appended_equals_whole(&anthropic(Value::Array(before)), &anthropic(Value::Array(grown)));
    }
}

#[test]
fn a_payload_that_is_not_a_growth_of_the_checked_one_is_checked_whole() {
    let limits = Limits::default();
    // The last message checked was the model's: what follows it decides its rules.
    let before = Payload::from_json(Provider::Anthropic, anthropic(json!([
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "x", "input": {}}]}
    ])))
    .unwrap();
    let (_, mut checked) = before.validate_keeping(&limits, 0);
    let after = Payload::from_json(Provider::Anthropic, anthropic(json!([
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "x", "input": {}}]},
        {"role": "user", "content": [{"type": "text", "text": "no result"}]}
    ])))
    .unwrap();
    let rules: Vec<String> = after.validate_appended(&limits, 0, &mut checked).into_iter().map(|v| v.rule).collect();
    assert_eq!(rules, vec!["anthropic.tool_use_has_tool_result"]);
}
