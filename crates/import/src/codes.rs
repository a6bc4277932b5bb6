//! The diagnostics of importing another agent's session: each code, its severity and when it is raised.
//!
//! Every diagnostic this module raises is made from one of these; `crate::diagnostic_codes()` lists
//! them all, and the README's Diagnostics table documents each.

contextview::declare_codes! {
    IMPORT_MALFORMED_LINE = "import.malformed_line", Error, "a line that is not JSON; skipped";
    IMPORT_NOT_AN_OBJECT = "import.not_an_object", Error, "a JSON line that is not an object; skipped";
    IMPORT_BAD_MESSAGE = "import.bad_message", Error, "a message entry with no message or no content; skipped";
    IMPORT_BAD_ENTRY = "import.bad_entry", Error, "an entry missing the fields its type needs (a model change without provider and model); skipped";
    IMPORT_BAD_TOOL_CALL = "import.bad_tool_call", Error, "a tool call with no id; skipped";
    IMPORT_BAD_TOOL_USE = "import.bad_tool_use", Error, "a `tool_use` block with no id; skipped";
    IMPORT_BAD_TOOL_RESULT = "import.bad_tool_result", Error, "a tool result that names no call; skipped";
    IMPORT_BAD_TOOL_OUTPUT = "import.bad_tool_output", Error, "a tool output that names no call; skipped";
    IMPORT_BAD_IMAGE = "import.bad_image", Warning, "image data that is not valid base64; replaced by a note";
    IMPORT_CONTENT_MISSING = "import.content_missing", Warning, "what the source agent's model saw that the imported view lacks (an image that could not be kept, …); `report.fidelity.missing` names each";
    IMPORT_UNKNOWN_PARENT = "import.unknown_parent", Warning, "an entry whose parent is not on the current branch; appended at the end";
    IMPORT_COMPACTION_KEEPS_UNKNOWN_ENTRY = "import.compaction_keeps_unknown_entry", Warning, "a compaction that keeps from an entry not on the branch; nothing before it is kept";
    IMPORT_COMPACTION_WITHOUT_SUMMARY = "import.compaction_without_summary", Warning, "a compact boundary with no summary after it";
    IMPORT_STORAGE_FILE_LEFT_OUT = "import.storage_file_left_out", Error, "a file of OpenCode's storage folder that cannot take its place in the session (not JSON, no `id`, another session's message, a part of a message not given, an id given twice); left out";
    IMPORT_SIDECHAINS_LEFT_OUT = "import.sidechains_left_out", Info, "subagent (sidechain) entries, which are not the main conversation; counted, not imported";
}
