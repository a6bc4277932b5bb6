//! Tool-call ids a provider would refuse are rewritten for its payload, and the report's
//! `id_map` leads every rewritten id back to the original in the log; ids it accepts go out as
//! they are.

use std::collections::{BTreeMap, BTreeSet};

use contextview::conversation::*;
use contextview::provider::Provider;
use contextview::view::{build, BuildOptions};
use pretty_assertions::assert_eq;
use serde_json::Value;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Ids as other agents write them: valid everywhere, with characters Anthropic refuses, too long
/// for Chat Completions (40) or for everyone (64), and two that differ only in a refused character.
const ORIGINALS: [&str; 6] = [
    "toolu_01AbC",
    "functions.read:0",
    "call|fc_68f0a1b2c3d4e5f60718293a4b5c6d7e",
    "fc_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "a|b",
    "a:b",
];

fn conversation() -> Vec<Item> {
    let mut items = vec![Item::User(UserMessage { id: "u1".into(), content: vec![Part::text("Read them all.")], synthetic: None })];
    for (i, call_id) in ORIGINALS.iter().enumerate() {
        items.push(Item::ToolCall(ToolCall {
            id: format!("c{i}"),
            call_id: (*call_id).into(),
            name: format!("tool_{i}"),
            input: serde_json::json!({"n": i}).into(),
            origin: None,
            signature: None,
        }));
    }
    for (i, call_id) in ORIGINALS.iter().enumerate() {
        items.push(Item::ToolResult(ToolResult { id: format!("r{i}"), call_id: (*call_id).into(), content: vec![Part::text(format!("result {i}"))], is_error: false, released: None }));
    }
    items
}

/// What each API accepts, written from its documented rule (not from the library's).
fn acceptable(provider: Provider, id: &str) -> bool {
    match provider {
        Provider::Anthropic => !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
        Provider::OpenAiChat => !id.is_empty() && id.len() <= 40,
        Provider::OpenAiResponses | Provider::Gemini => !id.is_empty() && id.len() <= 64,
    }
}

/// (call ids in order, with each call's tool name) and result ids in order, read from the payload.
fn payload_ids(provider: Provider, body: &Value) -> (Vec<(String, String)>, Vec<String>) {
    let (mut calls, mut results) = (Vec::new(), Vec::new());
    let s = |v: &Value| v.as_str().unwrap().to_owned();
    match provider {
        Provider::Anthropic => {
            for block in body["messages"].as_array().unwrap().iter().flat_map(|m| m["content"].as_array().cloned().unwrap_or_default()) {
                match block["type"].as_str() {
                    Some("tool_use") => calls.push((s(&block["id"]), s(&block["name"]))),
                    Some("tool_result") => results.push(s(&block["tool_use_id"])),
                    _ => {}
                }
            }
        }
        Provider::OpenAiChat => {
            for message in body["messages"].as_array().unwrap() {
                for call in message["tool_calls"].as_array().cloned().unwrap_or_default() {
                    calls.push((s(&call["id"]), s(&call["function"]["name"])));
                }
                if message["role"] == "tool" {
                    results.push(s(&message["tool_call_id"]));
                }
            }
        }
        Provider::OpenAiResponses => {
            for item in body["input"].as_array().unwrap() {
                match item["type"].as_str() {
                    Some("function_call") => calls.push((s(&item["call_id"]), s(&item["name"]))),
                    Some("function_call_output") => results.push(s(&item["call_id"])),
                    _ => {}
                }
            }
        }
        Provider::Gemini => {
            for part in body["contents"].as_array().unwrap().iter().flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default()) {
                if let Some(call) = part.get("functionCall") {
                    calls.push((s(&call["id"]), s(&call["name"])));
                }
                if let Some(response) = part.get("functionResponse") {
                    results.push(s(&response["id"]));
                }
            }
        }
    }
    (calls, results)
}

#[test]
fn refused_ids_are_rewritten_and_the_report_leads_back_to_the_originals() {
    let items = conversation();
    for provider in Provider::ALL {
        let built = build(&items, &BuildOptions::new(provider, "model-a")).unwrap();
        let body: Value = serde_json::from_str(&built.body).unwrap();
        let (calls, results) = payload_ids(provider, &body);
        assert_eq!(calls.len(), ORIGINALS.len(), "{provider}: {}", built.body);

        let id_map: &BTreeMap<String, String> = &built.report.id_map;
        let back = |id: &str| id_map.get(id).cloned().unwrap_or_else(|| id.to_owned());
        for (i, (id, name)) in calls.iter().enumerate() {
            assert!(acceptable(provider, id), "{provider}: {id:?} would be refused");
            // The call named tool_i is the one whose original id is ORIGINALS[i].
            assert_eq!(name, &format!("tool_{i}"), "{provider}");
            assert_eq!(back(id), ORIGINALS[i], "{provider}: {id} leads back to its original");
            if acceptable(provider, ORIGINALS[i]) {
                assert_eq!(id, ORIGINALS[i], "{provider}: an accepted id goes out unchanged");
            } else {
                assert!(id_map.contains_key(id), "{provider}: the rewritten {id} is in the report");
            }
        }
        // Every result answers its own call under the same rewritten id.
        let call_ids: Vec<&String> = calls.iter().map(|(id, _)| id).collect();
        assert_eq!(results.iter().collect::<Vec<_>>(), call_ids, "{provider}");
        let distinct: BTreeSet<&String> = call_ids.iter().copied().collect();
        assert_eq!(distinct.len(), ORIGINALS.len(), "{provider}: ids that differed stay apart");
        // The map names exactly the ids that changed.
        let changed: BTreeSet<&str> = ORIGINALS.iter().copied().filter(|o| !acceptable(provider, o)).collect();
        assert_eq!(id_map.values().map(String::as_str).collect::<BTreeSet<_>>(), changed, "{provider}");
    }
}

#[test]
fn rewritten_ids_are_the_same_in_every_build_and_after_appending() {
    let items = conversation();
    for provider in Provider::ALL {
        let options = BuildOptions::new(provider, "model-a");
        let first = build(&items, &options).unwrap();
        let mut longer = items.clone();
        longer.push(Item::ToolCall(ToolCall { id: "c9".into(), call_id: "x|y".into(), name: "tool_9".into(), input: serde_json::json!({}).into(), origin: None, signature: None }));
        longer.push(Item::ToolResult(ToolResult { id: "r9".into(), call_id: "x|y".into(), content: vec![Part::text("later")], is_error: false, released: None }));
        let second = build(&longer, &options).unwrap();
        let (before, _) = payload_ids(provider, &serde_json::from_str(&first.body).unwrap());
        let (after, _) = payload_ids(provider, &serde_json::from_str(&second.body).unwrap());
        assert_eq!(&after[..before.len()], &before[..], "{provider}: earlier ids never change");
        for (id, original) in &first.report.id_map {
            assert_eq!(second.report.id_map.get(id), Some(original), "{provider}");
        }
    }
}
