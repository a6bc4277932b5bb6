//! Subagents as linked child sessions: a delegation call answered by a session of its own,
//! whose report comes back as the call's result; children run at once and end in any order;
//! a report over its budget is cut visibly; a child that fails leaves a synthetic result; a
//! reopened parent finds its children; their usage rolls up into the parent's report.

use contextview::session::{Command, Processed, Reply, Session, SubagentStart};
use contextview::update::record::{Spent, SubagentStatus};
use contextview::update::Header;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const NOW: &str = "2026-12-05T10:00:00Z";

fn run(s: &mut Session, value: Value) -> Processed {
    let command: Command = serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{value}: {e}"));
    s.dispatch(command, Some(NOW.into())).unwrap()
}

fn ok(s: &mut Session, value: Value) -> Processed {
    let p = run(s, value);
    assert!(p.error.is_none(), "{:?}", p.error);
    p
}

fn refused(s: &mut Session, value: Value) -> String {
    let records = s.records().len();
    let p = run(s, value);
    assert_eq!(s.records().len(), records, "a refused command writes nothing");
    p.error.expect("refused").code
}

fn built(s: &mut Session) -> Value {
    match ok(s, json!({"type": "buildRequest"})).reply {
        Some(Reply::Built { body, .. }) => serde_json::from_str(&body).unwrap(),
        other => panic!("not built: {other:?}"),
    }
}

fn report(s: &mut Session) -> Box<contextview::Report> {
    match ok(s, json!({"type": "buildRequest"})).reply {
        Some(Reply::Built { report, .. }) => report,
        other => panic!("not built: {other:?}"),
    }
}

/// A parent whose model asked for three subagents at once.
fn parent() -> Session {
    let mut s = Session::create(Header::new("parent"));
    ok(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}));
    ok(&mut s, json!({"type": "setPromptContext", "context": {"label": "Forge", "cwd": "/repo", "tools": ["read", "grep", "Task"]}}));
    ok(&mut s, json!({"type": "userMessage", "text": "Audit the three crates."}));
    ok(&mut s, json!({"type": "assistantResponse", "text": "Starting three audits.", "toolCalls": [
        {"id": "t1", "name": "Task", "input": {"prompt": "Audit crate a"}},
        {"id": "t2", "name": "Task", "input": {"prompt": "Audit crate b"}},
        {"id": "t3", "name": "Task", "input": {"prompt": "Audit crate c"}},
    ], "usage": {"inputTokens": 900, "outputTokens": 60}}));
    s
}

fn start(s: &mut Session, call: &str, task: &str, extra: Value) -> SubagentStart {
    let mut command = json!({"type": "startSubagent", "toolCallId": call, "task": task});
    command.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    match ok(s, command).reply {
        Some(Reply::SubagentStarted { child, .. }) => *child,
        other => panic!("not started: {other:?}"),
    }
}

/// A child that answers with one tool round, then its report.
fn run_child(start: &SubagentStart, report: &str, input_tokens: u64, output_tokens: u64) -> Session {
    let mut child = Session::for_subagent(start, Some(NOW.into())).unwrap();
    ok(&mut child, json!({"type": "assistantResponse", "toolCalls": [{"id": "g1", "name": "grep", "input": {"pattern": "unsafe"}}],
        "usage": {"inputTokens": input_tokens, "outputTokens": 10}}));
    ok(&mut child, json!({"type": "toolResult", "toolCallId": "g1", "output": "src/lib.rs:10: unsafe { … }"}));
    ok(&mut child, json!({"type": "assistantResponse", "text": report, "usage": {"inputTokens": input_tokens + 50, "outputTokens": output_tokens}}));
    child
}

/// The Anthropic request's tool results, in order: (tool_use_id, text, is_error).
fn results(body: &Value) -> Vec<(String, String, bool)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let text = match &b["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
                _ => String::new(),
            };
            (b["tool_use_id"].as_str().unwrap().to_owned(), text, b["is_error"].as_bool().unwrap_or(false))
        })
        .collect()
}

