use pretty_assertions::assert_eq;

use contextview::update::record::{Event, RecordBody};

use crate::dispatch::{detect, import, import_tree};
use crate::format::Format;

const MAIN: &str = include_str!("../../../../tests/fixtures/opencode/ses-main.json");
const SUBAGENT: &str = include_str!("../../../../tests/fixtures/opencode/ses-subagent.json");

fn items(text: &str) -> Vec<String> {
    crate::test_items::items(None, text)
}

/// The session as it was after its first `n` messages (before its revert).
fn first(n: usize) -> String {
    let mut export: serde_json::Value = serde_json::from_str(MAIN).unwrap();
    export["messages"].as_array_mut().unwrap().truncate(n);
    export["info"].as_object_mut().unwrap().remove("revert");
    serde_json::to_string_pretty(&export).unwrap()
}

#[test]
fn an_export_imports_as_opencode_sends_it() {
    assert_eq!(detect(MAIN), Some(Format::OpenCode));
    assert_eq!(detect(SUBAGENT), Some(Format::OpenCode));
    assert_eq!(
        items(&first(4)),
        [
            "user: Why is checkout slow? See @src/cart.tsCalled the Read tool with the following input: {\"filePath\":\"/home/dev/shop/src/cart.ts\"}<file>\n00001| export function total(items) { return query('SELECT * FROM cart') }\n</file> +1 image",
            "reasoning: The query has no index. [sig-o1]",
            "assistant: Let me look for the query and profile it.",
            "call toolu_o1 grep {\"pattern\":\"SELECT\"}",
            "result toolu_o1: [Old tool result content cleared]",
            "call toolu_o2 task {\"description\":\"Profile query\",\"prompt\":\"Profile the checkout query\",\"subagent_type\":\"explore\"}",
            "result toolu_o2: task_id: ses_7a01c0ffee02OpQrStUvWxYzAb (for resuming to continue this task if needed)\n\n<task_result>\nThe query scans the whole cart table.\n</task_result>",
            "reasoning: Run the bench.",
            "call call_o3 bash {\"command\":\"npm run bench\"}",
            "result call_o3 (error): Command failed: exit 1",
            "call call_o4 read {\"filePath\":\"/home/dev/shop/bench.log\"}",
            "result call_o4 (error): [Tool execution was interrupted]",
        ]
    );
    let imported = import(None, &first(4)).unwrap();
    assert_eq!(imported.report.fidelity.missing, []);
    let source = imported.report.fidelity.source;
    assert_eq!((source.prompts, source.assistant_texts, source.reasoning, source.tool_calls, source.images), (3, 1, 2, 4, 1));
    let unmapped: Vec<(&str, usize)> = imported.report.unmapped.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(unmapped, [("assistant:failed", 1), ("file:expanded", 1), ("part:snapshot", 1)]);
    let events = crate::test_items::events(&imported.records);
    assert_eq!(
        events,
        [
            "model anthropic claude-sonnet-4-5",
            "subagent ses_7a01c0ffee02OpQrStUvWxYzAb for toolu_o2",
            "usage 1200+8000r+500w in, 300 out",
            "model openai-responses gpt-5",
            "usage 2400+0r+0w in, 90 out",
        ]
    );
    // OpenAI's reasoning goes back by its encrypted content and item id.
    let reasoning = contextview::update::replay(&imported.records).items.into_iter().find_map(|i| match i {
        contextview::conversation::Item::Reasoning(r) if r.text.as_str() == "Run the bench." => Some((r.encrypted, r.provider_id)),
        _ => None,
    });
    assert_eq!(reasoning, Some((Some("enc-o3".to_owned()), Some("rs_o3".to_owned()))));
}

#[test]
fn a_finished_summary_is_a_checkpoint_and_a_revert_hides_what_came_after_it() {
    assert_eq!(
        items(MAIN),
        [
            "user (compaction): <compaction_summary>\nSummary: checkout is slow because the cart query scans the whole table; the bench failed.\n</compaction_summary>",
            "user: Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.",
            "assistant: Adding an index on cart.user_id fixes it.",
        ]
    );
    let imported = import(None, MAIN).unwrap();
    assert_eq!(imported.report.fidelity.missing, []);
    assert_eq!(imported.report.lines, 10);
    assert_eq!(imported.header.session_id, "ses_7a01c0ffee01AbCdEfGhIjKlMn");
    assert_eq!(imported.header.cwd.as_deref(), Some("/home/dev/shop"));
    assert_eq!(imported.header.created_at.as_deref(), Some("2026-06-01T07:46:40.000Z"));
    for kind in ["compaction:request", "text:ignored", "part:patch"] {
        assert_eq!(imported.report.unmapped.get(kind), Some(&1), "{kind}");
    }
    assert_eq!(imported.report.unmapped.get("reverted:message"), Some(&2));
    let checkpoint = imported.records.iter().find_map(|r| match &r.body {
        RecordBody::Event(Event::CompactionCheckpoint(c)) => Some(c.tokens_before),
        _ => None,
    });
    assert_eq!(checkpoint, Some(Some(12_000)));
}

