//! The readers of the subagent records, the head budget and the subagent commands: what each
//! accepts and refuses, in its words, pinned whole (a record another version wrote, or a tool,
//! may hold null for a count or a flag, which reads as absent; an array is never one of them).
//! Their readers are generated (`#[derive(ReadValue)]`); the snapshot was first taken from the
//! hand-written readers they replaced, and differs from it only in serde's words for the same
//! refusals (`invalid value` for a number out of range, `invalid type: null` for a required
//! field given as null, `string or map` for a status) and in a status given as serde's one-key
//! object (`{"failed": null}`), read as every generated enum reads it.

#![cfg(not(target_arch = "wasm32"))]

use contextview::prompt::budget::HeadBudget;
use contextview::prompt::HeadCut;
use contextview::session::protocol::{EndSubagent, StartSubagent};
use contextview::update::record::{Spent, SubagentEnded, SubagentStarted, SubagentStatus};
use contextview::update::replay::SubagentLink;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

fn read<T: DeserializeOwned + std::fmt::Debug>(input: &Value) -> String {
    match serde_json::from_value::<T>(input.clone()) {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("error: {e}"),
    }
}

fn battery() -> Vec<(&'static str, Value, String)> {
    let started = json!({"callId": "c", "sessionId": "s", "task": "t", "reportTokens": 10});
    let ended = json!({"callId": "c", "sessionId": "s", "status": "completed"});
    let link = json!({"callId": "c", "sessionId": "s", "task": "t", "status": "running", "reportTokens": 5});
    let mut out = Vec::new();
    let with = |base: &Value, key: &str, v: Value| {
        let mut m = base.as_object().unwrap().clone();
        match v {
            Value::String(ref s) if s == "<absent>" => {
                m.remove(key);
            }
            v => {
                m.insert(key.to_owned(), v);
            }
        }
        Value::Object(m)
    };
    let odd = [json!(null), json!("x"), json!(-1), json!(1.5), json!(5_000_000_000u64), json!([]), json!({}), json!(true), json!("<absent>")];
    for (name, base, keys) in [
        ("SubagentStarted", &started, &["callId", "task", "provider", "model", "reportTokens"][..]),
        ("SubagentEnded", &ended, &["status", "error", "reportTokens", "trimmed", "usage"][..]),
        ("SubagentLink", &link, &["status", "model", "reportTokens", "trimmed", "usage"][..]),
    ] {
        out.push((name, base.clone(), String::new()));
        for key in keys {
            for v in &odd {
                out.push((name, with(base, key, v.clone()), String::new()));
            }
        }
        out.push((name, json!([]), String::new()));
        out.push((name, json!("s"), String::new()));
        out.push((name, with(base, "extra", json!(1)), String::new()));
    }
    for v in [json!({}), json!({"requests": null, "inputTokens": 3}), json!({"outputTokens": -1}), json!({"cacheReadTokens": "1"}), json!([1, 2]), json!(null), json!("x")] {
        out.push(("Spent", v, String::new()));
    }
    for v in [json!("running"), json!("done"), json!(1), json!(null), json!({"failed": null})] {
        out.push(("SubagentStatus", v, String::new()));
    }
    for v in [
        json!({"section": "rules", "what": "a", "action": "left_out", "tokens": 3, "reason": "r"}),
        json!({"section": "rules", "what": "a", "action": "left_out", "tokens": null, "reason": "r"}),
        json!({"section": "rules", "what": "a", "action": "left_out", "reason": "r"}),
        json!({"section": 1}),
        json!([]),
    ] {
        out.push(("HeadCut", v, String::new()));
    }
    for v in [
        json!({}),
        json!({"tokens": 100, "windowShare": 0.5, "window": 1000, "sections": {"rules": {"priority": 2, "reserve": 10, "grow": null}}, "ruleSources": {"home": 1, "agents_md": -2}}),
        json!({"tokens": null, "windowShare": null, "sections": null, "ruleSources": null}),
        json!({"windowShare": 0}),
        json!({"windowShare": 1.5}),
        json!({"windowShare": "x"}),
        json!({"tokens": -1}),
        json!({"extra": 1}),
        json!({"sections": {"rules": {"x": 1}}}),
        json!({"sections": {"other": {}}}),
        json!({"sections": {"rules": null}}),
        json!({"sections": {"rules": 3}}),
        json!({"sections": []}),
        json!({"ruleSources": {"nope": 1}}),
        json!({"ruleSources": {"home": 1.5}}),
        json!({"ruleSources": {"home": 5_000_000_000u64}}),
        json!({"ruleSources": 3}),
        json!([]),
    ] {
        out.push(("HeadBudget", v, String::new()));
    }
    for v in [
        json!({"toolCallId": "c"}),
        json!({"toolCallId": "c", "report": "r", "error": null, "usage": {"requests": 1}}),
        json!({"toolCallId": "c", "usage": null}),
        json!({"toolCallId": "c", "usage": {"requests": "1"}}),
        json!({"toolCallId": "c", "extra": 1}),
        json!({"report": "r"}),
        json!({"toolCallId": 3}),
        json!([]),
    ] {
        out.push(("EndSubagent", v, String::new()));
    }
    for v in [
        json!({"toolCallId": "c", "task": "t"}),
        json!({"toolCallId": "c", "task": "t", "sessionId": "s", "provider": "gemini", "model": "m", "contextWindow": 10, "reportTokens": 5, "maxTokens": 7, "tools": ["a"]}),
        json!({"toolCallId": "c", "task": "t", "provider": "nope"}),
        json!({"toolCallId": "c", "task": "t", "provider": 3}),
        json!({"toolCallId": "c", "task": "t", "provider": null, "model": null, "tools": null}),
        json!({"toolCallId": "c", "task": "t", "tools": [1]}),
        json!({"toolCallId": "c", "task": "t", "tools": "a"}),
        json!({"toolCallId": "c", "task": "t", "reportTokens": -1}),
        json!({"toolCallId": "c", "task": "t", "extra": 1}),
        json!({"task": "t"}),
        json!([]),
    ] {
        out.push(("StartSubagent", v, String::new()));
    }
    for (name, input, result) in &mut out {
        *result = match *name {
            "SubagentStarted" => read::<SubagentStarted>(input),
            "SubagentEnded" => read::<SubagentEnded>(input),
            "SubagentLink" => read::<SubagentLink>(input),
            "Spent" => read::<Spent>(input),
            "SubagentStatus" => read::<SubagentStatus>(input),
            "HeadCut" => read::<HeadCut>(input),
            "HeadBudget" => read::<HeadBudget>(input),
            "EndSubagent" => read::<EndSubagent>(input),
            "StartSubagent" => read::<StartSubagent>(input),
            other => unreachable!("{other}"),
        };
    }
    out
}

#[test]
fn each_input_reads_or_is_refused_as_pinned() {
    let lines: Vec<String> = battery().into_iter().map(|(name, input, result)| format!("{name}\t{input}\t{result}")).collect();
    insta::assert_snapshot!(lines.join("\n"));
}
