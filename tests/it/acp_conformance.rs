//! Every ACP record we write must be an official ACP v1 `session/update`: it deserialises into
//! the official schema types (`agent-client-protocol-schema`) and serialises back to the same
//! JSON. The official types are lenient on input (unknown fields ignored, bad values defaulted),
//! so the round-trip equality is what catches a field we misspell or mistype.
#![cfg(not(target_arch = "wasm32"))]

use agent_client_protocol_schema::v1::SessionNotification;
use contextview::update::{parse_log, RecordBody};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn assert_official(update: &Value) {
    let notification = json!({"sessionId": "sess-1", "update": update});
    let parsed: SessionNotification = serde_json::from_value(notification.clone())
        .unwrap_or_else(|e| panic!("not an ACP session/update: {e}\n{update:#}"));
    let mut back = serde_json::to_value(&parsed).unwrap();
    // The official types leave out fields equal to their defaults; put those back to compare.
    if let (Some(back_update), Some(ours)) = (back["update"].as_object_mut(), update.as_object()) {
        for (key, value) in ours {
            if !back_update.contains_key(key) && is_schema_default(key, value) {
                back_update.insert(key.clone(), value.clone());
            }
        }
    }
    assert_eq!(back, notification, "ACP types read this update differently");
}

/// Values the ACP schema declares as defaults, which its types do not write out.
fn is_schema_default(key: &str, value: &Value) -> bool {
    match key {
        "status" => value == "pending",
        "kind" => value == "other",
        "content" | "locations" => value.as_array().is_some_and(Vec::is_empty),
        _ => false,
    }
}

fn acp_updates(log: &str) -> Vec<Value> {
    let log = parse_log(log);
    assert!(log.diagnostics.is_empty(), "{:?}", log.diagnostics);
    updates_of(&log.records)
}

#[test]
fn example_session_updates_are_official_acp() {
    let updates = acp_updates(include_str!("../../examples/session.jsonl"));
    assert!(updates.len() > 20);
    for update in &updates {
        assert_official(update);
    }
}

#[test]
fn every_update_shape_we_type_is_official_acp() {
    let shapes = [
        json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}, "messageId": "m1"}),
        json!({"sessionUpdate": "user_message_chunk", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "uri": "file:///a.png"}}),
        json!({"sessionUpdate": "user_message_chunk", "content": {"type": "resource_link", "uri": "file:///a", "name": "a", "title": "A", "description": "d", "mimeType": "text/plain", "size": 3}}),
        json!({"sessionUpdate": "user_message_chunk", "content": {"type": "resource", "resource": {"uri": "file:///a", "text": "x", "mimeType": "text/plain"}}}),
        json!({"sessionUpdate": "user_message_chunk", "content": {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}}),
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}, "_meta": {"contextview": {"provider": "anthropic", "model": "m", "stopReason": "end_turn"}}}),
        json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "t"}, "_meta": {"contextview": {"signature": "s", "encrypted": "e", "reasoningId": "rs_1"}}}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "kind": "read", "status": "pending", "rawInput": {"path": "a"}, "locations": [{"path": "/a", "line": 3}], "_meta": {"contextview": {"toolName": "read_file"}}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "title": "Read a", "kind": "read",
               "content": [{"type": "content", "content": {"type": "text", "text": "x"}}, {"type": "diff", "path": "/a", "oldText": "a", "newText": "b"}, {"type": "terminal", "terminalId": "term1"}],
               "rawOutput": {"exit": 0}}),
        json!({"sessionUpdate": "plan", "entries": [{"content": "do", "priority": "high", "status": "in_progress"}, {"content": "then", "priority": "low", "status": "completed"}]}),
    ];
    for shape in shapes {
        // Through our types and back out, then through the official ones.
        let ours: contextview::update::acp::AcpUpdate = serde_json::from_value(shape.clone()).unwrap();
        assert!(matches!(ours, contextview::update::acp::AcpUpdate::Known(_)), "{shape}");
        let written = serde_json::to_value(&ours).unwrap();
        assert_eq!(written, shape);
        assert_official(&written);
    }
}

