//! The session state machine: every command and its outcome, persistence acknowledgements and
//! reconcile under faults, snapshots, rewinds and compaction with refreshed heads.

use contextview_discovery::Rule;
use contextview::prompt::PromptContext;
use contextview::session::{Command, Effect, PersistOutcome, Processed, RecordState, Reply, Session, SessionSnapshot, SUMMARY_HEADROOM};
use contextview::update::{parse_log, Header};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const NOW: &str = "2026-12-02T10:00:00Z";

fn cmd(value: Value) -> Command {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{value}: {e}"))
}

fn run(session: &mut Session, value: Value) -> Processed {
    session.dispatch(cmd(value), Some(NOW.into())).unwrap()
}

fn ok(session: &mut Session, value: Value) -> Processed {
    let p = run(session, value);
    assert!(p.error.is_none(), "{:?}", p.error);
    p
}

fn persisted(p: &Processed) -> Vec<(u64, Vec<String>)> {
    p.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Persist { ticket, lines } => Some((*ticket, lines.clone())),
            _ => None,
        })
        .collect()
}

fn body(p: &Processed) -> String {
    match &p.reply {
        Some(Reply::Built { body, .. }) => body.to_string(),
        other => panic!("not built: {other:?}"),
    }
}

fn rule(path: &str, text: &str) -> Rule {
    serde_json::from_value(json!({
        "path": path, "canonical": path, "source": "agents_md", "dir": "/repo", "home": false,
        "activation": {"kind": "always"}, "text": text, "bytes": text.len(), "truncated": false
    }))
    .unwrap()
}

fn context(cwd: &str, rules: &[(&str, &str)]) -> PromptContext {
    let mut ctx = PromptContext::default();
    ctx.label = Some("Forge".into());
    ctx.cwd = Some(cwd.into());
    ctx.rules = rules.iter().map(|(p, t)| rule(p, t)).collect();
    ctx.tools = vec!["read".into(), "edit".into()];
    ctx
}

/// A session with a model, a prompt context and one finished agent step.
fn working_session() -> Session {
    let mut s = Session::create(Header::new("sess-1"));
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}));
    ok(&mut s, json!({"type": "setPromptContext", "context": context("/repo", &[("/repo/AGENTS.md", "Use tabs.")])}));
    ok(&mut s, json!({"type": "userMessage", "text": "Fix the failing test in parser.rs"}));
    ok(&mut s, json!({"type": "assistantResponse", "text": "Looking.", "toolCalls": [{"id": "c1", "name": "read", "input": {"path": "parser.rs"}}],
        "usage": {"inputTokens": 1200, "outputTokens": 40}}));
    ok(&mut s, json!({"type": "toolResult", "toolCallId": "c1", "output": "fn parse() {}"}));
    s
}

#[test]
fn commands_write_acp_records_and_build_with_the_heads() {
    let mut s = Session::create(Header::new("sess-1"));
    let p = ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}));
    // The first batch carries the header.
    let batches = persisted(&p);
    assert_eq!(batches.len(), 1);
    assert!(batches[0].1[0].contains("\"sessionId\":\"sess-1\""));
    ok(&mut s, json!({"type": "setPromptContext", "context": context("/repo", &[("/repo/AGENTS.md", "Use tabs.")])}));
    ok(&mut s, json!({"type": "userMessage", "text": "Fix the failing test in parser.rs"}));
    let p = ok(&mut s, json!({"type": "assistantResponse", "text": "Looking.", "toolCalls": [{"id": "c1", "name": "read", "input": {"path": "parser.rs"}}],
        "usage": {"inputTokens": 1200, "outputTokens": 40}}));
    assert_eq!(p.reply, Some(Reply::Accepted { seqs: vec![4, 5, 6] }));
    // The client hears the new count.
    let notified: Vec<&Value> = p.effects.iter().filter_map(|e| match e { Effect::Notify { notification } => Some(notification), _ => None }).collect();
    assert_eq!(notified.len(), 1);
    assert_eq!(notified[0]["update"]["sessionUpdate"], "usage_update");
    assert_eq!(notified[0]["update"]["size"], 200000);
    assert!(notified[0]["update"]["used"].as_u64().unwrap() >= 1240);
    ok(&mut s, json!({"type": "toolResult", "toolCallId": "c1", "output": "fn parse() {}"}));
    let kinds: Vec<&str> = s.records().iter().map(|r| r.body.kind()).collect();
    assert_eq!(
        kinds,
        ["model_switch", "prompt_head_snapshot", "user_message_chunk", "agent_message_chunk", "tool_call", "usage_anchor", "tool_call_update"]
    );
    let built = body(&ok(&mut s, json!({"type": "buildRequest"})));
    let payload: Value = serde_json::from_str(&built).unwrap();
    assert_eq!(payload["model"], "claude-sonnet-4-5", "the session's model is the default");
    assert!(payload["system"].to_string().contains("You are Forge, a coding agent."));
    let first = payload["messages"][0]["content"].to_string();
    assert!(first.contains("<user_info>\\nWorkspace: /repo\\n</user_info>") && first.contains("Use tabs."), "{first}");
    assert!(first.contains("Fix the failing test"), "the prefix opens the first user message");
    // A build of the log alone (a fresh process) is the same request.
    let log = s.snapshot().unwrap().log;
    let fresh = contextview::request::build_request(&contextview::request::BuildInput {
        log: Some(log),
        model: Some("claude-sonnet-4-5".into()),
        context_window: Some(200000),
        ..contextview::request::BuildInput::new(contextview::Provider::Anthropic)
    })
    .unwrap();
    assert_eq!(fresh.built.body, built);
}

#[test]
fn refused_commands_change_nothing() {
    let mut s = working_session();
    let before = s.records().len();
    let cases = [
        (json!({"type": "toolResult", "toolCallId": "nope", "output": "x"}), "unknown_tool_call"),
        (json!({"type": "rewind", "promptIndex": 1}), "invalid_prompt_index"),
        (json!({"type": "applyCompaction", "summary": "x"}), "no_compaction_prepared"),
        (json!({"type": "setPromptContext", "context": {"templates": {"primary": "{{nope}}"}}}), "invalid_template"),
        (json!({"type": "buildRequest", "options": {"provider": "nobody"}}), "invalid_options"),
        (json!({"type": "buildRequest", "options": 3}), "invalid_options"),
    ];
    for (command, code) in cases {
        let p = run(&mut s, command.clone());
        assert_eq!(p.error.as_ref().map(|e| e.code.as_str()), Some(code), "{command}");
        assert!(p.reply.is_none());
        assert_eq!(s.records().len(), before, "{command} wrote nothing");
    }
    let mut fresh = Session::create(Header::new("x"));
    assert_eq!(run(&mut fresh, json!({"type": "buildRequest"})).error.unwrap().code, "invalid_options", "no model yet");
    assert_eq!(run(&mut fresh, json!({"type": "prepareCompaction"})).error.unwrap().code, "nothing_to_compact");
}

#[test]
fn the_queue_runs_in_order_and_dispatch_waits_for_it() {
    let mut s = working_session();
    let a = s.submit(cmd(json!({"type": "recordEditedPath", "path": "/repo/a.rs"})), None);
    let b = s.submit(cmd(json!({"type": "recordEditedPath", "path": "/repo/a.rs"})), None);
    let c = s.submit(cmd(json!({"type": "enqueueReminder", "reminder": {"kind": "diagnostics", "text": "a.rs:1 unused"}})), None);
    assert_eq!(s.dispatch(cmd(json!({"type": "flush"})), None).unwrap_err().code(), "queue_not_empty");
    let done = s.process();
    assert_eq!(done.iter().map(|p| p.id).collect::<Vec<_>>(), vec![a, b, c]);
    assert!(matches!(done[0].reply, Some(Reply::Accepted { .. })));
    assert_eq!(done[1].reply, Some(Reply::Unchanged), "a path already known");
    assert_eq!(done[2].reply, Some(Reply::Queued { queued: true }));
    assert_eq!(s.state().edited_paths, vec!["/repo/a.rs"]);
    assert_eq!(s.state().queued_reminders, 1);
    let built = body(&ok(&mut s, json!({"type": "buildRequest"})));
    assert!(built.contains("a.rs:1 unused"), "the reminder is drained into the build");
    assert_eq!(s.state().queued_reminders, 0);
}

