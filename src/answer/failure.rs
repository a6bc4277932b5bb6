//! A provider's refusal, read: the answer to a request that did not succeed — an HTTP status
//! that is not 2xx with a body in whatever shape it came (each API's error object, a proxy's
//! HTML page, plain text, nothing at all), or an error event inside a stream — as one
//! [`ProviderFailure`], plus what the body says about waiting (Gemini's `RetryInfo`) and about
//! the context (the token count a context-length refusal names).
//!
//! The shapes, per API:
//! - Anthropic: `{"type": "error", "error": {"type", "message"}, "request_id"}`;
//! - OpenAI (Chat and Responses; Azure and most compatible servers): `{"error": {"message",
//!   "type", "param", "code"}}`, the `code` a string (`context_length_exceeded`,
//!   `rate_limit_exceeded`, `insufficient_quota`);
//! - Gemini: `{"error": {"code": <HTTP status>, "message", "status", "details": [...]}}`, also as
//!   the one element of an array.

use serde_json::Value;

use crate::provider::Provider;
use crate::update::record::ProviderFailure;

/// The most of an error body that is read: an error page is never this long.
pub const MAX_ERROR_BODY_BYTES: usize = 1024 * 1024;

/// An HTTP response's head: its status and headers (names in any case).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Head {
    pub fn new(status: u16, headers: impl IntoIterator<Item = (String, String)>) -> Head {
        Head { status, headers: headers.into_iter().collect() }
    }

    /// The value of a header, by its name in any case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim())
    }

    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The provider's id of the request (what its support asks for): Anthropic's `request-id`,
    /// OpenAI's `x-request-id`, Google's `x-goog-request-id`, Azure's `apim-request-id`.
    pub fn request_id(&self) -> Option<String> {
        ["request-id", "x-request-id", "x-goog-request-id", "apim-request-id"]
            .iter()
            .find_map(|name| self.header(name))
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
    }
}

/// What an error body said, beyond the failure itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorHints {
    /// Gemini's `google.rpc.RetryInfo.retryDelay`, in milliseconds.
    pub retry_delay_ms: Option<u64>,
    /// The request id the body names (Anthropic writes it into the body too).
    pub request_id: Option<String>,
    /// A quota no wait of seconds refills, which a Gemini 429's `google.rpc.QuotaFailure` names
    /// (its `quotaId`, such as `GenerateRequestsPerDayPerProjectPerModel-FreeTier`).
    pub long_quota: Option<String>,
}

/// A context-length refusal: the prompt's size and the model's limit, where the text names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow {
    /// The tokens the request held as the provider counted them (its input, without the reply's
    /// budget), when the message says.
    pub tokens: Option<u64>,
    /// The limit it broke, when the message says.
    pub limit: Option<u64>,
}

/// Reads the body of a response whose status is not 2xx. Whatever it holds, the answer is a
/// failure: the provider's error type and message where the body has them, else the status's
/// name and what the body says in text.
pub fn read_error(head: &Head, body: &[u8]) -> (ProviderFailure, ErrorHints) {
    let text = String::from_utf8_lossy(&body[..body.len().min(MAX_ERROR_BODY_BYTES)]);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    let mut hints = ErrorHints::default();
    let parsed = match serde_json::from_str::<Value>(trimmed) {
        // Gemini's streaming endpoint wraps its error in an array.
        Ok(Value::Array(items)) => items.into_iter().next(),
        Ok(value) => Some(value),
        Err(_) => None,
    };
    let from_json = parsed.as_ref().and_then(|value| {
        hints.request_id = value.get("request_id").and_then(Value::as_str).map(str::to_owned);
        match value.get("error") {
            Some(error @ Value::Object(_)) => {
                hints.retry_delay_ms = retry_info(error);
                hints.long_quota = long_quota(error);
                Some(failure_of(error, &status_name(head.status)))
            }
            // `{"error": "text"}`, `{"message": …}`, `{"detail": …}` (servers that speak no API's shape).
            Some(Value::String(message)) => Some(plain(head.status, message)),
            _ => ["message", "detail"].iter().find_map(|k| value.get(*k).and_then(Value::as_str)).map(|m| plain(head.status, m)),
        }
    });
    let mut failure = from_json.unwrap_or_else(|| plain(head.status, &text_message(trimmed)));
    failure.status = Some(head.status);
    if failure.message.is_empty() {
        failure.message = format!("HTTP {} {} with an empty body", head.status, status_phrase(head.status));
    }
    (failure, hints)
}

/// A failure with the status's name as its kind.
fn plain(status: u16, message: &str) -> ProviderFailure {
    ProviderFailure { kind: status_name(status), message: message.to_owned(), status: Some(status), code: None }
}

