//! Bundle properties.
//!
//! In: one `{type, value}` object from a bundle's `properties`. Out: a [`Property`]
//! keeping the raw value (served as normalised JSON) and a typed reading of the
//! types the server understands:
//!
//! | type | value |
//! |---|---|
//! | `olm.package` | `{packageName, version, release?}` |
//! | `olm.package.required` | `{packageName, versionRange}` |
//! | `olm.gvk`, `olm.gvk.required` | `{group, kind, version}` |
//! | `olm.bundle.object` | `{data}`: standard base64 of a manifest |
//! | `olm.csv.metadata` | CSV metadata, read when a CSV is synthesised |
//! | `olm.channel` | `{channelName}` |
//!
//! Other types are opaque. A property without a `value` is an error, as in the
//! reference.

use super::decode;
use crate::arena::Arena;
use crate::model::csv::CsvMetadata;
use crate::source::json::{self, Html, Numbers};
use base64::Engine;
use bytes::Bytes;
use serde_json::{Map, Value};

/// Property type names.
pub mod types {
    /// The bundle's own package and version.
    pub const PACKAGE: &str = "olm.package";
    /// A dependency on a package version range.
    pub const PACKAGE_REQUIRED: &str = "olm.package.required";
    /// A provided API.
    pub const GVK: &str = "olm.gvk";
    /// A required API.
    pub const GVK_REQUIRED: &str = "olm.gvk.required";
    /// An embedded manifest.
    pub const BUNDLE_OBJECT: &str = "olm.bundle.object";
    /// CSV metadata used instead of an embedded CSV.
    pub const CSV_METADATA: &str = "olm.csv.metadata";
    /// The channel a bundle was built for.
    pub const CHANNEL: &str = "olm.channel";
    /// A generic dependency constraint (CEL and compound constraints).
    pub const CONSTRAINT: &str = "olm.constraint";
}

/// A group/version/kind.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gvk {
    /// API group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Kind.
    pub kind: String,
}

/// `olm.package` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageProp {
    /// Package name.
    pub package_name: String,
    /// Version text.
    pub version: String,
    /// Release, if present.
    pub release: Option<String>,
}

/// `olm.package.required` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageRequired {
    /// Required package.
    pub package_name: String,
    /// Version range (not validated here, as in the reference).
    pub version_range: String,
}

/// The typed reading of a property.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    /// `olm.package`.
    Package(PackageProp),
    /// `olm.package.required`.
    PackageRequired(PackageRequired),
    /// `olm.gvk`.
    Gvk(Gvk),
    /// `olm.gvk.required`.
    GvkRequired(Gvk),
    /// `olm.bundle.object`, decoded bytes.
    BundleObject(Bytes),
    /// `olm.csv.metadata`, decoded (moved into the bundle's synthesised CSV when
    /// the bundle is decoded; an empty default is left behind).
    CsvMetadata(Box<CsvMetadata>),
    /// `olm.channel`.
    Channel(String),
    /// Anything else.
    Other,
}

/// One bundle property.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// `type`.
    pub typ: String,
    /// `value` as normalised JSON (sorted keys, compact, `<>&` literal), the form
    /// replies carry; `null` for bundle objects and CSV metadata, which are kept
    /// decoded in [`Property::parsed`] instead. Written when the bundle is decoded,
    /// so the parsed tree can be freed there.
    pub value_json: String,
    /// Typed reading.
    pub parsed: Parsed,
}

/// Parses property `index` of a bundle. Bundle objects are decoded into `arena`.
pub fn parse(index: usize, item: Value, arena: &mut Arena) -> Result<Property, String> {
    let mut item = match item {
        Value::Object(m) => m,
        other => {
            return Err(format!(
                "parse property[{index}]: property must be an object, found {}",
                crate::source::kind_of(&other)
            ));
        }
    };
    let typ = decode::string(&item, "type").map_err(|e| format!("parse property[{index}]: {e}"))?;
    // moved, not copied: a bundle object's value is a large base64 string
    let value = decode::take_field(&mut item, "value");
    let ctx = |e: String| format!("parse property[{index}] of type {typ:?}: {e}");
    let Some(value) = value else {
        return Err(ctx(
            "property has no value (unexpected end of JSON input)".into()
        ));
    };
    // The decoded forms are all that is needed of bundle objects and CSV metadata
    // from here on: their values are not kept.
    let (parsed, value) = if typ == types::CSV_METADATA {
        let metadata = CsvMetadata::from_value(value).map_err(ctx)?;
        (Parsed::CsvMetadata(Box::new(metadata)), Value::Null)
    } else {
        match typed(&typ, &value, arena).map_err(ctx)? {
            object @ Parsed::BundleObject(_) => (object, Value::Null),
            parsed => (parsed, value),
        }
    };
    Ok(Property {
        typ,
        value_json: json::normalized(&value),
        parsed,
    })
}

