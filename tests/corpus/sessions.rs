//! Real sessions from Claude Code, Codex and pi: each is imported, replayed, and built for every
//! provider after each real user turn; every payload must pass its validator, and what each
//! check covered is printed and asserted.
use std::path::{Path, PathBuf};

use contextview::conversation::Item;
use contextview_import::{detect, import, Format};
use contextview::update::{parse_log, replay, write_log};
use contextview::view::{build, BuildError, BuildOptions, RepairKind};
use contextview::Provider;

/// The corpus's sessions, by file name.
fn sessions(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("sessions")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files.into_iter().map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())).collect()
}

fn expected_format(name: &str) -> Format {
    if name.contains("codex") {
        Format::Codex
    } else if name.contains("pi-mono") {
        Format::Pi
    } else {
        Format::ClaudeCode
    }
}

fn model_for(provider: Provider) -> &'static str {
    contextview::request::default_model(provider)
}

pub fn corpus_sessions_import_replay_and_build_valid_payloads_for_every_provider(dir: &Path) {
    let sessions = sessions(dir);
    assert!(sessions.len() >= 7, "expected the corpus's sessions, found {}", sessions.len());
    for (name, text) in &sessions {
        let format = detect(text).unwrap_or_else(|| panic!("{name}: format not detected"));
        assert_eq!(format, expected_format(name), "{name}");
        let imported = import(None, text).unwrap();
        let report = &imported.report;
        let errors: Vec<_> = report.diagnostics.iter().filter(|d| d.severity == contextview::Severity::Error).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        // Nothing the source agent's model saw is missing from the view.
        let fidelity = &report.fidelity;
        eprintln!("{name:.60}: fidelity source {:?} view {:?}", fidelity.source, fidelity.view);
        assert!(fidelity.missing.is_empty(), "{name}: {} missing, e.g. {:?}", fidelity.missing.len(), &fidelity.missing[..fidelity.missing.len().min(5)]);
        assert!(fidelity.source.prompts + fidelity.source.tool_calls + fidelity.source.assistant_texts > 0, "{name}: the source view is empty");

        // The imported log is a valid log of ours: it round-trips through the text form.
        let text_form = write_log(&imported.header, &imported.records);
        let reparsed = parse_log(&text_form);
        assert!(reparsed.diagnostics.is_empty(), "{name}: {:?}", reparsed.diagnostics);
        assert_eq!(reparsed.records.len(), imported.records.len(), "{name}");
        if let Some((a, b)) = reparsed.records.iter().zip(&imported.records).find(|(a, b)| a != b) {
            panic!("{name}: record seq {} does not round-trip:\n read back: {a:?}\n imported:  {b:?}", b.seq);
        }

        let replayed = replay(&imported.records);
        let items = &replayed.items;
        let turns: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|(_, i)| matches!(i, Item::User(m) if m.synthetic.is_none()))
            .map(|(index, _)| index)
            .collect();
        let mut builds = 0;
        let (_, repairs) = contextview::view::repair::repair(items, &Default::default());
        let dangling = repairs.iter().filter(|r| r.kind == RepairKind::SyntheticResult).count();
        let mut repair_kinds = std::collections::BTreeMap::new();
        for r in &repairs {
            *repair_kinds.entry(format!("{:?}", r.kind)).or_insert(0) += 1;
        }
        let mut kept = [0usize; 4];
        let mut downgraded = [0usize; 4];
        let points: Vec<usize> = turns.iter().map(|&i| i + 1).chain(std::iter::once(items.len())).collect();
        for (p, provider) in Provider::ALL.into_iter().enumerate() {
            let options = BuildOptions::new(provider, model_for(provider));
            for &end in &points {
                match build(&items[..end], &options) {
                    Ok(built) => {
                        builds += 1;
                        if end == items.len() {
                            kept[p] = built.report.reasoning.kept;
                            downgraded[p] = built.report.reasoning.downgraded;
                        }
                    }
                    Err(BuildError::EndsWithAssistant { .. }) if provider == Provider::Anthropic && end == items.len() => {}
                    Err(BuildError::EmptyConversation { .. }) if end == 0 => {}
                    Err(e) => panic!("{name}: {provider} at {end}/{}: {e:?}", items.len()),
                }
            }
        }
        // Built for the model that wrote it, the session's own signed thinking goes back as it was
        // (and the request passes every rule, blank text blocks included).
        if let Some(own) = replayed.state.model.as_ref().filter(|m| m.provider == "anthropic") {
            let mut next = items.clone();
            next.push(Item::User(contextview::conversation::UserMessage { id: "next".into(), content: vec![contextview::conversation::Part::text("go on")], synthetic: None }));
            let built = build(&next, &BuildOptions::new(Provider::Anthropic, &own.model)).unwrap_or_else(|e| panic!("{name}: for {}: {e:?}", own.model));
            let signed_by_it = items
                .iter()
                .filter(|i| matches!(i, Item::Reasoning(r) if (r.signature.is_some() || r.encrypted.is_some())
                    && r.origin.as_ref().and_then(|o| o.model.as_deref()).is_some_and(|m| contextview::provider::same_model(m, &own.model))))
                .count();
            assert_eq!(built.report.reasoning.kept, signed_by_it, "{name}: for {}", own.model);
        }
        eprintln!(
            "{name:.60}: {format}, {} lines -> {} records, {} items, {} user turns, {} builds, repairs {:?} ({} dangling calls), reasoning kept/downgraded per provider {:?}/{:?}, unmapped {:?}",
            report.lines,
            report.records,
            items.len(),
            turns.len(),
            builds,
            repair_kinds,
            dangling,
            kept,
            downgraded,
            report.unmapped
        );
        assert!(!items.is_empty(), "{name}: nothing imported");
    }
}

