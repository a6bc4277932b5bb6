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

pub(crate) type Error = serde_json::Error;

/// What a JSON value is, as serde names it in an error (`string "x"`, `integer `3``, `sequence`).
pub(crate) fn unexpected(value: &serde_json::Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    use serde_json::Value;
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (None, Some(i), _) => Unexpected::Signed(i),
            (None, None, f) => Unexpected::Float(f.unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// The object `value` is, or serde's error for what it is instead.
pub(crate) fn object<'a>(value: &'a Value, what: &'static str) -> Result<&'a Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| Error::invalid_type(unexpected(value), &what))
}

/// A field that is absent or null.
fn absent(map: &Map<String, Value>, key: &str) -> bool {
    map.get(key).is_none_or(Value::is_null)
}

pub(crate) fn opt_u64(map: &Map<String, Value>, key: &str) -> Result<Option<u64>, Error> {
    if absent(map, key) {
        return Ok(None);
    }
    let v = &map[key];
    v.as_u64().map(Some).ok_or_else(|| Error::invalid_type(unexpected(v), &"u64"))
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

/// Implements [`Read`] and `Deserialize` for `$ty` through `$ty::read(&Value) -> Result<$ty,
/// serde_json::Error>` (or through `$read`, a function of that shape): a generated reader holding
/// one reads it from its value as it is, without rebuilding the value first.
macro_rules! deserialize_by_hand {
    ($ty:ident, $read:expr) => {
        impl $crate::value_read::Read for $ty {
            fn read(value: serde_json::Value) -> Result<Self, serde_json::Error> {
                #[allow(unused_imports)]
                use serde::Deserialize as _;
                let read: fn(&serde_json::Value) -> Result<$ty, serde_json::Error> = $read;
                read(&value)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::value_read::deserialize_through_value(deserializer)
            }
        }
    };
    ($ty:ident) => {
        impl $crate::value_read::Read for $ty {
            fn read(value: serde_json::Value) -> Result<Self, serde_json::Error> {
                $ty::read(&value)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::value_read::deserialize_through_value(deserializer)
            }
        }
    };
}
pub(crate) use deserialize_by_hand;

/// A type read from an owned JSON value in serde's words: what `#[derive(ReadValue)]`
/// (derive) generates for a struct, and the containers of such types below.
pub(crate) trait Read: Sized {
    fn read(value: Value) -> Result<Self, Error>;
}

/// A field's reader (serde's `deserialize_with` shape) that takes null as absent: its type's
/// default, where serde's own reader of a number or a flag refuses null. A record an earlier
/// version wrote, or another tool, may hold `"reportTokens": null`.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + serde::Deserialize<'de>,
{
    Ok(<Option<T> as serde::Deserialize>::deserialize(deserializer)?.unwrap_or_default())
}

/// The keys a generated reader reads, in the order its struct declares them (a skipped field's
/// is not among them).
pub(crate) trait Fields {
    const FIELDS: &'static [&'static str];
}

