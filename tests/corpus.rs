//! The corpus suite: real sessions from Claude Code, Codex and pi (in `../shared/corpus`, beside
//! the repository, or `$CONTEXTVIEW_CORPUS`). Each is imported, replayed, and built for every
//! provider after each real user turn; every payload must pass its validator. Counts are
//! printed (`cargo test --test corpus -- --nocapture`). Skipped, with a message, when the
//! corpus is absent.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use contextview::conversation::Item;
use contextview::import::{detect, import, Format};
use contextview::update::{parse_log, replay, write_log};
use contextview::view::{build, BuildError, BuildOptions, RepairKind};
use contextview::Provider;

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("CONTEXTVIEW_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    dir.is_dir().then_some(dir)
}

fn sessions() -> Option<Vec<(String, String)>> {
    let Some(dir) = corpus_dir() else {
        eprintln!("corpus suite SKIPPED: no corpus at ../shared/corpus (set CONTEXTVIEW_CORPUS to point at one)");
        return None;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("sessions")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    Some(files.into_iter().map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())).collect())
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

#[test]
fn every_corpus_session_imports_replays_and_builds_valid_payloads_for_every_provider() {
    let Some(sessions) = sessions() else { return };
    assert!(sessions.len() >= 7, "expected the corpus's sessions, found {}", sessions.len());
    for (name, text) in &sessions {
        let format = detect(text).unwrap_or_else(|| panic!("{name}: format not detected"));
        assert_eq!(format, expected_format(name), "{name}");
        let imported = import(None, text).unwrap();
        let report = &imported.report;
        let errors: Vec<_> = report.diagnostics.iter().filter(|d| d.severity == contextview::Severity::Error).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");

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
