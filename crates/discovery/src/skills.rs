//! Skills: where they are found, which one wins a name, and what the prompt gets (chapter 8.5).
//!
//! Sources, highest priority first: cwd, the directories between cwd and the repository root
//! (nearest first), the root, the user's home, configured paths, skills the host bundles, and
//! plugins. In each directory the roots are `.grok/skills`, `.claude/skills`, `.agents/skills`,
//! `.cursor/skills` and `.codex/skills` (per the conventions that are on). A higher source
//! shadows a lower one of the same name; a native name beats a plugin's, and the plugin's skill
//! stays reachable as `plugin:name`. Skill roots are not subject to `.gitignore`: a skill someone
//! installed does not vanish because the project ignores its folder.
//!
//! The prompt gets metadata only (name, description, location), under a budget; a skill's body
//! is read when it is loaded.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::frontmatter::{self, as_text};
use super::host::{EntryKind, FsView, Lookup, ReadError};
use super::rules::{decode, unreadable};
use super::{paths, DiscoveryOptions};
use contextview::diagnostic::Diagnostic;
use crate::codes;
pub use contextview::workspace::{ListingEntry, Skill, SkillListing, SkillSource};

/// A skill's body, read on demand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedSkill {
    pub name: String,
    pub path: String,
    pub body: String,
    pub frontmatter: serde_json::Map<String, Value>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Keys the Agent Skills spec and the agents that read it define.
const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "when_to_use",
    "when-to-use",
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
    "model",
    "version",
];

/// A root to scan, in priority order.
struct Root {
    path: String,
    source: SkillSource,
    plugin: Option<String>,
}

fn skill_dirs(opts: &DiscoveryOptions) -> Vec<&'static str> {
    let c = opts.conventions;
    let mut out = Vec::new();
    if c.grok {
        out.push(".grok/skills");
    }
    if c.claude {
        out.push(".claude/skills");
    }
    if c.agents {
        out.push(".agents/skills");
    }
    if c.cursor {
        out.push(".cursor/skills");
    }
    if c.codex {
        out.push(".codex/skills");
    }
    out
}

fn roots(opts: &DiscoveryOptions, chain: &[&str], diags: &mut Vec<Diagnostic>) -> Vec<Root> {
    let mut out = Vec::new();
    let n = chain.len();
    for (i, dir) in chain.iter().rev().enumerate() {
        let source = if i == 0 {
            SkillSource::Cwd
        } else if i + 1 == n {
            SkillSource::Repo
        } else {
            SkillSource::Intermediate
        };
        for sub in skill_dirs(opts) {
            out.push(Root { path: paths::join(dir, sub), source, plugin: None });
        }
    }
    if let Some(home) = &opts.home {
        for sub in skill_dirs(opts) {
            out.push(Root { path: paths::join(home, sub), source: SkillSource::User, plugin: None });
        }
    }
    for path in &opts.skills.paths {
        out.push(Root { path: paths::normalize(path), source: SkillSource::Config, plugin: None });
    }
    for plugin in &opts.skills.plugins {
        if paths::is_unsafe_name(&plugin.name) || plugin.name.contains(':') {
            diags.push(Diagnostic::new(&codes::SKILLS_BAD_PLUGIN_NAME, format!("plugin name `{}` is not a plain name; plugin skipped", plugin.name)).at_path(&plugin.root));
            continue;
        }
        out.push(Root { path: paths::join(&plugin.root, "skills"), source: SkillSource::Plugin, plugin: Some(plugin.name.clone()) });
    }
    out
}

/// Finds, validates and orders skills. `chain` is root → cwd.
pub fn discover(opts: &DiscoveryOptions, fs: &FsView, chain: &[&str], diags: &mut Vec<Diagnostic>) -> Vec<Skill> {
    let mut found: Vec<Skill> = Vec::new();
    // Prefixes relative to the repository root (or cwd outside one), as for rules.
    let excluded = super::ignore::Ignores::new(chain.first().copied().unwrap_or(&opts.cwd), &opts.ignore.paths);
    for root in roots(opts, chain, diags) {
        let mut visited = HashSet::new();
        let mut in_root = Vec::new();
        walk(opts, fs, &excluded, &root, &root.path, 0, &mut visited, &mut in_root, diags);
        in_root.sort_by(|a, b| a.path.cmp(&b.path));
        found.extend(in_root);
    }
    for bundled in &opts.skills.bundled {
        found.push(Skill {
            name: bundled.name.clone(),
            description: bundled.description.clone(),
            path: format!("bundled:{}", bundled.name),
            source: SkillSource::Bundled,
            plugin: None,
            user_only: false,
        });
    }
    // Plugins last: bare names go to native skills first.
    found.sort_by_key(|s| s.source == SkillSource::Plugin);
    resolve_names(opts, found, diags)
}

