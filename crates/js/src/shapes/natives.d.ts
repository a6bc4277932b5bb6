// The request-side shapes of the blocks and items a provider's own answer carries — server and
// hosted tools' calls and results, and the other output items only their API reads — as a
// request takes them back: the members of the Anthropic and OpenAI Responses payload unions that
// `NativeBlock` stood for. Each is the shape the official SDK's request type has for it (checked
// both ways by tests/sdk-types), so a payload built with them is assignable to the SDK's create
// params. A block or item of a kind not listed here is not sent (see `natives.unknown_kind`).
//
// Where the SDK types a value `unknown` (a server tool call's input), so does this file: `unknown`
// is assignable to nothing narrower, so an answer's block would not fit anything else.

// ============================================================================================
// Anthropic Messages API (non-beta): ContentBlockParam members for the server-side tool blocks
// ============================================================================================
// Each answer block (ServerToolUseBlock, WebSearchToolResultBlock, ...) fits its form below as
// is: no answer field is missing here. Answers always carry `caller` (on the three kinds that have
// one) and the nullable fields (page_age, retrieved_at, error_message, ...); here they are
// optional. `cache_control` (and document `context`) exist only on the request side.

/** Who invoked a server tool: the model directly, or a code-execution tool (programmatic call). */
export type AnthropicCaller =
  | { type: 'direct' }
  | { type: 'code_execution_20250825'; tool_id: string }
  | { type: 'code_execution_20260120'; tool_id: string };

export type AnthropicServerToolName =
  | 'web_search'
  | 'web_fetch'
  | 'code_execution'
  | 'bash_code_execution'
  | 'text_editor_code_execution'
  | 'tool_search_tool_regex'
  | 'tool_search_tool_bm25';

export type AnthropicServerToolUse = {
  type: 'server_tool_use';
  id: string;
  name: AnthropicServerToolName;
  input: unknown; // SDK: unknown on both sides (see header)
  caller?: AnthropicCaller;
  cache_control?: AnthropicCacheControl | null;
};

// --- web_search_tool_result -----------------------------------------------------------------

export type AnthropicWebSearchResult = {
  type: 'web_search_result';
  url: string;
  title: string;
  encrypted_content: string;
  page_age?: string | null;
};

export type AnthropicWebSearchToolResult = {
  type: 'web_search_tool_result';
  tool_use_id: string;
  content:
    | AnthropicWebSearchResult[]
    | {
        type: 'web_search_tool_result_error';
        error_code:
          | 'invalid_tool_input'
          | 'unavailable'
          | 'max_uses_exceeded'
          | 'too_many_requests'
          | 'query_too_long'
          | 'request_too_large';
      };
  caller?: AnthropicCaller;
  cache_control?: AnthropicCacheControl | null;
};

// --- web_fetch_tool_result (its success content is a full document block) -------------------

export type AnthropicTextParam = {
  type: 'text';
  text: string;
  citations?: AnthropicCitation[] | null;
  cache_control?: AnthropicCacheControl | null;
};

export type AnthropicImageParam = {
  type: 'image';
  source:
    | { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string }
    | { type: 'url'; url: string }
    | { type: 'file'; file_id: string };
  transformations?: { oversized_image?: 'downsize' | 'error' } | null;
  cache_control?: AnthropicCacheControl | null;
};

export type AnthropicDocumentParam = {
  type: 'document';
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string }
    | { type: 'content'; content: string | Array<AnthropicTextParam | AnthropicImageParam> }
    | { type: 'url'; url: string }
    | { type: 'file'; file_id: string };
  title?: string | null;
  context?: string | null;
  citations?: { enabled?: boolean } | null;
  cache_control?: AnthropicCacheControl | null;
};

export type AnthropicWebFetchToolResult = {
  type: 'web_fetch_tool_result';
  tool_use_id: string;
  content:
    | { type: 'web_fetch_result'; url: string; content: AnthropicDocumentParam; retrieved_at?: string | null }
    | {
        type: 'web_fetch_tool_result_error';
        error_code:
          | 'invalid_tool_input'
          | 'url_too_long'
          | 'url_not_allowed'
          | 'url_not_in_prior_context'
          | 'url_not_accessible'
          | 'unsupported_content_type'
          | 'too_many_requests'
          | 'max_uses_exceeded'
          | 'unavailable'
          | 'content_too_large';
      };
  caller?: AnthropicCaller;
  cache_control?: AnthropicCacheControl | null;
};

