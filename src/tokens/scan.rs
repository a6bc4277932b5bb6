//! The estimator's scanner: the features of a text ([`Features`]) in one pass over its bytes,
//! with a table of byte classes, integer counters and no allocation.
//!
//! What it counts is defined by the pieces a byte-pair tokenizer's pre-split makes (see
//! [`Features`]); this module only makes counting them fast. Runs of the base64 alphabet are
//! tested for being a blob at every place a piece may start, as the definition says, but each
//! byte of a run is counted once: the counts of the rest of a run are kept and shrunk as the scan
//! moves through it.

use super::counts::{non_ascii, Counts, Piece};
use super::Features;

const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 4;
const SPACE: u8 = 8;
/// `+`, `/` and `=`: the base64 alphabet besides letters and digits.
const B64: u8 = 16;
const PUNCT: u8 = 32;
/// `a e i o u y`, either case.
const VOWEL: u8 = 64;
const HIGH: u8 = 128;
const LETTER: u8 = LOWER | UPPER;
const ALNUM: u8 = LETTER | DIGIT;

static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut class = 0;
        if c.is_ascii_lowercase() {
            class |= LOWER;
        }
        if c.is_ascii_uppercase() {
            class |= UPPER;
        }
        if c.is_ascii_digit() {
            class |= DIGIT;
        }
        if c.is_ascii_whitespace() {
            class |= SPACE;
        }
        if matches!(c, b'+' | b'/' | b'=') {
            class |= B64;
        }
        if c.is_ascii_punctuation() {
            class |= PUNCT;
        }
        if matches!(c.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u' | b'y') {
            class |= VOWEL;
        }
        if c >= 0x80 {
            class |= HIGH;
        }
        table[b] = class;
        b += 1;
    }
    table
};

fn class(b: u8) -> u8 {
    CLASS[b as usize]
}

/// The run of base64 alphabet the scan is in: where it ends, and — when it is long enough to be a
/// blob — its uppercase letters and digits from `from` to the end.
#[derive(Default)]
struct Run {
    from: usize,
    end: usize,
    upper: usize,
    digits: usize,
}

/// A blob is at least this long.
const BLOB: usize = 64;

impl Run {
    /// The run from `at` on is a base64 blob: 64 characters or more, mixing cases and digits
    /// throughout (words and identifiers are mostly lowercase). Returns its length if so.
    fn blob_at(&mut self, bytes: &[u8], at: usize) -> Option<usize> {
        if at >= self.end {
            // Most runs are words: find the end first, and count only a run that can be a blob.
            let mut end = at;
            while end < bytes.len() && class(bytes[end]) & (ALNUM | B64) != 0 {
                end += 1;
            }
            let (mut upper, mut digits) = (0, 0);
            if end - at >= BLOB {
                for &b in &bytes[at..end] {
                    let c = class(b);
                    upper += usize::from(c & UPPER != 0);
                    digits += usize::from(c & DIGIT != 0);
                }
            }
            *self = Run { from: at, end, upper, digits };
        } else if self.end - at >= BLOB {
            for &b in &bytes[self.from..at] {
                let c = class(b);
                self.upper -= usize::from(c & UPPER != 0);
                self.digits -= usize::from(c & DIGIT != 0);
            }
            self.from = at;
        }
        let len = self.end - at;
        (len >= BLOB && self.upper * 8 >= len && self.digits * 40 >= len).then_some(len)
    }
}

/// `\n`, `\t`, `\r`, `\"`, `\\` or `\/` at `at`.
fn is_escape(bytes: &[u8], at: usize) -> bool {
    bytes[at] == b'\\' && bytes.get(at + 1).is_some_and(|c| matches!(c, b'n' | b't' | b'r' | b'"' | b'\\' | b'/'))
}

/// Whether a letter piece at `at` may count as spaced: it does not follow a line break or an
/// opening mark.
#[inline(always)]
pub(super) fn spaced_at(bytes: &[u8], at: usize) -> bool {
    at == 0 || !matches!(bytes[at - 1], b'\n' | b'*' | b'#' | b'(' | b'[' | b'`' | b'"' | b'\'' | b'{')
}

