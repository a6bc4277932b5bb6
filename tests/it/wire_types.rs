//! The wire enums' TypeScript declarations (`crates/js/src/types.d.ts`) name the tags their
//! Rust declarations do, in the same order: a command, record kind, update or item added to one
//! and not the other fails here.

#![cfg(not(target_arch = "wasm32"))]

use contextview::conversation::Item;
use contextview::session::Command;
use contextview::update::acp::SessionUpdate;
use contextview::update::record::Event;
use pretty_assertions::assert_eq;

/// The tags `export type {name} = ({ {key}: "tag" } & …) | …;` names, in order.
fn declared_tags(name: &str, key: &str) -> Vec<String> {
    let dts = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/js/src/types.d.ts")).unwrap();
    let start = dts.find(&format!("export type {name} = ")).unwrap_or_else(|| panic!("types.d.ts declares {name}"));
    let line = &dts[start..start + dts[start..].find(";\n").unwrap()];
    let marker = format!("{{ {key}: \"");
    line.match_indices(&marker).map(|(at, _)| line[at + marker.len()..].split('"').next().unwrap().to_owned()).collect()
}

#[test]
fn the_typescript_unions_name_the_tags_the_rust_enums_declare() {
    for (name, key, rust) in [
        ("Command", "type", Command::NAMES),
        ("Item", "type", Item::KINDS),
        ("Event", "kind", Event::KINDS),
        ("SessionUpdate", "sessionUpdate", SessionUpdate::KINDS),
    ] {
        assert!(rust.len() >= 6, "{name}: {rust:?}");
        assert_eq!(declared_tags(name, key), rust.iter().map(|t| t.to_string()).collect::<Vec<_>>(), "{name}");
    }
}
