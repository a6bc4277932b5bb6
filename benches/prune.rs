//! Cache-friendliness of pruning on the long pi session of the corpus.
//! `cargo bench --bench prune` (run by `make bench`); skipped without `../shared/corpus`.
//!
//! The session is replayed and a request built at every point an agent would send one (before
//! each assistant turn), with the window set so pruning must act (0.6 × the largest unpruned
//! request). For each pair of consecutive requests: the share of the earlier body that is a
//! byte-identical prefix of the later one, and the bytes after that prefix — what the provider
//! must process again instead of reading from its cache. Our stepped policy against the naive
//! one that moves the boundary every turn (stepTurns = 1), and no pruning at all.

use std::path::PathBuf;

use contextview::import::import;
use contextview::update::replay;
use contextview::view::{build, BuildOptions, PruningConfig};
use contextview::Provider;

fn main() {
    let path = std::env::var_os("CONTEXTVIEW_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
        .join("sessions/badlogic__pi-mono__packages__coding-agent__test__fixtures__large-session.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("prune bench SKIPPED: no corpus session at {}", path.display());
        return;
    };
    let items = replay(&import(None, &text).unwrap().records).items;
    // Requests go out when the model is about to answer: after a prompt or a batch of results.
    let points: Vec<usize> = (1..items.len()).filter(|&i| items[i].is_assistant_side() && !items[i - 1].is_assistant_side()).collect();

    let mut options = BuildOptions::new(Provider::Anthropic, "claude-sonnet-4-5");
    options.render.limits.allow_prefill = true;
    let mut unpruned = options.clone();
    unpruned.pruning.enabled = false;
    let (largest, largest_tokens) = points
        .iter()
        .map(|&p| build(&items[..p], &unpruned).unwrap())
        .map(|b| (b.body.len(), b.report.tokens.context.used))
        .max()
        .unwrap_or((0, 0));
    let window = (largest_tokens as f64 * 0.6) as u64;
    println!(
        "pi large session: {} items, {} requests, largest unpruned body {} bytes ({} tokens by the ledger), window set to {} tokens (0.6 x that)",
        items.len(),
        points.len(),
        largest,
        largest_tokens,
        window
    );
    println!("{:<28} {:>14} {:>14} {:>16} {:>14} {:>10}", "policy", "prefix kept", "pairs broken", "re-processed", "sent", "cleared");
    // PRUNE_STEPS=8,12 compares other steps against the default.
    let steps: Vec<u32> = std::env::var("PRUNE_STEPS").ok().map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect()).unwrap_or_default();
    let mut policies: Vec<(String, Option<PruningConfig>)> = vec![
        ("no pruning".to_owned(), None),
        ("naive (step 1)".to_owned(), Some(PruningConfig { step_turns: 1, ..PruningConfig::default() })),
        (format!("stepped (step {}, default)", PruningConfig::default().step_turns), Some(PruningConfig::default())),
    ];
    for step in steps {
        policies.push((format!("stepped (step {step})"), Some(PruningConfig { step_turns: step, ..PruningConfig::default() })));
    }
    for (name, pruning) in policies {
        let mut o = options.clone();
        match pruning {
            Some(p) => {
                o.pruning = p;
                o.context_window = Some(window);
            }
            None => o.pruning.enabled = false,
        }
        let bodies: Vec<(String, usize)> = points
            .iter()
            .map(|&p| {
                let built = build(&items[..p], &o).unwrap();
                (built.body, built.report.pruning.cleared.len())
            })
            .collect();
        let (mut shares, mut broken, mut reprocessed, mut sent) = (Vec::new(), 0, 0usize, 0usize);
        for pair in bodies.windows(2) {
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
        println!(
            "{:<28} {:>13.1}% {:>8}/{:<5} {:>16} {:>14} {:>10}",
            name,
            mean * 100.0,
            broken,
            shares.len(),
            reprocessed,
            sent,
            bodies.last().map_or(0, |b| b.1)
        );
    }
}
