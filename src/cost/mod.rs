//! What a request costs and what a provider's prompt cache should serve of it.
//!
//! A [`CostModel`] per model family — prices and the API's caching rules, as dated data
//! ([`prices`]) a host can override — and a [`Cache`] that follows one session's requests the way
//! the provider's cache does: entries written where the API writes them (Anthropic at its
//! breakpoints, OpenAI and Gemini at the whole prompt), each living for the API's time to live
//! from its last use, a request reading the longest entry that is still a prefix of it and long
//! enough to be cached. From that, each request's tokens split into uncached input, cache reads
//! and cache writes, priced at the model's rates ([`RequestCost`]). [`crate::simulate`] replays a log's
//! requests under build policies and prices each.
//!
//! A prediction, not a bill: the tokens are the estimator's, the shared prefix is the bytes the
//! request repeats of the one before (tokens in proportion), Anthropic's 20-block lookback is not
//! modelled (a step adding more than 20 blocks reads less than predicted), and providers evict
//! early under load.

use contextview_derive::ReadValue;
pub mod prices;

use serde::{Deserialize, Serialize};

use crate::provider::Provider;

/// US dollars per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    /// Writing a cache entry (Anthropic's 5-minute entries; 0 where writes are free).
    pub cache_write: f64,
    /// Writing a long-lived entry (Anthropic's 1-hour entries).
    #[serde(default)]
    pub cache_write_long: f64,
    /// Higher rates for the whole request above a prompt size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_context: Option<Box<LongContext>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LongContext {
    pub above_tokens: u64,
    pub prices: Prices,
}

/// How an API caches a prompt.
#[derive(Debug, Clone, PartialEq, serde::Serialize, contextview_derive::ReadValue)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Caching {
    /// Entries at the request's cache breakpoints (Anthropic), refreshed by every hit; below
    /// `minTokens` nothing is cached.
    #[serde(rename_all = "camelCase")]
    Breakpoints { min_tokens: u64, ttl_seconds: u64, long_ttl_seconds: u64 },
    /// The longest cached prefix, from `minTokens` in `step`s (OpenAI, xAI).
    #[serde(rename_all = "camelCase")]
    Prefix { min_tokens: u64, step: u64, ttl_seconds: u64 },
    /// A cached prefix from `minTokens` (Gemini's implicit caching).
    #[serde(rename_all = "camelCase")]
    Implicit { min_tokens: u64, ttl_seconds: u64 },
}

/// A model family's prices and caching, with when and where they were read.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CostModel {
    /// `anthropic`, `openai` (both OpenAI APIs and the servers that speak them) or `gemini`.
    pub provider: String,
    /// Model ids starting with this (the longest match wins).
    pub model_prefix: String,
    pub prices: Prices,
    pub caching: Caching,
    #[serde(default)]
    pub as_of: String,
    #[serde(default)]
    pub source: String,
}

/// The table key an API's models are priced under.
pub fn family(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "anthropic",
        Provider::OpenAiChat | Provider::OpenAiResponses => "openai",
        Provider::Gemini => "gemini",
    }
}

/// The model's row: the host's rows first, then the built-in table; the longest matching
/// prefix wins. `None` for a model no row's prefix matches.
pub fn model_for(provider: Provider, model: &str, overrides: &[CostModel]) -> Option<CostModel> {
    let model = model.rsplit('/').next().unwrap_or(model);
    let best = |rows: &[CostModel]| rows.iter().filter(|r| r.provider == family(provider) && model.starts_with(r.model_prefix.as_str())).max_by_key(|r| r.model_prefix.len()).cloned();
    best(overrides).or_else(|| best(&prices::table()))
}

/// What a request looks like to a cache: its size, where its breakpoints fall, what it repeats
/// of the request before it (all in tokens), and when it was sent (seconds since the epoch).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestShape {
    pub tokens: u64,
    /// Token offsets of the cache breakpoints before the end (Anthropic: after the tools, the
    /// system prompt, the first-user prefix); the end of the request is always one.
    pub breakpoints: Vec<u64>,
    /// Tokens this request repeats, byte for byte, of the one before (0 for the first).
    pub shared: u64,
    pub at: Option<i64>,
    /// Anthropic's stable breakpoints live an hour (`cache.stableTtl: "1h"`).
    pub long_stable: bool,
}

