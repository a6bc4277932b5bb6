//! Tools, defined once in whichever shape a developer already has, rendered in each API's own.
//! The definitions sit on the ground floor, beside the conversation: the log records them
//! (`tools_defined`), the view carries them and each provider's renderer writes them its way.
//!
//! Read (the JSON of a build's `tools`): ours and MCP's `{name, description, inputSchema}`,
//! Anthropic's `Tool` (`input_schema`), OpenAI Responses' `FunctionTool` and pi's
//! `{type: "function", name, parameters}`, Chat Completions' `{type: "function", function: {name,
//! description, parameters}}`, and Gemini's `Tool` (`{functionDeclarations: [...]}`, with
//! `parameters` — Gemini's own `Schema`, read as JSON Schema by [`gemini_schema`] — or
//! `parametersJsonSchema`), which gives one tool per declaration. Every field those SDKs' function
//! tool types have is taken; the ones that tell an API how to run the tool rather than the model
//! what it is (`strict`, `cache_control`, `defer_loading`, `allowed_callers`, `input_examples`, …:
//! [`IGNORED`]) are not sent, and null is as good as absent wherever a type allows it. Anything
//! that cannot be read is refused with the field named: an unknown field (a typo would otherwise
//! lose the schema), a schema that is not an object schema, a missing name, a tool kind we cannot
//! send to every API (a server or hosted tool, a freeform `custom` tool, Gemini's built-in tools).

pub mod gemini_schema;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// The tool definitions of a build, shared: a session is built with the same ones request after
/// request, so options are cloned and compared by pointer first, not tool by tool.
pub type Tools = std::sync::Arc<Vec<ToolDef>>;

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDef {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Value,
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

/// Fields a tool may carry that say something about it, or about how an API runs it, but
/// nothing the model reads: MCP's (`title`, `annotations`, `outputSchema`, `icons`, `execution`,
/// `_meta`), Anthropic's (`strict`, `cache_control`, `defer_loading`, `allowed_callers`,
/// `eager_input_streaming`, `input_examples`), OpenAI Responses' (`async`, `output_schema`) and
/// Gemini's (`behavior`, `response`, `responseJsonSchema`).
pub const IGNORED: [&str; 17] = [
    "title",
    "annotations",
    "outputSchema",
    "icons",
    "execution",
    "_meta",
    "strict",
    "cache_control",
    "defer_loading",
    "allowed_callers",
    "eager_input_streaming",
    "input_examples",
    "async",
    "output_schema",
    "behavior",
    "response",
    "responseJsonSchema",
];

impl ToolDef {
    /// One tool from any of the shapes above (a Gemini group gives several: see
    /// [`tools_from_value`]); `Err` names the field.
    fn from_map(mut map: Map<String, Value>) -> Result<ToolDef, String> {
        // Chat Completions nests the function under `function`.
        if map.get("type").and_then(Value::as_str) == Some("function") {
            map.remove("type");
            if let Some(Value::Object(function)) = map.remove("function") {
                if let Some(extra) = map.keys().find(|k| !IGNORED.contains(&k.as_str())) {
                    return Err(format!("unknown field `{extra}` beside `function`"));
                }
                map = function;
            }
        }
        // Anthropic's own tools say `type: "custom"` (or null); with an input schema, that is
        // a function tool. OpenAI's `custom` tools (freeform input) have none.
        match map.get("type") {
            Some(Value::Null) => {
                map.remove("type");
            }
            Some(Value::String(kind)) if kind == "custom" && map.contains_key("input_schema") => {
                map.remove("type");
            }
            Some(kind) => {
                return Err(format!(
                    "`type`: {kind} tools are not function tools every API takes (give a function tool: name, description, input schema)"
                ))
            }
            None => {}
        }
        let name = match map.remove("name") {
            Some(Value::String(name)) if !name.is_empty() => name,
            Some(other) => return Err(format!("`name` must be a non-empty string, not {other}")),
            None => return Err("`name` is missing".to_owned()),
        };
        let description = match map.remove("description") {
            Some(Value::String(d)) => Some(d),
            Some(Value::Null) | None => None,
            Some(other) => return Err(format!("`description` must be a string, not {other}")),
        };
        let mut schema = None;
        for key in ["inputSchema", "input_schema", "parameters", "parametersJsonSchema"] {
            if let Some(value) = map.remove(key) {
                if schema.is_some() {
                    return Err(format!("`{key}`: the tool already has an input schema"));
                }
                let value = match value {
                    // OpenAI Responses' `parameters: null`: no arguments.
                    Value::Null => continue,
                    v if key == "parameters" && gemini_schema::is_gemini_schema(&v) => gemini_schema::to_json_schema(&v, key)?,
                    v => v,
                };
                match &value {
                    Value::Object(o) if o.get("type").is_none_or(|t| t == "object") => schema = Some(value),
                    _ => return Err(format!("`{key}` must be a JSON Schema for an object (`{{\"type\": \"object\", …}}`), not {value}")),
                }
            }
        }
        if let Some(extra) = map.keys().find(|k| !IGNORED.contains(&k.as_str())) {
            return Err(format!("unknown field `{extra}` (the input schema is `inputSchema`, `input_schema` or `parameters`)"));
        }
        // Every API wants the object schema to say so (Anthropic refuses one without `type`).
        if let Some(Value::Object(o)) = schema.as_mut() {
            o.entry("type").or_insert_with(|| Value::String("object".to_owned()));
        }
        Ok(ToolDef { name, description, input_schema: schema.unwrap_or_else(empty_object_schema) })
    }
}

/// A build's tools from their JSON: a list of tools in any of the shapes above.
pub fn tools_from_value(value: Value) -> Result<Vec<ToolDef>, String> {
    let items = match value {
        Value::Array(items) => items,
        Value::Null => return Ok(Vec::new()),
        other => return Err(format!("`tools` must be a list, not {other}")),
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(mut map) = item else { return Err(format!("tools[{i}] is not an object")) };
        match map.remove("functionDeclarations") {
            Some(Value::Array(declarations)) => {
                if let Some(extra) = map.keys().next() {
                    return Err(format!("tools[{i}]: {}", beside_declarations(extra)));
                }
                for (k, d) in declarations.into_iter().enumerate() {
                    let Value::Object(d) = d else { return Err(format!("tools[{i}].functionDeclarations[{k}] is not an object")) };
                    out.push(ToolDef::from_map(d).map_err(|e| format!("tools[{i}].functionDeclarations[{k}]: {e}"))?);
                }
            }
            Some(other) => return Err(format!("tools[{i}].functionDeclarations must be a list, not {other}")),
            None => match map.keys().find(|k| GEMINI_BUILT_INS.contains(&k.as_str())) {
                Some(built_in) => return Err(format!("tools[{i}]: {}", beside_declarations(built_in))),
                None => out.push(ToolDef::from_map(map).map_err(|e| format!("tools[{i}]: {e}"))?),
            },
        }
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = out.iter().find(|t| !seen.insert(t.name.as_str())) {
        return Err(format!("two tools are named `{}`", dup.name));
    }
    Ok(out)
}

impl<'de> Deserialize<'de> for ToolDef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ToolDef, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(map) => ToolDef::from_map(map).map_err(D::Error::custom),
            other => Err(D::Error::custom(format!("a tool is an object, not {other}"))),
        }
    }
}

