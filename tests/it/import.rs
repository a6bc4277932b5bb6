//! Importers on small sessions we write ourselves: what each format's entries become, how
//! branches, compactions and sidechains come through, and how bad input is reported.

use contextview::conversation::{text_of, Item};
use contextview_import::{detect, import, Format, MAX_LINE_BYTES};
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
            Item::Native(n) => format!("native {}", serde_json::Value::Object(n.value.clone())),
        })
        .collect()
}

fn codes(imported: &contextview_import::Imported) -> Vec<&str> {
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

    // Stored (the API's default), it goes as it came; Codex sends `store: false`, and then the
    // encrypted content goes without the `rs_` id (which the API would look up and not find).
    assert!(built.body.contains(r#"{"type":"reasoning","id":"rs_1","#), "{}", built.body);
    let mut unstored = BuildOptions::new(Provider::OpenAiResponses, "gpt-5");
    unstored.render.settings.openai_responses.store = Some(false);
    let built = build(&replayed.items, &unstored).unwrap();
    assert!(!built.body.contains("rs_1") && built.body.contains(r#""encrypted_content":"gAAA""#), "{}", built.body);
    let without_id = text.replace(r#""id":"rs_1","#, "");
    let items = replay(&import(None, &without_id).unwrap().records).items;
    let built = build(&items, &BuildOptions::new(Provider::OpenAiResponses, "gpt-5")).unwrap();
    assert_eq!((built.report.reasoning.kept, built.report.reasoning.downgraded), (1, 0));
    // With neither, the API cannot take the reasoning back: its summary is downgraded.
    let neither = without_id.replace(r#""encrypted_content":"gAAA""#, r#""encrypted_content":null"#);
    assert_ne!(neither, without_id);
    let items = replay(&import(None, &neither).unwrap().records).items;
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
    assert_eq!(imported.report.unmapped.get("assistant:aborted"), Some(&1));
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
            ("import.content_missing", None),
        ]
    );
    // The image the source held could not be kept: fidelity names it.
    let missing: Vec<_> = imported.report.fidelity.missing.iter().map(|m| (m.kind, m.line)).collect();
    assert_eq!(missing, vec![(contextview_import::fidelity::ElementKind::Image, 6)]);
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

// --- Shapes real files take (each written here from the format's documented behaviour) -------

/// Message roles and block types of an Anthropic body, one string per message.
fn anthropic_shape(body: &str) -> Vec<String> {
    let body: Value = serde_json::from_str(body).unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let blocks: Vec<&str> = m["content"].as_array().map(|b| b.iter().map(|b| b["type"].as_str().unwrap()).collect()).unwrap_or_default();
            format!("{}[{}]", m["role"].as_str().unwrap(), blocks.join(","))
        })
        .collect()
}

fn cc_block(uuid: &str, parent: &str, message: &str, block: Value) -> Value {
    cc_assistant(uuid, parent, message, json!([block]))
}

fn cc_result(uuid: &str, parent: &str, call: &str, text: &str) -> Value {
    let mut entry = cc_user(uuid, Some(parent), json!([{"type": "tool_result", "tool_use_id": call, "content": text}]));
    entry["sourceToolAssistantUUID"] = json!(parent);
    entry
}

fn tool_use(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": format!("{id}.rs")}})
}

/// Imports, checks nothing the source saw is missing, and returns the import and its items.
fn import_whole(format: Format, text: &str) -> (contextview_import::Imported, Vec<Item>) {
    let imported = import(Some(format), text).unwrap();
    let fidelity = &imported.report.fidelity;
    assert!(fidelity.missing.is_empty(), "missing: {:?}", fidelity.missing);
    let items = replay(&imported.records).items;
    (imported, items)
}

fn with_next_prompt(mut items: Vec<Item>) -> Vec<Item> {
    items.push(Item::User(contextview::conversation::UserMessage { id: "next".into(), content: vec![contextview::conversation::Part::text("go on")], synthetic: None }));
    items
}

#[test]
fn claude_code_parallel_calls_with_each_result_parented_to_its_own_call() {
    // One API message written as four entries; each result hangs off the entry holding its call,
    // so the first result is a sibling of the second call.
    let text = lines(&[
        cc_user("u1", None, json!("read both")),
        cc_block("a1", "u1", "msg_1", json!({"type": "thinking", "thinking": "Both files.", "signature": "sig-1"})),
        cc_block("a2", "a1", "msg_1", json!({"type": "text", "text": "Reading them."})),
        cc_block("a3", "a2", "msg_1", tool_use("toolu_a")),
        cc_block("a4", "a3", "msg_1", tool_use("toolu_b")),
        cc_result("r1", "a3", "toolu_a", "fn a() {}"),
        cc_result("r2", "a4", "toolu_b", "fn b() {}"),
        cc_block("a5", "r2", "msg_2", json!({"type": "text", "text": "Both read."})),
    ]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    assert_eq!(imported.report.written.get("rewind"), None, "no branch");
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    assert_eq!(
        summary(&items),
        vec![
            "user: read both",
            "reasoning: Both files. sig=true",
            "assistant: Reading them.",
            r#"call toolu_a Read({"file_path":"toolu_a.rs"})"#,
            r#"call toolu_b Read({"file_path":"toolu_b.rs"})"#,
            "result toolu_a: fn a() {}",
            "result toolu_b: fn b() {}",
            "assistant: Both read.",
        ]
    );
    let fidelity = &imported.report.fidelity;
    assert_eq!((fidelity.source.tool_calls, fidelity.view.tool_calls), (2, 2));
    // The model that wrote it gets its turn back as it was: one message, its signed thinking first.
    let built = build(&with_next_prompt(items), &BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5")).unwrap();
    assert_eq!(
        anthropic_shape(&built.body),
        vec!["user[text]", "assistant[thinking,text,tool_use,tool_use]", "user[tool_result,tool_result]", "assistant[text]", "user[text]"]
    );
    assert!(built.report.repairs.is_empty(), "{:?}", built.report.repairs);
}

#[test]
fn claude_code_results_written_while_the_message_still_streams() {
    // Claude Code runs a call as soon as its block arrives: its result is written before the
    // message's next block, and the later calls' entries hang off the earlier results.
    let text = lines(&[
        cc_user("u1", None, json!("look around")),
        cc_block("a1", "u1", "msg_1", tool_use("toolu_a")),
        cc_result("r1", "a1", "toolu_a", "A"),
        json!({"type": "progress", "uuid": "p1", "parentUuid": "r1", "data": {"type": "hook_progress"}}),
        cc_block("a2", "p1", "msg_1", tool_use("toolu_b")),
        cc_result("r2", "a2", "toolu_b", "B"),
        cc_block("a3", "r2", "msg_1", tool_use("toolu_c")),
        cc_result("r3", "a3", "toolu_c", "C"),
        cc_block("a4", "r3", "msg_2", json!({"type": "text", "text": "Seen all three."})),
    ]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    let kinds: Vec<String> = summary(&items).iter().map(|s| s.split(':').next().unwrap().to_owned()).collect();
    assert_eq!(kinds, vec!["user", "call toolu_a Read({\"file_path\"", "call toolu_b Read({\"file_path\"", "call toolu_c Read({\"file_path\"", "result toolu_a", "result toolu_b", "result toolu_c", "assistant"]);
    let built = build(&with_next_prompt(items), &BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5")).unwrap();
    assert_eq!(
        anthropic_shape(&built.body),
        vec!["user[text]", "assistant[tool_use,tool_use,tool_use]", "user[tool_result,tool_result,tool_result]", "assistant[text]", "user[text]"]
    );
    // One usage anchor for the message, after its last block.
    assert_eq!(imported.report.written.get("usage_anchor"), Some(&2));
}

#[test]
fn claude_code_parallel_calls_in_the_older_chain_shape() {
    // Older versions chain the results one after another, each parented to the line before.
    let text = lines(&[
        cc_user("u1", None, json!("go")),
        cc_block("a1", "u1", "msg_1", tool_use("toolu_a")),
        cc_block("a2", "a1", "msg_1", tool_use("toolu_b")),
        cc_user("r1", Some("a2"), json!([{"type": "tool_result", "tool_use_id": "toolu_b", "content": "B"}])),
        cc_user("r2", Some("r1"), json!([{"type": "tool_result", "tool_use_id": "toolu_a", "content": "A", "is_error": true}])),
        cc_block("a3", "r2", "msg_2", json!({"type": "text", "text": "done"})),
    ]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    let built = build(&with_next_prompt(items), &BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5")).unwrap();
    assert_eq!(anthropic_shape(&built.body)[1..3], ["assistant[tool_use,tool_use]".to_owned(), "user[tool_result,tool_result]".to_owned()]);
    assert!(built.body.contains(r#""is_error":true"#));
}

#[test]
fn claude_code_skill_bodies_between_parallel_results_stay_after_them() {
    // A skill call injects its body as a harness line right after its result, between the
    // results of the other calls of the same message.
    let mut skill_body = cc_user("m1", Some("r2"), json!([{"type": "text", "text": "Base directory for this skill: /s/a"}]));
    skill_body["isMeta"] = json!(true);
    skill_body["sourceToolUseID"] = json!("toolu_b");
    let text = lines(&[
        cc_user("u1", None, json!("go")),
        cc_block("a1", "u1", "msg_1", tool_use("toolu_a")),
        cc_block("a2", "a1", "msg_1", json!({"type": "tool_use", "id": "toolu_b", "name": "Skill", "input": {"skill": "a"}})),
        cc_block("a3", "a2", "msg_1", tool_use("toolu_c")),
        cc_result("r1", "a1", "toolu_a", "A"),
        cc_result("r2", "a2", "toolu_b", "Launching skill: a"),
        skill_body,
        cc_result("r3", "a3", "toolu_c", "C"),
        cc_block("a4", "r3", "msg_2", json!({"type": "text", "text": "ok"})),
    ]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    let s = summary(&items);
    assert_eq!(&s[4..8], &["result toolu_a: A", "result toolu_b: Launching skill: a", "result toolu_c: C", "user(SystemReminder): Base directory for this skill: /s/a"]);
    let built = build(&with_next_prompt(items), &BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5")).unwrap();
    assert!(built.report.repairs.is_empty(), "{:?}", built.report.repairs);
}

/// The calls and results a split answer's view holds, and the request the model that wrote it
/// gets back: one assistant message with every call, one user message with every result.
fn every_call_kept(text: &str, calls: &[&str], rewinds: Option<usize>) {
    let (imported, items) = import_whole(Format::ClaudeCode, text);
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    assert_eq!(imported.report.written.get("rewind").copied(), rewinds, "rewinds");
    let called: Vec<&str> = items.iter().filter_map(|i| match i { Item::ToolCall(c) => Some(c.call_id.as_str()), _ => None }).collect();
    let mut answered: Vec<&str> = items.iter().filter_map(|i| match i { Item::ToolResult(r) => Some(r.call_id.as_str()), _ => None }).collect();
    // Results in the order they were written, which need not be the calls'.
    answered.sort_unstable();
    assert_eq!((called.as_slice(), answered.as_slice()), (calls, calls));
    let fidelity = &imported.report.fidelity;
    assert_eq!((fidelity.source.tool_calls, fidelity.view.tool_calls), (calls.len(), calls.len()));
    let built = build(&with_next_prompt(items), &BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5")).unwrap();
    // Nothing made up or dropped: at most a result moved up beside the others (past text the user
    // typed while the calls ran, which goes after them).
    assert!(built.report.repairs.iter().all(|r| r.kind == contextview::view::RepairKind::ResultMoved), "{:?}", built.report.repairs);
    let shape = anthropic_shape(&built.body);
    let uses = vec!["tool_use"; calls.len()].join(",");
    let results = vec!["tool_result"; calls.len()].join(",");
    assert!(shape.iter().any(|m| m.ends_with(&format!("{uses}]"))) && shape.iter().any(|m| m.starts_with(&format!("user[{results}"))), "{shape:?}");
}

#[test]
fn claude_code_split_answers_keep_every_call_however_their_entries_are_parented() {
    // Sibling call entries: each call's entry hangs off the message's text, each result off its call.
    every_call_kept(
        &lines(&[
            cc_user("u1", None, json!("read three")),
            cc_block("a1", "u1", "msg_1", json!({"type": "text", "text": "Reading."})),
            cc_block("c1", "a1", "msg_1", tool_use("toolu_a")),
            cc_block("c2", "a1", "msg_1", tool_use("toolu_b")),
            cc_block("c3", "a1", "msg_1", tool_use("toolu_c")),
            cc_result("r1", "c1", "toolu_a", "A"),
            cc_result("r2", "c2", "toolu_b", "B"),
            cc_result("r3", "c3", "toolu_c", "C"),
            cc_block("a2", "r3", "msg_2", json!({"type": "text", "text": "All read."})),
        ]),
        &["toolu_a", "toolu_b", "toolu_c"],
        None,
    );
    // Chained calls, each result on its own call, and a result line that also holds text.
    let mut mixed = cc_user("r1", Some("c1"), json!([{"type": "tool_result", "tool_use_id": "toolu_a", "content": "A"}, {"type": "text", "text": "(the user typed while it ran)"}]));
    mixed["sourceToolAssistantUUID"] = json!("c1");
    every_call_kept(
        &lines(&[
            cc_user("u1", None, json!("read two")),
            cc_block("c1", "u1", "msg_1", tool_use("toolu_a")),
            cc_block("c2", "c1", "msg_1", tool_use("toolu_b")),
            mixed,
            cc_result("r2", "c2", "toolu_b", "B"),
            cc_block("a2", "r2", "msg_2", json!({"type": "text", "text": "Both read."})),
        ]),
        &["toolu_a", "toolu_b"],
        None,
    );
    // Calls chained through progress entries, results written last first, the next answer on the first result.
    every_call_kept(
        &lines(&[
            cc_user("u1", None, json!("look")),
            cc_block("c1", "u1", "msg_1", tool_use("toolu_a")),
            json!({"type": "progress", "uuid": "p1", "parentUuid": "c1", "data": {"type": "hook_progress"}}),
            json!({"type": "progress", "uuid": "p2", "parentUuid": "p1", "data": {"type": "hook_progress"}}),
            cc_block("c2", "p2", "msg_1", tool_use("toolu_b")),
            cc_result("r2", "c2", "toolu_b", "B"),
            cc_result("r1", "c1", "toolu_a", "A"),
            cc_block("a2", "r1", "msg_2", json!({"type": "text", "text": "Seen."})),
        ]),
        &["toolu_a", "toolu_b"],
        None,
    );
}

#[test]
fn claude_code_a_prompt_edited_after_a_split_answer_is_still_a_branch_and_keeps_the_answer_whole() {
    // The user went back to the prompt after the answer and wrote another: one rewind, and the
    // split answer before it keeps every call and result.
    every_call_kept(
        &lines(&[
            cc_user("u1", None, json!("read two")),
            cc_block("c1", "u1", "msg_1", tool_use("toolu_a")),
            cc_block("c2", "c1", "msg_1", tool_use("toolu_b")),
            cc_result("r1", "c1", "toolu_a", "A"),
            cc_result("r2", "c2", "toolu_b", "B"),
            cc_block("a2", "r2", "msg_2", json!({"type": "text", "text": "Both read."})),
            cc_user("u2", Some("a2"), json!("now fix a")),
            cc_block("a3", "u2", "msg_3", json!({"type": "text", "text": "Fixing a."})),
            cc_user("u2b", Some("a2"), json!("now fix b instead")),
            cc_block("a4", "u2b", "msg_4", json!({"type": "text", "text": "Fixing b."})),
        ]),
        &["toolu_a", "toolu_b"],
        Some(1),
    );
    // A prompt hanging off the first result of an answer interrupted before its second result
    // was read: the answer stays whole up to its last entry.
    let (imported, items) = import_whole(
        Format::ClaudeCode,
        &lines(&[
            cc_user("u1", None, json!("read two")),
            cc_block("c1", "u1", "msg_1", tool_use("toolu_a")),
            cc_block("c2", "c1", "msg_1", tool_use("toolu_b")),
            cc_result("r1", "c1", "toolu_a", "A"),
            cc_result("r2", "c2", "toolu_b", "B"),
            cc_user("u2", Some("r1"), json!("stop, read c instead")),
        ]),
    );
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    let s = summary(&items);
    assert_eq!(&s[1..], &[r#"call toolu_a Read({"file_path":"toolu_a.rs"})"#, r#"call toolu_b Read({"file_path":"toolu_b.rs"})"#, "result toolu_a: A", "result toolu_b: B", "user: stop, read c instead"]);
    // A retried request (another message off the same prompt) is a branch: the partial one goes.
    let (imported, items) = import_whole(
        Format::ClaudeCode,
        &lines(&[
            cc_user("u1", None, json!("read a")),
            cc_block("c1", "u1", "msg_1", json!({"type": "text", "text": "Reading"})),
            cc_block("c2", "u1", "msg_1b", tool_use("toolu_a")),
            cc_result("r1", "c2", "toolu_a", "A"),
        ]),
    );
    assert_eq!(imported.report.written.get("rewind"), Some(&1), "{:?}", imported.report.diagnostics);
    assert_eq!(&summary(&items)[1..], &[r#"call toolu_a Read({"file_path":"toolu_a.rs"})"#, "result toolu_a: A"]);
}

#[test]
fn claude_code_subagent_transcript_is_a_session_of_its_own() {
    let side = |mut v: Value| {
        v["isSidechain"] = json!(true);
        v["agentId"] = json!("a0b1");
        v
    };
    let text = lines(&[
        side(cc_user("s1", None, json!("Evaluate the plan"))),
        side(cc_block("s2", "s1", "msg_s", tool_use("toolu_s"))),
        side(cc_result("s3", "s2", "toolu_s", "plan.md")),
        side(cc_block("s4", "s3", "msg_t", json!({"type": "text", "text": "The plan is sound."}))),
    ]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    assert_eq!(imported.report.audience.as_deref(), Some("subagent"));
    assert_eq!(imported.header.session_id, "cc-1/agent-a0b1");
    assert_eq!(imported.header.parent_session_id.as_deref(), Some("cc-1"));
    assert_eq!(imported.report.unmapped.get("sidechain"), None);
    assert_eq!(summary(&items)[0], "user: Evaluate the plan");
    assert_eq!(summary(&items).last().unwrap(), "assistant: The plan is sound.");
    assert_eq!(imported.report.fidelity.view.tool_calls, 1);
}

#[test]
fn claude_code_helper_transcript_starting_under_a_parent_in_the_main_file() {
    // Claude Code's own helpers (compaction, prompt suggestions) write transcripts whose first
    // lines hang off entries of the main session's file.
    let side = |mut v: Value| {
        v["isSidechain"] = json!(true);
        v["agentId"] = json!("acompact-1");
        v
    };
    let text = lines(&[
        side(cc_user("h1", Some("main-entry-77"), json!("Summarise the conversation so far"))),
        side(cc_block("h2", "h1", "msg_h", json!({"type": "text", "text": "## Summary\nWork in progress."}))),
    ]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    assert_eq!(summary(&items), vec!["user: Summarise the conversation so far", "assistant: ## Summary\nWork in progress."]);
    assert_eq!(imported.report.audience.as_deref(), Some("subagent"));
}

#[test]
fn claude_code_main_session_says_where_inline_sidechains_went() {
    let side = |mut v: Value| {
        v["isSidechain"] = json!(true);
        v
    };
    let text = lines(&[
        cc_user("u1", None, json!("delegate")),
        cc_block("a1", "u1", "msg_1", json!({"type": "tool_use", "id": "toolu_t", "name": "Task", "input": {"prompt": "look"}})),
        side(cc_user("s1", None, json!("look"))),
        side(cc_block("s2", "s1", "msg_s", json!({"type": "text", "text": "found it"}))),
        cc_result("r1", "a1", "toolu_t", "found it"),
    ]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    assert_eq!(imported.report.unmapped.get("sidechain"), Some(&2));
    assert_eq!(codes(&imported), vec!["import.sidechains_left_out"]);
    assert_eq!(summary(&items).len(), 3);
    assert_eq!(imported.report.audience.as_deref(), Some("primary"));
}

#[test]
fn claude_code_records_the_model_and_its_thinking_replays_to_the_alias() {
    let mut first = cc_block("a1", "u1", "msg_1", json!({"type": "thinking", "thinking": "Plan.", "signature": "sig-x"}));
    first["message"]["model"] = json!("claude-sonnet-4-5-20250929");
    let mut second = cc_block("a2", "a1", "msg_1", json!({"type": "text", "text": "Done."}));
    second["message"]["model"] = json!("claude-sonnet-4-5-20250929");
    let text = lines(&[cc_user("u1", None, json!("go")), first, second]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    assert_eq!(imported.report.written.get("model_switch"), Some(&1));
    let state = replay(&imported.records).state;
    assert_eq!(state.model.map(|m| m.model), Some("claude-sonnet-4-5-20250929".to_owned()));
    // A build for the alias is a build for the same model: the signed thinking goes back as is.
    let built = build(&with_next_prompt(items.clone()), &BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5")).unwrap();
    assert_eq!((built.report.reasoning.kept, built.report.reasoning.downgraded), (1, 0));
    // Another model gets it as text.
    let built = build(&with_next_prompt(items), &BuildOptions::new(Provider::Anthropic, "claude-opus-4-5")).unwrap();
    assert_eq!((built.report.reasoning.kept, built.report.reasoning.downgraded), (0, 1));
}

#[test]
fn claude_code_two_thinking_blocks_of_one_message_keep_their_signatures() {
    let text = lines(&[
        cc_user("u1", None, json!("go")),
        cc_block("a1", "u1", "msg_1", json!({"type": "thinking", "thinking": "First.", "signature": "sig-1"})),
        cc_block("a2", "a1", "msg_1", tool_use("toolu_a")),
        cc_result("r1", "a2", "toolu_a", "A"),
        cc_block("a3", "r1", "msg_1", json!({"type": "thinking", "thinking": "Second.", "signature": "sig-2"})),
        cc_block("a4", "a3", "msg_1", json!({"type": "text", "text": "Done."})),
    ]);
    let (_, items) = import_whole(Format::ClaudeCode, &text);
    let signatures: Vec<_> = items.iter().filter_map(|i| match i {
        Item::Reasoning(r) => Some(r.signature.clone().unwrap()),
        _ => None,
    }).collect();
    assert_eq!(signatures, vec!["sig-1", "sig-2"]);
}

#[test]
fn claude_code_usage_is_anchored_once_per_message_with_the_final_output_count() {
    let mut a1 = cc_block("a1", "u1", "msg_1", json!({"type": "text", "text": "Start."}));
    a1["message"]["usage"] = json!({"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 200});
    let mut a2 = cc_block("a2", "a1", "msg_1", tool_use("toolu_a"));
    a2["message"]["usage"] = json!({"input_tokens": 10, "output_tokens": 57, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 200});
    let text = lines(&[cc_user("u1", None, json!("go")), a1, a2, cc_result("r1", "a2", "toolu_a", "A")]);
    let (imported, _) = import_whole(Format::ClaudeCode, &text);
    let anchors: Vec<_> = imported.records.iter().filter_map(|r| match &r.body {
        contextview::update::RecordBody::Event(contextview::update::Event::UsageAnchor(u)) => Some((u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens)),
        _ => None,
    }).collect();
    assert_eq!(anchors, vec![(10, 57, 1000, 200)]);
}

#[test]
fn claude_code_compaction_keeps_the_segment_it_names() {
    let text = lines(&[
        cc_user("u1", None, json!("old")),
        cc_block("a1", "u1", "m1", json!({"type": "text", "text": "old answer"})),
        cc_user("u2", Some("a1"), json!("recent")),
        cc_block("a2", "u2", "m2", json!({"type": "text", "text": "recent answer"})),
        json!({"type": "system", "subtype": "compact_boundary", "uuid": "cb", "parentUuid": null, "logicalParentUuid": "a2",
               "compactMetadata": {"trigger": "auto", "preTokens": 90000, "preservedSegment": {"headUuid": "u2", "anchorUuid": "cs", "tailUuid": "a2"}}}),
        json!({"type": "user", "uuid": "cs", "parentUuid": "cb", "isCompactSummary": true, "message": {"role": "user", "content": "Summary: old work."}}),
        cc_user("u3", Some("cs"), json!("new")),
    ]);
    let (_, items) = import_whole(Format::ClaudeCode, &text);
    assert_eq!(
        summary(&items),
        vec!["user(Compaction): <compaction_summary>\nSummary: old work.\n</compaction_summary>", "user: recent", "assistant: recent answer", "user: new"]
    );
}

#[test]
fn claude_code_a_resumed_session_replaying_lines_imports_them_once() {
    let text = lines(&[
        cc_user("u1", None, json!("one")),
        cc_block("a1", "u1", "m1", json!({"type": "text", "text": "first"})),
        cc_user("u1", None, json!("one")),
        cc_block("a1", "u1", "m1", json!({"type": "text", "text": "first"})),
        cc_user("u2", Some("a1"), json!("two")),
    ]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    assert_eq!(imported.report.unmapped.get("duplicate_entry"), Some(&2));
    assert_eq!(summary(&items), vec!["user: one", "assistant: first", "user: two"]);
}

fn codex_event(payload: Value) -> Value {
    json!({"timestamp": "2026-01-01T00:00:00Z", "type": "event_msg", "payload": payload})
}

fn codex_user(text: &str) -> Value {
    codex_item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}))
}

fn codex_assistant(text: &str) -> Value {
    codex_item(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}))
}

#[test]
fn codex_prompts_recorded_only_as_events_are_kept() {
    // Newer rollouts can carry the user's prompts only as `user_message` events.
    let text = lines(&[
        json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-e", "cwd": "/w", "cli_version": "0.128.0"}}),
        codex_item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}]})),
        codex_event(json!({"type": "user_message", "message": "fix the build", "images": [], "local_images": []})),
        codex_item(json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"make\"]}", "call_id": "call_1"})),
        codex_item(json!({"type": "function_call_output", "call_id": "call_1", "output": "ok"})),
        codex_assistant("Fixed."),
        codex_event(json!({"type": "user_message", "message": "now the tests", "images": ["data:image/png;base64,iVBORw0KGgo="], "local_images": []})),
        codex_assistant("They pass."),
    ]);
    let (imported, items) = import_whole(Format::Codex, &text);
    assert_eq!(
        summary(&items),
        vec![
            "user(SystemReminder): <environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
            "user: fix the build",
            r#"call call_1 shell({"command":["make"]})"#,
            "result call_1: ok",
            "assistant: Fixed.",
            "user: now the tests",
            "assistant: They pass.",
        ]
    );
    let fidelity = &imported.report.fidelity;
    assert_eq!((fidelity.source.prompts, fidelity.view.prompts, fidelity.view.images), (2, 2, 1));
    // The view opens with the environment, not with a note that the start is missing.
    let built = build(&items, &BuildOptions::new(Provider::OpenAiResponses, "gpt-5")).unwrap();
    assert!(!built.body.contains("The earlier part of this conversation is not included"));
}

#[test]
fn codex_a_prompt_and_its_event_are_one_prompt_in_either_order() {
    for event_first in [true, false] {
        let event = codex_event(json!({"type": "user_message", "message": "list files", "images": []}));
        let item = codex_user("list files");
        let (a, b) = if event_first { (event, item) } else { (item, event) };
        let text = lines(&[json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-o"}}), a, b, codex_assistant("a.txt")]);
        let (imported, items) = import_whole(Format::Codex, &text);
        assert_eq!(summary(&items), vec!["user: list files", "assistant: a.txt"], "event first: {event_first}");
        assert_eq!(imported.report.fidelity.source.prompts, 1);
    }
}

#[test]
fn codex_usage_counts_cached_input_once() {
    // Codex's input count includes the cached tokens: the context is input + output.
    let text = lines(&[
        json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-u"}}),
        json!({"timestamp": "t0", "type": "turn_context", "payload": {"model": "gpt-5"}}),
        codex_user("go"),
        codex_assistant("done"),
        codex_event(json!({"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 131573, "cached_input_tokens": 130432, "output_tokens": 433, "total_tokens": 132006},
            "last_token_usage": {"input_tokens": 131573, "cached_input_tokens": 130432, "output_tokens": 433, "total_tokens": 132006}}})),
        // A repeat (rate limits updated): not another response.
        codex_event(json!({"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 131573, "cached_input_tokens": 130432, "output_tokens": 433, "total_tokens": 132006},
            "last_token_usage": {"input_tokens": 131573, "cached_input_tokens": 130432, "output_tokens": 433, "total_tokens": 132006}}})),
    ]);
    let (imported, _) = import_whole(Format::Codex, &text);
    assert_eq!(imported.report.written.get("usage_anchor"), Some(&1));
    let usage = replay(&imported.records).state.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.cache_read_tokens, usage.output_tokens), (1141, 130432, 433));
    let mut session = contextview::session::Session::default();
    for record in &imported.records {
        session.append(record.clone()).unwrap();
    }
    let input = contextview::request::BuildInput { model: Some("gpt-5".into()), ..contextview::request::BuildInput::new(Provider::OpenAiResponses) };
    // The context the provider reported, not twice its cached part: what the ledger counts, with
    // the agent's own heads it leaves to the request's (none here) added back.
    let heads = usage.head_tokens.expect("an imported anchor says what of it was the agent's heads");
    assert_eq!(session.usage(&input).used + heads, 132006);
}

#[test]
fn codex_compactions_keep_what_codex_kept() {
    // Before replacement histories Codex kept the prompts so far and the summary.
    let text = lines(&[
        json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-c"}}),
        codex_user("first task"),
        codex_assistant("first answer"),
        json!({"timestamp": "t1", "type": "compacted", "payload": {"message": "Did the first task."}}),
        codex_user("second task"),
    ]);
    let (_, items) = import_whole(Format::Codex, &text);
    assert_eq!(
        summary(&items),
        vec!["user(Compaction): <compaction_summary>\nDid the first task.\n</compaction_summary>", "user: first task", "user: second task"]
    );
    // With a replacement history, that history is the view, its summary message included once.
    let summary_message = "Another language model started to solve this problem and produced a summary of its thinking process.\nDid the first task.";
    let text = lines(&[
        json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-r"}}),
        codex_user("first task"),
        codex_assistant("first answer"),
        json!({"timestamp": "t1", "type": "compacted", "payload": {"message": summary_message, "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first task"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary_message}]}]}}),
        codex_user("second task"),
    ]);
    let (_, items) = import_whole(Format::Codex, &text);
    assert_eq!(summary(&items), vec!["user: first task".to_owned(), format!("user(Compaction): {summary_message}"), "user: second task".to_owned()]);
}

#[test]
fn codex_rollback_drops_the_last_turns() {
    let text = lines(&[
        json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-b"}}),
        codex_user("one"),
        codex_assistant("1"),
        codex_user("two"),
        codex_assistant("2"),
        codex_event(json!({"type": "thread_rolled_back", "num_turns": 1})),
        codex_user("two again"),
    ]);
    let (imported, items) = import_whole(Format::Codex, &text);
    assert_eq!(imported.report.written.get("rewind"), Some(&1));
    assert_eq!(summary(&items), vec!["user: one", "assistant: 1", "user: two again"]);
}

#[test]
fn codex_early_rollouts_of_bare_items() {
    // Before September 2025 a rollout was a bare session line, then bare response items.
    let text = lines(&[
        json!({"id": "cx-0", "timestamp": "2025-06-01T10:00:00Z", "instructions": "You are Codex."}),
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]}),
        json!({"record_type": "state"}),
        json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "c1"}),
        json!({"type": "function_call_output", "call_id": "c1", "output": "x"}),
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "one file"}]}),
    ]);
    assert_eq!(detect(&text), Some(Format::Codex));
    let (imported, items) = import_whole(Format::Codex, &text);
    assert_eq!(imported.header.session_id, "cx-0");
    assert_eq!(summary(&items), vec!["user: hello", r#"call c1 shell({"command":["ls"]})"#, "result c1: x", "assistant: one file"]);
    assert_eq!(imported.report.unmapped.get("record_type:state"), Some(&1));
}

#[test]
fn codex_paginated_prompts_and_single_item_outputs() {
    let text = lines(&[
        json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-p", "history_mode": "paginated"}}),
        codex_event(json!({"type": "item_completed", "item": {"type": "UserMessage", "id": "i1", "content": [{"type": "text", "text": "count lines"}]}})),
        codex_item(json!({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"})),
        codex_item(json!({"type": "function_call_output", "call_id": "c1", "output": {"type": "input_text", "text": "42"}})),
    ]);
    let (_, items) = import_whole(Format::Codex, &text);
    assert_eq!(summary(&items), vec!["user: count lines", "call c1 shell({})", "result c1: 42"]);
}

#[test]
fn pi_version_one_compaction_keeps_the_entries_it_names_by_index() {
    // Version 1 entries have no ids: a compaction names the first entry it keeps by its index
    // among the file's parsed lines, the header being index 0.
    let m = |role: &str, text: &str| json!({"type": "message", "timestamp": "t", "message": {"role": role, "content": [{"type": "text", "text": text}], "stopReason": "stop", "provider": "anthropic", "model": "m"}});
    let call = json!({"type": "message", "timestamp": "t", "message": {"role": "assistant", "stopReason": "toolUse", "provider": "anthropic", "model": "m",
        "content": [{"type": "toolCall", "id": "toolu_1", "name": "bash", "arguments": {"command": "ls"}}]}});
    let result = json!({"type": "message", "timestamp": "t", "message": {"role": "toolResult", "toolCallId": "toolu_1", "toolName": "bash", "content": [{"type": "text", "text": "a b"}], "isError": false}});
    let text = lines(&[
        json!({"type": "session", "id": "v1", "timestamp": "t", "cwd": "/w", "provider": "anthropic", "modelId": "m"}),
        m("user", "old question"),        // 1
        m("assistant", "old answer"),     // 2
        m("user", "recent question"),     // 3
        call,                             // 4
        result,                           // 5
        json!({"type": "compaction", "timestamp": "t", "summary": "Asked an old question.", "firstKeptEntryIndex": 3, "tokensBefore": 50000}),
        m("user", "next"),
    ]);
    let (imported, items) = import_whole(Format::Pi, &text);
    assert!(codes(&imported).is_empty(), "{:?}", imported.report.diagnostics);
    assert_eq!(
        summary(&items),
        vec![
            "user(Compaction): <compaction_summary>\nAsked an old question.\n</compaction_summary>",
            "user: recent question",
            r#"call toolu_1 bash({"command":"ls"})"#,
            "result toolu_1: a b",
            "user: next",
        ]
    );
    assert_eq!(imported.report.fidelity.source.tool_calls, 1);
}

#[test]
fn pi_failed_responses_are_never_sent_again() {
    let text = lines(&[
        json!({"type": "session", "version": 3, "id": "pi-f", "timestamp": "t", "cwd": "/w"}),
        pi_entry("e1", None, json!({"role": "user", "content": "go"})),
        pi_entry("e2", Some("e1"), json!({"role": "assistant", "provider": "anthropic", "model": "m", "api": "anthropic-messages", "stopReason": "error", "errorMessage": "terminated",
            "content": [{"type": "text", "text": "Starting"}, {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}, "partialJson": "{"}]})),
        pi_entry("e3", Some("e2"), json!({"role": "assistant", "provider": "anthropic", "model": "m", "api": "anthropic-messages", "stopReason": "stop", "content": [{"type": "text", "text": "Done"}]})),
    ]);
    let (imported, items) = import_whole(Format::Pi, &text);
    assert_eq!(imported.report.unmapped.get("assistant:error"), Some(&1));
    assert_eq!(summary(&items), vec!["user: go", "assistant: Done"]);
}

#[test]
fn pi_usage_counts_cache_reads_once_for_every_provider() {
    let usage = |api: &str, provider: &str, timestamp: u64, u: Value| {
        json!({"type": "message", "timestamp": "t", "message": {"role": "assistant", "api": api, "provider": provider, "model": "m", "stopReason": "stop",
            "timestamp": timestamp, "content": [{"type": "text", "text": "x"}], "usage": u}})
    };
    let cases = [
        // Anthropic's input excludes cache reads; the parts add up to the total.
        ("anthropic-messages", "anthropic", 1_770_000_000_000u64, json!({"input": 10, "output": 5, "cacheRead": 900, "cacheWrite": 100, "totalTokens": 1015}), 10),
        // OpenAI after 2025-12-03: pi subtracts the cached part itself.
        ("openai-responses", "openai", 1_770_000_000_000, json!({"input": 100, "output": 5, "cacheRead": 900, "cacheWrite": 0, "totalTokens": 1005}), 100),
        // OpenAI before: the API's prompt count, cached tokens included (no totalTokens yet).
        ("openai-responses", "openai", 1_760_000_000_000, json!({"input": 1000, "output": 5, "cacheRead": 900, "cacheWrite": 0}), 100),
        // Google before pi's fix: promptTokenCount includes the cached part; the total shows it.
        ("google-generative-ai", "google", 1_770_000_000_000, json!({"input": 1000, "output": 5, "cacheRead": 900, "cacheWrite": 0, "totalTokens": 1005}), 100),
    ];
    for (api, provider, ts, u, fresh) in cases {
        let text = lines(&[
            json!({"type": "session", "id": "pu", "timestamp": "t", "cwd": "/w"}),
            json!({"type": "message", "timestamp": "t", "message": {"role": "user", "content": "q"}}),
            usage(api, provider, ts, u),
        ]);
        let (imported, _) = import_whole(Format::Pi, &text);
        let anchor = replay(&imported.records).state.usage.unwrap();
        assert_eq!(anchor.input_tokens, fresh, "{api} at {ts}");
        assert_eq!(anchor.cache_read_tokens, 900);
    }
}

#[test]
fn claude_code_blank_text_blocks_stay_in_the_log_but_not_in_the_request() {
    let text = lines(&[
        cc_user("u1", None, json!("go")),
        cc_block("a1", "u1", "msg_1", json!({"type": "thinking", "thinking": "Plan.", "signature": "sig-1"})),
        cc_block("a2", "a1", "msg_1", json!({"type": "text", "text": "\n\n"})),
        cc_block("a3", "a2", "msg_1", tool_use("toolu_a")),
        cc_result("r1", "a3", "toolu_a", "A"),
    ]);
    let (imported, items) = import_whole(Format::ClaudeCode, &text);
    // The log keeps the block as it came.
    assert!(summary(&items).contains(&"assistant: \n\n".to_owned()));
    assert_eq!(imported.report.written.get("agent_message_chunk"), Some(&1));
    for provider in Provider::ALL {
        let built = build(&with_next_prompt(items.clone()), &BuildOptions::new(provider, "claude-sonnet-4-5")).unwrap();
        assert!(built.report.repairs.iter().any(|r| r.kind == contextview::view::RepairKind::BlankTextDropped), "{provider}");
        assert!(!built.body.contains(r#""\n\n""#), "{provider}: {}", built.body);
    }
    let built = build(&with_next_prompt(items), &BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5")).unwrap();
    assert_eq!(anthropic_shape(&built.body)[1], "assistant[thinking,tool_use]");
}

mod any_lines {
    //! Whatever lines an importer is given — its format's lines in any order, repeated, cut off,
    //! with ids pointing anywhere — it imports without panicking into a log that round-trips as
    //! text and builds, for every provider, a payload that passes the provider's validator.
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use contextview::update::{parse_log, write_log};
    use contextview::view::BuildError;
    use proptest::prelude::*;

    fn pool(format: Format) -> Vec<String> {
        let fixture = match format {
            Format::ClaudeCode => include_str!("../fixtures/claude-code.jsonl"),
            Format::Codex => include_str!("../fixtures/codex.jsonl"),
            Format::Pi => include_str!("../fixtures/pi.jsonl"),
            Format::GeminiCli => include_str!("../fixtures/gemini-cli.jsonl"),
            Format::CopilotCli => include_str!("../fixtures/copilot-cli.jsonl"),
            Format::Aider => include_str!("../fixtures/aider.chat.history.md"),
            // A task's history is one JSON array: its pool is the messages of every fixture.
            Format::Cline | Format::RooCode | Format::KiloCode => "",
            // An export is one JSON document: its pool is its messages (and its subagent's).
            Format::OpenCode => "",
        };
        let mut lines: Vec<String> = fixture.lines().map(str::to_owned).collect();
        if format == Format::CopilotCli {
            // A newer CLI's shapes: session assets, an answer in chunks, a skill's body, a clear.
            lines.extend(include_str!("../fixtures/copilot-cli-assets.jsonl").lines().map(str::to_owned));
            lines.extend(include_str!("../fixtures/copilot-cli-legacy.jsonl").lines().map(str::to_owned));
        }
        if matches!(format, Format::Cline | Format::RooCode | Format::KiloCode) {
            for history in [
                include_str!("../fixtures/cline-task/cline.json"),
                include_str!("../fixtures/cline-task/roo-code.json"),
                include_str!("../fixtures/cline-task/roo-code-subtask.json"),
                include_str!("../fixtures/cline-task/kilo-code.json"),
            ] {
                let messages: Vec<Value> = serde_json::from_str(history).unwrap();
                lines.extend(messages.iter().map(Value::to_string));
            }
        }
        if format == Format::OpenCode {
            for export in [include_str!("../fixtures/opencode/ses-main.json"), include_str!("../fixtures/opencode/ses-subagent.json")] {
                let export: Value = serde_json::from_str(export).unwrap();
                lines.extend(export["messages"].as_array().unwrap().iter().map(Value::to_string));
            }
        }
        // Shapes the fixture files lack: parallel calls, streamed results, compaction, events.
        let extra: Vec<Value> = match format {
            Format::ClaudeCode => vec![
                cc_block("p1", "u1", "msg_p", tool_use("toolu_p1")),
                cc_block("p2", "p1", "msg_p", tool_use("toolu_p2")),
                cc_result("q1", "p1", "toolu_p1", "one"),
                cc_result("q2", "p2", "toolu_p2", "two"),
                json!({"type": "system", "subtype": "compact_boundary", "uuid": "cb", "parentUuid": null, "logicalParentUuid": "q2", "compactMetadata": {"preTokens": 1000}}),
                json!({"type": "user", "uuid": "cs", "parentUuid": "cb", "isCompactSummary": true, "message": {"role": "user", "content": "Summary."}}),
                cc_block("w1", "cs", "msg_w", json!({"type": "text", "text": "\n\n"})),
            ],
            Format::Codex => vec![
                codex_event(json!({"type": "user_message", "message": "only an event"})),
                json!({"timestamp": "t", "type": "compacted", "payload": {"message": "Summary.", "replacement_history": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "kept"}]}]}}),
                codex_event(json!({"type": "thread_rolled_back", "num_turns": 2})),
                codex_item(json!({"type": "function_call_output", "call_id": "nobody", "output": {"type": "input_text", "text": "orphan"}})),
            ],
            Format::GeminiCli => vec![
                json!({"$rewindTo": "unknown"}),
                json!({"$set": {"messages": [{"id": "k1", "type": "user", "content": [{"text": "kept"}]}, {"id": "k2", "type": "gemini", "content": [{"functionCall": {"id": "fc", "name": "read_file", "args": {}}}]}]}}),
                json!({"id": "k3", "type": "user", "content": [{"functionResponse": {"id": "fc", "name": "read_file", "response": {"output": "echo"}}}]}),
                json!({"id": "k4", "type": "gemini", "toolCalls": [{"id": "t", "name": "x", "result": null, "status": "cancelled"}, {"name": "no id"}], "tokens": null}),
                json!({"id": "k5", "type": "warning", "content": "w"}),
            ],
            Format::Aider => vec![
                Value::String("#### <blank>  ".to_owned()),
                Value::String("> Tokens: 10.0k sent, 1,234 received.".to_owned()),
                Value::String("<think>".to_owned()),
                Value::String("</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>".to_owned()),
            ],
            Format::CopilotCli => vec![
                json!({"type": "session.compaction_complete", "data": {"success": true, "summaryContent": "S."}, "id": "x1"}),
                json!({"type": "tool.execution_complete", "data": {"success": false}, "id": "x2"}),
                json!({"type": "assistant.message", "data": {"toolRequests": [{"name": "no id"}, {"toolCallId": "orphan", "name": "view"}]}, "id": "x3"}),
                json!({"type": "user.message", "data": {"attachments": [{"type": "blob", "data": "not base64!", "mimeType": "image/png"}]}, "id": "x4"}),
            ],
            Format::Cline | Format::RooCode | Format::KiloCode => vec![
                json!({"role": "assistant", "isSummary": true, "content": "no condense id"}),
                json!({"role": "user", "isTruncationMarker": true, "truncationId": "t-9", "content": "[Sliding window truncation: 0 messages hidden]"}),
                json!({"role": "assistant", "content": [{"type": "tool_use", "name": "no id"}, {"type": "tool_use", "id": "call_orphan", "name": "new_task", "input": {}}]}),
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nobody", "content": "orphan"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "not base64!"}}]}),
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_orphan", "content": "Subtask  completed."}, {"type": "document"}]}),
                json!({"role": "system", "content": "?"}),
                json!(17),
            ],
            Format::OpenCode => vec![
                json!({"info": {"id": "msg_x1", "role": "assistant", "summary": true, "finish": "stop", "parentID": "msg_nobody"}, "parts": [{"type": "text", "text": "S."}]}),
                json!({"info": {"id": "msg_x2", "role": "user"}, "parts": [{"type": "compaction", "auto": true}, {"type": "file", "mime": "image/png", "url": "data:image/png;base64,not base64!"}, {"type": "agent", "name": "plan"}]}),
                json!({"info": {"id": "msg_x3", "role": "assistant", "error": {"name": "MessageAbortedError"}}, "parts": [{"type": "tool", "callID": "c_x3", "tool": "task", "state": {"status": "completed", "input": {}, "output": "", "metadata": {"sessionId": "ses_gone"}}}, {"type": "tool", "tool": "no id"}]}),
                json!({"info": {"role": "user"}}),
                json!(17),
            ],
            Format::Pi => vec![
                json!({"type": "compaction", "timestamp": "t", "summary": "S.", "firstKeptEntryIndex": 2, "tokensBefore": 10}),
                pi_entry("z1", Some("missing"), json!({"role": "assistant", "stopReason": "aborted", "content": [{"type": "text", "text": "half"}]})),
                pi_entry("z2", None, json!({"role": "toolResult", "toolCallId": "t-none", "content": [{"type": "text", "text": "orphan"}]})),
            ],
        };
        // (A string is a line as it is: a transcript's, not JSON.)
        lines.extend(extra.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)));
        lines
    }

    fn check(format: Format, picks: &[(usize, Option<usize>)]) -> Result<(), TestCaseError> {
        let pool = pool(format);
        // A recording's lines follow its header (without one, the text reads as a whole record).
        let header = match format {
            Format::GeminiCli => format!("{}\n", pool[0]),
            Format::ClaudeCode | Format::Codex | Format::Pi | Format::CopilotCli | Format::Aider | Format::Cline | Format::RooCode | Format::KiloCode | Format::OpenCode => {
                String::new()
            }
        };
        // A task's history: the picked messages as one array (a cut one leaves it unreadable).
        let (open, separator, close) = match format {
            Format::Cline | Format::RooCode | Format::KiloCode => ("[", ",", "]"),
            Format::OpenCode => (r#"{"info": {"id": "ses_any", "revert": {"messageID": "msg_b0e5d4c3b209Aa11Bb22Cc33Dd"}}, "messages": ["#, ",", "]}"),
            Format::ClaudeCode | Format::Codex | Format::Pi | Format::GeminiCli | Format::CopilotCli | Format::Aider => ("", "", ""),
        };
        let text: String = std::iter::once(format!("{header}{open}"))
            .chain(std::iter::once(picks.iter()
            .map(|&(i, cut)| {
                let line = &pool[i % pool.len()];
                // A line cut short, as a crash leaves the last one.
                let line = match cut {
                    Some(at) => &line[..line.char_indices().nth(at % line.len().max(1)).map_or(line.len(), |(b, _)| b)],
                    None => line.as_str(),
                };
                format!("{line}\n")
            })
            .collect::<Vec<_>>()
            .join(separator)))
            .chain(std::iter::once(close.to_owned()))
            .collect();
        let imported = import(Some(format), &text).unwrap();
        let again = parse_log(&write_log(&imported.header, &imported.records));
        prop_assert_eq!(&again.records, &imported.records);
        let items = replay(&imported.records).items;
        for provider in Provider::ALL {
            match build(&items, &BuildOptions::new(provider, contextview::request::default_model(provider))) {
                Ok(_) | Err(BuildError::EmptyConversation { .. } | BuildError::EndsWithAssistant { .. }) => {}
                Err(e) => return Err(TestCaseError::fail(format!("{provider}: {e:?}\n{text}"))),
            }
        }
        Ok(())
    }

    fn picks() -> impl Strategy<Value = Vec<(usize, Option<usize>)>> {
        proptest::collection::vec((0usize..64, proptest::option::weighted(0.1, 0usize..400)), 0..24)
    }

    proptest! {
        #![proptest_config(crate::common::config(crate::common::cases(160)))]

        #[test]
        fn claude_code(picks in picks()) { check(Format::ClaudeCode, &picks)?; }

        #[test]
        fn codex(picks in picks()) { check(Format::Codex, &picks)?; }

        #[test]
        fn pi(picks in picks()) { check(Format::Pi, &picks)?; }

        #[test]
        fn gemini_cli(picks in picks()) { check(Format::GeminiCli, &picks)?; }

        #[test]
        fn copilot_cli(picks in picks()) { check(Format::CopilotCli, &picks)?; }

        #[test]
        fn aider(picks in picks()) { check(Format::Aider, &picks)?; }

        #[test]
        fn cline(picks in picks()) { check(Format::Cline, &picks)?; }

        #[test]
        fn roo_code(picks in picks()) { check(Format::RooCode, &picks)?; }

        #[test]
        fn opencode(picks in picks()) { check(Format::OpenCode, &picks)?; }
    }
}

fn codes_and_lines(imported: &contextview_import::Imported) -> Vec<(&str, Option<usize>)> {
    imported.report.diagnostics.iter().map(|d| (d.code.as_str(), d.line)).collect()
}

#[test]
fn claude_code_entries_missing_what_their_type_needs_are_named_by_line() {
    let text = lines(&[
        cc_user("u1", None, json!("first")),
        json!({"type": "user", "uuid": "u2", "parentUuid": "u1", "message": {"role": "user"}}),
        json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1"}),
        cc_assistant("a2", "u1", "m2", json!([{"type": "tool_use", "name": "read", "input": {}}, {"type": "text", "text": "kept"}])),
        cc_user("r1", Some("a2"), json!([{"type": "tool_result", "content": "no id"}])),
        json!({"type": "system", "subtype": "compact_boundary", "uuid": "cb", "parentUuid": null, "logicalParentUuid": "r1", "compactMetadata": {"preTokens": 9000}}),
    ]);
    let imported = import(Some(Format::ClaudeCode), &text).unwrap();
    assert_eq!(
        codes_and_lines(&imported),
        vec![
            ("import.bad_message", Some(2)),
            ("import.bad_message", Some(3)),
            ("import.bad_tool_use", Some(4)),
            ("import.bad_tool_result", Some(5)),
            ("import.compaction_without_summary", None),
        ]
    );
    assert!(imported.report.diagnostics[4].message.contains("9000 tokens before"));
    assert_eq!(summary(&replay(&imported.records).items), vec!["user: first", "assistant: kept"]);
}

#[test]
fn codex_calls_and_outputs_without_a_call_id_are_named_by_line() {
    let text = lines(&[
        json!({"timestamp": "t0", "type": "session_meta", "payload": {"id": "cx-3"}}),
        codex_item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]})),
        codex_item(json!({"type": "function_call", "name": "shell", "arguments": "{}"})),
        codex_item(json!({"type": "function_call_output", "output": "lost"})),
        codex_item(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]})),
    ]);
    let imported = import(Some(Format::Codex), &text).unwrap();
    assert_eq!(codes_and_lines(&imported), vec![("import.bad_tool_call", Some(3)), ("import.bad_tool_output", Some(4))]);
    assert_eq!(summary(&replay(&imported.records).items), vec!["user: go", "assistant: done"]);
}

