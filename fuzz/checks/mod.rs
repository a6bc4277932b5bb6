//! What each fuzz target checks of the bytes it is given, one module per target, each with
//! `check(data)`: the fuzz targets (`fuzz_targets/`, libFuzzer, `make fuzz`) call them, and so does
//! `make test` over the checked-in regression inputs (`fuzz/regressions/<target>/`,
//! `tests/it/fuzz_regressions.rs`).
#![allow(dead_code)]

pub mod common;

pub mod answer;
pub mod frontmatter;
pub mod import_claude_code;
pub mod import_codex;
pub mod import_others;
pub mod import_pi;
pub mod log;
pub mod rule_imports;
pub mod tool_call_ids;
