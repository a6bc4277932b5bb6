//! Discovery on real rule and skill files. The corpus keeps each file under a flattened name (`owner__repo__path__to__FILE`); the suite
//! rebuilds each repository's tree in memory (with the symlinks `_NESTED_RULE_TREES.txt`
//! records) and checks what loads, in which order, and that nothing panics or vanishes
//! silently.
use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{discover, MemoryHost};
use contextview_discovery::{DiscoveryOptions, Environment, Outcome, Workspace};
use contextview::Severity;

/// Every rule, skill and odd file, by repository (`owner/repo` → `[(path in repo, bytes)]`).
fn trees(corpus: &Path) -> BTreeMap<String, Vec<(String, Vec<u8>)>> {
    let mut out: BTreeMap<String, Vec<(String, Vec<u8>)>> = BTreeMap::new();
    for sub in ["rules", "skills", "odd"] {
        for entry in std::fs::read_dir(corpus.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".txt") {
                continue;
            }
            let mut parts = name.splitn(3, "__");
            let (owner, repo, rest) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
            out.entry(format!("{owner}/{repo}")).or_default().push((rest.replace("__", "/"), std::fs::read(&path).unwrap()));
        }
    }
    out
}

/// The symlinks `_NESTED_RULE_TREES.txt` records, as (repo, path in repo).
fn symlinks(corpus: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(corpus.join("rules/_NESTED_RULE_TREES.txt")).unwrap();
    let mut repo = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("### ") {
            repo = rest.split_whitespace().next().unwrap_or("").to_owned();
        } else if let Some(path) = line.trim().strip_suffix(" -> (symlink)") {
            out.push((repo.clone(), path.to_owned()));
        }
    }
    out
}

fn host_for(corpus: &Path, repo: &str) -> (MemoryHost, String) {
    let root = format!("/{}", repo.split('/').nth(1).unwrap());
    let mut host = MemoryHost::default();
    host.file(&format!("{root}/.git/HEAD"), "ref: refs/heads/main");
    for (path, bytes) in trees(corpus).remove(repo).unwrap_or_default() {
        host.bytes(&format!("{root}/{path}"), &bytes);
    }
    for (r, path) in symlinks(corpus) {
        if r == repo {
            host.link(&format!("{root}/{path}"), "AGENTS.md");
        }
    }
    (host, root)
}


fn rules_for(host: &mut MemoryHost, ws: &mut Workspace, path: &str) -> Vec<String> {
    ws.start_rules_for_path(path);
    match host.drive(ws) {
        Outcome::Rules { rules } => rules.into_iter().map(|r| r.path).collect(),
        other => panic!("{other:?}"),
    }
}

fn paths(env: &Environment) -> Vec<&str> {
    env.rules.iter().map(|r| r.path.as_str()).collect()
}

pub fn oxc_nested_agents_files_load_root_to_cwd_and_below_cwd_on_demand(corpus: &Path) {
    let (mut host, root) = host_for(corpus, "oxc-project/oxc");
    let (_, env) = discover(&mut host, DiscoveryOptions::new(format!("{root}/crates/oxc_parser")));
    assert_eq!(paths(&env), vec!["/oxc/AGENTS.md", "/oxc/crates/oxc_parser/AGENTS.md"]);
    // CLAUDE.md is `@AGENTS.md`: nothing new.
    assert!(env.diagnostics.iter().any(|d| d.code == "rules.only_imports" && d.path.as_deref() == Some("/oxc/CLAUDE.md")));
    let (mut ws, _) = discover(&mut host, DiscoveryOptions::new(root.clone()));
    assert_eq!(rules_for(&mut host, &mut ws, "/oxc/apps/oxfmt/src/lib.rs"), vec!["/oxc/apps/oxfmt/AGENTS.md"]);
    assert_eq!(rules_for(&mut host, &mut ws, "/oxc/crates/oxc_formatter_css/src/a.rs"), vec!["/oxc/crates/oxc_formatter_css/AGENTS.md"]);
    assert_eq!(rules_for(&mut host, &mut ws, "/oxc/apps/oxfmt/src/main.rs"), Vec::<String>::new());
}

