//! `#[derive(ReadValue)]`: a struct's or an enum's reader, generated from the same declaration and the same
//! `#[serde(...)]` attributes its derived `Serialize` reads, in serde's words.
//!
//! Why: serde's derived `Deserialize` is a visitor per struct (a field-name visitor, a map
//! visitor and a sequence visitor), instantiated again for every kind of input it is read from;
//! in the `.wasm` that is about a fifth of the first-load module. The reader generated here is
//! one function per struct that walks an owned `serde_json::Value` (which every input already
//! has) through one shared loop: the object's keys in order, each looked up in a table of field
//! names, its value handed to the field's own reader. The struct's `Deserialize` goes through
//! that reader, so every existing caller keeps working.
//!
//! What it reads the same as serde's derive, word for word: the object's keys in their order
//! (the first wrong one is the one reported), `rename_all`, `rename`, `expecting`, `default` (on the field, on
//! the container, or `default = "path"`), `skip` / `skip_deserializing`, `deserialize_with`,
//! `deny_unknown_fields`, a missing `Option` field read as `None`, and every error text (`missing
//! field`, `unknown field … expected one of`, `invalid type: …, expected struct Name`), and a
//! struct given as a JSON array, its elements the fields in order, as serde reads it. What it does
//! not support (`flatten`, `borrow`, generics, tuple structs, externally tagged enums with data)
//! is a compile error, never a silent difference.
//!
//! Enums: of unit variants (a variant's name, or serde's one-key object), internally tagged
//! ones (`tag = "…"`) of struct and unit variants, with untagged newtype variants last (tried in
//! turn when the value is none of the tagged ones), and untagged ones of newtype variants. Two deliberate differences from serde's
//! derive, both the readers' these replaced: an internally tagged enum is not read from an
//! array, and a tag is a variant's name, never its index. `src/value_read/tests.rs` in the core holds every attribute against serde's
//! derive, side by side.
//!
//! `#[read(object)]` on a struct refuses an array where serde's derive would read one as the
//! fields in order (inputs a host writes, records we write: an array is never one).
//!
//! With `#[shape]` (or `#[shape(name = "…")]`) on the type, it also generates the type's
//! `crate::shape::Describe` from the same attributes: what the package declares the type to be
//! (`shape`).
//!
//! The generated code names `crate::value_read` and `crate::shape` (the core crate's support
//! modules): the derive is for the core's own types. Modules: `attrs` parses the attributes
//! once for both, `read` generates the reader, `shape` the description.

mod attrs;
mod read;
mod shape;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// The type's reader; with `#[shape]`, its shape too (see `shape`).
#[proc_macro_derive(ReadValue, attributes(serde, shape, read))]
pub fn derive_read_value(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let both = read::expand(&input).and_then(|reader| Ok((reader, shape::expand(&input)?)));
    match both {
        Ok((reader, shape)) => quote::quote!(#reader #shape).into(),
        Err(error) => error.into_compile_error().into(),
    }
}
