//! How far the token estimator is from an exact tokenizer, and from what real providers report.
//! `cargo bench --bench tokens` (run by `make bench`); `CALIBRATE=1` also re-fits the weights.
//!
//! Ground truth: `o200k_base` (tiktoken-rs, a dev dependency only) on every item of our fixture
//! sessions and of the corpus sessions, plus the corpus's rule and skill files. Measured, for the
//! estimator and for bytes/4 side by side:
//! - per item: relative error, p50 and p95 (items of at least 16 tokens);
//! - per session: relative error of the whole conversation's total, no anchor;
//! - anchored: at every request point, the exact total at the previous request plus the
//!   estimated delta, against the exact total — p95 over all requests.
//!
//! Then, on the Claude sessions of the corpus, against the usage Anthropic reported: each
//! request's input predicted from the previous request's reported input + output + the
//! estimated delta; this also measures Claude's scale against the o200k-fitted weights.

use std::path::{Path, PathBuf};

use contextview::conversation::Item;
use contextview_import::import;
use contextview::update::{parse_log, replay, Record, RecordBody};
use contextview::update::record::Event;
use contextview::tokens::{bytes_over_four, item_images, item_texts, item_tokens, text_tokens, Family, Features, OPENAI_WEIGHTS};

struct Session {
    name: String,
    items: Vec<Item>,
    records: Vec<Record>,
}

fn corpus_dir() -> PathBuf {
    std::env::var_os("CONTEXTVIEW_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
}

fn load_sessions() -> Vec<Session> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sessions = Vec::new();
    let example = std::fs::read_to_string(root.join("examples/session.jsonl")).unwrap();
    let records = parse_log(&example).records;
    sessions.push(Session { name: "example".into(), items: replay(&records).items, records });
    for name in ["claude-code", "codex", "pi"] {
        let text = std::fs::read_to_string(root.join(format!("tests/fixtures/{name}.jsonl"))).unwrap();
        let records = import(None, &text).unwrap().records;
        sessions.push(Session { name: format!("fixture {name}"), items: replay(&records).items, records });
    }
    if let Ok(dir) = std::fs::read_dir(corpus_dir().join("sessions")) {
        let mut paths: Vec<PathBuf> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(imported) = import(None, &text) else { continue };
            let name = path.file_name().unwrap().to_string_lossy().chars().take(48).collect::<String>();
            sessions.push(Session { name, items: replay(&imported.records).items, records: imported.records });
        }
    } else {
        println!("corpus sessions SKIPPED: no corpus at {}", corpus_dir().display());
    }
    sessions
}



fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[((values.len() - 1) as f64 * p).round() as usize]
}

/// Weighted least squares by the normal equations (Gaussian elimination), pulled toward priors,
/// with no weight below zero: a weight the fit drives negative is held at zero and the rest
/// refitted (a feature never makes a text cheaper).
fn fit(rows: &[([f64; Features::LEN], f64)]) -> [f64; Features::LEN] {
    const N: usize = Features::LEN;
    // Ridge toward priors. Features the sessions barely have (run-on letters, CJK, other
    // scripts, base64) are held at their priors, measured on text made for the purpose
    // (tests/it/tokens.rs: a Chinese paragraph is ~0.75 tokens a character, random base64 ~0.69,
    // run-together words ~0.18 a letter), as are the pieces whose cost the tokenizer's pre-split
    // fixes (a space before a number is one piece: 1.0; a vowel-less letter adds about 0.2);
    // the common ones are fitted with a light pull, three-byte symbols (`→` is one token) with a
    // firm one.
    let mut prior: [f64; N] = [1.0, 0.15, 0.18, 1.0, 1.0, 1.0, 0.4, 0.75, 0.6, 1.2, 0.69, 1.0, 1.0, 0.15, 0.2, 0.2, 0.2, 0.2, 2.0];
    let mut pull: [f64; N] = [25.0, 25.0, 1e9, 25.0, 25.0, 25.0, 25.0, 1e9, 1e9, 3000.0, 1e9, 25.0, 3000.0, 25.0, 1e12, 25.0, 25.0, 25.0, 25.0];
    loop {
        let w = fit_once(rows, &prior, &pull);
        let negative: Vec<usize> = (0..N).filter(|&i| w[i] < -1e-6).collect();
        if negative.is_empty() {
            return w;
        }
        for i in negative {
            prior[i] = 0.0;
            pull[i] = 1e12;
        }
    }
}

