//! Small types read by hand from a JSON value, with serde's own error words.
//!
//! A derived `Deserialize` is instantiated once per input it is read from (JSON text, a value, a
//! borrowed value) and brings its own copies of the value deserializer's generic parts; for a
//! small struct nested in a large one that is most of what it costs in the `.wasm`. The types
//! here implement `Deserialize` by reading a [`serde_json::Value`] (whose reader every input
//! already has) and walking it with the plain functions below, once. Their errors are worded as
//! serde's, so `diagnostic::from_value` finds where in an input they are.

use serde::de::Error as _;
use serde_json::{Map, Value};

use crate::tagged::unexpected;

pub(crate) type Error = serde_json::Error;

/// The object `value` is, or serde's error for what it is instead.
pub(crate) fn object<'a>(value: &'a Value, what: &'static str) -> Result<&'a Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| Error::invalid_type(unexpected(value), &what))
}

/// Refuses a key not among `fields`.
pub(crate) fn known(map: &Map<String, Value>, fields: &'static [&'static str]) -> Result<(), Error> {
    match map.keys().find(|k| !fields.contains(&k.as_str())) {
        Some(key) => Err(Error::unknown_field(key, fields)),
        None => Ok(()),
    }
}

/// A field that is absent or null.
fn absent(map: &Map<String, Value>, key: &str) -> bool {
    map.get(key).is_none_or(Value::is_null)
}

pub(crate) fn opt_u32(map: &Map<String, Value>, key: &str) -> Result<Option<u32>, Error> {
    if absent(map, key) {
        return Ok(None);
    }
    let v = &map[key];
    v.as_u64().and_then(|n| u32::try_from(n).ok()).map(Some).ok_or_else(|| Error::invalid_type(unexpected(v), &"u32"))
}

pub(crate) fn u64_or_zero(map: &Map<String, Value>, key: &str) -> Result<u64, Error> {
    Ok(opt_u64(map, key)?.unwrap_or(0))
}

pub(crate) fn opt_u64(map: &Map<String, Value>, key: &str) -> Result<Option<u64>, Error> {
    if absent(map, key) {
        return Ok(None);
    }
    let v = &map[key];
    v.as_u64().map(Some).ok_or_else(|| Error::invalid_type(unexpected(v), &"u64"))
}

pub(crate) fn opt_i32(map: &Map<String, Value>, key: &str) -> Result<Option<i32>, Error> {
    if absent(map, key) {
        return Ok(None);
    }
    let v = &map[key];
    v.as_i64().and_then(|n| i32::try_from(n).ok()).map(Some).ok_or_else(|| Error::invalid_type(unexpected(v), &"i32"))
}

pub(crate) fn opt_f64(map: &Map<String, Value>, key: &str) -> Result<Option<f64>, Error> {
    if absent(map, key) {
        return Ok(None);
    }
    let v = &map[key];
    v.as_f64().map(Some).ok_or_else(|| Error::invalid_type(unexpected(v), &"f64"))
}

pub(crate) fn string(map: &Map<String, Value>, key: &'static str) -> Result<String, Error> {
    match map.get(key) {
        None => Err(Error::missing_field(key)),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(Error::invalid_type(unexpected(v), &"a string")),
    }
}

pub(crate) fn opt_string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, Error> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(Error::invalid_type(unexpected(v), &"a string")),
    }
}

pub(crate) fn opt_bool(map: &Map<String, Value>, key: &str) -> Result<Option<bool>, Error> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(Error::invalid_type(unexpected(v), &"a boolean")),
    }
}

/// A list of strings, absent or null as none.
pub(crate) fn opt_strings(map: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, Error> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| Error::invalid_type(unexpected(v), &"a string")))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(v) => Err(Error::invalid_type(unexpected(v), &"a sequence")),
    }
}

/// One of `variants`, by name.
pub(crate) fn variant<'a>(value: &'a Value, variants: &'static [&'static str]) -> Result<&'a str, Error> {
    match value.as_str() {
        Some(s) if variants.contains(&s) => Ok(s),
        Some(s) => Err(Error::unknown_variant(s, variants)),
        None => Err(Error::invalid_type(unexpected(value), &"a string")),
    }
}

/// A field read by `read` when present and not null.
pub(crate) fn opt_with<T>(map: &Map<String, Value>, key: &str, read: impl Fn(&Value) -> Result<T, Error>) -> Result<Option<T>, Error> {
    map.get(key).filter(|v| !v.is_null()).map(read).transpose()
}

pub(crate) fn u32_field(map: &Map<String, Value>, key: &'static str) -> Result<u32, Error> {
    opt_u32(map, key)?.ok_or_else(|| Error::missing_field(key))
}

/// What `value` is, as serde names it, against what was `expected`.
pub(crate) fn invalid(value: &Value, expected: &'static str) -> Error {
    Error::invalid_type(unexpected(value), &expected)
}

/// The tag of an internally tagged object at `key`, one of `variants`, in a derived reader's words.
pub(crate) fn tag<'a>(map: &'a Map<String, Value>, key: &'static str, variants: &'static [&'static str]) -> Result<&'a str, Error> {
    match map.get(key) {
        None => Err(Error::missing_field(key)),
        Some(Value::String(s)) if variants.contains(&s.as_str()) => Ok(s),
        Some(Value::String(s)) => Err(Error::unknown_variant(s, variants)),
        Some(v) => Err(invalid(v, "variant identifier")),
    }
}

/// A field that must be present (any JSON).
pub(crate) fn required<'a>(map: &'a Map<String, Value>, key: &'static str) -> Result<&'a Value, Error> {
    map.get(key).ok_or_else(|| Error::missing_field(key))
}

/// Implements `Deserialize` for `$ty` through `$ty::read(&Value) -> Result<$ty, serde_json::Error>`
/// (or through `$read`, a function of that shape).
macro_rules! deserialize_by_hand {
    ($ty:ident, $read:expr) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                let value = <serde_json::Value as serde::Deserialize>::deserialize(deserializer)?;
                let read: fn(&serde_json::Value) -> Result<$ty, serde_json::Error> = $read;
                read(&value).map_err(D::Error::custom)
            }
        }
    };
    ($ty:ident) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                let value = <serde_json::Value as serde::Deserialize>::deserialize(deserializer)?;
                $ty::read(&value).map_err(D::Error::custom)
            }
        }
    };
}
pub(crate) use deserialize_by_hand;
