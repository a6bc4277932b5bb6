//! OpenAI Chat Completions settings: structured output, reasoning effort, verbosity, tool
//! choice and parallel calls, sampling and penalties, seed, logit bias, stop, choices, log
//! probabilities, streaming, service tier, metadata, storage and user ids — and the rules the
//! API's validator applies to them, in its words.
//!
//! `max_tokens` is kept as its own setting (OpenAI deprecates it, but many servers that speak
//! this API read only it); the reply's budget is `max_completion_tokens`, the build's `maxTokens`.

use contextview_derive::ReadValue;
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{decimal_range, integer_range, openai_metadata, Context};
use crate::provider::Violation;

#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatSettings")]
pub struct Settings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<ReasoningEffort>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verbosity: Option<Verbosity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Only with tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// 0 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// -2 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    /// -2 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Token id → bias from -100 to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logit_bias: Option<BTreeMap<String, i64>>,
    /// Deprecated by OpenAI in favour of `max_completion_tokens`, still read by many servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Choices to generate; the first is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// Up to 4 sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<bool>,
    /// 0 to 20, with `logprobs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_logprobs: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction: Option<Prediction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<ServiceTier>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    /// Up to 16 pairs; keys up to 64 characters, values up to 512.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_identifier: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_retention: Option<CacheRetention>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Only with `stream`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    // Passed through as given (the API checks them; their shapes are in crates/js/src/shapes).
    /// A moderation model run on the input and the output, scoring or blocking.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "OpenAiChatModeration")]
    pub moderation: Value,
    /// Implicit or explicit cache breakpoints.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "OpenAiChatPromptCacheOptions")]
    pub prompt_cache_options: Value,
    /// Web search, for the search models.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "OpenAiChatWebSearchOptions")]
    pub web_search_options: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiReasoningEffort")]
#[serde(rename_all = "snake_case")]
pub enum ReasoningEffort {
    None,
    Minimal,
    Low,
    Medium,
    High,
    Xhigh,
    Max,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiVerbosity")]
#[serde(rename_all = "snake_case")]
pub enum Verbosity {
    Low,
    Medium,
    High,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, contextview_derive::ReadValue)]