#[test]
fn three_children_end_out_of_order_and_the_parent_keeps_call_order() {
    let mut p = parent();
    let starts: Vec<SubagentStart> = ["a", "b", "c"].iter().enumerate().map(|(i, c)| start(&mut p, &format!("t{}", i + 1), &format!("Audit crate {c}"), json!({}))).collect();
    // Each child is a session of its own: linked by its header, prompted for its task, without
    // the tool that starts agents, on the parent's model.
    assert_eq!(starts[1].header.session_id, "parent/t2");
    assert_eq!(starts[1].header.parent_session_id.as_deref(), Some("parent"));
    assert_eq!(starts[1].header.parent_call_id.as_deref(), Some("t2"));
    let mut children: Vec<Session> = starts.iter().zip(["A has no unsafe code.", "B: two unsafe blocks, both sound.", "C: one unsound transmute in c/src/raw.rs."]).zip([100, 200, 300])
        .map(|((start, report), tokens)| run_child(start, report, tokens, 20))
        .collect();
    let child_body = built(&mut children[0]);
    assert_eq!(child_body["model"], "claude-sonnet-4-5");
    assert!(child_body["system"].to_string().contains("subagent of Forge"), "{}", child_body["system"]);
    assert!(child_body["system"].to_string().contains("Audit crate a"));
    let tools: Vec<&str> = child_body["tools"].as_array().map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect()).unwrap_or_default();
    assert!(!tools.contains(&"Task"), "{tools:?}");
    let first = child_body["messages"][0]["content"].to_string();
    assert!(first.contains("Audit crate a"), "the task is the child's first prompt: {first}");
    assert_eq!(children[0].state().parent_call_id.as_deref(), Some("t1"));
    // They end c, a, b.
    for i in [2, 0, 1] {
        let report = children[i].final_answer().unwrap();
        let spent = children[i].spent();
        ok(&mut p, json!({"type": "endSubagent", "toolCallId": format!("t{}", i + 1), "report": report, "usage": spent}));
    }
    let body = built(&mut p);
    assert_eq!(
        results(&body),
        vec![
            ("t1".to_owned(), "A has no unsafe code.".to_owned(), false),
            ("t2".to_owned(), "B: two unsafe blocks, both sound.".to_owned(), false),
            ("t3".to_owned(), "C: one unsound transmute in c/src/raw.rs.".to_owned(), false),
        ]
    );
    // Their usage rolls up: two requests each, input 100+150, 200+250, 300+350; output 10+20 each.
    let r = report(&mut p);
    let subagents = r.subagents.clone().unwrap();
    assert_eq!((subagents.started, subagents.running, subagents.failed), (3, 0, 0));
    assert_eq!(
        subagents.spent,
        Spent { requests: 6, input_tokens: 250 + 450 + 650, output_tokens: 90, cache_read_tokens: 0, cache_write_tokens: 0 }
    );
    assert_eq!(p.state().spent, Spent { requests: 1, input_tokens: 900, output_tokens: 60, ..Spent::default() }, "the parent's own");
    // A reopened parent finds its children, and builds the same request.
    let log = p.snapshot().unwrap().log;
    let mut reopened = Session::from_log(&log);
    let links = reopened.state().subagents;
    assert_eq!(
        links.iter().map(|l| (l.call_id.as_str(), l.session_id.as_str(), l.status)).collect::<Vec<_>>(),
        vec![("t1", "parent/t1", SubagentStatus::Completed), ("t2", "parent/t2", SubagentStatus::Completed), ("t3", "parent/t3", SubagentStatus::Completed)]
    );
    assert_eq!(links[2].task, "Audit crate c");
    assert_eq!(built(&mut reopened), body);
    // And a child's log says whose it is.
    let child_log = children[1].snapshot().unwrap().log;
    let header: Value = serde_json::from_str(child_log.lines().next().unwrap()).unwrap();
    assert_eq!((header["parentSessionId"].as_str(), header["parentCallId"].as_str()), (Some("parent"), Some("t2")));
}

