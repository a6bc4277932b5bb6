//! Provider settings: every documented request parameter of the four APIs that is not the
//! conversation, its system prompt or its tools — extended thinking, tool choice, sampling,
//! stop sequences, structured output, reasoning effort, safety settings, metadata, service
//! tiers, streaming — in each API's own field names, so a developer copies them from the
//! provider's documentation or SDK as they are.
//!
//! A build takes them as `providerOptions`, one section per API (`anthropic`, `openai-chat`,
//! `openai-responses`, `gemini`); only the target API's section is used, so one options object
//! serves a session that switches providers. The settings are typed (a value of the wrong
//! type or an unknown variant is refused with its path), an unknown key is refused with the
//! closest valid one, and each API's documented rules are checked with the provider's own error
//! texts before anything is rendered ([`check`]). Rendered, they sit in the body's envelope at
//! their place — `generationConfig` is one object whatever sets it — in a fixed order, so the
//! same settings give the same bytes on every step and the prefix stays cached.
//!
//! Three keys are another option of the build under the API's name: the reply's budget
//! (`max_tokens`, `max_completion_tokens`, `max_output_tokens`, `generationConfig.maxOutputTokens`
//! are `maxTokens`) and OpenAI's `prompt_cache_key` (`cache.key`); given in both places they must
//! agree. Keys the build makes itself (the model, the conversation, the system prompt, the
//! tools, Anthropic's `cache_control`) and keys that would make the provider replay stored
//! history on top of ours (`previous_response_id`, `conversation`) are refused with the option
//! to use instead.

pub mod anthropic;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::{Provider, Violation};

/// The settings a build renders, per API (each renderer reads its own).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub anthropic: anthropic::Settings,
    pub openai_chat: openai_chat::Settings,
    pub openai_responses: openai_responses::Settings,
    pub gemini: gemini::Settings,
}

/// `providerOptions` as a build takes it: one section per API, read and checked for types and
/// keys; the rules that need the rest of the build are [`check`]ed when it is built.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderOptions {
    /// The sections' settings, without the keys that are other options.
    pub settings: Settings,
    /// The reply's budget per API, where its section gives one.
    pub budget: PerApi<u32>,
    /// OpenAI's `prompt_cache_key`, where a section gives one.
    pub cache_key: PerApi<String>,
    /// As given, for serializing back.
    raw: Map<String, Value>,
}

/// One optional value per API.
#[derive(Debug, Clone, PartialEq)]
pub struct PerApi<T>([Option<T>; 4]);

impl<T> Default for PerApi<T> {
    fn default() -> Self {
        PerApi([None, None, None, None])
    }
}

impl<T> PerApi<T> {
    pub fn get(&self, provider: Provider) -> Option<&T> {
        self.0[index(provider)].as_ref()
    }

    fn set(&mut self, provider: Provider, value: Option<T>) {
        self.0[index(provider)] = value;
    }
}

fn index(provider: Provider) -> usize {
    match provider {
        Provider::Anthropic => 0,
        Provider::OpenAiChat => 1,
        Provider::OpenAiResponses => 2,
        Provider::Gemini => 3,
    }
}

/// Keys a section may not hold, with what to do instead.
fn refused(provider: Provider, key: &str) -> Option<&'static str> {
    let common = match key {
        "model" => Some("the model is the build's `model` option"),
        "tools" | "functions" => Some("tools are the build's `tools` option (any shape: see ToolInput)"),
        _ => None,
    };
    common.or(match provider {
        Provider::Anthropic => match key {
            "messages" => Some("the conversation comes from the session"),
            "system" => Some("the system prompt is the build's `system` option"),
            "cache_control" => Some("prompt caching is the build's `cache` option"),
            _ => None,
        },
        Provider::OpenAiChat => match key {
            "messages" => Some("the conversation comes from the session"),
            "function_call" => Some("use `tool_choice`"),
            "audio" | "modalities" => Some("a spoken answer is not something the session's log records"),
            _ => None,
        },
        Provider::OpenAiResponses => match key {
            "input" => Some("the conversation comes from the session"),
            "instructions" => Some("the system prompt is the build's `system` option"),
            "previous_response_id" | "conversation" => {
                Some("every request carries the whole conversation; a stored one would be replayed on top of it")
            }
            "context_management" => {
                Some("the context is the session's to shape (pruning, `prepareCompaction`); a compaction on the server would rewrite it behind the log")
            }
            "prompt" => Some("a stored prompt template's text would be in neither the request nor the log; give it as the build's `system` option"),
            _ => None,
        },
        Provider::Gemini => match key {
            "contents" => Some("the conversation comes from the session"),
            "systemInstruction" => Some("the system prompt is the build's `system` option"),
            _ => None,
        },
    })
}

