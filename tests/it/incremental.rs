//! Incremental replay and builds give exactly what replaying and building from scratch gives.
//! Random logs: chunks that continue or start messages, tool calls and updates, usage,
//! compactions, rewinds, images, model switches and prompt heads — with windows small enough that
//! pruning acts and image budgets that evict, the paths that leave the append fast path.

use contextview::request::BuildInput;
use contextview::session::Session;
use contextview::update::{replay, Record, Replayer};
use contextview::Provider;
use proptest::prelude::*;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC";

/// The number of record kinds [`record`] makes.
const KINDS: u8 = 14;

fn record(seq: u64, kind: u8, a: u8, b: u8) -> Record {
    let chunk = |stream: &str, text: String| json!({"sessionUpdate": stream, "messageId": format!("m{}", a % 3), "content": {"type": "text", "text": text}});
    let body = match kind % KINDS {
        // Images: a prompt's, and a tool's (they leave the fast path and meet the image budget).
        10 => json!({"update": {"sessionUpdate": "user_message_chunk", "messageId": format!("m{}", a % 3), "content": {"type": "image", "mimeType": "image/png", "data": PNG}}}),
        11 => {
            json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": format!("t{}", a % 4), "status": "completed", "content": [{"type": "content", "content": {"type": "image", "mimeType": "image/png", "data": PNG}}]}})
        }
        // A model switch, to a model whose window may be small enough that pruning acts.
        12 => {
            let provider = ["anthropic", "openai", "gemini"][a as usize % 3];
            let window = if b % 3 == 0 { 600 } else { 200_000 };
            json!({"event": {"kind": "model_switch", "provider": provider, "model": format!("model-{}", b % 2), "contextWindow": window}})
        }
        13 => json!({"event": {"kind": "prompt_head_snapshot", "system": format!("System {}", a % 2), "firstUserPrefix": if b % 2 == 0 { String::new() } else { format!("<user_info>cwd {}</user_info>", a % 3) }}}),
        0 => json!({"update": chunk("user_message_chunk", format!("question {a}"))}),
        1 => json!({"update": chunk("agent_message_chunk", format!("answer {b} "))}),
        2 => json!({"update": chunk("agent_thought_chunk", format!("thinking {b} "))}),
        3 => {
            json!({"update": {"sessionUpdate": "tool_call", "toolCallId": format!("t{}", a % 4), "title": "ls", "status": "pending", "rawInput": {"n": b}}})
        }
        4 => {
            json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": format!("t{}", a % 4), "status": if b % 2 == 0 { "completed" } else { "in_progress" }, "content": [{"type": "content", "content": {"type": "text", "text": format!("out {b}")}}]}})
        }
        5 => {
            json!({"event": {"kind": "usage_anchor", "inputTokens": 100 + b as u64, "outputTokens": 5}})
        }
        6 => {
            json!({"event": {"kind": "compaction_checkpoint", "summary": format!("summary {a}"), "firstKeptSeq": seq.saturating_sub(b as u64 % 6)}})
        }
        7 => json!({"event": {"kind": "rewind", "promptIndex": a % 3}}),
        8 => json!({"event": {"kind": "reminder_injected", "reminder": "diagnostics", "text": format!("note {a}")}}),
        // An empty prompt: repair drops it, which can leave the turn before it open.
        _ => json!({"update": {"sessionUpdate": "user_message_chunk", "messageId": format!("empty{seq}"), "content": {"type": "text", "text": ""}}}),
    };
    let mut value = json!({"seq": seq, "ts": "2026-12-01T00:00:00Z"});
    value.as_object_mut().unwrap().extend(body.as_object().unwrap().clone());
    Record::from_value(value).unwrap()
}

fn records(ops: &[(u8, u8, u8)]) -> Vec<Record> {
    ops.iter().enumerate().map(|(i, &(k, a, b))| record(i as u64 + 1, k, a, b)).collect()
}

fn tools() -> Vec<contextview::provider::ToolDef> {
    serde_json::from_value(json!([{"name": "ls", "description": "List a directory", "inputSchema": {"type": "object"}}])).unwrap()
}

/// A report without what only a session's history decides (what it reused, what it repeats,
/// what the cache holds from the requests before).
fn comparable(mut report: contextview::Report) -> contextview::Report {
    report.reuse = None;
    report.prefix = None;
    report.forecast = None;
    report.pruning.invalidated_bytes = 0;
    report.pruning.newly_trimmed.clear();
    report.pruning.newly_cleared.clear();
    report
}

