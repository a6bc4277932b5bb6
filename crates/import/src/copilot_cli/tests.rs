use pretty_assertions::assert_eq;

use crate::dispatch::{detect, import};
use crate::format::Format;

const EVENTS: &str = include_str!("../../../../tests/fixtures/copilot-cli.jsonl");

/// The file up to the compaction (what the session held before it).
fn before_compaction() -> String {
    EVENTS.lines().take_while(|l| !l.contains("\"session.compaction_start\"")).map(|l| format!("{l}\n")).collect()
}

fn items(text: &str) -> Vec<String> {
    crate::test_items::items(None, text)
}

/// What an import counted and left out, by kind.
fn unmapped(imported: &crate::Imported) -> Vec<(&str, usize)> {
    imported.report.unmapped.iter().map(|(k, n)| (k.as_str(), *n)).collect()
}

#[test]
fn the_events_import_as_the_cli_replays_them_to_its_model() {
    let text = before_compaction();
    assert_eq!(detect(&text), Some(Format::CopilotCli));
    assert_eq!(
        items(&text),
        [
            "user: <current_datetime>2026-06-03T08:00:02.000Z</current_datetime>\n\nWhy is the build slow? +1 image",
            "reasoning: The build script may run on every build.",
            "call toolu_a1 report_intent {\"intent\":\"Profiling the build\"}",
            "call toolu_a2 view {\"path\":\"/work/app/build.rs\"}",
            "call toolu_a3 powershell {\"-n\":true,\"command\":\"cargo build --timings\"}",
            "result toolu_a1: Intent logged",
            "result toolu_a3 (error): command timed out after 30s",
            "result toolu_a2: 1. fn main() { println!(\"cargo:rerun-if-changed=.\"); }",
            "user: also check the linker",
            "assistant: `rerun-if-changed=.` makes the build script run on every change in the crate.",
            "user (auto_continue): You have not yet marked the task as complete using the task_complete tool.",
            "assistant: Delegating the linker check.",
            "call call_t1 task {\"agent_type\":\"explore\",\"prompt\":\"Check the linker flags.\"}",
            "result call_t1: The linker is lld (.cargo/config.toml).",
            "user (system_reminder): Background agent 'explore' completed.",
        ]
    );
    let imported = import(None, &text).unwrap();
    assert_eq!(imported.header.session_id, "7a1d0c55-4444-4c1e-9a3e-000000000004");
    assert_eq!(imported.header.cwd.as_deref(), Some("/work/app"));
    assert_eq!(imported.report.fidelity.missing, []);
    let source = imported.report.fidelity.source;
    assert_eq!((source.prompts, source.assistant_texts, source.reasoning, source.tool_calls, source.images), (2, 2, 1, 4, 1));
    assert_eq!(
        crate::test_items::events(&imported.records),
        ["model anthropic claude-sonnet-4.6", "model openai-chat gpt-5.2", "subagent 7a1d0c55-4444-4c1e-9a3e-000000000004/agent-call_t1 for call_t1"]
    );
}

#[test]
fn a_compaction_keeps_what_came_after_its_start_and_the_rest_is_counted() {
    assert_eq!(
        items(EVENTS),
        [
            "user (compaction): <compaction_summary>\nThe user asked why the build is slow; the build script reruns on every change.\n</compaction_summary>",
            "assistant: Done: drop `rerun-if-changed=.`; the linker is already lld.",
        ]
    );
    let imported = import(None, EVENTS).unwrap();
    let report = &imported.report;
    assert_eq!(report.fidelity.missing, []);
    let unmapped: Vec<(&str, usize)> = report.unmapped.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        unmapped,
        [
            ("assistant.turn_end", 3),
            ("assistant.turn_start", 3),
            ("attachment:file", 1),
            ("hook.end", 1),
            ("hook.start", 1),
            ("session.error", 1),
            ("session.info", 1),
            ("session.mode_changed", 1),
            ("session.usage_checkpoint", 1),
            ("subagent.completed", 1),
            ("subagent:assistant.message", 1),
            ("subagent:tool.execution_complete", 1),
            ("tool.execution_complete:repeated", 1),
            ("tool.execution_start", 4),
            ("tool.user_requested", 1),
            ("tool:user_requested", 1),
        ]
    );
    let codes: Vec<(&str, Option<usize>)> = report.diagnostics.iter().map(|d| (d.code.as_str(), d.line)).collect();
    assert_eq!(codes, [("import.malformed_line", Some(41))]);
}