#[allow(clippy::too_many_arguments)]
fn walk(
    opts: &DiscoveryOptions,
    fs: &FsView,
    excluded: &super::ignore::Ignores,
    root: &Root,
    dir: &str,
    depth: u32,
    visited: &mut HashSet<String>,
    out: &mut Vec<Skill>,
    diags: &mut Vec<Diagnostic>,
) {
    if !visited.insert(dir.to_owned()) {
        diags.push(Diagnostic::new(&codes::FS_SYMLINK_LOOP, "directory reached twice (a symlink loop); skipped").at_path(dir));
        return;
    }
    let entries = match fs.list(dir) {
        Lookup::Pending | Lookup::Ready(Err(ReadError::NotFound)) => return,
        Lookup::Ready(Err(e)) => {
            // A symlink that turned out not to be a directory is not a problem.
            if depth > 0 {
                return;
            }
            diags.push(unreadable(dir, &e));
            return;
        }
        Lookup::Ready(Ok(entries)) => entries,
    };
    if depth > 0 && entries.iter().any(|e| e.name == "SKILL.md" && e.kind != EntryKind::Dir) {
        if let Some(skill) = read_skill(opts, fs, root, dir, diags) {
            out.push(skill);
        }
        return;
    }
    if depth >= opts.limits.walk_depth {
        diags.push(Diagnostic::new(&codes::SKILLS_WALK_DEPTH, format!("not walked: deeper than {} levels", opts.limits.walk_depth)).at_path(dir));
        return;
    }
    for entry in entries {
        if matches!(entry.kind, EntryKind::Dir | EntryKind::Symlink) && !entry.name.starts_with('.') {
            let path = paths::join(dir, &entry.name);
            if excluded.is_excluded(&path) {
                continue;
            }
            let target = match (entry.kind, &entry.target) {
                (EntryKind::Symlink, Some(t)) => paths::join(dir, t),
                _ => path,
            };
            walk(opts, fs, excluded, root, &target, depth + 1, visited, out, diags);
        }
    }
}

