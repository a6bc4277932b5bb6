//! The cache invariant: with no pruning or compaction in between, each request's body (less its
//! closing brackets) is a byte-identical prefix of the next one's — across appends, drained
//! reminders, usage records and a resume from the log.

use crate::common::log::store;
use contextview::request::BuildInput;
use contextview::session::Session;
use contextview::view::{Reminder, ReminderKind};
use contextview::Provider;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn line(seq: u64, body: serde_json::Value) -> String {
    let mut v = json!({"seq": seq, "ts": "2026-12-01T10:00:00Z"});
    v.as_object_mut().unwrap().extend(body.as_object().unwrap().clone());
    v.to_string()
}

fn input(provider: Provider) -> BuildInput {
    let tools = json!([{"name": "ls", "description": "List a directory", "inputSchema": {"type": "object", "properties": {"dir": {"type": "integer"}}}}]);
    serde_json::from_value(json!({"provider": provider, "system": "You are careful.", "tools": tools, "now": "2026-12-01T10:00:00Z"})).unwrap()
}

/// The record line after the session's last one.
fn next(session: &Session, body: serde_json::Value) -> String {
    line(session.records().last().map_or(1, |r| r.seq + 1), body)
}

/// The body without its closing brackets (`]}` for every provider's payload shape here).
fn stem(body: &str) -> &str {
    body.trim_end_matches(['}', ']'])
}

#[test]
fn each_request_extends_the_previous_one_and_a_resumed_session_builds_the_same() {
    for provider in Provider::ALL {
        let mut session = Session::from_log(concat!(r#"{"format":"contextview.session-log","version":1,"sessionId":"p"}"#, "\n"));
        let mut bodies: Vec<String> = Vec::new();
        let mut saved: Vec<String> = Vec::new();
        for turn in 0..6 {
            let user = next(&session, json!({"update": {"sessionUpdate": "user_message_chunk", "messageId": format!("u{turn}"), "content": {"type": "text", "text": format!("Task {turn}")}}}));
            session.append_line(&user).unwrap();
            saved.push(user);
            if turn % 2 == 1 {
                assert!(session.enqueue_reminder(Reminder { kind: ReminderKind::Diagnostics, text: format!("warning {turn}"), day: None }));
            }
            bodies.push(session.build(&input(provider)).unwrap().body);
            saved.extend(store(&mut session));
            for body in [
                json!({"update": {"sessionUpdate": "tool_call", "toolCallId": format!("call_{turn}"), "title": "ls", "status": "pending", "rawInput": {"dir": turn}, "_meta": {"contextview": {"toolName": "ls"}}}}),
                json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": format!("call_{turn}"), "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": format!("file{turn}.rs")}}]}}),
            ] {
                let line = next(&session, body);
                session.append_line(&line).unwrap();
                saved.push(line);
            }
            bodies.push(session.build(&input(provider)).unwrap().body);
            for body in [
                json!({"update": {"sessionUpdate": "agent_message_chunk", "messageId": format!("a{turn}"), "content": {"type": "text", "text": format!("Done {turn}.")}}}),
                json!({"event": {"kind": "usage_anchor", "inputTokens": 1000 + turn, "outputTokens": 10}}),
            ] {
                let line = next(&session, body);
                session.append_line(&line).unwrap();
                saved.push(line);
            }
        }
        for pair in bodies.windows(2) {
            assert!(pair[1].starts_with(stem(&pair[0])), "{provider}: a request is not a prefix of the next:\n{}\n{}", pair[0], pair[1]);
        }
        // Resume: a session loaded from what the host stored builds the same next request.
        let last = next(&session, json!({"update": {"sessionUpdate": "user_message_chunk", "messageId": "resume", "content": {"type": "text", "text": "Continue."}}}));
        session.append_line(&last).unwrap();
        saved.push(last);
        let built = session.build(&input(provider)).unwrap();
        // The session's own report agrees with the byte comparison above.
        assert!(built.report.prefix.is_some_and(|p| p.extends_previous), "{provider}");
        let live = built.body;
        // Building again with nothing new repeats the request byte for byte.
        let again_built = session.build(&input(provider)).unwrap();
        let again = again_built.report.prefix.unwrap();
        assert!(again.extends_previous && again.shared_bytes == again.previous_bytes, "{provider}\n{}\n{}", live, again_built.body);
        let text = format!("{}\n{}\n", r#"{"format":"contextview.session-log","version":1,"sessionId":"p"}"#, saved.join("\n"));
        let mut resumed = Session::from_log(&text);
        assert!(resumed.diagnostics().is_empty(), "{:?}", resumed.diagnostics());
        assert_eq!(resumed.build(&input(provider)).unwrap().body, live, "{provider}: resumed session differs");
        assert!(live.starts_with(stem(bodies.last().unwrap())));
    }
}

#[test]
fn a_told_reminder_is_not_told_again_after_resume() {
    let mut session = Session::from_log(concat!(
        r#"{"format":"contextview.session-log","version":1,"sessionId":"p"}"#,
        "\n",
        r#"{"seq":1,"ts":"t","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}"#,
        "\n"
    ));
    assert!(session.enqueue_reminder(Reminder { kind: ReminderKind::Date, text: "Today is 2026-12-01.".into(), day: Some("2026-12-01".into()) }));
    session.build(&input(Provider::OpenAiChat)).unwrap();
    let stored: Vec<String> = store(&mut session);
    assert_eq!(stored.len(), 1);
    let text = format!(
        "{}\n{}\n{}\n",
        r#"{"format":"contextview.session-log","version":1,"sessionId":"p"}"#,
        r#"{"seq":1,"ts":"t","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}"#,
        stored[0]
    );
    let mut resumed = Session::from_log(&text);
    assert!(!resumed.enqueue_reminder(Reminder { kind: ReminderKind::Date, text: "Today is 2026-12-01.".into(), day: Some("2026-12-01".into()) }));
}

mod prefix_report {
    use contextview::view::PrefixReport;
    use proptest::prelude::*;

    /// The report computed the slow way: byte by byte.
    fn expected(previous: &[u8], body: &[u8]) -> (usize, bool, usize) {
        let shared = previous.iter().zip(body).take_while(|(a, b)| a == b).count();
        let stem = previous.len() - previous.iter().rev().take_while(|b| **b == b'}' || **b == b']').count();
        (shared, shared >= stem, stem.saturating_sub(shared))
    }

    proptest! {
        #![proptest_config(crate::common::config(crate::common::cases(256)))]

        /// What a body repeats of the last one, compared in blocks, is what comparing byte by
        /// byte gives, wherever the two part (bodies past a block of 256 bytes included).
        #[test]
        fn the_prefix_report_is_what_comparing_byte_by_byte_gives(
            previous in "[ab\\]}]{0,700}",
            edit in 0usize..720,
            tail in "[ab\\]},]{0,10}",
        ) {
            let at = edit.min(previous.len());
            let body = format!("{}{}", &previous[..at], tail);
            let report = PrefixReport::between(&previous, &body);
            let (shared, extends, rewritten) = expected(previous.as_bytes(), body.as_bytes());
            prop_assert_eq!((report.previous_bytes, report.shared_bytes, report.extends_previous, report.rewritten_bytes), (previous.len(), shared, extends, rewritten));
        }
    }
}