fn typed(typ: &str, value: &Value, arena: &mut Arena) -> Result<Parsed, String> {
    let empty = Map::new();
    let obj = |v| -> Result<&Map<String, Value>, String> {
        Ok(decode::as_object(v, "value")?.unwrap_or(&empty))
    };
    Ok(match typ {
        types::PACKAGE => {
            let o = obj(value)?;
            let release = match decode::field(o, "release") {
                None | Some(Value::Null) => None,
                Some(_) => Some(decode::string(o, "release")?).filter(|r| !r.is_empty()),
            };
            Parsed::Package(PackageProp {
                package_name: decode::string(o, "packageName")?,
                version: decode::string(o, "version")?,
                release,
            })
        }
        types::PACKAGE_REQUIRED => {
            let o = obj(value)?;
            Parsed::PackageRequired(PackageRequired {
                package_name: decode::string(o, "packageName")?,
                version_range: decode::string(o, "versionRange")?,
            })
        }
        types::GVK | types::GVK_REQUIRED => {
            let o = obj(value)?;
            let gvk = Gvk {
                group: decode::string(o, "group")?,
                version: decode::string(o, "version")?,
                kind: decode::string(o, "kind")?,
            };
            if typ == types::GVK {
                Parsed::Gvk(gvk)
            } else {
                Parsed::GvkRequired(gvk)
            }
        }
        types::BUNDLE_OBJECT => {
            let o = obj(value)?;
            let data = match decode::field(o, "data") {
                None | Some(Value::Null) => "",
                Some(Value::String(s)) => s.as_str(),
                Some(other) => {
                    return Err(format!(
                        "field \"data\" must be a string, found {}",
                        crate::source::kind_of(other)
                    ));
                }
            };
            Parsed::BundleObject(decode_base64(data, arena)?)
        }
        types::CHANNEL => Parsed::Channel(decode::string(obj(value)?, "channelName")?),
        _ => Parsed::Other,
    })
}

/// Go's `base64.StdEncoding` as `encoding/json` applies it to `[]byte` fields:
/// padding required, line breaks ignored, stray bits after the last symbol allowed.
const GO_STD_BASE64_CONFIG: base64::engine::GeneralPurposeConfig =
    base64::engine::GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true);

/// The decoder of bundle objects, most of a large catalog's bytes: SIMD where the
/// CPU has it (picked at first use), the same rules either way.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static GO_STD_BASE64: std::sync::LazyLock<base64::engine::Simd> =
    std::sync::LazyLock::new(|| base64::engine::Simd::standard(GO_STD_BASE64_CONFIG));
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
static GO_STD_BASE64: base64::engine::GeneralPurpose =
    base64::engine::GeneralPurpose::new(&base64::alphabet::STANDARD, GO_STD_BASE64_CONFIG);

/// `data` without the line breaks Go's base64 decoder skips.
fn without_line_breaks(data: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memchr2(b'\n', b'\r', data.as_bytes()).is_some() {
        data.replace(['\n', '\r'], "").into()
    } else {
        data.into()
    }
}

/// Decodes base64 text as Go's `encoding/json` decodes a `[]byte` field (package
/// icons, bundle objects).
pub fn decode_go_base64(data: &str) -> Result<Vec<u8>, base64::DecodeError> {
    GO_STD_BASE64.decode(without_line_breaks(data).as_bytes())
}