#[test]
fn a_report_over_its_budget_is_cut_with_a_marker() {
    let mut p = parent();
    let s = start(&mut p, "t1", "Audit crate a", json!({"reportTokens": 60}));
    assert_eq!(s.context.report_tokens, Some(60));
    let long: String = (0..80).map(|i| format!("Finding {i}: the parser copies its input once more than it needs to.\n")).collect();
    let mut child = run_child(&s, &long, 100, 900);
    assert_eq!(child.final_answer().as_deref(), Some(long.as_str()));
    ok(&mut p, json!({"type": "endSubagent", "toolCallId": "t1", "report": long}));
    let body = built(&mut p);
    let (_, text, is_error) = results(&body).into_iter().find(|(id, ..)| id == "t1").unwrap();
    assert!(!is_error);
    assert!(text.starts_with("Finding 0: the parser copies its input"), "{text}");
    assert!(text.len() < long.len());
    assert!(long.starts_with(text.split("\n\n[…").next().unwrap()), "what is kept is the report's start");
    assert!(text.contains("more tokens, over its budget of 60 (reportTokens) …]"), "{text}");
    assert!(contextview::tokens::text_tokens(&text, contextview::tokens::Family::Anthropic).ceil() as u32 <= 60);
    let link = &p.state().subagents[0];
    assert!(link.trimmed);
}

#[test]
fn a_child_that_fails_leaves_its_call_answered_never_dangling() {
    let mut p = parent();
    for call in ["t1", "t2", "t3"] {
        start(&mut p, call, "Audit", json!({}));
    }
    // t2's child lost its storage; t1 and t3 reported.
    ok(&mut p, json!({"type": "endSubagent", "toolCallId": "t1", "report": "fine"}));
    ok(&mut p, json!({"type": "endSubagent", "toolCallId": "t2", "error": "its storage failed: disk full"}));
    ok(&mut p, json!({"type": "endSubagent", "toolCallId": "t3", "report": "fine too"}));
    let body = built(&mut p);
    assert_eq!(
        results(&body),
        vec![
            ("t1".to_owned(), "fine".to_owned(), false),
            ("t2".to_owned(), "The subagent stopped before it reported: its storage failed: disk full".to_owned(), true),
            ("t3".to_owned(), "fine too".to_owned(), false),
        ]
    );
    let r = report(&mut p);
    assert_eq!(r.repairs, vec![], "nothing to repair: every call has its result");
    assert_eq!(r.subagents.as_ref().map(|s| (s.started, s.running, s.failed)), Some((3, 0, 1)));
    assert_eq!(p.state().subagents[1].status, SubagentStatus::Failed);
}

#[test]
fn subagent_commands_refuse_what_cannot_be() {
    let mut p = parent();
    assert_eq!(refused(&mut p, json!({"type": "startSubagent", "toolCallId": "nope", "task": "x"})), "unknown_tool_call");
    assert_eq!(refused(&mut p, json!({"type": "startSubagent", "toolCallId": "t1", "task": "  "})), "invalid_options");
    assert_eq!(refused(&mut p, json!({"type": "startSubagent", "toolCallId": "t1", "task": "x", "sessionId": "parent"})), "invalid_options");
    assert_eq!(refused(&mut p, json!({"type": "endSubagent", "toolCallId": "t1", "report": "r"})), "no_subagent");
    start(&mut p, "t1", "Audit a", json!({}));
    assert_eq!(refused(&mut p, json!({"type": "startSubagent", "toolCallId": "t1", "task": "again"})), "subagent_call");
    assert_eq!(refused(&mut p, json!({"type": "endSubagent", "toolCallId": "t1"})), "invalid_options");
    assert_eq!(refused(&mut p, json!({"type": "endSubagent", "toolCallId": "t1", "report": "r", "error": "e"})), "invalid_options");
    ok(&mut p, json!({"type": "toolResult", "toolCallId": "t2", "output": "done by hand"}));
    assert_eq!(refused(&mut p, json!({"type": "startSubagent", "toolCallId": "t2", "task": "x"})), "subagent_call");
    ok(&mut p, json!({"type": "endSubagent", "toolCallId": "t1", "report": "r"}));
    assert_eq!(refused(&mut p, json!({"type": "endSubagent", "toolCallId": "t1", "report": "again"})), "no_subagent");
    // Another model for a child: its own provider, model and window; no parent window carried over.
    let other = start(&mut p, "t3", "Audit c", json!({"provider": "openai-responses", "model": "gpt-5", "maxTokens": 2000, "tools": ["read"]}));
    assert_eq!((other.provider.map(|p| p.as_str()), other.model.as_deref(), other.context_window), (Some("openai-responses"), Some("gpt-5"), None));
    let mut child = Session::for_subagent(&other, Some(NOW.into())).unwrap();
    let body = built(&mut child);
    assert_eq!(body["model"], "gpt-5");
    assert_eq!(body["max_output_tokens"], 2000);
}

