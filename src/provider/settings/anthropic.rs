//! Anthropic Messages settings: extended thinking, tool choice, sampling, stop sequences,
//! metadata, service tier, output configuration (effort, structured output) and streaming, and
//! the Messages API's rules for them, with its error texts.
//!
//! Sampling (`temperature`, `top_p`, `top_k`) is what API version `2023-06-01` takes; newer
//! models and API versions refuse it, which only the provider can tell: it is sent when given.

use contextview_derive::ReadValue;
use serde::Serialize;
use serde_json::{Map, Value};

use super::Context;
use crate::provider::Violation;

#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[shape(name = "AnthropicSettings")]
pub struct Settings {
    /// Extended thinking: `{type: "enabled", budget_tokens}` (at least 1,024 and below
    /// `max_tokens`), `{type: "adaptive"}` or `{type: "disabled"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_config: Option<OutputConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// 0 to 1; only 1 with thinking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// 0 to 1; 0.95 to 1 with thinking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Not with thinking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<ServiceTier>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference_geo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Inference speed (`"fast"`: more output tokens a second, at its price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    // Passed through as given (the API checks them; their shapes are in crates/js/src/shapes).
    /// The code-execution container to reuse (an id), or the skills to load into one.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "AnthropicContainer")]
    pub container: Value,
    /// Asks the answer to say why the prompt cache missed against an earlier message.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "AnthropicDiagnostics")]
    pub diagnostics: Value,
    /// Sent as the `anthropic-user-profile-id` header, not in the body (see
    /// [`crate::provider::endpoint`]): the user profile the request is made on behalf of.
    #[serde(default, skip_serializing)]
    pub user_profile_id: Option<String>,
    /// Sent as the `anthropic-workspace-id` header, not in the body: the Workspace a key that
    /// can act in several is acting in.
    #[serde(default, skip_serializing)]
    pub workspace_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "AnthropicSpeed")]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    Standard,
    Fast,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, contextview_derive::ReadValue)]
#[shape(name = "AnthropicThinking")]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Thinking {
    Enabled {
        budget_tokens: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        display: Option<ThinkingDisplay>,
    },
    Adaptive {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        display: Option<ThinkingDisplay>,
    },
    /// The model thinks between tool calls.
    BetweenTools,
    Disabled,
}

impl Thinking {
    /// Thinking is on: the model thinks before it answers.
    pub fn is_on(&self) -> bool {
        match self {
            Thinking::Enabled { .. } | Thinking::Adaptive { .. } | Thinking::BetweenTools => true,
            Thinking::Disabled => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "AnthropicThinkingDisplay")]
#[serde(rename_all = "snake_case")]
pub enum ThinkingDisplay {
    Summarized,
    Omitted,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, contextview_derive::ReadValue)]
#[shape(name = "AnthropicToolChoice")]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolChoice {
    Auto {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    Any {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    Tool {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    None,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "AnthropicMetadata")]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// An opaque id of the end user (a hash or uuid, never personal data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "AnthropicServiceTier")]
#[serde(rename_all = "snake_case")]
pub enum ServiceTier {
    Auto,
    StandardOnly,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "AnthropicOutputConfig")]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// Structured output: `{type: "json_schema", schema}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<OutputFormat>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "AnthropicEffort")]
#[serde(rename_all = "snake_case")]
pub enum Effort {
    Low,
    Medium,
    High,
    Xhigh,
    Max,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, contextview_derive::ReadValue)]
#[shape(name = "AnthropicOutputFormat")]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum OutputFormat {
    JsonSchema {
        #[shape(declared = "AnyObject")]
        schema: Map<String, Value>,
    },
}

