//! `olm.maxOpenShiftVersion`: the OpenShift minor version past which an installed
//! bundle blocks the cluster's upgrade, read the way OLM reads it.
//!
//! In: a catalog's property list (type, raw JSON value text) or a properties
//! annotation's text, and a target version. Out: the maximum as a
//! [`MinorVersion`] (or none), OLM's own error text for a value or list it refuses,
//! and whether the maximum blocks the target.
//!
//! Two readers, because OLM has two (paths are of the repositories the rules were
//! read from; `docs/cluster-upgrade.md` has the table of forms):
//! - **OLM v0** (operator-lifecycle-manager, `pkg/controller/operators/openshift/
//!   helpers.go`, `maxOpenShiftVersion`): the value's JSON text with every leading
//!   and trailing `"` trimmed (nothing unescaped), then blang's tolerant parse, and
//!   it must be exactly `<major>.<minor>` (`4.8.0` and `v4.8` pass, `4.8.1` does not);
//!   two such properties are refused before either is read. It reads the installed
//!   CSV's `operatorframework.io/properties` annotation, which OLM writes from the
//!   catalog's property list with `json.Marshal` (`projection/properties.go`): each
//!   value compacted, `<`, `>`, `&`, U+2028 and U+2029 escaped — so a catalog value
//!   is read that way here. (The catalog server sends numbers through Go's float64,
//!   so an unquoted `4.10` arrives as `4.1`.)
//! - **OLM v1 on OpenShift** (cluster-olm-operator, `internal/versionutils`,
//!   `ToAllowedSemver`): a JSON number must be written `N.N`; a string is used
//!   unescaped, must have exactly one dot and no leading `v`; then the tolerant
//!   parse. It reads the bundle's own CSV annotation `olm.properties`; with two
//!   such properties it reports the first one's error, if any, and the duplicate.
//!
//! Annotations are decoded as Go's `encoding/json` decodes them into each OLM's
//! structs (`openshift/gojson.rs` has the JSON part): keys matched exactly, else
//! case-folded; the last of repeated keys wins; `null` lists, elements and types
//! are Go's zero values; a missing value is empty text.
//!
//! Both block the move from minor `c` to `c+1` when the maximum is below `c+1`,
//! with 4.23 and 5.0 the same release; a value either refuses also blocks (OLM
//! fails closed).

use crate::version_range::blang;
use gojson::{Json, Kind, Span};
use serde::Serialize;
use std::borrow::Cow;

mod gojson;

/// The property type.
pub const PROPERTY: &str = "olm.maxOpenShiftVersion";

/// OLM v0's annotation on an installed CSV: `{"properties":[{"type":…,"value":…}]}`.
pub const V0_ANNOTATION: &str = "operatorframework.io/properties";

/// A bundle CSV's own annotation, a JSON list of properties: what OLM v1 reads.
pub const CSV_ANNOTATION: &str = "olm.properties";

/// An OpenShift `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct MinorVersion {
    /// Major.
    pub major: u64,
    /// Minor.
    pub minor: u64,
}

impl std::fmt::Display for MinorVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl MinorVersion {
    /// A cluster version as given on the command line: `4.17`, `4.17.3`, `v4.17`
    /// (patch, pre-release and build are ignored: OLM compares minors only).
    pub fn parse_target(text: &str) -> Result<MinorVersion, String> {
        let v = blang::parse_tolerant(text)
            .map_err(|e| format!("{text:?} is not an OpenShift version: {e}"))?;
        Ok(MinorVersion {
            major: v.major,
            minor: v.minor,
        })
    }

    /// 4.23 is 5.0 (OpenShift's numbering; both OLMs treat them as one release).
    pub fn normalized(self) -> MinorVersion {
        if self
            == (MinorVersion {
                major: 4,
                minor: 23,
            })
        {
            MinorVersion { major: 5, minor: 0 }
        } else {
            self
        }
    }

    /// Whether a bundle allowing at most `self` blocks a cluster from reaching `target`.
    pub fn blocks(self, target: MinorVersion) -> bool {
        self.normalized() < target.normalized()
    }
}