fn read_skill(opts: &DiscoveryOptions, fs: &FsView, root: &Root, dir: &str, diags: &mut Vec<Diagnostic>) -> Option<Skill> {
    let path = paths::join(dir, "SKILL.md");
    let data = match fs.read(&path, opts.limits.frontmatter_bytes) {
        Lookup::Pending => return None,
        Lookup::Ready(Ok(data)) => data,
        Lookup::Ready(Err(e)) => {
            diags.push(unreadable(&path, &e));
            return None;
        }
    };
    let text = decode(&data, &path, diags);
    let parsed = frontmatter::parse(&text, &path, diags);
    let fields = match parsed.fields {
        Some(Ok(fields)) => fields,
        Some(Err(_)) => {
            diags.push(Diagnostic::new(&codes::SKILLS_SKIPPED, "frontmatter cannot be parsed; skill skipped").at_path(&path));
            return None;
        }
        None => {
            let code = if data.is_partial() && text.starts_with("---") { &codes::SKILLS_FRONTMATTER_TOO_LONG } else { &codes::SKILLS_MISSING_DESCRIPTION };
            diags.push(Diagnostic::new(code, "no frontmatter with a description; skill skipped").at_path(&path));
            return None;
        }
    };
    let dir_name = paths::file_name(dir).to_owned();
    let description = match fields.get("description") {
        Some(value) => match as_text(value).map(|d| d.trim().to_owned()).filter(|d| !d.is_empty()) {
            Some(d) => {
                if !matches!(value, Value::String(_)) {
                    diags.push(Diagnostic::new(&codes::SKILLS_NON_STRING_VALUE, "`description` is not a string; read as text").at_path(&path));
                }
                d
            }
            None => {
                diags.push(Diagnostic::new(&codes::SKILLS_MISSING_DESCRIPTION, "`description` is empty or not text; skill skipped").at_path(&path));
                return None;
            }
        },
        None => {
            diags.push(Diagnostic::new(&codes::SKILLS_MISSING_DESCRIPTION, "no `description`; skill skipped").at_path(&path));
            return None;
        }
    };
    if description.chars().count() > 1024 {
        diags.push(Diagnostic::new(&codes::SKILLS_DESCRIPTION_TOO_LONG, "`description` is over 1,024 characters").at_path(&path));
    }
    let name = match fields.get("name").map(|v| (as_text(v), v)) {
        Some((Some(name), value)) => {
            if !matches!(value, Value::String(_)) {
                diags.push(Diagnostic::new(&codes::SKILLS_NON_STRING_VALUE, "`name` is not a string; read as text").at_path(&path));
            }
            if paths::is_unsafe_name(&name) || name.contains(':') {
                diags.push(
                    Diagnostic::new(&codes::SKILLS_UNSAFE_NAME, format!("name `{name}` could name another path; using the directory name `{dir_name}`"))
                        .at_path(&path),
                );
                dir_name.clone()
            } else {
                name
            }
        }
        Some((None, _)) => {
            diags.push(Diagnostic::new(&codes::SKILLS_NON_STRING_VALUE, "`name` is not text; using the directory name").at_path(&path));
            dir_name.clone()
        }
        None => {
            diags.push(Diagnostic::new(&codes::SKILLS_MISSING_NAME, "no `name`; using the directory name").at_path(&path));
            dir_name.clone()
        }
    };
    if let Some(problem) = name_problem(&name) {
        diags.push(Diagnostic::new(&codes::SKILLS_INVALID_NAME, format!("name `{name}`: {problem}")).at_path(&path));
    }
    if name != dir_name {
        diags.push(Diagnostic::new(&codes::SKILLS_NAME_MISMATCH, format!("name `{name}` differs from its directory `{dir_name}`")).at_path(&path));
    }
    if let Some(c) = fields.get("compatibility").and_then(as_text) {
        if c.chars().count() > 500 {
            diags.push(Diagnostic::new(&codes::SKILLS_COMPATIBILITY_TOO_LONG, "`compatibility` is over 500 characters").at_path(&path));
        }
    }
    if let Some(metadata) = fields.get("metadata") {
        let ok = metadata.as_object().is_some_and(|m| m.values().all(|v| v.is_string()));
        if !ok {
            diags.push(Diagnostic::new(&codes::SKILLS_BAD_METADATA, "`metadata` is not a map of strings").at_path(&path));
        }
    }
    for key in fields.keys().filter(|k| !KNOWN_KEYS.contains(&k.as_str())) {
        diags.push(Diagnostic::new(&codes::SKILLS_UNKNOWN_FIELD, format!("unknown frontmatter key `{key}`")).at_path(&path));
    }
    let user_only = fields.get("disable-model-invocation").is_some_and(|v| v == &Value::Bool(true) || v == "true");
    Some(Skill { name, description, path, source: root.source, plugin: root.plugin.clone(), user_only })
}

/// Agent Skills naming: 1–64 of `[a-z0-9-]`, no leading, trailing or double hyphen.
fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 64 {
        Some("must be 1 to 64 characters")
    } else if !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        Some("may only contain lowercase letters, digits and hyphens")
    } else if name.starts_with('-') || name.ends_with('-') {
        Some("must not start or end with a hyphen")
    } else if name.contains("--") {
        Some("must not contain consecutive hyphens")
    } else {
        None
    }
}

fn resolve_names(opts: &DiscoveryOptions, found: Vec<Skill>, diags: &mut Vec<Diagnostic>) -> Vec<Skill> {
    let disabled: HashSet<&str> = opts.skills.disabled.iter().map(String::as_str).collect();
    let mut taken: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for mut skill in found {
        if disabled.contains(skill.name.as_str()) {
            diags.push(Diagnostic::new(&codes::SKILLS_DISABLED, format!("`{}` is disabled", skill.name)).at_path(&skill.path));
            continue;
        }
        if let Some(plugin) = &skill.plugin {
            let qualified = format!("{plugin}:{}", skill.name);
            if let Some(winner) = taken.get(&skill.name) {
                diags.push(
                    Diagnostic::new(&codes::SKILLS_PLUGIN_SHADOWED, format!("`{}` is taken by {winner}; this one is reachable as `{qualified}`", skill.name))
                        .at_path(&skill.path),
                );
                skill.name = qualified.clone();
            }
            if taken.contains_key(&skill.name) {
                diags.push(Diagnostic::new(&codes::SKILLS_SHADOWED, format!("`{}` is already taken", skill.name)).at_path(&skill.path));
                continue;
            }
            taken.insert(skill.name.clone(), skill.path.clone());
            taken.entry(qualified).or_insert_with(|| skill.path.clone());
            out.push(skill);
            continue;
        }
        match taken.get(&skill.name) {
            Some(winner) => diags.push(
                Diagnostic::new(&codes::SKILLS_SHADOWED, format!("`{}` is shadowed by {winner}", skill.name)).at_path(&skill.path),
            ),
            None => {
                taken.insert(skill.name.clone(), skill.path.clone());
                out.push(skill);
            }
        }
    }
    out
}

