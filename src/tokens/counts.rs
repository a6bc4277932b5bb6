//! What a scan of a text's steps counts into ([`Counts`], made [`Features`] at the end) and the
//! rule for a character beyond ASCII: shared by the step-by-step scan (`scan.rs`) and the block
//! path (`blocks.rs`), which count into the same counters by the same rules.

use super::Features;

/// The features as whole counts, made `f64` once at the end.
#[derive(Default)]
pub(super) struct Counts {
    pub(super) word_pieces: u64,
    pub(super) long_letters: u64,
    pub(super) run_on_letters: u64,
    pub(super) digit_groups: u64,
    pub(super) space_runs: u64,
    pub(super) punct_runs: u64,
    pub(super) punct_extra: u64,
    pub(super) cjk: u64,
    pub(super) other_letters: u64,
    pub(super) symbols: u64,
    pub(super) base64_chars: u64,
    pub(super) escapes: u64,
    pub(super) spaced_digits: u64,
    pub(super) symbol_repeats: u64,
    pub(super) vowelless_letters: u64,
    pub(super) capital_letters: u64,
    pub(super) capitalized: u64,
    pub(super) emoji: u64,
    pub(super) bare_letters: u64,
}

/// One letter piece, as the scan saw it.
pub(super) struct Piece {
    pub len: usize,
    pub spaced: bool,
    pub vowels: bool,
    pub all_upper: bool,
    pub first_upper: bool,
}

impl Counts {
    /// Counts one piece without branching on it (which of these hold varies word by word, so
    /// branches would be mispredicted).
    #[inline(always)]
    pub(super) fn piece(&mut self, p: &Piece) {
        let len = p.len as u64;
        let long = len >= 2;
        self.bare_letters += u64::from(!p.spaced) * len.saturating_sub(4);
        self.word_pieces += 1;
        self.long_letters += len.clamp(6, 20) - 6;
        self.run_on_letters += len.saturating_sub(20);
        self.vowelless_letters += u64::from(long && !p.vowels) * len;
        self.capital_letters += u64::from(long && p.all_upper) * len.saturating_sub(1);
        self.capitalized += u64::from(long && !p.all_upper && p.first_upper);
    }

    pub(super) fn features(&self) -> Features {
        let f = |n: u64| n as f64;
        Features {
            word_pieces: f(self.word_pieces),
            long_letters: f(self.long_letters),
            run_on_letters: f(self.run_on_letters),
            digit_groups: f(self.digit_groups),
            space_runs: f(self.space_runs),
            punct_runs: f(self.punct_runs),
            punct_extra: f(self.punct_extra),
            cjk: f(self.cjk),
            other_letters: f(self.other_letters),
            symbols: f(self.symbols),
            base64_chars: f(self.base64_chars),
            escapes: f(self.escapes),
            spaced_digits: f(self.spaced_digits),
            symbol_repeats: f(self.symbol_repeats),
            vowelless_letters: f(self.vowelless_letters),
            capital_letters: f(self.capital_letters),
            capitalized: f(self.capitalized),
            emoji: f(self.emoji),
            bare_letters: f(self.bare_letters),
        }
    }
}

/// Counts the non-ASCII char at `i` and returns its length.
#[inline(always)]
pub(super) fn non_ascii(text: &str, i: usize, n: &mut Counts) -> usize {
    let bytes = text.as_bytes();
    let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
    let len = ch.len_utf8();
    if super::is_cjk(ch) {
        n.cjk += 1;
    } else if len == 2 {
        n.other_letters += 1;
    } else if i >= len && bytes[i - len..i] == bytes[i..i + len] {
        n.symbol_repeats += 1;
    } else if len == 4 {
        n.emoji += 1;
    } else {
        n.symbols += 1;
    }
    len
}