/// The ids in `now` that are not in `before`, in order: what a session's report says is newly
/// pruned, computed here from the two builds' whole lists.
fn newly(now: &[String], before: &[String]) -> Vec<String> {
    now.iter().filter(|id| !before.contains(id)).cloned().collect()
}

proptest! {
    #![proptest_config(crate::common::config(crate::common::cases(512)))]

    #[test]
    fn folding_record_by_record_equals_replaying_from_the_start(ops in prop::collection::vec((0u8..KINDS, any::<u8>(), any::<u8>()), 1..40)) {
        let records = records(&ops);
        let mut replayer = Replayer::new(&[]);
        let mut seen = replayer.items().to_vec();
        for n in 1..=records.len() {
            if !replayer.push(&records[n - 1]) {
                replayer = Replayer::new(&records[..n]);
                seen.clear();
            }
            let whole = replay(&records[..n]);
            prop_assert_eq!(replayer.items(), &whole.items[..]);
            prop_assert_eq!(replayer.state(), &whole.state);
            // Below the change mark, items are what the caller saw before.
            let from = replayer.take_changed_from();
            let keep = from.min(seen.len());
            prop_assert_eq!(&replayer.items()[..keep], &seen[..keep]);
            seen = replayer.items().to_vec();
        }
    }

    #[test]
    fn a_session_built_step_by_step_builds_what_a_fresh_one_builds(ops in prop::collection::vec((0u8..KINDS, any::<u8>(), any::<u8>()), 1..30), squeeze in any::<bool>()) {
        let records = records(&ops);
        let header = r#"{"format":"contextview.session-log","version":1,"sessionId":"s"}"#;
        let mut live: Vec<Session> = Provider::ALL.iter().map(|_| Session::from_log(header)).collect();
        let mut last_pruned: Vec<(Vec<String>, Vec<String>)> = Provider::ALL.iter().map(|_| Default::default()).collect();
        for (n, record) in records.iter().enumerate() {
          for (p, provider) in Provider::ALL.into_iter().enumerate() {
            let mut input = BuildInput { system: Some("You are careful.".into()), tools: tools().into(), ..BuildInput::new(provider) };
            input.limits = Some(contextview::provider::Limits { allow_prefill: Some(true), ..Default::default() });
            if squeeze {
                // A window small enough that pruning acts in batches, and an image budget that evicts.
                input.context_window = Some(400);
                input.pruning = Some(contextview::view::PruningConfig { keep_turns: 1, step_turns: 2, keep_steps: 1, batch_steps: 2, hard_clear_steps: 3, hard_clear_turns: 2, ..Default::default() });
                input.images = Some(contextview::view::ImageConfig { trigger_bytes: 250, low_water_bytes: 100, strip_all: false });
            }
            live[p].append(record.clone()).unwrap();
            let mut fresh = Session::from_log(&contextview::update::write_log(&contextview::update::Header::new("s"), &records[..=n]));
            let (a, b) = (live[p].build(&input), fresh.build(&input));
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    prop_assert_eq!(&a.body, &b.body);
                    // The live session names what it prunes that its last build did not.
                    let pruning = &a.report.pruning;
                    let (trimmed, cleared) = (pruning.trimmed_ids().to_vec(), pruning.cleared_ids().to_vec());
                    prop_assert_eq!((pruning.trimmed, pruning.cleared), (trimmed.len(), cleared.len()));
                    prop_assert_eq!(&pruning.newly_trimmed, &newly(&trimmed, &last_pruned[p].0));
                    prop_assert_eq!(&pruning.newly_cleared, &newly(&cleared, &last_pruned[p].1));
                    last_pruned[p] = (trimmed, cleared);
                    prop_assert_eq!(comparable(a.report), comparable(b.report));
                }
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "live {:?} vs fresh {:?}", a.map(|x| x.body), b.map(|x| x.body)),
            }
          }
        }
    }
}