#[test]
fn a_subagent_s_events_in_the_file_make_its_own_session_linked_to_the_task_call() {
    let tree = crate::dispatch::import_tree(None, EVENTS, &[]).unwrap();
    let session = "7a1d0c55-4444-4c1e-9a3e-000000000004/agent-call_t1";
    assert_eq!(tree.parent.report.subagents, [session]);
    assert_eq!((tree.missing.len(), tree.unlinked.len(), tree.children.len()), (0, 0, 1));
    let child = &tree.children[0];
    assert_eq!(child.header.session_id, session);
    assert_eq!(child.header.parent_session_id.as_deref(), Some("7a1d0c55-4444-4c1e-9a3e-000000000004"));
    assert_eq!(child.header.parent_call_id.as_deref(), Some("call_t1"));
    assert_eq!((child.report.audience.as_deref(), child.report.from_progress), (Some("subagent"), true));
    assert_eq!(child.report.fidelity.missing, []);
    // Its task as its prompt, then what it did; the parent got only its result.
    let (_, transcript) = &super::subagent_transcripts(EVENTS)[0];
    assert_eq!(
        items(transcript),
        [
            "user: Check the linker flags.",
            "call call_s1 grep {\"pattern\":\"linker\"}",
            "result call_s1: .cargo/config.toml: linker = \"lld\"",
        ]
    );
}

/// A newer CLI's file (1.0.64 and later): images kept as session assets, an answer written in
/// chunks of one API call, a skill's body delivered to the model, a cleared conversation.
const ASSETS: &str = include_str!("../../../../tests/fixtures/copilot-cli-assets.jsonl");

#[test]
fn a_newer_file_with_assets_chunks_a_skill_and_a_clear_imports_as_the_cli_replays_it() {
    let before_clear: String = ASSETS.lines().take_while(|l| !l.contains("\"session.context_cleared\"")).map(|l| format!("{l}\n")).collect();
    assert_eq!(
        items(&before_clear),
        [
            // The screenshot (an asset) and the mockup (a file kept as one); the third was too
            // large to keep.
            "user: The header is misaligned, see the screenshot and the mockup. +2 image",
            "reasoning: The screenshot shows the logo pushed down.",
            "assistant: Looking at the header styles first.",
            "call toolu_s1 view {\"path\":\"/work/site/header.css\"}",
            // The answer's second chunk: the same model turn.
            "reasoning: And how it renders now.",
            "call toolu_s2 screenshot {\"url\":\"http://localhost:8000\"}",
            "user (system_reminder): <skill-context name=\"css\">Prefer flexbox alignment to margins.</skill-context>",
            "result toolu_s1: header { margin-top: 12px; }",
            // One image inline, one an asset; one not kept, one not an image.
            "result toolu_s2: Captured the page. +2 image",
            "assistant: The 12px top margin pushes the logo down; align with flexbox instead.",
        ]
    );
    // Cleared: the model sees nothing of what came before.
    assert_eq!(items(ASSETS), ["user: Now the footer: is its font size set anywhere?", "assistant: Only in footer.css, at 0.8rem."]);
    let imported = import(None, &before_clear).unwrap();
    assert_eq!(imported.report.fidelity.missing, []);
    let source = imported.report.fidelity.source;
    assert_eq!((source.prompts, source.assistant_texts, source.reasoning, source.tool_calls, source.images), (1, 2, 2, 2, 4));
    assert_eq!(unmapped(&imported), [("attachment:binary_omitted", 1), ("tool_result:binary_not_image", 1), ("tool_result:binary_omitted", 1)]);
    // The chunks of one call are one assistant message, its calls answered in the next (the
    // skill's body after their results).
    let items = contextview::update::replay(&imported.records).items;
    let options = contextview::view::BuildOptions::new(contextview::provider::Provider::Anthropic, "claude-sonnet-4-5");
    let body: serde_json::Value = serde_json::from_str(&contextview::view::build(&items, &options).unwrap().body).unwrap();
    let shape: Vec<String> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let blocks: Vec<&str> = m["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
            format!("{} {}", m["role"].as_str().unwrap(), blocks.join(","))
        })
        .collect();
    assert_eq!(
        shape,
        [
            "user text,image,image",
            "assistant text,text,tool_use,text,tool_use",
            "user tool_result,tool_result,text",
            "assistant text",
        ]
    );
    let whole = import(None, ASSETS).unwrap();
    assert_eq!(whole.report.fidelity.missing, []);
    assert_eq!(whole.report.fidelity.source.prompts, 1, "what the clear left");
}

