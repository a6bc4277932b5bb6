//! The estimator counts a text the same way whichever path counts it: the bitmaps a block at a
//! time (SSE2 natively, `simd128` in the WebAssembly module) or the scan step by step. Run in
//! every target, so the module's SIMD path is held to the steps too.

use contextview::tokens::Features;
use proptest::prelude::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn mixed_text_counts_the_same_at_every_length() {
    let text = "fn parseInput(x: u32) -> Vec<String> { let HTTPServer = 42; } // say \\\"hi\\\" \\\\n \\\\\\t \
                path\\/to \\x -\\n- café → 你好世界 🎉🎉 ok\\ The quick brown fox (twice) [really]!\n\t* `code` #h 'q' {j: 3.14159}\r\n"
        .repeat(6);
    for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
        assert_eq!(Features::of(&text[..cut]), Features::by_steps(&text[..cut]), "the first {cut} bytes");
    }
}

#[test]
fn long_runs_and_blobs_count_the_same() {
    let blob = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVowMTIzNDU2Nzg5YWJjZGVmZ2hpamtsbW5v+/w==";
    for odd in [blob.to_owned(), "-".repeat(150), "\\".repeat(131), " ".repeat(200), "x".repeat(90), "7".repeat(70), "é".repeat(50)] {
        let text = format!("{}{odd}{}", "a word ".repeat(20), " and more".repeat(15));
        assert_eq!(Features::of(&text), Features::by_steps(&text), "{odd:?}");
    }
}

proptest! {
    #![proptest_config(crate::common::config(crate::common::cases(256)))]

    #[test]
    fn any_text_counts_the_same(
        pieces in proptest::collection::vec(prop_oneof![
            8 => "[a-z]{1,9}",
            3 => "[A-Z][a-z]{0,8}",
            2 => "[a-zA-Z]{1,30}",
            2 => "[0-9]{1,8}",
            6 => " ",
            2 => "[ \\t\\n\\r\\x0b\\x0c]{1,4}",
            4 => "[!-/:-@\\[-`{-~]{1,5}",
            1 => "[\\x00-\\x08\\x0e-\\x1f\\x7f]",
            1 => "[A-Za-z0-9+/=]{40,100}",
            2 => "\\\\{1,4}[ntr\"/\\\\ax]",
            2 => "[é→你🎉•]{1,3}",
        ], 0..160)
    ) {
        let text: String = pieces.concat();
        prop_assert_eq!(Features::of(&text), Features::by_steps(&text));
    }
}
