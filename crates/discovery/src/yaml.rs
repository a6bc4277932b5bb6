//! YAML for frontmatter: granit-parser's event stream built into JSON values, under budgets.
//!
//! A frontmatter is a handful of keys, so the builder refuses what no rule or skill file needs
//! and a hostile one could use: more than [`MAX_EVENTS`] events, nesting deeper than
//! [`MAX_DEPTH`], more than [`MAX_ANCHORS`] anchors or [`MAX_ALIASES`] aliases, and aliases that
//! would grow the value past [`MAX_NODES`] nodes (an alias bomb is refused, never expanded).
//! Scalars follow the YAML 1.2 core schema: only `true` and `false` are booleans (`off` and `yes`
//! are strings), numbers are numbers, `null`, `~` and nothing are null. Keys are the text of a
//! scalar; a key given twice is an error, as in the YAML the editors' own parsers accept.

use granit_parser::{Event, Parser, ScalarStyle, Tag};
use rustc_hash::FxHashMap as HashMap;
use serde_json::{Map, Number, Value};

/// Events one frontmatter may produce.
pub const MAX_EVENTS: usize = 20_000;
/// Collections inside collections.
pub const MAX_DEPTH: usize = 32;
pub const MAX_ANCHORS: usize = 64;
pub const MAX_ALIASES: usize = 64;
/// Nodes of the built value, aliases counted as what they expand to.
pub const MAX_NODES: usize = 20_000;

/// Why a YAML text was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum YamlError {
    /// Past one of the budgets: refused as a whole.
    OverBudget(String),
    /// Not YAML, or YAML this reader does not take (a collection as a key, several documents).
    Invalid(String),
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            YamlError::OverBudget(m) | YamlError::Invalid(m) => f.write_str(m),
        }
    }
}

/// An open collection and the anchor it defines (0 for none).
enum Open {
    Seq(Vec<Value>, usize),
    /// A mapping, and the key waiting for its value.
    Map(Map<String, Value>, Option<String>, usize),
}

struct Builder {
    stack: Vec<Open>,
    root: Option<Value>,
    anchors: HashMap<usize, Value>,
    aliases: usize,
    nodes: usize,
}

/// Reads one YAML document (an empty text is `null`).
pub fn parse(text: &str) -> Result<Value, YamlError> {
    let mut builder = Builder { stack: Vec::new(), root: None, anchors: HashMap::default(), aliases: 0, nodes: 0 };
    let mut documents = 0;
    for (count, next) in Parser::new_from_str(text).enumerate() {
        if count >= MAX_EVENTS {
            return Err(over(format!("more than {MAX_EVENTS} YAML events")));
        }
        let (event, _) = next.map_err(|e| YamlError::Invalid(e.to_string()))?;
        match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Anchor(..) => {}
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    return Err(YamlError::Invalid("more than one YAML document".to_owned()));
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                builder.count(1)?;
                if let Some(Open::Map(_, key @ None, _)) = builder.stack.last_mut() {
                    // A key: its text as written.
                    *key = Some(text.to_string());
                    if anchor != 0 {
                        builder.anchor(anchor, Value::String(text.into_owned()))?;
                    }
                    continue;
                }
                let value = scalar(&text, style, tag.as_deref());
                builder.complete(value, anchor)?;
            }
            Event::Alias(id) => {
                builder.aliases += 1;
                if builder.aliases > MAX_ALIASES {
                    return Err(over(format!("more than {MAX_ALIASES} aliases")));
                }
                let value = builder.anchors.get(&id).cloned().ok_or_else(|| YamlError::Invalid("an alias refers to a collection that contains it".to_owned()))?;
                builder.count(size(&value))?;
                if let Some(Open::Map(_, key @ None, _)) = builder.stack.last_mut() {
                    *key = Some(key_text(&value)?);
                    continue;
                }
                builder.complete(value, 0)?;
            }
            Event::UnresolvedAlias(name) => return Err(YamlError::Invalid(format!("unknown anchor `{name}`"))),
            Event::SequenceStart(_, anchor, _) => builder.open(Open::Seq(Vec::new(), anchor))?,
            Event::MappingStart(_, anchor, _) => builder.open(Open::Map(Map::new(), None, anchor))?,
            Event::SequenceEnd | Event::MappingEnd => {
                let (value, anchor) = match builder.stack.pop() {
                    Some(Open::Seq(items, anchor)) => (Value::Array(items), anchor),
                    Some(Open::Map(map, _, anchor)) => (Value::Object(map), anchor),
                    None => return Err(YamlError::Invalid("a collection closed that was never opened".to_owned())),
                };
                builder.complete(value, anchor)?;
            }
            // The enum is non-exhaustive: comments (a feature this crate leaves off) and whatever
            // later versions add. Presentation metadata is skipped; an unknown node is refused.
            other if !other.is_node() => {}
            _ => return Err(YamlError::Invalid("a YAML construct this reader does not take".to_owned())),
        }
    }
    Ok(builder.root.unwrap_or(Value::Null))
}

