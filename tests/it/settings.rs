//! Provider settings (`providerOptions`): each API's own parameters land in its body at their
//! place, once, in a fixed order that keeps every step's prefix; the APIs' rules refuse with
//! their own words; and Anthropic thinking follows the conversation (left out of a tool loop that
//! began without it, back with the next prompt).

use contextview::session::{Command, Processed, Reply, Session};
use contextview::update::Header;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const NOW: &str = "2026-12-03T10:00:00Z";

fn dispatch(s: &mut Session, command: Value) -> Processed {
    s.dispatch(serde_json::from_value::<Command>(command).unwrap(), Some(NOW.into())).unwrap()
}

fn run(s: &mut Session, command: Value) -> Processed {
    let p = dispatch(s, command);
    assert_eq!(p.error, None);
    p
}

fn built(p: &Processed) -> (String, Box<contextview::view::Report>) {
    match &p.reply {
        Some(Reply::Built { body, report }) => (body.to_string(), report.clone()),
        other => panic!("not built: {other:?} {:?}", p.error),
    }
}

fn build(s: &mut Session, options: Value) -> (Value, Box<contextview::view::Report>) {
    let (body, report) = built(&run(s, json!({"type": "buildRequest", "options": options})));
    (serde_json::from_str(&body).unwrap(), report)
}

fn build_text(s: &mut Session, options: Value) -> (Value, Vec<String>) {
    let (body, _) = built(&run(s, json!({"type": "buildRequest", "options": options})));
    (serde_json::from_str(&body).unwrap(), keys(&body))
}

/// The body's top-level keys in the order they are written (read off the text: a JSON value's
/// map may sort them).
fn keys(body: &str) -> Vec<String> {
    let (mut depth, mut in_string, mut escaped, mut key, mut out) = (0, false, false, String::new(), Vec::new());
    let mut expecting_key = false;
    for c in body.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    in_string = false;
                    if expecting_key {
                        out.push(std::mem::take(&mut key));
                        expecting_key = false;
                    }
                }
                (false, c) if expecting_key => key.push(c),
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                // A string right after `{` or `,` at depth 1 is a top-level key.
            }
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            _ => {}
        }
        if depth == 1 && (c == '{' || c == ',') {
            expecting_key = true;
        } else if c != '"' {
            expecting_key = expecting_key && c.is_whitespace();
        }
    }
    out
}

fn asked() -> Session {
    let mut s = Session::create(Header::new("settings"));
    run(&mut s, json!({"type": "userMessage", "text": "Why does the parser test fail?"}));
    s
}

const TOOLS: &str = r#"[{"name": "read", "description": "Read a file.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]"#;

/// Every API's section, in one object: a host switching providers keeps one.
fn every_section() -> Value {
    json!({
        "anthropic": {
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "tool_choice": {"type": "auto", "disable_parallel_tool_use": true},
            "stop_sequences": ["</done>"],
            "metadata": {"user_id": "u-1"},
            "service_tier": "standard_only",
            "stream": true,
            "max_tokens": 4096
        },
        "openai-chat": {
            "reasoning_effort": "high",
            "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": true}},
            "tool_choice": {"type": "function", "function": {"name": "read"}},
            "parallel_tool_calls": false,
            "seed": 7,
            "logit_bias": {"50256": -100},
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_completion_tokens": 4096
        },
        "openai-responses": {
            "reasoning": {"effort": "medium", "summary": "auto"},
            "include": ["reasoning.encrypted_content"],
            "store": false,
            "text": {"verbosity": "low"},
            "tool_choice": "auto",
            "service_tier": "flex",
            "max_output_tokens": 4096
        },
        "gemini": {
            "generationConfig": {"temperature": 0.4, "maxOutputTokens": 4096, "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": true}},
            "safetySettings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "threshold": "BLOCK_ONLY_HIGH"}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read"]}},
            "labels": {"team": "ide"}
        }
    })
}

#[test]
fn each_api_gets_its_own_settings_at_their_place_and_no_other() {
    let tools: Value = serde_json::from_str(TOOLS).unwrap();
    let mut s = asked();
    let options = |provider: &str, model: &str| {
        json!({"provider": provider, "model": model, "system": "Be careful.", "tools": tools, "providerOptions": every_section()})
    };

    let (b, k) = build_text(&mut s, options("anthropic", "claude-sonnet-4-5"));
    assert_eq!(
        k,
        ["model", "max_tokens", "thinking", "tool_choice", "stop_sequences", "metadata", "service_tier", "stream", "cache_control", "tools", "system", "messages"]
    );
    assert_eq!(b["max_tokens"], 4096);
    assert_eq!(b["thinking"], json!({"type": "enabled", "budget_tokens": 2048}));
    assert_eq!(b["tool_choice"], json!({"type": "auto", "disable_parallel_tool_use": true}));

    let (b, k) = build_text(&mut s, options("openai-chat", "gpt-5"));
    assert_eq!(
        k,
        [
            "model", "prompt_cache_key", "max_completion_tokens", "reasoning_effort", "response_format", "tool_choice", "parallel_tool_calls", "seed",
            "logit_bias", "stream", "stream_options", "tools", "messages"
        ]
    );
    assert_eq!(b["max_completion_tokens"], 4096);
    assert_eq!(b["response_format"]["json_schema"]["name"], "answer");

    let (b, k) = build_text(&mut s, options("openai-responses", "gpt-5"));
    assert_eq!(
        k,
        ["model", "prompt_cache_key", "max_output_tokens", "reasoning", "include", "store", "text", "tool_choice", "service_tier", "tools", "instructions", "input"]
    );
    assert_eq!(b["include"], json!(["reasoning.encrypted_content"]));

    let (b, k) = build_text(&mut s, options("gemini", "gemini-2.5-flash"));
    assert_eq!(k, ["generationConfig", "safetySettings", "toolConfig", "labels", "tools", "systemInstruction", "contents"]);
    // One generationConfig: the budget and the settings in the same object.
    assert_eq!(
        b["generationConfig"],
        json!({"maxOutputTokens": 4096, "temperature": 0.4, "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": true}})
    );
}

