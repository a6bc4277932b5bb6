//! Checkpoints: a session opened from any checkpoint builds, byte for byte, the requests a full
//! replay builds — for every API, at every cut point of a long generated session with pruning,
//! images, compactions, a model switch, provider answers and a rewind across a compaction —
//! and goes on the same after it; deleting every checkpoint changes no build; what the session
//! holds after opening is the tail, not the history.

use contextview::request::BuildInput;
use contextview::session::{Effect, Need, PersistOutcome, Processed, Reply, Session};
use contextview::update::{parse_log, Header, RecordBody};
use contextview::Provider;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const NOW: &str = "2026-12-05T09:00:00Z";
const SUMMARY: &str = "## Goal\nMake the parser accept trailing commas.\n## Constraints\nKeep the public API.\n## Progress\n### Done\nRead the parser.\n### In progress\nThe fix.\n### Blocked\nNone\n## Decisions\nNone\n## Next steps\nRun the tests.\n## Files\nsrc/parser.rs (read)\n## Pending actions\nNone";
/// A small picture's bytes, base64 (the session only checks the encoding).
const IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn ok(s: &mut Session, command: Value) -> Reply {
    run(s, command, None)
}

/// Runs a command; with `storage`, its records are stored there (the log's text) and each
/// persist ticket acknowledged as committed, the way a host with storage does — and what the
/// command waits for (the history the session let go, the records of results it let go) is read
/// from storage and given, which runs it.
fn run(s: &mut Session, command: Value, storage: Option<&mut String>) -> Reply {
    let mut p = s.dispatch(serde_json::from_value(command.clone()).unwrap(), Some(NOW.into())).unwrap();
    let mut effects = std::mem::take(&mut p.effects);
    effects.extend(s.take_effects());
    let mut storage = storage;
    while !effects.is_empty() {
        for effect in std::mem::take(&mut effects) {
            let resumed = match (effect, storage.as_deref_mut()) {
                (Effect::Persist { ticket, lines }, Some(storage)) => {
                    for line in lines {
                        storage.push_str(&line);
                        storage.push('\n');
                    }
                    s.ack(ticket, PersistOutcome::Committed).unwrap();
                    None
                }
                (Effect::ReadHistory { .. }, Some(storage)) => give_history(s, storage),
                (Effect::ReadRecords { .. }, Some(storage)) => give_records(s, storage),
                (effect @ (Effect::ReadHistory { .. } | Effect::ReadRecords { .. }), None) => panic!("asked without storage: {effect:?}"),
                _ => None,
            };
            if let Some(mut resumed) = resumed {
                effects.append(&mut resumed.effects);
                p = resumed;
            }
        }
    }
    assert!(p.waiting.is_none(), "still waits: {:?}", p.waiting);
    assert!(p.error.is_none(), "{}: {:?}", &command.to_string()[..200.min(command.to_string().len())], p.error);
    let reply = p.reply.unwrap_or(Reply::Unchanged);
    REPLIES.with(|r| r.borrow_mut().as_mut().map(|v| v.push(serde_json::to_string(&reply).unwrap())));
    reply
}

thread_local! {
    /// The replies of the commands `run` runs, while the oracle records them.
    static REPLIES: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// What a storage's `loadRecords(seqs)` reads: the lines of the records the session names.
fn give_records(s: &mut Session, storage: &str) -> Option<Processed> {
    let seqs = s.needed_records().to_vec();
    let lines: String = storage.lines().skip(1).filter(|l| parse_log(l).records.first().is_some_and(|r| seqs.contains(&r.seq))).map(|l| format!("{l}\n")).collect();
    s.provide_records(&lines).unwrap()
}

/// What a storage's `loadHistory(through)` reads: the records after the header through the
/// `seq` the session names.
fn give_history(s: &mut Session, storage: &str) -> Option<Processed> {
    let through = s.history_through()?;
    let lines: String = storage.lines().skip(1).filter(|l| parse_log(l).records.first().is_some_and(|r| r.seq <= through)).map(|l| format!("{l}\n")).collect();
    s.provide_history(lines).unwrap()
}

/// An OpenAI Chat answer with one tool call, as the provider sends it.
fn chat_answer(call: &str) -> String {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": "Reading it.",
            "tool_calls": [{"id": call, "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"src/lib.rs\"}"}}]}}],
        "usage": {"prompt_tokens": 2100, "completion_tokens": 30, "total_tokens": 2130}
    })
    .to_string()
}

/// A long session: many tool rounds with large outputs (pruned), images (evicted), two
/// compactions, a model switch, provider answers, and a rewind across the first compaction.
/// Checkpoints every `every` bytes besides those after compactions.
fn generated(every: Option<u64>) -> Session {
    generated_into(every, None)
}

