//! Project rules: which files, in which order, with what text (chapter 8.4).
//!
//! Home scope first, then every directory from the repository root down to cwd, deeper later
//! (more specific wins). In one directory: `AGENTS.override.md` (Codex; it stands in for
//! `AGENTS.md`), `AGENTS.md`/`Agents.md`/`AGENT.md`, `CLAUDE.md`/`Claude.md`,
//! `.claude/CLAUDE.md`, `CLAUDE.local.md`, then the rule directories `.grok/rules`,
//! `.claude/rules`, `.cursor/rules` (alphabetical inside each), then the legacy `.cursorrules`.
//! A file reached twice (a symlink, or git's one-line stand-in for one) loads once.
//!
//! Rule text is data: frontmatter is stripped and anything that could open or close our framing
//! tags is neutralised. Over a budget, text is cut with a visible marker and a diagnostic.

use std::collections::{HashMap, HashSet};

use serde_json::Map;

pub use contextview::workspace::{Activation, Rule, RuleSource};
use super::activation::{activation, Convention};
use super::frontmatter::{self, as_text};
use super::imports::{is_only_imports, resolve_import};
pub use super::imports::import_targets;
use super::host::{DirEntry, EntryKind, FileView, FsView, Lookup, ReadError};
use super::ignore::Ignores;
use super::{paths, DiscoveryOptions};
use contextview::diagnostic::Diagnostic;
use crate::codes;

/// Which tool's frontmatter says when a rule of `source` applies.
fn convention(source: RuleSource) -> Convention {
    match source {
        RuleSource::ClaudeRules => Convention::ClaudePaths,
        RuleSource::CursorRules => Convention::Cursor,
        RuleSource::AgentsOverride
        | RuleSource::AgentsMd
        | RuleSource::ClaudeMd
        | RuleSource::ClaudeLocal
        | RuleSource::GrokRules
        | RuleSource::Cursorrules
        | RuleSource::Import => Convention::Always,
    }
}

/// Conditional rules whose globs match `path`.
pub fn matching_globs<'a>(rules: &'a [Rule], path: &str) -> Vec<&'a Rule> {
    rules.iter().filter(|rule| super::activation::matches_path(&rule.activation, path)).collect()
}

/// Rules found by a discovery run, by how they load.
#[derive(Debug, Default)]
pub struct Collected {
    pub rules: Vec<Rule>,
    pub conditional: Vec<Rule>,
    pub requestable: Vec<Rule>,
}

/// What rule collection needs from the run.
pub struct RuleCtx<'a> {
    pub opts: &'a DiscoveryOptions,
    pub fs: &'a FsView<'a>,
    pub ignores: &'a Ignores,
    pub diags: &'a mut Vec<Diagnostic>,
    /// Canonical paths already loaded in this run (and, for rulesForPath, in this session).
    pub seen: HashSet<String>,
    /// Files loaded under a name whose convention has no `@path` imports (`AGENTS.md`) that hold
    /// some: canonical path → (the imports, the rule's activation). Reached again under a Claude
    /// name (a `CLAUDE.md` linking to it), their imports are followed then, as Claude Code would.
    pub imports_not_followed: HashMap<String, (Vec<String>, Activation)>,
}

/// Instruction files read in every directory, in order, with their convention.
fn instruction_files(opts: &DiscoveryOptions) -> Vec<(&'static str, RuleSource)> {
    let c = opts.conventions;
    let mut out = Vec::new();
    if c.codex {
        out.push(("AGENTS.override.md", RuleSource::AgentsOverride));
    }
    if c.agents || c.codex {
        out.push(("AGENTS.md", RuleSource::AgentsMd));
    }
    if c.agents {
        out.push(("Agents.md", RuleSource::AgentsMd));
        out.push(("AGENT.md", RuleSource::AgentsMd));
    }
    if c.claude {
        out.push(("CLAUDE.md", RuleSource::ClaudeMd));
        out.push(("Claude.md", RuleSource::ClaudeMd));
        out.push((".claude/CLAUDE.md", RuleSource::ClaudeMd));
        out.push(("CLAUDE.local.md", RuleSource::ClaudeLocal));
    }
    out
}

