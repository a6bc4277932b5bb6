//! The workspace engine: jobs that run as rounds of batched host reads.
//!
//! [`Workspace::step`] runs the current job over the memo of host answers. When reads are
//! missing it returns them as one batch ([`Step::Need`]); the host answers through
//! [`Workspace::answer`], and the next step runs again. When nothing is missing the job is done
//! ([`Step::Done`]). Because every job is a pure function of the options and the memo, a refresh
//! is "forget these paths and run discovery again": only what was forgotten is read again.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::host::{Answer, FsView, HostAnswer, HostRequest, Key, Lookup, Memo, Op};
use super::ignore::Ignores;
use super::rules::{self, Collected, Rule, RuleCtx};
use super::skills::{self, LoadedSkill, Skill};
use super::{paths, DiscoveryOptions, Environment, OutsideRepo};
use contextview::diagnostic::Diagnostic;
use crate::codes;
pub use contextview::workspace::{HostCalls, WorkspaceStats};

/// A job the engine can run.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    Discover,
    Refresh { previous: Environment },
    /// Rules that attach to `path`; `attach: false` only looks (nothing is marked attached and
    /// rules attached before are listed too).
    RulesForPath { path: String, attach: bool },
    LoadSkill { name: String },
    /// A job refused at its start (bad arguments): ends at the first step with this error.
    Fail { code: String, message: String },
}

/// One step of a job.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Reads the host must answer before the next step.
    Need(Vec<HostRequest>),
    Done(Outcome),
}

/// What a finished job returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Outcome {
    Environment(Box<Environment>),
    Changes(Box<Changes>),
    Rules { rules: Vec<Rule> },
    Skill(LoadedSkill),
    /// The job cannot run (no discovery yet, an unknown skill, a host that stopped answering).
    Error { code: String, message: String },
}

/// What a refresh changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    pub rules: Delta<Rule>,
    pub skills: Delta<Skill>,
    pub environment: Option<Environment>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delta<T> {
    pub added: Vec<T>,
    /// Paths (rules) or names (skills) that are gone.
    pub removed: Vec<String>,
    pub edited: Vec<T>,
}

impl<T> Default for Delta<T> {
    fn default() -> Self {
        Delta { added: Vec::new(), removed: Vec::new(), edited: Vec::new() }
    }
}

impl<T> Delta<T> {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.edited.is_empty()
    }
}

/// The placeholder outcome of a job whose file read is outstanding: never returned (`step` turns
/// the read into host requests instead), so not an error code a caller can see.
const PENDING: &str = "pending";

/// Discovery state for one workspace: options, what the host has answered, the last
/// environment, and the rules already attached this session.
#[derive(Debug)]
pub struct Workspace {
    options: DiscoveryOptions,
    memo: Memo,
    environment: Option<Environment>,
    attached: HashSet<String>,
    job: Option<Job>,
    outstanding: HashMap<u32, Key>,
    answered: bool,
    next_id: u32,
    stats: WorkspaceStats,
}

impl Workspace {
    pub fn new(mut options: DiscoveryOptions) -> Result<Workspace, String> {
        options.validate()?;
        options.cwd = paths::normalize(&options.cwd);
        options.home = options.home.as_deref().map(paths::normalize);
        Ok(Workspace {
            options,
            memo: Memo::default(),
            environment: None,
            attached: HashSet::new(),
            job: None,
            outstanding: HashMap::new(),
            answered: true,
            next_id: 1,
            stats: WorkspaceStats::default(),
        })
    }

    pub fn environment(&self) -> Option<&Environment> {
        self.environment.as_ref()
    }

    pub fn stats(&self) -> WorkspaceStats {
        self.stats
    }

    /// Starts a job (replacing one in progress).
    pub fn start(&mut self, job: Job) {
        self.job = Some(job);
        self.outstanding.clear();
        self.answered = true;
    }