#[test]
fn pi_entries_missing_what_their_type_needs_are_named_by_line() {
    let text = lines(&[
        json!({"type": "session", "version": 3, "id": "pi-3", "timestamp": "t", "cwd": "/w"}),
        pi_entry("e1", None, json!({"role": "user", "content": "start"})),
        json!({"type": "message", "id": "e2", "parentId": "e1", "timestamp": "t"}),
        json!({"type": "model_change", "id": "e3", "parentId": "e2", "timestamp": "t", "provider": "openai"}),
        pi_entry("e4", Some("e3"), json!({"role": "assistant", "provider": "openai", "model": "gpt-5", "stopReason": "toolUse",
            "content": [{"type": "toolCall", "name": "read", "arguments": {}}, {"type": "text", "text": "answered"}]})),
        pi_entry("e5", Some("e4"), json!({"role": "toolResult", "toolName": "read", "content": [{"type": "text", "text": "x"}], "isError": false})),
        pi_entry("e6", Some("e5"), json!({"role": "user"})),
        pi_entry("e7", Some("e6"), json!({"role": "user", "content": "end"})),
    ]);
    let imported = import(Some(Format::Pi), &text).unwrap();
    assert_eq!(
        codes_and_lines(&imported),
        vec![
            ("import.bad_message", Some(3)),
            ("import.bad_entry", Some(4)),
            ("import.bad_tool_call", Some(5)),
            ("import.bad_tool_result", Some(6)),
            ("import.bad_message", Some(7)),
        ]
    );
    assert_eq!(summary(&replay(&imported.records).items), vec!["user: start", "assistant: answered", "user: end"]);
}

