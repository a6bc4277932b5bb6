//! The integration tests, one binary per target (each test file is a module): native, and wasm
//! in Node and Chromium. The corpus suite (`tests/corpus`) has its own harness.

mod common;

mod acp_conformance;
mod answer_replay;
mod answers;
mod checkpoints;
mod cost;
mod discovery;
mod errors;
mod estimator_scan;
mod fuzz_regressions;
mod head_budget;
mod example_session;
mod images;
mod import;
mod incremental;
mod layers;
mod layout;
mod ledger;
mod log_replay;
mod prefix;
mod prompt;
mod properties;
mod prune;
mod reasoning;
mod record_readers;
mod recovery;
mod repair;
mod session;
mod settings;
mod simulate;
mod subagents;
mod tokens;
mod tool_call_ids;
mod tools;
mod validators;
mod typescript;