/// A session an early CLI brought in from its older format (`session.import_legacy`), then resumed.
const LEGACY: &str = include_str!("../../../../tests/fixtures/copilot-cli-legacy.jsonl");

#[test]
fn a_session_brought_in_from_the_older_format_is_its_chat_messages_then_what_followed() {
    assert_eq!(detect(LEGACY), Some(Format::CopilotCli));
    assert_eq!(
        items(LEGACY),
        [
            "user: The login test fails on CI only.",
            "call call_l1 bash {\"command\":\"npm test -- login\"}",
            "result call_l1: 1 failing: expected 200, got 302",
            "assistant: The test follows a redirect CI does not configure.",
            "user: Here is the CI log. +1 image",
            "call call_l2 apply_patch \"*** Begin Patch\\n*** End Patch\"",
            "result call_l2: Patched.",
            "user: Does it pass now?",
            "assistant: Yes: 12 passing.",
        ]
    );
    let imported = import(None, LEGACY).unwrap();
    assert_eq!(imported.report.fidelity.missing, []);
    let source = imported.report.fidelity.source;
    assert_eq!((source.prompts, source.assistant_texts, source.tool_calls, source.images), (3, 2, 2, 1));
    // The old session's system message as the prompt's head; its model, after the one it started with.
    let heads: Vec<&str> = imported
        .records
        .iter()
        .filter_map(|r| match &r.body {
            contextview::update::record::RecordBody::Event(contextview::update::record::Event::PromptHeadSnapshot(h)) => Some(h.system.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(heads, ["You are the GitHub Copilot CLI, a terminal assistant."]);
    assert_eq!(crate::test_items::events(&imported.records), ["model anthropic claude-sonnet-4.5", "model openai-chat gpt-5"]);
    assert!(imported.report.unmapped.is_empty(), "{:?}", imported.report.unmapped);
}

#[test]
fn clears_assets_and_repeated_completions_read_alike_by_the_import_and_its_report() {
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC";
    let event = |kind: &str, data: serde_json::Value| serde_json::json!({"type": kind, "data": data, "id": format!("e-{kind}"), "timestamp": "2026-09-14T08:00:00.000Z"}).to_string() + "\n";
    let text = [
        event("session.start", serde_json::json!({"sessionId": "s", "selectedModel": "claude-sonnet-4.6"})),
        // Cleared before any prompt, twice: nothing to take back.
        event("session.context_cleared", serde_json::json!({"messagesCleared": 0})),
        event("session.context_cleared", serde_json::json!({"messagesCleared": 0})),
        // An attachment naming an asset written only after it: the CLI had not kept it.
        event("user.message", serde_json::json!({"content": "Look.", "attachments": [{"type": "blob", "mimeType": "image/png", "assetId": "sha256:late"}]})),
        // An asset a subagent's event carries is the session's.
        serde_json::json!({"type": "session.binary_asset", "agentId": "explore-1", "data": {"assetId": "sha256:late", "type": "image", "mimeType": "image/png", "data": png}}).to_string() + "\n",
        event("assistant.message", serde_json::json!({"messageId": "m1", "content": "", "toolRequests": [{"toolCallId": "t1", "name": "screenshot", "arguments": {}}]})),
        event("tool.execution_complete", serde_json::json!({"toolCallId": "t1", "success": true, "result": {"content": "shot", "binaryResultsForLlm": [{"type": "image", "assetId": "sha256:late", "mimeType": "image/png"}]}})),
        // A second completion of the same call: counted, its image not sent.
        event("tool.execution_complete", serde_json::json!({"toolCallId": "t1", "success": true, "result": {"content": "again", "binaryResultsForLlm": [{"type": "image", "data": png, "mimeType": "image/png"}]}})),
    ]
    .concat();
    let imported = import(None, &text).unwrap();
    assert_eq!(imported.report.diagnostics, [], "no rewind past the start");
    assert!(!imported.records.iter().any(|r| r.body.kind() == "rewind"));
    assert_eq!(items(&text), ["user: Look.", "call t1 screenshot {}", "result t1: shot +1 image"]);
    assert_eq!(imported.report.fidelity.missing, []);
    assert_eq!(imported.report.fidelity.source.images, 1);
    assert_eq!(unmapped(&imported), [("attachment:asset_missing", 1), ("tool.execution_complete:repeated", 1)]);
}