#[test]
fn acknowledgements_move_records_from_accepted_to_committed() {
    let mut s = Session::create(Header::new("acks"));
    let p = ok(&mut s, json!({"type": "switchModel", "provider": "openai-responses", "model": "gpt-5"}));
    let (t1, lines) = persisted(&p).remove(0);
    assert_eq!(lines.len(), 2, "header and record");
    assert_eq!(s.persistence().pending[0].state, RecordState::InFlight);
    // The write failed: the record goes out again with the next batch.
    assert!(s.ack(t1, PersistOutcome::NotCommitted).unwrap().applied);
    assert_eq!(s.persistence().pending[0].state, RecordState::NotCommitted);
    let p = ok(&mut s, json!({"type": "userMessage", "text": "hi"}));
    let (t2, lines) = persisted(&p).remove(0);
    assert_eq!(lines.len(), 3, "header, the failed record and the new one");
    // The answer was lost: the records are resent, storage skips what it holds.
    s.ack(t2, PersistOutcome::Indeterminate).unwrap();
    assert_eq!(s.persistence().committed_through, 0);
    assert!(s.persistence().pending.iter().all(|p| p.state == RecordState::Indeterminate));
    let p = ok(&mut s, json!({"type": "flush"}));
    let (t3, lines) = persisted(&p).remove(0);
    assert_eq!(lines.len(), 3);
    assert!(s.ack(t3, PersistOutcome::Committed).unwrap().applied);
    let status = s.persistence();
    assert_eq!((status.committed_through, status.header_committed, status.pending.len()), (2, true, 0));
    assert!(!s.ack(t3, PersistOutcome::Committed).unwrap().applied, "a repeated answer changes nothing");
    assert!(!s.ack(t2, PersistOutcome::NotCommitted).unwrap().applied, "a late answer for a settled ticket is ignored");
    assert_eq!(s.ack(99, PersistOutcome::Committed).unwrap_err().code(), "unknown_ticket");
    assert_eq!(s.ack(0, PersistOutcome::Committed).unwrap_err().code(), "unknown_ticket");
    assert!(persisted(&ok(&mut s, json!({"type": "flush"}))).is_empty(), "nothing left to store");
}

#[test]
fn reconcile_converges_memory_to_storage() {
    // Storage is behind: what it lacks is sent again.
    let mut s = working_session();
    let log = s.snapshot().unwrap().log;
    let lines: Vec<&str> = log.lines().collect();
    let stored = lines[..4].join("\n") + "\n";
    let r = s.reconcile(&stored).unwrap();
    assert_eq!((r.adopted, r.resent, r.dropped.len()), (0, 4, 0));
    assert_eq!(r.persistence.committed_through, 3);
    match &r.effects[..] {
        [Effect::Persist { lines: sent, .. }] => assert_eq!(sent.len(), 4),
        other => panic!("{other:?}"),
    }

    // Storage is ahead (another process wrote): memory takes it over.
    let mut behind = Session::from_log(&(lines[..4].join("\n") + "\n"));
    let r = behind.reconcile(&log).unwrap();
    assert_eq!((r.adopted, r.resent), (4, 0));
    assert_eq!(behind.snapshot().unwrap().log, log);

    // Storage holds something else under the same seq: storage wins, memory's line comes back.
    let mut other = Session::from_log(&(lines[..4].join("\n") + "\n"));
    ok(&mut other, json!({"type": "recordEditedPath", "path": "/x"}));
    let r = other.reconcile(&log).unwrap();
    assert_eq!(r.dropped.len(), 1);
    assert!(r.dropped[0].contains("edited_paths"));
    assert_eq!(other.snapshot().unwrap().log, log);

    // Storage lost records it had confirmed: they are sent again, and it is reported.
    let mut s = working_session();
    for ticket in s.persistence().in_flight {
        s.ack(ticket, PersistOutcome::Committed).unwrap();
    }
    assert_eq!(s.persistence().committed_through, 7);
    let r = s.reconcile(&stored).unwrap();
    assert_eq!(r.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), vec!["storage.lost_records"]);
    assert_eq!(r.resent, 4);

    // Storage changed a record it had confirmed: it is still the truth, and that is reported.
    let mut s = working_session();
    for ticket in s.persistence().in_flight {
        s.ack(ticket, PersistOutcome::Committed).unwrap();
    }
    let mut changed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let at = changed.iter().position(|l| l.contains("\"seq\":2,")).expect("a record with seq 2");
    // Written as the session writes its lines (key order included: storage compares by text).
    changed[at] = contextview::update::Record::from_value(serde_json::json!({"seq": 2, "ts": "2026-01-01T00:00:00Z", "event": {"kind": "edited_paths", "paths": ["/elsewhere"]}})).unwrap().to_line();
    let r = s.reconcile(&(changed.join("\n") + "\n")).unwrap();
    assert_eq!(r.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), vec!["storage.diverged"]);
    assert!(r.diagnostics[0].message.contains("from seq 2"), "{:?}", r.diagnostics);
    let from_two = changed.len() - at;
    assert_eq!((r.adopted, r.dropped.len(), r.resent), (from_two, from_two, 0));
    assert_eq!(s.snapshot().unwrap().log, changed.join("\n") + "\n");

    let mut s = working_session();
    let foreign = log.replace("sess-1", "sess-2");
    assert_eq!(s.reconcile(&foreign).unwrap_err().code(), "session_mismatch");
}

#[test]
fn snapshot_restore_builds_the_identical_next_request() {
    let mut s = working_session();
    ok(&mut s, json!({"type": "enqueueReminder", "reminder": {"kind": "diagnostics", "text": "parser.rs:3 error"}}));
    let p = ok(&mut s, json!({"type": "snapshot"}));
    let Some(Reply::Snapshot(snapshot)) = p.reply else { panic!() };
    // Through JSON, as a host would keep it.
    let text = serde_json::to_string(&snapshot).unwrap();
    let back: SessionSnapshot = serde_json::from_str(&text).unwrap();
    let mut restored = Session::restore(&back).unwrap();
    // Tickets in flight will never be answered in the new process: their records go out again.
    let (before, after) = (s.persistence(), restored.persistence());
    assert_eq!(after.committed_through, before.committed_through);
    assert!(before.pending.iter().all(|p| p.state == RecordState::InFlight) && !before.in_flight.is_empty());
    assert!(after.pending.iter().all(|p| p.state == RecordState::Indeterminate) && after.in_flight.is_empty());
    assert_eq!(after.pending.len(), before.pending.len());
    let a = body(&ok(&mut s, json!({"type": "buildRequest"})));
    let b = body(&ok(&mut restored, json!({"type": "buildRequest"})));
    assert_eq!(a, b);
    assert!(a.contains("parser.rs:3 error"));
    // The restore command replaces the state in place.
    let mut third = Session::default();
    ok(&mut third, json!({"type": "restore", "snapshot": serde_json::from_str::<Value>(&text).unwrap()}));
    assert_eq!(body(&ok(&mut third, json!({"type": "buildRequest"}))), a);
    let mut bad: Value = serde_json::from_str(&text).unwrap();
    bad["format"] = json!("something-else");
    assert_eq!(Session::restore(&serde_json::from_value(bad).unwrap()).unwrap_err().code(), "invalid_snapshot");
}

#[test]
fn rewind_truncates_and_reaches_across_a_compaction() {
    let mut s = working_session();
    ok(&mut s, json!({"type": "assistantResponse", "text": "Fixed it."}));
    ok(&mut s, json!({"type": "userMessage", "text": "Now add a test"}));
    ok(&mut s, json!({"type": "assistantResponse", "text": "Added."}));
    assert_eq!(s.state().prompts, vec!["Fix the failing test in parser.rs", "Now add a test"]);
    compact(&mut s, 10);
    ok(&mut s, json!({"type": "userMessage", "text": "Continue"}));
    let compacted = body(&ok(&mut s, json!({"type": "buildRequest"})));
    assert!(compacted.contains("compaction_summary") && !compacted.contains("Fixed it."));
    assert!(s.state().last_compaction_seq.is_some());
    // Rewinding to the second prompt goes back before the compaction: the original records return.
    ok(&mut s, json!({"type": "rewind", "promptIndex": 1}));
    assert_eq!(s.state().prompts, vec!["Fix the failing test in parser.rs"]);
    ok(&mut s, json!({"type": "userMessage", "text": "Add a test instead"}));
    let after = body(&ok(&mut s, json!({"type": "buildRequest"})));
    assert!(!after.contains("<compaction_summary>\\n") && !after.contains("Now add a test"));
    assert!(after.contains("Fixed it.") && after.contains("Add a test instead"));
}

const SUMMARY: &str = "## Goal\nFix the failing parser test and add a regression test.\n## Constraints\nUse tabs.\n## Progress\n### Done\nRead parser.rs.\n### In progress\nNone\n### Blocked\nNone\n## Decisions\nNone\n## Next steps\nRun the tests.\n## Files\nparser.rs (read)\n## Pending actions\nNone";

