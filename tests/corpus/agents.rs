//! Real sessions of the other agents the importers read (`agents/<agent>/`): each detected,
//! imported with nothing its model saw missing from the view, round-tripped through our log's
//! text, and built for every provider at each real prompt and at its end.
use std::path::Path;

use contextview::conversation::Item;
use contextview::update::{parse_log, replay, write_log};
use contextview::view::{build, BuildError, BuildOptions};
use contextview::Provider;
use contextview_import::{detect, import, Format};

/// The files of one agent's folder, by name.
fn files(dir: &Path, agent: &str) -> Vec<(String, String)> {
    let mut paths: Vec<_> = std::fs::read_dir(dir.join("agents").join(agent)).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    paths.into_iter().map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())).collect()
}

/// The imported log round-trips through its text form, and the view builds a valid request for
/// every API at each real prompt and at its end; returns the view's length and the builds made.
fn round_trips_and_builds(name: &str, imported: &contextview_import::Imported) -> (usize, usize) {
    let log = write_log(&imported.header, &imported.records);
    let reparsed = parse_log(&log);
    assert!(reparsed.diagnostics.is_empty(), "{name}: {:?}", reparsed.diagnostics);
    assert_eq!(reparsed.records, imported.records, "{name}");
    let items = replay(&imported.records).items;
    let prompts: Vec<usize> = items.iter().enumerate().filter(|(_, i)| matches!(i, Item::User(m) if m.synthetic.is_none())).map(|(i, _)| i + 1).collect();
    let mut builds = 0;
    for provider in Provider::ALL {
        let options = BuildOptions::new(provider, contextview::request::default_model(provider));
        for &end in prompts.iter().chain([items.len()].iter()) {
            match build(&items[..end], &options) {
                Ok(_) => builds += 1,
                Err(BuildError::EndsWithAssistant { .. }) if provider == Provider::Anthropic && end == items.len() => {}
                Err(BuildError::EmptyConversation { .. }) if end == 0 => {}
                Err(e) => panic!("{name}: {provider} at {end}/{}: {e:?}", items.len()),
            }
        }
    }
    (items.len(), builds)
}

pub fn gemini_cli_sessions_import_with_nothing_missing_and_build_for_every_provider(dir: &Path) {
    let files = files(dir, "gemini-cli");
    assert!(files.len() >= 3, "expected the corpus's Gemini CLI sessions, found {}", files.len());
    for (name, text) in &files {
        assert_eq!(detect(text), Some(Format::GeminiCli), "{name}");
        let imported = import(None, text).unwrap();
        let report = &imported.report;
        assert!(report.diagnostics.is_empty(), "{name}: {:?}", report.diagnostics);
        let fidelity = &report.fidelity;
        assert!(fidelity.missing.is_empty(), "{name}: {:?}", fidelity.missing);
        assert!(fidelity.source.prompts > 0 && fidelity.source.tool_calls > 0, "{name}: {:?}", fidelity.source);
        // The last answer's usage is the count the file recorded for it (Gemini's total: the
        // prompt, the answer, its thoughts and tool-use prompt).
        let recorded: serde_json::Value = serde_json::from_str(text).unwrap();
        let last_total = recorded["messages"].as_array().unwrap().iter().rev().find_map(|m| m["tokens"]["total"].as_u64().filter(|t| *t > 0));
        let last_anchor = imported.records.iter().rev().find_map(|r| match &r.body {
            contextview::update::RecordBody::Event(contextview::update::Event::UsageAnchor(u)) => Some(u.total()),
            _ => None,
        });
        assert_eq!(last_anchor, last_total, "{name}");
        let (items, builds) = round_trips_and_builds(name, &imported);
        eprintln!(
            "{name:.60}: {} lines -> {} records, {} items, fidelity {:?}, {builds} builds, unmapped {:?}",
            report.lines,
            report.records,
            items,
            fidelity.source,
            report.unmapped
        );
    }
}

pub fn copilot_cli_sessions_import_with_nothing_missing_and_build_for_every_provider(dir: &Path) {
    let files = files(dir, "copilot-cli");
    assert!(!files.is_empty(), "expected the corpus's Copilot CLI sessions");
    for (name, text) in &files {
        assert_eq!(detect(text), Some(Format::CopilotCli), "{name}");
        let imported = import(None, text).unwrap();
        let report = &imported.report;
        assert!(report.diagnostics.is_empty(), "{name}: {:?}", report.diagnostics);
        let fidelity = &report.fidelity;
        assert!(fidelity.missing.is_empty(), "{name}: {:?}", &fidelity.missing[..fidelity.missing.len().min(5)]);
        // Every prompt, answer and completed call of the file's main agent is there: counted
        // from the file's own events, apart from either reader.
        let events: Vec<serde_json::Value> = text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
        let of = |kind: &str| events.iter().filter(|e| e["type"] == kind && e["data"].get("parentToolCallId").is_none()).collect::<Vec<_>>();
        let typed = of("user.message").iter().filter(|e| e["data"]["content"].as_str().is_some_and(|c| !c.is_empty())).count();
        let completed = of("tool.execution_complete").iter().filter(|e| e["data"]["isUserRequested"] != true).map(|e| e["data"]["toolCallId"].as_str().unwrap_or("")).collect::<std::collections::HashSet<_>>().len();
        assert_eq!((fidelity.source.prompts, fidelity.source.tool_calls), (typed, completed), "{name}");
        let (items, builds) = round_trips_and_builds(name, &imported);
        eprintln!("{name:.60}: {} lines -> {} records, {} items, fidelity {:?}, {builds} builds, unmapped {:?}", report.lines, report.records, items, fidelity.source, report.unmapped);
    }
}

pub fn aider_histories_import_with_nothing_missing_and_build_for_every_provider(dir: &Path) {
    let files = files(dir, "aider");
    assert!(!files.is_empty(), "expected the corpus's Aider histories");
    for (name, text) in &files {
        assert_eq!(detect(text), Some(Format::Aider), "{name}");
        let imported = import(None, text).unwrap();
        let report = &imported.report;
        assert!(report.diagnostics.is_empty(), "{name}: {:?}", report.diagnostics);
        assert!(report.fidelity.missing.is_empty(), "{name}: {:?}", report.fidelity.missing);
        // Every run the file holds is in the log, the last one the view; every line the user
        // typed (Aider's `#### ` lines) is a prompt, a command or an answer's echo.
        let runs = text.lines().filter(|l| l.starts_with("# aider chat started at ")).count();
        let rewinds = imported.records.iter().filter(|r| matches!(&r.body, contextview::update::RecordBody::Event(contextview::update::Event::Rewind(_)))).count();
        assert!(rewinds < runs, "{name}: {rewinds} rewinds for {runs} runs");
        let (items, builds) = round_trips_and_builds(name, &imported);
        eprintln!("{name:.60}: {runs} runs, {} records, {} items in the last run's view, fidelity {:?}, {builds} builds, unmapped {:?}", report.records, items, report.fidelity.source, report.unmapped);
    }
}
