//! Frontmatter: any text splits and parses within its budgets, problems as diagnostics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut diagnostics = Vec::new();
    let parsed = contextview::discovery::frontmatter::parse(&text, "/r/.cursor/rules/x.mdc", &mut diagnostics);
    // The body is what follows the frontmatter: always a suffix of the text.
    assert!(text.ends_with(parsed.body.as_str()));
    for d in &diagnostics {
        assert!(!d.code.is_empty());
    }
});
