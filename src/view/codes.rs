//! The diagnostics of building a request: each code, its severity and when it is raised.
//!
//! Every diagnostic this module raises is made from one of these; `crate::diagnostic_codes()` lists
//! them all, and the README's Diagnostics table documents each.

declare_codes! {
    REASONING_DOWNGRADED = "reasoning.downgraded", Warning, "reasoning sent as text: another provider or model made it, or the API takes none back (Chat Completions)";
    REASONING_DROPPED = "reasoning.dropped", Info, "reasoning the provider cannot take back; left out";
    NATIVES_DROPPED = "natives.dropped", Info, "server-tool blocks another API made; left out";
    NATIVES_UNKNOWN_KIND = "natives.unknown_kind", Warning, "the API's own blocks of a kind no request takes back (a beta's, or newer than this version); left out with their pairs";
    THINKING_SUSPENDED = "thinking.suspended", Warning, "thinking is on but the tool loop began without a thinking block, so Anthropic runs this request without thinking";
    CONTEXT_OVER_WINDOW = "context.over_window", Warning, "the request holds more tokens than the model's window";
}