/// Which OLM reads the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Reader {
    /// OLM v0 (operator-lifecycle-manager).
    V0,
    /// OLM v1 on OpenShift (cluster-olm-operator).
    V1,
}

/// Reads one property value, given as its raw JSON text, as `reader` reads a
/// catalog's property list holding just it (see [`from_properties`]).
pub fn parse_value(raw: &str, reader: Reader) -> Result<MinorVersion, String> {
    let served = as_served(raw, reader)?;
    match reader {
        Reader::V0 => parse_v0(&served),
        Reader::V1 => parse_v1(&served),
    }
}

fn minor_of(v: &semver::Version) -> MinorVersion {
    MinorVersion {
        major: v.major,
        minor: v.minor,
    }
}

/// `helpers.go` `maxOpenShiftVersion`, from the value text in the annotation on.
fn parse_v0(raw: &str) -> Result<MinorVersion, String> {
    let value = raw.trim_matches('"');
    if value.is_empty() {
        return Err("value cannot be \"\" (an empty string)".into());
    }
    let version = blang::parse_tolerant(value)
        .map_err(|e| format!("failed to parse \"{value}\" as semver: {}", e.0))?;
    if version.patch != 0 || !version.pre.is_empty() {
        return Err(format!(
            "property {PROPERTY} must specify only <major>.<minor> version, got invalid value {version}"
        ));
    }
    Ok(minor_of(&version))
}

/// `versionutils.ToAllowedSemver`, wrapped as `checkIncompatibility` wraps it.
fn parse_v1(raw: &str) -> Result<MinorVersion, String> {
    // a json.RawMessage holds no blanks around the value
    let raw = raw.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    let wrap = |e: String| format!("error converting to semver for version {raw}: {e}");
    let json = Json::parse(raw).map_err(wrap)?;
    let root = json.root();
    // json.Unmarshal into `any` reads every number, even nested, as a float64
    let numbers = json.numbers(root);
    if let Some(n) = numbers
        .iter()
        .find(|n| n.parse().is_ok_and(f64::is_infinite))
    {
        return Err(wrap(format!(
            "json: cannot unmarshal number {n} into Go value of type float64"
        )));
    }
    let text = match json.kind(root) {
        Kind::Number if is_major_dot_minor(raw) => raw.to_owned(),
        Kind::Number => {
            return Err(wrap(format!(
                "invalid semver format \"{raw}\": expected <major>.<minor>"
            )));
        }
        Kind::String => json.string(root),
        other => {
            let go_type = match other {
                Kind::Null => "<nil>",
                Kind::Bool => "bool",
                Kind::Array => "[]interface {}",
                _ => "map[string]interface {}",
            };
            return Err(wrap(format!(
                "invalid type {go_type} for olm.maxOpenshiftVersion: {raw}"
            )));
        }
    };
    if text.starts_with('v') || text.matches('.').count() != 1 {
        return Err(wrap("invalid version format".into()));
    }
    let version = blang::parse_tolerant(&text).map_err(|e| wrap(e.0))?;
    Ok(minor_of(&version))
}

/// `^([1-9][0-9]*)\.(0|[1-9][0-9]*)$`, the number form cluster-olm-operator accepts.
fn is_major_dot_minor(text: &str) -> bool {
    let Some((major, minor)) = text.split_once('.') else {
        return false;
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    digits(major)
        && !major.starts_with('0')
        && digits(minor)
        && (minor == "0" || !minor.starts_with('0'))
}

/// Text that is not JSON, refused where each OLM first meets it: v0's catalog
/// operator cannot write the annotation, v1's controller cannot read it.
fn not_json(e: String, reader: Reader) -> String {
    match reader {
        Reader::V0 => format!(
            "failed to marshal properties annotation: json: error calling MarshalJSON for type json.RawMessage: {e}"
        ),
        Reader::V1 => unmarshal_failed(e),
    }
}

fn unmarshal_failed(e: String) -> String {
    format!("failed to unmarshal properties annotation: {e}")
}

/// A catalog property's value as the reader gets it: OLM v0 reads it back out of
/// the annotation `json.Marshal` wrote (compacted; `<`, `>`, `&`, U+2028 and U+2029
/// escaped); OLM v1 reads it inside the `olm.properties` text, as written.
fn as_served(raw: &str, reader: Reader) -> Result<Cow<'_, str>, String> {
    match reader {
        Reader::V0 => gojson::marshal_raw(raw).map(Cow::Owned),
        Reader::V1 => gojson::check(raw).map(|()| Cow::Borrowed(raw)),
    }
    .map_err(|e| not_json(e, reader))
}

