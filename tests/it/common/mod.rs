//! A host for discovery tests: an in-memory tree that answers the engine's requests and
//! counts them.
#![allow(dead_code)]

pub mod log;

/// Every Rust source file of the workspace (`src/`, `crates/*/src`), for the tests that read
/// the sources.
#[cfg(not(target_arch = "wasm32"))]
pub fn rust_sources() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        dirs.push(entry.unwrap().path().join("src"));
    }
    sources_under(dirs)
}

/// The Rust source files of the core crate (`src/`).
#[cfg(not(target_arch = "wasm32"))]
pub fn core_sources() -> Vec<std::path::PathBuf> {
    sources_under(vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")])
}

#[cfg(not(target_arch = "wasm32"))]
fn sources_under(mut dirs: Vec<std::path::PathBuf>) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// Proptest cases for a property: `base` natively, a tenth of it in wasm (the same code runs far
/// slower there), ten times it under `make test-long` (`CONTEXTVIEW_LONG=1`).
/// A property test's configuration: `cases` cases (see [`cases`]) from a fixed seed, so a run
/// fails only where the code does, and every run the same way (found cases are kept as
/// regression tests by hand, not by chance).
pub fn config(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config { cases, rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_c0de), ..proptest::test_runner::Config::default() }
}

pub fn cases(base: u32) -> u32 {
    if cfg!(target_arch = "wasm32") {
        (base / 10).max(16)
    } else if std::env::var_os("CONTEXTVIEW_LONG").is_some() {
        base * 10
    } else {
        base
    }
}

use std::collections::BTreeMap;

use contextview_discovery::host::{DirEntry, EntryKind, FileContent, HostAnswer, HostRequest, Op};
use contextview_discovery::{DiscoveryOptions, Environment, Outcome, Step, Workspace};

#[derive(Clone, Debug)]
pub enum Node {
    File(Vec<u8>),
    Link(String),
    /// A path that fails to read (the host's callback throws).
    Broken(String),
}

#[derive(Default, Clone, Debug)]
pub struct MemoryHost {
    pub nodes: BTreeMap<String, Node>,
    pub calls: usize,
    /// Answer reads with whole files, ignoring `maxBytes` (a host may).
    pub ignore_max: bool,
}

impl MemoryHost {
    pub fn new(files: &[(&str, &str)]) -> Self {
        let mut host = MemoryHost::default();
        for (path, text) in files {
            host.file(path, text);
        }
        host
    }

    pub fn file(&mut self, path: &str, text: &str) -> &mut Self {
        self.nodes.insert(path.to_owned(), Node::File(text.as_bytes().to_vec()));
        self
    }

    pub fn bytes(&mut self, path: &str, bytes: &[u8]) -> &mut Self {
        self.nodes.insert(path.to_owned(), Node::File(bytes.to_vec()));
        self
    }

    pub fn link(&mut self, path: &str, target: &str) -> &mut Self {
        self.nodes.insert(path.to_owned(), Node::Link(target.to_owned()));
        self
    }

    pub fn dir(&mut self, path: &str) -> &mut Self {
        self.nodes.insert(format!("{path}/.keep"), Node::File(Vec::new()));
        self
    }

    pub fn broken(&mut self, path: &str, message: &str) -> &mut Self {
        self.nodes.insert(path.to_owned(), Node::Broken(message.to_owned()));
        self
    }

    pub fn remove(&mut self, path: &str) {
        self.nodes.remove(path);
    }

    fn is_dir(&self, path: &str) -> bool {
        let prefix = if path == "/" { "/".to_owned() } else { format!("{path}/") };
        self.nodes.keys().any(|k| k.starts_with(&prefix))
    }

    pub fn answer(&mut self, request: &HostRequest) -> HostAnswer {
        self.calls += 1;
        let id = request.id;
        let path = request.path.as_str();
        match request.op {
            Op::ReadDir => {
                if let Some(Node::Broken(m)) = self.nodes.get(path) {
                    return HostAnswer { id, error: Some(m.clone()), ..Default::default() };
                }
                if let Some(Node::Link(target)) = self.nodes.get(path) {
                    let resolved = if target.starts_with('/') { target.clone() } else { format!("{}/{}", path.rsplit_once('/').map(|p| p.0).unwrap_or(""), target) };
                    let resolved = contextview_discovery::paths::normalize(&resolved);
                    let mut req = request.clone();
                    req.path = resolved;
                    self.calls -= 1;
                    return self.answer(&req);
                }
                if !self.is_dir(path) {
                    return HostAnswer { id, not_found: true, ..Default::default() };
                }
                let prefix = if path == "/" { "/".to_owned() } else { format!("{path}/") };
                let mut entries: BTreeMap<String, DirEntry> = BTreeMap::new();
                for (key, node) in &self.nodes {
                    let Some(rest) = key.strip_prefix(&prefix) else { continue };
                    let (name, deeper) = match rest.split_once('/') {
                        Some((name, _)) => (name, true),
                        None => (rest, false),
                    };
                    if name.is_empty() || name == ".keep" && !deeper {
                        continue;
                    }
                    let entry = match (deeper, node) {
                        (true, _) => DirEntry { name: name.to_owned(), kind: EntryKind::Dir, target: None, size: None },
                        (false, Node::File(b)) => DirEntry { name: name.to_owned(), kind: EntryKind::File, target: None, size: Some(b.len() as u64) },
                        (false, Node::Link(t)) => DirEntry { name: name.to_owned(), kind: EntryKind::Symlink, target: Some(t.clone()), size: None },
                        (false, Node::Broken(_)) => DirEntry { name: name.to_owned(), kind: EntryKind::File, target: None, size: None },
                    };
                    entries.entry(name.to_owned()).or_insert(entry);
                }
                HostAnswer { id, entries: Some(entries.into_values().collect()), ..Default::default() }
            }
            Op::ReadFile => match self.nodes.get(path).cloned() {
                Some(Node::File(bytes)) => {
                    let max = if self.ignore_max { usize::MAX } else { request.max_bytes.unwrap_or(u64::MAX) as usize };
                    let size = bytes.len() as u64;
                    let cut = bytes[..bytes.len().min(max)].to_vec();
                    HostAnswer { id, content: Some(FileContent::Bytes(cut)), size: Some(size), ..Default::default() }
                }
                Some(Node::Link(target)) => {
                    let resolved = contextview_discovery::paths::join(contextview_discovery::paths::parent(path).unwrap_or("/"), &target);
                    let mut req = request.clone();
                    req.path = resolved;
                    self.calls -= 1;
                    self.answer(&req)
                }
                Some(Node::Broken(m)) => HostAnswer { id, error: Some(m), ..Default::default() },
                None => HostAnswer { id, not_found: true, ..Default::default() },
            },
        }
    }

    /// Runs the workspace's current job to completion against this host.
    pub fn drive(&mut self, ws: &mut Workspace) -> Outcome {
        for _ in 0..1000 {
            match ws.step() {
                Step::Done(outcome) => return outcome,
                Step::Need(requests) => {
                    let answers = requests.iter().map(|r| self.answer(r)).collect();
                    ws.answer(answers);
                }
            }
        }
        panic!("discovery did not finish in 1000 rounds");
    }
}

/// Runs a full discovery of `options` against `host`.
pub fn discover(host: &mut MemoryHost, options: DiscoveryOptions) -> (Workspace, Environment) {
    let mut ws = Workspace::new(options).unwrap();
    ws.start_discover();
    match host.drive(&mut ws) {
        Outcome::Environment(env) => (ws, *env),
        other => panic!("{other:?}"),
    }
}
