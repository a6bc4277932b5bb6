use pretty_assertions::assert_eq;

use contextview::update::record::{Event, RecordBody};

use crate::dispatch::{detect, import};
use crate::format::Format;

const LINES: &str = include_str!("../../../../tests/fixtures/gemini-cli.jsonl");
const WHOLE: &str = include_str!("../../../../tests/fixtures/gemini-cli.json");

fn items(text: &str) -> Vec<String> {
    crate::test_items::items(None, text)
}

#[test]
fn the_json_lines_form_imports_what_the_model_saw() {
    assert_eq!(detect(LINES), Some(Format::GeminiCli));
    assert_eq!(
        items(LINES),
        [
            "user (prefix): <session_context>\nThis is the Gemini CLI. The working directory is /work/app.\n</session_context>",
            "user: Why does the parser test fail?",
            "reasoning: **Reading the test** I should open the failing test first.",
            "call read_file__c1 read_file {\"file_path\":\"tests/parser.rs\"}",
            "call run_shell_command__c2 run_shell_command {\"command\":\"cargo test parser\"}",
            "result read_file__c1: fn parses_empty_input() { assert!(parse(\"\").is_ok()); }",
            "result run_shell_command__c2 (error): exit code 101: test parses_empty_input ... FAILED",
            "call read_many_files__c3 read_many_files {\"paths\":[\"docs/screenshot.png\"]}",
            "call run_shell_command__c4 run_shell_command {\"command\":\"sleep 100\"}",
            "result read_many_files__c3: Read 1 file. +1 image",
            "result run_shell_command__c4 (error): [Operation Cancelled] Reason: User cancelled the operation.",
            "assistant: The empty input returns an error because `parse` rejects a missing header.",
            "user: Please fix it so that an empty input parses. +1 image",
            "reasoning: Reading the header rules.",
            "call edit__c5 replace {\"file_path\":\"src/parser.rs\",\"new_string\":\"Ok(Empty)\",\"old_string\":\"Err(Missing)\"} [c2lnLWM1]",
            "result edit__c5: Successfully modified file: src/parser.rs (1 replacements).",
            "user (auto_continue): Please continue.",
            "reasoning: Done.",
            "assistant: Fixed: an empty input now parses to `Empty`.",
        ]
    );
}

#[test]
fn the_report_says_what_was_kept_and_what_was_not() {
    let imported = import(None, LINES).unwrap();
    let report = &imported.report;
    assert_eq!(report.format, Some(Format::GeminiCli));
    assert_eq!(imported.header.session_id, "5b0c7e2a-1111-4c1e-9a3e-000000000001");
    assert_eq!(imported.header.created_at.as_deref(), Some("2026-06-01T10:00:00.000Z"));
    assert_eq!(report.lines, 21);
    let unmapped: Vec<(&str, usize)> = report.unmapped.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        unmapped,
        [("info", 1), ("message:superseded", 2), ("user:command", 1), ("user:function_response", 2)]
    );
    let codes: Vec<(&str, Option<usize>)> = report.diagnostics.iter().map(|d| (d.code.as_str(), d.line)).collect();
    assert_eq!(codes, [("import.malformed_line", Some(21))]);
    // Every element the CLI's model saw is in the view.
    assert_eq!(report.fidelity.missing, []);
    let source = report.fidelity.source;
    assert_eq!((source.prompts, source.assistant_texts, source.tool_calls, source.images), (2, 2, 5, 2));
    // The model of each answer, and its usage as the answer decoder reads Gemini's counts.
    let events: Vec<String> = imported
        .records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Event(Event::ModelSwitch(m)) => Some(format!("model {}", m.model)),
            RecordBody::Event(Event::UsageAnchor(u)) => Some(format!("usage in {} cached {} out {} reasoning {:?}", u.input_tokens, u.cache_read_tokens, u.output_tokens, u.reasoning_tokens)),
            _ => None,
        })
        .collect();
    assert_eq!(
        events,
        [
            "model gemini-2.5-pro",
            "usage in 5100 cached 4000 out 55 reasoning Some(35)",
            "model gemini-2.5-flash",
            "usage in 800 cached 9000 out 30 reasoning Some(0)",
            "usage in 1100 cached 9000 out 52 reasoning Some(12)",
            "usage in 300 cached 10000 out 19 reasoning Some(4)",
        ]
    );
}

