//! OpenAI Chat Completions: payload types, renderer and validator.
//!
//! Shape: `messages[]` with roles `system`/`developer`/`user`/`assistant`/`tool`. An assistant
//! message's `tool_calls` must be answered by one `tool` message per call, right after it. Tool
//! messages carry text only, so images a tool returned go into a user message after the whole
//! group of tool messages. There is no field to send reasoning back in.

use contextview_derive::ReadValue;
use rustc_hash::FxHashSet as HashSet;

use serde::Serialize;
use serde_json::Value;

use super::ids::{IdMapper, IdRule};
use super::{arguments_string, At, reasoning_as_text, reasoning_fate, Limits, ReasoningFate, RenderNotes, RenderOptions, Violation};
use crate::conversation::{Item, Part};

#[derive(Debug, Clone, PartialEq, Serialize, contextview_derive::ReadValue)]
#[shape(name = "OpenAiChatRequest")]
pub struct Request {
    pub model: String,
    /// Routes the requests of one session to the same prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// The reply's budget, reasoning included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    /// The request settings (reasoning effort, tool choice, sampling, …), at the top level.
    #[serde(flatten, skip_deserializing)]
    pub settings: super::settings::openai_chat::Settings,
    // Least changing first; the conversation is the last field, so each body extends the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    pub messages: Vec<Message>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatMessage")]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    System {
        content: String,
    },
    Developer {
        content: String,
    },
    User {
        content: UserContent,
    },
    Assistant {
        /// Shared with the conversation's text when the turn has one text (joined otherwise).
        #[serde(default)]
        content: Option<crate::conversation::SharedText>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<ToolCall>>,
    },
    Tool {
        tool_call_id: String,
        content: ToolContent,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum UserContent {
    Text(crate::conversation::SharedText),
    Parts(Vec<UserPart>),
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatUserPart")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UserPart {
    Text {
        text: crate::conversation::SharedText,
    },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatImageUrl")]
pub struct ImageUrl {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[shape(one_of("auto", "low", "high"))]
    pub detail: Option<String>,
}

/// Tool message content: a string or text parts. Any other part is a violation.
#[derive(Debug, Clone, PartialEq, Serialize)]
// What the renderer sends: a tool's images go in the user message after it.
#[serde(untagged)]
pub enum ToolContent {
    Text(crate::conversation::SharedText),
    Parts(Vec<UserPart>),
}

mod read;

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatToolCall")]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type")]
    #[shape(one_of("function"))]
    pub kind: String,
    pub function: FunctionCall,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatFunctionCall")]
pub struct FunctionCall {
    pub name: String,
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatTool")]
pub struct Tool {
    #[serde(rename = "type")]
    #[shape(one_of("function"))]
    pub kind: String,
    pub function: FunctionDef,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "OpenAiChatFunctionDef")]
pub struct FunctionDef {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[shape(object)]
    pub parameters: Value,
}

fn id_rule(limits: &Limits) -> IdRule {
    IdRule { max_len: limits.openai_chat_max_call_id, restricted_charset: false }
}

