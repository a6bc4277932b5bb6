//! The estimator's fast path: a text's byte classes as bitmaps, 64 bytes at a time (built with
//! SIMD compares where the target has them: SSE2 on x86-64, `simd128` in the WebAssembly
//! module), and the features of every step that starts in a block counted from them — word
//! pieces, digit runs, whitespace runs, punctuation runs — with popcounts and trailing-zero
//! counts instead of a branch at each word's end.
//!
//! Escapes are found the way the scan pairs them (from the left, in each run of backslashes),
//! characters beyond ASCII are counted one at a time by the scan's own rule. It takes only a
//! block whose steps it counts exactly as the step-by-step scan (`scan.rs`) does: one touching no
//! run of the base64 alphabet of 64 bytes or more (a blob is tested where each piece starts), and
//! no step or run of backslashes longer than the two blocks it sees. The scan steps through any
//! other block. Property tests hold the two to the same counts.

use super::counts::{non_ascii, Counts};

/// Bytes per block.
pub(super) const BLOCK: usize = 64;

/// One block's byte classes, a bit per byte (bit `j` is the block's `j`th byte).
#[derive(Clone, Copy, Default)]
struct Masks {
    lower: u64,
    upper: u64,
    digit: u64,
    /// ASCII whitespace (`is_ascii_whitespace`).
    space: u64,
    /// `' '` alone.
    blank: u64,
    /// ASCII punctuation (`is_ascii_punctuation`): printable, not a letter or a digit.
    punct: u64,
    /// `a e i o u y`, either case.
    vowel: u64,
    /// `+ / =`.
    b64: u64,
    backslash: u64,
    high: u64,
    /// What a piece after it is not spaced by: `\n * # ( [ ` " ' {`.
    open: u64,
    /// Bytes in the text (the last block is shorter).
    valid: u64,
}

