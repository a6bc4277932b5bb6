//! Claude Code sessions with subagents: every call a subagent answered (its result names the
//! agent) is linked in the imported log to that agent's session, and every agent file imports as
//! a subagent's own session, linked to its call when its parent is in the corpus.
use std::path::Path;

use contextview::import::{import_tree, Format};
use contextview::session::Session;
use contextview::update::write_log;
use serde_json::Value;

fn lines(text: &str) -> Vec<Value> {
    text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

pub fn claude_code_subagents_link_to_the_calls_they_answered(dir: &Path) {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir.join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .filter(|(name, text)| !name.contains("codex") && !name.contains("pi-mono") && contextview::import::detect(text) == Some(Format::ClaudeCode))
        .collect();
    files.sort();
    // An agent's own file: every message line a sidechain with the agent's id.
    let is_agent_file = |text: &str| {
        let entries = lines(text);
        let messages: Vec<&Value> = entries.iter().filter(|e| matches!(e["type"].as_str(), Some("user" | "assistant"))).collect();
        !messages.is_empty() && messages.iter().all(|e| e["isSidechain"] == true && e["agentId"].is_string())
    };
    let (agents, mains): (Vec<_>, Vec<_>) = files.iter().partition(|(_, text)| is_agent_file(text));
    let mut links_seen = 0;
    let mut linked_children = 0;
    let mut from_progress = 0;
    let mut progress_calls = 0;
    for (name, text) in &mains {
        let entries = lines(text);
        let session = entries.iter().find_map(|e| e["sessionId"].as_str()).unwrap_or("").to_owned();
        // Counted here from the file: each main-line result whose toolUseResult names an agent,
        // once per uuid, and the calls by id with their tool's name.
        let mut seen = std::collections::HashSet::new();
        let mut expected = Vec::new();
        let mut call_names = std::collections::HashMap::new();
        let mut call_prompts = std::collections::HashMap::new();
        for e in &entries {
            for block in e.pointer("/message/content").and_then(Value::as_array).into_iter().flatten() {
                if block["type"] == "tool_use" {
                    call_names.insert(block["id"].as_str().unwrap_or("").to_owned(), block["name"].as_str().unwrap_or("").to_owned());
                    if let Some(prompt) = block.pointer("/input/prompt").and_then(Value::as_str) {
                        call_prompts.insert(block["id"].as_str().unwrap_or("").to_owned(), prompt.to_owned());
                    }
                }
            }
            if e["isSidechain"] == true || e["type"] != "user" || !seen.insert(e["uuid"].as_str().unwrap_or("").to_owned()) {
                continue;
            }
            let Some(agent) = e.pointer("/toolUseResult/agentId").and_then(Value::as_str) else { continue };
            let results: Vec<&str> = e
                .pointer("/message/content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|b| b["type"] == "tool_result")
                .filter_map(|b| b["tool_use_id"].as_str())
                .collect();
            if let [call] = results.as_slice() {
                expected.push((call.to_string(), format!("{session}/agent-{agent}")));
            }
        }
        let children: Vec<&str> = agents.iter().filter(|(_, t)| t.contains(&format!("\"sessionId\":\"{session}\""))).map(|(_, t)| t.as_str()).collect();
        let tree = import_tree(Some(Format::ClaudeCode), text, &children).unwrap();
        let mut parent = Session::from_log(&write_log(&tree.parent.header, &tree.parent.records));
        let links: Vec<(String, String)> = parent.state().subagents.into_iter().map(|l| (l.call_id, l.session_id)).collect();
        assert_eq!(links, expected, "{name}");
        for (call, _) in &links {
            assert!(matches!(call_names.get(call).map(String::as_str), Some("Task" | "Agent")), "{name}: {call} is a {:?} call", call_names.get(call));
        }
        assert_eq!(tree.missing.len() + tree.children.len() - tree.unlinked.len(), links.len(), "{name}: every link is a child given or one missing");
        assert!(tree.parent.report.fidelity.missing.is_empty(), "{name}");
        // Children read from the parent's progress entries: counted here from those entries, every
        // call that has its result there and the task as the first prompt reach the child's view.
        for child in tree.children.iter().filter(|c| c.report.from_progress) {
            let call = child.header.parent_call_id.clone().unwrap();
            let messages: Vec<&Value> = entries
                .iter()
                .filter(|e| e["type"] == "progress" && e["data"]["type"] == "agent_progress" && e["parentToolUseID"] == call.as_str())
                .map(|e| &e["data"]["message"])
                .collect();
            let blocks = |kind: &str| -> Vec<String> {
                messages
                    .iter()
                    .flat_map(|m| m.pointer("/message/content").and_then(Value::as_array).cloned().unwrap_or_default())
                    .filter(|b| b["type"] == kind)
                    .map(|b| b[if kind == "tool_use" { "id" } else { "tool_use_id" }].as_str().unwrap_or("").to_owned())
                    .collect()
            };
            let results = blocks("tool_result");
            let answered = blocks("tool_use").into_iter().collect::<std::collections::BTreeSet<_>>().into_iter().filter(|id| results.contains(id)).count();
            let fidelity = &child.report.fidelity;
            assert!(fidelity.missing.is_empty(), "{name} {call}: {:?}", fidelity.missing);
            assert_eq!(fidelity.view.tool_calls, answered, "{name} {call}");
            let mut session = Session::from_log(&write_log(&child.header, &child.records));
            let task = session.state().prompts.first().cloned().unwrap_or_default();
            let asked = call_prompts.get(&call).cloned().unwrap_or_default();
            assert_eq!(task.trim(), asked.trim(), "{name} {call}: the task is the child's first prompt");
            from_progress += 1;
            progress_calls += answered;
        }
        links_seen += links.len();
        linked_children += tree.children.len() - tree.unlinked.len();
        println!("{name}: {} subagent calls linked, {} with their files, {} missing", links.len(), tree.children.len() - tree.unlinked.len(), tree.missing.len());
    }
    // Agent files whose parent is not in the corpus import on their own, as a subagent's view.
    for (name, text) in &agents {
        let tree = import_tree(Some(Format::ClaudeCode), text, &[]).unwrap();
        assert_eq!(tree.parent.report.audience.as_deref(), Some("subagent"), "{name}");
        assert!(tree.parent.report.fidelity.missing.is_empty(), "{name}: {:?}", tree.parent.report.fidelity.missing);
        assert!(tree.parent.report.fidelity.view.prompts >= 1 && tree.parent.report.fidelity.view.tool_calls >= 1, "{name}");
        assert!(tree.parent.header.parent_session_id.is_some(), "{name}: names its main session");
        println!("{name}: a subagent's own file, {} tool calls in its view", tree.parent.report.fidelity.view.tool_calls);
    }
    assert!(links_seen >= 4, "the corpus holds sessions whose subagents answered their calls ({links_seen} links)");
    assert!(!agents.is_empty(), "the corpus holds an agent file");
    assert!(from_progress >= 4 && progress_calls > 20, "children read from progress entries: {from_progress}, {progress_calls} calls");
    println!("{from_progress} children read from their parents' progress entries, {progress_calls} answered calls in their views");
    println!("{} main sessions, {links_seen} subagent links, {} agent files, {linked_children} linked to their parent's calls", mains.len(), agents.len());
}
