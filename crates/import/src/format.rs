//! The formats the importers read, by the names the package and the CLI take.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Session formats we import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    #[serde(rename = "claude-code")]
    ClaudeCode,
    #[serde(rename = "codex")]
    Codex,
    #[serde(rename = "pi")]
    Pi,
    #[serde(rename = "gemini-cli")]
    GeminiCli,
    #[serde(rename = "copilot-cli")]
    CopilotCli,
    #[serde(rename = "aider")]
    Aider,
    #[serde(rename = "cline")]
    Cline,
    #[serde(rename = "roo-code")]
    RooCode,
    #[serde(rename = "kilo-code")]
    KiloCode,
    #[serde(rename = "opencode")]
    OpenCode,
}

impl Format {
    pub const ALL: [Format; 10] = [
        Format::ClaudeCode,
        Format::Codex,
        Format::Pi,
        Format::GeminiCli,
        Format::CopilotCli,
        Format::Aider,
        Format::Cline,
        Format::RooCode,
        Format::KiloCode,
        Format::OpenCode,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Pi => "pi",
            Format::GeminiCli => "gemini-cli",
            Format::CopilotCli => "copilot-cli",
            Format::Aider => "aider",
            Format::Cline => "cline",
            Format::RooCode => "roo-code",
            Format::KiloCode => "kilo-code",
            Format::OpenCode => "opencode",
        }
    }
}

impl Format {
    /// Every format's name, as a sentence lists them (`a, b or c`).
    pub fn listed() -> String {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| format!("unknown format `{s}` (expected {})", Format::listed()))
    }
}