/// [`generated`], its records stored in `storage` as they are written (see [`run`]).
fn generated_into(every: Option<u64>, mut storage: Option<&mut String>) -> Session {
    let mut s = Session::create(Header::new("long"));
    s.set_checkpoint_every(every);
    s.set_release_stored(storage.is_some());
    let mut ok = |s: &mut Session, command: Value| run(s, command, storage.as_deref_mut());
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 24000}));
    let tools = json!([{"name": "read", "description": "Reads a file.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]);
    for round in 0..48u32 {
        if round % 8 == 0 {
            let images = if round % 16 == 0 { json!([{"data": IMAGE, "mimeType": "image/png"}]) } else { json!([]) };
            ok(&mut s, json!({"type": "userMessage", "text": format!("Task {round}: fix the parser."), "images": images}));
        }
        let call = format!("c{round}");
        if round == 26 {
            ok(&mut s, json!({"type": "switchModel", "provider": "openai-chat", "model": "gpt-4.1", "contextWindow": 30000}));
        }
        if round >= 26 && round % 3 == 0 {
            ok(&mut s, json!({"type": "providerAnswer", "provider": "openai-chat", "body": chat_answer(&call)}));
        } else {
            ok(&mut s, json!({"type": "assistantResponse", "text": format!("Step {round}."), "reasoning": {"text": "Look first.", "signature": "sig"},
                "toolCalls": [{"id": call, "name": "read", "input": {"path": format!("src/f{round}.rs")}}],
                "usage": {"inputTokens": 1000 + 300 * round as u64, "outputTokens": 40}}));
        }
        let output = format!("fn f{round}() {{}}\n{}", "let value = compute(input);\n".repeat(60 + (round as usize % 5) * 40));
        let images = if round % 5 == 2 { json!([{"data": IMAGE, "mimeType": "image/png"}]) } else { json!([]) };
        ok(&mut s, json!({"type": "toolResult", "toolCallId": call, "output": output, "images": images}));
        if round % 7 == 3 {
            ok(&mut s, json!({"type": "enqueueReminder", "reminder": {"kind": "diagnostics", "text": format!("src/f{round}.rs:1 unused")}}));
        }
        ok(&mut s, json!({"type": "buildRequest", "options": {"tools": tools}}));
        if round == 14 || round == 36 {
            ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 3000}}));
            ok(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY, "usage": {"inputTokens": 900, "outputTokens": 120}}));
        }
        if round == 40 {
            // Back to before the third prompt: across the second compaction.
            ok(&mut s, json!({"type": "rewind", "promptIndex": 2}));
        }
    }
    s
}

fn log_of(s: &Session) -> String {
    s.snapshot().unwrap().log
}

/// The log without its checkpoint lines.
fn without_checkpoints(log: &str) -> String {
    log.lines().filter(|l| !l.contains("\"kind\":\"checkpoint\"")).map(|l| format!("{l}\n")).collect()
}

/// The log's header and its first `n` records.
fn cut(log: &str, n: usize) -> String {
    log.lines().take(n + 1).map(|l| format!("{l}\n")).collect()
}

const APIS: [Provider; 4] = [Provider::Anthropic, Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Gemini];

fn bodies(s: &mut Session) -> Vec<String> {
    APIS.iter()
        .map(|&provider| {
            let input = BuildInput { context_window: Some(24000), ..BuildInput::new(provider) };
            let usage = s.usage(&input);
            match s.build(&input) {
                Ok(built) => format!("{} {}", usage.used, built.body),
                Err(e) => format!("{} {e}", usage.used),
            }
        })
        .collect()
}

fn checkpoints_in(log: &str) -> usize {
    parse_log(log).records.iter().filter(|r| r.body.is_checkpoint()).count()
}

#[test]
fn every_cut_point_opens_from_its_last_checkpoint_to_the_same_requests() {
    let log = log_of(&generated(Some(6_000)));
    // Every 6,000 bytes written (or the last checkpoint's size, if larger), after each of two
    // compactions and after the rewind; records sent again to storage are not counted again.
    let written = without_checkpoints(&log).len();
    assert!(checkpoints_in(&log) >= 10, "the generated log has checkpoints all through it: {}", checkpoints_in(&log));
    assert!(checkpoints_in(&log) <= written / 6_000 + 3, "{} checkpoints for {written} bytes", checkpoints_in(&log));
    let records = log.lines().count() - 1;
    let mut opened_from_checkpoints = 0;
    // Every cut natively; every third in wasm, where the suite runs unoptimised twice over.
    for n in (1..=records).step_by(if cfg!(target_arch = "wasm32") { 3 } else { 1 }) {
        let with = cut(&log, n);
        let plain = without_checkpoints(&with);
        let mut from_checkpoint = Session::from_log(&with);
        let mut replayed = Session::from_log(&plain);
        assert_eq!(from_checkpoint.record_count(), replayed.record_count() + checkpoints_in(&with), "cut {n}");
        opened_from_checkpoints += usize::from(from_checkpoint.records().len() < from_checkpoint.record_count());
        assert_eq!(bodies(&mut from_checkpoint), bodies(&mut replayed), "cut {n}");
        assert_eq!(from_checkpoint.state().prompts, replayed.state().prompts, "cut {n}");
    }
    let cuts = records.div_ceil(if cfg!(target_arch = "wasm32") { 3 } else { 1 });
    assert!(opened_from_checkpoints > cuts / 2, "{opened_from_checkpoints} of {cuts} cuts opened from a checkpoint");
}

/// After opening from a checkpoint the session goes on as the replayed one does: commands, a
/// compaction (merging the summary the history holds), and a rewind that reads the history back.
#[test]
fn a_session_opened_from_a_checkpoint_goes_on_like_a_replayed_one() {
    let log = log_of(&generated(Some(6_000)));
    let mut from_checkpoint = Session::from_log(&log);
    let mut replayed = Session::from_log(&without_checkpoints(&log));
    assert!(from_checkpoint.records().len() < from_checkpoint.record_count() / 4, "the history stays text");
    for s in [&mut from_checkpoint, &mut replayed] {
        s.set_checkpoint_every(None);
        ok(s, json!({"type": "userMessage", "text": "Now the lexer."}));
        ok(s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 2000}}));
        ok(s, json!({"type": "applyCompaction", "summary": SUMMARY}));
    }
    assert_eq!(bodies(&mut from_checkpoint), bodies(&mut replayed));
    for s in [&mut from_checkpoint, &mut replayed] {
        ok(s, json!({"type": "rewind", "promptIndex": 2}));
    }
    assert_eq!(bodies(&mut from_checkpoint), bodies(&mut replayed));
    assert_eq!(from_checkpoint.state().prompts, replayed.state().prompts);
    // The same records (but for the seqs the checkpoints took, and the ids made of them).
    let bodies_of = |s: &Session| {
        parse_log(&log_of(s)).records.iter().filter(|r| !r.body.is_checkpoint()).map(|r| r.body.kind().to_owned()).collect::<Vec<_>>()
    };
    assert_eq!(bodies_of(&from_checkpoint), bodies_of(&replayed));
}

