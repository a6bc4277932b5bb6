//! Where each API answers: the URL and the headers of a request for a provider, a model and a
//! streaming choice, so no host writes them out by hand. The host passes its key; nothing is
//! stored. Streaming follows the build's own settings (`providerOptions.<api>.stream`), which
//! for Anthropic and OpenAI is a field of the body and for Gemini is the URL
//! (`:streamGenerateContent?alt=sse` instead of `:generateContent`) — one choice, both places.
//! A base URL is taken the way each official SDK takes its own (`https://api.anthropic.com`,
//! `https://api.openai.com/v1`, `https://generativelanguage.googleapis.com`), for a proxy or a
//! compatible server.

use contextview_derive::ReadValue;
use std::collections::BTreeMap;

use serde::Serialize;

use serde_json::Value;

use super::Provider;

/// The version of the Messages API the payloads are written for.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// What [`endpoint`] needs.
#[derive(Debug, Clone, Default, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EndpointInput {
    pub provider: Option<Provider>,
    /// The model (Gemini names it in the URL).
    #[serde(default)]
    pub model: Option<String>,
    /// Stream the answer; when absent, the target section's `stream` setting decides.
    #[serde(default)]
    pub stream: Option<bool>,
    /// The key, sent in the header the API reads it from; absent, no key header.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Another server speaking the API (a proxy, a gateway), as the API's SDK takes it.
    #[serde(default)]
    pub base_url: Option<String>,
    /// The build's `providerOptions`: the streaming choice and the settings that go as headers
    /// (Anthropic's `user_profile_id`, `workspace_id`) are read from the target's section; the
    /// build checks the rest.
    #[serde(default)]
    pub provider_options: Option<serde_json::Value>,
}

impl EndpointInput {
    /// Read from a JSON object by hand (a derived reader would be a second copy of the settings'
    /// readers in the module); `Err` names the field.
    pub fn from_value(value: serde_json::Value) -> Result<EndpointInput, String> {
        use serde_json::Value;
        let serde_json::Value::Object(map) = value else { return Err("must be an object".to_owned()) };
        let mut input = EndpointInput::default();
        for (key, value) in map {
            let text = |v: Value| match v {
                Value::String(s) => Ok(Some(s)),
                Value::Null => Ok(None),
                other => Err(format!("`{key}` must be a string, not {other}")),
            };
            match key.as_str() {
                "provider" => input.provider = text(value)?.map(|p| p.parse()).transpose()?,
                "model" => input.model = text(value)?,
                "apiKey" => input.api_key = text(value)?,
                "baseUrl" => input.base_url = text(value)?,
                "stream" => {
                    input.stream = match value {
                        Value::Bool(b) => Some(b),
                        Value::Null => None,
                        other => return Err(format!("`stream` must be a boolean, not {other}")),
                    }
                }
                "providerOptions" => {
                    input.provider_options = match value {
                        Value::Null => None,
                        v @ Value::Object(_) => Some(v),
                        other => return Err(format!("`providerOptions` must be an object, not {other}")),
                    }
                }
                _ => return Err(super::settings::unknown_key(&key, &["provider", "model", "stream", "apiKey", "baseUrl", "providerOptions"])),
            }
        }
        Ok(input)
    }
}

/// Where to send a request, and with which headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Endpoint {
    pub url: String,
    pub headers: BTreeMap<String, String>,
    /// The answer streams (server-sent events) rather than coming as one JSON body.
    pub stream: bool,
}

