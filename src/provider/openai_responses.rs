//! OpenAI Responses: payload types, renderer and validator.
//!
//! Shape: `instructions` plus a flat `input[]` of items: messages, `function_call` /
//! `function_call_output`, `custom_tool_call` / `custom_tool_call_output` (free-form tools whose
//! input is a string), and `reasoning` (replayed with its id and encrypted content; it must be
//! followed by the item it preceded). Tool outputs may carry images.

use contextview_derive::ReadValue;
use rustc_hash::FxHashSet as HashSet;

use serde::Serialize;
use serde_json::Value;

use super::ids::{self, IdMapper};
use super::{arguments_string, At, reasoning_as_text, reasoning_fate, ReasoningFate, RenderNotes, RenderOptions, Violation};
use crate::conversation::{Item, Part};

#[derive(Debug, Clone, PartialEq, Serialize, contextview_derive::ReadValue)]
#[shape(name = "OpenAiResponsesRequest")]
pub struct Request {
    pub model: String,
    /// Routes the requests of one session to the same prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// The reply's budget, reasoning included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// The request settings (reasoning, include, store, text format, …), at the top level.
    #[serde(flatten, skip_deserializing)]
    pub settings: super::settings::openai_responses::Settings,
    // Least changing first; the conversation is the last field, so each body extends the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    pub input: Vec<InputItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesInputItem")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputItem {
    /// A message in (text and images), or the model's annotated text back as the output message
    /// it came as: two shapes, declared by hand.
    #[shape(declared = "OpenAiResponsesMessage")]
    Message {
        /// A stored message's `msg_…` id (`store` not false): the model's annotated text goes back
        /// as the output message it came as.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        role: MessageRole,
        content: MessageContent,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
    },
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
    },
    FunctionCallOutput {
        call_id: String,
        output: Output,
    },
    CustomToolCall {
        call_id: String,
        name: String,
        input: String,
    },
    CustomToolCallOutput {
        call_id: String,
        output: Output,
    },
    /// Reasoning goes back with its `rs_…` id when the request is stored (and its encrypted
    /// content when it has some); not stored, with its encrypted content and no id (which the
    /// API would look up and not find).
    Reasoning {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        summary: Vec<SummaryText>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
    },
    /// An output item of the model's own turn that only this API reads (a hosted tool's call:
    /// web search, file search, code interpreter, …), sent back as it came (less its `id` when
    /// the request is not stored).
    #[serde(untagged)]
    #[shape(declared = "OpenAiResponsesNativeItemBack")]
    Native(serde_json::Map<String, Value>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesMessageRole")]
#[serde(rename_all = "lowercase")]
pub enum MessageRole {
    User,
    Assistant,
    System,
    Developer,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
// What the renderer sends: the model's own text goes back as a string, never as output parts.
#[serde(untagged)]
pub enum MessageContent {
    /// Shared with the conversation's text it was rendered from.
    Text(crate::conversation::SharedText),
    Parts(Vec<ContentPart>),
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesContentPart")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    InputText {
        text: crate::conversation::SharedText,
    },
    InputImage {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        image_url: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file_id: Option<String>,
        #[shape(one_of("auto", "low", "high"))]
        detail: String,
    },
    OutputText {
        text: crate::conversation::SharedText,
        /// The annotations (URL and file citations) the model's text came with.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[shape(declared = "OpenAiResponsesAnnotation")]
        annotations: Option<Vec<Value>>,
    },
}

mod read;

impl ContentPart {
    /// The text of a text part.
    pub fn text(&self) -> Option<&str> {
        match self {
            ContentPart::InputText { text } => Some(text),
            ContentPart::OutputText { text, .. } => Some(text),
            ContentPart::InputImage { .. } => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Output {
    Text(crate::conversation::SharedText),
    Parts(Vec<ContentPart>),
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesSummaryText")]
pub struct SummaryText {
    #[serde(rename = "type")]
    #[shape(one_of("summary_text"))]
    pub kind: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiResponsesTool")]
pub struct Tool {
    #[serde(rename = "type")]
    #[shape(one_of("function"))]
    pub kind: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[shape(object)]
    pub parameters: Value,
    pub strict: bool,
}

fn image_part(image: &crate::conversation::Image) -> ContentPart {
    ContentPart::InputImage { image_url: Some(image.to_url()), file_id: None, detail: "auto".to_owned() }
}

/// Renders a repaired item list.
pub fn render(items: &[&Item], options: &RenderOptions) -> (Request, RenderNotes) {
    let mut notes = RenderNotes::default();
    let mut ids = IdMapper::default();
    let mut custom_calls: HashSet<String> = HashSet::default();
    let mut input: Vec<InputItem> = Vec::new();
    // What the API keeps of this request's items: `store` is true unless the request says false.
    let stored = options.settings.openai_responses.store != Some(false);

    for item in items {
        match item {
            Item::User(message) => {
                let parts: Vec<ContentPart> = message
                    .content
                    .iter()
                    .filter_map(|part| match part {
                        Part::Text { text } if text.is_empty() => None,
                        Part::Text { text } => Some(ContentPart::InputText { text: text.clone() }),
                        Part::Image(image) => Some(image_part(image)),
                    })
                    .collect();
                if !parts.is_empty() {
                    input.push(InputItem::Message { id: None, role: MessageRole::User, content: MessageContent::Parts(parts), status: None });
                }
            }
            Item::Assistant(text) => {
                if text.text.is_empty() {
                    continue;
                }
                match text.annotations.as_ref().filter(|_| text.origin.as_ref().is_some_and(|o| o.provider == "openai-responses")) {
                    // Annotated text goes back as the output message it came as, annotations and
                    // all (its id when stored).
                    Some(annotations) => {
                        let id = annotations.item_id.clone().filter(|_| stored);
                        let status = id.as_ref().map(|_| "completed".to_owned());
                        let list = annotations.list.iter().filter_map(annotation_param).collect();
                        let part = ContentPart::OutputText { text: text.text.clone(), annotations: Some(list) };
                        input.push(InputItem::Message { id, role: MessageRole::Assistant, content: MessageContent::Parts(vec![part]), status });
                    }
                    None => input.push(InputItem::Message { id: None, role: MessageRole::Assistant, content: MessageContent::Text(text.text.clone()), status: None }),
                }
            }
            Item::Reasoning(reasoning) => {
                let fate = match reasoning_fate(reasoning, super::Provider::OpenAiResponses, options) {
                    // Not stored, an item without its encrypted content cannot be read back.
                    ReasoningFate::Native if !stored && reasoning.encrypted.is_none() => ReasoningFate::Drop,
                    fate => fate,
                };
                notes.reasoning.count(fate, reasoning, super::Provider::OpenAiResponses, options);
                match fate {
                    // Stored, it goes back as it came, id and all (a hosted tool's item that
                    // follows it names it); not stored, by its encrypted content alone.
                    ReasoningFate::Native => input.push(InputItem::Reasoning {
                        id: reasoning.provider_id.clone().filter(|_| stored),
                        summary: match &reasoning.summary {
                            Some(parts) => parts.iter().map(|text| SummaryText { kind: "summary_text".to_owned(), text: text.clone() }).collect(),
                            None if reasoning.text.is_empty() => Vec::new(),
                            None => vec![SummaryText { kind: "summary_text".to_owned(), text: String::clone(&reasoning.text) }],
                        },
                        encrypted_content: reasoning.encrypted.clone(),
                    }),
                    ReasoningFate::AsText => input.push(InputItem::Message {
                        id: None,
                        status: None,
                        role: MessageRole::Assistant,
                        content: MessageContent::Text(reasoning_as_text(reasoning).into()),
                    }),
                    ReasoningFate::Drop => {}
                }
            }
            Item::ToolCall(call) => {
                let call_id = ids.map(&call.call_id, ids::LENIENT);
                match call.input.as_string() {
                    Some(text) => {
                        custom_calls.insert(call_id.clone());
                        input.push(InputItem::CustomToolCall { call_id, name: call.name.clone(), input: text });
                    }
                    None => input.push(InputItem::FunctionCall {
                        call_id,
                        name: call.name.clone(),
                        arguments: arguments_string(&call.input, &mut notes),
                    }),
                }
            }
            Item::Native(native) => match super::native_replays(native, super::Provider::OpenAiResponses) {
                true => match super::natives::responses_item(&native.value) {
                    // Stored, the item goes back with its `id`, as the API reference lists it;
                    // not stored, without (an id would be looked up and not found).
                    Some(mut value) => {
                        if !stored {
                            value.remove("id");
                        }
                        input.push(InputItem::Native(value));
                    }
                    None => notes.unknown_natives.push(super::natives::kind_of(&native.value)),
                },
                false => notes.dropped_natives += 1,
            },
            Item::ToolResult(result) => {
                let call_id = ids.get(&result.call_id);
                let has_image = result.content.iter().any(|p| matches!(p, Part::Image(_)));
                let output = if has_image {
                    let marker = result.is_error.then(|| ContentPart::InputText { text: "Error:".to_owned().into() });
                    Output::Parts(
                        marker
                            .into_iter()
                            .chain(result.content.iter()
                            .filter_map(|part| match part {
                                Part::Text { text } if text.is_empty() => None,
                                Part::Text { text } => Some(ContentPart::InputText { text: text.clone() }),
                                Part::Image(image) => Some(image_part(image)),
                            }))
                            .collect(),
                    )
                } else {
                    Output::Text(super::result_text(crate::conversation::shared_text_of(&result.content), result.is_error))
                };
                // A free-form tool's output takes the same string or parts as a function's.
                if custom_calls.contains(&call_id) {
                    input.push(InputItem::CustomToolCallOutput { call_id, output });
                } else {
                    input.push(InputItem::FunctionCallOutput { call_id, output });
                }
            }
        }
    }

    // A reasoning item must be followed by the output item it preceded; drop any that is not.
    // Walk backwards so a run of reasoning items is judged by what finally follows it.
    for index in (0..input.len()).rev() {
        if matches!(input[index], InputItem::Reasoning { .. }) && !follows_reasoning(input.get(index + 1)) {
            input.remove(index);
            notes.reasoning.kept -= 1;
            notes.reasoning.dropped += 1;
        }
    }

    let tools = (!options.tools.is_empty()).then(|| {
        options
            .tools
            .iter()
            .map(|t| Tool {
                kind: "function".to_owned(),
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.input_schema.clone(),
                strict: false,
            })
            .collect()
    });
    notes.id_map = ids.into_changed();
    let instructions = options.system.clone().filter(|s| !s.is_empty());
    let prompt_cache_key = options.cache.enabled.then(|| options.cache.key.clone()).flatten();
    let settings = options.settings.openai_responses.clone();
    (Request { model: options.model.clone(), prompt_cache_key, max_output_tokens: options.max_tokens, settings, tools, instructions, input }, notes)
}

/// One annotation the model's text came with, as the request takes it back: each kind's own
/// fields, all required. One of a kind this version does not know, or missing a field, is left
/// out of the request (the log keeps it as it came).
fn annotation_param(annotation: &Value) -> Option<Value> {
    let fields: &[&str] = match annotation.get("type").and_then(Value::as_str)? {
        "url_citation" => &["url", "title", "start_index", "end_index"],
        "file_citation" => &["file_id", "filename", "index"],
        "container_file_citation" => &["container_id", "file_id", "filename", "start_index", "end_index"],
        "file_path" => &["file_id", "index"],
        _ => return None,
    };
    let mut map = serde_json::Map::new();
    for key in ["type"].iter().chain(fields) {
        map.insert((*key).to_owned(), annotation.get(*key).filter(|v| !v.is_null())?.clone());
    }
    Some(Value::Object(map))
}

fn follows_reasoning(next: Option<&InputItem>) -> bool {
    match next {
        Some(InputItem::Message { role: MessageRole::Assistant, .. })
        | Some(InputItem::FunctionCall { .. })
        | Some(InputItem::CustomToolCall { .. })
        | Some(InputItem::Reasoning { .. })
        | Some(InputItem::Native(_)) => true,
        Some(InputItem::Message { .. })
        | Some(InputItem::FunctionCallOutput { .. })
        | Some(InputItem::CustomToolCallOutput { .. })
        | None => false,
    }
}

/// Checks every rule of the Responses API we know of; returns each one broken.
pub fn validate(request: &Request) -> Vec<Violation> {
    let tools: Vec<&str> = request.tools.iter().flatten().map(|t| t.name.as_str()).collect();
    let context = super::settings::Context { model: &request.model, max_tokens: request.max_output_tokens, tools: &tools, system: request.instructions.is_some() };
    let mut v = super::settings::openai_responses::check(&request.settings, &context);
    let mut calls: HashSet<&str> = HashSet::default();
    let outputs: HashSet<&str> = request
        .input
        .iter()
        .filter_map(|item| match item {
            InputItem::FunctionCallOutput { call_id, .. } | InputItem::CustomToolCallOutput { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    for (i, item) in request.input.iter().enumerate() {
        let path = At::root("input[", i, "]");
        // Not stored, an item's id is looked up all the same, and not found.
        if request.settings.store == Some(false) {
            let id = match item {
                InputItem::Message { id, .. } | InputItem::Reasoning { id, .. } => id.as_deref(),
                InputItem::Native(value) => value.get("id").and_then(Value::as_str),
                InputItem::FunctionCall { .. }
                | InputItem::FunctionCallOutput { .. }
                | InputItem::CustomToolCall { .. }
                | InputItem::CustomToolCallOutput { .. } => None,
            };
            if let Some(id) = id {
                v.push(Violation::new(
                    crate::provider::rules::OPENAI_RESPONSES_UNSTORED_ITEM_ID,
                    &path,
                    format!("Item with id '{id}' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."),
                ));
            }
        }
        match item {
            InputItem::FunctionCall { call_id, arguments, .. } => {
                if serde_json::from_str::<Value>(arguments).is_err() {
                    v.push(Violation::new(crate::provider::rules::OPENAI_RESPONSES_ARGUMENTS_JSON, &path, format!("Invalid '{path}.arguments': not a JSON string.")));
                }
                check_call(call_id, &path, &mut calls, &outputs, &mut v);
            }
            InputItem::CustomToolCall { call_id, .. } => check_call(call_id, &path, &mut calls, &outputs, &mut v),
            InputItem::FunctionCallOutput { call_id, output } => {
                if !calls.contains(call_id.as_str()) {
                    v.push(Violation::new(
                        crate::provider::rules::OPENAI_RESPONSES_OUTPUT_HAS_CALL,
                        &path,
                        format!("No tool call found for function call output with call_id {call_id}."),
                    ));
                }
                if let Output::Parts(parts) = output {
                    check_parts(parts, &path, true, &mut v);
                }
            }
            InputItem::CustomToolCallOutput { call_id, .. } => {
                if !calls.contains(call_id.as_str()) {
                    v.push(Violation::new(
                        crate::provider::rules::OPENAI_RESPONSES_OUTPUT_HAS_CALL,
                        &path,
                        format!("No tool call found for custom tool call output with call_id {call_id}."),
                    ));
                }
            }
            InputItem::Reasoning { id, encrypted_content, .. } => {
                if !reasoning_chain_ends_well(&request.input[i + 1..]) {
                    let id = id.as_deref().unwrap_or("(no id)");
                    v.push(Violation::new(
                        crate::provider::rules::OPENAI_RESPONSES_REASONING_FOLLOWED,
                        &path,
                        format!("Item '{id}' of type 'reasoning' was provided without its required following item."),
                    ));
                }
                match (id.as_deref(), encrypted_content) {
                    (Some(""), _) => v.push(Violation::new(crate::provider::rules::OPENAI_RESPONSES_REASONING_ID, &path, format!("Invalid '{path}.id': empty string."))),
                    (None, None) => v.push(Violation::new(
                        crate::provider::rules::OPENAI_RESPONSES_REASONING_ID,
                        &path,
                        format!("Invalid '{path}': a reasoning item needs its id or its encrypted_content."),
                    )),
                    (Some(_), _) | (None, Some(_)) => {}
                }
            }
            InputItem::Native(item) => {
                if !item.get("type").is_some_and(Value::is_string) {
                    v.push(Violation::new(crate::provider::rules::OPENAI_RESPONSES_ITEM_TYPE, &path, format!("Missing required parameter: '{path}.type'.")));
                }
            }
            InputItem::Message { role, content, .. } => match content {
                MessageContent::Text(text) if text.is_empty() => {
                    v.push(Violation::new(crate::provider::rules::OPENAI_RESPONSES_MESSAGE_CONTENT, &path, format!("Invalid '{path}.content': empty string.")))
                }
                MessageContent::Text(_) => {}
                MessageContent::Parts(parts) => {
                    if parts.is_empty() {
                        v.push(Violation::new(crate::provider::rules::OPENAI_RESPONSES_MESSAGE_CONTENT, &path, format!("Invalid '{path}.content': empty array.")));
                    }
                    let input_side = *role != MessageRole::Assistant;
                    check_parts(parts, &path, input_side, &mut v);
                }
            },
        }
    }
    v
}

/// A run of reasoning items is fine when the first non-reasoning item after it is an output item.
fn reasoning_chain_ends_well(items: &[InputItem]) -> bool {
    follows_reasoning(items.iter().find(|i| !matches!(i, InputItem::Reasoning { .. })))
}

fn check_call<'a>(call_id: &'a str, path: &At<'_>, calls: &mut HashSet<&'a str>, outputs: &HashSet<&str>, v: &mut Vec<Violation>) {
    if call_id.is_empty() {
        v.push(Violation::new(crate::provider::rules::OPENAI_RESPONSES_CALL_ID_NON_EMPTY, path, format!("Invalid '{path}.call_id': empty string.")));
    }
    if !calls.insert(call_id) {
        v.push(Violation::new(crate::provider::rules::OPENAI_RESPONSES_CALL_ID_UNIQUE, path, format!("Duplicate call_id '{call_id}'.")));
    }
    if !outputs.contains(call_id) {
        v.push(Violation::new(crate::provider::rules::OPENAI_RESPONSES_CALL_HAS_OUTPUT, path, format!("No tool output found for function call {call_id}.")));
    }
}

fn check_parts(parts: &[ContentPart], path: &At<'_>, input_side: bool, v: &mut Vec<Violation>) {
    for (k, part) in parts.iter().enumerate() {
        let ppath = path.child(".content[", k, "]");
        match part {
            ContentPart::InputText { .. } | ContentPart::OutputText { .. } if part.text().is_some_and(str::is_empty) => {
                v.push(Violation::new(crate::provider::rules::OPENAI_RESPONSES_TEXT_NON_EMPTY, &ppath, format!("Invalid '{ppath}.text': empty string.")))
            }
            ContentPart::InputImage { image_url: None, file_id: None, .. } => v.push(Violation::new(
                crate::provider::rules::OPENAI_RESPONSES_IMAGE_SOURCE,
                &ppath,
                format!("Invalid '{ppath}': input_image needs image_url or file_id."),
            )),
            ContentPart::InputText { .. } | ContentPart::InputImage { .. } if !input_side => v.push(Violation::new(
                crate::provider::rules::OPENAI_RESPONSES_PART_ROLE,
                &ppath,
                format!("Invalid '{ppath}': assistant messages take output_text parts."),
            )),
            ContentPart::OutputText { .. } if input_side => v.push(Violation::new(
                crate::provider::rules::OPENAI_RESPONSES_PART_ROLE,
                &ppath,
                format!("Invalid '{ppath}': output_text is only valid in assistant messages."),
            )),
            ContentPart::InputText { .. } | ContentPart::InputImage { .. } | ContentPart::OutputText { .. } => {}
        }
    }
}
