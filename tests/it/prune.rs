//! Pruning tool results: what is trimmed and cleared, what never is, and the cache-friendly
//! property that pruning moves in steps.

use contextview::conversation::*;
use contextview::view::{build, BuildOptions, ContextUse, PruningConfig};
use contextview::Provider;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// `turns` turns, each: a prompt, a call to `tool`, a result of `size` characters, an answer.
fn session(turns: usize, size: usize, tool: &str) -> Vec<Item> {
    let mut items = Vec::new();
    for t in 1..=turns {
        items.push(Item::User(UserMessage { id: format!("u{t}"), content: vec![Part::text(format!("step {t}"))], synthetic: None }));
        items.push(Item::ToolCall(ToolCall { id: format!("c{t}"), call_id: format!("call_{t}"), name: tool.into(), input: json!({"n": t}).into(), origin: None, signature: None }));
        let body: String = (0..size).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        items.push(Item::ToolResult(ToolResult { id: format!("r{t}"), call_id: format!("call_{t}"), content: vec![Part::text(body)], is_error: false, released: None }));
        items.push(Item::Assistant(AssistantText { id: format!("a{t}"), text: format!("done {t}").into(), origin: None, signature: None, annotations: None }));
    }
    items
}

fn options(window: u64) -> BuildOptions {
    let mut o = BuildOptions::new(Provider::Anthropic, "m");
    o.context_window = Some(window);
    o.render.limits.allow_prefill = Some(true);
    // These tests speak of a boundary moving every 8 turns (the default is 12), by the count
    // rules alone (token pressure has tests of its own).
    o.pruning.step_turns = 8;
    o.pruning.token_pressure = false;
    o
}