// --- code_execution_tool_result (no `caller` on this one, nor on the three below) -----------

type AnthropicCodeExecutionErrorCode = 'invalid_tool_input' | 'unavailable' | 'too_many_requests' | 'execution_time_exceeded';
type AnthropicCodeExecutionOutput = { type: 'code_execution_output'; file_id: string };

export type AnthropicCodeExecutionToolResult = {
  type: 'code_execution_tool_result';
  tool_use_id: string;
  content:
    | { type: 'code_execution_tool_result_error'; error_code: AnthropicCodeExecutionErrorCode }
    | {
        type: 'code_execution_result';
        content: AnthropicCodeExecutionOutput[];
        return_code: number;
        stdout: string;
        stderr: string;
      }
    | {
        type: 'encrypted_code_execution_result';
        content: AnthropicCodeExecutionOutput[];
        return_code: number;
        encrypted_stdout: string;
        stderr: string;
      };
  cache_control?: AnthropicCacheControl | null;
};

// --- bash_code_execution_tool_result ---------------------------------------------------------

export type AnthropicBashCodeExecutionToolResult = {
  type: 'bash_code_execution_tool_result';
  tool_use_id: string;
  content:
    | {
        type: 'bash_code_execution_tool_result_error';
        error_code: AnthropicCodeExecutionErrorCode | 'output_file_too_large';
      }
    | {
        type: 'bash_code_execution_result';
        content: Array<{ type: 'bash_code_execution_output'; file_id: string }>;
        return_code: number;
        stdout: string;
        stderr: string;
      };
  cache_control?: AnthropicCacheControl | null;
};

// --- text_editor_code_execution_tool_result --------------------------------------------------

export type AnthropicTextEditorCodeExecutionToolResult = {
  type: 'text_editor_code_execution_tool_result';
  tool_use_id: string;
  content:
    | {
        type: 'text_editor_code_execution_tool_result_error';
        error_code: AnthropicCodeExecutionErrorCode | 'file_not_found';
        error_message?: string | null;
      }
    | {
        type: 'text_editor_code_execution_view_result';
        content: string;
        file_type: 'text' | 'image' | 'pdf';
        num_lines?: number | null;
        start_line?: number | null;
        total_lines?: number | null;
      }
    | { type: 'text_editor_code_execution_create_result'; is_file_update: boolean }
    | {
        type: 'text_editor_code_execution_str_replace_result';
        lines?: string[] | null;
        new_lines?: number | null;
        new_start?: number | null;
        old_lines?: number | null;
        old_start?: number | null;
      };
  cache_control?: AnthropicCacheControl | null;
};

// --- tool_search_tool_result -----------------------------------------------------------------

export type AnthropicToolSearchToolResult = {
  type: 'tool_search_tool_result';
  tool_use_id: string;
  content:
    | {
        type: 'tool_search_tool_result_error';
        error_code: AnthropicCodeExecutionErrorCode;
        error_message?: string | null;
      }
    | {
        type: 'tool_search_tool_search_result';
        tool_references: Array<{ type: 'tool_reference'; tool_name: string; cache_control?: AnthropicCacheControl | null }>;
      };
  cache_control?: AnthropicCacheControl | null;
};

// --- container_upload ------------------------------------------------------------------------

export type AnthropicContainerUpload = {
  type: 'container_upload';
  file_id: string;
  cache_control?: AnthropicCacheControl | null;
};

export type AnthropicNativeBlock =
  | AnthropicServerToolUse
  | AnthropicWebSearchToolResult
  | AnthropicWebFetchToolResult
  | AnthropicCodeExecutionToolResult
  | AnthropicBashCodeExecutionToolResult
  | AnthropicTextEditorCodeExecutionToolResult
  | AnthropicToolSearchToolResult
  | AnthropicContainerUpload;

// ============================================================================================
// OpenAI Responses API: ResponseInputItem members that take back the non-message output items
// ============================================================================================

