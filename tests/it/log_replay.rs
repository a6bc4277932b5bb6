//! Layer 1: reading logs tolerantly, round-tripping every record kind, and replaying records
//! into conversation items and the client view.

use crate::common::log::{agent, event, log_of, update, user};
use contextview::conversation::{Item, Part, SyntheticReason};
use contextview::update::acp::{AcpUpdate, ContentBlock, ContentChunk, SessionUpdate};
use contextview::update::record::*;
use contextview::update::{parse_log, replay, write_log, ClientEntry};
use pretty_assertions::assert_eq;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The payload a stateless build of `items` gives for `provider` (default options, model `m`).
fn payload_for(items: &[Item], provider: contextview::Provider) -> contextview::Payload {
    contextview::view::build(items, &contextview::view::BuildOptions::new(provider, "m")).unwrap().payload
}

fn codes(diags: &[contextview::Diagnostic]) -> Vec<&str> {
    diags.iter().map(|d| d.code.as_str()).collect()
}

fn every_record_kind() -> Vec<Record> {
    let bodies = vec![
        RecordBody::Update(AcpUpdate::Known(SessionUpdate::UserMessageChunk(ContentChunk {
            content: ContentBlock::text("hello"),
            message_id: Some("m1".into()),
            meta: None,
        }))),
        RecordBody::Update(serde_json::from_value(json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hm"}, "_meta": {"contextview": {"provider": "anthropic", "signature": "sig"}}})).unwrap()),
        RecordBody::Update(serde_json::from_value(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}})).unwrap()),
        RecordBody::Update(serde_json::from_value(json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "kind": "read", "status": "pending", "rawInput": {"path": "a"}, "locations": [{"path": "/a", "line": 3}]})).unwrap()),
        RecordBody::Update(serde_json::from_value(json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "x"}}, {"type": "diff", "path": "/a", "oldText": "a", "newText": "b"}, {"type": "terminal", "terminalId": "term1"}]})).unwrap()),
        RecordBody::Update(serde_json::from_value(json!({"sessionUpdate": "plan", "entries": [{"content": "do", "priority": "high", "status": "pending"}]})).unwrap()),
        RecordBody::Update(AcpUpdate::Other(json!({"sessionUpdate": "usage_update", "used": 10, "size": 100}))),
        RecordBody::Event(Event::UsageAnchor(UsageAnchor { provider: Some("openai".into()), model: Some("gpt-5".into()), input_tokens: 10, output_tokens: 2, cache_read_tokens: 1, cache_write_tokens: 0, reasoning_tokens: None, omitted_tokens: None, head_tokens: None, counted: None })),
        RecordBody::Event(Event::ModelSwitch(ModelSwitch { provider: "anthropic".into(), model: "claude-opus-4-6".into(), context_window: Some(200_000) })),
        RecordBody::Event(Event::CompactionCheckpoint(CompactionCheckpoint { summary: "sum".into(), first_kept_seq: 5, tokens_before: Some(1000), summary_tokens: None, trim_kept_over: None })),
        RecordBody::Event(Event::Rewind(Rewind { prompt_index: 0 })),
        RecordBody::Event(Event::ReminderInjected(ReminderInjected { reminder: "date".into(), text: "today".into() })),
        RecordBody::Event(Event::PromptHeadSnapshot(PromptHeadSnapshot { system: "sys".into(), first_user_prefix: "env".into(), cuts: Vec::new() })),
        RecordBody::Unknown(json!({"seq": 14, "ts": "2026-01-01T00:00:00Z", "future": {"x": 1}})),
    ];
    bodies.into_iter().enumerate().map(|(i, body)| Record { seq: i as u64 + 1, ts: "2026-01-01T00:00:00Z".into(), body }).collect()
}

#[test]
fn every_record_kind_round_trips_through_the_text_form() {
    let records = every_record_kind();
    let text = write_log(&Header::new("s1"), &records);
    let log = parse_log(&text);
    assert_eq!(log.header, Some(Header::new("s1")));
    assert_eq!(log.records, records);
    // Only the unknown record is reported.
    assert_eq!(codes(&log.diagnostics), vec!["log.unknown_record"]);
    // Writing what was read gives the same bytes.
    assert_eq!(write_log(log.header.as_ref().unwrap(), &log.records), text);
}