/// Reads a file's text: lossy UTF-8 (reported), a cut prefix marked when the host sent less.
pub fn decode(data: &FileView, path: &str, diags: &mut Vec<Diagnostic>) -> String {
    let bytes = data.bytes;
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        // A prefix may end inside a character: that is not an encoding problem.
        Err(e) if data.is_partial() && e.error_len().is_none() => String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned(),
        Err(e) => {
            diags.push(
                Diagnostic::new(
                    &codes::FS_INVALID_UTF8,
                    format!("not valid UTF-8 (first bad byte at {}); read with replacement characters", e.valid_up_to()),
                )
                .at_path(path),
            );
            String::from_utf8_lossy(bytes).into_owned()
        }
    }
}

pub fn unreadable(path: &str, error: &ReadError) -> Diagnostic {
    let message = match error {
        ReadError::NotFound => "listed but not found when read".to_owned(),
        ReadError::Failed(m) => format!("could not be read: {m}"),
    };
    Diagnostic::new(&codes::FS_UNREADABLE, message).at_path(path)
}

/// Resolves a symlink entry of `dir` to the path it points at, following chains of links
/// whose parents are already listed (at most 8 hops; a loop is reported).
pub fn resolve_entry(fs: &FsView, dir: &str, entry: &DirEntry, diags: &mut Vec<Diagnostic>) -> String {
    let mut path = paths::join(dir, &entry.name);
    let mut target = match (entry.kind, &entry.target) {
        (EntryKind::Symlink, Some(t)) => t.clone(),
        _ => return path,
    };
    let mut visited = HashSet::new();
    for _ in 0..8 {
        let parent = paths::parent(&path).unwrap_or("/").to_owned();
        path = paths::join(&parent, &target);
        if !visited.insert(path.clone()) {
            diags.push(Diagnostic::new(&codes::FS_SYMLINK_LOOP, "symlinks form a loop").at_path(&path));
            return path;
        }
        let Some(next_parent) = paths::parent(&path) else { return path };
        let next = match fs.list(next_parent) {
            Lookup::Ready(Ok(entries)) => entries.iter().find(|e| e.name == paths::file_name(&path)).cloned(),
            Lookup::Ready(Err(_)) | Lookup::Pending => None,
        };
        match next {
            Some(DirEntry { kind: EntryKind::Symlink, target: Some(t), .. }) => target = t,
            _ => return path,
        }
    }
    diags.push(Diagnostic::new(&codes::FS_SYMLINK_LOOP, "more than 8 symlinks in a row").at_path(&path));
    path
}

fn listing<'a>(fs: &FsView<'a>, dir: &str) -> Option<&'a [DirEntry]> {
    match fs.list(dir) {
        Lookup::Ready(Ok(entries)) => Some(entries),
        Lookup::Ready(Err(_)) | Lookup::Pending => None,
    }
}

fn has(entries: &[DirEntry], name: &str) -> Option<DirEntry> {
    entries.iter().find(|e| e.name == name).cloned()
}

/// Rules of the home scope: `~/.codex/AGENTS(.override).md`, `~/.claude/CLAUDE.md`,
/// `~/.claude/rules`, `~/.grok/rules`, `~/.cursor/rules`.
pub fn home_rules(ctx: &mut RuleCtx, out: &mut Collected) {
    let Some(home) = ctx.opts.home.clone() else { return };
    let c = ctx.opts.conventions;
    if c.codex {
        let codex = paths::join(&home, ".codex");
        if let Some(entries) = listing(ctx.fs, &codex) {
            let name = if has(entries, "AGENTS.override.md").is_some() { "AGENTS.override.md" } else { "AGENTS.md" };
            if let Some(entry) = has(entries, name) {
                let source = if name == "AGENTS.md" { RuleSource::AgentsMd } else { RuleSource::AgentsOverride };
                load_file(ctx, &codex, &entry, source, &home, true, out);
            }
        }
    }
    if c.claude {
        let claude = paths::join(&home, ".claude");
        if let Some(entries) = listing(ctx.fs, &claude) {
            if let Some(entry) = has(entries, "CLAUDE.md") {
                load_file(ctx, &claude, &entry, RuleSource::ClaudeMd, &home, true, out);
            }
            if has(entries, "rules").is_some() {
                rule_dir(ctx, &paths::join(&claude, "rules"), RuleSource::ClaudeRules, &home, true, out);
            }
        }
    }
    if c.grok {
        rule_dir(ctx, &paths::join(&home, ".grok/rules"), RuleSource::GrokRules, &home, true, out);
    }
    if c.cursor {
        rule_dir(ctx, &paths::join(&home, ".cursor/rules"), RuleSource::CursorRules, &home, true, out);
    }
}