    pub fn start_discover(&mut self) {
        self.start(Job::Discover);
    }

    /// Forgets what is known about `changed` (files or directories) and discovers again.
    pub fn start_refresh(&mut self, changed: &[String]) {
        if let Some(bad) = changed.iter().find(|p| !p.starts_with('/')) {
            let message = format!("refresh takes absolute, /-separated paths, got `{bad}`");
            self.start(Job::Fail { code: contextview::error_codes::INVALID_ARGUMENT.to_owned(), message });
            return;
        }
        for path in changed {
            self.memo.forget(&paths::normalize(path));
        }
        let previous = self.environment.clone();
        match previous {
            Some(previous) => self.start(Job::Refresh { previous }),
            None => self.start(Job::Discover),
        }
    }

    pub fn start_rules_for_path(&mut self, path: &str) {
        let path = if path.starts_with('/') { paths::normalize(path) } else { path.to_owned() };
        self.start(Job::RulesForPath { path, attach: true });
    }

    /// Every rule that applies to `path`, attached before or not, attaching none: what an
    /// inspector shows for a path without changing what the agent will be told.
    pub fn start_rules_matching(&mut self, path: &str) {
        let path = if path.starts_with('/') { paths::normalize(path) } else { path.to_owned() };
        self.start(Job::RulesForPath { path, attach: false });
    }

    pub fn start_load_skill(&mut self, name: &str) {
        self.start(Job::LoadSkill { name: name.to_owned() });
    }

    /// Stores the host's answers to the last batch.
    pub fn answer(&mut self, answers: Vec<HostAnswer>) {
        for answer in answers {
            let Some(key) = self.outstanding.remove(&answer.id) else { continue };
            let stored = Answer::from_host(key.0, answer);
            if let Answer::File(data) = &stored {
                self.stats.bytes_read += data.bytes.len() as u64;
            }
            self.memo.insert(key, stored);
            self.answered = true;
        }
    }

    /// Runs the current job as far as the memo allows.
    pub fn step(&mut self) -> Step {
        let Some(job) = self.job.clone() else {
            return Step::Done(Outcome::Error { code: crate::error_codes::NO_JOB.to_owned(), message: "no job was started".to_owned() });
        };
        if !self.outstanding.is_empty() && !self.answered {
            self.job = None;
            return Step::Done(Outcome::Error {
                code: crate::error_codes::DISCOVERY_STALLED.to_owned(),
                message: format!("the host answered none of the last {} requests", self.outstanding.len()),
            });
        }
        let (outcome, missing) = {
            let fs = FsView::new(&self.memo);
            let outcome = self.run(&job, &fs);
            (outcome, fs.take_missing())
        };
        if !missing.is_empty() {
            self.outstanding.clear();
            self.answered = false;
            self.stats.rounds += 1;
            let requests = missing
                .into_iter()
                .map(|((op, path), max_bytes)| {
                    let id = self.next_id;
                    self.next_id += 1;
                    match op {
                        Op::ReadDir => self.stats.calls.read_dir += 1,
                        Op::ReadFile => self.stats.calls.read_file += 1,
                    }
                    self.outstanding.insert(id, (op, path.clone()));
                    HostRequest { id, op, path, max_bytes }
                })
                .collect();
            return Step::Need(requests);
        }
        self.job = None;
        let mut outcome = outcome;
        match &mut outcome {
            Outcome::Environment(env) => {
                env.stats = self.stats;
                self.environment = Some((**env).clone());
            }
            Outcome::Changes(changes) => {
                if let Some(env) = &mut changes.environment {
                    env.stats = self.stats;
                }
                self.environment = changes.environment.clone();
            }
            Outcome::Rules { rules } if matches!(job, Job::RulesForPath { attach: true, .. }) => {
                for rule in rules {
                    self.attached.insert(rule.canonical.clone());
                }
            }
            Outcome::Rules { .. } | Outcome::Skill(_) | Outcome::Error { .. } => {}
        }
        Step::Done(outcome)
    }

