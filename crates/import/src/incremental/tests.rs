use pretty_assertions::assert_eq;

use contextview::conversation::Item;
use contextview::update::record::{Event, Record, RecordBody};
use contextview::update::replay;

use super::IncrementalImport;
use crate::dispatch::import;
use crate::format::Format;

const LINES: [(Format, &str); 7] = [
    (Format::ClaudeCode, include_str!("../../../../tests/fixtures/claude-code.jsonl")),
    (Format::Codex, include_str!("../../../../tests/fixtures/codex.jsonl")),
    (Format::Pi, include_str!("../../../../tests/fixtures/pi.jsonl")),
    (Format::GeminiCli, include_str!("../../../../tests/fixtures/gemini-cli.jsonl")),
    (Format::CopilotCli, include_str!("../../../../tests/fixtures/copilot-cli.jsonl")),
    (Format::Aider, include_str!("../../../../tests/fixtures/aider.chat.history.md")),
    (Format::ClaudeCode, include_str!("../../../../tests/fixtures/claude-subagents/s-main.jsonl")),
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

/// Pushes `pieces` one after another; after each, the log so far.
fn follow(format: Option<Format>, pieces: &[&str]) -> Vec<Vec<Record>> {
    let mut incremental = IncrementalImport::new(format);
    let mut log: Vec<Record> = Vec::new();
    let mut states = Vec::new();
    for piece in pieces {
        let appended = incremental.push(piece).unwrap();
        for (i, record) in appended.records.iter().enumerate() {
            assert_eq!(record.seq, log.len() as u64 + 1, "record {i}: seq numbers on from the log's last");
            log.push(record.clone());
        }
        states.push(log.clone());
    }
    states
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
            let states = follow(None, &[&text[..at], &text[at..]]);
            assert_eq!(view(&states[0]), view(&whole(format, &text[..at])), "{format} after {at} bytes");
            assert_eq!(view(&states[1]), view(&full), "{format} split at {at}");
            if only_appends(format) {
                assert_eq!(states[1], full, "{format} split at {at}: the records a whole import writes");
            }
        }
    }
}

#[test]
fn followed_line_by_line_each_step_is_the_view_of_the_file_so_far() {
    for (format, text) in LINES {
        let pieces: Vec<&str> = text.split_inclusive('\n').collect();
        let states = follow(Some(format), &pieces);
        let mut so_far = String::new();
        for (piece, state) in pieces.iter().zip(&states) {
            so_far.push_str(piece);
            assert_eq!(view(state), view(&whole(format, &so_far)), "{format} after {} bytes", so_far.len());
        }
        if only_appends(format) {
            assert_eq!(states.last().unwrap(), &whole(format, text), "{format}");
        }
    }
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
        for (n, version) in versions.iter().enumerate() {
            // Read while the agent rewrote it: half a document appends nothing.
            let half = incremental.replace(&version[..version.len() / 2]).unwrap();
            assert_eq!(half.records, [], "{format}: half of version {n}");
            log.extend(incremental.replace(version).unwrap().records);
            assert_eq!(view(&log), view(&import(Some(format), version).unwrap().records), "{format} version {n}");
        }
    }
    // A Gemini CLI recording kept whole, as it grows.
    let json = include_str!("../../../../tests/fixtures/gemini-cli.json");
    let mut incremental = IncrementalImport::new(None);
    let mut log: Vec<Record> = Vec::new();
    for version in versions(json, |d| d["messages"].as_array_mut().unwrap()) {
        log.extend(incremental.replace(&version).unwrap().records);
        assert_eq!(view(&log), view(&import(None, &version).unwrap().records));
    }
    assert_eq!(incremental.format(), Some(Format::GeminiCli));
}

#[test]
fn a_compaction_names_its_kept_record_as_this_log_numbers_it() {
    // A Codex session followed line by line holds the whole import's checkpoints as they are;
    // after a rewind, a re-appended checkpoint names the re-appended record.
    let text = include_str!("../../../../tests/fixtures/gemini-cli.jsonl");
    let pieces: Vec<&str> = text.split_inclusive('\n').collect();
    let log = follow(None, &pieces).pop().unwrap();
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
    log.extend(appended.records);
    assert_eq!(view(&log), view(&whole(Format::Codex, &rewritten)));
    // And on from there, by what it gains.
    let more = r#"{"timestamp":"2026-11-30T11:00:09Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Thanks."}]}}"#;
    log.extend(incremental.push(&format!("{more}\n")).unwrap().records);
    assert_eq!(view(&log), view(&whole(Format::Codex, &format!("{rewritten}{more}\n"))));
}
