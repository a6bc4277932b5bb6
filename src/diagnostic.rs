//! Diagnostics: problems returned as data (code, place, message), never as panics.
//!
//! Reading a log, replaying it or building a request keeps going past bad input wherever it can;
//! each thing it had to skip, repair or guess becomes one [`Diagnostic`]. Codes are stable strings
//! (`log.torn_tail`, `replay.orphan_update`, …) that callers may match on.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Something was lost or refused.
    Error,
    /// Input was odd; a documented fallback applied.
    Warning,
    /// Worth knowing; nothing was lost.
    Info,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// 1-based line in the input, when the input is line-oriented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// A file path or a JSON path, when one applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Diagnostic {
    pub fn new(code: &str, severity: Severity, message: impl Into<String>) -> Self {
        Diagnostic { code: code.to_owned(), severity, message: message.into(), line: None, path: None }
    }

    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    pub fn at_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
}

/// Reads `T` from a JSON value; a failure names the field it happened at (`tools[0].name:
/// invalid type: …`), so an input's author finds what to fix.
pub fn from_value<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        match path.as_str() {
            "." | "" => e.into_inner().to_string(),
            _ => format!("{path}: {}", e.into_inner()),
        }
    })
}