type OpenAiStatus3 = 'in_progress' | 'completed' | 'incomplete';
/** Who issued a call / consumed an output: the model itself, or a hosted program item. */
export type OpenAiResponsesCaller = { type: 'direct' } | { type: 'program'; caller_id: string };
type OpenAiAllowedCallers = Array<'direct' | 'programmatic'> | null;
type OpenAiPromptCacheBreakpoint = { mode: 'explicit'; ttl?: '30m' | '12h' };
type OpenAiSafetyCheck = { id: string; code?: string | null; message?: string | null };

// --- tool definitions (carried by tool_search_output and additional_tools) -------------------
// The SDK's `Tool` union and the element type of ResponseToolSearchOutputItemParam.tools are the
// same shape (their namespace members, NamespaceTool vs ToolSearchOutputNamespaceTool, are
// identical), so one alias serves both.

type OpenAiComparisonFilter = {
  type: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin';
  key: string;
  value: string | number | boolean | Array<string | number>;
};
// SDK: `filters: Array<ComparisonFilter | unknown>`, which TypeScript reduces to `unknown[]`.
type OpenAiCompoundFilter = { type: 'and' | 'or'; filters: unknown[] };
type OpenAiNetworkPolicy =
  | { type: 'disabled' }
  | { type: 'allowlist'; allowed_domains: string[]; domain_secrets?: Array<{ domain: string; name: string; value: string }> };
type OpenAiMemoryLimit = '1g' | '4g' | '16g' | '64g' | null;
type OpenAiMcpToolFilter = { read_only?: boolean; tool_names?: string[] };
type OpenAiCustomTool = {
  type: 'custom';
  name: string;
  description?: string;
  format?: { type: 'text' } | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };
  allowed_callers?: OpenAiAllowedCallers;
  async?: boolean;
  defer_loading?: boolean;
};

