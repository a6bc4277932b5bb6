//! Every rule a validator can report, by id (`Violation::rule`): each declared once, here, and
//! named where it is checked, so an id is spelled in one place. The ids are stable; a host
//! matches on them. Every rule has a payload that breaks it in `tests/it/validators.rs`, and a
//! test fails on an id declared and never reported or spelled where it is reported.

/// Declares rule ids: a constant for each, and `RULES`, the list of them all.
macro_rules! declare_rules {
    ($($(#[$doc:meta])* $name:ident = $id:literal;)*) => {
        $($(#[$doc])* pub const $name: &str = $id;)*
        /// Every rule a validator can report.
        pub const RULES: &[&str] = &[$($name),*];
    };
}

declare_rules! {
    // Anthropic Messages
    ANTHROPIC_CACHE_BREAKPOINTS_MAX = "anthropic.cache_breakpoints_max";
    ANTHROPIC_CACHE_TTL_ORDER = "anthropic.cache_ttl_order";
    ANTHROPIC_CACHE_TTL_VALUE = "anthropic.cache_ttl_value";
    ANTHROPIC_COMPACTION_BLOCK_PASSED_BACK = "anthropic.compaction_block_passed_back";
    ANTHROPIC_CONTENT_NON_EMPTY = "anthropic.content_non_empty";
    ANTHROPIC_ENDS_WITH_USER = "anthropic.ends_with_user";
    ANTHROPIC_IMAGE_IN_USER = "anthropic.image_in_user";
    ANTHROPIC_IMAGE_MEDIA_TYPE = "anthropic.image_media_type";
    ANTHROPIC_IMAGE_SIZE = "anthropic.image_size";
    ANTHROPIC_IMAGE_BASE64 = "anthropic.image_base64";
    ANTHROPIC_IMAGE_URL = "anthropic.image_url";
    ANTHROPIC_MAX_IMAGES = "anthropic.max_images";
    ANTHROPIC_MESSAGES_NON_EMPTY = "anthropic.messages_non_empty";
    ANTHROPIC_NATIVE_IN_ASSISTANT = "anthropic.native_in_assistant";
    ANTHROPIC_REQUEST_TOO_LARGE = "anthropic.request_too_large";
    ANTHROPIC_ROLES_ALTERNATE = "anthropic.roles_alternate";
    ANTHROPIC_TEMPERATURE = "anthropic.temperature";
    ANTHROPIC_TEXT_NON_EMPTY = "anthropic.text_non_empty";
    ANTHROPIC_TEXT_NON_WHITESPACE = "anthropic.text_non_whitespace";
    ANTHROPIC_THINKING_BUDGET = "anthropic.thinking_budget";
    ANTHROPIC_THINKING_IN_ASSISTANT = "anthropic.thinking_in_assistant";
    ANTHROPIC_THINKING_SAMPLING = "anthropic.thinking_sampling";
    ANTHROPIC_THINKING_SIGNATURE = "anthropic.thinking_signature";
    ANTHROPIC_THINKING_STARTS_TURN = "anthropic.thinking_starts_turn";
    ANTHROPIC_THINKING_TOOL_CHOICE = "anthropic.thinking_tool_choice";
    ANTHROPIC_TOOL_CHOICE_TOOL = "anthropic.tool_choice_tool";
    ANTHROPIC_TOOL_RESULT_FIRST = "anthropic.tool_result_first";
    ANTHROPIC_TOOL_RESULT_IN_USER = "anthropic.tool_result_in_user";
    ANTHROPIC_TOOL_RESULT_MATCHES_TOOL_USE = "anthropic.tool_result_matches_tool_use";
    ANTHROPIC_TOOL_USE_HAS_TOOL_RESULT = "anthropic.tool_use_has_tool_result";
    ANTHROPIC_TOOL_USE_ID_FORMAT = "anthropic.tool_use_id_format";
    ANTHROPIC_TOOL_USE_ID_UNIQUE = "anthropic.tool_use_id_unique";
    ANTHROPIC_TOOL_USE_IN_ASSISTANT = "anthropic.tool_use_in_assistant";
    ANTHROPIC_TOP_P = "anthropic.top_p";
    // OpenAI Chat Completions
    OPENAI_CHAT_ARGUMENTS_JSON = "openai_chat.arguments_json";
    OPENAI_CHAT_ASSISTANT_CONTENT = "openai_chat.assistant_content";
    OPENAI_CHAT_IMAGE_URL = "openai_chat.image_url";
    OPENAI_CHAT_MESSAGES_NON_EMPTY = "openai_chat.messages_non_empty";
    OPENAI_CHAT_SETTINGS = "openai_chat.settings";
    OPENAI_CHAT_SYSTEM_CONTENT = "openai_chat.system_content";
    OPENAI_CHAT_TOOL_CALL_ID_LENGTH = "openai_chat.tool_call_id_length";
    OPENAI_CHAT_TOOL_CALL_ID_UNIQUE = "openai_chat.tool_call_id_unique";
    OPENAI_CHAT_TOOL_CALL_TYPE = "openai_chat.tool_call_type";
    OPENAI_CHAT_TOOL_CALLS_ANSWERED = "openai_chat.tool_calls_answered";
    OPENAI_CHAT_TOOL_CALLS_NON_EMPTY = "openai_chat.tool_calls_non_empty";
    OPENAI_CHAT_TOOL_CONTENT_TEXT = "openai_chat.tool_content_text";
    OPENAI_CHAT_TOOL_FOLLOWS_TOOL_CALLS = "openai_chat.tool_follows_tool_calls";
    OPENAI_CHAT_USER_CONTENT = "openai_chat.user_content";
    // OpenAI Responses
    OPENAI_RESPONSES_ARGUMENTS_JSON = "openai_responses.arguments_json";
    OPENAI_RESPONSES_CALL_HAS_OUTPUT = "openai_responses.call_has_output";
    OPENAI_RESPONSES_CALL_ID_NON_EMPTY = "openai_responses.call_id_non_empty";
    OPENAI_RESPONSES_CALL_ID_UNIQUE = "openai_responses.call_id_unique";
    OPENAI_RESPONSES_IMAGE_SOURCE = "openai_responses.image_source";
    OPENAI_RESPONSES_ITEM_TYPE = "openai_responses.item_type";
    OPENAI_RESPONSES_MESSAGE_CONTENT = "openai_responses.message_content";
    OPENAI_RESPONSES_OUTPUT_HAS_CALL = "openai_responses.output_has_call";
    OPENAI_RESPONSES_PART_ROLE = "openai_responses.part_role";
    OPENAI_RESPONSES_REASONING_FOLLOWED = "openai_responses.reasoning_followed";
    OPENAI_RESPONSES_REASONING_ID = "openai_responses.reasoning_id";
    OPENAI_RESPONSES_SETTINGS = "openai_responses.settings";
    OPENAI_RESPONSES_TEXT_NON_EMPTY = "openai_responses.text_non_empty";
    OPENAI_RESPONSES_UNSTORED_ITEM_ID = "openai_responses.unstored_item_id";
    // Gemini generateContent
    GEMINI_CONTENTS_NON_EMPTY = "gemini.contents_non_empty";
    GEMINI_FUNCTION_CALL_ANSWERED = "gemini.function_call_answered";
    GEMINI_FUNCTION_CALL_ROLE = "gemini.function_call_role";
    GEMINI_FUNCTION_CALL_TURN_ORDER = "gemini.function_call_turn_order";
    GEMINI_FUNCTION_RESPONSE_COUNT = "gemini.function_response_count";
    GEMINI_FUNCTION_RESPONSE_TURN_ORDER = "gemini.function_response_turn_order";
    GEMINI_PART_ONE_FIELD = "gemini.part_one_field";
    GEMINI_PARTS_NON_EMPTY = "gemini.parts_non_empty";
    GEMINI_ROLE = "gemini.role";
    GEMINI_SETTINGS = "gemini.settings";
}
