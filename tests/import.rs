//! Importers on small sessions we write ourselves: what each format's entries become, how
//! branches, compactions and sidechains come through, and how bad input is reported.

use contextview::conversation::{text_of, Item};
use contextview::import::{detect, import, Format, MAX_LINE_BYTES};
use contextview::update::replay;
use contextview::view::{build, BuildOptions};
use contextview::Provider;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn lines(values: &[Value]) -> String {
    values.iter().map(|v| v.to_string() + "\n").collect()
}

/// Item ids and texts of the replayed view, compact enough to compare whole.
fn summary(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|item| match item {
            Item::User(m) => format!("user{}: {}", m.synthetic.map_or(String::new(), |s| format!("({s:?})")), text_of(&m.content)),
            Item::Assistant(a) => format!("assistant: {}", a.text),
            Item::Reasoning(r) => format!("reasoning: {} sig={}", r.text, r.signature.is_some() || r.encrypted.is_some()),
            Item::ToolCall(c) => format!("call {} {}({})", c.call_id, c.name, c.input),
            Item::ToolResult(r) => format!("result {}{}: {}", r.call_id, if r.is_error { " (error)" } else { "" }, text_of(&r.content)),
        })
        .collect()
}

fn codes(imported: &contextview::import::Imported) -> Vec<&str> {
    imported.report.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

fn cc_user(uuid: &str, parent: Option<&str>, content: Value) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "cc-1", "cwd": "/w", "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": content}})
}

fn cc_assistant(uuid: &str, parent: &str, id: &str, content: Value) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "cc-1", "timestamp": "2026-01-01T00:00:01Z",
           "message": {"id": id, "role": "assistant", "model": "claude-sonnet-4-5", "content": content, "stop_reason": "end_turn",
                       "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 50, "cache_creation_input_tokens": 5}}})
}

#[test]
fn claude_code_messages_tools_thinking_and_usage() {
    let text = lines(&[
        cc_user("u1", None, json!("Fix the bug")),
        cc_assistant("a1", "u1", "msg_1", json!([{"type": "thinking", "thinking": "Look first.", "signature": "sig1"}])),
        cc_assistant("a2", "a1", "msg_1", json!([{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a.rs"}}])),
        cc_user("u2", Some("a2"), json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "fn a() {}"}]}])),
        cc_assistant("a3", "u2", "msg_2", json!([{"type": "text", "text": "Done."}])),
        json!({"type": "summary", "summary": "Fixing a bug", "leafUuid": "a3"}),
    ]);
    assert_eq!(detect(&text), Some(Format::ClaudeCode));
    let imported = import(None, &text).unwrap();
    assert_eq!(imported.header.session_id, "cc-1");
    assert_eq!(imported.header.imported_from.as_deref(), Some("claude-code"));
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    let replayed = replay(&imported.records);
    assert_eq!(
        summary(&replayed.items),
        vec![
            "user: Fix the bug",
            "reasoning: Look first. sig=true",
            r#"call toolu_1 Read({"file_path":"a.rs"})"#,
            "result toolu_1: fn a() {}",
            "assistant: Done.",
        ]
    );
    // One usage anchor per API message, with cache reads and writes.
    assert_eq!(imported.report.written.get("usage_anchor"), Some(&2));
    let usage = replayed.state.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens), (100, 50, 5));
    // The thinking replays natively to the same model (once the user speaks again).
    let mut items = replayed.items.clone();
    items.push(Item::User(contextview::conversation::UserMessage { id: "next".into(), content: vec![contextview::conversation::Part::text("thanks")], synthetic: None }));
    let built = build(&items, &BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5")).unwrap();
    assert_eq!(built.report.reasoning.kept, 1);
}