/// The letter piece at `at` — capitals, then lowercase letters — as long as it goes: `spaced`
/// is left for the caller to say. (Inlined into both callers: called, it cost 5% of the scan.)
#[inline(always)]
fn piece_at(bytes: &[u8], at: usize) -> Piece {
    let mut i = at;
    let mut seen = 0;
    while i < bytes.len() && class(bytes[i]) & UPPER != 0 {
        seen |= class(bytes[i]);
        i += 1;
    }
    let capitals = i - at;
    while i < bytes.len() && class(bytes[i]) & LOWER != 0 {
        seen |= class(bytes[i]);
        i += 1;
    }
    let len = i - at;
    Piece { len, spaced: true, vowels: seen & VOWEL != 0, all_upper: capitals == len, first_upper: capitals > 0 }
}

/// Counts the letter piece at `at` when it is a whole base64 run by itself — followed by no
/// letter, digit or `+/=`, and shorter than a blob — and returns where it ends; `None`
/// (nothing counted) for any other piece.
fn lone_piece(bytes: &[u8], at: usize, n: &mut Counts) -> Option<usize> {
    let piece = piece_at(bytes, at);
    let end = at + piece.len;
    let next = bytes.get(end).map_or(0, |&b| class(b));
    if next & (ALNUM | B64) != 0 || piece.len >= BLOB {
        return None;
    }
    n.piece(&Piece { spaced: spaced_at(bytes, at), ..piece });
    Some(end)
}

/// Counts the features of `text` in one pass: the blocks the bitmaps can count
/// (`blocks.rs`) counted so, the rest step by step.
pub fn features(text: &str) -> Features {
    let mut n = Counts::default();
    let bytes = text.as_bytes();
    let mut run = Run::default();
    let mut blocks = super::blocks::Blocks::new(text);
    let mut i = 0;
    while i < bytes.len() {
        if let Some(end) = blocks.counted(i, &mut n) {
            i = end;
            run = Run::default();
            continue;
        }
        // A block the bitmaps cannot count: step by step to its end.
        let stop = (i / super::blocks::BLOCK + 1) * super::blocks::BLOCK;
        while i < bytes.len() && i < stop {
            i = step(text, bytes, i, &mut run, &mut n);
        }
    }
    n.features()
}

/// Counts the features of `text` step by step only (what the block path must agree with).
pub fn features_by_steps(text: &str) -> Features {
    let mut n = Counts::default();
    let bytes = text.as_bytes();
    let mut run = Run::default();
    let mut i = 0;
    while i < bytes.len() {
        i = step(text, bytes, i, &mut run, &mut n);
    }
    n.features()
}