/// The rules for the settings alone (the rule on the conversation's thinking is the
/// validator's: [`crate::provider::anthropic::thinking_turn_refusal`]).
pub fn check(s: &Settings, context: &Context<'_>) -> Vec<Violation> {
    let mut out = Vec::new();
    let thinking = s.thinking.as_ref().is_some_and(Thinking::is_on);
    if let Some(Thinking::Enabled { budget_tokens, .. }) = &s.thinking {
        if *budget_tokens < 1024 {
            out.push(Violation::new(
                crate::provider::rules::ANTHROPIC_THINKING_BUDGET,
                "thinking.budget_tokens",
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
            ));
        }
        if context.max_tokens.is_some_and(|max| max <= *budget_tokens) {
            out.push(Violation::new(crate::provider::rules::ANTHROPIC_THINKING_BUDGET, "max_tokens", "`max_tokens` must be greater than `thinking.budget_tokens`."));
        }
    }
    if let Some(t) = s.temperature {
        if !(0.0..=1.0).contains(&t) {
            out.push(Violation::new(crate::provider::rules::ANTHROPIC_TEMPERATURE, "temperature", "temperature: range: 0..1"));
        } else if thinking && t != 1.0 {
            out.push(Violation::new(
                crate::provider::rules::ANTHROPIC_THINKING_SAMPLING,
                "temperature",
                "temperature may only be set to 1 when thinking is enabled or in adaptive mode",
            ));
        }
    }
    if let Some(p) = s.top_p {
        if !(0.0..=1.0).contains(&p) {
            out.push(Violation::new(crate::provider::rules::ANTHROPIC_TOP_P, "top_p", "top_p: range: 0..1"));
        } else if thinking && p < 0.95 {
            out.push(Violation::new(
                crate::provider::rules::ANTHROPIC_THINKING_SAMPLING,
                "top_p",
                "When thinking is enabled, you can set top_p to values between 1 and 0.95.",
            ));
        }
    }
    if thinking && s.top_k.is_some() {
        out.push(Violation::new(
            crate::provider::rules::ANTHROPIC_THINKING_SAMPLING,
            "top_k",
            "Thinking isn't compatible with temperature or top_k modifications as well as forced tool use.",
        ));
    }
    match &s.tool_choice {
        Some(ToolChoice::Any { .. } | ToolChoice::Tool { .. }) if thinking => {
            out.push(Violation::new(crate::provider::rules::ANTHROPIC_THINKING_TOOL_CHOICE, "tool_choice", "Thinking may not be enabled when tool_choice forces tool use."));
        }
        _ => {}
    }
    match &s.tool_choice {
        Some(ToolChoice::Tool { name, .. }) if !context.tools.contains(&name.as_str()) => {
            out.push(Violation::new(crate::provider::rules::ANTHROPIC_TOOL_CHOICE_TOOL, "tool_choice.name", format!("Tool '{name}' not found in provided tools")));
        }
        Some(ToolChoice::Any { .. }) if context.tools.is_empty() => {
            out.push(Violation::new(crate::provider::rules::ANTHROPIC_TOOL_CHOICE_TOOL, "tool_choice", "tool_choice may only be specified while providing tools"));
        }
        Some(ToolChoice::Auto { .. } | ToolChoice::Any { .. } | ToolChoice::Tool { .. } | ToolChoice::None) | None => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn rules(settings: Value, max_tokens: u32, tools: &[&str]) -> Vec<(String, String)> {
        let s: Settings = serde_json::from_value(settings).unwrap();
        let context = Context { model: "claude-sonnet-4-5", max_tokens: Some(max_tokens), tools, system: false };
        check(&s, &context).into_iter().map(|v| (v.path, v.message)).collect()
    }

    /// The tagged enums, each declared once (`#[derive(ReadValue)]`), take and refuse what serde's
    /// internally tagged reader took and refused, in its words (seen from serde 1.0.228).
    #[test]
    fn tagged_settings_read_as_serde_s_internally_tagged_reader() {
        let thinking = |v: Value| Thinking::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(thinking(json!({"type": "disabled", "x": 1})), Ok(Thinking::Disabled), "a unit variant ignores other keys");
        assert_eq!(thinking(json!({"budget_tokens": 2048, "type": "enabled"})), Ok(Thinking::Enabled { budget_tokens: 2048, display: None }));
        assert_eq!(thinking(json!({"type": "adaptive", "display": "omitted"})), Ok(Thinking::Adaptive { display: Some(ThinkingDisplay::Omitted) }));
        assert_eq!(thinking(json!({"type": "adaptive", "x": 1})), Err("unknown field `x`, expected `display`".into()));
        assert_eq!(thinking(json!({"type": "enabled"})), Err("missing field `budget_tokens`".into()));
        assert_eq!(thinking(json!({"type": "enabled", "budget_tokens": "a"})), Err("invalid type: string \"a\", expected u32".into()));
        assert_eq!(
            thinking(json!({"type": "nope"})),
            Err("unknown variant `nope`, expected one of `enabled`, `adaptive`, `between_tools`, `disabled`".into())
        );
        assert_eq!(thinking(json!({"x": 1})), Err("missing field `type`".into()));
        assert_eq!(thinking(json!({"type": 3})), Err("invalid type: integer `3`, expected variant identifier".into()));
        assert_eq!(thinking(json!("enabled")), Err("invalid type: string \"enabled\", expected internally tagged enum Thinking".into()));
        assert_eq!(thinking(json!(null)), Err("invalid type: null, expected internally tagged enum Thinking".into()));
        let choice = |v: Value| ToolChoice::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(choice(json!({"type": "none"})), Ok(ToolChoice::None));
        assert_eq!(choice(json!({"type": "tool", "name": "grep"})), Ok(ToolChoice::Tool { name: "grep".into(), disable_parallel_tool_use: None }));
        assert_eq!(choice(json!({"type": "auto", "name": "grep"})), Err("unknown field `name`, expected `disable_parallel_tool_use`".into()));
        let format = |v: Value| OutputFormat::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(format(json!({"type": "json_schema", "schema": {}})), Ok(OutputFormat::JsonSchema { schema: Map::new() }));
        assert_eq!(format(json!({"type": "json_schema"})), Err("missing field `schema`".into()));
        assert_eq!(format(json!({"type": "text"})), Err("unknown variant `text`, expected `json_schema`".into()));
    }

    #[test]
    fn thinking_needs_a_budget_of_1024_below_max_tokens() {
        assert_eq!(rules(json!({"thinking": {"type": "enabled", "budget_tokens": 2048}}), 4096, &[]), []);
        assert_eq!(
            rules(json!({"thinking": {"type": "enabled", "budget_tokens": 512}}), 4096, &[]),
            [("thinking.budget_tokens".into(), "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024".into())]
        );
        assert_eq!(
            rules(json!({"thinking": {"type": "enabled", "budget_tokens": 8192}}), 8192, &[]),
            [("max_tokens".into(), "`max_tokens` must be greater than `thinking.budget_tokens`.".into())]
        );
    }

    #[test]
    fn thinking_takes_no_sampling_changes_and_no_forced_tool() {
        let on = json!({"type": "adaptive"});
        assert_eq!(rules(json!({"thinking": on, "temperature": 1, "top_p": 0.95}), 4096, &[]), []);
        let said: Vec<String> = rules(json!({"thinking": on, "temperature": 0.2, "top_p": 0.5, "top_k": 5, "tool_choice": {"type": "any"}}), 4096, &["read"])
            .into_iter()
            .map(|(_, m)| m)
            .collect();
        assert_eq!(
            said,
            [
                "temperature may only be set to 1 when thinking is enabled or in adaptive mode",
                "When thinking is enabled, you can set top_p to values between 1 and 0.95.",
                "Thinking isn't compatible with temperature or top_k modifications as well as forced tool use.",
                "Thinking may not be enabled when tool_choice forces tool use.",
            ]
        );
        // Without thinking the same sampling is fine, within range.
        assert_eq!(rules(json!({"temperature": 0.2, "top_p": 0.5, "top_k": 5}), 4096, &[]), []);
        assert_eq!(rules(json!({"temperature": 1.5}), 4096, &[]), [("temperature".into(), "temperature: range: 0..1".into())]);
    }

    #[test]
    fn a_chosen_tool_must_be_defined() {
        assert_eq!(rules(json!({"tool_choice": {"type": "tool", "name": "read"}}), 4096, &["read"]), []);
        assert_eq!(
            rules(json!({"tool_choice": {"type": "tool", "name": "web_search"}}), 4096, &["read"]),
            [("tool_choice.name".into(), "Tool 'web_search' not found in provided tools".into())]
        );
        assert_eq!(rules(json!({"tool_choice": {"type": "any"}}), 4096, &[]).len(), 1);
        assert_eq!(rules(json!({"tool_choice": {"type": "none"}}), 4096, &[]), []);
    }
}
