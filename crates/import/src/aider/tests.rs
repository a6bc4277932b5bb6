use pretty_assertions::assert_eq;

use contextview::update::record::{Event, RecordBody};

use crate::dispatch::{detect, import};
use crate::format::Format;

const HISTORY: &str = include_str!("../../../../tests/fixtures/aider.chat.history.md");

fn items(text: &str) -> Vec<String> {
    crate::test_items::items(None, text)
}

#[test]
fn the_last_run_is_the_view_and_each_run_is_in_the_log() {
    assert_eq!(detect(HISTORY), Some(Format::Aider));
    assert_eq!(items(HISTORY), ["user: List the public functions of src/lib.rs.", "assistant: `parse` and `parse_all`."]);
    let first_run: String = HISTORY.split("# aider chat started at 2026-06-04 10:00:00").next().unwrap().to_owned();
    assert_eq!(
        items(&first_run),
        [
            "user: Make `parse` accept an empty input.\n\n> this line was pasted with a quote\n",
            "reasoning: An empty input should return `Empty`.",
            "assistant: #### The change\n\n> Note: a quote in the reply.\n\nsrc/lib.rs\n```rust\n<<<<<<< SEARCH\n    Err(Missing)\n=======\n    Ok(Empty)\n>>>>>>> REPLACE\n```",
            "user: why did the test fail?",
            "assistant: The test expected `Err` for an empty input.",
            // The reply to a message Aider sent on its own (the file it added): no prompt before it.
            "assistant: I see the tests now; they are fine.",
        ]
    );
}

#[test]
fn the_report_says_what_a_transcript_cannot_give_back() {
    let imported = import(None, HISTORY).unwrap();
    let report = &imported.report;
    assert_eq!(report.format, Some(Format::Aider));
    assert_eq!(imported.header.session_id, "aider-2026-06-04 09:00:00");
    assert_eq!(report.fidelity.missing, []);
    let unmapped: Vec<(&str, usize)> = report.unmapped.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(unmapped, [("reply:without_prompt", 1), ("said", 17), ("said:announcement", 2), ("typed:answer_echo", 1), ("typed:command", 2)]);
    let events: Vec<String> = imported
        .records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Event(Event::ModelSwitch(m)) => Some(format!("model {} {}", m.provider, m.model)),
            RecordBody::Event(Event::UsageAnchor(u)) => Some(format!("usage {} {}", u.input_tokens, u.output_tokens)),
            RecordBody::Event(Event::Rewind(r)) => Some(format!("rewind {}", r.prompt_index)),
            _ => None,
        })
        .collect();
    assert_eq!(
        events,
        [
            "model anthropic anthropic/claude-sonnet-4-20250514",
            "usage 3200 210",
            "usage 12000 45",
            "usage 13000 12",
            "rewind 0",
            "model openai-chat gpt-4.1",
            "usage 2000 9",
        ]
    );
}

#[test]
fn text_with_no_run_in_it_is_no_history() {
    let imported = import(Some(Format::Aider), "this is not a session\n").unwrap();
    assert!(imported.records.is_empty());
    let codes: Vec<&str> = imported.report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["import.bad_entry"]);
}
