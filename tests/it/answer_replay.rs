//! An answer in, the next request out: what a provider answered goes back to the same API
//! exactly (signatures, encrypted reasoning, ids, citations), to another API as what it can
//! take, and is recorded as what it was — a failure, a cut, a refusal — with the ledger at the
//! provider's own count.

use super::answers::fixtures;
use contextview::answer::decode;
use contextview::provider::Provider;
use contextview::update::record::AnswerStatus;
use pretty_assertions::assert_eq;
use serde_json::Value;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use contextview::session::{Command, Processed, Reply, Session};
use contextview::update::Header;
use serde_json::json;

fn dispatch(s: &mut Session, command: Value) -> Processed {
    let command: Command = serde_json::from_value(command).unwrap();
    s.dispatch(command, Some("2026-12-03T10:00:00Z".into())).unwrap()
}

/// A session that asked `model` one question and recorded `answer` (a fixture's bytes).
fn answered(provider: Provider, model: &str, answer: &[u8]) -> (Session, Processed) {
    let mut s = Session::create(Header::new("loop"));
    dispatch(&mut s, json!({"type": "switchModel", "provider": provider, "model": model, "contextWindow": 200000}));
    dispatch(&mut s, json!({"type": "userMessage", "text": "Why does the parser test fail?"}));
    let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": std::str::from_utf8(answer).unwrap()}));
    assert_eq!(p.error, None);
    (s, p)
}

fn calls_of(p: &Processed) -> Vec<String> {
    match &p.reply {
        Some(Reply::Answered { answer, .. }) => answer.tool_calls.iter().map(|c| c.id.clone()).collect(),
        other => panic!("not answered: {other:?}"),
    }
}

/// Answers every call, builds the next request, and returns its body's conversation.
fn next_conversation(s: &mut Session, calls: &[String], key: &str) -> Vec<Value> {
    for id in calls {
        let p = dispatch(s, json!({"type": "toolResult", "toolCallId": id, "output": format!("output of {id}")}));
        assert_eq!(p.error, None);
    }
    let p = dispatch(s, json!({"type": "buildRequest"}));
    let Some(Reply::Built { body, .. }) = &p.reply else { panic!("{p:?}") };
    let body: Value = serde_json::from_str(body).unwrap();
    body[key].as_array().unwrap().clone()
}

#[test]
fn anthropic_gets_its_thinking_signatures_and_calls_back_exactly() {
    let (mut s, p) = answered(Provider::Anthropic, "claude-sonnet-4-5", include_bytes!("../fixtures/answers/anthropic-thinking-tools.sse"));
    let messages = next_conversation(&mut s, &calls_of(&p), "messages");
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "The test fails because the parser drops the last line.", "signature": "SIG-one/+=="},
            {"type": "text", "text": "Let me read the parser — “é” and 😀 included."},
            {"type": "tool_use", "id": "toolu_01Read", "name": "read_file", "input": {"path": "src/parser.rs", "limit": 200}},
            {"type": "tool_use", "id": "toolu_02List", "name": "list_dir", "input": {}},
        ]})
    );
    let (mut s, p) = answered(Provider::Anthropic, "claude-opus-4-1", include_bytes!("../fixtures/answers/anthropic-two-thinking-redacted.json"));
    let messages = next_conversation(&mut s, &calls_of(&p), "messages");
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "thinking", "thinking": "First I list the tests.", "signature": "SIG-a"},
            {"type": "redacted_thinking", "data": "REDACTED-opaque-data=="},
            {"type": "thinking", "thinking": "", "signature": "SIG-empty"},
            // Its citation goes back in the request's shape: without the answer's `file_id`.
            {"type": "text", "text": "The docs say so.", "citations": [
                {"type": "char_location", "cited_text": "so", "document_index": 0, "document_title": "README", "start_char_index": 4, "end_char_index": 6},
            ]},
            {"type": "tool_use", "id": "toolu_03Bash", "name": "bash", "input": {"command": "cargo test"}},
        ])
    );
    assert_eq!(messages[2]["content"][0]["tool_use_id"], json!("toolu_03Bash"));
}

