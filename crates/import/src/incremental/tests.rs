use pretty_assertions::assert_eq;

use contextview::conversation::Item;
use contextview::update::record::{Event, Record, RecordBody};
use contextview::update::replay;

use super::IncrementalImport;
use crate::dispatch::import;
use crate::format::Format;

const LINES: [(Format, &str); 8] = [
    (Format::ClaudeCode, include_str!("../../../../tests/fixtures/claude-code.jsonl")),
    (Format::Codex, include_str!("../../../../tests/fixtures/codex.jsonl")),
    (Format::Pi, include_str!("../../../../tests/fixtures/pi.jsonl")),
    (Format::GeminiCli, include_str!("../../../../tests/fixtures/gemini-cli.jsonl")),
    (Format::CopilotCli, include_str!("../../../../tests/fixtures/copilot-cli.jsonl")),
    (Format::Aider, include_str!("../../../../tests/fixtures/aider.chat.history.md")),
    (Format::ClaudeCode, include_str!("../../../../tests/fixtures/claude-subagents/s-main.jsonl")),
    // A title line (no timestamp of its own) at the top, as a resumed session has.
    (Format::ClaudeCode, concat!(r#"{"type":"summary","summary":"Files listed","leafUuid":"u1"}"#, "\n", include_str!("../../../../tests/fixtures/claude-code.jsonl"))),
];

/// Formats whose files only append, and whose records a whole import writes in file order.
fn only_appends(format: Format) -> bool {
    matches!(format, Format::Codex | Format::Pi | Format::CopilotCli)
}

fn view(records: &[Record]) -> Vec<Item> {
    replay(records).items
}

/// The whole import of `text`'s complete lines (what a follower has seen of it): nothing until
/// it holds a prompt.
fn whole(format: Format, text: &str) -> Vec<Record> {
    let end = text.rfind('\n').map_or(0, |i| i + 1);
    if text[..end].trim().is_empty() {
        return Vec::new();
    }
    let records = import(Some(format), &text[..end]).unwrap().records;
    let prompted = (0..records.len()).any(|i| contextview::update::replay::is_real_prompt_start(i.checked_sub(1).map(|p| &records[p]), &records[i]));
    if prompted {
        records
    } else {
        Vec::new()
    }
}

/// A followed file: after each push, the log so far and what is shown (the log and its pending
/// records).
struct Followed {
    logs: Vec<Vec<Record>>,
    shown: Vec<Vec<Record>>,
    rewinds: usize,
    incremental: IncrementalImport,
}

impl Followed {
    /// The log once the file is done with (its pending records appended).
    fn settled(mut self) -> Vec<Record> {
        let mut log = self.logs.pop().unwrap_or_default();
        let settled = self.incremental.settle();
        assert_eq!(settled.pending, []);
        extend(&mut log, settled.records);
        log
    }
}

/// The log and the pending records after it: what is shown.
fn with(log: &[Record], pending: Vec<Record>) -> Vec<Record> {
    let mut shown = log.to_vec();
    extend(&mut shown, pending);
    shown
}

fn extend(log: &mut Vec<Record>, records: Vec<Record>) {
    for (i, record) in records.into_iter().enumerate() {
        assert_eq!(record.seq, log.len() as u64 + 1, "record {i}: seq numbers on from the log's last");
        log.push(record);
    }
}

/// Pushes `pieces` one after another.
fn follow(format: Option<Format>, pieces: &[&str]) -> Followed {
    let mut incremental = IncrementalImport::new(format);
    let mut log: Vec<Record> = Vec::new();
    let (mut logs, mut shown, mut rewinds) = (Vec::new(), Vec::new(), 0);
    for piece in pieces {
        let appended = incremental.push(piece).unwrap();
        rewinds += usize::from(appended.rewound);
        extend(&mut log, appended.records);
        // A rewind always names a prompt the log holds.
        let diagnostics = replay(&log).diagnostics;
        assert!(!diagnostics.iter().any(|d| d.code == contextview::update::codes::REPLAY_REWIND_OUT_OF_RANGE.code), "{diagnostics:?}");
        shown.push(with(&log, appended.pending));
        logs.push(log.clone());
    }
    Followed { logs, shown, rewinds, incremental }
}

/// Split points: every line's end and the middle of every line.
fn splits(text: &str) -> Vec<usize> {
    let mut at = vec![0];
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == '\n' {
            let middle = (start..=i).find(|&b| b >= start + (i - start) / 2 && text.is_char_boundary(b)).unwrap_or(i);
            at.extend([middle, i + 1]);
            start = i + 1;
        }
    }
    at.push(text.len());
    at
}

#[test]
fn at_every_split_point_the_log_replays_to_the_whole_imports_view() {
    for (format, text) in LINES {
        let full = whole(format, text);
        for at in splits(text) {
            let followed = follow(None, &[&text[..at], &text[at..]]);
            assert_eq!(view(&followed.shown[0]), view(&whole(format, &text[..at])), "{format} after {at} bytes");
            assert_eq!(view(&followed.shown[1]), view(&full), "{format} split at {at}");
            if only_appends(format) {
                assert_eq!(followed.logs[1], full, "{format} split at {at}: the records a whole import writes");
            }
            assert_eq!(view(&followed.settled()), view(&full), "{format} split at {at}, settled");
        }
    }
}

#[test]
fn followed_line_by_line_each_step_is_the_view_of_the_file_so_far() {
    for (format, text) in LINES {
        let pieces: Vec<&str> = text.split_inclusive('\n').collect();
        let followed = follow(Some(format), &pieces);
        let mut so_far = String::new();
        for (piece, shown) in pieces.iter().zip(&followed.shown) {
            so_far.push_str(piece);
            assert_eq!(view(shown), view(&whole(format, &so_far)), "{format} after {} bytes", so_far.len());
        }
        if only_appends(format) {
            assert_eq!(followed.logs.last().unwrap(), &whole(format, text), "{format}");
        }
    }
}

#[test]
fn the_report_is_the_whole_imports_of_the_complete_lines_so_far() {
    for (format, text) in LINES {
        let mut incremental = IncrementalImport::new(Some(format));
        for end in splits(text) {
            incremental.push(&text[incremental_len(&incremental)..end]).unwrap();
            let complete = &text[..text[..end].rfind('\n').map_or(0, |i| i + 1)];
            // (Once the file holds a prompt: before one, a file read whole has imported nothing.)
            if !whole(format, &text[..end]).is_empty() {
                assert_eq!(incremental.report(), Some(import(Some(format), complete).unwrap().report), "{format} at {end}");
            }
        }
    }
}

/// How much of the file `incremental` has been given.
fn incremental_len(incremental: &IncrementalImport) -> usize {
    incremental.text.len()
}

#[test]
fn a_file_that_only_grows_gains_each_record_once() {
    // Followed line by line (a Claude Code message written a block per line, its calls' results
    // between its blocks; an Aider answer a line at a time), the log never rewinds, and once the
    // file is done with it holds exactly the records a whole import writes: each request once.
    for (format, text) in LINES.into_iter().filter(|(f, _)| *f != Format::GeminiCli) {
        let pieces: Vec<&str> = text.split_inclusive('\n').collect();
        let followed = follow(Some(format), &pieces);
        assert_eq!(followed.rewinds, 0, "{format}");
        // The log alone grows with what no later line changes: each state a prefix of the next.
        for pair in followed.logs.windows(2) {
            assert!(pair[1].starts_with(&pair[0]), "{format}: a log that only grows");
        }
        assert_eq!(followed.settled(), whole(format, text), "{format}");
    }
}

#[test]
fn after_a_rewind_the_log_compares_from_what_it_now_holds() {
    // The recording's title is set at its end (a `$set` of `summary`): the whole import writes it
    // before the first prompt, where the log cannot take it back. Nothing rewinds: the log gains
    // the title where it was set, and the prompts that follow it append as usual.
    let text = concat!(
        include_str!("../../../../tests/fixtures/gemini-cli.jsonl"),
        "\n",
        r#"{"id":"u8","timestamp":"2026-06-01T10:30:00.000Z","type":"user","content":[{"text":"And the empty header?"}]}"#,
        "\n",
        r#"{"id":"g9","timestamp":"2026-06-01T10:30:02.000Z","type":"gemini","content":"That parses too."}"#,
        "\n",
        r#"{"id":"u10","timestamp":"2026-06-01T10:30:05.000Z","type":"user","content":[{"text":"Thanks."}]}"#,
        "\n",
    );
    let pieces: Vec<&str> = text.split_inclusive('\n').collect();
    let title = pieces.iter().position(|p| p.contains(r#""summary":"#)).unwrap();
    let mut incremental = IncrementalImport::new(Some(Format::GeminiCli));
    let mut log: Vec<Record> = Vec::new();
    let mut so_far = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        so_far.push_str(piece);
        let appended = incremental.push(piece).unwrap();
        // The fixture's own `$rewindTo` rewinds; the title, set later, does not.
        assert_eq!(appended.rewound, piece.starts_with(r#"{"$rewindTo""#), "line {}", i + 1);
        let before = log.len();
        extend(&mut log, appended.records);
        let titles: Vec<&Record> = log.iter().filter(|r| r.body.kind() == "session_info_update").collect();
        if i < title {
            assert!(titles.is_empty(), "line {}", i + 1);
        } else {
            // The title, once, where the line that set it was read.
            assert_eq!(titles.len(), 1, "line {}", i + 1);
            if i == title {
                assert_eq!(log[before].body.kind(), "session_info_update", "line {}", i + 1);
            }
        }
        assert_eq!(view(&with(&log, appended.pending)), view(&whole(Format::GeminiCli, &so_far)), "after line {}", i + 1);
    }
}

#[test]
fn the_last_model_turn_is_pending_until_the_file_goes_past_it() {
    // A Claude Code message of two blocks: the first with a call, its result written before the
    // second block, as Claude Code runs calls while the message streams.
    let line = |v: serde_json::Value| format!("{v}\n");
    let user = |uuid: &str, parent: Option<&str>, content: serde_json::Value| {
        line(serde_json::json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s", "timestamp": "2026-12-07T10:00:00Z", "message": {"role": "user", "content": content}}))
    };
    let block = |uuid: &str, parent: &str, content: serde_json::Value, output: u64| {
        line(serde_json::json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s", "timestamp": "2026-12-07T10:00:01Z",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "content": [content], "usage": {"input_tokens": 900, "output_tokens": output}}}))
    };
    let prompt = user("u1", None, serde_json::json!("List both files."));
    let first = block("a1", "u1", serde_json::json!({"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a"}}), 10);
    let result = user("r1", Some("a1"), serde_json::json!([{"type": "tool_result", "tool_use_id": "t1", "content": "alpha"}]));
    let second = block("a2", "a1", serde_json::json!({"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "b"}}), 40);
    let mut incremental = IncrementalImport::new(None);
    let start = incremental.push(&format!("{prompt}{first}{result}")).unwrap();
    assert_eq!(incremental.format(), Some(Format::ClaudeCode));
    // The prompt (and the model it goes to) is settled; the turn (its call, its usage so far,
    // the result) is pending.
    let kinds = |records: &[Record]| records.iter().map(|r| r.body.kind().to_owned()).collect::<Vec<_>>();
    assert_eq!(kinds(&start.records), ["user_message_chunk", "model_switch"]);
    assert_eq!(kinds(&start.pending), ["tool_call", "usage_anchor", "tool_call_update"]);
    assert_eq!(start.pending[0].seq, 3, "pending records are numbered on from the log's");
    // The second block: the turn changes (one usage anchor, after both calls); nothing settles,
    // nothing rewinds.
    let more = incremental.push(&second).unwrap();
    assert_eq!((more.records.len(), more.rewound), (0, false));
    assert_eq!(kinds(&more.pending), ["tool_call", "tool_call", "usage_anchor", "tool_call_update"]);
    match &more.pending[2].body {
        RecordBody::Event(Event::UsageAnchor(anchor)) => assert_eq!(anchor.output_tokens, 40),
        other => panic!("{other:?}"),
    }
    // Done with: the turn as it stands is appended.
    let settled = incremental.settle();
    assert_eq!(kinds(&settled.records), kinds(&more.pending));
    assert_eq!(settled.records[0].seq, 3);
    assert_eq!((incremental.settle().records, incremental.settle().pending), (vec![], vec![]));
}

#[test]
fn a_file_emptied_drops_its_pending_turn_and_written_again_shows_it_again() {
    let text = include_str!("../../../../tests/fixtures/claude-code.jsonl");
    let mut incremental = IncrementalImport::new(None);
    let start = incremental.push(text).unwrap();
    assert!(!start.pending.is_empty(), "the fixture ends in a model turn");
    // Emptied (its agent starts it again, or it is being written again from its start): the log
    // keeps what it holds, and the turn the file no longer has is not shown.
    for emptied in ["", "\n", "{\"type\":\"user\""] {
        let now = incremental.replace(emptied).unwrap();
        assert_eq!((now.records, now.rewound, now.pending), (vec![], false, vec![]), "{emptied:?}");
    }
    // Written again as it was: nothing settled changed, the turn is pending again.
    let again = incremental.replace(text).unwrap();
    assert_eq!((again.records, again.rewound), (vec![], false));
    assert_eq!(again.pending, start.pending);
}

#[test]
fn a_gemini_set_or_rewind_rewinds_the_log_and_the_rest_follows() {
    let text = include_str!("../../../../tests/fixtures/gemini-cli.jsonl");
    let pieces: Vec<&str> = text.split_inclusive('\n').collect();
    let mut incremental = IncrementalImport::new(None);
    let mut rewinds = 0;
    for piece in &pieces {
        let appended = incremental.push(piece).unwrap();
        let leading = appended.records.first().is_some_and(|r| matches!(r.body, RecordBody::Event(Event::Rewind(_))));
        assert_eq!(appended.rewound, leading);
        rewinds += usize::from(appended.rewound);
    }
    assert!(rewinds >= 1, "the fixture's $set and $rewindTo change what was imported");
    assert_eq!(incremental.format(), Some(Format::GeminiCli));
}

/// A document rewritten whole, seen as it grows: its first `n` messages, each version in turn.
fn versions(text: &str, messages: impl Fn(&mut serde_json::Value) -> &mut Vec<serde_json::Value>) -> Vec<String> {
    let mut document: serde_json::Value = serde_json::from_str(text).unwrap();
    let all = messages(&mut document).clone();
    (1..=all.len())
        .map(|n| {
            *messages(&mut document) = all[..n].to_vec();
            serde_json::to_string_pretty(&document).unwrap()
        })
        .collect()
}

#[test]
fn a_document_rewritten_whole_is_followed_version_by_version() {
    let documents: [(Format, Vec<String>); 3] = [
        (Format::Cline, versions(include_str!("../../../../tests/fixtures/cline-task/cline.json"), |d| d.as_array_mut().unwrap())),
        (Format::KiloCode, versions(include_str!("../../../../tests/fixtures/cline-task/kilo-code.json"), |d| d.as_array_mut().unwrap())),
        (Format::OpenCode, versions(include_str!("../../../../tests/fixtures/opencode/ses-main.json"), |d| d["messages"].as_array_mut().unwrap())),
    ];
    for (format, versions) in documents {
        let mut incremental = IncrementalImport::new(Some(format));
        let mut log: Vec<Record> = Vec::new();
        let mut pending = Vec::new();
        for (n, version) in versions.iter().enumerate() {
            // Read while the agent rewrote it: half a document appends nothing, and what was
            // pending still is.
            let half = incremental.replace(&version[..version.len() / 2]).unwrap();
            assert_eq!((half.records, half.pending), (vec![], pending), "{format}: half of version {n}");
            // Its report is still the last whole version's.
            if n > 0 {
                assert_eq!(incremental.report(), Some(import(Some(format), &versions[n - 1]).unwrap().report), "{format}: report at half of version {n}");
            }
            let appended = incremental.replace(version).unwrap();
            assert_eq!(incremental.report(), Some(import(Some(format), version).unwrap().report), "{format}: report of version {n}");
            pending = appended.pending.clone();
            extend(&mut log, appended.records);
            assert_eq!(view(&with(&log, appended.pending)), view(&import(Some(format), version).unwrap().records), "{format} version {n}");
        }
    }
    // A Gemini CLI recording kept whole, as it grows.
    let json = include_str!("../../../../tests/fixtures/gemini-cli.json");
    let mut incremental = IncrementalImport::new(None);
    let mut log: Vec<Record> = Vec::new();
    for version in versions(json, |d| d["messages"].as_array_mut().unwrap()) {
        let appended = incremental.replace(&version).unwrap();
        extend(&mut log, appended.records);
        assert_eq!(view(&with(&log, appended.pending)), view(&import(None, &version).unwrap().records));
    }
    assert_eq!(incremental.format(), Some(Format::GeminiCli));
}

#[test]
fn a_compaction_names_its_kept_record_as_this_log_numbers_it() {
    // A Codex session followed line by line holds the whole import's checkpoints as they are;
    // after a rewind, a re-appended checkpoint names the re-appended record.
    let text = include_str!("../../../../tests/fixtures/gemini-cli.jsonl");
    let pieces: Vec<&str> = text.split_inclusive('\n').collect();
    let log = follow(None, &pieces).settled();
    for record in &log {
        if let RecordBody::Event(Event::CompactionCheckpoint(c)) = &record.body {
            assert!(c.first_kept_seq > 0 && c.first_kept_seq <= log.len() as u64 + 1, "{c:?}");
        }
    }
    assert_eq!(view(&log), view(&whole(Format::GeminiCli, text)));
}

#[test]
fn nothing_is_imported_before_a_line_ends_or_the_format_is_told() {
    let mut incremental = IncrementalImport::new(None);
    assert_eq!(incremental.push("{\"type\":\"session.start\",\"data\":{\"sessionId\":\"s\"").unwrap().records, []);
    assert_eq!(incremental.format(), None);
    // A line that tells the format, but no prompt yet: nothing to write.
    let appended = incremental.push("},\"id\":\"e1\"}\n").unwrap();
    assert_eq!(incremental.format(), Some(Format::CopilotCli));
    assert_eq!((appended.header, appended.records.len()), (None, 0));
    // The first prompt brings the header; the header comes once.
    let first = incremental.push("{\"type\":\"user.message\",\"data\":{\"content\":\"hi\"},\"id\":\"e2\"}\n").unwrap();
    assert_eq!((first.header.map(|h| h.session_id), first.records.len()), (Some("s".to_owned()), 1));
    let next = incremental.push("{\"type\":\"assistant.message\",\"data\":{\"content\":\"hello\"},\"id\":\"e3\"}\n").unwrap();
    assert_eq!((next.header, next.records.len()), (None, 1));
    let mut unknown = IncrementalImport::new(None);
    assert_eq!(unknown.push("hello\n").unwrap().records, []);
    let error = unknown.push(&"x".repeat(70 * 1024)).unwrap_err();
    assert_eq!(error.code(), "unknown_format");
}

#[test]
fn a_file_read_by_lines_then_rewritten_is_compared_whole_from_then_on() {
    let text = include_str!("../../../../tests/fixtures/codex.jsonl");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut incremental = IncrementalImport::new(None);
    let mut log = incremental.push(text).unwrap().records;
    // Rewritten: its last two lines gone, another answer in their place.
    let rewritten = format!(
        "{}{}\n",
        lines[..lines.len() - 2].concat(),
        r#"{"timestamp":"2026-11-30T11:00:07Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Another answer."}]}}"#
    );
    let appended = incremental.replace(&rewritten).unwrap();
    assert!(appended.rewound);
    extend(&mut log, appended.records);
    assert_eq!(view(&with(&log, appended.pending)), view(&whole(Format::Codex, &rewritten)));
    // And on from there, by what it gains.
    let more = r#"{"timestamp":"2026-11-30T11:00:09Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Thanks."}]}}"#;
    let appended = incremental.push(&format!("{more}\n")).unwrap();
    extend(&mut log, appended.records);
    assert_eq!(view(&with(&log, appended.pending)), view(&whole(Format::Codex, &format!("{rewritten}{more}\n"))));
}

#[test]
fn a_file_rewritten_with_more_before_its_first_prompt_goes_back_to_before_it() {
    // A Claude Code file followed, then overwritten by one whose first prompt comes after three
    // meta lines (not prompts): further in than all the log holds.
    let line = |v: serde_json::Value| format!("{v}\n");
    let entry = |uuid: &str, parent: Option<&str>, kind: &str, content: serde_json::Value, meta: bool| {
        let mut v = serde_json::json!({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "timestamp": "2026-12-07T10:00:00Z",
            "message": {"role": kind, "content": content}});
        if meta {
            v["isMeta"] = serde_json::json!(true);
        }
        if kind == "assistant" {
            v["message"]["id"] = serde_json::json!(format!("msg_{uuid}"));
            v["message"]["model"] = serde_json::json!("claude-sonnet-4-5");
        }
        line(v)
    };
    let first = entry("u1", None, "user", serde_json::json!("a"), false) + &entry("a1", Some("u1"), "assistant", serde_json::json!([{"type": "text", "text": "b"}]), false);
    let second = entry("m1", None, "user", serde_json::json!("<caveat>one</caveat>"), true)
        + &entry("m2", Some("m1"), "user", serde_json::json!("<caveat>two</caveat>"), true)
        + &entry("m3", Some("m2"), "user", serde_json::json!("<caveat>three</caveat>"), true)
        + &entry("u2", Some("m3"), "user", serde_json::json!("c"), false)
        + &entry("a2", Some("u2"), "assistant", serde_json::json!([{"type": "text", "text": "d"}]), false);
    let mut incremental = IncrementalImport::new(None);
    let mut log = Vec::new();
    extend(&mut log, incremental.push(&first).unwrap().records);
    let appended = incremental.replace(&second).unwrap();
    assert!(appended.rewound);
    extend(&mut log, appended.records);
    assert_eq!(view(&with(&log, appended.pending)), view(&whole(Format::ClaudeCode, &second)));
    // And it goes on from there.
    let third = second.clone() + &entry("u3", Some("a2"), "user", serde_json::json!("e"), false);
    let appended = incremental.replace(&third).unwrap();
    assert!(!appended.rewound);
    extend(&mut log, appended.records);
    assert_eq!(view(&with(&log, appended.pending)), view(&whole(Format::ClaudeCode, &third)));
}

#[test]
fn a_title_set_in_the_push_that_rewinds_is_in_the_log_once() {
    // A reader that reads several lines at a time gets the `$rewindTo` and the title's `$set`
    // in one push.
    let text = include_str!("../../../../tests/fixtures/gemini-cli.jsonl");
    let pieces: Vec<&str> = text.split_inclusive('\n').collect();
    let rewind = pieces.iter().position(|p| p.starts_with(r#"{"$rewindTo""#)).unwrap();
    let title = pieces.iter().position(|p| p.contains(r#""summary":"#)).unwrap();
    assert!(rewind < title);
    let mut incremental = IncrementalImport::new(Some(Format::GeminiCli));
    let mut log = Vec::new();
    extend(&mut log, incremental.push(&pieces[..rewind].concat()).unwrap().records);
    let appended = incremental.push(&pieces[rewind..].concat()).unwrap();
    assert!(appended.rewound);
    extend(&mut log, appended.records);
    let titles = log.iter().filter(|r| r.body.kind() == "session_info_update").count();
    assert_eq!(titles, 1);
    assert_eq!(view(&with(&log, appended.pending)), view(&whole(Format::GeminiCli, text)));
}