#[test]
fn pi_entries_whose_parent_or_kept_entry_is_off_the_branch_are_kept_at_the_end() {
    let text = lines(&[
        json!({"type": "session", "version": 3, "id": "pi-4", "timestamp": "t", "cwd": "/w"}),
        pi_entry("e1", None, json!({"role": "user", "content": "one"})),
        pi_entry("e2", Some("e1"), json!({"role": "assistant", "provider": "openai", "model": "gpt-5", "stopReason": "stop", "content": [{"type": "text", "text": "two"}]})),
        pi_entry("e3", Some("nowhere"), json!({"role": "user", "content": "three"})),
        json!({"type": "compaction", "id": "e4", "parentId": "e3", "summary": "Counted to three.", "firstKeptEntryId": "gone", "tokensBefore": 100}),
        pi_entry("e5", Some("e4"), json!({"role": "user", "content": "four"})),
    ]);
    let imported = import(Some(Format::Pi), &text).unwrap();
    assert_eq!(codes_and_lines(&imported), vec![("import.unknown_parent", Some(4)), ("import.compaction_keeps_unknown_entry", Some(5))]);
    assert_eq!(
        summary(&replay(&imported.records).items),
        vec!["user(Compaction): <compaction_summary>\nCounted to three.\n</compaction_summary>", "user: four"]
    );
}