#[test]
fn a_paused_server_tool_turn_is_sent_back_as_it_came_to_continue() {
    let (mut s, p) = answered(Provider::Anthropic, "claude-sonnet-4-5", include_bytes!("../fixtures/answers/anthropic-web-search-pause.sse"));
    assert_eq!(calls_of(&p), Vec::<String>::new(), "server tools are not the host's to run");
    let messages = next_conversation(&mut s, &[], "messages");
    assert_eq!(messages.len(), 2, "the continuation ends with the model's own turn");
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "I'll search for that."},
            {"type": "server_tool_use", "id": "srvtoolu_01Web", "name": "web_search", "input": {"query": "rust serde untagged variant"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01Web", "content": [{"type": "web_search_result", "url": "https://serde.rs/enum-representations.html", "title": "Enum representations", "encrypted_content": "ENC-page-1", "page_age": null}]},
            {"type": "text", "text": "Untagged variants come last.", "citations": [
                {"type": "web_search_result_location", "cited_text": "Variants marked untagged", "url": "https://serde.rs/enum-representations.html", "title": "Enum representations", "encrypted_index": "EIDX-1"},
            ]},
        ]})
    );
    // Another API gets neither block, and says so.
    let p = dispatch(&mut s, json!({"type": "buildRequest", "options": {"provider": "openai-chat", "model": "gpt-4o"}}));
    let Some(Reply::Built { report, .. }) = &p.reply else { panic!("{p:?}") };
    assert_eq!(report.dropped_natives, 2);
    assert_eq!(report.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), vec!["natives.dropped"]);
}

#[test]
fn openai_chat_gets_its_text_and_calls_back() {
    let (mut s, p) = answered(Provider::OpenAiChat, "gpt-4.1", include_bytes!("../fixtures/answers/openai-chat-tools.sse"));
    let messages = next_conversation(&mut s, &calls_of(&p), "messages");
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": "Running both checks.", "tool_calls": [
            {"id": "call_A", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
            {"id": "call_B", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"Cargo.toml\"}"}},
        ]})
    );
    assert_eq!(messages[2], json!({"role": "tool", "tool_call_id": "call_A", "content": "output of call_A"}));
}

#[test]
fn openai_responses_gets_its_encrypted_reasoning_back_from_the_finished_item() {
    let (mut s, p) = answered(Provider::OpenAiResponses, "gpt-5", include_bytes!("../fixtures/answers/openai-responses-reasoning-call.sse"));
    let input = next_conversation(&mut s, &calls_of(&p), "input");
    assert_eq!(
        input[1..3],
        [
            // Stored (the API's default): as it came, its `rs_` id with its encrypted content.
            json!({"type": "reasoning", "id": "rs_R1a", "summary": [{"type": "summary_text", "text": "**Plan**\n\nRead the file."}, {"type": "summary_text", "text": "Then edit it."}], "encrypted_content": "gAAAAB-final-R1a"}),
            json!({"type": "function_call", "call_id": "call_R1b", "name": "read_file", "arguments": "{\"path\":\"src/lib.rs\"}"}),
        ]
    );
    assert_eq!(input[3], json!({"type": "function_call_output", "call_id": "call_R1b", "output": "output of call_R1b"}));
}

