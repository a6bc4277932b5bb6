//! How values cross the JavaScript boundary, for the facade: results out as JSON text parsed by
//! the engine (`JSON.parse`), arguments in as JSON text read through a JSON value (one
//! deserializer per type in the `.wasm`), and errors as JS `Error`s with a stable `code`.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::ts::{self, JsTyped};

use contextview::diagnostic::Diagnostic;
use contextview::request::{BuildInput, RequestError};
use contextview::session::SessionError;
use contextview::view::{BuildError, Report};

/// A built request as an object (`BuildResult<P>` in TypeScript, told apart by `provider`).
/// The payload object is made by `JSON.parse` of the body the build already serialized:
/// one native pass over a string, measured faster than converting field by field.
pub fn build_result(body: &str, report: &Report, diagnostics: &[Diagnostic]) -> Result<JsValue, JsValue> {
    let payload = js_sys::JSON::parse(body).map_err(|_| error(crate::error_codes::INTERNAL, "the request body did not parse as JSON"))?;
    let result = js_sys::Object::new();
    js_sys::Reflect::set(&result, &"provider".into(), &report.provider.as_str().into())?;
    js_sys::Reflect::set(&result, &"payload".into(), &payload)?;
    js_sys::Reflect::set(&result, &"report".into(), &to_js(report)?)?;
    js_sys::Reflect::set(&result, &"diagnostics".into(), &to_js(diagnostics)?)?;
    Ok(result.into())
}

/// `{body, report, diagnostics}` with the body handed over as it is (a string or bytes), not
/// written into JSON text and parsed back.
pub fn body_result(body: JsValue, report: &Report, diagnostics: &[Diagnostic]) -> Result<JsValue, JsValue> {
    let result = js_sys::Object::new();
    js_sys::Reflect::set(&result, &"body".into(), &body)?;
    js_sys::Reflect::set(&result, &"report".into(), &to_js(report)?)?;
    js_sys::Reflect::set(&result, &"diagnostics".into(), &to_js(diagnostics)?)?;
    Ok(result.into())
}

// The package's error classes (`ContextviewError`, `ContextviewTypeError`): one module, which
// every entry point exports (scripts/build.sh points each copy of it at one instance).
#[wasm_bindgen(module = "/src/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str, details: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = makeTypeError)]
    fn make_type_error(argument: &str, message: &str) -> JsValue;
}

/// A refusal as a `ContextviewError` with its stable `code`.
pub fn error(code: &str, message: &str) -> JsValue {
    make_error(code, message, JsValue::UNDEFINED)
}

/// A refusal with `details` (the rules a payload broke, …).
pub fn error_with<T: Serialize>(code: &str, message: &str, details: &T) -> JsValue {
    make_error(code, message, to_js(details).unwrap_or(JsValue::UNDEFINED))
}

/// What a JS value is, in words, for a wrong-typed argument's message.
fn kind_of(value: &JsValue) -> &'static str {
    if value.is_undefined() {
        "undefined"
    } else if value.is_null() {
        "null"
    } else if value.is_string() {
        "a string"
    } else if value.as_bool().is_some() {
        "a boolean"
    } else if value.as_f64().is_some() {
        "a number"
    } else if value.is_bigint() {
        "a bigint"
    } else if value.is_symbol() {
        "a symbol"
    } else if value.is_function() {
        "a function"
    } else if js_sys::Array::is_array(value) {
        "an array"
    } else {
        "an object"
    }
}

/// A wrong-typed argument: a `ContextviewTypeError` (a `TypeError`, code `invalid_argument`)
/// naming the argument.
pub fn type_error(argument: &str, expected: &str, value: &JsValue) -> JsValue {
    make_type_error(argument, &format!("`{argument}` must be {expected}, not {}", kind_of(value)))
}

/// A string argument (wasm-bindgen would read anything else as memory and trap).
pub fn string(value: &JsValue, argument: &str) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| type_error(argument, "a string", value))
}

/// An optional string argument: `undefined` and `null` are none.
pub fn optional_string(value: &JsValue, argument: &str) -> Result<Option<String>, JsValue> {
    match value.is_undefined() || value.is_null() {
        true => Ok(None),
        false => string(value, argument).map(Some),
    }
}

/// A list of strings.
pub fn strings(value: &JsValue, argument: &str) -> Result<Vec<String>, JsValue> {
    let expected = "an array of strings";
    if !js_sys::Array::is_array(value) {
        return Err(type_error(argument, expected, value));
    }
    js_sys::Array::from(value).iter().map(|v| v.as_string().ok_or_else(|| type_error(argument, expected, &v))).collect()
}

/// Bytes: a `Uint8Array` (a string or anything else would be read as something it is not).
pub fn bytes(value: &JsValue, argument: &str) -> Result<Vec<u8>, JsValue> {
    value.dyn_ref::<js_sys::Uint8Array>().map(js_sys::Uint8Array::to_vec).ok_or_else(|| type_error(argument, "a Uint8Array", value))
}

/// A whole number in `range` (a status, a count).
pub fn integer(value: &JsValue, argument: &str, range: std::ops::RangeInclusive<u32>) -> Result<u32, JsValue> {
    let expected = || format!("a whole number from {} to {}", range.start(), range.end());
    let n = value.as_f64().ok_or_else(|| type_error(argument, &expected(), value))?;
    if n.fract() != 0.0 || n < f64::from(*range.start()) || n > f64::from(*range.end()) {
        return Err(make_type_error(argument, &format!("`{argument}` must be {}, not {n}", expected())));
    }
    Ok(n as u32)
}

pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value).map_err(|e| error(crate::error_codes::INTERNAL, &format!("could not convert the result to JS: {e}")))?;
    js_sys::JSON::parse(&text).map_err(|_| error(crate::error_codes::INTERNAL, "a result did not parse as JSON"))
}

/// A value as its TypeScript type (see [`crate::ts`]): its JSON, parsed.
pub fn typed<T: JsTyped + Serialize>(value: &T) -> Result<T::Js, JsValue> {
    to_js(value).map(JsCast::unchecked_into)
}

/// A JS value as JSON text (`undefined` is `null`). A value `JSON.stringify` refuses (a
/// `BigInt`, a cycle) or cannot write (a function) is refused with `code`.
pub fn json_text(value: &JsValue, code: &str, what: &str) -> Result<String, JsValue> {
    if value.is_undefined() {
        return Ok("null".to_owned());
    }
    let text = js_sys::JSON::stringify(value).map_err(|e| {
        let reason = e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_default();
        error(code, &format!("{what} is not JSON data: {reason}"))
    })?;
    text.as_string().ok_or_else(|| error(code, &format!("{what} is not JSON data")))
}

/// Reads a JS value as a JSON value first, then the type from that: every type then has one
/// deserializer in the `.wasm` (the JSON value's), not one per source.
pub fn via_value<T: serde::de::DeserializeOwned>(value: &JsValue, code: &str, what: &str) -> Result<T, JsValue> {
    from_json_text(&json_text(value, code, what)?, code, what)
}

/// The type from JSON text, through a JSON value (see [`via_value`]).
pub fn from_json_text<T: serde::de::DeserializeOwned>(text: &str, code: &str, what: &str) -> Result<T, JsValue> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| error(code, &format!("{what} is invalid: {e}")))?;
    contextview::diagnostic::read_value(value).map_err(|e| invalid_value(code, what, e))
}

/// A value of the wrong shape as the error thrown, with where in the argument it is as a field a
/// host reads (`details.path`); not generic, so one copy serves every type read.
fn invalid_value(code: &str, what: &str, e: contextview::diagnostic::ValueError) -> JsValue {
    let message = format!("{what} is invalid: {e}");
    match e.path {
        Some(path) => {
            let details = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&details, &JsValue::from_str("path"), &JsValue::from_str(&path));
            make_error(code, &message, details.into())
        }
        None => error(code, &message),
    }
}

pub fn options(input: ts::BuildInput) -> Result<BuildInput, JsValue> {
    via_value(&input, contextview::error_codes::INVALID_OPTIONS, "build options")
}

/// The last build options a session was given, as JSON text and as read with the session's
/// defaults (`Session::with_defaults`, the one way a build's input is made): an agent loop passes
/// the same options (system prompt, tool definitions) on every step, and reading them again
/// costs more than the build that follows a step. Options whose text differs, or a session whose
/// defaults changed (a model switched), are read anew.
#[derive(Default)]
pub struct OptionsMemo {
    text: String,
    defaults: Option<(contextview::provider::Provider, Option<String>, Option<u64>)>,
    read: Option<BuildInput>,
}

impl OptionsMemo {
    pub fn get(&mut self, input: &ts::BuildInput, session: &mut contextview::session::Session) -> Result<&BuildInput, JsValue> {
        let text = json_text(&input, contextview::error_codes::INVALID_OPTIONS, "build options")?;
        let defaults = session.defaults();
        if self.read.is_none() || text != self.text || defaults != self.defaults {
            let previous = self.read.take();
            let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| error(contextview::error_codes::INVALID_OPTIONS, &format!("build options is invalid: {e}")))?;
            let value = session.with_defaults(value).map_err(|e| match e {
                SessionError::InvalidOptions(m) => error(contextview::error_codes::INVALID_OPTIONS, &m),
                other => error(other.code(), &other.to_string()),
            })?;
            let mut read: BuildInput = contextview::diagnostic::read_value(value).map_err(|e| invalid_value("invalid_options", "build options", e))?;
            // Options that differ elsewhere (a new `now` each step) keep sharing equal tools, so
            // the build still compares them by pointer.
            if let Some(previous) = previous.filter(|p| p.tools == read.tools) {
                read.tools = previous.tools;
            }
            self.read = Some(read);
            self.text = text;
            self.defaults = defaults;
        }
        self.read.as_ref().ok_or_else(|| error(crate::error_codes::INTERNAL, "build options were not kept"))
    }
}

pub fn request_error(e: RequestError) -> JsValue {
    match e {
        RequestError::InvalidOptions(m) => error(contextview::error_codes::INVALID_OPTIONS, &m),
        RequestError::InputRefused(m) => error(contextview::error_codes::INPUT_REFUSED, &m),
        RequestError::Build(e @ (BuildError::EndsWithAssistant { .. } | BuildError::EmptyConversation { .. })) => {
            error(e.code(), e.message())
        }
        RequestError::Build(e @ (BuildError::InvalidPayload { .. } | BuildError::InvalidOptions { .. } | BuildError::HistoryNeeded { .. })) => {
            error_with(e.code(), e.message(), &e)
        }
    }
}

/// The host's time, or the clock's: records always carry when they were written. (The core has
/// no clock; tests pass their own `now`.)
pub fn clock(now: &JsValue) -> Result<String, JsValue> {
    Ok(optional_string(now, "now")?.unwrap_or_else(|| String::from(js_sys::Date::new_0().to_iso_string())))
}

pub fn session_error(e: SessionError) -> JsValue {
    match e {
        SessionError::Request(e) => request_error(e),
        other => error(other.code(), &other.to_string()),
    }
}
