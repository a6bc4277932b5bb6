//! What a declaration's `#[serde(...)]` (and `#[shape(...)]`) attributes say, parsed once for
//! both the reader (`read`) and the shape (`shape`): names as serde's rename rules write them,
//! what a missing key takes, and every attribute neither can honour refused at compile time.

use syn::ext::IdentExt;
use syn::{DeriveInput, Error, LitStr, Type};

/// The container's attributes that change reading.
#[derive(Default, Clone)]
pub(crate) struct Container {
    pub(crate) rename_all: Option<String>,
    /// An enum's rule for its struct variants' fields.
    pub(crate) rename_all_fields: Option<String>,
    pub(crate) deny_unknown_fields: bool,
    pub(crate) default: bool,
    /// An internally tagged enum's tag key.
    pub(crate) tag: Option<String>,
    /// An enum whose variants are tried in turn.
    pub(crate) untagged: bool,
    /// `expecting = "…"`: what a struct's errors say was expected (serde's `struct Name`
    /// otherwise).
    pub(crate) expecting: Option<String>,
    /// `#[read(object)]`: read from an object only; an array (which serde's derive reads as the
    /// fields in order) is refused in serde's words.
    pub(crate) object_only: bool,
    /// `#[shape]` or `#[shape(name = "…")]`: the name its shape is declared under (the type's
    /// own when not given); `None` when the type is not described.
    pub(crate) shape: Option<String>,
    /// Its doc comment's lines.
    pub(crate) docs: Vec<String>,
}

/// What a field takes when its key is absent.
pub(crate) enum Missing {
    /// `missing field` (or `None` for an `Option` read without `deserialize_with`).
    Required,
    /// `#[serde(default)]`
    Default,
    /// `#[serde(default = "path")]`
    Path(syn::ExprPath),
}

pub(crate) struct Field {
    pub(crate) ident: syn::Ident,
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) skip: bool,
    /// `#[serde(flatten)]` (read): the keys no other field has.
    pub(crate) flatten: bool,
    pub(crate) missing: Missing,
    pub(crate) with: Option<syn::ExprPath>,
    /// `skip_serializing_if`: the writer leaves it out rather than writing null.
    pub(crate) skip_if: bool,
    /// `skip_serializing`: read, never written (a setting sent as a header, not in the body).
    pub(crate) unwritten: bool,
    /// `#[shape(declared = "…")]` (the shape declared by that name) or `#[shape(one_of("a", …))]`
    /// (one of these strings): what its value (or its list's, or its option's) is.
    pub(crate) leaf: Option<Leaf>,
    pub(crate) docs: Vec<String>,
}

/// A unit variant's `#[serde(rename = "…")]`; any other variant attribute is refused.
pub(crate) fn variant_rename(variant: &syn::Variant) -> syn::Result<Option<String>> {
    let attrs = variant_attributes(variant)?;
    match (attrs.rename_all, attrs.untagged) {
        (None, false) => Ok(attrs.rename),
        _ => Err(Error::new_spanned(&variant.ident, "ReadValue reads a unit variant's `rename` only")),
    }
}

/// What a variant's `#[serde(...)]` says to a reader.
pub(crate) struct VariantAttrs {
    pub(crate) rename: Option<String>,
    /// The rule for the variant's fields.
    pub(crate) rename_all: Option<String>,
    pub(crate) untagged: bool,
}

/// A variant's `rename`, `rename_all` and `untagged`; any other variant attribute is refused.
pub(crate) fn variant_attributes(variant: &syn::Variant) -> syn::Result<VariantAttrs> {
    let mut attrs = VariantAttrs { rename: None, rename_all: None, untagged: false };
    for attr in variant.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                attrs.rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("rename_all") {
                attrs.rename_all = Some(rename_rule(&meta)?);
            } else if meta.path.is_ident("untagged") {
                attrs.untagged = true;
            } else {
                return Err(meta.error("ReadValue does not read this variant attribute; keep serde's derive"));
            }
            Ok(())
        })?;
    }
    Ok(attrs)
}

