use pretty_assertions::assert_eq;

use super::{is_history, read, Record};

const HISTORY: &str = include_str!("../../../../tests/fixtures/aider.chat.history.md");

fn said(line: usize, text: &str) -> Record {
    Record::Said { line, text: text.to_owned() }
}

fn typed(line: usize, text: &str) -> Record {
    Record::Typed { line, text: text.to_owned() }
}

fn reply(line: usize, reasoning: Option<&str>, text: &str) -> Record {
    Record::Reply { line, reasoning: reasoning.map(str::to_owned), text: text.to_owned() }
}

fn expected() -> Vec<Record> {
    vec![
        Record::Started { line: 2, at: "2026-06-04 09:00:00".to_owned() },
        said(4, "/usr/local/bin/aider --model sonnet"),
        said(5, "Aider v0.86.1"),
        said(6, "Main model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output"),
        said(7, "Weak model: anthropic/claude-3-5-haiku-20241022"),
        said(8, "Git repo: .git with 42 files"),
        said(9, "Repo-map: using 4096 tokens, auto refresh"),
        typed(11, "/add src/lib.rs"),
        said(12, "Added src/lib.rs to the chat"),
        typed(14, "Make `parse` accept an empty input.\n\n> this line was pasted with a quote\n"),
        reply(
            19,
            Some("An empty input should return `Empty`."),
            "#### The change\n\n> Note: a quote in the reply.\n\nsrc/lib.rs\n```rust\n<<<<<<< SEARCH\n    Err(Missing)\n=======\n    Ok(Empty)\n>>>>>>> REPLACE\n```",
        ),
        said(36, "Tokens: 3.2k sent, 210 received. Cost: $0.01 message, $0.01 session."),
        said(37, "Applied edit to src/lib.rs"),
        said(38, "Commit 1a2b3c4 fix: accept an empty input"),
        said(39, "You can use /undo to undo and discard each aider commit."),
        typed(41, "/ask why did the test fail?"),
        typed(43, "why did the test fail?"),
        reply(45, None, "The test expected `Err` for an empty input."),
        // A message of two lines: the second is not quoted.
        said(47, "Tokens: 12k sent, 1.1k cache write, 9.9k cache hit, 45 received.\nCost: $0.02 message, $0.03 session."),
        said(49, "src/tests.rs"),
        said(50, "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: a"),
        typed(52, "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all"),
        reply(54, None, "I see the tests now; they are fine."),
        said(56, "Tokens: 13k sent, 12 received."),
        said(57, "# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/lib.rs\nThe SEARCH section must exactly match an existing block of lines."),
        said(61, ""),
        said(62, ""),
        said(63, "^C again to exit"),
        Record::Started { line: 65, at: "2026-06-04 10:00:00".to_owned() },
        said(67, "Aider v0.86.1"),
        said(68, "Model: gpt-4.1 with diff edit format"),
        said(69, "Git repo: none"),
        typed(71, "List the public functions of src/lib.rs."),
        reply(73, None, "`parse` and `parse_all`."),
        said(75, "Tokens: 2.0k sent, 9 received. Cost: $0.0041 message, $0.0041 session."),
    ]
}

#[test]
fn each_record_is_read_by_the_rules_aider_writes_it_by() {
    assert_eq!(read(HISTORY), expected());
}

#[test]
fn windows_line_ends_read_the_same() {
    assert_eq!(read(&HISTORY.replace('\n', "\r\n")), expected());
}

#[test]
fn a_history_is_known_by_its_header() {
    assert!(is_history(HISTORY));
    assert!(is_history("\u{feff}# aider chat started at 2026-01-01 00:00:00\n"));
    assert!(!is_history("# Notes\n\nsome markdown\n"));
    assert!(!is_history("{\"type\":\"user\"}\n"));
}

#[test]
fn an_opening_tag_cut_short_before_its_closing_one_is_read_without_panicking() {
    assert_eq!(super::split_reasoning("<thinking-content-\n</thinking-content-7bbe>"), (None, String::new()));
    assert_eq!(super::split_reasoning("a <thinking-content-</thinking-content-9> b"), (None, "a  b".to_owned()));
    assert_eq!(super::split_reasoning("<thinking-content-1>why</thinking-content-1>so"), (Some("why".to_owned()), "so".to_owned()));
}