// --- Claude Code files with subagents -------------------------------------------------------

/// Our fixture (tests/fixtures/claude-subagents): a Claude Code 2.x session whose model ran two
/// Task calls at once, its two subagents' own files, and an agent file that answers none of them.
const CLAUDE_PARENT: &str = include_str!("../fixtures/claude-subagents/s-main.jsonl");
const CLAUDE_AGENT_A: &str = include_str!("../fixtures/claude-subagents/s-main/subagents/agent-aaa1.jsonl");
const CLAUDE_AGENT_B: &str = include_str!("../fixtures/claude-subagents/s-main/subagents/agent-bbb2.jsonl");
const CLAUDE_AGENT_OTHER: &str = include_str!("../fixtures/claude-subagents/agent-zzz9.jsonl");

#[test]
fn a_claude_code_session_and_its_agent_files_import_as_a_linked_tree() {
    use contextview_import::{import_tree, Format};
    let (parent, a, b, other) = (CLAUDE_PARENT, CLAUDE_AGENT_A, CLAUDE_AGENT_B, CLAUDE_AGENT_OTHER);
    let tree = import_tree(Some(Format::ClaudeCode), parent, &[b, a, other]).unwrap();
    // The parent's log links each call to the session that answered it.
    let log = contextview::update::write_log(&tree.parent.header, &tree.parent.records);
    let mut p = Session::from_log(&log);
    let links: Vec<(String, String, String, SubagentStatus)> =
        p.state().subagents.into_iter().map(|l| (l.call_id, l.session_id, l.task, l.status)).collect();
    assert_eq!(
        links,
        vec![
            ("toolu_1".into(), "s-main/agent-aaa1".into(), "Audit crate a".into(), SubagentStatus::Completed),
            ("toolu_2".into(), "s-main/agent-bbb2".into(), "Audit crate b".into(), SubagentStatus::Completed),
        ]
    );
    assert_eq!(tree.parent.report.subagents, vec!["s-main/agent-aaa1", "s-main/agent-bbb2"]);
    assert!(tree.parent.report.fidelity.missing.is_empty(), "{:?}", tree.parent.report.fidelity.missing);
    // Each child names its parent and call; the unrelated file is listed, nothing is missing.
    let named: Vec<(String, Option<String>, Option<String>)> =
        tree.children.iter().map(|c| (c.header.session_id.clone(), c.header.parent_session_id.clone(), c.header.parent_call_id.clone())).collect();
    assert_eq!(
        named,
        vec![
            ("s-main/agent-bbb2".into(), Some("s-main".into()), Some("toolu_2".into())),
            ("s-main/agent-aaa1".into(), Some("s-main".into()), Some("toolu_1".into())),
            ("s-main/agent-zzz9".into(), Some("s-main".into()), None),
        ]
    );
    assert_eq!(tree.unlinked, vec!["s-main/agent-zzz9"]);
    assert!(tree.missing.is_empty());
    // Every child call and prompt reaches the child's view; the parent's Task result is the
    // child's report.
    let body = built(&mut p);
    for child in &tree.children[..2] {
        let fidelity = &child.report.fidelity;
        assert!(fidelity.missing.is_empty(), "{:?}", fidelity.missing);
        assert_eq!((fidelity.view.prompts, fidelity.view.tool_calls, fidelity.view.assistant_texts), (1, 1, 1));
        assert_eq!(child.report.audience.as_deref(), Some("subagent"));
        let mut session = Session::from_log(&contextview::update::write_log(&child.header, &child.records));
        let report = session.final_answer().unwrap();
        let call = child.header.parent_call_id.clone().unwrap();
        let (_, result, _) = results(&body).into_iter().find(|(id, ..)| *id == call).unwrap();
        assert_eq!(result, report, "{call}");
        assert_eq!(session.state().parent_call_id, Some(call));
    }
    // The parent alone says which children's files it lacks.
    let alone = import_tree(Some(Format::ClaudeCode), parent, &[a]).unwrap();
    assert_eq!(alone.missing, vec!["s-main/agent-bbb2"]);
}

