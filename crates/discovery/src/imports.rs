//! `@path` imports in rule files (Claude's convention): where they are in a text (never inside
//! code), where each points, and whether a file is nothing but imports.

use super::{paths, DiscoveryOptions};

/// Where an `@path` import in the file `from` points.
pub(super) fn resolve_import(target: &str, from: &str, opts: &DiscoveryOptions) -> String {
    match (target.strip_prefix("~/"), &opts.home) {
        (Some(rest), Some(home)) => paths::join(home, rest),
        _ => paths::join(paths::parent(from).unwrap_or("/"), target),
    }
}

/// True when every word of `body` is an `@path` import.
pub(super) fn is_only_imports(body: &str) -> bool {
    body.split_whitespace().all(|word| word.starts_with('@') && looks_like_path(&word[1..]))
}

/// `@path` references outside fenced code blocks and inline code spans.
pub fn import_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker = if trimmed.starts_with("```") { Some("```") } else if trimmed.starts_with("~~~") { Some("~~~") } else { None };
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                continue;
            }
            (Some(open), Some(m)) if open == m => {
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            (None, None) => {}
        }
        let mut in_code = false;
        let mut prev: Option<char> = None;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (k, &(i, ch)) in chars.iter().enumerate() {
            if ch == '`' {
                in_code = !in_code;
            } else if ch == '@' && !in_code && prev.is_none_or(char::is_whitespace) {
                let rest = &line[i + 1..];
                let token: String = rest.chars().take_while(|c| !c.is_whitespace() && *c != '`').collect();
                let token = token.trim_end_matches(['.', ',', ';', ':', ')', ']', '!', '?', '"', '\'']).to_owned();
                if looks_like_path(&token) {
                    out.push(token);
                }
            }
            prev = Some(ch);
            let _ = k;
        }
    }
    out
}

fn looks_like_path(token: &str) -> bool {
    !token.is_empty() && (token.contains('/') || token.contains('.') || token.starts_with('~')) && !token.contains("://")
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_outside_code_only() {
        let text = "See @docs/a.md and @~/prefs.md.\n`@not/this.md` but @./b.md\n```\n@neither/in-fence.md\n```\nmail me@example.com or @@x\n";
        assert_eq!(import_targets(text), vec!["docs/a.md", "~/prefs.md", "./b.md"]);
    }
}