/// The listing the prompt gets: names, descriptions cut to the entry budget, locations, in
/// priority order until the listing budget is spent.
pub fn listing(opts: &DiscoveryOptions, skills: &[Skill], diags: &mut Vec<Diagnostic>) -> SkillListing {
    let mut listing = SkillListing::default();
    for skill in skills.iter().filter(|s| !s.user_only) {
        let mut description = skill.description.clone();
        let cap = opts.limits.skill_entry_bytes as usize;
        if description.len() > cap {
            let mut cut = cap.saturating_sub('…'.len_utf8());
            while !description.is_char_boundary(cut) {
                cut -= 1;
            }
            description.truncate(cut);
            description.push('…');
        }
        let cost = (skill.name.len() + description.len() + skill.path.len()) as u64;
        if listing.bytes + cost > opts.limits.skill_listing_bytes {
            listing.omitted.push(skill.name.clone());
            continue;
        }
        listing.bytes += cost;
        listing.entries.push(ListingEntry { name: skill.name.clone(), description, location: skill.path.clone() });
    }
    if !listing.omitted.is_empty() {
        diags.push(Diagnostic::new(
            &codes::SKILLS_LISTING_OVER_BUDGET,
            format!(
                "{} skills not listed: over the {}-byte listing budget (limits.skillListingBytes): {}",
                listing.omitted.len(),
                opts.limits.skill_listing_bytes,
                listing.omitted.join(", ")
            ),
        ));
    }
    listing
}

/// Reads a skill's body (the SKILL.md after its frontmatter).
pub fn load(opts: &DiscoveryOptions, fs: &FsView, skill: &Skill) -> Lookup<LoadedSkill> {
    let mut diagnostics = Vec::new();
    if skill.source == SkillSource::Bundled {
        let body = opts.skills.bundled.iter().find(|b| format!("bundled:{}", b.name) == skill.path).map(|b| b.body.clone()).unwrap_or_default();
        return Lookup::Ready(LoadedSkill { name: skill.name.clone(), path: skill.path.clone(), body, frontmatter: Default::default(), diagnostics });
    }
    let data = match fs.read(&skill.path, opts.limits.max_file_bytes) {
        Lookup::Pending => return Lookup::Pending,
        Lookup::Ready(Ok(data)) => data,
        Lookup::Ready(Err(e)) => {
            diagnostics.push(unreadable(&skill.path, &e));
            return Lookup::Ready(LoadedSkill { name: skill.name.clone(), path: skill.path.clone(), body: String::new(), frontmatter: Default::default(), diagnostics });
        }
    };
    let text = decode(&data, &skill.path, &mut diagnostics);
    let parsed = frontmatter::parse(&text, &skill.path, &mut diagnostics);
    let mut body = parsed.body.trim_start_matches(['\n', '\r']).to_owned();
    if data.is_partial() {
        body.push_str(&format!(
            "\n\n[… {} more bytes of {} not loaded: over the {}-byte limit (limits.maxFileBytes) …]",
            data.size - data.bytes.len() as u64,
            skill.path,
            opts.limits.max_file_bytes
        ));
        diagnostics.push(Diagnostic::new(&codes::SKILLS_TRUNCATED, "skill body cut at limits.maxFileBytes").at_path(&skill.path));
    }
    let frontmatter = match parsed.fields {
        Some(Ok(map)) => map,
        Some(Err(_)) | None => Default::default(),
    };
    Lookup::Ready(LoadedSkill { name: skill.name.clone(), path: skill.path.clone(), body, frontmatter, diagnostics })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_skills_naming() {
        assert_eq!(name_problem("pdf-tools"), None);
        assert!(name_problem("PDF").is_some());
        assert!(name_problem("-a").is_some());
        assert!(name_problem("a--b").is_some());
        assert!(name_problem(&"a".repeat(65)).is_some());
    }
}