fn compact(s: &mut Session, keep: u64) -> contextview::session::compaction::PreparedCompaction {
    let p = ok(s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": keep}}));
    let Some(Reply::Compaction(prepared)) = p.reply else { panic!("{p:?}") };
    ok(s, json!({"type": "applyCompaction", "summary": SUMMARY, "usage": {"inputTokens": 900, "outputTokens": 120}}));
    *prepared
}

#[test]
fn compaction_refreshes_the_heads_and_keeps_the_state() {
    let mut s = working_session();
    ok(&mut s, json!({"type": "assistantResponse", "text": "Patched.", "toolCalls": [{"id": "c2", "name": "edit", "kind": "edit", "paths": ["/repo/parser.rs"], "input": {}}]}));
    ok(&mut s, json!({"type": "toolResult", "toolCallId": "c2", "output": "ok"}));
    // The environment changes mid-session: the heads stay as sent (the prefix is cached)...
    let moved = context("/repo/sub", &[("/repo/AGENTS.md", "Use tabs."), ("/repo/sub/AGENTS.md", "Sub rules apply.")]);
    assert_eq!(ok(&mut s, json!({"type": "setPromptContext", "context": moved.clone()})).reply, Some(Reply::Queued { queued: true }));
    assert_eq!(ok(&mut s, json!({"type": "setPromptContext", "context": moved})).reply, Some(Reply::Unchanged), "nothing new");
    let last_sent = body(&ok(&mut s, json!({"type": "buildRequest"})));
    let before: Value = serde_json::from_str(&last_sent).unwrap();
    let messages = before["messages"].as_array().unwrap();
    let first = messages[0].to_string();
    assert!(first.contains("Workspace: /repo\\n") && !first.contains("Sub rules apply."), "the heads stay as sent");
    // ...and the model hears what changed, as reminders.
    let last = messages.last().unwrap().to_string();
    assert!(last.contains("The working directory is now /repo/sub."), "{last}");
    assert!(last.contains("Now in effect, from /repo/sub/AGENTS.md:\\nSub rules apply."), "{last}");

    // ...until a compaction refreshes them. The summary is asked for after the very request the
    // provider has cached: the last request, byte for byte, then the instructions.
    let prepared = compact(&mut s, 10);
    assert_eq!(format!("{:?}", prepared.ladder), "Cached");
    assert!(prepared.prompt.contains("## Pending actions"), "the structured template");
    assert!(prepared.prompt.contains("do not call any tool"));
    // (The instructions join the last user message as one more block: everything of the last
    // request but its closing brackets is repeated.)
    let stem = last_sent.trim_end_matches(['}', ']']);
    assert!(prepared.body.starts_with(stem), "extends the last request");
    assert!(contextview::view::PrefixReport::between(&last_sent, &prepared.body).extends_previous);
    assert_eq!(prepared.cached_bytes, stem.len());
    assert!(prepared.cached_share > 0.5 && prepared.cached_share < 1.0, "{}", prepared.cached_share);
    let request: Value = serde_json::from_str(&prepared.body).unwrap();
    assert_eq!(request["model"], "claude-sonnet-4-5");
    assert_eq!(request["system"], before["system"], "the session's own system prompt");
    assert_eq!(request["tools"], before["tools"]);
    let asked = request["messages"].as_array().unwrap().last().unwrap().to_string();
    assert!(asked.contains("## Goal") && asked.contains("stay verbatim after it"), "{asked}");
    let after = body(&ok(&mut s, json!({"type": "buildRequest"})));
    assert!(after.contains("Workspace: /repo/sub") && after.contains("Sub rules apply."), "fresh heads");
    assert!(!after.contains("Workspace: /repo\\n"), "no stale environment");
    assert!(after.contains("<compaction_summary>\\n## Goal"));
    // The state reminder: the latest request (cut out by the small budget) and the edited files.
    assert!(after.contains("The user's latest request, verbatim:\\nFix the failing test in parser.rs"), "{after}");
    assert!(after.contains("Files edited in this session: /repo/parser.rs"));
    // The original records are all still in the log, behind a typed checkpoint.
    let kinds: Vec<&str> = s.records().iter().map(|r| r.body.kind()).collect();
    assert!(kinds.contains(&"compaction_checkpoint") && kinds.iter().filter(|k| **k == "tool_call").count() == 2);
    // A fresh replay of the log builds the same request.
    let mut fresh = Session::from_log(&s.snapshot().unwrap().log);
    // It samples with the log's model: no options needed.
    let fresh_body = body(&ok(&mut fresh, json!({"type": "buildRequest"})));
    assert_eq!(fresh_body, after);
}

#[test]
fn degenerate_summaries_are_refused() {
    let mut s = working_session();
    ok(&mut s, json!({"type": "assistantResponse", "text": "Done."}));
    ok(&mut s, json!({"type": "userMessage", "text": "next"}));
    ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 10}}));
    for (summary, needle) in [("", "too little"), ("## Goal\nok", "too little"), (&SUMMARY.replace("## Decisions", "## Choices")[..], "Decisions")] {
        let p = run(&mut s, json!({"type": "applyCompaction", "summary": summary}));
        let e = p.error.expect(summary);
        assert_eq!(e.code, "degenerate_summary");
        assert!(e.message.contains(needle), "{}", e.message);
    }
    // A rewind after preparing makes the prepared cut stale.
    ok(&mut s, json!({"type": "rewind", "promptIndex": 1}));
    assert_eq!(run(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY})).error.unwrap().code, "no_compaction_prepared");
    ok(&mut s, json!({"type": "userMessage", "text": "again"}));
    ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 10}}));
    s.submit(cmd(json!({"type": "rewind", "promptIndex": 1})), None);
    s.process();
    assert_eq!(run(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY})).error.unwrap().code, "no_compaction_prepared");
    // Nothing before the cut: nothing to compact.
    let mut tiny = working_session();
    assert_eq!(run(&mut tiny, json!({"type": "prepareCompaction"})).error.unwrap().code, "nothing_to_compact");
}

#[test]
fn the_summary_input_goes_down_the_ladder() {
    let mut s = working_session();
    for i in 0..6 {
        ok(&mut s, json!({"type": "assistantResponse", "toolCalls": [{"id": format!("big{i}"), "name": "read", "input": {"n": i}}]}));
        ok(&mut s, json!({"type": "toolResult", "toolCallId": format!("big{i}"), "output": format!("line {i}\n").repeat(600)}));
    }
    ok(&mut s, json!({"type": "userMessage", "text": "and now?"}));
    // With room for it, the summary is asked for after the conversation itself.
    let p = ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 10, "inputTokens": 1_000_000}}));
    let Some(Reply::Compaction(cached)) = p.reply else { panic!() };
    assert_eq!(format!("{:?}", cached.ladder), "Cached");
    // Without, or when another model summarises, as a transcript, down the ladder.
    let p = ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 10, "inputTokens": cached.input_tokens - 1}}));
    let Some(Reply::Compaction(transcript)) = p.reply else { panic!() };
    assert_ne!(format!("{:?}", transcript.ladder), "Cached");
    assert!(transcript.prompt.contains("The conversation to summarise:"));
    let prepare = |s: &mut Session, input: u64| {
        let p = ok(s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 10, "inputTokens": input, "build": {"model": "claude-haiku-4-5"}}}));
        let Some(Reply::Compaction(prepared)) = p.reply else { panic!() };
        prepared
    };
    let verbatim = prepare(&mut s, 1_000_000);
    assert_eq!(serde_json::from_str::<Value>(&verbatim.body).unwrap()["model"], "claude-haiku-4-5");
    assert!(verbatim.system.contains("working summary"));
    assert_eq!((format!("{:?}", verbatim.ladder), verbatim.trimmed, verbatim.omitted), ("Verbatim".into(), 0, 0));
    let fitted = prepare(&mut s, verbatim.input_tokens * 2 / 3);
    assert_eq!(format!("{:?}", fitted.ladder), "Fitted");
    assert!(fitted.trimmed > 0 && fitted.input_tokens <= verbatim.input_tokens * 2 / 3);
    assert!(fitted.prompt.contains("characters trimmed"));
    let lossy = prepare(&mut s, 1_500);
    assert_eq!(format!("{:?}", lossy.ladder), "Lossy");
    assert!(lossy.omitted > 0 && lossy.prompt.contains("earlier messages are left out"));
    assert!(lossy.prompt.contains("[user]\nFix the failing test"), "the first request is kept");
}

#[test]
fn a_model_switch_updates_the_system_head_and_asks_for_compaction_when_too_small() {
    let mut s = working_session();
    // Four results of one step, the current one: pruning may not touch them.
    let calls: Vec<Value> = (0..4).map(|i| json!({"id": format!("r{i}"), "name": "read", "input": {}})).collect();
    ok(&mut s, json!({"type": "assistantResponse", "toolCalls": calls}));
    for i in 0..4 {
        ok(&mut s, json!({"type": "toolResult", "toolCallId": format!("r{i}"), "output": "word ".repeat(3000)}));
    }
    let p = ok(&mut s, json!({"type": "switchModel", "provider": "openai-chat", "model": "small-model", "contextWindow": 16000}));
    let due: Vec<_> = p.effects.iter().filter_map(|e| match e { Effect::CompactionDue { reason, usage } => Some((*reason, usage.size)), _ => None }).collect();
    assert_eq!(due, vec![(contextview::session::CompactionReason::ModelSwitch, 16000)]);
    let kinds: Vec<&str> = s.records().iter().rev().take(2).map(|r| r.body.kind()).collect();
    assert_eq!(kinds, ["prompt_head_snapshot", "model_switch"], "the system head is rendered for the new model");
    let built = body(&ok(&mut s, json!({"type": "buildRequest"})));
    assert!(built.contains("You run as the model small-model."));
    // Asked once; the next change does not ask again.
    let p = ok(&mut s, json!({"type": "userMessage", "text": "go on"}));
    assert!(!p.effects.iter().any(|e| matches!(e, Effect::CompactionDue { .. })));
}