#[test]
fn a_subagent_known_only_from_its_parents_progress_entries_imports_from_them() {
    use contextview_import::{import_tree, Format};
    let parent = include_str!("../fixtures/claude-subagents/s-prog.jsonl");
    let tree = import_tree(Some(Format::ClaudeCode), parent, &[]).unwrap();
    assert!(tree.missing.is_empty(), "{:?}", tree.missing);
    assert_eq!(tree.children.len(), 1);
    let child = &tree.children[0];
    assert!(child.report.from_progress);
    assert_eq!(
        (child.header.session_id.as_str(), child.header.parent_session_id.as_deref(), child.header.parent_call_id.as_deref()),
        ("s-prog/agent-ppp1", Some("s-prog"), Some("toolu_p1"))
    );
    assert!(child.report.fidelity.missing.is_empty(), "{:?}", child.report.fidelity.missing);
    assert_eq!((child.report.fidelity.view.prompts, child.report.fidelity.view.tool_calls), (1, 1));
    let mut session = Session::from_log(&contextview::update::write_log(&child.header, &child.records));
    assert_eq!(session.state().prompts, vec!["Find the config loader"]);
    let body = built(&mut session);
    assert_eq!(results(&body), vec![("toolu_g1".to_owned(), "src/config.rs:12: pub fn load_config".to_owned(), false)]);
    // The parent links it to its call.
    let mut parent_links = Session::from_log(&contextview::update::write_log(&tree.parent.header, &tree.parent.records));
    assert_eq!(parent_links.state().subagents.len(), 1);
}

#[test]
fn simulate_prices_the_subagents_share_at_each_ones_model() {
    use contextview::cost::{model_for, CostModel};
    use contextview::simulate::{simulate, SimulateInput};
    use contextview::Provider;
    let mut p = parent();
    let on_parent = start(&mut p, "t1", "Audit crate a", json!({}));
    let on_haiku = start(&mut p, "t2", "Audit crate b", json!({"model": "claude-haiku-4-5"}));
    start(&mut p, "t3", "Audit crate c", json!({}));
    assert_eq!(on_parent.model.as_deref(), Some("claude-sonnet-4-5"));
    ok(&mut p, json!({"type": "endSubagent", "toolCallId": "t1", "report": "a",
        "usage": {"requests": 2, "inputTokens": 1000, "outputTokens": 100, "cacheReadTokens": 4000, "cacheWriteTokens": 500}}));
    ok(&mut p, json!({"type": "endSubagent", "toolCallId": "t2", "report": "b", "usage": {"requests": 1, "inputTokens": 2000, "outputTokens": 300}}));
    ok(&mut p, json!({"type": "endSubagent", "toolCallId": "t3", "error": "stopped"}));
    assert_eq!(on_haiku.model.as_deref(), Some("claude-haiku-4-5"));
    // Price rows of the host's: sonnet 3 / 15 / 0.3 / 3.75, haiku 1 / 5 / 0.1 / 1.25 per million.
    let row = |prefix: &str, prices: [f64; 4]| {
        let mut row: CostModel = model_for(Provider::Anthropic, "claude-sonnet-4-5", &[]).unwrap();
        row.model_prefix = prefix.to_owned();
        (row.prices.input, row.prices.output, row.prices.cache_read, row.prices.cache_write) = (prices[0], prices[1], prices[2], prices[3]);
        row
    };
    let rows = vec![row("claude-sonnet", [3.0, 15.0, 0.3, 3.75]), row("claude-haiku", [1.0, 5.0, 0.1, 1.25])];
    let log = p.snapshot().unwrap().log;
    let input = SimulateInput { log, options: serde_json::from_value(json!({"provider": "anthropic"})).unwrap(), policies: Vec::new(), cost_models: rows };
    let share = simulate(&input).unwrap().subagents.unwrap();
    assert_eq!(share.started, 3);
    assert_eq!(share.spent, Spent { requests: 3, input_tokens: 3000, output_tokens: 400, cache_read_tokens: 4000, cache_write_tokens: 500 });
    // t1 at sonnet's: 1000×3 + 100×15 + 4000×0.3 + 500×3.75 = 7575; t2 at haiku's: 2000×1 + 300×5 = 3500.
    assert!((share.dollars - (7575.0 + 3500.0) / 1e6).abs() < 1e-12, "{}", share.dollars);
}