/// Where an agent sends a request: right before each assistant turn.
fn request_points(items: &[Item]) -> Vec<usize> {
    (1..items.len()).filter(|&i| items[i].is_assistant_side() && !items[i - 1].is_assistant_side()).collect()
}

pub fn corpus_request_pipeline_keeps_its_rules(dir: &Path) {
    use contextview::view::{build_cached, PrefixReport, ViewCache};
    let sessions = sessions(dir);
    let (mut pairs, mut pruned_requests) = (0, [0usize; 4]);
    for (name, text) in &sessions {
        let items = replay(&import(None, text).unwrap().records).items;
        let points = request_points(&items);
        for provider in Provider::ALL {
            // Requests at every point, as a session makes them (one cache, items only growing);
            // a sample is checked against a fresh build of the same items.
            let sample = |k: usize| k % 25 == 0 || k + 1 == points.len();
            let mut options = BuildOptions::new(provider, model_for(provider));
            options.pruning.enabled = false;
            let mut cache = ViewCache::default();
            let (mut bodies, mut appended) = (Vec::new(), 0);
            for (k, &p) in points.iter().enumerate() {
                let (body, report) = build_cached(&items[..p], &options, &mut cache).unwrap();
                appended += usize::from(report.reuse.is_some_and(|r| r.appended_only));
                if sample(k) {
                    assert_eq!(**body, build(&items[..p], &options).unwrap().body, "{name}: {provider} request {k}");
                }
                bodies.push(body);
            }
            // Prefix invariant: with pruning off, each request extends the one before it.
            for (n, pair) in bodies.windows(2).enumerate() {
                let prefix = PrefixReport::between(&pair[0], &pair[1]);
                assert!(prefix.extends_previous, "{name}: {provider} request {} rewrites {} bytes of request {n}", n + 1, prefix.rewritten_bytes);
            }
            // Pruning with a window small enough that it must act: the current tool round's
            // results are never touched; the last three turns' results within the last twelve
            // tool rounds only when those recent results outweigh a fifth of the window (token
            // pressure); and a session's build equals a fresh one.
            let largest = bodies.iter().map(|b| b.len()).max().unwrap_or(0) as u64;
            let mut options = BuildOptions::new(provider, model_for(provider));
            options.context_window = Some(largest * 6 / 40);
            let mut cache = ViewCache::default();
            let mut acted = 0;
            for (k, &p) in points.iter().enumerate() {
                let (body, report) = build_cached(&items[..p], &options, &mut cache).unwrap();
                if sample(k) {
                    assert_eq!(**body, build(&items[..p], &options).unwrap().body, "{name}: {provider} pruned request {k}");
                }
                let pruning = &report.pruning;
                if !pruning.active {
                    continue;
                }
                acted += 1;
                let turn_starts: Vec<usize> =
                    (0..p).filter(|&i| matches!(&items[i], Item::User(m) if m.synthetic.is_none())).collect();
                // Tool rounds start at an assistant turn's first call.
                let step_starts: Vec<usize> = (0..p)
                    .filter(|&i| matches!(items[i], Item::ToolCall(_)) && !items[..i].iter().rev().take_while(|x| x.is_assistant_side()).any(|x| matches!(x, Item::ToolCall(_))))
                    .collect();
                let from_turns = turn_starts.len().checked_sub(3).map_or(0, |k| turn_starts[k]);
                let from_steps = step_starts.len().checked_sub(12).map_or(0, |k| step_starts[k]);
                let current = step_starts.last().copied().unwrap_or(0);
                let family = contextview::tokens::Family::of(provider, model_for(provider));
                let window = options.context_window.unwrap_or(0) as f64;
                for id in pruning.trimmed_ids().iter().chain(pruning.cleared_ids()) {
                    let at = (0..p).find(|&i| items[i].id() == id).expect("a pruned item is in the view");
                    assert!(at < current, "{name}: {provider} pruned {id} from the current tool round");
                    if at >= from_turns.max(from_steps) {
                        // Only token pressure reaches here: the recent results from its tool
                        // round on are more than the fifth of the window they may keep.
                        let round = step_starts.iter().rev().find(|&&s| s <= at).copied().unwrap_or(0);
                        let recent: u64 = items[round..p].iter().filter(|x| matches!(x, Item::ToolResult(_))).map(|x| contextview::tokens::item_tokens(x, family)).sum();
                        assert!(recent as f64 > 0.2 * window, "{name}: {provider} pruned {id} from the last three turns and twelve steps with {recent} tokens of results from its round on (window {window})");
                    }
                }
            }
            pairs += bodies.len().saturating_sub(1);
            pruned_requests[provider as usize] += acted;
            if provider == Provider::Anthropic {
                eprintln!(
                    "{name:.60}: {} requests each extend their predecessor ({appended} built from the appended items alone); pruning acted in {acted}",
                    bodies.len()
                );
            }
        }
    }
    eprintln!("request pipeline: {pairs} consecutive request pairs compared for the prefix rule; pruning acted in {pruned_requests:?} requests per provider");
    // The pi session alone makes 430 requests, and every provider sees each pair. The window was
    // chosen so that pruning must act: a run where it rarely did would check little.
    assert!(pairs >= 4 * 500, "{pairs} pairs");
    assert!(pruned_requests.iter().all(|&n| n >= 400), "{pruned_requests:?} pruned requests");
}

