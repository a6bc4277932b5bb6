//! Gemini's `Schema` (the OpenAPI 3.0 subset a `FunctionDeclaration`'s `parameters` takes, as
//! `@google/genai` types it) read as the JSON Schema every API's tools carry: a tool declared for
//! Gemini goes to Anthropic and OpenAI too.
//!
//! What differs: types are upper case (`"OBJECT"`, `"STRING"`, …; `"TYPE_UNSPECIFIED"` says
//! nothing), `nullable: true` is a second type `"null"`, the 64-bit counts (`maxItems`,
//! `minLength`, …) come as decimal strings, one `example` is `examples: [example]`, and
//! `propertyOrdering` (the order Gemini writes an object's fields in) has no JSON Schema meaning.
//! Everything else — `description`, `enum`, `format`, `pattern`, `minimum`, `required`,
//! `title`, `default`, `anyOf`, `items`, `properties` — is the same word for the same thing.

use serde_json::{Map, Value};

/// The counts Gemini gives as decimal strings.
const COUNTS: [&str; 6] = ["maxItems", "minItems", "maxLength", "minLength", "maxProperties", "minProperties"];

/// `schema` is Gemini's when it says a type in Gemini's upper-case words, at any depth.
pub fn is_gemini_schema(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.get("type").and_then(Value::as_str).is_some_and(is_gemini_type)
                || map.get("properties").and_then(Value::as_object).is_some_and(|p| p.values().any(is_gemini_schema))
                || map.get("items").is_some_and(is_gemini_schema)
                || map.get("anyOf").and_then(Value::as_array).is_some_and(|a| a.iter().any(is_gemini_schema))
        }
        _ => false,
    }
}

fn is_gemini_type(t: &str) -> bool {
    matches!(t, "TYPE_UNSPECIFIED" | "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL")
}

/// The JSON Schema a Gemini `Schema` says; `Err` names the field that cannot be read (a count
/// that is not a number, a type Gemini does not have).
pub fn to_json_schema(schema: &Value, path: &str) -> Result<Value, String> {
    let Value::Object(map) = schema else { return Err(format!("`{path}` must be an object, not {schema}")) };
    let mut out = Map::new();
    let mut nullable = false;
    for (key, value) in map {
        let at = || format!("{path}.{key}");
        match key.as_str() {
            "type" => match value {
                Value::Null => {}
                Value::String(t) if t == "TYPE_UNSPECIFIED" => {}
                Value::String(t) if is_gemini_type(t) => {
                    out.insert(key.clone(), Value::String(t.to_ascii_lowercase()));
                }
                // Already a JSON Schema word (a mixed schema): kept.
                Value::String(t) if is_gemini_type(&t.to_ascii_uppercase()) => {
                    out.insert(key.clone(), value.clone());
                }
                _ => return Err(format!("`{}` must be one of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL, not {value}", at())),
            },
            "nullable" => nullable = value.as_bool().unwrap_or(false),
            "propertyOrdering" => {}
            "example" => {
                out.insert("examples".to_owned(), Value::Array(vec![value.clone()]));
            }
            k if COUNTS.contains(&k) => {
                let n = match value {
                    Value::Number(n) => Some(n.clone()),
                    Value::String(s) => s.trim().parse::<u64>().ok().map(Into::into),
                    _ => None,
                };
                match n {
                    Some(n) => {
                        out.insert(key.clone(), Value::Number(n));
                    }
                    None => return Err(format!("`{}` must be a count (a number or a decimal string), not {value}", at())),
                }
            }
            "items" => {
                out.insert(key.clone(), to_json_schema(value, &at())?);
            }
            "anyOf" => {
                let Value::Array(list) = value else { return Err(format!("`{}` must be a list, not {value}", at())) };
                let list = list.iter().enumerate().map(|(i, s)| to_json_schema(s, &format!("{}[{i}]", at()))).collect::<Result<_, _>>()?;
                out.insert(key.clone(), Value::Array(list));
            }
            "properties" => {
                let Value::Object(props) = value else { return Err(format!("`{}` must be an object, not {value}", at())) };
                let mut converted = Map::new();
                for (name, s) in props {
                    converted.insert(name.clone(), to_json_schema(s, &format!("{}.{name}", at()))?);
                }
                out.insert(key.clone(), Value::Object(converted));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    if nullable {
        if let Some(t @ Value::String(_)) = out.get_mut("type") {
            *t = Value::Array(vec![t.take(), Value::String("null".to_owned())]);
        } else if !out.is_empty() {
            // No single type to widen: the value may also be null.
            let inner = Value::Object(std::mem::take(&mut out));
            out.insert("anyOf".to_owned(), Value::Array(vec![inner, serde_json::json!({"type": "null"})]));
        }
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_gemini_schema_reads_as_the_json_schema_it_means() {
        let gemini = json!({
            "type": "OBJECT",
            "description": "Where to look.",
            "propertyOrdering": ["path", "depth", "tags", "mode"],
            "properties": {
                "path": {"type": "STRING", "pattern": "^/", "minLength": "1", "example": "/src"},
                "depth": {"type": "INTEGER", "nullable": true, "minimum": 0, "maximum": 9},
                "tags": {"type": "ARRAY", "items": {"type": "STRING", "enum": ["a", "b"]}, "maxItems": "3"},
                "mode": {"anyOf": [{"type": "STRING"}, {"type": "NUMBER", "format": "double"}], "nullable": true},
                "any": {"type": "TYPE_UNSPECIFIED", "title": "Anything"},
            },
            "required": ["path"],
        });
        assert!(is_gemini_schema(&gemini));
        assert_eq!(
            to_json_schema(&gemini, "parameters"),
            Ok(json!({
                "type": "object",
                "description": "Where to look.",
                "properties": {
                    "path": {"type": "string", "pattern": "^/", "minLength": 1, "examples": ["/src"]},
                    "depth": {"type": ["integer", "null"], "minimum": 0, "maximum": 9},
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 3},
                    "mode": {"anyOf": [{"anyOf": [{"type": "string"}, {"type": "number", "format": "double"}]}, {"type": "null"}]},
                    "any": {"title": "Anything"},
                },
                "required": ["path"],
            }))
        );
    }

    #[test]
    fn a_json_schema_is_not_taken_for_a_gemini_one_and_bad_fields_are_named() {
        assert!(!is_gemini_schema(&json!({"type": "object", "properties": {"a": {"type": "string"}}})));
        assert!(is_gemini_schema(&json!({"properties": {"a": {"type": "STRING"}}})));
        assert_eq!(
            to_json_schema(&json!({"type": "OBJECT", "properties": {"a": {"type": "STRING", "maxLength": "many"}}}), "parameters"),
            Err("`parameters.properties.a.maxLength` must be a count (a number or a decimal string), not \"many\"".to_owned())
        );
        assert_eq!(
            to_json_schema(&json!({"type": "OBJECT", "properties": {"a": {"type": "TEXT"}}}), "parameters"),
            Err("`parameters.properties.a.type` must be one of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL, not \"TEXT\"".to_owned())
        );
    }
}
