//! `@path` imports: a repository whose rule files are made of the fuzz input — CLAUDE.md, a
//! nested one, and files they may import, importing each other in any shape (cycles, `..`,
//! `~`, deep chains, code spans). Discovery must finish in a bounded number of host rounds,
//! load every file once, and follow imports no deeper than its limit.
use std::collections::{BTreeMap, HashSet};

use contextview_discovery::host::{DirEntry, EntryKind, FileContent, HostAnswer, HostRequest, Op};
use contextview_discovery::{DiscoveryOptions, Outcome, Step, Workspace};

/// Where the fuzz input's pieces go.
const FILES: [&str; 6] = ["/r/CLAUDE.md", "/r/sub/CLAUDE.md", "/r/a.md", "/r/docs/b.md", "/r/docs/deep/c.md", "/home/u/d.md"];

fn answer(files: &BTreeMap<String, Vec<u8>>, request: &HostRequest) -> HostAnswer {
    let id = request.id;
    match request.op {
        Op::ReadFile => match files.get(&request.path) {
            Some(bytes) => HostAnswer { id, content: Some(FileContent::Bytes(bytes.clone())), size: Some(bytes.len() as u64), ..Default::default() },
            None => HostAnswer { id, not_found: true, ..Default::default() },
        },
        Op::ReadDir => {
            let prefix = format!("{}/", request.path.trim_end_matches('/'));
            let mut entries: BTreeMap<String, DirEntry> = BTreeMap::new();
            for (path, bytes) in files {
                let Some(rest) = path.strip_prefix(&prefix) else { continue };
                let entry = match rest.split_once('/') {
                    Some((dir, _)) => DirEntry { name: dir.to_owned(), kind: EntryKind::Dir, target: None, size: None },
                    None => DirEntry { name: rest.to_owned(), kind: EntryKind::File, target: None, size: Some(bytes.len() as u64) },
                };
                entries.entry(entry.name.clone()).or_insert(entry);
            }
            if entries.is_empty() {
                HostAnswer { id, not_found: true, ..Default::default() }
            } else {
                HostAnswer { id, entries: Some(entries.into_values().collect()), ..Default::default() }
            }
        }
    }
}

pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    files.insert("/r/.git/HEAD".into(), b"ref: refs/heads/main".to_vec());
    for (path, piece) in FILES.iter().zip(text.split('\u{1}')) {
        files.insert((*path).to_owned(), piece.as_bytes().to_vec());
    }
    let mut options = DiscoveryOptions::new("/r/sub");
    options.home = Some("/home/u".into());
    let hops = options.limits.import_hops;
    let Ok(mut workspace) = Workspace::new(options) else { return };
    workspace.start_discover();
    for _ in 0..200 {
        match workspace.step() {
            Step::Need(requests) => {
                let answers = requests.iter().map(|r| answer(&files, r)).collect();
                workspace.answer(answers);
            }
            Step::Done(Outcome::Environment(env)) => {
                let mut seen = HashSet::new();
                for rule in env.rules.iter().chain(&env.conditional).chain(&env.requestable) {
                    assert!(seen.insert(rule.canonical.clone()), "{} loaded twice", rule.canonical);
                    // An import chain is no longer than the limit.
                    let mut depth = 0;
                    let mut at = rule;
                    while let Some(from) = &at.imported_from {
                        depth += 1;
                        assert!(depth <= hops, "{} is {depth} imports deep", rule.path);
                        match env.rules.iter().chain(&env.conditional).chain(&env.requestable).find(|r| &r.path == from) {
                            Some(importer) => at = importer,
                            None => break,
                        }
                    }
                }
                return;
            }
            Step::Done(other) => panic!("discovery ended with {other:?}"),
        }
    }
    panic!("discovery did not finish in 200 rounds");
}