fn fit_once(rows: &[([f64; Features::LEN], f64)], prior: &[f64; Features::LEN], pull: &[f64; Features::LEN]) -> [f64; Features::LEN] {
    const N: usize = Features::LEN;
    let mut a = [[0.0; N]; N];
    let mut b = [0.0; N];
    for (x, y) in rows {
        // Between relative (1/y) and absolute error: items and whole sessions both count.
        let w = 1.0 / y.max(1.0).powf(1.1);
        for i in 0..N {
            b[i] += w * x[i] * y;
            for j in 0..N {
                a[i][j] += w * x[i] * x[j];
            }
        }
    }
    for i in 0..N {
        a[i][i] += pull[i];
        b[i] += pull[i] * prior[i];
    }
    for col in 0..N {
        let pivot = (col..N).max_by(|&r, &s| a[r][col].abs().partial_cmp(&a[s][col].abs()).unwrap()).unwrap();
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in 0..N {
            if row != col {
                let f = a[row][col] / a[col][col];
                for k in 0..N {
                    a[row][k] -= f * a[col][k];
                }
                b[row] -= f * b[col];
            }
        }
    }
    let mut w = [0.0; N];
    for i in 0..N {
        w[i] = b[i] / a[i][i];
    }
    w
}

fn main() {
    // THROUGHPUT=N: only the estimator's speed, N times over (for a profiler).
    if let Some(n) = std::env::var("THROUGHPUT").ok().and_then(|n| n.parse::<usize>().ok()) {
        let sessions = load_sessions();
        for _ in 0..n {
            throughput(&sessions);
        }
        return;
    }
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let exact = |text: &str| bpe.encode_ordinary(text).len() as f64;
    let sessions = load_sessions();

    if std::env::var_os("CALIBRATE").is_some() {
        let mut rows = Vec::new();
        for s in &sessions {
            for item in &s.items {
                for t in item_texts(item) {
                    if !t.is_empty() {
                        rows.push((Features::of(&t).as_array(), exact(&t)));
                    }
                }
            }
        }
        // Fitted on session items and the corpus's rules and skills; the chapter and this
        // repository's own docs and sources stay out of the fit (a held-out check).
        for (name, t) in documents() {
            if name.starts_with("rules/") || name.starts_with("skills/") || name.starts_with("odd/") {
                rows.push((Features::of(&t).as_array(), exact(&t)));
            }
        }
        let w = fit(&rows);
        println!("fitted weights ({} texts): {:?}", rows.len(), w.map(|x| (x * 100.0).round() / 100.0));
        println!("shipped weights:          {:?}", OPENAI_WEIGHTS);
        // How it does on a session it never saw: fit without each session, measure that one.
        let per_item = Family::OpenAi.per_item() as f64;
        print!("held out (fit without the session), per-session error:");
        for (k, s) in sessions.iter().enumerate() {
            let texts: Vec<String> = s.items.iter().filter(|i| item_images(i).next().is_none()).flat_map(|i| item_texts(i).into_iter().map(|t| t.into_owned())).collect();
            let exact_total: f64 = texts.iter().map(|t| exact(t)).sum::<f64>() + per_item * s.items.len() as f64;
            if exact_total < 1_000.0 {
                continue;
            }
            let mut held: Vec<([f64; Features::LEN], f64)> = Vec::new();
            for (j, other) in sessions.iter().enumerate().filter(|(j, _)| *j != k) {
                let _ = j;
                for item in &other.items {
                    for t in item_texts(item).iter().filter(|t| !t.is_empty()) {
                        held.push((Features::of(t).as_array(), exact(t)));
                    }
                }
            }
            held.extend(rows.iter().skip(rows.len() - documents().iter().filter(|(n, _)| n.starts_with("rules/") || n.starts_with("skills/") || n.starts_with("odd/")).count()).cloned());
            let w = fit(&held);
            let estimate: f64 = texts.iter().map(|t| Features::of(t).as_array().iter().zip(&w).map(|(x, w)| x * w).sum::<f64>()).sum::<f64>() + per_item * s.items.len() as f64;
            print!(" {} {:+.2}%", s.name.chars().take(16).collect::<String>(), (estimate - exact_total) / exact_total * 100.0);
        }
        println!();
    }

    throughput(&sessions);

    println!("\n== estimator vs o200k_base (exact), and bytes/4 side by side");
    println!(
        "{:<50} {:>6} {:>9} {:>10} {:>10} {:>10} {:>10}",
        "session", "items", "tokens", "est err", "b/4 err", "est anch95", "b/4 anch95"
    );
    let mut item_err_est = Vec::new();
    let mut item_err_b4 = Vec::new();
    let mut anch_est_all = Vec::new();
    let mut anch_b4_all = Vec::new();
    // Requests of at least 1,000 tokens: a real request's system prompt and tools alone are
    // more than that, and the fixtures under 150 tokens would otherwise decide the tail.
    let mut anch_large: Vec<(f64, f64)> = Vec::new();
    let mut session_err_est = Vec::new();
    let mut session_err_b4 = Vec::new();
    let per_item = Family::OpenAi.per_item() as f64;
    for s in &sessions {
        // Per-item exact counts, framing included on both sides so totals compare like for like.
        let mut truth = Vec::new();
        let mut est = Vec::new();
        let mut b4 = Vec::new();
        for item in &s.items {
            if item_images(item).next().is_some() {
                continue; // images are priced by formula, not tokenized
            }
            let t: f64 = item_texts(item).iter().map(|t| exact(t)).sum::<f64>() + per_item;
            let e = item_tokens(item, Family::OpenAi) as f64;
            let b = bytes_over_four(item) as f64 + per_item;
            if t >= 16.0 + per_item {
                if std::env::var("WORST").is_ok_and(|w| s.name.contains(&w)) && (e - t).abs() / t > 0.05 {
                    let snippet: String = item_texts(item).join(" | ").chars().take(160).collect();
                    println!("  worst: est {e} exact {t} {:?}", snippet);
                }
                item_err_est.push((e - t).abs() / t);
                item_err_b4.push((b - t).abs() / t);
            }
            truth.push(t);
            est.push(e);
            b4.push(b);
        }
        let total: f64 = truth.iter().sum();
        if total == 0.0 {
            continue;
        }
        let err_est = (est.iter().sum::<f64>() - total).abs() / total;
        let err_b4 = (b4.iter().sum::<f64>() - total).abs() / total;
        session_err_est.push(err_est);
        session_err_b4.push(err_b4);
        // Anchored: requests after every item; the anchor is the exact total at the previous
        // assistant-side item (where a provider would have reported usage).
        let mut anch_est = Vec::new();
        let mut anch_b4 = Vec::new();
        let mut anchor = 0usize;
        let mut prefix = vec![0.0];
        for t in &truth {
            prefix.push(prefix.last().unwrap() + t);
        }
        for p in 1..truth.len() {
            let exact_total = prefix[p + 1];
            let e: f64 = prefix[anchor] + est[anchor..=p].iter().sum::<f64>();
            let b: f64 = prefix[anchor] + b4[anchor..=p].iter().sum::<f64>();
            anch_est.push((e - exact_total).abs() / exact_total);
            anch_b4.push((b - exact_total).abs() / exact_total);
            if exact_total >= 1_000.0 {
                anch_large.push(((e - exact_total).abs() / exact_total, (b - exact_total).abs() / exact_total));
            }
            if s.items.get(p).is_some_and(Item::is_assistant_side) {
                anchor = p + 1;
            }
        }
        anch_est_all.extend(anch_est.iter().copied());
        anch_b4_all.extend(anch_b4.iter().copied());
        println!(
            "{:<50} {:>6} {:>9} {:>9.2}% {:>9.2}% {:>9.3}% {:>9.3}%",
            s.name,
            truth.len(),
            total as u64,
            err_est * 100.0,
            err_b4 * 100.0,
            percentile(&mut anch_est, 0.95) * 100.0,
            percentile(&mut anch_b4, 0.95) * 100.0
        );
    }
    println!(
        "per item (>= 16 tokens, {} items): estimator p50 {:.1}% p95 {:.1}% | bytes/4 p50 {:.1}% p95 {:.1}%",
        item_err_est.len(),
        percentile(&mut item_err_est.clone(), 0.5) * 100.0,
        percentile(&mut item_err_est, 0.95) * 100.0,
        percentile(&mut item_err_b4.clone(), 0.5) * 100.0,
        percentile(&mut item_err_b4, 0.95) * 100.0
    );
    println!(
        "per session ({}): estimator max {:.2}% mean {:.2}% | bytes/4 max {:.2}% mean {:.2}%",
        session_err_est.len(),
        session_err_est.iter().cloned().fold(0.0, f64::max) * 100.0,
        session_err_est.iter().sum::<f64>() / session_err_est.len() as f64 * 100.0,
        session_err_b4.iter().cloned().fold(0.0, f64::max) * 100.0,
        session_err_b4.iter().sum::<f64>() / session_err_b4.len() as f64 * 100.0
    );
    println!(
        "anchored ({} requests): estimator p95 {:.3}% | bytes/4 p95 {:.3}%",
        anch_est_all.len(),
        percentile(&mut anch_est_all, 0.95) * 100.0,
        percentile(&mut anch_b4_all, 0.95) * 100.0
    );
    let (mut large_est, mut large_b4): (Vec<f64>, Vec<f64>) = anch_large.into_iter().unzip();
    println!(
        "anchored, requests of 1,000+ tokens ({}): estimator p95 {:.3}% | bytes/4 p95 {:.3}%",
        large_est.len(),
        percentile(&mut large_est, 0.95) * 100.0,
        percentile(&mut large_b4, 0.95) * 100.0
    );

    println!("\n== documents (prose, code, CJK): estimator vs o200k_base, and bytes/4");
    for (name, t) in documents() {
        let (e, x) = (text_tokens(&t, Family::OpenAi), exact(&t));
        let b = t.len().div_ceil(4) as f64;
        if x >= 200.0 && (std::env::var_os("WORST").is_some() || (e - x).abs() / x > 0.05) {
            println!("  {name:<60} exact {x:>7} est {:>+6.1}% b/4 {:>+6.1}%", (e - x) / x * 100.0, (b - x) / x * 100.0);
        }
    }
    let docs: Vec<(f64, f64, f64)> = documents().iter().map(|(_, t)| (text_tokens(t, Family::OpenAi), exact(t), t.len().div_ceil(4) as f64)).collect();
    let mut doc_err: Vec<f64> = docs.iter().filter(|d| d.1 >= 200.0).map(|d| (d.0 - d.1).abs() / d.1).collect();
    let mut doc_b4: Vec<f64> = docs.iter().filter(|d| d.1 >= 200.0).map(|d| (d.2 - d.1).abs() / d.1).collect();
    println!(
        "{} documents of 200+ tokens: estimator p50 {:.1}% p95 {:.1}% | bytes/4 p50 {:.1}% p95 {:.1}% (only those over 5% listed)",
        doc_err.len(),
        percentile(&mut doc_err.clone(), 0.5) * 100.0,
        percentile(&mut doc_err, 0.95) * 100.0,
        percentile(&mut doc_b4.clone(), 0.5) * 100.0,
        percentile(&mut doc_b4, 0.95) * 100.0
    );

    claude_usage(&sessions);
}

