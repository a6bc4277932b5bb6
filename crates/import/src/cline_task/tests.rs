use pretty_assertions::assert_eq;

use crate::dispatch::{detect, import, import_tree};
use crate::format::Format;

const CLINE: &str = include_str!("../../../../tests/fixtures/cline-task/cline.json");
const ROO: &str = include_str!("../../../../tests/fixtures/cline-task/roo-code.json");
const ROO_SUBTASK: &str = include_str!("../../../../tests/fixtures/cline-task/roo-code-subtask.json");
const KILO: &str = include_str!("../../../../tests/fixtures/cline-task/kilo-code.json");

fn items(format: Option<Format>, text: &str) -> Vec<String> {
    crate::test_items::items(format, text)
}

/// The first `n` messages of a history, as the file held them then.
fn first(text: &str, n: usize) -> String {
    let messages: Vec<serde_json::Value> = serde_json::from_str(text).unwrap();
    serde_json::to_string(&messages[..n]).unwrap()
}

#[test]
fn each_agent_is_told_by_its_history() {
    assert_eq!(detect(CLINE), Some(Format::Cline));
    assert_eq!(detect(ROO), Some(Format::RooCode));
    assert_eq!(detect(ROO_SUBTASK), Some(Format::RooCode));
    // Kilo Code writes Roo Code's format: read alike, named when given.
    assert_eq!(detect(KILO), Some(Format::RooCode));
    assert_eq!(detect("[]"), None);
    assert_eq!(detect("[{\"type\":\"x\"}]"), None);
    assert_eq!(import(Some(Format::KiloCode), KILO).unwrap().header.imported_from.as_deref(), Some("kilo-code"));
}

#[test]
fn a_cline_task_imports_as_its_model_got_it() {
    assert_eq!(
        items(None, CLINE),
        [
            "user: <task>\nWhy does the login page flicker?\n</task><environment_details>\n# Current Mode\nACT MODE\n</environment_details> +1 image",
            "reasoning: The flicker is likely a re-render on mount. [sig-c1]",
            "assistant: I'll read the login component.",
            "call toolu_c1 read_file {\"path\":\"src/Login.tsx\"}",
            "result toolu_c1: [read_file for 'src/Login.tsx'] Result:\nuseEffect(() => setReady(true), [])",
            "user: <environment_details>\n# Current Mode\nACT MODE\n</environment_details>",
            "assistant: Running the tests first.\n<execute_command>\n<command>npm test</command>\n</execute_command>",
            "user: [execute_command for 'npm test'] Result:\n12 passing<environment_details>\n# Current Mode\nACT MODE\n</environment_details>",
            "reasoning: ",
            "assistant: The effect sets state after the first paint: render the form hidden until ready.",
        ]
    );
    let imported = import(None, CLINE).unwrap();
    assert_eq!(imported.header.session_id, "cline-1780000000100");
    assert_eq!(imported.header.created_at.as_deref(), Some("2026-05-28T20:26:40.100Z"));
    assert_eq!(imported.report.lines, 6);
    assert_eq!(imported.report.fidelity.missing, []);
    let source = imported.report.fidelity.source;
    assert_eq!((source.prompts, source.assistant_texts, source.reasoning, source.tool_calls, source.images), (5, 3, 2, 1, 1));
    let events = crate::test_items::events(&imported.records);
    assert_eq!(
        events,
        [
            "model anthropic claude-sonnet-4-5",
            "usage 5100+4000r+0w in, 120 out",
            "model openai-chat gpt-5",
            "usage 9800+0r+0w in, 60 out",
            "model anthropic claude-sonnet-4-5",
        ]
    );
}

