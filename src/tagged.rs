//! Internally tagged enums of newtype variants, read without serde's buffered content.
//!
//! A derived `#[serde(tag = "…")]` enum first copies the whole object into serde's private
//! buffer (any key may come first, the tag among them), then reads the variant from that copy:
//! the buffering code is instantiated once per variant type, and every string is copied twice.
//! The enums here read the object as a JSON value instead, look its tag up, and hand the value to
//! the variant's own type (which ignores the tag key as it ignores any key it does not know).
//! Serialization stays derived. What each enum's reading removed from the `.wasm` is in
//! BENCHMARKS.md.

/// Declares an internally tagged enum whose variants each hold one type, once: each variant
/// with its tag (`"usage_anchor" => UsageAnchor(UsageAnchor)`), from which come the writer
/// (serde's derived `Serialize`, each variant renamed to its tag), the reader (the tag looked up,
/// the value handed to the variant's type, as [`deserialize_tagged`] reads), `kind()` (a value's
/// tag), `KINDS` (every tag, in order) and `TYPES` (each variant's type by name). The container's `serde` attribute comes first.
macro_rules! newtype_enum {
    (
        #[serde(tag = $key:literal)]
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $tag:literal => $variant:ident($ty:ty)),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(serde::Serialize)]
        #[serde(tag = $key)]
        $vis enum $name {
            $($(#[$vmeta])* #[serde(rename = $tag)] $variant($ty)),+
        }

        impl $name {
            /// Every tag, in the order the variants are declared.
            pub const KINDS: &'static [&'static str] = &[$($tag),+];

            /// Each variant's type, by its name, in the same order (the TypeScript declarations
            /// are generated from these and [`Self::KINDS`]).
            pub const TYPES: &'static [&'static str] = &[$(stringify!($ty)),+];

            /// This value's tag.
            pub fn kind(&self) -> &'static str {
                match self {
                    $($name::$variant(_) => $tag),+
                }
            }
        }

        $crate::tagged::deserialize_tagged!($name, $key, { $($tag => $variant($ty)),+ });
    };
}
pub(crate) use newtype_enum;

