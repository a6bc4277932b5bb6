//! The `tool_call_ids` target: see `checks/tool_call_ids.rs` for what it checks (the same checks replay the
//! checked-in regression inputs in `make test`).
#![no_main]

#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::tool_call_ids::check(data));