#[test]
fn claude_code_rewind_to_an_earlier_prompt_keeps_only_the_live_branch() {
    let text = lines(&[
        cc_user("u1", None, json!("one")),
        cc_assistant("a1", "u1", "m1", json!([{"type": "text", "text": "first answer"}])),
        cc_user("u2", Some("a1"), json!("two")),
        cc_assistant("a2", "u2", "m2", json!([{"type": "text", "text": "abandoned"}])),
        // The user edits prompt two: a new child of a1.
        cc_user("u2b", Some("a1"), json!("two, edited")),
        cc_assistant("a2b", "u2b", "m3", json!([{"type": "text", "text": "second answer"}])),
    ]);
    let imported = import(Some(Format::ClaudeCode), &text).unwrap();
    assert_eq!(imported.report.written.get("rewind"), Some(&1));
    let items = replay(&imported.records).items;
    assert_eq!(summary(&items), vec!["user: one", "assistant: first answer", "user: two, edited", "assistant: second answer"]);
}

#[test]
fn claude_code_branch_inside_a_turn_keeps_the_shared_part_of_the_turn() {
    let text = lines(&[
        cc_user("u1", None, json!("go")),
        cc_assistant("a1", "u1", "m1", json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}])),
        cc_user("r1", Some("a1"), json!([{"type": "tool_result", "tool_use_id": "t1", "content": "a b"}])),
        cc_assistant("a2", "r1", "m2", json!([{"type": "text", "text": "abandoned continuation"}])),
        // A retry from the tool result: the call and its result stay, the continuation goes.
        cc_assistant("a2b", "r1", "m3", json!([{"type": "text", "text": "kept continuation"}])),
    ]);
    let imported = import(Some(Format::ClaudeCode), &text).unwrap();
    let items = replay(&imported.records).items;
    assert_eq!(
        summary(&items),
        vec!["user: go", r#"call t1 Bash({"command":"ls"})"#, "result t1: a b", "assistant: kept continuation"]
    );
}

#[test]
fn claude_code_metadata_siblings_do_not_branch_and_sidechains_are_counted() {
    let text = lines(&[
        cc_user("u1", None, json!("go")),
        json!({"type": "attachment", "uuid": "x1", "parentUuid": "u1"}),
        json!({"type": "attachment", "uuid": "x2", "parentUuid": "u1"}),
        json!({"type": "progress", "uuid": "p1", "parentUuid": null}),
        cc_assistant("a1", "x2", "m1", json!([{"type": "text", "text": "hi"}])),
        json!({"type": "user", "uuid": "s1", "parentUuid": "a1", "isSidechain": true, "message": {"role": "user", "content": "subagent prompt"}}),
        cc_user("u2", Some("p1"), json!("next")),
    ]);
    let imported = import(Some(Format::ClaudeCode), &text).unwrap();
    assert_eq!(imported.report.written.get("rewind"), None);
    assert_eq!(imported.report.unmapped.get("attachment"), Some(&2));
    assert_eq!(imported.report.unmapped.get("sidechain"), Some(&1));
    assert_eq!(summary(&replay(&imported.records).items), vec!["user: go", "assistant: hi", "user: next"]);
}

#[test]
fn claude_code_compaction_becomes_a_checkpoint_not_a_user_turn() {
    let text = lines(&[
        cc_user("u1", None, json!("old work")),
        cc_assistant("a1", "u1", "m1", json!([{"type": "text", "text": "old answer"}])),
        json!({"type": "system", "subtype": "compact_boundary", "uuid": "cb", "parentUuid": null, "logicalParentUuid": "a1", "compactMetadata": {"preTokens": 150000}}),
        json!({"type": "user", "uuid": "cs", "parentUuid": "cb", "isCompactSummary": true, "message": {"role": "user", "content": "Summary: did old work."}}),
        cc_user("u2", Some("cs"), json!("new work")),
    ]);
    let imported = import(Some(Format::ClaudeCode), &text).unwrap();
    let replayed = replay(&imported.records);
    assert_eq!(summary(&replayed.items), vec!["user(Compaction): <compaction_summary>\nSummary: did old work.\n</compaction_summary>", "user: new work"]);
    // Prompt indices span the compaction (a rewind may reach back across it).
    assert_eq!(replayed.state.prompt_count, 2);
    match imported.records.iter().find_map(|r| match &r.body {
        contextview::update::RecordBody::Event(contextview::update::Event::CompactionCheckpoint(cp)) => Some(cp.clone()),
        _ => None,
    }) {
        Some(cp) => assert_eq!(cp.tokens_before, Some(150000)),
        None => panic!("no checkpoint"),
    }
}