/// The `olm.maxOpenShiftVersion` values among `properties` (type, raw JSON value,
/// as a catalog serves them) read as `reader` reads them: `Ok(None)` when there is
/// none; a second one is an error for both OLMs. A value that is not JSON — any
/// property's — fails as the OLM's annotation step fails on it.
pub fn from_properties<'a>(
    properties: impl IntoIterator<Item = (&'a str, &'a str)>,
    reader: Reader,
) -> Result<Option<MinorVersion>, String> {
    let mut values = Vec::new();
    for (typ, raw) in properties {
        if typ == PROPERTY {
            values.push(as_served(raw, reader)?);
        } else {
            gojson::check(raw).map_err(|e| not_json(e, reader))?;
        }
    }
    read(&values, reader)
}

/// Each OLM's rule over the values of its property list, in order.
fn read(values: &[impl AsRef<str>], reader: Reader) -> Result<Option<MinorVersion>, String> {
    match (reader, values) {
        (_, []) => Ok(None),
        (Reader::V0, [one]) => parse_v0(one.as_ref()).map(Some),
        (Reader::V1, [one]) => parse_v1(one.as_ref()).map(Some),
        // OLM v0 looks for a second one before it parses any
        (Reader::V0, _) => Err(format!(
            "defining more than one \"{PROPERTY}\" property is not allowed"
        )),
        // cluster-olm-operator parses the first, then stops at the second; the
        // controller joins both errors (errors.Join: one per line) in the
        // condition it shows
        (Reader::V1, [first, ..]) => {
            let duplicate = format!("more than one {PROPERTY} found in bundle");
            Err(match parse_v1(first.as_ref()) {
                Ok(_) => duplicate,
                Err(e) => format!("{e}\n{duplicate}"),
            })
        }
    }
}

/// OLM v0's reading of an installed CSV's `operatorframework.io/properties`
/// annotation (`{"properties":[…]}`), decoded as Go's `encoding/json` decodes it.
pub fn from_v0_annotation(annotation: &str) -> Result<Option<MinorVersion>, String> {
    let properties = decode_v0(annotation).map_err(unmarshal_failed)?;
    read(&maxima(&properties), Reader::V0)
}

/// OLM v1's reading of a bundle CSV's `olm.properties` annotation (a JSON list),
/// decoded as Go's `encoding/json` decodes it.
pub fn from_csv_annotation(annotation: &str) -> Result<Option<MinorVersion>, String> {
    let properties = decode_v1(annotation).map_err(unmarshal_failed)?;
    read(&maxima(&properties), Reader::V1)
}

/// A property as Go's decoder fills it: `type` stays "" and `value` (a
/// `json.RawMessage`) stays empty until a key sets them.
#[derive(Clone, Default)]
struct GoProperty {
    typ: String,
    value: String,
}

fn maxima(properties: &[GoProperty]) -> Vec<&str> {
    properties
        .iter()
        .filter(|p| p.typ == PROPERTY)
        .map(|p| p.value.as_str())
        .collect()
}

/// The Go types each OLM decodes the list into, as its decoder's type errors
/// name them.
struct GoTypes {
    list: &'static str,
    element: &'static str,
    typ: &'static str,
}

const V0_TYPES: GoTypes = GoTypes {
    list: "Go struct field propertiesAnnotation.properties of type []projection.property",
    element: "Go struct field propertiesAnnotation.properties of type projection.property",
    typ: "Go struct field property.properties.type of type string",
};

const V1_TYPES: GoTypes = GoTypes {
    list: "Go value of type []property.Property",
    element: "Go value of type property.Property",
    typ: "Go struct field Property.type of type string",
};