/// A Claude Code session whose provider counted `overhead` tokens of Claude Code's own system
/// prompt and tools on every request, besides the conversation (about 4 bytes a token); with
/// `compacted_with`, it compacts after six rounds and its requests then also carry that many
/// tokens of files Claude Code attached again (which its log does not hold).
fn claude_code_with_overhead(overhead: u64, compacted_with: Option<u64>) -> String {
    let mut values = vec![cc_user("u0", None, json!("Find why the parser rejects trailing commas"))];
    let mut conversation_bytes = 60u64;
    let mut overhead = overhead;
    let mut parent = "u0".to_owned();
    for round in 0..12 {
        if let (6, Some(attached)) = (round, compacted_with) {
            values.push(json!({"type": "system", "subtype": "compact_boundary", "uuid": "cb", "parentUuid": null, "logicalParentUuid": parent, "compactMetadata": {"preTokens": 150000}}));
            values.push(json!({"type": "user", "uuid": "cs", "parentUuid": "cb", "isCompactSummary": true, "message": {"role": "user", "content": "Summary: read six parser files."}}));
            values.push(cc_user("u6", Some("cs"), json!("Go on with the lexer")));
            parent = "u6".to_owned();
            conversation_bytes = 80;
            overhead += attached;
        }
        let output = format!("fn parse_{round}() {{}}\n{}", "let tokens = lexer.next_token()?;\n".repeat(200));
        let call = format!("toolu_{round}");
        let mut assistant = cc_assistant(&format!("a{round}"), &parent, &format!("msg_{round}"), json!([{"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": format!("src/p{round}.rs")}}]));
        assistant["message"]["usage"] = json!({"input_tokens": 3, "cache_read_input_tokens": overhead + conversation_bytes / 4, "cache_creation_input_tokens": 0, "output_tokens": 30});
        conversation_bytes += 120 + output.len() as u64;
        values.push(assistant);
        values.push(cc_result(&format!("r{round}"), &format!("a{round}"), &call, &output));
        parent = format!("r{round}");
    }
    lines(&values)
}

