//! What a type looks like in JSON, described from its own declaration: the names of its keys
//! (after serde's renames), which may be absent, each value's shape, a tagged enum's tags.
//!
//! Why: the package declares these shapes to its users (in TypeScript, `crates/js`), and a
//! declaration written by hand beside the Rust type drifts from it. `#[derive(ReadValue)]` with a
//! `#[shape]` attribute generates a type's [`Describe`] from the same tokens and attributes its
//! reader is generated from, so the description cannot say other than what the reader reads.
//! The description knows no target language: the JavaScript binding's declarations are rendered
//! from it, and checked in with a test that fails when they are stale (`tests/it/typescript.rs`).
//! Nothing here is called at run time; it costs nothing in a build that does not describe.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The shape of a value where it is used.
#[derive(Debug, Clone)]
pub enum Ty {
    String,
    Number,
    Bool,
    /// Any JSON value.
    Value,
    List(Box<Ty>),
    /// An object whose keys are any strings, each value of this shape.
    Map(Box<Ty>),
    /// This shape, or null.
    Nullable(Box<Ty>),
    /// One of these strings.
    Strings(Vec<&'static str>),
    /// A type described here: its declared name and its declaration.
    Named(&'static str, fn() -> Decl),
    /// A type declared elsewhere, by name (one read by hand, whose reader no derive sees).
    Declared(&'static str),
}

impl Ty {
    /// The shape without its null (a field that is left out rather than written as null).
    pub fn unnull(self) -> Ty {
        match self {
            Ty::Nullable(inner) => *inner,
            other => other,
        }
    }

    /// The shape with what its nulls and lists hold replaced by `leaf` (a field that names its
    /// values' shape, `#[shape(declared = "…")]` or `#[shape(one_of(…))]`).
    pub fn with_leaf(self, leaf: Ty) -> Ty {
        match self {
            Ty::Nullable(inner) => Ty::Nullable(Box::new(inner.with_leaf(leaf))),
            Ty::List(inner) => Ty::List(Box::new(inner.with_leaf(leaf))),
            _ => leaf,
        }
    }
}

/// A named type's declaration.
#[derive(Debug, Clone)]
pub struct Decl {
    pub name: &'static str,
    /// Its doc comment, one line per line.
    pub docs: &'static [&'static str],
    pub body: Body,
}

#[derive(Debug, Clone)]
pub enum Body {
    /// An object of these fields; with `rest`, any other key takes that shape.
    Object { fields: Vec<Field>, rest: Option<Ty> },
    /// One of these strings (an enum of unit variants).
    Strings(Vec<&'static str>),
    /// An object whose key `tag` names its variant, each with its own fields; when it is none of
    /// them, one of `others` (untagged variants, tried in order).
    Tagged { tag: &'static str, variants: Vec<(&'static str, Vec<Field>)>, others: Vec<Ty> },
    /// One of these shapes (an untagged enum).
    OneOf(Vec<Ty>),
}

/// A key of an object.
#[derive(Debug, Clone)]
pub struct Field {
    /// The key, as serde writes and reads it.
    pub name: &'static str,
    pub docs: &'static [&'static str],
    pub ty: Ty,
    /// The reader takes the object without it.
    pub optional: bool,
}

/// A type whose JSON shape can be told.
pub trait Describe {
    fn describe() -> Ty;
}

macro_rules! describe_as {
    ($ty:expr => $($t:ty),*) => {
        $(impl Describe for $t {
            fn describe() -> Ty {
                $ty
            }
        })*
    };
}

describe_as!(Ty::String => String, str);
describe_as!(Ty::Number => u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);
describe_as!(Ty::Bool => bool);
describe_as!(Ty::Value => serde_json::Value, serde_json::value::RawValue);
describe_as!(Ty::Map(Box::new(Ty::Value)) => serde_json::Map<String, serde_json::Value>);

impl<T: Describe> Describe for Option<T> {
    fn describe() -> Ty {
        Ty::Nullable(Box::new(T::describe()))
    }
}

impl<T: Describe> Describe for Vec<T> {
    fn describe() -> Ty {
        Ty::List(Box::new(T::describe()))
    }
}

impl<T: Describe + ?Sized> Describe for Box<T> {
    fn describe() -> Ty {
        T::describe()
    }
}

impl<T: Describe + ?Sized> Describe for Arc<T> {
    fn describe() -> Ty {
        T::describe()
    }
}

impl<T: Describe, S> Describe for HashMap<String, T, S> {
    fn describe() -> Ty {
        Ty::Map(Box::new(T::describe()))
    }
}

impl<T: Describe> Describe for BTreeMap<String, T> {
    fn describe() -> Ty {
        Ty::Map(Box::new(T::describe()))
    }
}

#[cfg(test)]
mod tests;