/// Rules of one project directory.
pub fn dir_rules(ctx: &mut RuleCtx, dir: &str, out: &mut Collected) {
    let Some(entries) = listing(ctx.fs, dir) else { return };
    let c = ctx.opts.conventions;
    let claude_dir = paths::join(dir, ".claude");
    let claude_entries = if c.claude && has(entries, ".claude").is_some() { listing(ctx.fs, &claude_dir) } else { None };
    let override_present = c.codex && has(entries, "AGENTS.override.md").is_some();
    for (name, source) in instruction_files(ctx.opts) {
        let (parent, file) = match name.split_once('/') {
            Some((sub, file)) => (paths::join(dir, sub), file),
            None => (dir.to_owned(), name),
        };
        let found = if parent == dir { has(entries, file) } else { claude_entries.and_then(|e| has(e, file)) };
        let Some(entry) = found else { continue };
        if name == "AGENTS.md" && override_present {
            ctx.diags.push(
                Diagnostic::new(&codes::RULES_OVERRIDDEN, "AGENTS.override.md in the same directory stands in for it")
                    .at_path(paths::join(dir, name)),
            );
            continue;
        }
        load_file(ctx, &parent, &entry, source, dir, false, out);
    }
    if c.grok && has(entries, ".grok").is_some() {
        rule_dir(ctx, &paths::join(dir, ".grok/rules"), RuleSource::GrokRules, dir, false, out);
    }
    if let Some(claude_entries) = claude_entries {
        if has(claude_entries, "rules").is_some() {
            rule_dir(ctx, &paths::join(&claude_dir, "rules"), RuleSource::ClaudeRules, dir, false, out);
        }
    }
    if c.cursor {
        if has(entries, ".cursor").is_some() {
            rule_dir(ctx, &paths::join(dir, ".cursor/rules"), RuleSource::CursorRules, dir, false, out);
        }
        if let Some(entry) = has(entries, ".cursorrules") {
            load_file(ctx, dir, &entry, RuleSource::Cursorrules, dir, false, out);
        }
    }
}

/// Every rule file under a rule directory, alphabetical by relative path, ignored files skipped.
fn rule_dir(ctx: &mut RuleCtx, root: &str, source: RuleSource, project: &str, home: bool, out: &mut Collected) {
    let mut files: Vec<(String, DirEntry, String)> = Vec::new();
    walk(ctx, root, root, 0, source, &mut files);
    files.sort_by(|a, b| a.2.cmp(&b.2));
    for (parent, entry, _) in files {
        load_file(ctx, &parent, &entry, source, project, home, out);
    }
}

fn is_rule_file(source: RuleSource, name: &str) -> bool {
    match source {
        RuleSource::CursorRules => name.ends_with(".mdc") || name.ends_with(".md"),
        RuleSource::ClaudeRules | RuleSource::GrokRules => name.ends_with(".md"),
        RuleSource::AgentsOverride
        | RuleSource::AgentsMd
        | RuleSource::ClaudeMd
        | RuleSource::ClaudeLocal
        | RuleSource::Cursorrules
        | RuleSource::Import => false,
    }
}