#[test]
fn a_task_call_links_the_session_that_ran_it() {
    let tree = import_tree(None, MAIN, &[SUBAGENT]).unwrap();
    assert_eq!((tree.missing.len(), tree.unlinked.len()), (0, 0));
    assert_eq!(tree.parent.report.subagents, ["ses_7a01c0ffee02OpQrStUvWxYzAb"]);
    let child = &tree.children[0];
    assert_eq!(child.header.parent_call_id.as_deref(), Some("toolu_o2"));
    assert_eq!(child.report.audience.as_deref(), Some("subagent"));
    assert_eq!(items(SUBAGENT), ["user: Profile the checkout query", "assistant: The query scans the whole cart table."]);
}

#[test]
fn what_is_not_an_export_is_said() {
    let imported = import(Some(Format::OpenCode), "[]").unwrap();
    assert_eq!(imported.report.diagnostics[0].code, "import.bad_entry");
    let imported = import(Some(Format::OpenCode), "{\"info\": {\"id\": \"ses_x\"}, \"messages\": [").unwrap();
    assert_eq!(imported.report.diagnostics[0].code, "import.malformed_line");
    let text = r#"{"info": {"id": "ses_x"}, "messages": [1, {"info": {"role": "tool"}, "parts": []}, {"info": {"id": "m", "role": "assistant"}, "parts": [{"type": "tool", "tool": "read"}]}]}"#;
    let imported = import(None, text).unwrap();
    let said: Vec<(Option<usize>, &str)> = imported.report.diagnostics.iter().map(|d| (d.line, d.code.as_str())).collect();
    // The call OpenCode would have sent without an id is named as missing from the view, too.
    assert_eq!(said, [(Some(1), "import.bad_message"), (Some(2), "import.bad_message"), (Some(3), "import.bad_tool_call"), (None, "import.content_missing")]);
}

/// The fixture's storage folder: one session's files, read in reverse name order (a directory
/// listing promises none).
fn storage_files(session: &str) -> (String, Vec<String>, Vec<String>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/opencode-storage");
    let read_dir = |dir: std::path::PathBuf| {
        let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        paths.reverse();
        paths
    };
    let info = std::fs::read_to_string(root.join(format!("session/9a1c0e4f5b6a/{session}.json"))).unwrap();
    let mut messages = Vec::new();
    let mut parts = Vec::new();
    for message in read_dir(root.join("message").join(session)) {
        let id = message.file_stem().unwrap().to_owned();
        messages.push(std::fs::read_to_string(&message).unwrap());
        parts.extend(read_dir(root.join("part").join(id)).iter().map(|p| std::fs::read_to_string(p).unwrap()));
    }
    (info, messages, parts)
}

#[test]
fn a_storage_folder_imports_as_its_export_does_with_its_subagent() {
    use crate::opencode::storage::Files;
    let (main, sub) = (storage_files("ses_7a01c0ffee01AbCdEfGhIjKlMn"), storage_files("ses_7a01c0ffee02OpQrStUvWxYzAb"));
    fn strs(texts: &[String]) -> Vec<&str> {
        texts.iter().map(String::as_str).collect()
    }
    let (main_messages, main_parts, sub_messages, sub_parts) = (strs(&main.1), strs(&main.2), strs(&sub.1), strs(&sub.2));
    let from_storage = crate::dispatch::import_opencode_storage(
        Files { session: &main.0, messages: &main_messages, parts: &main_parts },
        &[Files { session: &sub.0, messages: &sub_messages, parts: &sub_parts }],
    )
    .unwrap();
    // The whole tree: logs, links, reports (fidelity included), nothing left out.
    assert_eq!(from_storage, import_tree(None, MAIN, &[SUBAGENT]).unwrap());
    assert_eq!((main_messages.len(), main_parts.len(), from_storage.parent.report.lines), (10, 28, 10));
}

#[test]
fn what_the_import_says_of_a_stored_message_names_its_file() {
    use crate::opencode::storage::Files;
    let session = r#"{"id":"ses_1","time":{"created":1780300000000}}"#;
    // Given out of order: the export's second message is the first file.
    let messages = [
        r#"{"id":"msg_2","sessionID":"ses_1","role":"narrator","time":{"created":1780300001000}}"#,
        r#"{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1780300000000}}"#,
    ];
    let parts = [r#"{"id":"prt_1","messageID":"msg_1","type":"text","text":"hello"}"#, r#"{"id":"prt_2","messageID":"msg_2","type":"text","text":"who?"}"#];
    let tree = crate::dispatch::import_opencode_storage(Files { session, messages: &messages, parts: &parts }, &[]).unwrap();
    let said: Vec<(Option<usize>, Option<String>, String)> = tree.parent.report.diagnostics.iter().map(|d| (d.line, d.path.clone(), d.code.clone())).collect();
    assert_eq!(said, vec![(None, Some("messages[0]".to_owned()), "import.bad_message".to_owned())]);
}
