//! Every fuzz target's checks (`fuzz/checks/`), run in `make test` over what the target is seeded
//! with — our fixtures, in the shape the target reads — and over the inputs that once found a bug
//! (`fuzz/regressions/<target>/`, checked in). `make fuzz` runs the same checks under libFuzzer
//! for new inputs; an input it finds that fails goes into `fuzz/regressions/`.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../fuzz/checks/mod.rs"]
mod checks;

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join(dir)).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    out.sort();
    out
}

/// The checked-in inputs that once failed `target`'s checks.
fn regressions(target: &str) -> Vec<Vec<u8>> {
    files(&format!("fuzz/regressions/{target}")).iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn run(target: &str, check: fn(&[u8]), seeds: Vec<Vec<u8>>) {
    let regressions = regressions(target);
    let count = seeds.len() + regressions.len();
    for (n, input) in seeds.into_iter().chain(regressions).enumerate() {
        if let Err(panic) = std::panic::catch_unwind(|| check(&input)) {
            let path = root().join(format!("target/fuzz-regression-{target}-{n}"));
            std::fs::write(&path, &input).unwrap();
            std::panic::resume_unwind(Box::new(format!("{target}: input {n} (written to {}) failed: {panic:?}", path.display())));
        }
    }
    assert!(count > 0, "{target}: nothing to run");
}

/// The answer fixtures behind the three control bytes `fuzz/checks/answer.rs` reads: each API's
/// own, whole and cut at its middle, and each HTTP fixture's body under its status.
fn answer_seeds() -> Vec<Vec<u8>> {
    let api = |name: &str| match name {
        n if n.starts_with("anthropic-") => 0u8,
        n if n.starts_with("openai-chat-") => 1,
        n if n.starts_with("openai-responses-") => 2,
        _ => 3,
    };
    let mut seeds = Vec::new();
    for path in files("tests/fixtures/answers") {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let bytes = std::fs::read(&path).unwrap();
        for (http, drop) in [(0u8, 0u8), (0, 128 + 64), (128, 0), (128 + 9, 0)] {
            seeds.push([&[api(&name) | (5 << 2), http, drop][..], &bytes].concat());
        }
    }
    for path in files("tests/fixtures/http") {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        // 128 + the status's place in the target's table.
        let status: u8 = match text.split(' ').nth(1).unwrap() {
            "400" => 1,
            "413" => 7,
            "429" => 8,
            "500" => 9,
            "503" => 11,
            _ => 13,
        };
        let provider = if name.starts_with("proxy-") { 0 } else { api(&name) };
        seeds.push([&[provider, 128 + status + (2 << 4), 0][..], body.as_bytes()].concat());
    }
    seeds
}

#[test]
fn answer() {
    run("answer", checks::answer::check, answer_seeds());
}

#[test]
fn log() {
    run("log", checks::log::check, vec![std::fs::read(root().join("examples/session.jsonl")).unwrap()]);
}

#[test]
fn importers() {
    run("import_claude_code", checks::import_claude_code::check, vec![std::fs::read(root().join("tests/fixtures/claude-code.jsonl")).unwrap()]);
    run("import_codex", checks::import_codex::check, vec![std::fs::read(root().join("tests/fixtures/codex.jsonl")).unwrap()]);
    run("import_pi", checks::import_pi::check, vec![std::fs::read(root().join("tests/fixtures/pi.jsonl")).unwrap()]);
    run("import_others", checks::import_others::check, others_seeds());
}

/// Each fixture of the formats `import_others` picks by its first byte, and the OpenCode storage
/// fixture's main session as its files split at NUL bytes (see `fuzz/checks/import_others.rs`).
fn others_seeds() -> Vec<Vec<u8>> {
    let fixtures = [
        (0u8, "gemini-cli.json"),
        (0, "gemini-cli.jsonl"),
        (1, "copilot-cli.jsonl"),
        (1, "copilot-cli-assets.jsonl"),
        (1, "copilot-cli-legacy.jsonl"),
        (2, "aider.chat.history.md"),
        (3, "cline-task/cline.json"),
        (4, "cline-task/roo-code.json"),
        (5, "cline-task/kilo-code.json"),
        (6, "opencode/ses-main.json"),
    ];
    let mut seeds: Vec<Vec<u8>> = fixtures.iter().map(|(pick, file)| [&[*pick][..], &std::fs::read(root().join("tests/fixtures").join(file)).unwrap()].concat()).collect();
    let storage = "tests/fixtures/opencode-storage";
    let session = "ses_7a01c0ffee01AbCdEfGhIjKlMn";
    let text = |p: &PathBuf| std::fs::read_to_string(p).unwrap();
    let messages = files(&format!("{storage}/message/{session}"));
    let parts: Vec<PathBuf> = messages.iter().flat_map(|m| files(&format!("{storage}/part/{}", m.file_stem().unwrap().to_str().unwrap()))).collect();
    let mut pieces = vec![std::fs::read_to_string(root().join(format!("{storage}/session/9a1c0e4f5b6a/{session}.json"))).unwrap()];
    pieces.extend(messages.iter().map(text));
    pieces.push(String::new());
    pieces.extend(parts.iter().map(text));
    seeds.push([&[7u8][..], pieces.join("\0").as_bytes()].concat());
    seeds
}

#[test]
fn frontmatter_rule_imports_and_tool_call_ids() {
    let frontmatter = [
        "---\nname: deploy\ndescription: Deploy the service.\n---\nRun make deploy.\n",
        "---\nglobs: **/*.ts\nalwaysApply: yes\n---\nUse tabs.\n",
        "---\nname: [unclosed\n---\n",
        "---\na: &x [1, *x]\n---\n",
    ];
    run("frontmatter", checks::frontmatter::check, frontmatter.iter().map(|s| s.as_bytes().to_vec()).collect());
    let imports = "Root rules. See @a.md and @docs/b.md.\u{1}Sub: @../a.md @~/d.md\u{1}A: @docs/b.md\u{1}B: @deep/c.md @../CLAUDE.md\u{1}C: `@not/this.md` @../../a.md\u{1}Home.";
    run("rule_imports", checks::rule_imports::check, vec![imports.as_bytes().to_vec()]);
    let ids = format!("toolu_01A\u{1}call_abc|fc_123\u{1}call abc\u{1}\u{1}toolu_01A\u{1}{}", "x".repeat(80));
    run("tool_call_ids", checks::tool_call_ids::check, vec![ids.into_bytes()]);
}
