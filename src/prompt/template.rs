//! The template language of the prompt heads: text with `{{slot}}` values and
//! `{{#slot}}…{{/slot}}` sections shown only when the slot has a non-empty value.
//!
//! That is all the heads need — their structure (which blocks, in which order) is decided in
//! Rust, the templates only hold prose — so a template engine with loops and expressions would
//! cost wasm size for nothing. A template that names a slot the renderer does not know, or
//! leaves a section open, is refused with a typed error before anything is rendered, so an
//! overridden template fails loudly instead of sending `{{typo}}` to a model.

/// Why a template was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    /// `{{name}}` or a section names a slot this template kind does not have.
    UnknownSlot { template: String, slot: String },
    /// `{{` without `}}`, a section never closed, or closed out of order.
    Malformed { template: String, message: String },
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateError::UnknownSlot { template, slot } => {
                write!(f, "template `{template}` uses the unknown slot `{slot}`")
            }
            TemplateError::Malformed { template, message } => write!(f, "template `{template}` is malformed: {message}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece<'t> {
    Text(&'t str),
    Slot(&'t str),
    Section(&'t str, Vec<Piece<'t>>),
}

/// Renders `source` with `values` (slot name → value). `known` lists every slot the template
/// kind offers; a value absent from `values` renders empty and hides its sections.
pub fn render(name: &str, source: &str, known: &[&str], values: &[(&str, &str)]) -> Result<String, TemplateError> {
    let pieces = parse(name, source, known)?;
    let mut out = String::with_capacity(source.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    emit(&pieces, values, &mut out);
    Ok(tidy(&out))
}

/// Checks a template without rendering it.
pub fn check(name: &str, source: &str, known: &[&str]) -> Result<(), TemplateError> {
    parse(name, source, known).map(|_| ())
}

fn parse<'t>(name: &str, source: &'t str, known: &[&str]) -> Result<Vec<Piece<'t>>, TemplateError> {
    let malformed = |message: String| TemplateError::Malformed { template: name.to_owned(), message };
    // A stack of open sections: (slot, pieces so far).
    let mut stack: Vec<(&'t str, Vec<Piece<'t>>)> = vec![("", Vec::new())];
    let mut rest = source;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            stack.last_mut().map(|(_, p)| p.push(Piece::Text(&rest[..open])));
        }
        let after = &rest[open + 2..];
        let close = after.find("}}").ok_or_else(|| malformed(format!("`{{{{` at byte {} is never closed", source.len() - rest.len() + open)))?;
        let tag = after[..close].trim();
        rest = &after[close + 2..];
        let (kind, slot) = match tag.as_bytes().first() {
            Some(b'#') => ('#', tag[1..].trim()),
            Some(b'/') => ('/', tag[1..].trim()),
            _ => (' ', tag),
        };
        if !known.contains(&slot) {
            return Err(TemplateError::UnknownSlot { template: name.to_owned(), slot: slot.to_owned() });
        }
        match kind {
            '#' => stack.push((slot, Vec::new())),
            '/' => {
                let (open_slot, pieces) = stack.pop().filter(|_| !stack.is_empty()).ok_or_else(|| malformed(format!("`{{{{/{slot}}}}}` closes nothing")))?;
                if open_slot != slot {
                    return Err(malformed(format!("`{{{{/{slot}}}}}` closes `{{{{#{open_slot}}}}}`")));
                }
                stack.last_mut().map(|(_, p)| p.push(Piece::Section(slot, pieces)));
            }
            _ => {
                stack.last_mut().map(|(_, p)| p.push(Piece::Slot(slot)));
            }
        }
    }
    if !rest.is_empty() {
        stack.last_mut().map(|(_, p)| p.push(Piece::Text(rest)));
    }
    if stack.len() != 1 {
        let open = stack.last().map_or("", |(s, _)| *s);
        return Err(malformed(format!("`{{{{#{open}}}}}` is never closed")));
    }
    Ok(stack.pop().map(|(_, p)| p).unwrap_or_default())
}

fn value<'v>(values: &[(&str, &'v str)], slot: &str) -> &'v str {
    values.iter().find(|(k, _)| *k == slot).map_or("", |(_, v)| v)
}

fn emit(pieces: &[Piece<'_>], values: &[(&str, &str)], out: &mut String) {
    for piece in pieces {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Slot(s) => out.push_str(value(values, s)),
            Piece::Section(s, inner) => {
                if !value(values, s).trim().is_empty() {
                    emit(inner, values, out);
                }
            }
        }
    }
}

/// Hidden sections leave blank lines behind: at most one blank line in a row, none at the ends.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.trim().lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_and_sections() {
        let t = "Hi {{name}}.\n\n{{#role}}Role: {{role}}\n{{/role}}\n\nBye";
        assert_eq!(render("t", t, &["name", "role"], &[("name", "Ada"), ("role", "")]).unwrap(), "Hi Ada.\n\nBye");
        assert_eq!(render("t", t, &["name", "role"], &[("name", "Ada"), ("role", "pilot")]).unwrap(), "Hi Ada.\n\nRole: pilot\n\nBye");
    }

    #[test]
    fn refuses_unknown_and_malformed() {
        assert_eq!(
            render("t", "{{nope}}", &["name"], &[]),
            Err(TemplateError::UnknownSlot { template: "t".into(), slot: "nope".into() })
        );
        assert!(matches!(render("t", "{{#name}}x", &["name"], &[]), Err(TemplateError::Malformed { .. })));
        assert!(matches!(render("t", "x{{/name}}", &["name"], &[]), Err(TemplateError::Malformed { .. })));
        assert!(matches!(render("t", "{{name", &["name"], &[]), Err(TemplateError::Malformed { .. })));
        assert!(matches!(render("t", "{{#a}}{{#b}}{{/a}}{{/b}}", &["a", "b"], &[]), Err(TemplateError::Malformed { .. })));
    }

    #[test]
    fn values_are_not_reparsed() {
        assert_eq!(render("t", "{{name}}", &["name"], &[("name", "{{name}}")]).unwrap(), "{{name}}");
    }
}