pub fn ccusage_symlinked_claude_files_load_once(corpus: &Path) {
    let (mut host, root) = host_for(corpus, "ryoppippi/ccusage");
    let (mut ws, env) = discover(&mut host, DiscoveryOptions::new(format!("{root}/apps/ccusage")));
    assert_eq!(paths(&env), vec!["/ccusage/AGENTS.md", "/ccusage/.claude/CLAUDE.md", "/ccusage/apps/ccusage/AGENTS.md"]);
    let dupes = env.diagnostics.iter().filter(|d| d.code == "rules.duplicate").count();
    assert_eq!(dupes, 2, "root and apps/ccusage CLAUDE.md are links to AGENTS.md");
    assert_eq!(
        rules_for(&mut host, &mut ws, "/ccusage/apps/ccusage/src/x.ts"),
        Vec::<String>::new(),
        "nothing below cwd in that directory"
    );
    // The corpus copy of the root CLAUDE.md holds the link's text, as git writes it where
    // symlinks are off: read as a link, too.
    let mut host = host.clone();
    host.file("/ccusage/CLAUDE.md", "AGENTS.md");
    let (_, env) = discover(&mut host, DiscoveryOptions::new("/ccusage".to_owned()));
    assert_eq!(paths(&env), vec!["/ccusage/AGENTS.md", "/ccusage/.claude/CLAUDE.md"]);
}

pub fn codex_agents_file_below_cwd_attaches_on_read(corpus: &Path) {
    let (mut host, root) = host_for(corpus, "openai/codex");
    let (mut ws, env) = discover(&mut host, DiscoveryOptions::new(format!("{root}/codex-rs/tui")));
    assert_eq!(paths(&env), vec!["/codex/AGENTS.md"]);
    assert_eq!(
        rules_for(&mut host, &mut ws, "/codex/codex-rs/tui/src/bottom_pane/chat_composer.rs"),
        vec!["/codex/codex-rs/tui/src/bottom_pane/AGENTS.md"]
    );
}

/// The text after a YAML frontmatter block (`---` on the first line, up to the next `---` or `...`
/// line), read line by line as the convention describes it.
fn body_after_frontmatter(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(|l| l.trim_end_matches(['\r', '\n'])) != Some("---") {
        return text;
    }
    let mut consumed = text.split_inclusive('\n').next().unwrap().len();
    for line in lines {
        consumed += line.len();
        if matches!(line.trim_end_matches(['\r', '\n']), "---" | "...") {
            return &text[consumed..];
        }
    }
    text
}

/// The corpus holds this many rule files (AGENTS.md, CLAUDE.md, Cursor and Claude rules, odd files).
const MIN_RULE_FILES: usize = 21;

pub fn every_corpus_rule_file_loads_as_data(corpus: &Path) {
    let mut checked = 0;
    for (repo, files) in trees(corpus) {
        for (path, bytes) in files.iter().filter(|(p, _)| !p.ends_with("SKILL.md")) {
            // Each file alone as a repository's AGENTS.md (or a rule file where it lives in a rules dir).
            let target = if path.contains(".claude/rules/") {
                format!("/t/{path}")
            } else if path.ends_with(".cursorrules") {
                "/t/.cursorrules".to_owned()
            } else {
                "/t/AGENTS.md".to_owned()
            };
            let mut host = MemoryHost::default();
            host.file("/t/.git/HEAD", "");
            host.bytes(&target, bytes);
            let (_, env) = discover(&mut host, DiscoveryOptions::new("/t"));
            let rule = env.rules.first().or(env.conditional.first()).unwrap_or_else(|| panic!("{repo}/{path} did not load: {:?}", env.diagnostics));
            // The rule's text is the file after its frontmatter, every character kept; framing tags
            // in it are defused (`<` written `&lt;`), nothing else changes.
            let original = String::from_utf8_lossy(bytes);
            let body = body_after_frontmatter(&original).trim_start_matches(['\n', '\r']);
            assert_eq!(rule.text.replace("&lt;", "<"), body.replace("&lt;", "<"), "{repo}/{path}");
            let wrapped = contextview::framing::wrap("rules", &rule.text);
            assert_eq!(wrapped.matches("</rules>").count(), 1, "{repo}/{path}");
            assert!(env.diagnostics.iter().all(|d| d.severity != Severity::Error), "{repo}/{path}: {:?}", env.diagnostics);
            checked += 1;
        }
    }
    eprintln!("corpus rules: {checked} files loaded, each body kept whole");
    assert!(checked >= MIN_RULE_FILES, "{checked} rule files");
}