/// Whole texts besides sessions: the corpus's rules and skills, the design chapter (Chinese),
/// and this repository's own docs and sources (prose and Rust).
fn documents() -> Vec<(String, String)> {
    let mut paths = Vec::new();
    for dir in ["rules", "skills", "odd"] {
        if let Ok(entries) = std::fs::read_dir(corpus_dir().join(dir)) {
            paths.extend(entries.flatten().map(|e| e.path()));
        }
    }
    paths.push(corpus_dir().join("../seed/chapter-8-context.md"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for doc in ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md", "docs/discovery-protocol.md", "pkg-template/index.d.ts"] {
        paths.push(root.join(doc));
    }
    for dir in ["src", "src/view", "src/provider", "src/discovery", "src/import", "src/update"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
            paths.extend(entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "rs")));
        }
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let name = p.to_string_lossy().rsplit('/').take(2).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("/");
            Some((name, text))
        })
        .collect()
}

/// Against what Anthropic reported in real Claude Code sessions.
fn claude_usage(sessions: &[Session]) {
    println!("\n== Claude sessions: predicted request input vs reported usage");
    let mut errs_est = Vec::new();
    let mut errs_b4 = Vec::new();
    let (mut added_reported, mut added_est) = (0.0, 0.0);
    for s in sessions {
        // (items at the anchor, reported prompt total, output) for each reported response.
        let mut anchors: Vec<(usize, f64, f64)> = Vec::new();
        for (k, record) in s.records.iter().enumerate() {
            let RecordBody::Event(Event::UsageAnchor(u)) = &record.body else { continue };
            if u.provider.as_deref() != Some("anthropic") {
                continue;
            }
            let at = replay(&s.records[..=k]).items.len();
            let prompt = (u.input_tokens + u.cache_read_tokens + u.cache_write_tokens) as f64;
            match anchors.last_mut() {
                // The same response reported again with a later output count.
                Some(last) if last.1 == prompt => *last = (at, prompt, u.output_tokens as f64),
                _ => anchors.push((at, prompt, u.output_tokens as f64)),
            }
        }
        if anchors.len() < 2 {
            continue;
        }
        let items = &replay(&s.records).items;
        for pair in anchors.windows(2) {
            let (at, prompt, output) = pair[0];
            let (next_at, next_prompt, _) = pair[1];
            // The next request's prompt ends where its response begins.
            let mut start = next_at.min(items.len());
            while start > at && items[start - 1].is_assistant_side() {
                start -= 1;
            }
            if next_prompt < prompt || at > start {
                continue; // a compaction or a new context in between
            }
            let delta = &items[at..start];
            let est: f64 = delta.iter().map(|i| item_tokens(i, Family::Anthropic) as f64).sum();
            let b4: f64 = delta.iter().map(|i| bytes_over_four(i) as f64).sum();
            // As the ledger counts it: the output never below the response's visible items
            // (Claude Code logs a count taken mid-stream).
            let response: f64 = items[contextview::conversation::response_start(&items[..at.min(items.len())])..at.min(items.len())]
                .iter()
                .map(|i| item_tokens(i, Family::Anthropic) as f64)
                .sum();
            let base = prompt + output.max(response);
            errs_est.push((base + est - next_prompt).abs() / next_prompt);
            errs_b4.push((base + b4 - next_prompt).abs() / next_prompt);
            if !delta.is_empty() {
                added_reported += next_prompt - base;
                added_est += delta.iter().map(|i| {
                    item_texts(i).iter().map(|t| text_tokens(t, Family::OpenAi)).sum::<f64>() + Family::Anthropic.per_item() as f64
                }).sum::<f64>();
            }
        }
    }
    if errs_est.is_empty() {
        println!("no Claude sessions with usage (corpus missing?)");
        return;
    }
    println!(
        "{} request pairs: anchored estimator p50 {:.3}% p95 {:.3}% | bytes/4 p50 {:.3}% p95 {:.3}%",
        errs_est.len(),
        percentile(&mut errs_est.clone(), 0.5) * 100.0,
        percentile(&mut errs_est, 0.95) * 100.0,
        percentile(&mut errs_b4.clone(), 0.5) * 100.0,
        percentile(&mut errs_b4, 0.95) * 100.0
    );
    println!(
        "Claude scale (reported added tokens / o200k-weighted estimate): {:.3}",
        added_reported / added_est
    );
}

