//! Aider's `.aider.chat.history.md`, read into its records by the rules of the one function that
//! writes it (`InputOutput.append_chat_history`, Aider-AI/aider `aider/io.py`; 0.86):
//! - each run starts with `# aider chat started at <local time>` between blank lines;
//! - what the user typed: `#### ` before each line, two spaces after it (`<blank>` for nothing);
//! - the model's reply: its text, stripped, after a blank line, with nothing before or after it
//!   (streamed reasoning inside `<thinking-content-…>` tags);
//! - Aider's own output: `> ` and two trailing spaces; a message of several lines quotes only
//!   its first, the rest follow raw up to a line that ends with the two spaces.
//!
//! A reply is always after a blank line and an Aider line never is (unless a record ended just
//! before it): a reply runs until a blank line followed by a quoted or typed line that ends with
//! two spaces, the first line of one of Aider's messages of several lines (known by how it
//! starts: `Tokens: `, `# 1 SEARCH/REPLACE block failed…`, an error), or a run's header. A quote
//! in the reply itself (`> …`, after a blank line) stays in it.

/// One record of the transcript, with the line it starts on (1-based).
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A run of Aider: its start, as written (local time, no zone).
    Started { line: usize, at: String },
    /// What the user typed, its lines joined.
    Typed { line: usize, text: String },
    /// A reply of the model: its reasoning (when streamed) and its text.
    Reply { line: usize, reasoning: Option<String>, text: String },
    /// Aider's own output: one message, its lines joined.
    Said { line: usize, text: String },
}

const HEADER: &str = "# aider chat started at ";

/// How Aider's own messages of several lines start (a usage line with a cache's counts, an edit
/// that failed, an error): the reply before them has ended.
const AIDER_STARTS: &[&str] = &["Tokens: ", "# ", "The LLM did not conform", "litellm.", "Traceback", "^C", "Applied edit", "Commit ", "Retrying in"];

/// Whether `text` is an Aider chat history: a run's header on its first lines.
pub fn is_history(text: &str) -> bool {
    text.trim_start_matches('\u{feff}').lines().filter(|l| !l.trim().is_empty()).take(3).any(|l| l.trim_end().starts_with(HEADER))
}

/// The transcript's records, in order.
pub fn read(text: &str) -> Vec<Record> {
    let lines: Vec<&str> = text.trim_start_matches('\u{feff}').split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let typed = |l: &str| l.starts_with("####") && l.ends_with("  ");
    let header = |l: &str| l.starts_with(HEADER);
    // An Aider line that ends a reply: quoted or typed, with its two trailing spaces, or the
    // first line of a message of its own of several lines (which has none), known by its start.
    let aider_line = |l: &str| {
        let quoted = l.strip_prefix("> ").map(|q| AIDER_STARTS.iter().any(|s| q.starts_with(s)));
        (l.starts_with('>') && l.ends_with("  ")) || quoted == Some(true) || typed(l) || header(l)
    };
    let mut records = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        let number = i + 1;
        if header(line) {
            records.push(Record::Started { line: number, at: line[HEADER.len()..].trim().to_owned() });
            i += 1;
        } else if typed(line) {
            let mut parts = Vec::new();
            while i < lines.len() && typed(lines[i]) {
                let l = &lines[i][..lines[i].len() - 2];
                parts.push(l.strip_prefix("#### ").unwrap_or(l.trim_start_matches('#')).to_owned());
                i += 1;
            }
            let text = parts.join("\n");
            records.push(Record::Typed { line: number, text: if text == "<blank>" { String::new() } else { text } });
        } else if line.starts_with('>') {
            let mut parts = vec![line.strip_prefix("> ").unwrap_or(&line[1..]).to_owned()];
            let ends = |j: usize| lines.get(j + 1).is_none_or(|n| n.trim().is_empty() || n.starts_with('>') || header(n));
            let mut j = i;
            // A message of several lines: raw lines up to one that ends with the two spaces.
            if !(lines[j].ends_with("  ") && ends(j)) {
                while j + 1 < lines.len() {
                    j += 1;
                    parts.push(lines[j].to_owned());
                    if lines[j].ends_with("  ") && ends(j) {
                        break;
                    }
                }
            }
            let text = parts.iter().map(|p| p.strip_suffix("  ").unwrap_or(p)).collect::<Vec<_>>().join("\n");
            records.push(Record::Said { line: number, text: text.trim_end().to_owned() });
            i = j + 1;
        } else {
            let start = i;
            let mut end = i;
            while end + 1 < lines.len() {
                let next = end + 1;
                if lines[next].trim().is_empty() {
                    // A blank line ends the reply when an Aider line follows it.
                    let after = (next..lines.len()).find(|&k| !lines[k].trim().is_empty());
                    if after.is_none_or(|k| aider_line(lines[k])) {
                        break;
                    }
                }
                end = next;
            }
            let text = lines[start..=end].join("\n");
            let (reasoning, text) = split_reasoning(text.trim());
            records.push(Record::Reply { line: number, reasoning, text });
            i = end + 1;
        }
    }
    records
}

/// A reply's streamed reasoning (Aider's `<thinking-content-…>` tags, or a model's own
/// `<think>`) and the text after it.
fn split_reasoning(text: &str) -> (Option<String>, String) {
    for (open, close) in [("<thinking-content-", "</thinking-content-"), ("<think>", "</think>")] {
        let Some(start) = text.find(open) else { continue };
        let Some(end) = text[start..].find(close).map(|e| start + e) else { continue };
        // (An opening tag cut short, with no `>` before the closing one, opens at its name's end.)
        let inner_start = text[start..end].find('>').map_or(start + open.len(), |g| start + g + 1).min(end);
        let after = text[end..].find('>').map_or(text.len(), |g| end + g + 1);
        let reasoning = text[inner_start..end].trim().to_owned();
        let rest = format!("{}{}", &text[..start], &text[after..]).trim().to_owned();
        return ((!reasoning.is_empty()).then_some(reasoning), rest);
    }
    (None, text.to_owned())
}

/// Aider's echo of an answer given for a group of questions (`…? (Y)es/(N)o/(A)ll/(S)kip all/… [Yes]: all`).
pub fn is_answer_echo(text: &str) -> bool {
    text.contains("(Y)es/(N)o") && (text.ends_with(": all") || text.ends_with(": skip"))
}

#[cfg(test)]
mod tests;
