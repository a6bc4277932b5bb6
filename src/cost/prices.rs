//! Today's published prices and caching rules, as data: one row per model family, matched by the
//! longest model-id prefix. Prices change; every row says when it was read and where from, and a
//! host passes its own rows (`costModels`) to override or extend them.
//!
//! Prices are US dollars per million tokens at the standard tier. Sources (read 2026-12-04 from
//! stored copies): Anthropic's pricing and prompt-caching pages; OpenAI's prompt-caching guide
//! and price list; Google's Gemini API pricing and context-caching pages; xAI's prompt-caching
//! docs; cross-checked with litellm's and simonw/llm-prices' tables.

use super::{Caching, CostModel, LongContext, Prices};

/// When the rows below were read.
pub const AS_OF: &str = "2026-12-04";

const fn prices(input: f64, output: f64, cache_read: f64, cache_write: f64, cache_write_long: f64) -> Prices {
    Prices { input, output, cache_read, cache_write, cache_write_long, long_context: None }
}

/// Anthropic: explicit breakpoints, 5-minute entries refreshed on every hit.
const fn anthropic(min_tokens: u64) -> Caching {
    Caching::Breakpoints { min_tokens, ttl_seconds: 300, long_ttl_seconds: 3600 }
}

/// OpenAI and xAI: the longest cached prefix from `min_tokens`, counted in 128-token steps; an
/// entry lives 5–10 minutes unused (the shorter taken).
const fn prefix(min_tokens: u64) -> Caching {
    Caching::Prefix { min_tokens, step: 128, ttl_seconds: 300 }
}

/// Gemini's implicit caching: a prefix from `min_tokens`; its lifetime is not documented for the
/// Gemini API (Vertex: within a day, most entries sooner) — 5 minutes is assumed.
const fn implicit(min_tokens: u64) -> Caching {
    Caching::Implicit { min_tokens, ttl_seconds: 300 }
}

