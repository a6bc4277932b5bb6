//! Diagnostics: problems returned as data (code, place, message), never as panics.
//!
//! Reading a log, replaying it or building a request keeps going past bad input wherever it can;
//! each thing it had to skip, repair or guess becomes one [`Diagnostic`]. Codes are stable strings
//! (`log.torn_tail`, `replay.orphan_update`, …) that callers may match on.

use contextview_derive::ReadValue;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Something was lost or refused.
    Error,
    /// Input was odd; a documented fallback applied.
    Warning,
    /// Worth knowing; nothing was lost.
    Info,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// 1-based line in the input, when the input is line-oriented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// A file path or a JSON path, when one applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of one of the codes a module lists ([`codes()`]): its severity is the code's.
    pub fn new(code: &Code, message: impl Into<String>) -> Self {
        Diagnostic { code: code.code.to_owned(), severity: code.severity, message: message.into(), line: None, path: None }
    }

    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    pub fn at_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
}

/// One kind of diagnostic: its stable code, its severity and when it is raised.
///
/// Each module that raises diagnostics lists its kinds once, with [`declare_codes!`](crate::declare_codes),
/// in a `codes` module of its own; a [`Diagnostic`] can only be made from one of them, and
/// [`crate::diagnostic_codes`] lists them all.
#[derive(Debug, PartialEq, Eq)]
pub struct Code {
    pub code: &'static str,
    pub severity: Severity,
    /// When it is raised, as the README's Diagnostics table says it.
    pub when: &'static str,
}

/// Declares a module's diagnostic codes: a constant for each and `CODES`, the list of them all.
/// (Exported for the crates beside the core — discovery, the importers — whose diagnostics are
/// made the same way.)
#[macro_export]
#[doc(hidden)]
macro_rules! declare_codes {
    ($($name:ident = $code:literal, $severity:ident, $when:literal;)*) => {
        $(pub const $name: $crate::diagnostic::Code =
            $crate::diagnostic::Code { code: $code, severity: $crate::diagnostic::Severity::$severity, when: $when };)*
        /// Every code this module raises.
        pub const CODES: &[&$crate::diagnostic::Code] = &[$(&$name),*];
    };
}

/// Reads `T` from a JSON value; a failure names where in the value it happened
/// (`providerOptions.anthropic.thinking: invalid type: …`), so an input's author finds what to
/// fix.
///
/// The place is found after the fact, from what the error says it met (an unknown field or
/// variant, a value of the wrong type or length) and where in the value that is: when exactly one
/// place fits, the message names it. Tracking the path while deserializing (serde_path_to_error)
/// names it always, but compiles a second copy of every input type's deserializer: 76 KB of the
/// gzipped `.wasm` (BENCHMARKS.md).
pub fn from_value<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
    read_value(value).map_err(|e| e.to_string())
}

/// Why a value was not read: serde's words, and where in the value it happened when that is one
/// place (a JSON path: `providerOptions.anthropic.thinking.budget_tokens`, `tools[2].name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError {
    pub path: Option<String>,
    /// The words, the place first where it is known.
    pub message: String,
}

impl std::fmt::Display for ValueError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// [`from_value`], with the place kept apart from the words.
pub fn read_value<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, ValueError> {
    T::deserialize(&value).map_err(|e| value_error(&value, e.to_string()))
}

/// Where in `value` serde's `message` happened (one copy, not one per type read).
fn value_error(value: &serde_json::Value, message: String) -> ValueError {
    match locate(value, &message) {
        Some(path) => ValueError { message: format!("{path}: {message}"), path: Some(path) },
        // A reader inside named the place itself (`providerOptions.anthropic.thinking: …`, or
        // after the tag it read: "`userMessage`: text: …").
        None => {
            let named = |text: &str| text.split_once(": ").filter(|(path, _)| is_path(path) && value.get(path.split(['.', '[']).next().unwrap_or("")).is_some()).map(|(path, _)| path.to_owned());
            let after_tag = message.strip_prefix('`').and_then(|m| m.split_once("`: ")).map(|(_, rest)| rest);
            let path = named(&message).or_else(|| after_tag.and_then(named));
            ValueError { path, message }
        }
    }
}

/// Whether `text` reads as a JSON path (`a.b[2].c`).
fn is_path(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.[]".contains(&b))
}

