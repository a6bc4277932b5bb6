//! Frontmatter: the `---` YAML block at the top of rule and skill files.
//!
//! Parsed by [`super::yaml`] under tight budgets (a frontmatter is a handful of keys; an alias
//! bomb is refused, not expanded). Real files carry YAML that is invalid but whose meaning is
//! plain — Cursor writes `globs: **/*`, which YAML reads as an alias. When parsing fails, values
//! that start with a YAML indicator character are quoted and the block is parsed again; if that
//! succeeds, the result is used with a diagnostic saying what was repaired.

use serde_json::{Map, Value};

use super::yaml::YamlError;
use contextview::diagnostic::Diagnostic;
use crate::codes;

/// A file split into its frontmatter fields and its body.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// `None` when there is no frontmatter; `Some(Err)` when it could not be parsed.
    pub fields: Option<Result<Map<String, Value>, String>>,
    /// The text after the frontmatter (the whole text when there is none).
    pub body: String,
}

/// Splits `text` into the YAML between the opening and closing `---` lines, and the body.
pub fn split(text: &str) -> (Option<&str>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text.strip_prefix("---").filter(|r| r.starts_with('\n') || r.starts_with("\r\n")) else {
        return (None, text);
    };
    let rest = rest.trim_start_matches('\r').strip_prefix('\n').unwrap_or(rest);
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let trimmed = line.trim_end_matches(['\n', '\r']);
        if trimmed == "---" || trimmed == "..." {
            let body = &rest[offset + line.len()..];
            return (Some(&rest[..offset]), body);
        }
        offset += line.len();
    }
    // An opening fence with no closing fence: not frontmatter.
    (None, text)
}

/// Parses a file's frontmatter; `path` is used in diagnostics.
pub fn parse(text: &str, path: &str, diagnostics: &mut Vec<Diagnostic>) -> Parsed {
    let (yaml, body) = split(text);
    let Some(yaml) = yaml else {
        return Parsed { fields: None, body: body.to_owned() };
    };
    if yaml.trim().is_empty() {
        return Parsed { fields: Some(Ok(Map::new())), body: body.to_owned() };
    }
    let fields = match parse_yaml(yaml) {
        Ok(map) => Ok(map),
        // Over budget (an alias bomb, or absurd nesting): refuse; never try to read it another way.
        Err(YamlError::OverBudget(first)) => {
            diagnostics.push(
                Diagnostic::new(&codes::FRONTMATTER_TOO_COMPLEX, format!("frontmatter refused: {first}")).at_path(path),
            );
            Err(first)
        }
        Err(YamlError::Invalid(first)) => {
            let (repaired, changed) = quote_indicator_values(yaml);
            match (changed.is_empty(), parse_yaml(&repaired)) {
                (false, Ok(map)) => {
                    diagnostics.push(
                        Diagnostic::new(
                            &codes::FRONTMATTER_REPAIRED,
                            format!("frontmatter is not valid YAML ({first}); read {} as plain text", changed.join(", ")),
                        )
                        .at_path(path),
                    );
                    Ok(map)
                }
                _ => {
                    diagnostics.push(
                        Diagnostic::new(&codes::FRONTMATTER_INVALID, format!("frontmatter could not be parsed: {first}"))
                            .at_path(path),
                    );
                    Err(first)
                }
            }
        }
    };
    Parsed { fields: Some(fields), body: body.to_owned() }
}