#[test]
fn a_model_switch_to_a_window_pruning_can_make_room_in_asks_for_no_compaction() {
    let mut s = working_session();
    // Four steps: the three before the current one can be pruned.
    for i in 0..4 {
        ok(&mut s, json!({"type": "assistantResponse", "toolCalls": [{"id": format!("r{i}"), "name": "read", "input": {}}]}));
        ok(&mut s, json!({"type": "toolResult", "toolCallId": format!("r{i}"), "output": "word ".repeat(3000)}));
    }
    let p = ok(&mut s, json!({"type": "switchModel", "provider": "openai-chat", "model": "small-model", "contextWindow": 16000}));
    assert!(!p.effects.iter().any(|e| matches!(e, Effect::CompactionDue { .. })), "{:?}", p.effects);
    let Some(Reply::Built { report, .. }) = ok(&mut s, json!({"type": "buildRequest"})).reply else { panic!("not built") };
    let context = &report.tokens.context;
    assert_eq!(report.pruning.cleared + report.pruning.trimmed, 3, "{:?}", report.pruning);
    assert!(context.used < context.compact_at.unwrap(), "{context:?}");
    // The count is the request's, not the log's: three results of 3,000 words are trimmed.
    assert!(context.adjusted_tokens < -5_000 && context.omitted_tokens as i64 == -context.adjusted_tokens, "{context:?}");
    // As the log holds it, the context is past the threshold: only pruning keeps it under.
    assert!(context.anchor_tokens + context.estimated_tokens > context.compact_at.unwrap(), "{context:?}");
}

#[test]
fn pruning_makes_room_before_a_compaction_is_asked_for() {
    let mut s = Session::create(Header::new("t"));
    ok(&mut s, json!({"type": "switchModel", "provider": "openai-chat", "model": "m", "contextWindow": 40000}));
    ok(&mut s, json!({"type": "userMessage", "text": "go"}));
    let mut counts = Vec::new();
    for i in 0..24 {
        for p in [
            ok(&mut s, json!({"type": "assistantResponse", "toolCalls": [{"id": format!("c{i}"), "name": "read", "input": {}}]})),
            ok(&mut s, json!({"type": "toolResult", "toolCallId": format!("c{i}"), "output": format!("{i} {}", "alpha beta ".repeat(1500))})),
        ] {
            assert!(!p.effects.iter().any(|e| matches!(e, Effect::CompactionDue { .. })), "round {i}: {:?}", p.effects);
            counts.extend(p.effects.iter().filter_map(|e| match e {
                Effect::Notify { notification } => notification["update"]["used"].as_u64(),
                _ => None,
            }));
        }
    }
    // Twenty-four results of about 3,300 tokens: twice the window as logged, never past the
    // compaction threshold (20,000) as sent.
    assert!(counts.len() >= 24 && counts.iter().all(|&used| used <= 20_000), "{counts:?}");
    // The last count, made without a build, is the one a build reports.
    let Some(Reply::Built { report, .. }) = ok(&mut s, json!({"type": "buildRequest"})).reply else { panic!("not built") };
    assert_eq!(counts.last().copied(), Some(report.tokens.context.used));
}

/// Each request answered with the request's own estimate as the provider's count: the ledger
/// anchored on the answer must count the next request as the view builds it, prune or no prune.
#[test]
fn the_ledger_follows_the_view_across_pruning() {
    let mut s = Session::create(Header::new("t"));
    ok(&mut s, json!({"type": "switchModel", "provider": "openai-chat", "model": "m", "contextWindow": 40000}));
    ok(&mut s, json!({"type": "userMessage", "text": "go"}));
    let (mut moves, mut last_cut) = (0, (0, 0));
    let mut last_ids: (Vec<String>, Vec<String>) = Default::default();
    let input: contextview::request::BuildInput =
        serde_json::from_value(json!({"provider": "openai-chat", "model": "m", "contextWindow": 40000})).unwrap();
    for i in 0..30 {
        // Between builds the session counts what the next build will (its usage_update).
        let between = s.usage(&input);
        let Some(Reply::Built { report, .. }) = ok(&mut s, json!({"type": "buildRequest"})).reply else { panic!("not built") };
        let (context, request) = (&report.tokens.context, report.tokens.request);
        assert_eq!((between.used, between.adjusted_tokens), (context.used, context.adjusted_tokens), "round {i}");
        let off = context.used.abs_diff(request) as f64 / request as f64;
        assert!(context.anchored == (i > 0) && off < 0.02, "round {i}: ledger {} vs request {request}: {context:?}", context.used);
        let cut = (report.pruning.cleared, report.pruning.trimmed);
        moves += usize::from(cut != last_cut);
        last_cut = cut;
        // The report names only what this request prunes that the last one did not.
        let (trimmed, cleared) = (report.pruning.trimmed_ids().to_vec(), report.pruning.cleared_ids().to_vec());
        let newly = |now: &[String], before: &[String]| now.iter().filter(|id| !before.contains(id)).cloned().collect::<Vec<_>>();
        assert_eq!(report.pruning.newly_trimmed, newly(&trimmed, &last_ids.0), "round {i}");
        assert_eq!(report.pruning.newly_cleared, newly(&cleared, &last_ids.1), "round {i}");
        let json = serde_json::to_string(&report.pruning).unwrap();
        for old in last_ids.1.iter().filter(|id| cleared.contains(id)) {
            assert!(!json.contains(&format!("\"{old}\"")), "round {i}: {old} was cleared before and is named again: {json}");
        }
        last_ids = (trimmed, cleared);
        ok(&mut s, json!({"type": "assistantResponse", "toolCalls": [{"id": format!("c{i}"), "name": "read", "input": {}}],
            "usage": {"inputTokens": request, "outputTokens": 12}}));
        ok(&mut s, json!({"type": "toolResult", "toolCallId": format!("c{i}"), "output": format!("{i} {}", "alpha beta ".repeat(1500))}));
    }
    let omitted: Vec<Option<u64>> = s
        .records()
        .iter()
        .filter_map(|r| match &r.body {
            contextview::update::RecordBody::Event(contextview::update::Event::UsageAnchor(u)) => Some(u.omitted_tokens),
            _ => None,
        })
        .collect();
    assert!(moves >= 2, "the boundary moved {moves} times");
    assert!(omitted.iter().all(Option::is_some) && omitted.iter().any(|o| *o > Some(10_000)), "each answer records what its request left out: {omitted:?}");
}

#[test]
fn the_threshold_is_announced_once_with_room_for_the_summary_request() {
    let mut s = Session::create(Header::new("t"));
    ok(&mut s, json!({"type": "switchModel", "provider": "openai-chat", "model": "m", "contextWindow": 40000}));
    ok(&mut s, json!({"type": "userMessage", "text": "go"}));
    let mut asked = Vec::new();
    let mut counts = Vec::new();
    // What the user says is never pruned: only a compaction can make room.
    for i in 0..12 {
        for p in [
            ok(&mut s, json!({"type": "userMessage", "text": format!("{i} {}", "alpha beta ".repeat(1500))})),
            ok(&mut s, json!({"type": "assistantResponse", "text": format!("noted {i}")})),
        ] {
            for e in &p.effects {
                match e {
                    Effect::CompactionDue { usage, .. } => asked.push((counts.len(), usage.used, usage.compact_at.unwrap())),
                    Effect::Notify { notification } => counts.push(notification["update"]["used"].as_u64().unwrap()),
                    Effect::Persist { .. } => {}
                    Effect::ReadHistory { .. } | Effect::ReadRecords { .. } => panic!("a session that holds its records asks for none: {e:?}"),
                    Effect::RetryAfter { .. } => panic!("no provider answered: {e:?}"),
                }
            }
        }
    }
    assert_eq!(asked.len(), 1, "asked once: {asked:?}");
    let (at, used, compact_at) = asked[0];
    // Asked at the threshold (85%, or earlier to leave the reserve), or as soon as the summarising
    // request would no longer fit beside the context — not before.
    assert_eq!(compact_at, 20_000, "a 40k window keeps a 20k reserve");
    assert!(used >= compact_at || used + SUMMARY_HEADROOM > 40000, "{used}");
    let before = counts[at - 2];
    assert!(before < compact_at && before + SUMMARY_HEADROOM <= 40000, "not asked too early: {counts:?}");
}