pub fn corpus_token_ledger_is_close_to_the_tokenizer_and_to_reported_usage(dir: &Path) {
    use contextview::request::BuildInput;
    use contextview::session::Session;
    use contextview::tokens::{item_images, item_texts, item_tokens, Family};
    use contextview::update::{Event, RecordBody};
    let sessions = sessions(dir);
    let bpe = tiktoken_rs::o200k_base_singleton();
    let (mut claude_errors, mut over_1000) = (Vec::new(), 0);
    for (name, text) in &sessions {
        let imported = import(None, text).unwrap();
        let items = replay(&imported.records).items;
        // Unanchored, against o200k_base, whole conversation.
        let (mut exact, mut estimate) = (0.0, 0.0);
        for item in items.iter().filter(|i| item_images(i).next().is_none()) {
            exact += item_texts(item).iter().map(|t| bpe.encode_ordinary(t).len() as f64).sum::<f64>() + Family::OpenAi.per_item() as f64;
            estimate += item_tokens(item, Family::OpenAi) as f64;
        }
        let error = (estimate - exact).abs() / exact;
        eprintln!("{name:.60}: estimate {estimate} vs o200k {exact} tokens ({:+.2}%)", (estimate - exact) / exact * 100.0);
        // The aim is 2% a session. Without a vocabulary the estimator cannot know which names
        // and capitals split: fitted on these sessions it lands within 0.5-4.5% of o200k, and a
        // session left out of the fit within 1-6% (BENCHMARKS.md, "Token estimator"). Forcing
        // 2% here means fitting session totals, which makes held-out text worse; the bound is
        // what the estimator holds out of sample. Anchored on reported usage (below), the
        // ledger's error is a fraction of a percent.
        if exact >= 1_000.0 {
            over_1000 += 1;
            assert!(error <= 0.05, "{name}: the estimate is {:.1}% off o200k", error * 100.0);
        }
        // Anchored, against what Anthropic reported: the ledger's count right before a response,
        // with the agent's own heads, against the prompt the provider then counted.
        if !imported.records.iter().any(|r| matches!(&r.body, RecordBody::Event(Event::UsageAnchor(u)) if u.provider.as_deref() == Some("anthropic"))) {
            continue;
        }
        // The agent sent its log as it is: the ledger counts the request our view would send,
        // so the view must not prune for the two to be the same request.
        let pruning = contextview::view::PruningConfig { enabled: false, ..Default::default() };
        let input = BuildInput { model: Some("claude-sonnet-4-5".into()), pruning: Some(pruning), ..BuildInput::new(Provider::Anthropic) };
        let mut session = Session::default();
        let (mut predicted, mut last_prompt, mut anchored, mut heads) = (None, None, false, 0);
        for record in &imported.records {
            if let RecordBody::Event(Event::UsageAnchor(u)) = &record.body {
                heads = u.head_tokens.unwrap_or(0);
                let prompt = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
                if last_prompt != Some(prompt) {
                    if let (Some(p), true) = (predicted, anchored) {
                        if prompt >= last_prompt.unwrap_or(0) {
                            claude_errors.push((p as f64 - prompt as f64).abs() / prompt as f64);
                        }
                    }
                    last_prompt = Some(prompt);
                    anchored = true;
                }
            }
            session.append(record.clone()).unwrap();
            if session.items().last().is_some_and(|i| !i.is_assistant_side()) {
                // The ledger counts this package's heads (none here) in place of the agent's own,
                // which the agent's next request carries again: the import estimated them.
                predicted = Some(session.usage(&input).used + heads);
            }
        }
    }
    // Seven sessions hold more than 1,000 tokens of text; the 5% bound must have met them.
    assert!(over_1000 >= 7, "{over_1000} sessions over 1,000 tokens");
    // Three Claude Code sessions report usage on 561 requests.
    assert!(claude_errors.len() >= 500, "{} anchored requests", claude_errors.len());
    claude_errors.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let p95 = claude_errors[(claude_errors.len() - 1) * 95 / 100];
    eprintln!("anchored ledger vs Anthropic's reported prompts: {} requests, p95 error {:.3}%", claude_errors.len(), p95 * 100.0);
    // The aim is 0.3%; the ledger holds 0.39% here (BENCHMARKS.md, "Token estimator"). The rest
    // is Claude's tokenizer on single large results (a file read 10-20% off), which no public
    // vocabulary lets the estimator learn.
    assert!(p95 <= 0.0045, "anchored p95 {:.3}%", p95 * 100.0);
}