/// Another agent's usage counted its own heads; the ledger counts this package's in their
/// place, so how full an imported session is does not depend on how large the other agent's
/// system prompt and tools were, and is about what the request holds.
#[test]
fn imported_anchors_count_this_requests_heads_not_the_other_agents() {
    let used = |overhead: u64, compacted_with: Option<u64>| {
        let imported = import(None, &claude_code_with_overhead(overhead, compacted_with)).unwrap();
        let log = contextview::update::write_log(&imported.header, &imported.records);
        let input = contextview::request::BuildInput { log: Some(log), context_window: Some(200_000), ..contextview::request::BuildInput::new(Provider::Anthropic) };
        let built = contextview::request::build_request(&input).unwrap();
        (imported.report.head_tokens.unwrap(), built.built.report.tokens.context.used, built.built.report.tokens.request)
    };
    let (small_heads, small_used, request) = used(8_000, None);
    let (large_heads, large_used, _) = used(30_000, None);
    assert_eq!(large_heads - small_heads, 22_000, "the estimate moves with the other agent's heads");
    assert_eq!(small_used, large_used, "and none of them is counted");
    let ratio = large_used as f64 / request as f64;
    assert!((0.85..1.2).contains(&ratio), "used {large_used} for a request of {request} tokens");
    // After a compaction the reckoning starts again: what the agent attached then is its own.
    let (plain_heads, plain_used, request) = used(25_000, Some(0));
    let (attached_heads, attached_used, _) = used(25_000, Some(18_000));
    assert_eq!(attached_heads - plain_heads, 18_000);
    assert_eq!(plain_used, attached_used);
    let ratio = attached_used as f64 / request as f64;
    assert!((0.85..1.2).contains(&ratio), "used {attached_used} for a request of {request} tokens after the compaction");
}