fn walk(ctx: &mut RuleCtx, root: &str, dir: &str, depth: u32, source: RuleSource, files: &mut Vec<(String, DirEntry, String)>) {
    let entries = match ctx.fs.list(dir) {
        Lookup::Ready(Ok(entries)) => entries,
        Lookup::Ready(Err(ReadError::NotFound)) | Lookup::Pending => return,
        Lookup::Ready(Err(e)) => {
            ctx.diags.push(unreadable(dir, &e));
            return;
        }
    };
    for entry in entries {
        let path = paths::join(dir, &entry.name);
        let is_dir = entry.kind == EntryKind::Dir;
        if ctx.ignores.is_excluded(&path) || (ctx.opts.ignore.gitignore && ctx.ignores.is_git_ignored(&path, is_dir)) {
            continue;
        }
        match entry.kind {
            EntryKind::Dir => {
                if depth + 1 >= ctx.opts.limits.walk_depth {
                    ctx.diags.push(
                        Diagnostic::new(&codes::RULES_WALK_DEPTH, format!("not walked: deeper than {} levels", ctx.opts.limits.walk_depth))
                            .at_path(&path),
                    );
                    continue;
                }
                walk(ctx, root, &path, depth + 1, source, files);
            }
            EntryKind::File | EntryKind::Symlink if is_rule_file(source, &entry.name) => {
                let rel = paths::relative_to(&path, root).unwrap_or(&entry.name).to_owned();
                files.push((dir.to_owned(), entry.clone(), rel));
            }
            EntryKind::File | EntryKind::Symlink | EntryKind::Other => {}
        }
    }
}

/// Loads one rule file (and what it imports) into `out`.
fn load_file(ctx: &mut RuleCtx, parent: &str, entry: &DirEntry, source: RuleSource, project: &str, home: bool, out: &mut Collected) {
    let path = paths::join(parent, &entry.name);
    let mut canonical = resolve_entry(ctx.fs, parent, entry, ctx.diags);
    if ctx.seen.contains(&canonical) {
        ctx.diags.push(
            Diagnostic::new(&codes::RULES_DUPLICATE, format!("same file as {canonical}, which is already loaded")).at_path(&path),
        );
        imports_under_claude_name(ctx, &path, &canonical, source, project, home, out);
        return;
    }
    let Some((text, data)) = read_text(ctx, &canonical, &path) else { return };
    // Git checks a symlink out as a one-line file holding its target where links are off.
    if let Some(target) = link_stand_in(&text, parent, ctx.fs) {
        ctx.diags.push(
            Diagnostic::new(&codes::RULES_LINK_FILE, format!("holds only the name of {target}; read as a link to it")).at_path(&path),
        );
        canonical = target;
        if ctx.seen.contains(&canonical) {
            imports_under_claude_name(ctx, &path, &canonical, source, project, home, out);
            return;
        }
        let Some((text, data)) = read_text(ctx, &canonical, &path) else { return };
        return finish(ctx, path, canonical, text, &data, source, project, home, None, None, 0, out);
    }
    finish(ctx, path, canonical, text, &data, source, project, home, None, None, 0, out);
}

fn read_text<'a>(ctx: &mut RuleCtx<'a>, canonical: &str, shown: &str) -> Option<(String, FileView<'a>)> {
    match ctx.fs.read(canonical, ctx.opts.limits.rule_file_bytes) {
        Lookup::Pending => None,
        Lookup::Ready(Ok(data)) => Some((decode(&data, shown, ctx.diags), data)),
        Lookup::Ready(Err(e)) => {
            ctx.diags.push(unreadable(shown, &e));
            None
        }
    }
}

fn link_stand_in(text: &str, parent: &str, fs: &FsView) -> Option<String> {
    let name = text.trim();
    if name.is_empty() || name.len() > 255 || name.contains(char::is_whitespace) || !name.ends_with(".md") {
        return None;
    }
    let target = paths::join(parent, name);
    let entries = listing(fs, paths::parent(&target)?)?;
    entries.iter().any(|e| e.name == paths::file_name(&target) && e.kind != EntryKind::Dir).then_some(target)
}