#[test]
fn gemini_gets_each_signature_back_on_its_own_part() {
    let (mut s, p) = answered(Provider::Gemini, "gemini-3-pro-preview", include_bytes!("../fixtures/answers/gemini-text-signature.sse"));
    let mut contents = next_conversation(&mut s, &calls_of(&p), "contents");
    assert_eq!(
        contents[1],
        json!({"role": "model", "parts": [
            {"text": "**Reading the test**\n\nIt checks the last line.", "thought": true},
            {"text": "The parser drops the last line — “é” 😀."},
            {"text": "", "thoughtSignature": "GSIG/text+=="},
        ]})
    );
    let (mut s, p) = answered(Provider::Gemini, "gemini-3-flash-preview", include_bytes!("../fixtures/answers/gemini-parallel-calls.json"));
    contents = next_conversation(&mut s, &calls_of(&p), "contents");
    assert_eq!(
        contents[1]["parts"],
        json!([
            {"functionCall": {"id": "k3f9a2x1", "name": "read_file", "args": {"path": "a.rs"}}, "thoughtSignature": "GSIG/call=="},
            {"functionCall": {"id": "p0q8w7e6", "name": "read_file", "args": {"path": "b.rs"}}},
            {"functionCall": {"id": "z9y8x7w6", "name": "list_dir", "args": {}}},
        ])
    );
    assert_eq!(contents[2]["parts"].as_array().unwrap().len(), 3, "one response per call: {}", contents[2]);
    let (mut s, _) = answered(Provider::Gemini, "gemini-2.5-flash", include_bytes!("../fixtures/answers/gemini-array-code-execution.json"));
    dispatch(&mut s, json!({"type": "userMessage", "text": "Thanks."}));
    contents = next_conversation(&mut s, &[], "contents");
    assert_eq!(
        contents[1]["parts"],
        json!([
            {"text": "I'll compute it."},
            {"executableCode": {"language": "PYTHON", "code": "print(2**10)"}},
            {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1024\n"}},
            {"text": "It is 1024."},
        ])
    );
}

#[test]
fn after_an_answer_the_ledger_counts_what_the_provider_reported() {
    // Each fixture's own total, by its API's rule (the anchor's table is checked elsewhere).
    let cases: [(Provider, &str, &[u8], u64); 5] = [
        (Provider::Anthropic, "claude-sonnet-4-5", include_bytes!("../fixtures/answers/anthropic-thinking-tools.sse"), 3 + 4000 + 120 + 87),
        (Provider::OpenAiChat, "gpt-4.1", include_bytes!("../fixtures/answers/openai-chat-tools.sse"), 1540),
        (Provider::OpenAiResponses, "gpt-5", include_bytes!("../fixtures/answers/openai-responses-reasoning-call.sse"), 35489),
        (Provider::Gemini, "gemini-3-pro-preview", include_bytes!("../fixtures/answers/gemini-text-signature.sse"), 574),
        (Provider::Gemini, "gemini-2.5-flash", include_bytes!("../fixtures/answers/gemini-array-code-execution.json"), 60),
    ];
    for (provider, model, bytes, total) in cases {
        let (mut s, _) = answered(provider, model, bytes);
        let input = serde_json::from_value(json!({"provider": provider, "model": model, "contextWindow": 200000})).unwrap();
        assert_eq!(s.usage(&input).used, total, "{provider} {model}");
    }
}

// --- answers that end badly --------------------------------------------------------------------

fn answered_reply(p: &Processed) -> (&[u64], &contextview::answer::AnswerSummary, Vec<&str>) {
    match &p.reply {
        Some(Reply::Answered { seqs, answer, diagnostics, .. }) => (seqs, answer, diagnostics.iter().map(|d| d.code.as_str()).collect()),
        other => panic!("not answered: {other:?}"),
    }
}

fn end_record(s: &Session) -> Value {
    let last = s.records().iter().rev().find(|r| r.body.kind() == "answer_end").expect("an answer_end record");
    serde_json::from_str::<Value>(&last.to_line()).unwrap()["event"].clone()
}

#[test]
fn an_error_body_is_recorded_as_a_failed_answer_and_says_the_providers_error() {
    for (provider, bytes, kind, status) in [
        (Provider::Anthropic, &include_bytes!("../fixtures/answers/anthropic-error-body.json")[..], "invalid_request_error", None),
        (Provider::OpenAiChat, include_bytes!("../fixtures/answers/openai-chat-error-body.json"), "requests", None),
        (Provider::OpenAiResponses, include_bytes!("../fixtures/answers/openai-responses-error-body.json"), "invalid_request_error", None),
        (Provider::Gemini, include_bytes!("../fixtures/answers/gemini-error-body.json"), "RESOURCE_EXHAUSTED", Some(429)),
    ] {
        let (s, p) = answered(provider, "m", bytes);
        let (seqs, summary, _) = answered_reply(&p);
        // Only how it ended: the failure, durable, and nothing the model would see.
        assert_eq!(seqs.len(), 1, "{provider}");
        let error = summary.error.as_ref().unwrap();
        assert_eq!((error.kind.as_str(), error.status, summary.status), (kind, status, AnswerStatus::Failed), "{provider}");
        assert_eq!(end_record(&s)["error"]["kind"], json!(kind));
        assert_eq!(s.records().last().map(|r| r.body.kind()), Some("answer_end"));
    }
}

#[test]
fn what_arrived_before_a_failure_or_a_dropped_connection_is_kept_and_marked() {
    // Failed after some text: the text is kept; the next build (after the user's next word) is valid.
    let (mut s, p) = answered(Provider::Anthropic, "claude-sonnet-4-5", include_bytes!("../fixtures/answers/anthropic-overloaded-mid-stream.sse"));
    let (seqs, summary, _) = answered_reply(&p);
    assert_eq!((summary.status, summary.error.as_ref().map(|e| e.kind.as_str())), (AnswerStatus::Failed, Some("overloaded_error")));
    assert_eq!(seqs.len(), 3, "text, usage, answer_end");
    assert_eq!(end_record(&s)["status"], json!("failed"));
    assert_eq!(end_record(&s)["error"], json!({"kind": "overloaded_error", "message": "Overloaded"}));
    dispatch(&mut s, json!({"type": "userMessage", "text": "Go on."}));
    let messages = next_conversation(&mut s, &[], "messages");
    assert_eq!(messages[1], json!({"role": "assistant", "content": [{"type": "text", "text": "Half an answ"}]}));

    // The connection dropped inside a call's arguments: no call (nothing dangles), the text kept.
    for (provider, bytes, call) in [
        (Provider::Anthropic, &include_bytes!("../fixtures/answers/anthropic-dropped-mid-call.sse")[..], "toolu_01Read"),
        (Provider::OpenAiChat, include_bytes!("../fixtures/answers/openai-chat-dropped.sse"), "call_A"),
        (Provider::Anthropic, include_bytes!("../fixtures/answers/anthropic-max-tokens-mid-call.sse"), "toolu_04Write"),
    ] {
        let (mut s, p) = answered(provider, "m", bytes);
        let (_, summary, diagnostics) = answered_reply(&p);
        assert!(summary.tool_calls.is_empty(), "{provider}: {summary:?}");
        assert!(diagnostics.contains(&"answer.unfinished_call"), "{diagnostics:?}");
        assert_eq!(end_record(&s)["unfinishedCalls"][0]["id"], json!(call));
        assert_eq!(
            dispatch(&mut s, json!({"type": "toolResult", "toolCallId": call, "output": "x"})).error.map(|e| e.code),
            Some("unknown_tool_call".to_owned()),
            "an unfinished call is not a call"
        );
        dispatch(&mut s, json!({"type": "userMessage", "text": "Go on."}));
        let p = dispatch(&mut s, json!({"type": "buildRequest"}));
        assert!(matches!(p.reply, Some(Reply::Built { .. })), "{provider}: {p:?}");
    }
    let (s, p) = answered(Provider::Anthropic, "m", include_bytes!("../fixtures/answers/anthropic-dropped-mid-call.sse"));
    assert_eq!(answered_reply(&p).1.status, AnswerStatus::Partial);
    assert!(answered_reply(&p).2.contains(&"answer.partial"));
    assert_eq!(end_record(&s)["status"], json!("partial"));
}

#[test]
fn stop_reasons_and_refusals_are_recorded_as_they_are() {
    for (provider, bytes, stop, refused) in [
        (Provider::Anthropic, &include_bytes!("../fixtures/answers/anthropic-refusal.json")[..], "refusal", true),
        (Provider::OpenAiChat, include_bytes!("../fixtures/answers/openai-chat-refusal.json"), "stop", true),
        (Provider::OpenAiChat, include_bytes!("../fixtures/answers/openai-chat-length.sse"), "length", false),
        (Provider::OpenAiResponses, include_bytes!("../fixtures/answers/openai-responses-incomplete.sse"), "max_output_tokens", false),
        (Provider::OpenAiResponses, include_bytes!("../fixtures/answers/openai-responses-refusal.sse"), "completed", true),
        (Provider::Gemini, include_bytes!("../fixtures/answers/gemini-safety.json"), "SAFETY", true),
        (Provider::Gemini, include_bytes!("../fixtures/answers/gemini-prompt-blocked.json"), "PROHIBITED_CONTENT", true),
    ] {
        let (mut s, p) = answered(provider, "m", bytes);
        let (_, summary, _) = answered_reply(&p);
        assert_eq!((summary.stop_reason.as_deref(), summary.refused, summary.status), (Some(stop), refused, AnswerStatus::Complete), "{provider} {stop}");
        assert_eq!(end_record(&s)["stopReason"], json!(stop));
        dispatch(&mut s, json!({"type": "userMessage", "text": "Try again."}));
        let p = dispatch(&mut s, json!({"type": "buildRequest"}));
        assert!(matches!(p.reply, Some(Reply::Built { .. })), "{provider} {stop}: {p:?}");
    }
    let (s, p) = answered(Provider::OpenAiChat, "m", include_bytes!("../fixtures/answers/openai-chat-two-choices.json"));
    assert!(answered_reply(&p).2.contains(&"answer.extra_choices"));
    assert_eq!(end_record(&s)["extraChoices"], json!(1));
}

#[test]
fn a_stream_fed_to_the_session_in_pieces_records_what_the_whole_body_records() {
    for (provider, name, bytes) in fixtures() {
        let (whole, p_whole) = answered(provider, "m", bytes);
        let mut s = Session::create(Header::new("loop"));
        dispatch(&mut s, json!({"type": "switchModel", "provider": provider, "model": "m", "contextWindow": 200000}));
        dispatch(&mut s, json!({"type": "userMessage", "text": "Why does the parser test fail?"}));
        assert_eq!(dispatch(&mut s, json!({"type": "beginAnswer"})).error, None);
        for piece in bytes.chunks(7) {
            s.answer_bytes(piece).unwrap();
        }
        let p = dispatch(&mut s, json!({"type": "endAnswer"}));
        let (seqs, answer, diagnostics) = answered_reply(&p);
        assert_eq!((seqs, answer, diagnostics), answered_reply(&p_whole), "{name}");
        let lines = |s: &Session| s.records().iter().map(|r| r.to_line()).collect::<Vec<_>>();
        assert_eq!(lines(&s), lines(&whole), "{name}");
    }
}

#[test]
fn a_discarded_answer_writes_nothing() {
    let mut s = Session::create(Header::new("discard"));
    dispatch(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "m"}));
    let before = s.records().len();
    dispatch(&mut s, json!({"type": "beginAnswer"}));
    s.answer_bytes(include_bytes!("../fixtures/answers/anthropic-thinking-tools.sse")).unwrap();
    let p = dispatch(&mut s, json!({"type": "endAnswer", "discard": true}));
    assert_eq!(p.reply, Some(Reply::Unchanged));
    assert_eq!(s.records().len(), before);
    assert_eq!(dispatch(&mut s, json!({"type": "endAnswer"})).error.map(|e| e.code), Some("no_answer_begun".to_owned()));
}