/// Decodes a bundle object's base64 text: a JSON manifest (by far the most common)
/// straight into `arena`, where the index keeps it; anything else (YAML, converted
/// to JSON later) into a temporary buffer, so its text is not kept.
fn decode_base64(data: &str, arena: &mut Arena) -> Result<Bytes, String> {
    let data = without_line_breaks(data);
    let describe = |e: base64::DecodeError| format!("data: illegal base64 data: {e}");
    // '{' is 0x7B: the first symbol is 'e' (30), the second's top two bits are set
    let json = matches!(data.as_bytes(), [b'e', second, ..] if GO_STD_BASE64_SECOND_OF_BRACE.contains(second));
    if !json {
        return GO_STD_BASE64
            .decode(data.as_bytes())
            .map(Bytes::from)
            .map_err(describe);
    }
    arena
        .fill(base64::decoded_len_estimate(data.len()), |buf| {
            GO_STD_BASE64.decode_slice(data.as_bytes(), buf)
        })
        .map_err(|e| match e {
            base64::DecodeSliceError::DecodeError(e) => describe(e),
            base64::DecodeSliceError::OutputSliceTooSmall => {
                "data: internal error: base64 output buffer too small".to_string()
            }
        })
}

/// The base64 symbols whose value has its top two bits set (48..=63): after an
/// `e`, they decode to a first byte of `{`.
const GO_STD_BASE64_SECOND_OF_BRACE: &[u8] = b"wxyz0123456789+/";

/// Checks a release: at most 20 characters of dot-separated semver prerelease identifiers.
pub fn validate_release(release: &str) -> Result<(), String> {
    if release.len() > 20 {
        return Err(format!(
            "invalid release {release:?}: must be at most 20 characters"
        ));
    }
    for (i, segment) in release.split('.').enumerate() {
        let problem = if segment.is_empty() {
            Some("Prerelease is empty".to_string())
        } else if !segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            Some(format!(
                "Invalid character(s) found in prerelease {segment:?}"
            ))
        } else if segment.len() > 1
            && segment.starts_with('0')
            && segment.chars().all(|c| c.is_ascii_digit())
        {
            Some(format!(
                "Numeric PreRelease version must not contain leading zeroes {segment:?}"
            ))
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(format!("invalid release {release:?}: segment {i}: {p}"));
        }
    }
    Ok(())
}

/// Decodes the `olm.bundle.object` manifests of a bundle, in property order, and
/// finds the ClusterServiceVersion among them.
///
/// Manifests starting with `{` are kept verbatim; others are YAML, converted to JSON
/// with sorted keys and HTML escaping (as Go's `json.Marshal` writes them). The CSV is
/// the first manifest that decodes and whose `kind` is exactly `ClusterServiceVersion`.
///
/// The decoded bytes are moved out of the properties (which keep an empty vector).
pub fn bundle_objects(
    properties: &mut [Property],
    arena: &mut Arena,
    limits: &crate::source::ParseLimits,
) -> Result<(Vec<Bytes>, Option<usize>), String> {
    let mut objects = Vec::new();
    let mut csv = None;
    for (i, p) in properties.iter_mut().enumerate() {
        let Parsed::BundleObject(bytes) = &mut p.parsed else {
            continue;
        };
        let bytes = std::mem::take(bytes);
        let utf8 = std::str::from_utf8(&bytes).map_err(|_| {
            format!("parse property at index {i} as bundle object: manifest is not valid UTF-8")
        })?;
        let text: Bytes = if bytes.first() == Some(&b'{') {
            bytes.clone()
        } else {
            match crate::source::yaml::document_to_json_with(utf8, limits) {
                Ok(Some(v)) => {
                    arena.copy(json::to_string(&v, Html::Escape, Numbers::KeepIntegers).as_bytes())
                }
                Ok(None) => Bytes::from_static(b"null"),
                Err(e) => return Err(format!("parse property at index {i} as bundle object: {e}")),
            }
        };
        if csv.is_none() && kind_is_csv(&text) {
            csv = Some(objects.len());
        }
        objects.push(text);
    }
    Ok((objects, csv))
}

