//! When the provider says no, or stops early: an HTTP error of any shape is a failure recorded
//! with its status, request id and retry decision, and the next request is the one before; a
//! context-length refusal teaches the window and corrects the ledger, and the next request is
//! always smaller (a property over sessions and refusals); an answer cut short by the output
//! limit or a dropped connection is followed by a request that asks the model to go on, and a
//! refusal by none until the input changes — valid on every API, thinking on or off.

use std::collections::BTreeMap;

use contextview::answer::{Ending, Recovery};
use contextview::provider::{Payload, Provider};
use contextview::session::{Command, Effect, Processed, Reply, Session};
use contextview::update::record::AnswerStatus;
use contextview::update::Header;
use contextview::view::ContinuedReason;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const NOW: &str = "2026-12-05T10:00:00Z";

fn dispatch(s: &mut Session, command: Value) -> Processed {
    let command: Command = serde_json::from_value(command).unwrap();
    s.dispatch(command, Some(NOW.into())).unwrap()
}

/// An HTTP response as our fixtures keep it: the status line, headers, a blank line, the body.
fn http(text: &str) -> (u16, BTreeMap<String, String>, String) {
    let (head, body) = text.split_once("\r\n\r\n").expect("a blank line after the headers");
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines.map(|l| l.split_once(": ").unwrap()).map(|(n, v)| (n.to_owned(), v.to_owned())).collect();
    (status, headers, body.to_owned())
}

macro_rules! http_fixture {
    ($name:literal) => {
        ($name, include_str!(concat!("../fixtures/http/", $name)))
    };
}

/// A session on `provider` with one question asked.
fn asked(provider: Provider, model: &str) -> Session {
    let mut s = Session::create(Header::new("recovery"));
    dispatch(&mut s, json!({"type": "switchModel", "provider": provider, "model": model, "contextWindow": 200000}));
    dispatch(&mut s, json!({"type": "userMessage", "text": "Why does the parser test fail?"}));
    s
}

fn built(s: &mut Session, options: Value) -> (String, contextview::view::Report) {
    let p = dispatch(s, json!({"type": "buildRequest", "options": options}));
    match p.reply {
        Some(Reply::Built { body, report }) => (String::clone(&body), *report),
        _ => panic!("not built: {:?}", p.error),
    }
}

/// The count the client hears between builds, for the session's own model.
fn usage(s: &mut Session, provider: Provider) -> contextview::view::ContextUsage {
    let input: contextview::request::BuildInput = serde_json::from_value(json!({"provider": provider})).unwrap();
    s.usage(&input)
}

fn answered(p: &Processed) -> (&[u64], &contextview::answer::AnswerSummary) {
    match &p.reply {
        Some(Reply::Answered { seqs, answer, .. }) => (seqs, answer),
        other => panic!("not answered: {other:?} {:?}", p.error),
    }
}

fn last_event(s: &Session, kind: &str) -> Value {
    let record = s.records().iter().rev().find(|r| r.body.kind() == kind).unwrap_or_else(|| panic!("no {kind} record"));
    serde_json::from_str::<Value>(&record.to_line()).unwrap()["event"].clone()
}

