//! Every ACP update shape we type reads into our own types and writes back as the same JSON, so
//! that a record's fields survive a pass through the core. That each of them (and every update a
//! session, an import or an answer writes) is an official ACP v1 `session/update` is checked
//! against the official SDK's schema in `tests/js/acp-conformance.test.mjs`, over the same
//! fixture (`tests/fixtures/acp-updates.jsonl`).

use contextview::update::acp::AcpUpdate;
use pretty_assertions::assert_eq;
use serde_json::Value;

#[test]
fn every_update_shape_we_type_reads_into_our_types_and_back() {
    let shapes: Vec<Value> = include_str!("../fixtures/acp-updates.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect();
    let mut kinds: Vec<&str> = shapes.iter().filter_map(|s| s["sessionUpdate"].as_str()).collect();
    kinds.dedup();
    assert_eq!(
        kinds,
        ["user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"],
        "the fixture holds a shape of every update we type"
    );
    for shape in shapes {
        let ours: AcpUpdate = serde_json::from_value(shape.clone()).unwrap();
        assert!(matches!(ours, AcpUpdate::Known(_)), "{shape}");
        assert_eq!(serde_json::to_value(&ours).unwrap(), shape);
    }
}