#[test]
fn the_same_settings_give_the_same_bytes_on_every_step() {
    let mut s = Session::create(Header::new("steps"));
    run(&mut s, json!({"type": "switchModel", "provider": "openai-chat", "model": "gpt-5"}));
    run(&mut s, json!({"type": "userMessage", "text": "Read lib.rs"}));
    let tools: Value = serde_json::from_str(TOOLS).unwrap();
    let options = json!({"tools": tools, "providerOptions": {"openai-chat": {"reasoning_effort": "low", "seed": 1, "stop": ["END"], "metadata": {"b": "2", "a": "1"}}}});
    let (first, _) = built(&run(&mut s, json!({"type": "buildRequest", "options": options})));
    run(&mut s, json!({"type": "assistantResponse", "text": "Reading.", "toolCalls": [{"id": "call_1", "name": "read", "input": {"path": "lib.rs"}}]}));
    run(&mut s, json!({"type": "toolResult", "toolCallId": "call_1", "output": "fn main() {}"}));
    // The same settings written in another order: the same body, extended.
    let reordered = json!({"providerOptions": {"openai-chat": {"metadata": {"a": "1", "b": "2"}, "stop": ["END"], "seed": 1, "reasoning_effort": "low"}}, "tools": tools});
    let (second, report) = built(&run(&mut s, json!({"type": "buildRequest", "options": reordered})));
    let stem = first.strip_suffix("]}").unwrap();
    assert!(second.starts_with(stem), "the step's request extends the last one");
    assert_eq!(report.prefix.as_ref().unwrap().shared_bytes, stem.len());
    assert!(first.contains(r#""metadata":{"a":"1","b":"2"}"#), "{first}");
}

fn refusal(s: &mut Session, options: Value) -> (String, String, Vec<String>) {
    let p = dispatch(s, json!({"type": "buildRequest", "options": options}));
    let error = p.error.expect("refused");
    (error.code, error.message, error.violations.into_iter().map(|v| v.message).collect())
}

#[test]
fn settings_that_break_an_apis_rules_are_refused_in_its_words() {
    let tools: Value = serde_json::from_str(TOOLS).unwrap();
    let mut s = asked();
    let (code, _, said) = refusal(
        &mut s,
        json!({"provider": "anthropic", "tools": tools, "providerOptions": {"anthropic": {"thinking": {"type": "enabled", "budget_tokens": 10000}, "tool_choice": {"type": "tool", "name": "write"}}}}),
    );
    assert_eq!(code, "invalid_options");
    assert_eq!(
        said,
        [
            "`max_tokens` must be greater than `thinking.budget_tokens`.",
            "Thinking may not be enabled when tool_choice forces tool use.",
            "Tool 'write' not found in provided tools",
        ]
    );
    let (_, _, said) = refusal(&mut s, json!({"provider": "gemini", "model": "gemini-2.5-pro", "providerOptions": {"gemini": {"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}}}}));
    assert_eq!(said, ["Budget 0 is invalid. This model only works in thinking mode."]);
    let (_, _, said) = refusal(&mut s, json!({"provider": "openai-chat", "providerOptions": {"openai-chat": {"parallel_tool_calls": true}}}));
    assert_eq!(said, ["Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."]);
    // The session wrote nothing for a refused build.
    assert_eq!(s.records().len(), 1);
}

#[test]
fn the_budget_and_the_cache_key_may_be_given_in_either_place_but_not_differently() {
    let mut s = asked();
    let (b, _) = build(&mut s, json!({"provider": "anthropic", "providerOptions": {"anthropic": {"max_tokens": 2000}}}));
    assert_eq!(b["max_tokens"], 2000);
    let (b, _) = build(&mut s, json!({"provider": "openai-responses", "providerOptions": {"openai-responses": {"prompt_cache_key": "team-a"}}}));
    assert_eq!(b["prompt_cache_key"], "team-a");
    // The section of another API says nothing about this one.
    let (b, _) = build(&mut s, json!({"provider": "openai-chat", "maxTokens": 100, "providerOptions": {"anthropic": {"max_tokens": 2000}}}));
    assert_eq!(b["max_completion_tokens"], 100);
    let (code, message, _) = refusal(&mut s, json!({"provider": "anthropic", "maxTokens": 100, "providerOptions": {"anthropic": {"max_tokens": 2000}}}));
    assert_eq!(code, "invalid_options");
    assert!(message.ends_with("`maxTokens` (100) and the reply budget in `providerOptions.anthropic` (2000) disagree: give it once"), "{message}");
    let (_, message, _) = refusal(&mut s, json!({"provider": "openai-chat", "cache": {"key": "a"}, "providerOptions": {"openai-chat": {"prompt_cache_key": "b"}}}));
    assert!(message.ends_with("`cache.key` (a) and `providerOptions.openai-chat.prompt_cache_key` (b) disagree: give it once"), "{message}");
    let (code, message, _) = refusal(&mut s, json!({"provider": "anthropic", "providerOptions": {"anthropic": {"thinkng": {"type": "adaptive"}}}}));
    assert_eq!(code, "invalid_options");
    assert!(message.ends_with("anthropic: unknown field `thinkng` (did you mean `thinking`?)"), "{message}");
}

const SIGNED: &str = include_str!("../fixtures/answers/anthropic-thinking-tools.sse");

fn thinking() -> Value {
    json!({"provider": "anthropic", "model": "claude-sonnet-4-5", "maxTokens": 8192, "providerOptions": {"anthropic": {"thinking": {"type": "enabled", "budget_tokens": 4096}}}})
}

/// A live session's request after every record equals a fresh build of its log.
fn same_as_fresh(s: &mut Session, options: &Value) -> (Value, Box<contextview::view::Report>) {
    let live = build(s, options.clone());
    let log: String = s.records().iter().map(|r| r.to_line() + "\n").collect();
    let header = s.header().unwrap().to_line();
    let mut fresh = Session::from_log(&format!("{header}\n{log}"));
    assert_eq!(build(&mut fresh, options.clone()).0, live.0, "a fresh build of the log");
    live
}

#[test]
fn thinking_is_left_out_of_a_tool_loop_that_began_without_it_and_comes_back_with_the_next_prompt() {
    let mut s = Session::create(Header::new("thinking"));
    run(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5"}));
    run(&mut s, json!({"type": "userMessage", "text": "Fix the parser."}));
    // The turn was answered by another model, without thinking.
    run(&mut s, json!({"type": "assistantResponse", "provider": "openai-chat", "model": "gpt-5", "toolCalls": [{"id": "call_1", "name": "read", "input": {"path": "a"}}]}));
    run(&mut s, json!({"type": "toolResult", "toolCallId": "call_1", "output": "x"}));
    let options = thinking();
    let (b, report) = same_as_fresh(&mut s, &options);
    assert_eq!(b.get("thinking"), None);
    assert_eq!(report.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), ["thinking.suspended"]);
    // The loop goes on under the thinking model, still without thinking to start it.
    run(&mut s, json!({"type": "assistantResponse", "text": "Done.", "toolCalls": [{"id": "call_2", "name": "read", "input": {"path": "b"}}]}));
    run(&mut s, json!({"type": "toolResult", "toolCallId": "call_2", "output": "y"}));
    let (b, _) = same_as_fresh(&mut s, &options);
    assert_eq!(b.get("thinking"), None);
    // A new prompt starts a new turn: thinking is back.
    run(&mut s, json!({"type": "assistantResponse", "text": "Fixed."}));
    run(&mut s, json!({"type": "userMessage", "text": "Now the lexer."}));
    let (b, report) = same_as_fresh(&mut s, &options);
    assert_eq!(b["thinking"], json!({"type": "enabled", "budget_tokens": 4096}));
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    // The model thinks, calls a tool; its signed thinking starts the loop: thinking stays on.
    let p = run(&mut s, json!({"type": "providerAnswer", "body": SIGNED}));
    let call = match &p.reply {
        Some(Reply::Answered { answer, .. }) => answer.tool_calls[0].id.clone(),
        other => panic!("{other:?}"),
    };
    run(&mut s, json!({"type": "toolResult", "toolCallId": call, "output": "z"}));
    let (b, report) = same_as_fresh(&mut s, &options);
    assert_eq!(b["thinking"], json!({"type": "enabled", "budget_tokens": 4096}));
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    let messages = b["messages"].as_array().unwrap();
    let last_turn = &messages[messages.len() - 2];
    assert_eq!(last_turn["content"][0]["type"], "thinking");
}

#[test]
fn a_request_with_thinking_on_takes_no_prefill() {
    let mut s = asked();
    run(&mut s, json!({"type": "assistantResponse", "text": "The parser"}));
    let mut options = thinking();
    options["limits"] = json!({});
    let p = dispatch(&mut s, json!({"type": "buildRequest", "options": options}));
    let error = p.error.expect("refused");
    assert_eq!(error.code, "ends_with_assistant");
    assert!(error.message.contains("extended thinking is on"), "{}", error.message);
}
