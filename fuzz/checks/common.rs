//! What every reader's fuzz target checks of what the reader accepted, each check one a broken
//! reader could fail:
//! - it replays, and builds for every provider — with default options and with a small window
//!   and image budget, so pruning and image eviction run — a body that, read back as that API's
//!   payload, passes the validator and serializes to the same bytes (what was checked is what is
//!   sent); a build may refuse with a typed error, never with a rule its own renderer broke;
//! - a live session appending the records one by one builds what a fresh build of the log does;
//! - it survives the text form;
//! - an import's report accounts for every line and its fidelity counts add up.


use std::collections::HashSet;

use contextview::conversation::{Image, Item, Part};
use contextview_import::Imported;
use contextview::provider::{Limits, Payload};
use contextview::request::{build_request, BuildInput};
use contextview::session::Session;
use contextview::update::{parse_log, replay, write_log, Header, Record};
use contextview::view::{build, BuildError, BuildOptions, ImageConfig};
use contextview::Provider;

/// Default options, and options under pressure: a small window and image budget.
fn option_sets(provider: Provider) -> [BuildOptions; 2] {
    let model = contextview::request::default_model(provider);
    let plain = BuildOptions::new(provider, model);
    let mut tight = BuildOptions::new(provider, model);
    tight.context_window = Some(2_000);
    tight.images = ImageConfig { trigger_bytes: 2_000, low_water_bytes: 1_000, ..ImageConfig::default() };
    [plain, tight]
}

pub fn builds_valid_payloads(items: &[Item]) {
    for provider in Provider::ALL {
        for options in option_sets(provider) {
            match build(items, &options) {
                Ok(built) => {
                    assert_eq!(built.report.bytes, built.body.len());
                    let value: serde_json::Value = serde_json::from_str(&built.body).expect("the body is JSON");
                    let again = Payload::from_json(provider, value).expect("the body reads as its API's payload");
                    let violations = again.validate(&Limits::default());
                    assert!(violations.is_empty(), "{provider}: the body as sent breaks {violations:?}");
                    assert_eq!(again.to_json(), built.body, "{provider}: the body read back serializes to other bytes");
                }
                Err(BuildError::EmptyConversation { .. } | BuildError::EndsWithAssistant { .. }) => {}
                // Only items that say their text was let go ask for it back.
                Err(e @ BuildError::HistoryNeeded { .. }) => {
                    assert!(items.iter().any(|i| matches!(i, Item::ToolResult(r) if r.released.is_some())), "{provider}: {e:?}")
                }
                // A server-side compaction block Anthropic must get back: the one refusal an input may cause.
                Err(BuildError::InvalidPayload { violations, .. })
                    if violations.iter().all(|v| v.rule == "anthropic.compaction_block_passed_back")
                        && items.iter().any(|i| matches!(i, Item::Native(n) if n.value.get("type").and_then(|t| t.as_str()) == Some("compaction"))) => {}
                Err(e @ (BuildError::InvalidPayload { .. } | BuildError::InvalidOptions { .. })) => panic!("{provider}: {e:?}"),
            }
        }
    }
}

/// Records written as a log read back as the same records.
pub fn round_trips(header: &Header, records: &[Record]) {
    let text = write_log(header, records);
    let again = parse_log(&text);
    assert_eq!(again.records.len(), records.len(), "{:?}", again.diagnostics);
    for (a, b) in again.records.iter().zip(records) {
        assert_eq!(a, b);
    }
}

pub fn replays_and_builds(records: &[Record]) {
    let replayed = replay(records);
    builds_valid_payloads(&replayed.items);
}

/// A session fed the records one by one builds, after each, what a fresh build of the log up to
/// there builds (its caches and the append fast path change nothing), under a small window.
pub fn live_equals_fresh(header: &Header, records: &[Record]) {
    for provider in [Provider::Anthropic, Provider::Gemini] {
        let mut session = Session::create(header.clone());
        let input = BuildInput { context_window: Some(3_000), ..BuildInput::new(provider) };
        for (n, record) in records.iter().enumerate().take(64) {
            if session.append_line(&record.to_line()).is_err() {
                return;
            }
            let live = session.build_body(&input);
            let fresh = build_request(&BuildInput { log: Some(write_log(header, &records[..=n])), ..input.clone() });
            match (live, fresh) {
                (Ok((body, _)), Ok(out)) => assert_eq!(*body, out.built.body, "{provider} after record {}", n + 1),
                (Err(a), Err(b)) => assert_eq!(a.code(), b.code()),
                (a, b) => panic!("{provider} after record {}: live {:?}, fresh {:?}", n + 1, a.map(|_| ()), b.map(|_| ())),
            }
        }
    }
}

/// An import's report accounts for its input: every non-blank line read, every line that is not
/// JSON named by a diagnostic; its fidelity view counts are those of the repaired view, and no
/// kind has more missing than the source had.
pub fn report_adds_up(text: &str, imported: &Imported) {
    let report = &imported.report;
    let lines: Vec<(usize, &str)> = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, l)).collect();
    assert_eq!(report.lines, lines.len(), "every non-blank line is read");
    let named: HashSet<usize> = report.diagnostics.iter().filter_map(|d| d.line).collect();
    for (line, l) in &lines {
        if serde_json::from_str::<serde_json::Value>(l).is_err() {
            assert!(named.contains(line), "line {line} is not JSON and no diagnostic names it");
        }
    }
    let items = replay(&imported.records).items;
    let (view, _) = contextview::view::repair::repair(&items, &Default::default());
    let f = &report.fidelity;
    let real_results: HashSet<&str> = view
        .iter()
        .filter_map(|i| match i.as_ref() {
            Item::ToolResult(r) if !r.id.starts_with("synthetic-result:") => Some(r.call_id.as_str()),
            _ => None,
        })
        .collect();
    let (mut prompts, mut texts, mut reasoning, mut calls, mut images) = (0, 0, 0, 0, 0);
    let base64 = |parts: &[Part]| parts.iter().filter(|p| matches!(p, Part::Image(Image::Base64 { .. }))).count();
    for item in view.iter().map(|i| i.as_ref()) {
        match item {
            Item::User(m) => {
                prompts += usize::from(m.synthetic.is_none());
                images += base64(&m.content);
            }
            Item::Assistant(a) => texts += usize::from(!a.text.trim().is_empty()),
            Item::Reasoning(_) => reasoning += 1,
            Item::ToolCall(c) => calls += usize::from(real_results.contains(c.call_id.as_str())),
            Item::ToolResult(r) => images += base64(&r.content),
            Item::Native(_) => {}
        }
    }
    assert_eq!(
        (f.view.prompts, f.view.assistant_texts, f.view.reasoning, f.view.tool_calls, f.view.images),
        (prompts, texts, reasoning, calls, images),
        "the view's counts are a recount of the view"
    );
    use contextview_import::fidelity::ElementKind as K;
    for (kind, source) in [(K::Prompt, f.source.prompts), (K::AssistantText, f.source.assistant_texts), (K::Reasoning, f.source.reasoning), (K::ToolCall, f.source.tool_calls), (K::Image, f.source.images)] {
        let missing = f.missing.iter().filter(|m| m.kind == kind).count();
        assert!(missing <= source, "{kind:?}: {missing} missing of {source}");
    }
    // Calls and images are each found once: no more found than the view holds.
    assert!(f.source.tool_calls - f.missing.iter().filter(|m| m.kind == K::ToolCall).count() <= f.view.tool_calls);
    assert!(f.source.images - f.missing.iter().filter(|m| m.kind == K::Image).count() <= f.view.images);
}