/// Renders a repaired item list.
pub fn render(items: &[&Item], options: &RenderOptions) -> (Request, RenderNotes) {
    let mut notes = RenderNotes::default();
    let mut ids = IdMapper::default();
    let rule = id_rule(&options.limits);
    let mut messages = Vec::new();
    if let Some(system) = options.system.as_ref().filter(|s| !s.is_empty()) {
        messages.push(Message::System { content: system.clone() });
    }
    // The assistant turn being collected, and tool-result images waiting for the tool group to end.
    let mut texts: Vec<crate::conversation::SharedText> = Vec::new();
    let mut calls: Vec<ToolCall> = Vec::new();
    let mut pending_images: Vec<UserPart> = Vec::new();

    let flush_turn = |texts: &mut Vec<crate::conversation::SharedText>, calls: &mut Vec<ToolCall>, messages: &mut Vec<Message>| {
        if texts.is_empty() && calls.is_empty() {
            return;
        }
        let content = match texts.as_slice() {
            [] => None,
            [one] => Some(one.clone()),
            many => Some(many.iter().map(|t| t.as_str()).collect::<Vec<_>>().join("\n\n").into()),
        };
        let tool_calls = (!calls.is_empty()).then(|| std::mem::take(calls));
        texts.clear();
        messages.push(Message::Assistant { content, tool_calls });
    };
    let flush_images = |pending: &mut Vec<UserPart>, messages: &mut Vec<Message>| {
        if !pending.is_empty() {
            let mut parts = vec![UserPart::Text { text: super::TOOL_IMAGES_NOTE.to_owned().into() }];
            parts.append(pending);
            messages.push(Message::User { content: UserContent::Parts(parts) });
        }
    };

    for item in items {
        match item {
            Item::Assistant(text) => {
                flush_images(&mut pending_images, &mut messages);
                if !text.text.is_empty() {
                    texts.push(text.text.clone());
                }
            }
            Item::Reasoning(reasoning) => {
                flush_images(&mut pending_images, &mut messages);
                let fate = reasoning_fate(reasoning, super::Provider::OpenAiChat, options);
                notes.reasoning.count(fate, reasoning, super::Provider::OpenAiChat, options);
                match fate {
                    ReasoningFate::AsText => texts.push(reasoning_as_text(reasoning).into()),
                    ReasoningFate::Native | ReasoningFate::Drop => {}
                }
            }
            // Chat Completions runs no server tools: another API's blocks have no form here.
            Item::Native(_) => {
                flush_images(&mut pending_images, &mut messages);
                notes.dropped_natives += 1;
            }
            Item::ToolCall(call) => {
                flush_images(&mut pending_images, &mut messages);
                calls.push(ToolCall {
                    id: ids.map(&call.call_id, rule),
                    kind: "function".to_owned(),
                    function: FunctionCall { name: call.name.clone(), arguments: arguments_string(&call.input, &mut notes) },
                });
            }
            Item::ToolResult(result) => {
                flush_turn(&mut texts, &mut calls, &mut messages);
                for part in &result.content {
                    if let Part::Image(image) = part {
                        notes.moved_images += 1;
                        pending_images.push(UserPart::ImageUrl { image_url: ImageUrl { url: image.to_url(), detail: None } });
                    }
                }
                let text = super::result_text(crate::conversation::shared_text_of(&result.content), result.is_error);
                messages.push(Message::Tool { tool_call_id: ids.get(&result.call_id), content: ToolContent::Text(text) });
            }
            Item::User(message) => {
                flush_turn(&mut texts, &mut calls, &mut messages);
                flush_images(&mut pending_images, &mut messages);
                if let Some(content) = user_content(&message.content) {
                    messages.push(Message::User { content });
                }
            }
        }
    }
    flush_turn(&mut texts, &mut calls, &mut messages);
    flush_images(&mut pending_images, &mut messages);

    let tools = (!options.tools.is_empty()).then(|| {
        options
            .tools
            .iter()
            .map(|t| Tool {
                kind: "function".to_owned(),
                function: FunctionDef { name: t.name.clone(), description: t.description.clone(), parameters: t.input_schema.clone() },
            })
            .collect()
    });
    notes.id_map = ids.into_changed();
    let prompt_cache_key = options.cache.enabled.then(|| options.cache.key.clone()).flatten();
    let settings = options.settings.openai_chat.clone();
    (Request { model: options.model.clone(), prompt_cache_key, max_completion_tokens: options.max_tokens, settings, tools, messages }, notes)
}

fn user_content(parts: &[Part]) -> Option<UserContent> {
    let non_empty: Vec<&Part> = parts.iter().filter(|p| !matches!(p, Part::Text { text } if text.is_empty())).collect();
    match non_empty.as_slice() {
        [] => None,
        [Part::Text { text }] => Some(UserContent::Text(text.clone())),
        many => Some(UserContent::Parts(
            many.iter()
                .map(|p| match p {
                    Part::Text { text } => UserPart::Text { text: text.clone() },
                    Part::Image(image) => UserPart::ImageUrl { image_url: ImageUrl { url: image.to_url(), detail: None } },
                })
                .collect(),
        )),
    }
}

