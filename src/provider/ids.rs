//! Tool-call id normalisation: each provider accepts a different id alphabet and length, and
//! sessions carry ids from whichever provider made them.
//!
//! An id the target accepts is kept as is. Any other id becomes `<sanitised prefix>_<hash>`, where
//! the hash is of the original id, so the same original always maps to the same provider id —
//! across builds and processes — and earlier ids never change when items are appended (the
//! request prefix stays byte-identical). The map back to the original is kept for the report.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// What a provider accepts in a tool-call id.
#[derive(Debug, Clone, Copy)]
pub struct IdRule {
    pub max_len: usize,
    /// Only `[A-Za-z0-9_-]` (Anthropic); otherwise any non-empty string.
    pub restricted_charset: bool,
}

/// Anthropic: `^[a-zA-Z0-9_-]+$`, at most 64 characters.
pub const ANTHROPIC: IdRule = IdRule { max_len: 64, restricted_charset: true };
/// OpenAI Responses and Gemini: any non-empty string; kept to 64 for safety.
pub const LENIENT: IdRule = IdRule { max_len: 64, restricted_charset: false };

impl IdRule {
    pub fn accepts(&self, id: &str) -> bool {
        !id.is_empty()
            && id.len() <= self.max_len
            && (!self.restricted_charset || id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
    }
}

/// Maps original ids to provider ids for one payload.
#[derive(Debug, Default)]
pub struct IdMapper {
    forward: HashMap<String, String>,
    used: HashSet<String>,
    changed: BTreeMap<String, String>,
}

impl IdMapper {
    /// The provider id for `original`, assigning one on first sight.
    pub fn map(&mut self, original: &str, rule: IdRule) -> String {
        if let Some(id) = self.forward.get(original) {
            return id.clone();
        }
        let mut id = if rule.accepts(original) && !self.used.contains(original) {
            original.to_owned()
        } else {
            hashed(original, rule, 0)
        };
        let mut salt = 1;
        while self.used.contains(&id) {
            id = hashed(original, rule, salt);
            salt += 1;
        }
        self.used.insert(id.clone());
        self.forward.insert(original.to_owned(), id.clone());
        if id != original {
            self.changed.insert(id.clone(), original.to_owned());
        }
        id
    }

    /// A previously mapped id, or `original` itself when it was never seen.
    pub fn get(&self, original: &str) -> String {
        self.forward.get(original).cloned().unwrap_or_else(|| original.to_owned())
    }

    /// Provider id → original, for ids that were changed.
    pub fn into_changed(self) -> BTreeMap<String, String> {
        self.changed
    }
}

fn hashed(original: &str, rule: IdRule, salt: u64) -> String {
    let hash = format!("{:016x}", fnv1a64(original.as_bytes()) ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let keep = rule.max_len.saturating_sub(hash.len() + 1).min(24);
    let prefix: String = original
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .take(keep)
        .collect();
    if prefix.is_empty() {
        format!("call_{hash}")
    } else {
        format!("{prefix}_{hash}")
    }
}

/// 64-bit FNV-1a: a fixed, platform-independent hash (ids must be identical in every runtime).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ids_pass_through_and_invalid_ones_map_stably() {
        let mut a = IdMapper::default();
        assert_eq!(a.map("toolu_01ABC", ANTHROPIC), "toolu_01ABC");
        let odd = a.map("call|with spaces|and/slashes", ANTHROPIC);
        assert!(ANTHROPIC.accepts(&odd), "{odd}");
        let mut b = IdMapper::default();
        assert_eq!(b.map("call|with spaces|and/slashes", ANTHROPIC), odd);
        assert_eq!(a.into_changed().get(&odd).map(String::as_str), Some("call|with spaces|and/slashes"));
    }

    #[test]
    fn long_ids_are_shortened_to_the_limit() {
        let rule = IdRule { max_len: 40, restricted_charset: false };
        let mut m = IdMapper::default();
        let long = "x".repeat(300);
        let id = m.map(&long, rule);
        assert!(id.len() <= 40);
        assert_eq!(m.map(&long, rule), id);
    }

    #[test]
    fn collisions_get_distinct_ids() {
        let mut m = IdMapper::default();
        let a = m.map("a b", ANTHROPIC);
        let b = m.map("a_b", ANTHROPIC);
        let c = m.map("", ANTHROPIC);
        assert_ne!(a, b);
        assert!(ANTHROPIC.accepts(&c));
    }
}
