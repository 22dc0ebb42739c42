//! `olm.maxOpenShiftVersion`: the OpenShift minor version past which an installed
//! bundle blocks the cluster's upgrade, read the way OLM reads it.
//!
//! In: a property value's raw JSON text (or a properties annotation), and a target
//! version. Out: the maximum as a [`MinorVersion`], OLM's own error text for a
//! value it refuses, and whether the maximum blocks the target.
//!
//! Two readers, because OLM has two (paths are of the repositories the rules were
//! read from; `docs/cluster-upgrade.md` has the table of forms):
//! - **OLM v0** (operator-lifecycle-manager, `pkg/controller/operators/openshift/
//!   helpers.go`, `maxOpenShiftVersion`): the value's JSON text with every leading
//!   and trailing `"` trimmed (nothing unescaped), then blang's tolerant parse, and
//!   it must be exactly `<major>.<minor>` (`4.8.0` and `v4.8` pass, `4.8.1` does not).
//!   It reads the installed CSV's `operatorframework.io/properties` annotation,
//!   which OLM writes from the catalog's property list as served — numbers through
//!   Go's float64, so an unquoted `4.10` arrives as `4.1`.
//! - **OLM v1 on OpenShift** (cluster-olm-operator, `internal/versionutils`,
//!   `ToAllowedSemver`): a JSON number must be written `N.N`; a string is used
//!   unescaped, must have exactly one dot and no leading `v`; then the tolerant
//!   parse. It reads the bundle's own CSV annotation `olm.properties`.
//!
//! Both block the move from minor `c` to `c+1` when the maximum is below `c+1`,
//! with 4.23 and 5.0 the same release; a value either refuses also blocks (OLM
//! fails closed).

use crate::version_range::blang;
use serde::Serialize;

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

/// Reads one property value, given as its raw JSON text.
pub fn parse_value(raw: &str, reader: Reader) -> Result<MinorVersion, String> {
    match reader {
        Reader::V0 => parse_v0(raw),
        Reader::V1 => parse_v1(raw),
    }
}

fn minor_of(v: &semver::Version) -> MinorVersion {
    MinorVersion {
        major: v.major,
        minor: v.minor,
    }
}

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

fn parse_v1(raw: &str) -> Result<MinorVersion, String> {
    let wrap = |e: String| format!("error converting to semver for version {raw}: {e}");
    let value: serde_json::Value =
        serde_json::from_str(raw).map_err(|e| wrap(format!("invalid JSON: {e}")))?;
    let text = match &value {
        serde_json::Value::Number(_) => {
            if !is_major_dot_minor(raw.trim()) {
                return Err(wrap(format!(
                    "invalid semver format \"{raw}\": expected <major>.<minor>"
                )));
            }
            raw.trim().to_owned()
        }
        serde_json::Value::String(s) => s.clone(),
        other => {
            let go_type = match other {
                serde_json::Value::Null => "<nil>",
                serde_json::Value::Bool(_) => "bool",
                serde_json::Value::Array(_) => "[]interface {}",
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

/// The `olm.maxOpenShiftVersion` values among `properties` (type, raw JSON value)
/// read as `reader` reads them: `Ok(None)` when there is none; a second one is an
/// error for both OLMs.
pub fn from_properties<'a>(
    properties: impl IntoIterator<Item = (&'a str, &'a str)>,
    reader: Reader,
) -> Result<Option<MinorVersion>, String> {
    let values: Vec<&str> = properties
        .into_iter()
        .filter(|(typ, _)| *typ == PROPERTY)
        .map(|(_, value)| value)
        .collect();
    match (reader, values.as_slice()) {
        (_, []) => Ok(None),
        (_, [one]) => parse_value(one, reader).map(Some),
        // OLM v0 looks for a second one before it parses any
        (Reader::V0, _) => Err(format!(
            "defining more than one \"{PROPERTY}\" property is not allowed"
        )),
        // cluster-olm-operator reads the first, then stops at the second
        (Reader::V1, [first, ..]) => {
            parse_value(first, reader)?;
            Err(format!("more than one {PROPERTY} found in bundle"))
        }
    }
}

/// OLM v0's reading of an installed CSV's `operatorframework.io/properties`
/// annotation (`{"properties":[…]}`).
pub fn from_v0_annotation(annotation: &str) -> Result<Option<MinorVersion>, String> {
    let fail = |e: String| format!("failed to unmarshal properties annotation: {e}");
    // Go unmarshals into a struct: an object (or null), never a list
    let value: serde_json::Value =
        serde_json::from_str(annotation).map_err(|e| fail(e.to_string()))?;
    if !(value.is_object() || value.is_null()) {
        return Err(fail(format!(
            "cannot unmarshal {} into the properties annotation",
            crate::source::kind_of(&value)
        )));
    }
    let parsed: PropertiesAnnotation = if value.is_null() {
        PropertiesAnnotation {
            properties: Vec::new(),
        }
    } else {
        serde_json::from_str(annotation).map_err(|e| fail(e.to_string()))?
    };
    from_raw(&parsed.properties, Reader::V0)
}

/// OLM v1's reading of a bundle CSV's `olm.properties` annotation (a JSON list).
pub fn from_csv_annotation(annotation: &str) -> Result<Option<MinorVersion>, String> {
    let parsed: Vec<RawProperty> = serde_json::from_str(annotation)
        .map_err(|e| format!("failed to unmarshal properties annotation: {e}"))?;
    from_raw(&parsed, Reader::V1)
}

/// [`from_properties`] over an annotation's decoded list.
fn from_raw(properties: &[RawProperty], reader: Reader) -> Result<Option<MinorVersion>, String> {
    from_properties(
        properties.iter().map(|p| (p.typ.as_str(), p.value.get())),
        reader,
    )
}

#[derive(serde::Deserialize)]
struct PropertiesAnnotation {
    #[serde(default)]
    properties: Vec<RawProperty>,
}

#[derive(serde::Deserialize)]
struct RawProperty {
    #[serde(rename = "type")]
    typ: String,
    value: Box<serde_json::value::RawValue>,
}

#[cfg(test)]
mod tests;