#[test]
fn an_http_error_is_a_failure_whatever_its_body_and_the_next_request_is_the_one_before() {
    // (API, response, kind, code, retryable, wait in ms (None: the backoff), reason, request id)
    let cases = [
        (Provider::Anthropic, http_fixture!("anthropic-429.http"), "rate_limit_error", None, true, Some(2000), "rate_limited", Some("req_011CWrate7Hq")),
        (Provider::Anthropic, http_fixture!("anthropic-529.http"), "overloaded_error", None, true, None, "should_retry", Some("req_011CWbusy2Kx")),
        (Provider::Anthropic, http_fixture!("proxy-500.http"), "internal_server_error", None, true, None, "server_error", None),
        (Provider::OpenAiChat, http_fixture!("openai-chat-429.http"), "tokens", Some("rate_limit_exceeded"), true, Some(1500), "rate_limited", Some("req_7f3c9a1e2b")),
        (Provider::OpenAiChat, http_fixture!("openai-chat-429-quota.http"), "insufficient_quota", None, false, None, "quota_exceeded", Some("req_0d1e2f3a4b")),
        // A per-day quota asks for 34 s all the same; a billing refusal is a 400.
        (Provider::Gemini, http_fixture!("gemini-429-per-day.http"), "RESOURCE_EXHAUSTED", None, false, None, "quota_exceeded", None),
        (Provider::Anthropic, http_fixture!("anthropic-400-credit.http"), "invalid_request_error", None, false, None, "billing", Some("req_011CWcredit9Pz")),
        (Provider::OpenAiResponses, http_fixture!("proxy-503-empty.http"), "service_unavailable", None, true, None, "overloaded", None),
        (Provider::Gemini, http_fixture!("gemini-429.http"), "RESOURCE_EXHAUSTED", None, true, Some(3200), "rate_limited", None),
        (Provider::Gemini, http_fixture!("gemini-503.http"), "UNAVAILABLE", None, true, None, "overloaded", None),
    ];
    for (provider, (name, text), kind, code, retryable, wait, reason, request_id) in cases {
        let (status, headers, body) = http(text);
        let mut s = asked(provider, "m");
        let (before, _) = built(&mut s, json!({}));
        let records = s.records().len();
        let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": body, "status": status, "headers": headers}));
        let (seqs, answer) = answered(&p);
        let error = answer.error.as_ref().unwrap();
        assert_eq!(
            (answer.status, answer.ending, error.kind.as_str(), error.code.as_deref(), error.status, answer.request_id.as_deref()),
            (AnswerStatus::Failed, Ending::Failed, kind, code, Some(status), request_id),
            "{name}"
        );
        let retry = answer.retry.as_ref().unwrap();
        assert_eq!((retry.retryable, retry.reason.as_str()), (retryable, reason), "{name}");
        match (retryable, wait) {
            (true, Some(ms)) => assert_eq!(retry.after_ms, Some(ms), "{name}"),
            // The first backoff: half a second, up to a quarter off.
            (true, None) => assert!(retry.after_ms.is_some_and(|ms| (375..=500).contains(&ms)), "{name}: {:?}", retry.after_ms),
            // No wait is advised without a retry.
            (false, _) => assert_eq!(retry.after_ms, None, "{name}"),
        }
        // The wait leaves through the effect queue, after the records it follows went to storage.
        let kinds: Vec<&str> = p.effects.iter().map(|e| match e {
            Effect::Persist { .. } => "persist",
            Effect::Notify { .. } => "notify",
            Effect::CompactionDue { .. } => "compactionDue",
            Effect::RetryAfter { .. } => "retryAfter",
            Effect::ReadHistory { .. } | Effect::ReadRecords { .. } => "read",
        }).collect();
        let waits: Vec<&Effect> = p.effects.iter().filter(|e| matches!(e, Effect::RetryAfter { .. })).collect();
        match retryable {
            true => {
                assert_eq!(waits, [&Effect::RetryAfter { after_ms: retry.after_ms.unwrap(), attempt: 1, reason: reason.to_owned() }], "{name}");
                assert!(kinds.iter().position(|k| *k == "persist") < kinds.iter().position(|k| *k == "retryAfter"), "{name}: {kinds:?}");
            }
            false => assert!(waits.is_empty(), "{name}: {waits:?}"),
        }
        assert!(answer.tool_calls.is_empty() && answer.text.is_empty() && answer.recovery.is_none(), "{name}");
        // One record, durable: how it ended, with the status and the request id.
        assert_eq!((seqs.len(), s.records().len()), (1, records + 1), "{name}");
        let end = last_event(&s, "answer_end");
        assert_eq!((end["status"].clone(), end["error"]["kind"].clone(), end["error"]["status"].clone()), (json!("failed"), json!(kind), json!(status)), "{name}");
        assert_eq!(end["requestId"].as_str(), request_id, "{name}");
        // Nothing the model sees changed: the retry sends the same bytes.
        assert_eq!(built(&mut s, json!({})).0, before, "{name}");
    }
}

#[test]
fn a_body_that_is_an_answer_under_an_error_status_is_still_an_error() {
    // A proxy that relays the provider's 200 body under its own 502: the status decides.
    let mut s = asked(Provider::OpenAiChat, "gpt-4.1");
    let body = include_str!("../fixtures/answers/openai-chat-tools.sse");
    let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": body, "status": 502, "headers": {}}));
    let (_, answer) = answered(&p);
    assert_eq!((answer.status, answer.error.as_ref().map(|e| e.kind.as_str())), (AnswerStatus::Failed, Some("bad_gateway")));
    assert!(answer.tool_calls.is_empty(), "no call from an error response");
    // And a 200 with the answer is an answer, the status read first.
    let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": body, "status": 200, "headers": {"x-request-id": "req_ok1"}}));
    let (_, answer) = answered(&p);
    assert_eq!((answer.status, answer.tool_calls.len(), answer.request_id.as_deref(), answer.retry.is_none()), (AnswerStatus::Complete, 2, Some("req_ok1"), true));
}