/// The estimator's speed on every text of the sessions and documents, natively, beside a
/// counting of the same texts' characters (a plain pass over the bytes) in the same process:
/// the best of seven rounds each, alternated.
fn throughput(sessions: &[Session]) {
    let mut texts: Vec<String> = sessions.iter().flat_map(|s| s.items.iter().flat_map(|i| item_texts(i).into_iter().map(|t| t.into_owned()))).collect();
    texts.extend(documents().into_iter().map(|(_, t)| t));
    let bytes: usize = texts.iter().map(String::len).sum();
    let time = |f: &dyn Fn(&str) -> f64| {
        let start = std::time::Instant::now();
        let mut sink = 0.0;
        for t in &texts {
            sink += f(t);
        }
        std::hint::black_box(sink);
        start.elapsed().as_secs_f64()
    };
    // The same estimate from the step-by-step scan alone (no bitmaps), side by side.
    let by_steps = |t: &str| Features::by_steps(t).as_array().iter().zip(OPENAI_WEIGHTS.iter()).map(|(x, w)| x * w).sum::<f64>();
    let (mut estimator, mut steps, mut chars) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..7 {
        estimator = estimator.min(time(&|t| text_tokens(t, Family::OpenAi)));
        steps = steps.min(time(&|t| by_steps(t)));
        chars = chars.min(time(&|t| t.chars().count() as f64));
    }
    let mb = bytes as f64 / 1e6;
    println!(
        "\n== estimator throughput: {:.1} MB of text ({} texts): estimator {:.0} MB/s, step by step only {:.0} MB/s ({:.2}x the estimator's time), chars().count() {:.0} MB/s (estimator {:.1}x its time)",
        mb,
        texts.len(),
        mb / estimator,
        mb / steps,
        steps / estimator,
        mb / chars,
        estimator / chars
    );
}
