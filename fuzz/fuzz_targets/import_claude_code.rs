//! The `import_claude_code` target: see `checks/import_claude_code.rs` for what it checks (the same checks replay the
//! checked-in regression inputs in `make test`).
#![no_main]

#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::import_claude_code::check(data));