fn codex_item(payload: Value) -> Value {
    json!({"timestamp": "2026-01-01T00:00:00Z", "type": "response_item", "payload": payload})
}

#[test]
fn codex_rollout_items_usage_and_abort() {
    let text = lines(&[
        json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-1", "cwd": "/w", "model_provider": "openai", "base_instructions": {"text": "You are Codex."}}}),
        json!({"timestamp": "t0", "type": "turn_context", "payload": {"model": "gpt-5", "cwd": "/w"}}),
        codex_item(json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions>…</permissions>"}]})),
        codex_item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]})),
        json!({"timestamp": "t1", "type": "event_msg", "payload": {"type": "user_message", "message": "list files"}}),
        codex_item(json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Use ls."}], "encrypted_content": "gAAA"})),
        codex_item(json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "call_1"})),
        codex_item(json!({"type": "function_call_output", "call_id": "call_1", "output": "a.txt"})),
        codex_item(json!({"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch", "call_id": "call_2"})),
        codex_item(json!({"type": "custom_tool_call_output", "call_id": "call_2", "output": "Done"})),
        json!({"timestamp": "t2", "type": "event_msg", "payload": {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 900, "cached_input_tokens": 800, "output_tokens": 30}}}}),
        json!({"timestamp": "t3", "type": "event_msg", "payload": {"type": "turn_aborted", "reason": "interrupted"}}),
    ]);
    assert_eq!(detect(&text), Some(Format::Codex));
    let imported = import(None, &text).unwrap();
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    assert_eq!(imported.report.unmapped.get("event_msg:user_message"), Some(&1));
    let replayed = replay(&imported.records);
    let s = summary(&replayed.items);
    assert_eq!(s[0], "user(SystemReminder): <permissions>…</permissions>");
    assert_eq!(&s[1..6], &[
        "user: list files".to_owned(),
        "reasoning: Use ls. sig=true".to_owned(),
        r#"call call_1 shell({"command":["ls"]})"#.to_owned(),
        "result call_1: a.txt".to_owned(),
        r#"call call_2 apply_patch("*** Begin Patch")"#.to_owned(),
    ]);
    assert!(s[7].starts_with("user(SystemReminder): <turn_aborted>"), "{s:?}");
    assert_eq!(replayed.state.heads.unwrap().system, "You are Codex.");
    assert_eq!(replayed.state.usage.unwrap().cache_read_tokens, 800);
    // Encrypted reasoning and the free-form tool go back to the Responses API natively.
    let built = build(&replayed.items, &BuildOptions::new(Provider::OpenAiResponses, "gpt-5")).unwrap();
    assert_eq!(built.report.reasoning.kept, 1);
    assert!(built.body.contains(r#""type":"custom_tool_call""#));
    assert!(built.body.contains(r#""encrypted_content":"gAAA""#));

    // Without its `rs_` id the API cannot take the reasoning back: its summary is downgraded.
    let without_id = text.replace(r#""id":"rs_1","#, "");
    let items = replay(&import(None, &without_id).unwrap().records).items;
    let built = build(&items, &BuildOptions::new(Provider::OpenAiResponses, "gpt-5")).unwrap();
    assert_eq!((built.report.reasoning.kept, built.report.reasoning.downgraded), (0, 1));
}

#[test]
fn codex_compaction_with_replacement_history() {
    let text = lines(&[
        json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-2"}}),
        codex_item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old"}]})),
        codex_item(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "old answer"}]})),
        json!({"timestamp": "t1", "type": "compacted", "payload": {"message": "We did old things.", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old"}]}]}}),
        codex_item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "new"}]})),
    ]);
    let imported = import(Some(Format::Codex), &text).unwrap();
    assert_eq!(
        summary(&replay(&imported.records).items),
        vec!["user(Compaction): <compaction_summary>\nWe did old things.\n</compaction_summary>", "user: old", "user: new"]
    );
}