/// Checks every rule of Chat Completions we know of; returns each one broken.
pub fn validate(request: &Request, limits: &Limits) -> Vec<Violation> {
    let tools: Vec<&str> = request.tools.iter().flatten().map(|t| t.function.name.as_str()).collect();
    let context = super::settings::Context { model: &request.model, max_tokens: request.max_completion_tokens, tools: &tools, system: false };
    let mut v = super::settings::openai_chat::check(&request.settings, &context);
    let mut all_ids = HashSet::default();
    let messages = &request.messages;
    if messages.is_empty() {
        v.push(Violation::new(crate::provider::rules::OPENAI_CHAT_MESSAGES_NON_EMPTY, "messages", "[] is too short - 'messages'"));
    }
    let mut i = 0;
    while i < messages.len() {
        let path = At::root("messages[", i, "]");
        match &messages[i] {
            Message::Tool { .. } => {
                v.push(Violation::new(
                    crate::provider::rules::OPENAI_CHAT_TOOL_FOLLOWS_TOOL_CALLS,
                    &path,
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
                ));
                i += 1;
            }
            Message::Assistant { content, tool_calls } => {
                let calls = tool_calls.as_deref().unwrap_or(&[]);
                if content.as_ref().is_none_or(|c| c.is_empty()) && calls.is_empty() {
                    v.push(Violation::new(
                        crate::provider::rules::OPENAI_CHAT_ASSISTANT_CONTENT,
                        &path,
                        format!("Invalid value for '{path}': an assistant message needs 'content' or 'tool_calls'."),
                    ));
                }
                if tool_calls.as_ref().is_some_and(Vec::is_empty) {
                    v.push(Violation::new(crate::provider::rules::OPENAI_CHAT_TOOL_CALLS_NON_EMPTY, &path, format!("'{path}.tool_calls': [] is too short")));
                }
                let mut expected: Vec<&str> = Vec::new();
                for (k, call) in calls.iter().enumerate() {
                    let cpath = path.child(".tool_calls[", k, "]");
                    if call.id.is_empty() || call.id.len() > limits.openai_chat_max_call_id {
                        v.push(Violation::new(
                            crate::provider::rules::OPENAI_CHAT_TOOL_CALL_ID_LENGTH,
                            &cpath,
                            format!("Invalid '{cpath}.id': string must be 1 to {} characters long.", limits.openai_chat_max_call_id),
                        ));
                    }
                    if !all_ids.insert(call.id.clone()) {
                        v.push(Violation::new(crate::provider::rules::OPENAI_CHAT_TOOL_CALL_ID_UNIQUE, &cpath, format!("Duplicate tool_call id '{}'.", call.id)));
                    }
                    if call.kind != "function" {
                        v.push(Violation::new(crate::provider::rules::OPENAI_CHAT_TOOL_CALL_TYPE, &cpath, format!("Invalid value: '{}'. Supported values are: 'function'.", call.kind)));
                    }
                    if serde_json::from_str::<Value>(&call.function.arguments).is_err() {
                        v.push(Violation::new(
                            crate::provider::rules::OPENAI_CHAT_ARGUMENTS_JSON,
                            &cpath,
                            format!("Invalid '{cpath}.function.arguments': not a JSON string."),
                        ));
                    }
                    expected.push(&call.id);
                }
                i += 1;
                // The tool messages answering this assistant message.
                let mut answered = HashSet::default();
                while let Some(Message::Tool { tool_call_id, content }) = messages.get(i) {
                    let tpath = At::root("messages[", i, "]");
                    if !expected.contains(&tool_call_id.as_str()) {
                        v.push(Violation::new(
                            crate::provider::rules::OPENAI_CHAT_TOOL_FOLLOWS_TOOL_CALLS,
                            &tpath,
                            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
                        ));
                    }
                    answered.insert(tool_call_id.as_str());
                    if let ToolContent::Parts(parts) = content {
                        if parts.iter().any(|p| !matches!(p, UserPart::Text { .. })) {
                            v.push(Violation::new(
                                crate::provider::rules::OPENAI_CHAT_TOOL_CONTENT_TEXT,
                                &tpath,
                                format!("Invalid '{tpath}.content': tool messages accept text content only."),
                            ));
                        }
                    }
                    i += 1;
                }
                let missing: Vec<&str> = expected.iter().copied().filter(|id| !answered.contains(id)).collect();
                if !missing.is_empty() {
                    v.push(Violation::new(
                        crate::provider::rules::OPENAI_CHAT_TOOL_CALLS_ANSWERED,
                        &path,
                        format!(
                            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                            missing.join(", ")
                        ),
                    ));
                }
            }
            Message::User { content } => {
                match content {
                    UserContent::Text(text) if text.is_empty() => {
                        v.push(Violation::new(crate::provider::rules::OPENAI_CHAT_USER_CONTENT, &path, format!("Invalid '{path}.content': empty string.")))
                    }
                    UserContent::Text(_) => {}
                    UserContent::Parts(parts) => {
                        if parts.is_empty() {
                            v.push(Violation::new(crate::provider::rules::OPENAI_CHAT_USER_CONTENT, &path, format!("Invalid '{path}.content': empty array.")));
                        }
                        for (k, part) in parts.iter().enumerate() {
                            if let UserPart::ImageUrl { image_url } = part {
                                if !(image_url.url.starts_with("https://") || image_url.url.starts_with("http://") || image_url.url.starts_with("data:")) {
                                    v.push(Violation::new(
                                        crate::provider::rules::OPENAI_CHAT_IMAGE_URL,
                                        path.child(".content[", k, "]"),
                                        "Invalid image_url: expected an http(s) URL or a data: URL.",
                                    ));
                                }
                            }
                        }
                    }
                }
                i += 1;
            }
            Message::System { content } | Message::Developer { content } => {
                if content.is_empty() {
                    v.push(Violation::new(crate::provider::rules::OPENAI_CHAT_SYSTEM_CONTENT, &path, format!("Invalid '{path}.content': empty string.")));
                }
                i += 1;
            }
        }
    }
    v
}
