//! OpenAI Responses settings: reasoning (effort, summary), what to include (encrypted
//! reasoning first of all, for `store: false`), storage, text format and verbosity, tool choice,
//! sampling, tool-call limits, metadata, service tier, truncation, background and streaming —
//! and the rules the API's validator applies to them, in its words.

use contextview_derive::ReadValue;
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::openai_chat::{AllowedMode, CacheRetention, ReasoningEffort, ServiceTier, ToolChoiceMode, Verbosity};
use super::{decimal_range, integer_range, openai_metadata, Context};
use crate::provider::Violation;

#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesSettings")]
pub struct Settings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// Extra output to include: `reasoning.encrypted_content` (reasoning a `store: false`
    /// conversation can send back), and [`INCLUDABLE`]'s others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[shape(declared = "OpenAiResponsesIncludable")]
    pub include: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// Built-in tool calls allowed in one response (at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u32>,
    /// 0 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// 0 to 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_logprobs: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncation: Option<Truncation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<ServiceTier>,
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
    pub background: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    // Passed through as given (the API checks them; their shapes are in crates/js/src/shapes).
    /// A moderation model run on the input and the output, scoring or blocking.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "OpenAiResponsesModeration")]
    pub moderation: Value,
    /// Cache breakpoints, their lifetime, and warming the cache without an answer.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "OpenAiResponsesPromptCacheOptions")]
    pub prompt_cache_options: Value,
    /// The completion window of a background response.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "OpenAiResponsesBackgroundOptions")]
    pub background_options: Value,
    /// Whether image context is compressed.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "OpenAiResponsesImage")]
    pub image: Value,
    /// Access programs the request runs under.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "OpenAiResponsesAccessPrograms")]
    pub access_programs: Value,
}

