//! Google Gemini `generateContent`: payload types, renderer and validator.
//!
//! Shape: `systemInstruction` plus `contents[]` of `user` / `model` turns made of parts. A turn of
//! `functionCall`s must follow a user turn (or a turn of function responses); the turn right after
//! it answers with exactly as many `functionResponse` parts. Thought signatures are echoed back on
//! the part they came with, and only to the model that made them. Images a tool returned follow
//! the function-response turn as a user turn of their own.

use contextview_derive::ReadValue;
use serde::Serialize;
use serde_json::{Map, Value};

use super::ids::{self, IdMapper};
pub use super::settings::gemini::{GenerationConfig, Settings};
use super::{input_object, At, reasoning_as_text, reasoning_fate, same_origin, Provider, ReasoningFate, RenderNotes, RenderOptions, Violation};
use crate::conversation::{Image, Item, Part as ItemPart};

#[derive(Debug, Clone, PartialEq, Serialize, contextview_derive::ReadValue)]
#[shape(name = "GeminiRequest")]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// The request settings: `generationConfig` (with `maxOutputTokens` when a budget is set),
    /// safety settings, tool config, an explicit cache, labels.
    #[serde(flatten, skip_deserializing)]
    pub settings: Settings,
    // Least changing first; the conversation is the last field, so each body extends the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Content>,
    pub contents: Vec<Content>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiContent")]