/// The built-in rows. Within a provider, the longest matching prefix wins.
pub fn table() -> Vec<CostModel> {
    let row = |provider: &'static str, prefix: &'static str, prices: Prices, caching: Caching, source: &'static str| CostModel {
        provider: provider.to_owned(),
        model_prefix: prefix.to_owned(),
        prices,
        caching,
        as_of: AS_OF.to_owned(),
        source: source.to_owned(),
    };
    let sonnet_long = LongContext { above_tokens: 200_000, prices: prices(6.0, 22.5, 0.6, 7.5, 12.0) };
    vec![
        // Anthropic: write 1.25× (5 min) or 2× (1 h) input, read 0.1× (0.05× on the 5.5 models).
        row("anthropic", "claude", prices(3.0, 15.0, 0.3, 3.75, 6.0), anthropic(1024), "anthropic pricing (Sonnet rates for unknown Claude models)"),
        row("anthropic", "claude-opus-4", prices(15.0, 75.0, 1.5, 18.75, 30.0), anthropic(1024), "anthropic pricing"),
        row("anthropic", "claude-opus-4-5", prices(5.0, 25.0, 0.5, 6.25, 10.0), anthropic(4096), "anthropic pricing, prompt caching"),
        row("anthropic", "claude-opus-4-6", prices(5.0, 25.0, 0.5, 6.25, 10.0), anthropic(4096), "anthropic pricing, prompt caching"),
        row("anthropic", "claude-opus-4-7", prices(5.0, 25.0, 0.5, 6.25, 10.0), anthropic(2048), "anthropic pricing, prompt caching"),
        row("anthropic", "claude-opus-4-8", prices(5.0, 25.0, 0.5, 6.25, 10.0), anthropic(1024), "anthropic pricing, prompt caching"),
        row("anthropic", "claude-opus-5", prices(5.0, 25.0, 0.5, 6.25, 10.0), anthropic(512), "anthropic Opus 5 page"),
        row("anthropic", "claude-opus-5-5", prices(4.0, 20.0, 0.2, 5.0, 8.0), anthropic(512), "anthropic Opus 5.5 page"),
        row("anthropic", "claude-sonnet-4", Prices { long_context: Some(Box::new(sonnet_long)), ..prices(3.0, 15.0, 0.3, 3.75, 6.0) }, anthropic(1024), "anthropic pricing (long context above 200k)"),
        row("anthropic", "claude-sonnet-4-6", prices(3.0, 15.0, 0.3, 3.75, 6.0), anthropic(1024), "anthropic pricing (1M context at standard price)"),
        row("anthropic", "claude-sonnet-5", prices(2.0, 10.0, 0.2, 2.5, 4.0), anthropic(1024), "anthropic Sonnet 5 page"),
        row("anthropic", "claude-sonnet-5-5", prices(2.0, 10.0, 0.1, 2.5, 4.0), anthropic(1024), "anthropic Sonnet 5.5 page (read 0.05× from 2026-10-07)"),
        row("anthropic", "claude-haiku-4-5", prices(1.0, 5.0, 0.1, 1.25, 2.0), anthropic(4096), "anthropic pricing, prompt caching"),
        row("anthropic", "claude-3-5-haiku", prices(0.8, 4.0, 0.08, 1.0, 1.6), anthropic(2048), "anthropic pricing"),
        // OpenAI: automatic caching, free writes before GPT-5.6; reads 0.5× (4o), 0.25× (4.1,
        // o3, o4-mini), 0.1× (GPT-5).
        row("openai", "gpt", prices(1.25, 10.0, 0.125, 0.0, 0.0), prefix(1024), "openai prices (GPT-5 rates for unknown GPT models)"),
        row("openai", "gpt-4o", prices(2.5, 10.0, 1.25, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-4o-mini", prices(0.15, 0.6, 0.075, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-4.1", prices(2.0, 8.0, 0.5, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-4.1-mini", prices(0.4, 1.6, 0.1, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-4.1-nano", prices(0.1, 0.4, 0.025, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-5", prices(1.25, 10.0, 0.125, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-5-mini", prices(0.25, 2.0, 0.025, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-5-nano", prices(0.05, 0.4, 0.005, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-5.1", prices(1.25, 10.0, 0.125, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-5.2", prices(1.75, 14.0, 0.175, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "gpt-5.4", prices(2.5, 15.0, 0.25, 0.0, 0.0), prefix(1024), "openai prices (272k tier not modelled)"),
        row("openai", "gpt-5.5", prices(5.0, 30.0, 0.5, 0.0, 0.0), prefix(1024), "openai prices (272k tier not modelled)"),
        // From GPT-5.6 writes cost 1.25× input and entries live 30 minutes.
        row("openai", "gpt-5.6", prices(5.0, 30.0, 0.5, 6.25, 6.25), Caching::Prefix { min_tokens: 1024, step: 128, ttl_seconds: 1800 }, "openai prompt-caching guide 2026-09"),
        row("openai", "o3", prices(2.0, 8.0, 0.5, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "o4-mini", prices(1.1, 4.4, 0.275, 0.0, 0.0), prefix(1024), "openai prices"),
        row("openai", "grok", prices(3.0, 15.0, 0.75, 0.0, 0.0), prefix(1024), "xai prompt caching (an OpenAI-shaped API)"),
        row("openai", "grok-code-fast-1", prices(0.2, 1.5, 0.02, 0.0, 0.0), prefix(1024), "xai prompt caching"),
        // Gemini: implicit caching reads at 0.1× (no write charge, no storage); Pro above 200k
        // costs more.
        row("gemini", "gemini", prices(0.3, 2.5, 0.03, 0.0, 0.0), implicit(2048), "gemini pricing (Flash rates for unknown Gemini models)"),
        row(
            "gemini",
            "gemini-2.5-pro",
            Prices { long_context: Some(Box::new(LongContext { above_tokens: 200_000, prices: prices(2.5, 15.0, 0.25, 0.0, 0.0) })), ..prices(1.25, 10.0, 0.125, 0.0, 0.0) },
            implicit(2048),
            "gemini pricing, context caching",
        ),
        row("gemini", "gemini-2.5-flash", prices(0.3, 2.5, 0.03, 0.0, 0.0), implicit(2048), "gemini pricing, context caching"),
        row("gemini", "gemini-2.5-flash-lite", prices(0.1, 0.4, 0.01, 0.0, 0.0), implicit(2048), "gemini pricing (minimum not listed: Flash's taken)"),
        row(
            "gemini",
            "gemini-3-pro",
            Prices { long_context: Some(Box::new(LongContext { above_tokens: 200_000, prices: prices(4.0, 18.0, 0.4, 0.0, 0.0) })), ..prices(2.0, 12.0, 0.2, 0.0, 0.0) },
            implicit(4096),
            "gemini pricing, context caching",
        ),
        row(
            "gemini",
            "gemini-3.1-pro",
            Prices { long_context: Some(Box::new(LongContext { above_tokens: 200_000, prices: prices(4.0, 18.0, 0.4, 0.0, 0.0) })), ..prices(2.0, 12.0, 0.2, 0.0, 0.0) },
            implicit(4096),
            "gemini pricing, context caching",
        ),
        row("gemini", "gemini-3-flash", prices(0.5, 3.0, 0.05, 0.0, 0.0), implicit(4096), "gemini pricing, context caching"),
    ]
}