#[test]
fn parse_of_a_session_log_keeps_every_record_kind() {
    let s = working_session();
    let log = parse_log(&s.snapshot().unwrap().log);
    assert!(log.diagnostics.is_empty(), "{:?}", log.diagnostics);
    assert_eq!(log.records.len(), s.records().len());
}

// --- fault injection ---------------------------------------------------------------------------

/// Storage as the adapters behave: the header once, a record already held is skipped, a
/// different one under its seq or a gap refuses the whole batch.
#[derive(Default)]
struct Storage {
    lines: Vec<String>,
}

impl Storage {
    fn seq(line: &str) -> Option<u64> {
        serde_json::from_str::<Value>(line).ok()?.get("seq")?.as_u64()
    }

    fn last(&self) -> u64 {
        self.lines.last().and_then(|l| Self::seq(l)).unwrap_or(0)
    }

    fn append(&mut self, batch: &[String]) -> bool {
        let mut last = self.last();
        let mut has_header = !self.lines.is_empty();
        let mut new = Vec::new();
        for line in batch {
            match Self::seq(line) {
                None if !has_header => {
                    new.push(line.clone());
                    has_header = true;
                }
                None => {
                    if self.lines.first() != Some(line) && new.first() != Some(line) {
                        return false;
                    }
                }
                Some(_) if !has_header => return false,
                Some(seq) if seq <= last => {
                    let held = self.lines.iter().chain(&new).find(|l| Self::seq(l) == Some(seq));
                    if held != Some(line) {
                        return false;
                    }
                }
                Some(seq) if seq == last + 1 => {
                    new.push(line.clone());
                    last = seq;
                }
                Some(_) => return false,
            }
        }
        self.lines.extend(new);
        true
    }

    fn text(&self) -> String {
        self.lines.iter().map(|l| format!("{l}\n")).collect()
    }
}

/// How many kinds of command the fault property sends: every one that writes records.
const COMMAND_KINDS: u8 = 11;

#[derive(Debug, Clone, Copy)]
enum Fault {
    Ok,
    WriteFails,
    LostAck,
    Duplicate,
    CrashBeforeAck,
}

#[derive(Debug, Clone)]
enum Op {
    Command(u8),
    Deliver(usize, Fault),
    Reconcile,
    Restart,
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    let fault = prop_oneof![Just(Fault::Ok), Just(Fault::WriteFails), Just(Fault::LostAck), Just(Fault::Duplicate), Just(Fault::CrashBeforeAck)];
    prop_oneof![
        4 => (0u8..COMMAND_KINDS).prop_map(Op::Command),
        4 => (0usize..4, fault).prop_map(|(i, f)| Op::Deliver(i, f)),
        1 => Just(Op::Reconcile),
        1 => Just(Op::Restart),
    ]
}

/// Every record memory says is stored is in storage, exactly.
fn check_claims(s: &Session, storage: &Storage) -> Result<(), String> {
    let claimed = s.persistence().committed_through;
    if claimed > storage.last() {
        return Err(format!("memory claims {claimed} but storage holds up to {}", storage.last()));
    }
    for record in s.records().iter().filter(|r| r.seq <= claimed) {
        let line = record.to_line();
        if !storage.lines.contains(&line) {
            return Err(format!("claimed record {} is not stored as held", record.seq));
        }
    }
    Ok(())
}

/// What a storage's `loadHistory(through)` reads, given to a session that let it go.
fn give_history(s: &mut Session, storage: &Storage) -> Result<Option<Processed>, String> {
    match s.history_through() {
        Some(through) => {
            let text: String = storage.lines.iter().filter(|l| Storage::seq(l).is_some_and(|seq| seq <= through)).map(|l| format!("{l}\n")).collect();
            s.provide_history(text).map_err(|e| format!("history through {through}: {e}"))
        }
        None => Ok(None),
    }
}

/// The fault driver; `every`: checkpoints by size as well as after compactions; `release`: the
/// session lets go of what storage confirmed (and reads it back before a rewind).
fn run_faults(ops: &[Op], every: Option<u64>, release: bool) -> Result<(), String> {
    let mut storage = Storage::default();
    let mut s = Session::create(Header::new("faults"));
    s.set_checkpoint_every(every);
    s.set_release_stored(release);
    let mut inbox: Vec<(u64, Vec<String>)> = Vec::new();
    let mut acknowledged: Vec<String> = Vec::new();
    let mut calls = 0;
    let take = |effects: Vec<Effect>, inbox: &mut Vec<(u64, Vec<String>)>| {
        for e in effects {
            if let Effect::Persist { ticket, lines } = e {
                inbox.push((ticket, lines));
            }
        }
    };
    take(s.take_effects(), &mut inbox);
    for op in ops {
        match *op {
            Op::Command(k) => {
                let build = json!({"provider": "openai-responses", "model": "gpt-5"});
                let commands = match k {
                    0 => vec![json!({"type": "userMessage", "text": format!("prompt {calls}")})],
                    1 => vec![json!({"type": "assistantResponse", "text": format!("answer {calls}"), "toolCalls": [{"id": format!("c{calls}"), "name": "ls", "input": {}}]})],
                    2 => vec![json!({"type": "recordEditedPath", "path": format!("/f{calls}")})],
                    3 => vec![json!({"type": "recordUsage", "usage": {"inputTokens": 100 + calls, "outputTokens": 1}})],
                    4 => vec![json!({"type": "flush"})],
                    // A build drains the queued reminder into the log.
                    5 => vec![
                        json!({"type": "enqueueReminder", "reminder": {"kind": "diagnostics", "text": format!("warning {calls}")}}),
                        json!({"type": "buildRequest", "options": build}),
                    ],
                    6 => vec![json!({"type": "switchModel", "provider": "openai-responses", "model": format!("gpt-5-{}", calls % 2), "contextWindow": 200000})],
                    7 => vec![json!({"type": "setPromptContext", "context": context(&format!("/repo{}", calls % 3), &[("/repo/AGENTS.md", "Use tabs.")])})],
                    8 => match s.state().prompts.len() {
                        0 => vec![json!({"type": "flush"})],
                        n => vec![json!({"type": "rewind", "promptIndex": (calls as usize) % n})],
                    },
                    9 => {
                        // Answer the latest call, if there is one still open.
                        let open = s.items().iter().rev().find_map(|i| match i {
                            contextview::conversation::Item::ToolCall(c) => Some(c.call_id.clone()),
                            _ => None,
                        });
                        match open {
                            Some(id) => vec![json!({"type": "toolResult", "toolCallId": id, "output": format!("out {calls}")})],
                            None => vec![json!({"type": "flush"})],
                        }
                    }
                    _ => vec![
                        json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 5, "build": build}}),
                        json!({"type": "applyCompaction", "summary": SUMMARY}),
                    ],
                };
                calls += 1;
                for command in commands {
                    let mut processed = s.dispatch(cmd(command), Some(NOW.into())).map_err(|e| e.to_string())?;
                    // A command that waits for what the session let go is answered from storage,
                    // the way a host answers its read effect, and then runs.
                    while processed.waiting.is_some() {
                        let mut resumed = None;
                        for e in std::mem::take(&mut processed.effects) {
                            match e {
                                Effect::Persist { ticket, lines } => inbox.push((ticket, lines)),
                                Effect::ReadHistory { .. } => resumed = give_history(&mut s, &storage)?,
                                e @ Effect::ReadRecords { .. } => return Err(format!("no result is let go here: {e:?}")),
                                Effect::Notify { .. } | Effect::CompactionDue { .. } | Effect::RetryAfter { .. } => {}
                            }
                        }
                        processed = resumed.ok_or("a waiting command was not run once answered")?;
                    }
                    // Refusals that write nothing: nothing before the cut, nothing to build yet.
                    if let Some(error) = &processed.error {
                        if !["nothing_to_compact", "empty_conversation", "no_compaction_prepared"].contains(&error.code.as_str()) {
                            return Err(format!("command refused: {error:?}"));
                        }
                    }
                    take(processed.effects, &mut inbox);
                }
            }
            Op::Deliver(i, fault) => {
                if inbox.is_empty() {
                    continue;
                }
                let (ticket, lines) = inbox.remove(i % inbox.len());
                let outcome = match fault {
                    Fault::Ok => Some(if storage.append(&lines) { PersistOutcome::Committed } else { PersistOutcome::NotCommitted }),
                    Fault::WriteFails => Some(PersistOutcome::NotCommitted),
                    Fault::LostAck => {
                        storage.append(&lines);
                        Some(PersistOutcome::Indeterminate)
                    }
                    Fault::Duplicate => {
                        let first = storage.append(&lines);
                        let second = storage.append(&lines);
                        if first && !second {
                            return Err("a duplicate delivery was refused".into());
                        }
                        Some(if first { PersistOutcome::Committed } else { PersistOutcome::NotCommitted })
                    }
                    Fault::CrashBeforeAck => {
                        storage.append(&lines);
                        None
                    }
                };
                if let Some(outcome) = outcome {
                    // Tickets reach only the process that issued them (a restart empties the
                    // inbox), so every answer is one the session knows.
                    let r = s.ack(ticket, outcome).map_err(|e| format!("ack of ticket {ticket}: {e}"))?;
                    if r.applied && outcome == PersistOutcome::Committed {
                        acknowledged.extend(lines.iter().filter(|l| Storage::seq(l).is_some()).cloned());
                    }
                }
            }
            Op::Reconcile => {
                let r = s.reconcile(&storage.text()).map_err(|e| e.to_string())?;
                if !r.dropped.is_empty() {
                    return Err(format!("one writer, yet reconcile dropped {:?}", r.dropped));
                }
                inbox.clear();
                take(r.effects, &mut inbox);
            }
            Op::Restart => {
                // The process dies: memory and its unanswered tickets are gone; storage remains.
                s = if storage.lines.is_empty() { Session::create(Header::new("faults")) } else { Session::from_log(&storage.text()) };
                s.set_checkpoint_every(every);
                s.set_release_stored(release);
                inbox.clear();
                take(s.take_effects(), &mut inbox);
            }
        }
        check_claims(&s, &storage)?;
        for line in &acknowledged {
            if !storage.lines.contains(line) {
                return Err(format!("acknowledged record lost: {line}"));
            }
        }
    }
    // Settle: reconcile with storage, then deliver everything to a storage that works.
    let r = s.reconcile(&storage.text()).map_err(|e| e.to_string())?;
    inbox = Vec::new();
    take(r.effects, &mut inbox);
    while let Some((ticket, lines)) = inbox.pop() {
        let outcome = if storage.append(&lines) { PersistOutcome::Committed } else { PersistOutcome::NotCommitted };
        s.ack(ticket, outcome).map_err(|e| e.to_string())?;
        take(s.take_effects(), &mut inbox);
    }
    give_history(&mut s, &storage)?;
    if s.snapshot().unwrap().log != storage.text() {
        return Err(format!("memory and storage differ after reconcile:\n{}\n---\n{}", s.snapshot().unwrap().log, storage.text()));
    }
    let status = s.persistence();
    if !status.pending.is_empty() || status.committed_through != storage.last() {
        return Err(format!("settled, yet {status:?}"));
    }
    // What storage holds opens from its last checkpoint to what a replay of it builds.
    let input: contextview::request::BuildInput = serde_json::from_value(json!({"provider": "openai-responses", "model": "gpt-5"})).unwrap();
    let text = storage.text();
    let plain: String = text.lines().filter(|l| !l.contains("\"kind\":\"checkpoint\"")).map(|l| format!("{l}\n")).collect();
    let (opened, replayed) = (Session::from_log(&text).build(&input).map(|b| b.body), Session::from_log(&plain).build(&input).map(|b| b.body));
    if opened != replayed {
        return Err(format!("storage opened from its checkpoint builds otherwise than replayed:\n{opened:?}\n---\n{replayed:?}"));
    }
    Ok(())
}