/// Whatever an answer decoder accepts — even another API's answer read as its own — recorded
/// after a prompt replays and builds, for every provider, a payload its validator passes.
#[test]
fn any_answer_read_by_any_decoder_builds_valid_payloads() {
    use contextview::update::acp::{AcpUpdate, ContentBlock, ProviderMeta, Stream};
    use contextview::update::{replay, write, Record, RecordBody};
    use contextview::view::{build, BuildError, BuildOptions};
    for (_, name, bytes) in fixtures() {
        for reader in Provider::ALL {
            let (answer, _) = decode(reader, bytes, "x");
            let prompt = write::chunk(Stream::User, Some("u1"), ContentBlock::text("go"), &ProviderMeta::default());
            let mut records = vec![Record { seq: 1, ts: String::new(), body: RecordBody::Update(AcpUpdate::Known(prompt)) }];
            for body in answer.records(&answer.message_id("x")) {
                records.push(Record { seq: records.len() as u64 + 1, ts: String::new(), body });
            }
            let items = replay(&records).items;
            for target in Provider::ALL {
                let model = contextview::request::default_model(target);
                match build(&items, &BuildOptions::new(target, model)) {
                    Ok(built) => assert_eq!(built.payload.validate(&Default::default()), vec![], "{name} read as {reader}, built for {target}"),
                    Err(BuildError::EmptyConversation { .. } | BuildError::EndsWithAssistant { .. }) => {}
                    Err(e) => panic!("{name} read as {reader}, built for {target}: {e:?}"),
                }
            }
        }
    }
}

