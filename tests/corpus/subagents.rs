//! Claude Code sessions with subagents: every call a subagent answered (its result names the
//! agent) is linked in the imported log to that agent's session, and every agent file imports as
//! a subagent's own session, linked to its call when its parent is in the corpus.
use std::path::Path;

use contextview_import::{import_tree, Format};
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
        .filter(|(name, text)| !name.contains("codex") && !name.contains("pi-mono") && contextview_import::detect(text) == Some(Format::ClaudeCode))
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
    let mut inline_links = 0;
    let mut inline_children = 0;
    let mut inline_calls = 0;
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
        // Inline subagents (1.x): each sidechain chain's root, whose message is the prompt of a
        // delegation call (the first such call not already answered by another chain).
        let roots: Vec<(String, String)> = entries
            .iter()
            .filter(|e| e["isSidechain"] == true && e["type"] == "user" && e["parentUuid"].is_null())
            .filter_map(|e| {
                let content = &e["message"]["content"];
                let text = content.as_str().map(str::to_owned).or_else(|| {
                    content.as_array().map(|parts| parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"))
                })?;
                Some((e["uuid"].as_str()?.to_owned(), text))
            })
            .collect();
        let mut delegations: Vec<(String, String)> = Vec::new();
        for e in entries.iter().filter(|e| e["isSidechain"] != true) {
            for block in e.pointer("/message/content").and_then(Value::as_array).into_iter().flatten() {
                if block["type"] == "tool_use" && matches!(block["name"].as_str(), Some("Task" | "Agent")) {
                    let id = block["id"].as_str().unwrap_or("").to_owned();
                    if !delegations.iter().any(|(d, _)| *d == id) {
                        delegations.push((id, block.pointer("/input/prompt").and_then(Value::as_str).unwrap_or("").to_owned()));
                    }
                }
            }
        }
        let mut inline = Vec::new();
        for (root, text) in &roots {
            if let Some((call, _)) = delegations.iter().find(|(c, p)| p.trim() == text.trim() && !inline.iter().any(|(d, _): &(String, String)| d == c)) {
                inline.push((call.clone(), format!("{session}/sidechain-{root}")));
            }
        }
        // In the order the results come: the calls' results follow their calls in the file.
        expected.extend(inline.iter().cloned());
        let order = |call: &str| entries.iter().position(|e| {
            e["isSidechain"] != true && e.pointer("/message/content").and_then(Value::as_array).is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result" && b["tool_use_id"] == call))
        });
        expected.sort_by_key(|(call, _)| order(call));
        inline_links += inline.len();
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
        // Children held inline: each one's calls reach its view, and the parent's result for its
        // call is its final answer (the held-out check: two readers of one file agree).
        for child in tree.children.iter().filter(|c| c.header.session_id.contains("/sidechain-")) {
            let call = child.header.parent_call_id.clone().unwrap();
            assert!(child.report.fidelity.missing.is_empty(), "{name} {call}: {:?}", child.report.fidelity.missing);
            assert!(child.report.fidelity.view.prompts >= 1, "{name} {call}");
            let mut session = Session::from_log(&write_log(&child.header, &child.records));
            let report = session.final_answer().unwrap_or_default();
            let result: String = entries
                .iter()
                .filter(|e| e["isSidechain"] != true)
                .flat_map(|e| e.pointer("/message/content").and_then(Value::as_array).cloned().unwrap_or_default())
                .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == call.as_str())
                .map(|b| match &b["content"] {
                    Value::String(t) => t.clone(),
                    Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
                    _ => String::new(),
                })
                .unwrap_or_default();
            assert!(!report.is_empty(), "{name} {call}: the child ends with its report");
            assert!(result.contains(report.trim()), "{name} {call}: the parent's result is the child's report\nresult: {result}\nreport: {report}");
            inline_children += 1;
            inline_calls += child.report.fidelity.view.tool_calls;
        }
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
    assert!(inline_links >= 5 && inline_children == inline_links, "inline subagents: {inline_links} linked, {inline_children} imported");
    println!("{inline_links} inline subagents (1.x sidechains) linked by their prompt, {inline_calls} answered calls in their views, each parent result its report");
    println!("{from_progress} children read from their parents' progress entries, {progress_calls} answered calls in their views");
    println!("{} main sessions, {links_seen} subagent links, {} agent files, {linked_children} linked to their parent's calls", mains.len(), agents.len());
}