/// A session whose conversation holds `rounds` tool rounds of `size` characters each, built once.
fn long_session(provider: Provider, model: &str, window: u64, rounds: usize, size: usize) -> (Session, String) {
    let mut s = Session::create(Header::new("long"));
    dispatch(&mut s, json!({"type": "switchModel", "provider": provider, "model": model, "contextWindow": window}));
    dispatch(&mut s, json!({"type": "userMessage", "text": "Read every module and tell me what is dead code."}));
    for i in 0..rounds {
        let id = format!("call_{i}");
        dispatch(&mut s, json!({"type": "assistantResponse", "text": format!("Reading module {i}."), "toolCalls": [{"id": id, "name": "read", "input": {"path": format!("src/m{i}.rs")}}]}));
        let output: String = (0..size / 40).map(|l| format!("fn item_{i}_{l}() -> u32 {{ {l} }} // {i}\n")).collect();
        dispatch(&mut s, json!({"type": "toolResult", "toolCallId": id, "output": output}));
    }
    let (body, _) = built(&mut s, json!({}));
    (s, body)
}

#[test]
fn a_context_length_refusal_corrects_the_count_learns_the_window_and_the_next_build_prunes_to_fit() {
    // A session whose window is larger than the one the provider enforces (a host that set the
    // 1M beta's window without its header, a model whose window counts the reply too): the
    // request was sent unpruned (under half the window it assumed) and refused.
    // (API, model, window the session assumed, refusal, the tokens it named, the limit it named)
    let cases = [
        (Provider::Anthropic, "claude-sonnet-4-5", 1_000_000, http_fixture!("anthropic-400-context.http"), Some(210_000), Some(200_000)),
        (Provider::OpenAiChat, "gpt-4.1", 400_000, http_fixture!("openai-chat-400-context.http"), Some(130_511), Some(128_000)),
        // No number in the message: the window is learnt from the refused request itself.
        (Provider::OpenAiResponses, "gpt-5", 400_000, http_fixture!("openai-responses-400-context.http"), None, None),
    ];
    for (provider, model, window, (name, text), tokens, limit) in cases {
        let (mut s, before) = long_session(provider, model, window, 36, 10_000);
        let (_, first) = built(&mut s, json!({}));
        assert_eq!((first.pruning.cleared, first.pruning.trimmed), (0, 0), "{name}: sent unpruned");
        let counted = first.tokens.context.used;
        let (status, headers, body) = http(text);
        let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": body, "status": status, "headers": headers}));
        let (seqs, answer) = answered(&p);
        assert_eq!((answer.retry.as_ref().map(|r| (r.retryable, r.after_ms)), answer.recovery), (Some((false, None)), Some(Recovery::Prune)), "{name}");
        // The window from here on: the limit named, else a tenth under what the refused request held.
        let learnt = limit.unwrap_or(counted - counted / 10);
        let context = answer.context.unwrap();
        assert_eq!((context.tokens, context.limit, context.window, context.prompt_tokens), (tokens, limit, Some(learnt), None), "{name}");
        // The window learnt, the refusal's count beside the ledger's, then how the answer ended.
        let kinds: Vec<&str> = seqs.iter().map(|seq| s.records().iter().find(|r| r.seq == *seq).unwrap().body.kind()).collect();
        assert_eq!(kinds, vec!["model_switch", "usage_anchor", "answer_end"], "{name}");
        assert_eq!(last_event(&s, "model_switch")["contextWindow"], json!(learnt), "{name}");
        let anchor = last_event(&s, "usage_anchor");
        assert_eq!((anchor["inputTokens"].clone(), anchor["counted"].clone()), (json!(tokens.unwrap_or(counted)), json!(counted)), "{name}");
        // A refusal spends nothing.
        assert_eq!(s.state().spent.requests, 0, "{name}");
        // The next request prunes: it is smaller than the refused one, and fits with room.
        let (after, report) = built(&mut s, json!({}));
        assert!(after.len() < before.len() * 3 / 4, "{name}: {} -> {}", before.len(), after.len());
        assert!(report.pruning.cleared + report.pruning.trimmed > 0, "{name}");
        let used = report.tokens.context.used;
        assert!(used < learnt * 85 / 100, "{name}: {:?}", report.tokens.context);
        assert_eq!(report.tokens.context.size, learnt, "{name}");
        // The ledger counts what the request holds: the estimate of its body, scaled as the
        // provider's count of the refused one said.
        let ratio = tokens.map_or(1.0, |t| t as f64 / counted as f64);
        let held = report.tokens.request as f64 * ratio;
        assert!((used as f64 - held).abs() <= held * 0.05, "{name}: the ledger says {used}, the request holds {held:.0}");
        assert_eq!(usage(&mut s, provider).used, used, "{name}: usage() says what the build said");
        assert!(Payload::from_json(provider, serde_json::from_str(&after).unwrap()).unwrap().validate(&Default::default()).is_empty());
    }
}

