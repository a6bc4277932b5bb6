//! Gemini `generateContent` settings, in the REST body's camelCase: `generationConfig`
//! (sampling, penalties, stop sequences, candidates, structured output, thinking), safety
//! settings, the function-calling config, an explicit cache and labels — and the rules Gemini
//! applies to them, with its error texts (thinking budgets by model family first of all).
//!
//! `generationConfig.maxOutputTokens` is the build's `maxTokens`: the renderer writes it into
//! the same `generationConfig` object, so the body never holds the key twice.

use contextview_derive::ReadValue;
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::Context;
use crate::provider::Violation;

#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiSettings")]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_config: Option<GenerationConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_settings: Option<Vec<SafetySetting>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolConfig>,
    /// An explicit cache (`cachedContents/…`): the request may then carry no system
    /// instruction, tools or tool config of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    /// Stream the answer: for Gemini a choice of URL (`:streamGenerateContent?alt=sse`), not a
    /// field of the body; [`crate::provider::endpoint`] reads it.
    #[serde(default, skip_serializing)]
    pub stream: Option<bool>,
}

impl Settings {
    /// No setting given (the body carries none of these keys).
    pub fn is_empty(&self) -> bool {
        *self == Settings::default()
    }
}

/// `generationConfig`: what the reply may be.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiGenerationConfig")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GenerationConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// 0 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// -2 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    /// -2 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_mime_type: Option<String>,
    /// An OpenAPI-subset schema (with `responseMimeType: "application/json"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[shape(declared = "GeminiSchema")]
    pub response_schema: Option<Map<String, Value>>,
    /// A JSON Schema (instead of `responseSchema`, with `responseMimeType`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[shape(declared = "GeminiResponseJsonSchema")]
    pub response_json_schema: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[shape(declared = "GeminiModality")]
    pub response_modalities: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_logprobs: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[shape(declared = "GeminiMediaResolution")]
    pub media_resolution: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
    // Passed through as given (the API checks them; their shapes are in crates/js/src/shapes).
    /// Spoken output: the voice or voices, and their language.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "GeminiSpeechConfig")]
    pub speech_config: Value,
    /// How audio in the input is transcribed.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "GeminiAudioTranscriptionConfig")]
    pub audio_transcription_config: Value,
    /// Timestamps for audio input (Vertex AI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_timestamp: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_affective_dialog: Option<bool>,
    /// Gemini Developer API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_enhanced_civic_answers: Option<bool>,
    /// A preference among models (Vertex AI).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "GeminiModelSelectionConfig")]
    pub model_selection_config: Value,
    /// The format of each output modality.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "GeminiResponseFormat")]
    pub response_format: Value,
    /// Automatic or chosen model routing (Vertex AI).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "GeminiRoutingConfig")]
    pub routing_config: Value,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "GeminiTranslationConfig")]
    pub translation_config: Value,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "GeminiThinkingConfig")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThinkingConfig {
    /// Tokens to think with: 0 turns thinking off where the model allows it, -1 lets the model
    /// decide; the range depends on the model (2.5 Pro 128–32,768, Flash 0–24,576, Flash-Lite
    /// 512–24,576).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<i64>,
    /// Gemini 3 and later, instead of a budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<ThinkingLevel>,
    /// Thought summaries in the answer (recorded as reasoning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_thoughts: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "GeminiThinkingLevel")]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ThinkingLevel {
    /// Says nothing: the model's default.
    ThinkingLevelUnspecified,
    Minimal,
    Low,
    Medium,
    High,
    Xhigh,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "GeminiSafetySetting")]
#[serde(deny_unknown_fields)]
pub struct SafetySetting {
    /// Required by the API (optional in @google/genai's type: a rule says so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<HarmCategory>,
    /// Required by the API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<HarmBlockThreshold>,
    /// Block by the harm's probability or its severity (Vertex AI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<HarmBlockMethod>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "GeminiHarmBlockMethod")]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum HarmBlockMethod {
    HarmBlockMethodUnspecified,
    Severity,
    Probability,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "GeminiHarmCategory")]