/// A request's input tokens by what the cache did with them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct CacheUse {
    /// Tokens the cache serves.
    pub read: u64,
    /// Tokens written to the cache (charged where the API charges writes).
    pub written: u64,
    /// Of those, written to long-lived entries.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub written_long: u64,
    /// Tokens processed and billed as fresh input.
    pub uncached: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    len: u64,
    expires: Option<i64>,
    long: bool,
}

/// One session's cache at one provider, request after request.
#[derive(Debug, Clone)]
pub struct Cache {
    caching: Caching,
    entries: Vec<Entry>,
}

impl Cache {
    pub fn new(caching: Caching) -> Cache {
        Cache { caching, entries: Vec::new() }
    }

    /// What the cache serves of `request` and what the request writes to it.
    pub fn serve(&mut self, request: &RequestShape) -> CacheUse {
        let (min, ttl, long_ttl) = match self.caching {
            Caching::Breakpoints { min_tokens, ttl_seconds, long_ttl_seconds } => (min_tokens, ttl_seconds, long_ttl_seconds),
            Caching::Prefix { min_tokens, ttl_seconds, .. } | Caching::Implicit { min_tokens, ttl_seconds } => (min_tokens, ttl_seconds, ttl_seconds),
        };
        // What is no longer a prefix of this request, or has lived past its time, is gone.
        self.entries.retain(|e| e.len <= request.shared && e.len <= request.tokens && e.expires.is_none_or(|end| request.at.is_none_or(|now| now <= end)));
        let best = self.entries.iter().filter(|e| e.len >= min).map(|e| e.len).max().unwrap_or(0);
        let read = match self.caching {
            Caching::Prefix { step, .. } if best > 0 => min + (best - min) / step.max(1) * step.max(1),
            Caching::Breakpoints { .. } | Caching::Prefix { .. } | Caching::Implicit { .. } => best,
        };
        let expires = |long: bool| request.at.map(|now| now + if long { long_ttl } else { ttl } as i64);
        // A hit refreshes what it read.
        for e in self.entries.iter_mut().filter(|e| e.len <= read && e.len >= min) {
            e.expires = expires(e.long);
        }
        let mut cache_use = CacheUse { read, ..CacheUse::default() };
        if request.tokens >= min {
            match self.caching {
                Caching::Breakpoints { .. } => {
                    // Everything past what was read up to the last breakpoint (the request's end)
                    // is written; the stable breakpoints' part of it is long-lived when asked.
                    let mut points: Vec<(u64, bool)> = request.breakpoints.iter().map(|&b| (b, request.long_stable)).collect();
                    points.push((request.tokens, false));
                    let mut from = read;
                    for (at, long) in points {
                        if at > from {
                            cache_use.written += at - from;
                            if long {
                                cache_use.written_long += at - from;
                            }
                            from = at;
                        }
                        if at >= min && !self.entries.iter().any(|e| e.len == at) {
                            self.entries.push(Entry { len: at, expires: expires(long), long });
                        }
                    }
                }
                Caching::Prefix { .. } | Caching::Implicit { .. } => {
                    cache_use.written = request.tokens - read;
                    if !self.entries.iter().any(|e| e.len == request.tokens) {
                        self.entries.push(Entry { len: request.tokens, expires: expires(false), long: false });
                    }
                }
            }
        }
        cache_use.uncached = request.tokens - cache_use.read - cache_use.written;
        cache_use
    }
}

/// A request's tokens and price.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestCost {
    #[serde(flatten)]
    pub cache: CacheUse,
    pub output: u64,
    /// US dollars.
    pub dollars: f64,
}