/// The section keys, in order.
const SECTIONS: [(&str, Provider); 4] = [
    ("anthropic", Provider::Anthropic),
    ("openai-chat", Provider::OpenAiChat),
    ("openai-responses", Provider::OpenAiResponses),
    ("gemini", Provider::Gemini),
];

/// The keys a section's budget and cache key go by.
fn alias_keys(provider: Provider) -> (&'static str, Option<&'static str>) {
    match provider {
        Provider::Anthropic => ("max_tokens", None),
        Provider::OpenAiChat => ("max_completion_tokens", Some("prompt_cache_key")),
        Provider::OpenAiResponses => ("max_output_tokens", Some("prompt_cache_key")),
        // Gemini's sits inside `generationConfig` (taken out after the section is read).
        Provider::Gemini => ("", None),
    }
}

/// `unknown field `x``, with the closest valid field when one is close.
pub fn unknown_key(key: &str, valid: &[&str]) -> String {
    let closest = valid
        .iter()
        .map(|v| (strsim::normalized_damerau_levenshtein(&key.to_ascii_lowercase(), &v.to_ascii_lowercase()), *v))
        .filter(|(score, _)| *score >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match closest {
        Some((_, v)) => format!("unknown field `{key}` (did you mean `{v}`?)"),
        None => format!("unknown field `{key}` (expected one of {})", valid.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")),
    }
}

/// Reads one API's section: its keys checked, the aliases taken out, the rest typed.
fn section<S: de::DeserializeOwned + crate::value_read::Fields>(provider: Provider, name: &str, value: Value, out: &mut ProviderOptions) -> Result<S, String> {
    let Value::Object(mut map) = value else { return Err(format!("{name}: must be an object of that API's request settings")) };
    let (budget_key, cache_key) = alias_keys(provider);
    // Null is as good as absent, here as everywhere in a section (the SDKs' types allow it).
    let budget = match map.remove(budget_key) {
        Some(Value::Null) | None => None,
        Some(v) => Some(crate::diagnostic::from_value::<u32>(v).map_err(|e| format!("{name}.{budget_key}: {e}"))?),
    };
    let cache = match cache_key.and_then(|k| map.remove(k)) {
        Some(Value::Null) | None => None,
        Some(v) => Some(crate::diagnostic::from_value::<String>(v).map_err(|e| format!("{name}.prompt_cache_key: {e}"))?),
    };
    let fields = field_names::<S>();
    for key in map.keys() {
        if let Some(why) = refused(provider, key) {
            return Err(format!("{name}.{key} cannot be set here: {why}"));
        }
        if !fields.contains(&key.as_str()) {
            let mut valid: Vec<&str> = fields.to_vec();
            valid.extend([budget_key].into_iter().filter(|k| !k.is_empty()).chain(cache_key));
            return Err(format!("{name}: {}", unknown_key(key, &valid)));
        }
    }
    // Under the section's name: `anthropic.thinking.type: …` where the place is known, else
    // `anthropic: missing field …`.
    let settings = crate::diagnostic::read_value::<S>(Value::Object(map)).map_err(|e| match e.path {
        Some(_) => format!("{name}.{}", e.message),
        None => format!("{name}: {}", e.message),
    })?;
    out.budget.set(provider, budget);
    out.cache_key.set(provider, cache);
    Ok(settings)
}

impl<'de> Deserialize<'de> for ProviderOptions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let Value::Object(raw) = Value::deserialize(deserializer)? else {
            return Err(de::Error::custom("providerOptions: must be an object with a section per API (`anthropic`, `openai-chat`, `openai-responses`, `gemini`)"));
        };
        let mut out = ProviderOptions { raw: raw.clone(), ..ProviderOptions::default() };
        for (key, value) in raw {
            let Some((name, provider)) = SECTIONS.iter().find(|(name, _)| *name == key) else {
                let names: Vec<&str> = SECTIONS.iter().map(|(n, _)| *n).collect();
                return Err(de::Error::custom(format!("providerOptions: {}", unknown_key(&key, &names))));
            };
            if value.is_null() {
                continue;
            }
            let read = match provider {
                Provider::Anthropic => section(*provider, name, value, &mut out).map(|s| out.settings.anthropic = s),
                Provider::OpenAiChat => section(*provider, name, value, &mut out).map(|s| out.settings.openai_chat = s),
                Provider::OpenAiResponses => section(*provider, name, value, &mut out).map(|s| out.settings.openai_responses = s),
                Provider::Gemini => section(*provider, name, value, &mut out).map(|s: gemini::Settings| {
                    out.budget.set(Provider::Gemini, s.generation_config.as_ref().and_then(|g| g.max_output_tokens));
                    out.settings.gemini = s;
                    if let Some(g) = out.settings.gemini.generation_config.as_mut() {
                        g.max_output_tokens = None;
                    }
                }),
            };
            read.map_err(|e| de::Error::custom(format!("providerOptions.{e}")))?;
        }
        Ok(out)
    }
}