/// The tools Gemini runs itself, which a Gemini `Tool` may hold beside (or instead of) its
/// function declarations.
const GEMINI_BUILT_INS: [&str; 12] = [
    "googleSearch",
    "googleSearchRetrieval",
    "codeExecution",
    "urlContext",
    "retrieval",
    "googleMaps",
    "computerUse",
    "enterpriseWebSearch",
    "fileSearch",
    "mcpServers",
    "exaAiSearch",
    "parallelAiSearch",
];

/// Why a key beside a Gemini tool's `functionDeclarations` is refused.
fn beside_declarations(key: &str) -> String {
    if GEMINI_BUILT_INS.contains(&key) {
        format!("`{key}`: Gemini's built-in tools are not function tools every API takes (give its function declarations only)")
    } else {
        format!("unknown field `{key}` beside `functionDeclarations`")
    }
}

/// Reads `tools` the way [`tools_from_value`] does (serde's `deserialize_with`).
pub fn deserialize_tools<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Tools, D::Error> {
    tools_from_value(Value::deserialize(deserializer)?).map(std::sync::Arc::new).map_err(D::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn read(v: Value) -> Result<Vec<ToolDef>, String> {
        tools_from_value(v)
    }

    #[test]
    fn every_shape_a_developer_has_reads_as_the_same_tool() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
        let expected = vec![ToolDef { name: "read".into(), description: Some("Read a file.".into()), input_schema: schema.clone() }];
        for shape in [
            json!({"name": "read", "description": "Read a file.", "inputSchema": schema}),
            json!({"name": "read", "description": "Read a file.", "input_schema": schema}),
            json!({"type": "function", "name": "read", "description": "Read a file.", "parameters": schema, "strict": false}),
            json!({"type": "function", "function": {"name": "read", "description": "Read a file.", "parameters": schema}}),
            json!({"functionDeclarations": [{"name": "read", "description": "Read a file.", "parametersJsonSchema": schema}]}),
            json!({"name": "read", "title": "Read", "description": "Read a file.", "inputSchema": schema, "annotations": {"readOnlyHint": true}}),
            // Every field of each SDK's function tool type, nulls where the type allows them.
            json!({"name": "read", "description": "Read a file.", "input_schema": schema, "type": "custom", "cache_control": {"type": "ephemeral", "ttl": "1h"},
                   "strict": true, "defer_loading": false, "allowed_callers": ["direct"], "eager_input_streaming": null, "input_examples": [{"path": "a"}]}),
            json!({"name": "read", "description": "Read a file.", "input_schema": schema, "type": null, "cache_control": null}),
            json!({"type": "function", "name": "read", "description": "Read a file.", "parameters": schema, "strict": null, "allowed_callers": null,
                   "async": false, "defer_loading": true, "output_schema": null}),
            json!({"type": "function", "function": {"name": "read", "description": "Read a file.", "parameters": schema, "strict": null}}),
            json!({"functionDeclarations": [{"name": "read", "description": "Read a file.", "behavior": "BLOCKING", "response": {"type": "STRING"},
                   "responseJsonSchema": null, "parameters": {"type": "OBJECT", "properties": {"path": {"type": "STRING"}}, "required": ["path"], "propertyOrdering": ["path"]}}]}),
            json!({"name": "read", "title": "Read", "description": "Read a file.", "inputSchema": schema, "icons": [], "execution": {"taskSupport": "forbidden"}, "_meta": {}}),
        ] {
            assert_eq!(read(json!([shape.clone()])), Ok(expected.clone()), "{shape}");
        }
        let two = read(json!([{"functionDeclarations": [{"name": "a"}, {"name": "b", "parameters": {"properties": {}}}]}])).unwrap();
        assert_eq!(two.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(two[0].input_schema, json!({"type": "object", "properties": {}}));
        // A schema that does not say it is an object's is made to say so.
        assert_eq!(two[1].input_schema, json!({"type": "object", "properties": {}}));
        // OpenAI Responses' `parameters: null`: a tool without arguments.
        let none = read(json!([{"type": "function", "name": "now", "parameters": null, "strict": null, "description": null}])).unwrap();
        assert_eq!(none, vec![ToolDef { name: "now".into(), description: None, input_schema: json!({"type": "object", "properties": {}}) }]);
    }

    #[test]
    fn what_cannot_be_read_is_refused_with_its_field() {
        for (tools, says) in [
            (json!([{"name": "read", "inputschema": {"type": "object"}}]), "tools[0]: unknown field `inputschema`"),
            (json!([{"name": "read", "parameters": {"type": "string"}}]), "tools[0]: `parameters` must be a JSON Schema for an object"),
            (json!([{"description": "x"}]), "tools[0]: `name` is missing"),
            (json!([{"name": "a"}, {"type": "web_search_20250305", "name": "web_search"}]), "tools[1]: `type`"),
            (json!([{"name": "a"}, {"name": "a"}]), "two tools are named `a`"),
            (json!({"name": "a"}), "`tools` must be a list"),
            (json!([{"functionDeclarations": [{"name": "a", "args": {}}]}]), "tools[0].functionDeclarations[0]: unknown field `args`"),
            (json!([{"functionDeclarations": [{"name": "a"}], "googleSearch": {}}]), "tools[0]: `googleSearch`: Gemini's built-in tools"),
            (json!([{"codeExecution": {}}]), "tools[0]: `codeExecution`: Gemini's built-in tools"),
            (json!([{"type": "custom", "name": "patch", "format": {"type": "text"}}]), "tools[0]: `type`: \"custom\" tools are not function tools"),
            (json!([{"type": "function", "function": {"name": "a"}, "extra": 1}]), "tools[0]: unknown field `extra` beside `function`"),
            (json!([{"functionDeclarations": [{"name": "a", "parameters": {"type": "OBJECT", "properties": {"n": {"type": "INTEGER", "minimum": 0, "maxItems": "x"}}}}]}]),
             "tools[0].functionDeclarations[0]: `parameters.properties.n.maxItems` must be a count"),
        ] {
            let e = read(tools.clone()).unwrap_err();
            assert!(e.starts_with(says), "{tools}: {e}");
        }
    }
}
