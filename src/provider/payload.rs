//! A payload of any of the four APIs: rendering one, serializing it (reusing the entries a
//! build before serialized), validating it whole or as it grows, and what the session needs to
//! ask of it whatever the API.

use super::*;
use crate::conversation::Item;

/// A rendered payload of any provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Payload {
    Anthropic(anthropic::Request),
    OpenAiChat(openai_chat::Request),
    OpenAiResponses(openai_responses::Request),
    Gemini(gemini::Request),
}

/// What validating a payload leaves for checking its growth ([`Payload::validate_appended`]).
#[derive(Debug, Clone)]
pub enum Checked {
    Anthropic(anthropic::Check),
    /// The other APIs' payloads are checked whole on every build.
    Whole,
}

/// One API's request, as [`Payload`] handles it whatever the API: rendered from items, its
/// conversation entries (always the body's last field), and validated.
pub trait Api: Serialize + Sized {
    /// A conversation entry: a message, an input item, a content.
    type Entry: Serialize + PartialEq;
    fn render(items: &[&Item], options: &RenderOptions) -> (Self, RenderNotes);
    fn entries(&self) -> &Vec<Self::Entry>;
    fn entries_mut(&mut self) -> &mut Vec<Self::Entry>;
    /// The entry is the model's: an assistant message or a model turn (for the Responses API,
    /// whose items stand alone, anything but a user or system message).
    fn is_model_entry(entry: &Self::Entry) -> bool;
    fn validate_sized(&self, limits: &Limits, body_len: usize) -> Vec<Violation>;
    fn into_payload(self) -> Payload;
    /// This API's request in `payload`, if it is one.
    fn of(payload: &Payload) -> Option<&Self>;
    fn from_payload(payload: Payload) -> Option<Self>;
}

/// `$body` for the request of whichever API `$payload` holds, bound to `$r`.
macro_rules! each {
    ($payload:expr, $r:ident => $body:expr) => {
        match $payload {
            Payload::Anthropic($r) => $body,
            Payload::OpenAiChat($r) => $body,
            Payload::OpenAiResponses($r) => $body,
            Payload::Gemini($r) => $body,
        }
    };
}

macro_rules! api {
    ($module:ident, $variant:ident, $entries:ident, $entry:ty, |$e:ident| $model:expr, |$r:ident, $limits:ident, $len:ident| $validate:expr) => {
        impl Api for $module::Request {
            type Entry = $entry;
            fn render(items: &[&Item], options: &RenderOptions) -> (Self, RenderNotes) {
                $module::render(items, options)
            }
            fn entries(&self) -> &Vec<$entry> {
                &self.$entries
            }
            fn entries_mut(&mut self) -> &mut Vec<$entry> {
                &mut self.$entries
            }
            fn is_model_entry($e: &$entry) -> bool {
                $model
            }
            fn validate_sized(&self, $limits: &Limits, $len: usize) -> Vec<Violation> {
                let $r = self;
                $validate
            }
            fn into_payload(self) -> Payload {
                Payload::$variant(self)
            }
            // Every variant is named (its own one twice): a new API must be added here.
            #[allow(unreachable_patterns)]
            fn of(payload: &Payload) -> Option<&Self> {
                match payload {
                    Payload::$variant(r) => Some(r),
                    Payload::Anthropic(_) | Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => None,
                }
            }
            #[allow(unreachable_patterns)]
            fn from_payload(payload: Payload) -> Option<Self> {
                match payload {
                    Payload::$variant(r) => Some(r),
                    Payload::Anthropic(_) | Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => None,
                }
            }
        }
    };
}

api!(anthropic, Anthropic, messages, anthropic::Message, |m| m.role == anthropic::Role::Assistant, |r, limits, len| anthropic::validate_sized(r, limits, len));
api!(openai_chat, OpenAiChat, messages, openai_chat::Message, |m| matches!(m, openai_chat::Message::Assistant { .. }), |r, limits, _len| openai_chat::validate(r, limits));
api!(
    openai_responses,
    OpenAiResponses,
    input,
    openai_responses::InputItem,
    |i| match i {
        openai_responses::InputItem::Message { role, .. } => *role == openai_responses::MessageRole::Assistant,
        openai_responses::InputItem::FunctionCall { .. }
        | openai_responses::InputItem::FunctionCallOutput { .. }
        | openai_responses::InputItem::CustomToolCall { .. }
        | openai_responses::InputItem::CustomToolCallOutput { .. }
        | openai_responses::InputItem::Reasoning { .. }
        | openai_responses::InputItem::Native(_) => true,
    },
    |r, _limits, _len| openai_responses::validate(r)
);
api!(gemini, Gemini, contents, gemini::Content, |c| c.role.as_deref() == Some("model"), |r, _limits, _len| gemini::validate(r));