impl RequestCost {
    /// Prices `cache` (the input) and `output` tokens at `prices`.
    pub fn of(cache: CacheUse, output: u64, prices: &Prices) -> RequestCost {
        let input = cache.read + cache.written + cache.uncached;
        let p = match &prices.long_context {
            Some(long) if input > long.above_tokens => &long.prices,
            Some(_) | None => prices,
        };
        let short = cache.written - cache.written_long;
        let micro = cache.uncached as f64 * p.input
            + cache.read as f64 * p.cache_read
            + short as f64 * (if p.cache_write > 0.0 { p.cache_write } else { p.input })
            + cache.written_long as f64 * (if p.cache_write_long > 0.0 { p.cache_write_long } else { p.input })
            + output as f64 * p.output;
        RequestCost { cache, output, dollars: micro / 1e6 }
    }
}

/// A session's requests as one provider's cache sees them, one after another: each report
/// forecast from the ones before (the cache starts over when the provider or model changes).
#[derive(Debug, Clone, Default)]
pub struct Forecaster {
    state: Option<(String, Cache)>,
    previous_tokens: u64,
    shared: u64,
}

impl Forecaster {
    /// Tokens the last request forecast repeats of the one before it.
    pub fn last_shared(&self) -> u64 {
        self.shared
    }

    /// The forecast for the request `report` describes, sent at `at` (seconds since the epoch),
    /// and the cache use behind it; `None` for a model no price row covers.
    pub fn forecast(&mut self, report: &crate::view::Report, cache: &crate::provider::CacheConfig, rows: &[CostModel], at: Option<i64>) -> Option<(crate::view::Forecast, CacheUse)> {
        let row = model_for(report.provider, &report.model, rows)?;
        let key = format!("{}/{}", report.provider, report.model);
        if self.state.as_ref().is_none_or(|(k, _)| *k != key) {
            self.state = Some((key, Cache::new(row.caching.clone())));
            self.previous_tokens = 0;
        }
        let (_, state) = self.state.as_mut()?;
        let tokens = report.tokens.request;
        // What it repeats of the request before: all of that one when it extends it; else the
        // shared bytes' share of its tokens (at most the previous request's).
        let shared = match &report.prefix {
            Some(p) if p.extends_previous => self.previous_tokens,
            Some(p) => ((tokens as u128 * p.shared_bytes as u128 / report.bytes.max(1) as u128) as u64).min(self.previous_tokens),
            None => 0,
        };
        self.previous_tokens = tokens;
        self.shared = shared;
        let by = &report.tokens.by_source;
        let cache_use = match row.caching {
            // Anthropic caches only at breakpoints: none when caching is off.
            Caching::Breakpoints { .. } if !cache.enabled => CacheUse { uncached: tokens, ..CacheUse::default() },
            Caching::Breakpoints { .. } => {
                let breakpoints = [by.tools, by.tools + by.system, by.tools + by.system + by.prefix].into_iter().filter(|&b| b > 0 && b < tokens).collect();
                state.serve(&RequestShape { tokens, breakpoints, shared, at, long_stable: cache.stable_ttl.as_deref() == Some("1h") })
            }
            Caching::Prefix { .. } | Caching::Implicit { .. } => state.serve(&RequestShape { tokens, breakpoints: Vec::new(), shared, at, long_stable: false }),
        };
        let priced = RequestCost::of(cache_use, 0, &row.prices);
        let forecast = crate::view::Forecast {
            cache_read: cache_use.read,
            cache_written: cache_use.written,
            uncached: cache_use.uncached,
            input_dollars: priced.dollars,
            priced_as: row.model_prefix.clone(),
            prices_as_of: row.as_of.clone(),
        };
        Some((forecast, cache_use))
    }
}

pub use crate::time::epoch_seconds;

