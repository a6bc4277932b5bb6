//! `#[derive(ReadValue)]`: a struct's or an enum's reader, generated from the same declaration and the same
//! `#[serde(...)]` attributes its derived `Serialize` reads, in serde's words.
//!
//! Why: serde's derived `Deserialize` is a visitor per struct (a field-name visitor, a map
//! visitor and a sequence visitor), instantiated again for every kind of input it is read from;
//! in the `.wasm` that is about a fifth of the first-load module. The reader generated here is
//! one function per struct that walks an owned `serde_json::Value` (which every input already
//! has) through one shared loop: the object's keys in order, each looked up in a table of field
//! names, its value handed to the field's own reader. The struct's `Deserialize` goes through
//! that reader, so every existing caller keeps working.
//!
//! What it reads the same as serde's derive, word for word: the object's keys in their order
//! (the first wrong one is the one reported), `rename_all`, `rename`, `default` (on the field, on
//! the container, or `default = "path"`), `skip` / `skip_deserializing`, `deserialize_with`,
//! `deny_unknown_fields`, a missing `Option` field read as `None`, and every error text (`missing
//! field`, `unknown field … expected one of`, `invalid type: …, expected struct Name`), and a
//! struct given as a JSON array, its elements the fields in order, as serde reads it. What it does
//! not support (`flatten`, `borrow`, generics, tuple structs, externally tagged enums with data)
//! is a compile error, never a silent difference.
//!
//! Enums: of unit variants (a variant's name, or serde's one-key object), internally tagged
//! ones (`tag = "…"`) of struct and unit variants, with untagged newtype variants last (tried in
//! turn when the value is none of the tagged ones), and untagged ones of newtype variants. Two deliberate differences from serde's
//! derive, both the readers' these replaced: an internally tagged enum is not read from an
//! array, and a tag is a variant's name, never its index. `src/value_read/tests.rs` in the core holds every attribute against serde's
//! derive, side by side.
//!
//! The generated code names `crate::value_read` (the core crate's support module): the derive is
//! for the core's own types.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::{parse_macro_input, Data, DeriveInput, Error, Fields, LitStr, Type};

#[proc_macro_derive(ReadValue, attributes(serde))]
pub fn derive_read_value(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input).unwrap_or_else(Error::into_compile_error).into()
}

/// The container's attributes that change reading.
#[derive(Default, Clone)]
struct Container {
    rename_all: Option<String>,
    /// An enum's rule for its struct variants' fields.
    rename_all_fields: Option<String>,
    deny_unknown_fields: bool,
    default: bool,
    /// An internally tagged enum's tag key.
    tag: Option<String>,
    /// An enum whose variants are tried in turn.
    untagged: bool,
}

/// What a field takes when its key is absent.
enum Missing {
    /// `missing field` (or `None` for an `Option` read without `deserialize_with`).
    Required,
    /// `#[serde(default)]`
    Default,
    /// `#[serde(default = "path")]`
    Path(syn::ExprPath),
}