/// Checkpoints are derived: a session writing them and one that writes none build the same
/// requests, and their logs differ by the checkpoint lines alone.
#[test]
fn deleting_every_checkpoint_changes_no_build() {
    let mut with = generated(Some(6_000));
    let mut after_compactions = generated(None);
    let log = log_of(&with);
    assert_eq!(checkpoints_in(&log_of(&after_compactions)), 3, "one after each compaction and after the rewind");
    assert_eq!(bodies(&mut with), bodies(&mut after_compactions));
    let mut stripped = Session::from_log(&without_checkpoints(&log));
    assert_eq!(bodies(&mut Session::from_log(&log)), bodies(&mut stripped));
    assert_eq!(
        Session::from_log(&log).replay().unwrap().view,
        stripped.replay().unwrap().view,
        "the client's view of the history holds no checkpoint"
    );
}

/// Opened from its last checkpoint, a session holds the records after it and the items the
/// view reaches: nothing from before the last compaction.
#[test]
fn the_history_before_the_last_checkpoint_is_not_held() {
    let log = log_of(&generated(None));
    let s = Session::from_log(&log);
    let last_checkpoint = parse_log(&log).records.iter().rev().find(|r| r.body.is_checkpoint()).unwrap().seq;
    assert!(s.records().iter().all(|r| r.seq >= last_checkpoint), "only the tail is held as records");
    // The first task's text is in the history only: it is in no item and no held record.
    let mut s = s;
    let held = serde_json::to_string(&s.items()).unwrap()
        + &s.records().iter().filter(|r| !r.body.is_checkpoint()).map(|r| r.to_line()).collect::<String>();
    assert!(s.records().iter().filter(|r| r.body.is_checkpoint()).count() <= 1, "the last checkpoint alone");
    assert!(log.contains("Task 0: fix the parser.") && !held.contains("Task 0: fix the parser."));
    assert!(!held.contains("fn f3()"), "a tool output from before the compactions is not held");
    // Reading the whole history back (the client's full view) does not make it resident.
    assert!(serde_json::to_string(&s.replay().unwrap().view).unwrap().contains("Task 0: fix the parser."));
    assert!(s.records().iter().all(|r| r.seq >= last_checkpoint));
    assert!(matches!(s.records().first().map(|r| &r.body), Some(RecordBody::Event(_))));
}

