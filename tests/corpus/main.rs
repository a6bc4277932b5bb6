//! The corpus suite: real sessions (of Claude Code, Codex and pi; under `agents/`, of other agents), rule files and skills from public repositories, read from
//! `../shared/corpus` beside the repository (or `$CONTEXTVIEW_CORPUS`). When there is no corpus,
//! every test is reported as ignored, under a SKIPPED line naming the missing directory — never
//! as passed. Each test prints what it covered (`cargo test --test corpus`).

#[cfg(not(target_arch = "wasm32"))]
#[path = "../it/common/mod.rs"]
mod common;
#[cfg(not(target_arch = "wasm32"))]
mod agents;
#[cfg(not(target_arch = "wasm32"))]
mod discovery;
#[cfg(not(target_arch = "wasm32"))]
mod follow;
#[cfg(not(target_arch = "wasm32"))]
mod sessions;
#[cfg(not(target_arch = "wasm32"))]
mod subagents;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use std::path::{Path, PathBuf};

    use libtest_mimic::{Arguments, Trial};

    let dir = std::env::var_os("CONTEXTVIEW_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    let present = dir.is_dir();
    if !present {
        eprintln!("corpus suite SKIPPED: no corpus at {} (set CONTEXTVIEW_CORPUS to point at one)", dir.display());
    }
    let tests: [(&str, fn(&Path)); 17] = [
        ("sessions::import_replay_and_build_valid_payloads_for_every_provider", sessions::corpus_sessions_import_replay_and_build_valid_payloads_for_every_provider),
        ("sessions::request_pipeline_keeps_its_rules", sessions::corpus_request_pipeline_keeps_its_rules),
        ("sessions::token_ledger_is_close_to_the_tokenizer_and_to_reported_usage", sessions::corpus_token_ledger_is_close_to_the_tokenizer_and_to_reported_usage),
        ("sessions::usage_maps_to_the_context_each_provider_reported", sessions::corpus_usage_maps_to_the_context_each_provider_reported),
        ("sessions::imported_context_counts_what_the_request_holds", sessions::corpus_imported_context_counts_what_the_request_holds),
        ("sessions::checkpoints_open_to_the_same_requests", sessions::corpus_checkpoints_open_to_the_same_requests),
        ("sessions::builds_match_the_recorded_oracle", sessions::corpus_builds_match_the_recorded_oracle),
        ("agents::gemini_cli_sessions_import_with_nothing_missing_and_build_for_every_provider", agents::gemini_cli_sessions_import_with_nothing_missing_and_build_for_every_provider),
        ("agents::copilot_cli_sessions_import_with_nothing_missing_and_build_for_every_provider", agents::copilot_cli_sessions_import_with_nothing_missing_and_build_for_every_provider),
        ("agents::aider_histories_import_with_nothing_missing_and_build_for_every_provider", agents::aider_histories_import_with_nothing_missing_and_build_for_every_provider),
        ("follow::session_files_followed_as_they_grow_gain_each_record_once", follow::session_files_followed_as_they_grow_gain_each_record_once),
        ("subagents::claude_code_subagents_link_to_the_calls_they_answered", subagents::claude_code_subagents_link_to_the_calls_they_answered),
        ("discovery::oxc_nested_agents_files_load_root_to_cwd_and_below_cwd_on_demand", discovery::oxc_nested_agents_files_load_root_to_cwd_and_below_cwd_on_demand),
        ("discovery::ccusage_symlinked_claude_files_load_once", discovery::ccusage_symlinked_claude_files_load_once),
        ("discovery::codex_agents_file_below_cwd_attaches_on_read", discovery::codex_agents_file_below_cwd_attaches_on_read),
        ("discovery::every_corpus_rule_file_loads_as_data", discovery::every_corpus_rule_file_loads_as_data),
        ("discovery::skills_are_found_and_odd_ones_are_reported", discovery::corpus_skills_are_found_and_odd_ones_are_reported),
    ];
    let trials = tests
        .into_iter()
        .map(|(name, test)| {
            let dir = dir.clone();
            Trial::test(name, move || {
                test(&dir);
                Ok(())
            })
            .with_ignored_flag(!present)
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// The corpus lives on disk; there is nothing to run in wasm.
#[cfg(target_arch = "wasm32")]
fn main() {}