/// The classes of 16 bytes, a `u16` each, in `Masks`' field order (without `valid`; `punct`
/// as every printable mark and letter, narrowed later).
type Lanes = [u16; 11];

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lanes(chunk: &[u8; 16]) -> Lanes {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86-64; the load is unaligned and reads exactly 16 bytes.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
        let splat = |b: u8| _mm_set1_epi8(b as i8);
        // `lo <= v < lo + n`, unsigned: shifted so the range starts at -128, compared signed.
        let range = |lo: u8, n: u8| _mm_cmplt_epi8(_mm_add_epi8(v, splat(128u8.wrapping_sub(lo))), splat(128u8.wrapping_add(n)));
        let eq = |b: u8| _mm_cmpeq_epi8(v, splat(b));
        let or = |a, b| _mm_or_si128(a, b);
        let bits = |m| _mm_movemask_epi8(m) as u16;
        let folded = _mm_or_si128(v, splat(0x20));
        let is = |b: u8| _mm_cmpeq_epi8(folded, splat(b));
        [
            bits(range(b'a', 26)),
            bits(range(b'A', 26)),
            bits(range(b'0', 10)),
            bits(or(or(range(9, 2), range(12, 2)), eq(b' '))),
            bits(eq(b' ')),
            bits(range(33, 94)),
            bits(or(or(or(is(b'a'), is(b'e')), or(is(b'i'), is(b'o'))), or(is(b'u'), is(b'y')))),
            bits(or(or(eq(b'+'), eq(b'/')), eq(b'='))),
            bits(eq(b'\\')),
            bits(v),
            bits(or(or(or(eq(b'\n'), eq(b'*')), or(eq(b'#'), eq(b'('))), or(or(eq(b'['), eq(b'`')), or(or(eq(b'"'), eq(b'\'')), eq(b'{'))))),
        ]
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn lanes(chunk: &[u8; 16]) -> Lanes {
    use core::arch::wasm32::*;
    // SAFETY: the load is unaligned and reads exactly the 16 bytes of `chunk`.
    let v = unsafe { v128_load(chunk.as_ptr() as *const v128) };
    let range = |lo: u8, n: u8| u8x16_lt(u8x16_sub(v, u8x16_splat(lo)), u8x16_splat(n));
    let eq = |b: u8| u8x16_eq(v, u8x16_splat(b));
    let or = v128_or;
    let bits = u8x16_bitmask;
    let folded = v128_or(v, u8x16_splat(0x20));
    let is = |b: u8| u8x16_eq(folded, u8x16_splat(b));
    [
        bits(range(b'a', 26)),
        bits(range(b'A', 26)),
        bits(range(b'0', 10)),
        bits(or(or(range(9, 2), range(12, 2)), eq(b' '))),
        bits(eq(b' ')),
        bits(range(33, 94)),
        bits(or(or(or(is(b'a'), is(b'e')), or(is(b'i'), is(b'o'))), or(is(b'u'), is(b'y')))),
        bits(or(or(eq(b'+'), eq(b'/')), eq(b'='))),
        bits(eq(b'\\')),
        bits(v),
        bits(or(or(or(eq(b'\n'), eq(b'*')), or(eq(b'#'), eq(b'('))), or(or(eq(b'['), eq(b'`')), or(or(eq(b'"'), eq(b'\'')), eq(b'{'))))),
    ]
}

/// Elsewhere, a byte at a time (the same classes; no faster than the step-by-step scan).
#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
fn lanes(chunk: &[u8; 16]) -> Lanes {
    let mut out = [0u16; 11];
    for (j, &b) in chunk.iter().enumerate() {
        let classes = [
            b.is_ascii_lowercase(),
            b.is_ascii_uppercase(),
            b.is_ascii_digit(),
            b.is_ascii_whitespace(),
            b == b' ',
            b.is_ascii_graphic(),
            matches!(b | 0x20, b'a' | b'e' | b'i' | b'o' | b'u' | b'y'),
            matches!(b, b'+' | b'/' | b'='),
            b == b'\\',
            b >= 0x80,
            matches!(b, b'\n' | b'*' | b'#' | b'(' | b'[' | b'`' | b'"' | b'\'' | b'{'),
        ];
        for (lane, is) in out.iter_mut().zip(classes) {
            *lane |= u16::from(is) << j;
        }
    }
    out
}

/// The classes of a block's bytes (64 of them, or the text's last few).
#[inline(always)]
fn classify(bytes: &[u8]) -> Masks {
    if let Ok(block) = <&[u8; BLOCK]>::try_from(bytes) {
        return classify_whole(block, u64::MAX);
    }
    let mut block = [0u8; BLOCK];
    block[..bytes.len()].copy_from_slice(bytes);
    classify_whole(&block, (1u64 << bytes.len()) - 1)
}

#[inline(always)]
fn classify_whole(block: &[u8; BLOCK], valid: u64) -> Masks {
    let mut m = [0u64; 11];
    for q in 0..BLOCK / 16 {
        let lanes = lanes(block[16 * q..16 * q + 16].try_into().expect("16 bytes"));
        for (mask, lane) in m.iter_mut().zip(lanes) {
            *mask |= (lane as u64) << (16 * q);
        }
    }
    let [lower, upper, digit, space, blank, graphic, vowel, b64, backslash, high, open] = m.map(|x| x & valid);
    let punct = graphic & !(lower | upper | digit);
    Masks { lower, upper, digit, space, blank, punct, vowel, b64, backslash, high, open, valid }
}

/// The text's blocks, classified on demand (the last two kept: a step that ends in the next
/// block is counted with the one it starts in, and the next call starts there).
pub(super) struct Blocks<'a> {
    text: &'a str,
    bytes: &'a [u8],
    kept: [(usize, Masks); 2],
}

/// Two blocks' masks as one 128-bit window.
#[inline(always)]
fn window(lo: u64, hi: u64) -> u128 {
    lo as u128 | (hi as u128) << 64
}

/// The lowest `n` bits set (`n` at most 128). Made of two `u64`s: a 128-bit shift by a variable
/// amount is a call in WebAssembly (`__ashlti3`), and this runs several times a block.
#[inline(always)]
fn ones(n: u32) -> u128 {
    let low = |n: u32| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    window(low(n), low(n.saturating_sub(64)))
}