/// A host that keeps the history (a JS string, storage) opens from the tail alone: a command
/// that needs the whole history waits for it — its read effect says what to give, `state()`
/// says what it waits for, nothing else runs before it and nothing is written — until the host
/// gives it; then the command runs once and the session goes on exactly as one opened whole.
/// What is not that history is refused whole, an answer given twice is refused, and a command
/// whose history never comes is given up with its own code.
#[test]
fn a_session_opened_from_its_tail_asks_for_the_history_it_lacks() {
    use contextview::session::open::split;
    use contextview::session::{AppendError, SessionError, Waiting};
    let log = log_of(&generated(None));
    let at = split(&log.as_str()).expect("the log has a checkpoint");
    let (head, history, tail) = (&log[..at.history_start], &log[at.history_start..at.tail_start], &log[at.tail_start..]);
    let mut whole = Session::from_log(&log);
    let mut s = Session::from_tail(head, tail, None).expect("opens from its checkpoint");
    assert!(s.needs_history() && !whole.needs_history());
    assert_eq!(s.record_count(), whole.record_count());
    assert_eq!(s.state().prompts, whole.state().prompts, "the prompts came with the checkpoint");
    assert_eq!(bodies(&mut s), bodies(&mut whole));
    let records = s.record_count();
    let through = s.history_through().expect("the history is with the host");
    assert_eq!(through, parse_log(history).records.last().unwrap().seq);
    assert!(matches!(s.snapshot(), Err(SessionError::HistoryNeeded)));
    assert!(matches!(s.replay(), Err(SessionError::HistoryNeeded)));
    let rewind = || serde_json::from_value(json!({"type": "rewind", "promptIndex": 1})).unwrap();
    let waits = s.dispatch(rewind(), Some(NOW.into())).unwrap();
    let need = Need::History { through };
    assert_eq!(
        waits,
        Processed { id: 1, command: "rewind".into(), reply: None, error: None, waiting: Some(need.clone()), effects: vec![Effect::ReadHistory { command: 1, through }] }
    );
    assert_eq!(s.state().waiting, Some(Waiting { command: 1, kind: "rewind".into(), need: need.clone() }));
    // Nothing runs before it: dispatch is refused, a queued command stays queued.
    let refused = s.dispatch(serde_json::from_value(json!({"type": "flush"})).unwrap(), Some(NOW.into())).unwrap_err();
    assert_eq!(refused.code(), "command_waiting");
    s.submit(serde_json::from_value(json!({"type": "recordEditedPath", "path": "/later"})).unwrap(), Some(NOW.into()));
    assert_eq!(s.process(), Vec::new());
    assert_eq!(s.state().queued_commands, 1);
    let next = s.record_count() as u64 + 1;
    let rewind_line = json!({"seq": next + 5, "ts": NOW, "event": {"kind": "rewind", "promptIndex": 0}}).to_string();
    assert_eq!(s.append_line(&rewind_line), Err(AppendError::HistoryNeeded));
    assert_eq!(s.record_count(), records, "nothing was written");
    // What is not that history is refused whole, and nothing changes: a torn read, a short one,
    // another session's.
    let torn = &history[..history.len() - 40];
    let short: String = history.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let other = without_checkpoints(&log_of(&generated(Some(6_000))));
    let other = other.split_once('\n').unwrap().1;
    for given in [torn, short.as_str(), other] {
        let refused = s.provide_history(given.to_owned());
        assert!(matches!(refused, Err(SessionError::HistoryMismatch(_))), "{refused:?}");
        assert!(s.needs_history());
        assert_eq!(refused.unwrap_err().code(), "history_mismatch");
        assert_eq!(s.state().waiting.map(|w| w.need), Some(need.clone()), "still waits");
    }
    assert_eq!(s.record_count(), records);
    // Records it did not ask for are refused.
    assert_eq!(s.provide_records(tail).map_err(|e| e.code()), Err("not_asked"));
    // The answer runs the rewind, once; the queued command is free to run after it.
    let ran = s.provide_history(history.to_owned()).unwrap().expect("the waiting rewind ran");
    assert_eq!((ran.id, ran.command.as_str(), &ran.error, &ran.waiting), (1, "rewind", &None, &None));
    assert!(matches!(ran.reply, Some(Reply::Accepted { ref seqs }) if seqs.len() == 1), "{:?}", ran.reply);
    assert!(!s.needs_history() && s.state().waiting.is_none());
    assert_eq!(s.provide_history(history.to_owned()).map_err(|e| e.code()), Err("not_asked"), "answered twice");
    assert_eq!(s.process().len(), 1);
    ok(&mut whole, json!({"type": "rewind", "promptIndex": 1}));
    ok(&mut whole, json!({"type": "recordEditedPath", "path": "/later"}));
    assert_eq!(bodies(&mut s), bodies(&mut whole));
    assert_eq!(s.snapshot().unwrap().log, whole.snapshot().unwrap().log);

    // A command whose history never comes is given up: it ends with its own code, having
    // written nothing, and the session takes commands again.
    let mut s = Session::from_tail(head, tail, None).unwrap();
    let snapshot = serde_json::from_value(json!({"type": "snapshot"})).unwrap();
    assert_eq!(s.dispatch(snapshot, Some(NOW.into())).unwrap().waiting, Some(need));
    let given_up = s.abandon().expect("a command waited");
    assert_eq!((given_up.command.as_str(), given_up.error.map(|e| e.code)), ("snapshot", Some("records_unavailable".to_owned())));
    assert_eq!((s.abandon(), s.state().waiting, s.record_count()), (None, None, records));
    assert!(s.dispatch(serde_json::from_value(json!({"type": "flush"})).unwrap(), None).unwrap().error.is_none());
}

/// Reconciling with storage takes the history from storage's own text.
#[test]
fn a_session_opened_from_its_tail_reconciles_with_the_whole_log() {
    use contextview::session::open::split;
    let log = log_of(&generated(None));
    let at = split(&log.as_str()).unwrap();
    let mut s = Session::from_tail(&log[..at.history_start], &log[at.tail_start..], None).unwrap();
    let reconciled = s.reconcile(&log).unwrap();
    assert_eq!((reconciled.adopted, reconciled.resent, reconciled.dropped.len()), (0, 0, 0));
    assert!(!s.needs_history());
    assert_eq!(s.snapshot().unwrap().log, log);
}

/// A log without checkpoints (an import, an older log) opens by replay and is given one with
/// the first command once it is long enough; the next open starts from it.
#[test]
fn a_long_log_without_checkpoints_is_given_one() {
    let plain = without_checkpoints(&log_of(&generated(None)));
    let mut s = Session::from_log(&plain);
    assert_eq!(s.records().len(), s.record_count(), "opened whole");
    s.set_checkpoint_every(Some((plain.len() / 2) as u64));
    ok(&mut s, json!({"type": "userMessage", "text": "Go on."}));
    let log = log_of(&s);
    assert_eq!(checkpoints_in(&log), 1);
    let reopened = Session::from_log(&log);
    assert!(reopened.records().len() <= 2, "the checkpoint and the record after it: {}", reopened.records().len());
    assert_eq!(bodies(&mut Session::from_log(&log)), bodies(&mut s));
}