#[test]
fn a_refusal_that_pruning_cannot_answer_asks_for_a_compaction() {
    // Gemini names 1,200,000 tokens over a 1,048,576 limit: far more than pruning can take off.
    let (mut s, _) = long_session(Provider::Gemini, "gemini-2.5-pro", 1_048_576, 10, 16_000);
    let (status, headers, body) = http(include_str!("../fixtures/http/gemini-400-context.http"));
    let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": body, "status": status, "headers": headers}));
    let (_, answer) = answered(&p);
    assert_eq!(answer.recovery, Some(Recovery::Compact));
    assert_eq!(answer.context.map(|c| (c.tokens, c.limit)), Some((Some(1_200_000), Some(1_048_576))));
    assert!(p.effects.iter().any(|e| matches!(e, Effect::CompactionDue { .. })), "{:?}", p.effects);
    // Compacting makes room: the request after it is under the window again.
    let job = dispatch(&mut s, json!({"type": "prepareCompaction"}));
    assert_eq!(job.error, None);
    let summary = "## Goal\nFind dead code.\n## Constraints\nNone.\n## Progress\nRead ten modules; none is dead yet.\n## Decisions\nRead every module first.\n## Next steps\nRead the rest.\n## Files\nsrc/m0.rs to src/m9.rs\n## Pending actions\nNone.";
    let applied = dispatch(&mut s, json!({"type": "applyCompaction", "summary": summary}));
    assert_eq!(applied.error, None);
    let (_, report) = built(&mut s, json!({}));
    assert!(report.tokens.context.used < 1_048_576 / 2, "{:?}", report.tokens.context);
}

#[test]
fn a_refusal_or_a_blocked_prompt_is_typed_and_the_same_request_is_not_built_again_until_the_input_changes() {
    // (API, model, answer, stop reason, the prompt's block reason)
    let cases = [
        (Provider::Anthropic, "claude-sonnet-4-5", &include_bytes!("../fixtures/answers/anthropic-refusal.json")[..], "refusal", None),
        (Provider::OpenAiChat, "gpt-4o", include_bytes!("../fixtures/answers/openai-chat-refusal.json"), "stop", None),
        (Provider::OpenAiResponses, "gpt-5", include_bytes!("../fixtures/answers/openai-responses-refusal.sse"), "completed", None),
        (Provider::Gemini, "gemini-2.5-flash", include_bytes!("../fixtures/answers/gemini-safety.json"), "SAFETY", None),
        (Provider::Gemini, "gemini-2.5-flash-lite", include_bytes!("../fixtures/answers/gemini-prompt-blocked.json"), "PROHIBITED_CONTENT", Some("PROHIBITED_CONTENT")),
        (Provider::Gemini, "gemini-2.5-flash", include_bytes!("../fixtures/answers/gemini-model-armor.sse"), "MODEL_ARMOR", Some("MODEL_ARMOR")),
    ];
    for (provider, model, bytes, stop, blocked) in cases {
        let mut s = asked(provider, model);
        let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": std::str::from_utf8(bytes).unwrap()}));
        let (_, answer) = answered(&p);
        assert_eq!(
            (answer.status, answer.ending, answer.refused, answer.blocked.as_deref(), answer.stop_reason.as_deref(), answer.retry.is_none()),
            (AnswerStatus::Complete, Ending::Refused, true, blocked, Some(stop), true),
            "{provider} {stop}"
        );
        assert_eq!(last_event(&s, "answer_end")["refused"], json!(true), "{provider} {stop}");
        // The same request would be refused again: the build says so and writes nothing — a
        // reminder waiting is not drained into it.
        assert!(s.enqueue_reminder(contextview::view::Reminder { kind: contextview::view::ReminderKind::Diagnostics, text: "src/lib.rs:3: unused import".into(), day: None }));
        let records = s.records().len();
        let p = dispatch(&mut s, json!({"type": "buildRequest"}));
        let error = p.error.unwrap_or_else(|| panic!("{provider} {stop}: built {:?}", p.reply));
        assert_eq!(error.code, "input_refused", "{provider} {stop}");
        let what = if let Some(reason) = blocked { format!("the prompt was blocked ({reason})") } else { format!("stop reason `{stop}`") };
        assert!(error.message.contains(&what) && error.message.contains("Change the input first"), "{provider} {stop}: {}", error.message);
        assert_eq!(s.records().len(), records, "{provider} {stop}: nothing written");
        // Another model may answer: the request differs.
        let other = dispatch(&mut s, json!({"type": "buildRequest", "options": {"model": "another-model"}}));
        assert!(matches!(other.reply, Some(Reply::Built { .. })), "{provider} {stop}: {:?}", other.error);
        // A new message changes the input: the session's model builds again, and the request is valid.
        dispatch(&mut s, json!({"type": "userMessage", "text": "Then explain the parser instead."}));
        let (body, report) = built(&mut s, json!({}));
        assert_eq!(report.continued, None, "{provider} {stop}: a refusal is not asked to go on");
        assert!(body.contains("Then explain the parser instead."), "{provider} {stop}");
        assert!(Payload::from_json(provider, serde_json::from_str(&body).unwrap()).unwrap().validate(&Default::default()).is_empty(), "{provider} {stop}");
    }
}