#[allow(clippy::too_many_arguments)]
fn finish(
    ctx: &mut RuleCtx,
    path: String,
    canonical: String,
    text: String,
    data: &FileView,
    source: RuleSource,
    project: &str,
    home: bool,
    imported_from: Option<String>,
    inherited: Option<Activation>,
    hops: u32,
    out: &mut Collected,
) {
    ctx.seen.insert(canonical.clone());
    let parsed = frontmatter::parse(&text, &path, ctx.diags);
    let fields = match &parsed.fields {
        Some(Ok(map)) => map.clone(),
        Some(Err(_)) | None => Map::new(),
    };
    // An import applies when the file importing it does.
    let activation = match inherited {
        Some(inherited) if inherited != Activation::Always => inherited,
        _ => activation(convention(source), &fields, project, &path, ctx.diags),
    };
    let description = fields.get("description").and_then(as_text).filter(|d| !d.trim().is_empty());
    let mut body = parsed.body.trim_start_matches(['\n', '\r']).to_owned();
    let truncated = data.is_partial();
    if truncated {
        body.push_str(&cut_marker(data.size - data.bytes.len() as u64, &path, "limits.ruleFileBytes", ctx.opts.limits.rule_file_bytes));
        ctx.diags.push(
            Diagnostic::new(
                &codes::RULES_TRUNCATED,
                format!("{} bytes, over the {}-byte limit per rule file; the rest was not loaded", data.size, ctx.opts.limits.rule_file_bytes),
            )
            .at_path(&path),
        );
    }
    let imports = import_targets(&body);
    let follows_imports = claude_family(source);
    // A file that only imports files already loaded (oxc's CLAUDE.md is `@AGENTS.md`) adds nothing.
    if follows_imports
        && !imports.is_empty()
        && is_only_imports(&body)
        && imports.iter().all(|t| ctx.seen.contains(&resolve_import(t, &canonical, ctx.opts)))
    {
        ctx.diags.push(
            Diagnostic::new(&codes::RULES_ONLY_IMPORTS, "only imports files that are already loaded; adds nothing").at_path(&path),
        );
        return;
    }
    let rule = Rule {
        path: path.clone(),
        canonical: canonical.clone(),
        source: if imported_from.is_some() { RuleSource::Import } else { source },
        dir: project.to_owned(),
        home,
        activation,
        text: contextview::framing::neutralize(&body),
        bytes: data.size,
        truncated,
        description,
        imported_from,
    };
    let importer_activation = rule.activation.clone();
    let bucket = match rule.activation {
        Activation::Always | Activation::Subdirectory => &mut out.rules,
        Activation::Globs { .. } => &mut out.conditional,
        Activation::AgentRequested | Activation::Manual => &mut out.requestable,
    };
    bucket.push(rule);
    if follows_imports {
        follow_imports(ctx, &path, &canonical, imports, importer_activation, source, project, home, hops, out);
    } else if !imports.is_empty() {
        ctx.imports_not_followed.insert(canonical, (imports, importer_activation));
    }
}

/// A file already loaded under a name without imports, reached again under a Claude name (a
/// `CLAUDE.md` that links to `AGENTS.md`): Claude Code reads it as `CLAUDE.md`, so its `@path`
/// imports are followed now.
fn imports_under_claude_name(ctx: &mut RuleCtx, path: &str, canonical: &str, source: RuleSource, project: &str, home: bool, out: &mut Collected) {
    if !claude_family(source) {
        return;
    }
    if let Some((imports, activation)) = ctx.imports_not_followed.remove(canonical) {
        follow_imports(ctx, path, canonical, imports, activation, source, project, home, 0, out);
    }
}