/// A host gives a log opened by replay its checkpoint: it comes back to store, and the next
/// open starts there.
#[test]
fn a_checkpoint_written_on_demand_is_handed_to_storage() {
    use contextview::session::Effect;
    let plain = without_checkpoints(&log_of(&generated(None)));
    let mut s = Session::from_log(&plain);
    let seq = s.checkpoint().expect("records to cover");
    assert_eq!(s.checkpoint(), None, "the last record is a checkpoint already");
    let effects = s.take_effects();
    let [Effect::Persist { lines, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    assert_eq!(lines.len(), 1);
    let stored: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!((stored["seq"].as_u64(), stored["event"]["kind"].as_str()), (Some(seq), Some("checkpoint")));
    let stored = format!("{plain}{}\n", lines[0]);
    let mut reopened = Session::from_log(&stored);
    assert_eq!(reopened.records().len(), 1, "the checkpoint alone is held");
    assert_eq!(bodies(&mut reopened), bodies(&mut s));
}

/// A running session whose host stores its records and reads them back lets go of what
/// storage confirmed: it builds what a session opened from its log builds, holds none of the
/// history before the last compaction, and what needs the history reads it back.
#[test]
fn a_running_session_lets_go_of_the_stored_history() {
    use contextview::session::SessionError;
    let mut storage = String::new();
    let mut s = generated_into(None, Some(&mut storage));
    let whole = generated(None);
    assert_eq!(storage, log_of(&whole), "storage holds what a session that lets nothing go writes");
    let mut opened = Session::from_log(&storage);
    // Held: the last record alone (its seq and time go on); storage confirmed every one.
    assert_eq!(s.records(), &parse_log(&storage).records[opened.record_count() - 1..]);
    assert_eq!((s.record_count(), s.needs_history()), (opened.record_count(), true));
    let held = serde_json::to_string(&s.items()).unwrap()
        + &s.records().iter().filter(|r| !r.body.is_checkpoint()).map(|r| r.to_line()).collect::<String>();
    assert!(storage.contains("Task 0: fix the parser.") && !held.contains("Task 0: fix the parser."));
    assert!(!held.contains("fn f3()"), "a tool output from before the compactions is not held");
    assert_eq!(bodies(&mut s), bodies(&mut opened));
    assert_eq!(s.state().prompts, opened.state().prompts);
    // What needs the whole history asks for it, and goes on once given.
    assert!(matches!(s.snapshot(), Err(SessionError::HistoryNeeded)));
    give_history(&mut s, &storage);
    assert_eq!(s.snapshot().unwrap().log, storage);
    let mut opened = Session::from_log(&storage);
    give_history(&mut opened, &storage);
    for session in [&mut s, &mut opened] {
        ok(session, json!({"type": "rewind", "promptIndex": 1}));
        ok(session, json!({"type": "userMessage", "text": "Start over."}));
    }
    assert_eq!(bodies(&mut s), bodies(&mut opened));
}

/// Nothing is let go that storage has not confirmed, nor when the host did not ask.
#[test]
fn records_storage_has_not_confirmed_are_held() {
    use contextview::session::{Effect, PersistOutcome};
    // Not asked: everything is held.
    let s = generated(None);
    assert_eq!(s.records().len(), s.record_count());
    // Asked, but the checkpoint's batch is refused, then in flight: held; once committed, let go.
    let mut storage = String::new();
    let mut s = generated_into(None, Some(&mut storage));
    let held = s.records().len();
    ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 2000}}));
    let p = s.dispatch(serde_json::from_value(json!({"type": "applyCompaction", "summary": SUMMARY})).unwrap(), Some(NOW.into())).unwrap();
    let tickets: Vec<u64> = p.effects.iter().chain(&s.take_effects()).filter_map(|e| match e {
        Effect::Persist { ticket, .. } => Some(*ticket),
        _ => None,
    }).collect();
    // Every record above what storage confirmed is held.
    let unconfirmed_held = |s: &Session| {
        let committed = s.persistence().committed_through;
        let last = s.records().last().unwrap().seq;
        let held: Vec<u64> = s.records().iter().map(|r| r.seq).filter(|&seq| seq > committed).collect();
        assert!(last > committed + 1, "the compaction and its checkpoint are not stored yet");
        assert_eq!(held, (committed + 1..=last).collect::<Vec<_>>());
    };
    assert!(s.records().len() > held, "the compaction and its checkpoint were written");
    unconfirmed_held(&s);
    for ticket in &tickets {
        s.ack(*ticket, PersistOutcome::NotCommitted).unwrap();
    }
    unconfirmed_held(&s);
    let before = s.records().len();
    let p = s.dispatch(serde_json::from_value(json!({"type": "flush"})).unwrap(), Some(NOW.into())).unwrap();
    let resent: Vec<(u64, Vec<String>)> = p.effects.into_iter().chain(s.take_effects()).filter_map(|e| match e {
        Effect::Persist { ticket, lines } => Some((ticket, lines)),
        _ => None,
    }).collect();
    assert_eq!(resent.len(), 1);
    assert_eq!(s.records().len(), before, "in flight: held");
    unconfirmed_held(&s);
    s.ack(resent[0].0, PersistOutcome::Indeterminate).unwrap();
    assert_eq!(s.records().len(), before, "maybe stored: held");
    unconfirmed_held(&s);
    for line in &resent[0].1 {
        storage.push_str(line);
        storage.push('\n');
    }
    s.reconcile(&storage).unwrap();
    let p = s.dispatch(serde_json::from_value(json!({"type": "userMessage", "text": "Go on."})).unwrap(), Some(NOW.into())).unwrap();
    for effect in p.effects.into_iter().chain(s.take_effects()) {
        if let Effect::Persist { ticket, lines } = effect {
            for line in lines {
                storage.push_str(&line);
                storage.push('\n');
            }
            s.ack(ticket, PersistOutcome::Committed).unwrap();
        }
    }
    let mut opened = Session::from_log(&storage);
    assert_eq!(s.records().len(), 1, "let go once storage confirmed it, all but the last record");
    assert_eq!(bodies(&mut s), bodies(&mut opened));
}