#[test]
fn a_server_side_compaction_block_is_kept_and_a_request_that_cannot_send_it_back_is_refused() {
    let mut s = asked(Provider::Anthropic, "claude-sonnet-4-5");
    let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": include_str!("../fixtures/answers/anthropic-server-compaction.sse")}));
    assert_eq!(answered(&p).1.text, "Going on with the parser.");
    // The log keeps the block whole, its content and opaque part as the deltas left them.
    let kept = s.records().iter().map(|r| r.to_line()).find(|l| l.contains("\"compaction\"")).expect("the block is in the log");
    assert!(kept.contains("The user is fixing the parser; parser.rs was read.") && kept.contains("EnCmp-opaque=="), "{kept}");
    dispatch(&mut s, json!({"type": "userMessage", "text": "Go on."}));
    // Anthropic must get it back, and only its compaction beta takes it: refused, saying so.
    let p = dispatch(&mut s, json!({"type": "buildRequest"}));
    let error = p.error.expect("refused");
    assert_eq!(error.code, "invalid_payload");
    assert_eq!(error.violations.iter().map(|v| v.rule.as_str()).collect::<Vec<_>>(), vec!["anthropic.compaction_block_passed_back"]);
    assert!(error.message.contains("server-side compaction block") && error.message.contains("prepareCompaction"), "{}", error.message);
    // Another API's request leaves it out, as any API's own blocks, and says so.
    let (body, report) = built(&mut s, json!({"provider": "openai-chat", "model": "gpt-4.1"}));
    assert!(!body.contains("EnCmp") && body.contains("Going on with the parser."), "{body}");
    assert_eq!(report.dropped_natives, 1);
}

#[test]
fn a_request_too_large_strips_the_images_once() {
    let mut s = asked(Provider::Anthropic, "claude-sonnet-4-5");
    dispatch(&mut s, json!({"type": "userMessage", "text": "And this screenshot?", "images": [{"data": "iVBORw0KGgo=", "mimeType": "image/png"}]}));
    let (before, _) = built(&mut s, json!({}));
    assert!(before.contains("iVBORw0KGgo="));
    let (status, headers, body) = http(include_str!("../fixtures/http/anthropic-413.http"));
    let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": body, "status": status, "headers": headers}));
    assert_eq!(answered(&p).1.recovery, Some(Recovery::StripImages));
    let (stripped, report) = built(&mut s, json!({}));
    assert!(!stripped.contains("iVBORw0KGgo=") && report.images.stripped, "{stripped}");
    assert!(built(&mut s, json!({})).0.contains("iVBORw0KGgo="), "once");
}

/// The last message of a body, for each API.
fn last_message(provider: Provider, body: &str) -> Value {
    let body: Value = serde_json::from_str(body).unwrap();
    let key = match provider {
        Provider::Anthropic | Provider::OpenAiChat => "messages",
        Provider::OpenAiResponses => "input",
        Provider::Gemini => "contents",
    };
    body[key].as_array().unwrap().last().unwrap().clone()
}