#[shape(name = "OpenAiChatResponseFormat")]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ResponseFormat {
    Text,
    JsonObject,
    JsonSchema { json_schema: JsonSchema },
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatJsonSchema")]
#[serde(deny_unknown_fields)]
pub struct JsonSchema {
    /// `a-z A-Z 0-9 _ -`, up to 64 characters.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[shape(declared = "AnyObject")]
    pub schema: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// `"none" | "auto" | "required"`, a named function or custom tool, or a set of allowed tools.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatToolChoice")]
#[serde(untagged)]
pub enum ToolChoice {
    Mode(ToolChoiceMode),
    Named(NamedToolChoice),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiToolChoiceMode")]
#[serde(rename_all = "snake_case")]
pub enum ToolChoiceMode {
    None,
    Auto,
    Required,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, contextview_derive::ReadValue)]
#[shape(name = "OpenAiChatNamedToolChoice")]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum NamedToolChoice {
    Function { function: ToolName },
    Custom { custom: ToolName },
    AllowedTools { allowed_tools: AllowedTools },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatToolName")]
#[serde(deny_unknown_fields)]
pub struct ToolName {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatAllowedTools")]
#[serde(deny_unknown_fields)]
pub struct AllowedTools {
    pub mode: AllowedMode,
    /// Each a named function or custom tool (the SDK types them as any object).
    #[shape(declared = "AnyObject")]
    pub tools: Vec<NamedToolChoice>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiAllowedMode")]
#[serde(rename_all = "snake_case")]
pub enum AllowedMode {
    Auto,
    Required,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatStop")]
#[serde(untagged)]
pub enum Stop {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, contextview_derive::ReadValue)]
#[shape(name = "OpenAiChatPrediction")]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Prediction {
    /// The predicted output: a string, or text parts.
    Content {
        #[shape(declared = "OpenAiChatPredictionContent")]
        content: Value,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiServiceTier")]
#[serde(rename_all = "snake_case")]
pub enum ServiceTier {
    Auto,
    Default,
    Flex,
    Scale,
    Priority,
    Fast,
    /// OpenAI Responses only.
    Ultrafast,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiCacheRetention")]
pub enum CacheRetention {
    #[serde(rename = "in_memory")]
    InMemory,
    #[serde(rename = "24h")]
    Day,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatStreamOptions")]
#[serde(deny_unknown_fields)]
pub struct StreamOptions {
    /// A last chunk with the usage (what the ledger anchors on): ask for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_usage: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_obfuscation: Option<bool>,
}

/// The names a tool choice points at.
fn chosen_names(choice: &NamedToolChoice, out: &mut Vec<String>) {
    match choice {
        NamedToolChoice::Function { function } => out.push(function.name.clone()),
        NamedToolChoice::Custom { custom } => out.push(custom.name.clone()),
        NamedToolChoice::AllowedTools { allowed_tools } => allowed_tools.tools.iter().for_each(|t| chosen_names(t, out)),
    }
}

pub fn check(s: &Settings, context: &Context<'_>) -> Vec<Violation> {
    let rule = crate::provider::rules::OPENAI_CHAT_SETTINGS;
    let mut out = Vec::new();
    decimal_range(&mut out, rule, "temperature", s.temperature, 0.0, 2.0);
    decimal_range(&mut out, rule, "top_p", s.top_p, 0.0, 1.0);
    decimal_range(&mut out, rule, "presence_penalty", s.presence_penalty, -2.0, 2.0);
    decimal_range(&mut out, rule, "frequency_penalty", s.frequency_penalty, -2.0, 2.0);
    integer_range(&mut out, rule, "n", s.n.map(i64::from), 1, 128);
    integer_range(&mut out, rule, "top_logprobs", s.top_logprobs.map(i64::from), 0, 20);
    if let Some(Stop::Many(stops)) = &s.stop {
        if stops.len() > 4 {
            out.push(Violation::new(
                rule,
                "stop",
                format!("Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length {} instead.", stops.len()),
            ));
        }
    }
    if let Some(bias) = &s.logit_bias {
        if bias.len() > 1024 {
            out.push(Violation::new(
                rule,
                "logit_bias",
                format!("Invalid 'logit_bias': too many properties. Expected an object with at most 1024 properties, but got an object with {} properties instead.", bias.len()),
            ));
        }
        for (token, value) in bias {
            if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
                out.push(Violation::new(rule, "logit_bias", format!("Invalid 'logit_bias': the keys are token ids (integers), not '{token}'.")));
            }
            integer_range(&mut out, rule, &format!("logit_bias.{token}"), Some(*value), -100, 100);
        }
    }
    if s.service_tier == Some(ServiceTier::Ultrafast) {
        out.push(Violation::new(
            rule,
            "service_tier",
            "Invalid value: 'ultrafast'. Supported values are: 'auto', 'default', 'flex', 'scale', 'priority', and 'fast'.",
        ));
    }
    if s.top_logprobs.is_some() && s.logprobs != Some(true) {
        out.push(Violation::new(rule, "top_logprobs", "The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled."));
    }
    if s.stream_options.is_some() && s.stream != Some(true) {
        out.push(Violation::new(rule, "stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled."));
    }
    if context.tools.is_empty() {
        for (key, set) in [("tool_choice", s.tool_choice.is_some()), ("parallel_tool_calls", s.parallel_tool_calls.is_some())] {
            if set {
                out.push(Violation::new(rule, key, format!("Invalid value for '{key}': '{key}' is only allowed when 'tools' are specified.")));
            }
        }
    } else if let Some(ToolChoice::Named(named)) = &s.tool_choice {
        let mut names = Vec::new();
        chosen_names(named, &mut names);
        for name in names.iter().filter(|n| !context.tools.contains(&n.as_str())) {
            out.push(Violation::new(rule, "tool_choice", format!("Tool choice '{name}' not found in 'tools' parameter.")));
        }
    }
    if let Some(ResponseFormat::JsonSchema { json_schema }) = &s.response_format {
        let name = &json_schema.name;
        if name.is_empty() || name.len() > 64 || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
            out.push(Violation::new(
                rule,
                "response_format.json_schema.name",
                "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.",
            ));
        }
    }
    openai_metadata(&mut out, rule, s.metadata.as_ref());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn said(settings: Value, tools: &[&str]) -> Vec<String> {
        let s: Settings = serde_json::from_value(settings).unwrap();
        check(&s, &Context { model: "gpt-4.1", max_tokens: None, tools, system: false }).into_iter().map(|v| v.message).collect()
    }

    /// The tagged enums, each declared once (`#[derive(ReadValue)]`), and the untagged ones, read by
    /// hand, take and refuse what serde's derived readers took and refused, in their words.
    #[test]
    fn tagged_and_untagged_settings_read_as_serde_s_readers() {
        let format = |v: Value| ResponseFormat::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(format(json!({"type": "json_object", "x": 1})), Ok(ResponseFormat::JsonObject));
        assert_eq!(format(json!({"type": "json_schema"})), Err("missing field `json_schema`".into()));
        assert_eq!(format(json!({"type": "json_schema", "json_schema": {"name": "n", "x": 1}})), Err("unknown field `x`, expected one of `name`, `description`, `schema`, `strict`".into()));
        let choice = |v: Value| ToolChoice::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(choice(json!("required")), Ok(ToolChoice::Mode(ToolChoiceMode::Required)));
        assert_eq!(choice(json!({"type": "function", "function": {"name": "f"}})), Ok(ToolChoice::Named(NamedToolChoice::Function { function: ToolName { name: "f".into() } })));
        for bad in [json!("sometimes"), json!({"type": "function"}), json!({"type": "hosted"}), json!(3), json!(null)] {
            assert_eq!(choice(bad.clone()), Err("data did not match any variant of untagged enum ToolChoice".into()), "{bad}");
        }
        let stop = |v: Value| Stop::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(stop(json!("END")), Ok(Stop::One("END".into())));
        assert_eq!(stop(json!(["a", "b"])), Ok(Stop::Many(vec!["a".into(), "b".into()])));
        for bad in [json!(3), json!([1]), json!({"a": "b"}), json!(null)] {
            assert_eq!(stop(bad.clone()), Err("data did not match any variant of untagged enum Stop".into()), "{bad}");
        }
        let prediction = |v: Value| Prediction::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(prediction(json!({"type": "content", "content": "x"})), Ok(Prediction::Content { content: json!("x") }));
        assert_eq!(prediction(json!({"type": "content", "content": "x", "extra": 1})), Err("unknown field `extra`, expected `content`".into()));
    }

    #[test]
    fn ranges_are_said_as_openai_says_them() {
        assert_eq!(said(json!({"temperature": 2, "top_p": 1, "n": 1, "presence_penalty": -2}), &[]), Vec::<String>::new());
        assert_eq!(
            said(json!({"temperature": 2.1, "top_p": -0.5, "n": 0, "stop": ["a", "b", "c", "d", "e"], "logit_bias": {"50256": -101}}), &[]),
            [
                "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.1 instead.",
                "Invalid 'top_p': decimal below minimum value. Expected a value >= 0, but got -0.5 instead.",
                "Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead.",
                "Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length 5 instead.",
                "Invalid 'logit_bias.50256': integer below minimum value. Expected a value >= -100, but got -101 instead.",
            ]
        );
    }

    #[test]
    fn settings_that_need_another_are_refused_without_it() {
        assert_eq!(
            said(json!({"top_logprobs": 3, "stream_options": {"include_usage": true}, "tool_choice": "required", "parallel_tool_calls": false}), &[]),
            [
                "The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled.",
                "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
                "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
            ]
        );
        assert_eq!(said(json!({"logprobs": true, "top_logprobs": 3, "stream": true, "stream_options": {"include_usage": true}}), &[]), Vec::<String>::new());
    }

    #[test]
    fn a_chosen_function_must_be_defined() {
        assert_eq!(said(json!({"tool_choice": {"type": "function", "function": {"name": "read"}}}), &["read"]), Vec::<String>::new());
        assert_eq!(
            said(json!({"tool_choice": {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [
                {"type": "function", "function": {"name": "read"}}, {"type": "function", "function": {"name": "write"}}]}}}), &["read"]),
            ["Tool choice 'write' not found in 'tools' parameter."]
        );
    }

    #[test]
    fn metadata_and_schema_names_keep_their_limits() {
        let many: Map<String, Value> = (0..17).map(|i| (format!("k{i}"), json!("v"))).collect();
        assert_eq!(
            said(json!({"metadata": many, "response_format": {"type": "json_schema", "json_schema": {"name": "a b"}}}), &[]),
            [
                "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.",
                "Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with 17 properties instead.",
            ]
        );
    }
}