fn pi_entry(id: &str, parent: Option<&str>, message: Value) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00Z", "message": message})
}

#[test]
fn pi_tree_messages_compaction_and_extras() {
    let text = lines(&[
        json!({"type": "session", "version": 3, "id": "pi-1", "timestamp": "t", "cwd": "/w", "provider": "anthropic", "modelId": "claude-sonnet-4-5"}),
        pi_entry("e1", None, json!({"role": "user", "content": "hello"})),
        pi_entry("e2", Some("e1"), json!({"role": "assistant", "provider": "anthropic", "model": "claude-sonnet-4-5", "api": "anthropic-messages", "stopReason": "toolUse",
            "usage": {"input": 10, "output": 2, "cacheRead": 0, "cacheWrite": 0},
            "content": [{"type": "thinking", "thinking": "hm", "thinkingSignature": "sig"}, {"type": "toolCall", "id": "toolu_9", "name": "bash", "arguments": {"command": "ls"}}]})),
        pi_entry("e3", Some("e2"), json!({"role": "toolResult", "toolCallId": "toolu_9", "toolName": "bash", "content": [{"type": "text", "text": "x"}], "isError": true})),
        json!({"type": "thinking_level_change", "id": "e4", "parentId": "e3", "thinkingLevel": "high"}),
        pi_entry("e5", Some("e4"), json!({"role": "bashExecution", "command": "git status", "output": "clean", "exitCode": 0})),
        json!({"type": "compaction", "id": "e6", "parentId": "e5", "summary": "Said hello, ran ls.", "firstKeptEntryId": "e5", "tokensBefore": 5000}),
        pi_entry("e7", Some("e6"), json!({"role": "user", "content": [{"type": "text", "text": "next"}]})),
    ]);
    assert_eq!(detect(&text), Some(Format::Pi));
    let imported = import(None, &text).unwrap();
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    assert_eq!(imported.report.unmapped.get("thinking_level_change"), Some(&1));
    let items = replay(&imported.records).items;
    assert_eq!(
        summary(&items),
        vec![
            "user(Compaction): <compaction_summary>\nSaid hello, ran ls.\n</compaction_summary>",
            "user(Interjection): Ran `git status` (exit code 0):\n```\nclean\n```",
            "user: next",
        ]
    );
}