    fn run(&self, job: &Job, fs: &FsView) -> Outcome {
        match job {
            Job::Discover => Outcome::Environment(Box::new(compute_environment(&self.options, fs))),
            Job::Refresh { previous } => {
                let environment = compute_environment(&self.options, fs);
                let mut changes = diff(previous, &environment);
                changes.environment = Some(environment);
                Outcome::Changes(Box::new(changes))
            }
            Job::RulesForPath { path, .. } if !path.starts_with('/') => Outcome::Error {
                code: contextview::error_codes::INVALID_ARGUMENT.to_owned(),
                message: format!("rulesForPath takes an absolute, /-separated path, got `{path}`"),
            },
            Job::RulesForPath { path, attach } => match &self.environment {
                Some(env) => {
                    let none = HashSet::new();
                    let attached = if *attach { &self.attached } else { &none };
                    Outcome::Rules { rules: self.rules_for_path(env, fs, path, attached) }
                }
                None => not_discovered(),
            },
            Job::Fail { code, message } => Outcome::Error { code: code.clone(), message: message.clone() },
            Job::LoadSkill { name } => match &self.environment {
                Some(env) => match env.skills.iter().find(|s| &s.name == name) {
                    Some(skill) => match skills::load(&self.options, fs, skill) {
                        Lookup::Ready(loaded) => Outcome::Skill(loaded),
                        Lookup::Pending => Outcome::Error { code: PENDING.to_owned(), message: String::new() },
                    },
                    None => Outcome::Error { code: crate::error_codes::UNKNOWN_SKILL.to_owned(), message: format!("no skill named `{name}`") },
                },
                None => not_discovered(),
            },
        }
    }

    fn rules_for_path(&self, env: &Environment, fs: &FsView, path: &str, attached: &HashSet<String>) -> Vec<Rule> {
        let mut out: Vec<Rule> =
            rules::matching_globs(&env.conditional, path).into_iter().filter(|r| !attached.contains(&r.canonical)).cloned().collect();
        let dir = paths::parent(path).unwrap_or("/");
        let cwd = &self.options.cwd;
        if paths::relative_to(dir, cwd).is_some_and(|rel| !rel.is_empty()) {
            let ignores = Ignores::new(env.repo_root.as_deref().unwrap_or(cwd), &self.options.ignore.paths);
            let mut diags = Vec::new();
            let mut seen: HashSet<String> = attached.clone();
            seen.extend(env.rules.iter().map(|r| r.canonical.clone()));
            let mut ctx = RuleCtx { opts: &self.options, fs, ignores: &ignores, diags: &mut diags, seen, imports_not_followed: HashMap::new() };
            let mut collected = Collected::default();
            rules::subdirectory_rules(&mut ctx, cwd, dir, &mut collected);
            out.extend(collected.rules);
        }
        out
    }
}

fn not_discovered() -> Outcome {
    Outcome::Error { code: crate::error_codes::NOT_DISCOVERED.to_owned(), message: "run discovery first".to_owned() }
}

