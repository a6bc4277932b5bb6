//! Whether a failed request is worth sending again, and when — decided here, slept by the host.
//!
//! The rules are the official SDKs' (Anthropic's and OpenAI's): a dropped connection, 408, 409,
//! 429 and every 5xx (Anthropic's 529 overload among them) are retried; `x-should-retry: true` or
//! `false` overrides the status; the server's `retry-after-ms`, else `retry-after` (seconds, or an
//! HTTP date), else Gemini's `RetryInfo.retryDelay` is waited when it asks for at most a minute;
//! otherwise the wait is exponential backoff from 0.5 s to 8 s with up to a quarter taken off.
//! Beyond them: an error *event* inside a stream (an overload mid-answer) is read by its kind, an
//! answer that ended early is retried like a dropped connection, and what no wait of seconds
//! fixes is not retried: OpenAI's `insufficient_quota` 429, a Gemini 429 whose `QuotaFailure`
//! names a per-day (or longer) quota, and billing refusals (a 402, Anthropic's `billing_error`
//! and "credit balance is too low", OpenAI's `billing_not_active` and
//! `billing_hard_limit_reached`). A wait is advised only with a retry.
//!
//! The quarter taken off is not random: it is a hash of what the caller passes (the session and
//! the attempt), so two sessions spread apart while a test sees the same wait every time.

use serde::Serialize;

use super::failure::{ErrorHints, Head};
use crate::update::record::ProviderFailure;

/// How long to wait between attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The first backoff (the SDKs': 0.5 s).
    pub initial_delay_ms: u64,
    /// The longest backoff (8 s).
    pub max_delay_ms: u64,
    /// The longest wait a server may ask for and be obeyed (60 s); longer asks get the backoff.
    pub max_server_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { initial_delay_ms: 500, max_delay_ms: 8_000, max_server_delay_ms: 60_000 }
    }
}

/// What went wrong, as the retry decision sees it.
#[derive(Debug, Clone, Copy)]
pub enum Cause<'a> {
    /// The response's status was not 2xx.
    Http { head: &'a Head, failure: &'a ProviderFailure, hints: &'a ErrorHints },
    /// An error event inside an answer that began well (HTTP 200).
    Event { failure: &'a ProviderFailure },
    /// The connection dropped while the body was arriving.
    Dropped,
    /// The body ended before the provider finished the answer.
    Incomplete,
}

/// The decision for one failed attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    /// Sending the same request again may succeed.
    pub retryable: bool,
    /// How long to wait before it, in milliseconds: the server's ask when it made a reasonable
    /// one, else the backoff for this attempt. Only with a retry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_ms: Option<u64>,
    /// Why, in a word: `rate_limited`, `overloaded`, `server_error`, `timeout`, `conflict`,
    /// `connection_dropped`, `answer_incomplete`, `should_retry` (the server's header) — or why
    /// not: `quota_exceeded` (a quota no short wait refills: OpenAI's `insufficient_quota`, a
    /// per-day Gemini quota), `billing` (the account's billing or credit), `client_error`,
    /// `should_not_retry`, `not_transient`.
    pub reason: String,
}

/// Error kinds (type, status or code) that a later attempt may not meet.
const TRANSIENT: [&str; 15] = [
    "overloaded_error",
    "api_error",
    "rate_limit_error",
    "timeout_error",
    "server_error",
    "rate_limit_exceeded",
    "internal_error",
    "UNAVAILABLE",
    "INTERNAL",
    "RESOURCE_EXHAUSTED",
    "DEADLINE_EXCEEDED",
    "ABORTED",
    "spliced_stream",
    "service_unavailable",
    "overloaded",
];

/// Decides for attempt `attempt` (0: the first send failed). `now_ms` (the host's clock, epoch
/// milliseconds) reads a `retry-after` date; `salt` spreads the backoff.
pub fn advise(cause: Cause<'_>, attempt: u32, now_ms: Option<i64>, salt: u64, policy: &RetryPolicy) -> Retry {
    let (retryable, reason, server_ms) = match cause {
        Cause::Http { head, failure, hints } => {
            let (retryable, reason) = match head.header("x-should-retry") {
                Some(v) if v.eq_ignore_ascii_case("true") => (true, "should_retry"),
                Some(v) if v.eq_ignore_ascii_case("false") => (false, "should_not_retry"),
                _ => by_status(head.status, failure, hints),
            };
            (retryable, reason, server_wait(head, hints, now_ms))
        }
        Cause::Event { failure } => {
            let (retryable, reason) = by_kind(failure);
            (retryable, reason, None)
        }
        Cause::Dropped => (true, "connection_dropped", None),
        Cause::Incomplete => (true, "answer_incomplete", None),
    };
    let after_ms = retryable.then(|| match server_ms {
        Some(ms) if ms > 0 && ms <= policy.max_server_delay_ms => ms,
        _ => backoff(attempt, salt, policy),
    });
    Retry { retryable, after_ms, reason: reason.to_owned() }
}