/// Loads the files `imports` names, relative to `canonical` (the importing file, shown as
/// `path`); each applies when its importer does.
#[allow(clippy::too_many_arguments)]
fn follow_imports(
    ctx: &mut RuleCtx,
    path: &str,
    canonical: &str,
    imports: Vec<String>,
    importer_activation: Activation,
    source: RuleSource,
    project: &str,
    home: bool,
    hops: u32,
    out: &mut Collected,
) {
    for target in imports {
        if target.starts_with("~/") && ctx.opts.home.is_none() {
            continue;
        }
        let resolved = resolve_import(&target, canonical, ctx.opts);
        if hops + 1 > ctx.opts.limits.import_hops {
            ctx.diags.push(
                Diagnostic::new(&codes::RULES_IMPORT_TOO_DEEP, format!("`@{target}` not followed: more than {} hops", ctx.opts.limits.import_hops))
                    .at_path(path),
            );
            continue;
        }
        if ctx.seen.contains(&resolved) {
            ctx.diags.push(
                Diagnostic::new(&codes::RULES_IMPORT_CYCLE, format!("`@{target}` is already loaded (a cycle or a repeat)")).at_path(path),
            );
            continue;
        }
        match ctx.fs.read(&resolved, ctx.opts.limits.rule_file_bytes) {
            Lookup::Pending => {}
            Lookup::Ready(Err(ReadError::NotFound)) => ctx.diags.push(
                Diagnostic::new(&codes::RULES_IMPORT_MISSING, format!("`@{target}` does not exist")).at_path(path),
            ),
            Lookup::Ready(Err(e)) => ctx.diags.push(unreadable(&resolved, &e)),
            Lookup::Ready(Ok(data)) => {
                let text = decode(&data, &resolved, ctx.diags);
                let inherited = Some(importer_activation.clone());
                finish(ctx, resolved.clone(), resolved, text, &data, source, project, home, Some(path.to_owned()), inherited, hops + 1, out);
            }
        }
    }
}

fn claude_family(source: RuleSource) -> bool {
    match source {
        RuleSource::ClaudeMd | RuleSource::ClaudeLocal | RuleSource::ClaudeRules | RuleSource::Import => true,
        RuleSource::AgentsOverride | RuleSource::AgentsMd | RuleSource::GrokRules | RuleSource::CursorRules | RuleSource::Cursorrules => false,
    }
}

fn cut_marker(rest: u64, path: &str, option: &str, limit: u64) -> String {
    format!("\n\n[… {rest} more bytes of {path} not loaded: over the {limit}-byte limit ({option}) …]")
}

/// Applies the total budget: the most specific rules (last) are kept whole; the first rule
/// that does not fit is cut with a marker, and the broader ones before it are left out.
pub fn apply_total_budget(rules: &mut Vec<Rule>, limit: u64, diags: &mut Vec<Diagnostic>) {
    let total: u64 = rules.iter().map(|r| r.text.len() as u64).sum();
    if total <= limit {
        return;
    }
    let mut remaining = limit;
    let mut keep_from = rules.len();
    for (i, rule) in rules.iter_mut().enumerate().rev() {
        let len = rule.text.len() as u64;
        if len <= remaining {
            remaining -= len;
            keep_from = i;
            continue;
        }
        if remaining > 256 {
            let mut cut = remaining as usize - 200;
            while !rule.text.is_char_boundary(cut) {
                cut -= 1;
            }
            let rest = len - cut as u64;
            rule.text.truncate(cut);
            rule.text.push_str(&cut_marker(rest, &rule.path, "limits.ruleTotalBytes", limit));
            rule.truncated = true;
            keep_from = i;
        }
        break;
    }
    let dropped: Vec<String> = rules.drain(..keep_from).map(|r| r.path).collect();
    diags.push(Diagnostic::new(
        &codes::RULES_OVER_TOTAL_BUDGET,
        format!(
            "rules total {total} bytes, over the {limit}-byte limit (limits.ruleTotalBytes); the broadest were cut{}",
            if dropped.is_empty() { String::new() } else { format!(", left out: {}", dropped.join(", ")) }
        ),
    ));
}

/// Instruction files in the directories from just below cwd down to `dir` (rulesForPath).
pub fn subdirectory_rules(ctx: &mut RuleCtx, cwd: &str, dir: &str, out: &mut Collected) {
    for d in paths::chain(cwd, dir).into_iter().skip(1) {
        let Some(entries) = listing(ctx.fs, d) else { continue };
        for (name, source) in instruction_files(ctx.opts) {
            if name.contains('/') {
                continue;
            }
            if let Some(entry) = has(entries, name) {
                let before = out.rules.len();
                load_file(ctx, d, &entry, source, d, false, out);
                for rule in &mut out.rules[before..] {
                    rule.activation = Activation::Subdirectory;
                }
            }
        }
    }
}