/// One discovery over the memo (partial while reads are missing; the engine discards it then).
pub fn compute_environment(opts: &DiscoveryOptions, fs: &FsView) -> Environment {
    let mut diagnostics = Vec::new();
    let cwd = opts.cwd.as_str();
    let ancestors = paths::ancestors(cwd);
    let mut root = None;
    for dir in &ancestors {
        match fs.list(dir) {
            Lookup::Ready(Ok(entries)) => {
                if entries.iter().any(|e| opts.root_markers.contains(&e.name)) {
                    root = Some(dir.to_string());
                    break;
                }
            }
            Lookup::Ready(Err(e)) if *dir == cwd => {
                diagnostics.push(Diagnostic::new(&codes::DISCOVERY_CWD_UNREADABLE, format!("cwd cannot be listed: {e:?}")).at_path(cwd));
            }
            Lookup::Ready(Err(_)) | Lookup::Pending => {}
        }
    }
    let chain: Vec<&str> = match (&root, opts.outside_repo) {
        (Some(root), _) => paths::chain(root, cwd),
        (None, OutsideRepo::Cwd) => vec![cwd],
        (None, OutsideRepo::Ancestors) => paths::chain("/", cwd),
    };
    let mut ignores = Ignores::new(root.as_deref().unwrap_or(cwd), &opts.ignore.paths);
    if opts.ignore.gitignore {
        for dir in &chain {
            if let Lookup::Ready(Ok(entries)) = fs.list(dir) {
                if entries.iter().any(|e| e.name == ".gitignore") {
                    let path = paths::join(dir, ".gitignore");
                    match fs.read(&path, opts.limits.max_file_bytes) {
                        Lookup::Ready(Ok(data)) => ignores.add_gitignore(dir, &data.bytes),
                        Lookup::Ready(Err(e)) => diagnostics.push(rules::unreadable(&path, &e)),
                        Lookup::Pending => {}
                    }
                }
            }
        }
    }
    let mut collected = Collected::default();
    {
        let mut ctx = RuleCtx { opts, fs, ignores: &ignores, diags: &mut diagnostics, seen: HashSet::new(), imports_not_followed: HashMap::new() };
        rules::home_rules(&mut ctx, &mut collected);
        for dir in &chain {
            rules::dir_rules(&mut ctx, dir, &mut collected);
        }
    }
    rules::apply_total_budget(&mut collected.rules, opts.limits.rule_total_bytes, &mut diagnostics);
    let neutralized = collected.rules.iter().chain(&collected.conditional).filter(|r| r.text.contains("&lt;")).count();
    if neutralized > 0 {
        diagnostics.push(Diagnostic::new(
            &codes::RULES_NEUTRALIZED,
            format!("{neutralized} rule files contained text that could open or close our framing tags; it was defused"),
        ));
    }
    let skills = skills::discover(opts, fs, &chain, &mut diagnostics);
    let skill_listing = skills::listing(opts, &skills, &mut diagnostics);
    Environment {
        cwd: cwd.to_owned(),
        home: opts.home.clone(),
        repo_root: root,
        rules: collected.rules,
        conditional: collected.conditional,
        requestable: collected.requestable,
        skills,
        skill_listing,
        diagnostics,
        stats: WorkspaceStats::default(),
    }
}

fn diff(old: &Environment, new: &Environment) -> Changes {
    let index = |env: &Environment| -> BTreeMap<String, Rule> {
        env.rules.iter().chain(&env.conditional).chain(&env.requestable).map(|r| (r.canonical.clone(), r.clone())).collect()
    };
    let (before, after) = (index(old), index(new));
    let mut rules = Delta::default();
    for (key, rule) in &after {
        match before.get(key) {
            None => rules.added.push(rule.clone()),
            Some(prev) if prev.text != rule.text || prev.activation != rule.activation => rules.edited.push(rule.clone()),
            Some(_) => {}
        }
    }
    rules.removed = before.iter().filter(|(k, _)| !after.contains_key(*k)).map(|(_, r)| r.path.clone()).collect();
    let by_name = |env: &Environment| -> BTreeMap<String, Skill> { env.skills.iter().map(|s| (s.name.clone(), s.clone())).collect() };
    let (before, after) = (by_name(old), by_name(new));
    let mut skills = Delta::default();
    for (name, skill) in &after {
        match before.get(name) {
            None => skills.added.push(skill.clone()),
            Some(prev) if prev != skill => skills.edited.push(skill.clone()),
            Some(_) => {}
        }
    }
    skills.removed = before.keys().filter(|k| !after.contains_key(*k)).cloned().collect();
    Changes { rules, skills, environment: None }
}