/// The error kinds and codes of a billing refusal: the account cannot pay, whatever the wait.
const BILLING: [&str; 4] = ["billing_error", "billing_not_active", "billing_hard_limit_reached", "insufficient_credits"];

/// Whether a failure is about the account's billing or credit.
fn billing(status: u16, failure: &ProviderFailure) -> bool {
    let named = |name: &str| failure.kind == name || failure.code.as_deref() == Some(name);
    status == 402 || BILLING.iter().any(|b| named(b)) || failure.message.to_ascii_lowercase().contains("credit balance is too low")
}

fn by_status(status: u16, failure: &ProviderFailure, hints: &ErrorHints) -> (bool, &'static str) {
    let quota = failure.kind == "insufficient_quota" || failure.code.as_deref() == Some("insufficient_quota") || hints.long_quota.is_some();
    match status {
        _ if billing(status, failure) => (false, "billing"),
        429 if quota => (false, "quota_exceeded"),
        429 => (true, "rate_limited"),
        408 | 504 => (true, "timeout"),
        409 => (true, "conflict"),
        529 | 503 => (true, "overloaded"),
        500..=599 => (true, "server_error"),
        _ => (false, "client_error"),
    }
}

fn by_kind(failure: &ProviderFailure) -> (bool, &'static str) {
    let named = |name: &str| failure.kind == name || failure.code.as_deref() == Some(name);
    if named("insufficient_quota") {
        return (false, "quota_exceeded");
    }
    if billing(failure.status.unwrap_or(0), failure) {
        return (false, "billing");
    }
    match TRANSIENT.iter().find(|k| named(k)) {
        Some(&("rate_limit_error" | "rate_limit_exceeded" | "RESOURCE_EXHAUSTED")) => (true, "rate_limited"),
        Some(&("overloaded_error" | "UNAVAILABLE" | "overloaded" | "service_unavailable")) => (true, "overloaded"),
        Some(&("timeout_error" | "DEADLINE_EXCEEDED")) => (true, "timeout"),
        Some(_) => (true, "server_error"),
        None => match failure.status {
            Some(status) => by_status(status, failure, &ErrorHints::default()),
            None => (false, "not_transient"),
        },
    }
}

/// The wait the server asked for, in milliseconds.
fn server_wait(head: &Head, hints: &ErrorHints, now_ms: Option<i64>) -> Option<u64> {
    let ms = |v: f64| (v.is_finite() && v >= 0.0).then(|| v.round() as u64);
    if let Some(v) = head.header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).and_then(ms) {
        return Some(v);
    }
    if let Some(value) = head.header("retry-after") {
        if let Ok(seconds) = value.parse::<f64>() {
            return ms(seconds * 1000.0);
        }
        if let (Some(at), Some(now)) = (crate::time::http_date_seconds(value), now_ms) {
            return u64::try_from(at.saturating_mul(1000) - now).ok();
        }
    }
    hints.retry_delay_ms
}