/// A session opened from an import samples with the provider and model the agent recorded: a
/// Codex rollout (`model_provider: openai`) builds for the Responses API at its own model.
#[test]
fn an_imported_session_builds_at_the_recorded_provider_and_model() {
    use contextview::session::{Reply, Session};
    let text = lines(&[
        json!({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "cx-2", "cwd": "/w", "model_provider": "openai"}}),
        json!({"timestamp": "2026-01-01T00:00:00Z", "type": "turn_context", "payload": {"model": "gpt-5.3-codex", "cwd": "/w"}}),
        codex_item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]})),
    ]);
    let imported = import(None, &text).unwrap();
    let log = contextview::update::write_log(&imported.header, &imported.records);
    let mut session = Session::from_log(&log);
    let processed = session.dispatch(serde_json::from_value(json!({"type": "buildRequest"})).unwrap(), None).unwrap();
    let Some(Reply::Built { report, .. }) = &processed.reply else { panic!("{processed:?}") };
    assert_eq!((report.provider, report.model.as_str()), (Provider::OpenAiResponses, "gpt-5.3-codex"));
}

/// Every format the importers read is named wherever the package lists them: the CLI's
/// `--from` (`cli-common.mjs`), the package's and the lazy module's TypeScript, the README's command line and its
/// table of agents (one row each).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_format_is_listed_where_the_package_lists_formats() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    let quoted = |q: char| names.iter().map(|n| format!("{q}{n}{q}")).collect::<Vec<_>>();
    assert!(read("pkg-template/cli-common.mjs").contains(&format!("export const FORMATS = [{}];", quoted('\'').join(", "))));
    assert!(read("pkg-template/index.d.ts").contains(&format!("export type ImportFormat = {};", quoted('\'').join(" | "))));
    assert!(read("crates/lazy/src/types.d.ts").contains(&format!("export type Format = {};", quoted('"').join(" | "))));
    let readme = read("README.md");
    assert!(readme.contains(&format!("[--from {}]", names.join("|"))));
    let rows = readme.lines().skip_while(|l| !l.starts_with("| agent | its file |")).skip(2).take_while(|l| l.starts_with("| ")).count();
    assert_eq!(rows, names.len(), "the README's table of agents");
}