/// Runs the fault driver on `cases` random op lists (`every`: checkpoints by size too, and
/// what storage confirmed let go).
fn faults_hold(cases: u32, every: Option<u64>) {
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    runner
        .run(&proptest::collection::vec(op(), 1..60), |ops| {
            run_faults(&ops, every, every.is_some()).map_err(|e| TestCaseError::fail(format!("{e}\nops: {ops:?}")))?;
            Ok(())
        })
        .unwrap();
}

#[test]
fn faults_never_lose_an_acknowledged_record_and_reconcile_converges() {
    faults_hold(if cfg!(target_arch = "wasm32") { 100 } else { 1_000 }, None);
}

/// The same faults with a checkpoint every few records: checkpoints are records like any other
/// to storage, a restart opens from the last one stored, and a session that lets go of what
/// storage confirmed never claims, loses or rebuilds otherwise.
#[test]
fn faults_with_checkpoints_by_size_hold_the_same() {
    faults_hold(if cfg!(target_arch = "wasm32") { 50 } else { 500 }, Some(600));
}

#[test]
fn a_log_names_its_model_and_window_for_builds_that_do_not() {
    let mut s = working_session();
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-opus-4-1", "contextWindow": 500000}));
    let log = s.snapshot().unwrap().log;
    let build = |input: contextview::request::BuildInput| {
        let out = contextview::request::build_request(&contextview::request::BuildInput { log: Some(log.clone()), ..input }).unwrap();
        let model = serde_json::from_str::<Value>(&out.built.body).unwrap()["model"].as_str().unwrap_or_default().to_owned();
        (model, out.built.report.tokens.context.size)
    };
    use contextview::request::BuildInput;
    use contextview::Provider;
    assert_eq!(build(BuildInput::new(Provider::Anthropic)), ("claude-opus-4-1".to_owned(), 500000));
    let named = BuildInput { model: Some("claude-sonnet-4-5".into()), ..BuildInput::new(Provider::Anthropic) };
    assert_eq!(build(named), ("claude-sonnet-4-5".to_owned(), 200000), "another model: its own window, not the switch's");
    assert_eq!(build(BuildInput::new(Provider::OpenAiChat)).1, contextview::view::ledger::model_window("gpt-4.1").unwrap());
}

/// A pi session: three short exchanges, then the 52 KB output of a command the user ran.
fn pi_session_ending_with_a_large_output() -> String {
    pi_session_ending_with_an_output_of(1800)
}

/// The same, with an output of `output_lines` lines of 30 bytes.
fn pi_session_ending_with_an_output_of(output_lines: usize) -> String {
    let mut lines = vec![json!({"type": "session", "version": 3, "id": "big-output", "timestamp": "2026-12-01T10:00:00Z", "cwd": "/w"})];
    let mut parent = Value::Null;
    let mut push = |lines: &mut Vec<Value>, id: String, message: Value| {
        lines.push(json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-12-01T10:00:01Z", "message": message}));
        parent = json!(id);
    };
    for i in 1..=3 {
        push(&mut lines, format!("u{i}"), json!({"role": "user", "content": format!("Question {i}: what does module {i} do?")}));
        let answer = json!({"role": "assistant", "provider": "anthropic", "model": "claude-sonnet-4-5", "api": "anthropic-messages", "stopReason": "stop",
            "content": [{"type": "text", "text": format!("Answer {i}: module {i} parses the config.")}]});
        push(&mut lines, format!("a{i}"), answer);
    }
    let output: String = (0..output_lines).map(|n| format!("line {n:05} of the test log: ok\n")).collect();
    push(&mut lines, "b1".into(), json!({"role": "bashExecution", "command": "cargo test", "output": output, "exitCode": 0}));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The pi session with an output of `output_lines` lines, imported into a session on a
/// 200,000-token window, and a new prompt after it; then a compaction prepared with defaults.
fn compacting_after_an_output_of(output_lines: usize) -> (Session, Processed) {
    let text = pi_session_ending_with_an_output_of(output_lines);
    let mut s = Session::create(Header::new("big-output"));
    for record in contextview_import::import(None, &text).unwrap().records {
        s.append(record).unwrap();
    }
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}));
    ok(&mut s, json!({"type": "userMessage", "text": "Why did the test log print so much?"}));
    let p = ok(&mut s, json!({"type": "prepareCompaction"}));
    (s, p)
}

#[test]
fn a_compaction_after_a_large_output_keeps_the_latest_exchange() {
    assert!(pi_session_ending_with_a_large_output().len() > 50_000);
    // The default budget (12,000 tokens) holds the new prompt, not the output before it.
    let (mut s, p) = compacting_after_an_output_of(1800);
    assert!(matches!(p.reply, Some(Reply::Compaction(_))), "{p:?}");
    ok(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}));
    let after = body(&ok(&mut s, json!({"type": "buildRequest"})));
    for kept in ["Question 3: what does module 3 do?", "Answer 3: module 3 parses the config.", "line 01799 of the test log", "Why did the test log print so much?"] {
        assert!(after.contains(kept), "{kept} is kept verbatim");
    }
    assert!(!after.contains("Answer 2: module 2"), "what came before is the summary's");
}

