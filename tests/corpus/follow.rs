//! Real session files followed as their agents write them: each pushed a few lines at a time
//! into an incremental import, the log gains each record once — it rewinds only where the file
//! itself branches or rewinds — and, settled, it replays to the whole import's view (for a file
//! that never rewound, it holds the whole import's very records).
use std::path::Path;

use contextview::update::record::{Event, Record, RecordBody};
use contextview::update::replay;
use contextview_import::incremental::IncrementalImport;
use contextview_import::{import, Format};

fn rewinds(records: &[Record]) -> usize {
    records.iter().filter(|r| matches!(r.body, RecordBody::Event(Event::Rewind(_)))).count()
}

/// Whether two different lines of a tree of entries name the same `uuid`.
fn uuids_reused(text: &str) -> bool {
    let mut seen = std::collections::HashMap::new();
    text.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()).any(|v| {
        let Some(uuid) = v.get("uuid").and_then(serde_json::Value::as_str).map(str::to_owned) else { return false };
        seen.insert(uuid, v.clone()).is_some_and(|earlier| earlier != v)
    })
}

/// Follows `text` in pieces of whole lines (at most about 60 pushes); the log once settled and
/// the rewinds the follower wrote.
fn followed(format: Format, text: &str) -> (Vec<Record>, usize) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let per_push = lines.len().div_ceil(60).max(1);
    let mut follower = IncrementalImport::new(Some(format));
    let mut log: Vec<Record> = Vec::new();
    let mut rewound = 0;
    for piece in lines.chunks(per_push) {
        let appended = follower.push(&piece.concat()).unwrap();
        rewound += usize::from(appended.rewound);
        log.extend(appended.records);
    }
    log.extend(follower.settle().records);
    (log, rewound)
}

pub fn session_files_followed_as_they_grow_gain_each_record_once(dir: &Path) {
    let mut files: Vec<(String, Format)> = Vec::new();
    for entry in std::fs::read_dir(dir.join("sessions")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            files.push((path.to_string_lossy().into_owned(), Format::ClaudeCode));
        }
    }
    for (agent, format) in [("copilot-cli", Format::CopilotCli), ("aider", Format::Aider)] {
        for entry in std::fs::read_dir(dir.join("agents").join(agent)).unwrap() {
            files.push((entry.unwrap().path().to_string_lossy().into_owned(), format));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let (mut followed_files, mut whole_records, mut skipped) = (0, 0, Vec::new());
    for (path, format) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        // The session folder holds Codex and pi files too: the detected format is followed.
        let whole = import(None, &text).unwrap();
        let format = whole.report.format.unwrap_or(format);
        let name = Path::new(&path).file_name().unwrap().to_string_lossy();
        // A file whose entries share their uuids (a fixture with every id trimmed to one
        // placeholder) has no tree to follow: each new line may hang the others differently.
        if uuids_reused(&text) {
            skipped.push(name.into_owned());
            continue;
        }
        let (log, rewound) = followed(format, &text);
        assert!(rewound <= rewinds(&whole.records), "{name}: {rewound} rewinds followed, {} in the file", rewinds(&whole.records));
        assert_eq!(replay(&log).items, replay(&whole.records).items, "{name}: the settled log's view");
        if rewound == 0 {
            assert_eq!(log, whole.records, "{name}: the whole import's records, each once");
        }
        followed_files += 1;
        whole_records += log.len();
    }
    assert!(followed_files >= 10, "expected the corpus's session files, found {followed_files}");
    println!("followed {followed_files} session files as they grew: {whole_records} records, each once; skipped, their uuids reused: {skipped:?}");
}