/// Counts the step that starts at `i` (a piece, a run, an escape, a character) and returns
/// where it ends.
#[inline(always)]
fn step(text: &str, bytes: &[u8], mut i: usize, run: &mut Run, n: &mut Counts) -> usize {
    let b = bytes[i];
    let c = class(b);
    // Most words are one piece ending before a space or a punctuation mark: counted in one
    // pass over their letters, without first measuring the base64 run they start (a run
    // that short cannot be a blob).
    if c & LETTER != 0 && i >= run.end {
        if let Some(end) = lone_piece(bytes, i, n) {
            return end;
        }
    }
    // The space between two words joins the next one: nothing to count.
    if b == b' ' && bytes.get(i + 1).is_some_and(|&next| class(next) & SPACE == 0) {
        return i + 1;
    }
    if c & ALNUM != 0 || b == b'+' || b == b'/' {
        // A long unbroken run of base64 alphabet is a blob, not words.
        if let Some(len) = run.blob_at(bytes, i) {
            n.base64_chars += len as u64;
            return i + len;
        }
    }
    if c & LETTER != 0 {
        // Pieces are capitals then lowercase letters (`HTTPServer` is one piece,
        // `camelCase` is `camel` `Case`): a capital after a lowercase letter starts the next.
        let mut spaced = spaced_at(bytes, i);
        loop {
            let piece = piece_at(bytes, i);
            i += piece.len;
            n.piece(&Piece { spaced, ..piece });
            if i >= bytes.len() || class(bytes[i]) & UPPER == 0 {
                break;
            }
            // The next piece of a camelCase word follows a letter, not a space.
            spaced = true;
        }
    } else if c & DIGIT != 0 {
        let start = i;
        while i < bytes.len() && class(bytes[i]) & DIGIT != 0 {
            i += 1;
        }
        n.digit_groups += (i - start).div_ceil(3) as u64;
        if start > 0 && class(bytes[start - 1]) & SPACE != 0 {
            n.spaced_digits += 1;
        }
    } else if c & SPACE != 0 {
        let start = i;
        while i < bytes.len() && class(bytes[i]) & SPACE != 0 {
            i += 1;
        }
        // A single space before a word or symbol joins it; anything else is its own piece.
        let absorbed = i - start == 1 && b == b' ' && i < bytes.len();
        if !absorbed {
            n.space_runs += 1;
        }
    } else if is_escape(bytes, i) {
        // A JSON escape (`\n`, `\"`): tool inputs that carry file contents are full of them.
        n.escapes += 1;
        i += 2;
    } else if c & HIGH == 0 {
        // A punctuation run, ending before an escape.
        let start = i;
        i += 1;
        while i < bytes.len() && class(bytes[i]) & PUNCT != 0 && !is_escape(bytes, i) {
            i += 1;
        }
        n.punct_runs += 1;
        n.punct_extra += (i - start - 1) as u64;
    } else {
        // Non-ASCII: one char (`i` is on a char boundary: every branch steps over whole chars).
        i += non_ascii(text, i, n);
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The scan as first written (a piece at a time, the base64 run measured again at each place a
    /// piece may start): what the fast scan must count exactly.
    fn reference(text: &str) -> Features {
        let mut f = Features::default();
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_alphanumeric() || b == b'+' || b == b'/' {
                // A long unbroken run of base64 alphabet is a blob, not words.
                let run = bytes[i..].iter().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')).count();
                if run >= 64 && looks_like_base64(&bytes[i..i + run]) {
                    f.base64_chars += run as f64;
                    i += run;
                    continue;
                }
            }
            if b.is_ascii_alphabetic() {
                let mut piece_start = i;
                let mut spaced = i == 0 || !matches!(bytes[i - 1], b'\n' | b'*' | b'#' | b'(' | b'[' | b'`' | b'"' | b'\'' | b'{');
                let mut prev_lower = false;
                while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                    let upper = bytes[i].is_ascii_uppercase();
                    if upper && prev_lower {
                        word_piece(&mut f, &bytes[piece_start..i], spaced);
                        piece_start = i;
                        // The next piece of a camelCase word follows a letter, not a space.
                        spaced = true;
                    }
                    prev_lower = !upper;
                    i += 1;
                }
                if i > piece_start {
                    word_piece(&mut f, &bytes[piece_start..i], spaced);
                }
            } else if b.is_ascii_digit() {
                let run = bytes[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                f.digit_groups += run.div_ceil(3) as f64;
                if i > 0 && bytes[i - 1].is_ascii_whitespace() {
                    f.spaced_digits += 1.0;
                }
                i += run;
            } else if b.is_ascii_whitespace() {
                let run = bytes[i..].iter().take_while(|c| c.is_ascii_whitespace()).count();
                let next = bytes.get(i + run).copied();
                // A single space before a word or symbol joins it; anything else is its own piece.
                let absorbed = run == 1 && b == b' ' && next.is_some_and(|n| !n.is_ascii_whitespace());
                if !absorbed {
                    f.space_runs += 1.0;
                }
                i += run;
            } else if is_escape(&bytes[i..]) {
                // A JSON escape (`\n`, `\"`): tool inputs that carry file contents are full of them.
                f.escapes += 1.0;
                i += 2;
            } else if b.is_ascii() {
                // A punctuation run, ending before an escape.
                let mut run = 1;
                while bytes.get(i + run).is_some_and(|c| c.is_ascii_punctuation()) && !is_escape(&bytes[i + run..]) {
                    run += 1;
                }
                f.punct_runs += 1.0;
                f.punct_extra += (run - 1) as f64;
                i += run;
            } else {
                // Non-ASCII: decode one char.
                let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
                let len = ch.len_utf8();
                if super::super::is_cjk(ch) {
                    f.cjk += 1.0;
                } else if len == 2 {
                    f.other_letters += 1.0;
                } else if i >= len && text.get(i - len..i) == Some(&text[i..i + len]) {
                    f.symbol_repeats += 1.0;
                } else if len == 4 {
                    f.emoji += 1.0;
                } else {
                    f.symbols += 1.0;
                }
                i += len;
            }
        }
        f
    }

    /// Counts one letter piece; `spaced` when a space comes right before it.
    fn word_piece(f: &mut Features, piece: &[u8], spaced: bool) {
        let len = piece.len();
        if !spaced {
            f.bare_letters += len.saturating_sub(4) as f64;
        }
        f.word_pieces += 1.0;
        f.long_letters += len.clamp(6, 20).saturating_sub(6) as f64;
        f.run_on_letters += len.saturating_sub(20) as f64;
        if len >= 2 && !piece.iter().any(|c| matches!(c.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u' | b'y')) {
            f.vowelless_letters += len as f64;
        }
        if len >= 2 && piece.iter().all(u8::is_ascii_uppercase) {
            f.capital_letters += (len - 1) as f64;
        } else if len >= 2 && piece[0].is_ascii_uppercase() {
            f.capitalized += 1.0;
        }
    }

    /// `\n`, `\t`, `\r`, `\"`, `\\` or `\/` at the start of `bytes`.
    fn is_escape(bytes: &[u8]) -> bool {
        bytes.first() == Some(&b'\\') && bytes.get(1).is_some_and(|c| matches!(c, b'n' | b't' | b'r' | b'"' | b'\\' | b'/'))
    }

    fn looks_like_base64(run: &[u8]) -> bool {
        // Words and identifiers are mostly lowercase; base64 mixes cases and digits throughout.
        let upper = run.iter().filter(|c| c.is_ascii_uppercase()).count();
        let digits = run.iter().filter(|c| c.is_ascii_digit()).count();
        upper * 8 >= run.len() && digits * 40 >= run.len()
    }

    #[test]
    fn the_fast_scan_counts_what_the_first_one_did() {
        let b64 = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVowMTIzNDU2Nzg5YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo+/w==";
        for text in [
            "",
            "fn parseInput(x: u32) -> Vec<String> { Vec::new() }",
            "  ls -l\n drwxr-xr-x 12 root\t\"quoted\" \\ path/to/file.rs:42",
            "**Verdict** (patterns) [ALL CAPS] `code` #heading 'q' {json}",
            "────── → • 你好世界 こんにちは 한국어 café naïve 🎉🎉",
            b64,
            &format!("x{b64}y"),
            &format!("abc/def+ghi={b64}"),
            "\u{0}\u{7f}\x0b\x0c control\r\n",
        ] {
            assert_eq!(features(text), reference(text), "{text:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed), ..ProptestConfig::default() })]

        #[test]
        fn the_fast_scan_counts_what_the_first_one_did_on_any_text(
            pieces in proptest::collection::vec(prop_oneof![
                "[a-zA-Z]{1,12}",
                "[0-9]{1,7}",
                "[ \t\n\r\x0b\x0c]{1,3}",
                "[!-/:-@\\[-`{-~]{1,4}",
                "\\\\[ntr\"/\\\\a]",
                "[A-Za-z0-9+/=]{60,90}",
                "[─→•你好こ한éñ🎉]{1,3}",
            ], 0..24)
        ) {
            let text: String = pieces.concat();
            prop_assert_eq!(features(&text), reference(&text));
        }

        /// Long ASCII texts, which the bitmaps count a block at a time (a rare escape, character
        /// or base64 run sends a block step by step): pieces across block edges, runs of every
        /// length, control bytes.
        #[test]
        fn the_block_path_counts_what_the_steps_do_on_long_text(
            pieces in proptest::collection::vec(prop_oneof![
                8 => "[a-z]{1,9}",
                3 => "[A-Z][a-z]{0,8}",
                2 => "[a-zA-Z]{1,30}",
                2 => "[0-9]{1,8}",
                6 => " ",
                2 => "[ \t\n\r\x0c]{1,4}",
                4 => "[!-/:-@\\[-`{-~]{1,5}",
                1 => "[\x00-\x08\x0b\x0e-\x1f\x7f]",
                1 => "[A-Za-z0-9+/=]{40,100}",
                1 => "[a-z/+=-]{30,80}",
                1 => "\\[ntr\"/\\a]",
                1 => "[é→你🎉]",
            ], 0..160)
        ) {
            let text: String = pieces.concat();
            prop_assert_eq!(features(&text), reference(&text));
            prop_assert_eq!(features(&text), features_by_steps(&text));
        }
    }
}