#[test]
fn a_latest_exchange_too_large_to_keep_whole_keeps_its_outputs_head_and_tail() {
    // 600 KB of output: about 150,000 tokens, more than half of a 200,000-token window.
    let (mut s, p) = compacting_after_an_output_of(20_000);
    let Some(Reply::Compaction(prepared)) = p.reply else { panic!("{p:?}") };
    assert_eq!(prepared.trim_kept_over, Some(2_000), "the default trimming length");
    ok(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}));
    let Some(Reply::Built { body: after, report }) = ok(&mut s, json!({"type": "buildRequest"})).reply else { panic!("not built") };
    for kept in ["Question 3: what does module 3 do?", "Answer 3: module 3 parses the config.", "line 00000 of the test log", "line 19999 of the test log", "characters trimmed", "Why did the test log print so much?"] {
        assert!(after.contains(kept), "{kept} is in the request");
    }
    assert!(!after.contains("line 10000 of the test log"), "the middle of the output is left out");
    assert!(report.tokens.request < 100_000, "{} tokens", report.tokens.request);
    // The log still holds the whole output, and a fresh replay builds the same request.
    let mut fresh = Session::from_log(&s.snapshot().unwrap().log);
    assert_eq!(body(&ok(&mut fresh, json!({"type": "buildRequest"}))), *after);
    assert!(s.snapshot().unwrap().log.contains("line 10000 of the test log"));
}

#[test]
fn a_second_compaction_merges_the_first_summary() {
    let mut s = working_session();
    ok(&mut s, json!({"type": "assistantResponse", "text": "First fix done."}));
    ok(&mut s, json!({"type": "userMessage", "text": "Second task"}));
    compact(&mut s, 10);
    ok(&mut s, json!({"type": "assistantResponse", "text": "Second task done."}));
    ok(&mut s, json!({"type": "userMessage", "text": "Third task"}));
    // In place, the earlier summary is in the conversation the request repeats.
    let p = ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 10}}));
    let Some(Reply::Compaction(prepared)) = p.reply else { panic!() };
    assert!(prepared.prompt.contains("merge it into yours"));
    assert!(prepared.body.contains(r"<compaction_summary>\n## Goal\nFix the failing parser test"));
    // As a transcript, it is quoted for the merge.
    let p = ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 10, "build": {"model": "claude-haiku-4-5"}}}));
    let Some(Reply::Compaction(prepared)) = p.reply else { panic!() };
    assert!(prepared.prompt.contains("Merge it into yours"));
    assert!(prepared.prompt.contains("<compaction_summary>\n## Goal\nFix the failing parser test"), "the previous summary, raw");
    // The latest exchange stays verbatim, what came before it is summarised.
    assert!(prepared.prompt.contains("[assistant]\nFirst fix done."), "{}", prepared.prompt);
    assert!(!prepared.prompt.contains("Second task done."));
    assert!(!prepared.prompt.contains("[user]\nFix the failing test"), "what the first summary covers is not repeated");
    // A usage recorded apart from a response anchors the ledger.
    let p = ok(&mut s, json!({"type": "recordUsage", "usage": {"inputTokens": 4321, "outputTokens": 9}}));
    assert!(matches!(p.reply, Some(Reply::Accepted { .. })));
    let build = contextview::request::BuildInput::new(contextview::Provider::Anthropic);
    assert!(s.usage(&build).anchored);
}

#[test]
fn review_cases_bad_kinds_restores_in_the_queue_and_late_answers() {
    // A tool kind ACP does not know is refused before anything is written.
    let e = Command::from_value(json!({"type": "assistantResponse", "toolCalls": [{"id": "c", "name": "bash", "kind": "bash"}]})).unwrap_err();
    assert!(e.contains("bash"), "{e}");

    // A restore in the queue keeps what is queued behind it.
    let mut s = working_session();
    let snapshot = serde_json::to_value(s.snapshot().unwrap()).unwrap();
    let old_ticket = s.persistence().in_flight[0];
    s.submit(cmd(json!({"type": "restore", "snapshot": snapshot})), None);
    s.submit(cmd(json!({"type": "userMessage", "text": "after the restore"})), None);
    let done = s.process();
    assert_eq!(done.len(), 2);
    assert!(done[1].error.is_none());
    let (ticket, _) = persisted(&done[1]).remove(0);
    assert!(ticket > old_ticket, "tickets are never reused after a restore");
    // A late answer for a ticket of the old process settles nothing new.
    assert!(!s.ack(old_ticket, PersistOutcome::Committed).unwrap().applied);
    assert_eq!(s.persistence().committed_through, 0);

    // A snapshot that claims more than its log holds is refused.
    let mut bad = serde_json::to_value(s.snapshot().unwrap()).unwrap();
    bad["persistence"]["committedThrough"] = json!(999);
    assert_eq!(Session::restore(&serde_json::from_value(bad).unwrap()).unwrap_err().code(), "invalid_snapshot");
}

#[test]
fn a_build_with_a_given_count_does_not_freeze_the_ledger() {
    let mut s = working_session();
    ok(&mut s, json!({"type": "buildRequest", "options": {"contextTokens": 50000, "model": null}}));
    let p = ok(&mut s, json!({"type": "assistantResponse", "text": "more", "usage": {"inputTokens": 3000, "outputTokens": 10}}));
    let used: Vec<u64> = p.effects.iter().filter_map(|e| match e { Effect::Notify { notification } => notification["update"]["used"].as_u64(), _ => None }).collect();
    assert_eq!(used.len(), 1);
    assert!(used[0] < 50000 && used[0] >= 3010, "the ledger counts again: {used:?}");
}

#[test]
fn the_cut_never_parts_a_pending_call_from_its_result() {
    let mut s = working_session();
    ok(&mut s, json!({"type": "assistantResponse", "reasoning": {"text": "think ".repeat(4000), "signature": "sig"},
        "toolCalls": [{"id": "pending", "name": "read", "input": {}}]}));
    let p = ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 100}}));
    let Some(Reply::Compaction(prepared)) = p.reply else { panic!() };
    assert!(prepared.kept >= 2, "the last step is kept whole, over the budget");
    ok(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}));
    ok(&mut s, json!({"type": "toolResult", "toolCallId": "pending", "output": "done"}));
    let built: Value = serde_json::from_str(&body(&ok(&mut s, json!({"type": "buildRequest"})))).unwrap();
    let text = built.to_string();
    assert!(text.contains("\"tool_use\"") && text.contains("\"tool_result\""), "call and result stay together");
    assert!(!text.contains("Tool execution was"), "no synthetic result was needed");
}

#[test]
fn a_small_window_is_not_always_due() {
    let mut s = Session::create(Header::new("small"));
    let p = ok(&mut s, json!({"type": "switchModel", "provider": "openai-chat", "model": "tiny", "contextWindow": 8000}));
    assert!(!p.effects.iter().any(|e| matches!(e, Effect::CompactionDue { .. })));
    let p = ok(&mut s, json!({"type": "userMessage", "text": "hello"}));
    assert!(!p.effects.iter().any(|e| matches!(e, Effect::CompactionDue { .. })), "a short conversation fits an 8k window");
}

#[test]
fn a_rewind_past_a_model_switch_goes_back_to_the_earlier_model() {
    let mut s = working_session();
    ok(&mut s, json!({"type": "assistantResponse", "text": "ok"}));
    ok(&mut s, json!({"type": "userMessage", "text": "second"}));
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-opus-4-1", "contextWindow": 500000}));
    assert_eq!(s.state().model.as_deref(), Some("claude-opus-4-1"));
    ok(&mut s, json!({"type": "rewind", "promptIndex": 1}));
    assert_eq!(s.state().model.as_deref(), Some("claude-sonnet-4-5"), "as a replay of the log has it");
    ok(&mut s, json!({"type": "userMessage", "text": "again"}));
    let live = body(&ok(&mut s, json!({"type": "buildRequest"})));
    let mut fresh = Session::from_log(&s.snapshot().unwrap().log);
    assert_eq!(body(&ok(&mut fresh, json!({"type": "buildRequest"}))), live);
}

#[test]
fn a_snapshot_with_a_bad_template_is_refused() {
    let s = working_session();
    let mut snapshot = serde_json::to_value(s.snapshot().unwrap()).unwrap();
    snapshot["promptContext"]["templates"] = json!({"primary": "{{nope}}"});
    let e = Session::restore(&serde_json::from_value(snapshot).unwrap()).unwrap_err();
    assert_eq!(e.code(), "invalid_template");
}