/// Builds the next request after `answered` with `options`, and returns its conversation.
fn next_with(s: &mut Session, options: Value, key: &str) -> Vec<Value> {
    dispatch(s, json!({"type": "userMessage", "text": "And then?"}));
    let p = dispatch(s, json!({"type": "buildRequest", "options": options}));
    let Some(Reply::Built { body, .. }) = &p.reply else { panic!("{p:?}") };
    let body: Value = serde_json::from_str(body).unwrap();
    body[key].as_array().unwrap().clone()
}

#[test]
fn responses_hosted_tool_items_and_annotations_go_back_as_the_reference_lists_them_stored_or_not() {
    let answer = include_bytes!("../fixtures/answers/openai-responses-web-search.json");
    let annotated = json!({"type": "output_text", "text": "Use #[serde(untagged)] on the last variant.", "annotations": [
        {"type": "url_citation", "start_index": 0, "end_index": 20, "url": "https://serde.rs/", "title": "Serde"},
    ]});
    // Stored (the API's default): every item as the API returned it — the reasoning by its id
    // (it has no encrypted content), the web search with its id, the message with its id, its
    // status and its annotations.
    let (mut s, _) = answered(Provider::OpenAiResponses, "gpt-5-mini", answer);
    let input = next_with(&mut s, json!({}), "input");
    assert_eq!(
        input[1..4],
        [
            json!({"type": "reasoning", "id": "rs_R2a", "summary": []}),
            json!({"type": "web_search_call", "id": "ws_R2b", "status": "completed", "action": {"type": "search", "query": "serde untagged"}}),
            json!({"type": "message", "id": "msg_R2c", "role": "assistant", "content": [annotated.clone()], "status": "completed"}),
        ]
    );
    // Not stored: no id can be looked up. The reasoning (no encrypted content) cannot come back
    // and is left out, and counted; the search and the message go without their ids.
    let (mut s, _) = answered(Provider::OpenAiResponses, "gpt-5-mini", answer);
    let options = json!({"providerOptions": {"openai-responses": {"store": false}}});
    let input = next_with(&mut s, options.clone(), "input");
    assert_eq!(
        input[1..3],
        [
            json!({"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "serde untagged"}}),
            json!({"type": "message", "role": "assistant", "content": [annotated]}),
        ]
    );
    let p = dispatch(&mut s, json!({"type": "buildRequest", "options": options}));
    let Some(Reply::Built { report, .. }) = &p.reply else { panic!("{p:?}") };
    assert_eq!((report.reasoning.kept, report.reasoning.dropped), (0, 1));
    // Another API takes none of it: Chat's assistant message has no annotations, and the hosted
    // search is left out (and counted).
    let (mut s, _) = answered(Provider::OpenAiResponses, "gpt-5-mini", answer);
    let messages = next_with(&mut s, json!({"provider": "openai-chat", "model": "gpt-4.1"}), "messages");
    assert_eq!(messages[1], json!({"role": "assistant", "content": "Use #[serde(untagged)] on the last variant."}));
}

#[test]
fn anthropic_citations_go_back_to_anthropic_in_the_requests_shape_and_nowhere_else() {
    let (mut s, _) = answered(Provider::Anthropic, "claude-opus-4-1", include_bytes!("../fixtures/answers/anthropic-two-thinking-redacted.json"));
    // The log keeps the citation as it came (file_id included).
    let logged = s.records().iter().map(|r| r.to_line()).find(|l| l.contains("The docs say so.")).unwrap();
    assert!(logged.contains(r#""file_id":null"#) && logged.contains(r#""cited_text":"so""#), "{logged}");
    for (options, key) in [
        (json!({"provider": "openai-chat", "model": "gpt-4.1"}), "messages"),
        (json!({"provider": "openai-responses", "model": "gpt-5"}), "input"),
        (json!({"provider": "gemini", "model": "gemini-2.5-flash"}), "contents"),
    ] {
        dispatch(&mut s, json!({"type": "userMessage", "text": "Next."}));
        let p = dispatch(&mut s, json!({"type": "buildRequest", "options": options}));
        let Some(Reply::Built { body, .. }) = &p.reply else { panic!("{p:?}") };
        assert!(body.contains("The docs say so.") && !body.contains("cited_text") && !body.contains("citations"), "{key}: {body}");
    }
}

/// A session whose model (of `provider`) wrote one text with `annotations` attached, as the log
/// records them (`_meta.contextview`), and was asked again.
fn cited(provider: &str, meta: Value) -> Session {
    let mut meta = meta;
    meta["provider"] = json!(provider);
    meta["model"] = json!("m");
    let log = [
        json!({"format": "contextview.session-log", "version": 1, "sessionId": "cited"}),
        json!({"seq": 1, "ts": "2026-12-03T10:00:00Z", "update": {"sessionUpdate": "user_message_chunk", "messageId": "u1", "content": {"type": "text", "text": "Sources?"}}}),
        json!({"seq": 2, "ts": "2026-12-03T10:00:01Z", "update": {"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": {"type": "text", "text": "Serde says so."}, "_meta": {"contextview": meta}}}),
        json!({"seq": 3, "ts": "2026-12-03T10:00:02Z", "update": {"sessionUpdate": "user_message_chunk", "messageId": "u2", "content": {"type": "text", "text": "Thanks."}}}),
    ];
    let text: String = log.iter().map(|l| format!("{l}\n")).collect();
    Session::from_log(&text)
}

#[test]
fn each_citation_goes_back_with_the_fields_the_request_requires_or_not_at_all() {
    // As answers carry them: extra fields (`file_id`), a title left out, a required field
    // missing, null where a value is required, and a kind no version knows.
    let citations = json!([
        {"type": "char_location", "cited_text": "a", "document_index": 0, "document_title": "README", "start_char_index": 0, "end_char_index": 1, "file_id": null},
        {"type": "page_location", "cited_text": "b", "document_index": 1, "start_page_number": 1, "end_page_number": 2},
        {"type": "content_block_location", "cited_text": "c", "document_index": 2, "document_title": null, "start_block_index": 0},
        {"type": "web_search_result_location", "cited_text": "d", "encrypted_index": null, "title": "Serde", "url": "https://serde.rs/"},
        {"type": "search_result_location", "cited_text": "e", "search_result_index": 0, "source": "kb", "title": "KB", "start_block_index": 0, "end_block_index": 0},
        {"type": "a_future_location", "cited_text": "f"},
    ]);
    let mut s = cited("anthropic", json!({"annotations": citations}));
    let messages = next_with(&mut s, json!({"provider": "anthropic", "model": "claude-sonnet-4-5"}), "messages");
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [{"type": "text", "text": "Serde says so.", "citations": [
            {"type": "char_location", "cited_text": "a", "document_index": 0, "document_title": "README", "start_char_index": 0, "end_char_index": 1},
            {"type": "page_location", "cited_text": "b", "document_index": 1, "document_title": null, "start_page_number": 1, "end_page_number": 2},
            {"type": "search_result_location", "cited_text": "e", "search_result_index": 0, "source": "kb", "title": "KB", "start_block_index": 0, "end_block_index": 0},
        ]}]})
    );
    // None left: the text goes back plain.
    let mut s = cited("anthropic", json!({"annotations": [{"type": "a_future_location", "cited_text": "f"}]}));
    let messages = next_with(&mut s, json!({"provider": "anthropic", "model": "claude-sonnet-4-5"}), "messages");
    assert_eq!(messages[1], json!({"role": "assistant", "content": [{"type": "text", "text": "Serde says so."}]}));
    // The log keeps every one as it came.
    let logged = s.records().iter().map(|r| r.to_line()).find(|l| l.contains("Serde says so.")).unwrap();
    assert!(logged.contains("a_future_location"), "{logged}");
}

#[test]
fn each_responses_annotation_goes_back_with_the_fields_the_request_requires_or_not_at_all() {
    let annotations = json!([
        {"type": "url_citation", "url": "https://serde.rs/", "title": "Serde", "start_index": 0, "end_index": 5},
        {"type": "file_citation", "file_id": "file_1", "filename": "a.md", "index": 3},
        {"type": "container_file_citation", "container_id": "cntr_1", "file_id": "file_2", "filename": "b.csv", "start_index": 0, "end_index": 2, "extra": 1},
        {"type": "file_path", "file_id": "file_3"},
        {"type": "url_citation", "url": "https://serde.rs/", "title": null, "start_index": 0, "end_index": 5},
        {"type": "a_future_annotation", "index": 1},
    ]);
    let mut s = cited("openai-responses", json!({"itemId": "msg_1", "annotations": annotations}));
    let input = next_with(&mut s, json!({"provider": "openai-responses", "model": "gpt-5"}), "input");
    assert_eq!(
        input[1],
        json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Serde says so.", "annotations": [
            {"type": "url_citation", "url": "https://serde.rs/", "title": "Serde", "start_index": 0, "end_index": 5},
            {"type": "file_citation", "file_id": "file_1", "filename": "a.md", "index": 3},
            {"type": "container_file_citation", "container_id": "cntr_1", "file_id": "file_2", "filename": "b.csv", "start_index": 0, "end_index": 2},
        ]}]})
    );
}

