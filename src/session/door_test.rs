//! The one door, checked on the source: every `impl Input` is in the list [`super::Input`]'s
//! documentation gives, and every public method of `Session` that takes `&mut self` either
//! gives an input to the door or is one of the queries named here (they fold lazily, or hand
//! out effects) — a new side door fails this test.

use std::collections::BTreeSet;
use std::path::Path;

/// `&mut self` methods that change nothing a host relies on: they fold the replay or the view
/// lazily and read what it holds (`state`, `usage`, `items`, `diagnostics`, `final_answer`,
/// `spent`, `read_answer`: an answer decoded, not recorded; `defaults`, `with_defaults`: build
/// options completed with the session's provider and model), or they are the door and its
/// effect queue (`input`, `poll_effect`, `take_effects`).
const QUERIES: &[&str] = &["state", "usage", "items", "diagnostics", "final_answer", "spent", "read_answer", "input", "poll_effect", "take_effects", "defaults", "with_defaults"];

/// Methods made of other inputs given to the door (`dispatch` and `process` run queued commands
/// through `RunNext`, `build` is `Build`, `enqueue_rules` a `QueueReminder`).
const COMPOSED: &[&str] = &["dispatch", "process", "build", "enqueue_rules"];

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
        }
    }
}

fn session_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/session"), &mut out);
    out
}

#[test]
fn every_input_is_in_the_door_s_documented_list() {
    let mut implemented = BTreeSet::new();
    for (_, text) in session_sources() {
        for line in text.lines() {
            let line = line.trim_start();
            let Some(rest) = line.strip_prefix("impl ") else { continue };
            let rest = rest.strip_prefix("crate::session::").unwrap_or(rest);
            let Some(name) = rest.strip_prefix("Input for ") else { continue };
            implemented.insert(name.split(|c: char| !c.is_alphanumeric()).next().unwrap().to_owned());
        }
    }
    let doc = include_str!("core.rs");
    let start = doc.find("/// The inputs (").expect("the list of inputs");
    let list: String = doc[start..].lines().take_while(|l| l.starts_with("///")).collect::<Vec<_>>().join(" ");
    let list = &list[..list.find("The session's public methods").unwrap_or(list.len())];
    let documented: BTreeSet<String> = list.split("[`").skip(1).map(|s| s[..s.find('`').unwrap()].to_owned()).collect();
    assert_eq!(implemented, documented);
    assert!(implemented.len() >= 16, "{implemented:?}");
}

#[test]
fn every_public_method_that_changes_the_session_goes_through_the_door() {
    let mut side_doors = Vec::new();
    for (file, text) in session_sources() {
        let mut in_session = false;
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if *line == "impl Session {" {
                in_session = true;
                continue;
            }
            if in_session && *line == "}" {
                in_session = false;
            }
            if !in_session {
                continue;
            }
            let Some(rest) = line.strip_prefix("    pub fn ") else { continue };
            if !rest.contains("&mut self") {
                continue;
            }
            let name = &rest[..rest.find(|c: char| c == '(' || c == '<').unwrap()];
            let body: Vec<&str> = lines[i..].iter().take_while(|l| **l != "    }").copied().collect();
            if !body.iter().any(|l| l.contains("self.input(")) && !QUERIES.contains(&name) && !COMPOSED.contains(&name) {
                side_doors.push(format!("{file}: {name}"));
            }
        }
    }
    assert_eq!(side_doors, Vec::<String>::new(), "public methods that change the session without the door");
}

/// The commands that may wait for records, as the session decides ([`super::wait`]'s
/// `may_wait`, the arm that answers `true`), are the ones the TypeScript `ProcessedAs` lets
/// come back `waiting`: a command added to one list and not the other fails here.
#[test]
fn the_commands_that_may_wait_are_the_ones_typescript_says_may_wait() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wait = std::fs::read_to_string(root.join("src/session/wait.rs")).unwrap();
    let body = &wait[wait.find("fn may_wait").unwrap()..];
    let arm = &body[body.find("match command {").unwrap() + "match command {".len()..body.find("=> true").unwrap()];
    let camel = |v: &str| v[..1].to_lowercase() + &v[1..];
    let rust: BTreeSet<String> =
        arm.split('|').map(|p| p.trim().trim_start_matches("Command::")).map(|p| p.split('(').next().unwrap().trim().to_owned()).map(|v| camel(&v)).collect();
    let ts = std::fs::read_to_string(root.join("crates/first/src/lib.rs")).unwrap();
    let line = ts.lines().find(|l| l.starts_with("type MayWait =")).expect("crates/first/src/lib.rs declares MayWait");
    let declared: BTreeSet<String> = line.split('\'').skip(1).step_by(2).map(str::to_owned).collect();
    assert_eq!(rust.len(), 5, "{rust:?}");
    assert_eq!(declared, rust);
}