#[allow(clippy::enum_variant_names)]
pub enum HarmCategory {
    #[serde(rename = "HARM_CATEGORY_UNSPECIFIED")]
    Unspecified,
    #[serde(rename = "HARM_CATEGORY_HARASSMENT")]
    Harassment,
    #[serde(rename = "HARM_CATEGORY_HATE_SPEECH")]
    HateSpeech,
    #[serde(rename = "HARM_CATEGORY_SEXUALLY_EXPLICIT")]
    SexuallyExplicit,
    #[serde(rename = "HARM_CATEGORY_DANGEROUS_CONTENT")]
    DangerousContent,
    #[serde(rename = "HARM_CATEGORY_CIVIC_INTEGRITY")]
    CivicIntegrity,
    #[serde(rename = "HARM_CATEGORY_JAILBREAK")]
    Jailbreak,
    #[serde(rename = "HARM_CATEGORY_IMAGE_HATE")]
    ImageHate,
    #[serde(rename = "HARM_CATEGORY_IMAGE_DANGEROUS_CONTENT")]
    ImageDangerousContent,
    #[serde(rename = "HARM_CATEGORY_IMAGE_HARASSMENT")]
    ImageHarassment,
    #[serde(rename = "HARM_CATEGORY_IMAGE_SEXUALLY_EXPLICIT")]
    ImageSexuallyExplicit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "GeminiHarmBlockThreshold")]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum HarmBlockThreshold {
    HarmBlockThresholdUnspecified,
    BlockLowAndAbove,
    BlockMediumAndAbove,
    BlockOnlyHigh,
    BlockNone,
    Off,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "GeminiToolConfig")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_calling_config: Option<FunctionCallingConfig>,
    /// Where the user is and their language, for the grounding tools (passed through).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[shape(declared = "GeminiRetrievalConfig")]
    pub retrieval_config: Value,
    /// Server-side tools' calls and results come back in the answer's content (Gemini
    /// Developer API).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_server_side_tool_invocations: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "GeminiFunctionCallingConfig")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FunctionCallingConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FunctionCallingMode>,
    /// With `ANY` or `VALIDATED`: the functions the model may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_function_names: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "GeminiFunctionCallingMode")]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FunctionCallingMode {
    ModeUnspecified,
    Auto,
    Any,
    None,
    Validated,
}

/// A model family's thinking budget: the least budget with thinking on, the most, and whether
/// 0 (thinking off) is allowed. Unknown for families that take a level instead (Gemini 3).
fn budget_range(model: &str) -> Option<(i64, i64, bool)> {
    let m = model.rsplit('/').next().unwrap_or(model);
    if m.starts_with("gemini-2.5-pro") {
        Some((128, 32_768, false))
    } else if m.starts_with("gemini-2.5-flash-lite") {
        Some((512, 24_576, true))
    } else if m.starts_with("gemini-2.5-flash") {
        Some((1, 24_576, true))
    } else {
        None
    }
}

/// Models before Gemini 3 take a budget, not a level.
fn takes_level(model: &str) -> bool {
    let m = model.rsplit('/').next().unwrap_or(model);
    !(m.starts_with("gemini-2") || m.starts_with("gemini-1"))
}