/// The URL and headers of a request to `input.provider`; `Err` says what is missing.
pub fn endpoint(input: &EndpointInput) -> Result<Endpoint, String> {
    let provider = input.provider.ok_or("`provider` is missing")?;
    let section = input.provider_options.as_ref().and_then(|o| o.get(provider.as_str())).and_then(Value::as_object);
    let setting = |key: &str| section.and_then(|s| s.get(key));
    let stream = match (input.stream, setting("stream")) {
        (Some(stream), _) => stream,
        (None, Some(Value::Bool(stream))) => *stream,
        (None, Some(Value::Null) | None) => false,
        (None, Some(other)) => return Err(format!("`providerOptions.{provider}.stream` must be a boolean, not {other}")),
    };
    let base = input.base_url.as_deref().map(|b| b.trim_end_matches('/'));
    let mut headers = BTreeMap::from([("content-type".to_owned(), "application/json".to_owned())]);
    let key = input.api_key.as_deref().filter(|k| !k.is_empty());
    let url = match provider {
        Provider::Anthropic => {
            headers.insert("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned());
            if let Some(key) = key {
                headers.insert("x-api-key".to_owned(), key.to_owned());
            }
            format!("{}/v1/messages", base.unwrap_or("https://api.anthropic.com"))
        }
        Provider::OpenAiChat | Provider::OpenAiResponses => {
            if let Some(key) = key {
                headers.insert("authorization".to_owned(), format!("Bearer {key}"));
            }
            let path = if provider == Provider::OpenAiChat { "chat/completions" } else { "responses" };
            format!("{}/{path}", base.unwrap_or("https://api.openai.com/v1"))
        }
        Provider::Gemini => {
            if let Some(key) = key {
                headers.insert("x-goog-api-key".to_owned(), key.to_owned());
            }
            let model = input.model.as_deref().filter(|m| !m.is_empty()).ok_or("`model` is missing: Gemini names the model in the URL")?;
            // `models/…` and `tunedModels/…` are already resource names.
            let name = if model.starts_with("models/") || model.starts_with("tunedModels/") { model.to_owned() } else { format!("models/{model}") };
            let method = if stream { "streamGenerateContent?alt=sse" } else { "generateContent" };
            format!("{}/v1beta/{}:{method}", base.unwrap_or("https://generativelanguage.googleapis.com"), encode_path(&name))
        }
    };
    if stream {
        headers.insert("accept".to_owned(), "text/event-stream".to_owned());
    }
    // The settings that go as headers (the SDK sends them so too).
    let header_settings: &[(&str, &str)] = match provider {
        Provider::Anthropic => &[("user_profile_id", "anthropic-user-profile-id"), ("workspace_id", "anthropic-workspace-id")],
        Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Gemini => &[],
    };
    for (key, header) in header_settings {
        match setting(key) {
            Some(Value::String(v)) => {
                headers.insert((*header).to_owned(), v.clone());
            }
            Some(Value::Null) | None => {}
            Some(other) => return Err(format!("`providerOptions.{provider}.{key}` must be a string, not {other}")),
        }
    }
    Ok(Endpoint { url, headers, stream })
}

/// A resource name made safe for a URL path (its `/` kept).
fn encode_path(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn at(provider: Provider, model: &str, options: serde_json::Value) -> Endpoint {
        let provider_options = Some(options);
        endpoint(&EndpointInput { provider: Some(provider), model: Some(model.into()), api_key: Some("k".into()), provider_options, ..Default::default() }).unwrap()
    }

    fn headers(list: &[(&str, &str)]) -> BTreeMap<String, String> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn each_api_answers_at_its_own_address_with_its_own_headers() {
        let json = serde_json::json!(null);
        assert_eq!(
            at(Provider::Anthropic, "claude-sonnet-4-5", json.clone()),
            Endpoint {
                url: "https://api.anthropic.com/v1/messages".into(),
                headers: headers(&[("anthropic-version", "2023-06-01"), ("content-type", "application/json"), ("x-api-key", "k")]),
                stream: false,
            }
        );
        assert_eq!(at(Provider::OpenAiChat, "gpt-4.1", json.clone()).url, "https://api.openai.com/v1/chat/completions");
        assert_eq!(at(Provider::OpenAiResponses, "gpt-5", json.clone()).headers, headers(&[("authorization", "Bearer k"), ("content-type", "application/json")]));
        assert_eq!(at(Provider::OpenAiResponses, "gpt-5", json.clone()).url, "https://api.openai.com/v1/responses");
        assert_eq!(
            at(Provider::Gemini, "gemini-2.5-flash", json),
            Endpoint {
                url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent".into(),
                headers: headers(&[("content-type", "application/json"), ("x-goog-api-key", "k")]),
                stream: false,
            }
        );
    }

    #[test]
    fn streaming_follows_the_builds_settings_and_gemini_says_it_in_the_url() {
        let e = at(Provider::Gemini, "models/gemini-3-pro-preview", serde_json::json!({"gemini": {"stream": true}}));
        assert_eq!(e.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
        assert_eq!((e.stream, e.headers.get("accept").map(String::as_str)), (true, Some("text/event-stream")));
        // Another API's section says nothing of this one.
        assert!(!at(Provider::Gemini, "gemini-2.5-flash", serde_json::json!({"anthropic": {"stream": true}})).stream);
        assert!(at(Provider::Anthropic, "claude-sonnet-4-5", serde_json::json!({"anthropic": {"stream": true}})).stream);
        assert!(at(Provider::OpenAiChat, "gpt-4.1", serde_json::json!({"openai-chat": {"stream": true}})).stream);
        // Said outright, the input's choice wins.
        let input = EndpointInput { provider: Some(Provider::Anthropic), stream: Some(false), provider_options: Some(serde_json::json!({"anthropic": {"stream": true}})), ..Default::default() };
        assert!(!endpoint(&input).unwrap().stream);
    }

    #[test]
    fn the_input_is_read_field_by_field_and_a_wrong_one_named() {
        let read = |v: serde_json::Value| EndpointInput::from_value(v);
        let input = read(serde_json::json!({"provider": "gemini", "model": "gemini-2.5-flash", "stream": true, "apiKey": null, "providerOptions": {"gemini": {"stream": false}}})).unwrap();
        assert_eq!((input.provider, input.stream, input.api_key.is_none()), (Some(Provider::Gemini), Some(true), true));
        assert_eq!(read(serde_json::json!({"provider": "gemini", "modle": "x"})).unwrap_err(), "unknown field `modle` (did you mean `model`?)");
        assert_eq!(read(serde_json::json!({"provider": 3})).unwrap_err(), "`provider` must be a string, not 3");
        assert!(read(serde_json::json!({"provider": "grok"})).unwrap_err().starts_with("unknown provider `grok`"));
        assert_eq!(read(serde_json::json!({"stream": "yes"})).unwrap_err(), "`stream` must be a boolean, not \"yes\"");
        assert_eq!(read(serde_json::json!({"providerOptions": 1})).unwrap_err(), "`providerOptions` must be an object, not 1");
        let wrong = |options| endpoint(&EndpointInput { provider: Some(Provider::Anthropic), provider_options: Some(options), ..Default::default() }).unwrap_err();
        assert_eq!(wrong(serde_json::json!({"anthropic": {"stream": "yes"}})), "`providerOptions.anthropic.stream` must be a boolean, not \"yes\"");
        assert_eq!(wrong(serde_json::json!({"anthropic": {"workspace_id": 7}})), "`providerOptions.anthropic.workspace_id` must be a string, not 7");
        assert_eq!(read(serde_json::json!([])).unwrap_err(), "must be an object");
    }

    #[test]
    fn header_settings_go_as_headers_and_a_base_url_as_the_sdk_takes_it() {
        let e = at(Provider::Anthropic, "claude-sonnet-4-5", serde_json::json!({"anthropic": {"workspace_id": "wrkspc_1", "user_profile_id": "up_2"}}));
        assert_eq!(e.headers.get("anthropic-workspace-id").map(String::as_str), Some("wrkspc_1"));
        assert_eq!(e.headers.get("anthropic-user-profile-id").map(String::as_str), Some("up_2"));
        let proxied = |provider, base: &str| {
            endpoint(&EndpointInput { provider: Some(provider), model: Some("tuned x".into()), base_url: Some(base.into()), ..Default::default() }).unwrap()
        };
        assert_eq!(proxied(Provider::Anthropic, "http://localhost:8080/").url, "http://localhost:8080/v1/messages");
        assert_eq!(proxied(Provider::OpenAiChat, "https://gateway.example/openai/v1").url, "https://gateway.example/openai/v1/chat/completions");
        assert_eq!(proxied(Provider::Gemini, "http://127.0.0.1:9").url, "http://127.0.0.1:9/v1beta/models/tuned%20x:generateContent");
        // No key given: no key header.
        assert!(!proxied(Provider::Anthropic, "http://x").headers.contains_key("x-api-key"));
        assert_eq!(endpoint(&EndpointInput { provider: Some(Provider::Gemini), ..Default::default() }).unwrap_err(), "`model` is missing: Gemini names the model in the URL");
        assert_eq!(endpoint(&EndpointInput::default()).unwrap_err(), "`provider` is missing");
    }
}
