//! The JavaScript surface both of the package's wasm modules share: how values cross, the error
//! classes and their codes, and the TypeScript types.
//!
//! Objects cross the boundary as JSON text: `JSON.stringify` on the way in, `JSON.parse` on the
//! way out (plain objects, never `Map`s), so each type has one serializer and one deserializer in
//! the `.wasm` — the ones the log and the payloads already need. Only the discovery host's
//! answers, which carry file bytes as `Uint8Array`s, are read with serde-wasm-bindgen.
//! TypeScript types are declared here (`types.d.ts`; [`ts`] names them for the facade's
//! signatures): the core knows no JavaScript. Errors are thrown as JS
//! `Error`s with a stable `code` (and `details` where there is more to say); problems with the
//! input data itself come back as diagnostics in the result, not as exceptions.
//!
//! The package ships two modules, each a cdylib crate that links this one: the first-load one
//! (`crates/first`: logs, sessions, builds, answers) and the lazy one (`crates/lazy`: the
//! importers and discovery), built together by `scripts/build.sh`.

use wasm_bindgen::prelude::*;

pub mod cross;
pub mod error_codes;
pub mod ts;

// The data shapes both modules' types name, declared in each module's TypeScript so that each
// stands alone: a JSON value, tools, settings, the blocks a provider's answer carries back. The
// shapes the official SDKs give request settings passed through as given, and the blocks and
// items of an answer, are long, and TypeScript only, so in files of their own.
// The core's types, as both modules' functions take and return them (see `ts`).
#[wasm_bindgen(typescript_custom_section)]
const TS_CORE_TYPES: &str = include_str!("types.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_SETTINGS_SHAPES: &str = include_str!("shapes/settings.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_NATIVE_SHAPES: &str = include_str!("shapes/natives.d.ts");
// The providers' requests and settings, generated from their Rust declarations
// (tests/it/typescript.rs).
#[wasm_bindgen(typescript_custom_section)]
const TS_PROVIDER_SHAPES: &str = include_str!("shapes/providers.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_DATA_TYPES: &str = r#"
/**
 * A block or item of the model's own turn that only its API reads (a server tool's call or
 * result), sent back exactly as the provider gave it.
 */
export type NativeBlock = { type: string; [key: string]: Value };

/**
 * A citation on a text Claude wrote, as a request takes it back (the SDK's
 * `TextCitationParam`).
 */
export type AnthropicCitation =
  | { type: 'char_location'; cited_text: string; document_index: number; document_title: string | null; start_char_index: number; end_char_index: number }
  | { type: 'page_location'; cited_text: string; document_index: number; document_title: string | null; start_page_number: number; end_page_number: number }
  | { type: 'content_block_location'; cited_text: string; document_index: number; document_title: string | null; start_block_index: number; end_block_index: number }
  | { type: 'web_search_result_location'; cited_text: string; encrypted_index: string; title: string | null; url: string }
  | { type: 'search_result_location'; cited_text: string; search_result_index: number; source: string; title: string | null; start_block_index: number; end_block_index: number };

/** An annotation on a text an OpenAI Responses model wrote, as a request takes it back. */
export type OpenAiResponsesAnnotation =
  | { type: 'url_citation'; url: string; title: string; start_index: number; end_index: number }
  | { type: 'file_citation'; file_id: string; filename: string; index: number }
  | { type: 'container_file_citation'; container_id: string; file_id: string; filename: string; start_index: number; end_index: number }
  | { type: 'file_path'; file_id: string; index: number };

/** Any JSON value. */
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

/** A JSON Schema for a tool's arguments: an object schema. */
export type ToolSchema = { type?: 'object'; [key: string]: unknown };

/**
 * Gemini's `Schema` (an OpenAPI subset: upper-case types, `nullable`, counts as strings), as a
 * function declaration's `parameters` takes it; read as the JSON Schema it means.
 */
export type GeminiSchema = {
  type?: 'TYPE_UNSPECIFIED' | 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT' | 'NULL';
  format?: string; title?: string; description?: string; nullable?: boolean; enum?: string[];
  maxItems?: string; minItems?: string; maxLength?: string; minLength?: string; maxProperties?: string; minProperties?: string;
  minimum?: number; maximum?: number; pattern?: string; default?: unknown; example?: unknown;
  properties?: Record<string, GeminiSchema>; required?: string[]; propertyOrdering?: string[];
  anyOf?: GeminiSchema[]; items?: GeminiSchema;
};

/**
 * A tool, in whichever shape a developer already has — the official SDKs' function tool types
 * are accepted as they are: ours and MCP's (`inputSchema`), Anthropic's `Tool`
 * (`input_schema`), OpenAI Responses' `FunctionTool` (`{type: 'function', name, parameters}`),
 * Chat Completions' `ChatCompletionFunctionTool` (`{type: 'function', function: {...}}`), or
 * Gemini's `Tool` (`{functionDeclarations: [...]}`, one tool per declaration; `parameters` in
 * Gemini's `Schema` or `parametersJsonSchema`). Fields that tell an API how to run a tool
 * rather than the model what it is (`strict`, `cache_control`, `defer_loading`,
 * `allowed_callers`, `input_examples`, `eager_input_streaming`, `async`, `output_schema`,
 * `behavior`, `response`, and MCP's `title`, `annotations`, `outputSchema`, `icons`,
 * `execution`, `_meta`) are accepted and not sent; null counts as absent. Any other field, a
 * server or hosted tool, a freeform `custom` tool and Gemini's built-in tools are refused with
 * the field's name.
 */
export type ToolInput =
  | ToolInputFields & { inputSchema?: ToolSchema; title?: string; annotations?: unknown; outputSchema?: unknown; icons?: unknown; execution?: unknown; _meta?: unknown }
  | ToolInputFields & {
      input_schema: ToolSchema; type?: 'custom' | null; cache_control?: unknown; strict?: boolean; defer_loading?: boolean;
      allowed_callers?: readonly string[]; eager_input_streaming?: boolean | null; input_examples?: readonly unknown[];
    }
  | ToolInputFields & {
      type: 'function'; parameters?: ToolSchema | null; strict?: boolean | null; allowed_callers?: readonly string[] | null;
      async?: boolean; defer_loading?: boolean; output_schema?: unknown;
    }
  | { type: 'function'; function: ToolInputFields & { parameters?: ToolSchema; strict?: boolean | null } }
  | {
      functionDeclarations?: Array<{
        name?: string; description?: string; parameters?: GeminiSchema | ToolSchema; parametersJsonSchema?: unknown;
        response?: unknown; responseJsonSchema?: unknown; behavior?: 'UNSPECIFIED' | 'BLOCKING' | 'NON_BLOCKING';
      }>;
    };

/**
 * Each API's request settings, in its own field names (thinking, tool choice, sampling,
 * structured output, reasoning effort, safety settings, …); a build uses only its target API's
 * section, so one object serves a session that switches providers. The reply's budget
 * (`max_tokens`, `max_completion_tokens`, `max_output_tokens`, `generationConfig.maxOutputTokens`)
 * and OpenAI's `prompt_cache_key` may be given here or as `maxTokens` / `cache.key`.
 */
export interface ProviderOptions {
  anthropic?: Nullish<AnthropicSettings & { max_tokens?: number; user_profile_id?: string; workspace_id?: string }> | null;
  'openai-chat'?: Nullish<OpenAiChatSettings & { max_completion_tokens?: number; prompt_cache_key?: string }> | null;
  'openai-responses'?: Nullish<OpenAiResponsesSettings & { max_output_tokens?: number; prompt_cache_key?: string }> | null;
  gemini?: Nullish<GeminiSettings & { stream?: boolean }> | null;
}

/**
 * `T` as a caller may give it: `null` wherever a field may be left out (null is as good as
 * absent, and is not sent), as the official SDKs' own types allow.
 */
export type Nullish<T> = T extends readonly (infer U)[]
  ? Nullish<U>[]
  : T extends object
    ? { [K in keyof T]: undefined extends T[K] ? Nullish<Exclude<T[K], undefined>> | null | undefined : Nullish<T[K]> }
    : T;

/** The fields every tool shape shares. */
export interface ToolInputFields {
  name: string;
  description?: string | null;
}
"#;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}
