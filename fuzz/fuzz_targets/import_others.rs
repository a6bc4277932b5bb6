//! The `import_others` target: see `checks/import_others.rs` for what it checks (the same checks
//! replay its seeds and the checked-in regression inputs in `make test`).
#![no_main]

#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::import_others::check(data));