/// Implements `Deserialize` for `$enum`, whose variants each hold one type, tagged by `$key`.
macro_rules! deserialize_tagged {
    ($enum:ident, $key:literal, { $($tag:literal => $variant:ident($ty:ty)),+ $(,)? }) => {
        impl $enum {
            /// Reads the variant `tag` names from `value` (an object whose tag is `tag`): for a
            /// caller that has looked the tag up already.
            pub fn from_tagged(tag: &str, value: serde_json::Value) -> Result<Self, serde_json::Error> {
                use serde::de::Error as _;
                const VARIANTS: &[&str] = &[$($tag),+];
                match tag {
                    // A generated reader's type is read by it (not through its `Deserialize`,
                    // which would rebuild the value first).
                    $($tag => {
                        #[allow(unused_imports)]
                        use $crate::value_read::{ReadOwn as _, ReadSerde as _};
                        (&&$crate::value_read::Wrap::<$ty>(::core::marker::PhantomData)).read_value(value).map($enum::$variant)
                    })+
                    other => Err(serde_json::Error::unknown_variant(other, VARIANTS)),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                let value = serde_json::Value::deserialize(deserializer)?;
                let tag = match value.get($key) {
                    Some(serde_json::Value::String(tag)) => tag.clone(),
                    Some(other) => return Err(D::Error::invalid_type($crate::value_read::unexpected(other), &"variant identifier")),
                    None if !value.is_object() => {
                        return Err(D::Error::invalid_type(
                            $crate::value_read::unexpected(&value),
                            &concat!("internally tagged enum ", stringify!($enum)),
                        ))
                    }
                    None => return Err(D::Error::missing_field($key)),
                };
                $enum::from_tagged(&tag, value).map_err(D::Error::custom)
            }
        }
    };
}
pub(crate) use deserialize_tagged;

/// An internally tagged object (`{"type": "enabled", "budget_tokens": 1024}`) in the externally
/// tagged form (`{"enabled": {"budget_tokens": 1024}}`), which a derived enum of serde's default
/// representation reads without buffering the object first: for enums of struct and unit
/// variants, read through the same variants declared in that representation ([`tagged_enum`]).
/// `variants` are the enum's variants by name, each with whether it is a unit, written by the
/// `rename_all` rule `rule`; a unit variant's other keys are dropped, as serde's internally
/// tagged reader ignores them. Errors are worded as that reader words them (`expecting` names
/// the enum: `internally tagged enum Thinking`).
pub(crate) fn externally_tagged(
    value: serde_json::Value,
    key: &'static str,
    variants: &[(&str, bool)],
    rule: &str,
    expecting: &'static str,
) -> Result<serde_json::Value, serde_json::Error> {
    use serde::de::Error as _;
    use serde_json::Value;
    let Value::Object(mut map) = value else {
        return Err(serde_json::Error::invalid_type(crate::value_read::unexpected(&value), &expecting));
    };
    let tag = match map.remove(key) {
        Some(Value::String(tag)) => tag,
        Some(other) => return Err(serde_json::Error::invalid_type(crate::value_read::unexpected(&other), &"variant identifier")),
        None => return Err(serde_json::Error::missing_field(key)),
    };
    let unit = variants.iter().any(|(variant, unit)| *unit && rename_variant(variant, rule) == tag);
    let fields = if unit { Value::Null } else { Value::Object(map) };
    Ok(Value::Object(std::iter::once((tag, fields)).collect()))
}

/// Declares an internally tagged enum of struct and unit variants once, and makes from that one
/// declaration both its writer (serde's derived `Serialize`, internally tagged by `tag`) and its
/// reader (serde's derived reader of the same variants in the externally tagged form, which needs
/// no buffering — see [`externally_tagged`]). The reader's variants, fields and field attributes
/// are the declaration's own, so they cannot drift apart; its type has the enum's name (in a
/// module of its own), so every error names the enum as serde's internally tagged reader would.
/// The container's `serde` attribute comes first, the enum's other attributes after it.
///
/// ```text
/// tagged_enum! {
///     #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
///     #[derive(Debug, Clone, PartialEq)]
///     pub enum Thinking { Enabled { budget_tokens: u32 }, Disabled }
/// }
/// ```
macro_rules! tagged_enum {
    (
        #[serde(tag = $key:literal, rename_all = $rule:literal $(, $extra:ident)*)]
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident $({ $($(#[$fmeta:meta])* $field:ident : $fty:ty),* $(,)? })?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(serde::Serialize)]
        #[serde(tag = $key, rename_all = $rule $(, $extra)*)]
        $vis enum $name {
            $($(#[$vmeta])* $variant $({ $($(#[$fmeta])* $field: $fty),* })?),*
        }

        const _: () = {
            #[allow(unused_imports)]
            mod wire {
                use super::*;
                #[derive(serde::Deserialize)]
                #[serde(rename_all = $rule $(, $extra)*)]
                pub(super) enum $name {
                    $($(#[$vmeta])* $variant $({ $($(#[$fmeta])* $field: $fty),* })?),*
                }
            }

            impl From<wire::$name> for $name {
                fn from(read: wire::$name) -> Self {
                    match read {
                        $(wire::$name::$variant $({ $($field),* })? => $name::$variant $({ $($field),* })?),*
                    }
                }
            }

            impl<'de> serde::Deserialize<'de> for $name {
                fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    use serde::de::Error as _;
                    const VARIANTS: &[(&str, bool)] = &[$((stringify!($variant), $crate::tagged::tagged_enum!(@unit $({ $($field)* })?))),*];
                    let value = serde_json::Value::deserialize(deserializer)?;
                    let value = $crate::tagged::externally_tagged(value, $key, VARIANTS, $rule, concat!("internally tagged enum ", stringify!($name)))
                        .map_err(D::Error::custom)?;
                    <wire::$name as serde::Deserialize>::deserialize(value).map($name::from).map_err(D::Error::custom)
                }
            }
        };
    };
    (@unit) => { true };
    (@unit { $($field:ident)* }) => { false };
}
pub(crate) use tagged_enum;

/// A variant's name as serde's `rename_all` rule writes it (`BetweenTools` is `between_tools`
/// in `snake_case`, `betweenTools` in `camelCase`).
pub(crate) fn rename_variant(variant: &str, rule: &str) -> String {
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
        "lowercase" => variant.to_ascii_lowercase(),
        "UPPERCASE" => variant.to_ascii_uppercase(),
        "PascalCase" => variant.to_owned(),
        "camelCase" => variant[..1].to_ascii_lowercase() + &variant[1..],
        "snake_case" => snake(),
        "SCREAMING_SNAKE_CASE" => snake().to_ascii_uppercase(),
        "kebab-case" => snake().replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => snake().replace('_', "-").to_ascii_uppercase(),
        // No other rule gets here: the enum's own derive takes the same literal, and serde's
        // derive refuses a rule it does not know when the crate compiles.
        _ => variant.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, PartialEq, serde::Serialize, Deserialize)]
    struct A {
        x: u32,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct B {
        #[serde(default)]
        y: Option<String>,
    }
    #[derive(Debug, PartialEq)]
    enum E {
        A(A),
        B(B),
    }
    deserialize_tagged!(E, "kind", { "a" => A(A), "b" => B(B) });

    #[derive(Debug, PartialEq, serde::Serialize, Deserialize)]
    struct C {
        z: bool,
    }
    newtype_enum! {
        #[serde(tag = "kind")]
        #[derive(Debug, PartialEq)]
        enum N {
            "a" => A(A),
            "see_also" => C(C),
        }
    }

    #[test]
    fn one_newtype_declaration_writes_reads_and_names_its_tags() {
        let values = [N::A(A { x: 1 }), N::C(C { z: true })];
        let written: Vec<String> = values.iter().map(|v| serde_json::to_string(v).unwrap()).collect();
        assert_eq!(written, [r#"{"kind":"a","x":1}"#, r#"{"kind":"see_also","z":true}"#]);
        for (value, text) in values.iter().zip(&written) {
            assert_eq!(&serde_json::from_str::<N>(text).unwrap(), value);
        }
        assert_eq!(values.iter().map(N::kind).collect::<Vec<_>>(), ["a", "see_also"]);
        assert_eq!(N::KINDS, ["a", "see_also"]);
        assert_eq!(N::deserialize(json!({"kind": "c", "z": true})).unwrap_err().to_string(), "unknown variant `c`, expected `a` or `see_also`");
    }

    #[test]
    fn the_tag_picks_the_variant_wherever_it_stands() {
        assert_eq!(serde_json::from_str::<E>(r#"{"kind":"a","x":1}"#).unwrap(), E::A(A { x: 1 }));
        assert_eq!(serde_json::from_str::<E>(r#"{"x":2,"kind":"a"}"#).unwrap(), E::A(A { x: 2 }));
        assert_eq!(E::deserialize(&json!({"y": "z", "kind": "b"})).unwrap(), E::B(B { y: Some("z".into()) }));
    }

    /// The same enum as serde derives it.
    #[derive(Debug, Deserialize)]
    #[serde(tag = "kind")]
    #[allow(dead_code)]
    enum Derived {
        #[serde(rename = "a")]
        A(A),
        #[serde(rename = "b")]
        B(B),
    }

    #[test]
    fn errors_read_as_the_derived_enum_s() {
        // (Serde also reads an array as the tag then the fields; an array is refused here.)
        for input in [json!({"kind": "c"}), json!({"x": 1}), json!({"kind": "a"}), json!({"kind": 3}), json!("x"), json!(null), json!(true)] {
            let ours = E::deserialize(&input).unwrap_err().to_string().replace("enum E", "enum Derived");
            assert_eq!(ours, Derived::deserialize(&input).unwrap_err().to_string(), "{input}");
        }
    }

    // An enum of struct and unit variants declared once (its reader the externally tagged form
    // of the same declaration), and the same enum as serde derives it internally tagged.
    tagged_enum! {
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        #[derive(Debug, PartialEq)]
        enum Shape {
            Circle {
                r: u32,
                #[serde(default)]
                label: Option<String>,
            },
            Dot,
            TwoWords,
        }
    }
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    enum DerivedShape {
        Circle {
            r: u32,
            #[serde(default)]
            label: Option<String>,
        },
        Dot,
        TwoWords,
    }

    #[test]
    fn one_declaration_reads_as_the_derived_internally_tagged_enum() {
        let inputs = [
            json!({"kind": "circle", "r": 1}), json!({"r": 2, "label": "x", "kind": "circle"}), json!({"kind": "dot"}),
            json!({"kind": "dot", "r": 1}), json!({"kind": "circle"}), json!({"kind": "circle", "r": 1, "x": 0}),
            json!({"kind": "circle", "r": "1"}), json!({"kind": "square"}), json!({"r": 1}), json!({"kind": null}),
            json!("dot"), json!(null), json!(7), json!({"kind": "two_words"}), json!({"kind": "two_words", "r": 1}),
            json!({"kind": "twoWords"}), json!({"kind": "TwoWords"}),
        ];
        for input in inputs {
            let ours = Shape::deserialize(&input).map(|s| format!("{s:?}")).map_err(|e| e.to_string().replace("enum Shape", "enum DerivedShape"));
            let derived = DerivedShape::deserialize(&input).map(|s| format!("{s:?}")).map_err(|e| e.to_string());
            assert_eq!(ours, derived, "{input}");
        }
    }

    #[test]
    fn one_declaration_writes_what_it_reads() {
        let shapes = [Shape::Circle { r: 3, label: Some("c".into()) }, Shape::Dot, Shape::TwoWords];
        let written: Vec<String> = shapes.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
        assert_eq!(written, [r#"{"kind":"circle","r":3,"label":"c"}"#, r#"{"kind":"dot"}"#, r#"{"kind":"two_words"}"#]);
        for (shape, text) in shapes.iter().zip(&written) {
            assert_eq!(&serde_json::from_str::<Shape>(text).unwrap(), shape);
        }
    }

    #[test]
    fn variants_are_renamed_as_serde_renames_them() {
        use super::rename_variant;
        assert_eq!(rename_variant("BetweenTools", "snake_case"), "between_tools");
        assert_eq!(rename_variant("BetweenTools", "camelCase"), "betweenTools");
        assert_eq!(rename_variant("BetweenTools", "kebab-case"), "between-tools");
        assert_eq!(rename_variant("BetweenTools", "SCREAMING_SNAKE_CASE"), "BETWEEN_TOOLS");
        assert_eq!(rename_variant("BetweenTools", "lowercase"), "betweentools");
        assert_eq!(rename_variant("Dot", "snake_case"), "dot");
    }

    #[test]
    fn what_is_wrong_is_said_as_serde_says_it() {
        let err = |v: serde_json::Value| E::deserialize(v).unwrap_err().to_string();
        assert_eq!(err(json!({"kind": "c"})), "unknown variant `c`, expected `a` or `b`");
        assert_eq!(err(json!({"x": 1})), "missing field `kind`");
        assert_eq!(err(json!({"kind": "a"})), "missing field `x`");
        assert_eq!(err(json!({"kind": "a", "x": "one"})), "invalid type: string \"one\", expected u32");
        assert_eq!(err(json!({"kind": 3})), "invalid type: integer `3`, expected variant identifier");
        assert_eq!(err(json!([1])), "invalid type: sequence, expected internally tagged enum E");
        assert_eq!(err(json!("x")), "invalid type: string \"x\", expected internally tagged enum E");
    }
}