impl<'a> Blocks<'a> {
    pub(super) fn new(text: &'a str) -> Blocks<'a> {
        Blocks { text, bytes: text.as_bytes(), kept: [(usize::MAX, Masks::default()); 2] }
    }

    fn masks(&mut self, block: usize) -> Masks {
        let slot = &mut self.kept[block & 1];
        if slot.0 != block {
            let from = block * BLOCK;
            let to = (from + BLOCK).min(self.bytes.len());
            *slot = (block, if from < to { classify(&self.bytes[from..to]) } else { Masks::default() });
        }
        slot.1
    }

    /// Counts every step that starts in `i`'s block from `i` on (`i` where a step starts) and
    /// returns where the last one ends; `None`, with nothing counted, for a block the bitmaps
    /// cannot count exactly.
    pub(super) fn counted(&mut self, i: usize, n: &mut Counts) -> Option<usize> {
        let bytes = self.bytes;
        let block = i / BLOCK;
        let base = block * BLOCK;
        let (a, b) = (self.masks(block), self.masks(block + 1));
        let from = (i - base) as u32;
        let at_from = ones(from + 1) & !ones(from);
        let valid = window(a.valid, b.valid);
        let high = window(a.high, b.high);
        // Escapes: a backslash at an even place in its run of backslashes (counted from `i`,
        // where a step starts: what came before is counted) followed by `n t r " \ /`.
        let backslash = window(a.backslash, b.backslash) & !ones(from);
        // A run of backslashes reaching past the window: from where it starts, what is an
        // escape is not known here.
        let unknown_from = if backslash >> 127 != 0 { 128 - (!backslash).leading_zeros() } else { 128 };
        const EVEN: u128 = 0x5555_5555_5555_5555_5555_5555_5555_5555;
        let runs_start = backslash & !(backslash << 1);
        let from_even = backslash & !backslash.wrapping_add(runs_start & EVEN);
        let from_odd = backslash & !backslash.wrapping_add(runs_start & !EVEN);
        // (Backslashes are rare: the byte after each candidate is read.)
        let mut escapes = (from_even & EVEN) | (from_odd & !EVEN);
        let mut candidates = escapes;
        while candidates != 0 {
            let at = candidates.trailing_zeros();
            candidates &= candidates - 1;
            let next = bytes.get(base + at as usize + 1).copied().unwrap_or(0);
            if !matches!(next, b'n' | b't' | b'r' | b'"' | b'\\' | b'/') {
                escapes &= !(ones(at + 1) & !ones(at));
            }
        }
        let escaped = escapes << 1;
        let gone = escapes | escaped;
        let letter = window(a.lower | a.upper, b.lower | b.upper) & !gone;
        let (upper, lower, digit) = (window(a.upper, b.upper), window(a.lower, b.lower) & !gone, window(a.digit, b.digit));
        let (space, blank, punct) = (window(a.space, b.space), window(a.blank, b.blank), window(a.punct, b.punct));
        // Other ASCII: punctuation and control bytes, where a punctuation run may start.
        let other = valid & !high & !letter & !digit & !space & !gone;
        // Each class shifted by one: bit j says what byte j - 1 is (the byte before the block
        // read from the text).
        let before = if base > 0 { bytes[base - 1] } else { 0 };
        let shifted = |m: u128, prev: bool| (m << 1) | u128::from(prev);
        let letter_before = shifted(letter, base > 0 && before.is_ascii_alphabetic());
        let lower_before = shifted(lower, base > 0 && before.is_ascii_lowercase());
        let digit_before = shifted(digit, base > 0 && before.is_ascii_digit());
        let space_before = shifted(space, base > 0 && before.is_ascii_whitespace());
        let other_before = shifted(other, base > 0 && before.is_ascii() && !before.is_ascii_alphanumeric() && !before.is_ascii_whitespace());
        // Where steps start. A step starts at `i` whatever came before it (an escape may end
        // right before, and an escape's last byte is a letter or a mark).
        let piece_starts = (letter & !(letter_before & !at_from)) | (upper & lower_before);
        let digit_starts = digit & !(digit_before & !at_from);
        let space_starts = space & !(space_before & !at_from);
        let other_starts = other & !(punct & other_before & !at_from);
        // Where characters beyond ASCII start (not on their second to fourth bytes).
        let mut chars = high;
        let mut each = high;
        while each != 0 {
            let at = each.trailing_zeros();
            each &= each - 1;
            if bytes[base + at as usize] < 0xC0 {
                chars &= !(ones(at + 1) & !ones(at));
            }
        }
        let starts = piece_starts | digit_starts | space_starts | other_starts | chars | escapes;
        // The last step starting in this block ends where the first step of the next starts
        // (or where the text ends, inside the window); a step longer than that is not ours.
        let beyond = starts & !ones(64);
        let end = if beyond != 0 {
            beyond.trailing_zeros()
        } else if bytes.len() <= base + 2 * BLOCK {
            (bytes.len() - base) as u32
        } else {
            return None;
        };
        if end >= unknown_from {
            return None;
        }
        let range = ones(end) & !ones(from);
        // No run of the base64 alphabet of 64 bytes or more near it: bit j of `long` says bytes
        // j..j+64 are all in the alphabet; a run coming in from before the block counts too.
        let alphabet = letter | digit | window(a.b64, b.b64);
        let mut long = alphabet & (alphabet >> 1);
        long &= long >> 2;
        long &= long >> 4;
        long &= long >> 8;
        long &= long >> 16;
        long &= long >> 32;
        if long & ones(end) != 0 {
            return None;
        }
        let lead = (!alphabet).trailing_zeros() as usize;
        if lead > 0 && base > 0 && lead + run_before(bytes, base) >= BLOCK {
            return None;
        }

        // Word pieces, counted a block at a time. Bit j of `at_least[k]`: byte j is a piece's
        // k-th byte or later (0-based), the k bytes up to it all continuing the piece.
        let pieces = piece_starts & range;
        let cont = letter & !piece_starts & range;
        n.word_pieces += pieces.count_ones() as u64;
        let p2 = cont & (cont << 1);
        let p4 = p2 & (p2 << 2);
        let p6 = p4 & (p2 << 4);
        let p8 = p4 & (p4 << 4);
        let p20 = p8 & (p8 << 8) & (p4 << 16);
        n.long_letters += (p6.count_ones() - p20.count_ones()) as u64;
        n.run_on_letters += p20.count_ones() as u64;
        // A piece after `\n`, `(`, a quote…: its bytes from its start, filled by a carry that
        // runs from the start through the bytes continuing it.
        let open_before = shifted(window(a.open, b.open), base > 0 && matches!(before, b'\n' | b'*' | b'#' | b'(' | b'[' | b'`' | b'"' | b'\'' | b'{'));
        let unspaced = pieces & open_before;
        let filled = cont | unspaced;
        n.bare_letters += (p4 & filled & !filled.wrapping_add(unspaced)).count_ones() as u64;
        // Pieces of two bytes or more whose bytes are all of a class (no vowel; all capitals): a
        // carry from each one's second byte runs through the bytes of that class and comes out
        // past the piece's end only if every byte was.
        let through = |class: u128| {
            let run = cont & class;
            let ends = run.wrapping_add(((pieces & class) << 1) & cont) & !run & !cont;
            let mut letters = 0u64;
            let mut e = ends;
            while e != 0 {
                let end = e.trailing_zeros();
                e &= e - 1;
                letters += (end - (127 - (pieces & ones(end)).leading_zeros())) as u64;
            }
            (ends.count_ones() as u64, letters)
        };
        let vowel = window(a.vowel, b.vowel);
        n.vowelless_letters += through(!vowel).1;
        let (capitals, capital_letters) = through(upper);
        n.capital_letters += capital_letters - capitals;
        n.capitalized += (pieces & upper & (cont >> 1)).count_ones() as u64 - capitals;
        // Digit groups of three, and digits after whitespace.
        let mut runs = digit_starts & range;
        n.spaced_digits += (runs & space_before).count_ones() as u64;
        while runs != 0 {
            let s = runs.trailing_zeros();
            runs &= runs - 1;
            n.digit_groups += ((!digit & !ones(s)).trailing_zeros() - s).div_ceil(3) as u64;
        }
        // Whitespace runs, but for a single space with something after it (it joins that).
        let joins = space_starts & blank & !(space >> 1) & (valid >> 1);
        n.space_runs += (space_starts & !joins & range).count_ones() as u64;
        // Escapes, and characters beyond ASCII one at a time.
        n.escapes += (escapes & range).count_ones() as u64;
        let mut each = chars & range;
        while each != 0 {
            let at = each.trailing_zeros() as usize;
            each &= each - 1;
            non_ascii(self.text, base + at, n);
        }
        // Punctuation runs and their extra marks.
        let marks = (other_starts & range).count_ones() as u64;
        n.punct_runs += marks;
        n.punct_extra += (other & range).count_ones() as u64 - marks;
        Some(base + end as usize)
    }
}

/// How many bytes of the base64 alphabet run up to `at` (at most a block's worth is looked at).
fn run_before(bytes: &[u8], at: usize) -> usize {
    bytes[at.saturating_sub(BLOCK)..at].iter().rev().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::scan::features_by_steps;

    /// Counts `text` with the bitmaps alone, or says at which byte a block was left to the steps.
    fn by_blocks(text: &str) -> Result<crate::tokens::Features, usize> {
        let mut blocks = Blocks::new(text);
        let mut n = Counts::default();
        let mut i = 0;
        while i < text.len() {
            i = blocks.counted(i, &mut n).ok_or(i)?;
        }
        Ok(n.features())
    }

    #[test]
    fn prose_and_code_are_counted_a_block_at_a_time() {
        let text = "fn parseInput(x: u32) -> Vec<String> { let HTTPServer = 42; }\n\n\
                    The quick brown fox jumps over 1234567 lazy dogs -- (twice) [really]!\n\
                    \t* item: `code`, #heading, 'quoted' {json: 3.14159}\r\n"
            .repeat(30);
        assert_eq!(by_blocks(&text), Ok(features_by_steps(&text)));
        // Every length of the same, so that pieces and runs cross the blocks' edges everywhere.
        for cut in (1..text.len()).step_by(7) {
            assert_eq!(by_blocks(&text[..cut]), Ok(features_by_steps(&text[..cut])), "{cut}");
        }
    }

    #[test]
    fn what_the_bitmaps_cannot_count_is_left_to_the_steps() {
        let plain = "word ".repeat(40);
        for odd in ["QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVowMTIzNDU2Nzg5YWJjZGVmZ2hpamtsbW5v+/w==", &"-".repeat(150), &"\\".repeat(130)] {
            let text = format!("{plain}{odd}{plain}");
            let at = by_blocks(&text).unwrap_err();
            let where_ = plain.len();
            assert!(at <= where_ && where_ < at + 2 * BLOCK, "{odd:?} left at {at}");
            assert_eq!(crate::tokens::scan::features(&text), features_by_steps(&text), "{odd:?}");
        }
        // Escapes and characters beyond ASCII are the bitmaps' own.
        let mixed = "say \\\"hi\\\" \\\\n \\\\\\t path\\/to \\x -\\n- café → 你好世界 🎉🎉 ok\\".repeat(9);
        assert_eq!(by_blocks(&mixed), Ok(features_by_steps(&mixed)));
        for cut in (1..mixed.len()).filter(|&c| mixed.is_char_boundary(c)).step_by(5) {
            assert_eq!(by_blocks(&mixed[..cut]), Ok(features_by_steps(&mixed[..cut])), "{cut}");
        }
    }
}