/// What `include` takes (as the API lists it in its error).
pub const INCLUDABLE: [&str; 8] = [
    "file_search_call.results",
    "web_search_call.results",
    "web_search_call.action.sources",
    "message.input_image.image_url",
    "computer_call_output.output.image_url",
    "code_interpreter_call.outputs",
    "reasoning.encrypted_content",
    "message.output_text.logprobs",
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesReasoning")]
#[serde(deny_unknown_fields)]
pub struct Reasoning {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<ReasoningEffort>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesSummary")]
#[serde(rename_all = "snake_case")]
pub enum Summary {
    Auto,
    Concise,
    Detailed,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesText")]
#[serde(deny_unknown_fields)]
pub struct Text {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<TextFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verbosity: Option<Verbosity>,
}

/// The output's format. Unlike Chat's, a JSON schema's fields sit on the format itself.
#[derive(Debug, Clone, PartialEq, serde::Serialize, contextview_derive::ReadValue)]
#[shape(name = "OpenAiResponsesTextFormat")]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TextFormat {
    Text,
    JsonObject,
    JsonSchema {
        name: String,
        #[shape(declared = "AnyObject")]
        schema: Map<String, Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
}

/// `"none" | "auto" | "required"`, a function or custom tool by name, a set of allowed tools,
/// or a hosted tool by type.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesToolChoice")]
#[serde(untagged)]
pub enum ToolChoice {
    Mode(ToolChoiceMode),
    Named(NamedToolChoice),
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesNamedToolChoice")]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum NamedToolChoice {
    Function {
        name: String,
    },
    Custom {
        name: String,
    },
    AllowedTools {
        mode: AllowedMode,
        #[shape(declared = "AnyObject")]
        tools: Vec<Map<String, Value>>,
    },
    /// A hosted tool (`{type: "web_search_preview"}`, `{type: "mcp", server_label}`, …): any
    /// object that is none of the above.
    #[serde(untagged)]
    #[shape(declared = "OpenAiResponsesHostedToolChoice")]
    Hosted(Map<String, Value>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesTruncation")]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    Auto,
    Disabled,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesStreamOptions")]
#[serde(deny_unknown_fields)]
pub struct StreamOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_obfuscation: Option<bool>,
}

pub fn check(s: &Settings, context: &Context<'_>) -> Vec<Violation> {
    let rule = crate::provider::rules::OPENAI_RESPONSES_SETTINGS;
    let mut out = Vec::new();
    decimal_range(&mut out, rule, "temperature", s.temperature, 0.0, 2.0);
    decimal_range(&mut out, rule, "top_p", s.top_p, 0.0, 1.0);
    integer_range(&mut out, rule, "top_logprobs", s.top_logprobs.map(i64::from), 0, 20);
    integer_range(&mut out, rule, "max_tool_calls", s.max_tool_calls.map(i64::from), 1, i64::MAX);
    integer_range(&mut out, rule, "max_output_tokens", context.max_tokens.map(i64::from), 16, i64::MAX);
    let supported = INCLUDABLE.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>();
    let supported = format!("{}, and {}", supported[..supported.len() - 1].join(", "), supported[supported.len() - 1]);
    for (i, value) in s.include.iter().flatten().enumerate() {
        if !INCLUDABLE.contains(&value.as_str()) {
            out.push(Violation::new(rule, format!("include[{i}]"), format!("Invalid value: '{value}'. Supported values are: {supported}.")));
        }
    }
    if let Some(ToolChoice::Named(NamedToolChoice::Function { name } | NamedToolChoice::Custom { name })) = &s.tool_choice {
        if !context.tools.contains(&name.as_str()) {
            out.push(Violation::new(rule, "tool_choice", format!("Tool choice '{name}' not found in 'tools' parameter.")));
        }
    }
    if s.stream_options.is_some() && s.stream != Some(true) {
        out.push(Violation::new(rule, "stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled."));
    }
    if let Some(ToolChoice::Named(NamedToolChoice::Hosted(hosted))) = &s.tool_choice {
        match hosted.get("type").and_then(Value::as_str) {
            Some("mcp") if !hosted.get("server_label").is_some_and(Value::is_string) => {
                out.push(Violation::new(rule, "tool_choice.server_label", "Missing required parameter: 'tool_choice.server_label'."));
            }
            Some(kind) if HOSTED_CHOICES.contains(&kind) => {}
            kind => out.push(Violation::new(
                rule,
                "tool_choice.type",
                format!(
                    "Invalid value: {}. Supported values are: 'function', 'custom', 'allowed_tools', {}.",
                    kind.map_or("none".to_owned(), |k| format!("'{k}'")),
                    HOSTED_CHOICES.iter().map(|k| format!("'{k}'")).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }
    openai_metadata(&mut out, rule, s.metadata.as_ref());
    out
}

/// The hosted tools a `tool_choice` may name by type.
const HOSTED_CHOICES: [&str; 12] = [
    "file_search",
    "web_search_preview",
    "computer",
    "computer_use_preview",
    "computer_use",
    "web_search_preview_2025_03_11",
    "image_generation",
    "code_interpreter",
    "mcp",
    "apply_patch",
    "shell",
    "programmatic_tool_calling",
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn said(settings: Value, max_tokens: Option<u32>, tools: &[&str]) -> Vec<String> {
        let s: Settings = serde_json::from_value(settings).unwrap();
        check(&s, &Context { model: "gpt-5", max_tokens, tools, system: false }).into_iter().map(|v| v.message).collect()
    }

    /// A named tool choice reads as serde's reader with its untagged variant read it: a tagged
    /// variant that reads whole, else any object kept as a hosted tool; the format's unit
    /// variants ignore other keys; what is not an object is refused in serde's words.
    #[test]
    fn tool_choices_and_formats_read_as_serde_s_readers() {
        let named = |v: Value| NamedToolChoice::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(named(json!({"type": "function", "name": "a"})), Ok(NamedToolChoice::Function { name: "a".into() }));
        for hosted in [json!({"type": "function"}), json!({"type": "function", "name": "a", "x": 1}), json!({"type": "web_search_preview"}), json!({"x": 1})] {
            assert_eq!(named(hosted.clone()), Ok(NamedToolChoice::Hosted(hosted.as_object().unwrap().clone())), "{hosted}");
        }
        for bad in [json!("auto"), json!(3), json!(null)] {
            assert_eq!(named(bad.clone()), Err("data did not match any variant of untagged enum NamedToolChoice".into()), "{bad}");
        }
        let choice = |v: Value| ToolChoice::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(choice(json!("none")), Ok(ToolChoice::Mode(ToolChoiceMode::None)));
        assert_eq!(choice(json!({"type": "mcp", "server_label": "s"})), Ok(ToolChoice::Named(NamedToolChoice::Hosted(json!({"type": "mcp", "server_label": "s"}).as_object().unwrap().clone()))));
        assert_eq!(choice(json!("sometimes")), Err("data did not match any variant of untagged enum ToolChoice".into()));
        let format = |v: Value| TextFormat::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(format(json!({"type": "text", "x": 1})), Ok(TextFormat::Text));
        assert_eq!(format(json!({"type": "json_schema", "name": "n"})), Err("missing field `schema`".into()));
        assert_eq!(
            format(json!({"type": "json_schema", "name": "n", "schema": {}, "x": 1})),
            Err("unknown field `x`, expected one of `name`, `schema`, `description`, `strict`".into())
        );
    }

    #[test]
    fn include_takes_the_values_the_api_lists() {
        assert_eq!(said(json!({"include": ["reasoning.encrypted_content"], "store": false}), None, &[]), Vec::<String>::new());
        assert_eq!(
            said(json!({"include": ["reasoning.encrypted_content", "bogus.thing"]}), None, &[]),
            ["Invalid value: 'bogus.thing'. Supported values are: 'file_search_call.results', 'web_search_call.results', 'web_search_call.action.sources', 'message.input_image.image_url', 'computer_call_output.output.image_url', 'code_interpreter_call.outputs', 'reasoning.encrypted_content', and 'message.output_text.logprobs'."]
        );
    }

    #[test]
    fn limits_and_choices_are_said_as_the_api_says_them() {
        assert_eq!(
            said(json!({"top_logprobs": 50, "max_tool_calls": 0, "tool_choice": {"type": "function", "name": "write"}}), Some(15), &["read"]),
            [
                "Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got 50 instead.",
                "Invalid 'max_tool_calls': integer below minimum value. Expected a value >= 1, but got 0 instead.",
                "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 15 instead.",
                "Tool choice 'write' not found in 'tools' parameter.",
            ]
        );
        // A hosted tool is chosen by its type; nothing to look up.
        assert_eq!(said(json!({"tool_choice": {"type": "web_search_preview"}, "reasoning": {"effort": "high", "summary": "auto"}}), Some(16), &[]), Vec::<String>::new());
        assert_eq!(said(json!({"tool_choice": {"type": "mcp", "server_label": "docs", "name": null}}), None, &[]), Vec::<String>::new());
        assert_eq!(said(json!({"tool_choice": {"type": "mcp"}}), None, &[]), ["Missing required parameter: 'tool_choice.server_label'."]);
        let unknown = said(json!({"tool_choice": {"type": "web_serch"}}), None, &[]);
        assert!(unknown[0].starts_with("Invalid value: 'web_serch'. Supported values are: 'function', 'custom', 'allowed_tools', 'file_search',"), "{unknown:?}");
    }
}