pub struct Content {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiPart")]
#[serde(rename_all = "camelCase")]
pub struct Part {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_data: Option<Blob>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_data: Option<FileData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_response: Option<FunctionResponse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    /// Every other field of a part the model's own turn held (`executableCode`,
    /// `codeExecutionResult`, `toolCall`, `toolResponse`, …), sent back as it came.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Fields of a part that say something about its data rather than being it.
const PART_ANNOTATIONS: [&str; 3] = ["videoMetadata", "partMetadata", "mediaResolution"];

/// How many keys of a part (as JSON) are data rather than annotations of it.
pub fn data_keys(part: &Map<String, Value>) -> usize {
    part.keys().filter(|k| !matches!(k.as_str(), "thought" | "thoughtSignature") && !PART_ANNOTATIONS.contains(&k.as_str())).count()
}

impl Part {
    fn data_fields(&self) -> usize {
        usize::from(self.text.is_some())
            + usize::from(self.inline_data.is_some())
            + usize::from(self.file_data.is_some())
            + usize::from(self.function_call.is_some())
            + usize::from(self.function_response.is_some())
            + self.other.keys().filter(|k| !PART_ANNOTATIONS.contains(&k.as_str())).count()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiBlob")]
#[serde(rename_all = "camelCase")]
pub struct Blob {
    pub mime_type: String,
    pub data: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiFileData")]
#[serde(rename_all = "camelCase")]
pub struct FileData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    pub file_uri: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiFunctionCall")]
pub struct FunctionCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    pub args: super::InputObject,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiFunctionResponse")]
pub struct FunctionResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    pub response: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiTool")]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub function_declarations: Vec<FunctionDeclaration>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "GeminiFunctionDeclaration")]
#[serde(rename_all = "camelCase")]
pub struct FunctionDeclaration {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The tool's JSON Schema as is (`parameters` would take Gemini's OpenAPI-subset `Schema`).
    pub parameters_json_schema: Value,
}

const USER: &str = "user";
const MODEL: &str = "model";

fn text_part(text: String) -> Part {
    Part { text: Some(text), ..Part::default() }
}

fn image_part(image: &Image) -> Part {
    match image {
        Image::Base64 { media_type, data } => {
            Part { inline_data: Some(Blob { mime_type: media_type.clone(), data: data.clone() }), ..Part::default() }
        }
        Image::Url { url } => Part {
            file_data: Some(FileData { mime_type: mime_from_url(url), file_uri: url.clone() }),
            ..Part::default()
        },
    }
}

fn mime_from_url(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or(url).to_ascii_lowercase();
    let mime = match path.rsplit('.').next()? {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "heic" => "image/heic",
        _ => return None,
    };
    Some(mime.to_owned())
}

fn is_response_turn(content: &Content) -> bool {
    content.parts.iter().any(|p| p.function_response.is_some())
}

fn is_call_turn(content: &Content) -> bool {
    content.parts.iter().any(|p| p.function_call.is_some())
}

/// Renders a repaired item list.
pub fn render(items: &[&Item], options: &RenderOptions) -> (Request, RenderNotes) {
    let mut notes = RenderNotes::default();
    let mut ids = IdMapper::default();
    let mut names: rustc_hash::FxHashMap<String, String> = rustc_hash::FxHashMap::default();
    let mut contents: Vec<Content> = Vec::new();
    let mut pending_images: Vec<Part> = Vec::new();

    fn push(contents: &mut Vec<Content>, role: &str, part: Part) {
        match contents.last_mut() {
            // Never merge into a function-response turn, nor a function response into anything else.
            Some(last)
                if last.role.as_deref() == Some(role)
                    && !is_response_turn(last)
                    && part.function_response.is_none() =>
            {
                last.parts.push(part)
            }
            Some(last) if last.role.as_deref() == Some(role) && is_response_turn(last) && part.function_response.is_some() => {
                last.parts.push(part)
            }
            _ => contents.push(Content { role: Some(role.to_owned()), parts: vec![part] }),
        }
    }
    fn flush_images(contents: &mut Vec<Content>, pending: &mut Vec<Part>) {
        if !pending.is_empty() {
            let mut parts = vec![text_part(super::TOOL_IMAGES_NOTE.to_owned())];
            parts.append(pending);
            contents.push(Content { role: Some(USER.to_owned()), parts });
        }
    }

    for item in items {
        if !matches!(item, Item::ToolResult(_)) {
            flush_images(&mut contents, &mut pending_images);
        }
        match item {
            Item::User(message) => {
                for part in &message.content {
                    match part {
                        ItemPart::Text { text } if text.is_empty() => {}
                        ItemPart::Text { text } => push(&mut contents, USER, text_part(text.to_string())),
                        ItemPart::Image(image) => push(&mut contents, USER, image_part(image)),
                    }
                }
            }
            Item::Assistant(text) => {
                // A signature goes back on the part it came with, even an otherwise empty one.
                let signature = text.signature.clone().filter(|_| same_origin(text.origin.as_ref(), Provider::Gemini, &options.model));
                if !text.text.is_empty() || signature.is_some() {
                    push(&mut contents, MODEL, Part { text: Some(text.text.to_string()), thought_signature: signature, ..Part::default() });
                }
            }
            Item::Native(native) => match super::native_replays(native, Provider::Gemini) {
                true => match serde_json::from_value::<Part>(Value::Object(native.value.clone())) {
                    Ok(part) => push(&mut contents, MODEL, part),
                    Err(_) => notes.dropped_natives += 1,
                },
                false => notes.dropped_natives += 1,
            },
            Item::Reasoning(reasoning) => {
                let fate = reasoning_fate(reasoning, Provider::Gemini, options);
                notes.reasoning.count(fate, reasoning, Provider::Gemini, options);
                match fate {
                    ReasoningFate::Native => push(
                        &mut contents,
                        MODEL,
                        Part {
                            text: Some(String::clone(&reasoning.text)),
                            thought: Some(true),
                            thought_signature: reasoning.signature.clone(),
                            ..Part::default()
                        },
                    ),
                    ReasoningFate::AsText => push(&mut contents, MODEL, text_part(reasoning_as_text(reasoning))),
                    ReasoningFate::Drop => {}
                }
            }
            Item::ToolCall(call) => {
                let id = ids.map(&call.call_id, ids::LENIENT);
                names.insert(id.clone(), call.name.clone());
                let signature = if same_origin(call.origin.as_ref(), Provider::Gemini, &options.model) {
                    call.signature.clone()
                } else {
                    None
                };
                let function_call = FunctionCall { id: Some(id), name: call.name.clone(), args: input_object(&call.input, &mut notes) };
                push(&mut contents, MODEL, Part { function_call: Some(function_call), thought_signature: signature, ..Part::default() });
            }
            Item::ToolResult(result) => {
                let id = ids.get(&result.call_id);
                let mut text = String::new();
                for part in &result.content {
                    match part {
                        ItemPart::Text { text: t } => text.push_str(t),
                        ItemPart::Image(image) => {
                            notes.moved_images += 1;
                            pending_images.push(image_part(image));
                        }
                    }
                }
                let mut response = Map::new();
                response.insert(if result.is_error { "error" } else { "output" }.to_owned(), Value::String(text));
                let name = names.get(&id).cloned().unwrap_or_default();
                push(
                    &mut contents,
                    USER,
                    Part { function_response: Some(FunctionResponse { id: Some(id), name, response }), ..Part::default() },
                );
            }
        }
    }
    flush_images(&mut contents, &mut pending_images);

    let system_instruction = options
        .system
        .as_ref()
        .filter(|s| !s.is_empty())
        .map(|s| Content { role: None, parts: vec![text_part(s.clone())] });
    let tools = (!options.tools.is_empty()).then(|| {
        vec![Tool {
            function_declarations: options
                .tools
                .iter()
                .map(|t| FunctionDeclaration {
                    name: t.name.clone(),
                    description: t.description.clone(),
                    parameters_json_schema: t.input_schema.clone(),
                })
                .collect(),
        }]
    });
    notes.id_map = ids.into_changed();
    let mut settings = options.settings.gemini.clone();
    if let Some(max) = options.max_tokens {
        settings.generation_config.get_or_insert_with(GenerationConfig::default).max_output_tokens = Some(max);
    }
    (Request { settings, system_instruction, contents, tools }, notes)
}

/// Checks every rule of `generateContent` we know of; returns each one broken.
pub fn validate(request: &Request) -> Vec<Violation> {
    // The model is not in the body: the rules that depend on it are checked with the build's options.
    let tools: Vec<&str> = request.tools.iter().flatten().flat_map(|t| &t.function_declarations).map(|d| d.name.as_str()).collect();
    let context = super::settings::Context { model: "", max_tokens: None, tools: &tools, system: request.system_instruction.is_some() };
    let mut v = super::settings::gemini::check(&request.settings, &context);
    if request.contents.is_empty() {
        v.push(Violation::new(crate::provider::rules::GEMINI_CONTENTS_NON_EMPTY, "contents", "* GenerateContentRequest.contents: contents is not specified"));
    }
    for (i, content) in request.contents.iter().enumerate() {
        let path = At::root("contents[", i, "]");
        match content.role.as_deref() {
            Some(USER) | Some(MODEL) => {}
            other => v.push(Violation::new(
                crate::provider::rules::GEMINI_ROLE,
                &path,
                format!("Please use a valid role: user, model. Got: {}", other.unwrap_or("(none)")),
            )),
        }
        if content.parts.is_empty() {
            v.push(Violation::new(crate::provider::rules::GEMINI_PARTS_NON_EMPTY, &path, format!("* GenerateContentRequest.{path}.parts: contents.parts must not be empty.")));
        }
        for (k, part) in content.parts.iter().enumerate() {
            if part.data_fields() != 1 {
                v.push(Violation::new(
                    crate::provider::rules::GEMINI_PART_ONE_FIELD,
                    path.child(".parts[", k, "]"),
                    format!("* GenerateContentRequest.{path}.parts[{k}].data: required oneof field 'data' must have one initialized field"),
                ));
            }
            if part.function_call.is_some() && content.role.as_deref() != Some(MODEL) {
                v.push(Violation::new(crate::provider::rules::GEMINI_FUNCTION_CALL_ROLE, path.child(".parts[", k, "]"), "functionCall parts belong in model turns"));
            }
        }
        let previous = i.checked_sub(1).map(|p| &request.contents[p]);
        if is_call_turn(content) && previous.is_none_or(|p| p.role.as_deref() != Some(USER)) {
            v.push(Violation::new(
                crate::provider::rules::GEMINI_FUNCTION_CALL_TURN_ORDER,
                &path,
                "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
            ));
        }
        if is_response_turn(content) {
            match previous.filter(|p| is_call_turn(p)) {
                None => v.push(Violation::new(
                    crate::provider::rules::GEMINI_FUNCTION_RESPONSE_TURN_ORDER,
                    &path,
                    "Please ensure that function response turn comes immediately after a function call turn.",
                )),
                Some(call_turn) => {
                    let calls = call_turn.parts.iter().filter(|p| p.function_call.is_some()).count();
                    let responses = content.parts.iter().filter(|p| p.function_response.is_some()).count();
                    if calls != responses {
                        v.push(Violation::new(
                            crate::provider::rules::GEMINI_FUNCTION_RESPONSE_COUNT,
                            &path,
                            "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
                        ));
                    }
                }
            }
        }
        if is_call_turn(content) {
            let answered = request.contents.get(i + 1).is_some_and(is_response_turn);
            if !answered {
                v.push(Violation::new(
                    crate::provider::rules::GEMINI_FUNCTION_CALL_ANSWERED,
                    &path,
                    "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
                ));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// A part reads as serde's derived reader with the flattened map read it (the same cases
    /// were run against that reader): known fields typed, null as absent, every other key kept.
    #[test]
    fn a_part_reads_as_serde_s_flattened_reader() {
        let read = |v: Value| Part::deserialize(v).map_err(|e| e.to_string());
        let part = read(json!({"text": "hi", "thought": true, "thoughtSignature": "sig", "executableCode": {"code": "1"}, "x": null})).unwrap();
        assert_eq!(part.text.as_deref(), Some("hi"));
        assert_eq!((part.thought, part.thought_signature.as_deref()), (Some(true), Some("sig")));
        assert_eq!(Value::Object(part.other), json!({"executableCode": {"code": "1"}, "x": null}));
        assert_eq!(read(json!({"text": null})).unwrap(), Part::default());
        let call = read(json!({"functionCall": {"name": "f", "args": {"a": 1}}})).unwrap();
        assert_eq!(serde_json::to_value(&call).unwrap(), json!({"functionCall": {"name": "f", "args": {"a": 1}}}));
        assert_eq!(read(json!({"text": 1})), Err("invalid type: integer `1`, expected a string".into()));
        assert_eq!(read(json!({"thought": "yes"})), Err("invalid type: string \"yes\", expected a boolean".into()));
        assert_eq!(read(json!("hi")), Err("invalid type: string \"hi\", expected struct Part".into()));
        assert_eq!(read(json!([])), Err("invalid type: sequence, expected struct Part".into()));
    }
}
