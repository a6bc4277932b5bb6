//! The diagnostics of a session and its storage: each code, its severity and when it is raised.
//!
//! Every diagnostic this module raises is made from one of these; `crate::diagnostic_codes()` lists
//! them all, and the README's Diagnostics table documents each.

declare_codes! {
    STORAGE_DIVERGED = "storage.diverged", Error, "storage changed records it had confirmed; it is taken as the truth";
    STORAGE_LOST_RECORDS = "storage.lost_records", Error, "storage lost records it had confirmed; they are sent again";
    TOOLS_UNDEFINED = "tools.undefined", Warning, "the prompt lists tools the request does not define";
}
