//! The reader: a type's `Read` (and its `Deserialize`, through it), generated from its
//! declaration as `crate::value_read` takes it — see the crate's docs for what it reads and how.

use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Error, Fields, Type};

use crate::attrs::{container_attributes, field, is_option, rename_variant, variant_attributes, variant_rename, Container, Field, Missing};

pub(crate) fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
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
    let expecting = container.expecting.clone().unwrap_or_else(|| format!("struct {name}"));
    let body = read_fields(&fields, &container, &quote!(#name), &expecting, None)?;

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
    let refuse_array = quote!(if __input.is_array() { return ::core::result::Result::Err(crate::value_read::invalid(&__input, #expecting)); });
    let (rest_decl, not_array) = match rest {
        Some(f) => {
            let ty = &f.ty;
            (quote!(let mut __rest: #ty = ::core::default::Default::default();), refuse_array)
        }
        None if container.object_only => (quote!(), refuse_array),
        None => (quote!(), quote!()),
    };
    let default_decl = container.default.then(|| quote!(let __default: Self = ::core::default::Default::default();));
    // (With its own `expecting`, serde says only that when an array is short.)
    let in_array = match container.expecting {
        Some(_) => expecting.to_owned(),
        None => format!("{expecting} with {} elements", read.len()),
    };
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
    if container.default || container.expecting.is_some() {
        return Err(Error::new_spanned(&input.ident, "ReadValue takes no `default` or `expecting` on an enum"));
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
    if container.default || container.deny_unknown_fields || container.rename_all.is_some() || container.rename_all_fields.is_some() || container.expecting.is_some() {
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

/// An enum of unit variants: read from its variant's name (or, as serde's reader takes it too, an
/// object of one key, the name, whose value is null).
fn expand_unit_enum(input: &DeriveInput, data: &syn::DataEnum) -> syn::Result<Tokens> {
    let container = container_attributes(input)?;
    if container.deny_unknown_fields || container.default || container.rename_all_fields.is_some() || container.expecting.is_some() {
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