/// The text of a message in any API's shape.
fn text_of(message: &Value) -> String {
    let parts = ["content", "parts"].iter().find_map(|k| message.get(*k)).cloned().unwrap_or(Value::Null);
    match parts {
        Value::String(text) => text,
        Value::Array(parts) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    }
}

#[test]
fn after_an_answer_cut_short_the_next_build_asks_the_model_to_go_on_on_every_api() {
    let thinking = json!({"anthropic": {"thinking": {"type": "enabled", "budget_tokens": 2048}}});
    // (API, model, answer, build options, why)
    let cases = [
        (Provider::Anthropic, "claude-sonnet-4-5", &include_bytes!("../fixtures/answers/anthropic-thinking-max-tokens.sse")[..], json!({"providerOptions": thinking, "maxTokens": 4096}), ContinuedReason::OutputLimit),
        (Provider::Anthropic, "claude-sonnet-4-5", include_bytes!("../fixtures/answers/anthropic-max-tokens-mid-call.sse"), json!({}), ContinuedReason::OutputLimit),
        (Provider::OpenAiChat, "gpt-4.1", include_bytes!("../fixtures/answers/openai-chat-length.sse"), json!({}), ContinuedReason::OutputLimit),
        (Provider::OpenAiResponses, "gpt-5", include_bytes!("../fixtures/answers/openai-responses-incomplete.sse"), json!({}), ContinuedReason::OutputLimit),
        (Provider::Gemini, "gemini-2.5-flash", include_bytes!("../fixtures/answers/gemini-max-tokens.sse"), json!({}), ContinuedReason::OutputLimit),
        (Provider::Anthropic, "claude-sonnet-4-5", include_bytes!("../fixtures/answers/anthropic-overloaded-mid-stream.sse"), json!({}), ContinuedReason::Interrupted),
    ];
    for (provider, model, bytes, options, reason) in cases {
        let mut s = asked(provider, model);
        let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": std::str::from_utf8(bytes).unwrap()}));
        let (_, answer) = answered(&p);
        let said = answer.text.clone();
        let (body, report) = built(&mut s, options.clone());
        let continued = report.continued.unwrap_or_else(|| panic!("{provider} {reason:?}: no continuation"));
        assert_eq!(continued.reason, reason, "{provider}");
        // The request ends with the message the session wrote to the log, after what the model said.
        let last = last_message(provider, &body);
        assert_eq!(last.get("role").and_then(Value::as_str), Some("user"), "{provider}: {last}");
        let text = text_of(&last);
        assert!(text.starts_with("<system-reminder>") && text.contains("Continue") && text.contains("where it stopped"), "{provider}: {text}");
        let start: String = said.chars().take(10).collect();
        let escaped = serde_json::to_string(&start).unwrap();
        assert!(body.contains(&escaped[1..escaped.len() - 1]), "{provider}: what arrived goes back: {start:?} in {body}");
        let written = s.records().iter().find(|r| r.seq == continued.seq).unwrap().to_line();
        let synthetic = if reason == ContinuedReason::Interrupted { "auto_recovery" } else { "auto_continue" };
        assert!(written.contains("user_message_chunk") && written.contains(&format!("\"synthetic\":\"{synthetic}\"")), "{written}");
        assert!(Payload::from_json(provider, serde_json::from_str(&body).unwrap()).unwrap().validate(&Default::default()).is_empty());
        // Once: the next build, with nothing new, asks nothing more and sends the same bytes.
        let (again, report) = built(&mut s, options.clone());
        assert_eq!((again, report.continued), (body.clone(), None), "{provider}");
        // The model goes on; the request after its answer still holds the message, in place.
        dispatch(&mut s, json!({"type": "assistantResponse", "text": "…and that is the rest."}));
        dispatch(&mut s, json!({"type": "userMessage", "text": "Thanks."}));
        let (next, _) = built(&mut s, options);
        assert!(next.starts_with(&body[..body.len() - 2]), "{provider}: the request extends the last one");
    }
}

