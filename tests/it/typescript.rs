//! The package's TypeScript declarations generated from the Rust declarations: the wire enums'
//! unions in `crates/js/src/types.d.ts` (each variant's tag and type, in order), and every
//! provider request's and settings' shape, whole, in `crates/js/src/shapes/providers.d.ts`
//! (rendered from [`contextview::shape`], which the types' derive generates from the same
//! attributes their readers are generated from). The declarations are checked in; these tests
//! fail when one is stale, and with `UPDATE_TYPES=1` write the fresh one in its place.

#![cfg(not(target_arch = "wasm32"))]

use contextview::conversation::Item;
use contextview::session::Command;
use contextview::update::acp::SessionUpdate;
use contextview::update::record::Event;
use pretty_assertions::assert_eq;

mod shapes;

/// `export type {name} = ({ {key}: "tag" } & Type) | { {key}: "unit" } | …;`
fn union(name: &str, key: &str, tags: &[&str], types: &[Option<&str>]) -> String {
    assert_eq!(tags.len(), types.len(), "{name}");
    let variants: Vec<String> = tags
        .iter()
        .zip(types)
        .map(|(tag, ty)| match ty {
            Some(ty) => format!("({{ {key}: \"{tag}\" }} & {ty})"),
            None => format!("{{ {key}: \"{tag}\" }}"),
        })
        .collect();
    format!("export type {name} = {};", variants.join(" | "))
}

/// The generated unions, each with the name its line starts with.
fn generated() -> Vec<(&'static str, String)> {
    let some = |types: &[&'static str]| types.iter().map(|t| Some(*t)).collect::<Vec<_>>();
    vec![
        ("Command", union("Command", "type", Command::NAMES, Command::INPUTS)),
        ("Item", union("Item", "type", Item::KINDS, &some(Item::TYPES))),
        ("Event", union("Event", "kind", Event::KINDS, &some(Event::TYPES))),
        ("SessionUpdate", union("SessionUpdate", "sessionUpdate", SessionUpdate::KINDS, &some(SessionUpdate::TYPES))),
    ]
}

/// `text` with each union's line replaced by its generated one.
fn with_generated(text: &str) -> String {
    let mut out = text.to_owned();
    for (name, line) in generated() {
        let start = out.find(&format!("\nexport type {name} = ")).unwrap_or_else(|| panic!("types.d.ts declares {name}")) + 1;
        let end = start + out[start..].find('\n').unwrap();
        out.replace_range(start..end, &line);
    }
    out
}

/// The checked-in file at `path` (under `crates/js/src`) against its fresh text: rewritten with
/// `UPDATE_TYPES=1`, else equal.
fn check_generated(path: &str, fresh: impl FnOnce(&str) -> String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/js/src").join(path);
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    let fresh = fresh(&checked_in);
    if fresh != checked_in && std::env::var_os("UPDATE_TYPES").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    assert_eq!(checked_in, fresh, "{} is stale: run `UPDATE_TYPES=1 cargo test --test it typescript`", path.display());
}

#[test]
fn the_typescript_unions_are_generated_from_the_rust_enums() {
    check_generated("types.d.ts", with_generated);
}

#[test]
fn the_providers_shapes_are_generated_from_the_rust_types() {
    check_generated("shapes/providers.d.ts", |_| shapes::providers());
}

#[test]
fn a_union_names_each_variant_s_tag_and_type() {
    assert_eq!(
        union("U", "type", &["a", "b_c", "d"], &[Some("A"), Some("Bc"), None]),
        r#"export type U = ({ type: "a" } & A) | ({ type: "b_c" } & Bc) | { type: "d" };"#
    );
    // A variant added on the Rust side (here, to the text) is a stale declaration.
    let text = "x\nexport type Item = ({ type: \"user\" } & UserMessage);\ny\n";
    let fresh = with_generated(&format!("{text}export type Command = 1;\nexport type Event = 1;\nexport type SessionUpdate = 1;\n"));
    assert!(fresh.contains(&union("Item", "type", Item::KINDS, &Item::TYPES.iter().map(|t| Some(*t)).collect::<Vec<_>>())), "{fresh}");
    assert!(fresh.starts_with("x\nexport type Item = ({ type: \"user\" } & UserMessage) | ({ type: \"assistant\" }"), "{fresh}");
    assert!(fresh.contains("\ny\nexport type Command = ({ type: \"userMessage\" } & UserMessageInput)"), "{fresh}");
}