#[test]
fn compaction_inside_a_long_run_keeps_its_latest_steps_and_summarises_its_beginning() {
    // One prompt, then 40 tool rounds: the cut falls inside the run, at a step boundary.
    let mut s = working_session();
    for i in 0..40 {
        ok(&mut s, json!({"type": "assistantResponse", "text": format!("Step {i}."), "toolCalls": [{"id": format!("s{i}"), "name": "bash", "input": {"n": i}}]}));
        ok(&mut s, json!({"type": "toolResult", "toolCallId": format!("s{i}"), "output": format!("output of step {i}\n").repeat(40)}));
    }
    let last_sent = body(&ok(&mut s, json!({"type": "buildRequest"})));
    // The current step is under way: its call has no result yet.
    ok(&mut s, json!({"type": "assistantResponse", "text": "Last step.", "toolCalls": [{"id": "now", "name": "bash", "input": {"n": 40}}]}));
    let p = ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 2_000}}));
    let Some(Reply::Compaction(prepared)) = p.reply else { panic!() };
    assert!(prepared.split_turn, "the cut is inside the run");
    assert!(prepared.kept >= 4 && prepared.summarised > 40, "kept {} summarised {}", prepared.kept, prepared.summarised);
    assert!(prepared.prompt.contains("The latest request is still in progress"), "{}", prepared.prompt);
    // It repeats the last request sent, whole, and adds the model's last turn and the instructions.
    assert_eq!(prepared.cached_bytes, last_sent.trim_end_matches(['}', ']']).len());
    ok(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}));
    ok(&mut s, json!({"type": "toolResult", "toolCallId": "now", "output": "done"}));
    let built = ok(&mut s, json!({"type": "buildRequest"}));
    let Some(Reply::Built { report, .. }) = &built.reply else { panic!() };
    // The rewrite is the compaction's, not pruning's.
    let prefix = report.prefix.unwrap();
    assert!(prefix.rewritten_bytes > 0);
    assert_eq!(prefix.cause, Some(contextview::view::RewriteCause::Compaction));
    assert_eq!(report.pruning.invalidated_bytes, 0);
    let after = body(&built);
    let request: Value = serde_json::from_str(&after).unwrap();
    let messages = request["messages"].as_array().unwrap();
    // The kept steps open with the model's own turn: a step boundary, never a lone result.
    let first_kept = messages.iter().position(|m| m["role"] == "assistant").unwrap();
    assert!(messages[first_kept]["content"].as_array().unwrap().iter().any(|b| b["type"] == "tool_use"));
    // The run's latest work, and the current step with its result, are all still there.
    assert!(after.contains("\"id\":\"s39\"") && after.contains("output of step 39"));
    assert!(after.contains("\"id\":\"now\"") && after.contains("\"content\":[{\"type\":\"text\",\"text\":\"done\"}]"));
    assert!(!after.contains("\"id\":\"s0\""), "the run's beginning is summarised");
    assert!(after.contains("The user's latest request, verbatim:\\nFix the failing test in parser.rs"));
    assert!(after.contains("<compaction_summary>\\n## Goal"));
}

#[test]
fn a_compaction_can_be_prepared_before_the_session_has_a_model() {
    // The options name the model that summarises; the session has not sampled yet.
    let mut s = Session::create(Header::new("no-model"));
    for i in 0..3 {
        ok(&mut s, json!({"type": "userMessage", "text": format!("step {i}")}));
        ok(&mut s, json!({"type": "assistantResponse", "text": format!("done {i}")}));
    }
    let p = ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 5, "build": {"provider": "openai-responses", "model": "gpt-5"}}}));
    let Some(Reply::Compaction(prepared)) = p.reply else { panic!() };
    assert_eq!(serde_json::from_str::<Value>(&prepared.body).unwrap()["model"], "gpt-5");
    ok(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}));
}

#[test]
fn every_effect_leaves_through_one_queue_in_the_order_it_arose() {
    let mut s = Session::create(Header::new("door"));
    for command in [json!({"type": "switchModel", "provider": "openai-chat", "model": "gpt-4o", "contextWindow": 128000}), json!({"type": "userMessage", "text": "hello"})] {
        let p = ok(&mut s, command);
        for (ticket, _) in persisted(&p) {
            s.ack(ticket, PersistOutcome::Committed).unwrap();
        }
    }
    // A build outside a command drains a reminder into the log; its record waits in the queue.
    assert!(s.enqueue_reminder(serde_json::from_value(json!({"kind": "diagnostics", "text": "a warning"})).unwrap()));
    s.build_body(&serde_json::from_value(json!({"provider": "openai-chat", "model": "gpt-4o"})).unwrap()).unwrap();
    let waiting = s.poll_effect().expect("the drained reminder is to be stored");
    let Effect::Persist { lines, .. } = &waiting else { panic!("{waiting:?}") };
    assert_eq!(lines.len(), 1);
    assert!(lines[0].contains("reminder_injected"), "{}", lines[0]);
    assert_eq!(s.poll_effect(), None, "handed out once");
    let Effect::Persist { ticket, .. } = waiting else { unreachable!() };
    s.ack(ticket, PersistOutcome::Committed).unwrap();
    // Left in the queue, a build's effects go out with the next command's, oldest first.
    assert!(s.enqueue_reminder(serde_json::from_value(json!({"kind": "diagnostics", "text": "another"})).unwrap()));
    s.build_body(&serde_json::from_value(json!({"provider": "openai-chat", "model": "gpt-4o"})).unwrap()).unwrap();
    let p = ok(&mut s, json!({"type": "userMessage", "text": "again"}));
    let stored: Vec<Vec<String>> = persisted(&p).into_iter().map(|(_, lines)| lines).collect();
    assert_eq!(stored.len(), 2, "{:?}", p.effects);
    assert!(stored[0].iter().all(|l| l.contains("reminder_injected")), "{stored:?}");
    assert!(stored[1].iter().all(|l| l.contains("user_message_chunk")), "{stored:?}");
    assert_eq!(s.take_effects(), vec![]);
}

#[test]
fn a_command_with_an_image_that_is_not_base64_writes_nothing() {
    let mut s = Session::create(Header::new("img"));
    let p = run(&mut s, json!({"type": "userMessage", "text": "look", "images": [{"data": "not base64!", "mimeType": "image/png"}]}));
    assert_eq!(p.error.as_ref().map(|e| e.code.as_str()), Some("invalid_record"), "{p:?}");
    assert_eq!(s.records().len(), 0);
    let p = ok(&mut s, json!({"type": "userMessage", "text": "look", "images": [{"data": "aGk=", "mimeType": "image/png"}]}));
    assert_eq!(persisted(&p)[0].1.len(), 3, "header, text and image");
}

/// The count the client hears between builds is the count of the request the session builds:
/// tools the prompt context does not allow are left out of both.
#[test]
fn the_usage_update_counts_only_the_tools_the_build_sends() {
    let mut s = Session::create(Header::new("t"));
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}));
    ok(&mut s, json!({"type": "setPromptContext", "context": context("/repo", &[])}));
    ok(&mut s, json!({"type": "userMessage", "text": "Fix the failing test in parser.rs"}));
    let long = "Runs a shell command in the workspace and returns what it printed. ".repeat(400);
    let tools = json!([
        {"name": "read", "description": "Reads a file.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
        {"name": "bash", "description": long, "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}}},
    ]);
    let Some(Reply::Built { body, .. }) = ok(&mut s, json!({"type": "buildRequest", "options": {"tools": tools}})).reply else { panic!("not built") };
    assert!(!body.contains("Runs a shell command"), "the prompt context allows read and edit only");
    let p = ok(&mut s, json!({"type": "assistantResponse", "text": "Looking."}));
    let heard: Vec<u64> = p
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Notify { notification } => notification["update"]["used"].as_u64(),
            _ => None,
        })
        .collect();
    let Some(Reply::Built { report, .. }) = ok(&mut s, json!({"type": "buildRequest", "options": {"tools": tools}})).reply else { panic!("not built") };
    assert_eq!(heard, vec![report.tokens.context.used]);
}

/// A build command writes what it drained and the tools it carried in one batch for storage:
/// one command, one persist ticket.
#[test]
fn a_build_command_hands_its_records_to_storage_once() {
    let mut s = Session::create(Header::new("t"));
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}));
    ok(&mut s, json!({"type": "userMessage", "text": "go"}));
    let queued = ok(&mut s, json!({"type": "enqueueReminder", "reminder": {"kind": "diagnostics", "text": "a.rs:1 unused"}}));
    assert_eq!(queued.reply, Some(Reply::Queued { queued: true }));
    assert_eq!(persisted(&queued), vec![], "a queued reminder writes nothing yet");
    let tools = json!([{"name": "read", "description": "Reads a file.", "inputSchema": {"type": "object"}}]);
    let built = ok(&mut s, json!({"type": "buildRequest", "options": {"tools": tools}}));
    let batches = persisted(&built);
    assert_eq!(batches.len(), 1, "{batches:?}");
    let records: Vec<Value> = batches[0].1.iter().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|v| v.get("seq").is_some()).collect();
    let kinds: Vec<&str> = records.iter().map(|v| v["event"]["kind"].as_str().unwrap_or("?")).collect();
    assert_eq!(kinds, ["reminder_injected", "tools_defined"]);
}
/// Found by the fault driver: records let go through a point before a rewind, the prompts a
/// checkpoint after the rewind counted were folded from the records held alone.
#[test]
fn a_rewind_held_keeps_the_records_before_it_from_being_let_go() {
    use Op::*;
    let ops = [Command(4), Command(8), Command(0), Command(2), Command(2), Command(0), Command(0), Command(8), Deliver(1, Fault::Ok), Command(7), Command(0), Reconcile, Deliver(0, Fault::Ok), Command(0), Deliver(0, Fault::LostAck), Restart, Command(8)];
    run_faults(&ops, Some(600), true).unwrap();
}
