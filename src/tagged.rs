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
        assert_eq!(N::TYPES, ["A", "C"]);
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