/// The context a session's source file says its last response had, read straight from the file:
/// Claude Code's last message usage (input excludes cache reads and writes), Codex's last token
/// count (input includes the cached part), pi's last assistant usage.
fn reported_last_context(format: Format, text: &str) -> Option<u64> {
    let lines: Vec<serde_json::Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let n = |v: &serde_json::Value, k: &str| v.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
    match format {
        Format::ClaudeCode => {
            // Each block of a message repeats its usage: the copy with the most output is final.
            let last_id = lines.iter().rev().filter(|l| l["type"] == "assistant" && l["isSidechain"] != true && l["isApiErrorMessage"] != true).find_map(|l| l.pointer("/message/usage").map(|_| l["message"]["id"].clone()))?;
            let usage = lines.iter().filter(|l| l["message"]["id"] == last_id).filter_map(|l| l.pointer("/message/usage")).max_by_key(|u| n(u, "output_tokens"))?;
            Some(n(usage, "input_tokens") + n(usage, "cache_creation_input_tokens") + n(usage, "cache_read_input_tokens") + n(usage, "output_tokens"))
        }
        Format::Codex => {
            let usage = lines.iter().rev().find_map(|l| l.pointer("/payload/info/last_token_usage"))?;
            Some(n(usage, "input_tokens") + n(usage, "output_tokens") + n(usage, "cache_write_input_tokens"))
        }
        Format::Pi => {
            let usage = lines.iter().rev().filter(|l| l.pointer("/message/role").and_then(|r| r.as_str()) == Some("assistant")).find_map(|l| l.pointer("/message/usage"))?;
            Some(n(usage, "input") + n(usage, "output") + n(usage, "cacheRead") + n(usage, "cacheWrite"))
        }
        // The sessions folder holds none (agents/gemini-cli does: see agents.rs).
        Format::GeminiCli | Format::CopilotCli | Format::Aider | Format::Cline | Format::RooCode | Format::KiloCode | Format::OpenCode => None,
    }
}