fn kind_is_csv(text: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct KindOnly {
        kind: Option<Value>,
    }
    matches!(
        serde_json::from_slice::<KindOnly>(text),
        Ok(KindOnly { kind: Some(Value::String(k)) }) if k == "ClusterServiceVersion"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prop(v: Value) -> Result<Property, String> {
        parse(0, v, &mut Arena::new())
    }

    #[test]
    fn package_property_fields_match_case_insensitively() {
        let p = prop(
            json!({"type": "olm.package", "value": {"PackageName": "foo", "version": "1.0.0"}}),
        )
        .expect("valid");
        assert_eq!(
            p.parsed,
            Parsed::Package(PackageProp {
                package_name: "foo".into(),
                version: "1.0.0".into(),
                release: None
            })
        );
    }

    #[test]
    fn missing_value_is_an_error_naming_index_and_type() {
        let e = prop(json!({"type": "olm.gvk"})).expect_err("no value");
        assert!(e.contains("property[0]") && e.contains("olm.gvk"), "{e}");
    }

    #[test]
    fn wrongly_typed_field_is_an_error_naming_the_field() {
        let e =
            prop(json!({"type": "olm.package", "value": {"packageName": "foo", "version": 1.0}}))
                .expect_err("number");
        assert!(e.contains("\"version\"") && e.contains("number"), "{e}");
    }

    #[test]
    fn bad_base64_is_an_error() {
        let e = prop(json!({"type": "olm.bundle.object", "value": {"data": "!!"}}))
            .expect_err("base64");
        assert!(e.contains("base64"), "{e}");
    }

    #[test]
    fn base64_follows_go_std_encoding() {
        let decode = |s: &str| decode_base64(s, &mut Arena::new()).map(|b| b.to_vec());
        assert_eq!(decode("aGk=").expect("padded"), b"hi");
        assert_eq!(decode("aG\nk=\r\n").expect("line breaks"), b"hi");
        // Go ignores stray bits after the last symbol unless in strict mode
        assert_eq!(decode("aGl=").expect("trailing bits"), b"hi");
        assert!(decode("aGk").is_err(), "padding is required");
        let e = decode(&format!("{}!", "A".repeat(100))).expect_err("bad symbol");
        assert!(e.starts_with("data: illegal base64 data: "), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn base64_decodes_what_go_encodes(
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
            wrap in 0usize..80,
        ) {
            let mut text = base64::engine::general_purpose::STANDARD.encode(&data);
            if wrap > 0 {
                // Go's encoders may wrap lines (MIME style); the decoder skips the breaks
                let wrapped: Vec<String> = text
                    .as_bytes()
                    .chunks(wrap)
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect();
                text = wrapped.join("\r\n");
            }
            let decoded = decode_base64(&text, &mut Arena::new()).expect("valid");
            proptest::prop_assert_eq!(&decoded[..], &data[..]);
        }
    }

    #[test]
    fn opaque_types_keep_any_value() {
        let p = prop(json!({"type": "olm.maxOpenShiftVersion", "value": "4.16"})).expect("valid");
        assert_eq!(p.parsed, Parsed::Other);
        assert_eq!(p.value_json, "\"4.16\"");
    }

    #[test]
    fn releases() {
        assert!(validate_release("alpha.1.0.0").is_ok());
        assert_eq!(
            validate_release("!!!").expect_err("bad"),
            "invalid release \"!!!\": segment 0: Invalid character(s) found in prerelease \"!!!\""
        );
        assert!(validate_release("01").is_err());
        assert!(validate_release(&"a".repeat(21)).is_err());
    }

    #[test]
    fn yaml_objects_are_converted_and_json_objects_kept_verbatim() {
        let enc = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let mut props: Vec<Property> = [
            json!({"type": "olm.bundle.object", "value": {"data": enc("{ \"kind\": \"ConfigMap\" }")}}),
            json!({"type": "olm.bundle.object", "value": {"data": enc("kind: ClusterServiceVersion\nspec:\n  x: <b>\n  count: 12\n")}}),
        ]
        .into_iter()
        .map(|v| prop(v).expect("valid"))
        .collect();
        let (objects, csv) =
            bundle_objects(&mut props, &mut Arena::new(), &Default::default()).expect("objects");
        assert_eq!(objects[0], "{ \"kind\": \"ConfigMap\" }");
        assert_eq!(
            objects[1],
            r#"{"kind":"ClusterServiceVersion","spec":{"count":12,"x":"\u003cb\u003e"}}"#
        );
        assert_eq!(csv, Some(1));
    }
}