/// Exponential backoff for `attempt`, with up to a quarter off (by `salt` and the attempt).
fn backoff(attempt: u32, salt: u64, policy: &RetryPolicy) -> u64 {
    let full = policy.initial_delay_ms.saturating_mul(1u64 << attempt.min(20)).min(policy.max_delay_ms);
    // A fraction in [0, 1) from the salt and the attempt (splitmix64's finaliser).
    let mut x = salt ^ (u64::from(attempt).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    let fraction = (x >> 11) as f64 / (1u64 << 53) as f64;
    (full as f64 * (1.0 - fraction * 0.25)).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn failure(kind: &str, code: Option<&str>, status: Option<u16>) -> ProviderFailure {
        ProviderFailure { kind: kind.into(), message: String::new(), status, code: code.map(str::to_owned) }
    }

    fn http(status: u16, headers: &[(&str, &str)], kind: &str, code: Option<&str>) -> (bool, Option<u64>, String) {
        let head = Head::new(status, headers.iter().map(|(n, v)| (n.to_string(), v.to_string())));
        let f = failure(kind, code, Some(status));
        let r = advise(Cause::Http { head: &head, failure: &f, hints: &ErrorHints::default() }, 0, Some(1_000_000), 7, &RetryPolicy::default());
        (r.retryable, r.after_ms, r.reason)
    }

    #[test]
    fn statuses_headers_and_kinds_as_the_sdks_decide_and_beyond() {
        let r = |retryable: bool, ms: Option<u64>, reason: &str| (retryable, ms, reason.to_owned());
        let backoff0 = Some(backoff(0, 7, &RetryPolicy::default()));
        assert_eq!(http(429, &[("retry-after", "3")], "rate_limit_error", None), r(true, Some(3000), "rate_limited"));
        assert_eq!(http(429, &[("Retry-After-Ms", "1250.4"), ("retry-after", "9")], "requests", Some("rate_limit_exceeded")), r(true, Some(1250), "rate_limited"));
        // Not retried: no wait is advised, whatever the server asked for.
        assert_eq!(http(429, &[("retry-after", "20")], "insufficient_quota", None), r(false, None, "quota_exceeded"));
        // An HTTP date, read against the host's clock (1,000,000 ms = 00:16:40 on 1 Jan 1970).
        assert_eq!(http(503, &[("retry-after", "Thu, 01 Jan 1970 00:16:45 GMT")], "service_unavailable", None), r(true, Some(5000), "overloaded"));
        // Asked for more than a minute, or for nothing: the backoff.
        assert_eq!(http(529, &[("retry-after", "120")], "overloaded_error", None), r(true, backoff0, "overloaded"));
        assert_eq!(http(500, &[("retry-after", "0")], "api_error", None), r(true, backoff0, "server_error"));
        assert_eq!(http(408, &[], "request_timeout", None), r(true, backoff0, "timeout"));
        assert_eq!(http(409, &[], "conflict", None), r(true, backoff0, "conflict"));
        assert_eq!(http(400, &[], "invalid_request_error", None), r(false, None, "client_error"));
        assert_eq!(http(400, &[("x-should-retry", "true")], "invalid_request_error", None), r(true, backoff0, "should_retry"));
        assert_eq!(http(503, &[("x-should-retry", "false")], "service_unavailable", None), r(false, None, "should_not_retry"));
        // Billing: a 402, Anthropic's billing_error, OpenAI's billing codes (a 429 among them).
        assert_eq!(http(402, &[], "billing_error", None), r(false, None, "billing"));
        assert_eq!(http(429, &[("retry-after", "2")], "billing_not_active", None), r(false, None, "billing"));
        assert_eq!(http(400, &[], "invalid_request_error", Some("billing_hard_limit_reached")), r(false, None, "billing"));
        let credit = ProviderFailure { message: "Your credit balance is too low to access the Anthropic API.".into(), ..failure("invalid_request_error", None, Some(400)) };
        let r400 = advise(Cause::Http { head: &Head::new(400, []), failure: &credit, hints: &ErrorHints::default() }, 0, None, 7, &RetryPolicy::default());
        assert_eq!((r400.retryable, r400.reason.as_str()), (false, "billing"));
        // A Gemini 429 whose QuotaFailure names a per-day quota: not retried, though it asks for 34 s.
        let hints = ErrorHints { retry_delay_ms: Some(34_000), long_quota: Some("GenerateRequestsPerDayPerProjectPerModel-FreeTier".into()), ..ErrorHints::default() };
        let daily = failure("RESOURCE_EXHAUSTED", None, Some(429));
        let r429 = advise(Cause::Http { head: &Head::new(429, []), failure: &daily, hints: &hints }, 0, None, 7, &RetryPolicy::default());
        assert_eq!((r429.retryable, r429.after_ms, r429.reason.as_str()), (false, None, "quota_exceeded"));
        let per_minute = ErrorHints { retry_delay_ms: Some(34_000), ..ErrorHints::default() };
        let r429 = advise(Cause::Http { head: &Head::new(429, []), failure: &daily, hints: &per_minute }, 0, None, 7, &RetryPolicy::default());
        assert_eq!((r429.retryable, r429.after_ms, r429.reason.as_str()), (true, Some(34_000), "rate_limited"));
        let event = |kind: &str, code: Option<&str>| {
            let r = advise(Cause::Event { failure: &failure(kind, code, None) }, 1, None, 7, &RetryPolicy::default());
            (r.retryable, r.reason)
        };
        assert_eq!(event("overloaded_error", None), (true, "overloaded".into()));
        assert_eq!(event("server_error", None), (true, "server_error".into()));
        assert_eq!(event("invalid_request_error", Some("rate_limit_exceeded")), (true, "rate_limited".into()));
        assert_eq!(event("UNAVAILABLE", None), (true, "overloaded".into()));
        assert_eq!(event("invalid_request_error", Some("context_length_exceeded")), (false, "not_transient".into()));
        let dropped = advise(Cause::Dropped, 0, None, 7, &RetryPolicy::default());
        assert_eq!((dropped.retryable, dropped.reason.as_str()), (true, "connection_dropped"));
    }

    #[test]
    fn the_backoff_doubles_from_half_a_second_to_eight_with_at_most_a_quarter_off() {
        let policy = RetryPolicy::default();
        for salt in 0..200u64 {
            for (attempt, full) in [(0, 500), (1, 1000), (2, 2000), (3, 4000), (4, 8000), (5, 8000), (40, 8000)] {
                let ms = backoff(attempt, salt, &policy);
                assert!(ms <= full && ms >= full * 3 / 4, "attempt {attempt}, salt {salt}: {ms}");
            }
        }
        // The same salt and attempt, the same wait; other salts spread.
        assert_eq!(backoff(1, 42, &policy), backoff(1, 42, &policy));
        let waits: std::collections::BTreeSet<u64> = (0..50).map(|salt| backoff(1, salt, &policy)).collect();
        assert!(waits.len() > 25, "{waits:?}");
    }
}