/// A build after a compaction says the compaction rewrote its request, though its records were
/// let go before the build.
#[test]
fn a_rewrite_is_explained_by_records_let_go_before_the_build() {
    use contextview::view::RewriteCause;
    let mut storage = String::new();
    let mut s = Session::create(Header::new("cause"));
    s.set_release_stored(true);
    run(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 24000}), Some(&mut storage));
    let input = BuildInput { context_window: Some(24000), ..BuildInput::new(Provider::Anthropic) };
    for round in 0..6 {
        run(&mut s, json!({"type": "userMessage", "text": format!("Task {round}.")}), Some(&mut storage));
        run(&mut s, json!({"type": "assistantResponse", "text": "Done.", "usage": {"inputTokens": 100, "outputTokens": 4}}), Some(&mut storage));
        s.build(&input).unwrap();
    }
    run(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 20}}), Some(&mut storage));
    run(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}), Some(&mut storage));
    run(&mut s, json!({"type": "userMessage", "text": "Go on."}), Some(&mut storage));
    assert!(!s.records().iter().any(|r| r.body.kind() == "compaction_checkpoint"), "the compaction was let go");
    let report = s.build(&input).unwrap().report;
    assert_eq!(report.prefix.and_then(|p| p.cause), Some(RewriteCause::Compaction));
}

/// One prompt and many tool rounds of 6,000-character outputs (some with a picture) in a 30k
/// window — pruning trims,
/// then clears, the old ones — a compaction at round 40 (after which pruning stops until the
/// context grows again: the results it keeps go back whole), and twenty more rounds. Each
/// output holds `MIDDLE-<round>` in its middle, which a trimmed result leaves out.
fn pruned_into(storage: Option<&mut String>) -> Session {
    let mut s = Session::create(Header::new("pruned"));
    s.set_release_stored(storage.is_some());
    let mut storage = storage;
    let mut ok = |s: &mut Session, command: Value| run(s, command, storage.as_deref_mut());
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 30000}));
    ok(&mut s, json!({"type": "userMessage", "text": "Port every module to the new lexer."}));
    for round in 0..60u32 {
        let call = format!("c{round}");
        ok(&mut s, json!({"type": "assistantResponse", "text": format!("Module {round}."),
            "toolCalls": [{"id": call, "name": "read", "input": {"path": format!("src/m{round}.rs")}}],
            "usage": {"inputTokens": 2000 + 1500 * (round as u64 % 40), "outputTokens": 30}}));
        let half = "let token = lexer.next()?;\n".repeat(110);
        // Every seventh with a picture: cleared, its image goes with its text; never trimmed.
        let images = if round % 7 == 3 { json!([{"data": IMAGE, "mimeType": "image/png"}]) } else { json!([]) };
        ok(&mut s, json!({"type": "toolResult", "toolCallId": call, "output": format!("// m{round}\n{half}MIDDLE-{round}\n{half}"), "images": images}));
        ok(&mut s, json!({"type": "buildRequest", "options": {}}));
        if round == 40 {
            ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 8000}}));
            ok(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}));
            ok(&mut s, json!({"type": "buildRequest", "options": {}}));
        }
    }
    s
}

fn pruned_bodies(s: &mut Session, pruning: Value) -> Vec<String> {
    read_bodies(s, pruning, None)
}

/// [`pruned_bodies`], reading back from `log` what a build asks for.
fn read_bodies(s: &mut Session, pruning: Value, log: Option<&str>) -> Vec<String> {
    APIS.iter()
        .map(|&provider| {
            let input: BuildInput = serde_json::from_value(json!({"provider": provider, "pruning": pruning})).unwrap();
            let mut built = s.build(&input);
            if let (Err(e), Some(log)) = (&built, log) {
                if e.code() == "history_needed" {
                    give_records(s, log);
                    built = s.build(&input);
                }
            }
            match built {
                Ok(built) => built.body,
                Err(e) => format!("{} {e}", e.code()),
            }
        })
        .collect()
}