impl Payload {
    pub fn provider(&self) -> Provider {
        match self {
            Payload::Anthropic(_) => Provider::Anthropic,
            Payload::OpenAiChat(_) => Provider::OpenAiChat,
            Payload::OpenAiResponses(_) => Provider::OpenAiResponses,
            Payload::Gemini(_) => Provider::Gemini,
        }
    }

    /// The request body exactly as it would be sent.
    pub fn to_json(&self) -> String {
        // Serialising these types cannot fail: every map key is a string.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Entries of the conversation (messages, input items or contents).
    pub fn entries_len(&self) -> usize {
        each!(self, r => r.entries().len())
    }

    /// Appends `more`'s conversation entries to this payload's; `false` (nothing changed) when
    /// the two are not the same API.
    pub fn append_entries(&mut self, more: Payload) -> bool {
        fn append<A: Api>(a: &mut A, more: Payload) -> bool {
            A::from_payload(more).map(|mut b| a.entries_mut().append(b.entries_mut())).is_some()
        }
        each!(self, r => append(r, more))
    }

    /// The conversation's first entry is the model's ([`Api::is_model_entry`]); true for an
    /// empty one.
    pub fn starts_on_assistant_side(&self) -> bool {
        fn starts<A: Api>(r: &A) -> bool {
            r.entries().first().is_none_or(A::is_model_entry)
        }
        each!(self, r => starts(r))
    }

    /// Keeps the first `len` conversation entries.
    pub fn truncate_entries(&mut self, len: usize) {
        each!(self, r => r.entries_mut().truncate(len))
    }

    /// The settings this payload carries are still the ones its conversation calls for: the
    /// Anthropic `thinking` a turn without thinking suspends ([`anthropic::thinking_sent`]) is
    /// decided by the conversation's end, which an append moves.
    pub fn settings_hold(&self, options: &RenderOptions) -> bool {
        match self {
            Payload::Anthropic(r) => r.settings.thinking == anthropic::thinking_sent(r, options),
            Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => true,
        }
    }

    /// Why the target refuses this payload's ending with an assistant turn (prefill), when it
    /// ends with one and the target does; `None` when the payload may be sent as it is.
    pub fn prefill_refusal(&self, limits: &Limits) -> Option<String> {
        match self {
            Payload::Anthropic(r) => anthropic::prefill_refusal(r, limits),
            Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => None,
        }
    }

    /// Writes the entries appended to this payload since `body` was serialized from it onto the
    /// end of `body` (its first `body.entries()` entries are taken as they are, without comparing
    /// them, and the rest of the payload as unchanged). Returns how many entries were kept; `None`
    /// when the payload holds fewer entries than the body.
    pub fn to_json_appended(&self, body: &mut Body) -> Option<usize> {
        fn append<A: Api>(r: &A, body: &mut Body) -> Option<usize> {
            let known = body.entries();
            for entry in r.entries().get(known..)? {
                body.push(entry);
            }
            Some(known)
        }
        each!(self, r => append(r, body))
    }

    /// Serializes the payload, copying the JSON of conversation entries equal to the same entry
    /// of `previous` (a payload serialized before, with its body) from that body. Returns the
    /// body — byte for byte what [`Payload::to_json`] gives — with its entries' places, and how
    /// many entries were copied. `size_hint` is the body's expected length when there is no
    /// previous body (room is made for it at once rather than by doubling: a body is the largest
    /// string a session makes).
    pub fn to_json_reusing(&mut self, previous: Option<(&Payload, &Body)>, size_hint: usize) -> (Body, usize) {
        fn reusing<A: Api>(r: &mut A, previous: Option<(&Payload, &Body)>, size_hint: usize) -> (Body, usize) {
            let previous = previous.and_then(|(p, body)| A::of(p).map(|p| (&p.entries()[..], body)));
            serialize(r, previous, size_hint)
        }
        each!(self, r => reusing(r, previous, size_hint))
    }

    pub fn validate(&self, limits: &Limits) -> Vec<Violation> {
        self.validate_sized(limits, json_len(self))
    }

    /// As [`Payload::validate`], when the serialized body's length is already known.
    pub fn validate_sized(&self, limits: &Limits, body_len: usize) -> Vec<Violation> {
        each!(self, r => r.validate_sized(limits, body_len))
    }

    /// As [`Payload::validate_sized`], keeping what a later [`Payload::validate_appended`] needs
    /// to check only what is appended to this payload.
    pub fn validate_keeping(&self, limits: &Limits, body_len: usize) -> (Vec<Violation>, Checked) {
        match self {
            Payload::Anthropic(p) => {
                let (violations, check) = anthropic::Check::full(p, limits, body_len);
                (violations, Checked::Anthropic(check))
            }
            Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => (self.validate_sized(limits, body_len), Checked::Whole),
        }
    }

    /// Validates this payload, which is the one `checked` was made from with entries appended:
    /// the Messages API's rules are checked on the new messages and across the request, the
    /// old messages are not walked again. Where that cannot be done, the payload is checked whole.
    pub fn validate_appended(&self, limits: &Limits, body_len: usize, checked: &mut Checked) -> Vec<Violation> {
        if let (Payload::Anthropic(p), Checked::Anthropic(check)) = (self, &mut *checked) {
            if let Some(violations) = check.resume(p, limits, body_len) {
                return violations;
            }
        }
        let (violations, fresh) = self.validate_keeping(limits, body_len);
        *checked = fresh;
        violations
    }

    /// Reads a payload of `provider`'s shape from JSON, for validation of payloads made elsewhere.
    pub fn from_json(provider: Provider, value: Value) -> Result<Payload, String> {
        // The settings sit among the body's own fields: read apart, then put in place.
        fn read<R: serde::de::DeserializeOwned, S: serde::de::DeserializeOwned + crate::value_read::Fields>(value: Value) -> Result<(R, S), String> {
            let Value::Object(mut body) = value else { return Err("a request body is a JSON object".to_owned()) };
            let mut settings = serde_json::Map::new();
            for key in settings::field_names::<S>() {
                if let Some(v) = body.remove(*key) {
                    settings.insert((*key).to_owned(), v);
                }
            }
            let settings = crate::diagnostic::from_value(Value::Object(settings))?;
            Ok((crate::diagnostic::from_value(Value::Object(body))?, settings))
        }
        Ok(match provider {
            Provider::Anthropic => read(value).map(|(r, s)| Payload::Anthropic(anthropic::Request { settings: s, ..r }))?,
            Provider::OpenAiChat => read(value).map(|(r, s)| Payload::OpenAiChat(openai_chat::Request { settings: s, ..r }))?,
            Provider::OpenAiResponses => read(value).map(|(r, s)| Payload::OpenAiResponses(openai_responses::Request { settings: s, ..r }))?,
            Provider::Gemini => read(value).map(|(r, s)| Payload::Gemini(gemini::Request { settings: s, ..r }))?,
        })
    }
}

/// Renders items for `provider`.
pub fn render(provider: Provider, items: &[&Item], options: &RenderOptions) -> (Payload, RenderNotes) {
    fn rendered<A: Api>(items: &[&Item], options: &RenderOptions) -> (Payload, RenderNotes) {
        let (request, notes) = A::render(items, options);
        (request.into_payload(), notes)
    }
    match provider {
        Provider::Anthropic => rendered::<anthropic::Request>(items, options),
        Provider::OpenAiChat => rendered::<openai_chat::Request>(items, options),
        Provider::OpenAiResponses => rendered::<openai_responses::Request>(items, options),
        Provider::Gemini => rendered::<gemini::Request>(items, options),
    }
}

/// Serializes `request`: the rest of the request with an empty conversation (its last field,
/// `entries`), then the entries in its place, each copied from `previous`'s body when it equals
/// the entry there, else serialized.
fn serialize<A: Api>(request: &mut A, previous: Option<(&[A::Entry], &Body)>, size_hint: usize) -> (Body, usize) {
    let list = std::mem::take(request.entries_mut());
    let envelope = serde_json::to_string(request).unwrap_or_default();
    *request.entries_mut() = list;
    // The envelope ends with the empty conversation: `[]}`.
    let stem = envelope.strip_suffix("[]}").unwrap_or(&envelope);
    let previous = previous.filter(|(entries, body)| entries.len() == body.entries());
    // The last body is the best guess of this one's size; the first build has the caller's.
    let mut body = Body::start(stem, previous.map_or(size_hint, |(_, body)| body.len()));
    let mut reused = 0;
    for (i, entry) in request.entries().iter().enumerate() {
        match previous {
            Some((old, old_body)) if old.get(i) == Some(entry) => {
                reused += 1;
                body.push_json(old_body.entry(i));
            }
            _ => body.push(entry),
        }
    }
    body.fit();
    (body, reused)
}