/// A PascalCase variant name as serde's `rename_all` rule writes it.
pub(crate) fn rename_variant(variant: &str, rule: Option<&str>) -> String {
    let snake = || {
        let mut out = String::new();
        for (i, c) in variant.char_indices() {
            if i > 0 && c.is_uppercase() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    };
    match rule {
        None | Some("PascalCase") => variant.to_owned(),
        Some("lowercase") => variant.to_ascii_lowercase(),
        Some("UPPERCASE") => variant.to_ascii_uppercase(),
        Some("camelCase") => variant[..1].to_ascii_lowercase() + &variant[1..],
        Some("snake_case") => snake(),
        Some("SCREAMING_SNAKE_CASE") => snake().to_ascii_uppercase(),
        Some("kebab-case") => snake().replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => snake().replace('_', "-").to_ascii_uppercase(),
        Some(other) => unreachable!("rule {other} refused when read"),
    }
}

/// Serde's test for a field read as `None` when absent: its type is spelled `Option<…>`.
pub(crate) fn is_option(ty: &Type) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().is_some_and(|s| s.ident == "Option"),
        _ => false,
    }
}

pub(crate) fn container_attributes(input: &DeriveInput) -> syn::Result<Container> {
    let mut container = Container::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") || meta.path.is_ident("rename_all_fields") {
                let rule = rename_rule(&meta)?;
                match meta.path.is_ident("rename_all") {
                    true => container.rename_all = Some(rule),
                    false => container.rename_all_fields = Some(rule),
                }
            } else if meta.path.is_ident("tag") {
                container.tag = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("untagged") {
                container.untagged = true;
            } else if meta.path.is_ident("expecting") {
                container.expecting = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("deny_unknown_fields") {
                container.deny_unknown_fields = true;
            } else if meta.path.is_ident("default") {
                if meta.input.peek(syn::Token![=]) {
                    return Err(meta.error("ReadValue takes a container's `default` without a path"));
                }
                container.default = true;
            } else {
                return Err(meta.error("ReadValue does not read this container attribute; keep serde's derive"));
            }
            Ok(())
        })?;
    }
    container.docs = docs(&input.attrs)?;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("read")) {
        attr.parse_nested_meta(|meta| match meta.path.is_ident("object") {
            true => Ok(container.object_only = true),
            false => Err(meta.error("a reader takes `#[read(object)]` only")),
        })?;
    }
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("shape")) {
        let mut name = input.ident.unraw().to_string();
        if !matches!(attr.meta, syn::Meta::Path(_)) {
            attr.parse_nested_meta(|meta| match meta.path.is_ident("name") {
                true => Ok(name = meta.value()?.parse::<LitStr>()?.value()),
                false => Err(meta.error("a type's shape takes `name = \"…\"` only")),
            })?;
        }
        container.shape = Some(name);
    }
    Ok(container)
}

/// The lines of a doc comment (`///` lines are `#[doc = " …"]`), each without its first space.
pub(crate) fn docs(attrs: &[syn::Attribute]) -> syn::Result<Vec<String>> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        let syn::Meta::NameValue(nv) = &attr.meta else { continue };
        let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) = &nv.value else {
            return Err(Error::new_spanned(attr, "a doc comment's text"));
        };
        for line in text.value().lines() {
            lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
        }
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    Ok(lines)
}

pub(crate) fn field(f: &syn::Field, rename_all: Option<&str>) -> syn::Result<Field> {
    let ident = f.ident.clone().expect("named fields");
    let mut rename = None;
    let mut skip = false;
    let mut missing = Missing::Required;
    let mut with = None;
    let mut flatten = false;
    let mut skip_if = false;
    let mut unwritten = false;
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("default") {
                missing = match meta.input.peek(syn::Token![=]) {
                    true => Missing::Path(meta.value()?.parse::<LitStr>()?.parse()?),
                    false => Missing::Default,
                };
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                skip = true;
            } else if meta.path.is_ident("deserialize_with") {
                with = Some(meta.value()?.parse::<LitStr>()?.parse()?);
            } else if meta.path.is_ident("flatten") {
                // Read only when it is not: serde reads a flattened field that is not
                // deserialized as any other skipped field.
                flatten = true;
            } else if meta.path.is_ident("skip_serializing") {
                unwritten = true;
            } else if meta.path.is_ident("skip_serializing_if") {
                meta.value()?.parse::<LitStr>()?;
                skip_if = true;
            } else if meta.path.is_ident("serialize_with") {
                meta.value()?.parse::<LitStr>()?;
            } else {
                return Err(meta.error("ReadValue does not read this field attribute; keep serde's derive"));
            }
            Ok(())
        })?;
    }
    // A flattened field that is not read is skipped as any other.
    let flatten = flatten && !skip;
    let plain = ident.unraw().to_string();
    let name = rename.unwrap_or_else(|| rename_field(&plain, rename_all));
    Ok(Field { ident, name, ty: f.ty.clone(), skip, flatten, missing, with, skip_if, unwritten, leaf: leaf(&f.attrs)?, docs: docs(&f.attrs)? })
}