#[test]
fn a_task_result_that_names_its_agent_in_text_links_and_no_other_result_does() {
    use contextview_import::{import_tree, Format};
    let parent = include_str!("../fixtures/claude-subagents/s-text.jsonl");
    let tree = import_tree(Some(Format::ClaudeCode), parent, &[]).unwrap();
    let mut p = Session::from_log(&contextview::update::write_log(&tree.parent.header, &tree.parent.records));
    let links: Vec<(String, String, String)> = p.state().subagents.into_iter().map(|l| (l.call_id, l.session_id, l.task)).collect();
    assert_eq!(links, vec![("toolu_t".to_owned(), "s-text/agent-ccc3".to_owned(), "Audit crate c".to_owned())]);
    assert_eq!(tree.missing, vec!["s-text/agent-ccc3"]);
    assert!(tree.parent.report.fidelity.missing.is_empty());
}

#[test]
fn every_subagent_the_log_started_is_listed_across_a_compaction_that_starts_a_new_chain() {
    use contextview_import::{import_tree, Format};
    // The inline session, then a compaction whose summary starts a new chain (no parent, as 1.x
    // wrote it), and a second delegation after it, held inline too.
    let text = include_str!("../fixtures/claude-subagents/s-inline-compacted.jsonl");
    let tree = import_tree(Some(Format::ClaudeCode), text, &[]).unwrap();
    assert_eq!(tree.children.len(), 2, "both children imported");
    assert_eq!(tree.parent.report.written.get("rewind"), Some(&1), "the new chain is a branch in the log");
    let mut p = Session::from_log(&contextview::update::write_log(&tree.parent.header, &tree.parent.records));
    let links: Vec<(String, String)> = p.state().subagents.into_iter().map(|l| (l.call_id, l.session_id)).collect();
    assert_eq!(links, vec![("toolu_d".to_owned(), "s-inline/sidechain-s1".to_owned()), ("toolu_e".to_owned(), "s-inline/sidechain-e1".to_owned())]);
    // What the requests before the compaction spent counts too.
    let spent = p.state().spent;
    assert_eq!(spent.requests, 3, "{spent:?}");
    // The view is the new chain's: the earlier exchange is behind the compaction.
    let body = built(&mut p).to_string();
    assert!(body.contains("crate d was audited") && !body.contains("Audit crate d."), "{body}");
}

#[test]
fn a_subagent_held_inline_as_sidechain_entries_imports_linked_by_its_prompt() {
    use contextview_import::{import_tree, Format};
    let parent = include_str!("../fixtures/claude-subagents/s-inline.jsonl");
    let tree = import_tree(Some(Format::ClaudeCode), parent, &[]).unwrap();
    let mut p = Session::from_log(&contextview::update::write_log(&tree.parent.header, &tree.parent.records));
    let links: Vec<(String, String, String)> = p.state().subagents.into_iter().map(|l| (l.call_id, l.session_id, l.task)).collect();
    assert_eq!(links, vec![("toolu_d".to_owned(), "s-inline/sidechain-s1".to_owned(), "Audit crate d".to_owned())]);
    assert!(tree.missing.is_empty(), "{:?}", tree.missing);
    assert_eq!(tree.children.len(), 1);
    let child = &tree.children[0];
    assert_eq!((child.header.session_id.as_str(), child.header.parent_call_id.as_deref()), ("s-inline/sidechain-s1", Some("toolu_d")));
    assert!(child.report.fidelity.missing.is_empty(), "{:?}", child.report.fidelity.missing);
    assert_eq!((child.report.fidelity.view.prompts, child.report.fidelity.view.tool_calls), (1, 1));
    // The parent's Task result is the child's report; the parent's own view leaves the sidechain out.
    let mut session = Session::from_log(&contextview::update::write_log(&child.header, &child.records));
    let body = built(&mut p);
    let (_, result, _) = results(&body).into_iter().find(|(id, ..)| id == "toolu_d").unwrap();
    assert_eq!(Some(result), session.final_answer());
    assert_eq!(results(&body).len(), 1, "the child's own calls are not the parent's");
    assert!(tree.parent.report.fidelity.missing.is_empty());
}