#[test]
fn the_whole_file_form_imports_what_the_model_saw() {
    assert_eq!(detect(WHOLE), Some(Format::GeminiCli));
    assert_eq!(
        items(WHOLE),
        [
            "user: add a line to notes.txt",
            "reasoning: **Reading the file** I'll look at notes.txt first.",
            "call read_file-1768010961326-aaaa read_file {\"absolute_path\":\"/work/app/notes.txt\"}",
            "result read_file-1768010961326-aaaa: first line",
            "call write_file-1768010962000-bbbb write_file {\"content\":\"first line\\nsecond line\",\"file_path\":\"/work/app/notes.txt\"}",
            // An older reader's plain-string result, as the CLI reads it: the output.
            "result write_file-1768010962000-bbbb: Successfully overwrote file: /work/app/notes.txt.",
            "user (auto_continue): System: Please continue.",
            "assistant: I added `second line` to notes.txt.",
        ]
    );
    let imported = import(None, WHOLE).unwrap();
    let unmapped: Vec<(&str, usize)> = imported.report.unmapped.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(unmapped, [("error", 1), ("info", 1)]);
    assert_eq!(imported.report.fidelity.missing, []);
    assert!(imported.report.diagnostics.is_empty(), "{:?}", imported.report.diagnostics);
}

#[test]
fn text_that_is_no_recording_says_so() {
    let imported = import(Some(Format::GeminiCli), "{\"messages\": 3").unwrap();
    let codes: Vec<&str> = imported.report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["import.malformed_line", "import.bad_entry"]);
    assert!(imported.records.is_empty());
}

#[test]
fn a_subagent_s_recording_links_to_the_call_it_answered() {
    let parent = include_str!("../../../../tests/fixtures/gemini-cli-subagents/chats/session-2026-06-02T09-00-9d2e0a41.jsonl");
    let child = include_str!(
        "../../../../tests/fixtures/gemini-cli-subagents/chats/9d2e0a41-3333-4c1e-9a3e-000000000003/c0ffee00-aaaa-4bbb-8ccc-000000000001.jsonl"
    );
    let tree = crate::import_tree(None, parent, &[child, WHOLE]).unwrap();
    assert_eq!(tree.parent.report.audience.as_deref(), Some("primary"));
    assert_eq!(tree.parent.report.subagents, ["c0ffee00-aaaa-4bbb-8ccc-000000000001", "c0ffee00-aaaa-4bbb-8ccc-000000000002"]);
    let linked = &tree.children[0];
    assert_eq!(linked.header.session_id, "c0ffee00-aaaa-4bbb-8ccc-000000000001");
    assert_eq!(linked.header.parent_session_id.as_deref(), Some("9d2e0a41-3333-4c1e-9a3e-000000000003"));
    assert_eq!(linked.header.parent_call_id.as_deref(), Some("invoke_agent__a1"));
    assert_eq!(linked.report.audience.as_deref(), Some("subagent"));
    assert_eq!(linked.report.fidelity.missing, []);
    // The second agent's recording was not given; the other session is no child of this one.
    assert_eq!(tree.missing, ["c0ffee00-aaaa-4bbb-8ccc-000000000002"]);
    assert_eq!(tree.unlinked, ["5b0c7e2a-2222-4c1e-9a3e-000000000002"]);
    // The parent's log says how each ended.
    let ends: Vec<String> = tree
        .parent
        .records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Event(Event::SubagentStarted(s)) => Some(format!("started {} {} {:?}", s.call_id, s.session_id, s.task)),
            RecordBody::Event(Event::SubagentEnded(e)) => Some(format!("ended {} {:?}", e.call_id, e.status)),
            _ => None,
        })
        .collect();
    assert_eq!(
        ends,
        [
            "started invoke_agent__a1 c0ffee00-aaaa-4bbb-8ccc-000000000001 \"Find where the retry policy is decided.\"",
            "ended invoke_agent__a1 Completed",
            "started invoke_agent__a2 c0ffee00-aaaa-4bbb-8ccc-000000000002 \"Check the tests of the retry policy.\"",
            "ended invoke_agent__a2 Failed",
        ]
    );
}