#[test]
fn the_message_that_asks_the_model_to_go_on_says_what_happened() {
    // (API, answer, the words the message holds)
    let cases: [(Provider, &[u8], Option<&str>, &str); 4] = [
        (Provider::OpenAiChat, include_bytes!("../fixtures/answers/openrouter-error-mid-stream.sse"), None, "the provider reported an error: bad_gateway — Provider disconnected unexpectedly"),
        (Provider::OpenAiChat, include_bytes!("../fixtures/answers/openai-chat-error-mid-stream.sse"), None, "the provider reported an error: server_error — The server had an error while processing your request."),
        (Provider::Anthropic, include_bytes!("../fixtures/answers/anthropic-dropped-mid-call.sse"), Some("TypeError: terminated"), "the connection to the model dropped"),
        // Cut by the output limit, then an error the proxy sent after: the limit is what happened.
        (Provider::OpenAiChat, include_bytes!("../fixtures/answers/openrouter-length-then-error.sse"), None, "cut off by the output token limit"),
    ];
    for (provider, bytes, dropped, words) in cases {
        let mut s = asked(provider, "m");
        dispatch(&mut s, json!({"type": "beginAnswer"}));
        s.answer_bytes(bytes).unwrap();
        let end = match dropped {
            Some(reason) => json!({"type": "endAnswer", "dropped": reason}),
            None => json!({"type": "endAnswer"}),
        };
        dispatch(&mut s, end);
        let (body, report) = built(&mut s, json!({}));
        assert!(report.continued.is_some(), "{words}");
        let text = text_of(&last_message(provider, &body));
        assert!(text.contains(words), "{provider}: {text}");
        assert!(!text.contains("connection") || dropped.is_some(), "{provider}: says the connection failed when it did not: {text}");
    }
}

#[test]
fn an_anthropic_thinking_answer_cut_by_the_limit_continues_with_thinking_on() {
    let mut s = asked(Provider::Anthropic, "claude-sonnet-4-5");
    dispatch(&mut s, json!({"type": "providerAnswer", "body": include_str!("../fixtures/answers/anthropic-thinking-max-tokens.sse")}));
    let options = json!({"providerOptions": {"anthropic": {"thinking": {"type": "enabled", "budget_tokens": 2048}}}, "maxTokens": 4096});
    let (body, report) = built(&mut s, options);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["thinking"], json!({"type": "enabled", "budget_tokens": 2048}), "thinking stays on");
    assert!(!report.thinking_suspended);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "thinking", "thinking": "The changelog needs every release since 0.3.", "signature": "SIG-limit/9=="},
            {"type": "text", "text": "## 0.3.0\n- parser: keep the last line\n## 0.4.0\n- lexer: "},
        ])
    );
    assert_eq!(messages[2]["role"], json!("user"));
}

#[test]
fn a_dropped_connection_records_what_arrived_and_the_retry_goes_on_from_there() {
    let bytes = include_bytes!("../fixtures/answers/anthropic-thinking-tools.sse");
    let cut = bytes.windows(8).position(|w| w == b"tool_use").unwrap();
    for dropped in [Some("terminated"), None] {
        let mut s = asked(Provider::Anthropic, "claude-sonnet-4-5");
        dispatch(&mut s, json!({"type": "beginAnswer", "status": 200, "headers": {"request-id": "req_drop1"}}));
        s.answer_bytes(&bytes[..cut]).unwrap();
        let p = dispatch(&mut s, json!({"type": "endAnswer", "dropped": dropped}));
        let (_, answer) = answered(&p);
        assert_eq!((answer.status, answer.ending, answer.request_id.as_deref()), (AnswerStatus::Partial, Ending::Interrupted, Some("req_drop1")));
        let retry = answer.retry.as_ref().unwrap();
        let reason = if dropped.is_some() { "connection_dropped" } else { "answer_incomplete" };
        assert_eq!((retry.retryable, retry.reason.as_str()), (true, reason));
        assert!(answer.tool_calls.is_empty(), "the call was still arriving");
        let end = last_event(&s, "answer_end");
        assert_eq!((end["status"].clone(), end["dropped"].as_str()), (json!("partial"), dropped));
        let (body, report) = built(&mut s, json!({}));
        assert_eq!(report.continued.map(|c| c.reason), Some(ContinuedReason::Interrupted));
        assert!(body.contains("Let me read the parser") && body.contains("SIG-one/+=="), "what arrived goes back: {body}");
        assert_eq!(last_message(Provider::Anthropic, &body)["role"], json!("user"));
    }
}