#[test]
fn an_agent_loop_renders_only_what_it_appends_and_builds_what_a_fresh_build_does() {
    let header = r#"{"format":"contextview.session-log","version":1,"sessionId":"loop"}"#;
    for provider in Provider::ALL {
        let mut live = Session::from_log(header);
        let mut lines = vec![header.to_owned()];
        let mut seq = 0;
        let mut push = |live: &mut Session, lines: &mut Vec<String>, body: serde_json::Value| {
            seq += 1;
            let mut value = json!({"seq": seq, "ts": "2026-12-01T00:00:00Z"});
            value.as_object_mut().unwrap().extend(body.as_object().unwrap().clone());
            let line = value.to_string();
            live.append_line(&line).unwrap();
            lines.push(line);
        };
        let input = BuildInput { system: Some("You are careful.".into()), tools: tools().into(), ..BuildInput::new(provider) };
        push(&mut live, &mut lines, json!({"update": {"sessionUpdate": "user_message_chunk", "messageId": "u0", "content": {"type": "text", "text": "Count the files."}}}));
        live.build(&input).unwrap();
        let mut appended = 0;
        for turn in 0..8 {
            push(&mut live, &mut lines, json!({"update": {"sessionUpdate": "agent_message_chunk", "messageId": format!("a{turn}"), "content": {"type": "text", "text": format!("Looking at part {turn}.")}}}));
            push(&mut live, &mut lines, json!({"update": {"sessionUpdate": "tool_call", "toolCallId": format!("call_{turn}"), "title": "ls", "status": "pending", "rawInput": {"dir": turn}}}));
            push(&mut live, &mut lines, json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": format!("call_{turn}"), "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": format!("{turn} files")}}]}}));
            push(&mut live, &mut lines, json!({"event": {"kind": "usage_anchor", "inputTokens": 1000 + turn * 50, "outputTokens": 20}}));
            if turn % 3 == 2 {
                push(&mut live, &mut lines, json!({"update": {"sessionUpdate": "user_message_chunk", "messageId": format!("u{}", turn + 1), "content": {"type": "text", "text": "And the next part?"}}}));
            }
            let built = live.build(&input).unwrap();
            let fresh = Session::from_log(&(lines.join("\n") + "\n")).build(&input).unwrap();
            assert_eq!(built.body, fresh.body, "{provider} turn {turn}");
            assert_eq!(comparable(built.report.clone()), comparable(fresh.report), "{provider} turn {turn}");
            let reuse = built.report.reuse.unwrap();
            if reuse.appended_only {
                appended += 1;
                assert!(reuse.reused_entries > 0 && reuse.reused_entries < reuse.entries);
            }
        }
        assert_eq!(appended, 8, "{provider}: every turn of the loop only appended");
    }
}

#[test]
fn an_appended_build_writes_onto_the_last_body_and_never_changes_one_still_held() {
    let header = r#"{"format":"contextview.session-log","version":1,"sessionId":"grow"}"#;
    for provider in Provider::ALL {
        let mut live = Session::from_log(header);
        let mut seq = 0;
        let mut push = |live: &mut Session, body: serde_json::Value| {
            seq += 1;
            let mut value = json!({"seq": seq, "ts": "2026-12-01T00:00:00Z"});
            value.as_object_mut().unwrap().extend(body.as_object().unwrap().clone());
            live.append_line(&value.to_string()).unwrap();
        };
        let round = |live: &mut Session, push: &mut dyn FnMut(&mut Session, serde_json::Value), turn: u32| {
            push(live, json!({"update": {"sessionUpdate": "tool_call", "toolCallId": format!("call_{turn}"), "title": "ls", "status": "pending", "rawInput": {"dir": turn}}}));
            push(live, json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": format!("call_{turn}"), "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": format!("{turn} files")}}]}}));
        };
        let input = BuildInput { tools: tools().into(), ..BuildInput::new(provider) };
        push(&mut live, json!({"update": {"sessionUpdate": "user_message_chunk", "messageId": "u0", "content": {"type": "text", "text": "Count the files."}}}));
        let (first, _) = live.build_body(&input).unwrap();
        let first_text = first.to_string();
        // Held by the caller: the next body is another string, and this one stays as it was.
        round(&mut live, &mut push, 0);
        let (second, report) = live.build_body(&input).unwrap();
        assert!(report.reuse.unwrap().appended_only, "{provider}");
        assert!(!std::sync::Arc::ptr_eq(&first, &second), "{provider}");
        assert_eq!(*first, first_text, "{provider}: a body handed out changed");
        assert!(second.starts_with(&first_text[..first_text.len() - 2]), "{provider}");
        // Let go of: the next build writes its new entries onto the same string.
        let at = std::sync::Arc::as_ptr(&second);
        let second_text = second.to_string();
        drop((first, second));
        round(&mut live, &mut push, 1);
        let (third, report) = live.build_body(&input).unwrap();
        assert!(report.reuse.unwrap().appended_only, "{provider}");
        assert_eq!(std::sync::Arc::as_ptr(&third), at, "{provider}: the last body was copied, not extended");
        assert!(third.starts_with(&second_text[..second_text.len() - 2]) && third.len() > second_text.len(), "{provider}");
        let fresh = Session::from_log(&live.snapshot().unwrap().log).build(&input).unwrap();
        assert_eq!(*third, fresh.body, "{provider}: the body grown in place is not a fresh build's");
    }
}