struct Field {
    ident: syn::Ident,
    name: String,
    ty: Type,
    skip: bool,
    /// `#[serde(flatten)]` (read): the keys no other field has.
    flatten: bool,
    missing: Missing,
    with: Option<syn::ExprPath>,
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    if !input.generics.params.is_empty() {
        return Err(Error::new_spanned(&input.generics, "ReadValue reads structs without generics or lifetimes"));
    }
    let data = match &input.data {
        Data::Struct(data) => data,
        Data::Enum(data) if container_attributes(input)?.tag.is_some() => return expand_tagged_enum(input, data),
        Data::Enum(data) if container_attributes(input)?.untagged => return expand_untagged_enum(input, data),
        Data::Enum(data) => return expand_unit_enum(input, data),
        Data::Union(_) => return Err(Error::new_spanned(&input.ident, "ReadValue reads structs and enums")),
    };
    let Fields::Named(named) = &data.fields else {
        return Err(Error::new_spanned(&input.ident, "ReadValue reads structs with named fields"));
    };
    let container = container_attributes(input)?;
    if container.rename_all_fields.is_some() {
        return Err(Error::new_spanned(&input.ident, "`rename_all_fields` is an enum's"));
    }
    let fields = named.named.iter().map(|f| field(f, container.rename_all.as_deref())).collect::<syn::Result<Vec<_>>>()?;
    let name = &input.ident;
    let names = fields.iter().filter(|f| !f.skip && !f.flatten).map(|f| &f.name);
    let body = read_fields(&fields, &container, &quote!(#name), &format!("struct {name}"), None)?;

    let impls = reader_impls(name, body);
    Ok(quote! {
        impl crate::value_read::Fields for #name {
            const FIELDS: &'static [&'static str] = &[#(#names),*];
        }

        #impls
    })
}

/// A type's `Read` (whose body reads `__input`) and its `Deserialize`, through it.
fn reader_impls(name: &syn::Ident, body: Tokens) -> Tokens {
    quote! {
        impl crate::value_read::Read for #name {
            fn read(__input: ::serde_json::Value) -> ::core::result::Result<Self, ::serde_json::Error> {
                #body
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<__D: ::serde::Deserializer<'de>>(__deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                crate::value_read::deserialize_through_value(__deserializer)
            }
        }
    }
}