/// The one place in `value` that what `message` says it met can be: a JSON path
/// (`a.b[2].c`), or `None` when no place or more than one fits.
fn locate(value: &serde_json::Value, message: &str) -> Option<String> {
    use serde_json::Value;
    let quoted = |after: &str| -> Option<String> {
        let rest = message.strip_prefix(after)?;
        let rest = rest.strip_prefix('`')?;
        Some(rest[..rest.find('`')?].to_owned())
    };
    // What to look for: a key, or a value of a kind (and content, when the message gives it).
    enum Want {
        Key(String),
        Leaf(Box<dyn Fn(&Value) -> bool>),
    }
    let unexpected = |what: &str| -> Option<Want> {
        // serde writes what it met as `string "…"` (escaped as Rust does), `integer `5``, ….
        let test: Box<dyn Fn(&Value) -> bool> = if let Some(s) = what.strip_prefix("string ") {
            let s = s.to_owned();
            Box::new(move |v| v.as_str().is_some_and(|x| format!("{x:?}") == s))
        } else if let Some(n) = what.strip_prefix("integer `") {
            let n = n.strip_suffix('`')?.to_owned();
            Box::new(move |v| (v.is_i64() || v.is_u64()) && v.to_string() == n)
        } else if let Some(n) = what.strip_prefix("floating point `") {
            let n: f64 = n.strip_suffix('`')?.parse().ok()?;
            Box::new(move |v| v.as_f64() == Some(n) && v.is_f64())
        } else if let Some(b) = what.strip_prefix("boolean `") {
            let b = b.strip_suffix('`')? == "true";
            Box::new(move |v| v.as_bool() == Some(b))
        } else {
            match what {
                "null" | "unit" => Box::new(Value::is_null),
                "map" => Box::new(Value::is_object),
                "sequence" => Box::new(Value::is_array),
                _ => return None,
            }
        };
        Some(Want::Leaf(test))
    };
    let want = if let Some(key) = quoted("unknown field ") {
        Want::Key(key)
    } else if let Some(variant) = quoted("unknown variant ") {
        Want::Leaf(Box::new(move |v| v.as_str() == Some(variant.as_str())))
    } else if let Some(rest) = message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: ")) {
        unexpected(&rest[..rest.find(", expected")?])?
    } else if let Some(rest) = message.strip_prefix("invalid length ") {
        let n: usize = rest[..rest.find(',')?].parse().ok()?;
        Want::Leaf(Box::new(move |v| v.as_array().is_some_and(|a| a.len() == n) || v.as_object().is_some_and(|o| o.len() == n)))
    } else {
        return None;
    };
    let mut found = Vec::new();
    let mut stack = vec![(String::new(), value)];
    while let Some((path, v)) = stack.pop() {
        if found.len() > 1 {
            return None;
        }
        match (&want, v) {
            (Want::Leaf(test), v) if !path.is_empty() && test(v) => found.push(path.clone()),
            _ => {}
        }
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    if matches!(&want, Want::Key(key) if key == k) {
                        found.push(p.clone());
                    }
                    stack.push((p, child));
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    stack.push((format!("{path}[{i}]"), child));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[derive(Debug, ReadValue)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        name: String,
        #[serde(default)]
        inner: Vec<Inner>,
        #[serde(default)]
        mode: Option<Mode>,
    }

    #[derive(Debug, ReadValue)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        size: u32,
        #[serde(default)]
        on: bool,
    }

    #[derive(Debug, ReadValue)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
    }

    fn said(v: serde_json::Value) -> String {
        from_value::<Outer>(v).unwrap_err()
    }

    #[test]
    fn an_error_names_the_one_place_it_can_be() {
        assert_eq!(said(json!({"name": "a", "inner": [{"size": 1}, {"size": "big"}]})), "inner[1].size: invalid type: string \"big\", expected u32");
        assert_eq!(said(json!({"name": "a", "inner": [{"size": 1, "colour": 2}]})), "inner[0].colour: unknown field `colour`, expected `size` or `on`");
        assert_eq!(said(json!({"name": "a", "mode": "slow"})), "mode: unknown variant `slow`, expected `fast`");
        assert_eq!(said(json!({"name": 7})), "name: invalid type: integer `7`, expected a string");
        assert_eq!(said(json!({"name": "a", "inner": [{"size": 1, "on": "yes\n"}]})), "inner[0].on: invalid type: string \"yes\\n\", expected a boolean");
        assert_eq!(said(json!({"name": "a", "inner": [{"size": 2.5}]})), "inner[0].size: invalid type: floating point `2.5`, expected u32");
        assert_eq!(said(json!({"name": "a", "inner": {"size": 1}})), "inner: invalid type: map, expected a sequence");
    }

    #[test]
    fn where_more_than_one_place_fits_none_is_named() {
        // Two `7`s: the message alone says what was met.
        assert_eq!(said(json!({"name": "a", "inner": [{"size": 7, "on": 7}]})), "invalid type: integer `7`, expected a boolean");
        // A missing field has no place in the value.
        assert_eq!(said(json!({"inner": []})), "missing field `name`");
    }
}
