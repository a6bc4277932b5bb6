//! The core crate's modules form layers, and code names only the layers below its own: the log does
//! not know the providers' renderers, the view does not know sessions, a session does not know
//! the simulator that drives it. Read from the sources (comments and unit tests left out).

#![cfg(not(target_arch = "wasm32"))]

use pretty_assertions::assert_eq;
use std::collections::BTreeMap;
use std::path::Path;

/// Each top-level module's layer, lowest first. Modules in one layer do not name each other.
const LAYERS: &[&[&str]] = &[
    &["diagnostic", "error_codes", "framing", "shape", "time", "value_read"],
    &["tagged"],
    &["conversation", "tool_def"],
    &["provider"],
    &["tokens", "workspace"],
    &["update"],
    &["view"],
    &["answer", "cost", "prompt"],
    &["request"],
    &["session"],
    &["simulate"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The code of a source file: its comment lines and its `#[cfg(test)]` tail left out.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The top-level modules `code` names through `crate::` paths.
fn named_modules(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let name: String = code[at + 7..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
        // A macro exported at the crate's root (`crate::declare_codes!`) is not a module.
        if !name.is_empty() && !code[at + 7 + name.len()..].starts_with('!') {
            found.push(name);
        }
    }
    found
}

/// Each top-level module of `src/` (a file or a directory), with the code of all its files.
fn modules() -> BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules: BTreeMap<String, String> = BTreeMap::new();
    for path in crate::common::core_sources() {
        // The top-level module: `src/view/prune.rs` is `view`, `src/tagged.rs` is `tagged`.
        let first = path.strip_prefix(&src).unwrap().components().next().unwrap().as_os_str().to_string_lossy().into_owned();
        let name = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
        if name == "lib" {
            continue;
        }
        let code = modules.entry(name).or_default();
        code.push_str(&code_of(&std::fs::read_to_string(&path).unwrap()));
        code.push('\n');
    }
    modules
}

#[test]
fn every_module_names_only_the_layers_below_its_own() {
    let modules = modules();
    let unplaced: Vec<&String> = modules.keys().filter(|m| layer_of(m).is_none()).collect();
    assert_eq!(unplaced, Vec::<&String>::new(), "modules missing from LAYERS");
    let mut upward = Vec::new();
    for (module, code) in &modules {
        let own = layer_of(module).unwrap();
        let mut named = named_modules(code);
        named.sort();
        named.dedup();
        for other in named.into_iter().filter(|o| o != module) {
            match layer_of(&other) {
                Some(layer) if layer < own => {}
                _ => upward.push(format!("{module} names {other}")),
            }
        }
    }
    assert_eq!(upward, Vec::<String>::new());
}

#[test]
fn the_layer_check_sees_code_and_not_comments_or_tests() {
    assert_eq!(named_modules(&code_of("use crate::view::Report;\nlet x = crate::session::Session::new();")), vec!["view", "session"]);
    assert_eq!(named_modules(&code_of("//! See [`crate::session`].\n/// and crate::view\nfn a() {}")), Vec::<String>::new());
    assert_eq!(named_modules(&code_of("fn a() {}\n#[cfg(test)]\nmod tests { use crate::session::Session; }")), Vec::<String>::new());
    assert_eq!(named_modules("$crate::diagnostic::Code"), vec!["diagnostic"]);
}

/// The dependencies a crate's manifest gives it for building (not its tests'): the first word of
/// each line under `[dependencies]`, `[build-dependencies]` or `[target.….dependencies]`.
fn build_dependencies(manifest: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut building = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            building = line == "[dependencies]" || line == "[build-dependencies]" || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
        } else if building && !line.is_empty() && !line.starts_with('#') {
            found.push(line.split(|c: char| c == ' ' || c == '=' || c == '.').next().unwrap().to_owned());
        }
    }
    found
}

/// The crates depend as ARCHITECTURE.md maps them: the core on nothing of JavaScript's and, of
/// ours, only on its readers' derive (a proc-macro that depends on none of ours), the first-load
/// module on neither the importers nor discovery.
#[test]
fn the_crates_depend_one_way_and_the_core_on_no_javascript() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
    let core = build_dependencies(&manifest("Cargo.toml"));
    assert!(core.contains(&"serde_json".to_owned()), "{core:?}");
    let javascript = ["wasm-bindgen", "js-sys", "serde-wasm-bindgen", "tsify", "console_error_panic_hook"];
    let ours = |deps: &[String]| deps.iter().filter(|d| d.starts_with("contextview")).cloned().collect::<Vec<_>>();
    assert_eq!(core.iter().filter(|d| javascript.contains(&d.as_str())).collect::<Vec<_>>(), Vec::<&String>::new());
    assert_eq!(ours(&core), vec!["contextview-derive".to_owned()]);
    // (crate, the crates of ours it depends on, whether it is a binding crate that knows JavaScript)
    for (krate, expected, binding) in [
        ("derive", vec![], false),
        ("crates/discovery", vec!["contextview"], false),
        ("crates/import", vec!["contextview"], false),
        ("crates/js", vec!["contextview"], true),
        ("crates/first", vec!["contextview", "contextview-js"], true),
        ("crates/lazy", vec!["contextview", "contextview-discovery", "contextview-import", "contextview-js"], true),
        ("tools/bindgen", vec![], false),
    ] {
        let deps = build_dependencies(&manifest(&format!("{krate}/Cargo.toml")));
        assert_eq!(ours(&deps), expected, "{krate}");
        assert_eq!(binding, deps.iter().any(|d| javascript.contains(&d.as_str())), "{krate}");
    }
    assert_eq!(build_dependencies("[dependencies]\nserde.workspace = true\n[dev-dependencies]\ninsta = \"1\"\n[target.'cfg(x)'.dependencies]\njs-sys = \"0.3\""), ["serde", "js-sys"]);
}
