//! Cache-friendliness of pruning, on a multi-prompt session and on a one-prompt run.
//! `cargo bench --bench prune` (run by `make bench`; `PRUNE_STEPS=keep/batch/hard,…` and
//! `PRUNE_PRESSURE=target/batch/keepRecent,…` add other settings to compare).
//!
//! Two sessions: the long pi session of the corpus (many prompts; skipped without
//! `../shared/corpus`), and a generated run of one prompt followed by 300 tool rounds (the
//! normal shape of an autonomous agent). Each is replayed and a request built at every point an
//! agent would send one (before each assistant turn), with the window set so pruning must act
//! (0.6 × the largest unpruned request). For each pair of consecutive requests: the share of the
//! earlier body that is a byte-identical prefix of the later one, and the bytes after that
//! prefix — what the provider must process again instead of reading from its cache. Besides: the
//! share of the window pruning frees (the unpruned request's tokens less the pruned one's, over
//! the window; mean over the requests where pruning acts, and at the last request), and how many
//! requests still exceed the window; and the input's cost in dollars as the cost model forecasts
//! it (Claude Sonnet's prices and cache rules, a request every 20 seconds). The default (count
//! rules and token pressure) against the count rules alone, the turn clock alone, the naive
//! policy that moves both boundaries every turn and step, and no pruning at all. A third session,
//! one prompt and 40 rounds of 60 KB results, is the case token pressure is for: few steps, each
//! a large share of the window.

use std::path::PathBuf;

use contextview::conversation::{AssistantText, Item, Part, ToolCall, ToolResult, UserMessage};
use contextview::cost::Forecaster;
use contextview_import::import;
use contextview::update::replay;
use contextview::view::{build, BuildOptions, PrefixReport, PruningConfig, Threshold};
use contextview::Provider;

/// One prompt, then `steps` tool rounds with results of varied sizes (a fixed sequence).
fn one_prompt_run(steps: usize) -> Vec<Item> {
    one_prompt_run_of(steps, |next| match next() % 10 {
        0..=5 => 200 + (next() % 1500) as usize,
        6..=8 => 2000 + (next() % 6000) as usize,
        _ => 10_000 + (next() % 20_000) as usize,
    })
}

/// One prompt, then `steps` tool rounds whose results' sizes `size` draws from the generator.
fn one_prompt_run_of(steps: usize, size: impl Fn(&mut dyn FnMut() -> u64) -> usize) -> Vec<Item> {
    let mut items = vec![Item::User(UserMessage { id: "u".into(), content: vec![Part::text("Migrate the storage layer to the new API and keep every test green.")], synthetic: None })];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let words = ["fn", "let", "storage", "append", "commit", "error:", "test", "ok", "result", "=>", "{", "}", "pub", "async", "await", "line", "42", "src/lib.rs"];
    for s in 1..=steps {
        items.push(Item::Assistant(AssistantText { id: format!("a{s}"), text: format!("Step {s}: checking the next part of the storage layer.").into(), origin: None, signature: None, annotations: None }));
        items.push(Item::ToolCall(ToolCall {
            id: format!("c{s}"),
            call_id: format!("call_{s}"),
            name: if s % 3 == 0 { "edit".into() } else { "bash".into() },
            input: serde_json::json!({"command": format!("cargo test storage::case_{s}")}).into(),
            origin: None,
            signature: None,
        }));
        let size = size(&mut next);
        let mut body = String::with_capacity(size + 16);
        while body.len() < size {
            body.push_str(words[(next() % words.len() as u64) as usize]);
            body.push(if next() % 9 == 0 { '\n' } else { ' ' });
        }
        items.push(Item::ToolResult(ToolResult { id: format!("r{s}"), call_id: format!("call_{s}"), content: vec![Part::text(body)], is_error: false, released: None }));
    }
    items
}