fn parse_yaml(yaml: &str) -> Result<Map<String, Value>, YamlError> {
    match super::yaml::parse(yaml)? {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(YamlError::Invalid(format!("expected key: value pairs, found {}", kind_of(&other)))),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Quotes top-level `key: value` values that begin with a YAML indicator (`*`, `&`, `!`, `@`,
/// `` ` ``, `%`) — what a user writing `globs: **/*` means. Returns the new text and the keys changed.
fn quote_indicator_values(yaml: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut changed = Vec::new();
    for line in yaml.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let newline = &line[content.len()..];
        match content.split_once(':') {
            Some((key, value))
                if !key.starts_with([' ', '\t', '-', '#'])
                    && !key.is_empty()
                    && value.trim_start().starts_with(['*', '&', '!', '@', '`', '%']) =>
            {
                let raw = value.trim();
                let escaped = raw.replace('\\', "\\\\").replace('"', "\\\"");
                out.push_str(&format!("{key}: \"{escaped}\"{newline}"));
                changed.push(key.trim().to_owned());
            }
            _ => out.push_str(line),
        }
    }
    (out, changed)
}

/// A frontmatter value as a string: strings as they are, numbers and booleans written out.
/// Lists and mappings are not strings (`None`).
pub fn as_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// A frontmatter value as a list of strings: a list, or one string (comma-separated allowed).
pub fn as_list(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::Array(items) => items.iter().map(as_text).collect(),
        Value::String(s) => Some(s.split(',').map(|p| p.trim().to_owned()).filter(|p| !p.is_empty()).collect()),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> (Option<Result<Map<String, Value>, String>>, Vec<String>) {
        let mut d = Vec::new();
        let p = parse(text, "x.md", &mut d);
        (p.fields, d.into_iter().map(|d| d.code).collect())
    }

    #[test]
    fn splits_frontmatter_from_the_body() {
        assert_eq!(split("---\na: 1\n---\nbody\n"), (Some("a: 1\n"), "body\n"));
        assert_eq!(split("---\r\na: 1\r\n---\r\nbody"), (Some("a: 1\r\n"), "body"));
        assert_eq!(split("no frontmatter\n---\n"), (None, "no frontmatter\n---\n"));
        assert_eq!(split("---\nunclosed: true\n"), (None, "---\nunclosed: true\n"));
    }

    #[test]
    fn cursor_style_unquoted_globs_are_repaired_with_a_diagnostic() {
        let (f, codes) = fields("---\ndescription: TS rules\nglobs: **/*.ts\nalwaysApply: false\n---\nUse strict.\n");
        let map = f.unwrap().unwrap();
        assert_eq!(map["globs"], Value::String("**/*.ts".into()));
        assert_eq!(map["alwaysApply"], Value::Bool(false));
        assert_eq!(codes, vec!["frontmatter.repaired"]);
    }

    #[test]
    fn an_alias_bomb_is_refused_not_expanded() {
        let mut bomb = String::from("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        let names = ["b", "c", "d", "e", "f", "g", "h", "i"];
        let mut prev = "a";
        for n in names {
            bomb.push_str(&format!("{n}: &{n} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
            prev = n;
        }
        bomb.push_str("---\nbody");
        let (f, codes) = fields(&bomb);
        assert!(matches!(f, Some(Err(ref m)) if m.contains("budget")), "{f:?}");
        assert_eq!(codes, vec!["frontmatter.too_complex"]);
    }

    #[test]
    fn only_true_and_false_are_booleans() {
        let (f, _) = fields("---\nname: off\nenabled: true\nother: yes\n---\n");
        let map = f.unwrap().unwrap();
        assert_eq!((map["name"].clone(), map["enabled"].clone(), map["other"].clone()), (Value::from("off"), Value::Bool(true), Value::from("yes")));
    }

    #[test]
    fn non_mapping_frontmatter_is_invalid() {
        let (f, _) = fields("---\n- a\n- b\n---\n");
        assert!(matches!(f, Some(Err(m)) if m.contains("a list")));
    }

    #[test]
    fn values_read_as_text_and_lists() {
        assert_eq!(as_text(&Value::from(3)), Some("3".into()));
        assert_eq!(as_text(&serde_json::json!(["x"])), None);
        assert_eq!(as_list(&Value::from("*.ts, *.tsx")), Some(vec!["*.ts".into(), "*.tsx".into()]));
    }
}