#[cfg(test)]
mod tests {
    /// Caching rules read as serde's internally tagged reader read them, in its words.
    #[test]
    fn caching_reads_as_serde_s_internally_tagged_reader() {
        use serde::Deserialize;
        use serde_json::json;
        let read = |v: serde_json::Value| super::Caching::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(read(json!({"kind": "implicit", "minTokens": 1024, "ttlSeconds": 300})), Ok(super::Caching::Implicit { min_tokens: 1024, ttl_seconds: 300 }));
        assert_eq!(read(json!({"kind": "prefix", "minTokens": 1024, "ttlSeconds": 300})), Err("missing field `step`".into()));
        assert_eq!(read(json!({"kind": "implicit", "minTokens": 1, "ttlSeconds": 1, "step": 1})), Err("unknown field `step`, expected `minTokens` or `ttlSeconds`".into()));
        assert_eq!(read(json!({"kind": "lru"})), Err("unknown variant `lru`, expected one of `breakpoints`, `prefix`, `implicit`".into()));
        assert_eq!(read(json!({"minTokens": 1})), Err("missing field `kind`".into()));
    }

    use super::*;
    #[test]
    fn rfc3339_times_read_as_seconds() {
        assert_eq!(epoch_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(epoch_seconds("2026-12-04T10:00:00Z"), Some(1_796_378_400));
        assert_eq!(epoch_seconds("2026-12-04T10:00:05.123Z"), Some(1_796_378_405));
        assert_eq!(epoch_seconds("2026-12-04T11:00:00+01:00"), Some(1_796_378_400));
        assert_eq!(epoch_seconds("2024-02-29T00:00:00Z"), Some(1_709_164_800));
        for bad in ["", "yesterday", "2026-13-01T00:00:00Z", "2026-12-04T10:00:00", "2026-12-04T10:00:00.Z"] {
            assert_eq!(epoch_seconds(bad), None, "{bad}");
        }
    }

    use pretty_assertions::assert_eq;

    fn shape(tokens: u64, shared: u64, at: i64) -> RequestShape {
        RequestShape { tokens, breakpoints: vec![], shared, at: Some(at), long_stable: false }
    }

    fn used(read: u64, written: u64, uncached: u64) -> CacheUse {
        CacheUse { read, written, written_long: 0, uncached }
    }

    #[test]
    fn anthropic_writes_at_its_breakpoints_and_reads_the_longest_that_is_still_a_prefix() {
        let mut cache = Cache::new(Caching::Breakpoints { min_tokens: 1024, ttl_seconds: 300, long_ttl_seconds: 3600 });
        let stable = vec![2_000, 3_000];
        // First request: nothing to read; all 10,000 written (the stable part and the rest).
        assert_eq!(cache.serve(&RequestShape { tokens: 10_000, breakpoints: stable.clone(), shared: 0, at: Some(0), long_stable: false }), used(0, 10_000, 0));
        // A step later it extends the last request: all 10,000 read, the 1,500 new written.
        assert_eq!(cache.serve(&RequestShape { tokens: 11_500, breakpoints: stable.clone(), shared: 10_000, at: Some(60), long_stable: false }), used(10_000, 1_500, 0));
        // Pruning rewrote the conversation after token 5,000: the stable breakpoints still hit.
        assert_eq!(cache.serve(&RequestShape { tokens: 9_000, breakpoints: stable.clone(), shared: 5_000, at: Some(120), long_stable: false }), used(3_000, 6_000, 0));
        // Six minutes idle: every entry expired (five-minute lifetime, refreshed at 120).
        assert_eq!(cache.serve(&RequestShape { tokens: 9_500, breakpoints: stable, shared: 9_000, at: Some(120 + 301), long_stable: false }), used(0, 9_500, 0));
    }

    #[test]
    fn anthropic_caches_nothing_below_its_minimum_and_keeps_long_entries_an_hour() {
        let mut cache = Cache::new(Caching::Breakpoints { min_tokens: 4096, ttl_seconds: 300, long_ttl_seconds: 3600 });
        assert_eq!(cache.serve(&shape(3_000, 0, 0)), used(0, 0, 3_000));
        assert_eq!(cache.serve(&shape(3_500, 3_000, 10)), used(0, 0, 3_500));
        let long = |tokens, shared, at| RequestShape { tokens, breakpoints: vec![5_000], shared, at: Some(at), long_stable: true };
        assert_eq!(cache.serve(&long(8_000, 3_500, 20)), CacheUse { read: 0, written: 8_000, written_long: 5_000, uncached: 0 });
        // Twenty minutes later: the five-minute entry is gone, the one-hour one is read.
        assert_eq!(cache.serve(&long(8_200, 8_000, 20 + 1200)), CacheUse { read: 5_000, written: 3_200, written_long: 0, uncached: 0 });
    }

    #[test]
    fn openai_reads_from_1024_in_128_token_steps_and_writes_for_free() {
        let mut cache = Cache::new(Caching::Prefix { min_tokens: 1024, step: 128, ttl_seconds: 300 });
        assert_eq!(cache.serve(&shape(5_000, 0, 0)), used(0, 5_000, 0));
        // 5,000 cached: read in steps of 128 from 1,024 → 1,024 + 31 × 128 = 4,992.
        assert_eq!(cache.serve(&shape(6_000, 5_000, 30)), used(4_992, 1_008, 0));
        // Shares less than the minimum with the one before: nothing read.
        assert_eq!(cache.serve(&shape(6_000, 1_000, 60)), used(0, 6_000, 0));
        let prices = Prices { input: 2.0, output: 8.0, cache_read: 0.5, cache_write: 0.0, cache_write_long: 0.0, long_context: None };
        // Free writes are billed as input: 1,008 × $2 + 4,992 × $0.50 + 100 × $8, per million.
        let cost = RequestCost::of(used(4_992, 1_008, 0), 100, &prices);
        assert!((cost.dollars - (1_008.0 * 2.0 + 4_992.0 * 0.5 + 100.0 * 8.0) / 1e6).abs() < 1e-12, "{cost:?}");
    }

    #[test]
    fn gemini_reads_a_prefix_from_its_minimum_until_it_expires() {
        let mut cache = Cache::new(Caching::Implicit { min_tokens: 2048, ttl_seconds: 300 });
        assert_eq!(cache.serve(&shape(1_500, 0, 0)), used(0, 0, 1_500));
        assert_eq!(cache.serve(&shape(3_000, 1_500, 10)), used(0, 3_000, 0));
        assert_eq!(cache.serve(&shape(3_400, 3_000, 20)), used(3_000, 400, 0));
        assert_eq!(cache.serve(&shape(3_800, 3_400, 20 + 301)), used(0, 3_800, 0));
    }

    #[test]
    fn a_request_is_priced_at_its_rates_and_above_the_long_context_line_at_those() {
        let sonnet = model_for(Provider::Anthropic, "claude-sonnet-4-5-20250929", &[]).unwrap();
        assert_eq!(sonnet.model_prefix, "claude-sonnet-4");
        // 1,000 read ($0.30/M), 2,000 written ($3.75/M), 500 fresh ($3/M), 400 out ($15/M).
        let c = RequestCost::of(used(1_000, 2_000, 500), 400, &sonnet.prices);
        assert!((c.dollars - (300.0 + 7_500.0 + 1_500.0 + 6_000.0) / 1e6).abs() < 1e-12, "{c:?}");
        // Above 200k input, every token at the long-context rates.
        let c = RequestCost::of(used(0, 0, 250_000), 1_000, &sonnet.prices);
        assert!((c.dollars - (250_000.0 * 6.0 + 1_000.0 * 22.5) / 1e6).abs() < 1e-12, "{c:?}");
        // A host's row wins over the built-in one.
        let mine = CostModel { model_prefix: "claude-sonnet-4-5".into(), prices: Prices { input: 1.0, ..sonnet.prices.clone() }, ..sonnet.clone() };
        assert_eq!(model_for(Provider::Anthropic, "claude-sonnet-4-5", &[mine]).unwrap().prices.input, 1.0);
        assert_eq!(model_for(Provider::OpenAiResponses, "gpt-5-mini-2025-08-07", &[]).unwrap().model_prefix, "gpt-5-mini");
        assert_eq!(model_for(Provider::Gemini, "models/gemini-2.5-flash-lite", &[]).unwrap().model_prefix, "gemini-2.5-flash-lite");
        assert_eq!(model_for(Provider::Anthropic, "mistral-large", &[]), None);
    }
}