export type OpenAiResponsesToolDefinition =
  | {
      type: 'function';
      name: string;
      parameters: { [key: string]: unknown } | null;
      strict: boolean | null;
      description?: string | null;
      output_schema?: { [key: string]: unknown } | null;
      allowed_callers?: OpenAiAllowedCallers;
      async?: boolean;
      defer_loading?: boolean;
    }
  | {
      type: 'file_search';
      vector_store_ids: string[];
      filters?: OpenAiComparisonFilter | OpenAiCompoundFilter | null;
      max_num_results?: number;
      ranking_options?: {
        hybrid_search?: { embedding_weight: number; text_weight: number };
        ranker?: 'auto' | 'default-2024-11-15';
        score_threshold?: number;
      };
    }
  | { type: 'computer' }
  | {
      type: 'computer_use_preview';
      display_width: number;
      display_height: number;
      environment: 'windows' | 'mac' | 'linux' | 'ubuntu' | 'browser';
    }
  | {
      type: 'web_search' | 'web_search_2025_08_26';
      external_web_access?: boolean;
      filters?: { allowed_domains?: string[] | null } | null;
      search_context_size?: 'low' | 'medium' | 'high';
      user_location?: { type?: 'approximate'; city?: string | null; country?: string | null; region?: string | null; timezone?: string | null } | null;
    }
  | {
      type: 'mcp';
      server_label: string;
      server_url?: string;
      server_description?: string;
      connector_id?:
        | 'connector_dropbox'
        | 'connector_gmail'
        | 'connector_googlecalendar'
        | 'connector_googledrive'
        | 'connector_microsoftteams'
        | 'connector_outlookcalendar'
        | 'connector_outlookemail'
        | 'connector_sharepoint';
      authorization?: string;
      headers?: { [key: string]: string } | null;
      allowed_tools?: string[] | OpenAiMcpToolFilter | null;
      require_approval?: { always?: OpenAiMcpToolFilter; never?: OpenAiMcpToolFilter } | 'always' | 'never' | null;
      tunnel_id?: string;
      allowed_callers?: OpenAiAllowedCallers;
      defer_loading?: boolean;
    }
  | {
      type: 'code_interpreter';
      container:
        | string
        | { type: 'auto'; file_ids?: string[]; memory_limit?: OpenAiMemoryLimit; network_policy?: OpenAiNetworkPolicy };
      allowed_callers?: OpenAiAllowedCallers;
    }
  | { type: 'programmatic_tool_calling' }
  | {
      type: 'image_generation';
      action?: 'generate' | 'edit' | 'auto';
      background?: 'transparent' | 'opaque' | 'auto';
      complexity?: 'low' | 'medium' | 'high';
      frame_count?: number;
      frame_duration_ms?: number;
      input_fidelity?: 'high' | 'low' | null;
      input_image_mask?: { file_id?: string; image_url?: string };
      model?:
        | (string & {})
        | 'gpt-image-1'
        | 'gpt-image-1-mini'
        | 'gpt-image-2'
        | 'gpt-image-2-2026-04-21'
        | 'gpt-image-2.5-sunburst'
        | 'gpt-image-2.5-sunburst-2026-09-08'
        | 'gpt-image-2.5-flare'
        | 'gpt-image-2.5-flare-2026-09-08'
        | 'gpt-image-2.6-sunburst'
        | 'gpt-image-2.6-flare'
        | 'gpt-image-1.5'
        | 'chatgpt-image-latest';
      moderation?: 'auto' | 'low';
      output_compression?: number;
      output_format?: 'png' | 'webp' | 'jpeg' | 'gif' | 'svg';
      partial_images?: number;
      quality?: 'low' | 'medium' | 'high' | 'xhigh' | 'max' | 'auto';
      size?: (string & {}) | '1024x1024' | '1024x1536' | '1536x1024' | 'auto';
      svg?: { model?: string; reasoning?: { effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' } | null };
    }
  | { type: 'local_shell' }
  | {
      type: 'shell';
      environment?:
        | {
            type: 'container_auto';
            file_ids?: string[];
            memory_limit?: OpenAiMemoryLimit;
            network_policy?: OpenAiNetworkPolicy;
            skills?: Array<
              | { type: 'skill_reference'; skill_id: string; version?: string }
              | {
                  type: 'inline';
                  name: string;
                  description: string;
                  source: { type: 'base64'; media_type: 'application/zip'; data: string };
                }
            >;
          }
        | OpenAiLocalEnvironment
        | OpenAiContainerReference
        | null;
      allowed_callers?: OpenAiAllowedCallers;
    }
  | OpenAiCustomTool
  | {
      type: 'namespace';
      name: string;
      description: string;
      tools: Array<
        | {
            type: 'function';
            name: string;
            description?: string | null;
            parameters?: unknown; // SDK: `unknown | null`, which is just `unknown`
            strict?: boolean | null;
            output_schema?: { [key: string]: unknown } | null;
            allowed_callers?: OpenAiAllowedCallers;
            async?: boolean;
            defer_loading?: boolean;
          }
        | OpenAiCustomTool
      >;
    }
  | { type: 'tool_search'; description?: string | null; execution?: 'server' | 'client'; parameters?: unknown }
  | {
      type: 'web_search_preview' | 'web_search_preview_2025_03_11';
      search_content_types?: Array<'text' | 'image'>;
      search_context_size?: 'low' | 'medium' | 'high';
      user_location?: { type: 'approximate'; city?: string | null; country?: string | null; region?: string | null; timezone?: string | null } | null;
    }
  | { type: 'apply_patch'; allowed_callers?: OpenAiAllowedCallers };

type OpenAiLocalEnvironment = { type: 'local'; skills?: Array<{ name: string; description: string; path: string }> };
type OpenAiContainerReference = { type: 'container_reference'; container_id: string };

// --- content parts of function_call_output / custom_tool_call_output -------------------------

/** Element of FunctionCallOutput.output (SDK: ResponseFunctionCallOutputItem). */
export type OpenAiResponsesFunctionOutputPart =
  | { type: 'input_text'; text: string; prompt_cache_breakpoint?: OpenAiPromptCacheBreakpoint | null }
  | {
      type: 'input_image';
      detail?: 'low' | 'high' | 'auto' | 'original' | null;
      file_id?: string | null;
      image_url?: string | null;
      prompt_cache_breakpoint?: OpenAiPromptCacheBreakpoint | null;
    }
  | {
      type: 'input_file';
      detail?: 'auto' | 'low' | 'high';
      file_data?: string | null;
      file_id?: string | null;
      file_url?: string | null;
      filename?: string | null;
      prompt_cache_breakpoint?: OpenAiPromptCacheBreakpoint | null;
    };

/** Element of custom_tool_call_output's output (SDK: ResponseInputText | ResponseInputImage | ResponseInputFile). */
export type OpenAiResponsesCustomOutputPart =
  | { type: 'input_text'; text: string; prompt_cache_breakpoint?: OpenAiPromptCacheBreakpoint }
  | {
      type: 'input_image';
      detail: 'low' | 'high' | 'auto' | 'original';
      file_id?: string | null;
      image_url?: string | null;
      prompt_cache_breakpoint?: OpenAiPromptCacheBreakpoint;
    }
  | {
      type: 'input_file';
      detail?: 'auto' | 'low' | 'high';
      file_data?: string;
      file_id?: string | null;
      file_url?: string;
      filename?: string;
      prompt_cache_breakpoint?: OpenAiPromptCacheBreakpoint;
    };

// --- the items -------------------------------------------------------------------------------
// Unless noted, the answer's item type is the same SDK type as the request member, or an
// identically shaped twin (ResponseOutputItem.X vs ResponseInputItem.X), so it goes back as is;
// mcp_approval_response's answer form only has `id` required where this one has it optional.

export type OpenAiResponsesWebSearchCall = {
  type: 'web_search_call';
  id: string;
  status: 'in_progress' | 'searching' | 'completed' | 'failed' | 'incomplete';
  action:
    | { type: 'search'; query?: string; queries?: string[]; sources?: Array<{ type: 'url'; url: string }> }
    | { type: 'open_page'; url?: string | null }
    | { type: 'find_in_page'; url: string; pattern: string };
};

export type OpenAiResponsesFileSearchCall = {
  type: 'file_search_call';
  id: string;
  status: 'in_progress' | 'searching' | 'completed' | 'incomplete' | 'failed';
  queries: string[];
  results?: Array<{
    file_id?: string;
    filename?: string;
    score?: number;
    text?: string;
    attributes?: { [key: string]: string | number | boolean } | null;
  }> | null;
};

export type OpenAiResponsesComputerAction =
  | { type: 'click'; button: 'left' | 'right' | 'wheel' | 'back' | 'forward'; x: number; y: number; keys?: string[] | null }
  | { type: 'double_click'; x: number; y: number; keys: string[] | null }
  | { type: 'drag'; path: Array<{ x: number; y: number }>; keys?: string[] | null }
  | { type: 'keypress'; keys: string[] }
  | { type: 'move'; x: number; y: number; keys?: string[] | null }
  | { type: 'screenshot' }
  | { type: 'scroll'; x: number; y: number; scroll_x: number; scroll_y: number; keys?: string[] | null }
  | { type: 'type'; text: string }
  | { type: 'wait' };

export type OpenAiResponsesComputerCall = {
  type: 'computer_call';
  id: string;
  call_id: string;
  status: OpenAiStatus3;
  pending_safety_checks: OpenAiSafetyCheck[];
  action?: OpenAiResponsesComputerAction;
  actions?: OpenAiResponsesComputerAction[];
};

// Answer item: ResponseComputerToolCallOutputItem. Adds `created_by` (strip); its status may be
// 'failed', which this form does not accept (map or drop it).
export type OpenAiResponsesComputerCallOutput = {
  type: 'computer_call_output';
  call_id: string;
  output: { type: 'computer_screenshot'; file_id?: string; image_url?: string };
  id?: string | null;
  acknowledged_safety_checks?: OpenAiSafetyCheck[] | null;
  status?: OpenAiStatus3 | null;
};

// Answer item: ResponseFunctionToolCallOutputItem. Adds `created_by` (strip).
export type OpenAiResponsesFunctionCallOutput = {
  type: 'function_call_output';
  output: string | OpenAiResponsesFunctionOutputPart[];
  id?: string | null;
  call_id?: string | null;
  name?: string | null;
  namespace?: string | null;
  caller?: OpenAiResponsesCaller | null;
  status?: OpenAiStatus3 | null;
};

// Answer item: ResponseCustomToolCallOutputItem. Adds `status` and `created_by` (strip both). Note
// `id?: string` here, without `| null`, unlike the other optional ids.
export type OpenAiResponsesCustomToolCallOutput = {
  type: 'custom_tool_call_output';
  call_id: string;
  output: string | OpenAiResponsesCustomOutputPart[];
  id?: string;
  caller?: OpenAiResponsesCaller | null;
};

export type OpenAiResponsesProgram = {
  type: 'program';
  id: string;
  call_id: string;
  code: string;
  fingerprint: string;
};

export type OpenAiResponsesProgramOutput = {
  type: 'program_output';
  id: string;
  call_id: string;
  result: string;
  status: 'completed' | 'incomplete';
};

// Answer item: ResponseToolSearchCall. Adds `created_by` (strip).
export type OpenAiResponsesToolSearchCall = {
  type: 'tool_search_call';
  arguments: unknown; // SDK: unknown on both sides (see header)
  id?: string | null;
  call_id?: string | null;
  execution?: 'server' | 'client';
  status?: OpenAiStatus3 | null;
};

// Answer item: ResponseToolSearchOutputItem. Adds `created_by` (strip).
export type OpenAiResponsesToolSearchOutput = {
  type: 'tool_search_output';
  tools: OpenAiResponsesToolDefinition[];
  id?: string | null;
  call_id?: string | null;
  execution?: 'server' | 'client';
  status?: OpenAiStatus3 | null;
};

// Answer item: ResponseOutputItem.AdditionalTools, whose role may be other than 'developer'.
/** Request side only accepts role 'developer' (the output item's role is a wider enum). */
export type OpenAiResponsesAdditionalTools = {
  type: 'additional_tools';
  role: 'developer';
  tools: OpenAiResponsesToolDefinition[];
  id?: string | null;
};

// Answer item: ResponseCompactionItem. Adds `created_by` (strip).
export type OpenAiResponsesCompaction = {
  type: 'compaction';
  encrypted_content: string;
  id?: string | null;
};

export type OpenAiResponsesImageGenerationCall = {
  type: 'image_generation_call';
  id: string;
  status: 'in_progress' | 'completed' | 'generating' | 'failed';
  result: string | null;
  action?: 'generate' | 'edit' | 'auto' | null;
  background?: 'transparent' | 'opaque' | 'auto' | null;
  output_format?: 'png' | 'webp' | 'jpeg' | 'gif' | 'svg' | null;
  quality?: 'low' | 'medium' | 'high' | 'xhigh' | 'max' | 'auto' | null;
  size?: (string & {}) | '1024x1024' | '1024x1536' | '1536x1024' | null;
  revised_prompt?: string | null;
  error?: {
    type: string;
    code: string | null;
    message: string;
    param: string | null;
    moderation_details?: { categories: string[]; moderation_stage: 'input' | 'output' | 'unknown' };
  };
  svg_usage?: {
    model: string;
    input_tokens: number;
    output_tokens: number;
    reasoning_tokens: number;
    total_tokens: number;
  };
};

export type OpenAiResponsesCodeInterpreterCall = {
  type: 'code_interpreter_call';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete' | 'interpreting' | 'failed';
  container_id: string;
  code: string | null;
  outputs: Array<{ type: 'logs'; logs: string } | { type: 'image'; url: string }> | null;
};

export type OpenAiResponsesLocalShellCall = {
  type: 'local_shell_call';
  id: string;
  call_id: string;
  status: OpenAiStatus3;
  action: {
    type: 'exec';
    command: string[];
    env: { [key: string]: string };
    timeout_ms?: number | null;
    user?: string | null;
    working_directory?: string | null;
  };
};

export type OpenAiResponsesLocalShellCallOutput = {
  type: 'local_shell_call_output';
  id: string;
  output: string;
  status?: OpenAiStatus3 | null;
};

// Answer item: ResponseFunctionShellToolCall. Adds `created_by` (strip).
export type OpenAiResponsesShellCall = {
  type: 'shell_call';
  call_id: string;
  action: { commands: string[]; max_output_length?: number | null; timeout_ms?: number | null };
  id?: string | null;
  caller?: OpenAiResponsesCaller | null;
  environment?: OpenAiLocalEnvironment | OpenAiContainerReference | null;
  status?: OpenAiStatus3 | null;
};

// Answer item: ResponseFunctionShellToolCallOutput. Adds `created_by`, also on each output[] entry (strip).
export type OpenAiResponsesShellCallOutput = {
  type: 'shell_call_output';
  call_id: string;
  output: Array<{ stdout: string; stderr: string; outcome: { type: 'timeout' } | { type: 'exit'; exit_code: number } }>;
  id?: string | null;
  caller?: OpenAiResponsesCaller | null;
  max_output_length?: number | null;
  status?: OpenAiStatus3 | null;
};

// Answer item: ResponseApplyPatchToolCall. Adds `created_by` (strip).
export type OpenAiResponsesApplyPatchCall = {
  type: 'apply_patch_call';
  call_id: string;
  status: 'in_progress' | 'completed';
  operation:
    | { type: 'create_file'; path: string; diff: string }
    | { type: 'delete_file'; path: string }
    | { type: 'update_file'; path: string; diff: string };
  id?: string | null;
  caller?: OpenAiResponsesCaller | null;
};

// Answer item: ResponseApplyPatchToolCallOutput. Adds `created_by` (strip).
export type OpenAiResponsesApplyPatchCallOutput = {
  type: 'apply_patch_call_output';
  call_id: string;
  status: 'completed' | 'failed';
  output?: string | null;
  id?: string | null;
  caller?: OpenAiResponsesCaller | null;
};

export type OpenAiResponsesMcpCall = {
  type: 'mcp_call';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
  output?: string | null;
  error?:
    | { type: 'mcp_protocol_error'; code: number; message: string }
    | { type: 'mcp_tool_execution_error'; content: unknown }
    | { type: 'http_error'; code: number; message: string }
    | null;
  approval_request_id?: string | null;
  status?: 'in_progress' | 'completed' | 'incomplete' | 'calling' | 'failed';
};

export type OpenAiResponsesMcpListTools = {
  type: 'mcp_list_tools';
  id: string;
  server_label: string;
  tools: Array<{
    name: string;
    input_schema: unknown;
    annotations?: unknown; // SDK: `unknown | null`, which is just `unknown`
    description?: string | null;
  }>;
  error?: string | null;
};

export type OpenAiResponsesMcpApprovalRequest = {
  type: 'mcp_approval_request';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
};

export type OpenAiResponsesMcpApprovalResponse = {
  type: 'mcp_approval_response';
  approval_request_id: string;
  approve: boolean;
  reason?: string | null;
  id?: string | null;
};

export type OpenAiResponsesNativeItem =
  | OpenAiResponsesWebSearchCall
  | OpenAiResponsesFileSearchCall
  | OpenAiResponsesComputerCall
  | OpenAiResponsesComputerCallOutput
  | OpenAiResponsesFunctionCallOutput
  | OpenAiResponsesCustomToolCallOutput
  | OpenAiResponsesProgram
  | OpenAiResponsesProgramOutput
  | OpenAiResponsesToolSearchCall
  | OpenAiResponsesToolSearchOutput
  | OpenAiResponsesAdditionalTools
  | OpenAiResponsesCompaction
  | OpenAiResponsesImageGenerationCall
  | OpenAiResponsesCodeInterpreterCall
  | OpenAiResponsesLocalShellCall
  | OpenAiResponsesLocalShellCallOutput
  | OpenAiResponsesShellCall
  | OpenAiResponsesShellCallOutput
  | OpenAiResponsesApplyPatchCall
  | OpenAiResponsesApplyPatchCallOutput
  | OpenAiResponsesMcpCall
  | OpenAiResponsesMcpListTools
  | OpenAiResponsesMcpApprovalRequest
  | OpenAiResponsesMcpApprovalResponse;

/**
 * An item as a request takes it back: with its `id` when the conversation is stored (the API's
 * default), without under `store: false`, where an id would be looked up and not found. The
 * SDK's types require the id; this is the one place our payload type is wider than theirs.
 */
export type OpenAiResponsesNativeItemBack = OpenAiResponsesNativeItem extends infer T
  ? T extends { id: string } ? Omit<T, 'id'> & { id?: string } : T
  : never;