impl Serialize for ProviderOptions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

/// The field names a struct's reader expects (what `#[derive(ReadValue)]` generates it with).
pub(crate) fn field_names<T: crate::value_read::Fields>() -> &'static [&'static str] {
    T::FIELDS
}

/// What the rules of a section are checked against besides the settings themselves.
pub struct Context<'a> {
    pub model: &'a str,
    /// The reply's budget as the body will carry it.
    pub max_tokens: Option<u32>,
    /// Names of the tools the request defines.
    pub tools: &'a [&'a str],
    /// The request has a system prompt.
    pub system: bool,
}

/// The target API's settings checked against its documented rules, with the provider's own
/// error texts where they are known.
pub fn check(provider: Provider, settings: &Settings, context: &Context<'_>) -> Vec<Violation> {
    match provider {
        Provider::Anthropic => anthropic::check(&settings.anthropic, context),
        Provider::OpenAiChat => openai_chat::check(&settings.openai_chat, context),
        Provider::OpenAiResponses => openai_responses::check(&settings.openai_responses, context),
        Provider::Gemini => gemini::check(&settings.gemini, context),
    }
}

/// A number within `[min, max]`, or the violation OpenAI's validator words this way.
pub(crate) fn decimal_range(out: &mut Vec<Violation>, rule: &str, path: &str, value: Option<f64>, min: f64, max: f64) {
    let Some(v) = value else { return };
    if v > max {
        out.push(Violation::new(
            rule,
            path,
            format!("Invalid '{path}': decimal above maximum value. Expected a value <= {}, but got {} instead.", number(max), number(v)),
        ));
    } else if v < min || v.is_nan() {
        out.push(Violation::new(
            rule,
            path,
            format!("Invalid '{path}': decimal below minimum value. Expected a value >= {}, but got {} instead.", number(min), number(v)),
        ));
    }
}

/// An integer within `[min, max]` (OpenAI's wording).
pub(crate) fn integer_range(out: &mut Vec<Violation>, rule: &str, path: &str, value: Option<i64>, min: i64, max: i64) {
    let Some(v) = value else { return };
    if v > max {
        out.push(Violation::new(rule, path, format!("Invalid '{path}': integer above maximum value. Expected a value <= {max}, but got {v} instead.")));
    } else if v < min {
        out.push(Violation::new(rule, path, format!("Invalid '{path}': integer below minimum value. Expected a value >= {min}, but got {v} instead.")));
    }
}