pub fn corpus_usage_maps_to_the_context_each_provider_reported(dir: &Path) {
    use contextview::update::{Event, RecordBody};
    let sessions = sessions(dir);
    let mut checked = 0;
    for (name, text) in &sessions {
        let format = expected_format(name);
        let Some(reported) = reported_last_context(format, text) else { continue };
        if reported == 0 {
            continue;
        }
        let imported = import(Some(format), text).unwrap();
        let last = imported.records.iter().rev().find_map(|r| match &r.body {
            RecordBody::Event(Event::UsageAnchor(u)) => Some(u.total()),
            _ => None,
        });
        assert_eq!(last, Some(reported), "{name}: the last usage anchor against the file's own count");
        checked += 1;
    }
    eprintln!("usage checked against the source's reported context in {checked} sessions");
    assert!(checked >= 5, "the corpus's sessions with usage: {checked}");
}

/// An imported session's usage counted the other agent's own system prompt and tools: built
/// for a 60k window, its context must count about what the request holds (before anchors were
/// calibrated, Claude Code sessions counted 1.6–9.7× their request and asked for compaction).
pub fn corpus_imported_context_counts_what_the_request_holds(dir: &Path) {
    let mut checked = 0;
    for (name, text) in sessions(dir) {
        if expected_format(&name) != Format::ClaudeCode {
            continue;
        }
        let imported = import(None, &text).unwrap();
        let counted = |window: u64| {
            let input = contextview::request::BuildInput {
                log: Some(write_log(&imported.header, &imported.records)),
                context_window: Some(window),
                // Sonnet takes a conversation ending with the model's turn as it is.
                model: Some("claude-sonnet-4-5".into()),
                ..contextview::request::BuildInput::new(Provider::Anthropic)
            };
            let built = contextview::request::build_request(&input).unwrap_or_else(|e| panic!("{name}: {e}"));
            (built.built.report.tokens.context.used, built.built.report.tokens.request, built.built.report.pruning.cleared + built.built.report.pruning.trimmed)
        };
        let (used, request, pruned) = counted(60_000);
        eprintln!("{name:.60}: used {used} for a request of {request}, {pruned} results pruned (their heads ~{:?})", imported.report.head_tokens);
        assert!(used as f64 <= request as f64 * 1.25 + 1000.0, "{name}: used {used} for a request of {request}");
        assert!(used as f64 >= request as f64 * 0.7 - 1000.0, "{name}: used {used} for a request of {request}");
        // What pruning leaves out counts at the rate the session's own anchors count: the
        // count over the request is what it is unpruned (the estimator's own error), not more.
        let (whole, whole_request, _) = counted(10_000_000);
        if pruned > 0 && request > 5_000 {
            let (rate, unpruned) = (used as f64 / request as f64, whole as f64 / whole_request as f64);
            assert!((rate - unpruned).abs() <= 0.03 * unpruned, "{name}: pruned, the ledger counts {rate:.3}× the request; unpruned {unpruned:.3}×");
        }
        checked += 1;
    }
    assert!(checked >= 5, "{checked} Claude Code sessions");
}