/// A session that lets go of what storage holds lets go of the text of the results its requests
/// clear or trim too: it builds what a session holding everything builds, request by request
/// (through a compaction that sends results whole again, read back from storage), and holds
/// none of that text — nor does a session opened from its checkpoints, which build the same.
#[test]
fn results_the_view_clears_or_trims_are_let_go_and_read_back() {
    use contextview::conversation::Item;
    let mut storage = String::new();
    let mut s = pruned_into(Some(&mut storage));
    let mut whole = pruned_into(None);
    assert_eq!(without_checkpoints(&storage), without_checkpoints(&log_of(&whole)), "the same records");
    let report = whole.build(&serde_json::from_value(json!({"provider": "anthropic"})).unwrap()).unwrap().report;
    let (cleared, trimmed) = (report.pruning.cleared_ids().to_vec(), report.pruning.trimmed_ids().to_vec());
    assert!(cleared.len() >= 5, "cleared {cleared:?}, trimmed {trimmed:?}");
    let pictured = |s: &mut Session| s.items().iter().filter(|i| matches!(i, Item::ToolResult(r) if r.released.as_ref().is_some_and(|r| r.images))).count();
    assert!(pictured(&mut s) >= 1, "a cleared result's picture is let go too");
    // Held: no cleared or trimmed result's middle, in the items or the records.
    let not_held = |s: &mut Session, ids: &[String]| {
        let held = serde_json::to_string(&s.items()).unwrap() + &s.records().iter().map(|r| r.to_line()).collect::<String>();
        for id in ids {
            let round: u32 = id.trim_start_matches("result:c").parse().unwrap();
            assert!(!held.contains(&format!("MIDDLE-{round}\\n")), "{id}'s text is resident");
        }
    };
    not_held(&mut s, &[cleared.clone(), trimmed.clone()].concat());
    let kept = s.items().iter().filter(|i| matches!(i, Item::ToolResult(r) if r.released.is_none())).count();
    assert!(kept >= 1, "the latest results stay whole");
    assert_eq!(read_bodies(&mut s, json!({}), Some(&storage)), pruned_bodies(&mut whole, json!({})));
    // A checkpoint now carries the results let go as they are held: smaller than a whole one.
    // (Built for the session's own model last: what its request clears is what is let go.)
    s.build(&serde_json::from_value(json!({"provider": "anthropic"})).unwrap()).unwrap();
    let (seq, whole_seq) = (s.checkpoint().unwrap(), whole.checkpoint().unwrap());
    assert_eq!(seq, whole_seq);
    let line = |s: &mut Session| match s.take_effects().pop() {
        Some(contextview::session::Effect::Persist { lines, .. }) => lines.last().unwrap().clone(),
        other => panic!("{other:?}"),
    };
    let (line, whole_line) = (line(&mut s), line(&mut whole));
    assert!(line.contains("released") && line.len() * 2 < whole_line.len(), "{} bytes against {}", line.len(), whole_line.len());
    storage.push_str(&line);
    storage.push('\n');
    // Opened from its log (from a checkpoint that carries results let go), the same requests;
    // opened from its text, which holds the records, without asking the host for any.
    assert_eq!(read_bodies(&mut Session::from_log(&storage), json!({}), Some(&storage)), pruned_bodies(&mut whole, json!({})));
    let off = json!({"enabled": false});
    assert_eq!(pruned_bodies(&mut Session::from_log(&storage), off.clone()), pruned_bodies(&mut whole, off.clone()));
    // A compaction from elsewhere that trims the results it keeps trims their whole text: a
    // session holding results let go folds it only once it has every record.
    let at = contextview::session::open::split(&storage.as_str()).unwrap();
    let mut tail_only = Session::from_tail(&storage[..at.history_start], &storage[at.tail_start..], None).unwrap();
    let next = parse_log(&storage).records.last().unwrap().seq + 1;
    let trimming = json!({"seq": next, "ts": NOW, "event": {"kind": "compaction_checkpoint", "summary": SUMMARY, "firstKeptSeq": 2, "trimKeptOver": 200}}).to_string();
    assert_eq!(tail_only.append_line(&trimming), Err(contextview::session::AppendError::HistoryNeeded));
    give_history(&mut tail_only, &storage);
    tail_only.append_line(&trimming).unwrap();
    let mut replayed = Session::from_log(&without_checkpoints(&format!("{storage}{trimming}\n")));
    assert_eq!(pruned_bodies(&mut tail_only, off.clone()), pruned_bodies(&mut replayed, off.clone()));
    // Storage that lost records the session let go is refused at a reconcile, and nothing changes.
    let mut s2 = pruned_into(Some(&mut String::new()));
    let lost: String = storage.lines().enumerate().filter(|(i, _)| *i != 5).map(|(_, l)| format!("{l}\n")).collect();
    let held = s2.records().to_vec();
    assert_eq!(s2.reconcile(&lost).map(|_| ()).map_err(|e| e.code()), Err("history_mismatch"));
    assert_eq!(s2.records(), held.as_slice());
    for n in (40..parse_log(&storage).records.len()).step_by(7) {
        let cut = cut(&storage, n);
        assert_eq!(read_bodies(&mut Session::from_log(&cut), json!({}), Some(&cut)), pruned_bodies(&mut Session::from_log(&without_checkpoints(&cut)), json!({})), "cut at {n}");
    }
    // Trimmed rather than cleared: what was cleared is read back, and what is trimmed now let go.
    let lines = |seqs: &[u64]| -> String { storage.lines().skip(1).filter(|l| parse_log(l).records.first().is_some_and(|r| seqs.contains(&r.seq))).map(|l| format!("{l}\n")).collect() };
    let trim = json!({"targetRatio": 0.45});
    let report = whole.build(&serde_json::from_value(json!({"provider": "anthropic", "pruning": trim})).unwrap()).unwrap().report;
    let trimmed = report.pruning.trimmed_ids().to_vec();
    assert!(trimmed.len() >= 3, "trimmed {trimmed:?}");
    assert_eq!(read_bodies(&mut s, trim.clone(), Some(&storage)), pruned_bodies(&mut whole, trim.clone()));
    // Built for Anthropic last: what its request trims or clears is let go.
    s.build(&serde_json::from_value(json!({"provider": "anthropic", "pruning": trim})).unwrap()).unwrap();
    not_held(&mut s, &[report.pruning.cleared_ids().to_vec(), trimmed.clone()].concat());
    assert!(serde_json::to_string(&s.items()).unwrap().contains("characters trimmed"), "a trimmed result keeps its head and tail");
    // Pruning off: every result whole again, read back from storage, record by record.
    let off = json!({"enabled": false});
    let let_go = s.items().iter().filter(|i| matches!(i, Item::ToolResult(r) if r.released.is_some())).count();
    let asked = pruned_bodies(&mut s, off.clone());
    assert!(asked.iter().all(|b| b.starts_with("history_needed")), "{:?}", &asked[0][..100.min(asked[0].len())]);
    let needed = s.needed_records().to_vec();
    assert_eq!(needed.len(), let_go, "one record per result let go");
    // Lines that are not those records are refused whole, and nothing changes.
    let short = lines(&needed[1..]);
    assert_eq!(s.provide_records(&short).map_err(|e| e.code()), Err("history_mismatch"));
    let mut forged = lines(&needed);
    forged = forged.replacen("MIDDLE-", "MIDDLE_", 1);
    assert_eq!(s.provide_records(&forged).map_err(|e| e.code()), Err("history_mismatch"));
    assert_eq!(s.needed_records(), needed.as_slice());
    s.provide_records(&lines(&needed)).unwrap();
    assert_eq!(pruned_bodies(&mut s, off.clone()), pruned_bodies(&mut whole, off));
    assert!(s.needed_records().is_empty());
}