#[test]
fn a_roo_summary_hides_what_it_condensed_and_a_subtask_is_linked() {
    assert_eq!(
        items(None, ROO),
        [
            "user (compaction): <compaction_summary>\n## Conversation Summary\nThe user wants parser tests; src holds parser.ts and lexer.ts.\n\n<environment_details>\nCurrent time: 2026-06-01\n</environment_details>\n</compaction_summary>",
            "reasoning: Delegate the test writing to a code subtask.",
            "assistant: Delegating the tests.",
            "call call_r2 new_task {\"message\":\"Write unit tests for src/parser.ts\",\"mode\":\"code\"}",
            "result call_r2: Subtask 7f3c0d2e-0000-4000-8000-00000000c0de completed.\n\nResult:\nAdded 4 tests in parser.test.ts",
            "user:  +1 image",
            "assistant: The parser now has 4 tests.",
        ]
    );
    // Before the summary, the model got the whole exchange, its reasoning by its encrypted content.
    assert_eq!(
        items(None, &first(ROO, 3)),
        [
            "user: <user_message>\nAdd tests for the parser\n</user_message><environment_details>\nCurrent time: 2026-06-01\n</environment_details>",
            "reasoning: List the files first.",
            "call call_r1 list_files {\"path\":\"src\"}",
            "result call_r1: parser.ts\nlexer.ts",
        ]
    );
    let imported = import(None, ROO).unwrap();
    assert_eq!(imported.report.fidelity.missing, []);
    assert_eq!(imported.report.subagents, ["7f3c0d2e-0000-4000-8000-00000000c0de"]);
    let unmapped: Vec<(&str, usize)> = imported.report.unmapped.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(unmapped, [("assistant_block:thoughtSignature", 1), ("message:reasoning_details", 1)]);

    let tree = import_tree(None, ROO, &[ROO_SUBTASK]).unwrap();
    assert_eq!((tree.missing.len(), tree.unlinked.len()), (0, 0));
    let child = &tree.children[0].header;
    assert_eq!(child.session_id, "7f3c0d2e-0000-4000-8000-00000000c0de");
    assert_eq!(child.parent_session_id.as_deref(), Some("roo-code-1780100000000"));
    assert_eq!(child.parent_call_id.as_deref(), Some("call_r2"));
    // Given alone, the subtask is a task of its own.
    assert_eq!(import(None, ROO_SUBTASK).unwrap().header.session_id, "roo-code-1780100005000");
}

#[test]
fn kilo_keeps_the_first_message_beside_its_summary_and_its_marker() {
    // After the condense: the task, the summary (as an assistant's, with a call it kept), what followed.
    assert_eq!(
        items(Some(Format::KiloCode), &first(KILO, 5)),
        [
            "user (compaction): <compaction_summary>\n## Summary\nLint reported 3 errors in src/x.ts.\n</compaction_summary>",
            "user: <task>\nFix the lint errors\n</task><environment_details>\n# Current Mode\ncode\n</environment_details>",
            "call call_k1 read_file {\"path\":\"src/x.ts\"}",
            "result call_k1: let a = 1",
        ]
    );
    // After the sliding window hid the summary and its call: the task, the marker, the rest.
    assert_eq!(
        items(Some(Format::KiloCode), KILO),
        [
            "user (compaction): <compaction_summary>\n[Sliding window truncation: 2 messages hidden to reduce context]\n</compaction_summary>",
            "user: <task>\nFix the lint errors\n</task><environment_details>\n# Current Mode\ncode\n</environment_details>",
            "assistant: Fixing the first error.",
            "call call_k2 apply_diff {\"diff\":\"-let a\\n+const a\",\"path\":\"src/x.ts\"}",
            "result call_k2: Applied",
            "user: <feedback>\nalso rename a\n</feedback>",
            "assistant: Renamed a to count; lint is clean.",
        ]
    );
    for n in 1..=9 {
        let imported = import(Some(Format::KiloCode), &first(KILO, n)).unwrap();
        assert_eq!(imported.report.fidelity.missing, [], "after {n} messages");
    }
}

#[test]
fn what_is_not_a_history_is_said() {
    let imported = import(Some(Format::Cline), "{\"role\":\"user\"}").unwrap();
    assert_eq!(imported.records, []);
    assert_eq!(imported.report.diagnostics[0].code, "import.bad_entry");
    let imported = import(Some(Format::Cline), "[{\"role\":\"user\",\"content\":\"hi\"},").unwrap();
    assert_eq!(imported.report.diagnostics[0].code, "import.malformed_line");
    let imported = import(Some(Format::RooCode), "[1, {\"role\":\"user\"}, {\"role\":\"tool\",\"content\":\"x\"}, {\"role\":\"user\",\"content\":\"hi\"}]").unwrap();
    let said: Vec<(Option<usize>, &str)> = imported.report.diagnostics.iter().map(|d| (d.line, d.code.as_str())).collect();
    assert_eq!(said, [(Some(1), "import.not_an_object"), (Some(2), "import.bad_message"), (Some(3), "import.bad_message")]);
    assert_eq!(imported.report.lines, 4);
    assert_eq!(items(Some(Format::RooCode), "[{\"role\":\"user\",\"content\":\"hi\"}]"), ["user: hi"]);
}

const TRUNCATED: &str = include_str!("../../../../tests/fixtures/cline-task/truncated/api_conversation_history.json");
const TRUNCATED_CHAT: &str = include_str!("../../../../tests/fixtures/cline-task/truncated/ui_messages.json");