fn updates_of(records: &[contextview::update::Record]) -> Vec<Value> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Update(u) => Some(serde_json::to_value(u).unwrap()),
            RecordBody::Event(_) | RecordBody::Unknown(_) => None,
        })
        .collect()
}

#[test]
fn every_update_a_session_writes_from_commands_is_official_acp() {
    use contextview::session::{Command, Session};
    use contextview::update::Header;
    let mut s = Session::create(Header::new("acp"));
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC";
    let commands = [
        json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}),
        json!({"type": "userMessage", "text": "Fix it", "images": [{"data": png, "mimeType": "image/png"}]}),
        json!({"type": "assistantResponse", "reasoning": {"text": "Plan.", "signature": "sig"}, "text": "Looking.",
               "toolCalls": [{"id": "c1", "name": "read", "kind": "read", "input": {"path": "a.rs"}, "paths": ["/a.rs"]},
                             {"id": "c2", "name": "edit", "kind": "edit", "input": {}, "paths": ["/b.rs"]}],
               "usage": {"inputTokens": 10, "outputTokens": 5}}),
        json!({"type": "toolResult", "toolCallId": "c1", "output": "fn a() {}"}),
        json!({"type": "toolResult", "toolCallId": "c2", "output": "failed", "isError": true, "images": [{"data": png, "mimeType": "image/png"}]}),
        json!({"type": "enqueueReminder", "reminder": {"kind": "diagnostics", "text": "1 error"}}),
        json!({"type": "buildRequest"}),
    ];
    for command in commands {
        let command: Command = serde_json::from_value(command.clone()).unwrap_or_else(|e| panic!("{command}: {e}"));
        let processed = s.dispatch(command, Some("2026-12-03T00:00:00Z".into())).unwrap();
        assert!(processed.error.is_none(), "{:?}", processed.error);
    }
    let updates = updates_of(s.records());
    assert!(updates.len() >= 7, "{updates:?}");
    for update in &updates {
        assert_official(update);
    }
}

#[test]
fn every_update_the_importers_write_is_official_acp() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts: Vec<String> = ["claude-code", "codex", "pi"]
        .iter()
        .map(|f| std::fs::read_to_string(root.join(format!("tests/fixtures/{f}.jsonl"))).unwrap())
        .collect();
    // And the real sessions, when the corpus is beside the repository.
    if let Ok(dir) = std::fs::read_dir(root.join("../shared/corpus/sessions")) {
        texts.extend(dir.flatten().filter_map(|e| std::fs::read_to_string(e.path()).ok()));
    }
    for text in &texts {
        let imported = contextview_import::import(None, text).unwrap();
        let updates = updates_of(&imported.records);
        assert!(!updates.is_empty(), "an import wrote no updates: {}", &text[..text.len().min(200)]);
        for update in &updates {
            assert_official(update);
        }
    }
}

#[test]
fn every_update_an_answer_writes_or_streams_is_official_acp() {
    use contextview::answer::Decoder;
    let mut written = 0;
    for (provider, name, bytes) in crate::answers::fixtures() {
        let mut decoder = Decoder::new(provider, "fallback");
        let mut live = decoder.push(bytes);
        let (answer, closing, _) = decoder.finish();
        live.extend(closing);
        for update in live.iter().map(|u| serde_json::to_value(u).unwrap()) {
            assert_official(&update);
        }
        let records: Vec<contextview::update::Record> = answer
            .records(&answer.message_id("fallback"))
            .into_iter()
            .enumerate()
            .map(|(i, body)| contextview::update::Record { seq: i as u64 + 1, ts: String::new(), body })
            .collect();
        for update in updates_of(&records) {
            assert_official(&update);
            written += 1;
        }
        assert!(!records.is_empty(), "{name}");
    }
    assert!(written > 40, "{written}");
}
