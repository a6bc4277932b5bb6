//! The `answer` target: see `checks/answer.rs` for what it checks (the same checks replay the
//! checked-in regression inputs in `make test`).
#![no_main]

#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::answer::check(data));