fn over(message: String) -> YamlError {
    YamlError::OverBudget(format!("budget breached: {message}"))
}

impl Builder {
    fn count(&mut self, nodes: usize) -> Result<(), YamlError> {
        self.nodes = self.nodes.saturating_add(nodes);
        if self.nodes > MAX_NODES {
            return Err(over(format!("more than {MAX_NODES} nodes (aliases expanded)")));
        }
        Ok(())
    }

    fn open(&mut self, open: Open) -> Result<(), YamlError> {
        self.count(1)?;
        if let Some(Open::Map(_, None, _)) = self.stack.last() {
            return Err(YamlError::Invalid("a mapping key must be a scalar".to_owned()));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(over(format!("nested deeper than {MAX_DEPTH}")));
        }
        self.stack.push(open);
        Ok(())
    }

    fn anchor(&mut self, id: usize, value: Value) -> Result<(), YamlError> {
        if self.anchors.len() >= MAX_ANCHORS {
            return Err(over(format!("more than {MAX_ANCHORS} anchors")));
        }
        self.anchors.insert(id, value);
        Ok(())
    }

    /// A finished node: remembered under its anchor, then placed in its parent.
    fn complete(&mut self, value: Value, anchor: usize) -> Result<(), YamlError> {
        if anchor != 0 {
            self.anchor(anchor, value.clone())?;
        }
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some(Open::Seq(items, _)) => items.push(value),
            Some(Open::Map(map, key, _)) => {
                let key = key.take().unwrap_or_default();
                if map.contains_key(&key) {
                    return Err(YamlError::Invalid(format!("duplicate key `{key}`")));
                }
                map.insert(key, value);
            }
        }
        Ok(())
    }
}

/// The text a value has as a mapping key (an alias used as a key).
fn key_text(value: &Value) -> Result<String, YamlError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok(String::new()),
        Value::Array(_) | Value::Object(_) => Err(YamlError::Invalid("a mapping key must be a scalar".to_owned())),
    }
}

/// Nodes in a value.
fn size(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(size).sum::<usize>(),
        Value::Object(map) => 1 + map.values().map(size).sum::<usize>(),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => 1,
    }
}

/// A scalar's value: quoted and block scalars are strings, as is anything tagged `!!str` or `!`;
/// plain ones are resolved by the core schema.
fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Value {
    let as_string = tag.is_some_and(|t| t.is_yaml_core_schema_tag("str") || (t.handle() == "!" && t.suffix().is_empty()));
    match style {
        ScalarStyle::Plain if !as_string => resolve(text),
        ScalarStyle::Plain | ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted | ScalarStyle::Literal | ScalarStyle::Folded => {
            Value::String(text.to_owned())
        }
    }
}

/// The YAML 1.2 core schema's reading of a plain scalar.
fn resolve(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    match integer(text) {
        Some(Some(n)) => return Value::Number(n),
        // An integer past 64 bits stays text rather than lose digits as a float.
        Some(None) => return Value::String(text.to_owned()),
        None => {}
    }
    if is_float(text) {
        if let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64) {
            return Value::Number(n);
        }
    }
    Value::String(text.to_owned())
}