#[test]
fn the_apis_own_blocks_of_a_kind_no_request_takes_are_left_out_with_their_pairs_and_said() {
    // Anthropic: a web search goes back; the beta MCP connector's call and result do not (the
    // Messages API's request types have neither).
    let answer = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [
        {"type": "text", "text": "Searching."},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
        {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "lookup", "server_name": "docs", "input": {}},
        {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": false, "content": [{"type": "text", "text": "r"}]},
        {"type": "text", "text": "Done."},
    ], "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 5}});
    let (mut s, _) = answered(Provider::Anthropic, "claude-sonnet-4-5", answer.to_string().as_bytes());
    dispatch(&mut s, json!({"type": "userMessage", "text": "And?"}));
    let p = dispatch(&mut s, json!({"type": "buildRequest"}));
    let Some(Reply::Built { body, report, .. }) = &p.reply else { panic!("{p:?}") };
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!(
        body["messages"][1]["content"],
        json!([
            {"type": "text", "text": "Searching."},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "text", "text": "Done."},
        ])
    );
    assert_eq!(report.unknown_natives, ["mcp_tool_use", "mcp_tool_result"]);
    let said: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(said, ["natives.unknown_kind"]);
    assert!(report.diagnostics[0].message.contains("(mcp_tool_use, mcp_tool_result)"), "{}", report.diagnostics[0].message);
    // The log keeps them.
    assert!(s.records().iter().any(|r| r.to_line().contains("mcptoolu_1")));

    // OpenAI Responses: what only an answer says is taken off; a kind no request takes stays out.
    let answer = json!({"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5", "output": [
        {"type": "shell_call", "id": "sh_1", "call_id": "call_sh", "status": "completed", "action": {"commands": ["ls"]}, "created_by": "resp_1"},
        {"type": "a_future_item", "id": "fut_1"},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Listed.", "annotations": []}]},
    ], "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}});
    let (mut s, _) = answered(Provider::OpenAiResponses, "gpt-5", answer.to_string().as_bytes());
    dispatch(&mut s, json!({"type": "userMessage", "text": "And?"}));
    let p = dispatch(&mut s, json!({"type": "buildRequest"}));
    let Some(Reply::Built { body, report, .. }) = &p.reply else { panic!("{p:?}") };
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!(body["input"][1], json!({"type": "shell_call", "id": "sh_1", "call_id": "call_sh", "status": "completed", "action": {"commands": ["ls"]}}));
    assert_eq!(body["input"][2]["role"], json!("assistant"));
    assert_eq!(report.unknown_natives, ["a_future_item"]);
}