#[test]
fn pi_branch_and_responses_call_ids() {
    let text = lines(&[
        json!({"type": "session", "version": 3, "id": "pi-2", "timestamp": "t", "cwd": "/w"}),
        pi_entry("e1", None, json!({"role": "user", "content": "a"})),
        pi_entry("e2", Some("e1"), json!({"role": "assistant", "provider": "openai", "model": "gpt-5", "api": "openai-responses", "stopReason": "toolUse",
            "content": [{"type": "toolCall", "id": "call_abc|fc_123", "name": "read", "arguments": {"path": "x"}}]})),
        pi_entry("e3", Some("e2"), json!({"role": "toolResult", "toolCallId": "call_abc|fc_123", "toolName": "read", "content": [{"type": "text", "text": "data"}], "isError": false})),
        pi_entry("e4", Some("e3"), json!({"role": "user", "content": "b"})),
        // Branch back to before "b".
        pi_entry("e5", Some("e3"), json!({"role": "user", "content": "b, differently"})),
    ]);
    let imported = import(Some(Format::Pi), &text).unwrap();
    let items = replay(&imported.records).items;
    assert_eq!(
        summary(&items),
        vec!["user: a", r#"call call_abc read({"path":"x"})"#, "result call_abc: data", "user: b, differently"]
    );
}

#[test]
fn pi_version_one_is_linear() {
    let text = lines(&[
        json!({"type": "session", "id": "old", "timestamp": "t", "cwd": "/w", "provider": "anthropic", "modelId": "m"}),
        json!({"type": "message", "timestamp": "t", "message": {"role": "user", "content": [{"type": "text", "text": "q"}]}}),
        json!({"type": "message", "timestamp": "t", "message": {"role": "assistant", "content": [], "stopReason": "aborted", "provider": "openai", "model": "x"}}),
        json!({"type": "message", "timestamp": "t", "message": {"role": "assistant", "content": [{"type": "text", "text": "r"}], "stopReason": "stop", "provider": "anthropic", "model": "m"}}),
    ]);
    let imported = import(Some(Format::Pi), &text).unwrap();
    assert_eq!(imported.report.unmapped.get("assistant:empty_aborted"), Some(&1));
    assert_eq!(summary(&replay(&imported.records).items), vec!["user: q", "assistant: r"]);
}

#[test]
fn bad_input_is_reported_by_line_and_the_rest_imports() {
    let big = format!("{{\"type\":\"user\",\"pad\":\"{}\"}}", "x".repeat(MAX_LINE_BYTES));
    let text = [
        cc_user("u1", None, json!("first")).to_string(),
        "{this is not json".to_owned(),
        "[1, 2, 3]".to_owned(),
        json!({"type": "hologram", "uuid": "h1", "parentUuid": "u1"}).to_string(),
        cc_user("r1", Some("u1"), json!([{"type": "tool_result", "tool_use_id": "never_called", "content": "orphan"}])).to_string(),
        cc_user("i1", Some("r1"), json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "not*base64!"}}])).to_string(),
        big,
        cc_assistant("a1", "i1", "m1", json!([{"type": "tool_use", "id": "dup", "name": "x", "input": {}}, {"type": "tool_use", "id": "dup", "name": "x", "input": {}}])).to_string(),
        r#"{"type":"user","uuid":"u9","parentUuid":"a1","message":{"role":"user","content":"trunc"#.to_owned(),
    ]
    .join("\n");
    let imported = import(Some(Format::ClaudeCode), &text).unwrap();
    let with_lines: Vec<(&str, Option<usize>)> = imported.report.diagnostics.iter().map(|d| (d.code.as_str(), d.line)).collect();
    assert_eq!(
        with_lines,
        vec![
            ("import.malformed_line", Some(2)),
            ("import.not_an_object", Some(3)),
            ("import.bad_image", Some(6)),
            ("import.malformed_line", Some(7)),
            ("import.malformed_line", Some(9)),
        ]
    );
    assert!(imported.report.diagnostics[3].message.contains("over the"));
    assert_eq!(imported.report.unmapped.get("hologram"), Some(&1));
    // The rest imports, replays (the orphan result is reported), and builds a valid request.
    let replayed = replay(&imported.records);
    assert_eq!(replayed.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), vec!["replay.orphan_update"]);
    let mut items = replayed.items;
    items.push(contextview::conversation::Item::User(contextview::conversation::UserMessage {
        id: "end".into(),
        content: vec![contextview::conversation::Part::text("go on")],
        synthetic: None,
    }));
    for provider in Provider::ALL {
        let built = build(&items, &BuildOptions::new(provider, "m")).unwrap();
        assert!(built.report.repairs.len() >= 2, "{provider}: orphan dropped, duplicate id renamed");
    }
}

#[test]
fn unknown_formats_are_refused_with_a_code() {
    let err = import(None, "{\"hello\":1}\n").unwrap_err();
    assert_eq!(err.code(), "unknown_format");
    assert!(import(None, "").is_err());
}