/// A body that is not JSON, as a message: an HTML page's title (what a proxy's error page names
/// itself), else its text without tags, whitespace folded, at most 500 characters.
fn text_message(body: &str) -> String {
    let lower = body.to_ascii_lowercase();
    if let (Some(start), Some(end)) = (lower.find("<title>"), lower.find("</title>")) {
        if start + 7 <= end {
            let title = fold(&body[start + 7..end]);
            if !title.is_empty() {
                return title;
            }
        }
    }
    let mut text = String::with_capacity(body.len().min(600));
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
        if text.len() > 4096 {
            break;
        }
    }
    let folded = fold(&text);
    match folded.char_indices().nth(500) {
        Some((at, _)) => format!("{}…", &folded[..at]),
        None => folded,
    }
}

fn fold(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A provider error object (`{type|status|code, message, code?}`) as a failure: the kind is the
/// error's type (Anthropic, OpenAI) or status (Gemini) or a string code (Azure), else
/// `fallback_kind`; OpenAI's string `code` is kept beside a type; a numeric `code` is the HTTP
/// status (Gemini).
pub(crate) fn failure_of(error: &Value, fallback_kind: &str) -> ProviderFailure {
    let string = |key: &str| match error.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    };
    let status = match error.get("code") {
        Some(Value::Number(n)) => n.as_u64().and_then(|n| u16::try_from(n).ok()),
        _ => None,
    };
    // A numeric code alone (OpenRouter's errors, some proxies') is an HTTP status: its name.
    let kind = string("type")
        .or_else(|| string("status"))
        .or_else(|| string("code"))
        .or_else(|| status.filter(|s| (400..600).contains(s)).map(status_name))
        .unwrap_or_else(|| fallback_kind.to_owned());
    let code = string("code").filter(|c| *c != kind);
    let message = match error.get("message") {
        Some(Value::String(m)) => m.clone(),
        _ => error.to_string(),
    };
    ProviderFailure { kind, message, status, code }
}

/// Gemini's `RetryInfo` among an error's details: `"retryDelay": "30s"` (or `"1.5s"`).
fn retry_info(error: &Value) -> Option<u64> {
    let details = error.get("details")?.as_array()?;
    details.iter().find_map(|d| {
        let delay = d.get("retryDelay")?.as_str()?.trim();
        let seconds: f64 = delay.strip_suffix('s')?.trim().parse().ok()?;
        (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
    })
}

/// The quota a `google.rpc.QuotaFailure` among an error's details names that is counted per
/// day or longer (its `quotaId` or `quotaMetric` says `PerDay`, `PerMonth`): the first such.
fn long_quota(error: &Value) -> Option<String> {
    let details = error.get("details")?.as_array()?;
    details
        .iter()
        .filter(|d| d.get("@type").and_then(Value::as_str).is_some_and(|t| t.ends_with("google.rpc.QuotaFailure")))
        .flat_map(|d| d.get("violations").and_then(Value::as_array).into_iter().flatten())
        .find_map(|v| {
            let id = v.get("quotaId").and_then(Value::as_str).or_else(|| v.get("quotaMetric").and_then(Value::as_str))?;
            let lower = id.to_ascii_lowercase();
            ["perday", "per_day", "permonth", "per_month"].iter().any(|p| lower.contains(p)).then(|| id.to_owned())
        })
}

/// Whether `failure` is a context-length refusal, and what it says of the sizes.
pub fn overflow(provider: Provider, failure: &ProviderFailure) -> Option<Overflow> {
    let message = failure.message.as_str();
    let lower = message.to_ascii_lowercase();
    let code_says = failure.code.as_deref() == Some("context_length_exceeded") || failure.kind == "context_length_exceeded";
    match provider {
        // "prompt is too long: 208310 tokens > 200000 maximum"; "input length and `max_tokens`
        // exceed context limit: 189136 + 20000 > 204648, decrease input length or …".
        Provider::Anthropic => {
            if let Some(rest) = after(&lower, "prompt is too long:") {
                let numbers = numbers(rest);
                return Some(Overflow { tokens: numbers.first().copied(), limit: numbers.get(1).copied() });
            }
            if let Some(rest) = after(&lower, "exceed context limit:") {
                let numbers = numbers(rest);
                return Some(Overflow { tokens: numbers.first().copied(), limit: numbers.get(2).copied() });
            }
            code_says.then_some(Overflow { tokens: None, limit: None })
        }
        // Chat: "This model's maximum context length is 128000 tokens. However, your messages
        // resulted in 130511 tokens (129000 in the messages, 1511 in the functions)." or "…you
        // requested 135000 tokens (130000 in the messages, 5000 in the completion)…"; xAI: "This
        // model's maximum prompt length is 131072 but the request contains 245822 tokens.";
        // Responses: "Your input exceeds the context window of this model…" (no counts).
        Provider::OpenAiChat | Provider::OpenAiResponses => {
            let limit = ["maximum context length is", "maximum prompt length is"].iter().find_map(|p| after(&lower, p)).and_then(|r| numbers(r).first().copied());
            let total = ["resulted in", "you requested about", "you requested", "request contains"]
                .iter()
                .find_map(|p| after(&lower, p))
                .and_then(|r| numbers(r).first().copied());
            // The reply's budget is not the prompt: take it off when the message names it.
            let completion = lower.find(" in the completion").and_then(|at| numbers(&lower[..at]).last().copied());
            let tokens = total.map(|t| t.saturating_sub(completion.unwrap_or(0)));
            let said = code_says || limit.is_some() || lower.contains("exceeds the context window") || lower.contains("context_length_exceeded");
            said.then_some(Overflow { tokens, limit })
        }
        // "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
        Provider::Gemini => {
            let rest = after(&lower, "input token count")?;
            lower.contains("exceeds the maximum number of tokens").then(|| {
                let numbers = numbers(rest);
                Overflow { tokens: numbers.first().copied(), limit: numbers.get(1).copied() }
            })
        }
    }
}

/// Whether a refusal is about the request's size or its images: a 413, Anthropic's
/// `request_too_large`, or a 400 whose message is about an image (too many, too large). The next
/// build strips every image (once) — the chapter's 413 recovery.
pub fn about_size_or_images(status: Option<u16>, kind: &str, message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    status == Some(413) || kind == "request_too_large" || lower.contains("request_too_large") || (status == Some(400) && lower.contains("image"))
}

/// What follows `pattern` in `text`.
fn after<'a>(text: &'a str, pattern: &str) -> Option<&'a str> {
    text.find(pattern).map(|at| &text[at + pattern.len()..])
}