pub fn corpus_skills_are_found_and_odd_ones_are_reported(corpus: &Path) {
    // Real skills: each in an agent skills root, found with its name and description.
    let mut host = MemoryHost::default();
    host.file("/s/.git/HEAD", "");
    let mut expected = Vec::new();
    for repo in ["anthropics/skills", "ryoppippi/ccusage"] {
        for (path, bytes) in trees(corpus).remove(repo).unwrap_or_default() {
            if let Some(rest) = path.strip_suffix("/SKILL.md") {
                let name = rest.rsplit('/').next().unwrap().to_owned();
                host.bytes(&format!("/s/.agents/skills/{name}/SKILL.md"), &bytes);
                expected.push(name);
            }
        }
    }
    let (_, env) = discover(&mut host, DiscoveryOptions::new("/s"));
    let mut names: Vec<String> = env.skills.iter().map(|s| s.name.clone()).collect();
    names.sort();
    expected.sort();
    assert_eq!(names, expected);
    assert!(env.skills.iter().all(|s| !s.description.is_empty()));

    // pi's fixture skills (odd on purpose), at their real relative paths.
    let (mut host, root) = host_for(corpus, "badlogic/pi-mono");
    let fixtures = format!("{root}/packages/coding-agent/test/fixtures");
    let mut options = DiscoveryOptions::new(root.clone());
    options.skills.paths = vec![format!("{fixtures}/skills"), format!("{fixtures}/skills-collision/first"), format!("{fixtures}/skills-collision/second")];
    let (_, env) = discover(&mut host, options);
    // Skills go by their frontmatter name (a mismatch with the directory is reported); check by directory.
    let dirs: Vec<&str> = env.skills.iter().map(|s| s.path.rsplit('/').nth(1).unwrap()).collect();
    for present in ["consecutive-hyphens", "disable-model-invocation", "invalid-name-chars", "long-name", "multiline-description", "name-mismatch", "child-skill", "root-skill-preferred", "unknown-field", "calendar"] {
        assert!(dirs.contains(&present), "{present} missing from {dirs:?}");
    }
    for absent in ["invalid-yaml", "missing-description", "no-frontmatter", "nested-child"] {
        assert!(!dirs.contains(&absent), "{absent} should not load: {dirs:?}");
    }
    assert!(env.skills.iter().any(|s| s.name == "multiline-description" && s.description.contains("It spans multiple lines.")));
    let has = |code: &str, dir: &str| env.diagnostics.iter().any(|d| d.code == code && d.path.as_deref().is_some_and(|p| p.contains(dir)));
    assert!(has("skills.invalid_name", "consecutive-hyphens"));
    assert!(has("skills.invalid_name", "invalid-name-chars") || has("skills.name_mismatch", "invalid-name-chars"));
    assert!(has("skills.invalid_name", "long-name"));
    assert!(has("skills.name_mismatch", "name-mismatch"));
    assert!(has("skills.unknown_field", "unknown-field"));
    assert!(has("skills.missing_description", "missing-description"));
    assert!(has("skills.skipped", "invalid-yaml"));
    assert!(has("skills.shadowed", "skills-collision/second"));
    assert!(env.skills.iter().any(|s| s.name == "disable-model-invocation" && s.user_only));
    eprintln!(
        "corpus skills: {} found, {} diagnostics ({:?})",
        env.skills.len(),
        env.diagnostics.len(),
        env.diagnostics.iter().map(|d| d.code.as_str()).collect::<std::collections::BTreeSet<_>>()
    );
}