/// A record sent again that the session let go is compared once the host gives it back: a
/// duplicate then, or a conflict — never a conflict for want of the record.
#[test]
fn a_record_sent_again_after_it_was_let_go_is_compared_with_the_history() {
    use contextview::session::{Appended, AppendError};
    let mut storage = String::new();
    let mut s = generated_into(None, Some(&mut storage));
    let old = parse_log(&storage).records.into_iter().find(|r| r.seq == 3).unwrap();
    assert!(s.needs_history() && s.history_through().is_some_and(|t| t >= 3));
    assert_eq!(s.append_line(&old.to_line()), Err(AppendError::HistoryNeeded));
    give_history(&mut s, &storage);
    assert_eq!(s.append_line(&old.to_line()), Ok(Appended::Duplicate));
    let mut changed = old.clone();
    changed.ts = "2026-12-05T10:00:00Z".into();
    assert!(matches!(s.append_line(&changed.to_line()), Err(AppendError::SeqConflict { seq: 3, .. })));
}

/// A compaction storage never took, dropped at a reconcile, does not make the next one stale.
#[test]
fn a_compaction_dropped_at_a_reconcile_does_not_make_the_next_one_stale() {
    let mut s = Session::create(Header::new("stale"));
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 24000}));
    for i in 0..6 {
        ok(&mut s, json!({"type": "userMessage", "text": format!("Task {i}.")}));
        ok(&mut s, json!({"type": "assistantResponse", "text": format!("Done {i}.")}));
    }
    let held = log_of(&s);
    // Another writer stored a message where this session's last two records are: storage ends
    // below where this session writes its compaction.
    let lines: Vec<&str> = held.lines().collect();
    let at = parse_log(&held).records.last().unwrap().seq - 1;
    let other = json!({"seq": at, "ts": NOW, "update": {"sessionUpdate": "user_message_chunk", "messageId": "elsewhere", "content": {"type": "text", "text": "From elsewhere."}}}).to_string();
    let storage: String = lines[..lines.len() - 2].iter().map(|l| format!("{l}\n")).collect::<String>() + &other + "\n";
    ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 20}}));
    ok(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}));
    let reconciled = s.reconcile(&storage).unwrap();
    assert!(!reconciled.dropped.is_empty(), "the compaction was given back");
    ok(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 20}}));
    ok(&mut s, json!({"type": "applyCompaction", "summary": SUMMARY}));
}

/// What every build of the generated sessions gives — at every cut point, for every API, the
/// body and the whole report — held to a run recorded once as test data
/// (`tests/fixtures/oracle/checkpoints.json`): a session reworked inside (its door, its effects,
/// its parts) must build byte for byte what it built. The sources: the log a session with
/// checkpoints by size writes, and the log of one that lets go of what storage confirmed (its
/// compactions and its rewind reading records back), each cut after every record and opened
/// from its last checkpoint (the digest of each cut's four bodies and reports), and every reply
/// of the commands that made them, live. Natively only:
/// the reports' figures are floats the wasm build's maths need not round alike.
/// `CONTEXTVIEW_RECORD_ORACLE=1` writes the file instead of checking it.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_build_matches_the_recorded_oracle() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/oracle/checkpoints.json");
    // Every reply of the commands that made them (each build's body and report, each
    // compaction's request, each answer), as the live sessions gave them.
    REPLIES.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let by_size = log_of(&generated(Some(6_000)));
    let mut storage = String::new();
    let letting_go = generated_into(Some(6_000), Some(&mut storage));
    let replies = REPLIES.with(|r| r.borrow_mut().take().unwrap());
    let sources = [("checkpoints by size", by_size), ("letting go", storage.clone())];
    // FNV-1a, 64 bits.
    let digest = |text: &str| format!("{:016x}", text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)));
    let mut seen = serde_json::Map::new();
    for (name, log) in &sources {
        let records = log.lines().count() - 1;
        let cuts: Vec<String> = (1..=records)
            .map(|n| {
                let mut s = Session::from_log(&cut(log, n));
                let built: String = APIS
                    .iter()
                    .map(|&provider| {
                        let input = BuildInput { context_window: Some(24000), ..BuildInput::new(provider) };
                        match s.build(&input) {
                            Ok(built) => format!("{}\n{}\n", built.body, serde_json::to_string(&built.report).unwrap()),
                            Err(e) => format!("{} {e}\n", e.code()),
                        }
                    })
                    .collect();
                digest(&built)
            })
            .collect();
        seen.insert(name.to_string(), json!({"log": digest(log), "cuts": cuts}));
    }
    seen.insert("replies".into(), json!({"cuts": replies.iter().map(|r| digest(r)).collect::<Vec<_>>()}));
    // The session that let go, as it stands: what it builds from what it holds.
    seen.insert("letting go, live".into(), json!({"bodies": digest(&bodies(&mut Session::from_log(&storage)).concat()), "records": letting_go.record_count()}));
    let seen = Value::Object(seen);
    if std::env::var_os("CONTEXTVIEW_RECORD_ORACLE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&seen).unwrap() + "\n").unwrap();
        return;
    }
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("the recorded oracle")).unwrap();
    for (name, entry) in recorded.as_object().unwrap() {
        let (want, got) = (&entry["cuts"], &seen[name]["cuts"]);
        if let (Some(want), Some(got)) = (want.as_array(), got.as_array()) {
            let first = want.iter().zip(got).position(|(a, b)| a != b);
            assert_eq!(first, None, "{name}: the first that differs is number {:?} (a cut after that many records, or that reply)", first.map(|i| i + 1));
        }
    }
    assert_eq!(seen, recorded);
}