fn main() {
    let path = std::env::var_os("CONTEXTVIEW_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
        .join("sessions/badlogic__pi-mono__packages__coding-agent__test__fixtures__large-session.jsonl");
    let mut sessions = Vec::new();
    match std::fs::read_to_string(&path) {
        Ok(text) => sessions.push(("pi large session (corpus, many prompts)", replay(&import(None, &text).unwrap().records).items)),
        Err(_) => println!("pi session SKIPPED: no corpus session at {}", path.display()),
    }
    // Mostly small outputs, some large ones (a build log, a file read).
    sessions.push(("generated run (1 prompt, 300 tool rounds)", one_prompt_run(300)));
    // Whole files and logs: 50–70 KB each.
    sessions.push(("generated run (1 prompt, 40 rounds of 50-70 KB)", one_prompt_run_of(40, |next| 50_000 + (next() % 20_000) as usize)));
    for (name, items) in sessions {
        measure(name, &items);
    }
}

fn measure(name: &str, items: &[Item]) {
    // Requests go out when the model is about to answer: after a prompt or a batch of results.
    let points: Vec<usize> = (1..items.len()).filter(|&i| items[i].is_assistant_side() && !items[i - 1].is_assistant_side()).collect();
    let mut options = BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5");
    options.render.limits.allow_prefill = Some(true);
    let mut unpruned = options.clone();
    unpruned.pruning.enabled = false;
    let unpruned_tokens: Vec<u64> = points.iter().map(|&p| build(&items[..p], &unpruned).unwrap().report.tokens.request).collect();
    let largest = unpruned_tokens.iter().copied().max().unwrap_or(0);
    let window = (largest as f64 * 0.6) as u64;
    println!("\n{name}: {} items, {} requests, largest unpruned request {largest} tokens, window set to {window} tokens (0.6 x that)", items.len(), points.len());
    println!(
        "{:<44} {:>11} {:>13} {:>14} {:>13} {:>12} {:>12} {:>10} {:>10} {:>14}",
        "policy", "prefix kept", "pairs broken", "re-processed", "sent", "freed (mean)", "freed (last)", "over", "input $", "compact (held)"
    );
    let default = PruningConfig::default();
    let mut policies: Vec<(String, Option<PruningConfig>)> = vec![
        ("no pruning".to_owned(), None),
        ("naive (every turn and step)".to_owned(), Some(PruningConfig { step_turns: 1, batch_steps: 1, token_pressure: false, ..default.clone() })),
        (format!("turns only (step {})", default.step_turns), Some(PruningConfig { keep_steps: u32::MAX, token_pressure: false, ..default.clone() })),
        (
            format!("turns + steps ({}, {}/{}/{})", default.step_turns, default.keep_steps, default.batch_steps, default.hard_clear_steps),
            Some(PruningConfig { token_pressure: false, ..default.clone() }),
        ),
        (format!("default: + token pressure (to {:.0}%)", default.target_ratio * 100.0), Some(default.clone())),
    ];
    // PRUNE_STEPS=keep/batch/hard,… compares other step settings against the default.
    for spec in std::env::var("PRUNE_STEPS").unwrap_or_default().split(',').filter(|s| !s.is_empty()) {
        let n: Vec<u32> = spec.split('/').filter_map(|x| x.trim().parse().ok()).collect();
        if let [keep, batch, hard] = n[..] {
            policies.push((format!("default, steps {keep}/{batch}/{hard}"), Some(PruningConfig { keep_steps: keep, batch_steps: batch, hard_clear_steps: hard, ..default.clone() })));
        }
    }
    // PRUNE_PRESSURE=target/batch/keepRecent,… (shares of the window) compares other token
    // pressure settings against the default.
    for spec in std::env::var("PRUNE_PRESSURE").unwrap_or_default().split(',').filter(|s| !s.is_empty()) {
        let n: Vec<f64> = spec.split('/').filter_map(|x| x.trim().parse().ok()).collect();
        if let [target, batch, recent] = n[..] {
            policies.push((format!("default, pressure {target}/{batch}/{recent}"), Some(PruningConfig { target_ratio: target, batch_ratio: batch, keep_recent_ratio: recent, ..default.clone() })));
        }
    }
    for (policy, pruning) in policies {
        let mut o = options.clone();
        o.context_window = Some(window);
        match pruning {
            Some(p) => o.pruning = p,
            None => o.pruning.enabled = false,
        }
        // The input's cost: each request after the one before, 20 seconds apart, with the shared
        // prefix measured here (a bare build does not know the request before it).
        let (mut forecaster, mut dollars, mut before): (Forecaster, f64, Option<String>) = (Forecaster::default(), 0.0, None);
        // Requests at which a compaction is due: as the ledger counts what is sent (it follows the
        // view), and as it counted the conversation as held (before it followed the view).
        let (mut due, mut due_held) = (0usize, 0usize);
        let built: Vec<(String, u64, bool)> = points
            .iter()
            .enumerate()
            .map(|(n, &p)| {
                let mut built = build(&items[..p], &o).unwrap();
                built.report.prefix = before.as_ref().map(|prev| {
                    let stem = prev.len().saturating_sub(2);
                    let shared = prev.bytes().zip(built.body.bytes()).take_while(|(a, b)| a == b).count().min(stem);
                    PrefixReport { previous_bytes: prev.len(), shared_bytes: shared, extends_previous: shared == stem, rewritten_bytes: stem - shared, cause: None }
                });
                let (forecast, _) = forecaster.forecast(&built.report, &o.render.cache, &[], Some(1_780_000_000 + 20 * n as i64)).expect("Sonnet has a price row");
                dollars += forecast.input_dollars;
                let context = &built.report.tokens.context;
                due += usize::from(context.threshold == Threshold::Compact);
                let held = (context.used as i64 - context.adjusted_tokens) as u64;
                due_held += usize::from(context.compact_at.is_some_and(|at| held > at));
                before = Some(built.body.clone());
                (built.body, built.report.tokens.request, built.report.pruning.active)
            })
            .collect();
        let (mut shares, mut broken, mut reprocessed, mut sent) = (Vec::new(), 0, 0usize, 0usize);
        for pair in built.windows(2) {
            let (prev, next) = (&pair[0].0, &pair[1].0);
            // Everything of the earlier body but its closing `]}` can be a prefix of the next.
            let stem = prev.len().saturating_sub(2);
            let shared = prev.bytes().zip(next.bytes()).take_while(|(a, b)| a == b).count().min(stem);
            shares.push(shared as f64 / stem.max(1) as f64);
            if shared < stem {
                broken += 1;
            }
            reprocessed += next.len() - shared;
            sent += next.len();
        }
        let mean = shares.iter().sum::<f64>() / shares.len().max(1) as f64;
        let freed: Vec<f64> = built
            .iter()
            .zip(&unpruned_tokens)
            .filter(|((_, _, active), _)| *active)
            .map(|((_, tokens, _), full)| full.saturating_sub(*tokens) as f64 / window.max(1) as f64)
            .collect();
        let freed_mean = freed.iter().sum::<f64>() / freed.len().max(1) as f64;
        let freed_last = match (built.last(), unpruned_tokens.last()) {
            (Some((_, tokens, _)), Some(full)) => full.saturating_sub(*tokens) as f64 / window.max(1) as f64,
            _ => 0.0,
        };
        let over = built.iter().filter(|(_, tokens, _)| *tokens > window).count();
        println!(
            "{:<44} {:>10.1}% {:>7}/{:<5} {:>14} {:>13} {:>11.1}% {:>11.1}% {:>6}/{:<4} {:>10.2} {:>6} ({:>4})",
            policy,
            mean * 100.0,
            broken,
            shares.len(),
            reprocessed,
            sent,
            freed_mean * 100.0,
            freed_last * 100.0,
            over,
            built.len(),
            dollars,
            due,
            due_held
        );
    }
}
