//! What the derive describes, attribute by attribute, as plain JSON (a named shape by its name).

use std::collections::BTreeMap;

use contextview_derive::ReadValue;
use pretty_assertions::assert_eq;
use serde_json::{json, Map, Value};

use super::{Body, Decl, Describe, Field, Ty};

fn ty(t: &Ty) -> Value {
    match t {
        Ty::String => json!("string"),
        Ty::Number => json!("number"),
        Ty::Bool => json!("bool"),
        Ty::Value => json!("value"),
        Ty::List(inner) => json!({ "list": ty(inner) }),
        Ty::Map(inner) => json!({ "map": ty(inner) }),
        Ty::Nullable(inner) => json!({ "nullable": ty(inner) }),
        Ty::Strings(names) => json!({ "strings": names }),
        Ty::Named(name, _) => json!({ "named": name }),
        Ty::Declared(name) => json!({ "declared": name }),
    }
}

fn fields(fields: &[Field]) -> Value {
    fields.iter().map(|f| json!([f.name, ty(&f.ty), f.optional, f.docs])).collect()
}

fn decl(t: Ty) -> Value {
    let Ty::Named(name, decl) = t else { panic!("named") };
    let Decl { name: declared, docs, body } = decl();
    assert_eq!(declared, name);
    let body = match body {
        Body::Object { fields: f, rest } => json!({ "object": fields(&f), "rest": rest.as_ref().map(ty) }),
        Body::Strings(names) => json!({ "strings": names }),
        Body::Tagged { tag, variants, others } => json!({
            "tag": tag,
            "variants": variants.iter().map(|(t, f)| json!([t, fields(f)])).collect::<Vec<_>>(),
            "others": others.iter().map(ty).collect::<Vec<_>>(),
        }),
        Body::OneOf(tys) => json!({ "oneOf": tys.iter().map(ty).collect::<Vec<_>>() }),
    };
    json!({ "name": name, "docs": docs, "body": body })
}

/// A struct's doc comment.
#[derive(ReadValue, Default)]
#[shape(name = "Renamed")]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Every {
    /// Required.
    plain_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    left_out: Option<u32>,
    written_null: Option<bool>,
    #[serde(default)]
    defaulted: Vec<String>,
    #[serde(skip)]
    skipped: u8,
    #[serde(default, skip_serializing)]
    header_only: Option<String>,
    #[serde(rename = "kind")]
    #[shape(one_of("a", "b"))]
    kind_name: String,
    #[shape(declared = "Elsewhere")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    any: Option<Vec<Value>>,
    #[shape(object)]
    params: Value,
    inner: Unit,
    map: BTreeMap<String, f64>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

#[derive(ReadValue, Default)]
#[shape]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Unit {
    #[default]
    FirstOne,
    #[serde(rename = "other")]
    Second,
}

#[derive(ReadValue)]
#[shape(name = "Tagged")]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(dead_code)]
enum Tags {
    Empty,
    #[serde(rename_all = "camelCase")]
    WithFields { call_id: String, #[serde(default)] is_error: bool },
    #[shape(declared = "TwoShapes")]
    Declared { x: u8 },
    #[serde(untagged)]
    Other(Map<String, Value>),
}

#[derive(ReadValue)]
#[shape]
#[serde(untagged)]
#[allow(dead_code)]
enum Either {
    Text(String),
    Units(Vec<Unit>),
}

#[test]
fn a_struct_is_described_as_its_reader_reads_it() {
    assert_eq!(
        decl(Every::describe()),
        json!({
            "name": "Renamed",
            "docs": ["A struct's doc comment."],
            "body": {
                "object": [
                    ["plainText", "string", false, ["Required."]],
                    ["leftOut", "number", true, []],
                    ["writtenNull", { "nullable": "bool" }, true, []],
                    ["defaulted", { "list": "string" }, true, []],
                    ["kind", { "strings": ["a", "b"] }, false, []],
                    ["any", { "list": { "declared": "Elsewhere" } }, true, []],
                    ["params", { "map": "value" }, false, []],
                    ["inner", { "named": "Unit" }, false, []],
                    ["map", { "map": "number" }, false, []],
                ],
                "rest": "value",
            },
        })
    );
}

#[test]
fn enums_are_described_by_their_names_tags_and_variants() {
    assert_eq!(decl(Unit::describe()), json!({ "name": "Unit", "docs": [], "body": { "strings": ["first_one", "other"] } }));
    assert_eq!(
        decl(Tags::describe()),
        json!({
            "name": "Tagged",
            "docs": [],
            "body": {
                "tag": "type",
                "variants": [
                    ["empty", []],
                    ["with_fields", [["callId", "string", false, []], ["isError", "bool", true, []]]],
                ],
                "others": [{ "declared": "TwoShapes" }, { "map": "value" }],
            },
        })
    );
    assert_eq!(
        decl(Either::describe()),
        json!({ "name": "Either", "docs": [], "body": { "oneOf": ["string", { "list": { "named": "Unit" } }] } })
    );
}
