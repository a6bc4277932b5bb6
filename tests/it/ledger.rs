//! The token ledger: anchor + estimated delta, overhead carried over a compaction, thresholds
//! per model window, and pruning driven by the count.

use crate::common::log::*;
use contextview::conversation::Item;
use contextview::provider::{Provider, ToolDef};
use contextview::request::{build_request, BuildInput};
use contextview::session::Session;
use contextview::tokens::{item_tokens, Family};
use contextview::update::replay::OverheadCarry;
use contextview::update::{parse_log, replay};
use contextview::view::ledger::{head_tokens, model_window};
use contextview::view::{LedgerConfig, Threshold};
use pretty_assertions::assert_eq;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const SYSTEM: &str = "You are a careful coding agent. Prefer small, tested changes.";

fn tools() -> Vec<ToolDef> {
    serde_json::from_value(json!([{"name": "read", "description": "Read a file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}])).unwrap()
}

fn input(log: &str) -> BuildInput {
    BuildInput { system: Some(SYSTEM.to_owned()), tools: tools().into(), log: Some(log.to_owned()), ..BuildInput::new(Provider::Anthropic) }
}

fn estimate(items: &[Item]) -> u64 {
    items.iter().map(|i| item_tokens(i, Family::Anthropic)).sum()
}

fn items_of(log: &str) -> Vec<Item> {
    replay(&parse_log(log).records).items
}

#[test]
fn anchored_count_is_the_reported_usage_plus_the_estimated_delta() {
    let [call, result] = tool(5, "t1", "read", json!({"path": "src/lib.rs"}), "pub fn add(a: i32, b: i32) -> i32 { a + b }");
    let log = log_of(&[
        user(1, "u1", "What does add do?"),
        agent(2, "a1", "Let me read it."),
        usage(3, 1_000, 50, 4_000),
        user(4, "u2", "And please check the tests too."),
        call,
        result,
    ]);
    let items = items_of(&log);
    let context = build_request(&input(&log)).unwrap().built.report.tokens.context;
    assert!(context.anchored);
    assert_eq!(context.anchor_tokens, 5_050);
    // The delta is everything after the anchor: the second prompt, the call and its result.
    assert_eq!(context.estimated_tokens, estimate(&items[2..]));
    assert_eq!(context.used, 5_050 + estimate(&items[2..]));
    assert_eq!(context.family, Family::Anthropic);
}

#[test]
fn an_output_count_taken_mid_stream_counts_the_response_as_estimated() {
    // Some agents log a response's usage from its first block: 3 output tokens for a reply that
    // wrote a whole file in its tool call. The context holds the call, not 3 tokens of it.
    let content = "fn parse(input: &str) -> Result<Ast, Error> { todo!() }\n".repeat(60);
    let input_value = json!({"path": "src/parse.rs", "content": content});
    let [call, _] = tool(3, "t1", "write", input_value.clone(), "written");
    // The result comes after the usage record (seq 5).
    let [_, result] = tool(4, "t1", "write", input_value.clone(), "written");
    let log = log_of(&[user(1, "u1", "Write the parser."), agent(2, "a1", "Writing it."), call.clone(), usage(4, 10, 3, 2_000), result.clone()]);
    assert!(parse_log(&log).diagnostics.is_empty());
    let items = items_of(&log);
    assert_eq!(items.len(), 4);
    let context = build_request(&input(&log)).unwrap().built.report.tokens.context;
    let response = estimate(&items[1..3]);
    assert!(response > 500, "{response}");
    assert_eq!(context.anchor_tokens, 2_010 + response);
    assert_eq!(context.used, 2_010 + response + estimate(&items[3..]));
    // A complete count (more than the visible response: hidden reasoning, say) is taken as is.
    let log = log_of(&[user(1, "u1", "Write the parser."), agent(2, "a1", "Writing it."), call, usage(4, 10, 5_000, 2_000), result]);
    assert_eq!(build_request(&input(&log)).unwrap().built.report.tokens.context.anchor_tokens, 7_010);
}

#[test]
fn without_an_anchor_everything_is_estimated_heads_included() {
    let log = log_of(&[user(1, "u1", "What does add do?"), agent(2, "a1", "It adds two numbers."), user(3, "u2", "Thanks.")]);
    let items = items_of(&log);
    let context = build_request(&input(&log)).unwrap().built.report.tokens.context;
    assert!(!context.anchored);
    assert_eq!(context.anchor_tokens, 0);
    let heads = head_tokens(Some(SYSTEM), &tools(), Family::Anthropic);
    assert!(heads > 0);
    assert_eq!(context.used, heads + estimate(&items));
}

#[test]
fn a_session_counts_the_heads_it_is_given_each_time() {
    let log = log_of(&[user(1, "u1", "What does add do?"), agent(2, "a1", "It adds two numbers."), user(3, "u2", "Thanks.")]);
    let items = items_of(&log);
    let mut session = Session::from_log(&log);
    let more: Vec<ToolDef> = tools().into_iter().chain(serde_json::from_value::<Vec<ToolDef>>(json!([{"name": "write", "description": "Write a file with the given content, replacing it", "inputSchema": {"type": "object"}}])).unwrap()).collect();
    let heads: [(Option<&str>, Vec<ToolDef>); 5] =
        [(Some(SYSTEM), tools()), (Some(SYSTEM), tools()), (Some(SYSTEM), more.clone()), (Some("Another system prompt, longer than the first one was."), more.clone()), (None, Vec::new())];
    for (system, tools) in heads {
        let expected = head_tokens(system, &tools, Family::Anthropic) + estimate(&items);
        let input = BuildInput { system: system.map(str::to_owned), tools: tools.into(), ..BuildInput::new(Provider::Anthropic) };
        assert_eq!(session.usage(&input).used, expected, "{system:?}");
        assert_eq!(session.build_body(&input).unwrap().1.tokens.context.used, expected, "{system:?}");
    }
}

#[test]
fn compaction_carries_the_provider_overhead_in_proportion_to_what_it_kept() {
    let long = "The parser reads one token at a time and keeps a stack of open brackets. ".repeat(40);
    let lines = vec![
        user(1, "u1", &long),
        agent(2, "a1", &long),
        user(3, "u2", "Now the second part: make the errors say which line they are on."),
        agent(4, "a2", "Done; every error now carries its line number."),
        // The provider counted far more than our estimate: its system prompt, tools, framing.
        usage(5, 20_000, 30, 0),
        event(6, json!({"kind": "compaction_checkpoint", "summary": "We taught the parser to report line numbers.", "firstKeptSeq": 3})),
    ];
    let before = items_of(&log_of(&lines[..5]));
    let excess = 20_030 - estimate(&before) as i64;
    let after = items_of(&log_of(&lines));
    let share = estimate(&after) as f64 / estimate(&before) as f64;
    // The system prompt and tools survive a compaction whole and are estimated again; only the
    // rest of the provider's excess (framing) is inherited, in proportion to what was kept.
    let heads = head_tokens(Some(SYSTEM), &tools(), Family::Anthropic);
    let inherited = ((excess - heads as i64) as f64 * share).round() as i64;
    assert!(inherited > 0 && inherited < excess - heads as i64, "a share of the overhead, not all of it: {inherited} of {excess}");

    let state = replay(&parse_log(&log_of(&lines)).records).state;
    assert_eq!(state.usage, None, "the anchor described the context before the cut");
    assert_eq!(state.overhead_carry, Some(OverheadCarry { excess, kept: share, framing_only: false, family: Family::Anthropic }));

    let usage_of = |log: &str| Session::from_log(log).usage(&BuildInput { log: None, ..input(log) });
    let context = usage_of(&log_of(&lines));
    assert!(!context.anchored);
    assert_eq!(context.inherited_overhead, inherited);
    assert_eq!(context.used, heads + estimate(&after) + inherited as u64);

    // A second compaction before any new usage keeps a share of what the first kept.
    let mut twice = lines.clone();
    twice.push(user(7, "u3", &long));
    twice.push(agent(8, "a3", "Noted."));
    twice.push(event(9, json!({"kind": "compaction_checkpoint", "summary": "Line numbers done; parser notes summarised.", "firstKeptSeq": 8})));
    let before_second = items_of(&log_of(&twice[..8]));
    let after_second = items_of(&log_of(&twice));
    let state = replay(&parse_log(&log_of(&twice)).records).state;
    let kept = share * (estimate(&after_second) as f64 / estimate(&before_second) as f64);
    let carry = state.overhead_carry.unwrap();
    assert_eq!(carry.excess, excess);
    assert!((carry.kept - kept).abs() < 1e-12 && carry.kept < share, "{} vs {kept}", carry.kept);

    // The next reported usage replaces the carried overhead.
    let mut more = lines.clone();
    more.push(user(7, "u3", "Next?"));
    more.push(agent(8, "a3", "Next we add tests."));
    more.push(usage(9, 3_000, 10, 0));
    let context = usage_of(&log_of(&more));
    assert!(context.anchored);
    assert_eq!((context.inherited_overhead, context.used), (0, 3_010));
}

#[test]
fn a_rewind_to_before_the_anchor_drops_it() {
    let log = log_of(&[
        user(1, "u1", "First question."),
        agent(2, "a1", "First answer."),
        user(3, "u2", "Second question."),
        agent(4, "a2", "Second answer."),
        usage(5, 9_000, 20, 0),
        event(6, json!({"kind": "rewind", "promptIndex": 1})),
        user(7, "u3", "Another second question."),
    ]);
    let context = build_request(&input(&log)).unwrap().built.report.tokens.context;
    assert!(!context.anchored, "the usage was recorded on the branch the rewind discarded");
    assert!(context.used < 9_000);
}

#[test]
fn thresholds_follow_the_window_and_leave_room_for_the_summary() {
    let log = log_of(&[user(1, "u1", "Hello."), agent(2, "a1", "Hi."), usage(3, 60_000, 0, 0), user(4, "u2", "Go on.")]);
    let at = |window: u64, ledger: Option<LedgerConfig>| {
        let input = BuildInput { context_window: Some(window), ledger, ..input(&log) };
        build_request(&input).unwrap().built.report.tokens.context
    };
    let used = at(1_000_000, None).used;
    assert!(used > 60_000 && used < 60_100);

    let roomy = at(1_000_000, None);
    assert_eq!((roomy.threshold, roomy.prune_at, roomy.compact_at), (Threshold::Ok, Some(500_000), Some(850_000)));
    // 60k of 100k: over half, under 80k (the 85% mark lowered by the 20k reserve).
    let pruning = at(100_000, None);
    assert_eq!((pruning.threshold, pruning.prune_at, pruning.compact_at), (Threshold::Prune, Some(50_000), Some(80_000)));
    // 60k of 70k: over the 85% mark (59.5k).
    assert_eq!(at(70_000, None).threshold, Threshold::Compact);
    // A bigger reserve makes compaction due earlier.
    let reserve = at(100_000, Some(LedgerConfig { compact_ratio: 0.85, compact_reserve: 45_000 }));
    assert_eq!((reserve.compact_at, reserve.threshold), (Some(55_000), Threshold::Compact));
}

#[test]
fn windows_come_from_the_caller_the_log_or_the_model() {
    assert_eq!(model_window("claude-sonnet-4-5"), Some(200_000));
    assert_eq!(model_window("openai/gpt-5-mini"), Some(272_000));
    assert_eq!(model_window("gpt-4.1"), Some(1_047_576));
    assert_eq!(model_window("models/gemini-2.5-pro"), Some(1_048_576));
    assert_eq!(model_window("my-local-model"), None);

    let log = log_of(&[user(1, "u1", "Hello.")]);
    let known = build_request(&input(&log)).unwrap().built.report.tokens.context;
    assert_eq!(known.size, 200_000);
    let unknown = BuildInput { model: Some("my-local-model".into()), ..input(&log) };
    let unknown = build_request(&unknown).unwrap().built.report.tokens.context;
    assert_eq!((unknown.size, unknown.prune_at, unknown.threshold), (0, None, Threshold::Ok));

    let switched = log_of(&[
        event(1, json!({"kind": "model_switch", "provider": "anthropic", "model": "my-local-model", "contextWindow": 32_000})),
        user(2, "u1", "Hello."),
    ]);
    let from_log = BuildInput { model: Some("my-local-model".into()), ..input(&switched) };
    assert_eq!(build_request(&from_log).unwrap().built.report.tokens.context.size, 32_000);
    let given = BuildInput { context_window: Some(8_000), ..from_log };
    assert_eq!(build_request(&given).unwrap().built.report.tokens.context.size, 8_000);
}

/// Twenty turns, each reading a large file.
fn long_session(reported: Option<u64>) -> String {
    let mut lines = Vec::new();
    let mut seq = 1;
    let output = "line of a large file that the agent read\n".repeat(300);
    for turn in 0..20 {
        lines.push(user(seq, &format!("u{turn}"), &format!("Look at part {turn}.")));
        let [call, result] = tool(seq + 1, &format!("t{turn}"), "read", json!({"path": format!("src/part{turn}.rs")}), &output);
        lines.push(call);
        lines.push(result);
        lines.push(agent(seq + 3, &format!("a{turn}"), "Read it."));
        seq += 4;
    }
    if let Some(tokens) = reported {
        lines.push(usage(seq, tokens, 10, 0));
        seq += 1;
    }
    lines.push(user(seq, "last", "Summarise what you found."));
    log_of(&lines)
}

#[test]
fn the_ledger_count_decides_when_pruning_starts() {
    // Our estimate of this session is far below half of 200k: nothing is pruned.
    let quiet = build_request(&input(&long_session(None))).unwrap().built.report;
    assert!(quiet.tokens.context.used < 100_000);
    assert!(!quiet.pruning.active);
    // The provider reported 150k (the host's own system prompt and tools are large): pruning acts.
    let busy = build_request(&input(&long_session(Some(150_000)))).unwrap().built.report;
    assert_eq!(busy.tokens.context.threshold, Threshold::Prune);
    assert!(busy.pruning.active);
    assert!(busy.pruning.cleared > 0 || busy.pruning.trimmed > 0);
    // A host that counts itself overrides the ledger.
    let told = BuildInput { context_tokens: Some(10_000), ..input(&long_session(Some(150_000))) };
    let told = build_request(&told).unwrap().built.report;
    assert_eq!((told.tokens.context.used, told.pruning.active), (10_000, false));
}

#[test]
fn session_usage_is_what_the_next_build_reports() {
    let log = long_session(Some(150_000));
    let mut session = Session::from_log(&log);
    let options = BuildInput { log: None, ..input(&log) };
    let usage = session.usage(&options);
    let built = session.build(&options).unwrap();
    assert_eq!(usage, built.report.tokens.context);
    assert_eq!(usage.size, 200_000);
}

/// Every string value of a JSON document, keys left out.
#[cfg(not(target_arch = "wasm32"))]
fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(o) => o.values().for_each(|v| strings(v, out)),
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {}
    }
}

/// The request's estimate, and each source's share of it, against o200k_base's count of the
/// texts the payload carries (an OpenAI request, whose tokenizer is public).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn tokens_by_source_are_near_the_tokenizers_count_of_what_the_request_carries() {
    let bpe = tiktoken_rs::o200k_base_singleton();
    let count = |texts: &[String]| texts.iter().map(|t| bpe.encode_ordinary(t).len() as f64).sum::<f64>();
    let request = BuildInput { provider: Provider::OpenAiResponses, ..input(&long_session(None)) };
    let built = build_request(&request).unwrap().built;
    let by = &built.report.tokens.by_source;
    let body: serde_json::Value = serde_json::from_str(&built.body).unwrap();
    let items = body["input"].as_array().unwrap();
    let of_type = |t: &str| {
        let mut out = Vec::new();
        items.iter().filter(|i| i["type"] == t).for_each(|i| strings(i, &mut out));
        out
    };
    let close = |estimate: u64, exact: f64, what: &str| {
        // 5%, or two tokens on a short text.
        let off = (estimate as f64 - exact).abs();
        assert!(off <= (exact * 0.05).max(2.0), "{what}: estimate {estimate} against {exact} by o200k ({:.1}% off)", off / exact * 100.0);
    };
    // Per item the estimator adds the API's framing (a few tokens); the texts dominate here.
    close(by.tool_results, count(&of_type("function_call_output")), "tool results");
    close(by.system, count(&[SYSTEM.to_owned()]), "system");
    let mut all = Vec::new();
    strings(&body, &mut all);
    close(built.report.tokens.request, count(&all), "the whole request");
    assert_eq!(by.images, 0);
    assert!(by.tool_results > by.user && by.tool_results > by.system);
}

#[test]
fn a_session_report_says_what_each_pruning_step_cost_the_cache() {
    let log = long_session(Some(150_000));
    let mut session = Session::from_log(&log);
    let options = BuildInput { log: None, ..input(&log) };
    let first = session.build(&options).unwrap();
    let (mut reports, mut bodies) = (vec![first.report], vec![first.body]);
    let mut seq = session.records().last().unwrap().seq;
    for turn in 0..12 {
        let [call, result] = tool(seq + 2, &format!("x{turn}"), "read", json!({"path": "more.rs"}), &"more output\n".repeat(200));
        for line in [agent(seq + 1, &format!("b{turn}"), "Reading more."), call, result, user(seq + 4, &format!("v{turn}"), "Go on.")] {
            session.append_line(&line).unwrap();
        }
        seq += 4;
        let built = session.build(&options).unwrap();
        reports.push(built.report);
        bodies.push(built.body);
    }
    let mut moves = 0;
    for (n, pair) in reports.windows(2).enumerate() {
        let (before, after) = (&pair[0].pruning, &pair[1].pruning);
        // Measured on the two bodies: the previous body, less its closing brackets, after the
        // bytes both share.
        let (previous, body) = (&bodies[n], &bodies[n + 1]);
        let shared = previous.bytes().zip(body.bytes()).take_while(|(a, b)| a == b).count();
        let rewritten = previous.trim_end_matches([']', '}']).len().saturating_sub(shared);
        let prefix = pair[1].prefix.unwrap();
        assert!(after.active);
        if (before.boundary_turn, before.boundary_step) == (after.boundary_turn, after.boundary_step) {
            assert_eq!((after.invalidated_bytes, rewritten), (0, 0));
            assert!(prefix.extends_previous, "between moves the request only grows");
            assert_eq!(prefix.cause, None);
        } else {
            moves += 1;
            assert!(rewritten > 0);
            assert_eq!(after.invalidated_bytes, rewritten);
            assert_eq!(prefix.rewritten_bytes, rewritten);
            assert_eq!(prefix.cause, Some(contextview::view::RewriteCause::Pruning));
        }
    }
    assert_eq!(moves, 1, "twelve more turns move a boundary that steps by twelve once");
}

#[test]
fn a_request_larger_than_the_window_is_said_in_its_report() {
    let [call, result] = tool(2, "t1", "read", json!({"path": "src/lib.rs"}), &"fn x() {}\n".repeat(400));
    let log = log_of(&[user(1, "u1", "Read lib.rs"), call, result]);
    let fits = build_request(&BuildInput { context_window: Some(200_000), ..input(&log) }).unwrap();
    assert_eq!(fits.built.report.diagnostics, []);
    let over = build_request(&BuildInput { context_window: Some(500), ..input(&log) }).unwrap();
    let context = &over.built.report.tokens.context;
    assert!(context.used > 500, "{context:?}");
    let said: Vec<(&str, contextview::diagnostic::Severity)> = over.built.report.diagnostics.iter().map(|d| (d.code.as_str(), d.severity)).collect();
    assert_eq!(said, [("context.over_window", contextview::diagnostic::Severity::Warning)]);
    assert!(over.built.report.diagnostics[0].message.contains(&format!("about {} tokens", context.used)));
}

#[test]
fn what_pruning_leaves_out_counts_in_the_providers_tokens_as_the_anchor_calibrates_them() {
    // An anchor that counted a tenth more than the estimator does (its own error in this
    // session): what is left out after it is taken off at the same rate, so the count stays what
    // the request holds in the provider's tokens — not the anchor's surplus kept whole.
    let mut lines = vec![user(1, "u1", "Read every module and find the dead code.")];
    let mut seq = 2;
    for i in 0..30 {
        let [call, result] = tool(seq, &format!("t{i}"), "read", json!({"path": format!("src/m{i}.rs")}), &format!("fn f_{i}() {{}}\n").repeat(400));
        lines.extend([call, result]);
        seq += 2;
    }
    let items = items_of(&log_of(&lines));
    let heads = head_tokens(Some(SYSTEM), &tools(), Family::Anthropic);
    let held = estimate(&items) + heads;
    let counted = held + held / 10;
    // Its request left nothing out (as an import records an agent's own requests).
    lines.push(event(seq, json!({"kind": "usage_anchor", "provider": "anthropic", "model": "claude-sonnet-4-5", "inputTokens": 2_000, "outputTokens": 0, "cacheReadTokens": counted - 2_000, "omittedTokens": 0})));
    lines.push(user(seq + 1, "u2", "Go on."));
    let log = log_of(&lines);
    // Unpruned, a window that holds it all; then one small enough to prune most of the results.
    for window in [1_000_000, 40_000] {
        let mut input = input(&log);
        input.context_window = Some(window);
        let report = build_request(&input).unwrap().built.report;
        let (used, request) = (report.tokens.context.used as f64, report.tokens.request as f64);
        if window == 40_000 {
            assert!(report.pruning.cleared + report.pruning.trimmed > 10, "{:?}", report.pruning);
        }
        // The request's estimate, at the anchor's rate (within the rounding of the parts).
        assert!((used / request - 1.1).abs() < 0.01, "window {window}: the ledger says {used}, the request holds {request} estimated");
    }
}