/// Real sessions opened from a checkpoint build what their replay builds: at cut points of
/// each imported log, a session that lets go of what storage holds (records, and the results its
/// request clears or trims) writes a checkpoint, and the log opened from it builds, for every
/// API and with pruning off, byte for byte what the log without it builds — what it let go read
/// back from the log's own lines when a request sends it whole.
pub fn corpus_checkpoints_open_to_the_same_requests(dir: &Path) {
    use contextview::request::BuildInput;
    use contextview::session::{Effect, Session};
    let (mut cuts, mut read_back) = (0, 0);
    for (name, text) in sessions(dir) {
        let imported = import(None, &text).unwrap();
        let log = write_log(&imported.header, &imported.records);
        let lines: Vec<&str> = log.lines().collect();
        let n = lines.len();
        for cut in [n / 5, 2 * n / 5, 3 * n / 5, 4 * n / 5, n - 1].into_iter().filter(|&c| c > 1) {
            let plain: String = lines[..=cut].iter().map(|l| format!("{l}\n")).collect();
            let mut s = Session::from_log(&plain);
            s.set_release_stored(true);
            let window = BuildInput { context_window: Some(60_000), model: Some("claude-sonnet-4-5".into()), ..BuildInput::new(Provider::Anthropic) };
            let _ = s.build(&window);
            let Some(_) = s.checkpoint() else { continue };
            let line = match s.take_effects().into_iter().rev().find_map(|e| match e {
                Effect::Persist { lines, .. } => lines.last().cloned(),
                _ => None,
            }) {
                Some(line) => line,
                None => panic!("{name}: the checkpoint was not handed to storage"),
            };
            let with = format!("{plain}{line}\n");
            for provider in Provider::ALL {
                for pruning in [serde_json::json!({}), serde_json::json!({"enabled": false})] {
                    let input: BuildInput = serde_json::from_value(serde_json::json!({"provider": provider, "model": model_for(provider), "contextWindow": 60_000, "pruning": pruning})).unwrap();
                    let (built, read) = built_from_checkpoint(&plain, &with, &input, &format!("{name} cut {cut}"));
                    read_back += usize::from(read);
                    let expected = Session::from_log(&plain).build(&input).map(|b| b.body).map_err(|e| e.to_string());
                    assert_eq!(built.map(|b| b.body).map_err(|e| e.to_string()), expected, "{name} cut {cut} {provider} {pruning}");
                }
            }
            cuts += 1;
        }
    }
    eprintln!("checkpoints: {cuts} cut points opened to the same requests for every API, {read_back} builds reading results back");
    assert!(cuts >= 20 && read_back >= 5, "{cuts} cut points, {read_back} read-backs");
}