/// The whole numbers in `text`, in order (digit groups with `,` or `_` read as one).
fn numbers(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut current: Option<u64> = None;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => current = Some(current.unwrap_or(0).saturating_mul(10).saturating_add(u64::from(b - b'0'))),
            b',' | b'_' if current.is_some() && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {}
            _ => {
                if let Some(n) = current.take() {
                    out.push(n);
                }
            }
        }
    }
    out.extend(current);
    out
}

/// A stable name for an HTTP status, the kind of a failure whose body names none.
pub fn status_name(status: u16) -> String {
    match status {
        400 => "bad_request".into(),
        401 => "unauthorized".into(),
        402 => "payment_required".into(),
        403 => "forbidden".into(),
        404 => "not_found".into(),
        408 => "request_timeout".into(),
        409 => "conflict".into(),
        413 => "request_too_large".into(),
        422 => "unprocessable_entity".into(),
        429 => "too_many_requests".into(),
        500 => "internal_server_error".into(),
        502 => "bad_gateway".into(),
        503 => "service_unavailable".into(),
        504 => "gateway_timeout".into(),
        529 => "overloaded".into(),
        other => format!("http_{other}"),
    }
}

fn status_phrase(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn head(status: u16) -> Head {
        Head::new(status, [])
    }

    fn failure(kind: &str, message: &str, status: u16, code: Option<&str>) -> ProviderFailure {
        ProviderFailure { kind: kind.into(), message: message.into(), status: Some(status), code: code.map(str::to_owned) }
    }

    #[test]
    fn each_apis_error_shape_and_bodies_in_no_api_shape() {
        let anthropic = br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011"}"#;
        let (f, hints) = read_error(&head(529), anthropic);
        assert_eq!((f, hints.request_id.as_deref()), (failure("overloaded_error", "Overloaded", 529, None), Some("req_011")));
        let openai = br#"{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#;
        assert_eq!(read_error(&head(429), openai).0, failure("insufficient_quota", "You exceeded your current quota.", 429, None));
        let openai = br#"{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#;
        assert_eq!(read_error(&head(429), openai).0, failure("requests", "Rate limit reached", 429, Some("rate_limit_exceeded")));
        let gemini = br#"[{"error":{"code":429,"message":"Quota exceeded.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"31.5s"}]}}]"#;
        let (f, hints) = read_error(&head(429), gemini);
        assert_eq!((f, hints.retry_delay_ms), (failure("RESOURCE_EXHAUSTED", "Quota exceeded.", 429, None), Some(31_500)));
        let html = b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center></body></html>";
        assert_eq!(read_error(&head(502), html).0, failure("bad_gateway", "502 Bad Gateway", 502, None));
        let untitled = b"<html><body><h1>Oops</h1>\n<p>The  upstream\ttimed out.</p></body></html>";
        assert_eq!(read_error(&head(504), untitled).0, failure("gateway_timeout", "Oops The upstream timed out.", 504, None));
        assert_eq!(read_error(&head(503), b"").0, failure("service_unavailable", "HTTP 503 Service Unavailable with an empty body", 503, None));
        assert_eq!(read_error(&head(500), b"upstream connect error").0, failure("internal_server_error", "upstream connect error", 500, None));
        assert_eq!(read_error(&head(422), br#"{"detail":"bad field"}"#).0, failure("unprocessable_entity", "bad field", 422, None));
        assert_eq!(read_error(&head(418), br#"{"error":"teapot"}"#).0, failure("http_418", "teapot", 418, None));
        // The response's status wins over a number in the body.
        assert_eq!(read_error(&head(503), br#"{"error":{"code":500,"message":"x","status":"INTERNAL"}}"#).0.status, Some(503));
        // A numeric code alone (OpenRouter's shape) names the kind by its status.
        assert_eq!(read_error(&head(402), br#"{"error":{"code":402,"message":"Insufficient credits"}}"#).0, failure("payment_required", "Insufficient credits", 402, None));
        assert_eq!(failure_of(&serde_json::json!({"code": 502, "message": "Provider returned error"}), "error").kind, "bad_gateway");
        assert_eq!(failure_of(&serde_json::json!({"code": "server_error", "message": "Provider disconnected"}), "error").kind, "server_error");
    }

    #[test]
    fn a_gemini_quota_failure_says_whether_the_quota_is_per_day() {
        // The shape Gemini sends (details in any order; a short RetryInfo beside a daily quota).
        let body = |quota: &str| {
            format!(
                r#"{{"error":{{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[
                {{"@type":"type.googleapis.com/google.rpc.Help","links":[{{"description":"quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}}]}},
                {{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"{quota}","quotaDimensions":{{"location":"global","model":"gemini-2.5-pro"}},"quotaValue":"50"}}]}},
                {{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34s"}}]}}}}"#
            )
        };
        let (_, daily) = read_error(&head(429), body("GenerateRequestsPerDayPerProjectPerModel-FreeTier").as_bytes());
        assert_eq!((daily.long_quota.as_deref(), daily.retry_delay_ms), (Some("GenerateRequestsPerDayPerProjectPerModel-FreeTier"), Some(34_000)));
        let (_, minute) = read_error(&head(429), body("GenerateRequestsPerMinutePerProjectPerModel-FreeTier").as_bytes());
        assert_eq!((minute.long_quota, minute.retry_delay_ms), (None, Some(34_000)));
    }

    #[test]
    fn context_length_refusals_in_each_apis_words() {
        let said = |provider, kind: &str, code: Option<&str>, message: &str| overflow(provider, &failure(kind, message, 400, code));
        let both = |tokens, limit| Some(Overflow { tokens: Some(tokens), limit: Some(limit) });
        assert_eq!(said(Provider::Anthropic, "invalid_request_error", None, "prompt is too long: 210000 tokens > 200000 maximum"), both(210_000, 200_000));
        assert_eq!(
            said(Provider::Anthropic, "invalid_request_error", None, "input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again"),
            both(189_136, 204_648)
        );
        assert_eq!(said(Provider::Anthropic, "invalid_request_error", None, "max_tokens: 100000 > 64000, which is the maximum"), None);
        let chat = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130511 tokens (129000 in the messages, 1511 in the functions). Please reduce the length of the messages or functions.";
        assert_eq!(said(Provider::OpenAiChat, "invalid_request_error", Some("context_length_exceeded"), chat), both(130_511, 128_000));
        let chat = "This model's maximum context length is 128000 tokens. However, you requested 135000 tokens (130000 in the messages, 5000 in the completion). Please reduce the length of the messages or completion.";
        assert_eq!(said(Provider::OpenAiChat, "invalid_request_error", Some("context_length_exceeded"), chat), both(130_000, 128_000));
        let xai = "This model's maximum prompt length is 131072 but the request contains 245822 tokens.";
        assert_eq!(said(Provider::OpenAiChat, "invalid_request_error", None, xai), both(245_822, 131_072));
        let responses = "Your input exceeds the context window of this model. Please adjust your input and try again.";
        assert_eq!(said(Provider::OpenAiResponses, "invalid_request_error", Some("context_length_exceeded"), responses), Some(Overflow { tokens: None, limit: None }));
        assert_eq!(said(Provider::OpenAiResponses, "invalid_request_error", Some("invalid_value"), "Invalid value: 'x'."), None);
        let gemini = "The input token count (1,200,000) exceeds the maximum number of tokens allowed (1048576).";
        assert_eq!(said(Provider::Gemini, "INVALID_ARGUMENT", None, gemini), both(1_200_000, 1_048_576));
        assert_eq!(said(Provider::Gemini, "INVALID_ARGUMENT", None, "Request contains an invalid argument."), None);
    }
}