fn result_texts(items: &[Item], o: &BuildOptions) -> Vec<String> {
    let built = build(items, o).unwrap();
    let payload: serde_json::Value = serde_json::from_str(&built.body).unwrap();
    payload["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().unwrap().clone())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["content"][0]["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn nothing_is_pruned_below_the_trigger() {
    let items = session(20, 5000, "bash");
    let built = build(&items, &options(10_000_000)).unwrap();
    assert!(!built.report.pruning.active);
    assert!(built.report.pruning.trimmed == 0 && built.report.pruning.cleared == 0);
}

#[test]
fn old_results_are_trimmed_very_old_cleared_recent_kept() {
    let items = session(20, 5000, "bash");
    let o = options(10_000); // far over the trigger
    let built = build(&items, &o).unwrap();
    let report = &built.report.pruning;
    assert!(report.active);
    assert_eq!(report.turns, 20);
    // Boundary: the largest multiple of 8 leaving 3 turns: 16. Cleared: turns before 16 - 7 = 9.
    assert_eq!(report.boundary_turn, 16);
    assert_eq!(report.cleared_ids(), (1..9).map(|t| format!("r{t}")).collect::<Vec<_>>());
    assert_eq!(report.trimmed_ids(), (9..16).map(|t| format!("r{t}")).collect::<Vec<_>>());
    let texts = result_texts(&items, &o);
    assert!(texts[0].starts_with("[Tool result cleared to save context: `bash` returned 5000 characters in turn 1."));
    assert!(texts[0].contains("run the tool again"));
    assert!(texts[8].contains("[… 2000 characters trimmed …]"));
    assert_eq!(texts[8].len(), 1500 + 1500 + "\n[… 2000 characters trimmed …]\n".len());
    for t in &texts[15..] {
        assert_eq!(t.len(), 5000, "turns from the boundary on are intact");
    }
    // Cleared results leave out all of their characters; a trim saves what the marker does not replace.
    assert_eq!(report.chars_saved, 8 * 5000 + 7 * (5000 - texts[8].chars().count()));
}

#[test]
fn protected_tools_and_small_results_are_left_alone() {
    let items = session(20, 5000, "skill");
    let built = build(&items, &options(10_000)).unwrap();
    assert!(built.report.pruning.cleared == 0 && built.report.pruning.trimmed == 0);
    let small = session(20, 100, "bash");
    let built = build(&small, &options(100)).unwrap();
    assert!(built.report.pruning.trimmed == 0, "short results are not trimmed");
    assert_eq!(built.report.pruning.cleared, 8, "but old ones are still cleared");
}

#[test]
fn synthetic_user_items_do_not_age_results() {
    let mut items = session(4, 5000, "bash");
    for i in 0..30 {
        items.push(Item::User(UserMessage { id: format!("rem{i}"), content: vec![Part::text("reminder")], synthetic: Some(SyntheticReason::SystemReminder) }));
    }
    let built = build(&items, &options(1000)).unwrap();
    assert_eq!(built.report.pruning.turns, 4);
    assert_eq!(built.report.pruning.boundary_turn, 0);
    assert!(built.report.pruning.cleared == 0);
}

#[test]
fn between_boundary_moves_each_request_extends_the_previous_one() {
    let mut o = options(10_000);
    // Over the trigger from the first request on, whatever the estimator makes of the results.
    o.context_tokens = Some(9_000);
    let full = session(30, 5000, "bash");
    let mut previous: Option<String> = None;
    let mut breaks = 0;
    for turns in 12..=30 {
        let items = &full[..turns * 4];
        let body = build(items, &o).unwrap().body;
        if let Some(prev) = &previous {
            // The messages of the previous request, minus its closing `]}`, lead this one.
            let stem = &prev[..prev.len() - 2];
            if !body.starts_with(stem) {
                breaks += 1;
            }
        }
        previous = Some(body);
    }
    // The boundary moved at 19 and 27 (multiples of 8 plus 3): two prefix breaks in 18 steps.
    assert_eq!(breaks, 2);
}

proptest! {
    #![proptest_config(crate::common::config(crate::common::cases(512)))]

    /// Whatever the config, results of the last `keepTurns` turns reach the provider intact.
    #[test]
    fn the_last_turns_are_never_touched(turns in 1usize..40, size in 1usize..9000, keep in 0u32..6, step in 1u32..12, hard in 0u32..15) {
        let items = session(turns, size, "bash");
        let mut o = options(100);
        o.pruning = PruningConfig { keep_turns: keep, step_turns: step, hard_clear_turns: hard, token_pressure: false, ..PruningConfig::default() };
        let texts = result_texts(&items, &o);
        let protected = (keep as usize).min(turns);
        for t in &texts[turns - protected..] {
            prop_assert_eq!(t.chars().count(), size);
        }
        let again = result_texts(&items, &o);
        prop_assert_eq!(texts, again);
    }
}

#[test]
fn the_usage_can_come_from_the_ledger() {
    let items = session(20, 5000, "bash");
    let mut o = options(200_000);
    o.context_tokens = Some(150_000);
    assert!(build(&items, &o).unwrap().report.pruning.active);
    o.context_tokens = Some(50_000);
    assert!(!build(&items, &o).unwrap().report.pruning.active);
    let _ = ContextUse { tokens: 1, window: 2 };
}

#[test]
fn a_result_just_over_the_threshold_is_left_whole_when_trimming_would_not_shorten_it() {
    let items = session(20, 3001, "bash");
    let mut o = options(100);
    o.pruning.soft_trim_chars = 3000;
    let built = build(&items, &o).unwrap();
    assert!(built.report.pruning.trimmed == 0);
    assert!(result_texts(&items, &o).iter().rev().take(10).all(|t| t.chars().count() == 3001));
}

/// One prompt, then `steps` tool rounds: a call and a result of `size` characters each.
fn run_of(steps: usize, size: usize) -> Vec<Item> {
    let mut items = vec![Item::User(UserMessage { id: "u".into(), content: vec![Part::text("fix everything")], synthetic: None })];
    for s in 1..=steps {
        items.push(Item::Assistant(AssistantText { id: format!("a{s}"), text: format!("step {s}").into(), origin: None, signature: None, annotations: None }));
        items.push(Item::ToolCall(ToolCall { id: format!("c{s}"), call_id: format!("call_{s}"), name: "bash".into(), input: json!({"n": s}).into(), origin: None, signature: None }));
        let body: String = (0..size).map(|i| char::from(b'a' + ((i + s) % 26) as u8)).collect();
        items.push(Item::ToolResult(ToolResult { id: format!("r{s}"), call_id: format!("call_{s}"), content: vec![Part::text(body)], is_error: false, released: None }));
    }
    items
}

#[test]
fn a_one_prompt_run_ages_by_steps() {
    // A single prompt followed by 100 tool rounds: the turn clock never moves, the step clock does.
    let items = run_of(100, 5000);
    let mut o = options(10_000);
    o.pruning = PruningConfig { token_pressure: false, ..PruningConfig::default() };
    let built = build(&items, &o).unwrap();
    let report = &built.report.pruning;
    assert_eq!((report.turns, report.steps, report.boundary_turn), (1, 100, 0));
    // keepSteps 12, batches of 24: the boundary is 72 (100 − 12 = 88, down to a multiple of 24);
    // results at least 48 steps old there (before step 72 − 36 = 36) are cleared.
    assert_eq!(report.boundary_step, 72);
    assert_eq!(report.cleared_ids(), (1..36).map(|s| format!("r{s}")).collect::<Vec<_>>());
    assert_eq!(report.trimmed_ids(), (36..72).map(|s| format!("r{s}")).collect::<Vec<_>>());
    let texts = result_texts(&items, &o);
    assert!(texts[0].starts_with("[Tool result cleared to save context: `bash` returned 5000 characters in step 1."), "{}", texts[0]);
    assert!(texts[71..].iter().all(|t| t.len() == 5000), "the last steps are intact");
    assert!(report.chars_saved > 35 * 5000);
}

#[test]
fn in_a_run_each_request_extends_the_previous_one_until_the_step_boundary_moves() {
    let mut o = options(10_000);
    o.pruning = PruningConfig { token_pressure: false, ..PruningConfig::default() };
    o.context_tokens = Some(9_000);
    let full = run_of(90, 5000);
    let (mut previous, mut breaks): (Option<String>, Vec<usize>) = (None, Vec::new());
    for steps in 1..=90 {
        let body = build(&full[..1 + steps * 3], &o).unwrap().body;
        if let Some(prev) = &previous {
            if !body.starts_with(&prev[..prev.len() - 2]) {
                breaks.push(steps);
            }
        }
        previous = Some(body);
    }
    // The boundary moves when 12 steps are left after a multiple of 24: at steps 36, 60 and 84.
    assert_eq!(breaks, vec![36, 60, 84]);
}

proptest! {
    #![proptest_config(crate::common::config(crate::common::cases(256)))]

    /// Whatever the config, the results of the last `keepSteps` steps reach the provider intact.
    #[test]
    fn the_last_steps_are_never_touched(steps in 1usize..120, size in 1usize..9000, keep in 0u32..20, batch in 1u32..30, hard in 0u32..60) {
        let items = run_of(steps, size);
        let mut o = options(100);
        o.pruning = PruningConfig { keep_steps: keep, batch_steps: batch, hard_clear_steps: hard, token_pressure: false, ..PruningConfig::default() };
        let texts = result_texts(&items, &o);
        // The current step is always kept, whatever `keep` says.
        let protected = (keep.max(1) as usize).min(steps);
        for t in &texts[steps - protected..] {
            prop_assert_eq!(t.chars().count(), size);
        }
    }
}

#[test]
fn a_run_of_few_huge_steps_prunes_the_steps_its_config_says() {
    // Six tool rounds of 60,000 characters each: a few steps, each a large share of any window.
    let items = run_of(6, 60_000);
    let mut o = options(100_000);
    o.pruning = PruningConfig { keep_steps: 2, batch_steps: 1, hard_clear_steps: 4, token_pressure: false, ..PruningConfig::default() };
    let built = build(&items, &o).unwrap();
    let report = &built.report.pruning;
    // Steps 5 and 6 are kept; the boundary is 6 − 2 = 4 (batches of one): results of steps 1–3
    // are pruned; those at least 4 steps old at the boundary (before step 4 − (4 − 2) = 2) cleared.
    assert_eq!((report.active, report.steps, report.boundary_step), (true, 6, 4));
    assert_eq!(report.cleared_ids(), ["r1"]);
    assert_eq!(report.trimmed_ids(), ["r2", "r3"]);
    let texts = result_texts(&items, &o);
    assert!(texts[0].starts_with("[Tool result cleared to save context: `bash` returned 60000 characters in step 1."), "{}", texts[0]);
    assert_eq!(texts[1].chars().count(), 1500 + 1500 + "\n[… 57000 characters trimmed …]\n".chars().count());
    assert!(texts[3..].iter().all(|t| t.chars().count() == 60_000), "steps 4–6 are whole");
    assert_eq!(report.chars_saved, 60_000 + 2 * 57_000 - 2 * "\n[… 57000 characters trimmed …]\n".chars().count());
}

#[test]
fn under_token_pressure_a_run_of_large_results_stays_under_its_window() {
    // One prompt, then 40 rounds of 6,000-character results in a 20,000-token window: without
    // pressure the requests grew to two and a half times the window before the count boundary moved.
    let mut o = BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5");
    o.context_window = Some(20_000);
    let full = run_of(40, 6_000);
    let (mut previous, mut moves, mut largest, mut smallest_late): (Option<String>, usize, u64, u64) = (None, 0, 0, u64::MAX);
    for steps in 1..=40 {
        let built = build(&full[..1 + steps * 3], &o).unwrap();
        let tokens = built.report.tokens.request;
        largest = largest.max(tokens);
        if steps > 10 {
            smallest_late = smallest_late.min(tokens);
        }
        assert!(tokens <= 20_000, "request {steps}: {tokens} tokens in a 20,000 window");
        // The current round's result is never touched.
        let pruned: Vec<&String> = built.report.pruning.trimmed_ids().iter().chain(built.report.pruning.cleared_ids()).collect();
        assert!(!pruned.iter().any(|id| **id == format!("r{steps}")), "request {steps} pruned its own round");
        if let Some(prev) = &previous {
            if !built.body.starts_with(&prev[..prev.len() - 2]) {
                moves += 1;
            }
        }
        previous = Some(built.body);
    }
    // A move brings the context down to the target (15% of the window, 3,000 tokens) and the
    // next waits until it passes the trigger (half the window) again — some five rounds of
    // these results — so over 40 rounds the prefix breaks about every fifth round (it broke at
    // every one before the moves were made from the context as pruned so far).
    assert!((4..=10).contains(&moves), "{moves} moves");
    // The context is held about the trigger (10,000 tokens; the plan estimates the items, the
    // request adds its framing) and a move leaves no less than the target: the window is used,
    // not starved.
    assert!((9_000..=11_000).contains(&largest), "largest request: {largest}");
    assert!(smallest_late >= 3_000, "smallest request after round 10: {smallest_late}");
    // The count rules alone: round 35's request is still whole, well past the window.
    let mut count_only = o.clone();
    count_only.pruning.token_pressure = false;
    let tokens = build(&full[..1 + 35 * 3], &count_only).unwrap().report.tokens.request;
    assert!(tokens > 45_000, "count rules alone: {tokens}");
}

/// A result a session let go (cleared: its text and pictures gone, its measure kept) prunes as it
/// did whole: at every window, the request built with the results a build cleared let go is the
/// request built whole — pictures among them, which pruning never trims.
#[test]
fn results_let_go_prune_as_they_did_whole() {
    use contextview::tokens::{item_size, Family};
    let picture = Image::Base64 { media_type: "image/png".into(), data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==".into() };
    let mut items = vec![Item::User(UserMessage { id: "u".into(), content: vec![Part::text("Port it all.")], synthetic: None })];
    for s in 0..40 {
        items.push(Item::ToolCall(ToolCall { id: format!("c{s}"), call_id: format!("k{s}"), name: "read".into(), input: json!({"n": s}).into(), origin: None, signature: None }));
        let mut content = vec![Part::text(format!("{s} {}", "let token = lexer.next()?;\n".repeat(200)))];
        if s % 3 == 1 {
            content.push(Part::Image(picture.clone()));
        }
        items.push(Item::ToolResult(ToolResult { id: format!("r{s}"), call_id: format!("k{s}"), content, is_error: false, released: None }));
    }
    let mut compared = 0;
    for (window, target) in (20_000..120_000).step_by(4_000).flat_map(|w| [(w, 0.15), (w, 0.3), (w, 0.45)]) {
        let mut o = BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5");
        o.context_window = Some(window);
        o.pruning.target_ratio = target;
        let whole = build(&items, &o).unwrap();
        let cleared = whole.report.pruning.cleared_ids().to_vec();
        let let_go: Vec<Item> = items
            .iter()
            .map(|item| match item {
                Item::ToolResult(r) if cleared.contains(&r.id) => {
                    let text = text_of(&r.content);
                    let released = Released {
                        seq: 1,
                        chars: text.chars().count() as u64,
                        bytes: text.len() as u64,
                        hash: 0,
                        tokens: Family::ALL.map(|f| item_size(item, f).tokens),
                        trimmed: None,
                        images: r.content.iter().any(|p| matches!(p, Part::Image(_))),
                    };
                    Item::ToolResult(ToolResult { content: Vec::new(), released: Some(Box::new(released)), ..r.clone() })
                }
                other => other.clone(),
            })
            .collect();
        compared += usize::from(!cleared.is_empty());
        assert_eq!(build(&let_go, &o).map(|b| b.body), Ok(whole.body), "window {window}, target {target}");
    }
    assert!(compared >= 5, "{compared} windows cleared something");
}