/// What every build of the real sessions gives — at five cut points of each imported log, for
/// every API, with pruning and without, the body and the whole report, from the log replayed
/// and from it opened at a checkpoint written by a session that lets go (reading results back
/// from the log's own lines) — held to a run recorded once as digests
/// (`tests/fixtures/oracle/corpus.json`). A session the corpus has and the record lacks is
/// named, not failed; `CONTEXTVIEW_RECORD_ORACLE=1` writes the file instead of checking it.
pub fn corpus_builds_match_the_recorded_oracle(dir: &Path) {
    use contextview::request::BuildInput;
    use contextview::session::{Effect, Session};
    let digest = |text: &str| format!("{:016x}", text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)));
    let outcome = |built: Result<contextview::view::Built, contextview::request::RequestError>| match built {
        Ok(built) => format!("{}\n{}\n", built.body, serde_json::to_string(&built.report).unwrap()),
        Err(e) => format!("{} {e}\n", e.code()),
    };
    let mut seen = serde_json::Map::new();
    for (name, text) in sessions(dir) {
        let imported = import(None, &text).unwrap();
        let log = write_log(&imported.header, &imported.records);
        let lines: Vec<&str> = log.lines().collect();
        let n = lines.len();
        let mut cuts = Vec::new();
        for cut in [n / 5, 2 * n / 5, 3 * n / 5, 4 * n / 5, n - 1].into_iter().filter(|&c| c > 1) {
            let plain: String = lines[..=cut].iter().map(|l| format!("{l}\n")).collect();
            let mut s = Session::from_log(&plain);
            s.set_release_stored(true);
            let window = BuildInput { context_window: Some(60_000), model: Some("claude-sonnet-4-5".into()), ..BuildInput::new(Provider::Anthropic) };
            let mut all = outcome(s.build(&window));
            let with = s.checkpoint().and_then(|_| {
                s.take_effects().into_iter().rev().find_map(|e| match e {
                    Effect::Persist { lines, .. } => lines.last().cloned(),
                    _ => None,
                })
            });
            for provider in Provider::ALL {
                for pruning in [serde_json::json!({}), serde_json::json!({"enabled": false})] {
                    let input: BuildInput = serde_json::from_value(serde_json::json!({"provider": provider, "model": model_for(provider), "contextWindow": 60_000, "pruning": pruning})).unwrap();
                    all.push_str(&outcome(Session::from_log(&plain).build(&input)));
                    if let Some(line) = &with {
                        let (built, _) = built_from_checkpoint(&plain, &format!("{plain}{line}\n"), &input, &format!("{name} cut {cut}"));
                        all.push_str(&outcome(built));
                    }
                }
            }
            cuts.push(serde_json::json!(digest(&all)));
        }
        seen.insert(name, serde_json::json!({"log": digest(&log), "cuts": cuts}));
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/oracle/corpus.json");
    if std::env::var_os("CONTEXTVIEW_RECORD_ORACLE").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&serde_json::Value::Object(seen)).unwrap() + "\n").unwrap();
        return;
    }
    let recorded: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("the recorded oracle")).unwrap();
    let (mut checked, mut unrecorded) = (0, Vec::new());
    for (name, got) in &seen {
        match recorded.get(name) {
            Some(want) => {
                assert_eq!(got, want, "{name}: builds otherwise than recorded");
                checked += 1;
            }
            None => unrecorded.push(name.as_str()),
        }
    }
    eprintln!("oracle: {checked} real sessions build as recorded at every cut point; not in the record: {unrecorded:?}");
    assert!(checked >= 5, "{checked} sessions checked");
}

/// A log (`with`, `plain` and a checkpoint after it) opened from its tail, its history left with
/// the host as a storage opens it, and built; what a build asks to read back is given from
/// `plain`'s own lines. Whether it asked.
fn built_from_checkpoint(
    plain: &str,
    with: &str,
    input: &contextview::request::BuildInput,
    what: &str,
) -> (Result<contextview::view::Built, contextview::request::RequestError>, bool) {
    use contextview::session::Session;
    let at = contextview::session::open::split(&with).expect("the checkpoint");
    let mut opened = Session::from_tail(&with[..at.history_start], &with[at.tail_start..], None).expect("opens from it");
    let built = opened.build(input);
    if !matches!(&built, Err(e) if e.code() == "history_needed") {
        return (built, false);
    }
    let seqs = opened.needed_records().to_vec();
    let given: String = parse_log(plain).records.iter().filter(|r| seqs.contains(&r.seq)).map(|r| format!("{}\n", r.to_line())).collect();
    opened.provide_records(&given).unwrap_or_else(|e| panic!("{what}: {e}"));
    (opened.build(input), true)
}