/// `[-+]?[0-9]+`, `0o[0-7]+` or `0x[0-9a-fA-F]+` (`None` when it is not one), and its value
/// when it fits 64 bits.
fn integer(text: &str) -> Option<Option<Number>> {
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if let Some(hex) = text.strip_prefix("0x") {
        return digits(hex, 16).then(|| u64::from_str_radix(hex, 16).ok().map(Number::from));
    }
    if let Some(octal) = text.strip_prefix("0o") {
        return digits(octal, 8).then(|| u64::from_str_radix(octal, 8).ok().map(Number::from));
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits(unsigned, 10) {
        return None;
    }
    Some(if text.starts_with('-') { text.parse::<i64>().ok().map(Number::from) } else { unsigned.parse::<u64>().ok().map(Number::from) })
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
fn is_float(text: &str) -> bool {
    let s = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(at) => (&s[..at], Some(&s[at + 1..])),
        None => (s, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        Some(f) => all_digits(whole) && all_digits(f) && !(whole.is_empty() && f.is_empty()),
        None => !whole.is_empty() && all_digits(whole),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_shapes_rule_and_skill_files_use() {
        let text = "name: deploy\ndescription: >\n  Ships the app\n  to production.\nglobs: [\"*.ts\", '*.tsx']\nalwaysApply: false\nversion: 2\nratio: 0.5\nmetadata:\n  owner: ops\n  tags:\n    - release\n    - \"on\"\nnotes: |\n  line one\n  line two\nempty:\n";
        assert_eq!(
            parse(text).unwrap(),
            json!({
                "name": "deploy",
                "description": "Ships the app to production.\n",
                "globs": ["*.ts", "*.tsx"],
                "alwaysApply": false,
                "version": 2,
                "ratio": 0.5,
                "metadata": {"owner": "ops", "tags": ["release", "on"]},
                "notes": "line one\nline two\n",
                "empty": null
            })
        );
    }

    #[test]
    fn the_core_schema_decides_plain_scalars() {
        let text = "a: off\nb: yes\nc: TRUE\nd: ~\ne: -12\nf: 0x1F\ng: 0o17\nh: 1e3\ni: .5\nj: 1.2.3\nk: '12'\nl: !!str 12\nm: .inf\nn: 99999999999999999999\n";
        assert_eq!(
            parse(text).unwrap(),
            json!({"a": "off", "b": "yes", "c": true, "d": null, "e": -12, "f": 31, "g": 15, "h": 1000.0, "i": 0.5, "j": "1.2.3", "k": "12", "l": "12", "m": ".inf", "n": "99999999999999999999"})
        );
    }

    #[test]
    fn anchors_and_aliases_within_budget_are_read() {
        assert_eq!(parse("base: &b [x, y]\ncopy: *b\n&k key: v\nk2: *k\n").unwrap(), json!({"base": ["x", "y"], "copy": ["x", "y"], "key": "v", "k2": "key"}));
    }

    #[test]
    fn budgets_refuse_bombs_depth_and_floods() {
        let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x]\n");
        let mut prev = 'a';
        for name in ['b', 'c', 'd', 'e', 'f', 'g'] {
            bomb.push_str(&format!("{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
            prev = name;
        }
        assert!(matches!(parse(&bomb), Err(YamlError::OverBudget(m)) if m.contains("nodes")));
        let deep = format!("{}x{}", "[".repeat(40), "]".repeat(40));
        assert!(matches!(parse(&deep), Err(YamlError::OverBudget(m)) if m.contains("deeper")));
        let many: String = (0..(MAX_EVENTS)).map(|i| format!("k{i}: v\n")).collect();
        assert!(matches!(parse(&many), Err(YamlError::OverBudget(_))));
        let aliases: String = std::iter::once("a: &a x\n".to_owned()).chain((0..70).map(|i| format!("k{i}: *a\n"))).collect();
        assert!(matches!(parse(&aliases), Err(YamlError::OverBudget(m)) if m.contains("aliases")));
    }

    #[test]
    fn what_it_does_not_take_is_invalid() {
        for text in ["a: 1\na: 2\n", "? [a, b]\n: c\n", "a: *nope\n", "a: [1, 2\n", "a: 1\n---\nb: 2\n"] {
            assert!(matches!(parse(text), Err(YamlError::Invalid(_))), "{text:?}: {:?}", parse(text));
        }
        assert_eq!(parse("").unwrap(), Value::Null);
        assert_eq!(parse("# only a comment\n").unwrap(), Value::Null);
    }
}