fn type_error(kind: Kind, target: &str) -> String {
    format!("json: cannot unmarshal {} into {target}", kind.go_word())
}

/// `projection.PropertyListFromPropertiesAnnotation`'s `json.Unmarshal`.
fn decode_v0(text: &str) -> Result<Vec<GoProperty>, String> {
    let json = Json::parse(text)?;
    let root = json.root();
    let mut list = GoList::default();
    match json.kind(root) {
        Kind::Null => {}
        Kind::Object => {
            for (key, value) in json.members(root) {
                if field(&key, &["properties"]).is_some() {
                    list.decode(&json, value, &V0_TYPES)?;
                }
            }
        }
        other => {
            let target = "Go value of type projection.propertiesAnnotation";
            return Err(type_error(other, target));
        }
    }
    Ok(list.into_vec())
}

/// `propertyListFromPropertiesAnnotation`'s `json.Unmarshal`.
fn decode_v1(text: &str) -> Result<Vec<GoProperty>, String> {
    let json = Json::parse(text)?;
    let mut list = GoList::default();
    list.decode(&json, json.root(), &V1_TYPES)?;
    Ok(list.into_vec())
}

/// A Go slice of properties. A repeated `properties` key decodes into the same
/// slice again: Go keeps its backing array, so each element is decoded over
/// what earlier lists left at its index (even past the last list's end), and
/// only `null` or `[]` starts afresh.
#[derive(Default)]
struct GoList {
    backing: Vec<GoProperty>,
    len: usize,
}

impl GoList {
    fn decode(&mut self, json: &Json<'_>, s: Span, types: &GoTypes) -> Result<(), String> {
        match json.kind(s) {
            Kind::Null => *self = GoList::default(),
            Kind::Array => {
                let elements = json.elements(s);
                if elements.is_empty() {
                    *self = GoList::default();
                }
                for (i, element) in elements.iter().enumerate() {
                    if i == self.backing.len() {
                        self.backing.push(GoProperty::default());
                    }
                    if let Some(p) = self.backing.get_mut(i) {
                        decode_property(json, *element, p, types)?;
                    }
                }
                self.len = elements.len();
            }
            other => return Err(type_error(other, types.list)),
        }
        Ok(())
    }

    fn into_vec(mut self) -> Vec<GoProperty> {
        self.backing.truncate(self.len);
        self.backing
    }
}

/// One element decoded over `p`: `null` changes nothing, nor does a `null`
/// type; the value is kept as written, `null` included.
fn decode_property(
    json: &Json<'_>,
    s: Span,
    p: &mut GoProperty,
    types: &GoTypes,
) -> Result<(), String> {
    match json.kind(s) {
        Kind::Null => {}
        Kind::Object => {
            for (key, value) in json.members(s) {
                match (field(&key, &["type", "value"]), json.kind(value)) {
                    (Some("type"), Kind::String) => p.typ = json.string(value),
                    (Some("type"), Kind::Null) | (None, _) => {}
                    (Some("type"), other) => return Err(type_error(other, types.typ)),
                    (Some(_), _) => json.raw(value).clone_into(&mut p.value),
                }
            }
        }
        other => return Err(type_error(other, types.element)),
    }
    Ok(())
}

/// The struct field (of `fields`, lower-case ASCII names) a key sets, as Go's
/// decoder picks it: the exact name, else the name equal under Unicode case
/// folding (`Type`, `VALUE`; `ſ` is `s` and `K` (Kelvin) is `k`).
fn field<'f>(key: &str, fields: &[&'f str]) -> Option<&'f str> {
    let exact = fields.iter().find(|f| **f == key);
    exact
        .or_else(|| fields.iter().find(|f| folds_to(key, f)))
        .copied()
}

fn folds_to(key: &str, name: &str) -> bool {
    let fold = |c: char| match c {
        '\u{17f}' => 's',
        '\u{212a}' => 'k',
        c => c.to_ascii_lowercase(),
    };
    let mut k = key.chars().map(fold);
    name.chars().all(|n| k.next() == Some(n)) && k.next().is_none()
}

#[cfg(test)]
mod tests;