#[test]
fn with_its_chat_a_cline_task_hides_what_its_truncation_hid_and_anchors_each_request() {
    let env = "<environment_details>\n# Current Mode\nACT MODE\n</environment_details>";
    let tree = crate::dispatch::import_tree(None, TRUNCATED, &[TRUNCATED_CHAT]).unwrap();
    assert_eq!((tree.children.len(), tree.unlinked.len()), (0, 0), "the chat is the task's, no child");
    let parent = &tree.parent;
    assert_eq!(parent.report.fidelity.missing, []);
    let items = crate::test_items::describe(&parent.records);
    // The first exchange as the truncation's summary, then what came after the range ([2, 3]):
    // the result of the call the range took away is left for the view's repair to drop.
    assert_eq!(
        items,
        [
            format!("user (compaction): <compaction_summary>\n<task>\nRefactor the parser\n</task>\n\n{env}\n\nReading the parser.\n</compaction_summary>"),
            "result toolu_t2: [read_file for 'src/lexer.rs'] Result:\nfn lex() {}".to_owned(),
            format!("user: {env}"),
            "call toolu_t3 write_to_file {\"content\":\"fn parse(tokens: &[Token]) {}\",\"path\":\"src/parser.rs\"}".to_owned(),
            "result toolu_t3: [write_to_file for 'src/parser.rs'] Result:\nsaved".to_owned(),
            format!("user: {env}"),
            "call toolu_t4 execute_command {\"command\":\"cargo test\"}".to_owned(),
            "result toolu_t4: [execute_command for 'cargo test'] Result:\ntest result: ok".to_owned(),
            format!("user: {env}"),
            "assistant: Done: the parser takes tokens now.".to_owned(),
        ]
    );
    // The requests before the truncation were sent whole.
    let before = parent.records.iter().take_while(|r| !matches!(r.body, contextview::update::record::RecordBody::Event(contextview::update::record::Event::CompactionCheckpoint(_)))).cloned().collect::<Vec<_>>();
    assert!(crate::test_items::describe(&before).iter().any(|i| i.starts_with("result toolu_t1")));
    // After repair (what a build sends), the orphan result is gone.
    let replayed = contextview::update::replay(&parent.records).items;
    let (view, _) = contextview::view::repair::repair(&replayed, &Default::default());
    assert!(!view.iter().any(|i| matches!(i.as_ref(), contextview::conversation::Item::ToolResult(r) if r.call_id == "toolu_t2")));
    // Each answer's usage as the chat recorded it (input, cache reads, cache writes, output).
    let usage: Vec<String> = crate::test_items::events(&parent.records).into_iter().filter(|e| e.starts_with("usage")).collect();
    assert_eq!(
        usage,
        ["usage 3000+0r+0w in, 40 out", "usage 200+3000r+0w in, 30 out", "usage 300+3200r+0w in, 60 out", "usage 900+0r+1200w in, 30 out", "usage 150+2100r+0w in, 20 out"]
    );
    // Without its chat, the whole history is the view.
    let alone = import(None, TRUNCATED).unwrap();
    assert!(crate::test_items::items(None, TRUNCATED).iter().any(|i| i.starts_with("result toolu_t1")));
    assert_eq!(alone.report.fidelity.missing, []);
}

#[test]
fn a_roo_task_s_chat_anchors_each_answer_by_when_its_request_started() {
    let chat = r#"[
  {"ts": 1780100000500, "type": "say", "say": "text", "text": "Add tests for the parser"},
  {"ts": 1780100001000, "type": "say", "say": "api_req_started", "text": "{\"apiProtocol\":\"openai\",\"tokensIn\":5000,\"tokensOut\":80,\"cacheWrites\":0,\"cacheReads\":1000,\"cost\":0.01}"},
  {"ts": 1780100003000, "type": "say", "say": "api_req_started", "text": "{\"apiProtocol\":\"openai\",\"tokensIn\":700,\"tokensOut\":40,\"cacheWrites\":0,\"cacheReads\":0,\"cost\":0.01}"}
]"#;
    assert!(super::ui::is_ui_messages(chat));
    assert!(!super::ui::is_ui_messages(ROO));
    let imported = crate::dispatch::import_with_chat(None, ROO, Some(chat)).unwrap();
    // Its first answer (ts 1780100002000) followed the first request; the next answer after the
    // second request is the one after the summary (ts 1780100004000).
    assert_eq!(crate::test_items::events(&imported.records).iter().filter(|e| e.starts_with("usage")).collect::<Vec<_>>(), ["usage 5000+1000r+0w in, 80 out", "usage 700+0r+0w in, 40 out"]);
}