/// The statements that read `fields` from `__input` (an object, or an array of the fields in
/// order; an object's key `skip` passed over) and make them into `ctor { … }`, as a function
/// returning `Result<_, serde_json::Error>`.
fn read_fields(fields: &[Field], container: &Container, ctor: &Tokens, expecting: &str, skip: Option<&str>) -> syn::Result<Tokens> {
    let read: Vec<&Field> = fields.iter().filter(|f| !f.skip && !f.flatten).collect();
    // A flattened map takes the keys no field has (an object only, as serde reads it).
    let rest = match fields.iter().filter(|f| f.flatten).collect::<Vec<_>>()[..] {
        [] => None,
        [rest] if !container.deny_unknown_fields && rest.with.is_none() => Some(rest),
        [rest, ..] => return Err(Error::new_spanned(&rest.ident, "ReadValue reads one flattened map, without deny_unknown_fields")),
    };
    let names = read.iter().map(|f| &f.name);
    let slots: Vec<syn::Ident> = (0..read.len()).map(|i| format_ident!("__field{i}")).collect();
    let types = read.iter().map(|f| &f.ty);
    let arms = read.iter().zip(&slots).enumerate().map(|(i, (f, slot))| {
        let ty = &f.ty;
        let value = match &f.with {
            Some(path) => quote!(#path(__value)?),
            None => quote!({
                #[allow(unused_imports)]
                use crate::value_read::{ReadOwn as _, ReadSerde as _};
                (&&crate::value_read::Wrap::<#ty>(::core::marker::PhantomData)).read_value(__value)?
            }),
        };
        quote!(::core::option::Option::Some(#i) => #slot = ::core::option::Option::Some(#value),)
    });
    let unknown = match (rest, container.deny_unknown_fields) {
        (Some(_), _) => quote!({
            ::serde_json::map::Map::insert(&mut __rest, __entries.key(), __value);
        }),
        (None, true) => quote!(return ::core::result::Result::Err(__entries.unknown(FIELDS))),
        (None, false) => quote!({}),
    };
    let (rest_decl, not_array) = match rest {
        Some(f) => {
            let ty = &f.ty;
            (
                quote!(let mut __rest: #ty = ::core::default::Default::default();),
                quote!(if __input.is_array() { return ::core::result::Result::Err(crate::value_read::invalid(&__input, #expecting)); }),
            )
        }
        None => (quote!(), quote!()),
    };
    let default_decl = container.default.then(|| quote!(let __default: Self = ::core::default::Default::default();));
    let in_array = format!("{expecting} with {} elements", read.len());
    let skip = match skip {
        Some(key) => quote!(::core::option::Option::Some(#key)),
        None => quote!(::core::option::Option::None),
    };
    let mut slot_of = read.iter().zip(&slots).enumerate().map(|(i, (f, s))| (f.ident.to_string(), (i, s))).collect::<std::collections::HashMap<_, _>>();
    let inits = fields.iter().map(|f| {
        let ident = &f.ident;
        let missing = missing_value(f, container);
        if f.flatten {
            return quote!(#ident: __rest);
        }
        match slot_of.remove(&f.ident.to_string()) {
            Some((index, slot)) => {
                let missing_from_array = match (&f.missing, container.default) {
                    (Missing::Required, false) => {
                        quote!(return ::core::result::Result::Err(crate::value_read::short_array(#index, #in_array)))
                    }
                    _ => missing.clone(),
                };
                quote!(#ident: match #slot {
                    ::core::option::Option::Some(__v) => __v,
                    ::core::option::Option::None if __array => #missing_from_array,
                    ::core::option::Option::None => #missing,
                })
            }
            None => quote!(#ident: #missing),
        }
    });
    Ok(quote! {
        const FIELDS: &[&str] = &[#(#names),*];
        #not_array
        #rest_decl
        let mut __entries = crate::value_read::entries(__input, #expecting, FIELDS, #skip)?;
        #(let mut #slots: ::core::option::Option<#types> = ::core::option::Option::None;)*
        while let ::core::option::Option::Some((__index, __value)) = __entries.next(FIELDS) {
            match __index {
                #(#arms)*
                _ => #unknown,
            }
        }
        let __array = __entries.finish()?;
        #default_decl
        ::core::result::Result::Ok(#ctor { #(#inits,)* })
    })
}

/// An internally tagged enum (`#[serde(tag = "type")]`) of struct and unit variants: the tag
/// picks the variant, the object's other keys are a struct variant's fields (a unit variant's
/// are ignored, as serde's reader ignores them). Serde would also read an array (the tag, then
/// the fields); this reader refuses it, in serde's words for any value that is not an object.
fn expand_tagged_enum(input: &DeriveInput, data: &syn::DataEnum) -> syn::Result<Tokens> {
    let container = container_attributes(input)?;
    if container.default {
        return Err(Error::new_spanned(&input.ident, "ReadValue takes no `default` on an enum"));
    }
    let name = &input.ident;
    let key = container.tag.clone().expect("tagged");
    let mut tagged = Vec::new();
    let mut untagged = Vec::new();
    for variant in &data.variants {
        let attrs = variant_attributes(variant)?;
        match (attrs.untagged, &variant.fields) {
            (true, Fields::Unnamed(one)) if one.unnamed.len() == 1 && attrs.rename.is_none() => untagged.push((variant, one.unnamed[0].ty.clone())),
            (true, _) => return Err(Error::new_spanned(&variant.ident, "ReadValue reads an untagged variant of one type")),
            (false, _) if !untagged.is_empty() => return Err(Error::new_spanned(&variant.ident, "untagged variants come last")),
            (false, _) => tagged.push((variant, attrs)),
        }
    }
    let mut tags = Vec::new();
    let mut arms = Vec::new();
    for (index, (variant, attrs)) in tagged.iter().enumerate() {
        let ident = &variant.ident;
        tags.push(attrs.rename.clone().unwrap_or_else(|| rename_variant(&ident.unraw().to_string(), container.rename_all.as_deref())));
        // The last variant takes every index left (the tag is always one of VARIANTS).
        let pattern = match index + 1 == tagged.len() {
            true => quote!(_),
            false => quote!(#index),
        };
        let arm = match &variant.fields {
            Fields::Unit => quote!(#pattern => ::core::result::Result::Ok(#name::#ident),),
            Fields::Named(named) => {
                // The variant's own rule for its fields, else the enum's `rename_all_fields`.
                let rule = attrs.rename_all.as_deref().or(container.rename_all_fields.as_deref());
                let fields = named.named.iter().map(|f| field(f, rule)).collect::<syn::Result<Vec<_>>>()?;
                let fields_container = Container { default: false, ..container.clone() };
                let body = read_fields(&fields, &fields_container, &quote!(#name::#ident), &format!("struct variant {name}::{ident}"), Some(&key))?;
                quote!(#pattern => { #body })
            }
            Fields::Unnamed(_) => {
                return Err(Error::new_spanned(ident, "ReadValue reads a tagged enum's struct and unit variants; keep serde's derive"))
            }
        };
        arms.push(arm);
    }
    let expecting = format!("internally tagged enum {name}");
    let read_tagged = quote! {
        const VARIANTS: &[&str] = &[#(#tags),*];
        let (__index, __input) = crate::value_read::tagged(__input, #key, VARIANTS, #expecting)?;
        match __index {
            #(#arms)*
        }
    };
    // As serde reads an enum with untagged variants: the tagged ones first; when the value is
    // none of them, each untagged variant in turn.
    let body = match untagged.is_empty() {
        true => read_tagged,
        false => {
            let nothing = format!("data did not match any variant of untagged enum {name}");
            let tries = untagged_tries(name, &untagged);
            quote! {
                let __copy = __input.clone();
                let __tagged = (move || -> ::core::result::Result<Self, ::serde_json::Error> { #read_tagged })();
                if __tagged.is_ok() {
                    return __tagged;
                }
                #(#tries)*
                ::core::result::Result::Err(<::serde_json::Error as ::serde::de::Error>::custom(#nothing))
            }
        }
    };
    Ok(reader_impls(name, body))
}

/// An untagged enum (`#[serde(untagged)]`) of newtype variants: each variant's type tried in
/// turn on the value, the first that reads it; else serde's words for an untagged enum.
fn expand_untagged_enum(input: &DeriveInput, data: &syn::DataEnum) -> syn::Result<Tokens> {
    let container = container_attributes(input)?;
    if container.default || container.deny_unknown_fields || container.rename_all.is_some() || container.rename_all_fields.is_some() {
        return Err(Error::new_spanned(&input.ident, "ReadValue reads an untagged enum's variants only"));
    }
    let name = &input.ident;
    let mut variants = Vec::new();
    for variant in &data.variants {
        let attrs = variant_attributes(variant)?;
        match &variant.fields {
            Fields::Unnamed(one) if one.unnamed.len() == 1 && attrs.rename.is_none() && attrs.rename_all.is_none() => {
                variants.push((variant, one.unnamed[0].ty.clone()))
            }
            _ => return Err(Error::new_spanned(&variant.ident, "ReadValue reads an untagged enum of newtype variants")),
        }
    }
    let tries = untagged_tries(name, &variants);
    let nothing = format!("data did not match any variant of untagged enum {name}");
    let body = quote! {
        let __copy = __input;
        #(#tries)*
        ::core::result::Result::Err(<::serde_json::Error as ::serde::de::Error>::custom(#nothing))
    };
    Ok(reader_impls(name, body))
}

/// For each untagged variant, in order: its type read from a copy of `__copy`, returned when it
/// reads.
fn untagged_tries(name: &syn::Ident, variants: &[(&syn::Variant, Type)]) -> Vec<Tokens> {
    variants
        .iter()
        .map(|(variant, ty)| {
            let ident = &variant.ident;
            quote! {
                if let ::core::result::Result::Ok(__v) = {
                    #[allow(unused_imports)]
                    use crate::value_read::{ReadOwn as _, ReadSerde as _};
                    (&&crate::value_read::Wrap::<#ty>(::core::marker::PhantomData)).read_value(__copy.clone())
                } {
                    return ::core::result::Result::Ok(#name::#ident(__v));
                }
            }
        })
        .collect()
}

/// A unit variant's `#[serde(rename = "…")]`; any other variant attribute is refused.
fn variant_rename(variant: &syn::Variant) -> syn::Result<Option<String>> {
    let attrs = variant_attributes(variant)?;
    match (attrs.rename_all, attrs.untagged) {
        (None, false) => Ok(attrs.rename),
        _ => Err(Error::new_spanned(&variant.ident, "ReadValue reads a unit variant's `rename` only")),
    }
}

/// What a variant's `#[serde(...)]` says to a reader.
struct VariantAttrs {
    rename: Option<String>,
    /// The rule for the variant's fields.
    rename_all: Option<String>,
    untagged: bool,
}

/// A variant's `rename`, `rename_all` and `untagged`; any other variant attribute is refused.
fn variant_attributes(variant: &syn::Variant) -> syn::Result<VariantAttrs> {
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

/// An enum of unit variants: read from its variant's name (or, as serde's reader takes it too, an
/// object of one key, the name, whose value is null).
fn expand_unit_enum(input: &DeriveInput, data: &syn::DataEnum) -> syn::Result<Tokens> {
    let container = container_attributes(input)?;
    if container.deny_unknown_fields || container.default || container.rename_all_fields.is_some() {
        return Err(Error::new_spanned(&input.ident, "ReadValue reads an enum's `rename_all` only"));
    }
    let mut names = Vec::new();
    let mut idents = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            return Err(Error::new_spanned(&variant.ident, "ReadValue reads enums of unit variants only; keep serde's derive"));
        }
        let rename = variant_rename(variant)?;
        names.push(rename.unwrap_or_else(|| rename_variant(&variant.ident.unraw().to_string(), container.rename_all.as_deref())));
        idents.push(&variant.ident);
    }
    let name = &input.ident;
    let Some((last, rest)) = idents.split_last() else {
        return Err(Error::new_spanned(&input.ident, "ReadValue reads enums with at least one variant"));
    };
    let indices = 0..rest.len();
    let body = quote! {
        const VARIANTS: &[&str] = &[#(#names),*];
        ::core::result::Result::Ok(match crate::value_read::unit_variant(__input, VARIANTS)? {
            #(#indices => #name::#rest,)*
            _ => #name::#last,
        })
    };
    Ok(reader_impls(name, body))
}

/// A PascalCase variant name as serde's `rename_all` rule writes it.
fn rename_variant(variant: &str, rule: Option<&str>) -> String {
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

/// The value of a field whose key is absent (or that is never read).
fn missing_value(f: &Field, container: &Container) -> Tokens {
    let ident = &f.ident;
    match (&f.missing, container.default) {
        (Missing::Default, _) => quote!(::core::default::Default::default()),
        (Missing::Path(path), _) => quote!(#path()),
        (Missing::Required, true) => quote!(__default.#ident),
        (Missing::Required, false) if f.skip => quote!(::core::default::Default::default()),
        (Missing::Required, false) if f.with.is_none() && is_option(&f.ty) => quote!(::core::option::Option::None),
        (Missing::Required, false) => {
            let name = &f.name;
            quote!(return ::core::result::Result::Err(<::serde_json::Error as ::serde::de::Error>::missing_field(#name)))
        }
    }
}

/// Serde's test for a field read as `None` when absent: its type is spelled `Option<…>`.
fn is_option(ty: &Type) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().is_some_and(|s| s.ident == "Option"),
        _ => false,
    }
}

fn container_attributes(input: &DeriveInput) -> syn::Result<Container> {
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
    Ok(container)
}

fn field(f: &syn::Field, rename_all: Option<&str>) -> syn::Result<Field> {
    let ident = f.ident.clone().expect("named fields");
    let mut rename = None;
    let mut skip = false;
    let mut missing = Missing::Required;
    let mut with = None;
    let mut flatten = false;
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
                // The writer's business.
            } else if meta.path.is_ident("skip_serializing_if") || meta.path.is_ident("serialize_with") {
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
    Ok(Field { ident, name, ty: f.ty.clone(), skip, flatten, missing, with })
}

/// A `rename_all = "…"` rule, one of those serde knows.
fn rename_rule(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<String> {
    let rule = meta.value()?.parse::<LitStr>()?.value();
    match RULES.contains(&rule.as_str()) {
        true => Ok(rule),
        false => Err(meta.error(format!("unknown rename rule {rule:?}"))),
    }
}

const RULES: &[&str] =
    &["lowercase", "UPPERCASE", "PascalCase", "camelCase", "snake_case", "SCREAMING_SNAKE_CASE", "kebab-case", "SCREAMING-KEBAB-CASE"];

/// A snake_case field name as serde's `rename_all` rule writes it.
fn rename_field(field: &str, rule: Option<&str>) -> String {
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
