//! TypeScript rendered from [`contextview::shape`]: each named shape reachable from the roots,
//! declared once, in the order of their names.

use std::collections::BTreeMap;

use contextview::provider::settings;
use contextview::provider::{anthropic, gemini, openai_chat, openai_responses};
use contextview::shape::{Body, Decl, Describe, Field, Ty};

const HEADER: &str = "\
// Generated from the Rust declarations of the providers' requests and settings (their readers'
// attributes, through contextview::shape) by tests/it/typescript.rs: do not edit; run
// `UPDATE_TYPES=1 cargo test --test it typescript` after changing a type.
";

/// The declarations of the four APIs' request bodies and settings, and every shape they name.
pub(super) fn providers() -> String {
    let roots = [
        anthropic::Request::describe(),
        anthropic::Block::describe(),
        settings::anthropic::Settings::describe(),
        openai_chat::Request::describe(),
        settings::openai_chat::Settings::describe(),
        openai_responses::Request::describe(),
        // What the hand-declared message (`OpenAiResponsesMessage`) names.
        openai_responses::MessageRole::describe(),
        openai_responses::MessageContent::describe(),
        settings::openai_responses::Settings::describe(),
        gemini::Request::describe(),
        settings::gemini::Settings::describe(),
    ];
    let mut decls = BTreeMap::new();
    for root in &roots {
        collect(root, &mut decls);
    }
    let mut out = HEADER.to_owned();
    for decl in decls.values() {
        out.push('\n');
        out.push_str(&declaration(decl));
    }
    out
}

/// Every named shape `ty` reaches, by name (a name declared twice must be one declaration).
fn collect(ty: &Ty, decls: &mut BTreeMap<&'static str, Decl>) {
    match ty {
        Ty::String | Ty::Number | Ty::Bool | Ty::Value | Ty::Strings(_) | Ty::Declared(_) => {}
        Ty::List(inner) | Ty::Map(inner) | Ty::Nullable(inner) => collect(inner, decls),
        Ty::Named(name, decl) => {
            if decls.contains_key(name) {
                return;
            }
            let decl = decl();
            assert_eq!(&decl.name, name);
            decls.insert(name, decl.clone());
            match &decl.body {
                Body::Object { fields, rest } => {
                    fields.iter().for_each(|f| collect(&f.ty, decls));
                    rest.iter().for_each(|r| collect(r, decls));
                }
                Body::Strings(_) => {}
                Body::Tagged { variants, others, .. } => {
                    variants.iter().flat_map(|(_, fields)| fields).for_each(|f| collect(&f.ty, decls));
                    others.iter().for_each(|o| collect(o, decls));
                }
                Body::OneOf(tys) => tys.iter().for_each(|t| collect(t, decls)),
            }
        }
    }
}

/// `export interface …` for an object, `export type … = …;` for the rest, after its doc comment.
pub(super) fn declaration(decl: &Decl) -> String {
    let mut out = doc_comment(decl.docs, "");
    let name = decl.name;
    match &decl.body {
        Body::Object { fields, rest: None } => {
            out.push_str(&format!("export interface {name} {{\n"));
            for field in fields {
                out.push_str(&doc_comment(field.docs, "    "));
                out.push_str(&format!("    {};\n", member(field)));
            }
            out.push_str("}\n");
        }
        Body::Object { fields, rest: Some(rest) } => {
            out.push_str(&format!("export type {name} = {} & Record<string, {}>;\n", inline(fields, None), ty(rest)));
        }
        Body::Strings(names) => {
            let names: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
            out.push_str(&format!("export type {name} = {};\n", names.join(" | ")));
        }
        Body::Tagged { tag, variants, others } => {
            let mut arms: Vec<String> = variants.iter().map(|(t, fields)| inline(fields, Some((tag, t)))).collect();
            arms.extend(others.iter().map(ty));
            out.push_str(&format!("export type {name} = {};\n", arms.join(" | ")));
        }
        Body::OneOf(tys) => {
            let arms: Vec<String> = tys.iter().map(ty).collect();
            out.push_str(&format!("export type {name} = {};\n", arms.join(" | ")));
        }
    }
    out
}

/// `{ tag: "t"; a: A; b?: B }`
fn inline(fields: &[Field], tag: Option<(&str, &str)>) -> String {
    let mut members: Vec<String> = tag.map(|(key, value)| format!("{key}: {value:?}")).into_iter().collect();
    members.extend(fields.iter().map(member));
    match members.is_empty() {
        true => "{}".to_owned(),
        false => format!("{{ {} }}", members.join("; ")),
    }
}

fn member(field: &Field) -> String {
    let key = match field.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') && !field.name.starts_with(|c: char| c.is_ascii_digit()) {
        true => field.name.to_owned(),
        false => format!("{:?}", field.name),
    };
    format!("{key}{}: {}", if field.optional { "?" } else { "" }, ty(&field.ty))
}

pub(super) fn ty(t: &Ty) -> String {
    match t {
        Ty::String => "string".to_owned(),
        Ty::Number => "number".to_owned(),
        Ty::Bool => "boolean".to_owned(),
        Ty::Value => "Value".to_owned(),
        Ty::List(inner) => match &**inner {
            Ty::Nullable(_) => format!("({})[]", ty(inner)),
            Ty::Strings(names) if names.len() > 1 => format!("({})[]", ty(inner)),
            _ => format!("{}[]", ty(inner)),
        },
        Ty::Strings(names) => names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(" | "),
        Ty::Map(inner) => format!("Record<string, {}>", ty(inner)),
        Ty::Nullable(inner) => format!("{} | null", ty(inner)),
        Ty::Named(name, _) | Ty::Declared(name) => (*name).to_owned(),
    }
}

/// A doc comment's lines as JSDoc, each line indented by `indent`; nothing when there are none.
fn doc_comment(lines: &[&str], indent: &str) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = format!("{indent}/**\n");
    for line in lines {
        match line.is_empty() {
            true => out.push_str(&format!("{indent} *\n")),
            false => out.push_str(&format!("{indent} * {line}\n")),
        }
    }
    out.push_str(&format!("{indent} */\n"));
    out
}