pub fn check(s: &Settings, context: &Context<'_>) -> Vec<Violation> {
    let rule = crate::provider::rules::GEMINI_SETTINGS;
    let mut out = Vec::new();
    if let Some(g) = &s.generation_config {
        for (path, value, min, max) in [
            ("generationConfig.temperature", g.temperature, 0.0, 2.0),
            ("generationConfig.topP", g.top_p, 0.0, 1.0),
            ("generationConfig.presencePenalty", g.presence_penalty, -2.0, 2.0),
            ("generationConfig.frequencyPenalty", g.frequency_penalty, -2.0, 2.0),
        ] {
            if value.is_some_and(|v| !(min..=max).contains(&v)) {
                out.push(Violation::new(rule, path, format!("* GenerateContentRequest.{path}: must be in [{min}, {max}]")));
            }
        }
        if g.candidate_count == Some(0) {
            out.push(Violation::new(rule, "generationConfig.candidateCount", "* GenerateContentRequest.generationConfig.candidateCount: must be at least 1"));
        }
        if g.response_schema.is_some() && g.response_json_schema.is_some() {
            out.push(Violation::new(rule, "generationConfig.responseJsonSchema", "responseJsonSchema: if set, responseSchema must be omitted"));
        }
        if (g.response_schema.is_some() || g.response_json_schema.is_some()) && g.response_mime_type.as_deref() != Some("application/json") {
            out.push(Violation::new(
                rule,
                "generationConfig.responseMimeType",
                "* GenerateContentRequest.generationConfig.response_mime_type: response_schema requires response_mime_type to be application/json",
            ));
        }
        if let Some(t) = &g.thinking_config {
            let path = "generationConfig.thinkingConfig";
            // `THINKING_LEVEL_UNSPECIFIED` says nothing, as if absent.
            let level = t.thinking_level.filter(|l| *l != ThinkingLevel::ThinkingLevelUnspecified);
            if t.thinking_budget.is_some() && level.is_some() {
                out.push(Violation::new(rule, path, "You can only set only one of thinking budget and thinking level."));
            }
            if level.is_some() && !takes_level(context.model) {
                out.push(Violation::new(rule, format!("{path}.thinkingLevel"), "Thinking level is not supported for this model."));
            }
            match (t.thinking_budget, budget_range(context.model)) {
                (Some(0), Some((_, _, false))) => {
                    out.push(Violation::new(rule, format!("{path}.thinkingBudget"), "Budget 0 is invalid. This model only works in thinking mode."));
                }
                (Some(b), Some((min, max, _))) if b != 0 && b != -1 && !(min..=max).contains(&b) => {
                    out.push(Violation::new(rule, format!("{path}.thinkingBudget"), format!("The thinking budget ({b}) is invalid.")));
                }
                (Some(b), None) if b < -1 => {
                    out.push(Violation::new(rule, format!("{path}.thinkingBudget"), format!("The thinking budget ({b}) is invalid.")));
                }
                _ => {}
            }
            if t.thinking_budget == Some(0) && t.include_thoughts == Some(true) {
                out.push(Violation::new(
                    rule,
                    format!("{path}.includeThoughts"),
                    "Thinking_config.include_thoughts is only enabled when thinking is enabled.",
                ));
            }
        }
    }
    for (i, setting) in s.safety_settings.iter().flatten().enumerate() {
        for (name, missing) in [("category", setting.category.is_none()), ("threshold", setting.threshold.is_none())] {
            if missing {
                out.push(Violation::new(rule, format!("safetySettings[{i}].{name}"), format!("* GenerateContentRequest.safety_settings[{i}].{name}: a safety setting needs its {name}")));
            }
        }
    }
    if let Some(f) = s.tool_config.as_ref().and_then(|t| t.function_calling_config.as_ref()) {
        if let Some(names) = &f.allowed_function_names {
            let path = "toolConfig.functionCallingConfig.allowedFunctionNames";
            if !matches!(f.mode, Some(FunctionCallingMode::Any | FunctionCallingMode::Validated)) {
                out.push(Violation::new(rule, path, "allowedFunctionNames may be set only when the mode is ANY or VALIDATED"));
            }
            for name in names.iter().filter(|n| !context.tools.contains(&n.as_str())) {
                out.push(Violation::new(rule, path, format!("allowedFunctionNames names `{name}`, which is not a function declaration of this request")));
            }
        }
    }
    if s.cached_content.is_some() && (context.system || !context.tools.is_empty() || s.tool_config.is_some()) {
        out.push(Violation::new(
            rule,
            "cachedContent",
            "CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config.",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn said(model: &str, settings: Value) -> Vec<String> {
        let s: Settings = serde_json::from_value(settings).unwrap();
        check(&s, &Context { model, max_tokens: None, tools: &["read"], system: false }).into_iter().map(|v| v.message).collect()
    }

    fn budget(b: i64) -> Value {
        json!({"generationConfig": {"thinkingConfig": {"thinkingBudget": b}}})
    }

    #[test]
    fn thinking_budgets_follow_the_model_family() {
        let ok = Vec::<String>::new();
        assert_eq!(said("gemini-2.5-pro", budget(128)), ok);
        assert_eq!(said("gemini-2.5-pro", budget(-1)), ok);
        assert_eq!(said("gemini-2.5-pro", budget(0)), ["Budget 0 is invalid. This model only works in thinking mode."]);
        assert_eq!(said("gemini-2.5-pro", budget(64)), ["The thinking budget (64) is invalid."]);
        assert_eq!(said("gemini-2.5-pro", budget(32_769)), ["The thinking budget (32769) is invalid."]);
        assert_eq!(said("gemini-2.5-flash", budget(0)), ok);
        assert_eq!(said("gemini-2.5-flash", budget(24_576)), ok);
        assert_eq!(said("gemini-2.5-flash", budget(24_577)), ["The thinking budget (24577) is invalid."]);
        assert_eq!(said("models/gemini-2.5-flash-lite", budget(256)), ["The thinking budget (256) is invalid."]);
        assert_eq!(said("gemini-2.5-flash-lite", budget(0)), ok);
        // Gemini 3 takes a level; a budget is accepted for compatibility.
        assert_eq!(said("gemini-3-pro-preview", json!({"generationConfig": {"thinkingConfig": {"thinkingLevel": "LOW"}}})), ok);
        assert_eq!(
            said("gemini-2.5-flash", json!({"generationConfig": {"thinkingConfig": {"thinkingLevel": "LOW", "thinkingBudget": 0, "includeThoughts": true}}})),
            [
                "You can only set only one of thinking budget and thinking level.",
                "Thinking level is not supported for this model.",
                "Thinking_config.include_thoughts is only enabled when thinking is enabled.",
            ]
        );
    }

    #[test]
    fn what_the_sdks_types_leave_optional_the_api_still_needs_and_unspecified_says_nothing() {
        assert_eq!(
            said("gemini-2.5-pro", json!({"safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT"}, {"threshold": "OFF", "method": "SEVERITY"}]})),
            [
                "* GenerateContentRequest.safety_settings[0].threshold: a safety setting needs its threshold",
                "* GenerateContentRequest.safety_settings[1].category: a safety setting needs its category",
            ]
        );
        // An unspecified level is no level: a 2.5 model (budgets only) takes it beside a budget.
        let unspecified = json!({"generationConfig": {"thinkingConfig": {"thinkingLevel": "THINKING_LEVEL_UNSPECIFIED", "thinkingBudget": 1024}}});
        assert_eq!(said("gemini-2.5-pro", unspecified), Vec::<String>::new());
        let low = json!({"generationConfig": {"thinkingConfig": {"thinkingLevel": "LOW", "thinkingBudget": 1024}}});
        assert_eq!(said("gemini-2.5-pro", low).len(), 2);
    }

    #[test]
    fn function_calling_and_caching_rules() {
        assert_eq!(said("gemini-2.5-pro", json!({"toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read"]}}})), Vec::<String>::new());
        assert_eq!(
            said("gemini-2.5-pro", json!({"toolConfig": {"functionCallingConfig": {"mode": "AUTO", "allowedFunctionNames": ["write"]}}})),
            [
                "allowedFunctionNames may be set only when the mode is ANY or VALIDATED",
                "allowedFunctionNames names `write`, which is not a function declaration of this request",
            ]
        );
        assert_eq!(
            said("gemini-2.5-pro", json!({"cachedContent": "cachedContents/abc"})),
            ["CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config."]
        );
    }
}