/// A number as the providers print it: `2`, not `2.0`.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// OpenAI's metadata limits: 16 pairs, keys of 64 characters, values of 512.
pub(crate) fn openai_metadata(out: &mut Vec<Violation>, rule: &str, metadata: Option<&std::collections::BTreeMap<String, String>>) {
    let Some(metadata) = metadata else { return };
    if metadata.len() > 16 {
        out.push(Violation::new(
            rule,
            "metadata",
            format!("Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with {} properties instead.", metadata.len()),
        ));
    }
    for (key, value) in metadata {
        let (k, v) = (key.chars().count(), value.chars().count());
        if k > 64 {
            out.push(Violation::new(
                rule,
                "metadata",
                format!("Invalid property name in 'metadata': '{key}' is too long. Expected a string with maximum length 64, but got a string with length {k} instead."),
            ));
        }
        if v > 512 {
            out.push(Violation::new(
                rule,
                format!("metadata.{key}"),
                format!("Invalid 'metadata.{key}': string too long. Expected a string with maximum length 512, but got a string with length {v} instead."),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn read(v: Value) -> Result<ProviderOptions, String> {
        crate::diagnostic::from_value(v)
    }

    #[test]
    fn an_unknown_key_names_the_closest_valid_one() {
        assert_eq!(read(json!({"anthropic": {"temprature": 0.5}})).unwrap_err(), "providerOptions.anthropic: unknown field `temprature` (did you mean `temperature`?)");
        assert_eq!(read(json!({"openai_chat": {}})).unwrap_err(), "providerOptions: unknown field `openai_chat` (did you mean `openai-chat`?)");
        assert_eq!(
            read(json!({"gemini": {"generation_config": {}}})).unwrap_err(),
            "providerOptions.gemini: unknown field `generation_config` (did you mean `generationConfig`?)"
        );
        assert_eq!(read(json!({"openai-responses": {"max_tokens": 5}})).unwrap_err(), "providerOptions.openai-responses: unknown field `max_tokens` (did you mean `max_output_tokens`?)");
        let far = read(json!({"anthropic": {"zzzz": 1}})).unwrap_err();
        assert!(far.starts_with("providerOptions.anthropic: unknown field `zzzz` (expected one of `thinking`, "), "{far}");
    }

    #[test]
    fn a_value_of_the_wrong_shape_is_refused_with_its_path() {
        assert_eq!(
            read(json!({"anthropic": {"stop_sequences": ["a", 5]}})).unwrap_err(),
            "providerOptions.anthropic.stop_sequences[1]: invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            read(json!({"anthropic": {"thinking": {"type": "enabled", "budget_tokens": "lots"}}})).unwrap_err(),
            "providerOptions.anthropic.thinking.budget_tokens: invalid type: string \"lots\", expected u32"
        );
        let e = read(json!({"openai-chat": {"reasoning_effort": "hgh"}})).unwrap_err();
        assert!(e.starts_with("providerOptions.openai-chat.reasoning_effort: unknown variant `hgh`"), "{e}");
        assert_eq!(read(json!({"gemini": []})).unwrap_err(), "providerOptions.gemini: must be an object of that API's request settings");
        // A missing field has no key to point at: the section is the place.
        assert_eq!(
            read(json!({"anthropic": {"thinking": {"type": "enabled"}}})).unwrap_err(),
            "providerOptions.anthropic: missing field `budget_tokens`"
        );
    }

    #[test]
    fn what_the_build_makes_itself_is_refused_with_the_option_to_use() {
        for (options, says) in [
            (json!({"anthropic": {"model": "x"}}), "providerOptions.anthropic.model cannot be set here: the model is the build's `model` option"),
            (json!({"anthropic": {"cache_control": {"type": "ephemeral"}}}), "providerOptions.anthropic.cache_control cannot be set here: prompt caching is the build's `cache` option"),
            (json!({"openai-responses": {"previous_response_id": "resp_1"}}), "providerOptions.openai-responses.previous_response_id cannot be set here: every request"),
            (json!({"gemini": {"contents": []}}), "providerOptions.gemini.contents cannot be set here"),
        ] {
            let e = read(options.clone()).unwrap_err();
            assert!(e.starts_with(says), "{options}: {e}");
        }
    }

    #[test]
    fn the_budget_and_the_cache_key_are_taken_out_of_their_sections() {
        let o = read(json!({
            "anthropic": {"max_tokens": 100},
            "openai-chat": {"max_completion_tokens": 200, "prompt_cache_key": "k"},
            "openai-responses": {"max_output_tokens": 300},
            "gemini": {"generationConfig": {"maxOutputTokens": 400, "temperature": 0.5}}
        }))
        .unwrap();
        let budgets: Vec<Option<u32>> = Provider::ALL.iter().map(|p| o.budget.get(*p).copied()).collect();
        assert_eq!(budgets, [Some(100), Some(200), Some(300), Some(400)]);
        assert_eq!(o.cache_key.get(Provider::OpenAiChat).map(String::as_str), Some("k"));
        assert_eq!(o.settings.gemini.generation_config.as_ref().unwrap().max_output_tokens, None);
        assert_eq!(o.settings.gemini.generation_config.as_ref().unwrap().temperature, Some(0.5));
    }

    #[test]
    fn field_names_are_what_serde_reads() {
        assert_eq!(field_names::<anthropic::Metadata>(), ["user_id"]);
    }
}
