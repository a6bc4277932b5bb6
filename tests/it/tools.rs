//! Tools defined once: every shape developers have reads as one tool, each API gets its own
//! shape, the session records the set so a reopened session and its timeline know what each
//! request carried, and a prompt that lists a tool the request lacks is said.

use contextview::session::{Command, Reply, Session};
use contextview::update::Header;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn run(s: &mut Session, v: Value) -> contextview::session::Processed {
    let p = s.dispatch(serde_json::from_value::<Command>(v).unwrap(), Some("2026-12-03T10:00:00Z".into())).unwrap();
    assert_eq!(p.error, None);
    p
}

fn body(p: &contextview::session::Processed) -> (Value, Box<contextview::view::Report>) {
    match &p.reply {
        Some(Reply::Built { body, report }) => (serde_json::from_str(body).unwrap(), report.clone()),
        other => panic!("{other:?}"),
    }
}

const SCHEMA: &str = r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#;

#[test]
fn a_tool_in_any_shape_is_rendered_in_each_apis_own() {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    // The Anthropic SDK's shape and the Chat Completions shape, in one list.
    let tools = json!([
        {"name": "read", "description": "Read a file.", "input_schema": schema},
        {"type": "function", "function": {"name": "grep", "description": "Search.", "parameters": schema}},
    ]);
    let mut s = Session::create(Header::new("tools"));
    run(&mut s, json!({"type": "userMessage", "text": "hi"}));
    let expect = |provider: &str, body: &Value| match provider {
        // The last tool carries the stable breakpoint.
        "anthropic" => assert_eq!(body["tools"][1], json!({"name": "grep", "description": "Search.", "input_schema": schema, "cache_control": {"type": "ephemeral"}})),
        "openai-chat" => assert_eq!(body["tools"][0], json!({"type": "function", "function": {"name": "read", "description": "Read a file.", "parameters": schema}})),
        "openai-responses" => assert_eq!(body["tools"][0], json!({"type": "function", "name": "read", "description": "Read a file.", "parameters": schema, "strict": false})),
        _ => assert_eq!(body["tools"][0]["functionDeclarations"][1], json!({"name": "grep", "description": "Search.", "parametersJsonSchema": schema})),
    };
    for provider in ["anthropic", "openai-chat", "openai-responses", "gemini"] {
        let (b, _) = body(&run(&mut s, json!({"type": "buildRequest", "options": {"provider": provider, "tools": tools}})));
        expect(provider, &b);
    }
    // A misspelt schema key is refused, naming the tool and the field.
    let p = s.dispatch(serde_json::from_value(json!({"type": "buildRequest", "options": {"provider": "anthropic", "tools": [{"name": "x", "inputschema": {}}]}})).unwrap(), None).unwrap();
    let error = p.error.unwrap();
    assert_eq!(error.code, "invalid_options");
    assert!(error.message.contains("tools[0]: unknown field `inputschema`"), "{}", error.message);
}

#[test]
fn the_session_records_its_tools_and_a_reopened_session_builds_with_them() {
    let tools = json!([{"name": "read", "description": "Read a file.", "inputSchema": serde_json::from_str::<Value>(SCHEMA).unwrap()}]);
    let mut s = Session::create(Header::new("tools"));
    run(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5"}));
    run(&mut s, json!({"type": "userMessage", "text": "Read a.rs"}));
    let (first, _) = body(&run(&mut s, json!({"type": "buildRequest", "options": {"tools": tools}})));
    let recorded = s.records().iter().filter(|r| r.body.kind() == "tools_defined").count();
    assert_eq!(recorded, 1);
    // The same tools again: nothing more to record.
    run(&mut s, json!({"type": "buildRequest", "options": {"tools": tools}}));
    assert_eq!(s.records().iter().filter(|r| r.body.kind() == "tools_defined").count(), 1);
    // Reopened from its log, built with no tools given: the recorded ones go.
    let mut reopened = Session::from_log(&s.snapshot().unwrap().log);
    let (again, _) = body(&run(&mut reopened, json!({"type": "buildRequest"})));
    assert_eq!(again["tools"], first["tools"]);
    // A stateless build of the log too.
    let input: contextview::request::BuildInput = serde_json::from_value(json!({"provider": "anthropic", "log": s.snapshot().unwrap().log})).unwrap();
    let out = contextview::request::build_request(&input).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&out.built.body).unwrap()["tools"], first["tools"]);
}

#[test]
fn arguments_given_as_a_json_string_are_read_as_the_object_they_hold() {
    let mut s = Session::create(Header::new("args"));
    run(&mut s, json!({"type": "switchModel", "provider": "openai-chat", "model": "gpt-4.1"}));
    run(&mut s, json!({"type": "userMessage", "text": "ls"}));
    run(&mut s, json!({"type": "assistantResponse", "toolCalls": [
        {"id": "c1", "name": "bash", "input": "{\"command\":\"ls\"}"},
        {"id": "c2", "name": "apply_patch", "input": "*** Begin Patch"},
    ]}));
    let call = s.records().iter().rev().find(|r| r.to_line().contains("\"c1\"")).unwrap().to_line();
    assert!(call.contains(r#""rawInput":{"command":"ls"}"#), "{call}");
    let patch = s.records().iter().rev().find(|r| r.to_line().contains("\"c2\"")).unwrap().to_line();
    assert!(patch.contains(r#""rawInput":"*** Begin Patch""#), "a free-form input stays text: {patch}");
}

#[test]
fn a_prompt_that_lists_a_tool_the_request_lacks_is_said() {
    let mut s = Session::create(Header::new("listed"));
    run(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5"}));
    run(&mut s, json!({"type": "setPromptContext", "context": {"cwd": "/repo", "tools": ["read", "edit"]}}));
    run(&mut s, json!({"type": "userMessage", "text": "hi"}));
    let (_, report) = body(&run(&mut s, json!({"type": "buildRequest", "options": {"tools": [{"name": "read"}]}})));
    let said: Vec<(&str, &str)> = report.diagnostics.iter().map(|d| (d.code.as_str(), d.message.as_str())).collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0].0, "tools.undefined");
    assert!(said[0].1.contains(": edit ("), "{}", said[0].1);
    let (_, report) = body(&run(&mut s, json!({"type": "buildRequest", "options": {"tools": [{"name": "read"}, {"name": "edit"}]}})));
    assert_eq!(report.diagnostics, vec![]);
}