/// The entries a generated reader reads a struct from, as serde's derived reader takes them: an
/// object's keys in order, or an array's elements as the fields in their declared order.
pub(crate) enum Entries {
    Map { entries: serde_json::map::IntoIter, last: String, skip: Option<&'static str> },
    Seq { items: std::vec::IntoIter<Value>, len: usize, next: usize, fields: usize },
}

/// The entries of `value`, or serde's error for what it is instead (`expecting` is `struct Name`);
/// an object's key `skip` (a tagged enum's tag, read already) is passed over.
pub(crate) fn entries(value: Value, expecting: &'static str, fields: &'static [&'static str], skip: Option<&'static str>) -> Result<Entries, Error> {
    match value {
        Value::Object(map) => Ok(Entries::Map { entries: map.into_iter(), last: String::new(), skip }),
        Value::Array(items) => Ok(Entries::Seq { len: items.len(), items: items.into_iter(), next: 0, fields: fields.len() }),
        other => Err(invalid(&other, expecting)),
    }
}

impl Entries {
    /// The next entry: which of `fields` it is (none for a key no field has) and its value.
    pub(crate) fn next(&mut self, fields: &[&str]) -> Option<(Option<usize>, Value)> {
        match self {
            Entries::Map { entries, last, skip } => entries.find(|(key, _)| Some(key.as_str()) != *skip).map(|(key, value)| {
                let index = field_index(&key, fields);
                *last = key;
                (index, value)
            }),
            Entries::Seq { items, next, fields, .. } if *next < *fields => items.next().map(|value| {
                *next += 1;
                (Some(*next - 1), value)
            }),
            Entries::Seq { .. } => None,
        }
    }

    /// The key just read, taken (for a flattened map).
    pub(crate) fn key(&mut self) -> String {
        match self {
            Entries::Map { last, .. } => std::mem::take(last),
            // Never asked: a struct with a flattened map refuses an array before reading it.
            Entries::Seq { .. } => String::new(),
        }
    }

    /// The key just read, refused (`deny_unknown_fields`).
    pub(crate) fn unknown(&self, fields: &'static [&'static str]) -> Error {
        match self {
            Entries::Map { last, .. } => Error::unknown_field(last, fields),
            // An array's elements are all fields (the rest are refused by `finish`).
            Entries::Seq { .. } => Error::custom("an array has no keys"),
        }
    }

    /// Whether the struct was read from an array, once every entry is read: an array with more
    /// elements than the struct has fields is refused, in serde_json's words.
    pub(crate) fn finish(self) -> Result<bool, Error> {
        match self {
            Entries::Map { .. } => Ok(false),
            Entries::Seq { len, fields, .. } if len > fields => Err(Error::invalid_length(len, &"fewer elements in array")),
            Entries::Seq { .. } => Ok(true),
        }
    }
}

/// A field missing from an array (`struct Name with 3 elements`), in serde's words.
pub(crate) fn short_array(index: usize, expecting: &'static str) -> Error {
    Error::invalid_length(index, &expecting)
}

/// Which of `fields` `key` is.
fn field_index(key: &str, fields: &[&str]) -> Option<usize> {
    fields.iter().position(|f| *f == key)
}

/// Which of `variants` an enum of unit variants is: its name, or (as serde reads an enum from a
/// value) an object of one key, the name, whose value is null; in serde's words otherwise.
pub(crate) fn unit_variant(value: Value, variants: &'static [&'static str]) -> Result<usize, Error> {
    let (name, content) = match value {
        Value::String(name) => (name, None),
        Value::Object(map) => {
            let mut entries = map.into_iter();
            match (entries.next(), entries.next()) {
                (Some((name, content)), None) => (name, Some(content)),
                _ => return Err(Error::invalid_value(serde::de::Unexpected::Map, &"map with a single key")),
            }
        }
        other => return Err(invalid(&other, "string or map")),
    };
    let index = variants.iter().position(|v| *v == name).ok_or_else(|| Error::unknown_variant(&name, variants))?;
    match content {
        None | Some(Value::Null) => Ok(index),
        Some(other) => Err(invalid(&other, "unit")),
    }
}

/// An internally tagged enum's variant (which of `variants` the tag at `key` names) and the
/// object, its tag still in it, in the words of serde's internally tagged reader (`expecting` is
/// `internally tagged enum Name`). An array, which serde would read as the tag then the fields,
/// is refused.
pub(crate) fn tagged(value: Value, key: &'static str, variants: &'static [&'static str], expecting: &'static str) -> Result<(usize, Value), Error> {
    let Value::Object(map) = value else { return Err(invalid(&value, expecting)) };
    let name = tag(&map, key, variants)?;
    // `tag` has found it among `variants`.
    let index = variants.iter().position(|v| *v == name).unwrap_or_default();
    // The tag stays where it is (the variant's reader skips it: `entries`): the other keys keep
    // their order, so the first wrong one is the one reported, as serde's reader reports it.
    Ok((index, Value::Object(map)))
}

/// A generated reader's `Deserialize`: the input read into a JSON value, the value read.
pub(crate) fn deserialize_through_value<'de, D: serde::Deserializer<'de>, T: Read>(deserializer: D) -> Result<T, D::Error> {
    let value = <Value as serde::Deserialize>::deserialize(deserializer)?;
    T::read(value).map_err(serde::de::Error::custom)
}

impl<T: Read> Read for Option<T> {
    fn read(value: Value) -> Result<Self, Error> {
        match value {
            Value::Null => Ok(None),
            value => T::read(value).map(Some),
        }
    }
}

impl<T: Read> Read for Vec<T> {
    fn read(value: Value) -> Result<Self, Error> {
        match value {
            Value::Array(items) => items.into_iter().map(T::read).collect(),
            other => Err(invalid(&other, "a sequence")),
        }
    }
}

impl<T: Read> Read for Box<T> {
    fn read(value: Value) -> Result<Self, Error> {
        T::read(value).map(Box::new)
    }
}

impl<T: Read> Read for std::sync::Arc<T> {
    fn read(value: Value) -> Result<Self, Error> {
        T::read(value).map(std::sync::Arc::new)
    }
}

/// A field's type, for the generated reader to pick its reader by (autoref specialization: a
/// type that is [`Read`] is read by it, any other by its `Deserialize` from the owned value).
pub(crate) struct Wrap<T>(pub std::marker::PhantomData<T>);

pub(crate) trait ReadOwn<T> {
    fn read_value(&self, value: Value) -> Result<T, Error>;
}

impl<T: Read> ReadOwn<T> for &Wrap<T> {
    fn read_value(&self, value: Value) -> Result<T, Error> {
        T::read(value)
    }
}

pub(crate) trait ReadSerde<T> {
    fn read_value(&self, value: Value) -> Result<T, Error>;
}

impl<T: serde::de::DeserializeOwned> ReadSerde<T> for &&Wrap<T> {
    fn read_value(&self, value: Value) -> Result<T, Error> {
        T::deserialize(value)
    }
}

#[cfg(test)]
mod tests;
