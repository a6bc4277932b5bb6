//! The example session through every provider: whole-payload snapshots plus the properties
//! that must hold whatever the snapshot says.

use contextview::provider::{Provider, ToolDef};
use contextview::request::{build_request, BuildInput};
use contextview::view::RepairKind;
use pretty_assertions::assert_eq;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Whole-payload snapshots are read from files, so they run natively only.
macro_rules! snapshot {
    ($($t:tt)*) => {
        #[cfg(not(target_arch = "wasm32"))]
        insta::assert_json_snapshot!($($t)*);
    };
}

const LOG: &str = include_str!("../../examples/session.jsonl");
const SYSTEM: &str = include_str!("../../examples/system.md");
const TOOLS: &str = include_str!("../../examples/tools.json");

fn input(provider: Provider) -> BuildInput {
    BuildInput {
        system: Some(SYSTEM.to_owned()),
        tools: serde_json::from_str::<Vec<ToolDef>>(TOOLS).unwrap().into(),
        log: Some(LOG.to_owned()),
        ..BuildInput::new(provider)
    }
}

fn payload(provider: Provider) -> (serde_json::Value, contextview::Report) {
    let out = build_request(&input(provider)).expect("example session builds");
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    (serde_json::from_str(&out.built.body).unwrap(), out.built.report)
}

#[test]
fn anthropic_payload() {
    let (payload, report) = payload(Provider::Anthropic);
    snapshot!(payload);
    snapshot!("anthropic_report", report);
    // The dangling grep call got a synthetic, error-flagged result right after its turn.
    let messages = payload["messages"].as_array().unwrap();
    let grep_turn = messages.iter().position(|m| m["content"].as_array().unwrap().iter().any(|b| b["id"] == "toolu_05Grep")).unwrap();
    let answer = &messages[grep_turn + 1]["content"][0];
    assert_eq!(answer["type"], "tool_result");
    assert_eq!(answer["tool_use_id"], "toolu_05Grep");
    assert_eq!(answer["is_error"], true);
    // Same provider and model: thinking is replayed with its signature.
    assert_eq!(report.reasoning.kept, 3);
    assert_eq!(messages.last().unwrap()["role"], "user");
}

#[test]
fn openai_chat_payload() {
    let (payload, report) = payload(Provider::OpenAiChat);
    snapshot!(payload);
    assert_eq!(report.reasoning.downgraded, 3);
    let roles: Vec<&str> = payload["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles[0], "system");
    assert_eq!(roles.iter().filter(|r| **r == "tool").count(), 5);
}

#[test]
fn openai_responses_payload() {
    let (payload, _) = payload(Provider::OpenAiResponses);
    snapshot!(payload);
    let kinds: Vec<&str> = payload["input"].as_array().unwrap().iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "function_call").count(), kinds.iter().filter(|k| **k == "function_call_output").count());
}

#[test]
fn gemini_payload() {
    let (payload, _) = payload(Provider::Gemini);
    snapshot!(payload);
    assert!(payload["contents"].as_array().unwrap().iter().any(|c| c["parts"].as_array().unwrap().iter().any(|p| p.get("inlineData").is_some())));
}

#[test]
fn every_provider_reports_the_dangling_call() {
    for provider in Provider::ALL {
        let (_, report) = payload(provider);
        let synthetic: Vec<_> = report.repairs.iter().filter(|r| r.kind == RepairKind::SyntheticResult).collect();
        assert_eq!(synthetic.len(), 1, "{provider}");
        assert_eq!(synthetic[0].call_id.as_deref(), Some("toolu_05Grep"));
    }
}

#[test]
fn build_is_deterministic() {
    for provider in Provider::ALL {
        let a = build_request(&input(provider)).unwrap().built.body;
        let b = build_request(&input(provider)).unwrap().built.body;
        assert_eq!(a, b);
    }
}