/// What a field's (or an untagged variant's) value is, when its Rust type does not say.
#[derive(Clone)]
pub(crate) enum Leaf {
    Declared(String),
    OneOf(Vec<String>),
    /// An object of any values.
    Object,
}

/// A field's or a variant's `#[shape(declared = "…")]` or `#[shape(one_of("a", …))]`.
pub(crate) fn leaf(attrs: &[syn::Attribute]) -> syn::Result<Option<Leaf>> {
    let mut leaf = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("shape")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("declared") {
                leaf = Some(Leaf::Declared(meta.value()?.parse::<LitStr>()?.value()));
            } else if meta.path.is_ident("object") {
                leaf = Some(Leaf::Object);
            } else if meta.path.is_ident("one_of") {
                let content;
                syn::parenthesized!(content in meta.input);
                let names = syn::punctuated::Punctuated::<LitStr, syn::Token![,]>::parse_terminated(&content)?;
                leaf = Some(Leaf::OneOf(names.iter().map(LitStr::value).collect()));
            } else {
                return Err(meta.error("a field's shape takes `declared = \"…\"`, `one_of(\"…\", …)` or `object`"));
            }
            Ok(())
        })?;
    }
    Ok(leaf)
}

/// A `rename_all = "…"` rule, one of those serde knows.
pub(crate) fn rename_rule(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<String> {
    let rule = meta.value()?.parse::<LitStr>()?.value();
    match RULES.contains(&rule.as_str()) {
        true => Ok(rule),
        false => Err(meta.error(format!("unknown rename rule {rule:?}"))),
    }
}

const RULES: &[&str] =
    &["lowercase", "UPPERCASE", "PascalCase", "camelCase", "snake_case", "SCREAMING_SNAKE_CASE", "kebab-case", "SCREAMING-KEBAB-CASE"];

/// A snake_case field name as serde's `rename_all` rule writes it.
pub(crate) fn rename_field(field: &str, rule: Option<&str>) -> String {
    let pascal = || {
        let mut out = String::new();
        let mut capitalize = true;
        for c in field.chars() {
            if c == '_' {
                capitalize = true;
            } else if capitalize {
                out.push(c.to_ascii_uppercase());
                capitalize = false;
            } else {
                out.push(c);
            }
        }
        out
    };
    match rule {
        None | Some("lowercase") | Some("snake_case") => field.to_owned(),
        Some("UPPERCASE") | Some("SCREAMING_SNAKE_CASE") => field.to_ascii_uppercase(),
        Some("PascalCase") => pascal(),
        Some("camelCase") => {
            let p = pascal();
            p[..1].to_ascii_lowercase() + &p[1..]
        }
        Some("kebab-case") => field.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => field.replace('_', "-").to_ascii_uppercase(),
        Some(other) => unreachable!("rule {other} refused when read"),
    }
}

#[cfg(test)]
mod tests {
    use super::{rename_field, rename_variant};

    /// A field (`max_tokens`) and a variant (`BetweenTools`) under every rule, as serde writes them.
    #[test]
    fn names_are_renamed_as_serde_renames_them() {
        let cases = [
            (None, "max_tokens", "BetweenTools"),
            (Some("camelCase"), "maxTokens", "betweenTools"),
            (Some("PascalCase"), "MaxTokens", "BetweenTools"),
            (Some("snake_case"), "max_tokens", "between_tools"),
            (Some("SCREAMING_SNAKE_CASE"), "MAX_TOKENS", "BETWEEN_TOOLS"),
            (Some("kebab-case"), "max-tokens", "between-tools"),
            (Some("SCREAMING-KEBAB-CASE"), "MAX-TOKENS", "BETWEEN-TOOLS"),
            (Some("lowercase"), "max_tokens", "betweentools"),
            (Some("UPPERCASE"), "MAX_TOKENS", "BETWEENTOOLS"),
        ];
        for (rule, field, variant) in cases {
            assert_eq!((rename_field("max_tokens", rule).as_str(), rename_variant("BetweenTools", rule).as_str()), (field, variant), "{rule:?}");
        }
        assert_eq!(rename_field("x", Some("camelCase")), "x");
    }
}