#[test]
fn torn_last_line_is_dropped_with_a_warning() {
    let mut text = log_of(&[user(1, "u1", "hi"), agent(2, "a1", "hello")]);
    text.push_str(r#"{"seq":3,"ts":"t","update":{"sessionUp"#);
    let log = parse_log(&text);
    assert_eq!(log.records.len(), 2);
    assert_eq!(codes(&log.diagnostics), vec!["log.torn_tail"]);
    assert_eq!(log.diagnostics[0].line, Some(4));
}

#[test]
fn malformed_middle_line_is_reported_and_the_rest_replays() {
    let text = log_of(&[user(1, "u1", "hi"), "{not json".into(), agent(3, "a1", "hello"), "[1,2]".into(), user(4, "u2", "more")]);
    let log = parse_log(&text);
    assert_eq!(codes(&log.diagnostics), vec!["log.malformed_line", "log.bad_envelope"]);
    assert_eq!(log.diagnostics[0].line, Some(3));
    assert_eq!(log.diagnostics[1].line, Some(5));
    assert_eq!(replay(&log.records).items.len(), 3);
}

#[test]
fn malformed_known_record_is_an_error_not_an_unknown() {
    // A tool_call without its required toolCallId.
    let text = log_of(&[update(1, json!({"sessionUpdate": "tool_call", "title": "x"})), user(2, "u", "hi")]);
    let log = parse_log(&text);
    assert_eq!(codes(&log.diagnostics), vec!["log.bad_record"]);
    assert_eq!(log.records.len(), 1);
}

#[test]
fn unknown_event_kinds_are_kept_and_skipped() {
    let text = log_of(&[user(1, "u", "hi"), event(2, json!({"kind": "hologram", "x": 1}))]);
    let log = parse_log(&text);
    assert_eq!(codes(&log.diagnostics), vec!["log.unknown_record"]);
    assert!(matches!(log.records[1].body, RecordBody::Unknown(_)));
    let r = replay(&log.records);
    assert_eq!(r.state.skipped_records, 1);
    assert_eq!(r.items.len(), 1);
}

#[test]
fn duplicate_and_out_of_order_records_are_reported() {
    let text = log_of(&[user(1, "u", "hi"), user(1, "u", "hi"), agent(2, "a", "x"), agent(1, "b", "y")]);
    let log = parse_log(&text);
    assert_eq!(codes(&log.diagnostics), vec!["log.duplicate_record", "log.seq_out_of_order"]);
    assert_eq!(log.records.len(), 3);
}

#[test]
fn missing_header_and_crlf_are_tolerated() {
    let text = format!("{}\r\n{}\r\n", user(1, "u", "a"), agent(2, "a", "b"));
    let log = parse_log(&text);
    assert_eq!(codes(&log.diagnostics), vec!["log.missing_header"]);
    assert_eq!(log.records.len(), 2);
}

#[test]
fn chunks_of_one_message_merge_and_a_new_id_starts_a_new_message() {
    let text = log_of(&[
        user(1, "u1", "Hel"),
        user(2, "u1", "lo"),
        agent(3, "a1", "Hi "),
        agent(4, "a1", "there"),
        agent(5, "a2", "Second"),
    ]);
    let r = replay(&parse_log(&text).records);
    let texts: Vec<String> = r
        .items
        .iter()
        .map(|i| match i {
            Item::User(m) => contextview::conversation::text_of(&m.content),
            Item::Assistant(a) => a.text.to_string(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(texts, vec!["Hello", "Hi there", "Second"]);
    assert_eq!(r.state.prompt_count, 1);
    // The client view coalesces the same way.
    let client: Vec<Vec<String>> = r
        .view
        .iter()
        .map(|e| match e {
            ClientEntry::Message { content, .. } => content.iter().map(|b| match b {
                ContentBlock::Text { text, .. } => text.to_string(),
                other => format!("{other:?}"),
            }).collect(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(client, vec![vec!["Hello"], vec!["Hi there"], vec!["Second"]]);
}

#[test]
fn the_client_view_joins_a_message_s_text_chunks_around_other_blocks() {
    let image = |seq| update(seq, json!({"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}}));
    let text = log_of(&[user(1, "u", "go"), agent(2, "a", "one "), agent(3, "a", "two "), agent(4, "a", "three"), image(5), agent(6, "a", "four"), agent(7, "a", "!"), user(8, "v", "next")]);
    let r = replay(&parse_log(&text).records);
    let shapes: Vec<Vec<String>> = r
        .view
        .iter()
        .map(|e| match e {
            ClientEntry::Message { content, .. } => content.iter().map(|b| match b {
                ContentBlock::Text { text, .. } => text.to_string(),
                ContentBlock::Image { .. } => "<image>".to_owned(),
                other => format!("{other:?}"),
            }).collect(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(shapes, vec![vec!["go".to_owned()], vec!["one two three".into(), "<image>".into(), "four!".into()], vec!["next".into()]]);
}

/// A tool's output is held once: the log's content block, the conversation item and the
/// payload share one string.
#[test]
fn a_tool_output_is_one_string_in_the_log_the_item_and_the_payload() {
    use std::sync::Arc;
    let [call, result] = crate::common::log::tool(2, "t1", "read", json!({"path": "a.rs"}), &"fn main() {}\n".repeat(100));
    let records = parse_log(&log_of(&[user(1, "u", "read a.rs"), call, result, user(4, "u2", "thanks")])).records;
    let in_log = records.iter().find_map(|r| match &r.body {
        RecordBody::Update(AcpUpdate::Known(SessionUpdate::ToolCallUpdate(p))) => p.content.as_ref()?.iter().find_map(|c| match c {
            contextview::update::acp::ToolCallContent::Content { content: ContentBlock::Text { text, .. }, .. } => Some(text.clone()),
            _ => None,
        }),
        _ => None,
    });
    let items = replay(&records).items;
    let in_item = items.iter().find_map(|i| match i {
        Item::ToolResult(r) => match r.content.as_slice() {
            [Part::Text { text }] => Some(text.clone()),
            _ => None,
        },
        _ => None,
    });
    let (in_log, in_item) = (in_log.expect("the output in the log"), in_item.expect("the output in the item"));
    assert!(Arc::ptr_eq(&in_log, &in_item), "the item copied the log's text");
    let contextview::Payload::Anthropic(payload) = payload_for(&items, contextview::Provider::Anthropic) else { panic!("not an Anthropic payload") };
    let in_payload = payload.messages.iter().flat_map(|m| m.content.iter()).find_map(|b| match b {
        contextview::provider::anthropic::Block::ToolResult { content, .. } => content.iter().find_map(|r| match r {
            contextview::provider::anthropic::ResultBlock::Text { text } => Some(text.clone()),
            _ => None,
        }),
        _ => None,
    });
    assert!(Arc::ptr_eq(&in_item, &in_payload.expect("the output in the payload")), "the payload copied the item's text");
    // The same for the APIs whose tool output is a string.
    let contextview::Payload::OpenAiChat(chat) = payload_for(&items, contextview::Provider::OpenAiChat) else { panic!("not a Chat payload") };
    let in_chat = chat.messages.iter().find_map(|m| match m {
        contextview::provider::openai_chat::Message::Tool { content: contextview::provider::openai_chat::ToolContent::Text(text), .. } => Some(text.clone()),
        _ => None,
    });
    assert!(Arc::ptr_eq(&in_item, &in_chat.expect("the output in the Chat payload")), "Chat copied the item's text");
    let contextview::Payload::OpenAiResponses(responses) = payload_for(&items, contextview::Provider::OpenAiResponses) else { panic!("not a Responses payload") };
    let in_responses = responses.input.iter().find_map(|i| match i {
        contextview::provider::openai_responses::InputItem::FunctionCallOutput { output: contextview::provider::openai_responses::Output::Text(text), .. } => Some(text.clone()),
        _ => None,
    });
    assert!(Arc::ptr_eq(&in_item, &in_responses.expect("the output in the Responses payload")), "Responses copied the item's text");
}

#[test]
fn a_tool_input_is_one_value_in_the_log_the_item_and_the_payloads_that_carry_it_whole() {
    use contextview::conversation::JsonText;
    let [call, result] = crate::common::log::tool(2, "t1", "read", json!({"path": "a.rs", "limit": 40}), "fn main() {}");
    let records = parse_log(&log_of(&[user(1, "u", "read a.rs"), call, result, user(4, "u2", "thanks")])).records;
    let in_log = records.iter().find_map(|r| match &r.body {
        RecordBody::Update(AcpUpdate::Known(SessionUpdate::ToolCall(c))) => c.raw_input.clone(),
        _ => None,
    });
    let items = replay(&records).items;
    let in_item = items.iter().find_map(|i| match i {
        Item::ToolCall(c) => Some(c.input.clone()),
        _ => None,
    });
    let (in_log, in_item) = (in_log.expect("the input in the log"), in_item.expect("the input in the item"));
    assert_eq!(in_item.value(), json!({"path": "a.rs", "limit": 40}));
    assert!(JsonText::ptr_eq(&in_log, &in_item), "the item copied the log's input");
    let contextview::Payload::Anthropic(payload) = payload_for(&items, contextview::Provider::Anthropic) else { panic!("not an Anthropic payload") };
    let in_anthropic = payload.messages.iter().flat_map(|m| m.content.iter()).find_map(|b| match b {
        contextview::provider::anthropic::Block::ToolUse { input, .. } => Some(input.text().clone()),
        _ => None,
    });
    assert!(JsonText::ptr_eq(&in_item, &in_anthropic.expect("the input in the payload")), "the Anthropic payload copied the input");
    let contextview::Payload::Gemini(gemini) = payload_for(&items, contextview::Provider::Gemini) else { panic!("not a Gemini payload") };
    let in_gemini = gemini.contents.iter().flat_map(|c| c.parts.iter()).find_map(|p| p.function_call.as_ref().map(|f| f.args.text().clone()));
    assert!(JsonText::ptr_eq(&in_item, &in_gemini.expect("the input in the Gemini payload")), "the Gemini payload copied the input");
}

#[test]
fn tool_updates_fold_into_the_call_and_a_terminal_status_makes_a_result() {
    let text = log_of(&[
        user(1, "u", "go"),
        update(2, json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Run ls", "status": "pending", "rawInput": {"cmd": "ls"}, "_meta": {"contextview": {"toolName": "bash"}}})),
        update(3, json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress", "content": [{"type": "content", "content": {"type": "text", "text": "partial"}}]})),
        update(4, json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed", "content": [{"type": "content", "content": {"type": "text", "text": "boom"}}]})),
        update(5, json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Run ls (retitled)"})),
    ]);
    let r = replay(&parse_log(&text).records);
    assert_eq!(r.items.len(), 3);
    match (&r.items[1], &r.items[2]) {
        (Item::ToolCall(call), Item::ToolResult(result)) => {
            assert_eq!(call.name, "bash");
            assert_eq!(call.input.value(), json!({"cmd": "ls"}));
            assert_eq!(result.call_id, "t1");
            assert!(result.is_error);
            assert_eq!(result.content, vec![Part::text("boom")]);
        }
        other => panic!("{other:?}"),
    }
    match &r.view[1] {
        ClientEntry::ToolCall { title, status, .. } => {
            assert_eq!(title, "Run ls (retitled)");
            assert_eq!(*status, Some(contextview::update::acp::ToolCallStatus::Failed));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn update_for_an_unknown_call_is_reported_and_becomes_an_orphan_result() {
    let text = log_of(&[user(1, "u", "go"), update(2, json!({"sessionUpdate": "tool_call_update", "toolCallId": "ghost", "status": "completed", "rawOutput": "late"}))]);
    let r = replay(&parse_log(&text).records);
    assert_eq!(codes(&r.diagnostics), vec!["replay.orphan_update"]);
    assert!(matches!(&r.items[1], Item::ToolResult(res) if res.call_id == "ghost"));
}

#[test]
fn rewind_truncates_to_before_the_chosen_prompt() {
    let text = log_of(&[
        user(1, "u1", "first"),
        agent(2, "a1", "one"),
        user(3, "u2", "second"),
        agent(4, "a2", "two"),
        event(5, json!({"kind": "rewind", "promptIndex": 1})),
        user(6, "u3", "second, again"),
    ]);
    let r = replay(&parse_log(&text).records);
    let ids: Vec<&str> = r.items.iter().map(Item::id).collect();
    assert_eq!(ids, vec!["u1", "a1", "u3"]);
    assert_eq!(r.state.prompt_count, 2);
}

#[test]
fn rewind_out_of_range_is_reported_and_ignored() {
    let text = log_of(&[user(1, "u1", "first"), event(2, json!({"kind": "rewind", "promptIndex": 7}))]);
    let r = replay(&parse_log(&text).records);
    assert_eq!(codes(&r.diagnostics), vec!["replay.rewind_out_of_range"]);
    assert_eq!(r.items.len(), 1);
}

#[test]
fn compaction_replaces_what_it_summarises_and_rewind_reaches_back_across_it() {
    let base = vec![
        user(1, "u1", "first"),
        agent(2, "a1", "one"),
        user(3, "u2", "second"),
        agent(4, "a2", "two"),
        event(5, json!({"kind": "compaction_checkpoint", "summary": "We did one and two.", "firstKeptSeq": 3})),
        user(6, "u3", "third"),
    ];
    let r = replay(&parse_log(&log_of(&base)).records);
    let ids: Vec<&str> = r.items.iter().map(Item::id).collect();
    assert_eq!(ids, vec!["compaction-5", "u2", "a2", "u3"]);
    assert!(matches!(&r.items[0], Item::User(m) if m.synthetic == Some(SyntheticReason::Compaction)));
    assert_eq!(r.state.last_compaction_seq, Some(5));

    // Rewinding to the first prompt drops the compaction too: the original records are intact.
    let mut rewound = base.clone();
    rewound.push(event(7, json!({"kind": "rewind", "promptIndex": 0})));
    rewound.push(user(8, "u4", "start over"));
    let r = replay(&parse_log(&log_of(&rewound)).records);
    let ids: Vec<&str> = r.items.iter().map(Item::id).collect();
    assert_eq!(ids, vec!["u4"]);
    assert_eq!(r.state.last_compaction_seq, None);
}

#[test]
fn synthetic_user_chunks_and_reminders_do_not_count_as_prompts() {
    let text = log_of(&[
        user(1, "u1", "real"),
        update(2, json!({"sessionUpdate": "user_message_chunk", "messageId": "s1", "content": {"type": "text", "text": "subagent done"}, "_meta": {"contextview": {"synthetic": "subagent_completion"}}})),
        event(3, json!({"kind": "reminder_injected", "reminder": "date", "text": "It is Tuesday."})),
    ]);
    let r = replay(&parse_log(&text).records);
    assert_eq!(r.state.prompt_count, 1);
    assert!(matches!(&r.items[1], Item::User(m) if m.synthetic == Some(SyntheticReason::SubagentCompletion)));
    assert!(matches!(&r.items[2], Item::User(m) if m.synthetic == Some(SyntheticReason::SystemReminder)));
}

#[test]
fn usage_model_and_heads_land_in_state() {
    let text = log_of(&[
        user(1, "u", "hi"),
        event(2, json!({"kind": "usage_anchor", "inputTokens": 100, "outputTokens": 5})),
        event(3, json!({"kind": "model_switch", "provider": "openai", "model": "gpt-5", "contextWindow": 400000})),
        event(4, json!({"kind": "prompt_head_snapshot", "system": "S", "firstUserPrefix": "P"})),
    ]);
    let r = replay(&parse_log(&text).records);
    assert_eq!(r.state.usage.as_ref().map(|u| u.input_tokens), Some(100));
    // The prefix opened the conversation before "hi": the anchor still ends after "hi".
    assert_eq!(r.state.items_at_usage, 2);
    assert_eq!(r.state.model.as_ref().map(|m| m.model.as_str()), Some("gpt-5"));
    assert_eq!(r.state.heads.as_ref().map(|h| h.system.as_str()), Some("S"));
}

#[test]
fn images_and_resources_become_parts_and_audio_is_reported() {
    let text = log_of(&[
        update(1, json!({"sessionUpdate": "user_message_chunk", "messageId": "u", "content": {"type": "text", "text": "look"}})),
        update(2, json!({"sessionUpdate": "user_message_chunk", "messageId": "u", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}})),
        update(3, json!({"sessionUpdate": "user_message_chunk", "messageId": "u", "content": {"type": "resource_link", "uri": "file:///a.rs", "name": "a.rs"}})),
        update(4, json!({"sessionUpdate": "user_message_chunk", "messageId": "u", "content": {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}})),
    ]);
    let r = replay(&parse_log(&text).records);
    assert_eq!(codes(&r.diagnostics), vec!["replay.unsupported_content"]);
    match &r.items[0] {
        Item::User(m) => {
            assert_eq!(m.content.len(), 3);
            assert!(matches!(m.content[1], Part::Image(_)));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_second_compaction_keeps_from_its_own_first_kept_record() {
    // The first summary sits first with a later seq than the records it keeps; the second
    // compaction must still cut at its own firstKeptSeq.
    let log = log_of(&[
        user(1, "u1", "one"),
        agent(2, "a1", "did one"),
        user(3, "u2", "two"),
        agent(4, "a2", "did two"),
        event(5, json!({"kind": "compaction_checkpoint", "summary": "S1", "firstKeptSeq": 3})),
        user(6, "u3", "three"),
        agent(7, "a3", "did three"),
        event(8, json!({"kind": "compaction_checkpoint", "summary": "S2", "firstKeptSeq": 4})),
    ]);
    let items = replay(&parse_log(&log).records).items;
    let ids: Vec<&str> = items.iter().map(Item::id).collect();
    assert_eq!(ids, vec!["compaction-8", "a2", "u3", "a3"]);
}

#[test]
fn a_log_image_with_a_garbled_media_type_builds_for_every_provider() {
    // The recorded type is bytes of nonsense; the data is a PNG. The view sends what the bytes are.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC";
    let log = [
        json!({"format": "contextview.session-log", "version": 1, "sessionId": "s"}).to_string(),
        json!({"seq": 1, "ts": "t", "update": {"sessionUpdate": "user_message_chunk", "messageId": "u1", "content": {"type": "text", "text": "look"}}}).to_string(),
        json!({"seq": 2, "ts": "t", "update": {"sessionUpdate": "user_message_chunk", "messageId": "u1", "content": {"type": "image", "mimeType": "image/p\u{fffd}zng", "data": png}}}).to_string(),
    ]
    .join("\n");
    let items = replay(&parse_log(&log).records).items;
    for provider in contextview::Provider::ALL {
        let built = contextview::build(&items, &contextview::BuildOptions::new(provider, "m")).unwrap();
        assert!(built.body.contains("image/png"), "{provider}");
    }
}

#[test]
fn a_header_from_a_newer_version_or_of_the_wrong_shape_is_reported_and_records_read() {
    use contextview::update::record::{LOG_FORMAT, LOG_VERSION};
    let newer = json!({"format": LOG_FORMAT, "version": LOG_VERSION + 1, "sessionId": "s"});
    let log = parse_log(&format!("{newer}\n{}\n", user(1, "u", "hi")));
    assert_eq!(codes(&log.diagnostics), vec!["log.newer_version"]);
    assert_eq!((log.header.map(|h| h.version), log.records.len()), (Some(LOG_VERSION + 1), 1));
    // A header with a version that is not a number is no header: the records are still read.
    let broken = json!({"format": LOG_FORMAT, "version": "two", "sessionId": "s"});
    let log = parse_log(&format!("{broken}\n{}\n", user(1, "u", "hi")));
    assert_eq!(codes(&log.diagnostics), vec!["log.bad_header", "log.missing_header"]);
    assert_eq!(log.diagnostics[0].line, Some(1));
    assert_eq!((log.header.is_none(), log.records.len()), (true, 1));
}

#[test]
fn an_image_with_neither_data_nor_a_uri_is_left_out_with_a_warning() {
    let text = log_of(&[
        update(1, json!({"sessionUpdate": "user_message_chunk", "messageId": "u", "content": {"type": "text", "text": "see"}})),
        update(2, json!({"sessionUpdate": "user_message_chunk", "messageId": "u", "content": {"type": "image", "data": "", "mimeType": "image/png"}})),
    ]);
    let r = replay(&parse_log(&text).records);
    assert_eq!(codes(&r.diagnostics), vec!["replay.empty_image"]);
    assert_eq!(r.diagnostics[0].path.as_deref(), Some("seq:2"));
    match &r.items[..] {
        [Item::User(m)] => assert_eq!(m.content, vec![Part::text("see")]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_line_that_is_an_array_with_a_seq_and_a_time_is_kept_as_an_unknown_record() {
    let text = format!("{}[3,\"2026-01-01T00:00:00Z\"]\n", log_of(&[user(1, "u", "hi")]));
    let log = parse_log(&text);
    assert_eq!(codes(&log.diagnostics), vec!["log.unknown_record"]);
    assert_eq!(log.records.len(), 2);
    assert_eq!(log.records[1].to_line(), "[3,\"2026-01-01T00:00:00Z\"]");
}

/// A message written as many small chunks merges into one text, in the items and in the client
/// view (each grows in place while nothing else holds it).
#[test]
fn a_message_of_many_chunks_merges_whole() {
    let mut lines = vec![];
    for seq in 1..=3000u64 {
        lines.push(user(seq, "u", &format!("{} ", seq % 10)));
    }
    lines.push(agent(3001, "a", "ok"));
    let r = replay(&parse_log(&log_of(&lines)).records);
    let expected: String = (1..=3000u64).map(|seq| format!("{} ", seq % 10)).collect();
    match &r.items[0] {
        Item::User(m) => assert_eq!(contextview::conversation::text_of(&m.content), expected),
        other => panic!("{other:?}"),
    }
    match &r.view[0] {
        ClientEntry::Message { content, .. } => match content.as_slice() {
            [ContentBlock::Text { text, .. }] => assert_eq!(**text, expected),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// The model's text, written as one chunk, is one string in the log, the item and the Anthropic,
/// Chat and Responses payloads.
#[test]
fn the_model_s_text_is_one_string_in_the_log_the_item_and_the_payloads() {
    use std::sync::Arc;
    let records = parse_log(&log_of(&[user(1, "u", "hi"), agent(2, "a", "Hello there."), user(3, "v", "go on")])).records;
    let in_log = records.iter().find_map(|r| match &r.body {
        RecordBody::Update(AcpUpdate::Known(SessionUpdate::AgentMessageChunk(c))) => match &c.content {
            ContentBlock::Text { text, .. } => Some(text.clone()),
            _ => None,
        },
        _ => None,
    });
    let items = replay(&records).items;
    let in_item = items.iter().find_map(|i| match i {
        Item::Assistant(a) => Some(a.text.clone()),
        _ => None,
    });
    let (in_log, in_item) = (in_log.expect("the text in the log"), in_item.expect("the text in the item"));
    assert!(Arc::ptr_eq(&in_log, &in_item), "the item copied the log's text");
    let contextview::Payload::Anthropic(payload) = payload_for(&items, contextview::Provider::Anthropic) else { panic!("not an Anthropic payload") };
    let in_payload = payload.messages.iter().flat_map(|m| m.content.iter()).find_map(|b| match b {
        contextview::provider::anthropic::Block::Text { text, .. } if text.as_str() == "Hello there." => Some(text.clone()),
        _ => None,
    });
    assert!(Arc::ptr_eq(&in_item, &in_payload.expect("the text in the payload")), "the payload copied the item's text");
    // Chat's assistant message and Responses' assistant message carry a turn's one text as it is.
    let contextview::Payload::OpenAiChat(chat) = payload_for(&items, contextview::Provider::OpenAiChat) else { panic!("not a Chat payload") };
    let in_chat = chat.messages.iter().find_map(|m| match m {
        contextview::provider::openai_chat::Message::Assistant { content, .. } => content.clone(),
        _ => None,
    });
    assert!(Arc::ptr_eq(&in_item, &in_chat.expect("the text in the Chat payload")), "Chat copied the item's text");
    let contextview::Payload::OpenAiResponses(responses) = payload_for(&items, contextview::Provider::OpenAiResponses) else { panic!("not a Responses payload") };
    let in_responses = responses.input.iter().find_map(|i| match i {
        contextview::provider::openai_responses::InputItem::Message {
            role: contextview::provider::openai_responses::MessageRole::Assistant,
            content: contextview::provider::openai_responses::MessageContent::Text(text),
            ..
        } => Some(text.clone()),
        _ => None,
    });
    assert!(Arc::ptr_eq(&in_item, &in_responses.expect("the text in the Responses payload")), "Responses copied the item's text");
}

#[test]
fn the_model_s_thinking_is_one_string_in_the_log_the_item_and_the_anthropic_payload() {
    use std::sync::Arc;
    let thought = update(
        2,
        json!({"sessionUpdate": "agent_thought_chunk", "messageId": "a", "content": {"type": "text", "text": "Check the parser first."}, "_meta": {"contextview": {"provider": "anthropic", "model": "m", "signature": "sig-1"}}}),
    );
    let answer = update(3, json!({"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "Done."}, "_meta": {"contextview": {"provider": "anthropic", "model": "m"}}}));
    let records = parse_log(&log_of(&[user(1, "u", "hi"), thought, answer, user(4, "v", "go on")])).records;
    let in_log = records.iter().find_map(|r| match &r.body {
        RecordBody::Update(AcpUpdate::Known(SessionUpdate::AgentThoughtChunk(c))) => match &c.content {
            ContentBlock::Text { text, .. } => Some(text.clone()),
            _ => None,
        },
        _ => None,
    });
    let items = replay(&records).items;
    let in_item = items.iter().find_map(|i| match i {
        Item::Reasoning(r) => Some(r.text.clone()),
        _ => None,
    });
    let (in_log, in_item) = (in_log.expect("the thinking in the log"), in_item.expect("the thinking in the item"));
    assert_eq!(in_item.as_str(), "Check the parser first.");
    assert!(Arc::ptr_eq(&in_log, &in_item), "the item copied the log's thinking");
    let contextview::Payload::Anthropic(payload) = payload_for(&items, contextview::Provider::Anthropic) else { panic!("not an Anthropic payload") };
    let in_payload = payload.messages.iter().flat_map(|m| m.content.iter()).find_map(|b| match b {
        contextview::provider::anthropic::Block::Thinking { thinking, .. } => Some(thinking.clone()),
        _ => None,
    });
    assert!(Arc::ptr_eq(&in_item, &in_payload.expect("the thinking in the payload")), "the payload copied the item's thinking");
}

/// A tool input that is not an object goes to the APIs that take an object as `{"input": …}`,
/// byte for byte, and is counted; a string goes to Responses as a free-form tool's input.
#[test]
fn a_tool_input_that_is_not_an_object_is_wrapped_where_an_object_is_needed() {
    use contextview::view::{build, BuildOptions};
    use contextview::Provider;
    for (input, wrapped) in [
        (json!("ls -la \"dir\""), r#"{"input":"ls -la \"dir\""}"#),
        (json!(42.5), r#"{"input":42.5}"#),
        (json!(["a", {"b": 1}]), r#"{"input":["a",{"b":1}]}"#),
    ] {
        let [call, result] = crate::common::log::tool(2, "t1", "run", input.clone(), "ok");
        let items = replay(&parse_log(&log_of(&[user(1, "u", "go"), call, result, user(4, "v", "next")])).records).items;
        let anthropic = build(&items, &BuildOptions::new(Provider::Anthropic, "m")).unwrap();
        assert!(anthropic.body.contains(&format!(r#""input":{wrapped}"#)), "{input}: {}", anthropic.body);
        assert_eq!(anthropic.report.wrapped_inputs, 1, "{input}");
        let gemini = build(&items, &BuildOptions::new(Provider::Gemini, "m")).unwrap();
        assert!(gemini.body.contains(&format!(r#""args":{wrapped}"#)), "{input}: {}", gemini.body);
        let chat = build(&items, &BuildOptions::new(Provider::OpenAiChat, "m")).unwrap();
        assert!(chat.body.contains(&format!(r#""arguments":{}"#, serde_json::to_string(wrapped).unwrap())), "{input}: {}", chat.body);
        let responses = build(&items, &BuildOptions::new(Provider::OpenAiResponses, "m")).unwrap();
        match input.as_str() {
            Some(text) => assert!(responses.body.contains(&format!(r#""type":"custom_tool_call","call_id":"t1","name":"run","input":{}"#, serde_json::to_string(text).unwrap())), "{}", responses.body),
            None => assert!(responses.body.contains(&format!(r#""arguments":{}"#, serde_json::to_string(wrapped).unwrap())), "{input}: {}", responses.body),
        }
    }
    // A null input is no input: an empty object, nothing wrapped.
    let [call, result] = crate::common::log::tool(2, "t1", "run", json!(null), "ok");
    let items = replay(&parse_log(&log_of(&[user(1, "u", "go"), call, result, user(4, "v", "next")])).records).items;
    let anthropic = build(&items, &BuildOptions::new(Provider::Anthropic, "m")).unwrap();
    assert!(anthropic.body.contains(r#""name":"run","input":{}"#), "{}", anthropic.body);
    assert_eq!(anthropic.report.wrapped_inputs, 0);
}