/// A context-length refusal in one API's words: with the counts (`tokens`, `limit`) where the
/// API names them, or without any (the Responses API's words).
fn refusal(provider: Provider, tokens: u64, limit: u64) -> (u16, String) {
    let body = match provider {
        Provider::Anthropic => json!({"type": "error", "error": {"type": "invalid_request_error", "message": format!("prompt is too long: {tokens} tokens > {limit} maximum")}}),
        Provider::OpenAiChat => json!({"error": {"message": format!("This model's maximum context length is {limit} tokens. However, your messages resulted in {tokens} tokens. Please reduce the length of the messages."), "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
        Provider::OpenAiResponses => json!({"error": {"message": "Your input exceeds the context window of this model. Please adjust your input and try again.", "type": "invalid_request_error", "param": "input", "code": "context_length_exceeded"}}),
        Provider::Gemini => json!({"error": {"code": 400, "message": format!("The input token count ({tokens}) exceeds the maximum number of tokens allowed ({limit})."), "status": "INVALID_ARGUMENT"}}),
    };
    (400, body.to_string())
}

const SUMMARY: &str = "## Goal\nFind dead code.\n## Constraints\nNone.\n## Progress\nRead the modules so far.\n## Decisions\nRead every module first.\n## Next steps\nRead the rest.\n## Files\nsrc/\n## Pending actions\nNone.";

proptest! {
    #![proptest_config(crate::common::config(crate::common::cases(48)))]

    /// However large the session, whatever the API, however far the provider's count is from the
    /// session's and whether or not it names one: after a context-length refusal the next request
    /// is smaller than the refused one — pruned, or compacted when the session asks for it — or
    /// none is built because the latest prompt alone is over the window; and refusals end, the
    /// provider taking a request within a few.
    #[test]
    fn after_any_context_length_refusal_the_next_request_is_smaller(
        api in 0usize..4,
        rounds in 4usize..30,
        size in 2_000usize..12_000,
        talk in 0usize..3_000,
        prompt in 20usize..3_000,
        over in 101u64..300,
        limit_share in 30u64..99,
    ) {
        let provider = [Provider::Anthropic, Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Gemini][api];
        let mut s = Session::create(Header::new("property"));
        dispatch(&mut s, json!({"type": "switchModel", "provider": provider, "model": "m", "contextWindow": 2_000_000}));
        dispatch(&mut s, json!({"type": "userMessage", "text": "Read every module."}));
        for i in 0..rounds {
            let id = format!("call_{i}");
            let said = format!("Module {i}: ") + &"the lexer keeps state. ".repeat(talk / 23 + 1);
            dispatch(&mut s, json!({"type": "assistantResponse", "text": said, "toolCalls": [{"id": id, "name": "read", "input": {"path": format!("src/m{i}.rs")}}]}));
            dispatch(&mut s, json!({"type": "toolResult", "toolCallId": id, "output": format!("fn f_{i}() {{}}\n").repeat(size / 12 + 1)}));
        }
        dispatch(&mut s, json!({"type": "userMessage", "text": "Now the parser. ".repeat(prompt / 16 + 1)}));
        let mut sent = built(&mut s, json!({}));
        // The provider counts `over`% of what the session counts, and takes `limit_share`% of the first request.
        let providers_count = |request: &(String, contextview::view::Report)| request.1.tokens.request * over / 100;
        let limit = providers_count(&sent) * limit_share / 100;
        for _ in 0..6 {
            let tokens = providers_count(&sent);
            if tokens <= limit {
                return Ok(());
            }
            let (status, body) = refusal(provider, tokens, limit);
            let p = dispatch(&mut s, json!({"type": "providerAnswer", "body": body, "status": status, "headers": {}}));
            let (_, answer) = answered(&p);
            let context = answer.context.expect("a context-length refusal");
            if context.prompt_tokens.is_some() {
                // Nothing the session may leave out makes room: no request, the prompt untouched.
                prop_assert_eq!(answer.recovery, None);
                return Ok(());
            }
            if answer.recovery == Some(Recovery::Compact) {
                let job = dispatch(&mut s, json!({"type": "prepareCompaction"}));
                prop_assert!(job.error.is_none(), "{:?}", job.error);
                let applied = dispatch(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}));
                prop_assert!(applied.error.is_none(), "{:?}", applied.error);
            } else {
                prop_assert_eq!(answer.recovery, Some(Recovery::Prune));
            }
            let next = built(&mut s, json!({}));
            prop_assert!(next.0.len() < sent.0.len(), "{provider}: {} bytes after {} refused ({:?})", next.0.len(), sent.0.len(), answer.recovery);
            sent = next;
        }
        prop_assert!(false, "{provider}: still refused after six recoveries");
    }
}
