//! The shape: a type's `crate::shape::Describe` (its JSON keys, which may be absent, each value's
//! shape, its tags), generated when the type asks for it with `#[shape]`, from the same
//! attributes its reader is generated from — so that what the package declares a type to be
//! (its TypeScript, rendered from the shape) is what the reader reads.
//!
//! The shape is the JSON as it is sent and read back: a field the writer never writes
//! (`skip_serializing`: a setting sent as a header, not in the body) is not in it, and is
//! declared where the input that takes it is.
//!
//! A field is optional when the reader takes the object without it: a `default`, the
//! container's `default`, or an `Option` read without `deserialize_with`. An `Option` field the
//! writer leaves out (`skip_serializing_if`) is its inner shape; one it writes as null is
//! nullable. `#[shape(declared = "Name")]` on a field (or an untagged variant) names a shape
//! declared elsewhere in place of what its Rust type holds (a value kept as any JSON that the
//! API gives a shape), `#[shape(one_of("a", …))]` the strings a `String` takes, and
//! `#[shape(object)]` an object of any values where the Rust type holds any JSON value. On a
//! tagged enum's struct variant, `declared` names the variant's whole shape.

use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Error, Fields};

use crate::attrs::{container_attributes, field, is_option, leaf, rename_variant, variant_attributes, Container, Field, Leaf, Missing};

/// The `Describe` impl, or nothing when the type carries no `#[shape]`.
pub(crate) fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let container = container_attributes(input)?;
    let Some(name) = &container.shape else { return Ok(quote!()) };
    let body = match &input.data {
        Data::Struct(data) => {
            let Fields::Named(named) = &data.fields else { unreachable!("refused by the reader") };
            let fields = named.named.iter().map(|f| field(f, container.rename_all.as_deref())).collect::<syn::Result<Vec<_>>>()?;
            object(&fields, &container)
        }
        Data::Enum(data) if container.tag.is_some() => tagged(data, &container)?,
        Data::Enum(data) if container.untagged => {
            let tys = data.variants.iter().map(|v| Ok(with_leaf(describe(newtype(v)?), leaf(&v.attrs)?.as_ref()))).collect::<syn::Result<Vec<_>>>()?;
            quote!(crate::shape::Body::OneOf(::std::vec![#(#tys),*]))
        }
        Data::Enum(data) => {
            let names = data
                .variants
                .iter()
                .map(|v| Ok(variant_attributes(v)?.rename.unwrap_or_else(|| rename_variant(&v.ident.unraw().to_string(), container.rename_all.as_deref()))))
                .collect::<syn::Result<Vec<_>>>()?;
            quote!(crate::shape::Body::Strings(::std::vec![#(#names),*]))
        }
        Data::Union(_) => unreachable!("refused by the reader"),
    };
    let ident = &input.ident;
    let docs = &container.docs;
    Ok(quote! {
        impl crate::shape::Describe for #ident {
            fn describe() -> crate::shape::Ty {
                fn decl() -> crate::shape::Decl {
                    crate::shape::Decl { name: #name, docs: &[#(#docs),*], body: #body }
                }
                crate::shape::Ty::Named(#name, decl)
            }
        }
    })
}

/// A struct's (or a struct variant's) object: its read fields, and the flattened map's shape as
/// the other keys'.
fn object(fields: &[Field], container: &Container) -> Tokens {
    let shapes = fields.iter().filter(|f| !f.skip && !f.flatten && !f.unwritten).map(|f| field_shape(f, container));
    let rest = match fields.iter().find(|f| f.flatten) {
        Some(f) => {
            let ty = &f.ty;
            quote!(::core::option::Option::Some(match <#ty as crate::shape::Describe>::describe() {
                crate::shape::Ty::Map(__each) => *__each,
                __other => __other,
            }))
        }
        None => quote!(::core::option::Option::None),
    };
    quote!(crate::shape::Body::Object { fields: ::std::vec![#(#shapes),*], rest: #rest })
}

fn field_shape(f: &Field, container: &Container) -> Tokens {
    let name = &f.name;
    let docs = &f.docs;
    let option = is_option(&f.ty);
    let optional = !matches!(f.missing, Missing::Required) || container.default || (option && f.with.is_none());
    let ty = with_leaf(describe(&f.ty), f.leaf.as_ref());
    let ty = match f.skip_if {
        true => quote!(#ty.unnull()),
        false => ty,
    };
    quote!(crate::shape::Field { name: #name, docs: &[#(#docs),*], ty: #ty, optional: #optional })
}

/// `ty` with its values' shape replaced by `leaf`, when there is one.
fn with_leaf(ty: Tokens, leaf: Option<&Leaf>) -> Tokens {
    match leaf {
        None => ty,
        Some(Leaf::Declared(name)) => quote!(#ty.with_leaf(crate::shape::Ty::Declared(#name))),
        Some(Leaf::Object) => quote!(#ty.with_leaf(crate::shape::Ty::Map(::std::boxed::Box::new(crate::shape::Ty::Value)))),
        Some(Leaf::OneOf(names)) => quote!(#ty.with_leaf(crate::shape::Ty::Strings(::std::vec![#(#names),*]))),
    }
}

fn describe(ty: &syn::Type) -> Tokens {
    quote!(<#ty as crate::shape::Describe>::describe())
}

/// An internally tagged enum: each tagged variant's tag and fields, then its untagged variants.
fn tagged(data: &syn::DataEnum, container: &Container) -> syn::Result<Tokens> {
    let tag = container.tag.as_deref().expect("tagged");
    let fields_container = Container { default: false, ..container.clone() };
    let mut variants = Vec::new();
    let mut others = Vec::new();
    for variant in &data.variants {
        let attrs = variant_attributes(variant)?;
        if attrs.untagged {
            others.push(with_leaf(describe(newtype(variant)?), leaf(&variant.attrs)?.as_ref()));
            continue;
        }
        // A variant whose shape is declared elsewhere (one Rust variant the API takes in two
        // shapes) joins the union by that name.
        if let Some(Leaf::Declared(declared)) = leaf(&variant.attrs)? {
            others.insert(0, quote!(crate::shape::Ty::Declared(#declared)));
            continue;
        }
        let name = attrs.rename.clone().unwrap_or_else(|| rename_variant(&variant.ident.unraw().to_string(), container.rename_all.as_deref()));
        let shapes = match &variant.fields {
            Fields::Unit => Vec::new(),
            Fields::Named(named) => {
                let rule = attrs.rename_all.as_deref().or(container.rename_all_fields.as_deref());
                let fields = named.named.iter().map(|f| field(f, rule)).collect::<syn::Result<Vec<_>>>()?;
                fields.iter().filter(|f| !f.skip && !f.flatten && !f.unwritten).map(|f| field_shape(f, &fields_container)).collect()
            }
            Fields::Unnamed(_) => unreachable!("refused by the reader"),
        };
        variants.push(quote!((#name, ::std::vec![#(#shapes),*])));
    }
    Ok(quote!(crate::shape::Body::Tagged { tag: #tag, variants: ::std::vec![#(#variants),*], others: ::std::vec![#(#others),*] }))
}

/// A newtype variant's one type.
fn newtype(variant: &syn::Variant) -> syn::Result<&syn::Type> {
    match &variant.fields {
        Fields::Unnamed(one) if one.unnamed.len() == 1 => Ok(&one.unnamed[0].ty),
        _ => Err(Error::new_spanned(&variant.ident, "a newtype variant")),
    }
}
